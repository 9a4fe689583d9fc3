"""1d grids (``grid 1d f64;``): examples/jacobi1d.stn is PolyBench's jacobi-1d, bit for bit, on every
engine; a 1d grid runs as one row of a 2d grid, so ``--size``, ``--block``, the .npy files and the
points have one axis, and what a 1d grid has not (an iBlock, a second size) is refused with the
reason.  Sources, receivers, an input along x and periodic boundaries work in 1d as in 2d.
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
import reference as ref
from conftest import load_report, stencilc_command

RUNS = [
    ("incore", ("--mode", "incore", "--time-tiles", "off")),
    ("incore-tiles", ("--mode", "incore", "--time-tiles", "3")),
    ("ooc-ref", ("--mode", "ooc", "--schedule", "ref", "--block", "2")),
    ("ooc-ref-long", ("--mode", "ooc", "--schedule", "ref", "--block", "50")),
    ("ooc-alg1", ("--mode", "ooc", "--schedule", "alg1", "--block", "3")),
    ("ooc-alg2", ("--mode", "ooc", "--schedule", "alg2", "--block", "4")),
    ("ooc-tuned", ("--mode", "ooc",)),
    # several blocks of whole rows of the fold (docs/design/014)
    ("ooc-ref-blocks", ("--mode", "ooc", "--schedule", "ref", "--block", "600,3")),
    ("ooc-ref-rows", ("--mode", "ooc", "--schedule", "ref", "--block", "1,7", "--time-tiles", "2")),
    ("ooc-alg1-blocks", ("--mode", "ooc", "--schedule", "alg1", "--block", "1000,2")),
    ("ooc-alg2-blocks", ("--mode", "ooc", "--schedule", "alg2", "--block", "700,5")),
]


@pytest.mark.parametrize("n,tsteps", [(30, 7), (3, 4), (1001, 20), (7919, 13)])
def test_polybench_jacobi1d_bit_for_bit(compile_example, run_program, tmp_path, n, tsteps):
    """examples/jacobi1d.stn against PolyBench's loop: its arrays of n are the whole grid (the end
    cells are the boundary, which PolyBench never writes)."""
    exe = compile_example("jacobi1d")
    i = np.arange(n, dtype=np.float64)
    want_a, want_b = ref.polybench_jacobi1d((i + 2) / n, (i + 3) / n, tsteps)  # PolyBench's init_array
    for how, args in RUNS:
        d = tmp_path / how
        d.mkdir()
        rc, _, err = run_program(exe, ["--size", str(n), "--steps", str(tsteps), "--quiet", "--dir", str(d),
                                       "--report", str(d / "r.json"), "--out", f"A={d / 'A.npy'}",
                                       "--out", f"B={d / 'B.npy'}", *args])
        assert rc == 0, f"{how}: {err}"
        a, b = np.load(d / "A.npy"), np.load(d / "B.npy")
        assert a.shape == (n,), a.shape
        np.testing.assert_array_equal(a, want_a, err_msg=how)
        np.testing.assert_array_equal(b, want_b, err_msg=how)
        r = load_report(d / "r.json")
        assert r["size"] == [n] and r["halo"]["lo"] == [1], r
        assert r["bytes_read"] == r["predicted_bytes_read"] and r["bytes_written"] == r["predicted_bytes_written"]


def test_a_1d_grid_larger_than_the_budget_runs_in_blocks(compile_example, run_program, tmp_path):
    """A 1d grid is folded into rows of W cells that stream as a 2d grid's rows do (docs/design/014,
    the fold): 4e6 cells, two fields, 64 MB of state, run in a 12 MiB budget in several blocks, as
    in-core bit for bit, bytes as predicted.  (Before the fold its window was the whole row: the
    plan needed 4 x 32 MB and a budget below that was refused.)"""
    exe = compile_example("jacobi1d")
    n = 4_000_000
    common = ["--size", str(n), "--steps", "20", "--quiet", "--dir", str(tmp_path)]
    rc, out, err = run_program(exe, [*common, "--mode", "ooc", "--mem", "12M", "--out", f"A={tmp_path / 'a.npy'}",
                                     "--report", str(tmp_path / "r.json")])
    assert rc == 0, err
    r = load_report(tmp_path / "r.json")
    assert r["mem_plan_bytes"] <= 12 << 20, r["mem_plan_bytes"]
    assert 0 < r["params"]["by"] < n // 4, r["params"]  # (by: a block's cells, whole rows of the fold)
    fold = r["fold"]
    assert fold["row"] * 8 % r["dio"]["align"] == 0 and fold["rows"] * fold["row"] >= n, fold
    assert r["bytes_read"] == r["predicted_bytes_read"] and r["bytes_written"] == r["predicted_bytes_written"]
    rc, _, err = run_program(exe, [*common, "--mode", "incore", "--out", f"A={tmp_path / 'b.npy'}"])
    assert rc == 0, err
    assert np.load(tmp_path / "a.npy").tobytes() == np.load(tmp_path / "b.npy").tobytes()


def test_a_1d_row_is_cut_among_the_threads(compile_example, run_program, tmp_path):
    """A 1d grid's kernels cut its row into pieces (each sub-step scratch a piece's own): any thread
    count gives the bits of one thread, and the scratch does not grow with the row.  (It was one
    tile on one thread, with a scratch of the whole row in every thread: 16 extra bytes a cell in
    the plan of jacobi1d on two threads; now 32 a cell, the ring's four arrays.)"""
    exe = compile_example("jacobi1d")
    n = 100_003
    outs = {}
    for th in (1, 2, 3, 7):
        d = tmp_path / f"t{th}"
        d.mkdir()
        rc, _, err = run_program(exe, ["--size", str(n), "--steps", "9", "--quiet", "--mode", "incore", "--threads",
                                       str(th), "--out", f"A={d / 'A.npy'}"])
        assert rc == 0, err
        outs[th] = (d / "A.npy").read_bytes()
    assert all(v == outs[1] for v in outs.values())
    plan = []
    for size in (1_000_000, 4_000_000):
        rc, _, err = run_program(exe, ["--size", str(size), "--steps", "8", "--quiet", "--mode", "ooc", "--mem", "1G",
                                       "--block", "8", "--dir", str(tmp_path), "--plan-only", "--threads", "2",
                                       "--report",
                                       str(tmp_path / "p.json")])
        assert rc == 0, err
        plan.append(load_report(tmp_path / "p.json")["mem_plan_bytes"])
    per_cell = (plan[1] - plan[0]) / 3_000_000
    assert 31.9 < per_cell < 32.1, per_cell


def test_one_axis_on_the_command_line(compile_example, run_program, tmp_path):
    exe = compile_example("jacobi1d")
    common = ["--steps", "3", "--dir", str(tmp_path)]
    cases = [
        (["--size", "30,4"], 2, "--size 30,4: expected one positive integer, x (this stencil is 1d)"),
        (["--size", "30", "--block", "2,3,4"], 2, "--block 2,3,4: expected bx,bt (the cells of a block and its steps) "
                                                 "or bt (the whole grid one block)"),
        (["--size", "30", "--block", "0,4"], 2, "--block 0,4: expected bx,bt"),
        (["--size", "30", "--iblock", "4"], 2, "--iblock 4: a 1d grid has no iBlock to choose"),
        (["--size", "30", "--time-tiles", "4,3"], 2, "--time-tiles 4,3: expected auto, off or bt"),
        (["--size", "2"], 2, "--size 2: x is 2, but this stencil needs at least 3"),
    ]
    for args, status, msg in cases:
        rc, _, err = run_program(exe, [*common, *args])
        assert rc == status and msg in err, (args, rc, err)
    np.save(tmp_path / "a2.npy", np.zeros((1, 30)))
    rc, _, err = run_program(exe, [*common, "--size", "30", "--init", f"A={tmp_path / 'a2.npy'}"])
    assert rc == 1 and "has shape (1, 30), but this grid needs (30,) = (nx,) for --size 30" in err, err
    rc, out, _ = run_program(exe, ["--help"])
    assert rc == 0 and "--size X " in out and "(nx,)" in out and "1d f64 stencil" in out, out


WIRE = """
stencil wire {
  grid 1d f64;
  param c = 0.4;
  state u levels 2;
  input k along x;
  points src;
  points rcv;
  series w;
  u' = 2*u - u.prev + c * k * (u[-1] - 2*u + u[1]);
  inject u at src += 0.1 * w[t];
  record p = u' at rcv;
  boundary periodic;
  init k = 1 - 0.3 * exp(-(x - nx / 2)^2 / 40);
}
"""


def test_a_periodic_wire_with_a_source_and_receivers(tmp_path):
    """A 1d wave on a ring: an input along x, a source, receivers, a series; every engine agrees
    with a NumPy loop, out-of-core included (x wraps inside the one row, so any bt)."""
    cmd, env = stencilc_command()
    (tmp_path / "wire.stn").write_text(WIRE)
    r = subprocess.run(cmd + [str(tmp_path / "wire.stn"), "-o", str(tmp_path / "wire")], capture_output=True,
                       text=True, env=env)
    assert r.returncode == 0, r.stderr
    n, steps = 61, 40
    w = np.sin(0.3 * np.arange(steps))
    np.save(tmp_path / "w.npy", w)
    src, rcv = np.array([[17]], dtype=np.int64), np.array([[5], [30], [59]], dtype=np.int64)
    np.save(tmp_path / "src.npy", src)
    np.save(tmp_path / "rcv.npy", rcv)
    # NumPy: interior [1, n-1), a ring of n-2 cells; the boundary cells wrap
    x = np.arange(n, dtype=np.float64)
    k = 1 - 0.3 * np.exp(-((x - n / 2) ** 2) / 40)
    u, up = np.zeros(n), np.zeros(n)
    rec = np.zeros((steps, 3))
    for t in range(steps):
        new = u.copy()
        new[1:-1] = 2 * u[1:-1] - up[1:-1] + 0.4 * k[1:-1] * (u[:-2] - 2 * u[1:-1] + u[2:])
        new[17] += 0.1 * w[t]
        new[0], new[-1] = new[-2], new[1]
        rec[t] = new[rcv[:, 0]]
        up, u = u, new
    for how, args in [("incore", ["--mode", "incore"]), ("ooc", ["--mode", "ooc", "--block", "7"]),
                      ("ooc1", ["--mode", "ooc", "--block", "1", "--schedule", "alg2"])]:
        d = tmp_path / how
        d.mkdir()
        r = subprocess.run([str(tmp_path / "wire"), "--size", str(n), "--steps", str(steps), "--quiet",
                            "--dir", str(d), "--init", f"w={tmp_path / 'w.npy'}", "--init", f"src={tmp_path / 'src.npy'}",
                            "--init", f"rcv={tmp_path / 'rcv.npy'}", "--out", f"u={d / 'u.npy'}",
                            "--out", f"p={d / 'p.npy'}", *args], capture_output=True, text=True)
        assert r.returncode == 0, f"{how}: {r.stderr}"
        np.testing.assert_allclose(np.load(d / "u.npy"), u, rtol=0, atol=1e-13, err_msg=how)
        np.testing.assert_allclose(np.load(d / "p.npy"), rec, rtol=0, atol=1e-13, err_msg=how)
    np.testing.assert_array_equal(np.load(tmp_path / "ooc" / "u.npy"), np.load(tmp_path / "incore" / "u.npy"))
    np.testing.assert_array_equal(np.load(tmp_path / "ooc1" / "p.npy"), np.load(tmp_path / "incore" / "p.npy"))


ROD = """
stencil rod {
  grid 1d f64;
  param c = 0.2;
  state u levels 2;
  state v;
  input k;
  input s along x;
  points src;
  points rcv;
  series w;
  v' = v + c * s * (u[-2] - 2*u + u[2]);
  u' = 2*u - u.prev + c * k * (u[-1] - 2*u + u[1]) + 0.01 * v';
  inject u at src += 0.1 * w[t];
  record p = u' at rcv;
  boundary neumann;
  init s = 1 + 0.5 * sin(x / 37);
  init v = cos(x / 11);
}
"""


def rod_reference(u0, k, s, w, src, rcv, steps):
    """The rod's loop in NumPy: v, then u from the new v, each step; neumann mirrors x < 2 and
    x >= n - 2 (halo 2) from the interior, x then the next."""
    n = u0.size
    x = np.arange(n, dtype=np.float64)
    u, up, v = u0.copy(), u0.copy(), np.cos(x / 11)
    rec = np.zeros((steps, len(rcv)))

    def mirror(a):
        a[0], a[1] = a[3], a[2]
        a[-1], a[-2] = a[-4], a[-3]

    for a in (u, up, v):
        mirror(a)
    for t in range(steps):
        nv = v.copy()
        nv[2:-2] = v[2:-2] + 0.2 * s[2:-2] * (u[:-4] - 2 * u[2:-2] + u[4:])
        mirror(nv)
        nu = u.copy()
        nu[2:-2] = 2 * u[2:-2] - up[2:-2] + 0.2 * k[2:-2] * (u[1:-3] - 2 * u[2:-2] + u[3:-1]) + 0.01 * nv[2:-2]
        nu[src] += 0.1 * w[t]
        mirror(nu)
        rec[t] = nu[rcv]
        up, u, v = u, nu, nv
    return u, rec


@pytest.mark.parametrize("n", [1029, 1600, 9001])
def test_a_1d_grid_in_blocks_with_every_kind_of_data(tmp_path, n):
    """The fold with everything a 1d stencil may carry: two levels from an .npy, a sub-step, a
    reach of 2 (n = 1029: the trailing boundary cells straddle a row, and with rows of 512 cells
    their neumann sources would lie two rows back; stn_fold_make widens the row), an input field
    from an .npy, an input along x, a source, receivers and a series.  Every engine and several
    block shapes give the in-core bits and the NumPy loop's values, bytes as predicted."""
    cmd, env = stencilc_command()
    (tmp_path / "rod.stn").write_text(ROD)
    r = subprocess.run(cmd + [str(tmp_path / "rod.stn"), "-o", str(tmp_path / "rod")], capture_output=True,
                       text=True, env=env)
    assert r.returncode == 0, r.stderr
    steps = 23
    rng = np.random.default_rng(n)
    u0, k = rng.standard_normal(n) * 0.1, 1 + 0.2 * rng.random(n)
    w = np.cos(0.2 * np.arange(steps))
    src, rcv = [3, n // 2, n - 3], [2, 513, n // 3, n - 3]
    files = {"u": u0, "k": k, "w": w, "src": np.array(src, dtype=np.int64)[:, None],
             "rcv": np.array(rcv, dtype=np.int64)[:, None]}
    inits = []
    for name, a in files.items():
        np.save(tmp_path / f"{name}.npy", a)
        inits += ["--init", f"{name}={tmp_path / f'{name}.npy'}"]
    x = np.arange(n, dtype=np.float64)
    want_u, want_rec = rod_reference(u0, k, 1 + 0.5 * np.sin(x / 37), w, src, rcv, steps)
    runs = [("incore", ["--mode", "incore"]), ("ooc-one", ["--mode", "ooc", "--block", "4"]),
            ("ooc-ref", ["--mode", "ooc", "--block", "300,4"]), ("ooc-ref-bt1", ["--mode", "ooc", "--block", "1,1"]),
            ("ooc-ref-tiles", ["--mode", "ooc", "--block", "2000,9", "--time-tiles", "3"]),
            ("ooc-alg1", ["--mode", "ooc", "--schedule", "alg1", "--block", "600,3"]),
            ("ooc-alg2", ["--mode", "ooc", "--schedule", "alg2", "--block", "600,5"]),
            ("ooc-tuned", ["--mode", "ooc", "--mem", "3M"])]
    got = {}
    for how, args in runs:
        d = tmp_path / how
        d.mkdir()
        r = subprocess.run([str(tmp_path / "rod"), "--size", str(n), "--steps", str(steps), "--quiet", "--dir", str(d),
                            *inits, "--out", f"u={d / 'u.npy'}", "--out", f"u.prev={d / 'up.npy'}",
                            "--out", f"p={d / 'p.npy'}", "--report", str(d / "r.json"), *args],
                           capture_output=True, text=True)
        assert r.returncode == 0, f"{how}: {r.stderr}"
        got[how] = [np.load(d / f) for f in ("u.npy", "up.npy", "p.npy")]
        np.testing.assert_allclose(got[how][0], want_u, rtol=0, atol=1e-12, err_msg=how)
        np.testing.assert_allclose(got[how][2], want_rec, rtol=0, atol=1e-12, err_msg=how)
        rep = load_report(d / "r.json")
        assert rep["bytes_read"] == rep["predicted_bytes_read"], how
        assert rep["bytes_written"] == rep["predicted_bytes_written"], how
        if how.startswith("ooc"):
            assert rep["fold"]["row"] >= 512 and rep["fold"]["row"] * 8 % rep["dio"]["align"] == 0, rep["fold"]
    for how in got:
        for a, b in zip(got[how], got["incore"]):
            assert a.tobytes() == b.tobytes(), how
