"""The stencil IR: what code generation and the runtime need, nothing syntactic.

Expects: built by ``lower.lower`` from a checked AST.  Guarantees (``Program.validate``
checks them, and lowering calls it): sums are unrolled and tables replaced by their
values; ``^`` with an exponent known at compile time is gone (multiplications), and a
``BinOp`` ``^`` is a power whose exponent is known at run time; every field access is a
``Load`` of a declared field at a level it has, with a 3-component integer offset (dz = 0
in 2d) inside the derived halo; updates target each state field exactly once, in source
order, and read old levels and the new values (``NEW``) of fields updated before them
(directly or through lets); coordinates and extents appear in init expressions (a ``Coord``
of offset 0), lets and updates, never in injects and records; lets are defined before use;
every expression is a number, and conditions (comparisons, ``&&``, ``||``, ``Not``) appear
only as the operands of ``&&``, ``||``, ``Not`` and the condition of a ``Select``.  Both
branches of a ``Select`` count in every fact (a conditional reads the points of both).  The derived facts (halo, points, flops,
bytes per point, kr/kw) are computed here from the IR itself, so they cannot disagree
with the code that is generated from it.

``format_program`` renders the IR and its facts for ``stencilc --emit=ir``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from .diagnostics import InternalError

# ---------------------------------------------------------------- expressions

ARITH = ("+", "-", "*", "/")
COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")
LOGIC = ("&&", "||")
POWER = "^"  # a ^ e with e known at run time (docs/language.md, "Integer powers")
BINOPS = ARITH + COMPARISONS + LOGIC + (POWER,)
# name -> arity; every function computes in the grid's element type (the C function of that type:
# sqrt or sqrtf, ...; abs and fabs are fabs; min and max are plain comparisons)
FUNCTIONS = {
    **dict.fromkeys(("sqrt", "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan",
                     "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "abs", "fabs",
                     "floor", "ceil", "trunc"), 1),
    **dict.fromkeys(("min", "max", "fmin", "fmax", "pow", "fmod", "atan2", "hypot", "copysign"), 2),
}


@dataclass(frozen=True)
class Const:
    value: float


@dataclass(frozen=True)
class ParamRef:
    name: str


NEW = -1  # the level of a primed read: the value an earlier update of the same step computed


@dataclass(frozen=True)
class Load:
    """The value of ``field`` at ``level`` (0 = current, 1 = previous, ``NEW`` = this step's new
    value, computed by an earlier update) at ``offset`` (dx, dy, dz)."""

    field: str
    level: int
    offset: tuple[int, int, int]


@dataclass(frozen=True)
class Coord:
    """The global index of the cell along ``axis`` (0 x, 1 y, 2 z), plus ``offset`` (a let read at an
    offset moves it), as a value of the element type."""

    axis: int
    offset: int = 0


@dataclass(frozen=True)
class Extent:
    axis: int  # 0 nx, 1 ny, 2 nz


@dataclass(frozen=True)
class TimeIndex:
    """``t``: the index of the step being computed (0-based), in the element type."""


@dataclass(frozen=True)
class SeriesRef:
    """``w[t+k]``: series ``name`` at the step index plus ``k`` (0 before the series' first value)."""

    name: str
    k: int


@dataclass(frozen=True)
class TempRef:
    name: str  # a let


@dataclass(frozen=True)
class Neg:
    operand: Expr


@dataclass(frozen=True)
class BinOp:
    op: str
    lhs: Expr
    rhs: Expr


@dataclass(frozen=True)
class Call:
    func: str
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class Not:
    """``!c``: a condition."""

    operand: Expr


@dataclass(frozen=True)
class Select:
    """``cond ? then : other``: one of two numbers, by a condition."""

    cond: Expr
    then: Expr
    other: Expr


Expr = Union[Const, ParamRef, Load, Coord, Extent, TimeIndex, SeriesRef, TempRef, Neg, BinOp, Call, Not, Select]


def children(e: Expr) -> tuple[Expr, ...]:
    if isinstance(e, (Neg, Not)):
        return (e.operand,)
    if isinstance(e, BinOp):
        return (e.lhs, e.rhs)
    if isinstance(e, Call):
        return e.args
    if isinstance(e, Select):
        return (e.cond, e.then, e.other)
    return ()


def rebuild(e: Expr, kids) -> Expr:
    """``e`` with its children (``children(e)``, in that order) replaced by ``kids``."""
    kids = tuple(kids)
    if isinstance(e, Neg):
        return Neg(kids[0])
    if isinstance(e, Not):
        return Not(kids[0])
    if isinstance(e, BinOp):
        return BinOp(e.op, kids[0], kids[1])
    if isinstance(e, Call):
        return Call(e.func, kids)
    if isinstance(e, Select):
        return Select(*kids)
    return e


def is_condition(e: Expr) -> bool:
    """A condition (true or false: a comparison, ``&&``, ``||``, ``!``), not a number."""
    return isinstance(e, Not) or (isinstance(e, BinOp) and e.op in COMPARISONS + LOGIC)


def walk(e: Expr):
    """Every node of ``e``, parents before children."""
    stack = [e]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(children(n)))


def count_flops(e: Expr) -> int:
    """Operations on numbers in ``e``: each + - * /, comparison, run-time ``^``, negation and function
    call counts one; ``&&``, ``||``, ``!`` and ``?:`` only choose, and count none."""
    return sum(1 for n in walk(e) if isinstance(n, (Neg, Call)) or (isinstance(n, BinOp) and n.op not in LOGIC))


# ---------------------------------------------------------------- program


def needed_lets(lets: list[Let], updates: list[Update]) -> list[Let]:
    """The lets ``updates`` read, directly or through other lets, in definition order: an
    unused let must not widen the halo or cost flops (sema warned of it)."""
    needed = {n.name for u in updates for n in walk(u.value) if isinstance(n, TempRef)}
    for x in reversed(lets):
        if x.name in needed:
            needed |= {n.name for n in walk(x.value) if isinstance(n, TempRef)}
    return [x for x in lets if x.name in needed]



@dataclass
class Field:
    name: str
    kind: str  # "state" | "input"
    levels: int  # 1 or 2 (inputs: 1)
    boundary: str | None  # "dirichlet" | "neumann" | "mixed" for state fields, None for inputs
    init: Expr | None = None
    init_prev: Expr | None = None
    # the level before ``.prev`` of a three-level field F (``F.prev.prev``) is a field of its own,
    # named ``label`` ("F.prev.prev") at run time, updated ``NAME' = F.prev``: ``level2_of`` is F's
    # name; ``own_init``: the init is ``init F.prev.prev = ...`` (else it is F.prev's, or F's, copied)
    label: str | None = None
    level2_of: str | None = None
    own_init: bool = False
    # kernel argument slots (see stn_field_desc in runtime/include/stn_rt.h)
    src_slot: int = -1
    prev_slot: int = -1
    dst_slot: int = -1
    # an input along one axis (0 x, 1 y, 2 z): a 1d coefficient, not a grid field; its loads carry
    # their offset on that axis only, and it is passed to the kernels after the grid slots
    along: int | None = None
    along_slot: int = -1
    periodic: tuple[int, ...] = ()  # the axes (0 x, 1 y, 2 z) whose boundary cells wrap around
    # a "mixed" boundary: each face's kind (0 x-, 1 x+, 2 y-, 3 y+, 4 z-, 5 z+), "dirichlet" or
    # "neumann", None on the faces of periodic axes and of axes the grid lacks; () otherwise
    faces: tuple[str | None, ...] = ()

    def face_mask(self, kind: str) -> int:
        """Bit k set: face k (0 x-, 1 x+, ... 5 z+) is of ``kind`` (a mixed boundary only; else 0)."""
        return sum(1 << k for k, f in enumerate(self.faces) if f == kind)


@dataclass
class Param:
    name: str
    value: float


@dataclass
class Let:
    name: str
    value: Expr


@dataclass
class Update:
    field: str
    value: Expr


@dataclass
class Inject:
    """``inject field at points += value``: after the update of ``field``, at each point."""

    field: str
    points: str
    value: Expr


@dataclass
class Record:
    """``record name = value at points``: sampled at each point, every step, after its updates."""

    name: str
    points: str
    value: Expr


@dataclass
class Save:
    """``save field every K [from A] [to B] [stride S]``: a run's default snapshots (``to`` None: the last step)."""

    field: str
    every: int
    start: int = 0
    to: int | None = None
    stride: int = 1

    def spec(self) -> str:
        """As the runtime's ``--save`` takes it: ``u:every=10:from=0[:to=B]:stride=1``."""
        to = f":to={self.to}" if self.to is not None else ""
        return f"{self.field}:every={self.every}:from={self.start}{to}:stride={self.stride}"


@dataclass
class Facts:
    """Derived, never declared.  See docs/out-of-core.md for kr/kw."""

    halo_lo: tuple[int, int, int]  # the boundary layer: the widest offset any update reads
    halo_hi: tuple[int, int, int]
    points: int  # distinct (field, level, offset) loads in one point update
    flops: int  # per point and step, all updates and lets
    bytes_per_point: int  # compulsory traffic per point and step: each array read once, each written once
    kr: int  # arrays read per sweep by the reference out-of-core schedule
    kw: int  # arrays written per sweep by the reference schedule
    io: dict[str, tuple[int, int]] = field(default_factory=dict)  # schedule -> (kr, kw)
    # how far one step reads the old levels: the halo, or more with sub-steps (a chain of reads)
    reach_lo: tuple[int, int, int] = (0, 0, 0)
    reach_hi: tuple[int, int, int] = (0, 0, 0)


@dataclass
class Program:
    name: str
    source_name: str
    ndim: int
    dtype: str  # "f32" | "f64"
    params: list[Param]
    fields: list[Field]
    lets: list[Let]
    updates: list[Update]
    facts: Facts | None = None
    series: list[str] = field(default_factory=list)  # declaration order
    points: list[str] = field(default_factory=list)  # declaration order
    offgrid: dict[str, str] = field(default_factory=dict)  # off-grid sets: name -> spacing param ("" in cells)
    injects: list[Inject] = field(default_factory=list)  # source order
    records: list[Record] = field(default_factory=list)  # source order
    saves: list[Save] = field(default_factory=list)  # source order: the default snapshots
    source_text: str = ""  # the .stn file's text, as read (the runtime writes it into --save-to's file)

    # -- lookups
    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise InternalError(f"no field {name!r}")

    @property
    def elem_size(self) -> int:
        return 4 if self.dtype == "f32" else 8

    @property
    def state_fields(self) -> list[Field]:
        return [f for f in self.fields if f.kind == "state"]

    @property
    def grid_fields(self) -> list[Field]:
        """The fields the runtime keeps as grids: all but the inputs along one axis."""
        return [f for f in self.fields if f.along is None]

    @property
    def along_fields(self) -> list[Field]:
        return [f for f in self.fields if f.along is not None]

    @property
    def nsrc(self) -> int:
        return 1 + max((max(f.src_slot, f.prev_slot) for f in self.fields), default=-1)

    @property
    def ndst(self) -> int:
        return 1 + max((f.dst_slot for f in self.fields), default=-1)

    def kernel_exprs(self) -> list[Expr]:
        return [x.value for x in self.lets] + [u.value for u in self.updates]

    def point_exprs(self) -> list[Expr]:
        return [x.value for x in self.injects] + [x.value for x in self.records]

    def uses_time(self) -> bool:
        """Whether the kernels read ``t`` itself (a series read at it does not count)."""
        return any(isinstance(n, TimeIndex) for e in self.kernel_exprs() + self.point_exprs() for n in walk(e))

    def series_terms(self) -> list[SeriesRef]:
        """The distinct series reads, by series (declaration order), then k: the values the runtime
        passes the kernels each step, after the params and ``t``."""
        terms = {n for e in self.kernel_exprs() + self.point_exprs() for n in walk(e) if isinstance(n, SeriesRef)}
        return sorted(terms, key=lambda s: (self.series.index(s.name), s.k))

    def loads(self) -> list[Load]:
        """Distinct loads of the point update, in a stable order."""
        seen: dict[Load, None] = {}
        for e in self.kernel_exprs():
            for n in walk(e):
                if isinstance(n, Load):
                    seen.setdefault(n, None)
        return sorted(seen, key=lambda ld: (self._field_index(ld.field), ld.level, ld.offset[2], ld.offset[1], ld.offset[0]))

    def _field_index(self, name: str) -> int:
        return [f.name for f in self.fields].index(name)

    # -- sub-steps
    def update_loads(self, u: Update) -> set[Load]:
        """The loads of update ``u``, with those of the lets it reads (directly or not)."""
        lets = {x.name: x.value for x in self.lets}
        out: set[Load] = set()
        seen: set[str] = set()
        stack = [u.value]
        while stack:
            for n in walk(stack.pop()):
                if isinstance(n, Load):
                    out.add(n)
                elif isinstance(n, TempRef) and n.name not in seen and n.name in lets:
                    seen.add(n.name)
                    stack.append(lets[n.name])
        return out

    def stages(self) -> list[list[Update]]:
        """The updates in groups run one after the other: in source order, a group ends before
        an update that reads the new value of a field updated in it.  One group: no sub-steps."""
        groups: list[list[Update]] = []
        for u in self.updates:
            new = {ld.field for ld in self.update_loads(u) if ld.level == NEW}
            if not groups or new & {x.field for x in groups[-1]}:
                groups.append([u])
            else:
                groups[-1].append(u)
        return groups

    def new_extents(self) -> dict[str, tuple[tuple[int, int, int], tuple[int, int, int]]]:
        """For each field read primed, the cells around a point (lo, hi per axis, as halos are)
        where its new value must be known before the updates that read it run: the offsets of
        those reads around the cells where their own fields are known, closed under Neumann
        mirroring (a boundary cell's new value is an interior cell's, up to ``lo - 1`` cells
        above the point for ``lo`` cells below it, and likewise)."""
        need: dict[str, tuple[list[int], list[int]]] = {}
        for u in reversed(self.updates):
            lo, hi = self.known_extent(u.field, need)
            for ld in self.update_loads(u):
                if ld.level != NEW:
                    continue
                nlo, nhi = need.setdefault(ld.field, ([0, 0, 0], [0, 0, 0]))
                for d in range(3):
                    nlo[d] = max(nlo[d], lo[d] - ld.offset[d])
                    nhi[d] = max(nhi[d], hi[d] + ld.offset[d])
        return {f: (tuple(lo), tuple(hi)) for f, (lo, hi) in need.items()}

    def known_extent(self, name: str, need) -> tuple[list[int], list[int]]:
        """Where field ``name``'s new value is computed around a point, given ``need``
        (``new_extents``): the cells read of it, widened for a Neumann field so that the
        interior cells its boundary cells mirror are computed too."""
        if name not in need:
            return [0, 0, 0], [0, 0, 0]
        lo, hi = (list(v) for v in need[name])
        if self.field(name).boundary == "neumann":
            lo, hi = [max(a, b - 1) for a, b in zip(lo, hi)], [max(b, a - 1) for a, b in zip(lo, hi)]
        return lo, hi

    # -- derived facts
    def derive_facts(self) -> Facts:
        """The halo is the widest offset any update reads (new values included): the boundary
        layer, outside which every update is computed.  The reach is what one whole step reads
        of the old levels: each update's reads around every cell where its new value is
        computed (``known_extent``); without sub-steps it is the halo."""
        loads = self.loads()
        hlo = [max([0] + [-ld.offset[d] for ld in loads]) for d in range(3)]
        hhi = [max([0] + [ld.offset[d] for ld in loads]) for d in range(3)]
        lo = list(hlo)
        hi = list(hhi)
        need = self.new_extents()
        for u in self.updates:
            klo, khi = self.known_extent(u.field, need)
            for ld in self.update_loads(u):
                if ld.level == NEW:
                    continue
                for d in range(3):
                    lo[d] = max(lo[d], klo[d] - ld.offset[d])
                    hi[d] = max(hi[d], khi[d] + ld.offset[d])
        for d in range(3):  # a Dirichlet cell's new value is its current one, read there
            for nlo, nhi in need.values():
                lo[d], hi[d] = max(lo[d], nlo[d]), max(hi[d], nhi[d])
        along = {f.name for f in self.along_fields}
        arrays_read = {(ld.field, ld.level) for ld in loads if ld.level != NEW and ld.field not in along}
        flops = sum(count_flops(e) for e in self.kernel_exprs())
        nbytes = (len(arrays_read) + len(self.updates)) * self.elem_size
        state_levels = sum(f.levels for f in self.state_fields)
        inputs_read = sum(1 for f in self.grid_fields if f.kind == "input" and (f.name, 0) in arrays_read)
        kr, kw = state_levels + inputs_read, state_levels
        io = {
            "ref": (kr, kw),
            "alg1": (kr, kw),
            "alg2": (2 * state_levels + inputs_read, 2 * state_levels),
        }
        return Facts(tuple(hlo), tuple(hhi), len(loads), flops, nbytes, kr, kw, io, tuple(lo), tuple(hi))

    # -- validation
    def _bad(self, msg: str) -> None:
        raise InternalError(f"invalid IR for stencil {self.name!r}: {msg}")

    def _check_expr(self, e: Expr, where: str, ctx: str, temps: set[str]) -> None:
        """One expression's invariants (``validate``).  ctx: "init" (coordinates, no fields), "kernel" (a let
        or an update: coordinates and fields) or "point" (an inject or a record: fields at the point, no
        coordinates); ``temps``: the lets defined before it."""
        bad = self._bad
        fields = {f.name: f for f in self.fields}
        params = {p.name for p in self.params}
        allow_coords = ctx == "init"
        if is_condition(e):
            bad(f"{where}: a condition where a number is needed")
        for n in walk(e):
            kids = children(n)
            conds = (True,) if isinstance(n, Not) else (True, True) if isinstance(n, BinOp) and n.op in LOGIC \
                else (True, False, False) if isinstance(n, Select) else (False,) * len(kids)
            for k, c in zip(kids, conds):
                if is_condition(k) != c:
                    bad(f"{where}: {'a condition' if is_condition(k) else 'a number'} as an operand of {n}")
        for n in walk(e):
            if isinstance(n, Load):
                f = fields.get(n.field)
                if f is None or n.level >= f.levels or n.level < NEW:
                    bad(f"{where}: load of {n.field} level {n.level}")
                if len(n.offset) != 3 or any(n.offset[d] for d in range(self.ndim, 3)):
                    bad(f"{where}: offset {n.offset}")
                if allow_coords:
                    bad(f"{where}: init expressions cannot read fields")
                if n.level == NEW:  # the order of updates is checked below, lets included
                    if f.kind != "state":
                        bad(f"{where}: {n.field}' of an input")
                    continue
                if f.along is not None:
                    if f.along_slot < 0 or n.level != 0 or any(n.offset[d] for d in range(3) if d != f.along):
                        bad(f"{where}: {n} of an input along axis {f.along}")
                    continue
                slot = f.src_slot if n.level == 0 else f.prev_slot
                if slot < 0:
                    bad(f"{where}: {n.field} level {n.level} has no source slot")
            elif isinstance(n, ParamRef) and n.name not in params:
                bad(f"{where}: unknown param {n.name}")
            elif isinstance(n, (TimeIndex, SeriesRef)) and allow_coords:
                bad(f"{where}: the step index in an init")
            elif isinstance(n, SeriesRef) and n.name not in self.series:
                bad(f"{where}: unknown series {n.name}")
            elif isinstance(n, (Coord, Extent)) and (ctx == "point" or n.axis >= self.ndim
                                                     or (ctx == "init" and isinstance(n, Coord) and n.offset)):
                bad(f"{where}: coordinate {n}")
            elif isinstance(n, TempRef) and n.name not in temps:
                bad(f"{where}: let {n.name} used before its definition")
            elif isinstance(n, BinOp) and n.op not in BINOPS:
                bad(f"{where}: operator {n.op}")
            elif isinstance(n, Call) and FUNCTIONS.get(n.func) != len(n.args):
                bad(f"{where}: call {n.func}/{len(n.args)}")

    def validate(self) -> None:
        """Check the invariants in the module docstring; raise InternalError if broken."""
        bad = self._bad
        if self.ndim not in (1, 2, 3):
            bad(f"ndim {self.ndim}")
        if self.dtype not in ("f32", "f64"):
            bad(f"dtype {self.dtype}")
        names = [f.name for f in self.fields] + [p.name for p in self.params] + [x.name for x in self.lets] \
            + list(self.series) + list(self.points) + [r.name for r in self.records]
        if len(names) != len(set(names)):
            bad(f"duplicate names in {names}")
        for f in self.fields:
            if f.kind not in ("state", "input"):
                bad(f"field {f.name} kind {f.kind}")
            if f.kind == "state" and (f.levels not in (1, 2) or f.boundary not in ("dirichlet", "neumann", "mixed")
                                    or (f.boundary == "mixed") != bool(f.faces)):
                bad(f"state field {f.name}: levels {f.levels} boundary {f.boundary}")
            if f.kind == "input" and (f.levels != 1 or f.boundary is not None or f.dst_slot != -1):
                bad(f"input field {f.name} has state attributes")
            if f.levels == 1 and (f.prev_slot != -1 or f.init_prev is not None):
                bad(f"one-level field {f.name} has a previous level")
        updated = [u.field for u in self.updates]
        if sorted(updated) != sorted(f.name for f in self.state_fields) or len(updated) != len(set(updated)):
            bad(f"updates {updated} do not match the state fields")

        defined: set[str] = set()
        check_expr = self._check_expr

        for x in self.lets:
            check_expr(x.value, f"let {x.name}", "kernel", defined)
            defined.add(x.name)
        before: set[str] = set()
        for u in self.updates:
            check_expr(u.value, f"update {u.field}", "kernel", defined)
            for ld in self.update_loads(u):
                if ld.level == NEW and ld.field not in before:
                    bad(f"update {u.field}: reads {ld.field}' before its update")
            before.add(u.field)
        for f in self.fields:
            for e in (f.init, f.init_prev):
                if e is not None:
                    check_expr(e, f"init {f.name}", "init", set())
        for where, pts, e, new_ok in ([(f"inject {x.field}", x.points, x.value, False) for x in self.injects]
                                      + [(f"record {x.name}", x.points, x.value, True) for x in self.records]):
            check_expr(e, where, "point", set())
            if pts not in self.points:
                bad(f"{where}: unknown points {pts}")
            for n in walk(e):
                if isinstance(n, Load) and (n.offset != (0, 0, 0) or (n.level == NEW and not new_ok)):
                    bad(f"{where}: {n} is not a read at the point")
        for name, sp in self.offgrid.items():
            if name not in self.points or (sp and sp not in {q.name for q in self.params}):
                bad(f"off-grid points {name}: unknown set or spacing param {sp!r}")
        for x in self.injects:
            if x.field not in {f.name for f in self.state_fields}:
                bad(f"inject into {x.field}, not a state field")
        facts = self.derive_facts()
        if self.facts is not None and self.facts != facts:
            bad("stored facts differ from the IR")


# ---------------------------------------------------------------- printing

# binding strength, as in the .stn grammar: higher binds tighter
_PREC = {"||": 2, "&&": 3, "==": 4, "!=": 4, "<": 5, "<=": 5, ">": 5, ">=": 5, "+": 6, "-": 6, "*": 7, "/": 7, "^": 9}
_SELECT, _UNARY = 1, 8
_AXES = "xyz"


def format_expr(e: Expr, ndim: int = 3, parent: int = 0, right: bool = False) -> str:
    """A compact, precedence-aware rendering in .stn-like syntax (a coordinate moved by a let's
    offset is ``(x + 1)``)."""
    if isinstance(e, Const):
        return repr(float(e.value))
    if isinstance(e, ParamRef):
        return e.name
    if isinstance(e, TempRef):
        return e.name
    if isinstance(e, Coord):
        k = e.offset
        return f"({_AXES[e.axis]} {'+' if k > 0 else '-'} {abs(k)})" if k else _AXES[e.axis]
    if isinstance(e, TimeIndex):
        return "t"
    if isinstance(e, SeriesRef):
        return f"{e.name}[t{'+' if e.k > 0 else '-' if e.k < 0 else ''}{abs(e.k) if e.k else ''}]"
    if isinstance(e, Extent):
        return "n" + _AXES[e.axis]
    if isinstance(e, Load):
        name = e.field + ("'" if e.level == NEW else ".prev" if e.level else "")
        return f"{name}[{','.join(str(o) for o in e.offset[:ndim])}]"
    if isinstance(e, (Neg, Not)):
        return ("-" if isinstance(e, Neg) else "!") + format_expr(e.operand, ndim, _UNARY)
    if isinstance(e, Call):
        return f"{e.func}({', '.join(format_expr(a, ndim) for a in e.args)})"
    if isinstance(e, BinOp):
        p = _PREC[e.op]
        if e.op == POWER:  # right associative
            s = f"{format_expr(e.lhs, ndim, p + 1)} ^ {format_expr(e.rhs, ndim, p)}"
        else:
            s = f"{format_expr(e.lhs, ndim, p)} {e.op} {format_expr(e.rhs, ndim, p, right=True)}"
        return f"({s})" if p < parent or (right and p == parent) else s
    if isinstance(e, Select):  # right associative; a conditional as the first branch is parenthesised
        s = (f"{format_expr(e.cond, ndim, _SELECT + 1)} ? {format_expr(e.then, ndim, _SELECT + 1)} : "
             f"{format_expr(e.other, ndim, _SELECT)}")
        return f"({s})" if _SELECT < parent or (right and _SELECT == parent) else s
    raise InternalError(f"unknown IR node {e!r}")


def format_program(p: Program) -> str:
    f = p.facts or p.derive_facts()
    out = [f"// IR of {p.source_name}", f"stencil {p.name}: grid {p.ndim}d {p.dtype}"]
    for prm in p.params:
        out.append(f"param {prm.name} = {prm.value!r}")
    for name in p.series:
        out.append(f"series {name}")
    for fld in p.fields:
        desc = f"field {fld.name}: {fld.kind}"
        if fld.kind == "state":
            desc += f", levels {fld.levels}, boundary {fld.boundary}"
            if fld.faces:
                desc += " (" + ", ".join(f"{'xyz'[k // 2]}{'-+'[k % 2]} {b}" for k, b in enumerate(fld.faces) if b) + ")"
            if fld.periodic:
                desc += ", periodic " + " ".join(_AXES[d] for d in fld.periodic)
        if fld.along is not None:
            desc += f" along {_AXES[fld.along]}"
        slots = f"src {fld.src_slot}" + (f", prev {fld.prev_slot}" if fld.prev_slot >= 0 else "")
        if fld.along is not None:
            slots = f"after the grid slots: {fld.along_slot}"
        if fld.dst_slot >= 0:
            slots += f", dst {fld.dst_slot}"
        if fld.level2_of is not None:
            desc += f" (holds {fld.label}, the level before {fld.level2_of}.prev)"
        out.append(f"{desc} [{slots}]")
        if fld.init is not None:
            out.append(f"  init {fld.name} = {format_expr(fld.init, p.ndim)}")
        if fld.init_prev is not None:
            out.append(f"  init {fld.name}.prev = {format_expr(fld.init_prev, p.ndim)}")
    for x in p.lets:
        out.append(f"let {x.name} = {format_expr(x.value, p.ndim)}")
    for u in p.updates:
        out.append(f"update {u.field}' = {format_expr(u.value, p.ndim)}")
    for name in p.points:
        sp = p.offgrid.get(name)
        out.append(f"points {name}" + ("" if sp is None else " real" + (f" spacing {sp}" if sp else "")))
    for x in p.injects:
        out.append(f"inject {x.field} at {x.points} += {format_expr(x.value, p.ndim)}")
    for x in p.records:
        out.append(f"record {x.name} = {format_expr(x.value, p.ndim)} at {x.points}")
    for s in p.saves:
        out.append(f"save {s.field} every {s.every} from {s.start}" + (f" to {s.to}" if s.to is not None else "")
                   + f" stride {s.stride}")
    out.append("facts:")
    for d in range(p.ndim):
        out.append(f"  halo {_AXES[d]}: -{f.halo_lo[d]} +{f.halo_hi[d]}")
    stages = p.stages()
    if len(stages) > 1:
        for d in range(p.ndim):
            out.append(f"  reach {_AXES[d]}: -{f.reach_lo[d]} +{f.reach_hi[d]}")
        out.append("  sub-steps: " + " then ".join("{" + ", ".join(u.field + "'" for u in g) + "}" for g in stages))
        need = p.new_extents()
        for name in [u.field for u in p.updates if u.field in need]:
            klo, khi = p.known_extent(name, need)
            around = ", ".join(f"{_AXES[d]} -{klo[d]} +{khi[d]}" for d in range(p.ndim))
            out.append(f"  {name}' computed around a point: {around}")
    out.append(f"  points: {f.points}")
    out.append(f"  flops/point: {f.flops}")
    out.append(f"  bytes/point: {f.bytes_per_point}")
    out.append(f"  kr: {f.kr}")
    out.append(f"  kw: {f.kw}")
    for sched, (kr, kw) in f.io.items():
        out.append(f"  io {sched}: kr={kr} kw={kw}")
    return "\n".join(out) + "\n"
