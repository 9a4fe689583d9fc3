"""The driver of the NumPy references (``reference.py``): fields, boundary rules, the time loop.

Expects: an ``Example`` (``reference.py`` registers one per ``examples/*.stn``) whose update
functions read fields through ``Access`` (``f["u"](dx, dy)``, ``f["u"].prev()``), series
through ``SeriesAt``, inputs along an axis through ``AlongAccess``, coordinates through
``CoordAt`` (``f["x"]()``, ``f["x"](1)``) and sizes as ``f["nx"]`` and, in injects and records,
fields at points through ``AtPoints``.
Guarantees: ``Example.initial`` and ``Example.run`` follow the conventions of ``reference.py``'s
docstring (the generated programs' own): the update on the interior, dirichlet copies and
neumann mirrors (``mirror``), periodic wraps (``wrap``), sub-steps in order, injects then
records after each step, levels rotated; every access checked against the declared halo.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Callable

import numpy as np

# ----------------------------------------------------------------------------- the driver


class Access:
    """Reads one level of a field at constant offsets over the interior.

    ``u()`` is the centre, ``u(dx, dy[, dz])`` a shifted view; ``u.prev`` is the previous
    level (fields with two levels).  Every offset used is recorded in ``seen`` so that the
    halo a reference really needs can be derived and checked against the declared one.
    """

    def __init__(self, arr: np.ndarray, lo: tuple[int, ...], hi: tuple[int, ...], seen: set,
                 prev: np.ndarray | None = None, prev2: np.ndarray | None = None):
        self.arr, self.lo, self.hi, self.seen = arr, lo, hi, seen
        self._prev, self._prev2 = prev, prev2

    @property
    def prev(self) -> Access:
        """The previous level (``u.prev``); its own ``.prev`` is the one before (``u.prev.prev``)."""
        if self._prev is None:
            raise KeyError("this field has one time level")
        return Access(self._prev, self.lo, self.hi, self.seen, self._prev2)

    def __call__(self, *off: int) -> np.ndarray:
        nd = len(self.lo)
        off = off or (0,) * nd
        if len(off) != nd:
            raise ValueError(f"{nd}d field read with {len(off)} offsets")
        self.seen.add(off)
        idx = []
        # numpy axes are reversed: axis 0 is the last offset (z in 3d, y in 2d)
        for d in reversed(range(nd)):
            n = self.arr.shape[nd - 1 - d]
            if not -self.lo[d] <= off[d] <= self.hi[d]:
                raise IndexError(f"offset {off} is outside the declared halo {self.lo}/{self.hi}")
            idx.append(slice(self.lo[d] + off[d], n - self.hi[d] + off[d]))
        return self.arr[tuple(idx)]


class SeriesAt:
    """Series values at the step being computed: ``w()`` is ``w[t]``, ``w(-1)`` is ``w[t-1]`` (0
    before the series' first value; past its end is an error, as the programs refuse it)."""

    def __init__(self, values: np.ndarray, t: int):
        self.values, self.t = values, t

    def __call__(self, k: int = 0):
        i = self.t + k
        if i >= len(self.values):
            raise IndexError(f"series read at {i}, but it holds {len(self.values)} values")
        return self.values[i] if i >= 0 else self.values.dtype.type(0)


class AlongAccess:
    """An input along one axis (a 1d array) over the interior: ``c()`` at the cell, ``c(k)`` k cells
    along its axis; shaped to broadcast against the fields."""

    def __init__(self, arr: np.ndarray, axis: int, ndim: int, lo: tuple[int, ...], hi: tuple[int, ...],
                 seen: set):
        self.arr, self.axis, self.ndim, self.lo, self.hi, self.seen = arr, axis, ndim, lo, hi, seen

    def __call__(self, k: int = 0) -> np.ndarray:
        d = self.axis
        self.seen.add(tuple(k if a == d else 0 for a in range(self.ndim)))
        if not -self.lo[d] <= k <= self.hi[d]:
            raise IndexError(f"offset {k} along axis {d} is outside the declared halo {self.lo}/{self.hi}")
        v = self.arr[self.lo[d] + k: len(self.arr) - self.hi[d] + k]
        return v.reshape([-1 if a == self.ndim - 1 - d else 1 for a in range(self.ndim)])


class CoordAt:
    """A coordinate over the interior, as updates and lets read it: ``x()`` is the cell's global
    index along its axis, ``x(k)`` the index k cells along (a let read at an offset), converted to
    the element type; shaped to broadcast against the fields.  (Not a read: no halo.)"""

    def __init__(self, axis: int, n: int, ndim: int, lo: tuple[int, ...], hi: tuple[int, ...], dtype: type):
        self.axis, self.n, self.ndim, self.lo, self.hi, self.dtype = axis, n, ndim, lo, hi, dtype

    def __call__(self, k: int = 0) -> np.ndarray:
        d = self.axis
        v = np.arange(self.lo[d] + k, self.n - self.hi[d] + k).astype(self.dtype)
        return v.reshape([-1 if a == self.ndim - 1 - d else 1 for a in range(self.ndim)])


class AtPoints:
    """A field's level at a set of points (numpy indices): ``u()``; ``u.prev()`` its previous level."""

    def __init__(self, arr: np.ndarray, idx: tuple, prev: np.ndarray | None = None,
                 prev2: np.ndarray | None = None):
        self.arr, self.idx, self._prev, self._prev2 = arr, idx, prev, prev2

    def __call__(self) -> np.ndarray:
        return self.arr[self.idx]

    @property
    def prev(self) -> AtPoints:
        return AtPoints(self._prev, self.idx, self._prev2)


def offgrid_corners(c: np.ndarray, h: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Off-grid points ``c`` ((n, ndim) float64, x first; in units of ``h``) as the runtime takes them: the
    2^ndim corner cells of each ((n 2^ndim, ndim) int64, a point's corners together, corner k's bit d
    +1 along axis d) and their weights (products of 1 - f and f, x first, f the fractional part)."""
    c = np.asarray(c, dtype=np.float64) / h
    n, nd = c.shape
    lo = np.floor(c)
    f = c - lo
    cells = np.empty((n, 1 << nd, nd), dtype=np.int64)
    w = np.ones((n, 1 << nd), dtype=np.float64)
    for k in range(1 << nd):
        for d in range(nd):
            up = (k >> d) & 1
            cells[:, k, d] = lo[:, d].astype(np.int64) + up
            w[:, k] = w[:, k] * (f[:, d] if up else 1.0 - f[:, d])
    return cells.reshape(-1, nd), w.reshape(-1)


def offgrid_sum(v: np.ndarray, w: np.ndarray, corners: int) -> np.ndarray:
    """Each point's sample from its corners' (``v`` and ``w``, a point's ``corners`` together): weight x
    sample summed in corner order, in ``v``'s type (as the runtime sums them)."""
    v = np.asarray(v).reshape(-1, corners)
    w = np.asarray(w).reshape(-1, corners).astype(v.dtype)
    acc = w[:, 0] * v[:, 0]
    for k in range(1, corners):
        acc = acc + w[:, k] * v[:, k]
    return acc


def interior(shape: tuple[int, ...], lo: tuple[int, ...], hi: tuple[int, ...]) -> tuple[slice, ...]:
    """The interior of an array of numpy ``shape`` for a halo given x first."""
    nd = len(shape)
    return tuple(slice(lo[nd - 1 - a], shape[a] - hi[nd - 1 - a]) for a in range(nd))


def mirror(a: np.ndarray, lo: tuple[int, ...], hi: tuple[int, ...]) -> None:
    """Zero-gradient boundary, in place: x first, then y, then z, over whole extents."""
    nd = a.ndim
    for d in range(nd):  # d = 0 is x, the last numpy axis
        ax = nd - 1 - d
        n = a.shape[ax]
        b = np.moveaxis(a, ax, 0)  # a view: writes go to `a`
        for i in range(lo[d]):
            b[i] = b[2 * lo[d] - 1 - i]
        for i in range(n - hi[d], n):
            b[i] = b[2 * (n - hi[d]) - 1 - i]


def mirror_faces(a: np.ndarray, lo: tuple[int, ...], hi: tuple[int, ...], faces: tuple[str | None, ...]) -> None:
    """A boundary per face, in place (faces[k]: face k's kind, 0 x-, 1 x+, 2 y-, ...; "dirichlet",
    "neumann" or None for a periodic axis): the cells in the layer of a dirichlet face are left as they
    are; the other cells of a neumann face's layer are mirrored, x first, then y, then z."""
    nd = a.ndim
    kept = np.zeros(a.shape, bool)
    for d in range(nd):
        ax = nd - 1 - d
        i = np.arange(a.shape[ax]).reshape([-1 if k == ax else 1 for k in range(nd)])
        if faces[2 * d] == "dirichlet":
            kept |= i < lo[d]
        if faces[2 * d + 1] == "dirichlet":
            kept |= i >= a.shape[ax] - hi[d]
    for d in range(nd):
        ax = nd - 1 - d
        n = a.shape[ax]
        b, k = np.moveaxis(a, ax, 0), np.moveaxis(kept, ax, 0)
        if faces[2 * d] == "neumann":
            for i in range(lo[d]):
                b[i] = np.where(k[i], b[i], b[2 * lo[d] - 1 - i])
        if faces[2 * d + 1] == "neumann":
            for i in range(n - hi[d], n):
                b[i] = np.where(k[i], b[i], b[2 * (n - hi[d]) - 1 - i])


def wrap(a: np.ndarray, lo: tuple[int, ...], hi: tuple[int, ...], axes: str) -> None:
    """Periodic boundary, in place, along `axes` ("x", "xy", ...): a boundary cell takes the interior
    cell an interior's width away; x first, then y, then z, over whole extents."""
    nd = a.ndim
    for d in range(nd):
        if "xyz"[d] not in axes:
            continue
        b = np.moveaxis(a, nd - 1 - d, 0)
        n = b.shape[0]
        w = n - hi[d] - lo[d]
        for i in range(lo[d]):
            b[i] = b[i + w]
        for i in range(n - hi[d], n):
            b[i] = b[i - w]


@dataclass
class Example:
    name: str
    ndim: int
    dtype: type  # np.float32 or np.float64
    halo_lo: tuple[int, ...]  # x first
    halo_hi: tuple[int, ...]
    state: dict[str, tuple[int, str]]  # name -> (levels, "dirichlet" | "neumann" | "mixed")
    inputs: tuple[str, ...]
    params: dict[str, float]  # defaults
    inits: dict[str, Callable]  # "u" or "u.prev" -> f(c, p) with c.x, c.y, c.z, c.nx, ...
    # f(fields: dict[str, Access], p) -> {state name: new interior}; or, with sub-steps, a tuple of
    # such functions run in order, each reading the new values of those before as fields["u'"]
    update: Callable | tuple[Callable, ...]
    doc: str = ""
    # series: name -> its values for the tests when no file gives them (n -> 1d array); run() takes
    # them in `fields` as 1d arrays; an update reads f["w"](k) = w[t+k], and p.t is the step index
    series: dict[str, Callable] = field(default_factory=dict)
    SERIES_LENGTH = 512  # values of a default series: more steps than any test runs
    # sources and receivers: sets of points, given in `fields` as (n, ndim) integer arrays, x
    # first; injects (field, points, fn) add fn(at, p) to the field's new level at its points after
    # the step's updates, in order; records name -> (points, fn) sample fn(at, p) every step after
    # the injects, returned by run() as (steps, n) arrays.  fn reads `at["u"]()` (the level the step
    # read), `at["u'"]()` (the new one), series as in updates, p.t.
    points: dict = field(default_factory=dict)  # name -> the tests' default points: size -> (n, ndim) array
    # inputs along one axis: name -> "x" | "y" | "z"; 1d arrays, from files or their inits
    along: dict = field(default_factory=dict)
    # periodic boundaries: state field -> its periodic axes ("xy"); wrapped after its face rule
    periodic: dict = field(default_factory=dict)
    # a boundary per face: "mixed" state field -> the kind of each face (x-, x+, y-, y+[, z-, z+])
    faces: dict = field(default_factory=dict)
    injects: tuple = ()
    records: dict = field(default_factory=dict)
    # off-grid sets (`points NAME real [spacing P];`): name -> spacing param ("" in cells); their points are
    # (n, ndim) float64 arrays, each turned into its 2^ndim corner cells and weights (offgrid_corners)
    offgrid: dict = field(default_factory=dict)
    fields: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        self.fields = tuple(self.state) + tuple(self.inputs)

    # -- helpers
    def _params(self, overrides: dict[str, float] | None) -> SimpleNamespace:
        p = dict(self.params)
        for k, v in (overrides or {}).items():
            if k not in p:
                raise KeyError(f"{self.name} has no param {k!r}")
            p[k] = v
        return SimpleNamespace(**{k: self.dtype(v) for k, v in p.items()})

    def shape(self, size: tuple[int, ...]) -> tuple[int, ...]:
        if len(size) != self.ndim:
            raise ValueError(f"{self.name} is {self.ndim}d, size {size}")
        return tuple(reversed(size))

    def _coords(self, size: tuple[int, ...]) -> SimpleNamespace:
        T = self.dtype
        shape = self.shape(size)
        c = SimpleNamespace()
        names = "xyz"[: self.ndim]
        for d, nm in enumerate(names):
            ax = self.ndim - 1 - d
            ix = np.arange(size[d], dtype=T).reshape([-1 if a == ax else 1 for a in range(self.ndim)])
            setattr(c, nm, ix)
            setattr(c, "n" + nm, T(size[d]))
        c.shape = shape
        return c

    # -- the API
    def initial(self, size: tuple[int, ...], params: dict[str, float] | None = None,
                files: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
        """Initial values: ``files[NAME]`` (as ``--init NAME=FILE``), else the init
        expression, else zero; ``NAME.prev`` likewise, else equal to the current level;
        ``NAME.prev.prev`` (three levels) likewise, else equal to ``NAME.prev``."""
        files = files or {}
        p = self._params(params)
        c = self._coords(size)
        shape = self.shape(size)

        def make(key: str) -> np.ndarray | None:
            if key in files:
                a = np.asarray(files[key])
                assert a.shape == shape and a.dtype == self.dtype, (key, a.shape, a.dtype)
                return a.copy()
            if key in self.inits:
                a = np.broadcast_to(self.inits[key](c, p), shape).copy()
                assert a.dtype == self.dtype, (self.name, key, a.dtype)
                return a
            return None

        out = {}
        for f in self.fields:
            a = make(f)
            out[f] = a if a is not None else np.zeros(shape, self.dtype)
        for w, default in self.series.items():  # given at run time (--init w=FILE)
            out[w] = np.asarray(files[w] if w in files else default(self.SERIES_LENGTH), dtype=self.dtype).copy()
        for s, default in self.points.items():  # likewise
            out[s] = np.asarray(files[s] if s in files else default(size),
                                dtype=np.float64 if s in self.offgrid else np.int64).copy()
        for a, axis in self.along.items():  # 1d: a file, else the init along its axis, else zero
            d = "xyz".index(axis)
            if a in files:
                out[a] = np.asarray(files[a], dtype=self.dtype).copy()
            elif a in self.inits:
                full = np.broadcast_to(np.asarray(self.inits[a](c, p)), shape)
                out[a] = np.array(full[tuple(slice(None) if ax == self.ndim - 1 - d else 0 for ax in range(self.ndim))])
                assert out[a].dtype == self.dtype, (self.name, a, out[a].dtype)
            else:
                out[a] = np.zeros(size[d], self.dtype)
        for f, (levels, _) in self.state.items():
            if levels >= 2:
                a = make(f + ".prev")
                out[f + ".prev"] = a if a is not None else out[f].copy()
            if levels == 3:
                a = make(f + ".prev.prev")
                out[f + ".prev.prev"] = a if a is not None else out[f + ".prev"].copy()
        return out

    def _edges(self, f: str, a: np.ndarray, lo, hi) -> None:
        """Field f's boundary rule applied in place to a level that just took its interior (the
        dirichlet cells keep what ``a`` held there)."""
        if self.state[f][1] == "neumann":
            mirror(a, lo, hi)
        if self.state[f][1] == "mixed":
            mirror_faces(a, lo, hi, self.faces[f])
        if f in self.periodic:
            wrap(a, lo, hi, self.periodic[f])

    def run(self, fields: dict[str, np.ndarray], params: dict[str, float] | None = None,
            steps: int = 1, seen: set | None = None) -> dict[str, np.ndarray]:
        """Advance ``steps`` steps; the final current level of every field."""
        p = self._params(params)
        lo, hi = self.halo_lo, self.halo_hi
        seen = set() if seen is None else seen
        cur, prev, prev2 = {}, {}, {}
        for f, (levels, bc) in self.state.items():
            cur[f] = np.array(fields[f], dtype=self.dtype, copy=True)
            if levels >= 2:
                prev[f] = np.array(fields.get(f + ".prev", fields[f]), dtype=self.dtype, copy=True)
            if levels == 3:  # the level before .prev: its boundary rule applied as a current level's
                prev2[f] = np.array(fields.get(f + ".prev.prev", fields.get(f + ".prev", fields[f])),
                                    dtype=self.dtype, copy=True)
                self._edges(f, prev2[f], lo, hi)
            if bc == "neumann":
                mirror(cur[f], lo, hi)
                if levels >= 2:
                    mirror(prev[f], lo, hi)
            if bc == "mixed":
                mirror_faces(cur[f], lo, hi, self.faces[f])
                if levels >= 2:
                    mirror_faces(prev[f], lo, hi, self.faces[f])
            if f in self.periodic:  # before the first step too, as the mirror
                wrap(cur[f], lo, hi, self.periodic[f])
                if levels >= 2 and f + ".prev" in fields:
                    wrap(prev[f], lo, hi, self.periodic[f])
        inputs = {f: np.array(fields[f], dtype=self.dtype, copy=True) for f in self.inputs}
        series = {w: np.asarray(fields[w], dtype=self.dtype) for w in self.series}
        along = {a: np.asarray(fields[a], dtype=self.dtype) for a in self.along}
        wts = {s: offgrid_corners(np.asarray(fields[s], dtype=np.float64),
                                float({**self.params, **(params or {})}[sp]) if sp else 1.0)
               for s, sp in self.offgrid.items()}  # an off-grid set: its corner cells (as points) and weights
        at_pts = {s: tuple(np.asarray(wts[s][0] if s in wts else fields[s], dtype=np.int64)[:, d]
                           for d in reversed(range(self.ndim))) for s in self.points}  # numpy indices: z (or y) first
        recs = {r: [] for r in self.records}
        shape = next(iter(cur.values())).shape
        inner = interior(shape, lo, hi)
        stages = self.update if isinstance(self.update, tuple) else (self.update,)
        for t in range(steps):
            p.t = self.dtype(t)
            acc = {f: Access(a, lo, hi, seen, prev.get(f), prev2.get(f)) for f, a in cur.items()}
            acc.update({f: Access(a, lo, hi, seen) for f, a in inputs.items()})
            acc.update({w: SeriesAt(v, t) for w, v in series.items()})
            acc.update({a: AlongAccess(v, "xyz".index(self.along[a]), self.ndim, lo, hi, seen)
                        for a, v in along.items()})
            for d in range(self.ndim):  # the coordinates and sizes: f["x"](k), f["nx"]
                acc["xyz"[d]] = CoordAt(d, shape[self.ndim - 1 - d], self.ndim, lo, hi, self.dtype)
                acc["n" + "xyz"[d]] = self.dtype(shape[self.ndim - 1 - d])
            new = {}
            for stage in stages:  # sub-steps: a stage reads the new values of those before it
                new_inner = stage(acc, p)
                for f, v in new_inner.items():
                    v = np.asarray(v)
                    assert f in self.state and f not in new, (self.name, f)
                    assert v.dtype == self.dtype, (self.name, f, v.dtype)  # no silent promotion
                    nf = cur[f].copy()  # dirichlet: boundary cells copied from the current level
                    nf[inner] = v
                    if self.state[f][1] == "neumann":
                        mirror(nf, lo, hi)
                    if self.state[f][1] == "mixed":
                        mirror_faces(nf, lo, hi, self.faces[f])
                    if f in self.periodic:
                        wrap(nf, lo, hi, self.periodic[f])
                    new[f] = nf
                    acc[f + "'"] = Access(nf, lo, hi, seen)  # its offsets widen the halo too
            assert set(new) == set(self.state), (self.name, set(new))

            def at(s, new=new, t=t):
                out = {f: AtPoints(a, at_pts[s], prev.get(f), prev2.get(f)) for f, a in {**cur, **inputs}.items()}
                out.update({f + "'": AtPoints(a, at_pts[s]) for f, a in new.items()})
                out.update({w: SeriesAt(v, t) for w, v in series.items()})
                out.update({a: AtPoints(v, (at_pts[s][self.ndim - 1 - "xyz".index(self.along[a])],))
                            for a, v in along.items()})
                return out

            for f, s, fn in self.injects:  # after the updates, before the boundary is final
                v = np.broadcast_to(np.asarray(fn(at(s), p), dtype=self.dtype), at_pts[s][0].shape)
                if s in wts:  # each corner gets weight x value, in point then corner order
                    v = wts[s][1].astype(self.dtype) * v
                np.add.at(new[f], at_pts[s], v)
                if self.state[f][1] == "neumann":
                    mirror(new[f], lo, hi)
                if self.state[f][1] == "mixed":
                    mirror_faces(new[f], lo, hi, self.faces[f])
            for r, (s, fn) in self.records.items():
                v = np.broadcast_to(np.asarray(fn(at(s), p), dtype=self.dtype), at_pts[s][0].shape)
                recs[r].append(offgrid_sum(v, wts[s][1], 1 << self.ndim) if s in wts else v)
            for f, (levels, _) in self.state.items():
                if levels == 3:  # u.prev.prev takes u.prev's interior under its own boundary rule:
                    nf = prev2[f].copy()  # its dirichlet cells keep their initial values
                    nf[inner] = prev[f][inner]
                    self._edges(f, nf, lo, hi)
                    prev2[f] = nf
                if levels >= 2:
                    prev[f] = cur[f]
                cur[f] = new[f]
        records = {r: np.array(v, dtype=self.dtype).reshape(steps, len(fields[self.records[r][0]]))
                   for r, v in recs.items()}
        return {**cur, **inputs, **records}

    def derived_halo(self, size: tuple[int, ...] | None = None) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The halo this reference actually reads (widest offset per axis and direction)."""
        size = size or tuple(lo + hi + 3 for lo, hi in zip(self.halo_lo, self.halo_hi))
        seen: set = set()
        fields = self.initial(size)
        with np.errstate(all="ignore"):
            self.run(fields, None, 1, seen=seen)
        lo = tuple(max(0, -min(o[d] for o in seen)) for d in range(self.ndim))
        hi = tuple(max(0, max(o[d] for o in seen)) for d in range(self.ndim))
        return lo, hi
