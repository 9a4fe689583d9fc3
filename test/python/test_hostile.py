"""Hostile environments (issue 16, the defects its probe campaign found): two runs on one --dir, links
planted under scratch names, outputs that are not regular files, a file name that would close the
generated C's comment (test_codegen), --plan-only beside a resumable state.  Each is refused with a
message that names the thing, and nothing of the user's is lost.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=str(REPO / "compiler"), OMP_NUM_THREADS="2")


@pytest.fixture(scope="module")
def heat3d(tmp_path_factory) -> Path:
    exe = tmp_path_factory.mktemp("heat3d") / "heat3d"
    cmd = ["stencilc"] if os.environ.get("STENCILC_INSTALLED") == "1" else [sys.executable, "-m", "stencilc"]
    r = subprocess.run(cmd + [str(REPO / "examples/heat3d.stn"), "-o", str(exe)], capture_output=True, text=True,
                       env=ENV)
    assert r.returncode == 0, r.stderr
    return exe


def run(exe: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(exe), *args], capture_output=True, text=True, env=ENV, timeout=600)


COMMON = ["--size", "128,96,120", "--block", "96,4,2", "--mem", "32M", "--quiet"]


def kill_after_first_sweep(exe: Path, args: list[str], d: Path) -> None:
    """Run, SIGKILL it as soon as its first sweep is committed to d, and wait for it."""
    p = subprocess.Popen([str(exe), *args], env=ENV)
    deadline = time.monotonic() + 120
    while not (d / "heat3d.ooc-state").exists() and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    p.send_signal(signal.SIGKILL)
    p.wait()
    assert (d / "heat3d.ooc-state").exists(), "the run ended before its first sweep was saved"


def test_a_second_run_on_the_same_dir_is_refused_with_the_holders_pid(heat3d, tmp_path):
    """Two runs on one --dir used to corrupt each other silently (both exit 0, wrong results): the second is
    refused while the first holds DIR/NAME.lock, and the first ends with the right bits and no lock left."""
    d = tmp_path / "d"
    d.mkdir()
    a = subprocess.Popen([str(heat3d), *COMMON, "--steps", "400", "--dir", str(d), "--out", f"u={tmp_path / 'a.npy'}"],
                         env=ENV, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not (d / "heat3d.ooc-state").exists() and a.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    b = run(heat3d, *COMMON, "--steps", "400", "--dir", str(d), "--out", f"u={tmp_path / 'b.npy'}")
    assert a.poll() is None, "the first run ended before the second started: the test tested nothing"
    assert b.returncode == 1, b.stderr
    assert f"--dir {d} is in use: another run of heat3d (pid {a.pid}) keeps its scratch files there" in b.stderr
    assert not (tmp_path / "b.npy").exists()
    assert a.wait(timeout=600) == 0, a.stderr.read()
    r = run(heat3d, *COMMON, "--steps", "400", "--mode", "incore", "--out", f"u={tmp_path / 'ref.npy'}")
    assert r.returncode == 0, r.stderr
    assert np.load(tmp_path / "a.npy").tobytes() == np.load(tmp_path / "ref.npy").tobytes()
    assert sorted(p.name for p in d.iterdir()) == [], "files left in --dir"


def test_a_killed_runs_lock_does_not_stop_its_resume(heat3d, tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    args = [*COMMON, "--steps", "300", "--dir", str(d), "--out", f"u={tmp_path / 'a.npy'}"]
    kill_after_first_sweep(heat3d, args, d)
    r = run(heat3d, *args, "--resume")
    assert r.returncode == 0, r.stderr
    assert run(heat3d, *COMMON, "--steps", "300", "--mode", "incore", "--out", f"u={tmp_path / 'ref.npy'}").returncode == 0
    assert np.load(tmp_path / "a.npy").tobytes() == np.load(tmp_path / "ref.npy").tobytes()


def test_a_link_under_a_scratch_name_is_never_followed(heat3d, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    d = tmp_path / "d"
    d.mkdir()
    (d / "heat3d.u.A.grid").symlink_to(victim)
    r = run(heat3d, *COMMON, "--steps", "4", "--dir", str(d), "--out", f"u={tmp_path / 'o.npy'}")
    assert r.returncode == 1
    assert f"grid file '{d}/heat3d.u.A.grid' is a symbolic link: stencilc never follows one" in r.stderr, r.stderr
    assert victim.read_text() == "precious\n" and not (tmp_path / "o.npy").exists()
    assert sorted(p.name for p in d.iterdir()) == ["heat3d.u.A.grid"], "files left in --dir"


@pytest.mark.parametrize("option", ["--out", "--report"])
def test_an_output_that_is_not_a_regular_file_is_refused(heat3d, tmp_path, option):
    """The outputs are committed by renaming a finished temporary over them: over a device or a FIFO that
    would replace it (as root, --out u=/dev/full turned the device node into an .npy)."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    value = f"u={fifo}" if option == "--out" else str(fifo)
    r = run(heat3d, *COMMON, "--steps", "2", "--dir", str(tmp_path), option, value)
    assert r.returncode == 1
    assert f"cannot write '{fifo}': it is a FIFO, not a regular file (an output replaces only a regular file)" \
        in r.stderr, r.stderr
    assert fifo.is_fifo()


def test_plan_only_leaves_a_resumable_state_alone(heat3d, tmp_path):
    """--plan-only used to remove the state file of the run it was asked about (without --resume): it
    touches no file of --dir now, and the run resumes after it."""
    d = tmp_path / "d"
    d.mkdir()
    args = [*COMMON, "--steps", "300", "--dir", str(d)]
    kill_after_first_sweep(heat3d, args, d)
    state = (d / "heat3d.ooc-state").read_text()
    r = run(heat3d, *args, "--plan-only")
    assert r.returncode == 0 and r.stdout.startswith("by 96 bz 4 bt 2"), r.stdout + r.stderr
    assert (d / "heat3d.ooc-state").read_text() == state
    r = run(heat3d, *args, "--resume", "--out", f"u={tmp_path / 'a.npy'}")
    assert r.returncode == 0 and "no completed sweep" not in r.stderr, r.stderr


def test_an_output_left_partial_by_a_killed_run_is_removed_by_the_next(heat3d, tmp_path):
    """A run killed while writing --out leaves .NAME.partial-PID (full size); the next run writing that
    output removes those of processes that are gone, and leaves a live process's alone."""
    out = tmp_path / "o.npy"
    dead = tmp_path / ".o.npy.partial-999999"  # (pid_max is 4194304 at most; this one is not running)
    live = tmp_path / f".o.npy.partial-{os.getppid()}"
    other = tmp_path / ".p.npy.partial-999999"
    for f in (dead, live, other):
        f.write_bytes(b"\0" * 4096)
    r = run(heat3d, *COMMON, "--steps", "2", "--dir", str(tmp_path), "--out", f"u={out}")
    assert r.returncode == 0, r.stderr
    assert out.exists() and not dead.exists() and live.exists() and other.exists()


@pytest.mark.parametrize("mode", ["incore", "ooc"])
def test_a_fifo_as_an_input_is_refused_without_waiting(heat3d, tmp_path, mode):
    """--init u=FIFO used to block forever (opening a FIFO waits for a writer); an input is read at
    offsets and more than once, so only a regular file will do."""
    fifo = tmp_path / "pipe.npy"
    os.mkfifo(fifo)
    r = run(heat3d, *COMMON, "--steps", "2", "--dir", str(tmp_path), "--mode", mode, "--init", f"u={fifo}")
    assert r.returncode == 1
    assert f"cannot read '{fifo}': it is a FIFO, not a regular file" in r.stderr, r.stderr


@pytest.mark.parametrize("mode", ["ooc", "incore"])
def test_a_budget_beyond_the_machines_memory_is_refused(heat3d, tmp_path, mode):
    """`--mem 1000T` (a typo, or a budget that would swap) is refused with the machine's figure and
    where it came from; a --machine file's "dram" bounds it likewise."""
    r = run(heat3d, "--size", "32,32,32", "--steps", "1", "--mode", mode, "--dir", str(tmp_path), "--mem", "1000T")
    assert r.returncode == 1 and "--mem 1000.00 TiB: more than this machine's memory" in r.stderr, r.stderr
    assert "a budget must fit in DRAM" in r.stderr and not any(tmp_path.iterdir())
    m = tmp_path / "m.json"
    m.write_text('{"name": "small", "cores": 2, "l2": "1M", "dram": "1G"}')
    r = run(heat3d, "--size", "32,32,32", "--steps", "1", "--mode", "ooc", "--machine", str(m), "--mem", "2G",
            "--plan-only")
    assert r.returncode == 1 and "--mem 2.00 GiB: more than small's memory, 1.00 GiB (its \"dram\")" in r.stderr, \
        r.stderr


def test_files_a_run_creates_take_the_umasks_permissions(heat3d, tmp_path):
    """Scratch grids, the state, the lock, the records and the outputs are created 0666 less the
    umask (scratch grids used to be 0600 whatever the umask): a group that shares a --dir can
    resume a run, and a umask of 077 keeps everything private."""
    d = tmp_path / "d"
    d.mkdir()
    old = os.umask(0o027)
    try:
        kill_after_first_sweep(heat3d, [*COMMON, "--steps", "40", "--dir", str(d)], d)
        modes = {p.name: p.stat().st_mode & 0o777 for p in d.iterdir()}
        r = run(heat3d, *COMMON, "--steps", "40", "--dir", str(d), "--resume", "--out", f"u={tmp_path / 'u.npy'}")
    finally:
        os.umask(old)
    assert r.returncode == 0, r.stderr
    assert any(n.endswith(".grid") for n in modes) and set(modes.values()) == {0o640}, modes
    assert (tmp_path / "u.npy").stat().st_mode & 0o777 == 0o640


HUGE = ["99999999", "9223372036854775807", "18446744073709551616"]


@pytest.mark.parametrize("option,template", [
    ("--size", "16,16,{}"), ("--block", "16,4,{}"), ("--block", "{},4,2"), ("--iblock", "4,{}"),
    ("--time-tiles", "8,8,{}"), ("--ranks", "1,1,{}"), ("--threads", "{}"), ("--mem", "{}"), ("--mem", "{}K"),
    ("--param", "alpha={}"), ("--param", "alpha=1e-{}")])
def test_huge_values_in_every_numeric_option_end_in_time(heat3d, tmp_path, option, template):
    """Issue 28's outside checks: a --block BT of 99999999 ran for ever.  Every numeric option with a huge
    value ends at once: a run (a BT above the steps is one sweep) or a refusal with a message, exit 0, 1 or
    2, and no file left in --dir (tools/reliability.py's "edges" part draws many more)."""
    for v in HUGE:
        args = ["--size", "16,16,16", "--steps", "2", "--dir", str(tmp_path), "--quiet"]
        args += [option, template.format(v)] + (["--mode", "incore"] if option == "--time-tiles" else [])
        t0 = time.monotonic()
        r = subprocess.run([str(heat3d), *args], capture_output=True, text=True, env=ENV, timeout=120)
        assert time.monotonic() - t0 < 60, args
        assert r.returncode in (0, 1, 2) and (r.returncode == 0 or "heat3d: error: " in r.stderr), (args, r.stderr)
        assert not list(tmp_path.iterdir()), (args, list(tmp_path.iterdir()))
