"""Snapshots under MPI (``--save``/``--save-to`` with ``mpirun -np P``; docs/snapshots.md): every rank reads
its own cells of each saved step and sends them to rank 0, which writes the one file.  The file's datasets
(h5py) equal, bit for bit, those of one process, for 2 and 3 ranks, in-core and out of core, K = 1, 3 and 7
with and without a stride; the bytes written are the predicted ones; what is not done under MPI is refused.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import numpy as np
import pytest
from conftest import EXAMPLES_DIR, load_report, stencilc_command

h5py = pytest.importorskip("h5py")
MPIRUN = shutil.which("mpirun")
pytestmark = pytest.mark.skipif(not (MPIRUN and shutil.which("mpicc")),
                                reason="OpenMPI is not installed here (make setup installs openmpi-bin, libopenmpi-dev)")
MPI_FLAGS = ["--oversubscribe", "--bind-to", "none", "--mca", "btl", "self,vader"]
if os.geteuid() == 0:
    MPI_FLAGS.insert(0, "--allow-run-as-root")
STEPS = 8


@pytest.fixture(scope="module")
def mpi_exe(tmp_path_factory):
    out, built = tmp_path_factory.mktemp("mpi-snap-bin"), {}

    def build(name: str):
        if name not in built:
            cmd, env = stencilc_command()
            p = subprocess.run([*cmd, str(EXAMPLES_DIR / f"{name}.stn"), "--mpi", "-o", str(out / name)],
                               capture_output=True, text=True, env=env)
            assert p.returncode == 0, p.stderr
            built[name] = out / name
        return built[name]

    return build


def _run(P: int, exe, args):
    cmd = [MPIRUN, *MPI_FLAGS, "-np", str(P), str(exe)] if P > 1 else [str(exe)]
    p = subprocess.run([*cmd, *map(str, args)], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stderr


def _datasets(path) -> dict[str, np.ndarray]:
    with h5py.File(path, "r") as f:
        assert f.attrs["complete"] == 1
        return {k: f[k][...] for k in f if not k.endswith(("_x", "_y", "_z"))}


@pytest.mark.parametrize("name,size,mode", [
    ("heat3d", "14,12,29", ["--mode", "incore"]),
    ("heat3d", "14,12,29", ["--mode", "ooc", "--block", "12,4,2"]),
    ("wave3d", "14,12,29", ["--mode", "ooc", "--block", "12,4,2"]),
    ("jacobi2d", "23,41", ["--mode", "ooc", "--block", "8,2"]),
])
def test_the_ranks_file_is_one_process_file(mpi_exe, tmp_path, name, size, mode):
    exe = mpi_exe(name)
    state = "u"
    for every, start, stride in ((1, 0, 1), (1, 0, 2), (3, 0, 1), (3, 1, 2), (7, 1, 1), (7, 0, 3)):
        save = ["--save", f"{state}:every={every}:from={start}:stride={stride}"]
        files = {}
        for P in (1, 2, 3):
            h5, rep = tmp_path / f"p{P}.h5", tmp_path / f"p{P}.json"
            rc, err = _run(P, exe, ["--size", size, "--steps", STEPS, "--quiet", "--dir", tmp_path, *mode, *save,
                                    "--save-to", h5, "--report", rep])
            assert rc == 0, (P, err)
            r = load_report(rep)
            assert r["bytes_written"] == r["predicted_bytes_written"], (P, r["bytes_written"])
            files[P] = _datasets(h5)
        assert sorted(files[1]) == sorted(files[2]) == sorted(files[3])
        for P in (2, 3):
            for k, v in files[1].items():
                assert v.dtype == files[P][k].dtype and v.shape == files[P][k].shape, (P, k)
                assert v.tobytes() == files[P][k].tobytes(), f"{name} {P} ranks, {k}, every {every} stride {stride}"


def test_what_mpi_does_not_save_is_refused(mpi_exe, tmp_path):
    rc, err = _run(2, mpi_exe("heat3d"), ["--size", "14,12,29", "--steps", 4, "--mode", "ooc", "--dir", tmp_path,
                                         "--save", "u:every=2", "--save-to", tmp_path / "a.h5", "--resume"])
    assert rc == 2 and "--resume: a run of 2 MPI ranks does not resume its snapshots" in err, err
