"""stencilc's benchmark runner: the Blk-Tune paper's experiments at this machine's scale, with the machine's
limits measured in the same run, written as JSON, CSV, PNG plots and a markdown report.

    python -m bench [--profile quick|full] [--only EXP,...] [--dir DIR] [--out DIR] [--report FILE]

Profiles: `quick` (a few minutes: small grids, 2 repeats; what `make bench` runs) and `full`
(about two hours on a 2-core VM: larger grids, several sweeps read back from flash, 3 repeats
where a run is short, both peer sizes; what docs/benchmarks.md holds).  Experiments: limits (always), size, methods, tuners, shapes, peers
(bench/experiments.py, bench/peer_runs.py).  --dir is the device under test: the scratch files and
the O_DIRECT bandwidth test go there.

Needs root for what proves a DRAM budget: the memory cgroup (v1 or v2) each out-of-core run is
capped in, and dropping the page cache before each run.  Without root it still runs, says so in
its output and in the report, and the budgets are then the programs' word only.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import os
import platform
import shlex
import shutil
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bench import experiments, limits, peer_runs
from bench.common import REPO, Cgroup, drop_caches


@dataclass(frozen=True)
class Profile:
    name: str
    budget: int  # the DRAM budget (--mem) of every out-of-core run; its cgroup is 4/3 of it
    plane: int  # nx = ny of the out-of-core grids
    ratios: tuple[int, ...]  # problem / budget in the size experiment
    steps: int
    repeat: int
    method_ratio: int  # problem / budget of methods, tuners, shapes
    mmap_timeout: float
    manual_max: int  # at most this many hand-picked blockings (before the halves)
    cache_edge: int  # the in-cache grid of the compute bound
    cache_steps: int
    peer_sizes: tuple[int, ...]
    peer_steps: int
    numpy_divisor: int  # NumPy is timed over steps / this (it is slow), scaled back
    triad_doubles: int
    aio_bytes: int
    aio_request: int
    long_level: int = 1 << 30  # bytes of one level in the longrun experiment (--mem is 1/16 of it)
    long_steps: int = 64
    shape_ratio: int = 8  # problem / budget of the shapes experiment
    slow_method_repeat: int = 0  # alg1 and alg2 run this many times (0: the profile's repeat)
    long_planes: tuple[tuple[int, int], ...] = ((512, 512), (1024, 512), (2048, 2048))
    aio_qds: tuple[int, ...] = field(default=(1, 4, 16, 64))


PROFILES = {
    "quick": Profile("quick", budget=64 << 20, plane=256, ratios=(1, 4, 16), steps=64, repeat=2, method_ratio=8,
                     mmap_timeout=60, manual_max=4, cache_edge=64, cache_steps=1000, peer_sizes=(256,), peer_steps=10,
                     numpy_divisor=5, triad_doubles=1 << 25, aio_bytes=1 << 30, aio_request=1 << 20,
                     long_level=512 << 20),
    "full": Profile("full", budget=256 << 20, plane=512, ratios=(1, 4, 16), steps=128, repeat=3, method_ratio=8,
                    mmap_timeout=300, manual_max=12, cache_edge=64, cache_steps=4000, peer_sizes=(256, 512),
                    peer_steps=20, numpy_divisor=5, triad_doubles=1 << 26, aio_bytes=4 << 30, aio_request=1 << 20,
                    long_level=2 << 30, long_steps=128, aio_qds=(1, 2, 4, 8, 16, 32, 64), shape_ratio=4,
                    slow_method_repeat=1),
}
EXPERIMENTS = {"size": experiments.size, "methods": experiments.methods, "tuners": experiments.tuners,
               "shapes": experiments.shapes, "longrun": experiments.longrun, "peers": peer_runs.peers}


class Context:
    """What every experiment sees: the profile, where things go, whether budgets are enforced."""

    def __init__(self, profile: Profile, dev_dir: Path):
        self.profile = profile
        self.root = REPO / "build" / "bench"
        self.work = self.root / "work"
        self.dir = dev_dir
        self.scratch = Path(tempfile.mkdtemp(prefix="stencilc-bench-", dir=dev_dir))
        why = Cgroup.available()
        self.cgroups, self.cgroup_note = why is None, why or "every out-of-core run in its own memory cgroup"
        self.caches = drop_caches()
        self.memo: dict = {}
        self.logfile = None

    def omp_env(self) -> dict:
        return dict(os.environ, OMP_NUM_THREADS=str(os.cpu_count()), OMP_PROC_BIND="close", OMP_PLACES="cores",
                    PYTHONPATH=str(REPO / "compiler"))

    def log(self, msg: str) -> None:
        print(msg, flush=True)
        if self.logfile:
            self.logfile.write(msg + "\n")
            self.logfile.flush()


def machine() -> dict:
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")), "?")
    mem = next((int(ln.split()[1]) * 1024 for ln in open("/proc/meminfo") if ln.startswith("MemTotal")), 0)
    return {"cpu": cpu, "cores": os.cpu_count(), "mem_total_bytes": mem, "kernel": platform.release(),
            "python": platform.python_version(), "host": platform.node()}


CSV_COLS = ["experiment", "label", "stencil", "mode", "size", "steps", "ratio", "budget", "cap", "status", "seconds",
            "spread", "cells_per_second", "bytes_read", "bytes_written", "predicted_bytes_read",
            "predicted_bytes_written", "peak_cgroup", "oom_kills", "bit_identical_to_incore", "params", "version"]


def write_csv(rows: list[dict], path: Path) -> None:
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_COLS, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: (json.dumps(v) if isinstance(v, (list, dict)) else v) for k, v in r.items()})


def redraw(path: Path, args) -> int:
    """Plots and report again from saved results (into --out, default beside the JSON)."""
    from bench import plots, report

    results = json.loads(path.read_text())
    if (path.resolve().parent / "mpi.json").exists():  # bench/mpi.py's, copied beside (docs/benchmarks.md, 8.)
        results["mpi"] = json.loads((path.resolve().parent / "mpi.json").read_text())
    if (path.resolve().parent / "mpi_splits.json").exists():  # bench.mpi --splits (8., the cartesian splits)
        results["mpi_splits"] = json.loads((path.resolve().parent / "mpi_splits.json").read_text())
    out = Path(args.out).resolve() if args.out else path.resolve().parent
    out.mkdir(parents=True, exist_ok=True)
    figs = plots.make(results, out)
    dest = Path(args.report).resolve() if args.report else out / "benchmarks.md"
    report.write(results, figs, dest)
    print(f"{dest} and {len(figs)} plots in {out}, from {path} (measured {results['date']})")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--profile", choices=PROFILES, default="quick")
    ap.add_argument("--only", default=",".join(EXPERIMENTS), help=f"a subset of {','.join(EXPERIMENTS)}")
    ap.add_argument("--dir", default="/var/tmp", help="the device under test: scratch files and the O_DIRECT test "
                                                      "(default /var/tmp)")
    ap.add_argument("--out", default=None, help="JSON, CSV and PNGs (default build/bench/PROFILE)")
    ap.add_argument("--report", default=None, help="the markdown report (default OUT/benchmarks.md)")
    ap.add_argument("--repeat", type=int, default=None, help="override the profile's repeats")
    ap.add_argument("--from-results", metavar="JSON", default=None,
                    help="measure nothing: redraw the plots and rewrite the report from a results.json")
    args = ap.parse_args(argv)
    if args.from_results:
        return redraw(Path(args.from_results), args)
    only = [e for e in args.only.split(",") if e]
    bad = [e for e in only if e not in EXPERIMENTS]
    if bad:
        ap.error(f"unknown experiment {', '.join(bad)}; choose from {', '.join(EXPERIMENTS)}")
    prof = PROFILES[args.profile]
    if args.repeat:
        prof = Profile(**dict(asdict(prof), repeat=args.repeat))
    out = Path(args.out or REPO / "build" / "bench" / prof.name).resolve()
    report_path = Path(args.report).resolve() if args.report else out / "benchmarks.md"
    out.mkdir(parents=True, exist_ok=True)
    dev = Path(args.dir).resolve()
    if not dev.is_dir():
        ap.error(f"--dir {dev}: not a directory")
    ctx = Context(prof, dev)
    ctx.logfile = open(out / "log.txt", "w")
    command = "python -m bench " + shlex.join(sys.argv[1:] if argv is None else argv)
    t0 = time.monotonic()
    ctx.log(f"stencilc benchmarks, profile {prof.name}: {command}")
    ctx.log(f"  budgets: {'enforced: ' if ctx.cgroups else 'NOT enforced: '}{ctx.cgroup_note}")
    ctx.log(f"  page cache before each run: {ctx.caches}")
    ctx.log(f"  scratch: {ctx.scratch}; results: {out}")
    results = {"date": datetime.datetime.now().isoformat(timespec="seconds"), "command": command,
               "profile": asdict(prof), "machine": machine(), "dir": str(dev), "cgroups": ctx.cgroups,
               "cgroup_note": ctx.cgroup_note, "caches": ctx.caches, "experiments": only, "rows": []}
    try:
        results["limits"] = limits.measure(ctx)
        ctx.log("  compute: heat3d in cache")
        results["limits"]["in_cache"] = {"heat3d": experiments.in_cache(ctx, "heat3d")}
        for name in only:
            ctx.log(f"{name}:")
            t1 = time.monotonic()
            rows = EXPERIMENTS[name](ctx)
            results["rows"] += rows
            results.setdefault("seconds", {})[name] = time.monotonic() - t1
            (out / "results.json").write_text(json.dumps(results, indent=1))
        for st in experiments.STENCILS:
            if any(r.get("stencil") == st for r in results["rows"]) and st not in results["limits"]["in_cache"]:
                results["limits"]["in_cache"][st] = experiments.in_cache(ctx, st)
    finally:
        shutil.rmtree(ctx.scratch, ignore_errors=True)
    results["seconds_total"] = time.monotonic() - t0
    (out / "results.json").write_text(json.dumps(results, indent=1))
    write_csv(results["rows"], out / "results.csv")
    from bench import plots, report

    figs = plots.make(results, out)
    report.write(results, figs, report_path)
    ctx.log(f"done in {results['seconds_total'] / 60:.1f} min: {report_path}, {len(figs)} plots in {out}")
    return 0
