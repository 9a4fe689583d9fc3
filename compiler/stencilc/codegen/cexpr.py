"""A small precedence-aware printer from IR expressions to C.

Expects: validated IR expressions whose params and lets already carry C names (the
generator renames them), and a callback that names each ``Load`` (the generator decides
how rows are addressed).  Guarantees: the printed C evaluates exactly
the IR's tree, in the grid's element type: parentheses appear wherever C's grammar would
otherwise regroup the operands (floating-point addition is not associative, so a right
operand of equal precedence is always parenthesised), literals carry the element type
(``6.0`` or ``6.0f``), and math functions are the element type's (``exp``/``expf``).
Conditions print as C's comparisons, ``&&``, ``||`` and ``!`` (an ``&&`` under an ``||``
parenthesised), ``Select`` as ``c ? a : b``, a power with a run-time exponent as the
generated ``PREFIXpowi(a, e)``; a coordinate and an extent as the callbacks name them (a
kernel's cell index, an init's local).
"""

from __future__ import annotations

import math
from typing import Callable

from .. import ir
from ..diagnostics import InternalError

# C's binding strengths (higher binds tighter)
_PREC = {"||": 3, "&&": 4, "==": 7, "!=": 7, "<": 8, "<=": 8, ">": 8, ">=": 8, "+": 10, "-": 10, "*": 11, "/": 11}
_SELECT = 2
_UNARY = 12
_PRIMARY = 13


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
    def __init__(self, dtype: str, load_name: Callable[[ir.Load], str],
                 coord_name: Callable[[ir.Coord], str] | None = None, prefix: str = "",
                 extent_name: Callable[[int], str] | None = None):
        self.dtype = dtype
        self.load_name = load_name
        self.coord_name = coord_name or (lambda c: "xyz"[c.axis])
        self.extent_name = extent_name or (lambda axis: "n" + "xyz"[axis])
        self.prefix = prefix  # for the generated min/max/powi helpers

    def func(self, name: str) -> str:
        f32 = self.dtype == "f32"
        if name in ("abs", "fabs"):
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
            return self.coord_name(e), _PRIMARY
        if isinstance(e, ir.Extent):
            return self.extent_name(e.axis), _PRIMARY
        if isinstance(e, (ir.Neg, ir.Not)):
            text, prec = self._p(e.operand)
            if prec < _PRIMARY:  # also keeps "- -x" from becoming "--x"
                text = f"({text})"
            return ("-" if isinstance(e, ir.Neg) else "!") + text, _UNARY
        if isinstance(e, ir.Call):
            return f"{self.func(e.func)}({', '.join(self.print(a) for a in e.args)})", _PRIMARY
        if isinstance(e, ir.BinOp) and e.op == ir.POWER:  # an exponent known at run time
            return f"{self.prefix}powi({self.print(e.lhs)}, {self.print(e.rhs)})", _PRIMARY
        if isinstance(e, ir.BinOp):
            prec = _PREC[e.op]
            lt, lp = self._p(e.lhs)
            rt, rp = self._p(e.rhs)
            # (an && below an || is parenthesised too, as C compilers advise)
            if lp < prec or (e.op == "||" and lp == _PREC["&&"]):
                lt = f"({lt})"
            if rp <= prec or (e.op == "||" and rp == _PREC["&&"]):  # equal precedence on the right regroups in C
                rt = f"({rt})"
            return f"{lt} {e.op} {rt}", prec
        if isinstance(e, ir.Select):
            ct, cp = self._p(e.cond)
            tt, tp = self._p(e.then)
            ot, op = self._p(e.other)
            ct = f"({ct})" if cp <= _SELECT else ct
            tt = f"({tt})" if tp <= _SELECT else tt  # (a conditional as the first branch: for the reader)
            ot = f"({ot})" if op < _SELECT else ot
            return f"{ct} ? {tt} : {ot}", _SELECT
        raise InternalError(f"cannot print IR node {e!r}")
