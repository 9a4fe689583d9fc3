"""The long run in the two scratch layouts (design 023), and optionally as another tree builds it, alternated.

    sudo python -m bench.layouts [--before TREE] [--rounds 2] [--dir /var/tmp]

heat3d 1024x512x512 f64, 128 steps, `--mem 128M` in a 224 MiB memory cgroup, from one `--init` .npy on
the device under test, the page cache dropped before every run, the device's curves from `stencilc probe`
(made once, as bench.target does): this tree with `STENCILC_SCRATCH_LAYOUT=plain`, this tree chunked, and
``--before``'s build when given; the order reverses every round.  One line per run: cells/s, wall, and
the kernels' and the wait's seconds, which say whether the layout moved the wait.  Expects root.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from bench import target
from bench.common import REPO, Cgroup, drop_caches, run

CASE = target.CASES["long"]


def build(tree: Path, exe: Path) -> Path:
    """The heat3d of `tree`'s compiler and runtime (a runtime cache of its own beside exe)."""
    exe.parent.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(tree / "compiler"), STENCILC_CACHE_DIR=str(exe.parent / f"cache-{exe.name}"))
    subprocess.run([sys.executable, "-m", "stencilc", str(tree / "examples" / "heat3d.stn"), "-o", str(exe)],
                   check=True, env=env, capture_output=True)
    return exe


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", type=Path, help="another stencilc tree to build the same program with")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--dir", type=Path, default=Path("/var/tmp"))
    ap.add_argument("--out", type=Path, default=REPO / "build" / "bench" / "layouts")
    a = ap.parse_args(argv)
    out = a.out.resolve()
    _, size, steps, mem, cap = CASE
    cur = build(REPO, out / "heat3d")
    kinds = [("plain", cur, {"STENCILC_SCRATCH_LAYOUT": "plain"}), ("chunked", cur, {})]
    if a.before:
        kinds.insert(0, ("before", build(a.before.resolve(), out / "heat3d-before"), {}))
    scratch = a.dir / f"stencilc-layouts-{os.getpid()}"
    scratch.mkdir(parents=True, exist_ok=True)
    init = target.init_npy(scratch, size)
    probed = target.probe_cache(out, scratch)
    print(f"heat3d {'x'.join(map(str, size))}, {steps} steps, --mem {mem >> 20}M in {cap >> 20} MiB; "
          f"cgroup: {Cgroup.available() or 'yes'}", flush=True)
    try:
        for i in range(a.rounds):
            for name, exe, extra in kinds if i % 2 == 0 else kinds[::-1]:
                rep = out / f"{name}-{i}.json"
                args = ["--size", ",".join(map(str, size)), "--steps", str(steps), "--mem", str(mem), "--dir",
                        str(scratch), "--quiet", "--report", str(rep), "--init", f"u={init}"]
                drop_caches()
                cg = Cgroup(f"stencilc-layouts-{os.getpid()}", cap) if Cgroup.available() is None else None
                try:
                    r, wall, why = run(exe, args, cg=cg, timeout=3600, env=dict(target.omp_env(probed), **extra))
                finally:
                    if cg:
                        cg.remove()
                if r is None:
                    print(f"  {name:8s} round {i}: failed: {why}", flush=True)
                    continue
                s, p = r["seconds"], r["params"]
                print(f"  {name:8s} round {i}: {r['cells_per_second'] / 1e6:5.0f} Mcell/s  wall {wall:5.1f} s  "
                      f"compute {s.get('compute', 0):5.1f} s  wait {s.get('wait', 0):5.1f} s  blocks "
                      f"{p.get('by')},{p.get('bz')},{p.get('bt')}  layout {r.get('scratch_layout', '-')}", flush=True)
    finally:
        subprocess.run(["rm", "-rf", str(scratch)], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
