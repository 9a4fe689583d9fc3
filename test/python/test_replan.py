"""Online refinement (issue 30): after each sweep the kernels' rate it measured and the device's curves
scaled to fit its time replace the assumed figures, and Blk-Tune re-plans the remaining sweeps at the
sweep boundary when another plan is predicted at least 10% faster (runtime/src/engines/ooc/ooc_refine.c).

A re-plan is forced by starting from a deliberately bad plan: y-blocked tiles of 16 rows one step deep
(12 sweeps of 8 KiB requests), which the runtime re-plans only because STENCILC_REPLAN=force lets it
replace blocks given by hand (it never replaces --block otherwise). Guarantees checked:
* the forced run re-plans once, after its first sweep, to a plan of fewer sweeps, each re-plan listed
  in the report with its measured figures and a new plan predicted at most 0.9x the old one for the
  steps left, and a line on stderr;
* its --out is bit-identical to the in-core run's, with the z-strip in DRAM and in a file;
* the bytes it read and wrote equal the IO model's prediction (the sum of the sweeps of each plan);
* without STENCILC_REPLAN=force the blocks given by hand are kept (no re-plan, the same bits), and
  STENCILC_REPLAN=0 keeps even forced ones.
"""

from __future__ import annotations

import os
import subprocess

import pytest
from conftest import load_report

SIZE = "64,48,40"
STEPS = 12


@pytest.fixture(scope="module")
def heat3d(compile_example):
    return compile_example("heat3d")


@pytest.fixture(scope="module")
def in_core(heat3d, tmp_path_factory):
    d = tmp_path_factory.mktemp("incore")
    r = subprocess.run([str(heat3d), "--size", SIZE, "--steps", str(STEPS), "--mode", "incore", "--out",
                        f"u={d / 'u.npy'}"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return (d / "u.npy").read_bytes()


def _run(heat3d, tmp, strip, replan):
    d = tmp / f"d-{strip}-{replan}"
    d.mkdir()
    env = dict(os.environ, OMP_NUM_THREADS="2", STENCILC_CALIBRATE="0")
    if replan is not None:
        env["STENCILC_REPLAN"] = replan
    r = subprocess.run([str(heat3d), "--size", SIZE, "--steps", str(STEPS), "--mem", "8M", "--dir", str(d),
                        "--block", "16,4,1", "--strip", strip, "--out", f"u={d / 'u.npy'}", "--report",
                        str(d / "r.json")], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr
    return load_report(d / "r.json"), (d / "u.npy").read_bytes(), r.stderr


@pytest.mark.parametrize("strip", ["dram", "file"])
def test_a_forced_replan_keeps_the_bits_and_the_bytes(heat3d, in_core, tmp_path, strip):
    rep, out, err = _run(heat3d, tmp_path, strip, "force")
    assert out == in_core
    assert rep["bytes_read"] == rep["predicted_bytes_read"], rep
    assert rep["bytes_written"] == rep["predicted_bytes_written"], rep
    plans = rep["replans"]
    assert len(plans) == 1, plans
    p = plans[0]
    assert p["step"] == 1 and p["sweep"] == 1, p
    assert p["from"] == {"by": 16, "bz": 4, "bt": 1, "strip": strip}, p
    assert p["to"]["bt"] > 1 and p["to"] != p["from"], p
    assert p["predicted_seconds_after"] <= 0.9 * p["predicted_seconds_before"], p
    assert p["cells_per_second"] > 0 and p["device_scale"] > 0, p
    # the report's plan is the one the run started with; the plan line said so
    assert rep["params"]["bt"] == 1 and rep["strip"] == strip
    assert "re-plan after sweep 1 (step 1): blocks by 16 bz 4 bt 1 -> " in err, err


def test_blocks_given_by_hand_are_kept_and_replan_0_keeps_them_too(heat3d, in_core, tmp_path):
    for replan in (None, "0"):
        rep, out, err = _run(heat3d, tmp_path, "dram", replan)
        assert rep["replans"] == [] and "re-plan" not in err, (replan, rep["replans"])
        assert out == in_core
        assert rep["bytes_read"] == rep["predicted_bytes_read"]


@pytest.fixture(scope="module")
def faultshim(tmp_path_factory):
    shim = tmp_path_factory.mktemp("shim") / "faultshim.so"
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", str(shim), os.path.join(repo, "runtime/tests/faultshim.c"),
                    "-ldl"], check=True)
    return shim


def test_a_run_stopped_after_a_replan_resumes_with_the_new_blocks(heat3d, tmp_path, faultshim):
    """The state file saves the blocks of the plan that wrote it (after a re-plan, the new ones, whose
    sweeps before had another bt); --resume goes on with them: the same bits as in-core, the bytes as
    predicted (the sweeps left counted from the steps done, not from the sweeps x bt)."""
    d = tmp_path / "d"
    d.mkdir()
    ref = tmp_path / "ref.npy"
    subprocess.run([str(heat3d), "--size", SIZE, "--steps", "40", "--mode", "incore", "--out", f"u={ref}"],
                   check=True, capture_output=True, timeout=300)
    env = dict(os.environ, OMP_NUM_THREADS="2", STENCILC_CALIBRATE="0", STENCILC_REPLAN="force")
    common = ["--size", SIZE, "--steps", "40", "--mem", "1M", "--dir", str(d), "--out", f"u={tmp_path / 'u.npy'}"]
    # the third state commit fails: sweep 1 (bt 1), then sweeps of the new plan's bt (1 MiB: at most 13)
    r = subprocess.run([str(heat3d), *common, "--block", "16,4,1", "--strip", "file"], capture_output=True,
                       text=True, timeout=600, env=dict(env, LD_PRELOAD=str(faultshim), STN_FAULT="rename:3:EIO"))
    assert r.returncode == 1 and "re-plan after sweep 1" in r.stderr, r.stderr
    state = (d / "heat3d.ooc-state").read_text()
    assert "sweeps_done 2" in state and "plan 16 4 1" not in state, state
    r = subprocess.run([str(heat3d), *common, "--resume", "--report", str(tmp_path / "r.json")],
                       capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 0, r.stderr
    rep = load_report(tmp_path / "r.json")
    assert rep["tuner"] == "saved" and rep["params"]["bt"] > 1, rep["params"]
    assert rep["bytes_read"] == rep["predicted_bytes_read"] and rep["bytes_written"] == rep["predicted_bytes_written"]
    assert (tmp_path / "u.npy").read_bytes() == ref.read_bytes()
