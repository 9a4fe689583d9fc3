"""Snapshots under MPI (``--save``/``--save-to`` with ``mpirun -np P``; docs/snapshots.md): with parallel HDF5
(the MPI build against libhdf5-openmpi-dev) every rank writes its own cells of each saved step into the one
file.  The file (its datasets, bit for bit, their chunks, dimension scales and attributes, and the root's)
equals that of one process, for 2 and 3 ranks, in-core and out of core, K = 1, 3 and 7 with and without a
stride; the bytes written are the predicted ones, rank by rank, each rank writing its own share; the saved
steps add no sweep and no exchange of ghosts (each rank reads and sends what it does without them); a kill and
``--resume`` gives the uninterrupted run's file; what is not done under MPI is refused.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time

import numpy as np
import pytest
import reference as ref
from conftest import EXAMPLES_DIR, load_report
from mpi_common import MPI_FLAGS, MPIRUN, PARALLEL_HDF5, needs_mpi

h5py = pytest.importorskip("h5py")
pytestmark = needs_mpi
STEPS = 8
PARALLEL = PARALLEL_HDF5
needs_parallel = pytest.mark.skipif(not PARALLEL, reason="libhdf5-openmpi-dev is not installed (make setup installs "
                                    "it): rank 0 gathers and writes")


def _run(P: int, exe, args):
    cmd = [MPIRUN, *MPI_FLAGS, "-np", str(P), str(exe)] if P > 1 else [str(exe)]
    p = subprocess.run([*cmd, *map(str, args)], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stderr


def _value(v):
    return v.tolist() if hasattr(v, "tolist") else v


def _content(path) -> dict:
    """Every object of the file: the root's attributes, and each dataset's bytes, type, shape, chunks,
    attributes and dimension scales (by name: the scales' own references are addresses)."""
    refs = ("DIMENSION_LIST", "REFERENCE_LIST")
    with h5py.File(path, "r") as f:
        assert f.attrs["complete"] == 1
        out = {"/": {k: _value(v) for k, v in f.attrs.items()}}
        for k in f:
            ds = f[k]
            out[k] = (ds[...].tobytes(), ds.dtype.str, ds.shape, ds.chunks,
                      {a: _value(ds.attrs[a]) for a in ds.attrs if a not in refs},
                      [[s.name for s in d.values()] for d in ds.dims])
        return out


def _files_of_ranks(exe, ranks, args: list, tmp_path) -> dict:
    """The snapshot file's content of each run under P ranks (args + --save-to, --report), each run's bytes
    written as predicted, rank by rank."""
    files = {}
    for P in ranks:
        h5, rep = tmp_path / f"p{P}.h5", tmp_path / f"p{P}.json"
        rc, err = _run(P, exe, [*args, "--save-to", h5, "--report", rep])
        assert rc == 0, (P, err)
        r = load_report(rep)
        assert r["bytes_written"] == r["predicted_bytes_written"], (P, r["bytes_written"])
        for k, rk in enumerate(r.get("mpi", {}).get("per_rank", [])):
            assert rk["bytes_written"] == rk["predicted_bytes_written"], (P, k, rk)
        files[P] = _content(h5)
    return files


@pytest.mark.parametrize("name,size,mode", [
    ("heat3d", "14,12,29", ["--mode", "incore"]),
    ("heat3d", "14,12,29", ["--mode", "ooc", "--block", "12,4,2"]),
    ("heat3d", "14,12,29", ["--mode", "ooc", "--block", "14,12,3"]),
    ("wave3d", "14,12,29", ["--mode", "ooc", "--block", "12,4,2"]),
    ("jacobi2d", "23,41", ["--mode", "ooc", "--block", "8,2"]),
    ("d2q9", "23,41", ["--mode", "incore"]),  # (periodic: a ring of ranks along y, the boundary rows copied)
    ("d2q9", "23,41", ["--mode", "ooc", "--block", "8,2"]),
])
def test_the_ranks_file_is_one_process_file(compile_mpi, tmp_path, name, size, mode):
    exe = compile_mpi(name)
    state = "f0" if name == "d2q9" else "u"
    # every spec against one process and ranks in turn (each K with and without stride; 2, 3 and 4 ranks all
    # met by each case): 13 runs a case where every spec under 1-3 ranks took 19
    for (every, start, stride), more in zip(((1, 0, 1), (1, 0, 2), (3, 0, 1), (3, 1, 2), (7, 1, 1), (7, 0, 3)),
                                            ((2,), (3,), (3,), (2, 4), (2,), (3,))):
        save = ["--save", f"{state}:every={every}:from={start}:stride={stride}"]
        ranks = (1, *more)
        files = _files_of_ranks(exe, ranks, ["--size", size, "--steps", STEPS, "--quiet", "--dir", tmp_path, *mode,
                                             *save], tmp_path)
        assert all(sorted(files[P]) == sorted(files[1]) for P in ranks)
        for P in ranks[1:]:
            for k, v in files[1].items():
                assert v == files[P][k], f"{name} {P} ranks, {k}, every {every} stride {stride}"


@needs_parallel
def test_every_rank_writes_its_own_cells(compile_mpi, tmp_path):
    """Parallel HDF5: saving adds to each rank's bytes written the kept cells of its own part (every rank's
    share > 0, as predicted rank by rank), which sum to one process's; no rank gathers.  (In core: the
    saved steps add no exchange there either, test_the_ranks_snapshots_add_no_sweep_or_exchange.)"""
    exe = compile_mpi("heat3d")
    save = ["--save", "u:every=3:from=1:stride=2"]
    base = ["--size", "14,12,29", "--steps", STEPS, "--dir", tmp_path, "--mode", "incore"]
    rc, err = _run(1, exe, [*base, "--quiet", *save, "--save-to", tmp_path / "one.h5", "--report", tmp_path / "1.json"])
    assert rc == 0, err
    one = load_report(tmp_path / "1.json")
    rc, err = _run(1, exe, [*base, "--quiet", "--report", tmp_path / "0.json"])
    assert rc == 0, err
    snap = one["bytes_written"] - load_report(tmp_path / "0.json")["bytes_written"]
    for P in (2, 3):
        grown = []
        for s in (0, 1):
            rep = tmp_path / f"p{P}-{s}.json"
            rc, err = _run(P, exe, [*base, *(save + ["--save-to", tmp_path / f"p{P}.h5"] if s else []), "--report", rep])
            assert rc == 0, err
            assert "gathers" not in err, err
            grown.append([rk["bytes_written"] for rk in load_report(rep)["mpi"]["per_rank"]])
            assert all(rk["bytes_written"] == rk["predicted_bytes_written"] for rk in load_report(rep)["mpi"]["per_rank"])
        share = [b - a for a, b in zip(*grown)]
        assert all(x > 0 for x in share) and sum(share) == snap, (P, share, snap)


@needs_parallel
@pytest.mark.parametrize("P", [2, 3])
@pytest.mark.parametrize("name,mode", [
    ("heat3d", ["--mode", "incore"]), ("heat3d", ["--mode", "ooc", "--block", "14,12,3"]),
    ("heat3d", ["--mode", "ooc", "--block", "7,5,3"]), ("d2q9", ["--mode", "ooc", "--block", "8,3"]),
    ("jacobi1d", ["--mode", "ooc", "--block", "1500,3"])],
    ids=["incore", "planes", "yblocked", "ring", "1d"])
def test_the_ranks_snapshots_add_no_sweep_or_exchange(compile_mpi, tmp_path, P, name, mode):
    """The saved steps do not end the ranks' advances: out of core each rank's tiles put their own cells as
    they compute a saved step (whole planes and y-blocked tiles, the saved steps inside sweeps; on a ring of
    ranks, d2q9 periodic along the y the ranks cut, also the boundary cells that copy them; a 1d grid's ranks
    the cells of their folded rows), in core a chunk
    of steps goes on past a saved step.  So every rank reads what it reads without snapshots and sends the
    same messages (the same sweeps and exchanges), writes the snapshots more (as predicted, rank by rank),
    and the file is one process's."""
    exe = compile_mpi(name)
    save = ["--save", f"{ {'d2q9': 'f0', 'jacobi1d': 'A'}.get(name, 'u')}:every=3:from=1:stride=2"]
    size = {"d2q9": "23,41", "jacobi1d": "20011"}.get(name, "14,12,29")
    base = ["--size", size, "--steps", STEPS, "--quiet", *mode]
    h5one = tmp_path / "one.h5"
    rc, err = _run(1, exe, [*base, "--dir", tmp_path, *save, "--save-to", h5one])
    assert rc == 0, err
    reps = []
    for s in (0, 1):
        rep = tmp_path / f"r{s}.json"
        rc, err = _run(P, exe, [*base, "--dir", tmp_path, "--report", rep,
                                *(save + ["--save-to", tmp_path / "p.h5"] if s else [])])
        assert rc == 0, err
        reps.append(load_report(rep)["mpi"])
    assert reps[1]["message_bytes"] == reps[0]["message_bytes"] > 0
    assert reps[1]["predicted_message_bytes"] == reps[1]["message_bytes"]
    for a, b in zip(reps[0]["per_rank"], reps[1]["per_rank"]):
        assert b["bytes_read"] == a["bytes_read"] and b["message_bytes"] == a["message_bytes"], (a, b)
        assert b["bytes_written"] == b["predicted_bytes_written"] > a["bytes_written"], (a, b)
    assert _content(tmp_path / "p.h5") == _content(h5one)


@pytest.mark.parametrize("mode", [["--mode", "incore"], ["--mode", "ooc", "--block", "1500,2"],
                                  ["--mode", "ooc", "--block", "700,3"]], ids=["incore", "ooc", "ooc-rows"])
def test_the_ranks_1d_file_is_one_process_file(compile_mpi, tmp_path, mode):
    """A 1d grid's ranks split its folded rows (design 014): each rank puts the cells of its own rows, and the
    file is one process's for 1 to 4 ranks, K = 1, 3 and 7 with and without a stride, the bytes as predicted
    rank by rank.  (Several ranks were refused, exit status 2.)"""
    exe = compile_mpi("jacobi1d")
    # the two fields take the two specs of a K in one run: K = 1, 3, 7 each with and without a stride
    for a, b in (((1, 0, 2), (1, 0, 1)), ((3, 1, 2), (3, 0, 1)), ((7, 0, 3), (7, 1, 1))):
        save = ["--save", "A:every={}:from={}:stride={}".format(*a), "--save", "B:every={}:from={}:stride={}".format(*b)]
        every, stride = a[0], a[2]
        ranks = (1, 2, 3, 4) if every > 1 else (1, 2, 3)
        files = _files_of_ranks(exe, ranks, ["--size", 20011, "--steps", STEPS, "--quiet", "--dir", tmp_path, *mode,
                                             *save], tmp_path)
        for P in ranks[1:]:
            assert sorted(files[P]) == sorted(files[1])
            for k, v in files[1].items():
                assert v == files[P][k], f"jacobi1d {P} ranks, {k}, every {every} stride {stride}"


def test_what_mpi_does_not_save_is_refused(compile_mpi, tmp_path):
    if not PARALLEL:
        rc, err = _run(2, compile_mpi("heat3d"), ["--size", "14,12,29", "--steps", 4, "--mode", "ooc", "--dir", tmp_path,
                                             "--save", "u:every=2", "--save-to", tmp_path / "a.h5", "--resume"])
        assert rc == 2 and "does not resume its snapshots without parallel HDF5" in err, err


@needs_parallel
def test_the_ranks_snapshots_survive_a_kill_and_resume(compile_mpi, tmp_path):
    """A rank SIGKILLed once a sweep has committed (mpirun ends the others): no file under the name asked for,
    the temporary left; --resume under the same ranks adopts it and gives the uninterrupted run's file, bit
    for bit, the bytes as predicted rank by rank."""
    exe = compile_mpi("heat3d")
    common = ["--size", "96,96,96", "--steps", "60", "--quiet", "--mode", "ooc", "--block", "96,96,6",
              "--threads", "1", "--save", "u:every=7:from=2:stride=3"]
    rc, err = _run(2, exe, [*common, "--dir", tmp_path / "a%r", "--save-to", tmp_path / "a.h5"])
    assert rc == 0, err
    b = [*common, "--dir", str(tmp_path / "b%r"), "--save-to", str(tmp_path / "b.h5")]
    for _ in range(5):
        p = subprocess.Popen([MPIRUN, *MPI_FLAGS, "-np", "2", str(exe), *b], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        t0 = time.monotonic()
        while not (tmp_path / "b1" / "heat3d.r1.ooc-state").exists() and p.poll() is None \
                and time.monotonic() - t0 < 60:
            time.sleep(0.005)
        pids = subprocess.run(["pgrep", "-f", f"^{exe} .*{tmp_path / 'b%r'}"], capture_output=True,
                              text=True).stdout.split()
        killed = bool(pids) and p.poll() is None
        if killed:
            os.kill(int(pids[-1]), signal.SIGKILL)
        p.communicate(timeout=120)
        if killed:
            break
    assert killed, "the run always ended before a rank could be killed: make it longer"
    # mpirun may return while the rank it terminated is still ending; --resume adopts a temporary only once
    # the process named in it is gone (a running one's is not to be taken), so wait for the ranks to go
    t0 = time.monotonic()
    while subprocess.run(["pgrep", "-f", f"^{exe} .*{tmp_path / 'b%r'}"], capture_output=True).returncode == 0:
        assert time.monotonic() - t0 < 60, "a rank of the killed run is still running after 60 s"
        time.sleep(0.05)
    assert not (tmp_path / "b.h5").exists() and list(tmp_path.glob(".b.h5.partial-*"))
    rc, err = _run(2, exe, [*b, "--resume", "--report", tmp_path / "r.json"])
    assert rc == 0, err
    rep = load_report(tmp_path / "r.json")
    assert rep["bytes_written"] == rep["predicted_bytes_written"]
    assert all(rk["bytes_written"] == rk["predicted_bytes_written"] for rk in rep["mpi"]["per_rank"])
    assert not list(tmp_path.glob(".b.h5.partial-*"))
    assert _content(tmp_path / "a.h5") == _content(tmp_path / "b.h5")


def test_the_records_go_into_the_ranks_file(compile_mpi, tmp_path):
    """A record sampled by the ranks (gathered on rank 0) goes into the snapshot file as one process's does:
    under parallel HDF5 every rank makes its dataset and scales, rank 0 writes its samples."""
    ex, steps = ref.EXAMPLES["acoustic2d"], 12
    init, args = ex.initial((41, 31)), []
    for k, a in {"wavelet": ref.ricker(steps + 1), "src": init["src"], "rcv": init["rcv"]}.items():
        np.save(tmp_path / f"{k}.npy", a)
        args += ["--init", f"{k}={tmp_path / k}.npy"]
    files = {}
    for P in (1, 2):
        rep = tmp_path / f"r{P}.json"
        rc, err = _run(P, compile_mpi("acoustic2d"), ["--size", "41,31", "--steps", steps, "--quiet", *args, "--mode",
                                                   "incore", "--save", "u:every=5", "--save-to", tmp_path / f"{P}.h5",
                                                   "--out", f"rec={tmp_path / f'rec{P}.npy'}", "--report", rep])
        assert rc == 0, err
        r = load_report(rep)
        assert r["bytes_written"] == r["predicted_bytes_written"], r
        files[P] = _content(tmp_path / f"{P}.h5")
    assert files[1] == files[2]
    assert files[2]["rec"][0] == np.load(tmp_path / "rec1.npy").tobytes()


@needs_parallel
def test_the_ranks_step_0_snapshot_reads_each_part_once(compile_mpi, tmp_path):
    """Out of core under parallel HDF5, each rank puts its own cells of the levels at open chunk by chunk of
    its window, each chunk read once: saving step 0 alone (every=8 over 4 steps: no saved step ends a sweep)
    reads, over the ranks, the level once and the parts' ghost planes, not a chunk per piece."""
    start = np.random.default_rng(3).random((40, 96, 128))
    np.save(tmp_path / "start.npy", start)
    reps = []
    for save in (False, True):
        rep = tmp_path / f"r{save}.json"
        rc, err = _run(2, compile_mpi("heat3d"), ["--size", "128,96,40", "--steps", 4, "--quiet", "--mode", "ooc",
                                              "--dir", tmp_path / f"d{save}%r", "--mem", "8M", "--block", "16,4,2",
                                              "--init", f"u={tmp_path / 'start.npy'}", "--report", rep,
                                              *(["--save", "u:every=8", "--save-to", tmp_path / "w.h5"] if save
                                                else [])])
        assert rc == 0, err
        reps.append(load_report(rep)["mpi"]["per_rank"])
    grown = [b["bytes_read"] - a["bytes_read"] for a, b in zip(*reps)]
    assert all(b["bytes_read"] == b["predicted_bytes_read"] for b in reps[1])
    assert all(g > 0 for g in grown) and start.nbytes <= sum(grown) <= start.nbytes * 11 // 10, grown
    with h5py.File(tmp_path / "w.h5", "r") as f:
        assert f["u"][0].tobytes() == start.tobytes()


def _gather_env(on: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "STENCILC_H5_GATHER"}
    return {**env, "STENCILC_H5_GATHER": "1"} if on else env


@pytest.mark.parametrize("name,size,mode", [
    ("heat3d", "14,12,29", ["--mode", "incore"]),
    ("heat3d", "14,12,29", ["--mode", "ooc", "--block", "12,4,2"]),
    ("d2q9", "23,41", ["--mode", "ooc", "--block", "8,3"]),
    ("jacobi1d", "20011", ["--mode", "incore"]),
])
def test_the_gathered_file_is_the_parallel_one(compile_mpi, tmp_path, name, size, mode):
    """The fallback without parallel HDF5 (rank 0 gathers every rank's cells and writes the file alone),
    forced by STENCILC_H5_GATHER=1 (for tests: the parallel libhdf5 is linked here): rank 0 warns that it
    gathers, counts and predicts every snapshot byte (the other ranks none), and the file is the parallel
    one's (and one process's) bit for bit, chunks, scales and attributes."""
    exe, state = compile_mpi(name), {"d2q9": "f0", "jacobi1d": "A"}.get(name, "u")
    save = ["--save", f"{state}:every=3:from=1:stride=2"]
    files = {}
    for P, gather in ((1, False), (2, False), (2, True), (3, True)):
        h5, rep = tmp_path / f"p{P}{gather}.h5", tmp_path / f"p{P}{gather}.json"
        cmd = [MPIRUN, *MPI_FLAGS, "-np", str(P), str(exe)] if P > 1 else [str(exe)]
        p = subprocess.run([*cmd, "--size", size, "--steps", str(STEPS), "--dir", str(tmp_path), *mode, *save,
                            "--save-to", str(h5), "--report", str(rep)], capture_output=True, text=True,
                           timeout=300, env=_gather_env(gather))
        assert p.returncode == 0, (P, gather, p.stderr)
        assert ("rank 0 gathers" in p.stderr) == (gather or (P > 1 and not PARALLEL)), (P, gather, p.stderr)
        r = load_report(rep)
        assert r["bytes_written"] == r["predicted_bytes_written"], (P, gather)
        ranks = r.get("mpi", {}).get("per_rank", [])
        assert all(rk["bytes_written"] == rk["predicted_bytes_written"] for rk in ranks), (P, gather, ranks)
        if gather and mode[1] == "incore":  # (out of core every rank writes its scratch files too)
            assert all(rk["bytes_written"] == 0 for rk in ranks[1:]) and ranks[0]["bytes_written"] > 0, ranks
        files[(P, gather)] = _content(h5)
    for key, got in files.items():
        assert got == files[(1, False)], f"{name} {key}"


def test_a_failed_gathered_file_is_never_complete(compile_mpi, tmp_path):
    """The fallback's writer (rank 0, STENCILC_H5_GATHER=1) fails as it makes the gathered file durable (the
    fault shim fails its fsync with EIO, after every snapshot was put and 'complete' written): every rank ends
    with an error naming the file, and neither the file asked for nor its temporary is left, so no file
    looks complete."""
    shim = tmp_path / "faultshim.so"
    p = subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", str(shim),
                        str(EXAMPLES_DIR.parent / "runtime" / "tests" / "faultshim.c"), "-ldl"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    exe, h5, mark = compile_mpi("heat3d"), tmp_path / "b.h5", tmp_path / "reached"
    args = [str(exe), "--size", "24,20,30", "--steps", "12", "--mode", "incore", "--dir", str(tmp_path),
            "--save", "u:every=1", "--save-to", str(h5)]
    held = ["env", f"LD_PRELOAD={shim}", "STN_FAULT=fsync:1:EIO", f"STN_FAULT_MARK={mark}"]
    p = subprocess.run([MPIRUN, *MPI_FLAGS, "-np", "1", *held, *args, ":", "-np", "2", *args],
                       capture_output=True, text=True, timeout=300, env=_gather_env(True))
    assert mark.exists() and p.returncode != 0 and "rank 0 gathers" in p.stderr, p.stderr
    assert "error: --save-to" in p.stderr and "fsync of" in p.stderr and "b.h5" in p.stderr, p.stderr
    assert not h5.exists() and not list(tmp_path.glob(".b.h5.partial-*")), sorted(os.listdir(tmp_path))


@pytest.mark.parametrize("name,size,mode", [
    ("heat3d", "14,12,29", ["--block", "12,4,2"]),  # y-blocked tiles
    ("d2q9", "23,41", ["--block", "8,3"]),  # a ring of ranks
])
def test_the_gathered_snapshots_add_no_sweep(compile_mpi, tmp_path, name, size, mode):
    """Out of core, rank 0 gathering (STENCILC_H5_GATHER=1): each rank's tiles send their own cells as they
    compute a saved step and rank 0 takes them between its tiles and at each sweep's end, so every rank reads
    what it reads without snapshots (no sweep ends at a saved step), rank 0 writes the snapshot bytes more,
    as predicted, and the file is the parallel one's."""
    exe, state = compile_mpi(name), {"d2q9": "f0"}.get(name, "u")
    base = ["--size", size, "--steps", str(STEPS), "--quiet", "--dir", str(tmp_path), "--mode", "ooc", *mode]
    save = ["--save", f"{state}:every=3:from=1:stride=2"]
    reps = []
    for gather, extra in ((True, []), (True, [*save, "--save-to", str(tmp_path / "g.h5")]),
                          (False, [*save, "--save-to", str(tmp_path / "p.h5")])):
        rep = tmp_path / f"r{len(reps)}.json"
        p = subprocess.run([MPIRUN, *MPI_FLAGS, "-np", "2", str(exe), *base, *extra, "--report", str(rep)],
                           capture_output=True, text=True, timeout=300, env=_gather_env(gather))
        assert p.returncode == 0, p.stderr
        reps.append(load_report(rep)["mpi"]["per_rank"])
    none, got = reps[0], reps[1]
    assert [rk["bytes_read"] for rk in got] == [rk["bytes_read"] for rk in none]
    assert all(rk["bytes_written"] == rk["predicted_bytes_written"] for rk in got)
    assert got[1]["bytes_written"] == none[1]["bytes_written"] and got[0]["bytes_written"] > none[0]["bytes_written"]
    assert _content(tmp_path / "g.h5") == _content(tmp_path / "p.h5")


@pytest.mark.parametrize("gather", [True, pytest.param(False, marks=needs_parallel)], ids=["gathered", "parallel"])
def test_a_failed_last_write_of_the_close_ends_with_status_1(compile_mpi, tmp_path, gather):
    """The very last write of the gathered file's close (rank 0, STENCILC_H5_GATHER=1; its superblock, made
    by H5Fclose after the last flush) fails: libhdf5 1.10 keeps the half-closed file's handle and crashed
    (SIGSEGV) closing it again at MPI_Finalize.  The runtime starts libhdf5 before MPI_Init, without its exit
    handler, and does not terminate it after a failed close: the run ends with status 1 and the error naming
    the file, the write's size and the cause, no file under the name asked for and no temporary.  Under
    parallel HDF5 (both ranks write) libhdf5 1.10 deadlocks in that close instead (the failed rank skips a
    barrier the other waits in): the watchdog (io/h5watch.c, 5 s here) ends the ranks with status 1 and its
    error, the temporary removed."""
    env = {**_gather_env(gather), "STENCILC_H5_CLOSE_SECONDS": "5"}
    shim = tmp_path / "faultshim.so"
    p = subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", str(shim),
                        str(EXAMPLES_DIR.parent / "runtime" / "tests" / "faultshim.c"), "-ldl"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    exe, counts = compile_mpi("heat3d"), tmp_path / "counts"
    args = [str(exe), "--size", "24,20,30", "--steps", "6", "--mode", "incore", "--dir", str(tmp_path),
            "--save", "u:every=1", "--save-to"]
    held = ["env", f"LD_PRELOAD={shim}"]
    p = subprocess.run([MPIRUN, *MPI_FLAGS, "-np", "1", *held, f"STN_FAULT_COUNT={counts}", *args,
                        str(tmp_path / "a.h5"), ":", "-np", "1", *args, str(tmp_path / "a.h5")],
                       capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode == 0, p.stderr
    last = int(dict(line.split() for line in counts.read_text().splitlines())["pwrite"])
    h5 = tmp_path / "b.h5"
    p = subprocess.run([MPIRUN, *MPI_FLAGS, "-np", "1", *held, f"STN_FAULT=pwrite:{last}:EIO", *args, str(h5), ":",
                        "-np", "1", *args, str(h5)], capture_output=True, text=True, timeout=300,
                       env=env)
    assert p.returncode == 1 and "signal" not in p.stderr, (p.returncode, p.stderr[-3000:])
    if gather:
        assert "closing it" in p.stderr and "bytes into '.b.h5.partial-" in p.stderr, p.stderr
    else:
        assert "the ranks' collective close of the file did not end in 5 s" in p.stderr, p.stderr
    assert "Input/output error" in p.stderr, p.stderr
    assert not h5.exists() and not list(tmp_path.glob(".b.h5.partial-*")), sorted(os.listdir(tmp_path))
