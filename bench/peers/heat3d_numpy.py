"""heat3d (7-point, f64, dirichlet) as a NumPy user writes it: whole-array slices, two buffers.

Runs inside the peer's own environment (only numpy), with the protocol of protocol.py.
NumPy runs one thread (its element-wise operations are not threaded).
"""

import time

import numpy as np
from protocol import parse, serve

a, u0 = parse()
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


serve(a, run, {"version": f"numpy {np.__version__}", "threads": 1, "notes": "whole-array slices; one thread"})
