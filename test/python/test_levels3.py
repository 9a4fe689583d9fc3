"""Three time levels (issue 34, design 025 section 2): ``state u levels 3;``, ``u.prev.prev``.

A 3d stencil of two three-level fields (one mirrored, one dirichlet; ``.prev.prev`` read at offsets
along every axis, across the fields) against a NumPy reference built with ``examples/reference_driver``
(the levels rotate prev.prev <- prev <- cur <- new, each under its field's boundary rule), in-core; out
of core on whole planes and on y-blocked tiles (the z-strip in DRAM and in a file), in several blocks
and sweeps, with every schedule, and mmap: bit-identical to in-core, the bytes counted those predicted;
the defaults of the older levels (``u.prev.prev`` a copy of ``u.prev``, from its file, else from ``u``'s
file); a run SIGKILLed and resumed; the Python API's levels and checkpoint; MPI, 2 and 3 ranks.
The 2d example (``examples/advect_ab3.stn``) runs through test_examples.py and test_mpi.py.

Expects: a C compiler, libaio, hwloc; mpirun and mpicc for the MPI case (skipped without).
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from reference_driver import Example
from test_examples import compare, run_stencil
from test_ooc import ENV, _kill_and_resume_until_done, run, sha, stencilc

SRC = """\
stencil lev3 {
  grid 3d f64;
  param a = 0.1;
  state u levels 3;
  state v levels 3;
  u' = u + a * (u[1,0,0] + u[-1,0,0] + u[0,1,0] + u[0,-1,0] + u[0,0,1] + u[0,0,-1] - 6 * u)
         + 0.3 * (u.prev - u.prev.prev[0,0,-1]) + 0.05 * v.prev.prev[0,1,0];
  v' = 0.5 * v + 0.25 * v.prev.prev[1,0,0] + 0.2 * u.prev.prev[-1,0,1];
  boundary u neumann;
  init u = sin(0.3 * x + 0.2 * y + 0.1 * z);
  init u.prev = cos(0.2 * x + 0.1 * y);
  init v = 0.5 * sin(0.1 * z + 0.05 * x);
}
"""


def _update(f, p):
    u, v = f["u"], f["v"]
    lap = u(1, 0, 0) + u(-1, 0, 0) + u(0, 1, 0) + u(0, -1, 0) + u(0, 0, 1) + u(0, 0, -1) - 6 * u()
    return {"u": u() + p.a * lap + 0.3 * (u.prev() - u.prev.prev(0, 0, -1)) + 0.05 * v.prev.prev(0, 1, 0),
            "v": 0.5 * v() + 0.25 * v.prev.prev(1, 0, 0) + 0.2 * u.prev.prev(-1, 0, 1)}


LEV3 = Example(
    name="lev3", ndim=3, dtype=np.float64, halo_lo=(1, 1, 1), halo_hi=(1, 1, 1),
    state={"u": (3, "neumann"), "v": (3, "dirichlet")}, inputs=(), params={"a": 0.1},
    inits={"u": lambda c, p: np.sin(0.3 * c.x + 0.2 * c.y + 0.1 * c.z),
           "u.prev": lambda c, p: np.cos(0.2 * c.x + 0.1 * c.y) + 0 * c.z,
           "v": lambda c, p: 0.5 * np.sin(0.1 * c.z + 0.05 * c.x) + 0 * c.y},
    update=_update, doc="two three-level fields")

SIZE = (11, 13, 17)
STEPS = 7


@pytest.fixture(scope="module")
def lev3(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("lev3")
    (d / "lev3.stn").write_text(SRC)
    stencilc(d / "lev3.stn", d / "lev3")
    return d / "lev3"


def files_for(which: str, size=SIZE) -> dict[str, np.ndarray]:
    """The --init files of a case: none, the current levels only, every level but the oldest, every level."""
    rng = np.random.default_rng(len(which))
    keys = {"none": [], "current": ["u", "v"], "prev": ["u", "u.prev", "v.prev"],
            "all": ["u", "u.prev", "u.prev.prev", "v", "v.prev", "v.prev.prev"]}[which]
    return {k: rng.uniform(-1, 1, size[::-1]) for k in keys}


def run_case(run_program, exe, tmp: Path, files, extra, size=SIZE, steps=STEPS):
    tmp.mkdir(parents=True, exist_ok=True)
    return run_stencil(run_program, exe, LEV3, size, steps, {}, files, tmp, extra=extra)


@pytest.mark.parametrize("which", ["none", "current", "prev", "all"])
def test_incore_follows_numpy_and_the_older_levels_default_to_the_newer(lev3, run_program, tmp_path, which):
    """In-core against NumPy; without a file or an init of its own u.prev.prev starts as u.prev (its file,
    else u's file when u.prev has no init of its own, else u.prev's init), v.prev.prev as v.prev (v's)."""
    files = files_for(which)
    got, report = run_case(run_program, lev3, tmp_path, files, ("--mode", "incore"))
    compare(LEV3, got, LEV3.run(LEV3.initial(SIZE, None, files), None, STEPS), f"incore, files {which}")
    assert (report["bytes_read"], report["bytes_written"]) == (report["predicted_bytes_read"],
                                                               report["predicted_bytes_written"])


def test_the_oldest_level_is_a_level_of_its_own(lev3, tmp_path, run_program):
    """--out u.prev.prev writes the level before u.prev: after one step from u.prev.prev = A, u.prev = B,
    u = C it is B (u.prev took C); --steps 0 writes its initial value; --help names it."""
    rng = np.random.default_rng(3)
    a, b, c = (rng.uniform(-1, 1, SIZE[::-1]) for _ in range(3))
    for k, want in ((0, a), (1, b), (2, c)):
        args = ["--quiet", "--mode", "incore", "--size", ",".join(map(str, SIZE)), "--steps", str(k)]
        for name, arr in (("u.prev.prev", a), ("u.prev", b), ("u", c)):
            np.save(tmp_path / f"{name}.npy", arr)
            args += ["--init", f"{name}={tmp_path / f'{name}.npy'}"]
        rc, _, err = run_program(lev3, [*args, "--out", f"u.prev.prev={tmp_path / 'o.npy'}"])
        assert rc == 0, err
        got = np.load(tmp_path / "o.npy")
        inner = (slice(1, -1),) * 3  # (u mirrors: the boundary cells are the interior's images)
        np.testing.assert_array_equal(got[inner], want[inner], err_msg=f"after {k} steps")
    rc, out, _ = run_program(lev3, ["--help"])
    assert rc == 0 and "u.prev.prev  the level before u.prev (a three-level field)" in out, out


OOC = {  # (extra options, steps): several blocks of z, several sweeps (and a last one shorter)
    "planes-ref": (["--block", "13,3,2"], 7),
    "planes-alg1": (["--schedule", "alg1", "--block", "13,4,3"], 8),
    "planes-alg2": (["--schedule", "alg2", "--block", "13,3,2"], 7),
    "yblocked-dram": (["--block", "5,3,2", "--strip", "dram"], 7),
    "yblocked-file": (["--block", "4,2,3", "--strip", "file"], 8),
}


@pytest.mark.parametrize("case", sorted(OOC))
@pytest.mark.parametrize("which", ["current", "all"])
def test_out_of_core_is_bit_identical_and_counts_what_it_predicts(lev3, run_program, tmp_path, case, which):
    opts, steps = OOC[case]
    files = files_for(which)
    want, _ = run_case(run_program, lev3, tmp_path / "in", files, ("--mode", "incore"), steps=steps)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    got, r = run_case(run_program, lev3, tmp_path / "ooc", files, ("--mode", "ooc", "--dir", str(scratch), *opts),
                      steps=steps)
    for f in LEV3.fields:
        assert got[f].tobytes() == want[f].tobytes(), f"{case}: {f} differs"
    assert (r["bytes_read"], r["bytes_written"]) == (r["predicted_bytes_read"], r["predicted_bytes_written"])
    assert r["bytes_read"] > 0 and not list(scratch.glob("*.grid"))
    compare(LEV3, got, LEV3.run(LEV3.initial(SIZE, None, files), None, steps), case)


def test_mmap_is_bit_identical(lev3, run_program, tmp_path):
    files = files_for("prev")
    want, _ = run_case(run_program, lev3, tmp_path / "in", files, ("--mode", "incore"))
    (tmp_path / "scratch").mkdir()
    got, _ = run_case(run_program, lev3, tmp_path / "mm", files, ("--mode", "mmap", "--dir", str(tmp_path / "scratch")))
    for f in LEV3.fields:
        assert got[f].tobytes() == want[f].tobytes(), f


def test_init_of_the_oldest_level_on_two_levels_is_refused(run_program, compile_example, tmp_path):
    """--init u.prev.prev=FILE names a level a two-level field does not keep: refused, saying why."""
    np.save(tmp_path / "a.npy", np.zeros((8, 8, 8)))
    rc, _, err = run_program(compile_example("wave3d"), ["--size", "8,8,8", "--steps", "1",
                                                         "--init", f"u.prev.prev={tmp_path / 'a.npy'}"])
    assert rc != 0
    assert "--init u.prev.prev=" in err and "'u' has two time levels; NAME.prev.prev is only for fields " \
        "declared with 'levels 3'" in err, err


def test_a_killed_run_resumes_bit_identically(lev3, tmp_path):
    """SIGKILL at random moments, --resume until done: the bits of one uninterrupted run (every level of
    both fields goes through the state file and the scratch sets)."""
    size, steps = "40,36,48", "120"
    start = tmp_path / "start.npy"
    np.save(start, np.random.default_rng(5).uniform(-1, 1, (48, 36, 40)))
    os.chmod(start, 0o444)
    digest = sha(start)
    ref = tmp_path / "ref.npy"
    common = ["--size", size, "--steps", steps, "--block", "36,6,3", "--init", f"u={start}", "--quiet"]
    t0 = time.monotonic()
    run(lev3, *common, "--dir", str(tmp_path), "--out", f"u={ref}")
    full = time.monotonic() - t0
    out, scratch = tmp_path / "out.npy", tmp_path / "scratch"
    moments = random.Random(3)
    kills = 0
    for scale in (0.3, 0.12, 0.05):
        shutil.rmtree(scratch, ignore_errors=True)
        out.unlink(missing_ok=True)
        scratch.mkdir()
        kills = _kill_and_resume_until_done(lev3, common, scratch, out, ref, full * scale, moments, digest, start)
        if kills >= 2:
            break
    assert kills >= 2, f"only {kills} kills landed"
    assert np.array_equal(np.load(out), np.load(ref))


def test_python_api_reads_the_oldest_level_and_restarts_from_a_checkpoint(lev3, tmp_path):
    """sim.read("u.prev.prev"); advance 3, checkpoint (every level, u.prev.prev among them), restart,
    advance 4 = one run of 7, in-core and out of core."""
    code = f"""
import sys, numpy as np, stencilc
prog = stencilc.compile({str(lev3) + '.stn'!r})
assert "u.prev.prev" in prog.fields and "v.prev.prev" in prog.fields, prog.fields
for kw in ({{"mode": "incore"}}, {{"dir": {str(tmp_path)!r}, "options": ["--block", "13,3,2"]}}):
    with prog.open({SIZE!r}, steps=7, **kw) as sim:
        b = sim.read("u.prev")
        sim.advance(1)
        assert np.array_equal(sim.read("u.prev.prev"), b)
        sim.advance(6)
        whole = sim.read("u"), sim.read("v.prev.prev")
    with prog.open({SIZE!r}, steps=3, **kw) as sim:
        sim.advance(3)
        sim.checkpoint({str(tmp_path / 'ck')!r})
    with prog.open(steps=4, restart={str(tmp_path / 'ck')!r}, **kw) as sim:
        sim.advance(4)
        assert np.array_equal(sim.read("u"), whole[0]) and np.array_equal(sim.read("v.prev.prev"), whole[1])
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, timeout=600)
    assert r.returncode == 0 and "ok" in r.stdout, r.stdout + r.stderr
    assert (tmp_path / "ck" / "u.prev.prev.npy").exists()


MPIRUN = shutil.which("mpirun")


@pytest.mark.skipif(not (MPIRUN and shutil.which("mpicc")), reason="no MPI (mpirun and mpicc)")
def test_ranks_give_the_bits_of_one_process(lev3, run_program, tmp_path):
    """2 and 3 ranks: out of core on whole planes and y-blocked tiles, in-core, and a cartesian split:
    each level's ghost planes travel; the bits of one process, bytes and messages as predicted."""
    from test_mpi import mpirun

    exe = tmp_path / "lev3mpi"
    r = subprocess.run([sys.executable, "-m", "stencilc", str(lev3) + ".stn", "--mpi", "-o", str(exe)],
                       capture_output=True, text=True, env=ENV)
    assert r.returncode == 0, r.stderr
    files = files_for("prev")
    want, _ = run_case(run_program, lev3, tmp_path / "one", files, ("--mode", "incore"))
    for P, extra in ((2, ["--block", "13,3,2"]), (3, ["--block", "13,2,3"]), (2, ["--block", "5,3,2", "--strip", "dram"]),
                     (3, ["--block", "4,2,2", "--strip", "file"]), (2, "incore"), (3, "incore"),
                     (2, ["--ranks", "1,2,1", "--block", "13,3,2"])):
        d = tmp_path / f"p{P}{len(str(extra))}"
        opts = ("--mode", "incore") if extra == "incore" else ("--mode", "ooc", "--dir", str(d / "s%r"), *extra)
        got, rep = run_case(mpirun(P), exe, d, files, opts)
        for f in LEV3.fields:
            assert got[f].tobytes() == want[f].tobytes(), f"{P} ranks {extra}: {f} differs"
        m = rep["mpi"]
        assert m["ranks"] == P and m["message_bytes"] == m["predicted_message_bytes"] > 0, m
        for k in m["per_rank"]:
            assert (k["bytes_read"], k["bytes_written"]) == (k["predicted_bytes_read"], k["predicted_bytes_written"])


@pytest.mark.parametrize("extra", [("--mode", "incore"), ("--mode", "ooc", "--block", "5,3,2")], ids=["incore", "ooc"])
def test_snapshots_hold_the_current_level_only(lev3, run_program, tmp_path, extra):
    """--save u and v: the file holds each field's current level at the saved steps (those of a run stopped
    there), and no dataset of the older levels."""
    h5py = pytest.importorskip("h5py")
    files = files_for("prev")
    steps = [2, 4, 6]
    want = {k: run_case(run_program, lev3, tmp_path / f"k{k}", files, ("--mode", "incore"), steps=k)[0]
            for k in steps}
    h5 = tmp_path / "s.h5"
    (tmp_path / "scratch").mkdir()
    opts = [*extra, "--dir", str(tmp_path / "scratch"), "--save", "u:every=2:from=2", "--save", "v:every=2:from=2",
            "--save-to", str(h5)]
    run_case(run_program, lev3, tmp_path / "run", files, tuple(opts), steps=6)
    with h5py.File(h5, "r") as f:
        assert sorted(k for k in f.keys() if k.split("_")[0] == k) == ["u", "v"], list(f.keys())  # (u_step, u_x...)
        assert not [k for k in f.keys() if "prev" in k], list(f.keys())
        for fld in ("u", "v"):
            assert list(f[f"{fld}_step"][:]) == steps
            for i, k in enumerate(steps):
                assert f[fld][i].tobytes() == want[k][fld].tobytes(), f"{fld} at step {k}"
