"""Sub-steps in-core: examples/fdtd2d.stn (PolyBench's fdtd-2d: ex, ey, then hz from the new ones,
fict[t] a series) against PolyBench's kernel with OpenMP (bench/c/handwritten_fdtd2d.c: a sweep
each for ey, ex and hz, in place), same compiler and flags.

    python -m bench.substeps [--size 4096] [--steps 40] [--reps 3] [--out DIR]

--size is PolyBench's nx = ny; the program's grid is two cells wider (its boundary layer).

stencilc runs twice: the plain loop (`--time-tiles off`: each step a kernel call over the grid,
each tile computing the new ex, ey it reads itself) and the default (time tiles).  The programs
alternate (hand, plain, tiled, hand, ...), and the first runs' hz is checked to agree (bit for bit:
the same operations in the same order).  The program's masks (three input arrays: where the
loops skip cells) cost it memory traffic the loops do not have.  Prints the median seconds of each, the ratios, and
writes DIR/substeps.json.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

from bench.common import REPO, build, cc, median_spread, run, sh


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=4096, help="PolyBench's nx = ny")
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", type=Path, default=REPO / "build" / "bench" / "substeps")
    a = ap.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    n, steps = a.size, a.steps
    ours = build("examples/fdtd2d.stn", a.out / "bin" / "fdtd2d")
    hand = cc("handwritten_fdtd2d.c", a.out / "bin" / "handwritten_fdtd2d")
    env = dict(os.environ)
    import numpy as np

    fict = a.out / "fict.npy"
    np.save(fict, np.arange(steps, dtype=np.float64))
    times: dict[str, list[float]] = {"hand-written (PolyBench sweeps)": [], "stencilc plain loop": [],
                                     "stencilc time tiles": []}
    with tempfile.TemporaryDirectory() as tmp:
        rep = str(Path(tmp) / "r.json")
        for k in range(a.reps):
            out = sh([str(hand), str(n), str(n), str(steps)], env=env).stdout.split()
            times["hand-written (PolyBench sweeps)"].append(float(out[1]))  # "seconds S cells/s R hz[mid]=V"
            check = float(out[-1].split("=")[1])
            for label, extra in (("stencilc plain loop", ["--time-tiles", "off"]), ("stencilc time tiles", [])):
                args = ["--size", f"{n + 2},{n + 2}", "--steps", str(steps), "--mode", "incore", "--quiet", "--report",
                        rep, "--init", f"fict={fict}", *extra]
                if k == 0:
                    args += ["--out", f"hz={tmp}/hz.npy"]
                r, _, why = run(ours, args, env=env)
                if r is None:
                    raise SystemExit(f"{label}: {why}")
                times[label].append(r["seconds"]["compute"] + r["seconds"].get("copy", 0.0))
                if k == 0:
                    got = float(np.load(f"{tmp}/hz.npy")[n // 2 + 1, n // 2 + 1])
                    if got != check:
                        raise SystemExit(f"{label}: hz at PolyBench's [{n // 2}][{n // 2}] = {got!r}, the loop's {check!r}")
    med = {k: median_spread(v) for k, v in times.items()}
    base = med["hand-written (PolyBench sweeps)"][0]
    cells = n**2 * steps
    print(f"fdtd2d PolyBench {n}x{n} (grid {n + 2}x{n + 2}), {steps} steps, {a.reps} alternated runs each, {os.cpu_count()} cores")
    print(f"{'program':34} {'median s':>9} {'cells/s':>9} {'spread':>7} {'vs hand':>8}")
    rows = []
    for k, (m, sp) in med.items():
        print(f"{k:34} {m:9.3f} {cells / m:9.2e} {sp:7.0%} {base / m:8.2f}")
        rows.append({"program": k, "median_seconds": m, "spread": sp, "cells_per_second": cells / m,
                     "speedup_vs_hand": base / m, "times": times[k]})
    (a.out / "substeps.json").write_text(json.dumps({"size": [n, n], "steps": steps, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
