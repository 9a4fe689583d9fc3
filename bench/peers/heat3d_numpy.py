"""heat3d (7-point, f64, dirichlet) as a NumPy user writes it: whole-array slices, two buffers.

Runs inside the peer's own environment (only numpy).  Protocol, shared by every peer script:
    python heat3d_numpy.py --init U0.npy --steps S --check OUT.npy   # S steps, save the result
    python heat3d_numpy.py --init U0.npy --steps S --repeat R         # print {"seconds": [...], ...}
NumPy runs one thread (its element-wise operations are not threaded).
"""

import argparse
import json
import time

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--init", required=True)
ap.add_argument("--steps", type=int, required=True)
ap.add_argument("--check")
ap.add_argument("--repeat", type=int, default=1)
ap.add_argument("--alpha", type=float, default=0.1)
a = ap.parse_args()
u0 = np.load(a.init)
alpha = a.alpha
c = (slice(1, -1),) * 3


def run(steps):
    u, v = u0.copy(), u0.copy()
    t0 = time.perf_counter()
    for _ in range(steps):
        v[c] = u[c] + alpha * (u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] + u[1:-1, :-2, 1:-1] + u[1:-1, 2:, 1:-1]
                               + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:] - 6 * u[c])
        u, v = v, u
    return u, time.perf_counter() - t0


if a.check:
    np.save(a.check, run(a.steps)[0])
else:
    secs = [run(a.steps)[1] for _ in range(a.repeat)]
    print(json.dumps({"seconds": secs, "version": f"numpy {np.__version__}", "threads": 1,
                      "notes": "whole-array slices; one thread"}))
