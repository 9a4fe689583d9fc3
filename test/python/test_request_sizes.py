"""The report's histogram of request sizes (issue 30, point 1: the size of the requests a plan makes,
which the flash bytes alone do not show).

Guarantees checked: out of core, from init expressions and without --out (so that every byte the run
moves goes through the asynchronous queue), the histogram's bytes add up exactly to the bytes the run
read and wrote, and its requests to at least one per byte moved in a bucket; a y-blocked plan (by < ny)
makes smaller requests than a plan of whole planes of the same grid (its largest bucket with reads is
below the whole planes' smallest); --plan-only's histogram is all zero; in-core reports have none.
"""

from __future__ import annotations

import os
import subprocess

import pytest
from conftest import load_report

ENV = dict(os.environ, OMP_NUM_THREADS="2", STENCILC_CALIBRATE="0")  # (the curves do not matter here)


@pytest.fixture(scope="module")
def heat3d(compile_example):
    return compile_example("heat3d")


def _report(exe, tmp, name, *args):
    d = tmp / name
    d.mkdir()
    r = subprocess.run([str(exe), "--size", "128,96,40", "--steps", "6", "--dir", str(d), "--report",
                        str(d / "r.json"), *map(str, args)], capture_output=True, text=True, env=ENV, timeout=300)
    assert r.returncode == 0, r.stderr
    return load_report(d / "r.json")


def _buckets_used(h, way):
    return [k for k, n in enumerate(h[way]["requests"]) if n > 0]


def test_the_histogram_adds_up_to_the_bytes_and_shows_the_plans_requests(heat3d, tmp_path):
    ytiles = _report(heat3d, tmp_path, "y", "--mem", "8M", "--block", "16,4,2")
    planes = _report(heat3d, tmp_path, "p", "--mem", "8M", "--block", "96,4,2")
    for rep in (ytiles, planes):
        h = rep["request_sizes"]
        assert h["bucket_bytes"] == [0] + [4096 << k for k in range(1, 12)], h["bucket_bytes"]
        assert sum(h["read"]["bytes"]) == rep["bytes_read"] > 0, (h, rep["bytes_read"])
        assert sum(h["write"]["bytes"]) == rep["bytes_written"] > 0, (h, rep["bytes_written"])
        for way in ("read", "write"):
            for k, (n, b) in enumerate(zip(h[way]["requests"], h[way]["bytes"])):
                lo, hi = h["bucket_bytes"][k], (h["bucket_bytes"][k + 1] if k + 1 < 12 else None)
                assert (n == 0) == (b == 0) and b >= n * lo and (n == 0 or hi is None or b < n * hi), (way, k, n, b)
    assert ytiles["params"]["by"] == 16 and planes["params"]["by"] == 96
    row = ytiles["size"][0] * 8  # (a 1 KiB row: no padding at 512-byte or 4 KiB alignment)
    yk = _buckets_used(ytiles["request_sizes"], "read")
    pk = _buckets_used(planes["request_sizes"], "read")
    assert max(yk) < min(pk), (yk, pk)
    b = ytiles["request_sizes"]["bucket_bytes"]
    assert any(b[k] <= 16 * row < (b[k + 1] if k + 1 < 12 else 1 << 62) for k in yk), (yk, 16 * row)


def test_plan_only_counts_nothing_and_in_core_has_no_histogram(heat3d, tmp_path):
    rep = _report(heat3d, tmp_path, "po", "--mem", "8M", "--plan-only")
    h = rep["request_sizes"]
    assert all(n == 0 for way in ("read", "write") for n in h[way]["requests"] + h[way]["bytes"]), h
    rep = _report(heat3d, tmp_path, "ic", "--mode", "incore")
    assert "request_sizes" not in rep
