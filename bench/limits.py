"""The machine's limits, measured in the same run as the experiments they bound.

- DRAM: a STREAM-style triad on all threads (bench/c/triad.c), best of several.
- IO: O_DIRECT sequential write and read bandwidth of the device under --dir, through libaio
  at several queue depths (bench/c/aiobw.c), the way the runtime drives it.
- The device curve: `stencilc probe --dir DIR`, written where every run of the bench finds it,
  so that each out-of-core report's predicted_seconds uses the device under test.
- Compute: the stencil's own in-core rate on a grid that fits in L2/L3 (no DRAM traffic to
  speak of): what the cores can do with this kernel.  Measured per stencil by the experiments.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from bench.common import GiB, MiB, cc, sh


def triad(ctx) -> dict:
    """STREAM triad bandwidth (bytes/s, STREAM's 24 bytes per element)."""
    exe = cc("triad.c", ctx.work / "bin" / "triad")
    n = ctx.profile.triad_doubles
    out = json.loads(sh([str(exe), str(n), "20"], env=ctx.omp_env()).stdout)
    print(f"  DRAM: STREAM triad on {out['threads']} threads, 3 x {n * 8 / MiB:.0f} MiB: "
          f"{out['bytes_per_second'] / 1e9:.1f} GB/s (best of 20; median {24 * n / out['median_seconds'] / 1e9:.1f}); "
          f"copy {out['copy_bytes_per_second'] / 1e9:.1f} GB/s")
    return out


def aio(ctx) -> dict:
    """O_DIRECT write and read bandwidth under --dir at each queue depth; None entries when refused."""
    exe = cc("aiobw.c", ctx.work / "bin" / "aiobw", "-laio")
    p = ctx.profile
    f = Path(ctx.dir) / f".stencilc-aiobw-{os.getpid()}"
    cmd = [str(exe), str(f), str(p.aio_bytes), str(p.aio_request), ",".join(map(str, p.aio_qds))]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode == 77:
        print(f"  IO: {ctx.dir} refuses O_DIRECT ({r.stderr.strip()}); no IO bound drawn")
        return {"refused": r.stderr.strip(), "runs": []}
    if r.returncode != 0:
        raise RuntimeError(f"aiobw failed: {r.stderr.strip()}")
    runs = [json.loads(ln) for ln in r.stdout.splitlines()]
    best = {d: max(x["bytes_per_second"] for x in runs if x["direction"] == d) for d in ("read", "write")}
    print(f"  IO: O_DIRECT + libaio on {ctx.dir}, {p.aio_bytes / GiB:.0f} GiB in {p.aio_request / MiB:.0f} MiB requests: "
          + ", ".join(f"QD {x['qd']} {x['direction']} {x['bytes_per_second'] / 1e9:.2f}" for x in runs) + " GB/s")
    return {"runs": runs, "best_read": best["read"], "best_write": best["write"], "file": str(f),
            "request_bytes": p.aio_request}


def probe(ctx) -> dict:
    """`stencilc probe` on the device under test: the time model's curves for every run that follows."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "compiler"))
    from stencilc.toolchain import cache_dir

    st = os.stat(ctx.dir)
    path = cache_dir() / "devices" / f"{os.major(st.st_dev)}-{os.minor(st.st_dev)}.json"
    r = subprocess.run([sys.executable, "-m", "stencilc", "probe", "--dir", str(ctx.dir), "--quiet"],
                       capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1] / "compiler")))
    if r.returncode != 0:
        print(f"  device curve: stencilc probe failed ({r.stderr.strip()}); runs predict with the default curves")
        return {"failed": r.stderr.strip()}
    m = json.loads(path.read_text())
    print(f"  device curve (stencilc probe, {path}): read {m['read']}; write {m['write']}; "
          f"mixed {m.get('mixed')}; mixed_new {m.get('mixed_new')}; compute_under_io {m.get('compute_under_io')}; "
          f"io_under_compute {m.get('io_under_compute')}")
    keys = ("read", "write", "mixed", "mixed_new", "compute_under_io", "io_under_compute")
    return {"path": str(path), **{k: m[k] for k in keys if k in m}}


def measure(ctx) -> dict:
    print("limits:")
    return {"triad": triad(ctx), "aio": aio(ctx), "probe": probe(ctx)}
