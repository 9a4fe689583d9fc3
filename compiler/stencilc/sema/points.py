"""Sema's ``inject`` and ``record`` at a set of points.

Expects: pass 1 done; the statements given in source order, the updates' checks (``steps``)
before ``_injected_and_read_primed``, which ``_completeness`` calls once every boundary is known.
Guarantees: an inject names a state field and a record its own declaration, each at a
declared set of points (else an error, saying what the name is), and each value is checked in
its context ("inject": the levels before the step at the point, no new value; "record": after
the step); the sound ones are in ``injects`` and ``records`` in source order, and their points
are ``used``.  An off-grid set (``points rcv real;``, ``... real spacing h;``) is in ``offgrid`` with
its spacing param ("" for coordinates in cells); a misspelt word or a spacing that is no param is an
error at the word.  A field injected into that wraps y or z may not be read primed (an error at the
first such inject).
"""

from __future__ import annotations

from .. import ast
from ..diagnostics import Loc
from .base import CheckerBase


class PointChecks(CheckerBase):
    def _points_of(self, name: str, loc: Loc, what: str) -> bool:
        if name in self.points:
            self.used.add(name)
            return True
        kind = self.decl_of.get(name, (None,))[0]
        article = "an" if kind and kind[0] in "aeiou" else "a"
        self.rep.error(f"{what} at '{name}': " + (f"'{name}' is {article} {kind}, not a set of points (declare one: "
                                                   f"'points {name};')" if kind else
                                                   f"no points are declared by that name (declare them: "
                                                   f"'points {name};')"), loc)
        return False

    def _points_decl(self, d: ast.PointsDecl) -> None:
        """``points NAME [real [spacing PARAM]];``: the words after the name, checked."""
        if d.kind is None:
            return
        if d.kind != "real":
            self.rep.error(f"points '{d.name}': '{d.kind}' is not a kind of points; write 'points {d.name} real;' "
                           f"for off-grid points (coordinates as reals, interpolated)", d.kind_loc)
            return
        if d.key is not None and d.key != "spacing":
            self.rep.error(f"points '{d.name}' real: expected 'spacing PARAM' after 'real', not '{d.key}'",
                           d.key_loc)
            return
        if d.key is not None and d.spacing not in self.params:
            kind = self.decl_of.get(d.spacing, (None,))[0]
            article = "an" if kind and kind[0] in "aeiou" else "a"
            what = f"'{d.spacing}' is {article} {kind}" if kind else f"no param '{d.spacing}' is declared"
            self.rep.error(f"the spacing of points '{d.name}' must be a param (the grid's spacing in the "
                           f"coordinates' units): {what}", d.spacing_loc)
            return
        if d.key is not None:
            self.used.add(d.spacing)
        self.offgrid[d.name] = d.spacing or ""

    def _inject(self, d: ast.InjectDecl) -> None:
        f = self.fields.get(d.field)
        if f is None or f.kind != "state":
            kind = "an input field" if f is not None else f"a {self.decl_of[d.field][0]}" \
                if d.field in self.decl_of else "not declared"
            self.rep.error(f"inject adds to the new value of a state field; '{d.field}' is {kind}", d.loc)
            return
        ok = self._points_of(d.points, d.points_loc, f"inject {d.field}")
        self._value(d.value, "inject", "an inject's value")
        if ok:
            self.injects.append(d)

    def _record(self, d: ast.RecordDecl) -> None:
        ok = self._points_of(d.points, d.points_loc, f"record {d.name}")
        self._value(d.value, "record", "a record's value")
        if ok and self.decl_of.get(d.name, (None, None))[1] == d.loc:
            self.records.append(d)

    def _injected_and_read_primed(self) -> None:
        """An injection adds to a new value right after its update, so a later update reading that
        new value (a sub-step) sees it: each tile's scratch adds it at the points there and at the
        boundary cells in x that take their value.  A boundary row or plane of a field that wraps
        y or z is computed from the far side's cells, whose points may lie in another block: such
        a field is refused."""
        for d in self.injects:
            wraps = self.fields[d.field].periodic - {0} if d.field in self.fields else set()
            u = self._primed_reader(d.field) if wraps else None
            if u is not None:
                axes = " and ".join("xyz"[a] for a in sorted(wraps))
                self.rep.error(f"'{d.field}' is injected into and periodic along {axes}, and the update of "
                               f"'{u.name}' reads its new value '{d.field}'': injections into a field read with a "
                               f"prime can wrap x only (yet)", d.loc, [("read here", u.loc)])
                return
