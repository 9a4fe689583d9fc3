"""The ``.stn``'s ``save FIELD every K [from A] [to B] [stride S];`` (docs/language.md, "Snapshots"): the
snapshots a run with ``--save-to`` takes when its command line has no ``--save``; a ``--save`` replaces them
all; without ``--save-to`` nothing is written and nothing is refused.  The statement's errors are pinned by
the lit tests (test/lit/sema/save_errors.stn, test/lit/syntax/save-*.stn).
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from conftest import stencilc_command

h5py = pytest.importorskip("h5py")

SRC = """stencil hs {
  grid 3d f64;
  param k = 0.1;
  state u;
  state v;
  init u = x + 2 * y + 3 * z;
  init v = x * y;
  u' = u + k * (u[1,0,0] + u[-1,0,0] + v - 3 * u);
  v' = v + k * (u - v);
  save u every 3 from 1 stride 2;
  save v every 4 to 6;
}
"""


@pytest.fixture(scope="module")
def exe(tmp_path_factory):
    d = tmp_path_factory.mktemp("savestn")
    (d / "hs.stn").write_text(SRC)
    cmd, env = stencilc_command()
    p = subprocess.run([*cmd, str(d / "hs.stn"), "-o", str(d / "hs")], capture_output=True, text=True, env=env,
                       timeout=600)
    assert p.returncode == 0, p.stderr
    return d / "hs"


def _run(exe, *args):
    p = subprocess.run([str(exe), "--size", "9,7,5", "--steps", "8", "--quiet", *map(str, args)],
                       capture_output=True, text=True, timeout=120)
    return p.returncode, p.stderr


@pytest.mark.parametrize("mode", ["incore", "ooc"])
def test_the_stn_saves_are_the_default(exe, tmp_path, mode):
    extra = ["--mode", mode] + (["--dir", tmp_path, "--block", "3,2,3"] if mode == "ooc" else [])
    rc, err = _run(exe, *extra, "--save-to", tmp_path / "a.h5")
    assert rc == 0, err
    with h5py.File(tmp_path / "a.h5", "r") as f:
        assert list(f["u_step"][:]) == [1, 4, 7] and f["u"].shape == (3, 3, 4, 5)  # stride 2 of (5, 7, 9)
        assert (f["u"].attrs["every"], f["u"].attrs["from"], f["u"].attrs["stride"]) == (3, 1, 2)
        assert list(f["v_step"][:]) == [0, 4] and f["v"].shape == (2, 5, 7, 9)
        # the same as asking for them on the command line
        rc, err = _run(exe, *extra, "--save", "u:every=3:from=1:stride=2", "--save", "v:every=4:to=6",
                       "--save-to", tmp_path / "b.h5")
        assert rc == 0, err
        with h5py.File(tmp_path / "b.h5", "r") as g:
            for n in ("u", "v"):
                assert np.array_equal(f[n][...], g[n][...])


def test_a_command_line_save_replaces_them_and_without_save_to_nothing_is_written(exe, tmp_path):
    rc, err = _run(exe, "--save", "v:every=2", "--save-to", tmp_path / "c.h5")
    assert rc == 0, err
    with h5py.File(tmp_path / "c.h5", "r") as f:
        assert "u" not in f and list(f["v_step"][:]) == [0, 2, 4, 6, 8]
    rc, err = _run(exe, "--out", f"u={tmp_path / 'u.npy'}")
    assert rc == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.h5", "u.npy"]


def test_a_default_past_the_steps_is_refused_as_the_command_lines_are(exe, tmp_path):
    p = subprocess.run([str(exe), "--size", "9,7,5", "--steps", "5", "--quiet", "--save-to", tmp_path / "d.h5"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "--save v: to=6 is past --steps 5" in p.stderr, p.stderr
    assert list(tmp_path.iterdir()) == []
