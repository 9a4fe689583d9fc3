"""Blk-Tune: the search finds the global minimum of the exact IO model.

* On small grids, ``--tuner blk`` picks a plan with the same predicted bytes and the same DRAM
  as ``--tuner brute``, which weighs every feasible (by, bz, bt, strip).
* The tuner's figure is the engine's: the bytes it predicts for its plan are the bytes the run
  counts, for blk, naive and brute.
* blk never moves more bytes than naive (the paper's Naive-Tune) under the same budget.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

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
    rep = json.loads(rep.read_text())
    moved = rep["bytes_read"] + rep["bytes_written"]
    assert rep["tune"]["predicted_bytes"] == moved, f"{tuner}: the tuner's model {rep['tune']} != counted {moved}"
    assert rep["mem_plan_bytes"] <= rep["mem_budget_bytes"]
    return rep


CASES = [
    ("heat3d", "2048,12,14", "6", ["2M", "1M", "3M", "700K"], "ref"),
    ("heat3d", "2048,9,17", "11", ["1500K", "4M"], "ref"),
    ("star2", "2048,14,13", "5", ["2M", "5M"], "ref"),
    ("wave3d", "1024,12,12", "7", ["1500K", "4M"], "ref"),
    ("heat3d", "256,20,23", "9", ["2M", "900K"], "alg1"),
    ("heat3d", "256,20,23", "9", ["2M", "900K"], "alg2"),
    ("jacobi2d", "2048,37", "8", ["300K", "1M"], "ref"),
]


@pytest.mark.parametrize("name,size,steps,budgets,schedule", CASES)
def test_blk_finds_what_brute_force_finds(programs, tmp_path, name, size, steps, budgets, schedule):
    for mem in budgets:
        args = ["--size", size, "--steps", steps, "--mem", mem, "--schedule", schedule]
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
        naive = tuned(programs[name], tmp_path, "naive", *args)
        if naive is not None:
            assert blk["tune"]["predicted_bytes"] <= naive["tune"]["predicted_bytes"], what


def test_blk_is_fast_for_a_terabyte_problem(programs, tmp_path):
    """A 1 TiB description (8192^2 x 2048 doubles, 500 steps, 16 GiB): well under a second, and
    far fewer bytes than Naive-Tune.  --plan-only tunes and stops: no scratch file, no step."""
    common = ["--size", "8192,8192,2048", "--steps", "500", "--mem", "16G", "--dir", str(tmp_path), "--plan-only"]
    reps = {}
    for tuner in ("blk", "naive"):
        rep = tmp_path / f"{tuner}.json"
        r = subprocess.run([str(programs["heat3d"]), *common, "--tuner", tuner, "--report", str(rep)],
                           capture_output=True, text=True, env=ENV, timeout=60)
        assert r.returncode == 0, r.stderr
        assert f"tuner {tuner}" in r.stdout and "predicted_bytes_read" in r.stdout
        reps[tuner] = json.loads(rep.read_text())
    assert reps["blk"]["tune"]["seconds"] < 1.0
    assert reps["blk"]["mem_plan_bytes"] <= 16 << 30
    assert reps["blk"]["tune"]["predicted_bytes"] < reps["naive"]["tune"]["predicted_bytes"]
    assert not list(tmp_path.glob("*.grid"))
