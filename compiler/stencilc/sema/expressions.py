"""Sema's check of one expression in its context.

Expects: pass 1 done (``decl_of``, ``fields``, ``params``, ``tables``, ``lets``, ``series``,
``points``, ``all_sum_vars``, ``ndim`` are final); for a let, ``defining_let`` set and its
``let_new_reads`` entry made; for an update, ``updating`` set and ``updated`` the updates
before it; for an init, ``init_along`` its field.  Contexts are "update", "let", "init",
"inject" and "record".
Guarantees: ``_expr`` reports every misuse in the expression, in source order: unknown names
(with a suggestion), names of the wrong kind or context (coordinates in injects and records,
fields and lets in inits, ``t`` in inits, lets and offsets in injects and records), arities of
calls, ``^`` exponents (an integer known at compile time, at most ``MAX_POWER``, or a number
known at run time), a condition where a number is needed and the reverse (``_want``: a
statement's value, an operand of arithmetic or of a comparison, an argument, a sum's body and
the branches of ``?:`` are numbers; the operands of ``&&``, ``||``, ``!`` and the condition of
``?:`` are conditions), sums (hidden or repeated indices, empty ranges, more than
``MAX_SUM_TERMS`` terms), offsets and table indices (a compile-time integer for every value
of the sum indices in scope, one offset per dimension, indices in range), series reads
(``w[t+k]``), and literals that are not finite.  It marks every name it reads as ``used``
and every ``f.prev`` read in ``prev_read``; a primed read is checked by ``steps``.
"""

from __future__ import annotations

import math

from .. import ast
from ..ir import FUNCTIONS
from .base import CheckerBase, _loc, _names, _shape
from .consteval import NotConstant, eval_int, exponent_at_run_time, exponent_of, series_offset, sum_envs
from .model import COORDS, EXTENTS, MAX_POWER, MAX_SUM_TERMS, RESERVED, TIME, FieldInfo, TableInfo


class ExpressionChecks(CheckerBase):
    def _expr(self, e: ast.Expr, ctx: str, scope: list[ast.SumRange]) -> None:
        """Check ``e`` in context ``ctx`` ("update" | "let" | "init" | "inject" | "record") with sum
        indices ``scope``; every operand is a number or a condition as its operator needs."""
        if isinstance(e, ast.Num):
            self._finite(e)
            return
        if isinstance(e, ast.Name):
            self._name(e, ctx, scope)
        elif isinstance(e, ast.Ref):
            self._ref(e, ctx, scope)
        elif isinstance(e, ast.Unary):
            self._expr(e.operand, ctx, scope)
            self._want(e.operand, e.op == "!", f"the operand of '{e.op}'")
        elif isinstance(e, ast.Binary):
            self._binary(e, ctx, scope)
        elif isinstance(e, ast.Cond):
            for part, cond, where in ((e.cond, True, "the condition of '?:'"), (e.then, False, "a branch of '?:'"),
                                      (e.other, False, "a branch of '?:'")):
                self._expr(part, ctx, scope)
                self._want(part, cond, where)
        elif isinstance(e, ast.Call):
            arity = FUNCTIONS.get(e.func)
            if arity is None:
                known = ", ".join(sorted(FUNCTIONS))
                self.rep.error(f"unknown function '{e.func}' (known: {known})", e.loc)
            elif arity != len(e.args):
                self.rep.error(f"'{e.func}' takes {arity} argument{'s' if arity > 1 else ''}, not {len(e.args)}", e.loc)
            for a in e.args:
                self._expr(a, ctx, scope)
                self._want(a, False, f"an argument of '{e.func}'")
        elif isinstance(e, ast.Sum):
            self._sum(e, ctx, scope)

    def _value(self, e: ast.Expr, ctx: str, what: str) -> None:
        """A statement's expression (``what``: "an update's value", ...): checked, and a number."""
        self._expr(e, ctx, [])
        self._want(e, False, what)

    def _binary(self, e: ast.Binary, ctx: str, scope: list[ast.SumRange]) -> None:
        """Arithmetic and comparisons take numbers, ``&&`` and ``||`` conditions; the exponent of
        ``^`` is an integer known at compile time or a number known at run time."""
        logic = e.op in ast.LOGIC
        self._expr(e.lhs, ctx, scope)
        self._want(e.lhs, logic, f"the operand of '{e.op}'", e)
        if e.op != "^" or exponent_at_run_time(e.rhs, {r.var for r in scope}):
            self._expr(e.rhs, ctx, scope)
            self._want(e.rhs, logic, f"{'the exponent' if e.op == '^' else 'the operand'} of '{e.op}'", e)
            return
        for env in sum_envs(scope):
            n = exponent_of(e.rhs, env)
            if n is None:
                self.rep.error("the exponent of '^' must be an integer: integer literals and sum indices with + - * "
                               "(use pow(a, b) for a real exponent), or a value known at run time (a param, a field)",
                               _loc(e.rhs))
                return
            if abs(n) > MAX_POWER:
                self.rep.error(f"the exponent of '^' is {n}: '^' multiplies its operand out, and does so up to "
                               f"{MAX_POWER} times (use pow(a, b) otherwise)", _loc(e.rhs))
                return

    def _want(self, e: ast.Expr, condition: bool, where: str, parent: ast.Binary | None = None) -> None:
        """``e`` is a condition (a comparison, ``&&``, ``||``, ``!``) where ``condition`` is true, else a
        number; ``where`` says which operand it is (located errors at ``e``)."""
        if ast.is_condition(e) == condition:
            return
        text = ast.unparse(e)
        text = text if len(text) <= 40 else text[:36] + " ..."
        if condition:
            self.rep.error(f"{where} must be a condition (a comparison such as 'u > 0', or &&, ||, ! of conditions); "
                           f"'{text}' is a number", _loc(e))
        elif parent is not None and parent.op in ast.COMPARISONS and e.op in ast.COMPARISONS:
            self.rep.error(f"comparisons do not chain: '{e.op}' gives a condition, and '{parent.op}' compares "
                           f"numbers (write 'a < b && b < c')", e.loc)
        else:
            self.rep.error(f"{where} must be a number; '{text}' is a condition (true or false): choose numbers "
                           f"with 'COND ? a : b'", e.loc)

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
        self._want(e.body, False, "the body of 'sum'")

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
            if ctx in ("inject", "record"):
                self.rep.error(f"'{n}' (a grid coordinate or size) may be used in updates, lets and init "
                               f"expressions, not in {'an inject' if ctx == 'inject' else 'a record'} (yet)", e.loc)
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
                self.rep.error(f"'.prev' applies to state fields of two or three levels; '{n}' is a {what}",
                               e.loc)
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

    def _field_access(self, e, f: FieldInfo, prev: int, offsets, ctx: str, scope) -> None:
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
            (self.prev2_read if prev == 2 else self.prev_read).add(f.name)
            if f.levels == 1:
                self.rep.error(f"'{f.name}' has one time level, so '{f.name}{'.prev' * prev}' does not exist", e.loc,
                               [(f"declare it 'state {f.name} levels {prev + 1};' to keep "
                                 f"{'a previous level' if prev == 1 else 'two previous levels'}", f.decl.loc)])
                return
            if prev == 2 and f.levels == 2:
                self.rep.error(f"'{f.name}' has two time levels, so '{f.name}.prev.prev' does not exist", e.loc,
                               [(f"declare it 'state {f.name} levels 3;' to keep the level before "
                                 f"'{f.name}.prev'", f.decl.loc)])
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
