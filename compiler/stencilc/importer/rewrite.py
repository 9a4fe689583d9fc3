"""``stencilc import --rewrite OUT.c``: the C file with its time loop replaced by the engine.

Expects the C file's bytes and what the lifter found (``lift.Lifted``).  Guarantees a copy of the
file, byte for byte, except two edits: the generated header ``NAME_api.h`` (and ``stdio.h``,
``stdlib.h``) included at the top, and the time loop (from its ``for`` to its closing brace)
replaced by a block that opens the stencil's simulation (docs/embedding.md) on the grid the
loops cover, writes every field's levels and every input from the C arrays, advances the steps
the loop would have run, reads the fields' levels back into the arrays that hold them after the
loop, and closes it.  The bounds are printed from Clang's tree (a macro's expansion, never the
text of a macro argument); an array's rows and planes are passed with their own strides, which
C gives (sizeof), whatever the extent the loops sweep.  The engine's settings come from the
environment (docs/import.md).  This is what Clang's Rewriter does for one replaced range
(docs/design/016).
"""

from __future__ import annotations

from . import cfront as C
from .lift import Lifted


class RewriteError(Exception):
    """The loop's bounds cannot be turned into a step count or a grid size: the message says which."""


def _text(n: C.Node, what: str) -> str:
    """A bound as C text (Clang's expansion of it, parenthesized as it parsed it)."""
    t = C.c_text(n)
    if t is None:
        raise RewriteError(f"{what} is not an expression --rewrite can print (an assignment, a call with side "
                           "effects, a statement expression)")
    return t


def _steps(loop: C.For) -> str:
    c = loop.cond
    if not (isinstance(c, C.Bin) and c.op in ("<", "<=") and isinstance(c.lhs, C.Name) and c.lhs.id == loop.var
            and loop.lo is not None and loop.step == "++"):
        raise RewriteError("the time loop must read 'for (t = LO; t < HI; t++)' (or '<=') for --rewrite to count "
                           "its steps")
    extra = " + 1" if c.op == "<=" else ""
    return f"({_text(c.rhs, 'the bound of the time loop')}) - ({_text(loop.lo, 'the start of the time loop')}){extra}"


def _strides(arr: str, dims: int) -> str:
    """The strides (elements) of x, y, z of a C array (or pointer to rows) from its own type: its rows may
    be longer than the loops sweep (double a[N][N] swept to n, padded rows)."""
    elem = arr + "[0]" * dims
    row = f"(int64_t)(sizeof({arr}{'[0]' * (dims - 1)}) / sizeof({elem}))"
    plane = f"(int64_t)(sizeof({arr}[0]) / sizeof({elem}))" if dims == 3 else "0"
    return f"{{1, {row}, {plane}}}"


def _loop_vars(lf: Lifted) -> list[str]:
    """The loop variables the replaced loops used but did not declare: still declared, now unused."""
    out: list[str] = []
    loops = [lf.time_loop]
    for n in lf.nests:
        cur: C.Node = n.loop
        while isinstance(cur, C.For):
            loops.append(cur)
            cur = cur.body[0] if len(cur.body) == 1 else None
    for f in loops:
        if f.var and not f.declares and f.var not in out:
            out.append(f.var)
    return out


def rewrite(data: bytes, name: str, lf: Lifted, cnames: dict[str, str]) -> bytes:
    loop = lf.time_loop
    a, b = loop.span
    if not (data[a:b].startswith(b"for") and data[a:b].rstrip().endswith((b"}", b";"))):
        raise RewriteError("the time loop's text is not in this file as a 'for' statement (it comes out of a "
                           "macro): --rewrite replaces the loop's text, which it cannot find")
    steps = _steps(loop)
    nest = lf.nests[0]
    sizes = [""] * lf.dims  # x first; the innermost loop runs along x
    for k in range(lf.dims):
        ext = nest.hi_ext[k]
        sizes[lf.dims - 1 - k] = _text(ext, f"the extent the bound of the loop over '{nest.vars[k]}' subtracts from")
    def sub(arr: str) -> str:  # the first element: a[0][0] (a flat array: a[0])
        return "[0]" * (1 if arr in lf.flat else lf.dims)

    ind = " " * (loop.loc.col - 1)
    i1 = ind + "    "
    lines = [f"{{ /* stencilc import --rewrite: the time loop of lines {loop.loc.line}-{loop.end_line}, run by the "
             f"engine ({name}_api.h, docs/embedding.md) */",
             f"{i1}{name}_config stn_cfg_ = {name}_config_default();"]
    for k, s in enumerate(sizes):
        lines.append(f"{i1}stn_cfg_.size[{k}] = (int64_t)({s});")
    lines += [f"{i1}stn_cfg_.steps = (int64_t)({steps});",
              f"{i1}if (stn_cfg_.steps < 0)",
              f"{i1}    stn_cfg_.steps = 0;",
              f"{i1}stn_cfg_.mode = getenv(\"STENCILC_MODE\");",
              f"{i1}stn_cfg_.mem = getenv(\"STENCILC_MEM\");",
              f"{i1}stn_cfg_.dir = getenv(\"STENCILC_DIR\");",
              f"{i1}stn_cfg_.report = getenv(\"STENCILC_REPORT\");",
              f"{i1}stn_cfg_.quiet = 1;",
              *[f"{i1}stn_cfg_.params.{cnames.get(p, p)} = {p};" for p in lf.params],
              f"{i1}{name}_box stn_box_ = {{{{0, 0, 0}}, {{" + ", ".join(
                  [f"(int64_t)({s})" for s in sizes] + ["1"] * (3 - lf.dims)) + "}};",
              f"{i1}{name}_sim *stn_sim_ = NULL;",
              f"{i1}int stn_rc_ = {name}_open(&stn_cfg_, &stn_sim_);"]
    moves = []  # (field name in the API, C array)
    for field, prev in lf.fields:
        moves.append((field, field))
        if prev:
            moves.append((field + ".prev", prev))
    touched = {a for _, a in moves} | set(lf.inputs)
    for n in lf.nests:  # a buffer the loop wrote into and rotated away: the engine keeps its own
        if n.target not in touched:
            lines.append(f"{i1}(void){n.target};")
    for v in _loop_vars(lf):
        lines.append(f"{i1}(void){v};")
    strides = {}  # C array -> the name of its strides (NULL: dense, a flat or 1d array)
    for arr in dict.fromkeys([x for _, x in moves] + list(lf.inputs)):
        if arr in lf.flat or lf.dims == 1:
            strides[arr] = "NULL"
        else:
            strides[arr] = f"stn_st_{arr}_"
            lines.append(f"{i1}const int64_t stn_st_{arr}_[3] = {_strides(arr, lf.dims)};")
    for field, arr in moves + [(a, a) for a in lf.inputs]:
        lines.append(f"{i1}if (stn_rc_ == 0)")
        lines.append(f"{i1}    stn_rc_ = {name}_write(stn_sim_, \"{field}\", &stn_box_, &{arr}{sub(arr)}, "
                     f"{strides[arr]});")
    lines += [f"{i1}if (stn_rc_ == 0)", f"{i1}    stn_rc_ = {name}_advance(stn_sim_, stn_cfg_.steps);"]
    for field, arr in moves:
        lines.append(f"{i1}if (stn_rc_ == 0)")
        lines.append(f"{i1}    stn_rc_ = {name}_read(stn_sim_, \"{field}\", &stn_box_, &{arr}{sub(arr)}, "
                     f"{strides[arr]});")
    lines += [f"{i1}if (stn_rc_ != 0) {{",
              f"{i1}    fprintf(stderr, \"{name}: %s\\n\", {name}_errmsg());",
              f"{i1}    {name}_close(stn_sim_);",
              f"{i1}    exit(1);",
              f"{i1}}}",
              f"{i1}if ({name}_close(stn_sim_) != 0) {{",
              f"{i1}    fprintf(stderr, \"{name}: %s\\n\", {name}_errmsg());",
              f"{i1}    exit(1);",
              f"{i1}}}",
              f"{ind}}}"]
    block = "\n".join(lines)
    head = (f"/* rewritten by 'stencilc import --rewrite': the time loop of lines {loop.loc.line}-{loop.end_line} runs "
            f"through {name}_api.h */\n#include \"{name}_api.h\"\n#include <stdio.h>\n#include <stdlib.h>\n")
    return head.encode() + data[:a] + block.encode() + data[b:]
