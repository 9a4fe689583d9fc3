"""In-core speed: stencilc's heat3d against a hand-written C OpenMP loop, side by side.

    python bench/incore_vs_handwritten.py [--size 512] [--steps 20] [--reps 3] [--threads N]

Both programs are compiled here with the same compiler and flags (stencilc's defaults:
-O3 -march=native -fopenmp -ffp-contract=off), start from the same initial state, run the
same number of steps, and are timed over the time loop only (init and output excluded).
Runs alternate (ours, baseline, ours, ...) so drift hits both alike; the median of each is
reported, with the spread.  Before timing, both final grids are compared: they must be
bit-identical, or the benchmark fails.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "compiler"))

from stencilc.codegen import DEFAULT_CFLAGS  # noqa: E402


def sh(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"failed: {shlex.join(cmd)}\n{r.stdout}{r.stderr}")
    return r


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=512, help="grid edge (default 512: 1 GiB per array)")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    args = ap.parse_args()
    n, steps = args.size, args.steps
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), OMP_PROC_BIND="close", OMP_PLACES="cores",
               PYTHONPATH=str(REPO / "compiler"))
    with tempfile.TemporaryDirectory(prefix="bench-incore-", dir=os.environ.get("BENCH_TMP")) as tmp:
        t = Path(tmp)
        ours, base = t / "heat3d", t / "handwritten"
        sh([sys.executable, "-m", "stencilc", str(REPO / "examples/heat3d.stn"), "-o", str(ours)], env=env)
        sh(["cc", *shlex.split(DEFAULT_CFLAGS), str(REPO / "bench/handwritten_heat3d.c"), "-o", str(base), "-lm"])

        # correctness first: the same grid, bit for bit
        import numpy as np

        sh([str(ours), "--mode", "incore", "--quiet", "--size", f"{n},{n},{n}", "--steps", "2",
            "--out", f"u={t / 'ours.npy'}"], env=env)
        sh([str(base), str(n), str(n), str(n), "2", str(t / "base.npy")], env=env)
        a, b = np.load(t / "ours.npy", mmap_mode="r"), np.load(t / "base.npy", mmap_mode="r")
        if a.shape != b.shape or not np.array_equal(a, b):
            sys.exit("stencilc and the hand-written loop disagree: the comparison would be meaningless")
        del a, b
        for p in (t / "ours.npy", t / "base.npy"):
            p.unlink()

        ours_s, base_s = [], []
        for _ in range(args.reps):
            rep = t / "r.json"
            sh([str(ours), "--mode", "incore", "--quiet", "--size", f"{n},{n},{n}", "--steps", str(steps),
                "--report", str(rep)], env=env)
            r = json.loads(rep.read_text())
            ours_s.append(n**3 * steps / r["cells_per_second"])
            out = sh([str(base), str(n), str(n), str(n), str(steps), "-"], env=env).stdout
            base_s.append(float(out.split()[0].split("=")[1]))
    mo, mb = statistics.median(ours_s), statistics.median(base_s)
    cells = n**3 * steps
    print(f"heat3d {n}^3, {steps} steps, {args.threads} threads, {args.reps} reps (median, [min, max])")
    print(f"  stencilc     {mo:8.3f} s  {cells / mo:.3e} cells/s  [{min(ours_s):.3f}, {max(ours_s):.3f}]")
    print(f"  hand-written {mb:8.3f} s  {cells / mb:.3e} cells/s  [{min(base_s):.3f}, {max(base_s):.3f}]")
    print(f"  speed ratio stencilc / hand-written: {mb / mo:.3f}  (>= 1 means stencilc is at least as fast)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
