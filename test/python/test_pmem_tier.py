"""--tier pmem (docs/design/022): the out-of-core engine's scratch files mapped with libpmem.

* Every example, with random blocks and schedules, on a tmpfs directory (/dev/shm) and on ext4:
  bit-identical to ``--mode incore``, the bytes copied to and from the tier equal to the IO model's
  prediction, the report's ``tier`` saying ``pmem`` with ``is_pmem`` false (no DAX here).
* A run killed with SIGKILL at random moments resumes (``--resume``) to the same bits, on both.
* The option is checked up front (an engine without scratch files refuses it, a wrong name is named).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest
import reference as ref
import test_examples as tx
from conftest import load_report
from hypothesis import given, settings
from hypothesis import strategies as st

NAMES = sorted(ref.EXAMPLES)
ENV = dict(os.environ, OMP_NUM_THREADS="2")


def fs_type(path: Path) -> str:
    """The file system type of `path` as stat -f names it ("tmpfs", "ext2/ext3" for ext4 ...)."""
    return subprocess.run(["stat", "-f", "-c", "%T", str(path)], capture_output=True, text=True,
                          check=True).stdout.strip()


@pytest.fixture(params=["tmpfs", "ext4"])
def tier_root(request, tmp_path_factory) -> Path:
    """A directory on the file system the parameter names (skipped where this machine has none)."""
    if request.param == "tmpfs":
        if not Path("/dev/shm").is_dir() or fs_type(Path("/dev/shm")) != "tmpfs":
            pytest.skip("no tmpfs at /dev/shm")
        d = Path(tempfile.mkdtemp(prefix="stn-pmem-", dir="/dev/shm"))
        request.addfinalizer(lambda: subprocess.run(["rm", "-rf", str(d)], check=False))
        return d
    d = tmp_path_factory.mktemp("pmem-ext4")
    if fs_type(d) != "ext2/ext3":
        pytest.skip(f"the temporary directory {d} is on {fs_type(d)}, not ext4")
    return d


@pytest.mark.parametrize("name", NAMES)
def test_every_example_in_the_pmem_tier_equals_incore(name, tier_root, compile_example, run_program):
    """``--tier pmem`` with hand-set blocks gives exactly the in-core result and counts the bytes it
    predicts; its report says the tier, the mapped bytes and ``is_pmem`` false (tmpfs and ext4 have no
    DAX)."""
    ex = ref.EXAMPLES[name]
    exe = compile_example(name)
    nblock = max(ex.ndim, 2)

    @settings(max_examples=2, **tx.SETTINGS)
    @given(size=tx.sizes(ex), steps=st.integers(1, tx.MAX_STEPS), seed=st.integers(0, 2**32 - 1),
           schedule=st.sampled_from(["ref", "alg1", "alg2"]), strip=st.sampled_from(["dram", "file"]),
           block=st.lists(st.integers(1, 9), min_size=nblock, max_size=nblock))
    def check(size, steps, seed, block, schedule, strip):
        if ex.ndim == 3 and schedule != "ref":
            block[0] = size[1]  # alg1 and alg2 block z only
        if ex.ndim == 1:
            block[0] *= 300
        block, schedule = tx.periodic_blocks(ex, size, block, schedule)
        extra = ("--strip", strip) if ex.ndim == 3 and block[0] < size[1] else ()
        files = tx.random_fields(ex, size, seed, True)
        what = tx.describe(ex, size, steps, {}, f"--tier pmem --schedule {schedule} --block {block} {extra}")
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            for d in ("a", "b"):
                (tmp / d).mkdir()
            scratch = Path(tempfile.mkdtemp(dir=tier_root))
            incore, _ = tx.run_stencil(run_program, exe, ex, size, steps, {}, files, tmp / "a")
            pmem, report = tx.run_stencil(run_program, exe, ex, size, steps, {}, files, tmp / "b",
                                          extra=("--tier", "pmem", "--schedule", schedule, "--dir", str(scratch),
                                                 "--block", ",".join(map(str, block)), *extra))
            assert not list(scratch.iterdir()), f"{what}: scratch files left: {list(scratch.iterdir())}"
        for f in (*ex.fields, *ex.records):
            np.testing.assert_array_equal(pmem[f], incore[f], err_msg=f"{what}: {f}")
        tx.check_report(ex, report, size, steps, what)
        assert report["tier"]["name"] == "pmem", what
        assert report["tier"]["is_pmem"] is False, f"{what}: {report['tier']}"
        assert report["tier"]["mapped_bytes"] > 0, f"{what}: {report['tier']}"

    check()


def test_the_aio_tier_is_the_default_and_reported(compile_example, run_program, tmp_path):
    exe = compile_example("heat3d")
    rc, _, err = run_program(exe, ["--size", "20,20,20", "--steps", "2", "--dir", tmp_path, "--quiet",
                                   "--report", tmp_path / "r.json"])
    assert rc == 0, err
    assert load_report(tmp_path / "r.json")["tier"] == {"name": "aio"}


@pytest.mark.parametrize("args, message", [
    (["--mode", "incore", "--tier", "pmem"], "--tier pmem maps the out-of-core scratch files with libpmem: it "
                                             "needs --mode ooc (--mode incore keeps its levels in DRAM)"),
    (["--mode", "mmap", "--tier", "pmem"], "it needs --mode ooc (--mode mmap keeps its levels in mapped files"),
    (["--tier", "dax"], "--tier dax: expected one of aio, pmem"),
    (["--tier", "pmem", "--tier", "aio"], "--tier"),
])
def test_the_tier_is_checked_up_front(compile_example, run_program, tmp_path, args, message):
    exe = compile_example("heat3d")
    rc, _, err = run_program(exe, ["--size", "20,20,20", "--steps", "2", "--dir", tmp_path, *args])
    assert rc == 2 and message in err, err
    assert not list(tmp_path.iterdir()), "a refused line created files"


def test_the_summary_says_the_tier(compile_example, run_program, tmp_path):
    rc, _, err = run_program(compile_example("heat3d"), ["--size", "20,20,20", "--steps", "2", "--tier", "pmem",
                                                         "--dir", tmp_path])
    assert rc == 0, err
    assert "(as predicted) through --tier pmem (is_pmem false); peak memory" in err, err
    assert "refuses O_DIRECT" not in err, err  # a mapped file is not a buffered fallback


def test_help_names_the_tier(compile_example, run_program):
    rc, out, err = run_program(compile_example("heat3d"), ["--help"])
    assert rc == 0 and "--tier aio|pmem" in out + err


def sigkill_and_resume(exe: Path, common: list[str], scratch: Path, out: Path, ref: Path, full: float) -> int:
    """Start the run with --resume, SIGKILL it after a random moment (a window growing from a share of
    `full`, the seconds of a whole run), again, until one finishes; the number of kills that landed.  A
    kill after the run renamed its output (its scratch files not yet removed) leaves that output whole."""
    t0 = time.monotonic()
    kills, moments = 0, random.Random(5)
    for attempt in range(1, 41):
        p = subprocess.Popen([str(exe), *common, "--dir", str(scratch), "--out", f"u={out}", "--resume"],
                             env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        # a window from 0.05 s growing each attempt, up to a whole run's time, then beyond: the machine's
        # load changes how long a run takes, so the window does not start from one measure of it
        time.sleep(moments.uniform(0.02, min(0.05 * 1.3**attempt, full) * (1.15 ** max(0, attempt - 20))))
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
            p.wait()
            kills += 1
            if out.exists():  # killed between renaming its output and removing its scratch files
                assert np.array_equal(np.load(out), np.load(ref)), "a killed run left an incomplete output"
            continue
        assert p.returncode == 0, p.stderr.read().decode()
        return kills
    pytest.fail(f"the run never finished ({time.monotonic() - t0:.1f} s, {kills} kills)")


@pytest.mark.parametrize("blocking", [["--block", "64,9,2"], ["--block", "20,9,2", "--strip", "file"]],
                         ids=["whole-planes", "y-blocked-spilled"])
def test_sigkill_at_random_moments_resumes_bit_identically(compile_example, tier_root, tmp_path, blocking):
    """The commit protocol with pmem_msync (is_pmem false): a run killed anywhere resumes to the bits
    of a run never killed, and leaves no scratch file once done."""
    exe = compile_example("heat3d")
    start = tmp_path / "start.npy"
    np.save(start, np.random.default_rng(7).random((80, 64, 72)))
    common = ["--size", "72,64,80", "--steps", "160", *blocking, "--init", f"u={start}", "--quiet",
              "--tier", "pmem"]
    ref_out = tmp_path / "ref.npy"
    t0 = time.monotonic()  # the reference: the same run never killed (its time sizes the kills' window)
    r = subprocess.run([str(exe), *common, "--dir", str(Path(tempfile.mkdtemp(dir=tier_root))), "--out",
                        f"u={ref_out}"], env=ENV, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    full = time.monotonic() - t0
    scratch = Path(tempfile.mkdtemp(dir=tier_root))
    out = tmp_path / "out.npy"
    kills = sigkill_and_resume(exe, common, scratch, out, ref_out, full)
    assert kills >= 3, f"only {kills} kills landed before the run finished; the test did not test much"
    assert np.array_equal(np.load(out), np.load(ref_out))
    assert not list(scratch.glob("*.grid")), "scratch files left after a successful run"
