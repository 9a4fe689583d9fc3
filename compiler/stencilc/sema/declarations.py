"""Pass 1 of sema: the grid and every declaration; at the end, the warnings about unused names.

Expects: a ``CheckerBase`` with an empty state and the tree's declarations.
Guarantees: after ``_collect_sum_vars``, ``_grid`` and ``_declarations``: ``all_sum_vars``
holds every sum index of the tree; ``ndim`` and ``dtype`` are the grid's (3d f64 if it is
missing or wrong, with an error); every name declared once, unreserved and no sum index is in
``decl_of`` with its kind and in the table of its kind (params with their constant value,
fields as ``FieldInfo``, tables folded to their row-major values when their shape matches,
lets in ``lets`` and ``let_order``, series, points); every other declaration has an error.
``_warnings`` (after pass 2) warns, in declaration order by kind, about every two-level field
whose ``.prev`` is never read and every input, param, table, series, set of points and let
never used.
"""

from __future__ import annotations

from .. import ast
from ..diagnostics import Loc
from ..ir import FUNCTIONS
from .base import CheckerBase, _shape
from .consteval import NotConstant, eval_const
from .model import COORDS, RESERVED, TIME, FieldInfo, TableInfo


class DeclarationChecks(CheckerBase):
    def _grid(self, decls) -> None:
        grids = [d for d in decls if isinstance(d, ast.GridDecl)]
        if not grids:
            self.rep.error(f"stencil '{self.tree.name}' has no grid declaration (add e.g. 'grid 3d f64;')", self.tree.loc)
            return
        for extra in grids[1:]:
            self.rep.error("the grid is declared twice", extra.loc, [("first declared here", grids[0].loc)])
        g = grids[0]
        if g.ndim not in (1, 2, 3):
            self.rep.error(f"a grid is 1d, 2d or 3d, not {g.ndim}d", g.ndim_loc)
        else:
            self.ndim = g.ndim
        if g.dtype not in ("f32", "f64"):
            self.rep.error(f"unknown element type '{g.dtype}'; expected f32 or f64", g.dtype_loc)
        else:
            self.dtype = g.dtype

    def _declare(self, name: str, kind: str, loc: Loc) -> bool:
        if name in RESERVED:
            what = "a math function" if name in FUNCTIONS else "the step index" if name == TIME else \
                "a built-in coordinate or grid size"
            self.rep.error(f"'{name}' is {what} and cannot be declared as a {kind}", loc)
            return False
        if name in self.decl_of:
            pkind, ploc = self.decl_of[name]
            self.rep.error(f"'{name}' is already declared (as a {pkind})", loc, [("previous declaration is here", ploc)])
            return False
        if name in self.all_sum_vars:
            self.rep.error(f"'{name}' is also used as a sum index; choose another name", loc)
            return False
        self.decl_of[name] = (kind, loc)
        return True

    def _declarations(self, decls) -> None:
        for d in decls:
            if isinstance(d, ast.ParamDecl):
                if self._declare(d.name, "param", d.loc):
                    try:
                        self.params[d.name] = eval_const(d.value)
                    except NotConstant as e:
                        self.rep.error(f"the default of param '{d.name}' {e.message}", e.loc)
                        self.params[d.name] = 0.0
            elif isinstance(d, ast.StateDecl):
                levels = 1 if d.levels is None else d.levels
                if levels not in (1, 2, 3):
                    self.rep.error(f"a state field has 1, 2 or 3 time levels, not {levels}", d.levels_loc or d.loc)
                    levels = 1
                if self._declare(d.name, "state field", d.loc):
                    self.fields[d.name] = FieldInfo(d.name, "state", levels, d)
            elif isinstance(d, ast.InputDecl):
                along = None
                if d.along is not None:
                    along = COORDS.get(d.along)
                    if along is None or along >= self.ndim:
                        self.rep.error(f"'along' names an axis of the grid ({', '.join('xyz'[:self.ndim])}), "
                                       f"not '{d.along}'", d.along_loc)
                        along = 0
                if self._declare(d.name, "input field", d.loc):
                    self.fields[d.name] = FieldInfo(d.name, "input", 1, d, along=along)
            elif isinstance(d, ast.SeriesDecl):
                if self._declare(d.name, "series", d.loc):
                    self.series[d.name] = d
            elif isinstance(d, ast.PointsDecl):
                if self._declare(d.name, "points", d.loc):
                    self.points[d.name] = d
            elif isinstance(d, ast.RecordDecl):
                self._declare(d.name, "record", d.loc)
            elif isinstance(d, ast.TableDecl):
                if self._declare(d.name, "table", d.loc):
                    self._table(d)
            elif isinstance(d, ast.LetDecl):
                if self._declare(d.name, "let", d.loc):
                    self.lets[d.name] = d
                    self.let_order.append(d)

    def _table(self, d: ast.TableDecl) -> None:
        for n, loc in zip(d.dims, d.dims_locs):
            if n < 1:
                self.rep.error(f"table dimension must be at least 1, not {n}", loc)
                return
        values: list[float] = []

        def walk(item, depth: int) -> bool:
            if depth == len(d.dims):
                if isinstance(item, ast.TableInit):
                    self.rep.error(f"table '{d.name}' has {len(d.dims)} dimension(s), but this list is nested deeper",
                                   item.loc)
                    return False
                try:
                    values.append(eval_const(item))
                except NotConstant as e:
                    self.rep.error(f"a table entry {e.message}", e.loc)
                    return False
                return True
            if not isinstance(item, ast.TableInit):
                self.rep.error(f"table '{d.name}' is declared {_shape(d.dims)}: expected a {{...}} list of "
                               f"{d.dims[depth]} here", item.loc)
                return False
            if len(item.items) != d.dims[depth]:
                self.rep.error(f"table '{d.name}' is declared {_shape(d.dims)}: this list has {len(item.items)} "
                               f"entries, expected {d.dims[depth]}", item.loc)
                return False
            return all(walk(x, depth + 1) for x in item.items)

        if walk(d.init, 0):
            self.tables[d.name] = TableInfo(d.name, d.dims, values, d)

    def _collect_sum_vars(self, decls) -> None:
        def visit(e):
            if isinstance(e, ast.Sum):
                for r in e.ranges:
                    self.all_sum_vars.add(r.var)
            for c in ast.children(e):
                visit(c)

        for d in decls:
            v = getattr(d, "value", None)
            if v is not None:
                visit(v)

    def _warnings(self) -> None:
        for f in self.fields.values():
            if f.levels == 2 and f.name not in self.prev_read:
                self.rep.warning(f"'{f.name}' keeps two time levels but '{f.name}.prev' is never read", f.decl.loc)
            if f.levels == 3 and f.name not in self.prev2_read:
                self.rep.warning(f"'{f.name}' keeps three time levels but '{f.name}.prev.prev' is never read",
                                 f.decl.loc)
            if f.kind == "input" and f.name not in self.used:
                self.rep.warning(f"input field '{f.name}' is never read", f.decl.loc)
        for name in self.params:
            if name not in self.used:
                self.rep.warning(f"param '{name}' is never used", self.decl_of[name][1])
        for t in self.tables.values():
            if t.name not in self.used:
                self.rep.warning(f"table '{t.name}' is never used", t.decl.loc)
        for name, d in self.series.items():
            if name not in self.used:
                self.rep.warning(f"series '{name}' is never read", d.loc)
        for name, d in self.points.items():
            if name not in self.used:
                self.rep.warning(f"points '{name}' are never used", d.loc)
        for x in self.let_order:
            if x.name not in self.used:
                self.rep.warning(f"let '{x.name}' is never used", x.loc)
