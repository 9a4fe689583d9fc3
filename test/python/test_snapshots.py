"""Snapshots every K steps into an HDF5 file (``--save FIELD:every=K[:from=A][:to=B][:stride=S]``,
``--save-to FILE.h5``; docs/design/021-snapshots.md, docs/cli.md).

Each snapshot of step k is compared, bit for bit, with the ``--out`` of an in-core run stopped at step k
(``--steps k``), for examples whose state changes in time, K = 1, 3 and 7, with and without a stride,
in-core and out of core (several blocks and sweeps); the report's bytes written equal the predicted ones
with snapshots on; the file opens lazily in h5py and in xarray (h5netcdf); records go into the same file;
a bad ``--save`` is refused with status 2 before any file is made; a killed run leaves no file under the
name asked for.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time

import numpy as np
import pytest
import reference as ref
from conftest import load_report

h5py = pytest.importorskip("h5py")

STEPS = 8
SIZES = {3: (14, 11, 9), 2: (23, 17), 1: (40,)}
EXAMPLES = ["heat3d", "wave3d", "heat3d_f32", "jacobi2d", "grayscott2d", "jacobi1d", "staggered3d"]


def _size(name: str) -> tuple[int, ...]:
    return SIZES[ref.EXAMPLES[name].ndim]


def _state(name: str) -> list[str]:
    return list(ref.EXAMPLES[name].state)


@pytest.fixture(scope="module")
def stopped(compile_example, run_program, tmp_path_factory):
    """stopped(name)[k][field]: the field after an in-core run of k steps (its --out), k = 0 .. STEPS."""
    cache: dict[str, dict[int, dict[str, np.ndarray]]] = {}

    def get(name: str) -> dict[int, dict[str, np.ndarray]]:
        if name not in cache:
            exe, d = compile_example(name), tmp_path_factory.mktemp(f"stopped-{name}")
            size = ",".join(map(str, _size(name)))
            cache[name] = {}
            for k in range(STEPS + 1):
                outs = [a for f in _state(name) for a in ("--out", f"{f}={d / f'{f}{k}.npy'}")]
                rc, _, err = run_program(exe, ["--size", size, "--steps", str(k), "--mode", "incore", "--quiet", *outs])
                assert rc == 0, err
                cache[name][k] = {f: np.load(d / f"{f}{k}.npy") for f in _state(name)}
        return cache[name]

    return get


def _saved(k_every: int, start: int, to: int) -> list[int]:
    return list(range(start, to + 1, k_every))


def _check_file(path, name: str, want: dict[int, dict[str, np.ndarray]], every: int, start: int, stride: int):
    """Every saved field's snapshots in `path` are the runs stopped at their steps, strided."""
    steps = _saved(every, start, STEPS)
    with h5py.File(path, "r") as f:
        assert f.attrs["complete"] == 1 and f.attrs["stencil"] == name
        assert list(f.attrs["size"]) == list(_size(name)) and f.attrs["steps"] == STEPS
        for fld in _state(name):
            ds = f[fld]
            assert ds.chunks is not None and ds.chunks[0] == 1  # chunked, one snapshot a chunk
            assert list(f[f"{fld}_step"][:]) == steps
            assert (ds.attrs["every"], ds.attrs["from"], ds.attrs["stride"]) == (every, start, stride)
            assert ds.shape[0] == len(steps)
            sl = (slice(None, None, stride),) * (ds.ndim - 1)
            for i, k in enumerate(steps):
                exp = want[k][fld][sl]
                got = ds[i]
                assert got.dtype == exp.dtype and got.shape == exp.shape, (fld, k)
                assert got.tobytes() == exp.tobytes(), f"{name} {fld} step {k}: not the run stopped at {k}"


def _run_saving(run_program, exe, name, d, every, start, stride, extra=()):
    saves = [a for f in _state(name) for a in ("--save", f"{f}:every={every}:from={start}:stride={stride}")]
    h5, rep = d / f"s{every}-{start}-{stride}.h5", d / f"r{every}-{start}-{stride}.json"
    rc, _, err = run_program(exe, ["--size", ",".join(map(str, _size(name))), "--steps", str(STEPS), "--quiet",
                                   *saves, "--save-to", h5, "--report", rep, *extra])
    assert rc == 0, err
    r = load_report(rep)
    assert (r["bytes_written"], r["bytes_read"]) == (r["predicted_bytes_written"], r["predicted_bytes_read"])
    return h5, r


@pytest.mark.parametrize("name", EXAMPLES)
def test_in_core_snapshots_are_the_run_stopped_at_each_step(compile_example, run_program, tmp_path, stopped, name):
    exe, want = compile_example(name), stopped(name)
    for every, start, stride in ((1, 0, 1), (3, 0, 1), (7, 0, 1), (1, 2, 2), (3, 1, 2), (7, 0, 3)):
        h5, r = _run_saving(run_program, exe, name, tmp_path, every, start, stride, ("--mode", "incore"))
        _check_file(h5, name, want, every, start, stride)
        assert not list(tmp_path.glob(".*partial*"))


@pytest.mark.parametrize("name,extra", [
    ("heat3d", ("--block", "5,4,3")),  # y-blocked tiles, the z-strip in DRAM
    ("heat3d", ("--block", "5,4,3", "--strip", "file")),  # the strip spilled
    ("heat3d", ("--block", "11,4,5", "--schedule", "alg1")),
    ("wave3d", ("--block", "11,9,5")),  # whole planes
    ("jacobi2d", ("--block", "6,4")),
    ("grayscott2d", ("--block", "7,3")),
    ("d2q9", ("--block", "7,3")),  # periodic
    ("jacobi1d", ("--block", "3",)),  # folded into rows
    ("wave3d_surface", ("--block", "5,4,3")),  # a boundary per face: the stops, not the tiles, save
    ("heat2d_faces", ("--block", "6,4")),
])
def test_out_of_core_snapshots_are_the_run_stopped_at_each_step(compile_example, run_program, tmp_path, stopped,
                                                                 name, extra):
    exe, want = compile_example(name), stopped(name)
    for every, start, stride in ((3, 0, 1), (7, 1, 2)):
        h5, r = _run_saving(run_program, exe, name, tmp_path, every, start, stride,
                            ("--mode", "ooc", "--dir", tmp_path, *extra))
        _check_file(h5, name, want, every, start, stride)


@pytest.mark.parametrize("name,block", [("heat3d", "5,4,5"), ("heat3d", "11,9,5"), ("wave3d", "6,3,4"),
                                        ("grayscott2d", "7,5"), ("heat3d_f32", "4,2,6"), ("staggered3d", "5,3,4"),
                                        ("staggered3d", "11,4,5"), ("advect2d", "6,4"), ("star2", "6,4,5"),
                                        ("heat3d", "11,2,3:alg1"), ("heat3d", "11,9,5:alg1"), ("wave3d", "11,3,4:alg1"),
                                        ("grayscott2d", "5,3:alg1"), ("staggered3d", "11,3,4:alg1"),
                                        ("jacobi1d", "3"), ("jacobi1d", "3:alg1"),
                                        ("heat3d", "11,9,5:alg2"), ("wave3d", "11,3,4:alg2"),
                                        ("grayscott2d", "7,5:alg2"), ("jacobi1d", "3:alg2")])
def test_out_of_core_snapshots_add_no_sweep(compile_example, run_program, tmp_path, stopped, name, block):
    """Every schedule puts each snapshot as its tiles compute the step (alg1: each block its own cells of the
    widened region it computes; alg2: from the ring, before the block's levels go back in place): the run
    reads what it reads without snapshots (no sweep ends at a saved step; bt does not divide K) and writes
    the snapshots more."""
    block, _, schedule = block.partition(":")
    exe, want, reps = compile_example(name), stopped(name), []
    for save in (False, True):
        saves = [a for f in _state(name) for a in ("--save", f"{f}:every=3:from=1:stride=2")] if save else []
        rep = tmp_path / f"r{save}.json"
        rc, _, err = run_program(exe, ["--size", ",".join(map(str, _size(name))), "--steps", str(STEPS), "--quiet",
                                       "--mode", "ooc", "--dir", tmp_path, "--block", block, *saves,
                                       "--schedule", schedule or "ref",
                                       *(["--save-to", tmp_path / "w.h5"] if save else []), "--report", rep])
        assert rc == 0, err
        reps.append(load_report(rep))
    kept = sum(np.asarray(want[k][f][(slice(None, None, 2),) * len(_size(name))]).nbytes
               for k in (1, 4, 7) for f in _state(name))
    assert reps[1]["bytes_read"] == reps[0]["bytes_read"]
    assert reps[1]["bytes_written"] - reps[0]["bytes_written"] == kept
    assert reps[1]["predicted_bytes_written"] == reps[1]["bytes_written"]
    _check_file(tmp_path / "w.h5", name, want, 3, 1, 2)


@pytest.mark.parametrize("init", [True, False])
def test_the_step_0_snapshot_reads_the_level_once(compile_example, run_program, tmp_path, init):
    """Out of core, the levels at open are put chunk by chunk of the window, each chunk read once: with a
    y-blocked plan over chunked scratch (several chunks along z and y), saving step 0 reads at most the
    level's bytes more than the run without snapshots (an --init .npy: exactly its cells once; init
    expressions: nothing), the bytes as predicted, and the snapshot is the initial state."""
    exe, reps = compile_example("heat3d"), []
    start = np.random.default_rng(3).random((40, 96, 128))
    np.save(tmp_path / "start.npy", start)
    for save in (False, True):
        d = tmp_path / f"s{save}"
        d.mkdir()
        args = ["--size", "128,96,40", "--steps", "4", "--quiet", "--mode", "ooc", "--dir", d, "--mem", "8M",
                "--block", "16,4,2", "--report", d / "r.json", "--out", f"u={d / 'u.npy'}",
                *(["--init", f"u={tmp_path / 'start.npy'}"] if init else []),
                *(["--save", "u:every=2", "--save-to", d / "w.h5"] if save else [])]
        rc, _, err = run_program(exe, args)
        assert rc == 0, err
        r = load_report(d / "r.json")
        assert (r["bytes_read"], r["bytes_written"]) == (r["predicted_bytes_read"], r["predicted_bytes_written"])
        assert r["params"]["by"] == 16 and r["scratch_layout"] == "chunked"
        reps.append(r)
    assert reps[1]["bytes_read"] - reps[0]["bytes_read"] == (start.nbytes if init else 0)
    assert reps[1]["bytes_written"] - reps[0]["bytes_written"] == 3 * start.nbytes  # steps 0, 2, 4
    with h5py.File(tmp_path / "sTrue" / "w.h5", "r") as f:
        assert list(f["u_step"][:]) == [0, 2, 4]
        if init:
            assert f["u"][0].tobytes() == start.tobytes()
        assert f["u"][2].tobytes() == np.load(tmp_path / "sTrue" / "u.npy").tobytes()


def test_the_plan_counts_the_snapshot_buffers(compile_example, run_program, tmp_path):
    """Out of core, the pieces the snapshots are read in (at most 4 MiB and 1/64 of the budget, whole rows) and
    their staging (at most as much, and the grid) count in the plan's DRAM."""
    for name, size, mem, held in (("heat3d", "14,11,9", [], 2 * 14 * 11 * 9 * 8),
                                  ("jacobi2d", "700,800", [], (4 << 20) // 5600 * 5600 + (4 << 20)),
                                  ("jacobi2d", "700,800", ["--mem", "64M"], (1 << 20) // 5600 * 5600 + (1 << 20))):
        exe, plans = compile_example(name), []
        for save in ([], ["--save", "u:every=2", "--save-to", tmp_path / f"{name}.h5"]):
            rep = tmp_path / f"{name}{len(save)}{len(mem)}.json"
            rc, _, err = run_program(exe, ["--size", size, "--steps", "2", "--quiet", "--mode", "ooc", "--dir", tmp_path,
                                           "--block", "5,2,2" if name == "heat3d" else "100,2", *mem, *save,
                                           "--report", rep])
            assert rc == 0, err
            plans.append(load_report(rep)["mem_plan_bytes"])
        assert plans[1] - plans[0] == held, (name, mem)


def test_the_snapshot_bytes_are_counted_and_predicted(compile_example, run_program, tmp_path):
    exe = compile_example("heat3d")
    base = ["--size", "14,11,9", "--steps", str(STEPS), "--quiet", "--mode", "incore"]
    rc, _, err = run_program(exe, [*base, "--report", tmp_path / "none.json"])
    assert rc == 0, err
    h5, r = _run_saving(run_program, exe, "heat3d", tmp_path, 3, 1, 2, ("--mode", "incore"))
    none = load_report(tmp_path / "none.json")
    kept = 3 * 6 * 5 * 7 * 8  # steps 1, 4, 7; x 0..13 by 2 (7), y 0..10 (6), z 0..8 (5); 8 bytes
    assert r["bytes_written"] - none["bytes_written"] == kept
    assert r["predicted_bytes_written"] - none["predicted_bytes_written"] == kept


def test_xarray_and_h5py_open_the_file_lazily(compile_example, run_program, tmp_path, stopped):
    xr = pytest.importorskip("xarray")
    pytest.importorskip("h5netcdf")
    exe = compile_example("grayscott2d")
    h5, _ = _run_saving(run_program, exe, "grayscott2d", tmp_path, 2, 0, 1, ("--mode", "incore"))
    with xr.open_dataset(h5, engine="h5netcdf") as ds:
        assert not ds["u"].variable._in_memory  # lazy: nothing read until asked
        assert ds["u"].dims == ("u_step", "u_y", "u_x") and list(ds["u_step"].values) == [0, 2, 4, 6, 8]
        assert ds.attrs["stencil"] == "grayscott2d" and ds.attrs["param_F"] == 0.035
        got = ds["v"].sel(v_step=6).values
    assert got.tobytes() == stopped("grayscott2d")[6]["v"].tobytes()
    with h5py.File(h5, "r") as f:
        assert f["u"].id.get_storage_size() > 0 and f["u"][3, 5, 7] == stopped("grayscott2d")[6]["u"][5, 7]


def test_the_file_keeps_the_stn_source_text(compile_example, run_program, tmp_path, repo_root):
    """The root attribute source_text is the .stn file's text, byte for byte (the compiler's C literals of it)."""
    exe = compile_example("heat3d")
    rc, _, err = run_program(exe, ["--size", "14,11,9", "--steps", 2, "--quiet", "--save", "u:every=1",
                                   "--save-to", tmp_path / "s.h5"])
    assert rc == 0, err
    with h5py.File(tmp_path / "s.h5", "r") as f:
        text = f.attrs["source_text"]
    text = text.decode() if isinstance(text, bytes) else text
    assert text == (repo_root / "examples" / "heat3d.stn").read_text()


def test_records_go_into_the_same_file(compile_example, run_program, tmp_path):
    ex = ref.EXAMPLES["acoustic2d"]
    exe, size, steps = compile_example("acoustic2d"), (41, 31), 12
    init = ex.initial(size)
    args = []
    for k, a in {"wavelet": ref.ricker(steps + 1), "src": init["src"], "rcv": init["rcv"]}.items():
        np.save(tmp_path / f"{k}.npy", a)
        args += ["--init", f"{k}={tmp_path / k}.npy"]
    h5, rec, rep = tmp_path / "a.h5", tmp_path / "rec.npy", tmp_path / "r.json"
    rc, _, err = run_program(exe, ["--size", "41,31", "--steps", str(steps), "--quiet", *args, "--mode", "ooc",
                                   "--dir", tmp_path, "--block", "9,4", "--save", "u:every=5", "--save-to", h5,
                                   "--out", f"rec={rec}", "--report", rep])
    assert rc == 0, err
    r = load_report(rep)
    assert r["bytes_written"] == r["predicted_bytes_written"]
    with h5py.File(h5, "r") as f:
        assert f["rec"][:].tobytes() == np.load(rec).tobytes()
        assert f["rec"].shape == (steps, len(init["rcv"])) and list(f["rec_step"][:]) == list(range(steps))
        assert list(f["u_step"][:]) == [0, 5, 10]


@pytest.mark.parametrize("args,msg", [
    (["--save", "u:every=3"], "--save u: the snapshots need a file: add --save-to FILE.h5"),
    (["--save-to", "{d}/x.h5"], "nothing is saved: add --save FIELD:every=K"),
    (["--save", "u", "--save-to", "{d}/x.h5"], "--save u: every=K is required (e.g. --save u:every=10)"),
    (["--save", "u:every=0", "--save-to", "{d}/x.h5"], "every=K with K >= 1 is required"),
    (["--save", "u:every=2:each=3", "--save-to", "{d}/x.h5"], "unknown key 'each' (the keys are every, from"),
    (["--save", "u:every=2:every=3", "--save-to", "{d}/x.h5"], "every= is given twice"),
    (["--save", "u:every=-1", "--save-to", "{d}/x.h5"], "every=-1: expected a non-negative integer"),
    (["--save", "w:every=2", "--save-to", "{d}/x.h5"], "this stencil has no field 'w'; its state fields are: u"),
    (["--save", "u:every=2:from=5:to=3", "--save-to", "{d}/x.h5"], "to=3 is before from=5"),
    (["--save", "u:every=2:to=9", "--save-to", "{d}/x.h5"], "to=9 is past --steps 8"),
    (["--save", "u:every=2:from=9", "--save-to", "{d}/x.h5"], "from=9 is past --steps 8"),
    (["--save", "u:every=2:stride=0", "--save-to", "{d}/x.h5"], "stride=0: expected a positive integer"),
    (["--save", "u:every=2", "--save", "u:every=3", "--save-to", "{d}/x.h5"], "u is already saved"),
    (["--save", "u:every=2", "--save-to", "{d}/x.h5", "--out", "u={d}/x.h5"], "is also the --out file of u"),
    (["--save", "u:every=2", "--save-to", "{d}/x.h5", "--report", "{d}/x.h5"], "is also the --report file"),
    (["--save", "u:every=2", "--save-to", ""], "--save-to: expected an HDF5 file name"),
])
def test_bad_save_options_are_refused_before_any_file(compile_example, run_program, tmp_path, args, msg):
    exe = compile_example("heat3d")
    args = [a.replace("{d}", str(tmp_path)) for a in args]
    rc, _, err = run_program(exe, ["--size", "14,11,9", "--steps", "8", "--mode", "incore", *args])
    assert rc == 2 and msg in err, err
    assert list(tmp_path.iterdir()) == []  # nothing made


def test_an_input_is_not_saved(compile_example, run_program, tmp_path):
    exe = compile_example("varheat")
    rc, _, err = run_program(exe, ["--size", "14,11,9", "--steps", "8", "--save", "c:every=2", "--save-to",
                                   tmp_path / "x.h5"])
    assert rc == 2 and "'c' is an input, which does not change in time" in err, err


def test_a_killed_run_leaves_no_file_that_looks_complete(compile_example, tmp_path):
    exe = compile_example("heat3d")
    h5 = tmp_path / "k.h5"
    p = subprocess.Popen([str(exe), "--size", "64,64,64", "--steps", "100000", "--mode", "incore", "--quiet",
                          "--save", "u:every=5", "--save-to", str(h5)], stderr=subprocess.PIPE)
    try:
        t0 = time.monotonic()
        while not list(tmp_path.glob(".k.h5.partial-*")) and time.monotonic() - t0 < 60:
            time.sleep(0.05)
        time.sleep(0.5)  # some snapshots written
        assert list(tmp_path.glob(".k.h5.partial-*")) and p.poll() is None
    finally:
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
    assert not h5.exists()  # only the temporary, under another name
    try:
        with h5py.File(next(tmp_path.glob(".k.h5.partial-*")), "r") as f:  # readable or not, never 'complete'
            assert "complete" not in f.attrs
    except OSError:
        pass  # (libhdf5 had not flushed its superblock: not even readable)
    rc = subprocess.run([str(exe), "--size", "14,11,9", "--steps", "4", "--mode", "incore", "--quiet", "--save",
                         "u:every=2", "--save-to", str(h5)]).returncode
    assert rc == 0 and h5.exists() and not list(tmp_path.glob(".k.h5.partial-*"))  # the leftover reaped


def test_a_program_built_without_hdf5_refuses_save_to(tmp_path, repo_root):
    """STENCILC_NO_HDF5=1 builds the runtime without libhdf5 (as on a machine without it): the program runs,
    and --save-to is refused with the package to install; --help says so."""
    from conftest import stencilc_command

    cmd, env = stencilc_command()
    env = dict(env, STENCILC_NO_HDF5="1", STENCILC_CACHE_DIR=str(tmp_path / "cache"))
    exe = tmp_path / "heat3d"
    r = subprocess.run([*cmd, str(repo_root / "examples" / "heat3d.stn"), "-o", str(exe)], env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    p = subprocess.run([str(exe), "--size", "14,11,9", "--steps", "2", "--mode", "incore", "--save", "u:every=1",
                        "--save-to", str(tmp_path / "x.h5")], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "this program was built without HDF5 (install libhdf5-dev" in p.stderr, p.stderr
    assert not (tmp_path / "x.h5").exists()
    h = subprocess.run([str(exe), "--help"], capture_output=True, text=True, timeout=60)
    assert "(not in this program: it was built without HDF5)" in h.stdout
    assert subprocess.run([str(exe), "--size", "14,11,9", "--steps", "2", "--mode", "incore"]).returncode == 0


@pytest.mark.parametrize("mode", ["incore", "ooc"])
def test_the_python_api_saves_snapshots_across_advances(repo_root, tmp_path, stopped, mode):
    """A simulation (stencilc.compile(...).open(save=..., save_to=...)) advanced in pieces, with a read
    between them, saves the snapshots of one run; one that stops early keeps those it took."""
    import stencilc

    prog = stencilc.compile(repo_root / "examples" / "wave3d.stn")
    want = stopped("wave3d")
    extra = {"dir": tmp_path, "options": ["--block", "6,3,4"]} if mode == "ooc" else {}
    h5 = tmp_path / "api.h5"
    with prog.open(size=_size("wave3d"), steps=STEPS, mode=mode, save={"u": {"every": 3, "stride": 2}},
                   save_to=h5, **extra) as sim:
        sim.advance(2)
        assert not h5.exists()  # written at close
        sim.read("u", z=slice(0, 2))
        sim.advance(STEPS - 2)
    _check_file(h5, "wave3d", want, 3, 0, 2)
    with prog.open(size=_size("wave3d"), steps=STEPS, mode=mode, save={"u": "every=2"}, save_to=h5, **extra) as sim:
        sim.advance(5)  # of the 8 opened for: steps 0, 2, 4 taken
    with h5py.File(h5, "r") as f:
        assert list(f["u_step"][:]) == [0, 2, 4] and f.attrs["steps"] == 5
        assert f["u"][2].tobytes() == want[4]["u"].tobytes()
    with pytest.raises(stencilc.Error, match="unknown key 'each'"):
        prog.open(size=_size("wave3d"), steps=4, mode="incore", save={"u": {"each": 2}}, save_to=h5)
    with pytest.raises(stencilc.Error, match="--steps is required with --save"):
        prog.open(size=_size("wave3d"), mode="incore", save={"u": "every=2"}, save_to=h5)


def test_the_python_api_reads_the_snapshots_back(compile_example, run_program, tmp_path, stopped):
    """stencilc.snapshots(path): each saved field's steps and spec, its snapshots as lazy h5py datasets (and by
    step, and in order), the records beside them, the run's attributes; a file that is missing, not HDF5, or
    not complete, and a field or step not saved, raise stencilc.Error."""
    import stencilc

    exe, size = compile_example("acoustic2d"), "30,26"
    init = ref.EXAMPLES["acoustic2d"].initial((30, 26))
    pts = []
    for k, a in {"wavelet": ref.ricker(9), "src": init["src"], "rcv": init["rcv"]}.items():
        np.save(tmp_path / f"{k}.npy", a)
        pts += ["--init", f"{k}={tmp_path / k}.npy"]
    want = {}
    for k in (1, 4, 7):
        rc, _, err = run_program(exe, ["--size", size, "--steps", str(k), "--quiet", "--mode", "incore", *pts,
                                       "--out", f"u={tmp_path / f'u{k}.npy'}"])
        assert rc == 0, err
        want[k] = np.load(tmp_path / f"u{k}.npy")[::2, ::2]
    h5 = tmp_path / "run.h5"
    rc, _, err = run_program(exe, ["--size", size, "--steps", "8", "--quiet", "--mode", "incore", *pts,
                                   "--save", "u:every=3:from=1:stride=2", "--save-to", h5,
                                   "--out", f"rec={tmp_path / 'rec.npy'}"])
    assert rc == 0, err
    with stencilc.snapshots(h5) as s:
        assert set(s.fields) == {"u"} and "u" in s and s.attrs["stencil"] == "acoustic2d" and s.attrs["steps"] == 8
        p = s["u"]
        assert isinstance(p.data, h5py.Dataset) and p.data.shape == (3, *want[1].shape)  # lazy: nothing read
        assert list(p.steps) == [1, 4, 7] and (p.every, p.start, p.to, p.stride) == (3, 1, 8, 2) and len(p) == 3
        assert p.at(4).tobytes() == want[4].tobytes()
        assert [(k, a.tobytes()) for k, a in p] == [(k, want[k].tobytes()) for k in (1, 4, 7)]
        with pytest.raises(stencilc.Error, match="step 5 is not saved"):
            p.at(5)
        with pytest.raises(stencilc.Error, match="'q' is not saved in .*; its saved fields are: u"):
            s["q"]
        assert list(s.records) == ["rec"] and s.records["rec"][:].tobytes() == np.load(tmp_path / "rec.npy").tobytes()
    with pytest.raises((ValueError, OSError)):  # closed with the block
        p.data[0]
    (tmp_path / "junk.h5").write_bytes(b"not hdf5")
    for path, msg in ((tmp_path / "none.h5", "no such file"), (tmp_path / "junk.h5", "not an HDF5 file")):
        with pytest.raises(stencilc.Error, match=msg):
            stencilc.snapshots(path)
    with h5py.File(h5, "r+") as f:
        f.attrs["complete"] = 0
    with pytest.raises(stencilc.Error, match="did not complete it"):
        stencilc.snapshots(h5)


def _kill_after_a_sweep(cmd: list[str], state) -> None:
    for _ in range(5):
        p = subprocess.Popen(cmd, stderr=subprocess.DEVNULL)
        t0 = time.monotonic()
        while not state.exists() and p.poll() is None and time.monotonic() - t0 < 60:
            time.sleep(0.002)
        if p.poll() is None:
            os.kill(p.pid, signal.SIGKILL)
            p.wait()
            return
    pytest.fail("the run always ended before its first sweep committed: make it longer")


@pytest.mark.parametrize("schedule", ["ref", "alg1"])
def test_snapshots_survive_a_kill_and_resume(compile_example, tmp_path, schedule):
    """SIGKILL after a sweep has committed: no file under the name asked for; --resume adopts the killed
    run's temporary and the file is the uninterrupted run's, bit for bit; bytes counted as predicted."""
    exe = compile_example("heat3d")
    common = [str(exe), "--size", "96,96,96", "--steps", "60", "--quiet", "--mode", "ooc", "--block", "96,96,10",
              "--schedule", schedule, "--threads", "1", "--save", "u:every=7:from=2:stride=3"]
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    subprocess.run(common + ["--dir", str(tmp_path / "a"), "--save-to", str(tmp_path / "a.h5")], check=True,
                   timeout=300)
    b = [*common, "--dir", str(tmp_path / "b"), "--save-to", str(tmp_path / "b.h5")]
    _kill_after_a_sweep(b, tmp_path / "b" / "heat3d.ooc-state")
    assert not (tmp_path / "b.h5").exists() and list(tmp_path.glob(".b.h5.partial-*"))
    r = subprocess.run([*b, "--resume", "--report", str(tmp_path / "r.json")], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    rep = load_report(tmp_path / "r.json")
    assert rep["bytes_read"] == rep["predicted_bytes_read"] and rep["bytes_written"] == rep["predicted_bytes_written"]
    assert not list(tmp_path.glob(".b.h5.partial-*"))
    with h5py.File(tmp_path / "a.h5", "r") as fa, h5py.File(tmp_path / "b.h5", "r") as fb:
        assert list(fb["u_step"][:]) == list(range(2, 61, 7)) and fb.attrs["complete"] == 1
        assert fa["u"][:].tobytes() == fb["u"][:].tobytes()


def test_resume_without_the_killed_runs_snapshots_is_refused(compile_example, tmp_path):
    exe = compile_example("heat3d")
    cmd = [str(exe), "--size", "96,96,96", "--steps", "60", "--quiet", "--mode", "ooc", "--block", "96,96,10",
           "--threads", "1", "--dir", str(tmp_path), "--save", "u:every=7", "--save-to", str(tmp_path / "b.h5")]
    _kill_after_a_sweep(cmd, tmp_path / "heat3d.ooc-state")
    for f in tmp_path.glob(".b.h5.partial-*"):
        f.unlink()
    r = subprocess.run([*cmd, "--resume"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and "the snapshots of its steps before are gone" in r.stderr, r.stderr
    assert not (tmp_path / "b.h5").exists()


def test_the_docs_h5dump_is_what_h5dump_shows(compile_example, tmp_path, repo_root):
    """docs/snapshots.md's `h5dump -H` sample: its lines (the abridged ones aside) are h5dump's, in order, for
    the run the page shows."""
    import shutil

    if not shutil.which("h5dump"):
        pytest.skip("no h5dump (apt-get install hdf5-tools)")
    text = (repo_root / "docs" / "snapshots.md").read_text()
    cmd = next(ln for ln in text.splitlines() if ln.startswith("./heat3d ") and "--save-to run.h5" in ln).split()
    doc = text[text.index("`h5dump -H run.h5`"):].split("```\n")[1].splitlines()
    exe = compile_example("heat3d")
    subprocess.run([str(exe), *cmd[1:], "--quiet"], cwd=tmp_path, check=True, timeout=120)
    got = subprocess.run(["h5dump", "-H", "run.h5"], cwd=tmp_path, capture_output=True, text=True,
                         check=True).stdout.splitlines()
    i = 0
    for ln in (x for x in doc if not x.strip().startswith("...")):
        while i < len(got) and got[i] != ln:
            i += 1
        assert i < len(got), f"docs/snapshots.md's h5dump line {ln!r} is not in h5dump's output (in order)"
        i += 1


def test_the_plan_line_predicts_the_snapshot_bytes(compile_example, run_program, tmp_path):
    """The plan line printed at the start gave the engine's bytes only (4.00 MiB written for a run that
    wrote 12.00 MiB 'as predicted' with its snapshots): it now gives the run's, as the summary does."""
    exe = compile_example("heat3d")
    rc, _, err = run_program(exe, ["--size", "64,64,64", "--steps", "10", "--mem", "2M", "--dir", str(tmp_path),
                                   "--save", "u:every=3", "--save-to", str(tmp_path / "s.h5")])
    assert rc == 0, err
    plan = next(ln for ln in err.splitlines() if ": plan: " in ln)
    done = next(ln for ln in err.splitlines() if ": done: " in ln)
    predicted = plan.split("predicted: ")[1].split(",")[:2]  # ['2.00 MiB read', ' 12.00 MiB written']
    assert f"read {predicted[0].split(' read')[0]}" in done and f"written {predicted[1].split(' written')[0].strip()} " \
        f"(as predicted)" in done, (plan, done)


def test_the_time_model_weighs_the_snapshot_writes(compile_example, run_program, tmp_path):
    """Out of core, the predicted seconds include the snapshots' writes (time_model.snapshots: their bytes on
    the device's write curve, beside the sweeps' IO): on a run whose snapshots are most of its writes (every
    step of a 64^3 grid: 17 x 2 MiB against 2 MiB of scratch files), they grow the prediction."""
    exe, reps = compile_example("heat3d"), []
    for save in ([], ["--save", "u:every=1", "--save-to", tmp_path / "s.h5"]):
        rep = tmp_path / f"t{len(save)}.json"
        rc, _, err = run_program(exe, ["--size", "64,64,64", "--steps", "16", "--quiet", "--mode", "ooc", "--dir",
                                       tmp_path, "--block", "64,8,8", *save, "--report", rep])
        assert rc == 0, err
        reps.append(load_report(rep))
    none, snap = reps
    assert none["time_model"]["snapshots"] == 0
    assert snap["predicted_bytes_written"] - none["predicted_bytes_written"] == 17 * 64 ** 3 * 8
    tm = snap["time_model"]
    s, snap_bytes = tm["snapshots"], 17 * 64 ** 3 * 8
    # their bytes at no more than the write curve's best bandwidth ("REQ@DEPTH:BW ..." points)
    best = max(_bandwidth(p.split(":")[1]) for p in tm["write"].split())
    assert s >= snap_bytes / best * 0.99, (s, tm["write"])  # (the report rounds the curves to 3 digits)
    # the device's time is a floor of a sweep's (the kernels overlap it, never shorten it): the snapshots
    # are in the prediction, which grows by them (how much against the sweeps' own IO depends on the
    # device's curves at each request size: a calibration made under load shapes them differently)
    assert snap["predicted_seconds"] >= tm["io"] + s, (snap["predicted_seconds"], tm)
    assert snap["predicted_seconds"] > none["predicted_seconds"], (snap["predicted_seconds"], none["time_model"])


def _bandwidth(text: str) -> float:
    """'438M' -> 438 * 2**20 (the curves' units, docs/machines.md)."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return float(text[:-1]) * units[text[-1]] if text[-1] in units else float(text)


def test_a_failed_write_never_leaves_a_wrong_file(compile_example, tmp_path):
    """Each of the file's writes failed in turn (the fault shim fails the N-th pwrite with EIO, every N the
    run makes): the run either fails cleanly (status 1, an error naming the file, neither the file nor its
    temporary left) or, where libhdf5 writes the failed piece again at its next flush, gives the right file,
    bit for bit.  (A failed write of a dimension scale, flushed by libhdf5 when the scale's dataset closed,
    went unseen: the run succeeded with zeros among the steps saved; a failure in the last flush crashed, and
    so did one in the close's own last write, its superblock's, in libhdf5 1.10 as it shut down after the
    error: now the runtime does not terminate libhdf5 after a close that failed, design 021.)"""
    shim = tmp_path / "faultshim.so"
    here = os.path.dirname(os.path.abspath(__file__))
    p = subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", str(shim),
                        os.path.join(here, "..", "..", "runtime", "tests", "faultshim.c"), "-ldl"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    exe = compile_example("heat3d")
    args = [str(exe), "--size", "24,20,30", "--steps", "12", "--quiet", "--mode", "incore", "--dir", str(tmp_path),
            "--save", "u:every=1"]
    counts = tmp_path / "counts"
    subprocess.run([*args, "--save-to", str(tmp_path / "want.h5")], check=True, timeout=120,
                   env={**os.environ, "LD_PRELOAD": str(shim), "STN_FAULT_COUNT": str(counts)})
    writes = int(dict(line.split() for line in counts.read_text().splitlines())["pwrite"])
    assert writes > 13, writes  # (the snapshots' chunks and libhdf5's metadata)
    with h5py.File(tmp_path / "want.h5", "r") as f:
        want = {k: f[k][...].tobytes() for k in f}
    h5 = tmp_path / "got.h5"
    for n in range(1, writes + 1):
        r = subprocess.run([*args, "--save-to", str(h5)], capture_output=True, text=True, timeout=120,
                           env={**os.environ, "LD_PRELOAD": str(shim), "STN_FAULT": f"pwrite:{n}:EIO"})
        assert r.returncode in (0, 1), (n, r.returncode, r.stderr[-2000:])
        if n == writes:  # the close's own last write (libhdf5 1.10 used to crash as it terminated after it)
            assert r.returncode == 1 and "closing it" in r.stderr and "Input/output error" in r.stderr, r.stderr
            assert "bytes into '.got.h5.partial-" in r.stderr, r.stderr  # (the size and the file written)
        assert not list(tmp_path.glob(".got.h5.partial-*")), n
        if r.returncode:
            assert "got.h5" in r.stderr and not h5.exists(), (n, r.stderr)
            continue
        with h5py.File(h5, "r") as f:
            assert f.attrs["complete"] == 1 and {k: f[k][...].tobytes() for k in f} == want, n
        h5.unlink()
