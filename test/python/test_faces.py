"""A boundary per face (issue 34; docs/language.md "Boundaries", docs/design/025): a field whose faces
differ (``boundary u neumann; boundary u dirichlet z+ x-;``) keeps the cells of its dirichlet faces'
layers and mirrors the rest of its neumann faces, x, then y, then z.  Checked against a NumPy reference
(examples/reference_driver.py's ``mirror_faces``, which shares no code with the C) in-core; out of core
(whole planes and y-blocked tiles, several blocks and sweeps, every schedule, mmap) bit-identical to
in-core with the bytes it predicts; under MPI (2 and 3 ranks, the faces held by the edge ranks only);
through the embedding API (advances with writes between them); and with a periodic axis beside faces.

The examples heat2d_faces and wave3d_surface go through test_examples, test_mpi and test_time_tiles
as every example does; this file's stencils add reaches of 2 across a mirrored face, single faces of
both kinds on one field, a previous level whose boundary differs from the current one, a field of the
whole-grid kind beside a mixed one, and a periodic axis.
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
import reference as ref
from conftest import stencilc_command
from test_examples import random_fields, run_stencil

FACES3 = """
stencil faces3 {
  grid 3d f64;
  param a = 0.1;
  input k;
  state u levels 2;
  state w;
  boundary u neumann;
  boundary u dirichlet z+ x-;
  boundary w neumann y- z;
  u' = 2*u - u.prev + a * k * (u[-1,0,0] + u[1,0,0] + u[0,-1,0] + u[0,2,0] + u[0,0,-2] + u[0,0,1] - 6*u)
       + 0.01 * w;
  w' = w + a * (w[-1,0,0] + w[1,0,0] + w[0,-1,0] + w[0,1,0] + w[0,0,-1] + w[0,0,1] - 6*w) + 0.01 * u[0,0,1];
  init w = 0.1 * x - 0.05 * y + cos(0.3 * z);
}
"""

FACES2P = """
stencil faces2p {
  grid 2d f64;
  state u;
  boundary u periodic x;
  boundary u neumann y-;
  u' = u + 0.2 * (u[-1,0] + u[1,0] + u[0,-1] + u[0,1] - 4*u);
}
"""


def _faces3_update(f, p):
    u, w, k = f["u"], f["w"], f["k"]
    lap_u = u(-1, 0, 0) + u(1, 0, 0) + u(0, -1, 0) + u(0, 2, 0) + u(0, 0, -2) + u(0, 0, 1) - 6 * u()
    lap_w = w(-1, 0, 0) + w(1, 0, 0) + w(0, -1, 0) + w(0, 1, 0) + w(0, 0, -1) + w(0, 0, 1) - 6 * w()
    return {"u": 2 * u() - u.prev() + p.a * k() * lap_u + 0.01 * w(),
            "w": w() + p.a * lap_w + 0.01 * u(0, 0, 1)}


def _faces2p_update(f, p):
    u = f["u"]
    return {"u": u() + 0.2 * (u(-1, 0) + u(1, 0) + u(0, -1) + u(0, 1) - 4 * u())}


CASES = {
    "faces3": (FACES3, ref.Example(
        name="faces3", ndim=3, dtype=np.float64, halo_lo=(1, 1, 2), halo_hi=(1, 2, 1),
        state={"u": (2, "mixed"), "w": (1, "mixed")},
        faces={"u": ("dirichlet", "neumann", "neumann", "neumann", "neumann", "dirichlet"),
               "w": ("dirichlet", "dirichlet", "neumann", "dirichlet", "neumann", "neumann")},
        inputs=("k",), params={"a": 0.1},
        inits={"w": lambda c, p: 0.1 * c.x - 0.05 * c.y + np.cos(0.3 * c.z)},
        update=_faces3_update)),
    "faces2p": (FACES2P, ref.Example(
        name="faces2p", ndim=2, dtype=np.float64, halo_lo=(1, 1), halo_hi=(1, 1),
        state={"u": (1, "mixed")}, faces={"u": (None, None, "neumann", "dirichlet")}, periodic={"u": "x"},
        inputs=(), params={}, inits={}, update=_faces2p_update)),
}
SIZE = {"faces3": (13, 17, 19), "faces2p": (21, 26)}
STEPS = 7


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    """name -> (program, program built with --mpi or None where mpicc is missing)."""
    cmd, env = stencilc_command()
    out = {}
    for name, (src, _) in CASES.items():
        d = tmp_path_factory.mktemp(name)
        (d / f"{name}.stn").write_text(src)
        r = subprocess.run([*cmd, str(d / f"{name}.stn"), "-o", str(d / name)], capture_output=True, text=True,
                           env=env)
        assert r.returncode == 0, r.stderr
        mpi = None
        if shutil.which("mpirun") and shutil.which("mpicc"):
            r = subprocess.run([*cmd, str(d / f"{name}.stn"), "--mpi", "-o", str(d / f"{name}_mpi")],
                               capture_output=True, text=True, env=env)
            assert r.returncode == 0, r.stderr
            mpi = d / f"{name}_mpi"
        out[name] = (d / name, mpi)
    return out


def _incore(programs, run_program, tmp_path, name, seed=5):
    ex = CASES[name][1]
    files = random_fields(ex, SIZE[name], seed, True)
    (tmp_path / "incore").mkdir()
    got, _ = run_stencil(run_program, programs[name][0], ex, SIZE[name], STEPS, {}, files, tmp_path / "incore")
    return ex, files, got


def test_help_names_the_boundary(programs):
    r = subprocess.run([str(programs["faces3"][0]), "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "u            state, 2 levels (NAME.prev is the previous one), per-face boundary" in r.stdout


@pytest.mark.parametrize("name", sorted(CASES))
def test_incore_matches_numpy(programs, run_program, tmp_path, name):
    ex, files, got = _incore(programs, run_program, tmp_path, name)
    want = ex.run(ex.initial(SIZE[name], None, files), None, STEPS)
    for f in ex.fields:
        np.testing.assert_allclose(got[f], want[f], rtol=0, atol=1e-12 * np.abs(want[f]).max(), err_msg=f)
    u = got["u"]
    if name == "faces3":  # the kept faces hold the initial cells; a mirrored one its interior's image
        assert np.array_equal(u[-1], files["u"][-1]) and np.array_equal(u[:, :, 0], files["u"][:, :, 0])
        assert np.array_equal(u[:-1, :, -1], u[:-1, :, -2]) and np.array_equal(u[:2, 1:-1, 1:], u[3:1:-1, 1:-1, 1:])
        w = got["w"]
        assert np.array_equal(w[:, -1], files["w"][:, -1]) and np.array_equal(w[1:-1, 0, 1:-1], w[1:-1, 1, 1:-1])
    else:  # y- mirrored, y+ kept, x wrapped over both
        assert np.array_equal(u[-1, 1:-1], files["u"][-1, 1:-1]) and np.array_equal(u[0], u[1])
        assert np.array_equal(u[:, 0], u[:, -2]) and np.array_equal(u[:, -1], u[:, 1])


OOC_RUNS = {
    "faces3": [("17,1,1", "ref", None), ("17,3,2", "ref", None), ("17,4,3", "alg1", None), ("17,5,2", "alg2", None),
               ("5,4,2", "ref", "dram"), ("6,3,3", "ref", "file"), ("mmap", None, None)],
    "faces2p": [("4,1", "ref", None), ("5,3", "ref", None), ("7,4", "alg1", None), ("6,2", "alg2", None),
                ("mmap", None, None)],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_out_of_core_is_bit_identical_with_the_bytes_it_predicts(programs, run_program, tmp_path, name):
    ex, files, want = _incore(programs, run_program, tmp_path, name)
    for k, (block, schedule, strip) in enumerate(OOC_RUNS[name]):
        d = tmp_path / f"r{k}"
        d.mkdir()
        if block == "mmap":
            extra = ("--mode", "mmap", "--dir", str(d))
        else:
            extra = ("--mode", "ooc", "--dir", str(d), "--block", block, "--schedule", schedule)
            extra += ("--strip", strip) if strip else ()
        got, rep = run_stencil(run_program, programs[name][0], ex, SIZE[name], STEPS, {}, files, d, extra=extra)
        for f in ex.fields:
            assert got[f].tobytes() == want[f].tobytes(), f"{name} {' '.join(extra[:2] + extra[4:])}: {f} differs"
        if block != "mmap":
            assert (rep["bytes_read"], rep["bytes_written"]) == (rep["predicted_bytes_read"],
                                                                  rep["predicted_bytes_written"]), extra


MPI_FLAGS = ["--oversubscribe", "--bind-to", "none", "--mca", "btl", "self,vader"]


def _mpirun(P: int):
    import os

    flags = (["--allow-run-as-root"] if os.geteuid() == 0 else []) + MPI_FLAGS

    def run(exe, args, timeout=300):
        p = subprocess.run([shutil.which("mpirun"), *flags, "-np", str(P), str(exe), *map(str, args)],
                           capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr

    return run


@pytest.mark.skipif(not (shutil.which("mpirun") and shutil.which("mpicc")), reason="OpenMPI is not installed here")
@pytest.mark.parametrize("name", sorted(CASES))
def test_ranks_give_the_bits_of_one_process(programs, run_program, tmp_path, name):
    """2 and 3 ranks, out of core (whole planes; y-blocked tiles in 3d) and in-core: the faces lie in the
    edge ranks' slabs, and the result is the program's without MPI, bit for bit."""
    ex, files, want = _incore(programs, run_program, tmp_path, name)
    runs = [(2, ("--block", "17,2,2" if ex.ndim == 3 else "5,2")), (3, ("--block", "17,1,2" if ex.ndim == 3 else "4,3")),
            (2, ()), (3, ())]
    if ex.ndim == 3:
        runs += [(2, ("--block", "5,3,2", "--strip", "dram")), (3, ("--block", "6,3,2", "--strip", "file"))]
    for k, (P, block) in enumerate(runs):
        d = tmp_path / f"p{k}"
        d.mkdir()
        extra = ("--mode", "ooc", "--dir", str(d / "s%r"), *block) if block else ("--mode", "incore")
        got, rep = run_stencil(_mpirun(P), programs[name][1], ex, SIZE[name], STEPS, {}, files, d, extra=extra)
        for f in ex.fields:
            assert got[f].tobytes() == want[f].tobytes(), f"{name}, {P} ranks {' '.join(extra)}: {f} differs"
        assert (rep["bytes_read"], rep["bytes_written"]) == (rep["predicted_bytes_read"], rep["predicted_bytes_written"])
        assert rep["mpi"]["ranks"] == P
        for r in rep["mpi"]["per_rank"]:
            assert (r["bytes_read"], r["bytes_written"]) == (r["predicted_bytes_read"], r["predicted_bytes_written"])


@pytest.mark.parametrize("engine", ["incore", "ooc"])
def test_embedding_api_advances_and_writes(tmp_path, engine):
    """advance 3, write w (its kept faces too) and u's interior, advance 4: the NumPy reference of the same
    writes; a write into a dirichlet face is what later steps keep, as the whole-field kind does."""
    import stencilc

    (tmp_path / "faces3.stn").write_text(FACES3)
    prog = stencilc.compile(tmp_path / "faces3.stn")
    ex = CASES["faces3"][1]
    size = SIZE["faces3"]
    files = random_fields(ex, size, 9, True)
    kw = {"mode": "incore"} if engine == "incore" else {"mem": "64M", "dir": tmp_path,
                                                        "options": ["--block", "17,4,2"]}
    rng = np.random.default_rng(4)
    with prog.open(size=size, steps=7, **kw) as sim:
        for f in ("u", "u.prev", "w", "k"):
            sim.write(f, files[f])
        sim.advance(3)
        mid = {f: sim.read(f) for f in ("u", "u.prev", "w")}
        want = ex.run(ex.initial(size, None, files), None, 3)
        for f in ("u", "w"):
            np.testing.assert_allclose(mid[f], want[f], rtol=0, atol=1e-12 * np.abs(want[f]).max(), err_msg=f)
        new_w = rng.uniform(-1, 1, size[::-1])
        sim.write("w", new_w)
        inner = rng.uniform(-1, 1, (size[2] - 3, size[1] - 3, size[0] - 2))
        sim.write("u", inner, x=slice(1, size[0] - 1), y=slice(1, size[1] - 2), z=slice(2, size[2] - 1))
        u_now = sim.read("u")
        sim.advance(4)
        got = {f: sim.read(f) for f in ("u", "w")}
    start = {"u": u_now, "u.prev": mid["u.prev"], "w": new_w, "k": files["k"]}
    want = ex.run(start, None, 4)
    for f in ("u", "w"):
        np.testing.assert_allclose(got[f], want[f], rtol=0, atol=1e-12 * np.abs(want[f]).max(), err_msg=f)
    assert np.array_equal(got["w"][:, -1], new_w[:, -1])  # the written y+ face is kept
