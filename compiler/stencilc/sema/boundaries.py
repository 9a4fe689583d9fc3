"""Sema's boundary conditions and periodic axes.

Expects: pass 1 done (``fields`` final, ``ndim`` the grid's); ``_boundary`` given every
``boundary`` statement in source order, then ``_default_boundaries`` once; the updates'
checks done before ``_wraps_read_primed``, which ``_completeness`` calls for every field.
Guarantees: each boundary is dirichlet, neumann or periodic (axes only for periodic, each an
axis of the grid, all of them when none is named); one whole-grid boundary and one whole-grid
periodic set at most, and per state field one of each, on state fields only (else an error,
noting the first).  After ``_default_boundaries`` every state field has its ``boundary``
(its own, else the whole grid's, else dirichlet) and its ``periodic`` axes (its own, else the
whole grid's).  A field read primed that wraps y or z has an update reading only state fields
that wrap the same axes, or inputs along another axis (else an error at its update).
"""

from __future__ import annotations

from .. import ast
from .base import CheckerBase
from .model import BOUNDARY_KINDS, COORDS, FieldInfo


class BoundaryChecks(CheckerBase):
    def _boundary(self, d: ast.BoundaryDecl) -> None:
        """One ``boundary`` statement: a field's, or the whole grid's (``d.field`` None)."""
        if d.kind not in BOUNDARY_KINDS:
            self.rep.error(f"unknown boundary condition '{d.kind}'; expected dirichlet, neumann or periodic",
                           d.kind_loc)
            return
        axes = self._periodic_axes(d)
        if axes is None:
            return
        if d.field is None:
            if d.kind == "periodic":
                if self.whole_grid_periodic is not None:
                    self.rep.error("the whole-grid periodic axes are given twice", d.loc,
                                   [("first given here", self.whole_grid_periodic.loc)])
                self.whole_grid_periodic, self.periodic_all = d, axes
                return
            if self.whole_grid_boundary is not None:
                self.rep.error("the whole-grid boundary is given twice", d.loc,
                               [("first given here", self.whole_grid_boundary.loc)])
            self.whole_grid_boundary = d
            return
        f = self.fields.get(d.field)
        if f is None:
            self.rep.error(f"boundary names unknown field '{d.field}'{self._suggest(d.field, 'field')}",
                           d.field_loc or d.loc)
        elif f.kind != "state":
            self.rep.error(f"boundary applies to state fields; '{d.field}' is an input (it is never written)",
                           d.field_loc or d.loc)
        elif d.kind == "periodic":
            if f.periodic_decl is not None:
                self.rep.error(f"the periodic axes of '{d.field}' are given twice", d.loc,
                               [("first given here", f.periodic_decl.loc)])
            f.periodic, f.periodic_decl = axes, d
        elif f.boundary_decl is not None:
            self.rep.error(f"the boundary of '{d.field}' is given twice", d.loc,
                           [("first given here", f.boundary_decl.loc)])
        else:
            f.boundary = d.kind
            f.boundary_decl = d

    def _default_boundaries(self) -> None:
        """The whole grid's boundary (dirichlet if none) and periodic axes, for the fields without their own."""
        default = self.whole_grid_boundary.kind if self.whole_grid_boundary else "dirichlet"
        for f in self.fields.values():
            if f.kind == "state" and f.boundary is None:
                f.boundary = default
            if f.kind == "state" and f.periodic_decl is None:
                f.periodic, f.periodic_decl = set(self.periodic_all), self.whole_grid_periodic

    def _periodic_axes(self, d: ast.BoundaryDecl) -> set[int] | None:
        """The axes of `boundary [FIELD] periodic [AXES];` (all when none are named); None after an
        error.  Only periodic takes axes."""
        if d.kind != "periodic":
            if d.axes:
                self.rep.error(f"only 'periodic' names axes; '{d.kind}' applies to every face", d.axes_locs[0])
                return None
            return set()
        axes = set()
        for a, loc in zip(d.axes, d.axes_locs):
            if a not in COORDS or COORDS[a] >= self.ndim:
                self.rep.error(f"'periodic' names axes of the grid ({', '.join('xyz'[:self.ndim])}), not '{a}'", loc)
                return None
            axes.add(COORDS[a])
        return axes or set(range(self.ndim))

    def _wraps_read_primed(self, f: FieldInfo) -> None:
        """A field read primed and periodic along y or z: a tile's scratch computes its new value
        on the boundary layer with its own update, reading the cells there as they lie, which are
        the far side's only for fields that wrap the same axes (an input's boundary cells are its
        own; an ``along`` input is indexed by the grid's coordinate)."""
        axes = f.periodic - {0}
        if not axes or f.update is None:
            return
        reader = self._primed_reader(f.name)
        if reader is None:
            return
        for g in self._fields_read(f.update.value):
            info = self.fields[g]
            if info.kind == "input" and info.along is not None and info.along not in axes:
                continue
            missing = axes - info.periodic if info.kind == "state" else axes
            if missing:
                names = ", ".join("xyz"[a] for a in sorted(missing))
                what = (f"'{g}', which is not" if info.kind == "state" else
                        f"the input '{g}' (an input's boundary cells are its own, not the far side's)"
                        if info.along is None else
                        f"the input '{g}' along {'xyz'[info.along]} (indexed by the grid's own {'xyz'[info.along]})")
                self.rep.error(f"'{f.name}' is periodic along {names} and read with a prime (by the update of "
                               f"'{reader.name}'): its update may read only state fields periodic along {names}, "
                               f"but it reads {what}", f.update.loc, [("read with a prime here", reader.loc)])
                return
