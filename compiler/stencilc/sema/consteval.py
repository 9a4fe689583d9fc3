"""Compile-time evaluation, shared by sema and ``lower``.

Expects: AST expressions (``ast.Expr``); an environment mapping sum indices to integers.
Guarantees: ``eval_int`` and ``eval_const`` return a value or raise ``NotConstant`` with a
message and the ``Loc`` of the offending part (never another exception for an AST
expression); ``eval_const``'s value, and every value on the way to it, is finite.
``exponent_of`` and ``series_offset`` return None for what they do not accept
(``exponent_at_run_time`` tells a run-time exponent of ``^`` from a compile-time one);
``sum_envs`` lists the assignments of sum indices, the outermost index slowest.
"""

from __future__ import annotations

import itertools
import math

from .. import ast
from ..diagnostics import Loc
from .model import TIME


class NotConstant(Exception):
    def __init__(self, message: str, loc: Loc):
        super().__init__(message)
        self.message = message
        self.loc = loc


def eval_int(e: ast.Expr, env: dict[str, int]) -> int:
    """Evaluate an offset or table index: integer literals and sum indices with + - *."""
    if isinstance(e, ast.Num):
        if not e.is_int:
            raise NotConstant(f"'{e.text}' is not an integer", e.loc)
        return int(e.text)
    if isinstance(e, ast.Name):
        if e.id in env:
            return env[e.id]
        raise NotConstant(f"'{e.id}' is not known at compile time", e.loc)
    if isinstance(e, ast.Unary) and e.op in ("-", "+"):
        v = eval_int(e.operand, env)
        return -v if e.op == "-" else v
    if isinstance(e, ast.Binary) and e.op in ("+", "-", "*"):
        a, b = eval_int(e.lhs, env), eval_int(e.rhs, env)
        return a + b if e.op == "+" else a - b if e.op == "-" else a * b
    loc = e.loc
    raise NotConstant("this expression is not an integer known at compile time", loc)


NOT_FINITE = "is not a finite number (the largest is about 1.8e308)"


def eval_const(e: ast.Expr) -> float:
    """Evaluate a param default or table entry: numbers with + - * / and unary minus, each value
    on the way finite (a 400-digit literal, 1e400 or 1e300 * 1e300 is not)."""
    if isinstance(e, ast.Num):
        try:
            v = float(e.value)
        except (OverflowError, ValueError):
            v = math.inf
        if not math.isfinite(v):
            raise NotConstant(NOT_FINITE, e.loc)
        return v
    if isinstance(e, ast.Unary) and e.op in ("-", "+"):
        v = eval_const(e.operand)
        return -v if e.op == "-" else v
    if isinstance(e, ast.Binary) and e.op in ("+", "-", "*", "/"):
        a, b = eval_const(e.lhs), eval_const(e.rhs)
        if e.op == "/":
            if b == 0:
                raise NotConstant("divides by zero", e.loc)
            v = a / b
        else:
            v = a + b if e.op == "+" else a - b if e.op == "-" else a * b
        if not math.isfinite(v):
            raise NotConstant(NOT_FINITE, e.loc)
        return v
    raise NotConstant("must be a constant number (numbers with + - * /)", e.loc)


def exponent_of(e: ast.Expr, env: dict[str, int] | None = None) -> int | None:
    """The exponent of ``^`` when it is known at compile time: integer literals and the sum indices
    of ``env`` combined with + - * (``u^2``, ``u^-1``, ``x^i`` in a sum); None otherwise."""
    try:
        return eval_int(e, env or {})
    except NotConstant:
        return None


def exponent_at_run_time(e: ast.Expr, sum_vars: set[str]) -> bool:
    """Whether the exponent of ``^`` is a value known only at run time: it names something other
    than a sum index (a param, ``t``, a field, a coordinate ...).  One made of numbers and sum
    indices alone is known at compile time, and must then be an integer (``exponent_of``)."""
    if isinstance(e, ast.Name):
        return e.id not in sum_vars
    if isinstance(e, ast.Ref):
        return True
    return any(exponent_at_run_time(c, sum_vars) for c in ast.children(e))


def sum_envs(ranges: list[ast.SumRange]) -> list[dict[str, int]]:
    """Every assignment of the given sum indices (outermost first)."""
    if not ranges:
        return [{}]
    names = [r.var for r in ranges]
    return [dict(zip(names, vals)) for vals in itertools.product(*(range(r.lo, r.hi + 1) for r in ranges))]


def series_offset(e: ast.Expr) -> int | None:
    """k of a series index ``t``, ``t + k`` or ``t - k`` (k an integer literal); None otherwise."""
    if isinstance(e, ast.Name) and e.id == TIME:
        return 0
    if isinstance(e, ast.Binary) and e.op in "+-" and isinstance(e.lhs, ast.Name) and e.lhs.id == TIME \
            and isinstance(e.rhs, ast.Num) and e.rhs.is_int:
        return int(e.rhs.text) * (1 if e.op == "+" else -1)
    return None

