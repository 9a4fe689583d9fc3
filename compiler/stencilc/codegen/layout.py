"""The kernel layout: everything the C templates print, as typed, immutable values.

Expects: to be built by ``build.build_layout`` (or, in tests, by hand).  Guarantees: a
``KernelLayout`` is made only of frozen dataclasses (its parts, in ``parts.py``, re-exported
here), tuples, strings, numbers and booleans -- deeply immutable and hashable -- and every
dataclass checks its own invariants when it is built, raising ``InternalError`` if one is
broken, so a template never sees a bad value (``KernelLayout.__post_init__`` runs the checks
that span parts, one named concern each, in a fixed order):

* names printed as C identifiers are identifiers, and every local the kernels declare (argument
  arrays, row pointers, output rows, lets, params) is neither reserved by C nor a name the
  templates print themselves or make of the stencil's name (``cnames``), and no two of them are
  equal; a let's C name is a spelling of its DSL name (``cnames.is_spelling_of``), and a field's
  enum name its name in upper case, ``_`` after it where one would repeat;
* slot indices are dense (``0 .. n-1``), unique and in order, the slots are exactly those the
  field descriptors name, and every row pointer, output row, assignment and init refers to a
  slot, row or field that exists;
* ``ndim`` is 2 or 3; ``dtype`` is f32 or f64 and ``real``, ``elem_size`` and ``npy_descr``
  agree with it; halos are non-negative, the axes are x, y, z, and z has no halo in 2d;
* sequences are tuples, never lists.

Nothing here reads the IR: this module is the contract between building and rendering.  The
templates read a layout's fields and properties as their top-level names (``codegen.render``).
"""

from __future__ import annotations

from dataclasses import dataclass

from .cnames import stencil_words
from .parts import (
    AXES,
    DTYPES,
    AlongDesc,
    Assign,
    Axis,
    FieldDesc,
    Init,
    Let,
    NewRow,
    OutRow,
    Param,
    PointFacts,
    PointOp,
    RowPointer,
    Scratch,
    Slot,
    Stage,
    StageLoop,
    StepValue,
    Tuned,
    _dense,
    _fail,
    _ident,
    _nonneg,
    _tuple_of,
    c_string,
)

# The parts are this module's names too: a layout's whole vocabulary is ``layout.X`` (tests build one by hand).
__all__ = [
    "AXES", "DTYPES", "AlongDesc", "Assign", "Axis", "FieldDesc", "Init", "KernelLayout", "Let",
    "NewRow", "OutRow", "Param", "PointFacts", "PointOp", "RowPointer", "Scratch", "Slot", "Stage", "StageLoop",
    "StepValue", "Tuned", "c_string",
]


@dataclass(frozen=True)
class KernelLayout:
    """Everything the templates print for one stencil."""

    name: str
    version: str
    source: str  # the .stn path, as given
    dtype: str  # "f32" | "f64"
    real: str  # its C type
    elem_size: int
    npy_descr: str
    ndim: int
    facts: PointFacts
    axes: tuple[Axis, ...]  # x, y, z always: the kernels' views and boxes are 3d (in 2d, nz = 1, no z halo)
    fields: tuple[FieldDesc, ...]  # in declaration order: NAME_FIELD_* is the index
    params: tuple[Param, ...]  # in declaration order: the runtime's pv[] index
    src_slots: tuple[Slot, ...]  # by slot
    dst_slots: tuple[Slot, ...]  # by slot
    rows: tuple[RowPointer, ...]  # one per distinct (field, level, dy, dz) read
    out_rows: tuple[OutRow, ...]  # one per dst slot, in slot order
    lets: tuple[Let, ...]
    assigns: tuple[Assign, ...]  # one per out row, in the same order
    inits: tuple[Init, ...]
    ir_lines: tuple[str, ...]  # the lets and updates as IR, for the .c file's comment
    tile_bytes: int
    runtime_dir: str
    cflags: str
    libs: tuple[str, ...]
    tuned: Tuned | None = None
    stages: tuple[Stage, ...] = ()  # sub-steps; () when the updates read no new value
    series: tuple[str, ...] = ()  # the series declared, in order (the runtime's index)
    step_values: tuple[StepValue, ...] = ()  # t (if the kernels read it), then every series term
    points: tuple[str, ...] = ()  # the sets of points declared, in order (the runtime's index)
    # per set: -2 grid points, -1 off-grid in cells, k >= 0 off-grid divided by param k (its spacing)
    points_spacing: tuple[int, ...] = ()
    injects: tuple[PointOp, ...] = ()  # in source order
    records: tuple[PointOp, ...] = ()  # in source order
    alongs: tuple[AlongDesc, ...] = ()  # inputs along one axis, after the grid slots
    saves: tuple[str, ...] = ()  # the .stn's `save` statements as --save specs (the runtime's defaults)
    dims: int = 0  # the grid as written: 1 for a 1d grid, run as a 2d grid of one row (ndim 2); 0: ndim
    source_text: tuple[str, ...] = ('""',)  # the .stn's text as C string literals, one a line (c_text_literals)
    coord_axes: tuple[int, ...] = ()  # y (1), z (2): the coordinates of its row the kernels read (yc_, zc_)

    # -- sub-steps
    @property
    def nscratch(self) -> int:
        return sum(len(st.scratch) for st in self.stages)

    @property
    def scratch_reach_x(self) -> tuple[int, int]:
        """The cells a tile's scratch holds left and right of a 1d piece (the widest stage's)."""
        return (max((st.lo[0] for st in self.stages), default=0), max((st.hi[0] for st in self.stages), default=0))

    @property
    def chunk_x(self) -> bool:
        """A 1d grid's row is cut into pieces among the threads (the kernels' tiles), unless a
        sub-step's scratch wraps x (it then computes the whole row's interior, as one tile)."""
        return self.dims == 1 and not any(sc.wrap_x for st in self.stages for sc in st.scratch)

    @property
    def inner_injects(self) -> tuple[PointOp, ...]:
        """The injects into fields read primed: the step applies them (``NAME_step_box_pts``)."""
        return tuple(o for o in self.injects if o.inner)

    @property
    def scratch_reach(self) -> tuple[int, int]:
        """The rows and planes a tile's scratch holds beyond the tile's (the widest stage's)."""
        return (max((st.lo[1] + st.hi[1] for st in self.stages), default=0),
                max((st.lo[2] + st.hi[2] for st in self.stages), default=0))

    def __post_init__(self) -> None:
        """Every invariant of the whole layout, in this order (the first broken one is reported)."""
        self._check_kinds()
        self._check_slots()
        self._check_numbering()
        self._check_c_names()
        self._check_stages()
        self._check_rows()
        self._check_inits()
        self._check_params_and_tuned()

    def _all_scratch(self) -> list[Scratch]:
        """Every stage's scratch fields, in stage order."""
        return [sc for st in self.stages for sc in st.scratch]

    def _check_kinds(self) -> None:
        """The grid (ndim, dims, dtype and its C type, the axes), the type of every field, the tile."""
        _ident(self, "stencil name", self.name)
        if self.ndim not in (2, 3):
            _fail(self, f"ndim {self.ndim!r} is not 2 or 3")
        if self.dims == 0:
            object.__setattr__(self, "dims", self.ndim)
        if self.dims not in (1, self.ndim) or (self.dims == 1 and (self.ndim != 2 or self.axes[1].lo or self.axes[1].hi)):
            _fail(self, f"dims {self.dims!r} with ndim {self.ndim!r}: a 1d grid is a 2d grid of one row, no y halo")
        if self.dtype not in DTYPES:
            _fail(self, f"dtype {self.dtype!r} is not f32 or f64")
        if (self.real, self.elem_size, self.npy_descr) != DTYPES[self.dtype]:
            _fail(self, f"real {self.real!r}, elem_size {self.elem_size!r} and npy_descr {self.npy_descr!r} "
                        f"do not match dtype {self.dtype}")
        if not isinstance(self.facts, PointFacts):
            _fail(self, "facts must be PointFacts")
        for role, kind in (("axes", Axis), ("fields", FieldDesc), ("params", Param), ("src_slots", Slot),
                           ("dst_slots", Slot), ("rows", RowPointer), ("out_rows", OutRow), ("lets", Let),
                           ("assigns", Assign), ("inits", Init), ("ir_lines", str), ("libs", str),
                           ("stages", Stage), ("series", str), ("step_values", StepValue), ("points", str),
                           ("injects", PointOp), ("records", PointOp), ("alongs", AlongDesc), ("saves", str)):
            _tuple_of(self, role, getattr(self, role), kind)
        if self.tuned is not None and not isinstance(self.tuned, Tuned):
            _fail(self, "tuned must be Tuned or None")
        if tuple(a.name for a in self.axes) != tuple(AXES) or (self.ndim == 2 and (self.axes[2].lo or self.axes[2].hi)):
            _fail(self, f"axes {self.axes} are not x, y, z (with no z halo in 2d)")
        if not isinstance(self.coord_axes, tuple) or any(a not in range(1, self.dims) for a in self.coord_axes):
            _fail(self, f"coord_axes {self.coord_axes!r}: the kernels read y and z of their row, on a grid that has them")
        _nonneg(self, "tile_bytes", self.tile_bytes)
        if self.tile_bytes == 0:
            _fail(self, "tile_bytes is 0")

    def _check_slots(self) -> None:
        """Slots: dense, on their side, and exactly those the fields name; field names distinct."""
        if any(s.side != "src" for s in self.src_slots) or any(s.side != "dst" for s in self.dst_slots):
            _fail(self, "a slot is on the wrong side")
        _dense(self, "src", [s.slot for s in self.src_slots])
        _dense(self, "dst", [s.slot for s in self.dst_slots])
        for side in (self.src_slots, self.dst_slots):
            macros = [s.NAME for s in side]
            if len(set(macros)) != len(macros):
                _fail(self, f"slot names {macros} repeat")
        fields = {f.name: f for f in self.fields}
        if len(fields) != len(self.fields) or len({f.NAME for f in self.fields}) != len(self.fields):
            _fail(self, f"field names {[f.name for f in self.fields]} repeat")
        if len({a.NAME for a in self.alongs}) != len(self.alongs):
            _fail(self, f"along names {[a.name for a in self.alongs]} repeat")
        for s in self.src_slots + self.dst_slots:
            f = fields.get(s.field)
            if f is None or s.NAME != f.NAME + ("_PREV" if s.level else "_NEXT" if s.side == "dst" else ""):
                _fail(self, f"slot name {s.NAME} is not made of its field's name")
        want_src = {(f.name, 0): f.src_slot for f in self.fields}
        want_src.update({(f.name, 1): f.prev_slot for f in self.fields if f.prev_slot >= 0})
        if {(s.field, s.level): s.slot for s in self.src_slots} != want_src or len(want_src) != len(self.src_slots):
            _fail(self, "src slots do not match the fields' src and prev slots")
        want_dst = {(f.name, 0): f.dst_slot for f in self.fields if f.dst_slot >= 0}
        if {(s.field, s.level): s.slot for s in self.dst_slots} != want_dst or len(want_dst) != len(self.dst_slots):
            _fail(self, "dst slots do not match the fields' dst slots")

    def _check_numbering(self) -> None:
        """Inputs along an axis, injects, records and step values numbered in order, naming what
        exists; the injects applied inside the step are exactly those into fields read primed."""
        if [a.index for a in self.alongs] != list(range(len(self.alongs))):
            _fail(self, "inputs along an axis are not numbered in order")
        for kind, ops in (("inject", self.injects), ("record", self.records)):
            if [(o.kind, o.which) for o in ops] != [(kind, i) for i in range(len(ops))] or any(
                    o.points_index >= len(self.points) or self.points[o.points_index] != o.points for o in ops):
                _fail(self, f"{kind}s are not numbered in order, or name points that are not declared")
            if any(o.offgrid != (self.points_spacing[o.points_index] > -2) for o in ops):
                _fail(self, f"an {kind}'s off-grid flag does not match its set's")
        if len(self.points_spacing) != len(self.points) or any(
                k < -2 or k >= len(self.params) for k in self.points_spacing):
            _fail(self, f"points_spacing {self.points_spacing!r} is not one of -2, -1 or a param per set")
        terms = [v for v in self.step_values if v.series is not None]
        if [v.slot for v in terms] != list(range(1, len(terms) + 1)) or any(
                v.series not in self.series for v in terms) or sum(v.slot == 0 for v in self.step_values) > 1:
            _fail(self, "step values are not t then the series terms, in slot order")
        scratch = self._all_scratch()
        if {o.name for o in self.inner_injects} - {sc.field for sc in scratch} or any(
                o.name in {sc.field for sc in scratch} and not o.inner for o in self.injects):
            _fail(self, "the injects applied inside the step are not exactly those into fields read primed")

    def _check_c_names(self) -> None:
        """The kernels' C names (arrays, rows, lets, params, step values, scratch, new-value rows): distinct."""
        locals_ = ([s.arg for s in self.src_slots + self.dst_slots] + [r.name for r in self.rows]
                   + [r.name for r in self.out_rows] + [x.cname for x in self.lets] + [p.cname for p in self.params]
                   + [v.cname for v in self.step_values] + [a.cname for a in self.alongs])
        scratch = self._all_scratch()
        new_rows = {(r.name, r.scratch, r.dy, r.dz) for st in self.stages for loop in (st.region, st.tile) if loop
                    for r in loop.new_rows}
        locals_ += [sc.name for sc in scratch] + [sc.row for sc in scratch] + sorted({r[0] for r in new_rows})
        if len(set(locals_)) != len(locals_) or len(new_rows) != len({r[0] for r in new_rows}):
            _fail(self, f"C names {locals_} repeat")
        words, prefixes = stencil_words(self.name)
        if any(n in words or n.startswith(prefixes) for n in locals_):
            _fail(self, f"C names {locals_} take names the templates make of the stencil's name {self.name!r}")

    def _check_stages(self) -> None:
        """Scratch indices dense, two stages or none, and every row a stage reads declared."""
        scratch = self._all_scratch()
        if [sc.index for sc in scratch] != list(range(len(scratch))) or len(self.stages) == 1:
            _fail(self, "scratch indices are not dense, or one stage is not sub-steps")
        row_names = {r.name for r in self.rows}
        for st in self.stages:
            for loop in (st.region, st.tile):
                if loop and not set(loop.rows) <= row_names:
                    _fail(self, f"stage {st.index} reads rows that are not declared")

    def _check_rows(self) -> None:
        """Row pointers address src slots, one per row; output rows and assignments follow the dst slots."""
        src_args = {(s.field, s.level): s.arg for s in self.src_slots}
        for r in self.rows:
            if src_args.get((r.field, r.level)) != r.array or (self.ndim == 2 and r.dz):
                _fail(self, f"row pointer {r.name} does not address a src slot of this grid")
        if len({(r.field, r.level, r.dy, r.dz) for r in self.rows}) != len(self.rows):
            _fail(self, "two row pointers for one row")
        if [(r.field, r.array) for r in self.out_rows] != [(s.field, s.arg) for s in self.dst_slots]:
            _fail(self, "output rows do not match the dst slots")
        if [(a.field, a.row) for a in self.assigns] != [(r.field, r.name) for r in self.out_rows]:
            _fail(self, "assignments do not match the output rows")

    def _check_inits(self) -> None:
        """Exactly one init per field level that has one (``has_init``, ``has_prev_init``)."""
        fields = {f.name: f for f in self.fields}
        for i in self.inits:
            f = fields.get(i.field)
            if f is None or f.NAME != i.NAME or not (f.has_prev_init if i.level else f.has_init):
                _fail(self, f"init of {i.field} level {i.level} does not match its field")
        if len(self.inits) != sum(f.has_init + f.has_prev_init for f in self.fields):
            _fail(self, "inits do not match the fields' has_init / has_prev_init")

    def _check_params_and_tuned(self) -> None:
        """Param names distinct; a 2d stencil tuned without z blocking."""
        if len({p.name for p in self.params}) != len(self.params):
            _fail(self, "param names repeat")
        if self.tuned is not None and self.ndim == 2 and (
                self.tuned.size[2] != 1 or self.tuned.block[1] != 0 or self.tuned.iblock[1] != 1):
            _fail(self, "a 2d stencil tuned with z blocking")

    # -- derived, for the templates
    @property
    def NAME(self) -> str:
        return self.name.upper()

    @property
    def header_axes(self) -> tuple[Axis, ...]:
        """The axes that exist: the header's halo macros and comments name only these."""
        return self.axes[: self.ndim]

    @property
    def source_c(self) -> str:
        """The source path inside a C string literal."""
        return c_string(self.source)

    @property
    def rows_per_tile_row(self) -> int:
        """Rows held in cache per tile row: every distinct row read, plus the rows written."""
        return max(1, len(self.rows) + len(self.out_rows))

    @property
    def has_neumann(self) -> bool:
        return any(f.boundary == "neumann" for f in self.fields)

    @property
    def has_periodic(self) -> bool:
        return any(f.periodic for f in self.fields)

    @property
    def has_mixed(self) -> bool:
        return any(f.boundary == "mixed" for f in self.fields)

    @property
    def has_dirichlet(self) -> bool:
        return any(f.boundary == "dirichlet" for f in self.fields)
