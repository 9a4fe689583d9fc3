"""Out-of-core under a DRAM cap: stencilc --mode ooc vs in-core vs the mmap method, side by side.

    python bench/ooc_vs_incore.py [--size 512,512,1024] [--steps 32] [--ratios 8,16] [--dir DIR]

heat3d (f64, one field, one level) with the problem P bytes.  For each ratio R the DRAM cap is
P / R, enforced by a fresh memory cgroup (v1 or v2; page cache counted) that the program runs
in; the program finds its budget itself from the cgroup (no --mem).  Page caches are dropped
before every run (said so when not allowed).  In one run, on the same machine:

  incore  the same program, --mode incore, without a cap (the grid fits in DRAM);
  ooc     --mode ooc under the cap (the reference schedule, blocks chosen by the runtime);
  mmap    --mode mmap under the same cap (the paper's mmap baseline: the same kernels on
          mmap'ed files, the page cache decides), stopped after --mmap-timeout seconds.

It prints cells/s and the ratios ooc/incore and ooc/mmap, the cgroup's peak memory (page cache
included) against the cap, OOM kills, and checks that ooc's result is bit-identical to
in-core.  Needs root (cgroups, drop_caches).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Cgroup, build, drop_caches, run, start  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", default="512,512,1024", help="nx,ny,nz (default 2 GiB per level)")
    ap.add_argument("--steps", type=int, default=32)
    ap.add_argument("--ratios", default="8,16", help="problem / DRAM cap ratios")
    ap.add_argument("--dir", default=None, help="scratch directory on the device to test (default: a temp dir in /var/tmp)")
    ap.add_argument("--mmap-timeout", type=float, default=900.0)
    ap.add_argument("--skip-mmap", action="store_true")
    ap.add_argument("--json", default=None, help="write the results here too")
    args = ap.parse_args()
    (nx, ny, nz), work = start(args.size, args.dir, "stencilc-bench-")
    problem = nx * ny * nz * 8
    cells = nx * ny * nz * args.steps
    exe = work / "heat3d"
    build("examples/heat3d.stn", exe)
    common = ["--size", args.size, "--steps", str(args.steps), "--quiet", "--dir", str(work)]
    results: dict = {"size": args.size, "steps": args.steps, "problem_bytes": problem, "runs": []}

    print(f"heat3d {args.size} f64, {args.steps} steps: problem {problem / 2**30:.2f} GiB; scratch in {work}")
    print(f"  page cache before each run: {drop_caches()}")
    rep, wall, status = run(exe, common + ["--mode", "incore", "--report", str(work / "incore.json"), "--out",
                                           f"u={work / 'incore.npy'}"], None, None)
    if rep is None:
        sys.exit(f"in-core run failed: {status}")
    incore = rep["cells_per_second"]
    results["runs"].append({"mode": "incore", "cap": None, "cells_per_second": incore, "wall": wall})
    print(f"  {'incore (no cap)':24s} {incore:10.3e} cells/s   peak RSS {rep['peak_rss_bytes'] / 2**30:6.2f} GiB")

    for ratio in (int(r) for r in args.ratios.split(",")):
        cap = problem // ratio
        print(f"  --- cap {cap / 2**20:.0f} MiB (problem / {ratio})")
        for mode in ("ooc", "mmap"):
            if mode == "mmap" and args.skip_mmap:
                continue
            drop_caches()
            cg = Cgroup(f"stencilc-bench-{mode}-{ratio}", cap)
            out = work / f"{mode}-{ratio}.npy"
            extra = ["--out", f"u={out}"] if mode == "ooc" else []
            rep, wall, status = run(exe, common + ["--mode", mode, "--report", str(work / f"{mode}.json")] + extra,
                                    cg, args.mmap_timeout if mode == "mmap" else None)
            peak, ooms = cg.peak(), cg.oom_kills()
            cg.remove()
            row = {"mode": mode, "ratio": ratio, "cap": cap, "peak_cgroup_bytes": peak, "oom_kills": ooms,
                   "wall": wall, "status": status}
            if rep is not None:
                row.update(cells_per_second=rep["cells_per_second"], params=rep["params"], seconds=rep["seconds"],
                           bytes_read=rep["bytes_read"], bytes_written=rep["bytes_written"],
                           predicted_read=rep["predicted_bytes_read"], predicted_written=rep["predicted_bytes_written"],
                           mem_budget=rep["mem_budget_bytes"], peak_rss=rep["peak_rss_bytes"],
                           peak_pss=rep.get("peak_pss_bytes"),
                           paging_read=rep.get("paging_bytes_read"), paging_written=rep.get("paging_bytes_written"))
                extra_txt = ""
                if mode == "ooc":
                    import numpy as np

                    same = np.array_equal(np.load(out, mmap_mode="r"), np.load(work / "incore.npy", mmap_mode="r"))
                    row["bit_identical_to_incore"] = bool(same)
                    out.unlink()
                    p = rep["params"]
                    extra_txt = (f" blocks by={p['by']} bz={p['bz']} bt={p['bt']}; IO read {rep['bytes_read'] / 2**30:.1f}"
                                 f" GiB (model {rep['predicted_bytes_read'] / 2**30:.1f}), written "
                                 f"{rep['bytes_written'] / 2**30:.1f} GiB; bit-identical: {same}")
                else:
                    extra_txt = (f" paging read {rep['paging_bytes_read'] / 2**30:.1f} GiB, written back "
                                 f"{rep['paging_bytes_written'] / 2**30:.1f} GiB")
                print(f"  {mode + f' (cap 1/{ratio})':24s} {rep['cells_per_second']:10.3e} cells/s   cgroup peak "
                      f"{peak / 2**20:7.1f} MiB of {cap / 2**20:.0f} (page cache included), process peak "
                      f"{rep.get('peak_pss_bytes', rep['peak_rss_bytes']) / 2**20:.1f} MiB, OOM kills {ooms};{extra_txt}")
            else:
                lower = cells / wall
                row["cells_per_second_upper_bound"] = lower
                print(f"  {mode + f' (cap 1/{ratio})':24s} {status}: under {lower:.3e} cells/s after {wall:.0f} s; "
                      f"cgroup peak {peak / 2**20:.1f} MiB, OOM kills {ooms}")
            results["runs"].append(row)
        o = next((r for r in results["runs"] if r.get("mode") == "ooc" and r.get("ratio") == ratio), None)
        m = next((r for r in results["runs"] if r.get("mode") == "mmap" and r.get("ratio") == ratio), None)
        if o and "cells_per_second" in o:
            line = f"  ratios at 1/{ratio}: ooc / incore = {o['cells_per_second'] / incore:.2f}"
            if m:
                mm = m.get("cells_per_second", m.get("cells_per_second_upper_bound"))
                bound = "" if "cells_per_second" in m else " (at least: mmap did not finish)"
                line += f", ooc / mmap = {o['cells_per_second'] / mm:.1f}{bound}"
            print(line)
    (work / "incore.npy").unlink(missing_ok=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    print(f"  command: python bench/ooc_vs_incore.py {shlex.join(sys.argv[1:])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
