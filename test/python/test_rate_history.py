"""The time model's kernels' rate from earlier runs' loops (runtime/src/engines/ooc/ooc_history.c, issue 30: a
run's wall time against its prediction).

Guarantees checked, each test with its own cache ($STENCILC_CACHE_DIR):

* After a loop, the rate at which the time model gives that loop's sweeps their measured seconds goes to
  ``rates/KEY.txt`` (a header naming the key in words, a line a run); the next run of the same program, grid
  and plan predicts with it, ``cells_per_second_source`` says so, and its predicted loop is the earlier loop's
  seconds.  ``STENCILC_RATE_HISTORY=always`` keeps these short loops (a user's are kept from 5 s of kernels).
* The median of the last five runs is taken; lines of no run are skipped; a file is rewritten with the last
  five.  Each line's rate is fitted again to its loop's seconds with the next run's own share and curves.  A file whose header is another key's is not used.
* Another grid is another key; ``STENCILC_RATE_HISTORY=0`` neither reads nor writes; a loop under 5 s is not
  kept.
* The same loop adds its fitted rate over its own startup sample to the machine's file (``rates/machine-*.txt``,
  the last nine, of any program); a run with no loop of its own key and three or more of those predicts with
  its startup sample times their lower quartile, and says so; fewer than three leave the startup sample alone.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import load_report

SIZE = (96, 40, 36)


@pytest.fixture(scope="module")
def heat3d(compile_example):
    return compile_example("heat3d")


def _run(exe, tmp: Path, cache: Path, name: str, history: str | None = "always", size=SIZE, steps=60) -> dict:
    """A run of one sweep: with 60 steps its kernels and the IO the built-in curves give it are alike in the model (a
    rate gives the model its loop's seconds); with 240 the kernels outweigh the IO (its loop gives the machine's ratios
    one), with 6 the IO outweighs them."""
    d = tmp / "scratch"
    d.mkdir(exist_ok=True)
    report = tmp / f"{name}.json"
    env = dict(os.environ, OMP_NUM_THREADS="2", STENCILC_CALIBRATE="0", STENCILC_CACHE_DIR=str(cache))
    env.pop("STENCILC_RATE_HISTORY", None)
    if history is not None:
        env["STENCILC_RATE_HISTORY"] = history
    u = tmp / f"u-{'x'.join(map(str, size))}.npy"  # (from a file: no init expressions, timed again each run)
    if not u.exists():
        np.save(u, np.random.default_rng(5).random(size[::-1]))
    r = subprocess.run([str(exe), "--size", ",".join(map(str, size)), "--steps", str(steps), "--mem", "16M", "--dir", str(d),
                        "--block", f"8,36,{steps}", "--report", str(report), "--quiet", "--init", f"u={u}"],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    return load_report(report)


def _files(cache: Path) -> list[Path]:
    """The files of a program, grid and plan (not the machine's)."""
    return sorted(p for p in (cache / "rates").glob("*.txt") if not p.name.startswith("machine-")) if (cache / "rates").exists() else []


def _machine(cache: Path) -> list[Path]:
    return sorted((cache / "rates").glob("machine-*.txt")) if (cache / "rates").exists() else []


def _loop_prediction(rep: dict) -> float:
    return rep["predicted_seconds"] - rep["time_model"]["transfer"]


def test_the_next_run_predicts_its_loop_with_the_earlier_loops_seconds(heat3d, tmp_path):
    cache = tmp_path / "cache"
    first = _run(heat3d, tmp_path, cache, "first")
    assert first["time_model"]["cells_per_second_source"].startswith("measured at startup"), first["time_model"]
    (f,) = _files(cache)
    head, *runs = f.read_text().splitlines()
    assert head.startswith("# host ") and "stencil heat3d" in head and "grid 96x40x36 of 8-byte cells" in head, head
    assert " threads, device " in head and " sectors" in head, head  # (the device of --dir, as calibrations name it)
    assert "blocks r 8 q 0 bt 60" in head, head  # (the plan's blocks: by, bz, bt)
    assert len(runs) == 1, runs
    rate, kernels, loop, when, s0, steps = runs[0].split()
    assert (s0, steps) == ("0", "60"), runs  # (the loop's sweeps: from the first, 60 steps)
    # (the sweeps' seconds: the loop without the import of inputs, which the model prices apart)
    assert 0.9 * first["seconds"]["loop"] <= float(loop) <= first["seconds"]["loop"], (runs, first["seconds"])
    assert float(rate) > 0 and float(kernels) > 0 and int(when) > 1.7e9, runs
    second = _run(heat3d, tmp_path, cache, "second")
    tm = second["time_model"]
    assert tm["cells_per_second_source"].startswith("the median of 1 earlier run of this program, grid and plan"), tm
    assert str(f) in tm["cells_per_second_source"], tm
    assert tm["cells_per_second"] == pytest.approx(float(rate), rel=1e-5), (tm, runs)
    # the rate was fitted to the first run's loop: the second run's model gives that loop back (its share and
    # curves are the first's: the device's, calibration off, the same plan and the same --init file)
    assert _loop_prediction(second) == pytest.approx(float(loop), rel=1e-3), (second, runs)
    assert len(f.read_text().splitlines()) == 3  # (its own loop added)


def test_each_loops_rate_is_fitted_again_with_the_runs_own_share(heat3d, tmp_path):
    """A line's rate was fitted with its run's share under IO, which the next run measures anew: the next run fits
    each loop's seconds again with its own, so that the rate kept does not matter where the loop's steps are given."""
    cache = tmp_path / "cache"
    _run(heat3d, tmp_path, cache, "first")
    (f,) = _files(cache)
    head, line = f.read_text().splitlines()
    rate, kernels, loop, when, s0, steps = line.split()
    f.write_text(f"{head}\n{float(rate) * 3:g} {kernels} {loop} {when} {s0} {steps}\n")
    rep = _run(heat3d, tmp_path, cache, "again")
    assert _loop_prediction(rep) == pytest.approx(float(loop), rel=1e-3), (rep["time_model"], line)
    assert rep["time_model"]["cells_per_second"] < 2 * float(rate), (rep["time_model"], line)


def test_the_median_of_the_last_five_runs_and_lines_of_no_run_skipped(heat3d, tmp_path):
    cache = tmp_path / "cache"
    _run(heat3d, tmp_path, cache, "first")
    (f,) = _files(cache)
    head = f.read_text().splitlines()[0]
    rates = [1e9, 2e9, 9e9, 3e9, 4e9, 5e9, 6e6]  # the last five: 9e9, 3e9, 4e9, 5e9, 6e6
    lines = [f"{r:g} 1e9 1.5 1800000000" for r in rates]
    f.write_text("\n".join([head, lines[0], "garbage", lines[1], "nan 1 1 1", "-5 1 1 1", *lines[2:], "7e9 1"]) + "\n")
    rep = _run(heat3d, tmp_path, cache, "again")
    assert rep["time_model"]["cells_per_second"] == pytest.approx(statistics.median(rates[-5:]), rel=1e-9)
    assert "the median of 5 earlier runs" in rep["time_model"]["cells_per_second_source"]
    kept = f.read_text().splitlines()
    assert kept[0] == head and kept[1:5] == lines[-4:] and len(kept) == 6, kept  # (the last four and its own)


def test_a_file_of_another_key_is_not_used(heat3d, tmp_path):
    cache = tmp_path / "cache"
    _run(heat3d, tmp_path, cache, "first")
    (f,) = _files(cache)
    head, *runs = f.read_text().splitlines()
    f.write_text("\n".join([head.replace("grid 96x40x36", "grid 97x40x36"), *runs]) + "\n")
    rep = _run(heat3d, tmp_path, cache, "again")
    assert rep["time_model"]["cells_per_second_source"].startswith("measured at startup"), rep["time_model"]
    assert f.read_text().splitlines()[0] == head  # (rewritten as its own key's, with its own run)


def test_another_grid_is_another_key_and_the_switches(heat3d, tmp_path):
    cache = tmp_path / "cache"
    _run(heat3d, tmp_path, cache, "first")
    other = _run(heat3d, tmp_path, cache, "other", size=(100, 40, 36))
    assert other["time_model"]["cells_per_second_source"].startswith("measured at startup"), other["time_model"]
    assert len(_files(cache)) == 2
    off = tmp_path / "off"
    for _ in range(2):
        rep = _run(heat3d, tmp_path, off, "off", history="0")
        assert rep["time_model"]["cells_per_second_source"].startswith("measured at startup")
    assert _files(off) == []
    short = tmp_path / "short"  # a user's loop of well under 5 s of kernels is not kept
    _run(heat3d, tmp_path, short, "short", history=None)
    assert _files(short) == []


def test_a_first_run_scales_its_startup_sample_by_the_machines_earlier_loops(heat3d, tmp_path):
    cache = tmp_path / "cache"
    # a loop the model gives the device (6 steps: its kernels a fifteenth of its IO at the startup's rate): no ratio
    _run(heat3d, tmp_path, cache, "io", steps=6)
    assert _machine(cache) == []
    first = _run(heat3d, tmp_path, cache, "first", steps=240)
    (m,) = _machine(cache)
    head, *runs = m.read_text().splitlines()
    assert head.startswith("# host ") and " threads, device " in head and "stencil" not in head, head
    assert len(runs) == 1, runs
    ratio, fitted, startup, when, name = runs[0].split()
    (f,) = [p for p in _files(cache) if "bt 240" in p.read_text()]
    assert float(fitted) == pytest.approx(float(f.read_text().splitlines()[1].split()[0]), rel=1e-5)
    assert float(startup) == pytest.approx(first["time_model"]["cells_per_second"], rel=1e-5), first["time_model"]
    assert float(ratio) == pytest.approx(float(fitted) / float(startup), rel=1e-4) and name == "heat3d", runs
    # two ratios: too few, a first run of another grid keeps its startup sample (and adds a third)
    other = _run(heat3d, tmp_path, cache, "other", size=(100, 40, 36), steps=240)
    assert other["time_model"]["cells_per_second_source"].startswith("measured at startup"), other["time_model"]
    assert len(m.read_text().splitlines()) == 3
    # three or more: the lower quartile of the last nine, over the startup's own sample; garbage skipped
    ratios = [0.5, 3.0, 0.8, 0.9, 0.7, 1.1, 0.95, 0.85, 0.75, 0.6]  # (the last nine: from 3.0)
    m.write_text("\n".join([head, "x y", *[f"{r} 1e9 1e9 1800000000 heat3d" for r in ratios], "inf 1 1 1"]) + "\n")
    third = _run(heat3d, tmp_path, cache, "third", size=(104, 40, 36), steps=240)
    tm = third["time_model"]
    src = tm["cells_per_second_source"]
    assert src.startswith("the startup's ") and "the lower quartile of 9 earlier runs' loops on this machine" in src, tm
    assert str(m) in src and "startup: measured at startup" in src, tm
    med = float(np.quantile(ratios[-9:], 0.25))  # (0.75)
    kept = m.read_text().splitlines()
    assert len(kept) == 10 and kept[1].startswith("0.8 "), kept  # (the last eight and its own)
    startup = float(kept[-1].split()[2])  # (its own line: the startup sample, before the scaling)
    assert float(src.split()[2]) == pytest.approx(startup, rel=5e-3), (src, kept[-1])
    assert tm["cells_per_second"] == pytest.approx(startup * med, rel=1e-5), (tm, med)
    # a key with loops of its own still takes their median, not the scaled startup
    again = _run(heat3d, tmp_path, cache, "again", steps=240)
    assert again["time_model"]["cells_per_second_source"].startswith("the median of 1 earlier run"), again["time_model"]


# A device 20 times this VM's disk: the model gives the loops below to the kernels, so that they are kept.
FAST_DEVICE = {"name": "test: a fast device", "description": "written by test_rate_history", "cores": 2, "sockets": 1,
               "numa_nodes": 1, "l2": 2 << 20, "l3": 32 << 20, "dram": 8 << 30, "device_block": 512,
               "read": "64K@1:20G 1M@1:20G 64K@32:20G 1M@32:20G", "write": "64K@1:20G 1M@1:20G 64K@32:20G 1M@32:20G",
               "mixed": "64K@8:20G 1M@8:20G 64K@32:20G 1M@32:20G", "compute_under_io": 1.0, "io_under_compute": 1.0}


def _tuned(exe, tmp: Path, cache: Path, name: str, *extra: str) -> dict:
    """A run Blk-Tune plans (no --block), ranking its finalists by time: heat3d 128^3 in 4 MiB has two finalists
    (whole planes, and y-blocked tiles with the strip in DRAM) on the fast device's curves."""
    d = tmp / "scratch"
    d.mkdir(exist_ok=True)
    st = os.stat(d)
    dev = cache / "devices" / f"{os.major(st.st_dev)}-{os.minor(st.st_dev)}.json"
    dev.parent.mkdir(parents=True, exist_ok=True)
    dev.write_text(json.dumps(FAST_DEVICE))
    report = tmp / f"{name}.json"
    env = dict(os.environ, OMP_NUM_THREADS="2", STENCILC_CALIBRATE="0", STENCILC_CACHE_DIR=str(cache),
               STENCILC_RATE_HISTORY="always")
    r = subprocess.run([str(exe), "--size", "128,128,128", "--steps", "40", "--mem", "4M", "--dir", str(d), "--report",
                        str(report), "--quiet", *extra], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    rep = load_report(report)
    assert rep["time_model"]["device_curves"] == "probe", rep["time_model"]
    return rep


def _plan(f: dict) -> tuple:
    return f["by"], f["bz"], f["bt"], f["strip"]


def test_blk_tune_ranks_a_finalist_by_its_kept_loops(heat3d, tmp_path):
    """The startup sample of a finalist scatters more than the plans differ; a finalist whose plan has loops kept
    is ranked by them (each fitted again under the tuner's model), the others by their samples."""
    cache = tmp_path / "cache"
    first = _tuned(heat3d, tmp_path, cache, "first")
    fins = first["tune"]["finalists"]
    assert len({_plan(f) for f in fins}) >= 2, fins  # (something to rank)
    # no loops kept yet, fewer than three machine ratios: each ranked by its own sample
    assert all(f["loops_kept"] == 0 and f["cells_per_second"] == f["sample_cells_per_second"] for f in fins), fins
    chosen = (first["params"]["by"], first["params"]["bz"], first["params"]["bt"], first["strip"])
    assert chosen in {_plan(f) for f in fins}, (chosen, fins)
    (f,) = _files(cache)
    head, line = f.read_text().splitlines()
    rate, kernels, loop, when, s0, steps = line.split()
    # the chosen plan's loop made 8 times as long: its rate, fitted again to it, falls, and another plan wins
    f.write_text(f"{head}\n{rate} {kernels} {float(loop) * 8:g} {when} {s0} {steps}\n")
    again = _tuned(heat3d, tmp_path, cache, "again", "--plan-only")
    (a,) = [g for g in again["tune"]["finalists"] if _plan(g) == chosen]
    assert a["loops_kept"] == 1 and a["cells_per_second"] < a["sample_cells_per_second"] / 3, a
    others = [g for g in again["tune"]["finalists"] if _plan(g) != chosen]
    assert others and all(g["loops_kept"] == 0 for g in others), others
    assert (again["params"]["by"], again["params"]["bz"], again["params"]["bt"], again["strip"]) != chosen, again["tune"]
    # the file's loop as it was: the plan is ranked by its own loop, near its sample (the model fits it back)
    f.write_text(f"{head}\n{line}\n")
    back = _tuned(heat3d, tmp_path, cache, "back", "--plan-only")
    (b,) = [g for g in back["tune"]["finalists"] if _plan(g) == chosen]
    assert b["loops_kept"] == 1 and b["cells_per_second"] > a["cells_per_second"] * 3, (a, b)
