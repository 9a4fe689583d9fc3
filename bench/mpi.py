"""MPI ranks, each out of core (issue 17, docs/design/018): strong and weak scaling of heat3d on this
machine up to 4 ranks, and the time model's extrapolation to N machines.

- strong: one grid (PLANE x PLANE x NZ, f64) for 1..4 ranks;
- weak: NZ x P planes for P ranks (each rank's slab the same);
each rank with the same DRAM budget (--mem: one level / FRACTION), its state read back from an --init
file, several sweeps (Blk-Tune's blocks); the whole job in one memory cgroup of the ranks' budgets x 4/3
when this machine allows it, the page cache dropped before each run, the runs alternating.  Each
strong run's --out must be the one-rank run's bits; every run's bytes and messages the model's.

On this 2-core VM 3 and 4 ranks are oversubscribed (two cores for all of them) and all ranks share
one virtual disk: what scales here is what the ranks' slabs do to IO and the messages' cost, not the
cores.  The extrapolation says what N machines like this one would do: each rank on a machine of its
own with this machine's cores and disk, its slab's time from the runtime's own time model (the
one-rank --plan-only report's predicted_seconds of a grid the slab's size, ghosts included), plus the
ghosts' messages at a network's bandwidth and latency (measured here between two ranks through
shared memory, and assumed for 10 Gb/s Ethernet and 100 Gb/s InfiniBand), the exchange counted whole
(the runtime overlaps its way down with the next sweep only when its buffers take at most an eighth
of the budget, design 019: not at these budgets).

--splits runs instead the cartesian splits of design 019 side by side: 4 ranks on the strong grid as
1x1x4 (the streaming axis alone), 2x1x2, 1x2x2 and 2x2x1 (--ranks), each rank's budget the same, the
same bits each; the cut across the rows costs a pass over each part's files at every exchange.

    python -m bench.mpi [--plane 256] [--nz 512] [--steps 48] [--fraction 8] [--ranks 1,2,3,4] [--reps 2]
    python -m bench.mpi --splits [--plane 256] [--nz 512] [--steps 48] [--fraction 8] [--reps 2]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.common import CAP_RULE, REPO, Cgroup, cflags, drop_caches, median_spread, run, run_cap, sh

MPIRUN = shutil.which("mpirun") or "mpirun"
FLAGS = ["--oversubscribe", "--bind-to", "none", "--mca", "btl", "self,vader"] + \
    (["--allow-run-as-root"] if os.geteuid() == 0 else [])
NETWORKS = {"10 Gb/s Ethernet": (1.25e9, 20e-6), "100 Gb/s InfiniBand": (12.5e9, 2e-6)}  # bytes/s, latency


def build_mpi(out: Path) -> Path:
    exe = out / "bin" / "heat3d_mpi"
    exe.parent.mkdir(parents=True, exist_ok=True)
    sh([sys.executable, "-m", "stencilc", str(REPO / "examples" / "heat3d.stn"), "--mpi", "-o", str(exe)],
       env=dict(os.environ, PYTHONPATH=str(REPO / "compiler")))
    return exe


def pingpong(out: Path) -> dict:
    """MPI's one-way time between two ranks here, by message size: (latency, bandwidth) from it."""
    exe = out / "bin" / "pingpong"
    sh(["mpicc", *cflags().split(), "-fno-openmp", str(REPO / "bench" / "c" / "pingpong.c"), "-o", str(exe)])
    p = sh([MPIRUN, *FLAGS, "-np", "2", str(exe)])
    pts = [(int(a), float(b)) for a, b in (ln.split() for ln in p.stdout.split("\n") if ln.strip())]
    small, big = pts[0], pts[-1]
    return {"latency": small[1], "bandwidth": big[0] / big[1], "points": pts}


def mpi_run(exe: Path, P: int, args: list[str], budget: int, why: str | None, tag: str):
    cg = Cgroup(f"stencilc-mpi-{tag}", P * run_cap(budget)) if why is None else None
    drop_caches()
    r, wall, status = run(Path(MPIRUN), [*FLAGS, "-np", str(P), str(exe), *args], cg=cg)
    peak = cg.peak() if cg else -1
    if cg:
        cg.remove()
    if r is None:
        raise SystemExit(f"{P} ranks: {status}")
    return r, wall, peak


def predicted_slab(exe: Path, plane: int, nz: int, steps: int, budget: int, tmp: Path, most_bt: int = 0) -> dict:
    """The runtime's time model for one rank's slab of nz planes (one process, --plan-only): Blk-Tune's
    plan, its bt capped at most_bt (the ghosts a neighbour's slab can give) with the same blocks."""
    rep = tmp / "plan.json"

    def plan(extra):
        p = subprocess.run([str(exe), "--size", f"{plane},{plane},{nz}", "--steps", str(steps), "--mode", "ooc",
                            "--mem", str(budget), "--dir", str(tmp), "--plan-only", "--quiet", "--report", str(rep),
                            *extra], capture_output=True, text=True)
        return json.loads(rep.read_text()) if p.returncode == 0 else None

    r = plan([])
    if r is None:
        raise SystemExit(f"no plan for {plane}x{plane}x{nz} in {budget} bytes")
    bz = r["params"]["bz"]
    while most_bt and r["params"]["bt"] > most_bt:  # the ghosts' cap: the same blocks, or thinner ones
        capped = plan(["--block", f"{plane},{bz},{most_bt}"])
        if capped:
            r = capped
        elif bz == 1:
            return None  # (no plan of whole planes with ghosts this deep fits the budget)
        bz = max(1, bz // 2)
    return {"seconds": r["predicted_seconds"], "bt": r["params"]["bt"], "source": r["time_model"]["device_source"]}


SPLITS = ("1,1,4", "2,1,2", "1,2,2", "2,2,1")


def splits(a, exe: Path, budget: int, why: str | None) -> int:
    """4 ranks, one grid, every split of SPLITS: seconds, bytes, messages, the model, the bits."""
    import numpy as np

    times: dict[str, list[float]] = {}
    reports: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(dir=a.out) as tmp:
        tmp = Path(tmp)
        init = tmp / "u.npy"
        np.save(init, np.random.default_rng(7).random((a.nz, a.plane, a.plane)))
        for k in range(a.reps):
            for sp in SPLITS:
                d = tmp / sp.replace(",", "x")
                d.mkdir(exist_ok=True)
                args = ["--size", f"{a.plane},{a.plane},{a.nz}", "--steps", str(a.steps), "--mode", "ooc",
                        "--mem", str(budget), "--dir", str(d / "r%r"), "--init", f"u={init}", "--quiet",
                        "--ranks", sp, "--report", str(d / "r.json")]
                if k == 0:
                    args += ["--out", f"u={d / 'out.npy'}"]
                r, wall, peak = mpi_run(exe, 4, args, budget, why, "split" + sp.replace(",", ""))
                times.setdefault(sp, []).append(r["seconds"]["total"])
                r["cgroup_peak"] = peak
                reports[sp] = r
        base = np.load(tmp / SPLITS[0].replace(",", "x") / "out.npy")
        same = all(np.array_equal(base, np.load(tmp / sp.replace(",", "x") / "out.npy")) for sp in SPLITS[1:])
    print(f"heat3d {a.plane}x{a.plane}x{a.nz}, {a.steps} steps, 4 ranks, each --mem {budget / 2**20:.0f} MiB; "
          f"{'one cgroup for the job' if why is None else 'NOT in a cgroup: ' + why}; state read from an --init "
          f"file; page cache dropped before each run; {a.reps} reps, median")
    rows = []
    t0 = median_spread(times[SPLITS[0]])[0]
    for sp in SPLITS:
        m, spread = median_spread(times[sp])
        r = reports[sp]
        mp = r["mpi"]
        exact = (r["bytes_read"], r["bytes_written"], mp["message_bytes"]) == \
            (r["predicted_bytes_read"], r["predicted_bytes_written"], mp["predicted_message_bytes"])
        row = {"ranks": sp, "seconds": m, "spread": spread, "ratio": m / t0, "bt": r["params"]["bt"],
               "bytes_read": r["bytes_read"], "bytes_written": r["bytes_written"],
               "message_bytes": mp["message_bytes"], "overlapped": mp["overlapped"], "model_exact": exact,
               "predicted_seconds_rank0": r.get("predicted_seconds"), "cgroup_peak": r["cgroup_peak"]}
        rows.append(row)
        print(f"  --ranks {sp}: {m:6.2f} s (±{100 * spread:.0f}%, {m / t0:4.2f} x 1,1,4)  bt {row['bt']:3d}  "
              f"read {r['bytes_read'] / 2**30:5.2f} GiB written {r['bytes_written'] / 2**30:5.2f} GiB  "
              f"messages {mp['message_bytes'] / 2**20:7.1f} MiB  overlapped {mp['overlapped']}  "
              f"{'= model' if exact else '!= MODEL'}  cgroup peak {peak_mib(r)}")
    print(f"  bit-identical to --ranks 1,1,4: {'yes' if same else 'NO'}")
    import datetime

    (a.out / "mpi_splits.json").write_text(json.dumps({"date": datetime.date.today().isoformat(), "plane": a.plane,
                                                       "nz": a.nz, "steps": a.steps, "budget": budget,
                                                       "reps": a.reps, "cgroup": why is None,
                                                       "bit_identical": same, "runs": rows}, indent=2))
    return 0 if same and all(r["model_exact"] for r in rows) else 1


def peak_mib(r: dict) -> str:
    return f"{r['cgroup_peak'] / 2**20:.0f} MiB" if r["cgroup_peak"] >= 0 else "n/a"


def measure(a, exe: Path, budget: int, why: str | None, ranks: list[int], tmp: Path):
    """The strong and weak runs, ``a.reps`` times, alternating: (kind, P) -> the runs' seconds, the
    time loops' seconds, and the last run's report; whether every strong run's --out is the one-rank run's."""
    import numpy as np

    inits = {}
    for nz in sorted({a.nz * P for P in ranks} | {a.nz}):
        inits[nz] = tmp / f"u{nz}.npy"
        rng = np.random.default_rng(nz)
        np.save(inits[nz], rng.random((nz, a.plane, a.plane)))
    times: dict[tuple, list[float]] = {}
    loops: dict[tuple, list[float]] = {}
    reports: dict[tuple, dict] = {}
    for k in range(a.reps):
        for kind in ("strong", "weak"):
            for P in ranks:
                nz = a.nz if kind == "strong" else a.nz * P
                d = tmp / f"{kind}{P}"
                d.mkdir(exist_ok=True)
                args = ["--size", f"{a.plane},{a.plane},{nz}", "--steps", str(a.steps), "--mode", "ooc",
                        "--mem", str(budget), "--dir", str(d / "r%r"), "--init", f"u={inits[nz]}", "--quiet",
                        "--report", str(d / "r.json")]
                if k == 0 and kind == "strong":
                    args += ["--out", f"u={tmp / f'out{P}.npy'}"]
                r, wall, peak = mpi_run(exe, P, args, budget, why, f"{kind}{P}")
                times.setdefault((kind, P), []).append(r["seconds"]["total"])
                cps = r.get("cells_per_second") or 0  # (the time loop's, rank 0's: the ranks run in step)
                loops.setdefault((kind, P), []).append(a.plane * a.plane * nz * a.steps / cps if cps else 0)
                r["cgroup_peak"] = peak
                reports[(kind, P)] = r
    base_out = np.load(tmp / f"out{ranks[0]}.npy")
    same = all(np.array_equal(base_out, np.load(tmp / f"out{P}.npy")) for P in ranks[1:])
    return times, loops, reports, same


def extrapolate(a, exe: Path, budget: int, tmp: Path, net: dict) -> list[dict]:
    """The model for N machines: strong (this grid) and weak (NZ planes a machine)."""
    extrap = []
    for N in (1, 2, 4, 8, 16, 32, 64):
        for kind in ("strong", "weak"):
            total = a.nz * N if kind == "weak" else a.nz
            own = total / N
            if own < 4:
                continue
            cap = int(own) if N > 1 else 0  # heat3d's skew is 1: ghosts of bt planes, at most a slab
            first = predicted_slab(exe, a.plane, max(3, round(own)), a.steps, budget, tmp, cap)
            g = first["bt"] if first and N > 1 else 0
            slab = first and predicted_slab(exe, a.plane, max(3, round(own + 2 * g)), a.steps, budget, tmp, g or 0)
            if not slab:
                extrap.append({"kind": kind, "machines": N, "grid_planes": total, "no_plan": True})
                continue
            sweeps = -(-a.steps // max(1, slab["bt"]))
            msg = 2 * g * a.plane * a.plane * 8 if N > 1 else 0  # each way, a rank in the middle
            row = {"kind": kind, "machines": N, "grid_planes": total, "slab_seconds": slab["seconds"],
                   "bt": slab["bt"], "exchanges": sweeps - 1, "message_bytes": msg}
            for name, (bw, lat) in {**NETWORKS, "this machine's MPI (shared memory)":
                                    (net["bandwidth"], net["latency"])}.items():
                row[name] = slab["seconds"] + (sweeps - 1) * (msg / bw + 2 * g * lat)  # (a message a slice)
            extrap.append(row)
    return extrap


def print_runs(a, ranks: list[int], times, loops, reports) -> list[dict]:
    """One row a run (kind, ranks), printed: medians, speedup or efficiency, bytes against the model."""
    rows = []
    for kind in ("strong", "weak"):
        t1 = median_spread(times[(kind, ranks[0])])[0]
        l1 = median_spread(loops[(kind, ranks[0])])[0]
        for P in ranks:
            m, spread = median_spread(times[(kind, P)])
            lm, lspread = median_spread(loops[(kind, P)])
            r = reports[(kind, P)]
            mp = r.get("mpi", {"message_bytes": 0, "predicted_message_bytes": 0})
            exact = (r["bytes_read"], r["bytes_written"], mp["message_bytes"]) == \
                (r["predicted_bytes_read"], r["predicted_bytes_written"], mp["predicted_message_bytes"])
            nz = a.nz * (P if kind == "weak" else 1)
            speed = t1 / m  # strong: speedup; weak: efficiency (the same ratio, T1 / TP)
            row = {"kind": kind, "ranks": P, "planes": nz, "seconds": m, "spread": spread, "loop_seconds": lm,
                   "loop_spread": lspread, "loop_ratio": l1 / lm if lm else 0,
                   "speedup" if kind == "strong" else "efficiency": speed, "bt": r["params"]["bt"],
                   "bytes_read": r["bytes_read"], "bytes_written": r["bytes_written"],
                   "message_bytes": mp["message_bytes"], "model_exact": exact, "cgroup_peak": r["cgroup_peak"],
                   "predicted_seconds_rank0": r.get("predicted_seconds")}
            rows.append(row)
            print(f"  {kind:6s} {P} rank{'s' if P > 1 else ' '} nz {nz:5d}: {m:7.2f} s (±{100 * spread:.0f}%)  "
                  f"{'speedup' if kind == 'strong' else 'efficiency'} {speed:5.2f}  time loop {lm:6.2f} s "
                  f"(±{100 * lspread:.0f}%, {l1 / lm if lm else 0:4.2f})  bt {row['bt']:3d}  "
                  f"read {r['bytes_read'] / 2**30:5.2f} GiB written {r['bytes_written'] / 2**30:5.2f} GiB  "
                  f"messages {mp['message_bytes'] / 2**20:7.1f} MiB  {'= model' if exact else '!= MODEL'}  "
                  f"cgroup peak {r['cgroup_peak'] / 2**20:.0f} MiB")
    return rows


def print_model(extrap: list[dict]) -> None:
    """The extrapolation to N machines, printed: a row per (kind, N), or why no plan."""
    print("The model for N machines like this one (seconds; one rank a machine):")
    for row in extrap:
        if row.get("no_plan"):
            print(f"  {row['kind']:6s} N {row['machines']:3d}: no plan (the ghosts a slab this thin needs do not fit)")
            continue
        print(f"  {row['kind']:6s} N {row['machines']:3d} planes {row['grid_planes']:6d}: slab {row['slab_seconds']:8.2f} s, "
              f"bt {row['bt']}, {row['exchanges']} exchanges of {row['message_bytes'] / 2**20:.1f} MiB each way; "
              + ", ".join(f"{k}: {row[k]:.2f}" for k in (*NETWORKS, "this machine's MPI (shared memory)")))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plane", type=int, default=256)
    ap.add_argument("--nz", type=int, default=512)
    ap.add_argument("--steps", type=int, default=48)
    ap.add_argument("--fraction", type=int, default=8)
    ap.add_argument("--ranks", default="1,2,3,4")
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--out", type=Path, default=REPO / "build" / "bench" / "mpi")
    ap.add_argument("--splits", action="store_true", help="4 ranks split 1x1x4, 2x1x2, 1x2x2, 2x2x1 instead")
    a = ap.parse_args(argv)

    a.out.mkdir(parents=True, exist_ok=True)
    ranks = [int(p) for p in a.ranks.split(",")]
    exe = build_mpi(a.out)
    level = a.plane * a.plane * a.nz * 8
    budget = level // a.fraction
    why = Cgroup.available()
    if a.splits:
        return splits(a, exe, budget, why)
    net = pingpong(a.out)
    with tempfile.TemporaryDirectory(dir=a.out) as tmp:
        tmp = Path(tmp)
        times, loops, reports, same = measure(a, exe, budget, why, ranks, tmp)
        extrap = extrapolate(a, exe, budget, tmp, net)
    print(f"heat3d, planes {a.plane}x{a.plane}, {a.steps} steps, each rank --mem {budget / 2**20:.0f} MiB "
          f"(one level of the strong grid / {a.fraction}); "
          f"{'one cgroup for the job: each rank ' + CAP_RULE if why is None else 'NOT in a cgroup: ' + why}"
          f"; state read from --init files; page cache dropped before each run; {a.reps} reps, median")
    print(f"MPI between two ranks here: latency {net['latency'] * 1e6:.1f} us, bandwidth {net['bandwidth'] / 1e9:.2f} GB/s")
    rows = print_runs(a, ranks, times, loops, reports)
    print(f"  strong runs bit-identical to one rank: {'yes' if same else 'NO'}")
    print_model(extrap)
    import datetime

    (a.out / "mpi.json").write_text(json.dumps({"date": datetime.date.today().isoformat(), "fraction": a.fraction,
                                                "reps": a.reps, "plane": a.plane, "nz": a.nz, "steps": a.steps,
                                                "budget": budget,
                                                "cgroup": why is None, "network_here": net, "bit_identical": same,
                                                "runs": rows, "extrapolation": extrap}, indent=2))
    return 0 if same and all(r["model_exact"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
