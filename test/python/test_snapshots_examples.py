"""Snapshots of every example (issue 31: "for every example whose state changes in time").

test_snapshots.py checks K, stride and from in depth on a few examples; this file runs every
``examples/NAME.stn`` once in each engine that saves: in-core (every 3 from 1, stride 2), out of core in
whole planes (every 1, from 1), in 3d in y-blocked tiles (every 7, stride 3), and where OpenMPI and
parallel HDF5 are installed under two MPI ranks out of core (every 2 from 1, stride 2).  Every snapshot of step k
is compared, bit for bit, with the ``--out`` of an in-core run stopped at step k; out of core the run
with snapshots reads exactly the bytes of the same plan without them (no sweep is added) and the bytes
written are the predicted ones.  Examples with a series or points get the reference's defaults as
``--init`` files, as test_examples.py's runs do.  Where MPI is installed every run uses the example's
``--mpi`` build (one process without mpirun), so each example is compiled once here.
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
import reference as ref
from conftest import load_report
from mpi_common import HAVE_MPI, MPI_FLAGS, MPIRUN, PARALLEL_HDF5

h5py = pytest.importorskip("h5py")

STEPS = 8
SIZES = {3: (14, 11, 13), 2: (23, 17), 1: (2003,)}
# out-of-core plans (--block): several blocks and sweeps of STEPS at these sizes
PLANES = {3: "11,3,3", 2: "4,3", 1: "1,3"}  # 3d: by = ny, whole planes
TILES = {3: "4,3,2"}  # y-blocked tiles of 4 rows x 3 planes
RANKS = {3: "11,3,2", 2: "4,2", 1: "1,2"}  # each of two ranks' parts (a halo of 2: 4 planes) holds bt x skew
MPI = HAVE_MPI and PARALLEL_HDF5


@pytest.fixture(scope="module")
def program(compile_example, compile_mpi):
    """program(name): the example's --mpi build where MPI is installed, else the session's plain build."""
    return compile_mpi if MPI else compile_example


def _inits(ex: ref.Example, size: tuple[int, ...], d) -> list[str]:
    """--init files for the example's series and points (the reference's defaults), none for its fields."""
    arrays = {**{w: f(ref.Example.SERIES_LENGTH).astype(ex.dtype) for w, f in ex.series.items()},
              **{s: f(size) for s, f in ex.points.items()}}
    args = []
    for key, arr in arrays.items():
        np.save(d / f"in_{key}.npy", arr)
        args += ["--init", f"{key}={d / f'in_{key}.npy'}"]
    return args


def _check(path, ex: ref.Example, stopped: dict, steps: list[int], stride: int) -> None:
    sl = (slice(None, None, stride),) * ex.ndim
    with h5py.File(path, "r") as f:
        assert f.attrs["complete"] == 1 and f.attrs["stencil"] == ex.name
        for fld in ex.state:
            assert list(f[f"{fld}_step"][:]) == steps, (ex.name, fld)
            for i, k in enumerate(steps):
                want, got = stopped[k][fld][sl], f[fld][i]
                assert got.dtype == want.dtype and got.shape == want.shape, (ex.name, fld, k)
                assert got.tobytes() == want.tobytes(), f"{ex.name} {fld} step {k}: not the run stopped at {k}"


@pytest.mark.parametrize("name", sorted(ref.EXAMPLES))
def test_every_example_saves_the_runs_stopped_at_each_step(program, run_program, tmp_path, name):
    ex = ref.EXAMPLES[name]
    exe, size = program(name), SIZES[ex.ndim]
    base = ["--size", ",".join(map(str, size)), "--quiet", *_inits(ex, size, tmp_path)]
    stopped = {}
    for k in range(STEPS + 1):
        outs = [a for f in ex.state for a in ("--out", f"{f}={tmp_path / f'{f}{k}.npy'}")]
        rc, _, err = run_program(exe, [*base, "--steps", k, "--mode", "incore", *outs])
        assert rc == 0, err
        stopped[k] = {f: np.load(tmp_path / f"{f}{k}.npy") for f in ex.state}

    def run(tag: str, every: int, start: int, stride: int, mode: list, save: bool = True, ranks: int = 1) -> dict:
        saves = [a for f in ex.state for a in ("--save", f"{f}:every={every}:from={start}:stride={stride}")]
        rep = tmp_path / f"{tag}.json"
        args = [*base, "--steps", STEPS, *mode, "--report", rep,
                *([*saves, "--save-to", tmp_path / f"{tag}.h5"] if save else [])]
        if ranks > 1:
            p = subprocess.run([MPIRUN, *MPI_FLAGS, "-np", str(ranks), str(exe), *map(str, args)],
                               capture_output=True, text=True, timeout=300)
            rc, err = p.returncode, p.stderr
        else:
            rc, _, err = run_program(exe, args)
        assert rc == 0, f"{name} {tag}: {err}"
        r = load_report(rep)
        assert (r["bytes_written"], r["bytes_read"]) == (r["predicted_bytes_written"], r["predicted_bytes_read"])
        if save:
            _check(tmp_path / f"{tag}.h5", ex, stopped, list(range(start, STEPS + 1, every)), stride)
        return r

    run("incore", 3, 1, 2, ["--mode", "incore"])
    ooc = ["--mode", "ooc", "--dir", tmp_path]
    for tag, block, every, stride in [("planes", PLANES[ex.ndim], 1, 1), ("tiles", TILES.get(ex.ndim), 7, 3)]:
        if block is None:
            continue
        none = run(f"{tag}-none", 0, 0, 0, [*ooc, "--block", block], save=False)
        saved = run(tag, every, 1, stride, [*ooc, "--block", block])
        assert saved["params"] == none["params"], (name, tag)
        # no sweep added: the same bytes read (from 1: no step-0 snapshot reads the level again)
        assert saved["bytes_read"] == none["bytes_read"], (name, tag)
        assert saved["bytes_written"] > none["bytes_written"], (name, tag)
    if MPI:  # two ranks, each out of core on its part: the file holds one process's cells
        run("ranks", 2, 1, 2, [*ooc, "--block", RANKS[ex.ndim]], ranks=2)
