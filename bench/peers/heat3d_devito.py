"""heat3d (7-point, f64, dirichlet) in Devito, OpenMP, with Devito's auto-tuning on.

The same protocol as heat3d_numpy.py.  The first apply() auto-tunes the loop blocking
(autotune='aggressive'; not timed); every later apply() passes the tuned block sizes.  The update
runs on grid.interior, so the boundary layer keeps its initial values in both time buffers.
"""

import argparse
import json
import os
import time

import numpy as np
from devito import Constant, Eq, Grid, Operator, TimeFunction, configuration
from devito import __version__ as devito_version

configuration["language"] = "openmp"
configuration["log-level"] = "WARNING"

ap = argparse.ArgumentParser()
ap.add_argument("--init", required=True)
ap.add_argument("--steps", type=int, required=True)
ap.add_argument("--check")
ap.add_argument("--repeat", type=int, default=1)
ap.add_argument("--alpha", type=float, default=0.1)
a = ap.parse_args()
u0 = np.load(a.init)
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
    return time.perf_counter() - t0


if a.check:
    run(a.steps)
    np.save(a.check, np.array(u.data[a.steps % 2]))
else:
    secs = [run(a.steps) for _ in range(a.repeat)]
    print(json.dumps({"seconds": secs, "version": f"devito {devito_version}", "tuned": tuned,
                      "threads": int(os.environ.get("OMP_NUM_THREADS", os.cpu_count())),
                      "notes": f"openmp, opt=advanced, autotune=aggressive -> {tuned}"}))
