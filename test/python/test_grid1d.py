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
]


@pytest.mark.parametrize("n,tsteps", [(30, 7), (3, 4), (1001, 20)])
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


def test_a_1d_row_is_held_once_out_of_core(compile_example, run_program, tmp_path):
    """The window of a 1d grid is the whole row, one slice: its ring holds that slice once per array
    (levels + 1 of each state field), not a page's multiple of it (eight copies of a row of 8e6
    bytes, 272 MB for a 16 MB state, refused at --mem 64M before).  The plan fits in 64 MiB and
    the run matches in-core, bytes as predicted."""
    exe = compile_example("jacobi1d")
    n, row = 1_000_000, 8_000_000
    common = ["--size", str(n), "--steps", "20", "--quiet", "--dir", str(tmp_path)]
    rc, out, err = run_program(exe, [*common, "--mode", "ooc", "--mem", "64M", "--out", f"A={tmp_path / 'a.npy'}",
                                     "--report", str(tmp_path / "r.json")])
    assert rc == 0, err
    r = load_report(tmp_path / "r.json")
    arrays = 2 * 2  # two state fields, each its level and the next
    assert arrays * row <= r["mem_plan_bytes"] < arrays * row + (16 << 20), r["mem_plan_bytes"]
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
                                       "--dir", str(tmp_path), "--plan-only", "--threads", "2", "--report",
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
        (["--size", "30", "--block", "2,3"], 2, "--block 2,3: expected bt, a positive integer (a 1d grid is one block)"),
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
