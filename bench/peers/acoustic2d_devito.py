"""examples/acoustic2d.stn's model in Devito (run by test/python/test_points.py in the Devito
environment the bench makes, build/bench/venvs/devito): the same velocity, source, wavelet and
receivers, Devito's `inject` and `interpolate`, and the grid's interior as Devito's domain (its
zero halo is the stencil's dirichlet boundary layer, 0 throughout).

    python acoustic2d_devito.py --dir DIR --steps N

DIR holds vp.npy ((ny, nx), the whole grid), src.npy and rcv.npy ((n, 2) grid indices, x first)
and wavelet.npy; the script writes DIR/devito_u.npy (the final u, (ny, nx)) and DIR/devito_rec.npy
((steps, receivers)).
"""

import argparse
from pathlib import Path

import numpy as np
from devito import Eq, Function, Grid, Operator, SparseTimeFunction, TimeFunction, configuration

configuration["log-level"] = "ERROR"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", type=Path, required=True)
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--dt", type=float, default=0.001)
    ap.add_argument("--h", type=float, default=10.0)
    a = ap.parse_args()
    d, nt, dt, h = a.dir, a.steps, a.dt, a.h
    vp = np.load(d / "vp.npy")
    ny, nx = vp.shape
    grid = Grid(shape=(nx - 2, ny - 2), extent=((nx - 3) * h, (ny - 3) * h), dtype=np.float64)
    u = TimeFunction(name="u", grid=grid, time_order=2, space_order=2)
    v = Function(name="v", grid=grid)
    v.data[:] = vp[1:-1, 1:-1].T
    x, y = grid.dimensions
    r2 = (v * dt / h) ** 2
    lap = u[u.time_dim, x + 1, y] + u[u.time_dim, x - 1, y] + u[u.time_dim, x, y + 1] + u[u.time_dim, x, y - 1] - 4 * u
    update = Eq(u.forward, 2 * u - u.backward + r2 * lap)
    src_pts, rcv_pts = np.load(d / "src.npy"), np.load(d / "rcv.npy")
    src = SparseTimeFunction(name="src", grid=grid, npoint=len(src_pts), nt=nt + 1)
    src.coordinates.data[:] = (src_pts - 1) * h
    src.data[:nt, :] = np.load(d / "wavelet.npy")[:nt, None]
    rec = SparseTimeFunction(name="rec", grid=grid, npoint=len(rcv_pts), nt=nt + 1)
    rec.coordinates.data[:] = (rcv_pts - 1) * h
    op = Operator([update] + src.inject(field=u.forward, expr=src * dt**2 * v**2)
                  + rec.interpolate(expr=u.forward))
    op.apply(time_m=0, time_M=nt - 1, dt=dt)
    out = np.zeros((ny, nx))
    out[1:-1, 1:-1] = u.data[nt % 3].T
    np.save(d / "devito_u.npy", out)
    np.save(d / "devito_rec.npy", np.array(rec.data[:nt]))


if __name__ == "__main__":
    main()
