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
from conftest import EXAMPLES_DIR, stencilc_command

MPIRUN = shutil.which("mpirun")
pytestmark = pytest.mark.skipif(not (MPIRUN and shutil.which("mpicc")),
                                reason="OpenMPI is not installed here (make setup installs openmpi-bin, libopenmpi-dev)")
MPI_FLAGS = ["--oversubscribe", "--bind-to", "none", "--mca", "btl", "self,vader"]
if os.geteuid() == 0:
    MPI_FLAGS.insert(0, "--allow-run-as-root")
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


def mpirun(ranks: list[list[str]], args: list[str], env: dict | None = None, timeout: int = HANG_S):
    """One mpirun of len(ranks) ranks; ranks[k] is the command that starts rank k (an MPMD line each)."""
    line: list[str] = []
    for k, cmd in enumerate(ranks):
        line += ([":"] if k else []) + ["-np", "1", *cmd, *map(str, args)]
    fwd = [a for k in ("HWLOC_XMLFILE", "OMP_NUM_THREADS", "STENCILC_CALIBRATE") if env and k in env
           for a in ("-x", k)]
    return subprocess.run([MPIRUN, *MPI_FLAGS, *fwd, *line], capture_output=True, text=True, timeout=timeout,
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

