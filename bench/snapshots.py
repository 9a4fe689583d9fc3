"""The long run of docs/benchmarks.md with snapshots every K steps against none (issue 31): heat3d out of
core with ``--mem`` 1/16 of a level, the same run without and with ``--save u:every=K --save-to FILE.h5``,
alternated, from the same ``--init`` file of random values.

    python -m bench.snapshots [--planes 512,512] [--level 512M] [--steps 64] [--every 16] [--reps 2]
                              [--dir /var/tmp] [--out DIR]

Prints, for each, the median time loop and whole job (import, loop, export, the snapshot file's commit
included), the bytes written (counted and predicted), the IO model's predicted seconds, and the costs as
ratios: measured (with / without, by the loop and by the job) against predicted (with / without, the time
model's, which writes the snapshots on the device's write curve: docs/out-of-core.md).  The snapshot file's
bytes must be the predicted ones, and its last snapshot the run's ``--out`` (checked on the first pair).
Writes DIR/snapshots.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from pathlib import Path

from bench.common import REPO, build, drop_caches, parse_bytes, random_npy, run


def _summary(label: str, reps: list[dict]) -> dict:
    """The medians of a case's runs."""
    loop = statistics.median(r["seconds"]["loop"] for r in reps)
    job = statistics.median(r["seconds"]["job"] for r in reps)
    pred = statistics.median(r["predicted_seconds"] for r in reps)
    last = reps[-1]
    return {"label": label, "loop_seconds": loop, "job_seconds": job, "predicted_seconds": pred,
            "loops": [r["seconds"]["loop"] for r in reps], "jobs": [r["seconds"]["job"] for r in reps],
            "bytes_written": last["bytes_written"], "predicted_bytes_written": last["predicted_bytes_written"],
            "bytes_read": last["bytes_read"], "predicted_bytes_read": last["predicted_bytes_read"],
            "snapshot_seconds_predicted": last["time_model"].get("snapshots", 0.0), "params": last["params"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--planes", default="512,512", help="nx,ny of the grid (default 512,512)")
    ap.add_argument("--level", default="512M", help="bytes of one level; --mem is 1/16 of it (default 512M)")
    ap.add_argument("--steps", type=int, default=64)
    ap.add_argument("--every", type=int, default=16)
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--dir", type=Path, default=Path("/var/tmp"), help="the device under test (scratch, the file)")
    ap.add_argument("--out", type=Path, default=REPO / "build" / "bench" / "snapshots")
    a = ap.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    nx, ny = (int(v) for v in a.planes.split(","))
    nz = max(8, parse_bytes(a.level) // (nx * ny * 8))
    size, budget = (nx, ny, nz), nx * ny * nz * 8 // 16
    exe = build("examples/heat3d.stn", a.out / "bin" / "heat3d")
    env = dict(os.environ, OMP_NUM_THREADS=str(os.cpu_count()))
    cases = {"none": [], f"every {a.every}": []}
    with tempfile.TemporaryDirectory(prefix="stencilc-snap-", dir=a.dir) as tmp:
        t = Path(tmp)
        init = random_npy(t / "init.npy", size, 12)
        base = ["--size", ",".join(map(str, size)), "--steps", str(a.steps), "--quiet", "--mode", "ooc", "--dir",
                tmp, "--mem", str(budget), "--init", f"u={init}", "--report", str(t / "r.json")]
        for k in range(a.reps):
            for label in cases:
                save = ["--save", f"u:every={a.every}", "--save-to", str(t / "run.h5")] if label != "none" else []
                out = ["--out", f"u={t / 'out.npy'}"] if k == 0 and save else []
                drop_caches()
                rep, _, why = run(exe, [*base, *save, *out], env=env)
                if rep is None:
                    raise SystemExit(f"{label}: {why}")
                if rep["bytes_written"] != rep["predicted_bytes_written"]:
                    raise SystemExit(f"{label}: wrote {rep['bytes_written']} bytes, predicted "
                                     f"{rep['predicted_bytes_written']}")
                cases[label].append(rep)
                if out:  # the last snapshot is the run's final state
                    import h5py
                    import numpy as np

                    with h5py.File(t / "run.h5", "r") as f:
                        if f["u"][-1].tobytes() != np.load(t / "out.npy").tobytes():
                            raise SystemExit("the last snapshot is not the run's --out")
                (t / "run.h5").unlink(missing_ok=True)
    rows = [_summary(label, reps) for label, reps in cases.items()]
    none, snap = rows
    ratios = {"loop": snap["loop_seconds"] / none["loop_seconds"], "job": snap["job_seconds"] / none["job_seconds"],
              "predicted": snap["predicted_seconds"] / none["predicted_seconds"]}
    print(f"heat3d {nx}x{ny}x{nz} out of core, --mem {budget >> 20} MiB (1/16 of a level), {a.steps} steps, "
          f"plan {snap['params']}, {a.reps} alternated pairs, {os.cpu_count()} cores")
    print(f"{'case':10} {'loop s':>8} {'job s':>8} {'predicted s':>12} {'written':>10} {'predicted':>10}")
    for r in rows:
        print(f"{r['label']:10} {r['loop_seconds']:8.2f} {r['job_seconds']:8.2f} {r['predicted_seconds']:12.2f} "
              f"{r['bytes_written'] / 2**20:8.1f}Mi {r['predicted_bytes_written'] / 2**20:8.1f}Mi")
    extra = snap["loop_seconds"] - none["loop_seconds"]
    print(f"cost of the snapshots: loop {ratios['loop']:.2f}x, job {ratios['job']:.2f}x; the time model predicts "
          f"{ratios['predicted']:.2f}x (each run's prediction uses the kernels' rate it measured at startup)")
    print(f"the loop's extra seconds {extra:.2f} against the model's snapshot writes {snap['snapshot_seconds_predicted']:.2f} "
          f"s ({snap['predicted_bytes_written'] - none['predicted_bytes_written']} bytes more on the write curve)")
    ratios["extra_loop_seconds"], ratios["model_snapshot_seconds"] = extra, snap["snapshot_seconds_predicted"]
    (a.out / "snapshots.json").write_text(json.dumps({"size": list(size), "steps": a.steps, "every": a.every,
                                                      "budget": budget, "rows": rows, "ratios": ratios}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
