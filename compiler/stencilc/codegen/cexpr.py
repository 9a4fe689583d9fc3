"""A small precedence-aware printer from IR expressions to C.

Expects: validated IR expressions whose params and lets already carry C names (the
generator renames them), and a callback that names each ``Load`` (the generator decides
how rows are addressed).  Guarantees: the printed C evaluates exactly
the IR's tree, in the grid's element type: parentheses appear wherever C's grammar would
otherwise regroup the operands (floating-point addition is not associative, so a right
operand of equal precedence is always parenthesised), literals carry the element type
(``6.0`` or ``6.0f``), and math functions are the element type's (``exp``/``expf``).
"""

from __future__ import annotations

import math
from typing import Callable

from .. import ir
from ..diagnostics import InternalError

_PREC = {"+": 4, "-": 4, "*": 5, "/": 5}
_UNARY = 6
_PRIMARY = 7


def c_literal(value: float, dtype: str) -> str:
    if math.isnan(value):
        return "NAN"
    if math.isinf(value):
        return "INFINITY" if value > 0 else "-INFINITY"
    text = repr(float(value))
    if "e" not in text and "." not in text:
        text += ".0"
    return text + ("f" if dtype == "f32" else "")


class CPrinter:
    def __init__(self, dtype: str, load_name: Callable[[ir.Load], str], coord_name: Callable[[int], str] | None = None,
                 prefix: str = ""):
        self.dtype = dtype
        self.load_name = load_name
        self.coord_name = coord_name or (lambda axis: "xyz"[axis])
        self.prefix = prefix  # for the generated min/max helpers

    def func(self, name: str) -> str:
        f32 = self.dtype == "f32"
        if name == "abs":
            return "fabsf" if f32 else "fabs"
        if name in ("min", "max"):
            return f"{self.prefix}{name}"
        return name + ("f" if f32 else "")

    def print(self, e: ir.Expr) -> str:
        return self._p(e)[0]

    def _p(self, e: ir.Expr) -> tuple[str, int]:
        """Return (text, precedence of its top operator)."""
        if isinstance(e, ir.Const):
            text = c_literal(e.value, self.dtype)
            return (text, _UNARY) if text.startswith("-") else (text, _PRIMARY)
        if isinstance(e, (ir.ParamRef, ir.TempRef)):  # already C names: build_layout renamed them
            return e.name, _PRIMARY
        if isinstance(e, ir.Load):
            return self.load_name(e), _PRIMARY
        if isinstance(e, ir.Coord):
            return self.coord_name(e.axis), _PRIMARY
        if isinstance(e, ir.Extent):
            return "n" + "xyz"[e.axis], _PRIMARY
        if isinstance(e, ir.Neg):
            text, prec = self._p(e.operand)
            if prec < _PRIMARY:  # also keeps "- -x" from becoming "--x"
                text = f"({text})"
            return "-" + text, _UNARY
        if isinstance(e, ir.Call):
            return f"{self.func(e.func)}({', '.join(self.print(a) for a in e.args)})", _PRIMARY
        if isinstance(e, ir.BinOp):
            prec = _PREC[e.op]
            lt, lp = self._p(e.lhs)
            rt, rp = self._p(e.rhs)
            if lp < prec:
                lt = f"({lt})"
            if rp <= prec:  # equal precedence on the right regroups in C: keep the IR's tree
                rt = f"({rt})"
            return f"{lt} {e.op} {rt}", prec
        raise InternalError(f"cannot print IR node {e!r}")
