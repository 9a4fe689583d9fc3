"""`make demo` shows what stencilc is for (issue 28, point 16): a grid well beyond its DRAM budget,
several sweeps that read the state back, and the bytes the IO model predicts, said in its summary.

The commands are `make -n demo`'s, run as the Makefile writes them (the compiler is this tree's,
in place of the virtual environment's), with the build folder in a temporary directory.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import stencilc_command

REPO = Path(__file__).resolve().parents[2]
SIZE_SUFFIX = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def demo_commands(build: Path) -> list[list[str]]:
    """``make -n demo``'s commands (setup and echo left out), each split into its words."""
    out = subprocess.run(["make", "-s", "-n", "demo", f"BUILD={build}"], cwd=REPO, capture_output=True, text=True,
                         check=True).stdout
    cmds = [shlex.split(line) for line in out.replace("\\\n", " ").splitlines() if line.strip()]
    return [c for c in cmds if c[0] not in ("echo", "tools/setup.sh")]


def test_the_demo_runs_a_grid_eight_times_its_budget_in_several_sweeps_with_the_models_bytes(tmp_path):
    cmds = demo_commands(tmp_path)
    compile_, run, summary = (next(c for c in cmds if c[0].endswith(k)) for k in ("stencilc", "heat3d", "python"))
    arg = dict(zip(run[1::2], run[2::2]))
    cells = 1
    for n in arg["--size"].split(","):
        cells *= int(n)
    mem = int(arg["--mem"][:-1]) * SIZE_SUFFIX[arg["--mem"][-1]]
    assert cells * 8 >= 8 * mem, f"the grid ({cells * 8} bytes) is not 8 times the budget ({mem})"

    (tmp_path / "demo").mkdir()
    cmd, env = stencilc_command()
    r = subprocess.run([*cmd, *compile_[1:]], cwd=REPO, capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr
    r = subprocess.run(run, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([sys.executable, *summary[1:]], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    sweeps = re.search(r"(\d+) sweeps of up to (\d+) steps, each after the first reading back", r.stdout)
    assert sweeps and int(sweeps.group(1)) >= 2, r.stdout
    assert "(8.0x smaller)" in r.stdout and "predicted == counted, byte for byte" in r.stdout, r.stdout
    # the memory the budget bounds, the engine's buffers, beside the process's peak PSS (the ring's
    # double-mapped pages once) and what the process held before the engine opened, said apart
    rep = json.loads(Path(arg["--report"]).read_text())
    assert rep["engine_bytes"] <= mem and 0 < rep["pss_at_open_bytes"] < rep["peak_pss_bytes"], rep
    assert rep["peak_pss_bytes"] - rep["pss_at_open_bytes"] >= rep["engine_bytes"] * 0.9, rep  # (the rings touched)
    assert re.search(r"the engine's buffers [\d.]+ MiB, budget 16.0 MiB \(--mem\); the process's peak [\d.]+ MiB "
                     r"PSS, [\d.]+ MiB of it before the engine opened", r.stdout), r.stdout


def test_the_summary_says_when_the_bytes_are_not_the_models(tmp_path):
    """The summary's claim can fail: a report whose counted bytes differ from the model's exits 1."""
    sys.path.insert(0, str(REPO / "tools"))
    import summarize_report

    r = {"bytes_read": 10, "bytes_written": 20, "predicted_bytes_read": 10, "predicted_bytes_written": 20}
    assert summarize_report.io_line(r)[1]
    text, exact = summarize_report.io_line(dict(r, bytes_written=21))
    assert not exact and "NOT the IO model's prediction" in text


@pytest.mark.parametrize("target", ["demo"])
def test_make_help_says_what_the_demo_shows(target):
    out = subprocess.run(["make", "-s", "help"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    assert re.search(rf"make {target}\s+.*out of core: a 128 MiB grid in a 16 MiB DRAM budget", out), out


def test_after_the_engine_opens_the_process_grows_by_its_buffers_alone(compile_example, run_program, tmp_path):
    """The budget bounds the engine's buffers; Blk-Tune's measurements at startup (the kernels' rate on
    the plan's blocks, the copy rate) must not stay resident beside them: their buffers are given back
    before the sweeps (malloc kept 7.7 MiB of them in its heap, 17.6 MiB of growth for 10 MiB of rings)."""
    exe = compile_example("heat3d")
    rep = tmp_path / "r.json"
    rc, _, err = run_program(exe, ["--size", "128,128,128", "--steps", "16", "--mem", "16M", "--dir", tmp_path,
                                   "--report", rep])
    assert rc == 0, err
    r = json.loads(rep.read_text())
    assert r["tuner"] == "blk" and "measured at startup" in r["time_model"]["cells_per_second_source"], r
    grown = r["peak_pss_bytes"] - r["pss_at_open_bytes"]
    assert grown <= r["engine_bytes"] + (2 << 20), (grown, r["engine_bytes"])
