"""The parts of a kernel layout: the typed, immutable values ``KernelLayout`` is made of.

Expects: to be built by ``build.build_layout`` (or, in tests, by hand), each from names,
numbers, C text and tuples of other parts.  Guarantees: every part is a frozen dataclass
that checks its own invariants when it is built (the helpers ``_fail``, ``_ident``,
``_local``, ... here), raising ``InternalError`` if one is broken: its C identifiers are
identifiers, the locals it declares are not reserved by C nor printed by the templates (``cnames``), its
indices are non-negative, its C text non-empty, its comments cannot close a C comment, its
sequences are tuples.  What spans several parts (slots against fields, distinct names,
references that resolve) is checked by ``layout.KernelLayout``.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from ..diagnostics import InternalError
from .cexpr import c_literal
from .cnames import c_reserved, is_spelling_of, template_words

AXES = "xyz"

# dtype -> (C type, bytes, NumPy descriptor)
DTYPES = {"f32": ("float", 4, "<f4"), "f64": ("double", 8, "<f8")}

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_MACRO = re.compile(r"[A-Z_][A-Z0-9_]*\Z")


# ---------------------------------------------------------------- checks


def c_string(s: str) -> str:
    """``s`` escaped for the inside of a C string literal."""
    return s.replace("\\", "\\\\").replace('"', '\\"')


_C_ESC = {9: "\\t", 10: "\\n", 13: "\\r"}


def c_text_literals(text: str) -> tuple[str, ...]:
    """``text`` as C string literals, one a line (each ending in its newline), which the compiler concatenates:
    printable ASCII as itself (``\\``, ``"`` and ``?`` escaped: no trigraph), tab, newline and carriage return as
    ``\\t``, ``\\n``, ``\\r``, every other byte of the UTF-8 encoding in octal.  An empty text is one empty literal."""
    out = []
    for line in text.splitlines(keepends=True) or [""]:
        body = []
        for b in line.encode("utf-8"):
            ch = chr(b)
            body.append("\\" + ch if ch in '\\"?' else ch if 32 <= b < 127 else _C_ESC.get(b, f"\\{b:03o}"))
        out.append('"' + "".join(body) + '"')
    return tuple(out)


def _fail(what: object, msg: str) -> None:
    raise InternalError(f"bad {type(what).__name__}: {msg} (in {what!r})")


def _ident(what: object, role: str, name: object) -> None:
    """``name`` is a C identifier (it may still be a keyword: it is only used inside other names)."""
    if not isinstance(name, str) or not _IDENT.match(name):
        _fail(what, f"{role} {name!r} is not a C identifier")


def _local(what: object, role: str, name: object) -> None:
    """``name`` is a C identifier the kernels may declare: not reserved by C, not printed by the templates."""
    _ident(what, role, name)
    if c_reserved(name) or name in template_words():
        _fail(what, f"{role} {name!r} is reserved by C or by the templates")


def _upper_of(what: object, NAME: str, name: str) -> None:
    """``NAME`` is ``name`` in upper case, with ``_`` after it where it would have repeated (``u``, ``U``)."""
    if not re.fullmatch(re.escape(name.upper()) + "_*", NAME):
        _fail(what, f"NAME {NAME!r} is not the field's name in upper case ({name!r})")


def _macro(what: object, role: str, name: object) -> None:
    if not isinstance(name, str) or not _MACRO.match(name):
        _fail(what, f"{role} {name!r} is not an upper-case C macro name")


def _expr(what: object, expr: object) -> None:
    """``expr`` is printed C: a non-empty string."""
    if not isinstance(expr, str) or not expr:
        _fail(what, "empty expression")


def _nonneg(what: object, role: str, value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        _fail(what, f"{role} {value!r} is not a non-negative integer")


def _tuple_of(what: object, role: str, value: object, kind: type) -> None:
    if not isinstance(value, tuple) or not all(isinstance(v, kind) for v in value):
        _fail(what, f"{role} must be a tuple of {kind.__name__}")


def _dense(what: object, role: str, indices: list[int]) -> None:
    if indices != list(range(len(indices))):
        _fail(what, f"{role} slots {indices} are not 0..{len(indices) - 1} in order, each once")


# ---------------------------------------------------------------- the parts


@dataclass(frozen=True)
class Tuned:
    """Blocking parameters chosen offline (``stencilc tune``) to build into a program as its
    defaults; ``machine_file`` and the figures are for the header comment."""

    machine: str
    machine_file: str
    size: tuple[int, int, int]
    steps: int
    block: tuple[int, int, int]  # by, bz, bt (bz = 0 in 2d)
    iblock: tuple[int, int]  # iy, iz (iz = 1 in 2d)
    strip: str
    schedule: str
    tuner: str
    mem_budget: int
    mem_plan: int
    predicted_read: int
    predicted_written: int

    def __post_init__(self) -> None:
        if min(self.size) < 1 or self.steps < 0 or min(self.block[0], self.block[2], *self.iblock) < 1:
            raise InternalError(f"tuned parameters out of range: {self}")
        if self.strip not in ("none", "dram", "file") or self.schedule not in ("ref", "alg1", "alg2"):
            raise InternalError(f"tuned strip/schedule unknown: {self.strip} {self.schedule}")

    @property
    def machine_c(self) -> str:
        """The machine's name inside a C string literal."""
        return c_string(self.machine)


@dataclass(frozen=True)
class Axis:
    """One grid axis and its halo: ``lo`` cells below the interior, ``hi`` above."""

    name: str  # x, y or z
    lo: int
    hi: int
    reach_lo: int = -1  # how far one step reads (>= the halo); -1: the halo
    reach_hi: int = -1

    def __post_init__(self) -> None:
        if self.name not in AXES:
            _fail(self, f"axis {self.name!r} is not one of x, y, z")
        _nonneg(self, "halo lo", self.lo)
        _nonneg(self, "halo hi", self.hi)
        if self.reach_lo == -1:
            object.__setattr__(self, "reach_lo", self.lo)
        if self.reach_hi == -1:
            object.__setattr__(self, "reach_hi", self.hi)
        if self.reach_lo < self.lo or self.reach_hi < self.hi:
            _fail(self, "the reach is less than the halo")

    @property
    def NAME(self) -> str:  # upper case: the templates' spelling of macro names
        return self.name.upper()


@dataclass(frozen=True)
class Slot:
    """One array argument of the kernels: ``src[slot]`` (``side`` "src": an old level, or an
    input) or ``dst[slot]`` (``side`` "dst": a new level)."""

    side: str  # "src" | "dst"
    slot: int
    NAME: str  # after NAME_SRC_ / NAME_DST_: U, U_PREV, U_NEXT
    arg: str  # the C name of the array (an argument of NAME_step, a local of NAME_step_box)
    what: str  # the description in the enum's comment
    field: str  # the DSL field
    level: int  # 0 current (src) or new (dst), 1 previous

    def __post_init__(self) -> None:
        if self.side not in ("src", "dst"):
            _fail(self, f"side {self.side!r} is not src or dst")
        _nonneg(self, "slot", self.slot)
        _macro(self, "NAME", self.NAME)
        _local(self, "argument", self.arg)
        _ident(self, "field", self.field)
        if self.level not in ((0, 1) if self.side == "src" else (0,)):
            _fail(self, f"level {self.level!r} for a {self.side} slot")
        if "*/" in self.what:
            _fail(self, "the description would end its C comment")


@dataclass(frozen=True)
class RowPointer:
    """``const real *restrict name = array + row + shift``: the row of ``field`` at ``level``
    offset by (dy, dz); the point update reads ``name[x + dx]``."""

    name: str
    array: str  # a src slot's arg
    field: str
    level: int
    dy: int
    dz: int

    def __post_init__(self) -> None:
        _local(self, "row pointer", self.name)
        _local(self, "array", self.array)
        if self.level not in (0, 1) or not isinstance(self.dy, int) or not isinstance(self.dz, int):
            _fail(self, "level or offset out of range")

    @property
    def shift(self) -> str:
        """The C added to ``row``: "", " + sy", " - 2 * sy", " + sz", ..."""
        out = ""
        for d, stride in ((self.dy, "sy"), (self.dz, "sz")):
            if d:
                out += f" {'+' if d > 0 else '-'} " + (f"{abs(d)} * {stride}" if abs(d) != 1 else stride)
        return out


@dataclass(frozen=True)
class NewRow:
    """``const real *restrict name = scratch + (z - zc0 + dz + lz) * splane_ + (y - yb + dy + ly) * snx_ - sxo_``:
    the row of ``field``'s new value of this step, offset by (dy, dz), in the scratch of the
    cache tile (whose origin is ``ly`` rows and ``lz`` planes before the tile's, the cells
    computed below it); the update reads ``name[x + dx]``."""

    name: str
    scratch: str  # a Scratch's name
    field: str
    dy: int
    dz: int
    ly: int
    lz: int

    def __post_init__(self) -> None:
        _local(self, "new-value row", self.name)
        _local(self, "scratch", self.scratch)
        _nonneg(self, "ly", self.ly)
        _nonneg(self, "lz", self.lz)
        if self.dy + self.ly < 0 or self.dz + self.lz < 0:
            _fail(self, "the offset reaches below the cells computed")

    @property
    def shift(self) -> str:
        """The C that addresses the row: scratch + plane * splane_ + row * nx."""
        return (f"{self.scratch} + (z - zc0 + {self.dz + self.lz}) * splane_ "
                f"+ (y - yb + {self.dy + self.ly}) * snx_ - sxo_")


@dataclass(frozen=True)
class Scratch:
    """The new value of ``field`` (read primed by a later update of the step) on a cache tile
    and ``lo``/``hi`` cells around it (x, y, z), in a thread's scratch array ``name``, slot
    ``index`` of it: computed where the cells are interior, else its boundary rule (Dirichlet:
    the current level ``cur``; Neumann: mirrored, x then y then z).  ``row`` is the row being
    computed; the tile's own cells are copied to ``next`` (its dst slot).  Periodic along x
    (``wrap_x``), its stage computes the whole interior of each row, and the boundary cells in x
    take the cell an interior's width away.  Periodic along y or z (``wrap_y``, ``wrap_z``), its
    stage computes the boundary layer there with the update itself: the cells it reads there are
    the far side's (sema: only fields wrapping those axes; lower: the step reads no further than
    the layer), so the value is the far side's too."""

    field: str
    name: str
    index: int
    row: str
    cur: str  # the src slot's arg of the current level
    next: str  # the dst slot's arg
    boundary: str
    lo: tuple[int, int, int]
    hi: tuple[int, int, int]
    wrap_x: bool = False  # periodic along x: its boundary cells in x take the interior's far side
    wrap_y: bool = False  # periodic along y: its boundary rows computed as interior ones
    wrap_z: bool = False  # periodic along z: its boundary planes computed as interior ones

    def __post_init__(self) -> None:
        _ident(self, "field", self.field)
        for role in ("name", "row", "cur", "next"):
            _local(self, role, getattr(self, role))
        _nonneg(self, "index", self.index)
        if self.boundary not in ("dirichlet", "neumann"):
            _fail(self, f"boundary {self.boundary!r}")
        for v in self.lo + self.hi:
            _nonneg(self, "extent", v)


@dataclass(frozen=True)
class StageLoop:
    """One pass over rows of a sub-step: the lets and assignments of its fields, reading old
    levels through ``rows`` (names of ``KernelLayout.rows``) and new values through ``new_rows``;
    ``outs`` are (row name, C address) of the rows written, one per assignment."""

    rows: tuple[str, ...]
    new_rows: tuple[NewRow, ...]
    outs: tuple[tuple[str, str], ...]
    lets: tuple[Let, ...]
    assigns: tuple[Assign, ...]

    def __post_init__(self) -> None:
        _tuple_of(self, "rows", self.rows, str)
        _tuple_of(self, "new_rows", self.new_rows, NewRow)
        _tuple_of(self, "lets", self.lets, Let)
        _tuple_of(self, "assigns", self.assigns, Assign)
        if [a.row for a in self.assigns] != [o[0] for o in self.outs]:
            _fail(self, "assignments do not match the rows written")
        for name, addr in self.outs:
            _local(self, "row", name)
            _expr(self, addr)


@dataclass(frozen=True)
class Stage:
    """A sub-step: updates that read no new value of one another, run after the stages before.
    ``region`` computes its ``scratch`` fields (those later updates read primed) on the cells
    around the tile, ``lo``/``hi`` of them (the widest of its fields'); ``tile`` computes the
    others straight into their new levels on the tile's cells."""

    index: int
    fields: tuple[str, ...]
    scratch: tuple[Scratch, ...]
    lo: tuple[int, int, int]
    hi: tuple[int, int, int]
    region: StageLoop | None
    tile: StageLoop | None

    def __post_init__(self) -> None:
        _nonneg(self, "index", self.index)
        _tuple_of(self, "fields", self.fields, str)
        _tuple_of(self, "scratch", self.scratch, Scratch)
        if (self.region is None) != (not self.scratch) or (self.region is None and self.tile is None):
            _fail(self, "a stage computes its scratch fields in a region loop and its others in a tile loop")
        for sc in self.scratch:
            if any(a > b for a, b in zip(sc.lo + sc.hi, self.lo + self.hi)):
                _fail(self, f"scratch {sc.name} reaches past its stage's region")


@dataclass(frozen=True)
class OutRow:
    """``real *restrict name = array + row``: the row of a new level the update writes."""

    name: str
    array: str  # a dst slot's arg
    field: str

    def __post_init__(self) -> None:
        _local(self, "output row", self.name)
        _local(self, "array", self.array)
        _ident(self, "field", self.field)


@dataclass(frozen=True)
class Assign:
    """``row[x] = expr;`` -- the update of ``field``."""

    field: str
    row: str  # an OutRow's name
    expr: str  # C

    def __post_init__(self) -> None:
        _ident(self, "field", self.field)
        _local(self, "row", self.row)
        _expr(self, self.expr)


@dataclass(frozen=True)
class Let:
    """``const real cname = expr;`` inside the x loop, before the assignments."""

    name: str  # the DSL's
    cname: str
    expr: str  # C

    def __post_init__(self) -> None:
        _local(self, "let", self.cname)
        if not is_spelling_of(self.cname, self.name):  # the DSL's name, renamed only on a clash
            _fail(self, f"C name {self.cname!r} is not the DSL name {self.name!r}")
        _expr(self, self.expr)


@dataclass(frozen=True)
class Init:
    """The init expression of ``field`` at ``level`` (0 current, 1 previous), over x, y, z, nx..."""

    field: str
    NAME: str  # the field's
    level: int
    expr: str  # C
    what: str  # the IR of it, for the comment

    def __post_init__(self) -> None:
        _ident(self, "field", self.field)
        _macro(self, "NAME", self.NAME)
        if self.level not in (0, 1):
            _fail(self, f"level {self.level!r}")
        _expr(self, self.expr)
        if "*/" in self.what:
            _fail(self, "the description would end its C comment")


@dataclass(frozen=True)
class FieldDesc:
    """What the runtime's ``stn_field_desc`` and the kernels' switches need of one field."""

    name: str
    NAME: str
    kind: str  # "state" | "input"
    levels: int
    boundary: str | None  # "dirichlet" | "neumann" | "mixed"; None for inputs
    has_init: bool
    has_prev_init: bool
    src_slot: int
    prev_slot: int  # -1: one level
    dst_slot: int  # -1: input
    periodic: tuple[int, ...] = ()  # the axes whose boundary cells wrap around (0 x, 1 y, 2 z)
    read_across: tuple[int, ...] = ()  # the axes along which some read of it has a nonzero offset
    neumann_faces: int = 0  # a mixed boundary: bit k set, face k (0 x-, 1 x+, ... 5 z+) is mirrored
    dirichlet_faces: int = 0  # a mixed boundary: bit k set, face k keeps its initial cells
    # the field that holds a three-level field's level before .prev: its name at run time
    # ("u.prev.prev"), 1 + the index of that field (0: none), and whether its init is its own
    label: str = ""
    level2_of: int = 0
    has_level2_init: bool = False

    @property
    def run_name(self) -> str:
        """The name the runtime, the command line and the API know it by."""
        return self.label or self.name

    @property
    def periodic_mask(self) -> int:
        return sum(1 << d for d in self.periodic)

    @property
    def read_across_mask(self) -> int:
        """stn_field_desc.read_across: the axes' bits, and bit 3 (they are known)."""
        return sum(1 << d for d in self.read_across) | 8

    def __post_init__(self) -> None:
        _ident(self, "field", self.name)
        _macro(self, "NAME", self.NAME)
        if any(d not in (0, 1, 2) for d in self.periodic) or (self.periodic and self.kind != "state"):
            _fail(self, f"periodic axes {self.periodic}")
        if any(d not in (0, 1, 2) for d in self.read_across):
            _fail(self, f"axes read across {self.read_across}")
        _upper_of(self, self.NAME, self.name)
        if self.kind not in ("state", "input") or self.levels not in (1, 2):
            _fail(self, f"kind {self.kind!r} levels {self.levels!r}")
        if self.boundary not in ((None,) if self.kind == "input" else ("dirichlet", "neumann", "mixed")):
            _fail(self, f"boundary {self.boundary!r} for a field of kind {self.kind}")
        if (self.boundary == "mixed") != bool(self.neumann_faces and self.dirichlet_faces) \
                or self.neumann_faces & self.dirichlet_faces or (self.neumann_faces | self.dirichlet_faces) >= 64:
            _fail(self, f"faces {self.neumann_faces:#x} neumann, {self.dirichlet_faces:#x} dirichlet with a "
                        f"{self.boundary} boundary")
        if not isinstance(self.has_init, bool) or not isinstance(self.has_prev_init, bool):
            _fail(self, "has_init and has_prev_init are booleans")
        _nonneg(self, "src slot", self.src_slot)
        if (self.prev_slot >= 0) != (self.levels == 2) or self.prev_slot < -1:
            _fail(self, f"prev slot {self.prev_slot} for {self.levels} level(s)")
        if (self.dst_slot >= 0) != (self.kind == "state") or self.dst_slot < -1:
            _fail(self, f"dst slot {self.dst_slot} for a field of kind {self.kind}")
        if self.has_prev_init and self.levels != 2:
            _fail(self, "an init of the previous level of a one-level field")
        if bool(self.label) != (self.level2_of > 0) or (self.level2_of and self.levels != 1) \
                or (self.has_level2_init and not (self.level2_of and self.has_init)):
            _fail(self, f"label {self.label!r} level2_of {self.level2_of} ({self.levels} level(s))")


@dataclass(frozen=True)
class Param:
    """A run-time parameter: its DSL name (the runtime's --param), its C name, its default."""

    name: str
    cname: str
    value: float
    literal: str  # the default as a literal of the element type
    double_literal: str  # ... and as a double (the runtime's descriptor)

    def __post_init__(self) -> None:
        _ident(self, "param", self.name)
        _local(self, "param", self.cname)
        if self.double_literal != c_literal(self.value, "f64") or self.literal not in (
                self.double_literal, c_literal(self.value, "f32")):
            _fail(self, f"literals {self.literal!r} {self.double_literal!r} do not spell {self.value!r}")

    @property
    def value_repr(self) -> str:
        return repr(self.value)


@dataclass(frozen=True)
class StepValue:
    """A value the runtime gives the kernels each step, after the params: the step index ``t``
    (``series`` None, slot 0), or series ``series`` at ``t + k`` (slot 1 + its index)."""

    name: str  # as the .stn writes it: t, w[t-1]
    cname: str
    slot: int
    series: str | None = None
    k: int = 0

    def __post_init__(self) -> None:
        _local(self, "step value", self.cname)
        _nonneg(self, "slot", self.slot)
        if (self.series is None) != (self.slot == 0) or "*/" in self.name:
            _fail(self, "slot 0 is t, the others series")


@dataclass(frozen=True)
class PointOp:
    """An ``inject`` (``target[at] += expr``) or a ``record`` (``out[i] = expr``) at the points of set
    ``points`` (the runtime's index ``points_index``); ``which`` is its index among its kind.  Loads
    print as ``array[at]``, ``at`` the point's cell."""

    kind: str  # "inject" | "record"
    which: int
    name: str  # the field injected into, or the record
    points: str
    points_index: int
    target: str  # inject: the field's dst arg; record: ""
    expr: str
    what: str  # the .stn-like text, for the comment
    field_index: int = -1  # inject: the field's NAME_FIELD_ index
    inner: bool = False  # inject into a field read primed: added inside the step, by each tile's scratch
    offgrid: bool = False  # at off-grid points: an inject adds w[i] * expr (w the corner's weight; inner too)

    def __post_init__(self) -> None:
        if self.kind not in ("inject", "record") or (self.kind == "inject") != bool(self.target) or (
                self.kind == "inject") != (self.field_index >= 0):
            _fail(self, f"kind {self.kind!r} with target {self.target!r}")
        _nonneg(self, "which", self.which)
        _nonneg(self, "points index", self.points_index)
        if self.target:
            _local(self, "target", self.target)
        if self.inner and self.kind != "inject":
            _fail(self, "only an inject is applied inside the step")
        _expr(self, self.expr)
        if "*/" in self.what:
            _fail(self, "the description would end its C comment")


@dataclass(frozen=True)
class AlongDesc:
    """An input along one axis (``input c along y;``): a 1d array of the axis' extent, the kernels'
    ``src[NAME_NSRC + index]``, read as ``cname[y + k]``; ``init`` the C of its init expression
    (of that coordinate and the sizes), or ""."""

    name: str
    cname: str
    axis: str  # x, y or z
    index: int
    init: str
    what: str  # the init as IR, for the comment
    NAME: str = ""  # in NAME_ALONG_: the name in upper case ("" for that), "_" after it on a clash

    def __post_init__(self) -> None:
        _ident(self, "name", self.name)
        _local(self, "array", self.cname)
        if not self.NAME:
            object.__setattr__(self, "NAME", self.name.upper())
        _upper_of(self, self.NAME, self.name)
        if self.axis not in AXES:
            _fail(self, f"axis {self.axis!r}")
        _nonneg(self, "index", self.index)
        if bool(self.init) != bool(self.what) or "*/" in self.what:
            _fail(self, "init and its description go together")


@dataclass(frozen=True)
class PointFacts:
    """The derived facts the generated code states (``ir.Facts``, less the halo, which is in
    the axes, and the per-schedule traffic, which the runtime computes)."""

    points: int
    flops: int
    bytes_per_point: int
    kr: int
    kw: int

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            _nonneg(self, f.name, getattr(self, f.name))
