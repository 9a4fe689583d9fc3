"""Blk-Tune: the search finds the global minimum of the exact IO model.

* On small grids, ``--tuner blk --rank bytes`` picks a plan with the same predicted bytes and the
  same DRAM as ``--tuner brute --rank bytes``, which weighs every feasible (by, bz, bt, strip).
  (By default the tuners rank by predicted time, which needs the kernels' rate measured at each
  start; runtime/tests/test_tune.c checks that ranking on its own.)
* The tuner's figure is the engine's: the bytes it predicts for its plan are the bytes the run
  counts, for blk, naive and brute.
* blk never moves more bytes than naive (the paper's Naive-Tune) under the same budget.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import load_report

REPO = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=str(REPO / "compiler"), OMP_NUM_THREADS="2")


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    out = {}
    d = tmp_path_factory.mktemp("tune")
    cmd = ["stencilc"] if os.environ.get("STENCILC_INSTALLED") == "1" else [sys.executable, "-m", "stencilc"]
    for name in ("heat3d", "star2", "wave3d", "jacobi2d"):
        r = subprocess.run(cmd + [str(REPO / "examples" / f"{name}.stn"), "-o", str(d / name)], capture_output=True,
                           text=True, env=ENV)
        assert r.returncode == 0, r.stderr
        out[name] = d / name
    return out


def tuned(exe: Path, tmp: Path, tuner: str, *args: str) -> dict | None:
    rep = tmp / f"{tuner}.json"
    r = subprocess.run([str(exe), *args, "--dir", str(tmp), "--tuner", tuner, "--quiet", "--report", str(rep)],
                       capture_output=True, text=True, env=ENV, timeout=600)
    if r.returncode != 0:
        assert "too small" in r.stderr, r.stderr
        return None
    rep = load_report(rep)
    moved = rep["bytes_read"] + rep["bytes_written"]
    assert rep["tune"]["predicted_bytes"] == moved, f"{tuner}: the tuner's model {rep['tune']} != counted {moved}"
    assert rep["mem_plan_bytes"] <= rep["mem_budget_bytes"]
    return rep


# The iBlock is fixed (--iblock) so that the searched blocks stay small enough to enumerate: on a
# grid this small, eq. 1a's iBlock is the whole interior and leaves one block to weigh.  An
# iBlock other than 1 constrains bz (iz; by in 2d) and y-blocked by (iy) to its multiples.
CASES = [
    ("heat3d", "2048,12,14", "6", ["2M", "1M", "3M", "700K"], "ref", "1,1"),
    ("heat3d", "2048,9,17", "11", ["1500K", "4M"], "ref", "1,1"),
    ("heat3d", "2048,13,17", "7", ["1500K", "3M", "700K"], "ref", "2,3"),
    ("star2", "2048,14,13", "5", ["2M", "5M"], "ref", "1,1"),
    ("wave3d", "1024,12,12", "7", ["1500K", "4M"], "ref", "1,2"),
    ("heat3d", "256,20,23", "9", ["2M", "900K"], "alg1", "1,1"),
    ("heat3d", "256,20,23", "9", ["2M", "900K"], "alg2", "1,2"),
    ("jacobi2d", "2048,37", "8", ["300K", "1M"], "ref", "1"),
    ("jacobi2d", "2048,37", "8", ["300K", "1M"], "ref", "4"),
]


@pytest.mark.parametrize("name,size,steps,budgets,schedule,iblock", CASES)
def test_blk_finds_what_brute_force_finds(programs, tmp_path, name, size, steps, budgets, schedule, iblock):
    for mem in budgets:
        args = ["--size", size, "--steps", steps, "--mem", mem, "--schedule", schedule, "--iblock", iblock,
                "--rank", "bytes"]
        blk = tuned(programs[name], tmp_path, "blk", *args)
        brute = tuned(programs[name], tmp_path, "brute", *args)
        assert (blk is None) == (brute is None), f"{name} {mem}: one tuner found a plan, the other did not"
        if blk is None:
            continue
        what = f"{name} --size {size} --steps {steps} --mem {mem} --schedule {schedule}"
        assert (blk["tune"]["predicted_bytes"], blk["mem_plan_bytes"]) == \
            (brute["tune"]["predicted_bytes"], brute["mem_plan_bytes"]), \
            f"{what}: blk {blk['params']} {blk['strip']} vs brute {brute['params']} {brute['strip']}"
        assert blk["tune"]["plans_weighed"] < brute["tune"]["plans_weighed"]
        unit = -(-int(iblock.split(",")[-1]) // 2)  # a thread's share of the iBlock (2 threads)
        b = blk["params"]["bz" if name != "jacobi2d" else "by"]
        span = int(size.split(",")[-1 if name != "jacobi2d" else 1]) - 2 * (2 if name == "star2" else 1)
        relaxed = "whole tiles" in blk["iblock_source"]
        assert relaxed or b % unit == 0 or b == span, f"{what}: block {b} is not whole iBlocks of {unit}"
        naive = tuned(programs[name], tmp_path, "naive", *args)
        if naive is not None:
            assert blk["tune"]["predicted_bytes"] <= naive["tune"]["predicted_bytes"], what


def test_blk_is_fast_for_a_terabyte_problem(programs, tmp_path):
    """A 1 TiB description (8192^2 x 2048 doubles, 500 steps, 16 GiB or this machine's budget): the byte search weighs
    under 200,000 plans (well under a second here), and far fewer bytes than Naive-Tune; ranked by time (the default), a plan that fits,
    with its finalists measured.  --plan-only tunes and stops: no scratch file, no step."""
    base = ["--size", "8192,8192,2048", "--steps", "500", "--dir", str(tmp_path), "--plan-only"]
    # 16 GiB, or less where this machine has less (the runtime takes the least of hwloc's, the kernel's
    # and the cgroup's figures, and some VMs' hwloc reports a third of MemTotal): its default budget
    r = subprocess.run([str(programs["heat3d"]), *base, "--tuner", "blk", "--rank", "bytes", "--report",
                        str(tmp_path / "default.json")], capture_output=True, text=True, env=ENV, timeout=60)
    assert r.returncode == 0, r.stderr
    budget = min(16 << 30, load_report(tmp_path / "default.json")["mem_budget_bytes"])
    common = [*base, "--mem", str(budget)]
    reps = {}
    for tuner, extra in (("blk", ["--rank", "bytes"]), ("naive", []), ("blk-time", [])):
        rep = tmp_path / f"{tuner}.json"
        r = subprocess.run([str(programs["heat3d"]), *common, "--tuner", tuner[:3] if tuner != "naive" else tuner,
                            *extra, "--report", str(rep)], capture_output=True, text=True, env=ENV, timeout=60)
        assert r.returncode == 0, r.stderr
        assert "predicted_bytes_read" in r.stdout
        reps[tuner] = load_report(rep)
    # the search's size, not its seconds (a timed assertion failed on a loaded machine: 1.13 s beside three
    # builds); 81,272 plans weighed in 0.40 s here, its speed is the bench's (section 3)
    assert 0 < reps["blk"]["tune"]["plans_weighed"] < 200_000, reps["blk"]["tune"]
    assert reps["blk"]["mem_plan_bytes"] <= budget
    assert reps["blk"]["tune"]["predicted_bytes"] < reps["naive"]["tune"]["predicted_bytes"]
    timed = reps["blk-time"]
    assert timed["mem_plan_bytes"] <= budget and timed["tuner"] == "blk"
    assert 1 <= len(timed["tune"]["finalists"]) <= 4
    chosen = [f for f in timed["tune"]["finalists"]
              if [f["by"], f["bz"], f["bt"]] == [timed["params"][k] for k in ("by", "bz", "bt")]]
    assert chosen and chosen[0]["predicted_bytes"] == timed["tune"]["predicted_bytes"]
    assert not list(tmp_path.glob("*.grid"))


def test_blocks_are_whole_tiles_of_eq_1a(programs, tmp_path):
    """Without --iblock the iBlock is eq. 1a's for this machine, and blocks are whole tiles of it
    (bz a multiple of a thread's share, iz / 2) while the budget allows; a budget too small for
    that still runs, with thinner blocks, and says so."""
    args = ["--size", "256,256,400", "--steps", "12", "--plan-only", "--dir", str(tmp_path)]
    rep = tmp_path / "r.json"
    r = subprocess.run([str(programs["heat3d"]), *args, "--mem", "120M", "--report", str(rep)],
                       capture_output=True, text=True, env=ENV, timeout=60)
    assert r.returncode == 0, r.stderr
    d = load_report(rep)
    iy, iz = d["params"]["iy"], d["params"]["iz"]
    assert d["iblock_source"].startswith("eq. 1a: 2 threads"), d["iblock_source"]
    assert iz % 2 == 0 and 2 * 256 * 8 * iy * iz <= 3 * d["hardware"]["l2_bytes"]["value"] * 2, (iy, iz)
    assert d["params"]["bz"] % (iz // 2) == 0 or d["params"]["bz"] == 398, d["params"]
    r = subprocess.run([str(programs["heat3d"]), *args, "--mem", "8M", "--report", str(rep)],
                       capture_output=True, text=True, env=ENV, timeout=60)
    assert r.returncode == 0, r.stderr
    d = load_report(rep)
    assert "fits no block of whole tiles" in d["iblock_source"], d["iblock_source"]
    assert d["mem_plan_bytes"] <= 8 << 20


def test_machine_figures_and_refusals(programs, tmp_path):
    """--plan-only --machine plans for the described machine (its cores drive eq. 1a, its block the
    row padding, its dram less reserve the budget) and touches no directory; a run with --machine
    is refused; so is a malformed --iblock."""
    exe, m = str(programs["heat3d"]), str(REPO / "examples" / "machines" / "crest6.json")
    rep = tmp_path / "r.json"
    r = subprocess.run([exe, "--size", "2048,2048,2048", "--steps", "500", "--plan-only", "--machine", m,
                        "--dir", str(tmp_path / "absent"), "--report", str(rep)],
                       capture_output=True, text=True, env=ENV, timeout=60)
    assert r.returncode == 0, r.stderr
    d = load_report(rep)
    hw = d["hardware"]
    assert hw["machine"] == "crest6" and hw["cores"]["value"] == 20 and hw["threads"]["value"] == 20
    assert d["mem_budget_bytes"] == 96 << 30 and hw["device_block_bytes"]["value"] == 4096
    assert d["params"]["iz"] % 20 == 0 and d["params"]["bz"] % (d["params"]["iz"] // 20) == 0, d["params"]
    assert d["iblock_source"].startswith("eq. 1a: 20 threads, L2 262144 bytes")
    for args, msg in (
        (["--machine", m], "--machine " + m + " describes a machine to plan for: it needs --plan-only"),
        (["--iblock", "4"], "--iblock 4: expected iy,iz (2 positive integers separated by commas)"),
        (["--iblock", "0,8"], "--iblock 0,8: expected iy,iz"),
    ):
        r = subprocess.run([exe, "--size", "64,64,64", "--steps", "2", "--dir", str(tmp_path), *args],
                           capture_output=True, text=True, env=ENV, timeout=60)
        assert r.returncode == 2 and msg in r.stderr, (args, r.stderr)


def test_dram_figure_is_the_smallest_source_under_a_cgroup(programs, tmp_path):
    """In a memory cgroup capped below hwloc's and MemAvailable's figures, the cgroup's headroom is
    the DRAM figure, and the default budget is it less the reserve; every figure has a source."""
    if os.geteuid() != 0:
        pytest.skip("making a memory cgroup needs root")
    sys.path.insert(0, str(REPO / "bench"))
    from common import Cgroup

    try:
        cg = Cgroup(f"stencilc-test-{os.getpid()}", 300 << 20)
    except OSError as e:
        pytest.skip(f"no memory cgroup to make here: {e}")
    rep = tmp_path / "r.json"
    try:
        r = subprocess.run([str(programs["heat3d"]), "--size", "64,64,64", "--steps", "2", "--plan-only", "--dir",
                            str(tmp_path), "--report", str(rep)], capture_output=True, text=True, env=ENV, timeout=60,
                           preexec_fn=cg.add_self)
    finally:
        cg.remove()
    assert r.returncode == 0, r.stderr
    d = load_report(rep)
    hw = d["hardware"]
    room = hw["cgroup_headroom_bytes"]["value"]
    assert 0 < room <= 300 << 20 and "cgroup" in hw["cgroup_headroom_bytes"]["source"], hw
    assert hw["dram_bytes"]["value"] == room == min(hw["dram_hwloc_bytes"]["value"], hw["mem_available_bytes"]["value"],
                                                     room)
    assert d["mem_budget_bytes"] == room - room // 4, d["mem_budget_source"]
    assert "the cgroup's headroom" in d["mem_budget_source"]
    assert hw["device_block_bytes"]["value"] >= 512 and hw["device_block_bytes"]["source"]
