"""What the MPI tests share: OpenMPI's mpirun and the flags this 2-core machine runs it with (oversubscribed,
unbound, shared memory; as root where the tests run as root), the mark that skips a module without OpenMPI,
and whether libhdf5's parallel build is installed (rank 0 gathers the snapshots without it).  The --mpi
builds of the examples are conftest.py's compile_mpi fixture."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

MPIRUN = shutil.which("mpirun")
HAVE_MPI = bool(MPIRUN and shutil.which("mpicc"))
needs_mpi = pytest.mark.skipif(not HAVE_MPI,
                               reason="OpenMPI is not installed here (make setup installs openmpi-bin, libopenmpi-dev)")
MPI_FLAGS = ["--oversubscribe", "--bind-to", "none", "--mca", "btl", "self,vader"]
if os.geteuid() == 0:
    MPI_FLAGS.insert(0, "--allow-run-as-root")
PARALLEL_HDF5 = bool(shutil.which("pkg-config")) and subprocess.run(
    ["pkg-config", "--exists", "hdf5-openmpi"]).returncode == 0
