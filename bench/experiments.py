"""The experiments (the Blk-Tune paper's figures at this machine's scale).  Each takes the run's context and
returns its rows: one dict per measured point, medians over the profile's repeats.

A DRAM budget B is what the program is told (`--mem B`); every out-of-core run happens in a
fresh memory cgroup capped at 4/3 B (the runtime's own reserve) plus 48 MiB (the process's binary and
libraries, bench/common.py run_cap), page cache included, with the page cache dropped before it.  "Problem Rx" means the grid's bytes are R x B.

What users run: every run starts from an `--init` file of random values on the device under test
(read back from flash: the page cache is dropped first), in-core and out-of-core alike, and runs
the profile's steps, enough for several sweeps of the blocks the tuner picks.  Each out-of-core
row records its sweeps; the report marks a row of fewer than 4 as such.

- size     heat3d, problem 1x..16x the budget: ooc against incore (fig. 6);
- methods  the reference schedule, alg2, alg1 and mmap at 8x, with time components (figs. 5, 12, 20);
- tuners   Blk-Tune, Naive-Tune and a hand-picked sweep at 8x (figs. 19-21);
- shapes   7-, 19-, 27-point and a radius-2 star, ooc against incore at 8x;
- longrun  heat3d out-of-core with --mem 1/16 of a level, 512x512, 1024x512 and 2048x2048 planes,
           ooc against incore, interleaved: the long run of issue 12's targets;
- peers    in-core heat3d against a plain C OpenMP loop, Devito, pystencils and NumPy
           (bench/peer_runs.py).
"""

from __future__ import annotations

import statistics
from pathlib import Path

from bench.common import Cgroup, GiB, MiB, build, drop_caches, median_spread, model_rate_from, random_npy, run, run_cap

MIN_SWEEPS = 4  # fewer makes a run one that mostly computes from DRAM: the report says so
TUNERS_STOP_FACTOR = 1.5  # tuners: a hand-picked choice is stopped at this x the best wall time so far

PHASES = ("read", "write", "copy", "compute", "wait", "init")
STENCILS = {"heat3d": ("examples/heat3d.stn", "7-point star"), "box19": ("examples/box19.stn", "19-point box"),
            "box27": ("examples/box27.stn", "27-point box"), "star2": ("examples/star2.stn", "13-point star, radius 2")}


def grid_for(ctx, ratio: float) -> tuple[int, int, int]:
    """(nx, ny, nz) of an f64 grid of `ratio` x the budget, nx = ny = the profile's plane edge."""
    e = ctx.profile.plane
    nz = max(8, round(ratio * ctx.profile.budget / (e * e * 8)))
    return e, e, nz


def kernel_rates(rep: dict, cells: int) -> dict:
    """An out-of-core run's kernels: the rate its time model took at startup (measured then, or the earlier runs'
    loops': `model_rate_from`), the share under IO, and the rate its loop's kernels kept beside the IO (cells /
    seconds.compute), each run's, for the prediction's misses."""
    tm, comp = rep.get("time_model") or {}, rep.get("seconds", {}).get("compute", 0)
    if not tm.get("cells_per_second"):
        return {}
    return {"startup_cells_per_second": tm["cells_per_second"], "compute_share": tm.get("compute_share", 0.0),
            "model_rate_from": model_rate_from(rep),
            "loop_kernels_cells_per_second": cells / comp if comp > 0 else 0.0}


def loop_stats(row: dict) -> None:
    """The row's median loop time, its spread and cells/s, from its runs (also after more were added);
    out of core, the median of each run's own prediction (it measures its kernels' rate at startup)
    and of each run's measured / predicted."""
    row["seconds"], row["spread"] = median_spread([r["loop_seconds"] for r in row["runs"]])
    row["cells_per_second"] = row["cells"] / row["seconds"]
    jobs = [r.get("job_seconds") for r in row["runs"]]
    if jobs and all(jobs):  # the whole job: import, loop and export (the report's seconds.job)
        row["job_seconds"] = statistics.median(jobs)
    preds = [r.get("predicted_seconds") for r in row["runs"]]
    if preds and all(preds):
        row["predicted_seconds"] = statistics.median(preds)
        row["model_ratios"] = [r["loop_seconds"] / r["predicted_seconds"] for r in row["runs"]]
        row["model_ratio"] = statistics.median(row["model_ratios"])
    pjobs = [r.get("predicted_job_seconds") for r in row["runs"]]
    if pjobs and all(pjobs) and all(r.get("wall") for r in row["runs"]):  # each run's wall / its whole job's prediction
        row["job_model_ratios"] = [r["wall"] / r["predicted_job_seconds"] for r in row["runs"]]


def plan_only(ctx, stencil: str, size: tuple[int, int, int], steps: int, extra: list[str] | None = None,
              budget: int | None = None) -> dict | None:
    """The report of the run's --plan-only (the plan Blk-Tune or --block makes), None when none fits."""
    exe = build(STENCILS[stencil][0], ctx.work / "bin" / stencil)
    rep, _, _ = run(exe, ["--size", ",".join(map(str, size)), "--steps", str(steps), "--quiet", "--dir",
                          str(ctx.scratch), "--mem", str(budget or ctx.profile.budget), "--plan-only", "--report",
                          str(ctx.scratch / "plan.json"), *(extra or [])], None, 60)
    return rep


def init_file(ctx, size: tuple[int, int, int]) -> Path:
    """A .npy of random f64 values of `size` (x first) on the device under test, made once per size."""
    path = ctx.scratch / f"init-{'x'.join(map(str, size))}.npy"
    return path if path.exists() else random_npy(path, size, 12)


def several_sweeps(ctx, stencil: str, size: tuple[int, int, int], steps: int, extra: list[str] | None = None,
                   budget: int | None = None) -> int:
    """At least `steps`, and at least MIN_SWEEPS x the bt that Blk-Tune picks for the run (asked with
    --plan-only, again for the longer run, until bt settles: it is bounded by the budget)."""
    for _ in range(6):
        bt = (plan_only(ctx, stencil, size, steps, extra, budget) or {}).get("params", {}).get("bt")
        if not bt or steps >= MIN_SWEEPS * bt:
            return steps
        steps = MIN_SWEEPS * bt
    return steps


def point(ctx, stencil: str, size: tuple[int, int, int], steps: int, extra: list[str], *, mode: str = "ooc",
          label: str = "", repeat: int | None = None, timeout: float | None = None,
          keep_out: Path | None = None, budget: int | None = None) -> dict:
    """Run one configuration `repeat` times (caches dropped, a fresh cgroup for ooc and mmap), from
    the size's --init file, and return its row: medians of the loop time and of each phase, the
    counted and predicted bytes, and the sweeps the blocks took."""
    exe = build(STENCILS[stencil][0], ctx.work / "bin" / stencil)
    repeat = repeat or ctx.profile.repeat
    budget = budget or ctx.profile.budget
    sz = ",".join(map(str, size))
    args = ["--size", sz, "--steps", str(steps), "--quiet", "--mode", mode, "--dir", str(ctx.scratch),
            "--report", str(ctx.scratch / "report.json"), "--init", f"u={init_file(ctx, size)}", *extra]
    capped = mode in ("ooc", "mmap")
    if capped:
        args += ["--mem", str(budget)]
    cap = run_cap(budget) if capped and ctx.cgroups else None
    row = {"stencil": stencil, "label": label or mode, "mode": mode, "size": list(size), "steps": steps,
           "args": extra, "budget": budget if capped else None, "cap": cap, "problem_bytes": size[0] * size[1] * size[2] * 8,
           "cells": size[0] * size[1] * size[2] * steps, "status": "ok", "runs": [], "init": True}
    for i in range(repeat):
        ctx.caches = drop_caches()
        cg = Cgroup(f"stencilc-bench-{mode}", cap) if cap else None
        a = args + (["--out", f"u={keep_out}"] if keep_out and i == 0 else [])
        rep, wall, status = run(exe, a, cg, timeout, env=ctx.omp_env())
        peak, ooms = (cg.peak(), cg.oom_kills()) if cg else (None, 0)
        if cg:
            cg.remove()
        if rep is None:
            row.update(status=status, wall=wall)
            if status == "timeout":  # a bound: it would have needed at least this long
                row["cells_per_second_at_most"] = row["cells"] / wall
            break
        loop = row["cells"] / rep["cells_per_second"] if rep["cells_per_second"] else rep["seconds"]["total"]
        row["runs"].append({"loop_seconds": loop, "total_seconds": rep["seconds"]["total"], "wall": wall,
                            "job_seconds": rep["seconds"].get("job", rep["seconds"]["total"]),
                            "phases": {k: rep["seconds"].get(k, 0.0) for k in PHASES}, "peak_cgroup": peak,
                            "oom_kills": ooms, "predicted_seconds": rep.get("predicted_seconds"),
                            "predicted_job_seconds": rep.get("predicted_job_seconds"), **kernel_rates(rep, row["cells"])})
        row["report"] = rep
    if not row["runs"]:
        ctx.log(f"    {label or mode:24s} {status}")
        return row
    rep = row.pop("report")
    loop_stats(row)
    row["phases"] = {k: statistics.median(r["phases"][k] for r in row["runs"]) for k in PHASES}
    row["total_seconds"] = statistics.median(r["total_seconds"] for r in row["runs"])
    row["peak_cgroup"] = max((r["peak_cgroup"] or 0) for r in row["runs"]) if cap else None
    row["oom_kills"] = sum(r["oom_kills"] for r in row["runs"])
    row["params"] = rep.get("params")
    row["strip"] = rep.get("strip")
    bt = (row["params"] or {}).get("bt")
    row["sweeps"] = -(-steps // bt) if mode == "ooc" and bt else None
    for k in ("bytes_read", "bytes_written", "predicted_bytes_read", "predicted_bytes_written", "paging_bytes_read",
              "paging_bytes_written", "mem_plan_bytes", "peak_rss_bytes", "peak_pss_bytes", "time_model"):
        if k in rep:
            row[k] = rep[k]
    p = row["params"] or {}
    blk = f" blocks {p.get('by')},{p.get('bz')},{p.get('bt')}" if mode == "ooc" and p else ""
    io = (f" IO {row['bytes_read'] / GiB:.2f}+{row['bytes_written'] / GiB:.2f} GiB" if row.get("bytes_read") is not None
          and mode == "ooc" else "")
    mem = f" peak {row['peak_cgroup'] / MiB:.0f}/{cap / MiB:.0f} MiB" if cap else ""
    if row["sweeps"] is not None:
        blk += f" ({row['sweeps']} sweeps)"
    last = row["runs"][-1]
    kern = (f" kernels: {last.get('model_rate_from', 'startup')} {last['startup_cells_per_second'] / 1e9:.2f} G "
            f"cells/s (share "
            f"{last['compute_share']:.2f}), the loop's {last['loop_kernels_cells_per_second'] / 1e9:.2f}"
            if last.get("startup_cells_per_second") and last.get("loop_kernels_cells_per_second") else "")
    ctx.log(f"    {label or mode:24s} {row['cells_per_second']:.3e} cells/s  {row['seconds']:7.2f} s "
            f"(spread {row['spread']:.0%}, {len(row['runs'])} runs){blk}{io}{mem}{kern}"
            + (f" OOM kills {row['oom_kills']}" if row["oom_kills"] else ""))
    return row


def incore_out(ctx, stencil: str, size: tuple[int, int, int], steps: int) -> Path:
    return ctx.scratch / f"{stencil}-{'x'.join(map(str, size))}-{steps}-incore.npy"


def incore(ctx, stencil: str, size: tuple[int, int, int], steps: int, label: str = "") -> dict:
    """The in-core run of a stencil at a size (no cap: it needs the whole grid twice), memoized;
    its result stays in the scratch directory (incore_out) for the bit-for-bit comparisons."""
    key = (stencil, tuple(size), steps)
    if key not in ctx.memo:
        ctx.memo[key] = point(ctx, stencil, size, steps, [], mode="incore", label=label or f"{stencil} incore",
                              keep_out=incore_out(ctx, stencil, size, steps))
    return ctx.memo[key]


def in_cache(ctx, stencil: str) -> dict:
    """The compute bound: the stencil in-core on a grid that fits in cache, many steps."""
    e = ctx.profile.cache_edge
    return incore(ctx, stencil, (e, e, e), ctx.profile.cache_steps, label=f"{stencil} in cache ({e}^3)")


def same_grid(a: Path, b: Path) -> bool:
    import numpy as np

    x, y = np.load(a, mmap_mode="r"), np.load(b, mmap_mode="r")
    return x.shape == y.shape and bool(np.array_equal(x, y))


def ooc_vs_incore(ctx, stencil: str, ratio: float, label: str, extra: list[str] | None = None) -> tuple[dict, dict]:
    """incore and ooc at `ratio` x the budget, results compared bit for bit."""
    size = grid_for(ctx, ratio)
    steps = several_sweeps(ctx, stencil, size, ctx.profile.steps, extra)
    ref_out, out = incore_out(ctx, stencil, size, steps), ctx.scratch / f"{stencil}-ooc.npy"
    inc = incore(ctx, stencil, size, steps)
    o = point(ctx, stencil, size, steps, extra or [], label=label, keep_out=out)
    if o["status"] == "ok" and ref_out.exists():
        o["bit_identical_to_incore"] = same_grid(out, ref_out)
        if not o["bit_identical_to_incore"]:
            ctx.log(f"    ** {label}: the out-of-core result differs from in-core **")
    out.unlink(missing_ok=True)
    for r in (inc, o):
        r.update(ratio=ratio)
    o["incore_cells_per_second"] = inc.get("cells_per_second")
    return inc, o


def size(ctx) -> list[dict]:
    """heat3d with the problem 1x..16x the budget: ooc against incore."""
    rows = []
    for ratio in ctx.profile.ratios:
        inc, o = ooc_vs_incore(ctx, "heat3d", ratio, f"heat3d ooc {ratio}x")
        rows += [dict(inc, experiment="size"), dict(o, experiment="size")]
    return rows


def methods(ctx) -> list[dict]:
    """The reference schedule, alg2, alg1 and mmap at the profile's method ratio (8x)."""
    ratio = ctx.profile.method_ratio
    size_ = grid_for(ctx, ratio)
    steps = several_sweeps(ctx, "heat3d", size_, ctx.profile.steps)
    inc = incore(ctx, "heat3d", size_, steps)
    rows = [dict(inc, experiment="methods", ratio=ratio, label="incore (no cap)")]
    for sched in ("ref", "alg2", "alg1"):
        # the paper's contrasts run many sweeps: the full profile runs them once (the report says "1 runs")
        slow = sched != "ref" and ctx.profile.slow_method_repeat
        r = point(ctx, "heat3d", size_, steps, ["--schedule", sched], label=f"ooc {sched}",
                  repeat=ctx.profile.slow_method_repeat if slow else None)
        rows.append(dict(r, experiment="methods", ratio=ratio, incore_cells_per_second=inc.get("cells_per_second")))
    r = point(ctx, "heat3d", size_, steps, [], mode="mmap", label="mmap", repeat=1, timeout=ctx.profile.mmap_timeout)
    rows.append(dict(r, experiment="methods", ratio=ratio))
    return rows


def _fits(ctx, exe_stencil: str, size_: tuple, steps: int, extra: list[str]) -> bool:
    return plan_only(ctx, exe_stencil, size_, steps, extra) is not None


def manual_choices(ctx, size_: tuple, steps: int) -> list[list[str]]:
    """What a careful person picks by hand (Blk-Tune paper, section VI): for each power-of-two bt, the
    largest power-of-two bz that fits with whole planes, and the largest power-of-two square
    y x z tile that fits; then the same shapes at half the size for the largest bts.  The bts go
    from the largest down, so that a short sweep (the quick profile) keeps the likely best."""
    ny = size_[1]
    out = []
    for bt in sorted((1 << k for k in range(12) if (1 << k) <= steps), reverse=True):
        if len(out) >= ctx.profile.manual_max:
            break
        best_planes = None
        for bz in (1 << k for k in range(14)):
            if not _fits(ctx, "heat3d", size_, steps, ["--block", f"{ny},{bz},{bt}"]):
                break
            best_planes = bz
        if best_planes:
            out.append(["--block", f"{ny},{best_planes},{bt}"])
        best_tile = None
        for b in (1 << k for k in range(3, 14)):
            if b >= ny or not _fits(ctx, "heat3d", size_, steps, ["--block", f"{b},{b},{bt}"]):
                break
            best_tile = b
        if best_tile:
            out.append(["--block", f"{best_tile},{best_tile},{bt}"])
    for args in list(out[:4]):
        by, bz, bt = (int(v) for v in args[1].split(","))
        half = ["--block", f"{by if by == ny else max(1, by // 2)},{max(1, bz // 2)},{bt}"]
        if half not in out and _fits(ctx, "heat3d", size_, steps, half):
            out.append(half)
    return out


def tuners(ctx) -> list[dict]:
    """Blk-Tune, Naive-Tune and the manual sweep at the method ratio; the finalists again, interleaved."""
    ratio = ctx.profile.method_ratio
    size_ = grid_for(ctx, ratio)
    steps = several_sweeps(ctx, "heat3d", size_, ctx.profile.steps)
    inc = incore(ctx, "heat3d", size_, steps)
    choices = [("blk", ["--tuner", "blk"]), ("naive", ["--tuner", "naive"])]
    choices += [(f"manual {m[1]}", m) for m in manual_choices(ctx, size_, steps)]
    ctx.log(f"    {len(choices) - 2} manual choices")
    rows = []
    for lbl, a in choices:
        # a choice still running at STOP_FACTOR x the best whole run so far cannot be the best: it is
        # stopped there and reported as slower than that (the tuners always run to the end)
        walls = [r["runs"][0]["wall"] for r in rows if r["status"] == "ok"]
        limit = max(60.0, TUNERS_STOP_FACTOR * min(walls)) if walls and lbl.startswith("manual") else None
        rows.append(dict(point(ctx, "heat3d", size_, steps, a, label=lbl, repeat=1, timeout=limit),
                         experiment="tuners", ratio=ratio, incore_cells_per_second=inc.get("cells_per_second")))
    ok = [r for r in rows if r["status"] == "ok"]
    finalists = [r for r in ok if r["label"] in ("blk", "naive")]
    finalists += sorted((r for r in ok if r["label"].startswith("manual")), key=lambda r: r["seconds"])[:3]
    for _ in range(ctx.profile.repeat - 1):  # the finalists' medians are taken side by side
        for r in finalists:
            again = point(ctx, "heat3d", size_, steps, r["args"], label=r["label"] + " (again)", repeat=1)
            if again["status"] == "ok":
                r["runs"] += again["runs"]
    for r in finalists:
        loop_stats(r)
        r["finalist"] = True
    return rows


def shapes(ctx) -> list[dict]:
    """7-, 19-, 27-point and the radius-2 star out-of-core at the profile's shape ratio, against in-core."""
    rows = []
    for st in STENCILS:
        inc, o = ooc_vs_incore(ctx, st, ctx.profile.shape_ratio, f"{st} ooc")
        cache = in_cache(ctx, st)
        rows += [dict(inc, experiment="shapes"), dict(o, experiment="shapes"),
                 dict(cache, experiment="shapes", label=f"{st} in cache")]
    return rows


def longrun(ctx) -> list[dict]:
    """heat3d with the budget 1/16 of one level, for each of the profile's plane shapes: out-of-core
    (from the --init file, several sweeps) against in-core, the pair run `repeat` times in turn so
    that drift hits both; the ratio of each pair, and of the medians."""
    p = ctx.profile
    rows = []
    for nx, ny in p.long_planes:
        nz = max(8, p.long_level // (nx * ny * 8))
        size_ = (nx, ny, nz)
        budget = nx * ny * nz * 8 // 16
        steps = several_sweeps(ctx, "heat3d", size_, p.long_steps, budget=budget)
        ctx.log(f"  {nx}x{ny} planes, {nz} of them, {steps} steps, --mem {budget >> 20}M")
        pair = {"ooc": None, "incore": None}
        out, ref_out = ctx.scratch / "long-ooc.npy", ctx.scratch / "long-incore.npy"
        for i in range(p.repeat):
            for mode in ("ooc", "incore"):
                keep = (out if mode == "ooc" else ref_out) if i == 0 else None
                r = point(ctx, "heat3d", size_, steps, [], mode=mode, repeat=1, budget=budget,
                          label=f"{nx}x{ny} {mode}", keep_out=keep)
                if pair[mode] is None:
                    pair[mode] = r
                elif r["status"] == "ok":
                    pair[mode]["runs"] += r["runs"]
        o, inc = pair["ooc"], pair["incore"]
        for r in (o, inc):
            if r["status"] == "ok":
                loop_stats(r)
        if o["status"] == "ok" and inc["status"] == "ok":
            o["incore_cells_per_second"] = inc["cells_per_second"]
            # ooc / in-core in cells/s = in-core time / ooc time, pair by pair
            o["pair_ratios"] = [b["loop_seconds"] / a["loop_seconds"] for a, b in zip(o["runs"], inc["runs"])]
            # and by the whole job (import, loop, export): in-core job / ooc job, pair by pair
            o["pair_job_ratios"] = [b["job_seconds"] / a["job_seconds"] for a, b in zip(o["runs"], inc["runs"])
                                    if a.get("job_seconds") and b.get("job_seconds")]
            ctx.log(f"    ooc / in-core by the loop {', '.join(f'{x:.2f}' for x in o['pair_ratios'])}; by the whole "
                    f"job {', '.join(f'{x:.2f}' for x in o['pair_job_ratios'])}")
            if out.exists() and ref_out.exists():
                o["bit_identical_to_incore"] = same_grid(out, ref_out)
        for f in (out, ref_out):
            f.unlink(missing_ok=True)
        rows += [dict(inc, experiment="longrun", planes=[nx, ny]), dict(o, experiment="longrun", planes=[nx, ny])]
    return rows
