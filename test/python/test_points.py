"""Sources and receivers: ``points`` given at run time, ``inject`` after an update, ``record``
every step.  examples/acoustic2d.stn against Devito running the same model (the bench's Devito
environment; skipped, saying so, where it has not been made), bit-identical in every engine, its
records surviving a SIGKILL and ``--resume``, and the refusals of bad points files.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
import reference as ref
from conftest import REPO_ROOT, force2d_stn, load_report, records_across_a_kill, stencilc_command

DEVITO = REPO_ROOT / "build" / "bench" / "venvs" / "devito" / "bin" / "python"
EX = ref.EXAMPLES["acoustic2d"]

RUNS = [
    ("incore", ("--mode", "incore", "--time-tiles", "off")),
    ("incore-tiles", ("--mode", "incore", "--time-tiles", "6,4")),
    ("ooc-ref", ("--mode", "ooc", "--schedule", "ref", "--block", "5,3")),
    ("ooc-alg1", ("--mode", "ooc", "--schedule", "alg1", "--block", "7,4")),
    ("ooc-alg2", ("--mode", "ooc", "--schedule", "alg2", "--block", "6,5")),
]


def inputs(d: Path, size, steps: int, src=None, rcv=None) -> list[str]:
    """The model's files in d (the reference's defaults): the arguments that give them."""
    init = EX.initial(size)
    files = {"wavelet": ref.ricker(steps + 1), "src": init["src"] if src is None else src,
             "rcv": init["rcv"] if rcv is None else rcv}
    args = []
    for k, a in files.items():
        np.save(d / f"{k}.npy", a)
        args += ["--init", f"{k}={d / k}.npy"]
    np.save(d / "vp.npy", init["vp"])
    return args


def run_all(run_program, exe, d: Path, size, steps: int, args: list[str]) -> dict:
    out = {}
    for how, extra in RUNS:
        w = d / how
        w.mkdir()
        rc, _, err = run_program(exe, ["--size", ",".join(map(str, size)), "--steps", str(steps), "--quiet", "--dir",
                                       str(w), *args, *extra, "--out", f"u={w / 'u.npy'}", "--out",
                                       f"rec={w / 'rec.npy'}", "--report", str(w / "r.json")])
        assert rc == 0, f"{how}: {err}"
        r = load_report(w / "r.json")
        assert (r["bytes_read"], r["bytes_written"]) == (r["predicted_bytes_read"], r["predicted_bytes_written"]), how
        out[how] = {k: np.load(w / f"{k}.npy") for k in ("u", "rec")}
    return out


@pytest.mark.parametrize("size,steps", [((41, 31), 60), ((17, 23), 25)])
def test_every_engine_gives_the_same_bits_and_the_reference(compile_example, run_program, tmp_path, size, steps):
    exe = compile_example("acoustic2d")
    rng = np.random.default_rng(steps)
    src = np.concatenate([EX.initial(size)["src"], rng.integers(1, np.array(size) - 1, (3, 2))])  # repeats too
    rcv = np.concatenate([EX.initial(size)["rcv"], src[:2]])
    got = run_all(run_program, exe, tmp_path, size, steps, inputs(tmp_path, size, steps, src, rcv))
    for how, res in got.items():
        for k in ("u", "rec"):
            np.testing.assert_array_equal(res[k], got["incore"][k], err_msg=f"{how}: {k}")
    fields = EX.initial(size, None, {"wavelet": ref.ricker(steps + 1), "src": src, "rcv": rcv})
    want = EX.run(fields, None, steps)
    assert got["incore"]["rec"].shape == (steps, len(rcv))
    for k in ("u", "rec"):
        np.testing.assert_allclose(got["incore"][k], want[k], rtol=0, atol=1e-12 * np.abs(want[k]).max(), err_msg=k)
    assert np.abs(want["rec"]).max() > 0  # the wave reached the receivers


@pytest.mark.skipif(not DEVITO.exists(), reason=f"Devito is not installed here ({DEVITO} is missing: "
                                                 "`python -m bench --only peers` makes its environment)")
def test_acoustic2d_matches_devito(compile_example, run_program, tmp_path):
    size, steps = (41, 31), 60
    exe = compile_example("acoustic2d")
    args = inputs(tmp_path, size, steps)
    r = subprocess.run([str(DEVITO), str(REPO_ROOT / "bench" / "peers" / "acoustic2d_devito.py"), "--dir",
                        str(tmp_path), "--steps", str(steps)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    dv = {k: np.load(tmp_path / f"devito_{k}.npy") for k in ("u", "rec")}
    for how, extra in (RUNS[0], RUNS[2]):
        w = tmp_path / how
        w.mkdir()
        rc, _, err = run_program(exe, ["--size", "41,31", "--steps", str(steps), "--quiet", "--dir", str(w), *args,
                                       *extra, "--out", f"u={w / 'u.npy'}", "--out", f"rec={w / 'rec.npy'}"])
        assert rc == 0, err
        for k in ("u", "rec"):
            a = np.load(w / f"{k}.npy")
            np.testing.assert_allclose(a, dv[k], rtol=0, atol=1e-12 * np.abs(dv[k]).max(), err_msg=f"{how}: {k}")
    assert np.abs(dv["rec"]).max() > 0


def test_records_survive_a_kill_and_resume(compile_example, tmp_path):
    """SIGKILL after a sweep has committed, then --resume: the records of the sweeps done before
    the kill are read back, and the result is the uninterrupted run's."""
    exe = compile_example("acoustic2d")
    size, steps = (301, 301), 200
    args = inputs(tmp_path, size, steps)
    common = [str(exe), "--size", "301,301", "--steps", str(steps), "--quiet", "--mode", "ooc", "--block", "60,10",
              "--threads", "1", *args]
    a, b, rep = records_across_a_kill(common, tmp_path, "acoustic2d")
    assert rep["bytes_read"] == rep["predicted_bytes_read"] and rep["bytes_written"] == rep["predicted_bytes_written"]
    np.testing.assert_array_equal(np.load(b), np.load(a))
    assert not list((tmp_path / "b").glob("acoustic2d.*"))  # scratch, state and records removed


def test_points_files_are_checked(compile_example, run_program, tmp_path):
    exe = compile_example("acoustic2d")
    inputs(tmp_path, (20, 16), 5)
    no_src = ["--init", f"wavelet={tmp_path / 'wavelet.npy'}", "--init", f"rcv={tmp_path / 'rcv.npy'}"]
    args = [*no_src, "--init", f"src={tmp_path / 'src.npy'}"]

    def go(*extra, base=args):
        return run_program(exe, ["--size", "20,16", "--steps", "5", "--mode", "incore", "--quiet", *base, *extra])

    def with_points(arr, dtype=np.int64):
        np.save(tmp_path / "bad.npy", np.asarray(arr, dtype=dtype))
        return go("--init", f"src={tmp_path / 'bad.npy'}", base=no_src)

    rc, _, err = with_points([[5, 5], [0, 3]])
    assert rc == 1 and "point 1 has x = 0, in the boundary layer; the interior is x in [1, 19)" in err, err
    rc, _, err = with_points([[5, 16]])
    assert rc == 1 and "point 0 has y = 16, outside the grid (0 to 15)" in err, err
    rc, _, err = with_points([[5, 5, 5]])
    assert rc == 1 and "is not an (n, 2) array (one row of 2 coordinates per point, x first)" in err, err
    rc, _, err = with_points([[5.0, 5.0]], np.float64)
    assert rc == 1 and "holds '<f8'; points are integers ('<i8' or '<i4')" in err, err
    rc, _, err = with_points(np.zeros((0, 2)))  # no points: nothing injected
    assert rc == 0, err
    rc, _, err = with_points([[5, 5]], np.int32)
    assert rc == 0, err
    rc, _, err = go(base=no_src)
    assert rc == 1 and "points 'src' have no coordinates: give them with --init src=FILE.npy (an (n, 2) integer " \
                       "array, x first)" in err, err
    rc, _, err = go("--out", f"src={tmp_path / 'x.npy'}")
    assert rc == 2 and "'src' is a set of points, given to the run (--init src=FILE)" in err, err
    rc, _, err = go("--init", f"rec={tmp_path / 'x.npy'}")
    assert rc == 2 and "'rec' is a record, sampled by the run (--out rec=FILE)" in err, err
    rc, _, err = go("--out", f"rec={tmp_path / 'rcv.npy'}")
    assert rc == 2 and "is both an input (--init) and an output" in err, err
    assert np.load(tmp_path / "rcv.npy").shape[1] == 2  # untouched
    rc, out, _ = run_program(exe, ["--help"])
    assert "src" in out and "rec" in out


FORCE = force2d_stn("periodic x")


def _force_numpy(size, steps, w, src, rcv, rho, p, wts=None):
    """FORCE in NumPy: each injection right after its field's update, before the updates that
    read its new value, then the field's boundary (vx wraps x, vy mirrors, p keeps its own).  With
    ``wts`` (off-grid sources: ``src`` their corner cells), each corner's value times its weight."""
    wts = np.ones(len(src)) if wts is None else wts
    nx, ny = size
    c = 0.4
    vx, vy, p = np.zeros((ny, nx)), np.zeros((ny, nx)), p.copy()

    def wrapx(a):
        a[:, 0], a[:, -1] = a[:, -2], a[:, 1]
        return a

    def mirror(a):
        a[:, 0], a[:, -1] = a[:, 1], a[:, -2]
        a[0, :], a[-1, :] = a[1, :], a[-2, :]
        return a

    i = (slice(1, -1), slice(1, -1))
    rec = []
    for t in range(steps):
        vx_n, vy_n, p_n = vx.copy(), vy.copy(), p.copy()
        vx_n[i] = vx[i] - c / rho[i] * (p[1:-1, 2:] - p[i])
        for (x, y), k in zip(src, wts):
            vx_n[y, x] += k * (0.5 * w[t] / rho[y, x])
        vy_n[i] = vy[i] - c / rho[i] * (p[2:, 1:-1] - p[i])
        for (x, y), k in zip(src, wts):
            vy_n[y, x] += k * (0.25 * w[t])
        wrapx(vx_n), mirror(vy_n)
        p_n[i] = p[i] - c * (vx_n[i] - vx_n[1:-1, :-2] + vy_n[i] - vy_n[:-2, 1:-1])
        for (x, y), k in zip(src, wts):
            p_n[y, x] += k * (0.1 * w[t])
        vx, vy, p = vx_n, vy_n, p_n
        rec.append([p[y, x] for x, y in rcv])
    return {"vx": vx, "vy": vy, "p": p, "r": np.array(rec)}


def force_runs(run_program, exe, tmp_path, size, steps, args, want) -> dict:
    """FORCE's program in every engine of RUNS, each in its own directory: {engine: {output: array}}, each
    run's bytes as predicted."""
    got = {}
    for how, extra in RUNS:
        w = tmp_path / how
        w.mkdir()
        outs = [a for k in want for a in ("--out", f"{k}={w / k}.npy")]
        rc, _, err = run_program(exe, ["--size", ",".join(map(str, size)), "--steps", str(steps), "--quiet", "--dir",
                                       str(w), *args, *extra, *outs, "--report", str(w / "r.json")])
        assert rc == 0, f"{how}: {err}"
        rep = load_report(w / "r.json")
        assert (rep["bytes_read"], rep["bytes_written"]) == (rep["predicted_bytes_read"],
                                                             rep["predicted_bytes_written"]), how
        got[how] = {k: np.load(w / f"{k}.npy") for k in want}
    return got


def test_injections_into_a_field_read_with_a_prime(tmp_path, run_program):
    """Force sources into the velocities of a staggered model, which the pressure's update reads
    primed: the step adds them right after the velocities' updates (each tile's scratch, at the
    points and the boundary cells in x that wrap or mirror them: points on the first and last
    interior columns and rows), so the pressure sees them.  Every engine gives the same bits as
    in-core and the NumPy loop's values, with the bytes it predicts."""
    cmd, env = stencilc_command()
    (tmp_path / "force2d.stn").write_text(FORCE)
    exe = tmp_path / "force2d"
    r = subprocess.run(cmd + [str(tmp_path / "force2d.stn"), "-o", str(exe)], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    size, steps = (29, 23), 13
    rng = np.random.default_rng(1)
    files = {"w": np.sin(np.arange(steps + 2) * 0.3),
             "src": np.array([[1, 5], [10, 10], [27, 3], [1, 21], [14, 12], [10, 10]], dtype=np.int64),
             "rcv": np.array([[5, 5], [20, 7], [1, 1], [27, 21]], dtype=np.int64),
             "rho": 1 + 0.3 * rng.random(size[::-1]), "p": rng.random(size[::-1])}
    args = []
    for k, a in files.items():
        np.save(tmp_path / f"{k}.npy", a)
        args += ["--init", f"{k}={tmp_path / k}.npy"]
    want = _force_numpy(size, steps, files["w"], files["src"], files["rcv"], files["rho"], files["p"])
    got = force_runs(run_program, exe, tmp_path, size, steps, args, want)
    for k in want:
        np.testing.assert_allclose(got["incore"][k], want[k], rtol=0, atol=1e-12, err_msg=k)
        for how in got:
            assert got[how][k].tobytes() == got["incore"][k].tobytes(), f"{how}: {k} is not in-core's bits"
    assert np.abs(want["r"]).max() > 0
