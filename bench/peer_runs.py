"""In-core heat3d against the tools a user would pick instead, on the same 7-point update: the
runs of the peers experiment (the scripts each peer runs in its own environment are bench/peers/).

Each Python peer is installed from PyPI by the runner into an environment of its own
(build/bench/venvs/NAME, made once, pinned versions below), and runs bench/peers/heat3d_NAME.py
there.  Every tool first runs CHECK_STEPS steps from the same random initial grid, and its
result is compared with the NumPy reference of the test suite (examples/reference.py); only a
tool that agrees (to 1e-12 of the largest value) is timed.  Times are of the time loop only
(no compilation, no auto-tuning, no initialisation), on all threads, the median of the repeats;
the repeats are interleaved across the tools (A, B, C, A, B, C, ...), so that drift in a noisy
VM hits every tool alike.

- stencilc   the generated program, --mode incore, --init u=U0.npy
- plain C    bench/c/handwritten_heat3d.c: one OpenMP loop nest, same flags as stencilc's
- Devito     OpenMP, auto-tuning on (aggressive), the tuned block sizes timed
- pystencils OpenMP, vectorized for this CPU
- NumPy      whole-array slices (one thread: NumPy's element-wise operations are not threaded)
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bench.common import REPO, build, cc, cflags, median_spread, run, sh

CHECK_STEPS = 3
PEERS = {  # name -> the packages pip installs into its environment
    "devito": ["devito==4.8.23"],
    "pystencils": ["pystencils==2.0", "py-cpuinfo==9.0.0"],
    "numpy": ["numpy==2.4.3"],
}


def venv(ctx, name: str) -> Path:
    """The peer's own environment, made and filled from PyPI once; its python."""
    d = ctx.root / "venvs" / name
    py = d / "bin" / "python"
    stamp = d / ".installed"
    want = " ".join(PEERS[name])
    if not (stamp.exists() and stamp.read_text() == want):
        ctx.log(f"    installing {want} into {d} from PyPI")
        sh([sys.executable, "-m", "venv", "--clear", str(d)])
        sh([str(py), "-m", "pip", "install", "-q", "--upgrade", "pip"])
        sh([str(py), "-m", "pip", "install", "-q", *PEERS[name]])
        stamp.write_text(want)
    return py


def reference(u0_path: Path, steps: int):
    sys.path.insert(0, str(REPO / "examples"))
    import numpy as np
    from reference import EXAMPLES

    return EXAMPLES["heat3d"].run({"u": np.load(u0_path)}, {"alpha": 0.1}, steps=steps)["u"]


def agrees(out: Path, ref) -> tuple[bool, float]:
    import numpy as np

    got = np.load(out)
    if got.shape != ref.shape:
        return False, float("inf")
    err = float(np.max(np.abs(got - ref)))
    return err <= 1e-12 * float(np.max(np.abs(ref))), err


def tool_runs(ctx, n: int, steps: int, u0: Path) -> dict:
    """name -> (check(out) -> None, timed() -> (seconds of one timed run, info))."""
    w = ctx.work
    env = ctx.omp_env()
    ours = build("examples/heat3d.stn", w / "bin" / "heat3d")
    plain = cc("handwritten_heat3d.c", w / "bin" / "handwritten_heat3d", "-lm")
    size = f"{n},{n},{n}"

    def ours_check(out):
        rep, _, st = run(ours, ["--mode", "incore", "--quiet", "--size", size, "--steps", str(CHECK_STEPS), "--init",
                                f"u={u0}", "--out", f"u={out}", "--report", str(w / "peer.json")], env=env)
        if rep is None:
            raise RuntimeError(st)

    def ours_timed():
        rep, _, st = run(ours, ["--mode", "incore", "--quiet", "--size", size, "--steps", str(steps), "--init",
                                f"u={u0}", "--report", str(w / "peer.json")], env=env)
        if rep is None:
            raise RuntimeError(st)
        p = rep["params"]
        return n**3 * steps / rep["cells_per_second"], {"version": f"stencilc {rep['compiler_version']}", "threads": rep["hardware"]["threads"]["value"],
                      "notes": f"iBlock {p['iy']}x{p['iz']}"}

    def plain_check(out):
        sh([str(plain), str(n), str(n), str(n), str(CHECK_STEPS), str(out), str(u0)], env=env)

    def plain_timed():
        out = sh([str(plain), str(n), str(n), str(n), str(steps), "-", str(u0)], env=env).stdout
        info = {"version": "cc " + cflags(), "threads": int(env["OMP_NUM_THREADS"]), "notes": "one loop nest"}
        return float(out.split()[0].removeprefix("seconds=")), info

    tools = {"stencilc": (ours_check, ours_timed), "plain C OpenMP": (plain_check, plain_timed)}
    for name in PEERS:
        script = REPO / "bench" / "peers" / f"heat3d_{name}.py"

        def check(out, script=script, name=name):
            sh([str(venv(ctx, name)), str(script), "--init", str(u0), "--steps", str(CHECK_STEPS), "--check", str(out)],
               env=env)

        def timed(script=script, name=name):
            st = steps if name != "numpy" else max(2, steps // ctx.profile.numpy_divisor)
            r = json.loads(sh([str(venv(ctx, name)), str(script), "--init", str(u0), "--steps", str(st)],
                              env=env).stdout.splitlines()[-1])
            secs = r.pop("seconds")[0] * steps / st  # per `steps` steps, like the others
            if st != steps:
                r["notes"] += f"; timed over {st} steps, scaled"
            return secs, r

        tools[{"devito": "Devito", "pystencils": "pystencils", "numpy": "NumPy"}[name]] = (check, timed)
    return tools


def peers(ctx) -> list[dict]:
    import numpy as np

    rows = []
    for n in ctx.profile.peer_sizes:
        steps = ctx.profile.peer_steps
        u0 = ctx.scratch / f"peer-u0-{n}.npy"
        np.save(u0, np.random.default_rng(n).random((n, n, n)))
        ref = reference(u0, CHECK_STEPS)
        ctx.log(f"    {n}^3, {steps} steps; every tool checked against the NumPy reference after {CHECK_STEPS} steps")
        timers = {}
        for name, (check, timed) in tool_runs(ctx, n, steps, u0).items():
            row = {"experiment": "peers", "label": name, "size": [n, n, n], "steps": steps, "cells": n**3 * steps,
                   "mode": "incore", "times": []}
            out = ctx.scratch / "peer-check.npy"
            try:
                check(out)
                ok, err = agrees(out, ref)
                row.update(check_max_abs_error=err, check="agrees" if ok else "DISAGREES")
                if ok:
                    timers[name] = (row, timed)
                    row["status"] = "ok"
                else:
                    row["status"] = f"not timed: differs from the reference by {err:.3g}"
            except (RuntimeError, subprocess.SubprocessError, OSError, ValueError) as e:
                row["status"] = f"failed: {str(e).strip()[-400:]}"
            out.unlink(missing_ok=True)
            ctx.log(f"    {name:16s} check: {row.get('check', row['status'])}, max error "
                    f"{row.get('check_max_abs_error', float('nan')):.1e}")
            rows.append(row)
        # the repeats interleaved (tool A, B, C, A, B, C, ...) so that the VM's drift hits every tool alike
        for _ in range(ctx.profile.repeat):
            for row, timed in timers.values():
                if row["status"] != "ok":
                    continue
                try:
                    secs, info = timed()
                    row.update(info)
                    row["times"].append(secs)
                except (RuntimeError, subprocess.SubprocessError, OSError, ValueError) as e:
                    row["status"] = f"failed: {str(e).strip()[-400:]}"
        for name, (row, _) in timers.items():
            if row["status"] == "ok":
                row["seconds"], row["spread"] = median_spread(row["times"])
                row["cells_per_second"] = row["cells"] / row["seconds"]
                ctx.log(f"    {name:16s} {row['cells_per_second']:.3e} cells/s  {row['seconds']:7.3f} s (spread "
                        f"{row['spread']:.0%}, {len(row['times'])} runs); {row.get('version', '')}")
            else:
                ctx.log(f"    {name:16s} {row['status']}")
        u0.unlink(missing_ok=True)
    return rows
