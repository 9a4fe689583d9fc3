"""Independent NumPy references for the stencils in ``examples/*.stn``.

Written by hand from the mathematics of each example (not generated from the ``.stn``
files), so that the tests can compare what stencilc generates against something that
shares no code with it.

Conventions (the same as the generated programs; see ``docs/language.md`` and ``docs/cli.md``):

- ``size`` is the whole grid, boundary layer included, x first: ``(nx, ny)`` or
  ``(nx, ny, nz)``.  Arrays are NumPy ``(ny, nx)`` / ``(nz, ny, nx)``, C order, so x is the
  last axis.  Offsets ``(dx, dy[, dz])`` are x first as well.
- The halo (``halo_lo``/``halo_hi``, x first) is the widest access of any field per
  dimension and direction; the update runs on the interior ``[lo, n - hi)`` of every axis.
- A step computes every state field's new level on the interior from the old levels
  (Jacobi style); with sub-steps, in stages, a later stage reading the whole new level
  (boundary cells included) of fields an earlier stage computed.  Boundary cells of the new level: dirichlet copies them from the current
  level; neumann mirrors the interior (axes x, then y, then z, each over the whole extent of
  the other axes; ``i < lo`` takes ``2*lo - 1 - i``, ``i >= n - hi`` takes ``2*(n-hi) - 1 - i``).
  Every neumann field is mirrored once before the first step, both of its levels if it has
  two (so every level a step reads has mirrored boundaries, as if it had been current once).  Then levels
  rotate (``prev <- cur``, ``cur <- new``).
- Arithmetic is in the grid's element type: params and coordinates are converted to it, and
  Python scalars mix with arrays without promoting them (NumPy >= 2 rules).

API::

    ex = EXAMPLES["heat3d"]
    fields = ex.initial((16, 16, 16), {"alpha": 0.05})     # {"u": array}
    final = ex.run(fields, {"alpha": 0.05}, steps=10)       # {"u": array}

``initial`` also returns ``"NAME.prev"`` for fields with two time levels; ``run`` takes an
optional ``"NAME.prev"`` (default: equal to the current level) and returns the final
current level of every field (state and input).

The driver (``Example``, the accessors, the boundary rules) is ``reference_driver.py``; this file
holds the examples.
"""

from __future__ import annotations

import numpy as np
from reference_driver import Example, interior, mirror, mirror_faces, wrap  # noqa: F401 - the tests use ref.interior, ref.mirror, ...

EXAMPLES: dict[str, Example] = {}


def _register(ex: Example) -> Example:
    EXAMPLES[ex.name] = ex
    return ex


def _gauss3(c, cx, cy, cz, width):
    return np.exp(-((c.x - cx) ** 2 + (c.y - cy) ** 2 + (c.z - cz) ** 2) / width)


# ----------------------------------------------------------------------------- heat3d (+ f32)


def _lap7(u):
    """The 7-point Laplacian (h = 1)."""
    return u(-1, 0, 0) + u(1, 0, 0) + u(0, -1, 0) + u(0, 1, 0) + u(0, 0, -1) + u(0, 0, 1) - 6 * u()


def _heat3d_update(f, p):
    u = f["u"]
    return {"u": u() + p.alpha * _lap7(u)}


def _heat3d_init(c, p):
    return _gauss3(c, c.nx / 2, c.ny / 2, c.nz / 2, 50.0)


for _name, _T in (("heat3d", np.float64), ("heat3d_f32", np.float32)):
    _register(Example(
        name=_name, ndim=3, dtype=_T, halo_lo=(1, 1, 1), halo_hi=(1, 1, 1),
        state={"u": (1, "dirichlet")}, inputs=(), params={"alpha": 0.1},
        inits={"u": _heat3d_init}, update=_heat3d_update,
        doc="explicit heat equation, 7-point star"))


# ----------------------------------------------------------------------------- jacobi2d


def _jacobi2d_update(f, p):
    u = f["u"]
    mean = (u(-1, 0) + u(1, 0) + u(0, -1) + u(0, 1)) / 4
    return {"u": (1 - p.omega) * u() + p.omega * mean}


_register(Example(
    name="jacobi2d", ndim=2, dtype=np.float64, halo_lo=(1, 1), halo_hi=(1, 1),
    state={"u": (1, "dirichlet")}, inputs=(), params={"omega": 0.8},
    inits={"u": lambda c, p: np.sin(np.pi * c.x / (c.nx - 1)) * np.exp(-3.0 * c.y / c.ny)},
    update=_jacobi2d_update, doc="weighted Jacobi for the Laplace equation"))


# ----------------------------------------------------------------------------- box19


def _box19_update(f, p):
    u = f["u"]
    faces = sum(u(*o) for o in _unit_offsets(3, 1))
    edges = sum(u(*o) for o in _unit_offsets(3, 2))
    return {"u": u() + p.alpha * (2 * faces + edges - 24 * u()) / 6}


def _unit_offsets(nd, nonzero):
    """All offsets in {-1, 0, 1}^nd with exactly `nonzero` non-zero entries."""
    from itertools import product

    return [o for o in product((-1, 0, 1), repeat=nd) if sum(map(abs, o)) == nonzero and max(map(abs, o)) == 1]


_register(Example(
    name="box19", ndim=3, dtype=np.float64, halo_lo=(1, 1, 1), halo_hi=(1, 1, 1),
    state={"u": (1, "dirichlet")}, inputs=(), params={"alpha": 0.1},
    inits={"u": lambda c, p: np.exp(-((c.x - 0.4 * c.nx) ** 2 / 40 + (c.y - c.ny / 2) ** 2 / 30
                                      + (c.z - c.nz / 2) ** 2 / 20))},
    update=_box19_update, doc="heat equation, 19-point Laplacian"))


# ----------------------------------------------------------------------------- box27


def _box27_update(f, p):
    u = f["u"]
    bx = by = np.array([1, 2, 1]) / 4  # binomial smoothing along x and y
    bz = np.array([1, 6, 1]) / 8  # weaker along z
    smooth = 0
    for k in (-1, 0, 1):
        for j in (-1, 0, 1):
            for i in (-1, 0, 1):
                smooth = smooth + (bx[i + 1] * by[j + 1] * bz[k + 1]) * u(i, j, k)
    return {"u": (1 - p.theta) * u() + p.theta * smooth}


_register(Example(
    name="box27", ndim=3, dtype=np.float64, halo_lo=(1, 1, 1), halo_hi=(1, 1, 1),
    state={"u": (1, "dirichlet")}, inputs=(), params={"theta": 0.5},
    inits={"u": lambda c, p: _gauss3(c, c.nx / 3, c.ny / 3, c.nz / 2, 30.0)
           + 0.5 * _gauss3(c, 2 * c.nx / 3, 2 * c.ny / 3, c.nz / 3, 15.0)},
    update=_box27_update, doc="anisotropic 27-point binomial smoothing"))


# ----------------------------------------------------------------------------- star2


def _star2_update(f, p):
    u = f["u"]
    coef = {-2: -1 / 12, -1: 16 / 12, 0: -30 / 12, 1: 16 / 12, 2: -1 / 12}  # 4th-order d2/dx2
    lap = 0
    for axis in range(3):
        for r, w in coef.items():
            off = [0, 0, 0]
            off[axis] = r
            lap = lap + w * u(*off)
    return {"u": u() + p.alpha * lap}


_register(Example(
    name="star2", ndim=3, dtype=np.float64, halo_lo=(2, 2, 2), halo_hi=(2, 2, 2),
    state={"u": (1, "dirichlet")}, inputs=(), params={"alpha": 0.05},
    inits={"u": lambda c, p: _gauss3(c, c.nx / 2, c.ny / 2, c.nz / 2, 40.0)},
    update=_star2_update, doc="heat equation, 13-point 4th-order Laplacian"))


# ----------------------------------------------------------------------------- varheat


def _varheat_update(f, p):
    u, c = f["u"], f["c"]
    flux = 0
    for o in _unit_offsets(3, 1):  # the six faces; conductivity = geometric mean
        flux = flux + np.sqrt(c() * c(*o)) * (u(*o) - u())
    return {"u": u() + p.alpha * flux}


_register(Example(
    name="varheat", ndim=3, dtype=np.float64, halo_lo=(1, 1, 1), halo_hi=(1, 1, 1),
    state={"u": (1, "dirichlet")}, inputs=("c",), params={"alpha": 0.1},
    inits={"c": lambda c, p: 0.55 + 0.45 * np.tanh((c.x - c.nx / 2) / 3),
           "u": lambda c, p: _gauss3(c, c.nx / 4, c.ny / 2, c.nz / 2, 20.0)},
    update=_varheat_update, doc="variable-coefficient heat conduction"))


# ----------------------------------------------------------------------------- flux2d


def _flux2d_update(f, p):
    u, k = f["u"], f["k"]

    def fx(dx, dy):  # the flux through the east face of cell (dx, dy)
        return 0.5 * (k(dx, dy) + k(dx + 1, dy)) * (u(dx + 1, dy) - u(dx, dy))

    def fy(dx, dy):  # through its north face
        return 0.5 * (k(dx, dy) + k(dx, dy + 1)) * (u(dx, dy + 1) - u(dx, dy))

    return {"u": u() + p.alpha * (fx(0, 0) - fx(-1, 0) + fy(0, 0) - fy(0, -1))}


_register(Example(
    name="flux2d", ndim=2, dtype=np.float64, halo_lo=(1, 1), halo_hi=(1, 1),
    state={"u": (1, "dirichlet")}, inputs=("k",), params={"alpha": 0.2},
    inits={"k": lambda c, p: 0.55 + 0.45 * np.tanh((c.x - c.nx / 2) / 4),
           "u": lambda c, p: np.exp(-((c.x - c.nx / 3) ** 2 + (c.y - c.ny / 2) ** 2) / 30.0)},
    update=_flux2d_update, doc="diffusion in flux form, each face's flux a let read at two cells"))


# ----------------------------------------------------------------------------- wave3d


def _wave3d_update(f, p):
    u = f["u"]
    return {"u": 2 * u() - u.prev() + p.c2 * _lap7(u)}


_register(Example(
    name="wave3d", ndim=3, dtype=np.float64, halo_lo=(1, 1, 1), halo_hi=(1, 1, 1),
    state={"u": (2, "dirichlet")}, inputs=(), params={"c2": 0.2},
    inits={"u": lambda c, p: _gauss3(c, c.nx / 2, c.ny / 2, c.nz / 2, 20.0),
           "u.prev": lambda c, p: _gauss3(c, c.nx / 2 - 0.5, c.ny / 2, c.nz / 2, 20.0)},
    update=_wave3d_update, doc="wave equation, leapfrog"))


# ----------------------------------------------------------------------------- grayscott2d


def _lap5(u):
    return u(-1, 0) + u(1, 0) + u(0, -1) + u(0, 1) - 4 * u()


def _grayscott_update(f, p):
    u, v = f["u"], f["v"]
    reaction = u() * v() ** 2
    return {"u": u() + p.Du * _lap5(u) - reaction + p.F * (1 - u()),
            "v": v() + p.Dv * _lap5(v) + reaction - (p.F + p.k) * v()}


def _spot(c):
    return np.exp(-((c.x - c.nx / 2) ** 2 + (c.y - c.ny / 2) ** 2) / 20)


_register(Example(
    name="grayscott2d", ndim=2, dtype=np.float64, halo_lo=(1, 1), halo_hi=(1, 1),
    state={"u": (1, "neumann"), "v": (1, "neumann")}, inputs=(),
    params={"Du": 0.16, "Dv": 0.08, "F": 0.035, "k": 0.065},
    inits={"u": lambda c, p: 1 - 0.5 * _spot(c), "v": lambda c, p: 0.25 * _spot(c)},
    update=_grayscott_update, doc="Gray-Scott reaction-diffusion"))


# ----------------------------------------------------------------------------- filter2d


def _filter2d_update(f, p):
    u = f["u"]
    bx = np.array([1, 4, 6, 4, 1]) / 16  # wider along x
    by = np.array([1, 2, 3, 2, 1]) / 9
    blur = 0
    for j in range(-2, 3):
        for i in range(-2, 3):
            blur = blur + (bx[i + 2] * by[j + 2]) * u(i, j)
    return {"u": np.clip(u() + p.amount * (u() - blur), 0, 1)}


_register(Example(
    name="filter2d", ndim=2, dtype=np.float64, halo_lo=(2, 2), halo_hi=(2, 2),
    state={"u": (1, "dirichlet")}, inputs=(), params={"amount": 0.5},
    inits={"u": lambda c, p: 0.5 + 0.4 * np.tanh((8 - np.sqrt((c.x - c.nx / 2) ** 2 + (c.y - c.ny / 2) ** 2)) / 2)
           * (0.8 + 0.2 * np.cos(c.x / 2))},
    update=_filter2d_update, doc="5x5 unsharp mask, clamped to [0, 1]"))


# ----------------------------------------------------------------------------- advect2d


def _beam_warming_x(q, dy, cx):
    """One Beam-Warming step along +x, evaluated on row offset dy."""
    q0, q1, q2 = q(0, dy), q(-1, dy), q(-2, dy)
    return q0 - cx / 2 * (3 * q0 - 4 * q1 + q2) + cx**2 / 2 * (q0 - 2 * q1 + q2)


def _advect2d_update(f, p):
    u, q = f["u"], f["q"]
    new_u = u() - p.cx * (u() - u(-1, 0)) - p.cy * (u() - u(0, -1))
    here, below = _beam_warming_x(q, 0, p.cx), _beam_warming_x(q, -1, p.cx)
    return {"u": new_u, "q": here - p.cy * (here - below)}


_register(Example(
    name="advect2d", ndim=2, dtype=np.float64, halo_lo=(2, 1), halo_hi=(0, 0),
    state={"u": (1, "neumann"), "q": (1, "dirichlet")}, inputs=(), params={"cx": 0.4, "cy": 0.3},
    inits={"u": lambda c, p: np.exp(-((c.x - c.nx / 4) ** 2 + (c.y - c.ny / 4) ** 2) / 10),
           "q": lambda c, p: np.exp(-((c.y - c.ny / 2) ** 2) / 8)},
    update=_advect2d_update, doc="upwind advection of two tracers"))


# ----------------------------------------------------------------------------- fdtd2d (sub-steps, a series)


def _fdtd2d_fields(f, p):  # PolyBench's i is y - 1, j is x - 1; masks keep what its loops skip
    hz, src, ex0 = f["hz"], f["src"](), f["ex0"]()
    ey = src * f["fict"]() + (1 - src) * (f["ey"]() - 0.5 * (hz() - hz(0, -1)))
    ex = ex0 * f["ex"]() + (1 - ex0) * (f["ex"]() - 0.5 * (hz() - hz(-1, 0)))
    return {"ey": ey, "ex": ex}


def _fdtd2d_hz(f, p):
    ex, ey, h = f["ex'"], f["ey'"], np.maximum(f["hlastx"](), f["hlasty"]())
    return {"hz": h * f["hz"]() + (1 - h) * (f["hz"]() - 0.7 * (ex(1, 0) - ex() + ey(0, 1) - ey()))}


def _one_at(v, at):
    return np.maximum(0, 1 - np.abs(v - at))


_register(Example(
    name="fdtd2d", ndim=2, dtype=np.float64, halo_lo=(1, 1), halo_hi=(1, 1),
    state={"ex": (1, "dirichlet"), "ey": (1, "dirichlet"), "hz": (1, "dirichlet")},
    inputs=(), params={}, series={"fict": lambda n: np.arange(n, dtype=np.float64)},
    along={"src": "y", "ex0": "x", "hlastx": "x", "hlasty": "y"},
    inits={"src": lambda c, p: _one_at(c.y, 1), "ex0": lambda c, p: _one_at(c.x, 1),
           "hlastx": lambda c, p: _one_at(c.x, c.nx - 2), "hlasty": lambda c, p: _one_at(c.y, c.ny - 2),
           "ex": lambda c, p: (c.y - 1) * c.x / (c.ny - 2), "ey": lambda c, p: (c.y - 1) * (c.x + 1) / (c.nx - 2),
           "hz": lambda c, p: (c.y - 1) * (c.x + 2) / (c.ny - 2)},
    update=(_fdtd2d_fields, _fdtd2d_hz),
    doc="PolyBench's fdtd-2d: ex, ey, then hz from the new ones (sub-steps), fict[t] a series"))


def polybench_fdtd2d(ex, ey, hz, fict, tmax):
    """PolyBench's kernel_fdtd_2d, transcribed loop for loop (arrays [nx][ny], i then j), in place."""
    for t in range(tmax):
        ey[0, :] = fict[t]
        ey[1:, :] = ey[1:, :] - 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] = ex[:, 1:] - 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] = hz[:-1, :-1] - 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])
    return ex, ey, hz


# ----------------------------------------------------------------------------- polyjacobi2d


def _cross5(u):
    return 0.2 * (u() + u(-1, 0) + u(1, 0) + u(0, 1) + u(0, -1))


_register(Example(
    name="polyjacobi2d", ndim=2, dtype=np.float64, halo_lo=(1, 1), halo_hi=(1, 1),
    state={"a": (1, "dirichlet"), "b": (1, "dirichlet")}, inputs=(), params={},
    inits={"a": lambda c, p: (c.y * (c.x + 2) + 2) / c.nx, "b": lambda c, p: (c.y * (c.x + 3) + 3) / c.nx},
    update=(lambda f, p: {"b": _cross5(f["a"])}, lambda f, p: {"a": _cross5(f["b'"])}),
    doc="PolyBench's jacobi-2d: b from a, then a from the new b"))


# ----------------------------------------------------------------------------- jacobi1d (1d)


def _mean3(u):
    return 0.33333 * (u(-1) + u() + u(1))


_register(Example(
    name="jacobi1d", ndim=1, dtype=np.float64, halo_lo=(1,), halo_hi=(1,),
    state={"A": (1, "dirichlet"), "B": (1, "dirichlet")}, inputs=(), params={},
    inits={"A": lambda c, p: (c.x + 2) / c.nx, "B": lambda c, p: (c.x + 3) / c.nx},
    update=(lambda f, p: {"B": _mean3(f["A"])}, lambda f, p: {"A": _mean3(f["B'"])}),
    doc="PolyBench's jacobi-1d on a 1d grid: B from A, then A from the new B"))


def polybench_jacobi1d(A, B, tsteps):
    """PolyBench's kernel_jacobi_1d, transcribed loop for loop, in place."""
    n = A.shape[0]
    for _ in range(tsteps):
        for i in range(1, n - 1):
            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1])
        for i in range(1, n - 1):
            A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1])
    return A, B


# ----------------------------------------------------------------------------- staggered3d


def _staggered3d_v(f, p):
    pr = f["pr"]
    return {"vx": f["vx"]() - p.dtr * (pr(1, 0, 0) - pr()), "vy": f["vy"]() - p.dtr * (pr(0, 1, 0) - pr()),
            "vz": f["vz"]() - p.dtr * (pr(0, 0, 1) - pr())}


def _staggered3d_p(f, p):
    vx, vy, vz = f["vx'"], f["vy'"], f["vz'"]
    return {"pr": f["pr"]() - p.dtk * (vx() - vx(-1, 0, 0) + vy() - vy(0, -1, 0) + vz() - vz(0, 0, -1))}


_register(Example(
    name="staggered3d", ndim=3, dtype=np.float64, halo_lo=(1, 1, 1), halo_hi=(1, 1, 1),
    state={"vx": (1, "dirichlet"), "vy": (1, "dirichlet"), "vz": (1, "dirichlet"), "pr": (1, "neumann")},
    inputs=(), params={"dtr": 0.25, "dtk": 0.25},
    inits={"pr": lambda c, p: np.exp(-((c.x - c.nx / 2) ** 2 + (c.y - c.ny / 3) ** 2 + (c.z - c.nz / 2) ** 2) / 8.0)},
    update=(_staggered3d_v, _staggered3d_p), doc="staggered-grid acoustics, velocity then pressure: sub-steps"))


# ----------------------------------------------------------------------------- acoustic2d (sources, receivers)


def ricker(n: int, dt: float = 0.001, f0: float = 15.0, t0: float = 0.1) -> np.ndarray:
    """The Ricker wavelet at t = 0, dt, 2 dt, ... (peak frequency f0, centred on t0)."""
    a = (np.pi * f0 * (np.arange(n) * dt - t0)) ** 2
    return (1 - 2 * a) * np.exp(-a)


def _acoustic2d(f, p):
    u, vp = f["u"], f["vp"]()
    r = vp * p.dt / p.h
    return {"u": 2 * u() - u.prev() + r * r * (u(1, 0) + u(-1, 0) + u(0, 1) + u(0, -1) - 4 * u())}


def _acoustic_src(size):  # one source, a third of the way down
    return np.array([[size[0] // 2, max(1, size[1] // 3)]], dtype=np.int64)


def _acoustic_rcv(size):  # a line of receivers every third cell, just below the middle
    return np.array([[x, min(size[1] - 2, size[1] // 2 + 1)] for x in range(1, size[0] - 1, 3)],
                    dtype=np.int64).reshape(-1, 2)


_register(Example(
    name="acoustic2d", ndim=2, dtype=np.float64, halo_lo=(1, 1), halo_hi=(1, 1),
    state={"u": (2, "dirichlet")}, inputs=("vp",), params={"dt": 0.001, "h": 10.0},
    inits={"vp": lambda c, p: 1500 + 1000 * np.maximum(0, np.minimum(1, 2 * c.y - c.ny)) + 0 * c.x},
    update=_acoustic2d, series={"wavelet": ricker},
    points={"src": _acoustic_src, "rcv": _acoustic_rcv},
    injects=(("u", "src", lambda at, p: (at["vp"]() * p.dt) ** 2 * at["wavelet"]()),),
    records={"rec": ("rcv", lambda at, p: at["u'"]())},
    doc="the 2d acoustic wave equation with a Ricker source and a line of receivers"))


# ----------------------------------------------------------------------------- sponge2d (inputs along an axis)


def _sponge2d(f, p):
    u, d = f["u"], f["dx"]() + f["dy"]()
    return {"u": (2 * u() - (1 - d) * u.prev() + p.c2 * (u(1, 0) + u(-1, 0) + u(0, 1) + u(0, -1) - 4 * u())) / (1 + d)}


def _sponge(v, n, p):
    return p.strength * (np.maximum(0, np.maximum(p.width - v, v - (n - 1 - p.width))) / p.width) ** 2


_register(Example(
    name="sponge2d", ndim=2, dtype=np.float64, halo_lo=(1, 1), halo_hi=(1, 1),
    state={"u": (2, "dirichlet")}, inputs=(), params={"c2": 0.25, "width": 10.0, "strength": 0.3},
    along={"dx": "x", "dy": "y"},
    inits={"dx": lambda c, p: _sponge(c.x, c.nx, p), "dy": lambda c, p: _sponge(c.y, c.ny, p),
           "u": lambda c, p: np.exp(-((c.x - c.nx / 2) ** 2 + (c.y - c.ny / 2) ** 2) / 20.0)},
    update=_sponge2d, doc="a damped wave: sponge layers whose damping varies along one axis each"))


# ----------------------------------------------------------------------------- d2q9 (periodic)

D2Q9_E = [(0, 0), (1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1)]
D2Q9_W = [4 / 9] + [1 / 9] * 4 + [1 / 36] * 4


def _d2q9(f, p):
    def collided(i, dx, dy):  # c_i at the cell (dx, dy) away, as the .stn's lets compute it
        fs = [f[f"f{j}"](dx, dy) for j in range(9)]
        rho = fs[0] + fs[1] + fs[2] + fs[3] + fs[4] + fs[5] + fs[6] + fs[7] + fs[8]
        ux = (fs[1] - fs[3] + fs[5] - fs[6] - fs[7] + fs[8]) / rho
        uy = (fs[2] - fs[4] + fs[5] + fs[6] - fs[7] - fs[8]) / rho
        usq = 1.5 * (ux * ux + uy * uy)
        if i == 0:
            return fs[0] - p.omega * (fs[0] - 4.0 / 9 * rho * (1 - usq))
        eu = {1: ux, 2: uy, 3: -ux, 4: -uy, 5: ux + uy, 6: -ux + uy, 7: -ux - uy, 8: ux - uy}[i]
        w = 1.0 / 9 if i < 5 else 1.0 / 36
        return fs[i] - p.omega * (fs[i] - w * rho * (1 + 3 * eu + 4.5 * eu * eu - usq))

    return {f"f{i}": collided(i, -e[0], -e[1]) for i, e in enumerate(D2Q9_E)}


def _d2q9_init(i):
    def init(c, p):
        uy = p.U * np.sin(6.283185307179586 * (c.x - 1) / (c.nx - 2))
        ey = D2Q9_E[i][1]
        w = 4.0 / 9 if i == 0 else 1.0 / 9 if i < 5 else 1.0 / 36
        if ey == 0:
            return w * (1 - 1.5 * uy**2) + 0 * c.y
        return w * (1 + 3 * (uy if ey > 0 else -uy) + 3 * uy**2) + 0 * c.y
    return init


_register(Example(
    name="d2q9", ndim=2, dtype=np.float64, halo_lo=(1, 1), halo_hi=(1, 1),
    state={f"f{i}": (1, "dirichlet") for i in range(9)}, inputs=(), params={"omega": 1.2, "U": 0.05},
    inits={f"f{i}": _d2q9_init(i) for i in range(9)}, update=_d2q9,
    periodic={f"f{i}": "xy" for i in range(9)},
    doc="lattice Boltzmann D2Q9, BGK, periodic: a decaying shear wave"))


# ----------------------------------------------------------------------------- upwind_limiter (conditionals)


def _minmod(a, b):
    """The .stn's `a * b <= 0 ? 0 : (abs(a) < abs(b) ? a : b)`."""
    return np.where(a * b <= 0, a.dtype.type(0), np.where(np.abs(a) < np.abs(b), a, b))


def _limited_flux(q, v, dt, e):
    """The flux through the face between the cell at 0 and the one at offset e (a unit offset): the
    face value from the upwind side, its slope limited, less what the flow carries in one step."""
    def at(k):
        return q(*[k * c for c in e])

    c = v * dt
    s0, s1 = _minmod(at(0) - at(-1), at(1) - at(0)), _minmod(at(1) - at(0), at(2) - at(1))
    return v * np.where(v > 0, at(0) + 0.5 * (1 - c) * s0, at(1) - 0.5 * (1 + c) * s1)


def _upwind_limiter(f, p):
    def q_at(dx, dy):  # q seen from the cell (dx, dy) away: the fluxes of the west and south faces
        return lambda a, b: f["q"](a + dx, b + dy)

    vx = -p.w * (f["y"]() - f["ny"] / 2)
    vy = p.w * (f["x"]() - f["nx"] / 2)
    fx, fxm = _limited_flux(q_at(0, 0), vx, p.dt, (1, 0)), _limited_flux(q_at(-1, 0), vx, p.dt, (1, 0))
    fy, fym = _limited_flux(q_at(0, 0), vy, p.dt, (0, 1)), _limited_flux(q_at(0, -1), vy, p.dt, (0, 1))
    return {"q": f["q"]() - p.dt * (fx - fxm + fy - fym)}


def _disc(c, p):
    a, b, r = c.x - c.nx / 4, c.y - c.ny / 2, c.nx / 8
    return np.where(a * a + b * b < r * r, c.nx.dtype.type(1), c.nx.dtype.type(0))


_register(Example(
    name="upwind_limiter", ndim=2, dtype=np.float64, halo_lo=(2, 2), halo_hi=(2, 2),
    state={"q": (1, "dirichlet")}, inputs=(), params={"w": 0.006283185307179586, "dt": 1.0},
    inits={"q": _disc}, update=_upwind_limiter,
    doc="a disc carried round by a solid-body rotation: upwind with a minmod limiter (conditionals, coordinates)"))


# ----------------------------------------------------------------------------- a boundary per face


def _heat2d_faces_update(f, p):
    u = f["u"]
    return {"u": u() + p.alpha * _lap5(u)}


_register(Example(
    name="heat2d_faces", ndim=2, dtype=np.float64, halo_lo=(1, 1), halo_hi=(1, 1),
    state={"u": (1, "mixed")}, faces={"u": ("neumann", "neumann", "dirichlet", "dirichlet")},
    inputs=(), params={"alpha": 0.2},
    inits={"u": lambda c, p: c.y / c.ny + 0.3 * np.cos(0.5 * c.x)},
    update=_heat2d_faces_update, doc="heat, insulated along x, held along y"))


def _wave3d_surface_update(f, p):
    u, c = f["u"], f["c"]
    return {"u": 2 * u() - u.prev() + c() ** 2 * p.dt2 * _lap7(u)}


_register(Example(
    name="wave3d_surface", ndim=3, dtype=np.float64, halo_lo=(1, 1, 1), halo_hi=(1, 1, 1),
    state={"u": (2, "mixed")}, faces={"u": ("neumann", "neumann", "neumann", "neumann", "neumann", "dirichlet")},
    inputs=("c",), params={"dt2": 0.2},
    inits={"c": lambda c, p: np.full(c.shape, 1.0),
           "u": lambda c, p: (c.nz - 1 - c.z) / c.nz * _gauss3(c, c.nx / 2, c.ny / 2, c.nz / 2, 20.0),
           "u.prev": lambda c, p: (c.nz - 1 - c.z) / c.nz * _gauss3(c, c.nx / 2 - 0.5, c.ny / 2, c.nz / 2, 20.0)},
    update=_wave3d_surface_update, doc="wave equation under a free surface (dirichlet z+, neumann elsewhere)"))


# ----------------------------------------------------------------------------- off-grid sources and receivers


def _seismic_update(f, p):
    u, vp, damp = f["u"], f["vp"](), f["damp"]()
    r = vp * p.dt / p.h
    return {"u": (2 * u() - (1 - damp) * u.prev() + r * r * _lap7(u)) / (1 + damp)}


def seismic_src(size, h: float = 10.0) -> np.ndarray:
    """One source off the grid, in metres: a little right of the middle, below the surface."""
    if min(size) < 5:  # (no room for its eight cells)
        return np.zeros((0, 3))
    return np.array([[(size[0] / 2 + 0.3) * h, (size[1] / 2 - 0.4) * h, min(size[2] * 0.6 + 0.25, size[2] - 2.5) * h]])


def seismic_rcv(size, n: int = 1000, h: float = 10.0, seed: int = 34) -> np.ndarray:
    """``n`` receivers off the grid, in metres: scattered on the plane 2.75 cells below the surface, x
    and y anywhere their eight cells stay in the interior ([1, size - 2) in cells)."""
    if min(size) < 5:  # (no room for their eight cells)
        return np.zeros((0, 3))
    rng = np.random.default_rng(seed)
    xy = rng.uniform(1, np.array(size[:2]) - 2, (n, 2))
    return np.column_stack([xy, np.full(n, size[2] - 3.75)]) * h


def _seismic_damp(c, p):
    w, s = p.width, p.strength
    return (s * (np.maximum(0, np.maximum(w - c.x, c.x - (c.nx - 1 - w))) / w) ** 2
            + s * (np.maximum(0, np.maximum(w - c.y, c.y - (c.ny - 1 - w))) / w) ** 2
            + s * (np.maximum(0, w - c.z) / w) ** 2)


_register(Example(
    name="seismic_surface", ndim=3, dtype=np.float64, halo_lo=(1, 1, 1), halo_hi=(1, 1, 1),
    state={"u": (2, "mixed")}, faces={"u": ("neumann", "neumann", "neumann", "neumann", "neumann", "dirichlet")},
    inputs=("vp", "damp"), params={"dt": 0.001, "h": 10.0, "width": 6.0, "strength": 0.2},
    inits={"vp": lambda c, p: 1500 + 1000 * np.maximum(0, np.minimum(1, 3 - 4 * c.z / c.nz)) + 0 * c.x * c.y,
           "damp": lambda c, p: _seismic_damp(c, p) + 0 * c.x * c.y * c.z},
    update=_seismic_update, series={"wavelet": ricker},
    points={"src": seismic_src, "rcv": seismic_rcv}, offgrid={"src": "h", "rcv": "h"},
    injects=(("u", "src", lambda at, p: (at["vp"]() * p.dt) ** 2 * at["wavelet"]()),),
    records={"rec": ("rcv", lambda at, p: at["u'"]())},
    doc="3d acoustics under a free surface, sponges elsewhere, a source and 1,000 receivers off the grid"))
# ----------------------------------------------------------------------------- three time levels


def _centred_flux(v, p):
    """-(cx (v[1,0] - v[-1,0]) + cy (v[0,1] - v[0,-1])) / 2: the advection term of one level."""
    return -0.5 * (p.cx * (v(1, 0) - v(-1, 0)) + p.cy * (v(0, 1) - v(0, -1)))


def _advect_ab3(f, p):
    u = f["u"]
    f0, f1, f2 = _centred_flux(u, p), _centred_flux(u.prev, p), _centred_flux(u.prev.prev, p)
    return {"u": u() + (23 * f0 - 16 * f1 + 5 * f2) / 12}


def _pulse_back(k):
    """The pulse k steps upstream of where it starts."""
    return lambda c, p: np.exp(-((c.x - c.nx / 3 + k * p.cx) ** 2 + (c.y - c.ny / 3 + k * p.cy) ** 2) / 12)


_register(Example(
    name="advect_ab3", ndim=2, dtype=np.float64, halo_lo=(1, 1), halo_hi=(1, 1),
    state={"u": (3, "dirichlet")}, inputs=(), params={"cx": 0.3, "cy": 0.2}, periodic={"u": "xy"},
    inits={"u": _pulse_back(0), "u.prev": _pulse_back(1), "u.prev.prev": _pulse_back(2)},
    update=_advect_ab3, doc="advection, third-order Adams-Bashforth: three time levels (u.prev.prev)"))
