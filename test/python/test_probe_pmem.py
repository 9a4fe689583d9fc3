"""``stencilc probe --tier pmem``: the pmem tier's own curves (docs/design/022), and runs with --tier pmem
planning with them.

Guarantees checked: the probe maps its test file with libpmem on tmpfs (no O_DIRECT needed), writes
``devices/MAJOR-MINOR.pmem.json`` beside the aio tier's file, every curve with the points of the aio
probe (each request size's figure at every depth: the copies are synchronous), ``compute_under_io`` 1 and
``io_under_compute`` 0.001 (copies never overlap the kernels); a run with ``--tier pmem`` on that device
takes its time model (and so Blk-Tune's ranking by time) from that file, a run with the aio tier does not.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from conftest import REPO_ROOT, load_report, stencilc_command
from stencilc.toolchain import runtime_tool
from test_probe import CURVES, parse_curve


@pytest.fixture
def shm_dir():
    if not Path("/dev/shm").is_dir():
        pytest.skip("no /dev/shm")
    d = Path(tempfile.mkdtemp(prefix="stn_probe_pmem_", dir="/dev/shm"))
    yield d
    shutil.rmtree(d, ignore_errors=True)


def test_probe_pmem_writes_its_own_curves_and_runs_use_them(shm_dir, tmp_path, compile_example):
    exe = runtime_tool("probe")
    cache = tmp_path / "cache"
    st = os.stat(shm_dir)
    expected = cache / "devices" / f"{os.major(st.st_dev)}-{os.minor(st.st_dev)}.pmem.json"
    env = {**os.environ, "STENCILC_CACHE_DIR": str(cache), "OMP_NUM_THREADS": "2"}
    r = subprocess.run([str(exe), "--dir", str(shm_dir), "--tier", "pmem", "--size", "16M", "--seconds", "0.01"],
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    assert f"wrote {expected} " in r.stdout, r.stdout
    assert "is_pmem false" in r.stderr, r.stderr
    assert [p.name for p in expected.parent.iterdir()] == [expected.name]  # not the aio tier's file
    assert list(shm_dir.iterdir()) == [], "the probe's test files outlived it"
    machine = json.loads(expected.read_text())
    for key, points in CURVES.items():
        curve = parse_curve(machine[key])
        assert set(curve) == points, f"{key}: {sorted(curve)}"
        for (req, _), bps in curve.items():  # one figure a request size, whatever the depth
            assert bps == curve[(req, 32)] and bps > 0, (key, req, machine[key])
    assert machine["compute_under_io"] == 1.0 and machine["io_under_compute"] == 0.001, machine

    heat = compile_example("heat3d")
    used = {}
    for tier in ("pmem", "aio"):
        report = tmp_path / f"{tier}.json"
        r = subprocess.run([str(heat), "--size", "64,64,64", "--steps", "8", "--mem", "1M", "--tier", tier,
                            "--dir", str(shm_dir), "--quiet", "--report", str(report)],
                           capture_output=True, text=True, timeout=120, env=env)
        assert r.returncode == 0, r.stderr
        used[tier] = load_report(report)
    model = used["pmem"]["time_model"]
    assert model["device_source"] == f"stencilc probe: {expected}", model["device_source"]
    for key in CURVES:
        got, probed = parse_curve(model[key]), parse_curve(machine[key])
        for point, bps in probed.items():
            assert abs(got[point] - bps) <= 0.01 * bps, f"{key} {point}: {model[key]} vs {machine[key]}"
    assert model["compute_under_io"] == 1.0 and model["io_under_compute"] == pytest.approx(0.001)
    assert ".pmem.json" not in used["aio"]["time_model"]["device_source"], used["aio"]["time_model"]


def test_probe_refuses_an_unknown_tier(tmp_path):
    cmd, env = stencilc_command()
    r = subprocess.run([*cmd, "probe", "--dir", str(tmp_path), "--tier", "dax"], capture_output=True, text=True,
                       env=env, cwd=REPO_ROOT, timeout=60)
    assert r.returncode == 2 and "--tier" in r.stderr and "'dax'" in r.stderr, r.stderr
    assert list(tmp_path.iterdir()) == []
