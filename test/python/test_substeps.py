"""Sub-steps (``ex'[0,1]``: an update reading the new value of an earlier one), beyond the
examples: chains of three stages, Neumann fields read primed near every face, a two-level field
read primed, a let reading a new value, reaches wider than the halo.  Each stencil runs in-core
(the plain loop and time tiles) and out-of-core (several blocks, every schedule, y-blocked tiles
with the strip), bit-identical, and matches a NumPy reference written from the equations with
``examples/reference.py``'s driver (stages in order, boundary rules on each new level).
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
import reference as ref
from conftest import load_report, stencilc_command

CHAIN3 = """
stencil chain3 {
  grid 3d f64;
  state a;
  state b;
  state c;
  a' = a + 0.1 * (b[1,0,0] - b) + 0.05 * c[0,0,-1];
  b' = b + 0.1 * (a'[0,-1,0] - a'[0,1,0]) + 0.1 * c[0,0,1];
  c' = c + 0.1 * (b'[0,0,-2] - 2 * b' + a'[2,0,0]) - 0.05 * a'[0,0,1];
  boundary a neumann;
  boundary b neumann;
  init a = sin(0.3 * x + 0.2 * y) * cos(0.25 * z);
  init b = cos(0.2 * x - 0.3 * z) + 0.1 * y;
  init c = 0.01 * x * y - 0.02 * z;
}
"""


def _chain3(stage):
    def a(f, p):
        return {"a": f["a"]() + 0.1 * (f["b"](1, 0, 0) - f["b"]()) + 0.05 * f["c"](0, 0, -1)}

    def b(f, p):
        an = f["a'"]
        return {"b": f["b"]() + 0.1 * (an(0, -1, 0) - an(0, 1, 0)) + 0.1 * f["c"](0, 0, 1)}

    def c(f, p):
        an, bn = f["a'"], f["b'"]
        return {"c": f["c"]() + 0.1 * (bn(0, 0, -2) - 2 * bn() + an(2, 0, 0)) - 0.05 * an(0, 0, 1)}

    return (a, b, c)[stage]


LEAP2D = """
stencil leap2d {
  grid 2d f64;
  param k = 0.2;
  state u levels 2;
  state w;
  u' = 2 * u - u.prev + k * (u[1,0] + u[-1,0] + u[0,1] + u[0,-1] - 4 * u);
  let d = u'[1,0] - u'[-1,0] + u'[0,2];
  w' = 0.5 * w + 0.25 * d - 0.1 * w[0,-1];
  boundary u neumann;
  init u = exp(-((x - nx/2)^2 + (y - ny/2)^2) / 10.0);
  init w = 0.1 * x - 0.05 * y;
}
"""


def _leap2d_u(f, p):
    u = f["u"]
    return {"u": 2 * u() - u.prev() + p.k * (u(1, 0) + u(-1, 0) + u(0, 1) + u(0, -1) - 4 * u())}


def _leap2d_w(f, p):
    un, w = f["u'"], f["w"]
    d = un(1, 0) - un(-1, 0) + un(0, 2)
    return {"w": 0.5 * w() + 0.25 * d - 0.1 * w(0, -1)}


CASES = {
    "chain3": (CHAIN3, ref.Example(
        name="chain3", ndim=3, dtype=np.float64, halo_lo=(0, 1, 2), halo_hi=(2, 1, 1),
        state={"a": (1, "neumann"), "b": (1, "neumann"), "c": (1, "dirichlet")}, inputs=(), params={},
        inits={"a": lambda c, p: np.sin(0.3 * c.x + 0.2 * c.y) * np.cos(0.25 * c.z),
               "b": lambda c, p: np.cos(0.2 * c.x - 0.3 * c.z) + 0.1 * c.y,
               "c": lambda c, p: 0.01 * c.x * c.y - 0.02 * c.z},
        update=(_chain3(0), _chain3(1), _chain3(2)))),
    "leap2d": (LEAP2D, ref.Example(
        name="leap2d", ndim=2, dtype=np.float64, halo_lo=(1, 1), halo_hi=(1, 2),
        state={"u": (2, "neumann"), "w": (1, "dirichlet")}, inputs=(), params={"k": 0.2},
        inits={"u": lambda c, p: np.exp(-((c.x - c.nx / 2) ** 2 + (c.y - c.ny / 2) ** 2) / 10.0),
               "w": lambda c, p: 0.1 * c.x - 0.05 * c.y},
        update=(_leap2d_u, _leap2d_w))),
}


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    out = {}
    cmd, env = stencilc_command()
    for name, (src, _) in CASES.items():
        d = tmp_path_factory.mktemp(name)
        (d / f"{name}.stn").write_text(src)
        r = subprocess.run(cmd + [str(d / f"{name}.stn"), "-o", str(d / name)], capture_output=True, text=True,
                           env=env)
        assert r.returncode == 0, r.stderr
        ir = subprocess.run(cmd + [str(d / f"{name}.stn"), "--emit=ir"], capture_output=True, text=True, env=env)
        out[name] = (d / name, ir.stdout)
    return out


def test_the_ir_states_the_halo_the_reach_and_the_stages(programs):
    ir = programs["chain3"][1]
    assert "halo x: -0 +2" in ir and "halo y: -1 +1" in ir and "halo z: -2 +1" in ir
    assert "sub-steps: {a'} then {b'} then {c'}" in ir
    # c' reads b' two planes below and a' two cells right; Neumann b' and a' are computed on the
    # interior cells their boundary cells mirror too; a' then reads b one cell further right,
    # c one plane further down
    assert "b' computed around a point: x -0 +0, y -0 +0, z -2 +1" in ir
    assert "a' computed around a point: x -1 +2, y -1 +1, z -2 +1" in ir
    assert "reach x: -1 +3" in ir and "reach y: -1 +1" in ir and "reach z: -3 +2" in ir, ir


def test_the_reference_reads_the_halo_declared(programs):
    for _, ex in CASES.values():
        assert ex.derived_halo() == (ex.halo_lo, ex.halo_hi)


RUNS = [
    ("incore", ("--mode", "incore", "--time-tiles", "off")),
    ("incore-tiles", ("--mode", "incore", "--time-tiles", "5,5,3")),
    ("ooc-ref", ("--mode", "ooc", "--schedule", "ref", "--block", "{by},3,4")),
    ("ooc-alg1", ("--mode", "ooc", "--schedule", "alg1", "--block", "{ny},2,3")),
    ("ooc-alg2", ("--mode", "ooc", "--schedule", "alg2", "--block", "{ny},4,2")),
    ("ooc-yblock", ("--mode", "ooc", "--schedule", "ref", "--block", "3,4,3", "--strip", "dram")),
    ("ooc-spill", ("--mode", "ooc", "--schedule", "ref", "--block", "4,3,5", "--strip", "file")),
]


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("size3,steps", [((13, 11, 10), 7), ((6, 7, 8), 4), ((17, 9, 12), 1)])
def test_every_engine_gives_the_bits_of_the_plain_loop_and_the_reference(programs, tmp_path, run_program, name,
                                                                         size3, steps):
    exe, _ = programs[name]
    ex = CASES[name][1]
    size = size3[: ex.ndim]
    results = {}
    for how, args in RUNS:
        if ex.ndim == 2 and ("yblock" in how or "spill" in how):
            continue
        block = [a.format(by=size[1], ny=size[1]) for a in args]
        if ex.ndim == 2 and "--block" in block:  # by,bt in 2d
            i = block.index("--block") + 1
            parts = block[i].split(",")
            block[i] = ",".join([parts[1], parts[2]])
        if ex.ndim == 2 and "--time-tiles" in block:
            i = block.index("--time-tiles") + 1
            block[i] = "5,3" if block[i] != "off" else "off"
        d = tmp_path / how
        d.mkdir()
        outs = []
        for f in ex.state:
            outs += ["--out", f"{f}={d / f}.npy"]
        rc, out, err = run_program(exe, ["--size", ",".join(map(str, size)), "--steps", str(steps), "--quiet",
                                         "--dir", str(d), "--report", str(d / "r.json"), *block, *outs])
        assert rc == 0, f"{how}: {err}"
        results[how] = {f: np.load(d / f"{f}.npy") for f in ex.state}
        r = load_report(d / "r.json")
        if how.startswith("ooc"):
            assert r["bytes_read"] == r["predicted_bytes_read"], how
            assert r["bytes_written"] == r["predicted_bytes_written"], how
    base = results.pop("incore")
    for how, got in results.items():
        for f in ex.state:
            np.testing.assert_array_equal(got[f], base[f], err_msg=f"{name} {how} {size} {steps}: {f}")
    want = ex.run(ex.initial(size), None, steps)
    for f in ex.state:
        scale = max(1.0, float(np.abs(want[f]).max()))
        assert float(np.abs(base[f] - want[f]).max()) <= 1e-12 * scale, f"{name} {size} {steps}: {f}"


def test_a_sub_step_example_reports_its_reach(tmp_path, compile_example, run_program):
    exe = compile_example("polyjacobi2d")
    rc, _, err = run_program(exe, ["--size", "20,20", "--steps", "3", "--mode", "incore", "--quiet",
                                   "--report", str(tmp_path / "r.json")])
    assert rc == 0, err
    halo = load_report(tmp_path / "r.json")["halo"]
    assert halo == {"lo": [1, 1], "hi": [1, 1], "reach_lo": [2, 2], "reach_hi": [2, 2]}


def test_polybench_jacobi2d_by_hand(tmp_path, compile_example, run_program):
    """PolyBench's loop, transcribed: B on [1, n-1) from A, then A from B, per time step.  The
    .stn adds in PolyBench's order, so out-of-core gives its bits."""
    exe = compile_example("polyjacobi2d")
    n, steps = 15, 6
    i, j = np.mgrid[0:n, 0:n].astype(np.float64)  # i is y, j is x
    a = (i * (j + 2) + 2) / n
    b = (i * (j + 3) + 3) / n
    for _ in range(steps):
        b[1:-1, 1:-1] = 0.2 * (a[1:-1, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] + a[2:, 1:-1] + a[:-2, 1:-1])
        a[1:-1, 1:-1] = 0.2 * (b[1:-1, 1:-1] + b[1:-1, :-2] + b[1:-1, 2:] + b[2:, 1:-1] + b[:-2, 1:-1])
    rc, _, err = run_program(exe, ["--size", f"{n},{n}", "--steps", str(steps), "--mode", "ooc", "--block", "3,2",
                                   "--dir", str(tmp_path), "--quiet", "--out", f"a={tmp_path / 'a.npy'}",
                                   "--out", f"b={tmp_path / 'b.npy'}"])
    assert rc == 0, err
    np.testing.assert_array_equal(np.load(tmp_path / "a.npy"), a)
    np.testing.assert_array_equal(np.load(tmp_path / "b.npy"), b)
