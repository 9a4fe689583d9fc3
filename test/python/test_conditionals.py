"""The language's third round, part A (issue 34): conditionals (comparisons, ``&&``, ``||``, ``!``,
``c ? a : b``), coordinates and sizes in updates and lets, the libm functions and ``^`` with an
exponent known at run time, through every engine.

Each stencil below is checked against a NumPy reference written from its mathematics (the driver of
``examples/reference_driver.py``), in-core; then out of core (whole planes and y-blocked tiles, several
blocks, sweeps of several steps), ``--mode mmap``, MPI ranks (2 and 3, slabs and cartesian cuts) and the
embedding API give the in-core bits, and every report counts the bytes it predicts.  Periodic stencils
make the engines compute cells outside the interior as the images of interior cells (an out-of-core
sweep wrapped round the streaming axis, a rank's ring of ghosts, a sub-step's scratch): the coordinates
there are those of the cells they stand for.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import reference as ref
from conftest import load_report, stencilc_command
from test_examples import check_report, compare, random_fields, run_stencil

# ------------------------------------------------------------------ the stencils and their references

COND3D = """
stencil cond3d {
  grid 3d f64;
  param c = 0.3;
  param n = 2;
  state u;
  input v;
  points p;
  let f = v > 0 ? v * u : v * u[1,0,0];                      // the upwind flux through the east face
  let g = 0.01 * sin(0.3 * x) * cos(0.2 * y + 0.1 * z) + 0.001 * (x / nx - y / ny + z / nz);
  u' = u - c * (f - f[-1,0,0])
       + (x < nx / 2 && !(y >= 3) || u[0,0,-1] == 0 ? g[1,-1,1] : 0.1 * (1 + 0.5 * tanh(u[0,-2,0]))^n)
       + 0.01 * (floor(3 * u) + ceil(2 * v) + fmod(u, 0.3) + atan2(u, v + 2) + hypot(u, v) + trunc(4 * u)
                 + copysign(0.5, u) + cbrt(u) + exp2(u) + log1p(abs(u)) + fmin(u, v) + fmax(0.2, u)
                 + sum(i in 0..3) u^i)
       + (t < 2 || t == 4 ? 0.001 * z : -0.001 * y);              // the step in a condition (sweeps of steps)
  inject u at p += v > 0 && u < 0.5 ? 0.01 : -0.01;
  record r = u' > 0 ? u' : -2 * u' at p;
}
"""


def powi(a: np.ndarray, n: float) -> np.ndarray:
    """``a ^ n`` with n known at run time: the product left to right for an integer |n| <= 64, else pow."""
    if not (-64 <= n <= 64 and float(n).is_integer()):
        return np.power(a, a.dtype.type(n))
    k = abs(int(n))
    if k == 0:
        return np.ones_like(a)
    acc = a
    for _ in range(k - 1):
        acc = acc * a
    return 1 / acc if n < 0 else acc


def _cond3d(f, p):
    u, v, X, Y, Z = f["u"], f["v"], f["x"], f["y"], f["z"]
    nx, ny, nz = f["nx"], f["ny"], f["nz"]

    def flux(dx):
        vv = v(dx, 0, 0)
        return np.where(vv > 0, vv * u(dx, 0, 0), vv * u(dx + 1, 0, 0))

    g = 0.01 * np.sin(0.3 * X(1)) * np.cos(0.2 * Y(-1) + 0.1 * Z(1)) + 0.001 * (X(1) / nx - Y(-1) / ny + Z(1) / nz)
    cond = ((X() < nx / 2) & ~(Y() >= 3)) | (u(0, 0, -1) == 0)
    pick = np.where(cond, g, 0.1 * powi(1 + 0.5 * np.tanh(u(0, -2, 0)), p.n))
    w = u()
    lib = (np.floor(3 * w) + np.ceil(2 * v()) + np.fmod(w, 0.3) + np.arctan2(w, v() + 2) + np.hypot(w, v())
           + np.trunc(4 * w) + np.copysign(0.5, w) + np.cbrt(w) + np.exp2(w) + np.log1p(np.abs(w))
           + np.fmin(w, v()) + np.fmax(0.2, w) + (1 + w + w * w + w * w * w))
    step = np.where((p.t < 2) | (p.t == 4), 0.001 * Z(), -0.001 * Y())
    return {"u": w - p.c * (flux(0) - flux(-1)) + pick + 0.01 * lib + step}


RING3D = """
stencil ring3d {
  grid 3d f64;
  param a = 0.1;
  state u;
  let s = 0.01 * sin(0.5 * x + 0.7 * y + 0.3 * z);
  u' = u + a * (u[-1,0,0] + u[1,0,0] + u[0,-1,0] + u[0,1,0] + u[0,0,-1] + u[0,0,1] - 6 * u)
       + (u > 0 ? s : -s) + s[0,0,1] * (z < nz / 2 ? 1 : 0);
  boundary u periodic;
}
"""


def _ring3d(f, p):
    u, X, Y, Z = f["u"], f["x"], f["y"], f["z"]

    def s(dz):
        return 0.01 * np.sin(0.5 * X() + 0.7 * Y() + 0.3 * Z(dz))

    lap = u(-1, 0, 0) + u(1, 0, 0) + u(0, -1, 0) + u(0, 1, 0) + u(0, 0, -1) + u(0, 0, 1) - 6 * u()
    return {"u": u() + p.a * lap + np.where(u() > 0, s(0), -s(0)) + s(1) * np.where(Z() < f["nz"] / 2, 1.0, 0.0)}


SUB2D = """
stencil sub2d {
  grid 2d f64;
  state a;
  state b;
  a' = a + 0.1 * (b[1,0] - b[-1,0]) + 0.01 * cos(0.4 * y + x);
  b' = b + 0.1 * (a'[0,1] - a'[0,-1]) + 0.001 * (x > 3 ? y : -y);
  boundary periodic;
}
"""


def _sub2d_a(f, p):
    b = f["b"]
    return {"a": f["a"]() + 0.1 * (b(1, 0) - b(-1, 0)) + 0.01 * np.cos(0.4 * f["y"]() + f["x"]())}


def _sub2d_b(f, p):
    a1, X, Y = f["a'"], f["x"](), f["y"]()
    return {"b": f["b"]() + 0.1 * (a1(0, 1) - a1(0, -1)) + 0.001 * np.where(X > 3, Y, -Y)}


LINE1D = """
stencil line1d {
  grid 1d f32;
  param k = 0.25;
  state u;
  u' = u + k * (u[-1] - 2 * u + u[1]) + (x > nx / 2 || u < -0.5 ? 0.001 : -0.001) * sin(0.01 * x);
}
"""


def _line1d(f, p):
    u, X = f["u"], f["x"]()
    T = np.float32
    side = np.where((X > f["nx"] / 2) | (u() < T(-0.5)), T(0.001), T(-0.001))
    return {"u": u() + p.k * (u(-1) - 2 * u() + u(1)) + side * np.sin(T(0.01) * X)}


STENCILS = {
    "cond3d": (COND3D, ref.Example(
        name="cond3d", ndim=3, dtype=np.float64, halo_lo=(1, 2, 1), halo_hi=(1, 0, 0), state={"u": (1, "dirichlet")},
        inputs=("v",), params={"c": 0.3, "n": 2.0}, inits={}, update=_cond3d,
        points={"p": lambda size: np.array([[1, 2, 1], [size[0] - 2, 2, size[2] // 2], [5, 4, size[2] - 1]])},
        injects=(("u", "p", lambda at, p: np.where((at["v"]() > 0) & (at["u"]() < 0.5), 0.01, -0.01)),),
        records={"r": ("p", lambda at, p: np.where(at["u'"]() > 0, at["u'"](), -2 * at["u'"]()))})),
    "ring3d": (RING3D, ref.Example(
        name="ring3d", ndim=3, dtype=np.float64, halo_lo=(1, 1, 1), halo_hi=(1, 1, 1), state={"u": (1, "dirichlet")},
        inputs=(), params={"a": 0.1}, inits={}, update=_ring3d, periodic={"u": "xyz"})),
    "sub2d": (SUB2D, ref.Example(
        name="sub2d", ndim=2, dtype=np.float64, halo_lo=(1, 1), halo_hi=(1, 1),
        state={"a": (1, "dirichlet"), "b": (1, "dirichlet")}, inputs=(), params={}, inits={},
        update=(_sub2d_a, _sub2d_b), periodic={"a": "xy", "b": "xy"})),
    "line1d": (LINE1D, ref.Example(
        name="line1d", ndim=1, dtype=np.float32, halo_lo=(1,), halo_hi=(1,), state={"u": (1, "dirichlet")},
        inputs=(), params={"k": 0.25}, inits={}, update=_line1d)),
}
SIZE = {"cond3d": (14, 12, 29), "ring3d": (14, 12, 29), "sub2d": (23, 41), "line1d": (20011,)}
STEPS = 7


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    """``build(name, mpi=False) -> Path``: the program of one of STENCILS, compiled once."""
    out = tmp_path_factory.mktemp("lang-bin")
    built: dict[tuple[str, bool], Path] = {}

    def make(name: str, mpi: bool = False) -> Path:
        if (name, mpi) not in built:
            src = out / f"{name}.stn"
            src.write_text(STENCILS[name][0])
            exe = out / (name + ("-mpi" if mpi else ""))
            cmd, env = stencilc_command()
            p = subprocess.run([*cmd, str(src), *(["--mpi"] if mpi else []), "-o", str(exe)], capture_output=True,
                               text=True, env=env)
            assert p.returncode == 0, p.stderr
            built[(name, mpi)] = exe
        return built[(name, mpi)]

    return make


def setup_case(name: str, tmp_path: Path, seed: int = 7):
    ex = STENCILS[name][1]
    size = SIZE[name]
    files = random_fields(ex, size, seed, True)
    return ex, size, files


def incore(name, build, run_program, tmp_path, ex, size, files, params=None):
    d = tmp_path / "incore"
    d.mkdir(exist_ok=True)
    return run_stencil(run_program, build(name), ex, size, STEPS, params or {}, files, d)


# ------------------------------------------------------------------ in-core against NumPy


@pytest.mark.parametrize("name", sorted(STENCILS))
def test_incore_matches_numpy(name, build, run_program, tmp_path):
    """The program, in-core, against the NumPy reference: conditionals, the coordinates of the cell
    (moved by a let's offset), the libm functions and a run-time power; the report's bytes as predicted."""
    ex, size, files = setup_case(name, tmp_path)
    got, report = incore(name, build, run_program, tmp_path, ex, size, files)
    compare(ex, got, ex.run(ex.initial(size, None, files), None, STEPS), f"{name} in-core")
    check_report(ex, report, size, STEPS, f"{name} in-core")
    assert ex.derived_halo(size) == (ex.halo_lo, ex.halo_hi)


def test_the_halo_counts_both_branches(tmp_path):
    """cond3d's halo: x from the upwind flux (both faces' cells in both branches), y -2 from the else branch
    of '?:' alone, z -1 from its condition; the bytes per point are one read of each array and one write."""
    cmd, env = stencilc_command()
    src = tmp_path / "cond3d.stn"
    src.write_text(COND3D)
    ir = subprocess.run([*cmd, str(src), "--emit=ir"], capture_output=True, text=True, env=env).stdout
    for line in ("halo x: -1 +1", "halo y: -2 +0", "halo z: -1 +0", "bytes/point: 24", "kr: 2", "kw: 1"):
        assert line in ir, ir


# ------------------------------------------------------------------ out of core, mmap


def ooc_runs(name: str, size) -> list[tuple[str, ...]]:
    """Blockings of several blocks and sweeps of several steps: whole planes (every schedule a stencil
    allows), y-blocked tiles with the z-strip in DRAM and in a file (3d, not periodic along y or z)."""
    if name == "cond3d":
        ny = size[1]
        return [("--block", f"{ny},3,2"), ("--block", f"{ny},4,3", "--schedule", "alg1"),
                ("--block", f"{ny},5,2", "--schedule", "alg2"), ("--block", "5,3,2", "--strip", "dram"),
                ("--block", "4,4,3", "--strip", "file")]
    if name == "ring3d":  # a torus: sweeps of several steps wrap round z (the wedge)
        return [("--block", f"{size[1]},3,2"), ("--block", f"{size[1]},4,3"), ("--block", f"{size[1]},2,4")]
    if name == "sub2d":  # sub-steps on a field that wraps y, the axis the blocks stream along: one step a sweep
        return [("--block", "4,1"), ("--block", "7,1", "--schedule", "alg1")]
    return [("--block", "1500,2"), ("--block", "3000,3")]


@pytest.mark.parametrize("name", sorted(STENCILS))
def test_out_of_core_and_mmap_give_the_incore_bits(name, build, run_program, tmp_path):
    ex, size, files = setup_case(name, tmp_path, seed=3)
    want, _ = incore(name, build, run_program, tmp_path, ex, size, files)
    runs = [("--mode", "ooc", *blocking) for blocking in ooc_runs(name, size)] + [("--mode", "mmap")]
    for k, extra in enumerate(runs):
        d = tmp_path / f"run{k}"
        d.mkdir()
        got, report = run_stencil(run_program, build(name), ex, size, STEPS, {}, files, d,
                                  extra=(*extra, "--dir", str(d)))
        for f in (*ex.fields, *ex.records):
            assert got[f].tobytes() == want[f].tobytes(), f"{name} {' '.join(extra)}: {f} differs from in-core"
        check_report(ex, report, size, STEPS, f"{name} {' '.join(extra)}")
        if extra[1] == "ooc":
            assert report["mode"] == "ooc" and report["params"]["bt"] >= 1, report["params"]


TSTEP = """
stencil tstep {
  grid 3d f64;
  state u;
  u' = t < 3 || t == 5 ? u + 0.1 * (u[1,0,0] - u[-1,0,0]) + 0.01 * z : 0.5 * u + 0.01 * (u[0,1,0] + u[0,0,-1]) + y / ny;
}
"""


def test_time_tiles_give_the_loops_bits_with_the_step_and_coordinates(run_program, tmp_path):
    """The in-core engine's temporal tiles (--time-tiles: several steps of a tile before the next) with the
    step index in a condition and coordinates: the plain loop's bits, which are NumPy's."""
    cmd, env = stencilc_command()
    (tmp_path / "tstep.stn").write_text(TSTEP)
    p = subprocess.run([*cmd, str(tmp_path / "tstep.stn"), "-o", str(tmp_path / "tstep")], capture_output=True,
                       text=True, env=env)
    assert p.returncode == 0, p.stderr
    u = np.random.default_rng(8).uniform(-1, 1, (23, 12, 14))
    np.save(tmp_path / "u0.npy", u)

    def run(tiles: str) -> np.ndarray:
        rc, _, err = run_program(tmp_path / "tstep", ["--size", "14,12,23", "--steps", "8", "--quiet", "--init",
                                                      f"u={tmp_path / 'u0.npy'}", "--out", f"u={tmp_path / 'u1.npy'}",
                                                      "--mode", "incore", "--time-tiles", tiles, "--report",
                                                      str(tmp_path / "r.json")])
        assert rc == 0, err
        tt = load_report(tmp_path / "r.json")["time_tiles"]
        assert (tt["bt"] or 0) > 1 if tiles != "off" else tt["bt"] is None, (tiles, tt)  # (tiles of several steps)
        return np.load(tmp_path / "u1.npy")

    nz, ny, nx = u.shape
    Z, Y, _ = np.meshgrid(np.arange(nz), np.arange(ny), np.arange(nx), indexing="ij")
    inner = (slice(1, nz), slice(0, ny - 1), slice(1, nx - 1))  # the halo: x -1 +1, y +1, z -1

    def at(a, dx, dy, dz):
        return a[1 + dz:nz + dz, dy:ny - 1 + dy, 1 + dx:nx - 1 + dx]

    for t in range(8):
        new = u.copy()
        if t < 3 or t == 5:
            new[inner] = at(u, 0, 0, 0) + 0.1 * (at(u, 1, 0, 0) - at(u, -1, 0, 0)) + 0.01 * Z[inner]
        else:
            new[inner] = 0.5 * at(u, 0, 0, 0) + 0.01 * (at(u, 0, 1, 0) + at(u, 0, 0, -1)) + Y[inner] / ny
        u = new
    loop = run("off")
    np.testing.assert_allclose(loop, u, rtol=1e-13, atol=1e-15)
    for tiles in ("3,4,5", "2,2,3", "12,12,7", "auto"):
        assert run(tiles).tobytes() == loop.tobytes(), tiles


POWR = """
stencil powr {
  grid 2d f64;
  param n = 3;
  state u;
  u' = (1 + 0.5 * tanh(u))^n;
}
"""


def test_a_run_time_exponent_is_the_literal_product(run_program, tmp_path):
    """``a ^ n`` with n a param: for an integer n of at most 64 in magnitude the bits of the product a
    literal n expands to (n = 0 gives 1, n < 0 one over the product); for another n, pow(a, n)."""
    cmd, env = stencilc_command()
    rng = np.random.default_rng(4)
    u0 = rng.uniform(-1, 1, (9, 11))
    np.save(tmp_path / "u0.npy", u0)

    def run(text: str, name: str, params: tuple[str, ...] = ()) -> np.ndarray:
        (tmp_path / f"{name}.stn").write_text(text)
        p = subprocess.run([*cmd, str(tmp_path / f"{name}.stn"), "-o", str(tmp_path / name)], capture_output=True,
                           text=True, env=env)
        assert p.returncode == 0, p.stderr
        rc, _, err = run_program(tmp_path / name, ["--size", "11,9", "--steps", "1", "--quiet", "--init",
                                                   f"u={tmp_path / 'u0.npy'}", "--out", f"u={tmp_path / 'u1.npy'}",
                                                   *params])
        assert rc == 0, err
        return np.load(tmp_path / "u1.npy")

    base = 1 + 0.5 * np.tanh(u0)  # (the update reads no neighbour: no boundary layer)
    for n in ("3", "0", "-2", "7", "2.5", "70"):
        got = run(POWR, "powr", ("--param", f"n={n}"))
        if n in ("2.5", "70"):
            np.testing.assert_allclose(got, np.power(base, float(n)), rtol=1e-13, atol=0, err_msg=n)
        else:
            want = run(POWR.replace("^n", f"^{n}").replace("powr", "powl"), "powl")
            assert got.tobytes() == want.tobytes(), n
            np.testing.assert_allclose(got, base ** int(n), rtol=1e-13, atol=0, err_msg=n)


# ------------------------------------------------------------------ MPI ranks

MPIRUN = shutil.which("mpirun")
MPI_FLAGS = ["--oversubscribe", "--bind-to", "none", "--mca", "btl", "self,vader", "--allow-run-as-root"]
needs_mpi = pytest.mark.skipif(not (MPIRUN and shutil.which("mpicc")), reason="OpenMPI is not installed here")


def mpirun(P: int):
    def run(exe, args, timeout=300):
        p = subprocess.run([MPIRUN, *MPI_FLAGS, "-np", str(P), str(exe), *map(str, args)], capture_output=True,
                           text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr

    return run


def mpi_runs(name: str, size) -> list[tuple[int, tuple[str, ...]]]:
    """(ranks, options): slabs along the streaming axis out of core (sweeps of 2 and 3 steps) and in-core,
    and a cut across the rows (the kernels see x and y of the whole grid through moved pointers)."""
    by = {"sub2d": "4", "line1d": "1500"}.get(name) or f"{size[1]},3"
    bt = (1, 1) if name == "sub2d" else (2, 3)  # (sub-steps on a field wrapping y: one step a sweep)
    runs = [(2, ("--mode", "ooc", "--block", f"{by},{bt[0]}")), (3, ("--mode", "ooc", "--block", f"{by},{bt[1]}")),
            (2, ("--mode", "incore")), (3, ("--mode", "incore"))]
    if name in ("cond3d", "ring3d"):
        runs += [(2, ("--mode", "ooc", "--ranks", "2,1,1", "--block", f"{by},2")),
                 (3, ("--mode", "incore", "--ranks", "1,3,1"))]
    if name == "sub2d":
        runs += [(2, ("--mode", "incore", "--ranks", "2,1"))]
    return runs


@needs_mpi
@pytest.mark.parametrize("name", sorted(STENCILS))
def test_mpi_ranks_give_the_bits_of_one_process(name, build, run_program, tmp_path):
    """2 and 3 ranks, out of core and in-core, slabs and cartesian cuts (rings of ranks along the periodic
    axes): every rank's cells see their global coordinates, so the bits are one process's; every rank's
    bytes and the messages are the model's."""
    ex, size, files = setup_case(name, tmp_path, seed=11)
    want, _ = incore(name, build, run_program, tmp_path, ex, size, files)
    for k, (P, extra) in enumerate(mpi_runs(name, size)):
        d = tmp_path / f"mpi{k}"
        d.mkdir()
        got, r = run_stencil(mpirun(P), build(name, mpi=True), ex, size, STEPS, {}, files, d,
                             extra=(*extra, "--dir", str(d / "s%r")))
        for f in (*ex.fields, *ex.records):
            assert got[f].tobytes() == want[f].tobytes(), f"{name}, {P} ranks {' '.join(extra)}: {f} differs"
        assert (r["bytes_read"], r["bytes_written"]) == (r["predicted_bytes_read"], r["predicted_bytes_written"])
        m = r["mpi"]
        assert m["ranks"] == P and m["message_bytes"] == m["predicted_message_bytes"] > 0, m
        for rank in m["per_rank"]:
            assert (rank["bytes_read"], rank["bytes_written"]) == (rank["predicted_bytes_read"],
                                                                   rank["predicted_bytes_written"])


# ------------------------------------------------------------------ the embedding API


@pytest.mark.parametrize("name", ["cond3d", "ring3d"])
def test_the_embedding_api_gives_the_bits_of_the_program(name, build, run_program, tmp_path):
    """stencilc.compile().open(): the fields written, advanced in pieces (3 + 4 steps) in-core and out of
    core (sweeps of 2 steps), read back: the program's bits."""
    import stencilc

    ex, size, files = setup_case(name, tmp_path, seed=9)
    files.update({s_: default(size) for s_, default in ex.points.items()})  # (the points the API is given)
    want, _ = incore(name, build, run_program, tmp_path, ex, size, files)
    src = tmp_path / f"{name}.stn"
    src.write_text(STENCILS[name][0])
    prog = stencilc.compile(src)
    pts = {}
    for s_, default in ex.points.items():  # (the sets of points are files, as --init gives them)
        np.save(tmp_path / f"{s_}.npy", default(size))
        pts[s_] = tmp_path / f"{s_}.npy"
    for how in ({"mode": "incore"}, {"mem": "64M", "dir": tmp_path, "options": ["--block", f"{size[1]},3,2"]}):
        with prog.open(size=size, steps=STEPS, init=pts, **how) as sim:
            for f in ex.fields:
                sim.write(f, files[f])
            sim.advance(3)
            sim.advance(STEPS - 3)
            for f in ex.state:
                assert sim.read(f).tobytes() == want[f].tobytes(), f"{name} {how}: {f}"


def test_the_ir_refuses_a_condition_where_a_number_is_needed():
    """Program.validate checks what sema guarantees: an update whose value is a comparison, a '?:'
    whose condition is a number, and a coordinate in a record are internal errors."""
    from stencilc import frontend, ir, lower, sema
    from stencilc.diagnostics import InternalError, SourceFile

    src = SourceFile("<t>", "stencil t { grid 2d f64; state u; points p; u' = u > 0 ? u : -u; record r = u at p; }")
    prog = lower.lower(sema.check(frontend.parse(src), src))
    sel = prog.updates[0].value
    assert isinstance(sel, ir.Select) and ir.is_condition(sel.cond)
    for bad, what in ((lambda p: setattr(p.updates[0], "value", sel.cond), "a condition where a number is needed"),
                      (lambda p: setattr(p.updates[0], "value", ir.Select(sel.then, sel.then, sel.other)),
                       "a number as an operand of"),
                      (lambda p: setattr(p.records[0], "value", ir.Coord(0)), "coordinate")):
        p = lower.lower(sema.check(frontend.parse(src), src))
        bad(p)
        with pytest.raises(InternalError, match=what):
            p.validate()


NANS = """
stencil nans {
  grid 2d f32;
  state u;
  u' = fmin(0.5, u) + fmax(u, -0.5) + 4 * (min(0.5, u) + max(u, -0.5));
}
"""


@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_fmin_and_fmax_ignore_a_nan_as_c_does(dtype, run_program, tmp_path):
    """fmin and fmax are C's: a NaN argument gives the other one (NumPy's fmin, fmax), where min and max are
    the plain comparisons (a < b ? a : b: a NaN in either gives b)."""
    cmd, env = stencilc_command()
    (tmp_path / "nans.stn").write_text(NANS.replace("f32", dtype))
    p = subprocess.run([*cmd, str(tmp_path / "nans.stn"), "-o", str(tmp_path / "nans")], capture_output=True,
                       text=True, env=env)
    assert p.returncode == 0, p.stderr
    T = np.float32 if dtype == "f32" else np.float64
    u0 = np.random.default_rng(5).uniform(-1, 1, (8, 13)).astype(T)
    u0[::3, ::2] = np.nan
    np.save(tmp_path / "u0.npy", u0)
    rc, _, err = run_program(tmp_path / "nans", ["--size", "13,8", "--steps", "1", "--quiet", "--init",
                                                 f"u={tmp_path / 'u0.npy'}", "--out", f"u={tmp_path / 'u1.npy'}"])
    assert rc == 0, err
    half = T(0.5)
    plain = np.where(half < u0, half, u0) + np.where(u0 > -half, u0, -half)  # (a NaN compares false: b)
    want = np.fmin(half, u0) + np.fmax(u0, -half) + T(4) * plain
    got = np.load(tmp_path / "u1.npy")
    assert got.dtype == T and np.isnan(want).any() and got.tobytes() == want.tobytes()


def test_names_of_the_float_functions_are_renamed_in_the_c(run_program, tmp_path):
    """A param named after a float function the kernel calls (floorf, atan2f, cbrtf in an f32 stencil) is
    renamed in the C alone (it shadowed the function: the C did not compile), and gives the bits of plain
    names."""
    cmd, env = stencilc_command()
    text = """
stencil fnames {
  grid 2d f32;
  param floorf = 0.5;
  param atan2f = 2;
  param cbrtf = 1;
  state u;
  u' = floor(u * 3) * floorf + atan2(u, atan2f) + cbrt(u) * cbrtf;
}
"""
    np.save(tmp_path / "u0.npy", np.random.default_rng(2).uniform(-1, 1, (7, 9)).astype(np.float32))
    outs = []
    for k, src in enumerate((text, text.replace("floorf", "a").replace("atan2f", "b").replace("cbrtf", "c"))):
        (tmp_path / f"f{k}.stn").write_text(src)
        p = subprocess.run([*cmd, str(tmp_path / f"f{k}.stn"), "-o", str(tmp_path / f"f{k}")], capture_output=True,
                           text=True, env=env)
        assert p.returncode == 0, p.stderr
        rc, _, err = run_program(tmp_path / f"f{k}", ["--size", "9,7", "--steps", "3", "--quiet", "--init",
                                                      f"u={tmp_path / 'u0.npy'}", "--out", f"u={tmp_path / f'out{k}.npy'}"])
        assert rc == 0, err
        outs.append(np.load(tmp_path / f"out{k}.npy"))
    assert outs[0].tobytes() == outs[1].tobytes()
