"""The lifter of ``stencilc import``: the stencil of a C time loop, as a ``.stn`` file.

Expects a ``cfront.Unit``.  Finds the loop nests marked ``#pragma stencilc`` (or, with
``--function``, every perfect 1d, 2d or 3d stencil nest of that function inside a loop), and the time loop
around them; checks that each nest writes one array from constant-offset reads of arrays of the
same shape; works out the levels (a nest that reads an array an earlier nest of the same step
wrote reads its new value, a sub-step; pointers rotated at the end of the step are the levels
of one field); and guarantees either the text of a ``.stn`` file whose program computes what
the loop computes, in the same operation order, or a ``CompileError`` whose diagnostics point
into the C file.  docs/import.md is the contract.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..diagnostics import CompileError, Diagnostic, Loc, SourceFile
from ..ir import FUNCTIONS
from . import cfront as C

# the C math functions a stencil may call -> the .stn function (each .stn function that is C's, under its own name;
# fabs is .stn's abs; fmin and fmax are C's, which a NaN argument does not reach, not .stn's min and max)
MATH = {f: f for f in FUNCTIONS if f not in ("abs", "min", "max")} | {"fabs": "abs"}
COMPARE = ("<", "<=", ">", ">=", "==", "!=")
RESERVED = {"x", "y", "z", "t", "nx", "ny", "nz", "sqrt", "exp", "log", "sin", "cos", "tanh", "abs", "min", "max",
            "pow", "stencil", "grid", "state", "input", "param", "let", "init", "boundary", "levels", "series",
            "points", "inject", "record", "at", "along", "table", "sum", "in", "prev", "dirichlet", "neumann",
            "periodic", "f32", "f64"} | set(FUNCTIONS)  # (every function name of the language)
AXES = "xyz"


class _Fail(Exception):
    def __init__(self, loc: Loc, msg: str, notes: list[tuple[str, Loc]] | None = None):
        self.loc, self.msg, self.notes = loc, msg, notes or []


@dataclass
class Nest:
    loop: C.For  # the outermost loop
    vars: list[str]  # outermost first; the last is x
    lo: list[int]  # the interior's lower bound per loop (outermost first)
    hi: list[int]  # cells left above it, per loop
    hi_ext: list[C.Node]  # the extent the upper bound subtracts from
    target: str
    target_loc: Loc
    rhs: C.Node
    reads: list[tuple[str, tuple[int, ...], Loc]] = field(default_factory=list)


@dataclass
class Lifted:
    """What --rewrite needs: the time loop, the nests, each field (named after the array holding its
    current level at the start of a step) with its previous level's array, if any, and the inputs."""

    time_loop: C.For
    nests: list[Nest]
    dims: int
    fields: list[tuple[str, str | None]]  # (field, the array of its previous level); the field's array is its name
    inputs: list[str]
    params: list[str]  # the C constants that became params
    flat: set[str]  # arrays indexed by one flat subscript


class Lifter:
    def __init__(self, unit: C.Unit, function: str | None, name: str):
        self.u, self.function, self.name = unit, function, name
        self.src = SourceFile(unit.path, unit.text)
        self.params: dict[str, float] = {}
        self.elem: str | None = None
        self.flat: set[str] = set()  # arrays indexed by one flat subscript
        self.orphans: list[C.For] = []  # (--function) nests outside any loop

    def fail(self, loc: Loc, msg: str, notes=None):
        raise _Fail(loc, msg, notes)

    # ------------------------------------------------------------------ finding the nests

    def run(self) -> str:
        try:
            return self._run()
        except _Fail as f:
            raise CompileError([Diagnostic("error", f.msg, self.src, f.loc,
                                           [Diagnostic("note", m, self.src, lc) for m, lc in f.notes])]) from None

    def _functions(self) -> list[C.Function]:
        if self.function:
            f = self.u.functions.get(self.function)
            if f is None:
                have = ", ".join(sorted(self.u.functions)) or "none"
                self.fail(Loc(1, 1), f"no function '{self.function}' is defined here (functions: {have})")
            return [f]
        return list(self.u.functions.values())

    def _run(self) -> str:
        if self.u.errors:
            loc, msg = self.u.errors[0]
            self.fail(loc if loc.line else Loc(1, 1), f"clang cannot compile this file: {msg}")
        found: list[tuple[C.For, list[C.Node]]] = []  # (time loop, the nests in it)
        where: dict[int, C.Function] = {}
        for fn in self._functions():
            loops = self._time_loops(fn.body, None)
            for tl in loops:
                where[id(tl[0])] = fn
            found += loops
        if not found and self.orphans:
            self.fail(self.orphans[0].loc, "this stencil loop nest is not inside a time loop (a 'for' around it)")
        if not found:
            where = f"function '{self.function}'" if self.function else "this file"
            how = "" if self.function else "; mark each loop nest with '#pragma stencilc', or name the function " \
                                            "with --function"
            self.fail(Loc(1, 1), f"no stencil loop nest found in {where}{how}")
        if len(found) > 1:
            self.fail(found[1][0].loc, "a second time loop with stencil nests: import one at a time (--function)",
                      [("the first one", found[0][0].loc)])
        time_loop, nests = found[0]
        self.arrays = where[id(time_loop)].arrays
        return self._lift(time_loop, [self._nest(n) for n in nests])

    def _marked(self, loop: C.For) -> bool:
        """'#pragma stencilc' on one of the two lines before the loop."""
        return any(0 < loop.loc.line - p <= 2 for p in self.u.pragmas)

    @staticmethod
    def _chain(s: C.Node) -> tuple[list[C.For], C.Node]:
        """The loops of a perfect nest from s (each holding the next alone), and what the innermost holds."""
        loops: list[C.For] = []
        while isinstance(s, C.For) and len(s.body) == 1:
            loops.append(s)
            s = s.body[0]
        return loops, s

    def _nest_loops(self, s: C.Node) -> int:
        """How many of the innermost loops of the perfect nest s are a stencil nest: those whose indices
        the assignment's subscripts use (every one of them), one loop per subscript, or 2 or 3 loops in one
        flat subscript; 0 when s is no such nest.  A loop around them whose index the subscripts do not use
        is a time loop."""
        loops, cur = self._chain(s)
        if not loops or not isinstance(cur, C.Assign):
            return 0
        subs, e = [], cur.lhs
        while isinstance(e, C.Index):
            subs.append(e.index)
            e = e.base
        if not subs or not isinstance(e, C.Name):
            return 0
        used = set().union(*(_names(x) for x in subs))
        vars_ = [f.var for f in loops]
        first = next((i for i, v in enumerate(vars_) if v in used), len(vars_))
        k = len(vars_) - first
        if k not in (1, 2, 3) or not set(vars_[first:]) <= used:
            return 0
        return k if len(subs) == k or len(subs) == 1 and k > 1 else 0

    def _time_loops(self, body: list[C.Node], parent: C.For | None) -> list[tuple[C.For, list[C.Node]]]:
        """The time loops under `body` with their nests: the marked nests, or (--function, no pragma in the
        file) every stencil nest; a perfect nest one loop deeper than its stencil nest is a time loop
        around it (PolyBench's seidel-2d writes its three loops so)."""
        out = []
        here = []
        for s in body:
            if not isinstance(s, C.For) or not (self._marked(s) if self.u.pragmas else self.function is not None):
                continue
            k, depth = self._nest_loops(s), len(self._chain(s)[0])
            if k and depth == k + 1:
                out.append((s, [s.body[0]]))
            elif self.u.pragmas or k and depth == k:
                here.append(s)
        if here:
            if parent is None and self.u.pragmas:
                self.fail(here[0].loc, "this stencil loop nest is not inside a time loop (a 'for' around it)")
            if parent is None:  # --function: a nest outside any loop is refused only if no time loop is found
                self.orphans.append(here[0])
            else:
                out.append((parent, here))
        for s in body:
            if isinstance(s, C.For) and all(s is not h for h in here) and all(s is not tl for tl, _ in out):
                out += self._time_loops(s.body, s)
            elif isinstance(s, C.Block):
                out += self._time_loops(s.body, parent)
        return out

    def _not_a_nest(self, s: C.For) -> str:
        """Why a loop in a time step is not one of its stencil nests."""
        loops, cur = self._chain(s)
        if self.u.pragmas and self._nest_loops(s) == len(loops):
            return "this loop nest in the time step is not marked '#pragma stencilc': mark every nest of the step"
        what = "a perfect nest of one loop per subscript around one assignment W[i][j] = EXPR"
        if isinstance(cur, C.Assign) and C.c_text(cur.lhs):
            why = f"it writes '{C.c_text(cur.lhs, show=True)}', not the element of its own loop indices ({what})"
        else:
            why = f"it is not {what}"
        return (f"a loop in the time step that is not a stencil nest: {why}; stencilc import lifts a step made of "
                "stencil nests alone (then pointer rotations)")

    # ------------------------------------------------------------------ one nest

    def _nest(self, loop: C.For) -> Nest:
        vars_, lo, hi, ext = [], [], [], []
        cur: C.Node = loop
        while isinstance(cur, C.For):
            if cur.var is None or cur.lo is None or cur.cond is None or cur.step != "++":
                self.fail(cur.loc, "a loop of a stencil nest must read 'for (v = LO; v < HI; v++)'")
            below, above, extent = self._bounds(cur)
            vars_.append(cur.var)
            lo.append(below)
            hi.append(above)
            ext.append(extent)
            if len(cur.body) != 1:
                what = "several statements" if cur.body else "no statement"
                self.fail(cur.loc, f"this loop nest is not perfect: its loop over '{cur.var}' has {what}; the "
                                   "innermost loop must hold one assignment to an array element")
            cur = cur.body[0]
        if not isinstance(cur, C.Assign):
            self.fail(cur.loc, f"the innermost loop of a stencil nest must assign one array element, not a "
                               f"{getattr(cur, 'what', 'statement')}")
        if len(vars_) not in (1, 2, 3):
            self.fail(loop.loc, f"a stencil nest of {len(vars_)} loops: stencilc imports 1d, 2d and 3d nests")
        if cur.op != "=":
            self.fail(cur.loc, f"'{cur.op}' updates the element in place: a stencil writes a new value with '='")
        target, offs = self._access(cur.lhs, vars_, ext)
        if any(offs):
            self.fail(cur.lhs.loc, f"the nest writes '{target}' at an offset; it must write the element of its "
                                   "own loop indices")
        n = Nest(loop, vars_, lo, hi, ext, target, cur.lhs.loc, cur.rhs)
        self._collect_reads(cur.rhs, n)
        self._no_alias(n)
        for name, offs, lc in n.reads:
            if name == target and any(offs):  # (the element itself, at offset 0, is its old value: C reads it first)
                self.fail(lc, f"the nest reads '{name}' at an offset from the element it writes: that value may be "
                              "old or new (a Gauss-Seidel sweep), which a stencil's step cannot express; only the "
                              "written element itself may be read (its old value)",
                          [("written here", n.target_loc)])
        return n

    def _no_alias(self, n: Nest) -> None:
        """Refuses a read array that may be the written one: two pointers (array parameters are pointers
        in C), unless both are restrict; a pointer and an array, unless the pointer is restrict."""
        target, tgt = n.target, self.arrays[n.target]
        for name, _, lc in n.reads:
            a = self.arrays[name]
            if name == target or not (tgt.pointer or a.pointer):
                continue
            if (tgt.restrict or not tgt.pointer) and (a.restrict or not a.pointer):
                continue
            note = [(f"'{target}' is written here", n.target_loc)]
            if tgt.pointer and a.pointer:
                self.fail(lc, f"'{name}' (read) and '{target}' (written) are pointers that may point into the same "
                              "array: the nest would then read values it wrote, which a stencil's step cannot "
                              f"express; if they never overlap, declare both restrict (double (*restrict {name})"
                              f"[...], or as a parameter double {name}[restrict N][...])", note)
            p, other = (target, name) if tgt.pointer else (name, target)
            self.fail(lc, f"'{name}' (read) and '{target}' (written) may be the same array: '{p}' is a pointer that "
                          f"may point into '{other}', and the nest would then read values it wrote, which a "
                          f"stencil's step cannot express; if it never does, declare '{p}' restrict (double "
                          f"(*restrict {p})[...], or as a parameter double {p}[restrict N][...])", note)

    def _bounds(self, f: C.For) -> tuple[int, int, C.Node]:
        lo = f.lo
        if not isinstance(lo, C.Num) or lo.value != int(lo.value):
            self.fail(lo.loc, f"the loop over '{f.var}' must start at an integer constant (the boundary layer)")
        c = f.cond
        if not (isinstance(c, C.Bin) and c.op in ("<", "<=") and isinstance(c.lhs, C.Name) and c.lhs.id == f.var):
            self.fail(c.loc, f"the loop over '{f.var}' must end with '{f.var} < N - H' (the boundary layer)")
        e, sub = c.rhs, 0
        if isinstance(e, C.Bin) and e.op == "-" and isinstance(e.rhs, C.Num):
            e, sub = e.lhs, int(e.rhs.value)
        sub -= 1 if c.op == "<=" else 0
        return int(lo.value), sub, e

    def _access(self, e: C.Node, vars_: list[str], exts: list[C.Node]) -> tuple[str, tuple[int, ...]]:
        """An element a[v0 + c0][v1 + c1]..., or a flat a[(v0 + c0) * ny * nx + ...]: the array and the
        offsets (outermost first)."""
        idx = []
        while isinstance(e, C.Index):
            idx.append(e.index)
            e = e.base
        if not isinstance(e, C.Name):
            self.fail(e.loc, "an array element must be named as a[i][j], a variable subscripted once per axis")
        idx.reverse()
        arr = self.arrays.get(e.id)
        if arr is None:
            self.fail(e.loc, f"'{e.id}' is not an array this file declares")
        if len(idx) == 1 and len(vars_) > 1 and len(arr.dims) == 1:
            self._elem(arr, e.loc)
            self.flat.add(e.id)
            return e.id, self._flat(idx[0], vars_, exts, e.id)
        if len(idx) != len(vars_):
            self.fail(e.loc, f"'{e.id}' has {len(idx)} subscripts in a nest of {len(vars_)} loops")
        self._elem(arr, e.loc)
        offs = []
        for k, (ix, v) in enumerate(zip(idx, vars_)):
            offs.append(self._offset(ix, v, e.id, k))
        return e.id, tuple(offs)

    def _poly(self, n: C.Node, vars_: list[str], arr: str) -> dict[tuple[str, tuple], int]:
        """A subscript as a polynomial: {(loop index or "", symbols): integer coefficient}."""
        def bad(x, why):
            self.fail(x.loc, f"the flat subscript of '{arr}' is not an offset from the element the nest computes: "
                             f"{why}")

        if isinstance(n, C.Index):
            self._indirect(n.loc, arr)
        if isinstance(n, C.Num):
            if n.value != int(n.value):
                bad(n, f"{n.text} is not an integer")
            return {("", ()): int(n.value)}
        if isinstance(n, C.Name):
            return {(n.id, ()): 1} if n.id in vars_ else {("", (n.id,)): 1}
        if isinstance(n, C.Un) and n.op in ("()", "+") or isinstance(n, C.Un) and n.op.startswith("("):
            return self._poly(n.operand, vars_, arr)
        if isinstance(n, C.Un) and n.op == "-":
            return {k: -v for k, v in self._poly(n.operand, vars_, arr).items()}
        if isinstance(n, C.Bin) and n.op in ("+", "-"):
            a, b = self._poly(n.lhs, vars_, arr), self._poly(n.rhs, vars_, arr)
            for k, v in b.items():
                a[k] = a.get(k, 0) + (v if n.op == "+" else -v)
            return {k: v for k, v in a.items() if v}
        if isinstance(n, C.Bin) and n.op == "*":
            a, b = self._poly(n.lhs, vars_, arr), self._poly(n.rhs, vars_, arr)
            out: dict[tuple[str, tuple], int] = {}
            for (va, sa), ca in a.items():
                for (vb, sb), cb in b.items():
                    if va and vb:
                        bad(n, f"it multiplies the loop indices '{va}' and '{vb}'")
                    k = (va or vb, tuple(sorted(sa + sb)))
                    out[k] = out.get(k, 0) + ca * cb
            return {k: v for k, v in out.items() if v}
        bad(n, "only sums and products of the loop indices, integers and variables are understood")
        return {}

    def _flat(self, ix: C.Node, vars_: list[str], exts: list[C.Node], arr: str) -> tuple[int, ...]:
        """The offsets of a flat subscript, whose strides must be the grid's: 1 along x, the x extent
        along y, x times y along z (the extents the loops' bounds subtract from)."""
        def term(e: C.Node) -> tuple[int, tuple]:
            p = self._poly(e, [], arr)
            if len(p) != 1:
                self.fail(e.loc, f"the extent of a loop over a flat array must be a variable or a constant "
                                 f"(for '{arr}')")
            (_, sym), c = next(iter(p.items()))
            return c, sym

        d = len(vars_)
        strides: list[tuple[int, tuple]] = [(1, ())] * d
        for k in range(d - 2, -1, -1):  # loop k's stride: the product of the inner loops' extents
            c, sym = term(exts[k + 1])
            sc, ss = strides[k + 1]
            strides[k] = (c * sc, tuple(sorted(ss + sym)))
        poly = self._poly(ix, vars_, arr)
        offs = [0] * d
        for k, v in enumerate(vars_):
            got = {key: c for key, c in poly.items() if key[0] == v}
            c, sym = strides[k]
            if got != {(v, sym): c}:
                want = " * ".join([str(c)] * (c != 1) + list(sym)) or "1"
                self.fail(ix.loc, f"the flat subscript of '{arr}' does not step by {want} along '{v}', the "
                                  "grid's stride there (its rows and planes must be those the loops run over)")
        const = {key[1]: c for key, c in poly.items() if not key[0]}
        for k in range(d):  # the symbolic strides first, outermost first; then the numbers
            c, sym = strides[k]
            if sym and sym in const:
                q, r = divmod(const.pop(sym), c)
                if r:
                    self.fail(ix.loc, f"the flat subscript of '{arr}' has an offset that is not whole rows")
                offs[k] = q
        rest = const.pop((), 0)
        if const:
            self.fail(ix.loc, f"the flat subscript of '{arr}' adds {', '.join('*'.join(s) for s in const)}, which "
                              "is not a stride of the grid")
        for k in range(d):  # numeric strides (constant extents): the offsets nearest zero
            c, sym = strides[k]
            if sym:
                continue
            if k == d - 1:
                offs[k] += rest
                rest = 0
            else:
                q = (rest + c // 2) // c
                offs[k] += q
                rest -= q * c
        return tuple(offs)

    def _indirect(self, loc: Loc, arr: str) -> None:
        self.fail(loc, f"an indirect index into '{arr}': the subscript reads another array, so the points the "
                       "stencil reads are not constant offsets")

    def _offset(self, ix: C.Node, v: str, arr: str, k: int) -> int:
        def has_index(n):
            return isinstance(n, C.Index) or any(has_index(c) for c in _kids(n))

        if has_index(ix):
            self._indirect(ix.loc, arr)
        if isinstance(ix, C.Un) and ix.op == "()":
            ix = ix.operand
        if isinstance(ix, C.Name) and ix.id == v:
            return 0
        if isinstance(ix, C.Bin) and ix.op in "+-" and isinstance(ix.lhs, C.Name) and ix.lhs.id == v \
                and isinstance(ix.rhs, C.Num) and ix.rhs.value == int(ix.rhs.value):
            return int(ix.rhs.value) * (1 if ix.op == "+" else -1)
        if isinstance(ix, C.Bin) and ix.op == "+" and isinstance(ix.rhs, C.Name) and ix.rhs.id == v \
                and isinstance(ix.lhs, C.Num):
            return int(ix.lhs.value)
        self.fail(ix.loc, f"subscript {k + 1} of '{arr}' is not '{v}' plus a constant: the stencil's points must "
                          "be constant offsets from the element it computes")
        return 0

    def _elem(self, arr: C.Array, loc: Loc) -> None:
        et = {"double": "f64", "float": "f32"}.get(arr.elem)
        if et is None:
            self.fail(loc, f"'{arr.name}' holds '{arr.elem}': stencilc's grids hold double (f64) or float (f32)")
        if self.elem is None:
            self.elem = et
        elif self.elem != et:
            self.fail(loc, f"'{arr.name}' holds '{arr.elem}', another element type than the other arrays")

    def _collect_reads(self, e: C.Node, n: Nest) -> None:
        if isinstance(e, C.Index):
            name, offs = self._access(e, n.vars, n.hi_ext)
            n.reads.append((name, offs, e.loc))
            return
        for c in _kids(e):
            self._collect_reads(c, n)

    # ------------------------------------------------------------------ the step

    def _lift(self, time_loop: C.For, nests: list[Nest]) -> str:
        dims = len(nests[0].vars)
        for n in nests[1:]:
            if len(n.vars) != dims:
                self.fail(n.loop.loc, f"a {len(n.vars)}d nest beside a {dims}d one")
        # the statements of the step after the nests: pointer rotations only
        body = time_loop.body
        last = max(body.index(n.loop) for n in nests)
        env: dict[str, str] = {}
        for s in body[last + 1:]:
            if isinstance(s, C.Decl) and isinstance(s.init, C.Name):
                env[s.name] = env.get(s.init.id, s.init.id)
            elif isinstance(s, C.Assign) and s.op == "=" and isinstance(s.lhs, C.Name) and isinstance(s.rhs, C.Name):
                env[s.lhs.id] = env.get(s.rhs.id, s.rhs.id)
            elif isinstance(s, C.For):
                self.fail(s.loc, self._not_a_nest(s))
            else:
                self.fail(s.loc, "after its nests, a time step may only rotate pointers ('tmp = a; a = b; b = tmp;'):"
                                 " this statement would change what the nests compute")
        for s in body[:last + 1]:
            if all(s is not n.loop for n in nests):
                self.fail(s.loc, self._not_a_nest(s) if isinstance(s, C.For) else
                          "a statement between the stencil nests of a time step: the step must be the nests "
                          "alone (then pointer rotations)")
        arrays = {a for a in env if a in self.arrays}
        new_of = {a: env[a] for a in arrays}  # a holds, in the next step, what new_of[a] holds now
        written = [n.target for n in nests]
        if len(set(written)) != len(written):
            dup = next(w for w in written if written.count(w) > 1)
            self.fail(nests[written.index(dup) + 1 + written[written.index(dup) + 1:].index(dup)].target_loc,
                      f"'{dup}' is written by two nests of one step")
        # each written array is a field's new level: the field is named after the array that holds it in
        # the next step (itself, without a rotation); the array that holds that one's values then is its
        # previous level
        field_of: dict[str, tuple[str, int]] = {}  # C array read -> (field, level: 0 current, 1 previous)
        new_field: dict[str, str] = {}  # C array written -> its field
        fields: list[tuple[str, int]] = []  # (field, levels)
        for n in nests:
            cur = next((a for a, b in new_of.items() if b == n.target), None)
            if cur is None:
                if n.target in new_of:
                    self.fail(n.target_loc, f"'{n.target}' is written, and the pointer rotation after the nests "
                                            "hands its values to no array")
                cur = n.target
            prev = next((a for a, b in new_of.items() if b == cur and a != cur), None)
            levels = 2 if prev is not None and prev != n.target and new_of.get(n.target) == prev else 1
            field_of[cur] = (cur, 0)
            if levels == 2:
                field_of[prev] = (cur, 1)
            new_field[n.target] = cur
            fields.append((cur, levels))
        for f, _ in fields:
            if f in RESERVED or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", f):
                self.fail(time_loop.loc, f"the array '{f}' would be a field named '{f}', which is a word of the "
                                         "language; rename it")
        # the updates, in source order; a read of an array an earlier nest wrote is its new value
        inputs: list[str] = []
        lines = []
        done: dict[str, str] = {}  # arrays written so far this step -> their field
        for n in nests:
            rhs = self._expr(n.rhs, n, field_of, done, inputs, dims)
            lines.append(f"  {new_field[n.target]}' = {rhs};")
            done[n.target] = new_field[n.target]
        # the loop bounds must be the stencil's own boundary layer
        self._check_bounds(nests, dims)
        prev_of = {g: a for a, (g, lv) in field_of.items() if lv == 1}
        self.result = Lifted(time_loop, nests, dims, [(f, prev_of.get(f)) for f, _ in fields], list(inputs),
                             list(self.params), set(self.flat))
        out = [f"// {self.name}.stn: lifted by 'stencilc import' from {Path(self.u.path).name}, "
               f"lines {time_loop.loc.line}-{time_loop.end_line}.",
               "// The initial values of the arrays are the C program's: pass them with --init FIELD=FILE.npy.",
               f"stencil {self.name} {{", f"  grid {dims}d {self.elem};"]
        for p, v in self.params.items():
            out.append(f"  param {p} = {_num(v)};")
        for a in inputs:
            out.append(f"  input {a};")
        for f, lv in fields:
            out.append(f"  state {f}" + (" levels 2;" if lv == 2 else ";"))
        out += lines
        out.append("  boundary dirichlet;")
        out.append("}")
        return "\n".join(out) + "\n"

    def _check_bounds(self, nests: list[Nest], dims: int) -> None:
        for k in range(dims):  # loop k of each nest runs along axis dims-1-k
            lo = max(max(-o[k] for _, o, _ in n.reads) if n.reads else 0 for n in nests)
            hi = max(max(o[k] for _, o, _ in n.reads) if n.reads else 0 for n in nests)
            lo, hi = max(lo, 0), max(hi, 0)
            for n in nests:
                if (n.lo[k], n.hi[k]) != (lo, hi):
                    ax = AXES[dims - 1 - k]
                    self.fail(n.loop.loc if k == 0 else n.loop.loc,
                              f"the loop over '{n.vars[k]}' ({ax}) leaves {n.lo[k]} cell(s) below and {n.hi[k]} above "
                              f"its range, but the stencil reads {lo} below and {hi} above: stencilc's boundary layer "
                              "is the stencil's halo (docs/language.md), so the loop must run from "
                              f"{lo} to N - {hi}")

    # ------------------------------------------------------------------ expressions

    def _expr(self, e: C.Node, n: Nest, field_of, done, inputs, dims) -> str:
        def go(x: C.Node) -> str:
            if isinstance(x, C.Num):
                if not math.isfinite(x.value):
                    self.fail(x.loc, f"'{x.text}' is not a finite number in C ({x.value!r}: it overflows its type); a "
                                     "stencil's coefficients are finite")
                if self.elem == "f32" and x.ctype == "double":
                    self.fail(x.loc, f"'{x.text}' is a double: C computes this expression in double, and an f32 "
                                     f"stencil computes in float; write {x.text}f to compute in float")
                return _literal(x)
            if isinstance(x, C.Un) and x.op == "()":
                return f"({go(x.operand)})"
            if isinstance(x, C.Un) and x.op in ("-", "+"):
                return f"{x.op}{go(x.operand)}"
            if isinstance(x, C.Un) and x.op.startswith("(") and isinstance(x.operand, C.Name) \
                    and x.operand.id in n.vars:
                return go(x.operand)
            if isinstance(x, C.Bin) and x.op in ("+", "-", "*", "/"):
                if x.op == "/" and _is_int(x.lhs) and _is_int(x.rhs):
                    self.fail(x.loc, f"'{C.c_text(x, show=True)}' divides two integers, which C truncates; a stencil "
                                     "divides its numbers exactly: write one of them as a floating literal (2.0)")
                return f"{go(x.lhs)} {x.op} {go(x.rhs)}"
            if isinstance(x, C.Cond):
                return f"{self._cond(x.cond, go)} ? {go(x.then)} : {go(x.other)}"
            if isinstance(x, C.Bin) and x.op in COMPARE + ("&&", "||") or isinstance(x, C.Un) and x.op == "!":
                self.fail(x.loc, f"'{C.c_text(x, show=True)}' is a condition, which C counts as the number 0 or 1; "
                                 "a stencil takes conditions only as the condition of 'c ? a : b' (and under "
                                 "&&, || and !): write COND ? 1.0 : 0.0")
            if isinstance(x, C.Call):
                base = x.fn[:-1] if x.fn.endswith("f") and x.fn[:-1] in MATH else x.fn
                if base not in MATH:
                    self.fail(x.loc, f"a call to '{x.fn}', which stencilc does not know: a stencil may call "
                                     + ", ".join(sorted(MATH)) + " (and their float versions, sqrtf, ...)")
                if (x.fn != base) != (self.elem == "f32"):
                    want = base + "f" if self.elem == "f32" else base
                    self.fail(x.loc, f"'{x.fn}' computes in {'float' if x.fn != base else 'double'}, and this "
                                     f"{self.elem} stencil in {'float' if self.elem == 'f32' else 'double'}: "
                                     f"call {want}")
                return f"{MATH[base]}(" + ", ".join(go(a) for a in x.args) + ")"
            if isinstance(x, C.Name):
                if x.id in n.vars:
                    return AXES[dims - 1 - n.vars.index(x.id)]
                if x.const is not None and self.elem == "f32" and x.ctype == "double":
                    self.fail(x.loc, f"'{x.id}' is a const double: C computes this expression in double, and an "
                                     f"f32 stencil computes in float; declare it float")
                if x.const is not None:
                    if not math.isfinite(x.const):
                        self.fail(x.loc, f"the constant '{x.id}' is {x.const!r} in C, not a finite number; a "
                                         "stencil's coefficients are finite")
                    if x.id in RESERVED:
                        self.fail(x.loc, f"the constant '{x.id}' would be a param named '{x.id}', a word of the "
                                         "language; rename it")
                    self.params[x.id] = x.const
                    return x.id
                self.fail(x.loc, f"'{x.id}' is not a constant: a stencil's coefficients are literals or const "
                                 "variables with constant values (they become params)")
            if isinstance(x, C.Index):
                name, offs = self._access(x, n.vars, n.hi_ext)
                off = ",".join(str(o) for o in reversed(offs))
                ref = f"[{off}]" if any(offs) else ""
                if name in done:  # written by an earlier nest of this step: its new value
                    return f"{done[name]}'{ref}"
                if name in field_of:
                    f, lv = field_of[name]
                    return f + (".prev" if lv else "") + ref
                if name not in inputs:
                    if name in RESERVED:
                        self.fail(x.loc, f"the array '{name}' would be an input named '{name}', a word of the "
                                         "language; rename it")
                    inputs.append(name)
                return name + ref
            self.fail(x.loc, f"a {getattr(x, 'what', type(x).__name__.lower())} in a stencil's expression: stencilc "
                             "imports arithmetic, calls to the math functions, conditionals, array elements, "
                             "constants and the loop indices")
            return ""

        return go(e)

    def _cond(self, x: C.Node, go) -> str:
        """The condition ``x`` (of a ``?:``, or under ``&&``, ``||``, ``!``) as .stn text; ``go`` prints a number."""
        while isinstance(x, C.Un) and x.op == "()" and isinstance(x.operand, C.Un) and x.operand.op == "()":
            x = x.operand
        if isinstance(x, C.Un) and x.op == "()" and _is_condition(x.operand):
            return f"({self._cond(x.operand, go)})"
        if isinstance(x, C.Un) and x.op == "!":
            return f"!{self._cond(x.operand, go)}"
        if isinstance(x, C.Bin) and x.op in ("&&", "||"):
            return f"{self._cond(x.lhs, go)} {x.op} {self._cond(x.rhs, go)}"
        if isinstance(x, C.Bin) and x.op in COMPARE:
            return f"{go(x.lhs)} {x.op} {go(x.rhs)}"
        self.fail(x.loc, f"'{C.c_text(x, show=True)}' is a number where C tests a condition (not zero); a stencil "
                         "tests comparisons: write it as a comparison (!= 0)")
        return ""


# the literals C and .stn read alike: decimal integers without a leading 0 (C reads 010 as octal), decimal
# floats with digits after their point (.stn does not read 1. or 1.e5) or an exponent
_SAME_LITERAL = re.compile(r"(0|[1-9][0-9]*)|[0-9]*\.[0-9]+([eE][-+]?[0-9]+)?|[0-9]+[eE][-+]?[0-9]+")


def _literal(n: C.Num) -> str:
    """The .stn text of a C literal: as written where .stn reads it as C does, else its value (010 is 8, 0x10
    is 16, 1. is 1.0, 0x1p-2 is 0.25)."""
    if _SAME_LITERAL.fullmatch(n.text):
        return n.text
    v = float(n.value)
    return str(int(v)) if v.is_integer() and abs(v) < 2**53 and n.ctype == "int" else repr(v)


def _is_condition(n: C.Node) -> bool:
    """Whether C's ``n`` is a comparison, ``&&``, ``||`` or ``!`` (parentheses looked through)."""
    while isinstance(n, C.Un) and n.op == "()":
        n = n.operand
    return isinstance(n, C.Bin) and n.op in COMPARE + ("&&", "||") or isinstance(n, C.Un) and n.op == "!"


_INT_TYPES = re.compile(r"(unsigned |signed )?(char|short|int|long|long long|long int|long long int|size_t|ptrdiff_t|"
                        r"u?int(8|16|32|64)_t|unsigned)")


def _is_int(n: C.Node) -> bool:
    """Whether C computes ``n`` as an integer: integer literals, loop indices and integer constants, their
    sums, differences and products, an integer cast."""
    if isinstance(n, C.Num):
        return n.ctype == "int"
    if isinstance(n, C.Name):
        return bool(_INT_TYPES.fullmatch(n.ctype or ""))
    if isinstance(n, C.Un):
        if n.op.startswith("(") and n.op != "()":
            return bool(_INT_TYPES.fullmatch(n.op[1:-1].replace("const ", "")))
        return n.op in ("()", "-", "+") and _is_int(n.operand)
    if isinstance(n, C.Bin):
        return n.op in ("+", "-", "*", "/") and _is_int(n.lhs) and _is_int(n.rhs)
    if isinstance(n, C.Cond):
        return _is_int(n.then) and _is_int(n.other)
    return False


def _kids(n: C.Node) -> list[C.Node]:
    if isinstance(n, C.Bin):
        return [n.lhs, n.rhs]
    if isinstance(n, C.Un):
        return [n.operand]
    if isinstance(n, C.Call):
        return list(n.args)
    if isinstance(n, C.Index):
        return [n.base, n.index]
    if isinstance(n, C.Cond):
        return [n.cond, n.then, n.other]
    return []


def _names(n: C.Node) -> set[str]:
    """The variables an expression names."""
    if isinstance(n, C.Name):
        return {n.id}
    return set().union(*(_names(c) for c in _kids(n))) if _kids(n) else set()


def _num(v: float) -> str:
    r = repr(float(v))
    return r


def lift(path: str, data: bytes, function: str | None, name: str, cflags: list[str]) -> tuple[str, Lifted]:
    """The .stn text, and what a rewrite of the C file needs, from the C file's bytes."""
    unit = C.parse(path, data, cflags)
    lf = Lifter(unit, function, name)
    stn = lf.run()
    return stn, lf.result
