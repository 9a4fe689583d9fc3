"""Lowering: checked AST -> IR.

Expects: a ``sema.Checked`` stencil (every check of sema passed).
Raises: ``CompileError`` for the one user error that needs the derived facts (a field read
primed that wraps y or z, in a step reading further than its halo there: ``_wrapped_reach``),
and for a stencil name the C and Fortran it becomes cannot carry (``codegen.cnames``: its
files, functions and module are named after it; ``_stencil_name``).
Guarantees: a validated ``ir.Program`` with its derived facts: sums unrolled into
left-to-right additions of their terms (outer index slowest), table entries replaced by
their values, ``a^n`` with n known at compile time (integer literals, sum indices) expanded
into multiplications (``a^0`` is 1, negative n is ``1/a^|n|``), ``a^e`` with e known at run
time kept as a ``BinOp`` ``^``, ``c ? a : b`` a ``Select`` and ``!c`` a ``Not``, sum indices
used as values replaced by their numbers, bare field names turned into loads at offset zero,
a primed read (``ex'``) into a load of level ``ir.NEW``, a let read at an offset (``f[1,0]``)
replaced by its value with every load and coordinate in it (and every let it reads, likewise)
moved by that offset, and kernel argument slots assigned: in declaration order each field
takes a source slot for its current level, then one for its previous level if it has two;
each state field takes a destination slot.  Lets that no update needs are dropped.
A three-level field ``u`` becomes a two-level field ``u`` and a one-level state field that holds
``u.prev.prev`` (``ir.Field.label``; its IR and C name an identifier no declared name takes), updated
last with ``u.prev`` (so at each step it holds the level before ``u.prev``); every ``u.prev.prev``
read loads its current level, and its init is ``init u.prev.prev``, else ``u.prev``'s, else ``u``'s.
"""

from __future__ import annotations

from . import ast, ir
from .codegen.cnames import stencil_name_problem
from .diagnostics import InternalError, Reporter
from .sema import COORDS, EXTENTS, TIME, Checked, eval_int, exponent_at_run_time, exponent_of, series_offset, sum_envs


def _offset3(subscripts, env: dict[str, int]) -> tuple[int, int, int]:
    """An offset list's values, padded with zeros to (dx, dy, dz)."""
    offs = [eval_int(o, env) for o in subscripts]
    return tuple(offs + [0] * (3 - len(offs)))


class _Lowerer:
    def __init__(self, c: Checked, level2: dict[str, str]):
        self.c = c
        self.level2 = level2  # three-level field -> the IR field that holds its level before .prev
        self.lets: dict[str, ir.Expr] = {}  # the lets lowered so far (sema: no use before definition)

    def load(self, field: str, level: int, offset: tuple[int, int, int]) -> ir.Load:
        """A load; one of an input along an axis keeps its offset on that axis only."""
        info = self.c.fields.get(field)  # (None: the field that holds a level before .prev)
        along = info.along if info is not None else None
        if along is not None:
            offset = tuple(o if d == along else 0 for d, o in enumerate(offset))
        return ir.Load(field, level, offset)

    def shifted(self, e: ir.Expr, by: tuple[int, int, int]) -> ir.Expr:
        """``e`` evaluated ``by`` cells away: its loads moved, the lets it reads inlined and moved."""
        if by == (0, 0, 0):
            return e
        if isinstance(e, ir.Load):
            return self.load(e.field, e.level, tuple(a + b for a, b in zip(e.offset, by)))
        if isinstance(e, ir.TempRef):
            return self.shifted(self.lets[e.name], by)
        if isinstance(e, ir.Coord):  # the coordinate of the cell it is computed at
            return ir.Coord(e.axis, e.offset + by[e.axis])
        if isinstance(e, (ir.Neg, ir.Not, ir.BinOp, ir.Call, ir.Select)):
            return ir.rebuild(e, (self.shifted(k, by) for k in ir.children(e)))
        if isinstance(e, (ir.Const, ir.ParamRef, ir.TimeIndex, ir.SeriesRef, ir.Extent)):  # the same at every cell
            return e
        raise InternalError(f"{e!r} in a let read at an offset")

    def expr(self, e: ast.Expr, env: dict[str, int]) -> ir.Expr:
        c = self.c
        if isinstance(e, ast.Num):
            return ir.Const(float(e.value))
        if isinstance(e, ast.Name):
            n = e.id
            if n in env:
                return ir.Const(float(env[n]))
            if n == TIME:
                return ir.TimeIndex()
            if n in COORDS:
                return ir.Coord(COORDS[n])
            if n in EXTENTS:
                return ir.Extent(EXTENTS[n])
            if n in c.params:
                return ir.ParamRef(n)
            if n in c.fields:
                return self.load(n, 0, (0, 0, 0))
            if any(x.name == n for x in c.lets):
                return ir.TempRef(n)
            raise InternalError(f"unresolved name {n!r} reached lowering")
        if isinstance(e, ast.Ref):
            if e.id in c.series:
                return ir.SeriesRef(e.id, series_offset(e.subscripts[0][0]))
            if e.id in c.fields:
                level = ir.NEW if e.new else int(e.prev)
                if level == 2:  # u.prev.prev: the current level of the field that holds it
                    return self.load(self.level2[e.id], 0, _offset3(e.subscripts[0], env) if e.subscripts else (0,) * 3)
                if not e.subscripts:
                    return self.load(e.id, level, (0, 0, 0))
                along = c.fields[e.id].along
                if along is not None:  # c[k]: k cells along its axis
                    k = eval_int(e.subscripts[0][0], env)
                    return self.load(e.id, level, tuple(k if d == along else 0 for d in range(3)))
                return self.load(e.id, level, _offset3(e.subscripts[0], env))
            if e.id in self.lets:  # a let at an offset
                by = _offset3(e.subscripts[0], env)
                return ir.TempRef(e.id) if by == (0, 0, 0) else self.shifted(self.lets[e.id], by)
            t = c.tables[e.id]
            flat = 0
            for g, size in zip(e.subscripts, t.dims):
                flat = flat * size + eval_int(g[0], env)
            return ir.Const(t.values[flat])
        if isinstance(e, ast.Unary):
            x = self.expr(e.operand, env)
            if e.op == "+":
                return x
            if e.op == "!":
                return ir.Not(x)
            return ir.Const(-x.value) if isinstance(x, ir.Const) else ir.Neg(x)
        if isinstance(e, ast.Binary):
            if e.op == "^" and not exponent_at_run_time(e.rhs, set(env)):
                return self.power(self.expr(e.lhs, env), exponent_of(e.rhs, env))
            return ir.BinOp(e.op, self.expr(e.lhs, env), self.expr(e.rhs, env))
        if isinstance(e, ast.Cond):
            return ir.Select(self.expr(e.cond, env), self.expr(e.then, env), self.expr(e.other, env))
        if isinstance(e, ast.Call):
            return ir.Call(e.func, tuple(self.expr(a, env) for a in e.args))
        if isinstance(e, ast.Sum):
            terms = [self.expr(e.body, {**env, **inner}) for inner in sum_envs(list(e.ranges))]
            acc = terms[0]
            for t in terms[1:]:
                acc = ir.BinOp("+", acc, t)
            return acc
        raise InternalError(f"unknown AST node {e!r}")

    @staticmethod
    def power(base: ir.Expr, n: int | None) -> ir.Expr:
        if n is None:
            raise InternalError("non-integer exponent reached lowering")
        if n == 0:
            return ir.Const(1.0)
        acc = base
        for _ in range(abs(n) - 1):
            acc = ir.BinOp("*", acc, base)
        return ir.BinOp("/", ir.Const(1.0), acc) if n < 0 else acc


def _stencil_name(c: Checked) -> None:
    """The stencil's name names the generated files, C functions, types and macros and the Fortran
    module; one they cannot carry is refused at the name (a located ``CompileError``)."""
    why = stencil_name_problem(c.name)
    if why:
        rep = Reporter(c.source)
        rep.error(f"the stencil's name '{c.name}' {why}; choose another", c.tree.loc)
        rep.check()


def _level2_names(c: Checked) -> dict[str, str]:
    """Each three-level field's IR name for its level before ``.prev``: ``u_prev_prev``, with ``_``
    added until no declared name (field, param, let, table, series, points, record) is it."""
    taken = (set(c.fields) | set(c.params) | {x.name for x in c.lets} | set(c.tables) | set(c.series)
             | set(c.points) | {r.name for r in c.records})
    out: dict[str, str] = {}
    for f in c.fields.values():
        if f.levels == 3:
            name = f"{f.name}_prev_prev"
            while name in taken:
                name += "_"
            taken.add(name)
            out[f.name] = name
    return out


def _level2_field(f, name: str, low: _Lowerer) -> ir.Field:
    """The one-level state field that holds three-level field ``f``'s level before ``.prev``."""
    fld = ir.Field(name, "state", 1, f.boundary, periodic=tuple(sorted(f.periodic)), faces=f.face_kinds,
                   label=f"{f.name}.prev.prev", level2_of=f.name, own_init=f.init_prev2 is not None)
    first = next((d for d in (f.init_prev2, f.init_prev, f.init) if d is not None), None)
    if first is not None:
        fld.init = low.expr(first.value, {})
    return fld


def lower(c: Checked) -> ir.Program:
    _stencil_name(c)
    level2 = _level2_names(c)
    low = _Lowerer(c, level2)
    fields: list[ir.Field] = []
    src = dst = 0
    grid_fields = [f for f in c.fields.values() if f.along is None]  # the along inputs come after the grid slots
    # the declared fields, then the fields that hold the three-level fields' levels before .prev
    for f, holds_level2 in [(f, False) for f in grid_fields] + [(f, True) for f in grid_fields if f.levels == 3]:
        if holds_level2:
            fld = _level2_field(f, level2[f.name], low)
        else:
            fld = ir.Field(f.name, f.kind, min(f.levels, 2), f.boundary if f.kind == "state" else None,
                           periodic=tuple(sorted(f.periodic)), faces=f.face_kinds if f.kind == "state" else ())
            if f.init is not None:
                fld.init = low.expr(f.init.value, {})
            if f.init_prev is not None:
                fld.init_prev = low.expr(f.init_prev.value, {})
        fld.src_slot = src
        src += 1
        if fld.levels == 2:
            fld.prev_slot = src
            src += 1
        if fld.kind == "state":
            fld.dst_slot = dst
            dst += 1
        fields.append(fld)
    for j, f in enumerate(f for f in c.fields.values() if f.along is not None):
        fld = ir.Field(f.name, "input", 1, None, along=f.along, along_slot=j)
        if f.init is not None:
            fld.init = low.expr(f.init.value, {})
        fields.append(fld)
    for x in c.lets:
        low.lets[x.name] = low.expr(x.value, {})
    # in source order: an update may read the new values of those before it
    updates = [ir.Update(d.name, low.expr(d.value, {})) for d in c.tree.decls
               if isinstance(d, ast.UpdateDecl) and c.fields[d.name].update is d]
    updates += [ir.Update(level2[n], ir.Load(n, 1, (0, 0, 0))) for n in level2]
    lets = ir.needed_lets([ir.Let(x.name, low.lets[x.name]) for x in c.lets], updates)
    program = ir.Program(
        name=c.name, source_name=c.source.name, ndim=c.ndim, dtype=c.dtype,
        params=[ir.Param(n, v) for n, v in c.params.items()], fields=fields, lets=lets, updates=updates,
        series=list(c.series), points=list(c.points), offgrid=dict(c.offgrid),
        injects=[ir.Inject(d.field, d.points, low.expr(d.value, {})) for d in c.injects],
        records=[ir.Record(d.name, d.points, low.expr(d.value, {})) for d in c.records],
        saves=[_save(d) for d in c.saves], source_text=c.source.text,
    )
    program.facts = program.derive_facts()
    program.validate()
    _wrapped_reach(c, program)
    return program


def _wrapped_reach(c: Checked, program: ir.Program) -> None:
    """The one user error that needs the derived facts: a field read primed that wraps y or z
    has its new value computed on the boundary layer by each tile's scratch, from the cells a
    step reads there; a step that reads further than the layer is wide (a chain of sub-steps
    whose reach exceeds its halo) would read past the grid.  Raises ``CompileError``."""
    f = program.facts
    rep = Reporter(c.source)
    need = program.new_extents()
    for name in (u.field for u in program.updates if u.field in need):
        info = c.fields[name]
        for a in sorted(info.periodic - {0}):
            if f.reach_lo[a] > f.halo_lo[a] or f.reach_hi[a] > f.halo_hi[a]:
                below = f.reach_lo[a] > f.halo_lo[a]
                rep.error(f"'{name}' is periodic along {'xyz'[a]} and read with a prime, and a step reads "
                          f"{f.reach_lo[a] if below else f.reach_hi[a]} cells {'below' if below else 'above'} a cell "
                          f"along {'xyz'[a]}, past its boundary layer of {f.halo_lo[a] if below else f.halo_hi[a]}: "
                          f"sub-steps reaching past their halo can wrap x only (yet)",
                          (info.periodic_decl or info.update).loc)
                rep.check()
    rep.check()


def _save(d: ast.SaveDecl) -> ir.Save:
    """A checked ``save`` statement as the IR's (sema: each key once, every given)."""
    keys = dict(d.keys)
    return ir.Save(d.field, keys["every"], keys.get("from", 0), keys.get("to"), keys.get("stride", 1))
