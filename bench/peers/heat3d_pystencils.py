"""heat3d (7-point, f64, dirichlet) in pystencils: one kernel src -> dst, OpenMP, vectorized for
this CPU (Target.CurrentCPU, inner stride one), swapped each step.

The protocol of protocol.py.  The kernel iterates the interior (one ghost layer), so
the boundary layer keeps its initial values in both buffers.
"""

import os
import time

import pystencils as ps
import sympy as sp
from protocol import parse, serve

a, u0 = parse()
src, dst = ps.fields("src, dst: float64[3D]", layout="c")
alpha = sp.Symbol("alpha")
lap = src[-1, 0, 0] + src[1, 0, 0] + src[0, -1, 0] + src[0, 1, 0] + src[0, 0, -1] + src[0, 0, 1]
cfg = ps.CreateKernelConfig(target=ps.Target.CurrentCPU)
cfg.cpu.openmp.enable = True
cfg.cpu.vectorize.enable = True
cfg.cpu.vectorize.assume_inner_stride_one = True
kernel = ps.create_kernel(ps.Assignment(dst.center, src.center + alpha * (lap - 6 * src.center)), cfg).compile()


def run(steps):
    s, d = u0.copy(), u0.copy()
    t0 = time.perf_counter()
    for _ in range(steps):
        kernel(src=s, dst=d, alpha=a.alpha)
        s, d = d, s
    return s, time.perf_counter() - t0


run(1)  # the first call loads the compiled module
serve(a, run, {"version": f"pystencils {ps.__version__}", "threads": int(os.environ.get("OMP_NUM_THREADS", os.cpu_count())),
               "notes": "openmp, vectorized for this CPU"})
