"""The parts of the time model that are not the sweeps' (issue 30: a whole job's wall time against its
prediction).

* ``time_model.init``: a state level placed from the ``.stn``'s init expression costs the first sweep the
  expression's time over the grid, at its rate measured at startup; a level read from ``--init FILE.npy``
  costs none (its reads are the model's ``npy``). It is part of ``time_model.compute`` and of
  ``predicted_seconds``.
* ``time_model.startup``: the seconds the job spent before its loop, measured (the plan, its measurements, the
  scratch files made and the rings gathered into 2 MiB pages); ``predicted_job_seconds`` is
  ``predicted_seconds`` plus it and the removal, and the job is its startup, loop, export and removal.
* The kernels' startup rate says how it was measured: the median of its rounds, on windows whose rows are the
  grid's when the budget allows.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import load_report

SIZE = (256, 40, 36)


@pytest.fixture(scope="module")
def heat3d(compile_example):
    return compile_example("heat3d")


def _run(exe, tmp: Path, name: str, *extra) -> dict:
    d = tmp / f"scratch-{name}"
    d.mkdir(exist_ok=True)
    report = tmp / f"{name}.json"
    r = subprocess.run([str(exe), "--size", ",".join(map(str, SIZE)), "--steps", "12", "--mem", "4M", "--dir", str(d),
                        "--block", "8,12,4", "--report", str(report), "--quiet", *extra],
                       capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, OMP_NUM_THREADS="2", STENCILC_CALIBRATE="0"))
    assert r.returncode == 0, r.stderr
    return load_report(report)


def test_init_expressions_cost_the_first_sweep_and_a_file_costs_none(heat3d, tmp_path):
    expr = _run(heat3d, tmp_path, "expr")
    tm = expr["time_model"]
    assert tm["init"] > 0 and tm["init"] < tm["compute"], tm
    assert expr["seconds"]["init"] > 0, expr["seconds"]  # (the run did compute them)
    u = np.random.default_rng(3).random(SIZE[::-1])
    np.save(tmp_path / "u.npy", u)
    npy = _run(heat3d, tmp_path, "npy", "--init", f"u={tmp_path / 'u.npy'}")
    assert npy["time_model"]["init"] == 0, npy["time_model"]
    assert npy["time_model"]["npy"] > 0, npy["time_model"]  # (the file's reads instead)
    # the rest of the kernels' time is the same plan's: compute less init agrees within the rates' spread
    a = tm["compute"] - tm["init"]
    b = npy["time_model"]["compute"] - npy["time_model"]["init"]
    assert a == pytest.approx(b * npy["time_model"]["cells_per_second"] / tm["cells_per_second"], rel=1e-6)


def test_a_job_is_predicted_with_the_seconds_it_spent_before_its_plan(heat3d, tmp_path):
    rep = _run(heat3d, tmp_path, "job")
    tm = rep["time_model"]
    assert 0 < tm["startup"] < rep["seconds"]["job"], (tm["startup"], rep["seconds"])
    assert rep["predicted_job_seconds"] == pytest.approx(rep["predicted_seconds"] + tm["startup"] + tm["remove"],
                                                         rel=1e-9)
    assert rep["seconds"]["remove"] > 0, rep["seconds"]  # (measured: the scratch files removed at the end)
    # the startup runs to the loop: the scratch files made and the rings gathered into 2 MiB pages are in it, so
    # the job is its startup, its loop, its export and its removal, nothing left over
    s = rep["seconds"]
    assert rep["io_pages"]["seconds"] <= tm["startup"], (rep["io_pages"], tm)
    assert tm["startup"] + s["loop"] + s["export"] + s["remove"] == pytest.approx(s["job"], rel=0.02, abs=0.02), (
        tm["startup"], s)
    plan = _run(heat3d, tmp_path, "plan", "--plan-only")
    pt = plan["time_model"]
    assert plan["predicted_job_seconds"] == pytest.approx(plan["predicted_seconds"] + pt["startup"] + pt["remove"],
                                                          rel=1e-9)


def test_the_startup_rate_is_the_median_of_rounds_at_the_grids_width(heat3d, tmp_path):
    src = _run(heat3d, tmp_path, "rate", "--plan-only")["time_model"]["cells_per_second_source"]
    assert src.startswith("measured at startup on the plan's blocks"), src
    assert f" in a {SIZE[0]}x" in src, src  # the grid's rows: the 4M budget holds the window
    assert "the median of" in src or "over 1 round" in src or "over 2 rounds" in src, src


def test_the_startup_window_of_small_blocks_outgrows_the_cache(heat3d, tmp_path):
    """Blocks whose window of three the last-level cache would hold are measured on more of them, so that each
    block's slices come from DRAM as the engine's do: the window holds twice the cache (within the budget's cap
    and the grid), where three blocks of 8 rows x 4 planes measured 1.5x the rate the loop kept."""
    d = tmp_path / "small-blocks"
    d.mkdir()
    rep = tmp_path / "small-blocks.json"
    r = subprocess.run([str(heat3d), "--size", "256,512,64", "--steps", "8", "--mem", "64M", "--dir", str(d),
                        "--block", "8,4,4", "--plan-only", "--report", str(rep), "--quiet"],
                       capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, OMP_NUM_THREADS="2", STENCILC_CALIBRATE="0"))
    assert r.returncode == 0, r.stderr
    report = load_report(rep)
    src = report["time_model"]["cells_per_second_source"]
    m = re.search(r" in a (\d+)x(\d+)x(\d+) window", src)
    assert m, src
    # by 8, bz 4, bt 4 on rows of 2 KiB: three blocks' window is 3 x 8 + 4 + 2 = 30 rows x 10 planes x 2 arrays,
    # 1.2 MB, under any last-level cache's double; each block more adds 8 rows, up to 64 blocks or the grid
    rows, planes = int(m[2]), int(m[3])
    assert planes == 10, src
    l3 = report["hardware"]["l3_bytes"]["value"]
    window = 2048 * rows * planes * 2
    assert rows > 30 and window >= min(2 * l3, 2048 * (512 - 8) * planes * 2), (src, l3)



def test_the_scratch_files_removal_is_predicted_from_the_bytes_written_to_them(heat3d, tmp_path):
    """The job's prediction ends with the scratch files' removal: the bytes written to them (each set the
    sweeps wrote: one after one sweep of bt 4, both after two or three; the z-strip's spill files, planes of every
    row of both arrays) at the device's remove_seconds_per_gib, from --machine here so that the figure is
    exact."""
    machine = {"cores": 2, "l2": "1M", "l3": "32M", "dram": "8G", "read": "64K@8:500M 1M@8:900M",
               "write": "64K@8:300M 1M@8:700M", "remove_seconds_per_gib": 0.5}
    (tmp_path / "m.json").write_text(__import__("json").dumps(machine))
    got = {}
    for steps in (4, 8, 12):
        d = tmp_path / f"rm-{steps}"
        d.mkdir()
        rep = tmp_path / f"rm-{steps}.json"
        r = subprocess.run([str(heat3d), "--size", ",".join(map(str, SIZE)), "--steps", str(steps), "--mem", "4M",
                            "--dir", str(d), "--block", "8,12,4", "--plan-only", "--machine",
                            str(tmp_path / "m.json"), "--report", str(rep), "--quiet"],
                           capture_output=True, text=True, timeout=300, env=dict(os.environ, OMP_NUM_THREADS="2"))
        assert r.returncode == 0, r.stderr
        plan = got[steps] = load_report(rep)
        tm = plan["time_model"]
        assert tm["remove_seconds_per_gib"] == 0.5
        assert tm["remove"] == pytest.approx(tm["remove_bytes"] * 0.5 / 2**30, rel=1e-12), tm
        assert plan["predicted_job_seconds"] == pytest.approx(
            plan["predicted_seconds"] + tm["startup"] + tm["remove"], rel=1e-9)
    one, two, three = (got[k]["time_model"]["remove_bytes"] for k in (4, 8, 12))
    assert two == three, (two, three)  # both sets written from the second sweep on, nothing more after
    level = two - one  # the second set: one level of u, rows padded to the O_DIRECT alignment
    assert level >= 256 * 8 * SIZE[1] * SIZE[2] and level % (SIZE[1] * SIZE[2]) == 0, level
    assert got[4]["strip"] == "file", got[4]["strip"]  # (by 8 < ny: y-blocked, the strip spilled at 4M)
    spill = one - level
    assert 0 < spill < level and spill % (level // SIZE[2]) == 0, spill  # whole planes of ny padded rows


def _share_run(exe, tmp: Path, name: str, size, steps, mem, *extra) -> dict:
    d = tmp / f"share-{name}"
    d.mkdir()
    rep = tmp / f"share-{name}.json"
    r = subprocess.run([str(exe), "--size", ",".join(map(str, size)), "--steps", str(steps), "--mem", mem,
                        "--dir", str(d), "--report", str(rep), "--quiet", *extra],
                       capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, OMP_NUM_THREADS="2", STENCILC_CALIBRATE="0"))
    assert r.returncode == 0, r.stderr
    return load_report(rep)


def test_a_long_runs_kernels_are_measured_under_io_and_a_short_ones_are_not(heat3d, tmp_path):
    """A run whose device time the model puts at a second or more times its plan's blocks alone and under mixed
    IO on a test file in --dir, in alternating rounds: the share of the rate left is the model's
    compute_share, and the rate alone comes from the same rounds. A shorter run, and --plan-only (which
    touches no file of --dir), keep the device's share and say why."""
    long = _share_run(heat3d, tmp_path, "long", (256, 256, 128), 40, "32M", "--block", "16,256,2")
    tm = long["time_model"]
    assert tm["compute_share_source"].startswith("measured at startup on the plan's blocks under IO"), tm
    src = tm["cells_per_second_source"]
    m = re.search(r"; under mixed IO of ([\d.]+ \w+) @ (\d+) on a test file in --dir moving (\d+) MB/s, .* a share "
                  r"of ([\d.]+)$", src)
    assert m, src
    assert 2 <= int(m[2]) <= 8 and int(m[3]) > 0, src  # (at least two requests in flight, within the budget)
    assert float(m[4]) == pytest.approx(tm["compute_share"], abs=1e-3) and 0.05 <= tm["compute_share"] <= 1, tm
    # the rate alone: this measurement's rounds and those of the plan's first one (a slow or fast spell of the
    # machine at one moment makes half of them at most), each measurement three rounds at least
    pooled = re.search(r"the median of (\d+) rounds and (\d+) of the plan's first measurement, earlier;", src)
    assert pooled and int(pooled[1]) >= 3 and int(pooled[2]) >= 3, src
    assert tm["io"] + tm["npy"] >= 1, tm
    assert not list((tmp_path / "share-long").iterdir())  # (the test file and the scratch files: removed)
    short = _share_run(heat3d, tmp_path, "short", SIZE, 4, "4M")
    assert short["time_model"]["compute_share_source"] == (
        "not measured for the plan (the run's device time is under 1 s)"), short["time_model"]
    assert "under mixed IO" not in short["time_model"]["cells_per_second_source"]
    plan = _share_run(heat3d, tmp_path, "plan", (256, 256, 128), 16, "32M", "--block", "16,256,2", "--plan-only")
    assert plan["time_model"]["compute_share_source"] == (
        "not measured for the plan (--plan-only touches no file of --dir)"), plan["time_model"]
