"""MPI ranks, each out of core on its slab of the grid (issue 17, docs/design/018).  A program built
with ``stencilc --mpi`` and run by ``mpirun -np P`` (oversubscribed on this 2-core machine) splits the
axis the blocks stream along into slabs, one a rank, swaps ghosts of depth bt x skew once per sweep,
and gives the bits of the program without MPI; the bytes each rank moves, and the messages, are the
model's.  What this version does not split yet is refused with the reason."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
import reference as ref
from conftest import load_report, stencilc_command
from mpi_common import MPI_FLAGS, MPIRUN, needs_mpi
from test_examples import random_fields, run_stencil

pytestmark = needs_mpi
SPLIT = sorted(ref.EXAMPLES)  # (d2q9: a ring of ranks along y; jacobi1d: its rows, design 014)
SIZE = {1: (20011,), 2: (23, 41), 3: (14, 12, 29)}


def mpirun(P: int):
    """A run_program for run_stencil: the program under mpirun -np P."""

    def run(exe, args, timeout=300):
        p = subprocess.run([MPIRUN, *MPI_FLAGS, "-np", str(P), str(exe), *map(str, args)], capture_output=True,
                           text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr

    return run


def blocks(ex: ref.Example, size: tuple[int, ...], bt: int) -> str:
    return f"{size[1]},3,{bt}" if ex.ndim == 3 else f"4,{bt}" if ex.ndim == 2 else f"1500,{bt}"


def one_process(name: str, compile_example, run_program, tmp_path: Path, seed: int, steps: int):
    """An example's random inputs and what the program without MPI makes of them in-core."""
    ex = ref.EXAMPLES[name]
    size = SIZE[ex.ndim]
    files = random_fields(ex, size, seed, True)
    (tmp_path / "one").mkdir()
    want, _ = run_stencil(run_program, compile_example(name), ex, size, steps, {}, files, tmp_path / "one")
    return ex, size, files, want


@pytest.mark.parametrize("name", SPLIT)
def test_ranks_give_the_bits_of_one_process(name, compile_example, compile_mpi, run_program, tmp_path):
    """Every example, 1 to 4 ranks out of core (sweeps of 2 and 3 steps, so that ghosts of 2 and 3 skews
    travel between sweeps) and in-core (ghosts of a chunk of steps), against the program without MPI
    in-core: the same bits, and every rank's bytes and messages as the model says."""
    steps = 7
    ex, size, files, want = one_process(name, compile_example, run_program, tmp_path, 11, steps)
    exe = compile_mpi(name)
    # (one rank, the MPI build's plain program, once: out of core; in-core it is `want`'s own path)
    runs = [(1, 2, "ooc"), (2, 2, "ooc"), (3, 3, "ooc"), (4, 2, "ooc"), (2, 0, "incore"), (3, 0, "incore"),
            (4, 0, "incore")]
    if ex.ndim == 3 and "z" not in "".join(ex.periodic.values()):  # y-blocked tiles: the ranks split q = z
        runs += [(2, 2, "ooc-y-dram"), (3, 2, "ooc-y-file")]
    for P, bt, mode in runs:
        d = tmp_path / f"p{P}{mode}"
        d.mkdir()
        extra = ("--mode", "ooc", "--dir", str(d / "s%r"), "--block", blocks(ex, size, bt)) if bt else ("--mode", mode)
        if mode.startswith("ooc-y"):  # tiles of 5 rows of y by 3 planes, the z-strip in DRAM or in a file
            extra = ("--mode", "ooc", "--dir", str(d / "s%r"), "--block", f"5,3,{bt}", "--strip", mode[6:])
        got, r = run_stencil(mpirun(P), exe, ex, size, steps, {}, files, d, extra=extra)
        for f in (*ex.fields, *ex.records):  # (each record's samples from the ranks owning its points)
            assert got[f].tobytes() == want[f].tobytes(), f"{name}, {P} ranks {mode}: {f} differs"
        assert (r["bytes_read"], r["bytes_written"]) == (r["predicted_bytes_read"], r["predicted_bytes_written"])
        if P == 1:  # (one rank: the plain program)
            assert "mpi" not in r
            continue
        m = r["mpi"]
        assert m["ranks"] == P and len(m["per_rank"]) == P, m
        assert m["message_bytes"] == m["predicted_message_bytes"] > 0, m
        # out of core on whole planes the exchanges' way down runs beside the next sweep (design 019)
        assert m["overlapped"] == (mode == "ooc"), (mode, m["overlapped"])
        for k in m["per_rank"]:
            assert (k["bytes_read"], k["bytes_written"]) == (k["predicted_bytes_read"], k["predicted_bytes_written"])
        assert not list(d.glob("s*/*.grid")), "scratch files left behind"


def cartesian_runs(ex: ref.Example) -> list[tuple[str, int, str]]:
    """--ranks splits of more than the streaming axis (design 019): (ranks, bt, mode), bt 0 in-core.  An axis
    a field wraps is cut only where the blocks stream along it (y in 2d, z in 3d)."""
    if ex.ndim == 1:
        return [("3", 2, "ooc"), ("4", 0, "incore")]
    if ex.ndim == 2:  # (d2q9 wraps x and y: rings of ranks across the rows, and along y a ring of one)
        return [("2,2", 2, "ooc"), ("3,1", 2, "ooc"), ("2,2", 0, "incore"), ("4,1", 0, "incore")]
    return [("2,2,1", 2, "ooc"), ("1,2,2", 2, "ooc"), ("2,1,2", 0, "incore"), ("1,3,1", 0, "incore")]


@pytest.mark.parametrize("name", SPLIT)
def test_a_cartesian_split_gives_the_bits_of_one_process(name, compile_example, compile_mpi, run_program, tmp_path):
    """--ranks PX,PY(,PZ): the ranks cut x and y too (design 019), each part with ghosts along every cut
    axis (the corners from the diagonal neighbours; along a periodic axis the ranks are a ring); out of
    core the ghosts across the rows travel in a pass over each part's files after the sweep.  The bits
    of the program without MPI, every rank's bytes and messages as the model says, and the report's
    dims as asked."""
    steps = 7
    ex, size, files, want = one_process(name, compile_example, run_program, tmp_path, 12, steps)
    exe = compile_mpi(name)
    for ranks, bt, mode in cartesian_runs(ex):
        P = int(np.prod([int(n) for n in ranks.split(",")]))
        d = tmp_path / f"r{ranks.replace(',', 'x')}{mode}"
        d.mkdir()
        extra = ("--mode", mode, "--ranks", ranks)
        if bt:
            extra += ("--dir", str(d / "s%r"), "--block", blocks(ex, size, bt))
        got, r = run_stencil(mpirun(P), exe, ex, size, steps, {}, files, d, extra=extra)
        for f in (*ex.fields, *ex.records):
            assert got[f].tobytes() == want[f].tobytes(), f"{name}, --ranks {ranks} {mode}: {f} differs"
        m = r["mpi"]
        dims = [int(n) for n in ranks.split(",")] + [1] * (3 - len(ranks.split(",")))
        assert m["dims"] == ([1, P, 1] if ex.ndim == 1 else dims), m["dims"]
        cross = ex.ndim > 1 and any(n > 1 for n in dims[:ex.ndim - 1])  # (a cut across the rows: blocking)
        assert m["overlapped"] == (mode == "ooc" and not cross), m["overlapped"]
        assert m["message_bytes"] == m["predicted_message_bytes"] > 0, m
        for k in m["per_rank"]:
            assert (k["bytes_read"], k["bytes_written"]) == (k["predicted_bytes_read"], k["predicted_bytes_written"])
            assert k["message_bytes"] == k["predicted_message_bytes"]
        assert not list(d.glob("s*/*.grid")), "scratch files left behind"


def test_the_default_split_follows_the_io_model(compile_mpi, tmp_path):
    """Without --ranks: out of core the ranks cut the streaming axis alone (a cut across the rows costs a
    pass over the part's files each exchange), unless its parts would be thinner than one step's
    ghosts; in-core the split with the fewest message bytes (4 ranks on a square: 2 x 2)."""
    exe = compile_mpi("jacobi2d")
    common = ["--steps", "4", "--quiet", "--dir", str(tmp_path / "s%r")]
    for size, mode, P, dims in (("40,40", "ooc", 4, [1, 4, 1]), ("40,40", "incore", 4, [2, 2, 1]),
                                ("200,4", "ooc", 4, [4, 1, 1]), ("40,40", "ooc", 3, [1, 3, 1])):
        rep = tmp_path / f"{mode}{P}{size}.json"
        rc, _, err = mpirun(P)(exe, ["--size", size, "--mode", mode, *common, "--report", str(rep)])
        assert rc == 0, err
        assert load_report(rep)["mpi"]["dims"] == dims, (size, mode, P)


def test_one_rank_is_the_program_without_mpi(compile_example, compile_mpi, run_program, tmp_path):
    """mpirun -np 1 and the --mpi program started alone are the plain program: same bits, same bytes, no
    mpi section in the report."""
    ex = ref.EXAMPLES["wave3d"]
    size = SIZE[3]
    files = random_fields(ex, size, 5, True)
    runs = {}
    for how, runner, exe in (("plain", run_program, compile_example("wave3d")), ("np1", mpirun(1), compile_mpi("wave3d")),
                             ("alone", run_program, compile_mpi("wave3d"))):
        d = tmp_path / how
        d.mkdir()
        runs[how] = run_stencil(runner, exe, ex, size, 6, {}, files, d,
                                extra=("--mode", "ooc", "--dir", str(d), "--block", blocks(ex, size, 2)))
    for how in ("np1", "alone"):
        got, r = runs[how]
        assert all(got[f].tobytes() == runs["plain"][0][f].tobytes() for f in ex.fields), how
        assert "mpi" not in r and r["bytes_read"] == runs["plain"][1]["bytes_read"], how


@pytest.mark.parametrize("args,message", [
    (["--mode", "mmap"], "--mode mmap with 2 MPI ranks: the ranks split --mode ooc, incore, gpu and gpu-ooc"),
    (["--mode", "ooc", "--block", "12,3,2", "--schedule", "alg1"], "without --schedule alg1 (the reference schedule only)"),
    (["--mode", "ooc", "--block", "12,3,20"], "fewer than the ghost depth bt x skew = 20 x 1"),
    (["--mode", "ooc", "--ranks", "2,2,1"], "--ranks 2,2,1: 4 ranks, but mpirun started 2"),
    (["--mode", "ooc", "--ranks", "2,1"], "--ranks 2,1: expected px,py,pz (3 positive integers separated by commas)"),
    (["--mode", "ooc", "--ranks", "2,1,1", "--block", "12,3,12"], "2 along x give a rank 7 of the interior's x-indices, "
     "fewer than the ghost depth bt x skew = 12 x 1"),
    (["--mode", "ooc", "--ranks", "1,2,1", "--block", "3,3,2"], "without y-blocked tiles when the ranks cut x or y"),
])
def test_what_the_ranks_do_not_split_yet_is_refused(compile_mpi, tmp_path, args, message):
    exe = compile_mpi("heat3d")
    rc, _, err = mpirun(2)(exe, ["--size", "14,12,29", "--steps", "30", "--dir", str(tmp_path), *args])
    assert rc != 0 and message in err, err


TORUS3D = """
stencil torus3d {
  grid 3d f64;
  param a = 0.1;
  state u;
  state v;
  u' = u + a * (u[-1,0,0] + u[1,0,0] + u[0,-1,0] + u[0,1,0] + u[0,0,-1] + u[0,0,1] - 6*u) + 0.01 * v[0,1,-1];
  v' = v + a * (v[-1,1,0] + v[1,0,-1] - 2*v) - 0.01 * u[1,-1,1];
  boundary u periodic;
  boundary v periodic x z;
}
"""


@pytest.mark.parametrize("ranks,mode", [("2,1,2", "ooc"), ("3,1,1", "ooc"), ("2,1,1", "incore"), ("2,1,3", "incore"),
                                        ("2,2,1", "refused")])
def test_rings_of_ranks_across_the_rows_of_a_3d_torus(ranks, mode, tmp_path):
    """A 3d stencil periodic along every axis (u) and along x and z only (v, dirichlet along y), read at
    diagonal offsets: cut along x and z the ranks are rings (along the split axis z a ring of one when
    only x is cut), each ring's ghosts the far side's: the bits of the program without MPI, bytes and
    messages as the model says.  Along y, which u wraps and v does not, a cut is refused."""
    src = tmp_path / "torus3d.stn"
    src.write_text(TORUS3D)
    cmd, env = stencilc_command()
    for extra, exe in (([], "plain"), (["--mpi"], "mpi")):
        p = subprocess.run([*cmd, str(src), *extra, "-o", str(tmp_path / exe)], capture_output=True, text=True, env=env)
        assert p.returncode == 0, p.stderr
    rng = np.random.default_rng(21)
    size, steps = (14, 13, 17), 7
    args = ["--size", ",".join(map(str, size)), "--steps", str(steps), "--quiet"]
    for f in "uv":
        np.save(tmp_path / f"{f}0.npy", rng.random(size[::-1]))
        args += ["--init", f"{f}={tmp_path / f'{f}0.npy'}"]
    want = [*args, "--mode", "incore", "--out", f"u={tmp_path / 'u1.npy'}", "--out", f"v={tmp_path / 'v1.npy'}"]
    p = subprocess.run([str(tmp_path / "plain"), *want], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    P = int(np.prod([int(n) for n in ranks.split(",")]))
    if mode == "refused":
        rc, _, err = mpirun(P)(tmp_path / "mpi", [*args, "--ranks", ranks, "--dir", str(tmp_path)])
        assert rc != 0 and "2 ranks along y: 'u' wraps y and 'v' does not, and the ranks along an axis are a ring " \
            "(a field wraps it) or a line (none does), not both; give --ranks with 1 along y" in err, err
        return
    rep = tmp_path / "r.json"
    got = [*args, "--mode", mode, "--ranks", ranks, "--report", str(rep), "--out", f"u={tmp_path / 'u2.npy'}",
           "--out", f"v={tmp_path / 'v2.npy'}"]
    if mode == "ooc":
        got += ["--dir", str(tmp_path / "s%r"), "--block", "13,3,2"]
    rc, _, err = mpirun(P)(tmp_path / "mpi", got)
    assert rc == 0, err
    for f in "uv":
        assert np.load(tmp_path / f"{f}2.npy").tobytes() == np.load(tmp_path / f"{f}1.npy").tobytes(), f
    r = load_report(rep)
    assert (r["bytes_read"], r["bytes_written"]) == (r["predicted_bytes_read"], r["predicted_bytes_written"])
    assert r["mpi"]["dims"] == [int(n) for n in ranks.split(",")]
    assert r["mpi"]["message_bytes"] == r["mpi"]["predicted_message_bytes"] > 0


def test_blk_tune_chooses_the_ranks_blocks(compile_example, compile_mpi, run_program, tmp_path):
    """Without --block each rank tunes its slab (ghosts for a guessed bt, again while the ranks' least bt
    is deeper than the guess, never deeper than the thinnest slab gives): the bits of one process, one bt
    for every rank, each plan within its budget."""
    ex = ref.EXAMPLES["heat3d"]
    size = (24, 20, 30)
    files = random_fields(ex, size, 2, True)
    (tmp_path / "one").mkdir()
    want, _ = run_stencil(run_program, compile_example("heat3d"), ex, size, 9, {}, files, tmp_path / "one")
    for P, mem in ((2, "2M"), (4, "2M")):
        d = tmp_path / f"p{P}"
        d.mkdir()
        got, r = run_stencil(mpirun(P), compile_mpi("heat3d"), ex, size, 9, {}, files, d,
                             extra=("--mode", "ooc", "--mem", mem, "--dir", str(d / "s%r")))
        assert got["u"].tobytes() == want["u"].tobytes(), P
        assert r["tuner"] == "blk" and r["mem_plan_bytes"] <= 2 << 20, r["params"]
        assert r["params"]["bt"] * 1 <= (size[2] - 2) // P, r["params"]  # ghosts within the thinnest slab
        assert (r["bytes_read"], r["bytes_written"]) == (r["predicted_bytes_read"], r["predicted_bytes_written"])
    # a budget too small for whole planes: each rank's tiles of y rows by z planes, the z-strip spilled
    size = (96, 90, 60)
    files = random_fields(ex, size, 4, True)
    (tmp_path / "one-y").mkdir()
    want, _ = run_stencil(run_program, compile_example("heat3d"), ex, size, 9, {}, files, tmp_path / "one-y")
    d = tmp_path / "y"
    d.mkdir()
    got, r = run_stencil(mpirun(2), compile_mpi("heat3d"), ex, size, 9, {}, files, d,
                         extra=("--mode", "ooc", "--mem", "600K", "--dir", str(d / "s%r")))
    assert got["u"].tobytes() == want["u"].tobytes()
    assert r["params"]["by"] < size[1] and r["strip"] != "none" and r["mem_plan_bytes"] <= 600 << 10, r["params"]
    assert (r["bytes_read"], r["bytes_written"]) == (r["predicted_bytes_read"], r["predicted_bytes_written"])
    assert r["mpi"]["message_bytes"] == r["mpi"]["predicted_message_bytes"] > 0


def test_a_killed_rank_resumes_to_the_same_bits(compile_mpi, tmp_path):
    """One of three ranks SIGKILLed once a sweep has committed (mpirun ends the others); --resume goes on
    from the last sweep every rank committed and gives the uninterrupted run's bits; the input stays."""
    exe = compile_mpi("heat3d")
    rng = np.random.default_rng(3)
    np.save(tmp_path / "u0.npy", rng.random((240, 64, 64)))
    digest = (tmp_path / "u0.npy").read_bytes()
    common = ["--size", "64,64,240", "--steps", "800", "--mode", "ooc", "--block", "64,6,4", "--quiet",
              "--threads", "1", "--init", f"u={tmp_path / 'u0.npy'}"]
    rc, _, err = mpirun(3)(exe, [*common, "--dir", str(tmp_path / "a%r"), "--out", f"u={tmp_path / 'want.npy'}"])
    assert rc == 0, err
    cmd = [MPIRUN, *MPI_FLAGS, "-np", "3", str(exe), *common, "--dir", str(tmp_path / "b%r"),
           "--out", f"u={tmp_path / 'got.npy'}"]
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    state = tmp_path / "b1" / "heat3d.r1.ooc-state"
    t0 = time.monotonic()
    while not state.exists() and p.poll() is None and time.monotonic() - t0 < 60:
        time.sleep(0.01)
    pids = subprocess.run(["pgrep", "-f", f"^{exe} .*{tmp_path / 'b%r'}"], capture_output=True, text=True).stdout.split()
    killed = bool(pids) and p.poll() is None
    if killed:
        os.kill(int(pids[len(pids) // 2]), signal.SIGKILL)
    _, err = p.communicate(timeout=120)
    assert killed, f"the run ended before a rank could be killed ({p.returncode}): {err[-2000:]}"
    assert not (tmp_path / "got.npy").exists(), "an output of a killed run"
    rc, _, err = mpirun(3)(exe, [*common, "--dir", str(tmp_path / "b%r"), "--out", f"u={tmp_path / 'got.npy'}",
                                 "--resume"])
    assert rc == 0, err
    assert np.load(tmp_path / "got.npy").tobytes() == np.load(tmp_path / "want.npy").tobytes(), "resumed bits differ"
    assert (tmp_path / "u0.npy").read_bytes() == digest


def test_a_rank_held_at_its_commit_keeps_the_others_from_the_next_sweep(compile_mpi, tmp_path):
    """The fault shim holds rank 0 in its second state commit (the rename) and it is killed there. The other
    ranks committed that sweep; had they gone on into the next one, its writes would have overwritten
    the file set of the state before, which --resume goes back to (the least sweep every rank
    committed): every rank waits for every commit first.  The resumed run gives the uninterrupted bits."""
    shim = tmp_path / "faultshim.so"
    p = subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", str(shim),
                        str(Path(__file__).resolve().parents[2] / "runtime" / "tests" / "faultshim.c"), "-ldl"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    exe = compile_mpi("heat3d")
    np.save(tmp_path / "u0.npy", np.random.default_rng(8).random((120, 32, 40)))
    common = ["--size", "40,32,120", "--steps", "40", "--mode", "ooc", "--block", "32,5,4", "--quiet",
              "--threads", "1", "--init", f"u={tmp_path / 'u0.npy'}"]
    rc, _, err = mpirun(3)(exe, [*common, "--dir", str(tmp_path / "a%r"), "--out", f"u={tmp_path / 'want.npy'}"])
    assert rc == 0, err
    args = [*common, "--dir", str(tmp_path / "b%r"), "--out", f"u={tmp_path / 'got.npy'}"]
    mark = tmp_path / "held"
    held = ["env", f"LD_PRELOAD={shim}", "STN_FAULT=rename:2:STALL", f"STN_FAULT_MARK={mark}", str(exe), *args]
    p = subprocess.Popen([MPIRUN, *MPI_FLAGS, "-np", "1", *held, ":", "-np", "2", str(exe), *args],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    t0 = time.monotonic()
    while not mark.exists() and p.poll() is None and time.monotonic() - t0 < 60:
        time.sleep(0.01)
    assert mark.exists(), "rank 0 never reached its second commit"
    time.sleep(1.0)  # (the time the other ranks would need to get well into the next sweep)
    pid = next(int(q) for q in subprocess.run(["pgrep", "-f", str(exe)], capture_output=True, text=True).stdout.split()
               if "STN_FAULT=" in Path(f"/proc/{q}/environ").read_text(errors="replace"))
    os.kill(pid, signal.SIGKILL)
    p.communicate(timeout=120)
    assert not (tmp_path / "got.npy").exists(), "an output of a killed run"
    rc, _, err = mpirun(3)(exe, [*args, "--resume"])
    assert rc == 0, err
    assert np.load(tmp_path / "got.npy").tobytes() == np.load(tmp_path / "want.npy").tobytes(), "resumed bits differ"


@pytest.fixture(scope="module")
def fault_shim(tmp_path_factory):
    shim = tmp_path_factory.mktemp("shim") / "faultshim.so"
    p = subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", str(shim),
                        str(Path(__file__).resolve().parents[2] / "runtime" / "tests" / "faultshim.c"), "-ldl"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return shim


def killed_then_resumed(P: int, shim: Path, mark: Path):
    """A run_program for run_stencil: the program under mpirun -np P, rank 0 held by the fault shim in its
    second state commit and SIGKILLed there (mpirun ends the others), then run again with --resume."""

    def run(exe, args, timeout=300):
        args = list(map(str, args))
        held = ["env", f"LD_PRELOAD={shim}", "STN_FAULT=rename:2:STALL", f"STN_FAULT_MARK={mark}", str(exe), *args]
        p = subprocess.Popen([MPIRUN, *MPI_FLAGS, "-np", "1", *held, ":", "-np", str(P - 1), str(exe), *args],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        t0 = time.monotonic()
        while not mark.exists() and p.poll() is None and time.monotonic() - t0 < 60:
            time.sleep(0.01)
        assert mark.exists(), f"rank 0 never reached its second commit: {p.communicate(timeout=60)[1][-2000:]}"
        time.sleep(0.3)
        pids = [int(q) for q in subprocess.run(["pgrep", "-f", str(exe)], capture_output=True, text=True).stdout.split()]
        held_pid = [q for q in pids if "STN_FAULT=" in Path(f"/proc/{q}/environ").read_text(errors="replace")]
        assert held_pid, "the held rank is gone"
        os.kill(held_pid[0], signal.SIGKILL)
        p.communicate(timeout=120)
        outs = [a.split("=", 1)[1] for k, a in zip(args, args[1:]) if k == "--out"]
        assert not any(Path(o).exists() for o in outs), "an output of a killed run"
        return mpirun(P)(exe, [*args, "--resume"], timeout)

    return run


@pytest.mark.parametrize("name", SPLIT)
def test_every_example_resumes_after_a_rank_is_killed(name, compile_example, compile_mpi, run_program, fault_shim,
                                                      tmp_path):
    """Every example on 3 ranks out of core (sweeps of 2 steps): rank 0 killed in its second commit,
    --resume from the last sweep every rank committed (the way down of the exchange, in flight at the
    kill, exchanged again first): the bits of the program without MPI, records included, bytes and
    messages as the model says."""
    steps = 9
    ex, size, files, want = one_process(name, compile_example, run_program, tmp_path, 13, steps)
    d = tmp_path / "ranks"
    d.mkdir()
    extra = ("--mode", "ooc", "--dir", str(d / "s%r"), "--block", blocks(ex, size, 2), "--threads", "1")
    got, r = run_stencil(killed_then_resumed(3, fault_shim, tmp_path / "held"), compile_mpi(name), ex, size, steps,
                         {}, files, d, extra=extra)
    for f in (*ex.fields, *ex.records):
        assert got[f].tobytes() == want[f].tobytes(), f"{name}: {f} differs after the kill and --resume"
    assert (r["bytes_read"], r["bytes_written"]) == (r["predicted_bytes_read"], r["predicted_bytes_written"])
    assert r["mpi"]["message_bytes"] == r["mpi"]["predicted_message_bytes"]



@pytest.mark.parametrize("name", ["heat3d", "wave3d", "jacobi2d"])
def test_the_pmem_tier_under_ranks_gives_the_bits_of_one_process(name, compile_example, compile_mpi, run_program,
                                                                 tmp_path):
    """--tier pmem (docs/design/022) under 2 ranks split along the streaming axis and under a cartesian
    split: the ranks' ghosts go through the mapped files as through libaio; the same bits, every rank's
    bytes as the model says, the files mapped (not persistent memory here)."""
    steps = 7
    ex, size, files, want = one_process(name, compile_example, run_program, tmp_path, 13, steps)
    exe = compile_mpi(name)
    for P, ranks in ((2, None), (4, "2,2,1" if ex.ndim == 3 else "2,2")):
        d = tmp_path / f"pmem{P}"
        d.mkdir()
        extra = ("--mode", "ooc", "--tier", "pmem", "--dir", str(d / "s%r"), "--block", blocks(ex, size, 2))
        got, r = run_stencil(mpirun(P), exe, ex, size, steps, {}, files, d,
                             extra=extra + (("--ranks", ranks) if ranks else ()))
        for f in (*ex.fields, *ex.records):
            assert got[f].tobytes() == want[f].tobytes(), f"{name}, {P} ranks --tier pmem: {f} differs"
        assert r["tier"]["name"] == "pmem" and r["tier"]["is_pmem"] is False, r["tier"]
        for k in r["mpi"]["per_rank"]:
            assert (k["bytes_read"], k["bytes_written"]) == (k["predicted_bytes_read"], k["predicted_bytes_written"])
        assert not list(d.glob("s*/*.grid")), "scratch files left behind"


def test_ranks_sharing_a_machine_are_placed_one_node_each(compile_mpi, two_node_xml, tmp_path):
    """Three ranks on this machine under a two-node topology (HWLOC_XMLFILE): each rank on one node, round robin
    by its rank on the machine (0, 1, 0), its threads listed on that node alone, planned (the XML topology is not
    this system's); rank 0's report says so in ``numa`` and every rank's node in ``mpi.per_rank``.  On this
    machine's own topology (one node) nothing is placed and nothing reported, as before."""
    exe = compile_mpi("heat3d")
    for xml in (two_node_xml, None):
        d, rep = tmp_path / f"d{xml is None}", tmp_path / f"r{xml is None}.json"
        d.mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith("HWLOC_")}
        env.update(OMP_NUM_THREADS="1", STENCILC_CALIBRATE="0", **({"HWLOC_XMLFILE": str(xml)} if xml else {}))
        fwd = [a for k in ("HWLOC_XMLFILE", "OMP_NUM_THREADS", "STENCILC_CALIBRATE") if k in env for a in ("-x", k)]
        p = subprocess.run([MPIRUN, *MPI_FLAGS, *fwd, "-np", "3", str(exe), "--size", "32,32,64", "--steps", "4",
                            "--mode", "ooc", "--mem", "16M", "--dir", str(d / "r%r"), "--report", str(rep), "--quiet"],
                           capture_output=True, text=True, timeout=300, env=env)
        assert p.returncode == 0, p.stderr
        got = load_report(rep)
        nodes = [q.get("numa_node") for q in got["mpi"]["per_rank"]]
        if xml is None:
            assert "numa" not in got and nodes == [None] * 3, (got.get("numa"), nodes)
            continue
        n = got["numa"]
        assert nodes == [0, 1, 0], nodes
        assert (n["local_rank"], n["rank_node"], n["threads"]) == (0, 0, 1), n
        assert [x["threads"] for x in n["nodes"]] == [[0], []], n["nodes"]
        assert n["memory"].startswith("not bound: the topology is not this system's"), n
