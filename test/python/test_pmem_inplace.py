"""--tier pmem: imported inputs read in place from the mapping (issue 33 point 1, docs/design/022 "Inputs read
in place", docs/out-of-core.md).

varheat's input ``c`` given by ``--init c=FILE.npy`` is imported into its scratch file once and only read
afterwards.  On a plan of whole planes with ``--tier pmem`` the kernels read it where it lies in the mapped
file instead of a copy in the window.

Guarantees checked:
* whole planes: the bits of in-core; ``bytes_read`` equal to ``predicted_bytes_read`` and smaller than the aio
  tier's by exactly the bytes read in place; ``tier.read_in_place_bytes`` equal to its prediction and to one
  padded copy of ``c`` a sweep; the bytes written unchanged;
* 2d (flux2d's input ``k``; a slice is a row, the file's rows lie as the window's): the same, one padded copy
  of ``k`` a sweep read in place;
* an input read in place has no ring: the plan's DRAM (``mem_plan_bytes``, and the engine's allocations) is the
  aio tier's less ``tier.in_place_dram_bytes``, and Blk-Tune fits bigger blocks under the same ``--mem``;
* y-blocked (the inputs' file chunked, the window's planes not the file's): nothing read in place, the bytes
  those of the aio tier, the bits in-core's;
* SIGKILLed after two committed sweeps, ``--resume`` goes on to in-core's bits, the resumed run's bytes and
  bytes read in place as predicted (3d whole planes and 2d).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import load_report

ENV = {k: v for k, v in os.environ.items() if not k.startswith("HWLOC_")}
ENV.update(OMP_NUM_THREADS="2", STENCILC_CALIBRATE="0")
NX, NY, NZ = 64, 48, 40
SIZE = f"{NX},{NY},{NZ}"


def run(exe, args, timeout=600):
    return subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True, env=ENV, timeout=timeout)


@pytest.fixture(scope="module")
def varheat(compile_example):
    return compile_example("varheat")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("init")
    rng = np.random.default_rng(3)
    np.save(d / "c.npy", 0.2 + 0.8 * rng.random((NZ, NY, NX)))
    np.save(d / "u0.npy", rng.random((NZ, NY, NX)))
    return ["--init", f"c={d / 'c.npy'}", "--init", f"u={d / 'u0.npy'}"]


def in_core(exe, files, steps, out):
    r = run(exe, ["--size", SIZE, "--steps", steps, "--mode", "incore", *files, "--out", f"u={out}"])
    assert r.returncode == 0, r.stderr
    return out.read_bytes()


def ooc(exe, files, tmp, tier, block, steps=9):
    name = f"{tier}-{block.replace(',', '-')}"  # (a comma in --dir would make it a list)
    d, out, rep = tmp / f"d-{name}", tmp / f"o-{name}.npy", tmp / f"r-{name}.json"
    d.mkdir()
    r = run(exe, ["--size", SIZE, "--steps", steps, "--mem", "8M", "--block", block, "--tier", tier, "--dir", d,
                  *files, "--out", f"u={out}", "--report", rep, "--quiet"])
    assert r.returncode == 0, r.stderr
    got = load_report(rep)
    assert got["bytes_read"] == got["predicted_bytes_read"], got
    assert got["bytes_written"] == got["predicted_bytes_written"], got
    return out.read_bytes(), got


def test_whole_planes_read_the_input_in_place(varheat, files, tmp_path):
    """9 steps, bt 3: three sweeps, each reads c in the mapping: 3 x 40 x 48 rows x 512 bytes (64 f64, the
    rows padded to O_DIRECT's 512) not copied; the rest as the aio tier."""
    ref = in_core(varheat, files, 9, tmp_path / "ic.npy")
    bits_aio, aio = ooc(varheat, files, tmp_path, "aio", "48,4,3")
    bits, pm = ooc(varheat, files, tmp_path, "pmem", "48,4,3")
    assert bits == ref and bits_aio == ref
    row = -(-NX * 8 // 512) * 512
    inplace = 3 * NZ * NY * row
    assert pm["tier"]["read_in_place_bytes"] == pm["tier"]["predicted_read_in_place_bytes"] == inplace, pm["tier"]
    assert aio["bytes_read"] - pm["bytes_read"] == inplace, (aio["bytes_read"], pm["bytes_read"])
    assert pm["bytes_written"] == aio["bytes_written"]
    ring_left_out(aio, pm)


def ring_left_out(aio, pm):
    """The input read in place has no ring: the pmem plan's DRAM is the aio plan's less that ring (the report's
    ``tier.in_place_dram_bytes``), and the engine allocates exactly its plan."""
    dram = pm["tier"]["in_place_dram_bytes"]
    assert dram > 0 and aio["mem_plan_bytes"] - pm["mem_plan_bytes"] == dram, (aio["mem_plan_bytes"], pm)
    assert pm["engine_bytes"] == pm["mem_plan_bytes"] and aio["engine_bytes"] == aio["mem_plan_bytes"]


def test_y_blocked_copies_every_input(varheat, files, tmp_path):
    ref = in_core(varheat, files, 9, tmp_path / "ic.npy")
    bits, pm = ooc(varheat, files, tmp_path, "pmem", "8,4,3")
    _, aio = ooc(varheat, files, tmp_path, "aio", "8,4,3")
    assert bits == ref
    assert pm["tier"]["read_in_place_bytes"] == pm["tier"]["predicted_read_in_place_bytes"] == 0, pm["tier"]
    assert pm["bytes_read"] == aio["bytes_read"]
    assert pm["tier"]["in_place_dram_bytes"] == 0 and pm["mem_plan_bytes"] == aio["mem_plan_bytes"]


def blocks(rep):
    return rep["params"]["bz"] * rep["params"]["bt"]


def test_blk_tune_takes_bigger_blocks_under_the_same_mem(varheat, files, tmp_path):
    """--mem 2M, the tuner's choice: with the input's ring left out of the pmem tier's plans, Blk-Tune fits a
    bigger block (bz x bt) under the same budget; the run's engine allocations stay under it, its bits and bytes
    as they must be.  A block that fits only without that ring (48,11,9) is refused with the aio tier and runs
    with the pmem tier."""
    ref = in_core(varheat, files, 9, tmp_path / "ic.npy")
    got = {}
    for tier in ("aio", "pmem"):
        d, out, rep = tmp_path / f"t-{tier}", tmp_path / f"t-{tier}.npy", tmp_path / f"t-{tier}.json"
        d.mkdir()
        r = run(varheat, ["--size", SIZE, "--steps", 9, "--mem", "2M", "--tier", tier, "--dir", d, *files,
                          "--out", f"u={out}", "--report", rep, "--quiet"])
        assert r.returncode == 0, r.stderr
        got[tier] = load_report(rep)
        assert out.read_bytes() == ref
        assert got[tier]["bytes_read"] == got[tier]["predicted_bytes_read"], got[tier]
        assert got[tier]["engine_bytes"] <= got[tier]["mem_plan_bytes"] <= 2 << 20, got[tier]
    assert blocks(got["pmem"]) > blocks(got["aio"]), (got["pmem"]["params"], got["aio"]["params"])
    assert got["pmem"]["tier"]["in_place_dram_bytes"] > 0
    for tier, rc in (("aio", 1), ("pmem", 0)):
        d = tmp_path / f"m-{tier}"
        d.mkdir()
        r = run(varheat, ["--size", SIZE, "--steps", 9, "--mem", "2M", "--block", "48,11,9", "--tier", tier,
                          "--dir", d, *files, "--plan-only"])
        assert r.returncode == rc, (tier, r.stderr)
        assert ("more than the budget of 2.00 MiB (--mem)" in r.stderr) == (rc == 1), r.stderr


def kill_and_resume(exe, files, tmp, size, block, steps):
    """Runs ``exe`` with --tier pmem, SIGKILLs it once two sweeps (bt 2) are committed, resumes it; returns the
    resumed run's --out bytes, its report and the sweeps the resumed run made."""
    d, out, rep = tmp / "d", tmp / "o.npy", tmp / "r.json"
    d.mkdir()
    common = ["--size", size, "--steps", steps, "--mem", "8M", "--block", block, "--tier", "pmem", "--dir", d,
              *files, "--out", f"u={out}", "--quiet"]
    p = subprocess.Popen([str(exe), *map(str, common)], env=ENV, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    state, t0 = d / f"{Path(exe).name}.ooc-state", time.monotonic()
    while p.poll() is None and time.monotonic() - t0 < 300:
        text = state.read_text() if state.exists() else ""
        if "sweeps_done" in text and int(text.split("sweeps_done ")[1].split()[0]) >= 2:
            break
        time.sleep(0.002)
    assert p.poll() is None, "the run ended before it could be killed: make it longer"
    p.send_signal(signal.SIGKILL)
    p.wait()
    done = int(state.read_text().split("sweeps_done ")[1].split()[0])
    assert not out.exists()
    r = run(exe, [*common, "--resume", "--report", rep])
    assert r.returncode == 0, r.stderr
    got = load_report(rep)
    assert got["bytes_read"] == got["predicted_bytes_read"], got
    assert not list(Path(d).glob("*.grid"))
    left = steps // 2 - done  # the sweeps the resumed run made
    assert 0 < left < steps // 2
    return out.read_bytes(), got, left


def test_sigkill_after_two_sweeps_resumes_reading_in_place(varheat, files, tmp_path):
    """A long run (bt 2, 300 steps: 150 sweeps) SIGKILLed once two sweeps are committed; --resume goes on
    from the state file, still reading c in place, to in-core's bits."""
    steps = 300
    ref = in_core(varheat, files, steps, tmp_path / "ic.npy")
    bits, got, left = kill_and_resume(varheat, files, tmp_path, SIZE, "48,4,2", steps)
    assert bits == ref
    row = -(-NX * 8 // 512) * 512
    assert got["tier"]["read_in_place_bytes"] == got["tier"]["predicted_read_in_place_bytes"] == \
        left * NZ * NY * row, got["tier"]


# ---------------------------------------------------------------- 2d: flux2d's input k, a slice a row
NY2 = 600
SIZE2 = f"{NX},{NY2}"


@pytest.fixture(scope="module")
def flux2d(compile_example):
    return compile_example("flux2d")


@pytest.fixture(scope="module")
def files2d(tmp_path_factory):
    d = tmp_path_factory.mktemp("init2d")
    rng = np.random.default_rng(5)
    np.save(d / "k.npy", 0.1 + 0.9 * rng.random((NY2, NX)))
    np.save(d / "u0.npy", rng.random((NY2, NX)))
    return ["--init", f"k={d / 'k.npy'}", "--init", f"u={d / 'u0.npy'}"]


def run2d(exe, files, tmp, tier, steps, extra):
    d, out, rep = tmp / f"d2-{tier}", tmp / f"o2-{tier}.npy", tmp / f"r2-{tier}.json"
    d.mkdir()
    r = run(exe, ["--size", SIZE2, "--steps", steps, *extra, *files, "--out", f"u={out}", "--report", rep,
                  "--quiet"] + (["--tier", tier, "--dir", d] if tier != "incore" else []))
    assert r.returncode == 0, r.stderr
    got = load_report(rep)
    if tier != "incore":
        assert got["bytes_read"] == got["predicted_bytes_read"], got
        assert got["bytes_written"] == got["predicted_bytes_written"], got
    return out.read_bytes(), got


def test_2d_reads_the_input_in_place(flux2d, files2d, tmp_path):
    """9 steps, blocks of 40 rows, bt 3: three sweeps, each reads k in the mapping: 3 x 600 rows x 512 bytes
    (64 f64, padded to O_DIRECT's 512) not copied; the bits in-core's, the writes the aio tier's."""
    ref, _ = run2d(flux2d, files2d, tmp_path, "incore", 9, ["--mode", "incore"])
    bits_aio, aio = run2d(flux2d, files2d, tmp_path, "aio", 9, ["--mem", "8M", "--block", "40,3"])
    bits, pm = run2d(flux2d, files2d, tmp_path, "pmem", 9, ["--mem", "8M", "--block", "40,3"])
    assert bits == ref and bits_aio == ref
    inplace = 3 * NY2 * (-(-NX * 8 // 512) * 512)
    assert pm["tier"]["read_in_place_bytes"] == pm["tier"]["predicted_read_in_place_bytes"] == inplace, pm["tier"]
    assert aio["bytes_read"] - pm["bytes_read"] == inplace, (aio["bytes_read"], pm["bytes_read"])
    assert pm["bytes_written"] == aio["bytes_written"]
    ring_left_out(aio, pm)


def test_2d_sigkill_after_two_sweeps_resumes_reading_in_place(flux2d, files2d, tmp_path):
    steps = 400
    ref, _ = run2d(flux2d, files2d, tmp_path, "incore", steps, ["--mode", "incore"])
    bits, got, left = kill_and_resume(flux2d, files2d, tmp_path, SIZE2, "40,2", steps)
    assert bits == ref
    assert got["tier"]["read_in_place_bytes"] == got["tier"]["predicted_read_in_place_bytes"] == \
        left * NY2 * (-(-NX * 8 // 512) * 512), got["tier"]
