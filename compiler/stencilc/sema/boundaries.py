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
from .model import BOUNDARY_KINDS, COORDS, FACES, FieldInfo


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
        faces = self._faces(d)
        if faces is None:
            return
        if d.field is None:
            if d.kind == "periodic":
                if self.whole_grid_periodic is not None:
                    self.rep.error("the whole-grid periodic axes are given twice", d.loc,
                                   [("first given here", self.whole_grid_periodic.loc)])
                self.whole_grid_periodic, self.periodic_all = d, axes
            elif faces:
                self._set_faces(self.whole_grid_faces, self.whole_grid_face_locs, d, faces, "the whole grid")
            else:
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
        elif faces:
            self._set_faces(f.faces, f.face_locs, d, faces, f"'{d.field}'")
        elif f.boundary_decl is not None:
            self.rep.error(f"the boundary of '{d.field}' is given twice", d.loc,
                           [("first given here", f.boundary_decl.loc)])
        else:
            f.boundary = d.kind
            f.boundary_decl = d

    def _set_faces(self, faces: dict[int, str], locs: dict, d: ast.BoundaryDecl, named: list[tuple[int, object]],
                   whose: str) -> None:
        """Record the kind of the faces one statement names; a face named before is an error."""
        for face, loc in named:
            if face in faces:
                self.rep.error(f"the boundary of face {FACES[face]} of {whose} is given twice", loc,
                               [("first given here", locs[face])])
                continue
            faces[face], locs[face] = d.kind, loc

    def _faces(self, d: ast.BoundaryDecl) -> list[tuple[int, object]] | None:
        """The faces `boundary [FIELD] dirichlet|neumann FACES;` names, with the place of each (an
        axis names both of its faces); [] for none or for periodic; None after an error."""
        if d.kind == "periodic":
            return []
        out = []
        for a, loc in zip(d.axes, d.axes_locs):
            axis, sign = a[0], a[1:]
            if axis not in COORDS or sign not in ("", "-", "+"):
                self.rep.error(f"'{a}' is not a face; faces are {', '.join(FACES[:2 * self.ndim])} "
                               f"(an axis {', '.join('xyz'[:self.ndim])} names both of its faces)", loc)
                return None
            if COORDS[axis] >= self.ndim:
                self.rep.error(f"the grid is {self.ndim}d: it has no face '{a}' (its faces are "
                               f"{', '.join(FACES[:2 * self.ndim])})", loc)
                return None
            faces = [2 * COORDS[axis]] if sign == "-" else [2 * COORDS[axis] + 1] if sign else \
                [2 * COORDS[axis], 2 * COORDS[axis] + 1]
            out += [(face, loc) for face in faces]
        return out

    def _default_boundaries(self) -> None:
        """The whole grid's boundary (dirichlet if none) and periodic axes, for the fields without their own;
        then each face's kind: the field's own for the face, else its whole-field boundary, else the whole
        grid's for the face, else the whole grid's boundary.  A field whose faces differ is "mixed"."""
        default = self.whole_grid_boundary.kind if self.whole_grid_boundary else "dirichlet"
        for f in self.fields.values():
            if f.kind != "state":
                continue
            if f.periodic_decl is None:
                f.periodic, f.periodic_decl = set(self.periodic_all), self.whole_grid_periodic
            kinds: list[str | None] = []
            for face in range(6):
                axis = face // 2
                own = f.faces.get(face)
                if axis >= self.ndim or axis in f.periodic:
                    if own is not None:
                        self.rep.error(f"'{f.name}' is periodic along {'xyz'[axis]} (wrapped at both faces): its "
                                       f"face {FACES[face]} takes no {own} boundary", f.face_locs[face],
                                       [("periodic here", f.periodic_decl.loc)] if f.periodic_decl else [])
                    kinds.append(None)
                else:
                    kinds.append(own or f.boundary or self.whole_grid_faces.get(face) or default)
            named = {k for k in kinds if k is not None}
            if len(named) > 1:
                f.boundary, f.face_kinds = "mixed", tuple(kinds)
            else:
                f.boundary = named.pop() if named else (f.boundary or default)
        for face, loc in self.whole_grid_face_locs.items():  # (a field's own periodic axes win over these)
            if face // 2 in self.periodic_all:
                self.rep.error(f"the grid is periodic along {'xyz'[face // 2]} (wrapped at both faces): its face "
                               f"{FACES[face]} takes no {self.whole_grid_faces[face]} boundary", loc,
                               [("periodic here", self.whole_grid_periodic.loc)])

    def _periodic_axes(self, d: ast.BoundaryDecl) -> set[int] | None:
        """The axes of `boundary [FIELD] periodic [AXES];` (all when none are named); None after an
        error.  Periodic names axes, never one face."""
        if d.kind != "periodic":
            return set()
        axes = set()
        for a, loc in zip(d.axes, d.axes_locs):
            if a[:1] in COORDS and len(a) == 2 and a[1] in "+-" and COORDS[a[0]] < self.ndim:
                self.rep.error(f"'periodic' wraps both faces of an axis: name the axis '{a[0]}', not the face "
                               f"'{a}'", loc)
                return None
            if a not in COORDS or COORDS[a] >= self.ndim:
                self.rep.error(f"'periodic' names axes of the grid ({', '.join('xyz'[:self.ndim])}), not '{a}'", loc)
                return None
            axes.add(COORDS[a])
        return axes or set(range(self.ndim))

    def _mixed_read_primed(self, f: FieldInfo) -> None:
        """A field with a boundary per face may not be read primed (a tile's scratch applies one boundary
        rule to a whole field's new value)."""
        if f.boundary != "mixed":
            return
        reader = self._primed_reader(f.name)
        if reader is not None:
            first = min(f.face_locs.values(), key=lambda loc: (loc.line, loc.col)) if f.face_locs else None
            self.rep.error(f"'{f.name}' has a boundary per face and is read with a prime (by the update of "
                           f"'{reader.name}'): a field read primed takes one boundary on every face",
                           reader.loc, [("its faces are given here", first)] if first else [])

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
