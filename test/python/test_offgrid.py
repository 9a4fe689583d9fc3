"""Off-grid sources and receivers (``points NAME real [spacing P];``, docs/design/025 section 3): the
corner cells and weights computed once at load, injections of weight x value in point then corner order,
records summed over the corners in corner order.  examples/seismic_surface.stn (a free surface on top,
sponges elsewhere, a source and 1,000 receivers given in metres) against the NumPy reference, in-core,
out of core on whole planes and y-blocked tiles over several sweeps with points straddling every block
edge, and under 2 and 3 MPI ranks with points on the cuts: the same bits everywhere, bytes as predicted.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
import reference as ref
from conftest import load_report, records_across_a_kill, stencilc_command
from reference_driver import offgrid_corners, offgrid_sum

EX = ref.EXAMPLES["seismic_surface"]
SIZE = (20, 17, 14)  # x, y, z
STEPS = 12
H = EX.params["h"]


def straddling(size, h: float) -> np.ndarray:
    """Points whose cells straddle every plane z | z+1 and row y | y+1 of the interior (so every block
    edge and every cut), some exactly on a cell (a corner of weight 0), two sharing their cells."""
    nx, ny, nz = size
    pts = [[nx / 2 + 0.25, 1.5 + (k % (ny - 3)), 1.5 + k] for k in range(nz - 3)]
    pts += [[2.75, 1.0 + k, 1.0 + (k % (nz - 3))] for k in range(ny - 3)]  # integer y and z
    pts += [[3.1, 4.2, 5.3], [3.6, 4.7, 5.8], [nx - 2.01, ny - 2.01, nz - 2.01], [1.0, 1.0, 1.0]]
    return np.array(pts) * h


def files(d: Path, size, steps: int, nrcv: int = 1000) -> list[str]:
    """The model's run-time files in d: a wavelet with energy early, a source, receivers (the example's
    1,000 on a plane, then the straddling ones); the arguments that give them."""
    src = np.concatenate([ref.seismic_src(size, H), straddling(size, H)[::3]])
    rcv = np.concatenate([ref.seismic_rcv(size, nrcv, H), straddling(size, H)])
    data = {"wavelet": ref.ricker(steps + 2, 0.001, 80.0, 0.004), "src": src, "rcv": rcv}
    args = []
    for k, a in data.items():
        np.save(d / f"{k}.npy", a)
        args += ["--init", f"{k}={d / k}.npy"]
    return args


def run(run_program, exe, d: Path, args: list[str], extra, size=SIZE, steps=STEPS) -> dict:
    d.mkdir()
    rc, _, err = run_program(exe, ["--size", ",".join(map(str, size)), "--steps", str(steps), "--quiet", *args,
                                   "--out", f"u={d / 'u.npy'}", "--out", f"rec={d / 'rec.npy'}",
                                   "--report", str(d / "r.json"), *extra,
                                   *(() if "--dir" in extra else ("--dir", str(d)))])
    assert rc == 0, f"{d.name}: {err}"
    r = load_report(d / "r.json")
    assert (r["bytes_read"], r["bytes_written"]) == (r["predicted_bytes_read"], r["predicted_bytes_written"]), d.name
    return {"u": np.load(d / "u.npy"), "rec": np.load(d / "rec.npy"), "report": r}


def engines(size) -> list[tuple[str, tuple[str, ...]]]:
    """In-core with and without time tiles, out of core on whole planes (three schedules, blocks of 2 or 3
    planes, sweeps of 3 or 4 steps) and on y-blocked tiles (4 rows by 3 planes), and mmap."""
    return [("incore", ("--mode", "incore", "--time-tiles", "off")),
            ("incore-tiles", ("--mode", "incore", "--time-tiles", "5,4,3")),
            ("ooc-ref", ("--mode", "ooc", "--schedule", "ref", "--block", f"{size[1]},3,4")),
            ("ooc-alg1", ("--mode", "ooc", "--schedule", "alg1", "--block", f"{size[1]},2,3")),
            ("ooc-alg2", ("--mode", "ooc", "--schedule", "alg2", "--block", f"{size[1]},3,4")),
            ("ooc-y-dram", ("--mode", "ooc", "--block", "4,3,3", "--strip", "dram")),
            ("ooc-y-file", ("--mode", "ooc", "--block", "4,3,4", "--strip", "file")),
            ("mmap", ("--mode", "mmap"))]


def test_seismic_every_engine_gives_the_bits_of_incore_and_the_reference(compile_example, run_program, tmp_path):
    exe = compile_example("seismic_surface")
    args = files(tmp_path, SIZE, STEPS)
    got = {how: run(run_program, exe, tmp_path / how, args, extra) for how, extra in engines(SIZE)}
    base = got["incore"]
    nrcv = len(np.load(tmp_path / "rcv.npy"))
    assert base["rec"].shape == (STEPS, nrcv) and nrcv > 1000
    for how, res in got.items():
        for k in ("u", "rec"):
            assert res[k].tobytes() == base[k].tobytes(), f"{how}: {k} differs from in-core"
    # the reference: the same model in NumPy (injections by np.add.at in point then corner order)
    fields = EX.initial(SIZE, None, {k: np.load(tmp_path / f"{k}.npy") for k in ("wavelet", "src", "rcv")})
    want = EX.run(fields, None, STEPS)
    for k in ("u", "rec"):
        np.testing.assert_allclose(base[k], want[k], rtol=0, atol=1e-12 * np.abs(want[k]).max(), err_msg=k)
    assert np.abs(want["rec"][:, :1000]).max() > 0  # the wave reached the plane of receivers
    # the last row of samples is the trilinear interpolation of the final level, bit for bit
    cells, w = offgrid_corners(np.load(tmp_path / "rcv.npy"), H)
    at = base["u"][cells[:, 2], cells[:, 1], cells[:, 0]]
    assert offgrid_sum(at, w, 8).tobytes() == base["rec"][-1].tobytes()


EXACT = """
stencil exact {
  grid 2d FT;
  param h = 0.5;
  input k;
  series w;
  points src real;
  points rcv real spacing h;
  state u;
  u' = u + 0 * (u[1,0] + u[-1,0] + u[0,1] + u[0,-1]);   // u, with a halo of one cell
  inject u at src += k * w[t];
  record r = u' at rcv;
  record q = u at rcv;
  boundary dirichlet;
}
"""


@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_injection_and_interpolation_equal_numpy_exactly(dtype, tmp_path, run_program):
    """u' = u with off-grid sources: u after the steps is exactly NumPy's np.add.at of weight x k x w[t] in
    point then corner order (points sharing cells, points on the edges of 3-row blocks); the records are
    exactly the weighted sums of the corners, in every engine."""
    (tmp_path / "exact.stn").write_text(EXACT.replace("FT", dtype))
    cmd, env = stencilc_command()
    p = subprocess.run([*cmd, str(tmp_path / "exact.stn"), "-o", str(tmp_path / "exact")], capture_output=True,
                       text=True, env=env)
    assert p.returncode == 0, p.stderr
    nx, ny, T = 13, 11, 7
    ft = np.float64 if dtype == "f64" else np.float32
    rng = np.random.default_rng(5)
    src = np.concatenate([rng.uniform(1, [nx - 2, ny - 2], (9, 2)), [[3.5, 3.999], [3.5, 3.999], [4.0, 4.0]]])
    rcv = np.concatenate([rng.uniform(1, [nx - 2, ny - 2], (6, 2)), src]) * 0.5
    k = rng.uniform(0.5, 2, (ny, nx)).astype(ft)
    wv = rng.uniform(-1, 1, T + 1).astype(ft)
    for n, a in (("src", src), ("rcv", rcv), ("k", k), ("w", wv)):
        np.save(tmp_path / f"{n}.npy", a)
    args = [f"--init={n}={tmp_path / n}.npy" for n in ("src", "rcv", "k", "w")]
    u = np.zeros((ny, nx), ft)
    cs, ws = offgrid_corners(src)
    cr, wr = offgrid_corners(rcv, 0.5)
    want_r, want_q = [], []
    for t in range(T):
        before = u[cr[:, 1], cr[:, 0]].copy()
        np.add.at(u, (cs[:, 1], cs[:, 0]), ws.astype(ft) * (k[cs[:, 1], cs[:, 0]] * wv[t]))
        want_r.append(offgrid_sum(u[cr[:, 1], cr[:, 0]], wr, 4))
        want_q.append(offgrid_sum(before, wr, 4))
    for how, extra in (("incore", ("--mode", "incore")), ("ooc", ("--mode", "ooc", "--block", "3,2")),
                       ("ooc-alg1", ("--mode", "ooc", "--schedule", "alg1", "--block", "4,3"))):
        d = tmp_path / how
        d.mkdir()
        rc, _, err = run_program(tmp_path / "exact", ["--size", f"{nx},{ny}", "--steps", T, "--quiet", *args,
                                                      "--dir", d, "--out", f"u={d}/u.npy", "--out",
                                                      f"r={d}/r.npy", "--out", f"q={d}/q.npy", *extra])
        assert rc == 0, err
        assert np.load(d / "u.npy").tobytes() == u.tobytes(), how
        assert np.load(d / "r.npy").tobytes() == np.array(want_r).tobytes(), how
        assert np.load(d / "q.npy").tobytes() == np.array(want_q).tobytes(), how


@pytest.mark.parametrize("coords,message", [
    ([[1.5, 2.0], [9.0, 3.5]], "point 1 of 'src' (x = 9, y = 3.5) reaches the boundary layer or beyond: its corner "
                               "cells along x are 9 and 10, and the interior is x in [1, 10)"),
    ([[0.9, 2.0]], "point 0 of 'src' (x = 0.90000000000000002, y = 2) reaches the boundary layer or beyond: its "
                   "corner cells along x are 0 and 1"),
    ([[2.0, np.nan]], "point 0 of 'src' (x = 2, y = nan) reaches the boundary layer or beyond"),
    (np.array([[2, 2]], dtype=np.int64), "holds '<i8'; off-grid points are reals ('<f8'): convert with "
                                         "a.astype('<f8')"),
])
def test_off_grid_points_outside_the_interior_are_refused(coords, message, tmp_path, run_program):
    (tmp_path / "p.stn").write_text(EXACT.replace("FT", "f64"))
    cmd, env = stencilc_command()
    p = subprocess.run([*cmd, str(tmp_path / "p.stn"), "-o", str(tmp_path / "p")], capture_output=True, text=True,
                       env=env)
    assert p.returncode == 0, p.stderr
    np.save(tmp_path / "src.npy", np.asarray(coords))
    np.save(tmp_path / "rcv.npy", np.array([[1.0, 1.0]]))
    np.save(tmp_path / "w.npy", np.ones(4))
    rc, _, err = run_program(tmp_path / "p", ["--size", "11,8", "--steps", "2", "--mode", "incore", "--init",
                                              f"src={tmp_path}/src.npy", "--init", f"rcv={tmp_path}/rcv.npy",
                                              "--init", f"w={tmp_path}/w.npy"])
    assert rc != 0 and message in err, err


def test_receivers_are_data_not_code(compile_example, run_program, tmp_path):
    """1,000 receivers cost what 1 costs to build: the compiler never sees them (one program, compiled
    once, runs both), and the run with 1,000 (loading them, their weights, 10 steps of 40^3) takes less
    than 3 times the run with 1 (a ratio of two runs of the same program, best of 4 each; not a wall-clock bound)."""
    exe = compile_example("seismic_surface")
    size, steps = (40, 40, 40), 10
    args = {}
    for n in (1, 1000):
        d = tmp_path / f"n{n}"
        d.mkdir()
        args[n] = files(d, size, steps, n)
        np.save(d / "rcv.npy", ref.seismic_rcv(size, n, H))
    times = {1: float("inf"), 1000: float("inf")}
    for _ in range(4):  # interleaved, the best of each (a machine shared with other work)
        for n in (1, 1000):
            t0 = time.perf_counter()
            rc, _, err = run_program(exe, ["--size", ",".join(map(str, size)), "--steps", steps, "--quiet",
                                           "--mode", "incore", *args[n], "--out", f"rec={tmp_path}/rec{n}.npy"])
            times[n] = min(times[n], time.perf_counter() - t0)
            assert rc == 0, err
    assert np.load(tmp_path / "rec1.npy").shape == (steps, 1) and np.load(tmp_path / "rec1000.npy").shape == (steps, 1000)
    assert times[1000] < 3 * times[1], times


def test_off_grid_points_add_no_compile_time(tmp_path):
    """The points are data: the program with a source and receivers off the grid compiles in about the time
    of the same stencil with none (a ratio of the two compiles, after a third one has put the runtime's
    library in the cache; not a wall-clock bound): the coordinates, 1 or 1,000, are read by the program."""
    bare = "\n".join(ln for ln in EXACT.replace("FT", "f64").splitlines()
                     if not ln.strip().startswith(("points", "inject", "record", "series")))
    texts = {"bare": bare.replace("input k;", "input k;\n  u' = u + 0 * k;").replace("  u' = u + 0 * (", "  // ("),
             "points": EXACT.replace("FT", "f64")}
    texts["warm"] = texts["bare"].replace("h = 0.5", "h = 0.25")
    took = {}
    for i, name in enumerate(("warm", "points", "bare")):  # (warm: the runtime's library into the cache)
        (tmp_path / f"{name}.stn").write_text(texts[name])
        cmd, env = stencilc_command()
        t0 = time.perf_counter()
        p = subprocess.run([*cmd, str(tmp_path / f"{name}.stn"), "-o", str(tmp_path / f"{name}{i}")],
                           capture_output=True, text=True, env=env)
        assert p.returncode == 0, p.stderr
        if i:
            took[name] = time.perf_counter() - t0
    assert took["points"] < 1.5 * took["bare"], took


MPIRUN = shutil.which("mpirun")


@pytest.mark.skipif(not (MPIRUN and shutil.which("mpicc")), reason="OpenMPI is not installed here")
def test_ranks_with_points_on_the_cuts_give_the_bits_of_one_process(compile_example, run_program, tmp_path):
    """2 and 3 ranks (their cuts along z, through the points that straddle every plane), out of core and
    in-core: the bits of one process, every rank's bytes as predicted."""
    from test_mpi import MPI_FLAGS

    exe1 = compile_example("seismic_surface")
    cmd, env = stencilc_command()
    exe = tmp_path / "seismic_mpi"
    p = subprocess.run([*cmd, str(Path(ref.__file__).parent / "seismic_surface.stn"), "--mpi", "-o", str(exe)],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    args = files(tmp_path, SIZE, STEPS)
    want = run(run_program, exe1, tmp_path / "one", args, ("--mode", "incore"))

    def mpirun(P):
        def go(exe, a, timeout=300):
            q = subprocess.run([MPIRUN, *MPI_FLAGS, "-np", str(P), str(exe), *map(str, a)], capture_output=True,
                               text=True, timeout=timeout)
            return q.returncode, q.stdout, q.stderr
        return go

    for P, mode in ((2, "ooc"), (3, "ooc"), (2, "incore"), (3, "incore")):
        d = tmp_path / f"p{P}{mode}"
        extra = ("--mode", "ooc", "--dir", str(d / "s%r"), "--block", f"{SIZE[1]},2,3") if mode == "ooc" \
            else ("--mode", "incore")
        got = run(mpirun(P), exe, d, args, extra)
        for k in ("u", "rec"):
            assert got[k].tobytes() == want[k].tobytes(), f"{P} ranks {mode}: {k} differs"


def test_off_grid_records_survive_a_kill_and_resume(compile_example, tmp_path):
    """SIGKILL after a sweep has committed, then --resume: the corners' samples of the sweeps done are read
    back from the records file, and the summed records are the uninterrupted run's, bit for bit."""
    exe = compile_example("seismic_surface")
    size, steps = (48, 48, 48), 60
    args = files(tmp_path, size, steps)
    common = [str(exe), "--size", ",".join(map(str, size)), "--steps", str(steps), "--quiet", "--mode", "ooc",
              "--block", "48,8,5", "--threads", "1", *args]
    a, b, rep = records_across_a_kill(common, tmp_path, "seismic_surface")
    assert rep["bytes_read"] == rep["predicted_bytes_read"] and rep["bytes_written"] == rep["predicted_bytes_written"]
    assert np.load(b).tobytes() == np.load(a).tobytes()
    assert np.load(a).shape == (steps, len(np.load(tmp_path / "rcv.npy")))


def test_a_1d_grid_takes_off_grid_points_on_its_fold(tmp_path, run_program):
    """A 1d grid (run as rows of a fold): two corners a point, exact against NumPy in-core and out of core
    (blocks of 700 cells, so corners straddle the fold's rows and the blocks)."""
    (tmp_path / "one.stn").write_text("stencil one {\n  grid 1d f64;\n  series w;\n  points src real;\n"
                                      "  points rcv real;\n  state u;\n  u' = u + 0 * (u[1] + u[-1]);\n"
                                      "  inject u at src += w[t];\n  record r = u' at rcv;\n}\n")
    cmd, env = stencilc_command()
    p = subprocess.run([*cmd, str(tmp_path / "one.stn"), "-o", str(tmp_path / "one")], capture_output=True,
                       text=True, env=env)
    assert p.returncode == 0, p.stderr
    n, T = 5000, 5
    rng = np.random.default_rng(2)
    src = rng.uniform(1, n - 2, (50, 1))
    rcv = np.concatenate([rng.uniform(1, n - 2, (30, 1)), src, [[699.5], [1399.25]]])
    wv = rng.uniform(-1, 1, T + 1)
    for k, a in (("src", src), ("rcv", rcv), ("w", wv)):
        np.save(tmp_path / f"{k}.npy", a)
    u = np.zeros(n)
    cs, ws = offgrid_corners(src)
    cr, wr = offgrid_corners(rcv)
    want = []
    for t in range(T):
        np.add.at(u, cs[:, 0], ws * wv[t])
        want.append(offgrid_sum(u[cr[:, 0]], wr, 2))
    for how, extra in (("incore", ("--mode", "incore")), ("ooc", ("--mode", "ooc", "--block", "700,2"))):
        d = tmp_path / how
        d.mkdir()
        rc, _, err = run_program(tmp_path / "one", ["--size", n, "--steps", T, "--quiet", "--dir", d,
                                                    *[f"--init={k}={tmp_path / k}.npy" for k in ("src", "rcv", "w")],
                                                    "--out", f"u={d}/u.npy", "--out", f"r={d}/r.npy", *extra])
        assert rc == 0, err
        assert np.load(d / "u.npy").tobytes() == u.tobytes(), how
        assert np.load(d / "r.npy").tobytes() == np.array(want).tobytes(), how


def test_the_examples_driver_runs_it_out_of_core_and_matches_numpy(tmp_path):
    """examples/seismic_surface.py, as the .stn file's header tells a user to run it: the files made, the
    run out of core under a budget, 1,000 receivers recorded, and --check against the NumPy reference."""
    import os
    import sys

    cmd, env = stencilc_command()
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    (bin_ / "stencilc").write_text(f"#!/bin/sh\nPYTHONPATH={env.get('PYTHONPATH', '')} exec {' '.join(cmd)} \"$@\"\n")
    (bin_ / "stencilc").chmod(0o755)
    script = Path(ref.__file__).parent / "seismic_surface.py"
    p = subprocess.run([sys.executable, str(script), "--size", "24,22,18", "--steps", "40", "--mem", "512K",
                        "--dir", str(tmp_path / "run"), "--check"], capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, PATH=f"{bin_}:{os.environ['PATH']}"))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "40 steps x 1000 receivers" in p.stdout and "rec: the largest difference from NumPy" in p.stdout, p.stdout
    r = load_report(tmp_path / "run" / "report.json")
    assert r["mode"] == "ooc" and r["bytes_read"] == r["predicted_bytes_read"] > 0, r["bytes_read"]


@pytest.mark.parametrize("mode", ["incore", "ooc"])
def test_the_python_api_injects_and_records_off_the_grid(compile_example, run_program, tmp_path, mode):
    """stencilc.compile + open with the off-grid sets as --init files, advanced in two pieces: the field
    and the 1,000 receivers' samples are the command line's bits, in-core and out of core."""
    import stencilc

    exe = compile_example("seismic_surface")
    args = files(tmp_path, SIZE, STEPS)
    want = run(run_program, exe, tmp_path / "cli", args, ("--mode", "incore"))
    init = {k: str(tmp_path / f"{k}.npy") for k in ("wavelet", "src", "rcv")}
    prog = stencilc.compile(Path(ref.__file__).parent / "seismic_surface.stn")
    extra = {"mem": "256K", "dir": str(tmp_path)} if mode == "ooc" else {"mode": "incore"}
    with prog.open(size=SIZE, steps=STEPS, init=init, out={"rec": str(tmp_path / "rec.npy")}, quiet=True,
                   **extra) as sim:
        sim.advance(5)
        sim.advance(STEPS - 5)
        u = sim.read("u")
        rep = sim.report()
    assert rep["mode"] == mode
    assert u.tobytes() == want["u"].tobytes()
    assert np.load(tmp_path / "rec.npy").tobytes() == want["rec"].tobytes()


def test_off_grid_forces_into_fields_read_with_a_prime(tmp_path, run_program):
    """test_points' staggered model with its sources off the grid: the step adds the velocities' forces
    right after their updates, each corner weighted, so the pressure's update sees them (and the
    boundary cells in x that wrap or mirror a corner). Every engine, and 2 and 3 MPI ranks, give in-core's
    bits and NumPy's values, with the bytes they predict."""
    from test_points import FORCE, _force_numpy, force_runs

    cmd, env = stencilc_command()
    (tmp_path / "force2d.stn").write_text(FORCE.replace("points src;", "points src real;"))
    exe = tmp_path / "force2d"
    r = subprocess.run(cmd + [str(tmp_path / "force2d.stn"), "-o", str(exe)], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    size, steps = (29, 23), 13
    rng = np.random.default_rng(2)
    src = np.array([[1.25, 5.5], [10.0, 10.75], [26.6, 3.2], [1.0, 20.9], [14.3, 12.1], [10.0, 10.75]])
    files = {"w": np.sin(np.arange(steps + 2) * 0.3), "src": src,
             "rcv": np.array([[5, 5], [20, 7], [1, 1], [27, 21]], dtype=np.int64),
             "rho": 1 + 0.3 * rng.random(size[::-1]), "p": rng.random(size[::-1])}
    args = []
    for k, a in files.items():
        np.save(tmp_path / f"{k}.npy", a)
        args += ["--init", f"{k}={tmp_path / k}.npy"]
    cells, wts = offgrid_corners(src)
    want = _force_numpy(size, steps, files["w"], cells, files["rcv"], files["rho"], files["p"], wts)
    got = force_runs(run_program, exe, tmp_path, size, steps, args, want)
    if MPIRUN and shutil.which("mpicc"):  # 2 and 3 ranks, cut along y through the forced cells
        from test_mpi import MPI_FLAGS

        r = subprocess.run(cmd + [str(tmp_path / "force2d.stn"), "--mpi", "-o", str(exe) + "-mpi"], capture_output=True,
                           text=True, env=env)
        assert r.returncode == 0, r.stderr
        for P, extra in ((2, ("--mode", "ooc", "--block", "6,3")), (3, ("--mode", "incore"))):
            w = tmp_path / f"mpi{P}"
            w.mkdir()
            outs = [a for k in want for a in ("--out", f"{k}={w / k}.npy")]
            q = subprocess.run([MPIRUN, *MPI_FLAGS, "-np", str(P), str(exe) + "-mpi", "--size", ",".join(map(str, size)),
                                "--steps", str(steps), "--quiet", "--dir", str(w / "s%r"), *args, *extra, *outs],
                               capture_output=True, text=True, timeout=300)
            assert q.returncode == 0, q.stderr
            got[f"mpi{P}"] = {k: np.load(w / f"{k}.npy") for k in want}
    for k in want:
        np.testing.assert_allclose(got["incore"][k], want[k], rtol=0, atol=1e-12, err_msg=k)
        for how in got:
            assert got[how][k].tobytes() == got["incore"][k].tobytes(), f"{how}: {k} is not in-core's bits"
    assert np.abs(want["r"]).max() > 0
