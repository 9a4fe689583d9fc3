"""The reliability campaign's short profile (issue 16; `make reliability` runs the full one and
writes docs/reliability.md): random SIGKILLs, and kills aimed at the state's commits and the output's
export, resumed to the uninterrupted run's bits, IO calls failed
on purpose (EIO at the N-th call of each operation) ending in a clear error and a resume that gives
the same bits, a disk too small (refused) and one filled by another process mid-run (ENOSPC,
then a resume once freed), huge and odd values in every numeric option and --report targets that
cannot be written (the command line's edges), and runs at
small budgets inside a memory cgroup (skipped, and said, without root or cgroup v1), and the
libFuzzer harnesses of the .npy reader and the command line for 10 s each.  The .stn fuzzer's CI
profile is test_fuzz.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_short_campaign_finds_nothing():
    p = subprocess.run([sys.executable, str(REPO / "tools" / "reliability.py"), "--profile", "short", "--parts",
                        "libfuzzer,kills,aimed,faults,diskfull,edges,budgets"], capture_output=True, text=True, timeout=1500)
    results = json.loads((REPO / "build" / "reliability" / "results-short.json").read_text())
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    fuzz = next(r for r in results if r["part"] == "libfuzzer")
    assert fuzz["failed"] == 0 and {row["harness"] for row in fuzz["rows"]} == {"npy", "args"}, fuzz
    assert all(row["execs"] > 10_000 and row["cov"] > 50 for row in fuzz["rows"]), fuzz
    kills = next(r for r in results if r["part"] == "kills")
    assert kills["tried"] >= 8 and kills["failed"] == 0, kills
    aimed = next(r for r in results if r["part"] == "aimed")
    assert aimed["tried"] >= 6 and aimed["failed"] == 0, aimed
    faults = next(r for r in results if r["part"] == "faults")
    assert faults["tried"] >= 20 and faults["failed"] == 0, faults
    full = next(r for r in results if r["part"] == "diskfull")
    assert full["failed"] == 0 and (full.get("skipped") or full["tried"] >= 2), full
    edges = next(r for r in results if r["part"] == "edges")
    assert edges["tried"] >= 50 and edges["failed"] == 0, edges
    budgets = next(r for r in results if r["part"] == "budgets")
    assert budgets["failed"] == 0 and (budgets.get("skipped") or all(
        row["oom_kills"] == 0 and row["exit"] == 0 for row in budgets["rows"])), budgets
