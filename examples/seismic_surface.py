"""Run examples/seismic_surface.stn: make its run-time files, run it, and check it against NumPy.

    python examples/seismic_surface.py [--size 96,96,64] [--steps 300] [--mem 64M] [--dir D] [--check]

Writes into D (default ``seismic-run``): ``wavelet.npy`` (a 15 Hz Ricker wavelet, one value a step),
``src.npy`` (one source) and ``rcv.npy`` (1,000 receivers on the plane 2.75 cells below the free surface),
all in metres, (n, 3) f64, x first; compiles the example with the ``stencilc`` on PATH (or next to this
Python), runs it out of core under ``--mem`` with ``--out u=D/u.npy --out rec=D/rec.npy`` (the receivers'
samples, (steps, 1000)), and prints where the wave was recorded. ``--check`` also runs the NumPy reference
of examples/reference.py on the same files (slow beyond about 64^3) and says how far apart they are.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import reference as ref  # noqa: E402 - after the path

EX = ref.EXAMPLES["seismic_surface"]


def stencilc() -> list[str]:
    exe = shutil.which("stencilc") or str(Path(sys.executable).parent / "stencilc")
    return [exe] if Path(exe).exists() else [sys.executable, "-m", "stencilc"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="96,96,64", help="nx,ny,nz (cells of 10 m)")
    ap.add_argument("--steps", type=int, default=300, help="time steps of 1 ms")
    ap.add_argument("--mem", default="64M", help="the DRAM budget (--mem)")
    ap.add_argument("--dir", default="seismic-run", type=Path, help="where the files and scratch files go")
    ap.add_argument("--check", action="store_true", help="compare with the NumPy reference")
    a = ap.parse_args(argv)
    size = tuple(int(n) for n in a.size.split(","))
    if len(size) != 3 or min(size) < 16:
        ap.error("--size: three sizes of at least 16 (the sponges are 6 cells wide)")
    d = a.dir
    d.mkdir(parents=True, exist_ok=True)
    h = EX.params["h"]
    data = {"wavelet": ref.ricker(a.steps + 2), "src": ref.seismic_src(size, h), "rcv": ref.seismic_rcv(size, 1000, h)}
    for k, v in data.items():
        np.save(d / f"{k}.npy", v)
    exe = d / "seismic_surface"
    subprocess.run([*stencilc(), str(HERE / "seismic_surface.stn"), "-o", str(exe)], check=True)
    subprocess.run([str(exe), "--size", a.size, "--steps", str(a.steps), "--mem", a.mem, "--dir", str(d),
                    *[x for k in data for x in ("--init", f"{k}={d / k}.npy")],
                    "--out", f"u={d / 'u.npy'}", "--out", f"rec={d / 'rec.npy'}", "--report", str(d / "report.json")],
                   check=True)
    rec = np.load(d / "rec.npy")
    peak = np.abs(rec).max(axis=0)
    first = int(np.argmax(np.abs(rec).max(axis=1) > 0.01 * peak.max())) if peak.max() > 0 else -1
    print(f"rec.npy: {rec.shape[0]} steps x {rec.shape[1]} receivers; the largest sample {peak.max():.3e} "
          f"(receiver {int(np.argmax(peak))}); the wave reached the receivers' plane at step {first}")
    if a.check:
        fields = EX.initial(size, None, data)
        want = EX.run(fields, None, a.steps)
        for k in ("u", "rec"):
            got = np.load(d / f"{k}.npy")
            err = np.abs(got - want[k]).max() / max(np.abs(want[k]).max(), 1e-300)
            print(f"{k}: the largest difference from NumPy, relative to its largest value: {err:.2e}")
            if err > 1e-12:
                return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
