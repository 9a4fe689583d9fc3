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
from conftest import COMPILE_TIMEOUT_S, REPO_ROOT, RUN_TIMEOUT_S
from test_embed import (  # noqa: F401 - hosts is a fixture
    _sh,
    cli_run,
    exact_bytes,
    fortran_driver,
    fortran_program,
    heat3d_lib,
    host_run,
    hosts,
    modes,
    ooc_blocks,
)

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


# ------------------------------------------------------------------ reading the file back (stn_snapshots_*)


@pytest.fixture(scope="module")
def readers(tmp_path_factory):
    """(the C reader test/embed/snapread.c, the Fortran one test/embed/heat3d_snapread.f90), each built against
    heat3d's `--emit=lib` (its stn_rt.h and NAME_api.f90, libheat3d.so)."""
    d = tmp_path_factory.mktemp("readers")
    prefix = heat3d_lib(d)
    c = _sh(["cc", "-Wall", "-Wextra", "-Werror", "-I", prefix / "include", REPO_ROOT / "test" / "embed" / "snapread.c",
             "-L", prefix / "lib", "-lheat3d", f"-Wl,-rpath,{prefix / 'lib'}", "-o", d / "snapread"], COMPILE_TIMEOUT_S)
    assert c.returncode == 0, c.stderr
    return d / "snapread", fortran_program(prefix, REPO_ROOT / "test" / "embed" / "heat3d_snapread.f90", d / "fsnapread")


def _saved(hosts, tmp_path, spec="u:every=3:stride=2"):  # noqa: F811 - the fixture
    """A run's file (heat3d 18x16x14, 10 steps, out of core in two sweeps) and what h5py reads of it."""
    _, cli = hosts("heat3d")
    h5 = tmp_path / "run.h5"
    cli_run(cli, ["--size", SZ, "--steps", "10", "--mode", "ooc", "--dir", str(tmp_path), *ooc_blocks(SIZE, 5),
                  "--save", spec, "--save-to", str(h5)])
    with h5py.File(h5, "r") as f:
        return h5, list(f["u_step"][:]), f["u"][:]


@pytest.mark.parametrize("lang", ["c", "fortran"])
def test_the_c_and_fortran_apis_read_the_snapshots_back(readers, hosts, tmp_path, lang):  # noqa: F811
    """The snapshots' count, steps and shape (x first) as saved, and each snapshot's bits as h5py reads them."""
    h5, steps, data = _saved(hosts, tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    exe = readers[0] if lang == "c" else readers[1]
    p = _sh([exe, h5, "u", out] if lang == "c" else [exe, h5, out], RUN_TIMEOUT_S)
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == f"count {len(steps)}" and lines[1] == "steps " + " ".join(map(str, steps)), lines
    shape = data.shape[1:][::-1]  # (x, y, z): ceil(n / 2) each
    assert shape == (9, 8, 7) and lines[2] == "shape " + " ".join(map(str, shape)) + (" 8" if lang == "c" else "")
    for i, k in enumerate(steps):
        assert (out / f"{k}.raw").read_bytes() == data[i].tobytes(), f"step {k}"
    if lang == "fortran":  # (its errors: a step not saved, a buffer one element short)
        assert lines[3].startswith("missing -2: ") and "step 999999 of 'u' was not saved" in lines[3], lines
        assert lines[4].startswith("small -22: ") and "is 4032 bytes (9x8x7 of 8); the buffer is 4024" in lines[4]


def test_the_c_reader_refuses_what_is_not_a_runs_snapshots(readers, hosts, tmp_path):  # noqa: F811
    """A missing file, a file that is not HDF5, an HDF5 file the run did not complete, a field not saved, a step
    not saved and a buffer of the wrong size: each a clear error naming the file, nothing read."""
    exe = readers[0]
    h5, steps, data = _saved(hosts, tmp_path, "u:every=4")
    (tmp_path / "text.h5").write_text("not hdf5\n")
    with h5py.File(tmp_path / "cut.h5", "w") as f:  # (a run's layout, without the attribute `complete`)
        f["u"] = data
        f["u"].attrs["every"] = 4
    one = data[0].nbytes
    cases = [
        ([tmp_path / "none.h5", "u", tmp_path], "error -2: ", "none.h5: No such file or directory"),
        ([tmp_path / "text.h5", "u", tmp_path], "error -22: ", "text.h5: not an HDF5 file (9 bytes)"),
        ([tmp_path / "cut.h5", "u", tmp_path], "error -22: ", "cut.h5: not the complete snapshots of a run"),
        ([h5, "v", tmp_path], "error -2: ", "run.h5: no snapshots of a field 'v' in it"),
        ([h5, "u_step", tmp_path], "error -2: ", "no snapshots of a field 'u_step'"),
        ([h5, "u", "3", str(one)], "error -2: ", "step 3 of 'u' was not saved (3 snapshots)"),
        ([h5, "u", "4", str(one + 8)], "error -22: ", f"a snapshot of 'u' is {one} bytes (18x16x14 of 8)"),
    ]
    for args, code, why in cases:
        p = _sh([exe, *args], RUN_TIMEOUT_S)
        assert p.returncode == 1 and p.stdout.startswith(code) and why in p.stdout, (args, p.stdout, p.stderr)
    assert steps == [0, 4, 8]
    p = _sh([exe, h5, "u", "8", str(one)], RUN_TIMEOUT_S)  # (and the right size reads)
    assert p.returncode == 0, p.stdout
