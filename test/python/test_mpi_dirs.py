"""MPI ranks and their directories (docs/design/018 "Agreement", docs/design/022 "MPI ranks sharing a machine").

* One rank fails alone at setup (its --dir is not a directory, its %r folder cannot be made, its directory is
  locked by another run on --resume): every rank stops within seconds, none waits at a collective, exit status 1,
  the failing rank's error names the directory and the cause, the others say another rank failed, and no output
  is left looking complete (no --out file, no temporary).
* ``--dir A,B`` under MPI (one directory per NUMA node): each rank takes the directory of the node its binding is
  on, by hwloc (a two-node XML topology whose two processing units are this machine's two, the ranks bound by
  ``taskset`` so that the binding decides, not the rank's number); a rank bound to both nodes falls back to its
  rank on the machine mod the nodes.  The bits are one process's, bytes predicted == counted, and the report
  lists each rank's directory, node and how the node was chosen.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import EXAMPLES_DIR, load_report, stencilc_command
from mpi_common import MPI_FLAGS, MPIRUN, needs_mpi

pytestmark = needs_mpi
BASE = {k: v for k, v in os.environ.items() if not k.startswith("HWLOC_")}
SIZE, NX, NY, NZ = "24,20,30", 24, 20, 30
HANG_S = 60  # a rank waiting forever at a collective fails the test here, never hangs CI


@pytest.fixture(scope="module")
def heat3d_mpi(tmp_path_factory):
    exe = tmp_path_factory.mktemp("mpi-dirs") / "heat3d"
    cmd, env = stencilc_command()
    p = subprocess.run([*cmd, str(EXAMPLES_DIR / "heat3d.stn"), "--mpi", "-o", str(exe)], capture_output=True,
                       text=True, env=env)
    assert p.returncode == 0, p.stderr
    return exe


@pytest.fixture(scope="module")
def start(tmp_path_factory):
    p = tmp_path_factory.mktemp("init") / "start.npy"
    np.save(p, np.random.default_rng(5).random((NZ, NY, NX)))
    return p


def mpirun(ranks: list[list[str]], args: list[str], env: dict | None = None, timeout: int = HANG_S, tag=False):
    """One mpirun of len(ranks) ranks; ranks[k] is the command that starts rank k (an MPMD line each); tag: each
    line of output says its rank ([1,K]<stderr>:)."""
    line: list[str] = []
    for k, cmd in enumerate(ranks):
        line += ([":"] if k else []) + ["-np", "1", *cmd, *map(str, args)]
    fwd = [a for k in ("HWLOC_XMLFILE", "OMP_NUM_THREADS", "STENCILC_CALIBRATE") if env and k in env
           for a in ("-x", k)]
    return subprocess.run([MPIRUN, *MPI_FLAGS, *(["--tag-output"] if tag else []), *fwd, *line], capture_output=True, text=True, timeout=timeout,
                          env=env)


def leftovers(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir() if p.suffix == ".npy" or ".partial" in p.name)


@pytest.mark.parametrize("case", ["file", "no-parent", "locked"])
def test_one_rank_failing_alone_at_setup_stops_every_rank(heat3d_mpi, start, tmp_path, case):
    """Rank 1's directory is unusable, rank 0's fine: both stop at once with status 1 and rank 1's cause."""
    out = tmp_path / "out"
    out.mkdir()
    args = ["--size", SIZE, "--steps", 6, "--mode", "ooc", "--block", "20,3,2", "--init", f"u={start}",
            "--out", f"u={out / 'u.npy'}", "--report", out / "r.json"]
    held = None
    if case == "file":  # rank 1's folder is a file: its directory check fails, rank 0's passes
        (tmp_path / "s1").write_text("not a folder\n")
        args += ["--dir", tmp_path / "s%r"]
        want = f"--dir {tmp_path / 's1'}: not a directory"
    elif case == "no-parent":  # rank 1's folder cannot be made (its parent is missing)
        (tmp_path / "p0").mkdir()
        args += ["--dir", tmp_path / "p%r" / "s"]
        want = f"cannot make rank 1's folder '{tmp_path / 'p1' / 's'}': No such file or directory"
    else:  # --resume: another run holds rank 1's lock (the ranks read their states together after the locks)
        for k in (0, 1):
            (tmp_path / f"s{k}").mkdir()
        held = open(tmp_path / "s1" / "heat3d.r1.lock", "w")
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        args += ["--dir", tmp_path / "s%r", "--resume"]
        want = f"--dir {tmp_path / 's1'} is in use: another run of heat3d.r1"
    try:
        p = mpirun([[str(heat3d_mpi)]] * 2, args, env=dict(BASE, OMP_NUM_THREADS="1", STENCILC_CALIBRATE="0"))
    finally:
        if held:
            held.close()
    assert p.returncode == 1, p.stderr
    assert want in p.stderr, p.stderr
    assert "another rank failed" in p.stderr and "(its error is above); this rank stops there too" in p.stderr, p.stderr
    assert leftovers(out) == [] and not (out / "r.json").exists(), leftovers(out)
    assert start.stat().st_size > 0  # (the input untouched: read only)


@pytest.fixture(scope="module")
def one_pu_a_node(tmp_path_factory) -> Path:
    """An hwloc XML topology of two NUMA nodes of one processing unit each: PU 0 on node 0, PU 1 on node 1,
    this machine's two, so that a rank's real binding (taskset) lies on one node of it."""
    if not shutil.which("lstopo") or not shutil.which("taskset"):
        pytest.skip("lstopo (Debian's hwloc) or taskset is not installed")
    if not {0, 1} <= os.sched_getaffinity(0):
        pytest.skip("processing units 0 and 1 are not both this process's")
    p = tmp_path_factory.mktemp("topo") / "one-pu-a-node.xml"
    subprocess.run(["lstopo", "-i", "pack:2 numa:1(memory=1GB) core:1 pu:1", "--of", "xml", str(p)], check=True)
    return p


def one_process(exe: Path, start: Path, out: Path) -> bytes:
    """The MPI build started alone (the plain program), in-core: the bits to match."""
    p = subprocess.run([str(exe), "--size", SIZE, "--steps", "7", "--mode", "incore", "--init", f"u={start}",
                        "--out", f"u={out}", "--quiet"], capture_output=True, text=True, timeout=HANG_S,
                       env=dict(BASE, OMP_NUM_THREADS="1"))
    assert p.returncode == 0, p.stderr
    return np.load(out).tobytes()


def test_each_rank_takes_the_directory_of_its_node(heat3d_mpi, start, one_pu_a_node, tmp_path):
    """--dir A,B under the one-PU-a-node topology: rank 0 bound to PU 1 (node 1) takes B, rank 1 bound to PU 0
    takes A (the opposite of round robin), and a third rank left unbound (its binding meets both nodes) takes its
    rank on the machine mod 2 = node 0's, A; %r in an entry is the rank's number.  The bits are one process's,
    every rank's bytes as predicted, the report says each rank's directory, node and why.  Seen from outside:
    with node 1's directory a file, rank 0 alone fails on it."""
    want = one_process(heat3d_mpi, start, tmp_path / "want.npy")
    env = dict(BASE, HWLOC_XMLFILE=str(one_pu_a_node), OMP_NUM_THREADS="1", STENCILC_CALIBRATE="0")
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    exe = str(heat3d_mpi)
    for ranks, dirs, expect in [
        ([["taskset", "-c", "1", exe], ["taskset", "-c", "0", exe]], f"{a},{b}",
         [(b, 1, "cpuset"), (a, 0, "cpuset")]),
        ([["taskset", "-c", "1", exe], ["taskset", "-c", "0", exe], [exe]], f"{a}/s%r,{b}/s%r",
         [(b / "s0", 1, "cpuset"), (a / "s1", 0, "cpuset"), (a / "s2", 0, "rank")]),
    ]:
        rep, out = tmp_path / "r.json", tmp_path / "got.npy"
        p = mpirun(ranks, ["--size", SIZE, "--steps", 7, "--mode", "ooc", "--block", "20,3,2", "--init", f"u={start}",
                           "--out", f"u={out}", "--dir", dirs, "--report", rep, "--quiet"], env=env)
        assert p.returncode == 0, p.stderr
        assert np.load(out).tobytes() == want, dirs
        r = load_report(rep)
        assert (r["bytes_read"], r["bytes_written"]) == (r["predicted_bytes_read"], r["predicted_bytes_written"])
        per = r["mpi"]["per_rank"]
        for q in per:
            assert (q["bytes_read"], q["bytes_written"]) == (q["predicted_bytes_read"], q["predicted_bytes_written"])
        assert [(q["dir"], q["numa_node"], q["numa_by"]) for q in per] == [(str(d), n, by) for d, n, by in expect]
        assert (r["numa"]["rank_node"], r["numa"]["rank_node_by"]) == (1, "cpuset"), r["numa"]
        assert [x["threads"] for x in r["numa"]["nodes"]] == [[], [0]], r["numa"]["nodes"]
        assert not [x for x in (a, b) for x in x.rglob("*.grid")], "scratch files left behind"
        out.unlink()
    # where each rank looks, seen from outside: node 1's directory a file, so rank 0 (bound to node 1) alone fails
    bad = tmp_path / "bad"
    bad.write_text("not a folder\n")
    p = mpirun([["taskset", "-c", "1", exe], ["taskset", "-c", "0", exe]],
               ["--size", SIZE, "--steps", 7, "--mode", "ooc", "--dir", f"{a},{bad}", "--quiet"],
               env=env, tag=True)
    assert p.returncode == 1, p.stderr
    assert f"[1,0]<stderr>:heat3d: error: --dir {bad}: not a directory" in p.stderr, p.stderr
    assert "[1,1]<stderr>:heat3d: error: another rank failed to find its --dir" in p.stderr, p.stderr


def test_a_list_on_a_machine_of_one_node_is_its_first_entry(heat3d_mpi, start, tmp_path):
    """This machine's own topology (one node): every rank takes the first entry (the second, a file, is never
    looked at), nothing is placed or reported per node, and the bits are one process's."""
    want = one_process(heat3d_mpi, start, tmp_path / "want.npy")
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.write_text("not a folder\n")
    rep, out = tmp_path / "r.json", tmp_path / "got.npy"
    p = mpirun([[str(heat3d_mpi)]] * 2, ["--size", SIZE, "--steps", 7, "--mode", "ooc", "--block", "20,3,2",
                                         "--init", f"u={start}", "--out", f"u={out}", "--dir", f"{a},{b}",
                                         "--report", rep, "--quiet"], env=dict(BASE, OMP_NUM_THREADS="1"))
    assert p.returncode == 0, p.stderr
    assert np.load(out).tobytes() == want
    r = load_report(rep)
    assert "numa" not in r and [q["dir"] for q in r["mpi"]["per_rank"]] == [str(a)] * 2, r["mpi"]["per_rank"]
    assert all("numa_node" not in q for q in r["mpi"]["per_rank"])
    assert not list(a.rglob("*.grid")), "scratch files left behind"


def test_a_list_that_does_not_fit_the_nodes_is_refused_under_mpi(heat3d_mpi, one_pu_a_node, tmp_path):
    """Two nodes and three directories: every rank refuses it (status 2), before any file is made."""
    d = [tmp_path / n for n in "abc"]
    for x in d:
        x.mkdir()
    env = dict(BASE, HWLOC_XMLFILE=str(one_pu_a_node), OMP_NUM_THREADS="1")
    p = mpirun([[str(heat3d_mpi)]] * 2, ["--size", SIZE, "--steps", 2, "--dir", ",".join(map(str, d))], env=env)
    assert p.returncode == 2, p.stderr
    assert "3 directories, but hwloc finds 2 NUMA nodes with processing units" in p.stderr, p.stderr
    assert not any(list(x.iterdir()) for x in d)
