"""A time model right without a manual probe (issue 30): on the first use of a device with no curves
cached for it, a run calibrates the device itself (stn_probe_calibrate: a reduced probe, a few seconds)
and caches the curves where ``stencilc probe`` puts its file ($STENCILC_CACHE_DIR/devices/MAJ-MIN.json);
the report and the plan line say which curves the model used.

Guarantees checked (each run's cache a fresh temporary directory through STENCILC_CACHE_DIR):
* the first run calibrates (``device_curves`` calibrated, its seconds bounded, the plan line says so)
  and leaves a machine file marked as a calibration, with read, write, mixed and mixed_new curves and
  the shares under compute at 64K and at 1M, which the report gives;
* the second run reuses it (cached, no calibration, the file untouched), and plans and predicts the
  same as from the same curves;
* a file written by ``stencilc probe`` (a description of its own) is taken as a probe's;
* STENCILC_CALIBRATE=0 keeps the built-in default, and the report and the plan line say so; nothing is
  written to the cache;
* --machine's curves are the machine's, and nothing is calibrated;
* the file records the device it measured and when (``device``, ``measured_at``): curves measured on
  another device at the same numbers, or a run's calibration older than 30 days, are stale: the run says
  so and calibrates again (a probe's file with the same identity is kept at any age); with calibration
  off the stale curves are used, with the warning; a file without the keys (older runtimes) is used;
* the calibration times the removal of its written test file (``remove_seconds_per_gib``), and the job's
  prediction adds the scratch files' removal at that rate; a run's calibration without it is stale (measured
  again), a probe's file without it is used, with no removal predicted.
Skipped where --dir's file system refuses O_DIRECT (the calibration fails there and the default is
used, which the report says).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import load_report

REPO = Path(__file__).resolve().parents[2]
CREST4 = REPO / "examples" / "machines" / "crest4.json"


@pytest.fixture(scope="module")
def heat3d(compile_example):
    return compile_example("heat3d")


def _run(exe, tmp: Path, cache: Path, *extra, env_extra=None, name="r.json"):
    env = dict(os.environ, OMP_NUM_THREADS="2", STENCILC_CACHE_DIR=str(cache), **(env_extra or {}))
    d = tmp / "scratch"
    d.mkdir(exist_ok=True)
    args = ["--size", "64,48,40", "--steps", "6", "--mem", "4M", "--dir", str(d), "--report", str(tmp / name),
            *extra]
    r = subprocess.run([str(exe), *args], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    return load_report(tmp / name), r.stderr


def _device_file(cache: Path, d: Path) -> Path:
    st = os.stat(d)
    return cache / "devices" / f"{os.major(st.st_dev)}-{os.minor(st.st_dev)}.json"


def test_the_first_run_calibrates_and_the_second_reuses_it(heat3d, tmp_path):
    cache = tmp_path / "cache"
    rep, err = _run(heat3d, tmp_path, cache)
    tm = rep["time_model"]
    if tm["device_curves"] == "default" and "could not be calibrated" in tm["device_source"]:
        pytest.skip(f"no calibration on this file system: {tm['device_source']}")
    assert tm["device_curves"] == "calibrated", tm["device_source"]
    assert 0 < tm["calibration_seconds"] < 20, tm  # bounded: a few seconds (a loaded machine: more)
    assert "(device curves: calibrated now, " in err, err
    # the job's prediction holds the seconds spent before the plan: the calibration, and less than the job
    assert tm["calibration_seconds"] <= tm["startup"] < rep["seconds"]["job"], (tm, rep["seconds"])
    assert rep["predicted_job_seconds"] == pytest.approx(rep["predicted_seconds"] + tm["startup"] + tm["remove"],
                                                         rel=1e-9)
    f = _device_file(cache, tmp_path / "scratch")
    machine = json.loads(f.read_text())
    assert machine["description"].startswith("stencilc calibration:"), machine["description"]
    for key in ("read", "write", "mixed", "mixed_new"):
        assert machine[key] and tm[key], key
        assert len(machine[key].split()) == (2 if key == "mixed_new" else 4), machine[key]
    assert str(f) in tm["device_source"]
    for key in ("compute_under_io", "io_under_compute", "compute_under_io_1m", "io_under_compute_1m"):
        assert 0.05 <= machine[key] <= 1 and tm[key] == pytest.approx(machine[key], abs=1e-3), key  # 64K and 1M
    # the removal of its written test file, per GiB: what the run's scratch files will cost at the end
    assert 0 < machine["remove_seconds_per_gib"] < 60 and tm["remove_seconds_per_gib"] == pytest.approx(
        machine["remove_seconds_per_gib"], rel=1e-5), machine
    assert tm["remove"] == pytest.approx(tm["remove_bytes"] * tm["remove_seconds_per_gib"] / 2**30, rel=1e-9), tm
    before = f.stat().st_mtime_ns

    rep2, err2 = _run(heat3d, tmp_path, cache, name="r2.json")
    tm2 = rep2["time_model"]
    assert tm2["device_curves"] == "cached" and "calibration_seconds" not in tm2, tm2
    assert "(device curves: cached)" in err2, err2
    assert f.stat().st_mtime_ns == before and str(f) in tm2["device_source"]
    for key in ("read", "write", "mixed", "mixed_new"):  # the same curves, read back from the cache
        assert tm2[key] == tm[key], key
    assert tm2["compute_under_io"] == pytest.approx(tm["compute_under_io"], abs=1e-3)


def test_a_probe_file_is_taken_as_a_probes(heat3d, tmp_path):
    cache, f, machine = _calibrated(heat3d, tmp_path)
    machine["description"] = "stencilc probe on 2026-11-27: written by hand for this test"
    f.write_text(json.dumps(machine))
    rep2, err2 = _run(heat3d, tmp_path, cache, name="r2.json")
    assert rep2["time_model"]["device_curves"] == "probe", rep2["time_model"]["device_source"]
    assert "(device curves: probe)" in err2


def test_calibration_off_keeps_the_default_and_says_so(heat3d, tmp_path):
    cache = tmp_path / "cache"
    rep, err = _run(heat3d, tmp_path, cache, env_extra={"STENCILC_CALIBRATE": "0"})
    tm = rep["time_model"]
    assert tm["device_curves"] == "default" and "STENCILC_CALIBRATE=0" in tm["device_source"], tm
    assert "(device curves: default)" in err, err
    assert not (cache / "devices").exists()


def test_a_machine_file_is_not_calibrated(heat3d, tmp_path):
    cache = tmp_path / "cache"
    rep, _ = _run(heat3d, tmp_path, cache, "--plan-only", "--machine", CREST4)
    tm = rep["time_model"]
    assert tm["device_curves"] == "default" and "--machine file gives no" in tm["device_source"], tm
    machine = json.loads(CREST4.read_text())
    machine.update(read="64K@8:500M 1M@8:900M", write="64K@8:300M 1M@8:700M")
    (tmp_path / "m.json").write_text(json.dumps(machine))
    rep, _ = _run(heat3d, tmp_path, cache, "--plan-only", "--machine", tmp_path / "m.json", name="r2.json")
    tm = rep["time_model"]
    assert tm["device_curves"] == "machine" and tm["read"] == "64K@8:500M 1M@8:900M", tm
    assert not (cache / "devices").exists()


def _calibrated(heat3d, tmp_path):
    cache = tmp_path / "cache"
    rep, _ = _run(heat3d, tmp_path, cache)
    if rep["time_model"]["device_curves"] != "calibrated":
        pytest.skip(f"no calibration on this file system: {rep['time_model']['device_source']}")
    f = _device_file(cache, tmp_path / "scratch")
    return cache, f, json.loads(f.read_text())


def test_the_file_says_which_device_it_measured_and_when(heat3d, tmp_path):
    import time

    _, f, machine = _calibrated(heat3d, tmp_path)
    st = os.stat(tmp_path / "scratch")
    assert machine["device"].startswith(f"{os.major(st.st_dev)}:{os.minor(st.st_dev)} "), machine["device"]
    assert ", fs " in machine["device"] and abs(machine["measured_at"] - time.time()) < 600, machine


@pytest.mark.parametrize("change", ["another device", "40 days old", "no keys", "old probe", "no removal"])
def test_stale_curves_are_measured_again(heat3d, tmp_path, change):
    import time

    cache, f, machine = _calibrated(heat3d, tmp_path)
    if change == "another device":
        machine["device"] = "8:16 1000 sectors, serial OTHER, fs ef53"
    elif change == "40 days old":
        machine["measured_at"] = int(time.time()) - 40 * 86400
    elif change == "no keys":  # (a file from before the keys: taken as it is)
        del machine["device"], machine["measured_at"]
    elif change == "no removal":  # a calibration from before runs measured the removal of a file
        del machine["remove_seconds_per_gib"]
    else:  # a probe's file is the user's measurement: kept at any age, and without the removal's key
        machine["measured_at"] = int(time.time()) - 400 * 86400
        machine["description"] = "stencilc probe on 2025-10-23: written by hand for this test"
        del machine["remove_seconds_per_gib"]
    f.write_text(json.dumps(machine))
    rep, err = _run(heat3d, tmp_path, cache, name="r2.json")
    tm = rep["time_model"]
    if change in ("no keys", "old probe"):
        assert tm["device_curves"] == ("cached" if change == "no keys" else "probe"), tm["device_source"]
        assert "stale" not in err, err
        if change == "old probe":  # (not measured: no removal predicted)
            assert tm["remove"] == 0 and "remove_seconds_per_gib" not in tm, tm
        return
    why = {"another device": "measured on \"8:16 1000 sectors", "40 days old": "calibrated 40 days ago",
           "no removal": "calibrated before runs measured the removal of a file"}[change]
    assert f"are stale ({why}" in err and "the run calibrates the device again" in err, err
    assert tm["device_curves"] == "calibrated", tm["device_source"]
    again = json.loads(f.read_text())
    assert again["device"] != "8:16 1000 sectors, serial OTHER, fs ef53" and time.time() - again["measured_at"] < 600
    assert again["remove_seconds_per_gib"] > 0, again


def test_stale_curves_without_a_calibration_are_used_with_a_warning(heat3d, tmp_path):
    cache, f, machine = _calibrated(heat3d, tmp_path)
    machine["device"] = "8:16 1000 sectors, serial OTHER, fs ef53"
    f.write_text(json.dumps(machine))
    rep, err = _run(heat3d, tmp_path, cache, env_extra={"STENCILC_CALIBRATE": "0"}, name="r2.json")
    assert rep["time_model"]["device_curves"] == "cached", rep["time_model"]["device_source"]
    assert "are stale (measured on" in err and "used as they are (STENCILC_CALIBRATE=0)" in err, err
    assert any("stale" in w for w in rep["warnings"]), rep["warnings"]
