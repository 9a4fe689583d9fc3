"""Periodic boundaries out of core: examples/d2q9.stn (lattice Boltzmann, periodic in x and y, nine
fields) on a long run that reads its state from --init files, three ways side by side:

- in-core (every level in DRAM), the reference;
- out-of-core with the wedge (sweeps of bt steps wrap around y, the streaming axis): the tuner's
  blocks for a DRAM budget of 1/FRACTION of one level of all fields;
- out-of-core one step a sweep (bt = 1, the same rows a block): what a periodic stencil costs
  without the wedge (every step reads and writes every level).

    python -m bench.periodic [--size 2050,2050] [--steps 64] [--fraction 8] [--reps 2] [--out DIR]

Each out-of-core run is in a memory cgroup of 4/3 of its budget plus 48 MiB (page cache included) when this
machine allows it, the page cache is dropped before every run, and the runs alternate.  The
first repetition checks that the three give the same bits.  Prints the median seconds, the
rates and ratios (out-of-core / in-core), the bytes against the model's, and writes
DIR/periodic.json.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from bench.common import CAP_RULE, REPO, Cgroup, build, drop_caches, median_spread, run, run_cap


def shear_wave(nx: int, ny: int):
    """D2Q9's equilibrium for a shear wave uy = U sin(2 pi (x-1)/(nx-2)) with a density ripple
    along y, so that the wrap in y matters: (ny, nx) arrays f0..f8."""
    import numpy as np

    x = np.arange(nx, dtype=np.float64)[None, :]
    y = np.arange(ny, dtype=np.float64)[:, None]
    rho = 1 + 0.01 * np.cos(2 * np.pi * (y - 1) / (ny - 2))
    ux = np.zeros((ny, nx))
    uy = 0.05 * np.sin(2 * np.pi * (x - 1) / (nx - 2)) + 0 * y
    e = [(0, 0), (1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1)]
    w = [4 / 9] + [1 / 9] * 4 + [1 / 36] * 4
    usq = 1.5 * (ux * ux + uy * uy)
    return [wi * rho * (1 + 3 * (ex * ux + ey * uy) + 4.5 * (ex * ux + ey * uy) ** 2 - usq) for wi, (ex, ey) in zip(w, e)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="2050,2050", help="nx,ny, boundary layer included")
    ap.add_argument("--steps", type=int, default=64)
    ap.add_argument("--fraction", type=int, default=8, help="the budget: one level of all fields / FRACTION")
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--out", type=Path, default=REPO / "build" / "bench" / "periodic")
    a = ap.parse_args(argv)
    import numpy as np

    a.out.mkdir(parents=True, exist_ok=True)
    nx, ny = map(int, a.size.split(","))
    exe = build("examples/d2q9.stn", a.out / "bin" / "d2q9")
    level = 9 * nx * ny * 8
    budget = level // a.fraction
    why = Cgroup.available()
    inits = []
    for i, f in enumerate(shear_wave(nx, ny)):
        path = a.out / f"f{i}.npy"
        np.save(path, f)
        inits += ["--init", f"f{i}={path}"]
    runs = {
        "in-core": ["--mode", "incore"],
        "ooc, the wedge (tuned)": ["--mode", "ooc", "--mem", str(budget)],
        "ooc, one step a sweep": None,  # the wedge's rows, bt = 1 (set after the first tuned run)
    }
    times: dict[str, list[float]] = {k: [] for k in runs}
    reports: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(dir=a.out) as tmp:
        tmp = Path(tmp)
        for k in range(a.reps):
            for label, extra in runs.items():
                if extra is None:
                    by = reports["ooc, the wedge (tuned)"]["params"]["by"]
                    extra = runs[label] = ["--mode", "ooc", "--mem", str(budget), "--block", f"{by},1"]
                rep = tmp / "r.json"
                args = ["--size", f"{nx},{ny}", "--steps", str(a.steps), "--quiet", "--dir", str(tmp), "--report",
                        str(rep), *inits, *extra]
                if k == 0:
                    args += ["--out", f"f3={tmp / (label[:6].replace(' ', '_').replace(',', '') + '.npy')}"]
                ooc = "ooc" in label
                cg = Cgroup(f"stencilc-periodic-{k}", run_cap(budget)) if ooc and why is None else None
                drop_caches()
                r, wall, status = run(exe, args, cg=cg)
                if cg:
                    cg.remove()
                if r is None:
                    raise SystemExit(f"{label}: {status}")
                times[label].append(r["seconds"]["total"])
                reports[label] = r
        outs = sorted(tmp.glob("*.npy"))
        same = len(outs) == 3 and all(np.array_equal(np.load(outs[0]), np.load(o)) for o in outs[1:])
    cells = nx * ny * a.steps
    base = median_spread(times["in-core"])[0]
    print(f"d2q9 --size {nx},{ny} --steps {a.steps}: one level of the nine fields {level / 2**20:.0f} MiB; "
          f"out-of-core budget {budget / 2**20:.1f} MiB (1/{a.fraction}), "
          f"{'cgroup ' + CAP_RULE if why is None else 'NOT in a cgroup: ' + why}; state read from --init files, "
          f"page cache dropped before each run; {a.reps} reps, median")
    rows = []
    for label in runs:
        m, spread = median_spread(times[label])
        r = reports[label]
        p = r["params"]
        row = {"run": label, "seconds": m, "spread": spread, "cells_per_second": cells / m,
               "vs_incore": base / m, "by": p["by"], "bt": p["bt"],
               "bytes_read": r["bytes_read"], "bytes_written": r["bytes_written"],
               "predicted_exact": r["bytes_read"] == r["predicted_bytes_read"]
               and r["bytes_written"] == r["predicted_bytes_written"]}
        rows.append(row)
        blocks = f"by {p['by']} bt {p['bt']}" if "ooc" in label else "-"
        print(f"  {label:26s} {m:7.2f} s (±{100 * spread:.0f}%)  {cells / m / 1e6:7.1f} Mcell/s  "
              f"x{base / m:.2f} of in-core  {blocks:14s} read {r['bytes_read'] / 2**30:6.2f} GiB  "
              f"written {r['bytes_written'] / 2**30:6.2f} GiB  {'= model' if row['predicted_exact'] else '!= MODEL'}")
    print(f"  bit-identical: {'yes' if same else 'NO'}")
    (a.out / "periodic.json").write_text(json.dumps({"size": [nx, ny], "steps": a.steps, "budget": budget,
                                                     "cgroup": why is None, "bit_identical": same, "runs": rows},
                                                    indent=2))
    return 0 if same and all(r["predicted_exact"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
