"""Out of core, snapshots written as the wavefront passes (docs/design/021-snapshots.md) in the two cases that
used to stop each advance at every saved step (an extra sweep each): a sweep wrapped along a periodic
streaming axis (the wedge, whose last block computes, past H, the slices near L that the first left) and a
field with a boundary per face (dirichlet and neumann faces, a periodic axis beside them).

For each, with snapshots every K (K = 1, 3, 7, from a step, with and without a stride) the run reads exactly
what it reads without them (no sweep ends at a saved step; saving step 0 reads the ``--init`` files once more)
and writes the snapshots' bytes more, as predicted, and every snapshot of step k is, bit for bit, the ``--out`` of an in-core run stopped at k.  The
stencils are written here, their state started from random ``--init`` files so that a cell put from the
wrong place (or not at all) shows.
"""

from __future__ import annotations

import subprocess

import pytest
from conftest import build_and_stop, load_report

h5py = pytest.importorskip("h5py")

STEPS = 8
SPECS = ((1, 0, 1), (3, 0, 1), (7, 0, 1), (1, 2, 2), (3, 1, 2), (7, 0, 3))

# w: a reach of 2 below along z (the wedge's r+), v: two levels; every field wraps z, the streaming axis
TORUS3 = """
stencil torus3 {
  grid 3d f64;
  param a = 0.05;
  state u;
  state v levels 2;
  state w;
  boundary u neumann;
  boundary u periodic z x;
  boundary v periodic;
  boundary w neumann;
  boundary w periodic z;
  u' = u + a * (u[-1,0,0] + u[1,0,0] + u[0,-2,0] + u[0,1,0] + u[0,0,-1] + u[0,0,2] - 6*u) + 0.01 * v;
  v' = 2*v - v.prev + a * (v[0,-1,0] + v[0,1,0] + v[0,0,-1] + v[0,0,1] + v[1,0,0] + v[-1,0,0] - 6*v)
       + 0.001 * u[0,0,1];
  w' = w + a * (w[0,0,-2] + w[0,0,1] - 2*w) + 0.01 * u;
}
"""
# y streams in 2d: u wraps both axes, v is neumann along x
TORUS2 = """
stencil torus2 {
  grid 2d f64;
  param a = 0.1;
  state u;
  state v;
  boundary periodic y;
  boundary u periodic;
  boundary v neumann;
  u' = u + a * (u[-1,0] + u[1,0] + u[0,-1] + u[0,2] - 4*u) + 0.01 * v;
  v' = v + a * (v[-1,0] + v[1,0] + v[0,-1] + v[0,1] - 4*v);
}
"""
# a boundary per face: u mirrors but at y- and z+, held; v wraps x, mirrors y- and z, holds y+
FACES3 = """
stencil faces3 {
  grid 3d f64;
  param a = 0.05;
  state u levels 2;
  state v;
  boundary u neumann;
  boundary u dirichlet y- z+;
  boundary v periodic x;
  boundary v neumann y- z;
  boundary v dirichlet y+;
  u' = 2*u - u.prev + a * (u[-1,0,0] + u[1,0,0] + u[0,-1,0] + u[0,1,0] + u[0,0,-1] + u[0,0,1] - 6*u)
       + 0.01 * v;
  v' = v + a * (v[-1,0,0] + v[1,0,0] + v[0,-2,0] + v[0,1,0] + v[0,0,-1] + v[0,0,1] - 6*v);
}
"""
FACES2 = """
stencil faces2 {
  grid 2d f64;
  param a = 0.1;
  state u;
  boundary u neumann x- y;
  boundary u dirichlet x+;
  u' = u + a * (u[-1,0] + u[1,0] + u[0,-1] + u[0,1] - 4*u);
}
"""
# a 1d grid (folded into rows out of core): a mirror below, held above
FACES1 = """
stencil faces1 {
  grid 1d f64;
  state u;
  boundary u neumann x-;
  boundary u dirichlet x+;
  u' = 0.25 * (u[-1] + 2*u + u[1]);
}
"""
STENCILS = {"torus3": (TORUS3, (17, 9, 23), ("u", "v", "v.prev", "w")),
            "torus2": (TORUS2, (13, 29), ("u", "v")),
            "faces3": (FACES3, (14, 11, 9), ("u", "u.prev", "v")),
            "faces2": (FACES2, (23, 17), ("u",)),
            "faces1": (FACES1, (40,), ("u",))}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """built(name) -> (program, its --init arguments, stopped): stopped[k][field] the --out of an in-core
    run of k steps, k = 0 .. STEPS."""
    cache: dict[str, tuple] = {}

    def get(name: str):
        if name not in cache:
            text, size, levels = STENCILS[name]
            cache[name] = build_and_stop(tmp_path_factory.mktemp(name), name, text, size, levels, STEPS, 7,
                                         ())
        return cache[name]

    return get


@pytest.mark.parametrize("name,block,extra", [
    ("torus3", "17,5,3", ()),  # the wedge along z, whole planes: blocks of 5 planes, 3 steps a sweep
    ("torus3", "17,3,4", ("--time-tiles", "17,2,2")),  # cache tiles inside the wrapped blocks
    ("torus2", "6,4", ()),  # the wedge along y
    ("faces3", "5,4,3", ()),  # y-blocked tiles, the z-strip in DRAM
    ("faces3", "11,3,4", ()),  # whole planes
    ("faces3", "11,4,3", ("--schedule", "alg1")),
    ("faces2", "6,4", ()),
    ("faces1", "3", ()),
])
def test_the_snapshots_add_no_sweep(built, tmp_path, name, block, extra):
    exe, inits, stopped, size, fields = built(name)
    base = [str(exe), "--size", ",".join(map(str, size)), "--steps", str(STEPS), "--quiet", "--mode", "ooc",
            "--dir", str(tmp_path), "--block", block, *extra, *inits]
    r = subprocess.run([*base, "--report", str(tmp_path / "none.json")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    none = load_report(tmp_path / "none.json")
    assert none["params"]["bt"] == int(block.split(",")[-1])
    # saving step 0 alone reads the saved fields' --init files once more (a folded 1d grid: through its rows)
    zero = [a for f in fields for a in ("--save", f"{f}:every=1:to=0")]
    r = subprocess.run([*base, *zero, "--save-to", str(tmp_path / "z.h5"), "--report", str(tmp_path / "z.json")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    at_open = load_report(tmp_path / "z.json")["bytes_read"] - none["bytes_read"]
    assert at_open == sum(stopped[0][f].nbytes for f in fields) or len(size) == 1, at_open
    for every, start, stride in SPECS:
        h5, rep = tmp_path / f"s{every}-{start}-{stride}.h5", tmp_path / f"r{every}-{start}-{stride}.json"
        saves = [a for f in fields for a in ("--save", f"{f}:every={every}:from={start}:stride={stride}")]
        r = subprocess.run([*base, *saves, "--save-to", str(h5), "--report", str(rep)], capture_output=True,
                           text=True)
        assert r.returncode == 0, r.stderr
        got = load_report(rep)
        steps = list(range(start, STEPS + 1, every))
        sl = (slice(None, None, stride),) * len(size)
        kept = sum(stopped[k][f][sl].nbytes for k in steps for f in fields)
        # no sweep ends at a saved step
        assert got["bytes_read"] - none["bytes_read"] == (at_open if start == 0 else 0), (every, start, stride)
        assert got["bytes_written"] - none["bytes_written"] == kept
        assert (got["bytes_written"], got["bytes_read"]) == (got["predicted_bytes_written"],
                                                             got["predicted_bytes_read"])
        with h5py.File(h5, "r") as f:
            assert f.attrs["complete"] == 1
            for fld in fields:
                assert list(f[f"{fld}_step"][:]) == steps
                for i, k in enumerate(steps):
                    assert f[fld][i].tobytes() == stopped[k][fld][sl].tobytes(), \
                        f"{name} {fld} step {k} (every {every} from {start} stride {stride}): not the run stopped at k"
