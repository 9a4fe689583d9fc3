"""Issue 30's targets, measured side by side in one run: out of core against in-core on the long run, with
and without a probe file, box27 likewise, wall time against the time model's prediction, and in-core
heat3d 512^3 x 100 against Devito with its aggressive autotuner (`--only devito`), and a run bigger than
the machine (`--only bigger`).

    sudo python -m bench.target [--pairs 3] [--only long,box27,bigger,devito] [--dir /var/tmp] [--out build/bench/target]

Each case is run in alternated triples: out of core on a machine with no device curves (an empty
``STENCILC_CACHE_DIR``: the run calibrates the device itself, as a new user's first run does, and that
time counts in its job), out of core with a probe file made once by ``stencilc probe`` before the
triples, and in-core; the order rotates from triple to triple so that drift hits each alike.  Before
every run the page cache is dropped; every out-of-core run is in a fresh memory cgroup of the
``--mem`` budget plus the runtime's reserve (4/3 of it at least, as bench/experiments.py), page cache
included; in-core has no cap.  Every run starts from the same ``--init`` .npy on the device under test
(read back from flash) and the first triple's results are compared bit for bit.

``bigger`` runs heat3d 2048x2048x768 f64 (24 GiB a level, 48 GiB of state between sweeps) from its init
expressions, 96 steps at ``--mem 3G``, in no cgroup, twice: Blk-Tune's plan, then ``--block 2048,4,32`` (three
sweeps that write the state and read it back): the state is twice this machine's memory, so
nothing but the out-of-core engine can run it (no in-core pair).  Its throughput is printed beside the
capped runs' of the same invocation; it needs about 50 GiB free under ``--dir`` and is refused if the
machine's memory could hold the state.

Printed per case: for each triple the ratios out-of-core / in-core by ``cells_per_second`` (the loop)
and by whole-job wall time (in-core job / out-of-core job, ``seconds.job``), and wall / predicted
seconds of each out-of-core run; then the medians.  Expects root (cgroup, drop_caches); without it the
runs are made and the output says what was not enforced.  Writes only under ``--out`` and ``--dir``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import REPO, Cgroup, MiB, build, drop_caches, model_rate_from, random_npy, run

# name, example, size, steps, --mem, cgroup cap
CASES = {
    "long": ("heat3d", (1024, 512, 512), 128, 128 << 20, 224 << 20),
    "box27": ("box27", (1024, 512, 256), 64, 64 << 20, 112 << 20),
}


def omp_env(cache: Path | None) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS=str(os.cpu_count()), OMP_PROC_BIND="close", OMP_PLACES="cores")
    if cache is not None:
        env["STENCILC_CACHE_DIR"] = str(cache)
    return env


def init_npy(scratch: Path, size: tuple[int, int, int]) -> Path:
    """A random f64 grid in NumPy's (nz, ny, nx) order, written once per size, plane by plane."""
    path = scratch / f"init-{size[0]}x{size[1]}x{size[2]}.npy"
    return path if path.exists() else random_npy(path, size, 30)


_PROBED: set[Path] = set()


def probe_cache(out: Path, scratch: Path) -> Path:
    """A cache directory holding `stencilc probe`'s curves for the device of `scratch`, probed once per bench
    invocation by this tree's probe: a file left by an earlier one may lack figures the model reads now (one
    without `remove_seconds_per_gib` predicted no removal, 1.1 s of a 30 s job short), and the device moves."""
    cache = out / "probed-cache"
    if cache not in _PROBED:
        shutil.rmtree(cache, ignore_errors=True)
        cache.mkdir(parents=True)
        t0 = time.monotonic()
        subprocess.run([sys.executable, "-m", "stencilc", "probe", "--dir", str(scratch), "--quiet"], check=True,
                       env=dict(omp_env(cache), PYTHONPATH=str(REPO / "compiler")))
        print(f"probed the device of {scratch} in {time.monotonic() - t0:.0f} s (stencilc probe)", flush=True)
        _PROBED.add(cache)
    return cache


def one(exe: Path, case: tuple, mode: str, scratch: Path, init: Path, out: Path, tag: str,
        cache: Path | None, keep: Path | None) -> dict | None:
    """One run; its report plus the wall time, or None (printed)."""
    _, size, steps, mem, cap = case
    rep = out / f"{tag}.json"
    args = ["--size", ",".join(map(str, size)), "--steps", str(steps), "--dir", str(scratch), "--quiet", "--report",
            str(rep), "--init", f"u={init}", "--mode", mode]
    if mode == "ooc":
        args += ["--mem", str(mem)]
    if keep:
        args += ["--out", f"u={keep}"]
    drop_caches()
    cg = Cgroup(f"stencilc-target-{os.getpid()}", cap) if mode == "ooc" and Cgroup.available() is None else None
    try:
        r, wall, why = run(exe, args, cg=cg, timeout=3600, env=omp_env(cache))
        peak = cg.peak() if cg else None
    finally:
        if cg:
            cg.remove()
    if r is None:
        print(f"    {tag}: failed: {why}", flush=True)
        return None
    r["wall"], r["peak_cgroup"] = wall, peak
    return r


def loop_seconds(r: dict) -> float:
    return r["cells"] / r["cells_per_second"] if r.get("cells") else r["seconds"]["loop"]


def job_prediction(r: dict) -> float:
    """The whole job's prediction: the seconds spent before the plan (time_model.startup) and the model's."""
    return r.get("predicted_job_seconds") or r["predicted_seconds"]


def tm(r: dict) -> dict:
    return r.get("time_model", {})


def tm_rate(r: dict) -> float:
    return tm(r).get("cells_per_second", 0)


def line(tag: str, r: dict) -> str:
    s = r["seconds"]
    p = r.get("params", {})
    pred = job_prediction(r) if r.get("predicted_seconds") else None
    extra = (f" blocks {p.get('by')},{p.get('bz')},{p.get('bt')} wait {s.get('wait', 0):.1f} s"
             f" predicted {pred:.1f} s (wall/pred {r['wall'] / pred:.2f}) curves {r.get('time_model', {}).get('device_curves', '?')}"
             f" peak {(r['peak_cgroup'] or 0) / MiB:.0f} MiB; kernels: {model_rate_from(r)} {tm_rate(r) / 1e9:.2f} G cells/s,"
             f" the loop's {r['cells'] / max(s.get('compute', 0), 1e-9) / 1e9:.2f}, startup {tm(r).get('startup', 0):.1f} s"
             if r["mode"] == "ooc" and pred else "")
    return (f"    {tag:10s} {r['cells_per_second'] / 1e6:7.0f} Mcell/s  job {s.get('job', s['total']):6.1f} s"
            f"  wall {r['wall']:6.1f} s{extra}")


def run_case(name: str, case: tuple, pairs: int, scratch: Path, out: Path) -> dict:
    import numpy as np

    example, size, steps, mem, cap = case
    exe = build(f"examples/{example}.stn", out / "bin" / example)
    init = init_npy(scratch, size)
    probed = probe_cache(out, scratch)
    print(f"\n## {name}: {example} {'x'.join(map(str, size))} f64, {steps} steps, --mem {mem >> 20}M in a "
          f"{cap >> 20} MiB cgroup, --init {init.name}", flush=True)
    kinds = ("ooc-new", "ooc-probed", "incore")
    got: dict[str, list[dict]] = {k: [] for k in kinds}
    for i in range(pairs):
        order = kinds[i % 3:] + kinds[:i % 3]
        for k in order:
            fresh = Path(tempfile.mkdtemp(prefix="cache-", dir=out)) if k == "ooc-new" else None
            keep = out / f"{name}-{k}.npy" if i == 0 else None
            r = one(exe, case, "incore" if k == "incore" else "ooc", scratch, init, out, f"{name}-{k}-{i}",
                    fresh if k == "ooc-new" else (probed if k == "ooc-probed" else None), keep)
            if fresh:
                shutil.rmtree(fresh, ignore_errors=True)
            if r is not None:
                r["cells"] = size[0] * size[1] * size[2] * steps
                got[k].append(r)
                print(line(f"{k}-{i}", r), flush=True)
    ref = out / f"{name}-incore.npy"
    res = {"case": name}
    for k in kinds[:2]:
        f = out / f"{name}-{k}.npy"
        if f.exists() and ref.exists():
            res[f"{k} bit-identical"] = bool(np.array_equal(np.load(f, mmap_mode="r"), np.load(ref, mmap_mode="r")))
            f.unlink()
        n = min(len(got[k]), len(got["incore"]))
        loops = [loop_seconds(got["incore"][j]) / loop_seconds(got[k][j]) for j in range(n)]
        jobs = [got["incore"][j]["seconds"]["job"] / got[k][j]["seconds"]["job"] for j in range(n)]
        preds = [r["wall"] / job_prediction(r) for r in got[k] if r.get("predicted_seconds")]
        res[k] = {"loop_ratios": loops, "job_ratios": jobs, "wall_over_predicted": preds,
                  "cells_per_second": statistics.median(r["cells_per_second"] for r in got[k]) if got[k] else None}
        if n:
            print(f"  {k}: ooc / in-core by the loop {', '.join(f'{x:.2f}' for x in loops)} (median "
                  f"{statistics.median(loops):.2f}); by the whole job {', '.join(f'{x:.2f}' for x in jobs)} (median "
                  f"{statistics.median(jobs):.2f}); wall / predicted {', '.join(f'{x:.2f}' for x in preds)}", flush=True)
    ref.unlink(missing_ok=True)
    same = ", ".join(f"{k}: {res.get(k + ' bit-identical')}" for k in kinds[:2])
    print(f"  results bit-identical to in-core: {same}", flush=True)
    return res


BIGGER = ("heat3d", (2048, 2048, 768), 96, "3G")


def bigger(scratch: Path, out: Path, capped: list[tuple[str, float]]) -> dict:
    """The run bigger than the machine (module docstring): Blk-Tune's plan and three sweeps by hand, each
    run's report line, its bytes against the model's, and its throughput beside the capped runs' medians."""
    example, size, steps, mem = BIGGER
    state = 2 * size[0] * size[1] * size[2] * 8
    ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    free = shutil.disk_usage(scratch).free
    print(f"\n## bigger: {example} {'x'.join(map(str, size))} f64, {steps} steps, --mem {mem}, no cgroup, init "
          f"expressions: state {state / 2**30:.0f} GiB, this machine's memory {ram / 2**30:.1f} GiB, "
          f"{free / 2**30:.0f} GiB free under {scratch.parent}", flush=True)
    if ram >= state:
        print("    skipped: this machine's memory could hold the state (the case is for a smaller machine)")
        return {"case": "bigger", "status": "skipped: memory holds the state"}
    if free < state + (4 << 30):
        print("    skipped: not enough free space under --dir for the scratch files")
        return {"case": "bigger", "status": "skipped: disk"}
    exe = build(f"examples/{example}.stn", out / "bin" / example)
    res = {"case": "bigger"}
    # Blk-Tune's plan (at 3G it is y-blocked, one sweep), then three sweeps of 32 steps by hand: the state
    # written to the device and read back twice, as a run longer than one sweep's reach does
    for tag, extra in (("tuned", []), ("3 sweeps", ["--block", "2048,4,32"])):
        rep = out / f"bigger-{tag.replace(' ', '-')}.json"
        args = ["--size", ",".join(map(str, size)), "--steps", str(steps), "--dir", str(scratch), "--quiet",
                "--report", str(rep), "--mode", "ooc", "--mem", mem, *extra]
        drop_caches()
        r, wall, why = run(exe, args, timeout=3 * 3600, env=omp_env(None))
        if r is None:
            print(f"    bigger {tag}: failed: {why}", flush=True)
            res[tag] = why
            continue
        r["wall"], r["peak_cgroup"] = wall, None
        print(line(f"{tag}", r), flush=True)
        exact = r["bytes_read"] == r["predicted_bytes_read"] and r["bytes_written"] == r["predicted_bytes_written"]
        # (PSS: the ring's pages are mapped twice, which RSS counts twice)
        print(f"    read {r['bytes_read'] / 2**30:.1f} GiB, written {r['bytes_written'] / 2**30:.1f} GiB (predicted == "
              f"counted: {exact}), sweeps {-(-steps // r['params']['bt'])}, peak PSS "
              f"{r.get('peak_pss_bytes', 0) / 2**30:.2f} GiB of the {mem} budget", flush=True)
        for name, cps in capped:
            print(f"    beside {name}: {r['cells_per_second'] / 1e6:.0f} against {cps / 1e6:.0f} Mcell/s "
                  f"({r['cells_per_second'] / cps:.2f})", flush=True)
        res[tag] = {"cells_per_second": r["cells_per_second"], "exact": exact}
    return res


def vs_devito(pairs: int, scratch: Path, out: Path, n: int = 512, steps: int = 100) -> dict:
    """In-core heat3d n^3 against Devito with its aggressive autotuner (bench/peer_runs.py: both checked
    against the NumPy reference first, then timed alternately, the time loop only); the ratio of each
    pair and of the medians."""
    import types

    import numpy as np

    from bench import peer_runs

    ctx = types.SimpleNamespace(work=out / "peer", root=REPO / "build" / "bench", log=print,
                                omp_env=lambda: dict(omp_env(None), PYTHONPATH=str(REPO / "compiler")),
                                profile=types.SimpleNamespace(numpy_divisor=5))
    print(f"\n## devito: in-core heat3d {n}^3 f64, {steps} steps, stencilc against Devito (autotune aggressive)",
          flush=True)
    u0 = scratch / f"peer-u0-{n}.npy"
    np.save(u0, np.random.default_rng(n).random((n, n, n)))
    ref = peer_runs.reference(u0, peer_runs.CHECK_STEPS)
    tools = {k: v for k, v in peer_runs.tool_runs(ctx, n, steps, u0).items() if k in ("stencilc", "Devito")}
    for name, (check, _) in tools.items():
        check(scratch / "peer-check.npy")
        ok, err = peer_runs.agrees(scratch / "peer-check.npy", ref)
        print(f"    {name}: {'agrees with' if ok else 'DIFFERS from'} the NumPy reference (max error {err:.1e})")
        if not ok:
            return {"case": "devito", "status": f"{name} differs"}
    times: dict[str, list[float]] = {k: [] for k in tools}
    for i in range(pairs):
        for name in (("stencilc", "Devito") if i % 2 == 0 else ("Devito", "stencilc")):
            secs, info = tools[name][1]()
            times[name].append(secs)
            print(f"    {name:9s} {n**3 * steps / secs / 1e6:7.0f} Mcell/s  {secs:6.2f} s  {info.get('notes', '')}",
                  flush=True)
    ratios = [d / s for s, d in zip(times["stencilc"], times["Devito"])]
    print(f"  stencilc / Devito by cells/s: {', '.join(f'{x:.2f}' for x in ratios)} (median "
          f"{statistics.median(ratios):.2f})", flush=True)
    u0.unlink(missing_ok=True)
    return {"case": "devito", "ratios": ratios}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=3, help="alternated triples per case (default 3)")
    ap.add_argument("--only", default=",".join([*CASES, "devito"]), help=f"cases, comma-separated: {', '.join(CASES)}, devito, bigger")
    ap.add_argument("--dir", type=Path, default=Path("/var/tmp"), help="the device under test (scratch, --init)")
    ap.add_argument("--out", type=Path, default=REPO / "build" / "bench" / "target")
    a = ap.parse_args(argv)
    out = a.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="stencilc-target-", dir=a.dir))
    print(f"cgroup: {Cgroup.available() or 'yes'}; page cache: {drop_caches()}; scratch {scratch}; "
          f"load {os.getloadavg()[0]:.2f}", flush=True)
    capped: list[tuple[str, float]] = []
    try:
        for name in a.only.split(","):
            if name == "devito":
                vs_devito(a.pairs, scratch, out)
            elif name == "bigger":
                bigger(scratch, out, capped)
            else:
                res = run_case(name, CASES[name], a.pairs, scratch, out)
                capped += [(f"{name} {k} (median)", res[k]["cells_per_second"]) for k in ("ooc-new", "ooc-probed")
                           if res.get(k, {}).get("cells_per_second")]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"load at the end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
