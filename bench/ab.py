"""Two stencilc trees side by side: the same programs built by each, run in alternated pairs.

    sudo python -m bench.ab --before /path/to/tree-A --after . [--pairs 3] [--out build/bench/ab]

A change to the runtime (a refactoring, a faster kernel) must be measured against the tree before it
in one run, on the same machine at the same time: each case is built by each tree (its compiler, its
templates, its runtime), then run ``--pairs`` times in alternation (before, after, before, ...), the
page cache dropped before every run, out-of-core runs in a memory cgroup a little above their budget.
It prints, per case, the median cells/s of each tree, their ratio (after / before) and the spread
((max - min) / median) of each, which says what "within noise" is on the day.

Expects root for the cgroup and drop_caches (without it: the runs are made and the table says so), a C
compiler, and both trees' compilers importable from their ``compiler/``.  Guarantees: nothing outside
``--out`` is written; every run's report is kept there.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from bench.common import Cgroup, MiB, drop_caches, median_spread, run

# name, example, --size, --steps, extra options, cgroup cap (None: in-core, no cap)
CASES = [
    ("heat3d ooc 256^3 x30, --mem 16M, --init", "heat3d", "256,256,256", 30, ["--mem", "16M", "--init", "u={init}"],
     96 * MiB),
    ("heat3d in-core 256^3 x30", "heat3d", "256,256,256", 30, ["--mode", "incore"], None),
    ("box27 ooc 160^3 x16, --mem 16M", "box27", "160,160,160", 16, ["--mem", "16M"], 96 * MiB),
    ("jacobi2d ooc 4096^2 x64, --mem 16M", "jacobi2d", "4096,4096", 64, ["--mem", "16M"], 96 * MiB),
]


def build(tree: Path, example: str, exe: Path) -> Path:
    """``example`` built by ``tree``'s compiler and runtime (a cache of its own under exe's folder)."""
    exe.parent.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(tree / "compiler"), STENCILC_CACHE_DIR=str(exe.parent / "cache"))
    subprocess.run([sys.executable, "-m", "stencilc", str(tree / "examples" / f"{example}.stn"), "-o", str(exe)],
                   check=True, env=env, capture_output=True, text=True)
    return exe


def one(exe: Path, case: tuple, out: Path, k: int, init: Path) -> float | None:
    name, _, size, steps, extra, cap = case
    scratch = out / "scratch"
    scratch.mkdir(parents=True, exist_ok=True)
    rep = out / f"{exe.parent.name}-{CASES.index(case)}-{k}.json"
    args = ["--size", size, "--steps", str(steps), "--dir", str(scratch), "--quiet", "--report", str(rep),
            *[a.format(init=init) for a in extra]]
    drop_caches()
    cg = Cgroup(f"stencilc-ab-{os.getpid()}", int(cap)) if cap and Cgroup.available() is None else None
    try:
        r, _, why = run(exe, args, cg=cg, timeout=1200)
    finally:
        if cg:
            cg.remove()
    if r is None:
        print(f"  {name}: {exe.parent.name} failed: {why}", file=sys.stderr)
        return None
    return float(r["cells_per_second"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--after", type=Path, default=Path(__file__).resolve().parents[1])
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--out", type=Path, default=Path("build/bench/ab"))
    ap.add_argument("--only", help="cases whose name contains this")
    a = ap.parse_args(argv)
    out = a.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    init = out / "u256.npy"
    if not init.exists():
        np.save(init, np.random.default_rng(1).random((256, 256, 256)))
    print(f"cgroup: {Cgroup.available() or 'yes'}; page cache: {drop_caches()}")
    print("| case | before Mcell/s | after Mcell/s | after/before | spread before | spread after |")
    print("|---|---|---|---|---|---|")
    for case in CASES:
        if a.only and a.only not in case[0]:
            continue
        exes = {w: build(t.resolve(), case[1], out / w / case[1]) for w, t in (("before", a.before),
                                                                            ("after", a.after))}
        got: dict[str, list[float]] = {"before": [], "after": []}
        for k in range(a.pairs):
            for w in ("before", "after") if k % 2 == 0 else ("after", "before"):
                v = one(exes[w], case, out, k, init)
                if v is not None:
                    got[w].append(v)
        if not got["before"] or not got["after"]:
            print(f"| {case[0]} | failed | | | | |")
            continue
        (b, sb), (f, sf) = median_spread(got["before"]), median_spread(got["after"])
        print(f"| {case[0]} | {b / 1e6:.0f} | {f / 1e6:.0f} | {f / b:.3f} | {sb:.2f} | {sf:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
