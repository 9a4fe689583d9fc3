"""Semantic analysis: AST -> checked AST.

Expects: an ``ast.Stencil`` from the front end (syntactically valid, names unresolved).
Guarantees: either a ``CompileError`` with every user mistake found (each pinned to the
source with a caret), or a ``Checked`` stencil in which

* there is exactly one ``grid`` (1d, 2d or 3d, f32 or f64) and at least one state field;
* every name is declared once, is not reserved, and resolves to what its use needs
  (fields are read, tables indexed inside sums, params and lets used as values);
* every state field has exactly one update, no input is updated, ``.prev`` is used only
  on two-level fields, boundaries name state fields and are dirichlet or neumann on their
  faces, periodic along the axes named (all when none);
* a primed read (``ex'``, the new value of this step) names a state field whose update
  comes earlier in the source than the update that reads it, directly or through lets; a
  field read primed that wraps y or z has an update reading only state fields wrapping the
  same axes (and inputs along another axis), and is not injected into;
* every offset and table index is a compile-time integer for every value of the sum
  indices in scope, offsets have one component per grid dimension, table indices are in
  range, tables have the declared shape, ``^`` has an integer-literal exponent;
* lets are defined before use; coordinates ``x y z nx ny nz`` appear only in inits,
  which read no field and no let;
* the step index ``t`` and series, read as ``w[t+k]`` (k a compile-time integer), appear
  only in updates and lets.

Unrolling, constant folding of tables and the derived facts happen in ``lower``; the
integer evaluation both use is ``eval_int`` here.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

from . import ast
from .diagnostics import Diagnostic, Loc, Reporter, SourceFile
from .ir import FUNCTIONS

COORDS = {"x": 0, "y": 1, "z": 2}
EXTENTS = {"nx": 0, "ny": 1, "nz": 2}
TIME = "t"  # the index of the step being computed
BOUNDARY_KINDS = ("dirichlet", "neumann", "periodic")
RESERVED = set(COORDS) | set(EXTENTS) | set(FUNCTIONS) | {TIME}
MAX_SUM_TERMS = 100_000
MAX_POWER = 64  # '^' multiplies out at most this many times


@dataclass
class FieldInfo:
    name: str
    kind: str  # "state" | "input"
    levels: int
    decl: ast.StateDecl | ast.InputDecl
    boundary: str | None = None
    boundary_decl: ast.BoundaryDecl | None = None
    update: ast.UpdateDecl | None = None
    init: ast.InitDecl | None = None
    init_prev: ast.InitDecl | None = None
    along: int | None = None  # ``input c along y;``: the axis of a 1d coefficient (0 x, 1 y, 2 z)
    periodic: set[int] = field(default_factory=set)  # the axes its boundary wraps around
    periodic_decl: ast.BoundaryDecl | None = None


@dataclass
class TableInfo:
    name: str
    dims: tuple[int, ...]
    values: list[float]  # row-major
    decl: ast.TableDecl


@dataclass
class Checked:
    """The checked AST: the tree plus everything resolved about it."""

    source: SourceFile
    tree: ast.Stencil
    name: str
    ndim: int
    dtype: str
    params: dict[str, float]
    fields: dict[str, FieldInfo]  # declaration order
    tables: dict[str, TableInfo]
    lets: list[ast.LetDecl]  # declaration order
    warnings: list[Diagnostic] = field(default_factory=list)
    series: list[str] = field(default_factory=list)  # declaration order
    points: list[str] = field(default_factory=list)  # declaration order
    injects: list[ast.InjectDecl] = field(default_factory=list)  # source order
    records: list[ast.RecordDecl] = field(default_factory=list)  # source order


# ---------------------------------------------------------------- constant evaluation


class NotConstant(Exception):
    def __init__(self, message: str, loc: Loc):
        super().__init__(message)
        self.message = message
        self.loc = loc


def eval_int(e: ast.Expr, env: dict[str, int]) -> int:
    """Evaluate an offset or table index: integer literals and sum indices with + - *."""
    if isinstance(e, ast.Num):
        if not e.is_int:
            raise NotConstant(f"'{e.text}' is not an integer", e.loc)
        return int(e.text)
    if isinstance(e, ast.Name):
        if e.id in env:
            return env[e.id]
        raise NotConstant(f"'{e.id}' is not known at compile time", e.loc)
    if isinstance(e, ast.Unary):
        v = eval_int(e.operand, env)
        return -v if e.op == "-" else v
    if isinstance(e, ast.Binary) and e.op in "+-*":
        a, b = eval_int(e.lhs, env), eval_int(e.rhs, env)
        return a + b if e.op == "+" else a - b if e.op == "-" else a * b
    loc = e.loc
    raise NotConstant("this expression is not an integer known at compile time", loc)


NOT_FINITE = "is not a finite number (the largest is about 1.8e308)"


def eval_const(e: ast.Expr) -> float:
    """Evaluate a param default or table entry: numbers with + - * / and unary minus, each value
    on the way finite (a 400-digit literal, 1e400 or 1e300 * 1e300 is not)."""
    if isinstance(e, ast.Num):
        try:
            v = float(e.value)
        except (OverflowError, ValueError):
            v = math.inf
        if not math.isfinite(v):
            raise NotConstant(NOT_FINITE, e.loc)
        return v
    if isinstance(e, ast.Unary):
        v = eval_const(e.operand)
        return -v if e.op == "-" else v
    if isinstance(e, ast.Binary) and e.op in "+-*/":
        a, b = eval_const(e.lhs), eval_const(e.rhs)
        if e.op == "/":
            if b == 0:
                raise NotConstant("divides by zero", e.loc)
            v = a / b
        else:
            v = a + b if e.op == "+" else a - b if e.op == "-" else a * b
        if not math.isfinite(v):
            raise NotConstant(NOT_FINITE, e.loc)
        return v
    raise NotConstant("must be a constant number (numbers with + - * /)", e.loc)


def exponent_of(e: ast.Expr) -> int | None:
    """The integer exponent of ``^``: an integer literal, optionally negated."""
    if isinstance(e, ast.Num) and e.is_int:
        return int(e.text)
    if isinstance(e, ast.Unary) and isinstance(e.operand, ast.Num) and e.operand.is_int:
        return -int(e.operand.text) if e.op == "-" else int(e.operand.text)
    return None


def sum_envs(ranges: list[ast.SumRange]) -> list[dict[str, int]]:
    """Every assignment of the given sum indices (outermost first)."""
    if not ranges:
        return [{}]
    names = [r.var for r in ranges]
    return [dict(zip(names, vals)) for vals in itertools.product(*(range(r.lo, r.hi + 1) for r in ranges))]


# ---------------------------------------------------------------- the checker


class _Checker:
    def __init__(self, tree: ast.Stencil, source: SourceFile):
        self.tree = tree
        self.rep = Reporter(source)
        self.source = source
        self.ndim = 3
        self.dtype = "f64"
        self.params: dict[str, float] = {}
        self.fields: dict[str, FieldInfo] = {}
        self.tables: dict[str, TableInfo] = {}
        self.lets: dict[str, ast.LetDecl] = {}
        self.let_order: list[ast.LetDecl] = []
        self.series: dict[str, ast.SeriesDecl] = {}
        self.init_along: FieldInfo | None = None  # the field whose init is being checked
        self.periodic_all: set[int] = set()  # the whole-grid periodic axes
        self.points: dict[str, ast.PointsDecl] = {}
        self.injects: list[ast.InjectDecl] = []
        self.records: list[ast.RecordDecl] = []
        self.decl_of: dict[str, tuple[str, Loc]] = {}  # name -> (kind, loc)
        self.all_sum_vars: set[str] = set()
        self.used: set[str] = set()
        self.prev_read: set[str] = set()
        self.defined_lets: set[str] = set()
        # sub-steps: the fields updated so far (source order), the one being updated, and for
        # each let the new values (``ex'``) it reads, directly or through other lets
        self.updated: list[str] = []
        self.updating: str | None = None
        self.defining_let: str | None = None
        self.let_new_reads: dict[str, dict[str, Loc]] = {}

    # -- entry
    def run(self) -> Checked:
        decls = self.tree.decls
        self._collect_sum_vars(decls)
        self._grid(decls)
        self._declarations(decls)
        self.rep.check()  # names must be sound before expressions are checked
        self._statements(decls)
        self._completeness()
        self.rep.check()
        self._warnings()
        return Checked(
            source=self.source, tree=self.tree, name=self.tree.name, ndim=self.ndim, dtype=self.dtype,
            params=self.params, fields=self.fields, tables=self.tables, lets=self.let_order,
            warnings=self.rep.warnings, series=list(self.series), points=list(self.points), injects=self.injects,
            records=self.records,
        )

    # -- pass 1: grid and declarations
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
                if levels not in (1, 2):
                    self.rep.error(f"a state field has 1 or 2 time levels, not {levels}", d.levels_loc or d.loc)
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

    # -- pass 2: statements and expressions
    def _statements(self, decls) -> None:
        whole_grid_boundary: ast.BoundaryDecl | None = None
        whole_grid_periodic: ast.BoundaryDecl | None = None
        for d in decls:
            if isinstance(d, ast.LetDecl):
                if self.lets.get(d.name) is d:
                    self.defining_let = d.name
                    self.let_new_reads[d.name] = {}
                    self._expr(d.value, ctx="let", scope=[])
                    self.defining_let = None
                    self.defined_lets.add(d.name)
            elif isinstance(d, ast.UpdateDecl):
                self._update(d)
            elif isinstance(d, ast.InitDecl):
                self._init(d)
            elif isinstance(d, ast.InjectDecl):
                self._inject(d)
            elif isinstance(d, ast.RecordDecl):
                self._record(d)
            elif isinstance(d, ast.BoundaryDecl):
                if d.kind not in BOUNDARY_KINDS:
                    self.rep.error(f"unknown boundary condition '{d.kind}'; expected dirichlet, neumann or periodic",
                                   d.kind_loc)
                    continue
                axes = self._periodic_axes(d)
                if axes is None:
                    continue
                if d.field is None:
                    if d.kind == "periodic":
                        if whole_grid_periodic is not None:
                            self.rep.error("the whole-grid periodic axes are given twice", d.loc,
                                           [("first given here", whole_grid_periodic.loc)])
                        whole_grid_periodic, self.periodic_all = d, axes
                        continue
                    if whole_grid_boundary is not None:
                        self.rep.error("the whole-grid boundary is given twice", d.loc,
                                       [("first given here", whole_grid_boundary.loc)])
                    whole_grid_boundary = d
                    continue
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
        default = whole_grid_boundary.kind if whole_grid_boundary else "dirichlet"
        for f in self.fields.values():
            if f.kind == "state" and f.boundary is None:
                f.boundary = default
            if f.kind == "state" and f.periodic_decl is None:
                f.periodic, f.periodic_decl = set(self.periodic_all), whole_grid_periodic

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

    def _update(self, d: ast.UpdateDecl) -> None:
        f = self.fields.get(d.name)
        if f is None:
            kind = self.decl_of.get(d.name, (None,))[0]
            if kind:
                self.rep.error(f"only state fields are updated; '{d.name}' is a {kind}", d.loc)
            else:
                self.rep.error(f"update of unknown field '{d.name}'{self._suggest(d.name, 'field')}", d.loc)
            return
        if f.kind == "input":
            self.rep.error(f"'{d.name}' is an input field and cannot be updated (declare it 'state {d.name};')", d.loc,
                           [("declared as an input here", f.decl.loc)])
            return
        if f.update is not None:
            self.rep.error(f"state field '{d.name}' is updated twice", d.loc, [("first update is here", f.update.loc)])
            return
        f.update = d
        self.updating = d.name
        self._expr(d.value, ctx="update", scope=[])
        self.updating = None
        self.updated.append(d.name)

    def _init(self, d: ast.InitDecl) -> None:
        f = self.fields.get(d.name)
        if f is None:
            kind = self.decl_of.get(d.name, (None,))[0]
            if kind:
                self.rep.error(f"init gives a field its initial values; '{d.name}' is a {kind}", d.loc)
            else:
                self.rep.error(f"init of unknown field '{d.name}'{self._suggest(d.name, 'field')}", d.loc)
            return
        if d.prev:
            if f.levels != 2:
                self.rep.error(f"'{d.name}' has one time level, so it has no '.prev' to initialise", d.loc,
                               [(f"declare it 'state {d.name} levels 2;' to keep a previous level", f.decl.loc)])
                return
            if f.init_prev is not None:
                self.rep.error(f"'{d.name}.prev' is initialised twice", d.loc, [("first init is here", f.init_prev.loc)])
                return
            f.init_prev = d
        else:
            if f.init is not None:
                self.rep.error(f"'{d.name}' is initialised twice", d.loc, [("first init is here", f.init.loc)])
                return
            f.init = d
        self.init_along = f
        self._expr(d.value, ctx="init", scope=[])
        self.init_along = None

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

    def _inject(self, d: ast.InjectDecl) -> None:
        f = self.fields.get(d.field)
        if f is None or f.kind != "state":
            kind = "an input field" if f is not None else f"a {self.decl_of[d.field][0]}" \
                if d.field in self.decl_of else "not declared"
            self.rep.error(f"inject adds to the new value of a state field; '{d.field}' is {kind}", d.loc)
            return
        ok = self._points_of(d.points, d.points_loc, f"inject {d.field}")
        self._expr(d.value, ctx="inject", scope=[])
        if ok:
            self.injects.append(d)

    def _record(self, d: ast.RecordDecl) -> None:
        ok = self._points_of(d.points, d.points_loc, f"record {d.name}")
        self._expr(d.value, ctx="record", scope=[])
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

    def _primed_reader(self, name: str) -> ast.UpdateDecl | None:
        """The first update (in source order) that reads ``name'``, directly or through lets."""
        return next((u for u in self.tree.decls if isinstance(u, ast.UpdateDecl) and u.name != name
                     and self._reads_new(u.value, name)), None)

    def _reads_new(self, e, name: str, seen: set | None = None) -> bool:
        """Whether ``e`` reads ``name'``, directly or through lets."""
        seen = set() if seen is None else seen
        if isinstance(e, ast.Ref) and e.new and e.id == name:
            return True
        if isinstance(e, (ast.Ref, ast.Name)) and e.id in self.lets and e.id not in seen:
            seen.add(e.id)
            return self._reads_new(self.lets[e.id].value, name, seen)
        return any(self._reads_new(c, name, seen) for c in ast.children(e))

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

    def _fields_read(self, e, seen: set | None = None) -> list[str]:
        """The fields ``e`` reads (any level, directly or through lets), in order of first read."""
        seen = set() if seen is None else seen
        out: list[str] = []

        def walk(e) -> None:
            if isinstance(e, (ast.Ref, ast.Name)):
                if e.id in self.lets and e.id not in seen:
                    seen.add(e.id)
                    walk(self.lets[e.id].value)
                elif e.id in self.fields and e.id not in out:
                    out.append(e.id)
            for c in ast.children(e):
                walk(c)

        walk(e)
        return out

    def _completeness(self) -> None:
        self._injected_and_read_primed()
        for f in self.fields.values():
            self._wraps_read_primed(f)
        states = [f for f in self.fields.values() if f.kind == "state"]
        if not states:
            self.rep.error(f"stencil '{self.tree.name}' has no state field, so there is nothing to advance "
                           "(declare one with 'state NAME;')", self.tree.loc)
        for f in states:
            if f.update is None:
                self.rep.error(f"state field '{f.name}' has no update (add \"{f.name}' = ...;\")", f.decl.loc)

    def _warnings(self) -> None:
        for f in self.fields.values():
            if f.levels == 2 and f.name not in self.prev_read:
                self.rep.warning(f"'{f.name}' keeps two time levels but '{f.name}.prev' is never read", f.decl.loc)
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

    # -- expressions
    def _expr(self, e: ast.Expr, ctx: str, scope: list[ast.SumRange]) -> None:
        """Check ``e`` in context ``ctx`` ("update" | "let" | "init" | "inject" | "record") with sum
        indices ``scope``."""
        if isinstance(e, ast.Num):
            self._finite(e)
            return
        if isinstance(e, ast.Name):
            self._name(e, ctx, scope)
        elif isinstance(e, ast.Ref):
            self._ref(e, ctx, scope)
        elif isinstance(e, ast.Unary):
            self._expr(e.operand, ctx, scope)
        elif isinstance(e, ast.Binary):
            self._expr(e.lhs, ctx, scope)
            if e.op == "^":
                n = exponent_of(e.rhs)
                if n is None:
                    self.rep.error("the exponent of '^' must be an integer literal (use pow(a, b) otherwise)",
                                   _loc(e.rhs))
                elif abs(n) > MAX_POWER:
                    self.rep.error(f"the exponent of '^' is {n}: '^' multiplies its operand out, and does so up to "
                                   f"{MAX_POWER} times (use pow(a, b) otherwise)", _loc(e.rhs))
            else:
                self._expr(e.rhs, ctx, scope)
        elif isinstance(e, ast.Call):
            arity = FUNCTIONS.get(e.func)
            if arity is None:
                known = ", ".join(sorted(FUNCTIONS))
                self.rep.error(f"unknown function '{e.func}' (known: {known})", e.loc)
            elif arity != len(e.args):
                self.rep.error(f"'{e.func}' takes {arity} argument{'s' if arity > 1 else ''}, not {len(e.args)}", e.loc)
            for a in e.args:
                self._expr(a, ctx, scope)
        elif isinstance(e, ast.Sum):
            self._sum(e, ctx, scope)

    def _finite(self, e: ast.Num) -> None:
        """A literal must be a number of the element type's range (a 400-digit integer, or 1e400, is not)."""
        try:
            ok = math.isfinite(float(e.text))
        except (OverflowError, ValueError):
            ok = False
        if not ok:
            shown = e.text if len(e.text) <= 24 else e.text[:20] + "..."
            self.rep.error(f"the literal {shown} is not a finite number (the largest is about 1.8e308)", e.loc)

    def _sum(self, e: ast.Sum, ctx: str, scope: list[ast.SumRange]) -> None:
        seen = {r.var: r for r in scope}
        terms = 1
        for r in e.ranges:
            if r.var in seen:
                self.rep.error(f"sum index '{r.var}' is already in use by an enclosing or the same sum", r.loc,
                               [("first bound here", seen[r.var].loc)])
                return
            if r.var in self.decl_of or r.var in RESERVED:
                self.rep.error(f"sum index '{r.var}' hides a declared or built-in name", r.loc)
                return
            if r.lo > r.hi:
                self.rep.error(f"empty sum range {r.lo}..{r.hi} (ranges are inclusive and ascending)", r.loc)
                return
            seen[r.var] = r
            terms *= r.hi - r.lo + 1
        for r in scope:
            terms *= r.hi - r.lo + 1
        if terms > MAX_SUM_TERMS:
            self.rep.error(f"this sum unrolls to {terms} terms; the limit is {MAX_SUM_TERMS}", e.loc)
            return
        self._expr(e.body, ctx, scope + list(e.ranges))

    def _name(self, e: ast.Name, ctx: str, scope: list[ast.SumRange]) -> None:
        n = e.id
        if any(r.var == n for r in scope):
            return
        if n == TIME:
            if ctx == "init":
                self.rep.error("'t' (the index of the step being computed) may not be used in init expressions: "
                               "they give the values before the first step", e.loc)
            return
        if n in self.series:
            self.used.add(n)
            self.rep.error(f"series '{n}' is read at a step: {n}[t] (this step), {n}[t-1], {n}[t+1]", e.loc)
            return
        if n in COORDS or n in EXTENTS:
            if ctx != "init":
                self.rep.error(f"'{n}' (a grid coordinate or size) may be used only in init expressions; "
                               "give position-dependent coefficients as an input field", e.loc)
            elif (COORDS.get(n, EXTENTS.get(n))) >= self.ndim:
                self.rep.error(f"'{n}' does not exist in a {self.ndim}d grid", e.loc)
            elif n in COORDS and self.init_along is not None and self.init_along.along is not None \
                    and COORDS[n] != self.init_along.along:
                a = "xyz"[self.init_along.along]
                self.rep.error(f"'{n}' varies across '{self.init_along.name}', which runs along {a}: its init may "
                               f"use {a} (and the sizes nx, ny{', nz' if self.ndim == 3 else ''})", e.loc)
            return
        if n in self.params:
            self.used.add(n)
            return
        if n in self.fields:
            self._field_access(e, self.fields[n], False, None, ctx, scope)
            return
        if n in self.lets:
            self._let_use(e, ctx)
            return
        if self.decl_of.get(n, ("",))[0] == "record":
            self.rep.error(f"'{n}' is a record: its samples go to --out {n}=FILE, and nothing reads them", e.loc)
            return
        if n in self.points:
            self.used.add(n)
            self.rep.error(f"'{n}' is a set of points; it is used only by 'inject ... at {n}' and "
                           f"'record ... at {n}'", e.loc)
            return
        if n in self.tables:
            self.rep.error(f"table '{n}' must be indexed, e.g. {n}{'[i]' * len(self.tables[n].dims)}", e.loc)
            return
        if n in self.all_sum_vars:
            self.rep.error(f"sum index '{n}' is used outside its sum", e.loc)
            return
        if n in FUNCTIONS:
            self.rep.error(f"'{n}' is a function; call it as {n}(...)", e.loc)
            return
        if n in self.decl_of:  # a declaration that failed its own checks
            return
        self.rep.error(f"unknown name '{n}'{self._suggest(n, 'any')}", e.loc)

    def _ref(self, e: ast.Ref, ctx: str, scope: list[ast.SumRange]) -> None:
        n = e.id
        if n in self.fields:
            f = self.fields[n]
            if len(e.subscripts) > 1:
                self.rep.error(f"field '{n}' takes one offset list, e.g. {n}[{','.join(['0'] * self.ndim)}]", e.loc)
                return
            if e.new and not self._new_read(e, f, ctx):
                return
            self._field_access(e, f, e.prev, e.subscripts[0] if e.subscripts else None, ctx, scope)
            return
        if n in self.series:
            self._series_ref(e, ctx)
            return
        if n in self.points or self.decl_of.get(n, ("",))[0] == "record":
            self._name(ast.Name(n, e.loc), ctx, scope)
            return
        if n == TIME:
            self.rep.error("'t' (the step index) cannot be indexed; a series is read at it: w[t]", e.loc)
            return
        if e.new:
            what = self.decl_of.get(n, ("",))[0]
            if what:
                self.rep.error(f"a prime reads the new value of a state field updated earlier in the step; "
                               f"'{n}' is a {what}", e.loc)
            else:
                self.rep.error(f"unknown field '{n}'{self._suggest(n, 'field')}", e.loc)
            return
        if e.prev:
            what = self.decl_of.get(n, ("",))[0]
            if what:
                self.rep.error(f"'.prev' applies to two-level state fields; '{n}' is a {what}", e.loc)
            else:
                self.rep.error(f"unknown field '{n}'{self._suggest(n, 'field')}", e.loc)
            return
        if n in self.tables:
            self._table_ref(e, self.tables[n], scope)
            return
        if n in self.lets:
            self._let_access(e, scope, ctx)
            return
        if n in self.params:
            self.rep.error(f"'{n}' is a {self.decl_of[n][0]}, not a field or table, and cannot be indexed", e.loc)
            return
        if n in self.all_sum_vars or n in COORDS or n in EXTENTS:
            self.rep.error(f"'{n}' cannot be indexed", e.loc)
            return
        if n in self.decl_of:
            return
        self.rep.error(f"unknown field or table '{n}'{self._suggest(n, 'any')}", e.loc)

    def _field_access(self, e, f: FieldInfo, prev: bool, offsets, ctx: str, scope) -> None:
        self.used.add(f.name)
        if ctx == "init":
            self.rep.error(f"init expressions cannot read fields ('{f.name}'); use params, coordinates and sizes",
                           e.loc)
            return
        if ctx in ("inject", "record") and offsets is not None and any(
                not (isinstance(o, ast.Num) and o.is_int and int(o.text) == 0) for o in offsets):
            self.rep.error(f"{'an inject' if ctx == 'inject' else 'a record'} reads fields at its point only: "
                           f"'{f.name}' (not at an offset)", e.loc)
            return
        if prev:
            self.prev_read.add(f.name)
            if f.levels != 2:
                self.rep.error(f"'{f.name}' has one time level, so '{f.name}.prev' does not exist", e.loc,
                               [(f"declare it 'state {f.name} levels 2;' to keep a previous level", f.decl.loc)])
                return
        if f.along is not None:
            a = "xyz"[f.along]
            if offsets is not None and len(offsets) != 1:
                self.rep.error(f"'{f.name}' runs along {a}: it is read as {f.name} or {f.name}[k], the value k cells "
                               f"along {a}", e.loc)
            elif offsets is not None:
                self._check_int(offsets[0], scope, "an offset")
            return
        if offsets is not None:
            self._offsets(e, f"'{f.name}'", offsets, scope)

    def _series_ref(self, e: ast.Ref, ctx: str) -> None:
        """``w[t]``, ``w[t-1]``, ``w[t+2]``: a series at the step index plus a constant."""
        n = e.id
        self.used.add(n)
        if e.new or e.prev:
            self.rep.error(f"series '{n}' has one value per step, read as {n}[t]; "
                           f"{'a prime' if e.new else '.prev'} does not apply to it", e.loc)
            return
        if ctx == "init":
            self.rep.error(f"init expressions cannot read series ('{n}'): they give the values before the first step",
                           e.loc)
            return
        if len(e.subscripts) != 1 or len(e.subscripts[0]) != 1 or series_offset(e.subscripts[0][0]) is None:
            self.rep.error(f"series '{n}' is read at the step index plus an integer: {n}[t], {n}[t-1], {n}[t+2]",
                           e.loc)

    def _new_read(self, e: ast.Ref, f: FieldInfo, ctx: str) -> bool:
        """``ex'``: the new value of a state field whose update comes earlier in the step."""
        n = f.name
        if f.kind != "state":
            self.rep.error(f"'{n}' is an input field: it has no new value ('{n}'' reads state fields updated "
                           "earlier in the step)", e.loc, [("declared as an input here", f.decl.loc)])
            return False
        if ctx == "let":
            self.let_new_reads[self.defining_let].setdefault(n, e.loc)
            return True
        if ctx == "update":
            return self._new_read_in_update(n, e.loc, None)
        if ctx == "inject":
            self.rep.error(f"an inject reads the levels before the step, at its point ('{n}'); a new value "
                           f"('{n}'') is not available to it", e.loc)
            return False
        return True  # record: every update is done; init: _field_access reports that inits read no field

    def _new_read_in_update(self, n: str, loc: Loc, via: str | None) -> bool:
        """Is ``n'`` known when the current update runs?  Updates run in source order."""
        through = f" (through let '{via}')" if via else ""
        if n == self.updating:
            self.rep.error(f"the update of '{n}' reads its own new value '{n}''{through}; it computes that value, "
                           f"so it reads the old one, '{n}'", loc)
            return False
        if n not in self.updated:
            later = [d for d in self.tree.decls if isinstance(d, ast.UpdateDecl) and d.name == n]
            notes = [(f"'{n}' is updated here, after the update of '{self.updating}'", later[0].loc)] if later else []
            self.rep.error(f"'{n}'' is read{through} before '{n}' is updated: updates run in source order, so "
                           f"the update of '{self.updating}' must come after the update of '{n}' to read its "
                           "new value", loc, notes)
            return False
        return True

    def _let_use(self, e, ctx: str) -> bool:
        """A use of a let, bare or at an offset: not in inits, not before its definition.  The
        new values the let reads must be known where it is used."""
        n = e.id
        self.used.add(n)
        if ctx == "init":
            self.rep.error(f"'{n}' is a let; init expressions may use params, coordinates and sizes, "
                           "not lets or fields", e.loc)
            return False
        if ctx in ("inject", "record"):
            self.rep.error(f"'{n}' is a let, computed at the cells an update computes; "
                           f"{'an inject' if ctx == 'inject' else 'a record'} may use params, t, series and "
                           "fields at its point", e.loc)
            return False
        if n not in self.defined_lets:
            self.rep.error(f"let '{n}' is used before its definition", e.loc, [("defined here", self.lets[n].loc)])
            return False
        reads = self.let_new_reads.get(n, {})
        if ctx == "let":
            for field, loc in reads.items():
                self.let_new_reads[self.defining_let].setdefault(field, loc)
        elif ctx == "update":
            return all([self._new_read_in_update(field, e.loc, n) for field in reads])
        return True

    def _let_access(self, e: ast.Ref, scope, ctx: str) -> None:
        """``f[1,0]``: the let computed at another point (its reads shifted by the offset)."""
        if not self._let_use(e, ctx):
            return
        if len(e.subscripts) != 1:
            example = f"{e.id}[{','.join(['1'] + ['0'] * (self.ndim - 1))}]"
            self.rep.error(f"let '{e.id}' takes one offset list, e.g. {example}", e.loc)
            return
        self._offsets(e, f"let '{e.id}'", e.subscripts[0], scope)

    def _offsets(self, e, what: str, offsets, scope) -> None:
        """One compile-time integer offset per dimension, for a field or a let."""
        if len(offsets) != self.ndim:
            self.rep.error(f"{what} is indexed with {len(offsets)} offset{'s' if len(offsets) != 1 else ''}, "
                           f"but the grid is {self.ndim}d", e.loc)
            return
        for o in offsets:
            self._check_int(o, scope, "an offset")

    def _table_ref(self, e: ast.Ref, t: TableInfo, scope) -> None:
        self.used.add(t.name)
        idx = [group for group in e.subscripts]
        if any(len(g) != 1 for g in idx) or len(idx) != len(t.dims):
            given = f"{len(idx)} ind" + ("ices" if len(idx) != 1 else "ex") if all(len(g) == 1 for g in idx) else \
                "a comma-separated list"
            self.rep.error(f"table '{t.name}' is {_shape(t.dims)}, so it takes {len(t.dims)} ind"
                           f"{'ices' if len(t.dims) != 1 else 'ex'} as in {t.name}{'[..]' * len(t.dims)}; "
                           f"it is given {given}", e.loc)
            return
        for g, size in zip(idx, t.dims):
            ix = g[0]
            if not self._check_int(ix, scope, "a table index"):
                continue
            for env in sum_envs(scope):
                v = eval_int(ix, env)
                if not 0 <= v < size:
                    where = ", ".join(f"{k} = {val}" for k, val in env.items())
                    self.rep.error(f"index {v} is out of range for table '{t.name}' (size {size} in this dimension)"
                                   + (f" when {where}" if where else ""), _loc(ix))
                    break

    def _check_int(self, e: ast.Expr, scope, what: str) -> bool:
        env = {r.var: r.lo for r in scope}
        for n in _names(e):
            if n.id in self.all_sum_vars and n.id not in env:
                self.rep.error(f"sum index '{n.id}' is used outside its sum", n.loc)
                return False
        try:
            eval_int(e, env)
        except NotConstant as err:
            self.rep.error(f"{what} must be a compile-time integer (integer literals and sum indices with + - *): "
                           f"{err.message}", err.loc)
            return False
        return True

    def _suggest(self, name: str, kind: str) -> str:
        import difflib

        pool = list(self.fields) if kind == "field" else list(self.decl_of) + list(COORDS) + list(EXTENTS)
        close = difflib.get_close_matches(name, pool, n=1, cutoff=0.6)
        return f"; did you mean '{close[0]}'?" if close else ""


def series_offset(e: ast.Expr) -> int | None:
    """k of a series index ``t``, ``t + k`` or ``t - k`` (k an integer literal); None otherwise."""
    if isinstance(e, ast.Name) and e.id == TIME:
        return 0
    if isinstance(e, ast.Binary) and e.op in "+-" and isinstance(e.lhs, ast.Name) and e.lhs.id == TIME \
            and isinstance(e.rhs, ast.Num) and e.rhs.is_int:
        return int(e.rhs.text) * (1 if e.op == "+" else -1)
    return None


def _shape(dims: tuple[int, ...]) -> str:
    return "".join(f"[{d}]" for d in dims)


def _names(e: ast.Expr):
    if isinstance(e, ast.Name):
        yield e
    elif isinstance(e, ast.Unary):
        yield from _names(e.operand)
    elif isinstance(e, ast.Binary):
        yield from _names(e.lhs)
        yield from _names(e.rhs)


def _loc(e) -> Loc:
    """The best caret position for an expression: its leftmost token."""
    while isinstance(e, ast.Binary):
        e = e.lhs
    return e.loc


def check(tree: ast.Stencil, source: SourceFile) -> Checked:
    """Run every semantic check; raise ``CompileError`` with all errors found."""
    return _Checker(tree, source).run()
