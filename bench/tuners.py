"""Blk-Tune against Naive-Tune and manual blocking under a memory cgroup (seed 001, figs. 19-21).

    python bench/tuners.py [--size 512,512,1024] [--steps 32] [--ratio 8] [--dir DIR] [--repeat 1]

heat3d (f64) with the problem P bytes and a DRAM budget of P / ratio: every run gets `--mem` of
that budget and runs in a fresh memory cgroup capped at the budget plus the runtime's default
reserve (a quarter of the cap), page cache included.  In one run, on the same machine:

  blk     --tuner blk (Blk-Tune: the least flash traffic over the whole space, exact model);
  naive   --tuner naive (the paper's Naive-Tune: powers of two and typical volumes);
  manual  what a careful person picks by hand (paper, section VI): for each bt among the powers
          of two up to the steps, the largest power-of-two bz that fits with whole planes, and
          the largest power-of-two square y x z tile that fits; at least 12 of them.

Page caches are dropped before every run.  It prints each run's time, cells/s, the flash
traffic it counted (and whether the model predicted it to the byte), the cgroup's peak.  Then
blk, naive and the three fastest manual choices run --final-repeat more times, interleaved, and
the medians compare blk against the best manual choice (target: within 5%) and naive against
blk (target: blk at least 1.2x faster).  Needs root.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Cgroup, build, drop_caches, run, start  # noqa: E402

GiB = float(1 << 30)


def plan(exe: Path, common: list[str], extra: list[str], work: Path) -> dict | None:
    """--plan-only: does this choice fit, and what will it move."""
    rep, _, status = run(exe, common + extra + ["--plan-only", "--report", str(work / "plan.json")], None, 60)
    return rep


def manual_choices(exe: Path, common: list[str], ny: int, steps: int, work: Path) -> list[list[str]]:
    """The hand-picked sweep: powers of two, as large as fit, for each power-of-two bt."""
    out = []
    bts = [1 << k for k in range(0, 12) if (1 << k) <= steps]
    for bt in bts:
        best_planes = None
        for bz in (1 << k for k in range(0, 14)):
            if plan(exe, common, ["--block", f"{ny},{bz},{bt}"], work) is None:
                break
            best_planes = bz
        if best_planes:
            out.append(["--block", f"{ny},{best_planes},{bt}"])
        best_tile = None
        for b in (1 << k for k in range(3, 14)):
            if b >= ny or plan(exe, common, ["--block", f"{b},{b},{bt}"], work) is None:
                break
            best_tile = b
        if best_tile:
            out.append(["--block", f"{best_tile},{best_tile},{bt}"])
    # the same shapes at half the size, for the largest bt that fits (people round down)
    for args in list(out[-4:]):
        by, bz, bt = (int(v) for v in args[1].split(","))
        half = ["--block", f"{by if by == ny else max(1, by // 2)},{max(1, bz // 2)},{bt}"]
        if half not in out and plan(exe, common, half, work) is not None:
            out.append(half)
    return out


def measure(exe: Path, common: list[str], label: str, extra: list[str], cap: int, work: Path, repeat: int,
            quiet: bool = False) -> dict:
    """Run one choice `repeat` times in a fresh cgroup each, caches dropped; print its row."""
    times, rep, peak, ooms, status = [], None, -1, 0, "ok"
    for _ in range(repeat):
        drop_caches()
        cg = Cgroup(f"stencilc-tuners-{os.getpid()}", cap)
        rep, wall, status = run(exe, common + extra + ["--report", str(work / "run.json")], cg, None)
        peak, ooms = max(peak, cg.peak()), ooms + cg.oom_kills()
        cg.remove()
        if rep is None:
            break
        times.append(rep["seconds"]["total"])
    if rep is None:
        print(f"  {label:8s} {' '.join(extra)}: {status}")
        return {"choice": label, "args": extra, "status": status}
    p = rep["params"]
    exact = rep["bytes_read"] == rep["predicted_bytes_read"] and rep["bytes_written"] == rep["predicted_bytes_written"]
    t = statistics.median(times)
    spread = (max(times) - min(times)) / t if len(times) > 1 else 0.0
    if not quiet:
        print(f"  {label:8s} {p['by']:5d} {p['bz']:5d} {p['bt']:4d} {rep['strip']:5s} {t:8.2f} {spread:6.1%} "
              f"{rep['cells_per_second']:9.3e} {rep['bytes_read'] / GiB:9.2f} {rep['bytes_written'] / GiB:9.2f} "
              f"{'exact' if exact else 'OFF':>5s} {peak / 2**20:8.0f}" + (f"  OOM kills {ooms}" if ooms else ""))
    return {"choice": label, "args": extra, "by": p["by"], "bz": p["bz"], "bt": p["bt"], "strip": rep["strip"],
            "iy": p["iy"], "iz": p["iz"], "seconds": t, "times": times, "cells_per_second": rep["cells_per_second"],
            "bytes_read": rep["bytes_read"], "bytes_written": rep["bytes_written"], "model_exact": exact,
            "phases": rep["seconds"], "peak_cgroup_bytes": peak, "oom_kills": ooms,
            "mem_plan_bytes": rep["mem_plan_bytes"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", default="512,512,1024", help="nx,ny,nz (default: 2 GiB per level)")
    ap.add_argument("--steps", type=int, default=32)
    ap.add_argument("--ratio", type=int, default=8, help="problem / DRAM budget")
    ap.add_argument("--dir", default=None, help="scratch directory (default: a temp dir in /var/tmp)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per choice in the sweep (the median is reported)")
    ap.add_argument("--final-repeat", type=int, default=3,
                    help="more runs, interleaved, of blk, naive and the three fastest manual choices")
    ap.add_argument("--json", default=None, help="write the results here too")
    args = ap.parse_args()
    (nx, ny, nz), work = start(args.size, args.dir, "stencilc-tuners-")
    problem = nx * ny * nz * 8
    budget = problem // args.ratio
    cap = budget * 4 // 3
    exe = build("examples/heat3d.stn", work / "heat3d")
    common = ["--size", args.size, "--steps", str(args.steps), "--quiet", "--dir", str(work), "--mem", str(budget)]
    print(f"heat3d {args.size} f64, {args.steps} steps: problem {problem / GiB:.2f} GiB, budget {budget / 2**20:.0f} "
          f"MiB (1/{args.ratio}), cgroup cap {cap / 2**20:.0f} MiB; scratch in {work}")
    print(f"  page cache before each run: {drop_caches()}")
    choices = [("blk", ["--tuner", "blk"]), ("naive", ["--tuner", "naive"])]
    choices += [("manual", m) for m in manual_choices(exe, common, ny, args.steps, work)]
    print(f"  {len(choices) - 2} manual choices")
    print(f"  {'choice':8s} {'by':>5s} {'bz':>5s} {'bt':>4s} {'strip':5s} {'time s':>8s} {'spread':>6s} "
          f"{'cells/s':>9s} {'read GiB':>9s} {'writ GiB':>9s} {'model':>5s} {'peak MiB':>8s}")
    rows = [measure(exe, common, label, extra, cap, work, args.repeat) for label, extra in choices]
    # the finalists again, interleaved, so that the comparison rests on medians taken side by side
    ok = [r for r in rows if "seconds" in r]
    finalists = [r for r in ok if r["choice"] in ("blk", "naive")]
    finalists += sorted((r for r in ok if r["choice"] == "manual"), key=lambda r: r["seconds"])[:3]
    if args.final_repeat > 0:
        print(f"  finalists, {args.final_repeat} more runs each, interleaved (median of all runs):")
        for _ in range(args.final_repeat):
            for r in finalists:
                again = measure(exe, common, r["choice"], r["args"], cap, work, 1, quiet=True)
                if "seconds" in again:
                    r["times"] += again["times"]
        for r in finalists:
            r["seconds"] = statistics.median(r["times"])
            spread = (max(r["times"]) - min(r["times"])) / r["seconds"]
            print(f"  {r['choice']:8s} {r['by']:5d} {r['bz']:5d} {r['bt']:4d} {r['strip']:5s} {r['seconds']:8.2f} "
                  f"{spread:6.1%}  ({len(r['times'])} runs: {', '.join(f'{t:.2f}' for t in r['times'])})")
    blk = next((r for r in ok if r["choice"] == "blk"), None)
    naive = next((r for r in ok if r["choice"] == "naive"), None)
    manual = [r for r in ok if r["choice"] == "manual"]
    summary = {}
    if blk and manual:
        best = min(manual, key=lambda r: r["seconds"])
        summary["blk_over_best_manual"] = blk["seconds"] / best["seconds"]
        print(f"  best manual: --block {best['args'][1]} in {best['seconds']:.2f} s; blk / best manual = "
              f"{summary['blk_over_best_manual']:.3f} (target <= 1.05)")
    if blk and naive:
        summary["naive_over_blk"] = naive["seconds"] / blk["seconds"]
        print(f"  naive / blk = {summary['naive_over_blk']:.2f} (target >= 1.2); traffic naive "
              f"{(naive['bytes_read'] + naive['bytes_written']) / GiB:.1f} GiB, blk "
              f"{(blk['bytes_read'] + blk['bytes_written']) / GiB:.1f} GiB")
    print(f"  command: python bench/tuners.py {shlex.join(sys.argv[1:])}")
    if args.json:
        Path(args.json).write_text(json.dumps({"size": args.size, "steps": args.steps, "budget": budget, "cap": cap,
                                               "runs": rows, "summary": summary}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
