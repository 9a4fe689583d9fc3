"""Snapshots under MPI, out of core, on a part whose sweeps wrap (docs/design/021-snapshots.md): a stencil
periodic along the axis the blocks stream along (z in 3d, y in 2d), the ranks cutting only axes that no field
wraps (x, y in 3d; x in 2d), so that each rank's part holds the whole periodic axis and its engine wraps its
sweeps itself (the wedge: the last block computes, past H, the slices near L that the first block left).
Those parts used to fall back to stopping each advance at every saved step (an extra sweep each); now their
tiles put their own cells as the wavefront passes, in whole-grid indices.

For 1 (one process under ``mpirun -np 1``), 2, 3 and 4 ranks, parallel HDF5 and rank 0 gathering
(``STENCILC_H5_GATHER=1``), K = 1, 3, 7 with and without a stride: every rank reads exactly what it reads
without snapshots (saving step 0 reads its part's ``--init`` cells once more, as a run saving step 0 alone
does) and sends the same messages (no sweep ends at a saved step, no exchange more), the bytes written are the
predicted ones rank by rank and grow by the snapshots' bytes, and every snapshot of step k is, bit for bit, the
``--out`` of an in-core run stopped at k, from random ``--init`` states.
"""

from __future__ import annotations

import os
import subprocess

import numpy as np
import pytest
from conftest import build_and_stop, load_report
from mpi_common import MPI_FLAGS, MPIRUN, needs_mpi

h5py = pytest.importorskip("h5py")
pytestmark = needs_mpi
STEPS = 8
SPECS = ((1, 0, 1), (3, 0, 1), (7, 0, 1), (1, 2, 2), (3, 1, 2), (7, 0, 3))

# every field neumann and periodic along z, the streaming axis (the wedge needs both); u reads 2 below along
# y and 2 above along z, v has two levels
WRAP3 = """
stencil wrap3 {
  grid 3d f64;
  param a = 0.05;
  state u;
  state v levels 2;
  boundary neumann;
  boundary periodic z;
  u' = u + a * (u[-1,0,0] + u[1,0,0] + u[0,-2,0] + u[0,1,0] + u[0,0,-1] + u[0,0,2] - 6*u) + 0.01 * v;
  v' = 2*v - v.prev + a * (v[0,-1,0] + v[0,1,0] + v[0,0,-1] + v[0,0,1] + v[1,0,0] + v[-1,0,0] - 6*v)
       + 0.001 * u[0,0,1];
}
"""
# y streams in 2d: both fields periodic along y, neumann along x (the ranks cut x)
WRAP2 = """
stencil wrap2 {
  grid 2d f64;
  param a = 0.1;
  state u;
  state v;
  boundary neumann;
  boundary periodic y;
  u' = u + a * (u[-1,0] + u[1,0] + u[0,-1] + u[0,2] - 4*u) + 0.01 * v;
  v' = v + a * (v[-1,0] + v[1,0] + v[0,-1] + v[0,1] - 4*v);
}
"""
STENCILS = {"wrap3": (WRAP3, (17, 25, 23), ("u", "v", "v.prev")),
            "wrap2": (WRAP2, (23, 29), ("u", "v"))}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """built(name) -> (program, its --init arguments, stopped, size, fields): stopped[k][field] the --out of an
    in-core run of k steps, k = 0 .. STEPS (one process)."""
    cache: dict[str, tuple] = {}

    def get(name: str):
        if name not in cache:
            text, size, levels = STENCILS[name]
            cache[name] = build_and_stop(tmp_path_factory.mktemp(name), name, text, size, levels, STEPS, 11,
                                         ("--mpi",))
        return cache[name]

    return get


def _run(exe, ranks: str, args: list, gather: bool):
    P = int(np.prod([int(x) for x in ranks.split(",")]))
    env = {k: v for k, v in os.environ.items() if k != "STENCILC_H5_GATHER"}
    if gather:
        env["STENCILC_H5_GATHER"] = "1"
    p = subprocess.run([MPIRUN, *MPI_FLAGS, "-np", str(P), str(exe), "--ranks", ranks, *map(str, args)],
                       capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode == 0, (ranks, p.stderr[-3000:])
    return load_report(args[args.index("--report") + 1])


@pytest.mark.parametrize("name,ranks,block,gather", [
    ("wrap3", "1,1,1", "25,5,3", False),  # one rank: no part, the single process's wedge
    ("wrap3", "1,2,1", "25,5,3", False),  # ranks across the rows (y): whole planes
    ("wrap3", "2,1,1", "25,5,3", False),
    ("wrap3", "1,3,1", "25,4,2", False),
    ("wrap3", "2,2,1", "25,5,3", False),
    ("wrap3", "2,1,1", "25,5,3", True),  # rank 0 gathers: the other ranks' tiles send their cells
    ("wrap2", "2,1", "6,4", False),
    ("wrap2", "3,1", "6,4", True),
])
def test_a_parts_wrapped_sweeps_put_as_the_wavefront_passes(built, tmp_path, name, ranks, block, gather):
    exe, inits, stopped, size, fields = built(name)
    base = ["--size", ",".join(map(str, size)), "--steps", STEPS, "--quiet", "--mode", "ooc",
            "--dir", tmp_path / "d%r", "--block", block, *inits]
    none = _run(exe, ranks, [*base, "--report", tmp_path / "none.json"], gather)
    assert none["params"]["bt"] == int(block.split(",")[-1])
    per_none = none.get("mpi", {}).get("per_rank", [none])
    # saving step 0 alone: what each rank reads more to put its part's levels at open
    zero = [a for f in fields for a in ("--save", f"{f}:every={STEPS + 1}")]
    z = _run(exe, ranks, [*base, *zero, "--save-to", tmp_path / "z.h5", "--report", tmp_path / "z.json"], gather)
    at_open = [b["bytes_read"] - a["bytes_read"] for a, b in zip(per_none, z.get("mpi", {}).get("per_rank", [z]))]
    assert all(x > 0 for x in at_open), at_open
    for every, start, stride in SPECS:
        h5, rep = tmp_path / f"s{every}-{start}-{stride}.h5", tmp_path / f"r{every}-{start}-{stride}.json"
        saves = [a for f in fields for a in ("--save", f"{f}:every={every}:from={start}:stride={stride}")]
        got = _run(exe, ranks, [*base, *saves, "--save-to", h5, "--report", rep], gather)
        what = f"{name} --ranks {ranks} every {every} from {start} stride {stride}"
        steps = list(range(start, STEPS + 1, every))
        sl = (slice(None, None, stride),) * len(size)
        kept = sum(stopped[k][f][sl].nbytes for k in steps for f in fields)
        assert got["bytes_written"] - none["bytes_written"] == kept, what
        assert (got["bytes_written"], got["bytes_read"]) == (got["predicted_bytes_written"],
                                                             got["predicted_bytes_read"]), what
        # no sweep ends at a saved step: each rank reads what it reads without snapshots (and the level at
        # open once more when step 0 is saved) and sends the same messages
        per = got.get("mpi", {}).get("per_rank", [got])
        for r, (a, b) in enumerate(zip(per_none, per)):
            assert b["bytes_read"] - a["bytes_read"] == (at_open[r] if start == 0 else 0), (what, r)
            assert b["bytes_written"] == b["predicted_bytes_written"], (what, r)
            assert b["bytes_written"] > a["bytes_written"] or (gather and r > 0), (what, r)  # (rank 0 writes all)
            assert b.get("message_bytes") == a.get("message_bytes"), (what, r)
        with h5py.File(h5, "r") as f:
            assert f.attrs["complete"] == 1
            for fld in fields:
                assert list(f[f"{fld}_step"][:]) == steps
                for i, k in enumerate(steps):
                    assert f[fld][i].tobytes() == stopped[k][fld][sl].tobytes(), f"{what}: {fld} step {k}"
