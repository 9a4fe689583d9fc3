"""Building the kernel layout: a validated IR program -> a ``KernelLayout``.

Expects: an ``ir.Program`` (validated again here) and, for a tuned variant, a ``Tuned``.
Guarantees: ``build_layout`` is pure -- the same program gives an equal layout, C names
included -- and makes every decision the C depends on, so the templates only print:

* C names: DSL names (params, lets, fields, in that order) keep their spelling unless C, the
  templates or the stencil's own names reserve it (``cnames.Namer``: ``int`` -> ``int_``,
  ``__y`` -> ``v__y``); the names the generator makes (``u_prev``, ``u_next``, row pointers
  ``u_ym1_z0``, output rows ``u_next_row``) are then taken in a fixed order, each avoiding
  every name before it; the fields' names in the enums (``HEAT_FIELD_U``, ``HEAT_SRC_U_PREV``)
  are their names in upper case, with ``_`` after one that would repeat an enum constant
  (``u`` and ``U``; ``u_prev`` beside the previous level of ``u``);
* slots: as lowering assigned them, sorted; row pointers: one per distinct (field, level,
  dy, dz) read, in the order of ``Program.loads``; a load prints as ``row[x + dx]``;
* expressions: printed by ``cexpr.CPrinter`` over the renamed IR.
"""

from __future__ import annotations

from .. import __version__, ir
from ..resources import runtime_dir
from .cexpr import CPrinter, c_literal
from .cnames import Namer
from .hdf5 import hdf5_flags
from .layout import KernelLayout
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
    c_text_literals,
)

TILE_BYTES = 256 * 1024  # the default cache tile: about this many bytes of rows per thread
DEFAULT_CFLAGS = "-O3 -march=native -fopenmp -ffp-contract=off -std=gnu11"
# linked into every program (the runtime adds its own later); libhdf5 when this machine has it (codegen/hdf5.py)
BASE_LIBS = ["-laio", "-lhwloc", "-lpmem", "-lm"]
LIBS = [*BASE_LIBS, *hdf5_flags()[1]]


def _field_macros(fields: list[ir.Field]) -> dict[str, str]:
    """Each field's name in the enums (``NAME_FIELD_U``, ``NAME_ALONG_C``, and its slots' ``NAME_SRC_U``,
    ``NAME_SRC_U_PREV``, ``NAME_DST_U_NEXT``): its name in upper case, ``_`` after it while one of those
    would repeat a constant of an earlier field."""
    taken: dict[str, set[str]] = {"field": set(), "src": set(), "dst": set()}
    out: dict[str, str] = {}
    for f in fields:
        up = f.name.upper()
        while True:
            want = {"field": {up}, "src": set() if f.along is not None else {up} | ({up + "_PREV"} if f.prev_slot >= 0
                                                                                  else set()),
                    "dst": {up + "_NEXT"} if f.dst_slot >= 0 else set()}
            if not any(want[k] & taken[k] for k in taken):
                break
            up += "_"
        for k in taken:
            taken[k] |= want[k]
        out[f.name] = up
    return out


class _Renamer:
    """Rewrites params and lets to their C names (loads are named by the printer); the only
    place DSL names become C identifiers."""

    def __init__(self, cname: dict[str, str], step_cname: dict[object, str] | None = None):
        self.cname = cname
        self.step_cname = step_cname or {}  # TimeIndex() and SeriesRef -> their C names

    def __call__(self, e: ir.Expr) -> ir.Expr:
        if isinstance(e, ir.ParamRef):
            return ir.ParamRef(self.cname[e.name])
        if isinstance(e, (ir.TimeIndex, ir.SeriesRef)):  # printed as the kernel's locals of them
            return ir.ParamRef(self.step_cname[e])
        if isinstance(e, ir.TempRef):
            return ir.TempRef(self.cname[e.name])
        return ir.rebuild(e, (self(k) for k in ir.children(e)))


def _along_index(array: str, coord: str, k: int) -> str:
    """``c[y + 1]``: a coefficient along an axis at a coordinate plus an offset."""
    return f"{array}[{coord} {'+' if k > 0 else '-'} {abs(k)}]" if k else f"{array}[{coord}]"


def _off(v: int) -> str:
    return f"m{-v}" if v < 0 else f"p{v}" if v > 0 else "0"


def comment_safe(text: str) -> str:
    """A file name as the generated files' header comments show it: one line of printable characters
    (others become '?'), never closing a C comment ('*/' becomes '*\\/'): a name cannot end the comment
    and have the rest compiled, nor break a Makefile or Fortran comment line."""
    text = "".join(c if c.isprintable() else "?" for c in text)
    return text.replace("*/", "*\\/")


def build_layout(program: ir.Program, tuned: Tuned | None = None) -> KernelLayout:
    """The layout of ``program`` (validated first), with ``tuned`` built in as its defaults.

    The C names are taken in a fixed order (``_dsl_names``, then the slots' arrays, the row
    pointers, the scratch, the step values and the output rows), so every C name is stable."""
    program.validate()
    facts = program.facts or program.derive_facts()
    # a 1d grid runs as a 2d grid of one row (ny = 1, no y halo): the kernels and the runtime are 2d
    name, ndim, dtype = program.name, max(2, program.ndim), program.dtype
    namer, cname = _dsl_names(program)
    macro = _field_macros(program.fields)
    src_slots, dst_slots = _slots(program, cname, macro, namer)
    array_of = {(s.field, s.level): s.arg for s in src_slots}
    along = {f.name: f for f in program.along_fields}
    rows = _row_pointers(program, ndim, array_of, along, namer)
    scratch, regions, new_rows = _scratch(program, cname, array_of, dst_slots, namer)
    step_values = _step_values(program, namer)
    step_cname = {(ir.TimeIndex() if v.series is None else ir.SeriesRef(v.series, v.k)): v.cname for v in step_values}
    printer = CPrinter(dtype, _cell_load(cname, along, rows, new_rows), _cell_coord(real_of(dtype)), f"{name}_",
                       lambda axis: f"(({real_of(dtype)})v->n{AXES[axis]})")
    rename = _Renamer(cname, step_cname)
    out_rows, assigns = _outputs(program, dst_slots, printer, rename, namer)
    lets = tuple(Let(x.name, cname[x.name], printer.print(rename(x.value))) for x in program.lets)
    inits, alongs = _inits(program, cname, macro, CPrinter(dtype, printer.load_name, prefix=f"{name}_"), rename)
    point_printer = CPrinter(dtype, _point_load(cname, along, src_slots, dst_slots), prefix=f"{name}_")
    injects, records = _point_ops(program, dst_slots, point_printer, rename)
    stages = _stages(program, scratch, regions, new_rows, rows, {a.field: a for a in assigns}, out_rows, lets)
    real, elem_size, npy_descr = DTYPES[dtype]
    return KernelLayout(
        name=name, version=__version__, source=comment_safe(program.source_name), dtype=dtype, real=real,
        elem_size=elem_size, npy_descr=npy_descr, ndim=ndim, dims=program.ndim,
        facts=PointFacts(facts.points, facts.flops, facts.bytes_per_point, facts.kr, facts.kw),
        axes=tuple(Axis(AXES[d], facts.halo_lo[d], facts.halo_hi[d], facts.reach_lo[d], facts.reach_hi[d])
                   if d < ndim else Axis(AXES[d], 0, 0) for d in range(3)),
        fields=_field_descs(program, macro),
        params=tuple(Param(p.name, cname[p.name], p.value, c_literal(p.value, dtype), c_literal(p.value, "f64"))
                     for p in program.params),
        src_slots=tuple(src_slots), dst_slots=tuple(dst_slots), rows=tuple(rows.values()), out_rows=tuple(out_rows),
        lets=lets, assigns=tuple(assigns), inits=inits,
        ir_lines=tuple(ln for ln in ir.format_program(program).splitlines() if ln.startswith(("let ", "update "))),
        tile_bytes=TILE_BYTES, runtime_dir=str(runtime_dir()),
        cflags=" ".join([DEFAULT_CFLAGS, *hdf5_flags()[0]]), libs=tuple(LIBS), tuned=tuned,
        stages=stages, series=tuple(program.series), step_values=tuple(step_values), points=tuple(program.points),
        points_spacing=tuple(-2 if s not in program.offgrid else -1 if not program.offgrid[s]
                             else [q.name for q in program.params].index(program.offgrid[s]) for s in program.points),
        injects=injects, records=records, alongs=alongs, saves=tuple(s.spec() for s in program.saves),
        source_text=c_text_literals(program.source_text),
        coord_axes=tuple(sorted({n.axis for e in program.kernel_exprs() for n in ir.walk(e)
                                 if isinstance(n, ir.Coord) and n.axis > 0})),
    )


def _dsl_names(program: ir.Program) -> tuple[Namer, dict[str, str]]:
    """The C names of the DSL's names (params, lets, fields, in that order): their own spelling
    unless C, the templates or the stencil's own names reserve it; the namer then gives the generated
    names."""
    namer = Namer(program.name)
    cname: dict[str, str] = {}
    for n in [p.name for p in program.params] + [x.name for x in program.lets] + [f.name for f in program.fields]:
        cname[n] = namer.fresh(n)
    return namer, cname


def _slots(program: ir.Program, cname: dict[str, str], macro: dict[str, str],
           namer: Namer) -> tuple[list[Slot], list[Slot]]:
    """The kernels' array arguments, src and dst, each sorted by slot: per grid field (in order)
    its current level, its previous level, its new level, named in the enums by ``macro``."""
    src_slots: list[Slot] = []
    dst_slots: list[Slot] = []
    for f in program.grid_fields:
        src_slots.append(Slot("src", f.src_slot, macro[f.name], cname[f.name],
                              f.name + (" (input)" if f.kind == "input" else " (current level)"), f.name, 0))
        if f.prev_slot >= 0:
            src_slots.append(Slot("src", f.prev_slot, macro[f.name] + "_PREV", namer.fresh(cname[f.name] + "_prev"),
                                  f"{f.name}.prev (previous level)", f.name, 1))
        if f.dst_slot >= 0:
            dst_slots.append(Slot("dst", f.dst_slot, macro[f.name] + "_NEXT", namer.fresh(cname[f.name] + "_next"),
                                  f"{f.name}' (new level)", f.name, 0))
    src_slots.sort(key=lambda s: s.slot)
    dst_slots.sort(key=lambda s: s.slot)
    return src_slots, dst_slots


def _row_pointers(program: ir.Program, ndim: int, array_of, along, namer: Namer):
    """Row pointers, one per distinct (array, dy, dz) of an old level, in the order of
    ``program.loads()``: (field, level, dy, dz) -> ``RowPointer``."""
    rows: dict[tuple[str, int, int, int], RowPointer] = {}
    for ld in program.loads():
        key = (ld.field, ld.level, ld.offset[1], ld.offset[2])
        if key not in rows and ld.level != ir.NEW and ld.field not in along:
            arr = array_of[(ld.field, ld.level)]
            suffix = f"_y{_off(ld.offset[1])}" + (f"_z{_off(ld.offset[2])}" if ndim == 3 else "")
            rows[key] = RowPointer(namer.fresh(arr + suffix), arr, ld.field, ld.level, ld.offset[1], ld.offset[2])
    return rows


def _cell_load(cname, along, rows, new_rows):
    """How the kernels print a load at a cell: ``row[x + dx]`` through its row pointer (or its
    new-value row), ``c[y + k]`` for an input along an axis."""

    def load_name(ld: ir.Load) -> str:
        if ld.field in along:  # a coefficient along an axis: indexed by that coordinate
            return _along_index(cname[ld.field], "xyz"[along[ld.field].along], ld.offset[along[ld.field].along])
        key = (ld.field, ld.level, ld.offset[1], ld.offset[2])
        r = new_rows[key].name if ld.level == ir.NEW else rows[key].name
        dx = ld.offset[0]
        return f"{r}[x {'+' if dx > 0 else '-'} {abs(dx)}]" if dx else f"{r}[x]"

    return load_name


def real_of(dtype: str) -> str:
    return DTYPES[dtype][0]


def _cell_coord(real: str):
    """How the kernels print a coordinate: the cell's global index (x, and the row's and plane's
    ``yc_``, ``zc_``, which the templates bring into the interior when a periodic image is
    computed), moved by a let's offset, converted to the element type."""

    def coord_name(c: ir.Coord) -> str:
        var = ("x", "yc_", "zc_")[c.axis]
        k = c.offset
        return f"(({real})({var} {'+' if k > 0 else '-'} {abs(k)}))" if k else f"(({real}){var})"

    return coord_name


def _step_values(program: ir.Program, namer: Namer) -> list[StepValue]:
    """``t`` if the kernels read it, then every series term, in slot order."""
    step_values = []
    if program.uses_time():
        step_values.append(StepValue("t", namer.fresh("t"), 0))
    for j, s in enumerate(program.series_terms()):
        step_values.append(StepValue(ir.format_expr(s), namer.fresh(f"{s.name}_t{_off(s.k)}"), 1 + j, s.name, s.k))
    return step_values


def _outputs(program: ir.Program, dst_slots, printer: CPrinter, rename: _Renamer, namer: Namer):
    """One output row per dst slot (in slot order) and the assignment of its field's update."""
    out_rows: list[OutRow] = []
    assigns: list[Assign] = []
    for s in dst_slots:
        row = OutRow(namer.fresh(s.arg + "_row"), s.arg, s.field)
        out_rows.append(row)
        upd = next(u for u in program.updates if u.field == s.field)
        assigns.append(Assign(s.field, row.name, printer.print(rename(upd.value))))
    return out_rows, assigns


def _inits(program: ir.Program, cname, macro, printer: CPrinter, rename: _Renamer):
    """The init expressions of the grid fields (each level that has one) and the inputs along an axis."""
    inits = tuple(
        Init(f.name, macro[f.name], level, printer.print(rename(e)),
             f"init {f.name}{'.prev' if level else ''} = {ir.format_expr(e, program.ndim)}")
        for f in program.grid_fields for level, e in ((0, f.init), (1, f.init_prev)) if e is not None)
    alongs = tuple(AlongDesc(f.name, cname[f.name], "xyz"[f.along], f.along_slot,
                             printer.print(rename(f.init)) if f.init is not None else "",
                             f"init {f.name} = {ir.format_expr(f.init, program.ndim)}" if f.init is not None else "",
                             macro[f.name])
                   for f in program.along_fields)
    return inits, alongs


def _point_load(cname, along, src_slots, dst_slots):
    """How an inject or a record prints a load: ``array[at]`` at the point's cell (a new level
    from its dst slot), ``c[py]`` for an input along an axis."""
    array_of_level = {(s.field, s.level): s.arg for s in src_slots}
    array_of_level.update({(s.field, ir.NEW): s.arg for s in dst_slots})

    def point_load(ld: ir.Load) -> str:
        if ld.field in along:
            return _along_index(cname[ld.field], "p" + "xyz"[along[ld.field].along], 0)
        return f"{array_of_level[(ld.field, ld.level)]}[at]"

    return point_load


def _point_ops(program: ir.Program, dst_slots, point_printer: CPrinter, rename: _Renamer):
    """The injects and records, in source order, each numbered among its kind."""
    dst_arg = {s.field: s.arg for s in dst_slots}
    injects = tuple(PointOp("inject", i, x.field, x.points, program.points.index(x.points), dst_arg[x.field],
                            point_printer.print(rename(x.value)),
                            f"inject {x.field} at {x.points} += {ir.format_expr(x.value, program.ndim)}",
                            [f.name for f in program.fields].index(x.field), x.field in program.new_extents(),
                            x.points in program.offgrid)
                    for i, x in enumerate(program.injects))
    records = tuple(PointOp("record", i, x.name, x.points, program.points.index(x.points), "",
                            point_printer.print(rename(x.value)),
                            f"record {x.name} = {ir.format_expr(x.value, program.ndim)} at {x.points}",
                            offgrid=x.points in program.offgrid)
                    for i, x in enumerate(program.records))
    return injects, records


def _field_descs(program: ir.Program, macro: dict[str, str]) -> tuple[FieldDesc, ...]:
    """The grid fields' descriptors, in declaration order, with the axes each is read across."""
    return tuple(FieldDesc(f.name, macro[f.name], f.kind, f.levels, f.boundary, f.init is not None,
                           f.init_prev is not None, f.src_slot, f.prev_slot, f.dst_slot, tuple(f.periodic),
                           tuple(sorted({d for ld in program.loads() if ld.field == f.name
                                         for d in range(3) if ld.offset[d]})),
                           f.face_mask("neumann"), f.face_mask("dirichlet"), f.label or "",
                           1 + [g.name for g in program.grid_fields].index(f.level2_of) if f.level2_of else 0,
                           f.own_init)
                 for f in program.grid_fields)


def _scratch(program: ir.Program, cname, array_of, dst_slots, namer: Namer):
    """The scratch of each field read primed (in update order) and the rows that read it."""
    need = program.new_extents()
    stage_of = {u.field: k for k, group in enumerate(program.stages()) for u in group}
    region: dict[int, tuple[list[int], list[int]]] = {}
    known = {f: program.known_extent(f, need) for f in need}
    for f, (lo, hi) in known.items():
        rlo, rhi = region.setdefault(stage_of[f], ([0, 0, 0], [0, 0, 0]))
        for d in range(3):
            rlo[d], rhi[d] = max(rlo[d], lo[d]), max(rhi[d], hi[d])
    dst_of = {s.field: s.arg for s in dst_slots}
    scratch: dict[str, Scratch] = {}
    for u in program.updates:
        f = u.field
        if f in known:
            scratch[f] = Scratch(f, namer.fresh(cname[f] + "_new"), len(scratch), namer.fresh(cname[f] + "_new_row"),
                                 array_of[(f, 0)], dst_of[f], program.field(f).boundary, tuple(known[f][0]),
                                 tuple(known[f][1]), *(d in program.field(f).periodic for d in range(3)))
    new_rows: dict[tuple[str, int, int, int], NewRow] = {}
    for ld in program.loads():
        if ld.level == ir.NEW and (ld.field, ld.level, ld.offset[1], ld.offset[2]) not in new_rows:
            sc = scratch[ld.field]
            lo = region[stage_of[ld.field]][0]
            suffix = f"_y{_off(ld.offset[1])}" + (f"_z{_off(ld.offset[2])}" if program.ndim == 3 else "")
            new_rows[(ld.field, ld.level, ld.offset[1], ld.offset[2])] = NewRow(
                namer.fresh(sc.name + suffix), sc.name, ld.field, ld.offset[1], ld.offset[2], lo[1], lo[2])
    return scratch, region, new_rows


def _stages(program: ir.Program, scratch, regions, new_rows, rows, assign_of, out_rows, lets):
    """The sub-steps of ``program``: () when its updates read no new value."""
    groups = program.stages()
    if len(groups) == 1:
        return ()
    out_of = {r.field: r for r in out_rows}
    let_of = {x.name: x for x in lets}
    stages = []
    for k, group in enumerate(groups):
        names = tuple(u.field for u in group)
        mine = tuple(scratch[f] for f in names if f in scratch)

        lo, hi = regions.get(k, ([0, 0, 0], [0, 0, 0]))

        def loop(updates: list[ir.Update], to_scratch: bool, lo=lo) -> StageLoop | None:
            if not updates:
                return None
            loads = set().union(*(program.update_loads(u) for u in updates))
            used = [x.name for x in ir.needed_lets(program.lets, updates)]
            row_names = tuple(r.name for key, r in rows.items() if any(
                (ld.field, ld.level, ld.offset[1], ld.offset[2]) == key for ld in loads))
            reads = tuple(r for key, r in new_rows.items() if any(
                (ld.field, ld.level, ld.offset[1], ld.offset[2]) == key for ld in loads))
            if to_scratch:
                outs = tuple((scratch[u.field].row, f"{scratch[u.field].name} + (z - zc0 + {lo[2]}) * splane_ "
                              f"+ (y - yb + {lo[1]}) * snx_ - sxo_") for u in updates)
            else:
                outs = tuple((out_of[u.field].name, f"{out_of[u.field].array} + row") for u in updates)
            assigns = tuple(Assign(u.field, row, assign_of[u.field].expr) for u, (row, _) in zip(updates, outs))
            return StageLoop(row_names, reads, outs, tuple(let_of[n] for n in used), assigns)

        stages.append(Stage(k, names, mine, tuple(lo), tuple(hi),
                            loop([u for u in group if u.field in scratch], True),
                            loop([u for u in group if u.field not in scratch], False)))
    return tuple(stages)

