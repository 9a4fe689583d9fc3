"""The benchmark runner's parts (bench/): the limit programs on a real file, the peers' checks,
the bounds and the report.  The experiments themselves are too slow for a test; the quick
profile (`make bench`) runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from reference import EXAMPLES

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from bench import model, report  # noqa: E402
from bench.common import cc  # noqa: E402


@pytest.fixture(scope="module")
def bins(tmp_path_factory):
    d = tmp_path_factory.mktemp("bench-bin")
    return {"aiobw": cc("aiobw.c", d / "aiobw", "-laio"), "triad": cc("triad.c", d / "triad"),
            "plain": cc("handwritten_heat3d.c", d / "plain", "-lm")}


def test_aiobw_moves_real_bytes_with_o_direct(bins):
    d = Path(os.environ.get("STENCILC_TEST_DIR", "/var/tmp"))
    f = d / f"stencilc-test-aiobw-{os.getpid()}"
    r = subprocess.run([str(bins["aiobw"]), str(f), str(8 << 20), str(1 << 20), "1,4"], capture_output=True, text=True)
    if r.returncode == 77:
        pytest.skip(f"{d} refuses O_DIRECT: {r.stderr.strip()}")
    assert r.returncode == 0, r.stderr
    rows = [json.loads(ln) for ln in r.stdout.splitlines()]
    assert [(x["direction"], x["qd"]) for x in rows] == [("write", 1), ("read", 1), ("write", 4), ("read", 4)]
    assert all(x["bytes"] == 8 << 20 and x["bytes_per_second"] > 0 for x in rows)
    assert not f.exists(), "the test file is removed"


def test_aiobw_refuses_unaligned_requests(bins, tmp_path):
    r = subprocess.run([str(bins["aiobw"]), str(tmp_path / "x"), str(1 << 20), "1000", "1"], capture_output=True,
                       text=True)
    assert r.returncode == 2 and "multiple of 4096" in r.stderr


def test_triad_checks_its_arithmetic(bins):
    r = subprocess.run([str(bins["triad"]), str(1 << 20), "3"], capture_output=True, text=True,
                       env=dict(os.environ, OMP_NUM_THREADS="2"))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["check"] == 0 and out["threads"] == 2
    assert out["bytes_per_second"] > 0 and out["copy_bytes_per_second"] > 0


def _u0(tmp_path, n=12):
    u0 = np.random.default_rng(7).random((n, n + 1, n + 2))
    p = tmp_path / "u0.npy"
    np.save(p, u0)
    return u0, p


def test_plain_c_peer_starts_from_the_given_grid(bins, tmp_path):
    u0, p = _u0(tmp_path)
    nz, ny, nx = u0.shape
    out = tmp_path / "out.npy"
    subprocess.run([str(bins["plain"]), str(nx), str(ny), str(nz), "3", str(out), str(p)], check=True,
                   capture_output=True)
    ref = EXAMPLES["heat3d"].run({"u": u0}, {"alpha": 0.1}, steps=3)["u"]
    assert np.max(np.abs(np.load(out) - ref)) <= 1e-12


def test_numpy_peer_agrees_with_the_reference(tmp_path):
    u0, p = _u0(tmp_path)
    out = tmp_path / "out.npy"
    subprocess.run([sys.executable, str(REPO / "bench/peers/heat3d_numpy.py"), "--init", str(p), "--steps", "3",
                    "--check", str(out)], check=True)
    ref = EXAMPLES["heat3d"].run({"u": u0}, {"alpha": 0.1}, steps=3)["u"]
    from bench.peer_runs import agrees

    ok, err = agrees(out, ref)
    assert ok and err < 1e-12
    np.save(out, ref + 1e-6)  # a wrong result is caught
    assert not agrees(out, ref)[0]


def _results():
    lim = {"triad": {"bytes_per_second": 24e9, "copy_bytes_per_second": 32e9, "threads": 2, "n": 1 << 20,
                     "repeats": 3},
           "aio": {"runs": [{"direction": "read", "qd": 1, "request_bytes": 1 << 20, "bytes": 1 << 30,
                             "bytes_per_second": 2e9},
                            {"direction": "write", "qd": 1, "request_bytes": 1 << 20, "bytes": 1 << 30,
                             "bytes_per_second": 1e9}], "best_read": 2e9, "best_write": 1e9, "request_bytes": 1 << 20},
           "in_cache": {"heat3d": {"cells_per_second": 3e9, "size": [64, 64, 64], "steps": 100}}}
    g = 1 << 30
    ooc = {"experiment": "size", "label": "heat3d ooc 8x", "stencil": "heat3d", "mode": "ooc", "ratio": 8,
           "status": "ok", "cells": 10**9, "seconds": 4.0, "total_seconds": 4.5, "spread": 0.1, "cells_per_second": 2.5e8,
           "bytes_read": 2 * g, "bytes_written": 2 * g, "predicted_bytes_read": 2 * g, "predicted_bytes_written": 2 * g,
           "params": {"by": 512, "bz": 8, "bt": 32}, "cap": 4 << 28, "peak_cgroup": 3 << 28, "problem_bytes": 8 << 28,
           "bit_identical_to_incore": True, "incore_cells_per_second": 1e9,
           "phases": {"read": 0, "write": 1, "copy": 0, "compute": 1, "wait": 2, "init": 0}}
    inc = dict(ooc, mode="incore", label="heat3d incore", cells_per_second=1e9, seconds=1.0, cap=None)
    for k in ("bytes_read", "bytes_written", "predicted_bytes_read", "predicted_bytes_written"):
        inc.pop(k)
    peer = {"experiment": "peers", "size": [256] * 3, "steps": 10, "cells": 256**3 * 10, "mode": "incore",
            "status": "ok", "spread": 0.0, "check": "agrees", "check_max_abs_error": 0.0}
    rows = [inc, ooc, dict(peer, label="stencilc", cells_per_second=1.0e9, seconds=0.17),
            dict(peer, label="Devito", cells_per_second=1.5e9, seconds=0.11, check_max_abs_error=3e-16),
            dict(peer, label="NumPy", status="not timed: differs from the reference by 0.1", check="DISAGREES")]
    return {"date": "2026-11-21T12:00:00", "command": "python -m bench --profile quick", "dir": "/var/tmp",
            "profile": {"name": "quick", "budget": 64 << 20, "plane": 256, "steps": 8, "repeat": 2, "mmap_timeout": 60,
                        "method_ratio": 8, "peer_steps": 10},
            "machine": {"cpu": "test cpu", "cores": 2, "mem_total_bytes": 1 << 34, "kernel": "6"}, "cgroups": True,
            "cgroup_note": "cgroups", "caches": "dropped", "limits": lim, "rows": rows, "seconds_total": 60}


def test_bounds_and_predicted_time():
    res = _results()
    ooc = res["rows"][1]
    assert model.dram_bound(res) == 32e9 / 16  # the better of triad and copy
    # 2 GiB read at 2 GB/s and 2 GiB written at 1 GB/s: at once, the writes decide
    assert model.io_bound(res, ooc) == pytest.approx(10**9 / (2 * 2**30 / 1e9))
    # one after the other, against 1 s of compute at the in-core rate
    assert model.predicted_seconds(res, ooc) == pytest.approx(2 * 2**30 / 2e9 + 2 * 2**30 / 1e9)
    assert model.bound(res, ooc)[1] == "IO" and model.bound(res, res["rows"][0])[1] == "DRAM"


def test_report_says_where_stencilc_is_behind(tmp_path):
    res = _results()
    path = tmp_path / "docs" / "benchmarks.md"
    figs = {"size": tmp_path / "plots" / "size.png"}
    report.write(res, figs, path)
    text = path.read_text()
    assert "Measured on 2026-11-21" in text
    assert "`python -m bench --profile quick --only size`" in text and "`python -m bench --profile quick --only peers`" in text
    assert "![cells/s against problem size / budget](../plots/size.png)" in text
    summary = text.split("## Where stencilc is behind")[1].split("## The machine's limits")[0]
    assert "behind Devito" in summary and "(0.67x)" in summary
    assert "NumPy at 256^3 was not measured" in summary
    assert "Out-of-core at 8x the budget runs at 0.25 of in-core" in summary
    assert "1 of 1 runs moved exactly the predicted bytes" in text


def test_plots_have_titles_and_labels(tmp_path):
    pytest.importorskip("matplotlib")
    from bench import plots

    res = _results()
    figs = plots.make(res, tmp_path)
    assert {"limits", "size", "peers", "model"} <= set(figs)
    assert all(p.stat().st_size > 10_000 for p in figs.values())


def test_runner_rejects_an_unknown_experiment():
    r = subprocess.run([sys.executable, "-m", "bench", "--only", "size,nope"], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 2 and "unknown experiment nope" in r.stderr


def test_runner_redraws_from_saved_results(tmp_path):
    pytest.importorskip("matplotlib")
    saved = tmp_path / "results.json"
    saved.write_text(json.dumps(_results()))
    r = subprocess.run([sys.executable, "-m", "bench", "--from-results", str(saved), "--out", str(tmp_path / "o")],
                       cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "o" / "benchmarks.md").read_text()
    assert "![cells/s against problem size / budget](size.png)" in text and (tmp_path / "o" / "size.png").exists()


def test_the_long_runs_give_loop_and_whole_job_ratios_side_by_side(tmp_path):
    """Issue 30: the long runs' table sets each pair's ooc / in-core ratio by the loop beside the one by the
    whole job (seconds.job), and loop_stats keeps the runs' median job seconds."""
    from bench import experiments

    res = _results()
    ooc, inc = (dict(r, experiment="longrun", planes=[1024, 512]) for r in (res["rows"][1], res["rows"][0]))
    ooc.update(pair_ratios=[0.71, 0.94], pair_job_ratios=[0.93, 1.12])
    for r in (ooc, inc):
        r.update(size=[1024, 512, 512], budget=128 << 20)
    res["rows"] = [inc, ooc]
    res["profile"].update(long_level=2 << 30, long_steps=128)
    path = tmp_path / "benchmarks.md"
    report.write(res, {}, path)
    text = path.read_text()
    assert "| each pair | each pair, whole job |" in text, text
    assert "| 0.71, 0.94 | 0.93, 1.12 |" in text, text
    row = {"cells": 100, "runs": [{"loop_seconds": 2.0, "job_seconds": 5.0}, {"loop_seconds": 3.0, "job_seconds": 4.0},
                                  {"loop_seconds": 4.0, "job_seconds": 9.0}]}
    experiments.loop_stats(row)
    assert row["seconds"] == 3.0 and row["job_seconds"] == 5.0
