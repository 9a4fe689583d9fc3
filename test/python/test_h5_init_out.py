"""HDF5 datasets as a run's ``--init`` and ``--out`` (``--init u=run.h5:/u[-1]``, ``--out u=final.h5:/u``;
docs/cli.md, docs/snapshots.md).

A run restarted from its own snapshots (the last two for a field with a previous level) gives, bit for bit,
the ``--out`` of the uninterrupted run, in-core and out of core; an ``--out`` dataset holds the bits of the
same ``--out`` as a ``.npy``, and the bytes read and written are the predicted ones; every error names the
file, the dataset and the cause, and leaves the input file as it was; a failed run leaves no output file.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from conftest import load_report

h5py = pytest.importorskip("h5py")

SIZE = "14,11,9"


def _run(run_program, exe, args, ok=True):
    rc, out, err = run_program(exe, ["--size", SIZE, "--quiet", *map(str, args)])
    if ok:
        assert rc == 0, err
    return rc, err


@pytest.mark.parametrize("mode", [("--mode", "incore"), ("--mode", "ooc", "--block", "5,4,3")])
@pytest.mark.parametrize("name", ["heat3d", "wave3d"])
def test_a_restart_from_the_last_snapshots_is_the_uninterrupted_run(compile_example, run_program, tmp_path, mode,
                                                                  name):
    exe = compile_example(name)
    extra = [*mode, "--dir", tmp_path] if "ooc" in mode else list(mode)
    full, run = tmp_path / "full.npy", tmp_path / "run.h5"
    _run(run_program, exe, ["--steps", 9, *extra, "--out", f"u={full}", "--save", "u:every=1:to=6",
                            "--save-to", run])
    before = hashlib.sha256(run.read_bytes()).hexdigest()
    inits = ["--init", f"u={run}:/u[-1]"]  # step 6
    if name == "wave3d":  # its previous level: step 5
        inits += ["--init", f"u.prev={run}:/u[-2]"]
    rest, rep = tmp_path / "rest.h5", tmp_path / "rest.json"
    outs = ["--out", f"u={rest}:/u"]
    if name == "wave3d":  # two datasets into one file, one in a group
        outs += ["--out", f"u.prev={rest}:/state/u_prev"]
    _run(run_program, exe, ["--steps", 3, *extra, *inits, *outs, "--report", rep])
    assert hashlib.sha256(run.read_bytes()).hexdigest() == before  # the input is never modified
    with h5py.File(rest, "r") as f:
        assert f.attrs["complete"] == 1 and f["u"].attrs["step"] == 3
        got = f["u"][...]
        if name == "wave3d":
            assert f["state/u_prev"].shape == got.shape
    want = np.load(full)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    r = load_report(rep)
    assert (r["bytes_read"], r["bytes_written"]) == (r["predicted_bytes_read"], r["predicted_bytes_written"])
    assert not [p.name for p in tmp_path.iterdir() if "partial" in p.name or ".out-" in p.name]


def test_a_plain_dataset_and_the_bytes(compile_example, run_program, tmp_path):
    """--init from a dataset of the grid's shape (no index); an --out dataset is the .npy's bits; each dataset
    is read once and written once more than a .npy would be, as predicted."""
    exe = compile_example("heat3d")
    _run(run_program, exe, ["--steps", 4, "--out", f"u={tmp_path / 'a.npy'}", "--out", f"u.prev={tmp_path / 'x'}"],
         ok=False)  # (heat3d has no previous level: refused, nothing made)
    _run(run_program, exe, ["--steps", 4, "--out", f"u={tmp_path / 'a.npy'}"])
    _run(run_program, exe, ["--steps", 4, "--out", f"u={tmp_path / 'a.h5'}:/grid/u"])
    with h5py.File(tmp_path / "a.h5", "r") as f:
        assert f["grid/u"][...].tobytes() == np.load(tmp_path / "a.npy").tobytes()
    reps = []
    for init in (tmp_path / "a.npy", f"{tmp_path / 'a.h5'}:/grid/u"):
        rep = tmp_path / f"r{len(reps)}.json"
        _run(run_program, exe, ["--steps", 2, "--init", f"u={init}", "--out", f"u={tmp_path}/b{len(reps)}.npy",
                                "--report", rep])
        reps.append(load_report(rep))
    assert (tmp_path / "b0.npy").read_bytes() == (tmp_path / "b1.npy").read_bytes()
    grid = 14 * 11 * 9 * 8
    assert reps[1]["bytes_read"] - reps[0]["bytes_read"] == grid
    assert reps[1]["bytes_written"] - reps[0]["bytes_written"] == grid
    assert reps[1]["predicted_bytes_read"] == reps[1]["bytes_read"]
    assert reps[1]["predicted_bytes_written"] == reps[1]["bytes_written"]


@pytest.fixture
def files(compile_example, run_program, tmp_path):
    """run.h5 (3 snapshots of u, a strided save of 2), plain.h5 (a dataset /u of the grid), f4.h5 (float32)."""
    exe = compile_example("heat3d")
    _run(run_program, exe, ["--steps", 2, "--save", "u:every=1", "--save-to", tmp_path / "run.h5"])
    _run(run_program, exe, ["--steps", 2, "--save", "u:every=1:stride=2", "--save-to", tmp_path / "strided.h5"])
    _run(run_program, exe, ["--steps", 1, "--out", f"u={tmp_path / 'plain.h5'}:/u"])
    with h5py.File(tmp_path / "f4.h5", "w") as f:
        f["u"] = np.zeros((9, 11, 14), np.float32)
    (tmp_path / "text.h5").write_text("not hdf5\n")
    return exe


@pytest.mark.parametrize("args,msg", [
    (["--init", "u=nope.h5:/u"], r"--init u=nope.h5:/u: cannot open 'nope.h5': No such file"),
    (["--init", "u=text.h5:/u"], r"--init u=text.h5:/u: text.h5 is not an HDF5 file libhdf5 can read"),
    (["--init", "u=run.h5:/v"], r"--init u=run.h5:/v: run.h5 has no dataset /v"),
    (["--init", "u=run.h5:/u[3]"],
     r"--init u=run.h5:/u\[3\]: index 3 is out of range: dataset /u in run.h5 holds 3 snapshots \(-3 to 2\)"),
    (["--init", "u=run.h5:/u[-4]"], r"index -4 is out of range: dataset /u in run.h5 holds 3 snapshots"),
    (["--init", "u=run.h5:/u[x]"], r"--init u=run.h5:/u\[x\]: the index in \[\] must be an integer"),
    (["--init", "u=run.h5:/u"], r"--init u=run.h5:/u: dataset /u in run.h5 has the shape \(3, 9, 11, 14\); the "
     r"grid needs \(9, 11, 14\) \(a dataset of snapshots: say which, e.g. \[-1\]\)"),
    (["--init", "u=strided.h5:/u[0]"], r"dataset /u in strided.h5 has the shape \(3, 5, 6, 7\); the grid needs "
     r"\(snapshots, 9, 11, 14\) \(snapshots saved with a stride are not the grid\)"),
    (["--init", "u=plain.h5:/u[0]"], r"\(not a dataset of snapshots: no \[index\]\)"),
    (["--init", "u=f4.h5:/u"], r"--init u=f4.h5:/u: dataset /u in f4.h5 holds floats of 4 bytes; the grid's "
     r"elements are floats of 8"),
    (["--init", "u=run.h5:/u[-1]", "--out", "u=run.h5:/w"],
     r"--out u=run.h5:/w: run.h5 is an --init file \(run.h5:/u\[-1\]\); input files are never overwritten"),
    (["--out", "u=o.h5:/u", "--save", "u:every=1", "--save-to", "o.h5"],
     r"--out u=o.h5:/u: o.h5 is also the --save-to file"),
])
def test_errors_name_the_file_the_dataset_and_the_cause(files, run_program, tmp_path, monkeypatch, args, msg):
    import re
    monkeypatch.chdir(tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    rc, err = _run(run_program, files, ["--steps", 1, *args], ok=False)
    assert rc == 1 and re.search(msg, err), err
    after = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert after == before  # nothing made, nothing changed


def test_a_failed_run_leaves_no_output_file(compile_example, run_program, tmp_path):
    """The outputs are opened (the dataset's hidden .npy made), then the report cannot be: nothing is left."""
    exe = compile_example("heat3d")
    rc, err = _run(run_program, exe, ["--steps", 2, "--out", f"u={tmp_path / 'f.h5'}:/u", "--report",
                                      tmp_path / "no" / "r.json"], ok=False)
    assert rc != 0 and "--report" in err, err
    assert list(tmp_path.iterdir()) == []
