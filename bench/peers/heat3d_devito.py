"""heat3d (7-point, f64, dirichlet) in Devito, OpenMP, with Devito's auto-tuning on.

The protocol of protocol.py.  The first apply() auto-tunes the loop blocking
(autotune='aggressive'; not timed); every later apply() passes the tuned block sizes.  The update
runs on grid.interior, so the boundary layer keeps its initial values in both time buffers.
"""

import os
import time

import numpy as np
from devito import Constant, Eq, Grid, Operator, TimeFunction, configuration
from devito import __version__ as devito_version
from protocol import parse, serve

configuration["language"] = "openmp"
configuration["log-level"] = "WARNING"

a, u0 = parse()
grid = Grid(shape=u0.shape, dtype=np.float64)
u = TimeFunction(name="u", grid=grid, space_order=1)
t = grid.stepping_dim
x, y, z = grid.dimensions
alpha = Constant(name="alpha", dtype=np.float64, value=a.alpha)
lap = u[t, x - 1, y, z] + u[t, x + 1, y, z] + u[t, x, y - 1, z] + u[t, x, y + 1, z] + u[t, x, y, z - 1] + u[t, x, y, z + 1]
op = Operator([Eq(u.forward, u + alpha * (lap - 6 * u), subdomain=grid.interior)])


def reset():
    u.data[0][:] = u0
    u.data[1][:] = u0


reset()
op.apply(time_m=0, time_M=max(a.steps, 8) - 1, autotune="aggressive")
tuned = dict((op._state.get("autotuning") or [{}])[-1].get("tuned", {}))
tuned.pop("nthreads", None)


def run(steps):
    reset()
    t0 = time.perf_counter()
    op.apply(time_m=0, time_M=steps - 1, **tuned)
    t = time.perf_counter() - t0
    return np.array(u.data[steps % 2]), t


serve(a, run, {"version": f"devito {devito_version}", "tuned": tuned,
               "threads": int(os.environ.get("OMP_NUM_THREADS", os.cpu_count())),
               "notes": f"openmp, opt=advanced, autotune=aggressive -> {tuned}"})
