"""The shares under compute at the plan's request size (issue 30, the time model without a manual probe).

On a virtual machine every request costs the guest CPU time, so the same bytes moved in larger requests
slow the kernels less: ``stencilc probe`` and a run's calibration measure ``compute_under_io`` and
``io_under_compute`` under mixed requests of 64K and of 1M (``..._1m``), and the time model reads both at the
plan's request size (stn_dev_compute_share: the 64K figure up to 64K, the 1M figure from 1M, linear in
log2 of the size between; a file without the 1M keys: the 64K figure at every size).

Guarantees checked, with --plan-only and a described machine (its rate given, so that the prediction is
deterministic): a plan of 64 KiB requests (the plain layout) is predicted as if only the 64K shares were
given; a plan of 1 MiB requests or more (the chunked layout) as if the 1M shares were the only ones; the
report lists the four shares it used.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import load_report

CURVES = {"device_block": 512, "cells_per_second": 1e9,
          "read": "64K@8:300M 1M@8:900M 64K@32:400M 1M@32:1000M",
          "write": "64K@8:200M 1M@8:700M 64K@32:300M 1M@32:800M",
          "mixed": "64K@32:300M 1M@32:800M"}
SMALL = {"compute_under_io": 0.3, "io_under_compute": 0.5}
BIG = {"compute_under_io_1m": 0.9, "io_under_compute_1m": 0.8}


@pytest.fixture(scope="module")
def heat3d(compile_example):
    return compile_example("heat3d")


def _predict(exe, tmp: Path, layout: str, shares: dict) -> dict:
    name = f"{layout}-{'-'.join(f'{k}{v}' for k, v in shares.items())}"
    machine = tmp / f"{name}.json"
    machine.write_text(json.dumps({"cores": 2, "l2": "512K", "dram": "8G", **CURVES, **shares}))
    report = tmp / f"{name}.report.json"
    r = subprocess.run([str(exe), "--size", "1024,64,64", "--steps", "16", "--mem", "32M", "--block", "8,32,8",
                        "--strip", "dram", "--plan-only", "--machine", str(machine), "--report", str(report),
                        "--quiet"], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, OMP_NUM_THREADS="2", STENCILC_SCRATCH_LAYOUT=layout))
    assert r.returncode == 0, r.stderr
    return load_report(report)


def test_a_plan_is_weighed_with_the_shares_at_its_request_size(heat3d, tmp_path):
    both = {**SMALL, **BIG}
    plain = _predict(heat3d, tmp_path, "plain", both)
    assert plain["time_model"]["request_bytes"] == 64 << 10, plain["time_model"]
    chunked = _predict(heat3d, tmp_path, "chunked", both)
    assert chunked["time_model"]["request_bytes"] >= 1 << 20, chunked["time_model"]
    for rep in (plain, chunked):  # the report lists the four shares the model had
        tm = rep["time_model"]
        assert (tm["compute_under_io"], tm["io_under_compute"]) == (0.3, 0.5), tm
        assert (tm["compute_under_io_1m"], tm["io_under_compute_1m"]) == (0.9, 0.8), tm
    # 64 KiB requests: the 64K shares alone give the same prediction, the 1M ones another
    assert plain["predicted_seconds"] == pytest.approx(
        _predict(heat3d, tmp_path, "plain", SMALL)["predicted_seconds"], rel=1e-12)
    one_m = {"compute_under_io": BIG["compute_under_io_1m"], "io_under_compute": BIG["io_under_compute_1m"]}
    assert plain["predicted_seconds"] != pytest.approx(
        _predict(heat3d, tmp_path, "plain", one_m)["predicted_seconds"], rel=1e-3)
    # requests of 1 MiB or more: the 1M shares, as if they were the only ones
    assert chunked["predicted_seconds"] == pytest.approx(
        _predict(heat3d, tmp_path, "chunked", one_m)["predicted_seconds"], rel=1e-12)
    assert chunked["predicted_seconds"] < _predict(heat3d, tmp_path, "chunked", SMALL)["predicted_seconds"]
