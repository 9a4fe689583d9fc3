"""Code generation: IR -> C sources.

Expects: a validated ``ir.Program``.  Guarantees: three C files and a build file, named
after the stencil --

* ``NAME.h``       the public kernel API (standalone: no stencilc runtime needed);
* ``NAME.c``       the kernels: the point update over a box (OpenMP over z/y tiles, a
                   vectorisable x loop, row pointers named after the DSL's fields and
                   offsets), boundaries, init expressions, and a whole-grid step;
* ``NAME_main.c``  the descriptor for the runtime (stn_rt.h) and ``main``;
* ``Makefile``     builds the program against the runtime sources.

File skeletons are Jinja2 templates (``templates/``, StrictUndefined: a missing variable
is an internal error, never an empty string); expressions come from ``cexpr.CPrinter``.
"""

from __future__ import annotations

from dataclasses import dataclass

import jinja2

from .. import __version__, ir
from ..diagnostics import InternalError
from ..resources import runtime_dir, templates_dir
from .cexpr import C_KEYWORDS, CPrinter, c_literal

# Identifiers the templates use for their own locals; DSL names that collide get a "_".
INTERNAL_NAMES = frozenset(
    "sy sz y0 z0 x0 x1 ty tz kz ky zb ze yb ye row p v pv w c b src dst box iy ix iz whole interior nx ny nz "
    "m r a cur next field level data xl xh yl yh zl zh xi0 xi1 yi0 yi1 zi0 zi1 nrx threads splits memcpy "
    "omp_get_max_threads MIN_ MAX_ default_tiles_ dirichlet_ neumann_ params_ view_ box_ init_ step_ "
    "boundary_ fields_ params_desc_ program_ argc argv".split()
)
AXES = "xyz"
TILE_BYTES = 256 * 1024
DEFAULT_CFLAGS = "-O3 -march=native -fopenmp -ffp-contract=off -std=gnu11"
LIBS = ["-laio", "-lhwloc", "-lm"]  # linked into every program (the runtime adds its own later)


def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


class _Namer:
    """Gives each generated identifier a C name that collides with nothing else."""

    def __init__(self, taken: set[str]):
        self.taken = set(taken)

    def fresh(self, wanted: str) -> str:
        name = wanted
        while name in self.taken or name in C_KEYWORDS or name in INTERNAL_NAMES:
            name += "_"
        self.taken.add(name)
        return name


def _off(v: int) -> str:
    return f"m{-v}" if v < 0 else f"p{v}" if v > 0 else "0"


def _c_string(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


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


def generate(program: ir.Program, tuned: Tuned | None = None) -> dict[str, str]:
    program.validate()
    facts = program.facts or program.derive_facts()
    name = program.name
    real = "float" if program.dtype == "f32" else "double"

    namer = _Namer(set())
    # DSL names keep their spelling unless C or the templates reserve it.
    cname: dict[str, str] = {}
    for n in [p.name for p in program.params] + [x.name for x in program.lets] + [f.name for f in program.fields]:
        cname[n] = namer.fresh(n)

    # kernel argument slots
    src_slots, dst_slots = [], []
    for f in program.fields:
        src_slots.append({"slot": f.src_slot, "NAME": f.name.upper(), "arg": cname[f.name], "what": f"{f.name}" + (
                          " (input)" if f.kind == "input" else " (current level)"), "field": f.name, "level": 0})
        if f.prev_slot >= 0:
            src_slots.append({"slot": f.prev_slot, "NAME": f.name.upper() + "_PREV",
                              "arg": namer.fresh(cname[f.name] + "_prev"), "what": f"{f.name}.prev (previous level)",
                              "field": f.name, "level": 1})
        if f.dst_slot >= 0:
            dst_slots.append({"slot": f.dst_slot, "NAME": f.name.upper() + "_NEXT",
                              "arg": namer.fresh(cname[f.name] + "_next"), "what": f"{f.name}' (new level)",
                              "field": f.name})
    src_slots.sort(key=lambda s: s["slot"])
    dst_slots.sort(key=lambda s: s["slot"])
    array_of = {(s["field"], s["level"]): s["arg"] for s in src_slots}
    upper = [s["NAME"] for s in src_slots + dst_slots]
    if len(set(upper)) != len(upper) or len({f.name.upper() for f in program.fields}) != len(program.fields):
        raise InternalError(f"field names that differ only in case are not supported yet: {upper}")

    # row pointers, one per distinct (array, dy, dz)
    rows: dict[tuple[str, int, int, int], str] = {}
    row_list = []
    for ld in program.loads():
        key = (ld.field, ld.level, ld.offset[1], ld.offset[2])
        if key in rows:
            continue
        arr = array_of[(ld.field, ld.level)]
        suffix = f"_y{_off(ld.offset[1])}" + (f"_z{_off(ld.offset[2])}" if program.ndim == 3 else "")
        rname = namer.fresh(arr + suffix)
        rows[key] = rname
        shift = ""
        if ld.offset[1]:
            shift += f" {'+' if ld.offset[1] > 0 else '-'} {abs(ld.offset[1])} * sy" if abs(ld.offset[1]) != 1 else \
                f" {'+' if ld.offset[1] > 0 else '-'} sy"
        if ld.offset[2]:
            shift += f" {'+' if ld.offset[2] > 0 else '-'} {abs(ld.offset[2])} * sz" if abs(ld.offset[2]) != 1 else \
                f" {'+' if ld.offset[2] > 0 else '-'} sz"
        row_list.append({"name": rname, "array": arr, "shift": shift})

    def load_name(ld: ir.Load) -> str:
        r = rows[(ld.field, ld.level, ld.offset[1], ld.offset[2])]
        dx = ld.offset[0]
        return f"{r}[x {'+' if dx > 0 else '-'} {abs(dx)}]" if dx else f"{r}[x]"

    printer = CPrinter(program.dtype, load_name, prefix=f"{name}_")
    _rename = _Renamer(cname)
    out_rows = []
    assigns = []
    for s in dst_slots:
        rname = namer.fresh(s["arg"] + "_row")
        out_rows.append({"name": rname, "array": s["arg"]})
        upd = next(u for u in program.updates if u.field == s["field"])
        assigns.append({"row": rname, "expr": printer.print(_rename(upd.value))})
    lets = [{"cname": cname[x.name], "expr": printer.print(_rename(x.value))} for x in program.lets]

    init_printer = CPrinter(program.dtype, load_name, prefix=f"{name}_")
    inits = []
    for f in program.fields:
        for level, e in ((0, f.init), (1, f.init_prev)):
            if e is not None:
                inits.append({"NAME": f.name.upper(), "level": level, "expr": init_printer.print(_rename(e)),
                              "what": f"init {f.name}{'.prev' if level else ''} = {ir.format_expr(e, program.ndim)}"})

    axes = [{"name": AXES[d], "NAME": AXES[d].upper(), "lo": facts.halo_lo[d], "hi": facts.halo_hi[d]}
            for d in range(program.ndim)]
    axes3 = [{"lo": facts.halo_lo[d], "hi": facts.halo_hi[d]} for d in range(3)]
    fields = [{"name": f.name, "NAME": f.name.upper(), "kind": f.kind, "levels": f.levels,
               "boundary": f.boundary, "has_init": int(f.init is not None), "has_prev_init": int(f.init_prev is not None),
               "src_slot": f.src_slot, "prev_slot": f.prev_slot, "dst_slot": f.dst_slot} for f in program.fields]
    params = [{"name": p.name, "cname": cname[p.name], "value": repr(p.value),
               "literal": c_literal(p.value, program.dtype), "double_literal": c_literal(p.value, "f64")}
              for p in program.params]
    # rows held in cache per tile row: every distinct row read, plus the rows written
    rows_per_tile_row = max(1, len(row_list) + len(out_rows))
    ctx = {
        "name": name, "NAME": name.upper(), "version": __version__, "source": program.source_name,
        "source_c": _c_string(program.source_name), "dtype": program.dtype, "real": real, "ndim": program.ndim,
        "elem_size": program.elem_size, "npy_descr": "<f4" if program.dtype == "f32" else "<f8",
        "axes": axes if program.ndim == 3 else axes + [{"name": "z", "NAME": "Z", "lo": 0, "hi": 0}],
        "axes3": axes3, "fields": fields, "params": params, "facts": facts,
        "src_slots": src_slots, "dst_slots": dst_slots, "src_arrays": [dict(s, cname=s["arg"]) for s in src_slots],
        "dst_arrays": [dict(s, cname=s["arg"]) for s in dst_slots], "rows": row_list, "out_rows": out_rows,
        "lets": lets, "assigns": assigns, "inits": inits, "tile_bytes": TILE_BYTES,
        "rows_per_tile_row": rows_per_tile_row,
        "has_neumann": any(f.boundary == "neumann" for f in program.fields),
        "has_dirichlet": any(f.boundary == "dirichlet" for f in program.fields),
        "ir_lines": [ln for ln in ir.format_program(program).splitlines() if ln.startswith(("let ", "update "))],
        "runtime_dir": str(runtime_dir()), "cflags": DEFAULT_CFLAGS, "libs": " ".join(LIBS),
        "tuned": tuned, "tuned_machine_c": _c_string(tuned.machine) if tuned else "",
    }
    if program.ndim == 2:
        # the header lists only the axes that exist
        ctx_h = dict(ctx, axes=axes)
    else:
        ctx_h = ctx
    env = _env()
    try:
        return {
            f"{name}.h": env.get_template("kernel.h.j2").render(ctx_h),
            f"{name}.c": env.get_template("kernel.c.j2").render(ctx),
            f"{name}_main.c": env.get_template("main.c.j2").render(ctx),
            "Makefile": env.get_template("Makefile.j2").render(ctx),
        }
    except jinja2.UndefinedError as e:
        raise InternalError(f"template variable missing: {e}") from e


class _Renamer:
    """Rewrites params and lets to their C names (loads are named by the printer); the only
    place DSL names become C identifiers."""

    def __init__(self, cname: dict[str, str]):
        self.cname = cname

    def __call__(self, e: ir.Expr) -> ir.Expr:
        if isinstance(e, ir.ParamRef):
            return ir.ParamRef(self.cname[e.name])
        if isinstance(e, ir.TempRef):
            return ir.TempRef(self.cname[e.name])
        if isinstance(e, ir.Neg):
            return ir.Neg(self(e.operand))
        if isinstance(e, ir.BinOp):
            return ir.BinOp(e.op, self(e.lhs), self(e.rhs))
        if isinstance(e, ir.Call):
            return ir.Call(e.func, tuple(self(a) for a in e.args))
        return e
