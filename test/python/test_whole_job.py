"""The whole job's figures (issue 30): every report's ``seconds.job`` (from the process's start to the
report, written after the export) beside ``seconds.import``, ``loop`` and ``export``, and the summary
line's parts.

Guarantees checked: in-core with an ``--init`` file and an ``--out`` file, the job covers its import,
its time loop and its export, one after the other (job >= import + loop + export, each > 0, and the
job's start is the process's, before the program's main: job >= total); out of core the job covers the
loop (its ``--init`` import overlaps the first sweep); the summary line names the import, the loop and
the export; every report validates against docs/report.schema.json (load_report).
"""

from __future__ import annotations

import os
import subprocess

import numpy as np
import pytest
from conftest import load_report

ENV = dict(os.environ, OMP_NUM_THREADS="2")


@pytest.fixture(scope="module")
def heat3d(compile_example):
    return compile_example("heat3d")


def _run(exe, *args):
    r = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True, env=ENV, timeout=300)
    assert r.returncode == 0, r.stderr
    return r


@pytest.mark.parametrize("mode", ["incore", "ooc"])
def test_the_job_covers_import_loop_and_export(heat3d, tmp_path, mode):
    size = (96, 80, 72)  # (x, y, z): 4.2 MiB a level, two 4 MiB chunks of an --init read
    u0 = np.random.default_rng(30).random(size[::-1])
    np.save(tmp_path / "u0.npy", u0)
    extra = ["--mem", "8M", "--dir", tmp_path, "--block", "80,8,2"] if mode == "ooc" else []
    r = _run(heat3d, "--size", ",".join(map(str, size)), "--steps", "6", "--mode", mode, *extra,
             "--init", f"u={tmp_path / 'u0.npy'}", "--out", f"u={tmp_path / 'u.npy'}",
             "--report", tmp_path / "r.json")
    s = load_report(tmp_path / "r.json")["seconds"]
    assert s["import"] > 0 and s["loop"] > 0 and s["export"] > 0, s
    assert s["job"] >= s["total"] >= s["loop"], s
    if mode == "incore":  # one after the other
        assert s["job"] >= s["import"] + s["loop"] + s["export"], s
    done = [ln for ln in r.stderr.splitlines() if ": done: " in ln]
    assert len(done) == 1 and "(import " in done[0] and ", time loop " in done[0] and ", export " in done[0], r.stderr
    assert np.load(tmp_path / "u.npy").shape == u0.shape


def test_a_run_without_files_imports_and_exports_nothing(heat3d, tmp_path):
    r = _run(heat3d, "--size", "32,32,32", "--steps", "2", "--mode", "incore", "--report", tmp_path / "r.json")
    s = load_report(tmp_path / "r.json")["seconds"]
    assert s["import"] == 0 and s["export"] == 0 and s["job"] >= s["loop"] > 0, s
    done = [ln for ln in r.stderr.splitlines() if ": done: " in ln]
    assert "import" not in done[0] and "export" not in done[0] and "(time loop " in done[0], done


def test_a_program_a_shell_execs_in_place_counts_its_job_from_its_own_start(heat3d, tmp_path):
    """``bash -c 'sleep 2; ./prog'`` execs the program in the shell's process (as do ``exec`` wrappers):
    the process is then 2 s older than the program, and the job must not count the shell's seconds
    (the README's sample once showed a 3 s run as 26 s: the compile before it in the same shell)."""
    rep = tmp_path / "r.json"
    r = subprocess.run(["bash", "-c", f"sleep 2; exec {heat3d} --size 32,32,32 --steps 2 --mode incore --report {rep}"],
                       capture_output=True, text=True, env=ENV, timeout=300)
    assert r.returncode == 0, r.stderr
    s = load_report(rep)["seconds"]
    assert s["total"] <= s["job"] < s["total"] + 1.0, s
