"""The seeds' methods and tiers side by side, at 4x and 16x a DRAM budget (seed 000's figure: swap, mmap,
aio; seed 003's DRAM against byte-addressable memory).

    sudo python -m bench.tiers [--pairs 3] [--budget 64M] [--ratios 4,16] [--steps 32] [--dir /var/tmp]

heat3d f64 from one random ``--init`` .npy on the device under test, for each problem size (ratio x the
budget), the methods run in alternated rounds (the order rotates each round), the page cache dropped
before every run:

- ``in-core``            no cap: the grid in DRAM (the reference: speed 1.0, and the bits);
- ``swap, tiles off``    the in-core program in a memory cgroup of the budget plus 64 MiB (the process's own
                         libraries and tables, as every capped run here) with a swap file on the device:
                         the kernel pages (seed 000's "swap"), one sweep of the grid a step;
- ``swap, time tiles``   the same with the in-core engine's temporal tiles (``--time-tiles auto``);
- ``mmap``               ``--mode mmap`` in the cgroup: the grid in files mapped and paged by the kernel;
- ``ooc aio``            ``--mode ooc --mem B`` in the cgroup: libaio and O_DIRECT, temporal blocking;
- ``ooc pmem (tmpfs)``   ``--mode ooc --tier pmem --mem B`` with its scratch files on /dev/shm, mapped with
                         libpmem (seed 003's B-APM at this machine's scale: tmpfs is memory, so this run has
                         no cgroup; its own buffers stay within ``--mem``; the report says is_pmem false).

The paging methods (swap, mmap) are tens of times slower: they run in the first round only, and a
run that passes ``--timeout`` is stopped and shown as a bound (at most cells/s).  Printed: one line per
run, then a table of median cells/s and the ratio to in-core per method and size.  Expects root (the
cgroup, drop_caches, swapon); the swap file is made, switched on for the swap runs only and removed.
Writes only under ``--dir``, /dev/shm and ``--out``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from bench.common import REPO, Cgroup, MiB, build, drop_caches, parse_bytes, run

SLOW = ("swap, tiles off", "swap, time tiles", "mmap")  # tens of times slower: run in the first round only
CAP_EXTRA = 64 << 20  # a capped run's cgroup: the budget plus this (the process's libraries, tables, stack)
METHODS = ("in-core", "swap, tiles off", "swap, time tiles", "mmap", "ooc aio", "ooc pmem (tmpfs)")


class Swap:
    """A swap file on the device under test, on only while a swap run runs."""

    def __init__(self, d: Path, size: int):
        self.path = d / "stencilc-bench.swap"
        subprocess.run(["fallocate", "-l", str(size), str(self.path)], check=True)
        self.path.chmod(0o600)
        subprocess.run(["mkswap", str(self.path)], check=True, capture_output=True)

    def __enter__(self):
        subprocess.run(["swapon", str(self.path)], check=True)
        return self

    def __exit__(self, *exc):
        subprocess.run(["swapoff", str(self.path)], check=True)

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)


def args_for(method: str, size: tuple, steps: int, budget: int, init: Path, scratch: Path, rep: Path) -> list[str]:
    a = ["--size", ",".join(map(str, size)), "--steps", str(steps), "--quiet", "--report", str(rep), "--init",
         f"u={init}"]
    if method.startswith("swap"):
        return a + ["--mode", "incore", "--time-tiles", "off" if "off" in method else "auto"]
    if method == "mmap":
        return a + ["--mode", "mmap", "--dir", str(scratch)]
    if method == "ooc aio":
        return a + ["--mode", "ooc", "--mem", str(budget), "--dir", str(scratch)]
    if method.startswith("ooc pmem"):
        return a + ["--mode", "ooc", "--tier", "pmem", "--mem", str(budget), "--dir", "/dev/shm"]
    return a + ["--mode", "incore"]


def one(exe: Path, method: str, size: tuple, steps: int, budget: int, init: Path, scratch: Path, out: Path,
        swap: Swap, timeout: float) -> dict:
    rep = out / "report.json"
    rep.unlink(missing_ok=True)
    capped = method in ("swap, tiles off", "swap, time tiles", "mmap", "ooc aio")
    drop_caches()
    cg = Cgroup(f"stencilc-tiers-{os.getpid()}", budget + CAP_EXTRA) if capped and Cgroup.available() is None else None
    env = dict(os.environ, OMP_NUM_THREADS=str(os.cpu_count()), OMP_PROC_BIND="close", OMP_PLACES="cores")
    cells = size[0] * size[1] * size[2] * steps
    try:
        if method.startswith("swap"):
            with swap:
                r, wall, why = run(exe, args_for(method, size, steps, budget, init, scratch, rep), cg, timeout, env)
        else:
            r, wall, why = run(exe, args_for(method, size, steps, budget, init, scratch, rep), cg, timeout, env)
        peak = cg.peak() if cg else None
    finally:
        if cg:
            cg.remove()
    if r is None:
        return {"status": why, "wall": wall, "at_most": cells / wall if why == "timeout" else None}
    return {"status": "ok", "wall": wall, "cps": r["cells_per_second"], "job": r["seconds"].get("job"), "peak": peak,
            "is_pmem": r.get("tier", {}).get("is_pmem") if isinstance(r.get("tier"), dict) else None}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=3, help="alternated rounds (default 3)")
    ap.add_argument("--budget", default="64M", help="the DRAM budget B (default 64M)")
    ap.add_argument("--ratios", default="4,16", help="problem sizes as multiples of B (default 4,16)")
    ap.add_argument("--steps", type=int, default=32)
    ap.add_argument("--timeout", type=float, default=90.0, help="seconds a run may take (default 90)")
    ap.add_argument("--only", help="methods whose name contains this, comma-separated (in-core always runs)")
    ap.add_argument("--dir", type=Path, default=Path("/var/tmp"))
    ap.add_argument("--out", type=Path, default=REPO / "build" / "bench" / "tiers")
    a = ap.parse_args(argv)
    budget, out = parse_bytes(a.budget), a.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    methods = [m for m in METHODS if m == "in-core" or not a.only or any(k in m for k in a.only.split(","))]
    exe = build("examples/heat3d.stn", out / "bin" / "heat3d")
    scratch = Path(tempfile.mkdtemp(prefix="stencilc-tiers-", dir=a.dir))
    ratios = [int(x) for x in a.ratios.split(",")]
    swap = Swap(a.dir, 2 * budget * max(ratios) + (256 << 20))
    print(f"cgroup: {Cgroup.available() or 'yes'}; page cache: {drop_caches()}; budget {budget >> 20} MiB; "
          f"load {os.getloadavg()[0]:.2f}", flush=True)
    table = []
    try:
        for ratio in ratios:
            nz = max(8, ratio * budget // (512 * 512 * 8))
            size = (512, 512, nz)
            init = scratch / "init.npy"
            np.save(init, np.random.default_rng(ratio).random((nz, 512, 512)))
            print(f"\n## {ratio}x: heat3d 512x512x{nz} f64 ({ratio * budget >> 20} MiB a level), {a.steps} steps",
                  flush=True)
            got: dict[str, list[dict]] = {m: [] for m in methods}
            for i in range(a.pairs):
                k = i % len(methods)
                for m in methods[k:] + methods[:k]:
                    if i > 0 and m in SLOW:
                        continue
                    r = one(exe, m, size, a.steps, budget, init, scratch, out, swap, a.timeout)
                    got[m].append(r)
                    what = (f"{r['cps'] / 1e6:8.1f} Mcell/s  wall {r['wall']:6.1f} s  peak "
                            f"{(r['peak'] or 0) / MiB:5.0f} MiB" if r["status"] == "ok" else
                            f"{r['status']} after {r['wall']:.0f} s" + (f" (at most {r['at_most'] / 1e6:.1f} Mcell/s)"
                                                                      if r.get("at_most") else ""))
                    print(f"    {m:18s} {what}", flush=True)
            base = statistics.median([r["cps"] for r in got["in-core"] if r["status"] == "ok"] or [float("nan")])
            for m in methods:
                ok = [r["cps"] for r in got[m] if r["status"] == "ok"]
                bound = [r["at_most"] for r in got[m] if r.get("at_most")]
                med = statistics.median(ok) if ok else None
                table.append((ratio, m, med, (med / base) if med else None, max(bound) if bound and not ok else None))
            init.unlink(missing_ok=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        swap.remove()
    print("\n| problem | method | Mcell/s (median) | / in-core |\n|---|---|---|---|")
    for ratio, m, med, rel, bound in table:
        cps = f"{med / 1e6:.1f}" if med else (f"< {bound / 1e6:.1f} (timed out)" if bound else "failed")
        print(f"| {ratio}x | {m} | {cps} | {rel:.3f} |" if rel else f"| {ratio}x | {m} | {cps} | |")
    print(f"load at the end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
