"""``stencilc probe``: the device's bandwidth curves, measured and cached as a machine file.

Expects: a C compiler, libaio and hwloc (as every build), and a real file system under
``$STENCILC_PROBE_DIR``, else /var/tmp (O_DIRECT; tmpfs is refused, so the tests skip there).
Guarantees checked: a quick probe (``--size 64M --seconds 0.05``, a few seconds) exits 0 and writes
a complete machine file (docs/machines.md) whose ``read`` and ``write`` curves hold the 12 points
REQUEST@DEPTH:BANDWIDTH (64K, 256K, 1M, 4M at depths 1, 8, 32), ``mixed`` the 8 at depths 8 and 32,
``mixed_new`` the 4 at depth 32, all with plausible bandwidths -- below 100 GiB/s, which a probe
reading never-written extents (zeros from the file system, not the device) would exceed -- and
``compute_under_io`` a number in [0.05, 1]; the file loads in a generated program
(``--plan-only --machine``), whose time model then uses its figures; the test files are gone
afterwards; without ``-o`` the file goes to the cache path a run looks in; a missing directory is
exit 1 naming it, a bad ``--size`` exit 2.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import REPO_ROOT, load_report, stencilc_command

sys.path.insert(0, str(REPO_ROOT / "compiler"))
from stencilc.toolchain import runtime_tool  # noqa: E402

PROBE_TIMEOUT_S = 300  # the first call builds the runtime and the tool
REQUESTS = {"64K", "256K", "1M", "4M"}
DEPTHS = {1, 8, 32}
CURVES = {  # the points each curve of a probed machine file holds
    "read": {(r, d) for r in REQUESTS for d in DEPTHS},
    "write": {(r, d) for r in REQUESTS for d in DEPTHS},
    "mixed": {(r, d) for r in REQUESTS for d in (8, 32)},
    "mixed_new": {(r, 32) for r in REQUESTS},
}
NUMBER = r"[0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?"
POINT = re.compile(rf"^({NUMBER})([KMGT]?)@([0-9]+):({NUMBER})([KMGT]?)$")
UNIT = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
KEYS = {"name", "description", "cores", "sockets", "l2", "l3", "dram", "device_block", "read", "write", "mixed",
        "mixed_new", "compute_under_io", "io_under_compute"}


def run_stencilc(args: list[str], timeout: float = PROBE_TIMEOUT_S, env_extra: dict[str, str] | None = None):
    cmd, env = stencilc_command()
    env.update(env_extra or {})
    r = subprocess.run([*cmd, *map(str, args)], capture_output=True, text=True, timeout=timeout, env=env,
                       cwd=REPO_ROOT)
    return r.returncode, r.stdout, r.stderr


@pytest.fixture
def probe_dir():
    """A fresh directory on a real file system (removed afterwards)."""
    base = os.environ.get("STENCILC_PROBE_DIR") or "/var/tmp"
    if not os.access(base, os.W_OK):
        pytest.skip(f"{base} is not writable")
    d = Path(tempfile.mkdtemp(prefix="stn_probe_", dir=base))
    yield d
    shutil.rmtree(d, ignore_errors=True)


def parse_curve(text: str) -> dict[tuple[str, int], float]:
    """{(request, depth): bytes per second}; fails the test on any malformed point."""
    points = {}
    for tok in text.split():
        m = POINT.match(tok)
        assert m, f"point '{tok}' is not REQUEST@DEPTH:BANDWIDTH in {text!r}"
        req = f"{int(float(m.group(1)))}{m.group(2)}"
        key = (req, int(m.group(3)))
        assert key not in points, f"two points for {key} in {text!r}"
        points[key] = float(m.group(4)) * UNIT[m.group(5)]
    return points


def probe_or_skip(args: list[str], **kw) -> tuple[int, str, str]:
    rc, out, err = run_stencilc(["probe", *args], **kw)
    if rc != 0 and ("refuses O_DIRECT" in err or "in memory (tmpfs" in err):
        pytest.skip(f"no O_DIRECT here: {err.strip()}")
    return rc, out, err


def test_probe_writes_a_complete_machine_file(probe_dir, tmp_path, compile_example, run_program):
    out_file = tmp_path / "machine.json"
    rc, out, err = probe_or_skip(["--dir", probe_dir, "--size", "64M", "--seconds", "0.05", "-o", out_file])
    assert rc == 0, f"exit {rc}\n{out}\n{err}"
    assert f"wrote {out_file}" in out
    machine = json.loads(out_file.read_text())
    assert KEYS - {"l3"} <= set(machine), f"missing keys: {KEYS - set(machine)}"
    assert str(probe_dir) in machine["name"] and str(probe_dir) in machine["description"]
    for key in ("cores", "sockets", "l2", "dram", "device_block"):
        assert isinstance(machine[key], int) and machine[key] > 0, (key, machine[key])
    assert machine["device_block"] & (machine["device_block"] - 1) == 0
    for key, points in CURVES.items():
        curve = parse_curve(machine[key])
        assert set(curve) == points, f"{key}: {sorted(curve)}"
        for point, bps in curve.items():
            # above 100 GiB/s is no device: reads of never-written extents (zeros, no IO) or the page cache
            assert 0 < bps < 100 * (1 << 30), f"{key} {point}: {bps / (1 << 20):.0f} MiB/s"
    share, io_share = machine["compute_under_io"], machine["io_under_compute"]
    share_1m, io_share_1m = machine["compute_under_io_1m"], machine["io_under_compute_1m"]
    for v in (share, io_share, share_1m, io_share_1m):  # measured at 64K and at 1M
        assert isinstance(v, float) and 0.05 <= v <= 1, machine
    # the test files never outlive the probe
    assert list(probe_dir.iterdir()) == [], f"left behind: {list(probe_dir.iterdir())}"
    # the table names every point: read and write everywhere, mixed at depths 8 and 32, mixed_new at 32
    rows = re.findall(r"^\s+(\d+[KM])\s+(\d+)\s+[0-9.]+\s+[0-9.]+\s+([0-9.]+|-)\s+([0-9.]+|-)$", out, re.M)
    assert len(rows) == 12, out
    assert {(r, int(d)) for r, d, m, _ in rows if m != "-"} == CURVES["mixed"], out
    assert {(r, int(d)) for r, d, _, n in rows if n != "-"} == CURVES["mixed_new"], out
    assert f"compute under IO: {share:.3f} of the kernels' rate alone (64K @ 32), {share_1m:.3f} (1M @ 32)" in out, out
    assert f"IO under compute: {io_share:.3f} of the mixed bandwidth alone (64K @ 32), {io_share_1m:.3f}" in out, out
    for req in ("64K", "1024K"):
        assert re.search(rf"compute +[0-9.e+]+ cells/s alone, [0-9.e+]+ under mixed IO of {req} @ 32", err), err

    # a generated program plans with the file, and its time model takes every figure from it
    exe = compile_example("heat3d")
    report = tmp_path / "plan.json"
    rc, pout, perr = run_program(exe, ["--size", "2048,2048,2048", "--steps", "50", "--plan-only", "--machine",
                                       out_file, "--quiet", "--report", report])
    assert rc == 0, f"exit {rc}\n{pout}\n{perr}"
    model = load_report(report)["time_model"]
    assert model["device_source"] == str(out_file), model["device_source"]
    for key, points in CURVES.items():
        used, probed = parse_curve(model[key]), parse_curve(machine[key])
        assert set(used) == points, f"{key}: {model[key]}"
        for point, bps in probed.items():
            assert abs(used[point] - bps) <= 0.01 * bps, f"{key} {point}: {model[key]} vs {machine[key]}"
    assert model["compute_under_io"] == pytest.approx(share), model
    assert model["io_under_compute"] == pytest.approx(io_share), model
    # a described machine's memory is not this one's: the strip copies are not modelled without its figure
    assert model["copy_bytes_per_second"] == 0 and "copy_bytes_per_second" in model["copy_source"], model


def test_probe_defaults_to_the_cache_path(probe_dir, tmp_path):
    """Without -o the machine file goes to $STENCILC_CACHE_DIR/devices/MAJOR-MINOR.json (created);
    the tool is run directly so that the new cache does not rebuild the runtime."""
    exe = runtime_tool("probe")
    cache = tmp_path / "cache"
    st = os.stat(probe_dir)
    expected = cache / "devices" / f"{os.major(st.st_dev)}-{os.minor(st.st_dev)}.json"
    r = subprocess.run([str(exe), "--dir", str(probe_dir), "--size", "16M", "--seconds", "0.01", "--quiet"],
                       capture_output=True, text=True, timeout=PROBE_TIMEOUT_S,
                       env={**os.environ, "STENCILC_CACHE_DIR": str(cache)})
    if r.returncode != 0 and "O_DIRECT" in r.stderr:
        pytest.skip(r.stderr.strip())
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"wrote {expected} "), r.stdout
    machine = json.loads(expected.read_text())
    assert machine["read"] and machine["mixed"] and machine["mixed_new"] and 0 < machine["compute_under_io"] <= 1
    assert 0 < machine["io_under_compute"] <= 1
    assert [p.name for p in expected.parent.iterdir()] == [expected.name]  # no temporary left


def test_missing_dir_is_exit_1_naming_it(tmp_path):
    missing = tmp_path / "no-such-dir"
    rc, out, err = run_stencilc(["probe", "--dir", missing, "-o", tmp_path / "m.json"])
    assert rc == 1, (out, err)
    assert err.startswith("stencilc probe: error: ") and str(missing) in err, err
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("size", ["12X", "1M", "-5G"])
def test_bad_size_is_exit_2(probe_dir, size):
    rc, out, err = run_stencilc(["probe", "--dir", probe_dir, f"--size={size}"])
    assert rc == 2, (out, err)
    assert "stencilc probe: error: --size" in err and size in err, err
    assert list(probe_dir.iterdir()) == []


def test_bad_seconds_and_missing_dir_option_are_exit_2(probe_dir):
    rc, _, err = run_stencilc(["probe", "--dir", probe_dir, "--seconds", "0"])
    assert rc == 2 and "--seconds 0" in err, err
    rc, _, err = run_stencilc(["probe"])
    assert rc == 2 and "--dir" in err, err
