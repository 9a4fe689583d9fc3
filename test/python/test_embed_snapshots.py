"""Snapshots through the C and Fortran APIs (issue 31, point 6): a host asks for them with the options a
command line would give (``--save``, ``--save-to``), advances in pieces, and the file it leaves when it
closes holds the run's fields at the saved steps, bit for bit -- in-core and out of core (several blocks,
sweeps of 3 steps, so the advances split sweeps). The Fortran host writes into the field between its
advances, so its later snapshots must show that write too.

Expects: a C compiler, gfortran, libhdf5 (tools/setup.sh), h5py. Guarantees checked: the datasets' steps
and values against in-core command-line runs stopped at each step; the bytes moved out of core are the
model's; the file is complete and no temporary is left.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import RUN_TIMEOUT_S
from test_embed import _sh, cli_run, exact_bytes, fortran_driver, host_run, hosts, modes  # noqa: F401 - hosts is a fixture

h5py = pytest.importorskip("h5py")

SIZE = (18, 16, 14)
SZ = ",".join(map(str, SIZE))


def _stopped(cli, d, steps, init=None) -> dict[int, np.ndarray]:
    """{k: u after k in-core steps} from the command-line program (from `init` when given)."""
    out = {}
    for k in steps:
        extra = ["--init", f"u={init}"] if init else []
        cli_run(cli, ["--size", SZ, "--steps", str(k), "--mode", "incore", *extra, "--out", f"u={d / f'k{k}.npy'}"])
        out[k] = np.load(d / f"k{k}.npy")
    return out


def _check(path, want: dict[int, np.ndarray], every: int) -> None:
    with h5py.File(path, "r") as f:
        assert f.attrs["complete"] == 1
        assert list(f["u_step"][:]) == sorted(want), list(f["u_step"][:])
        assert f["u"].attrs["every"] == every
        for i, k in enumerate(sorted(want)):
            assert f["u"][i].tobytes() == want[k].tobytes(), f"step {k}: not the run stopped there"


@pytest.mark.parametrize("mode", ["incore", "ooc"])
def test_the_c_api_saves_snapshots_across_advances(hosts, tmp_path, mode):  # noqa: F811 - the fixture
    host, cli = hosts("heat3d")
    want = _stopped(cli, tmp_path, [0, 3, 6, 9])
    h5 = tmp_path / "api.h5"
    host_run(host, [f"size={SZ}", "steps=10", *modes(tmp_path, SIZE)[mode], "--save", "u:every=3", "--save-to", h5],
             ["advance", "4", "advance", "6"])
    _check(h5, want, 3)
    exact_bytes(tmp_path, mode)
    assert not list(tmp_path.glob(".*partial*"))


def test_the_fortran_module_saves_snapshots_with_a_write_between_advances(hosts, tmp_path):  # noqa: F811
    """test/embed/heat3d_driver.f90 advances 3 steps, writes 2.0 into a box, advances 4: with --save
    u:every=2 the file holds steps 0 and 2 of the plain run, and 4 and 6 of the run from the written
    state (the command line started from that state, as an --init file)."""
    exe = fortran_driver(tmp_path)
    _, cli = hosts("heat3d")
    want = _stopped(cli, tmp_path, [0, 2, 3])
    u3w = want.pop(3)
    u3w[7:10, 6:9, 5:8] = 2.0  # (z, y, x): the driver's box [5,8) x [6,9) x [7,10) in (x, y, z)
    np.save(tmp_path / "u3w.npy", u3w)
    after = _stopped(cli, tmp_path, [1, 3], init=tmp_path / "u3w.npy")
    want.update({4: after[1], 6: after[3]})
    for mode in (["--mode", "incore"], ["--mem", "192K", "--dir", str(tmp_path), "--report", str(tmp_path / "r.json")]):
        h5 = tmp_path / "f.h5"
        p = _sh([exe, tmp_path / "u.raw", *mode, "--steps", "7", "--save", "u:every=2", "--save-to", h5], RUN_TIMEOUT_S)
        assert p.returncode == 0, p.stdout + p.stderr
        _check(h5, want, 2)
        exact_bytes(tmp_path, "ooc" if "--mem" in mode else "incore")
