"""Semantic analysis: AST -> checked AST.

Expects: an ``ast.Stencil`` from the front end (syntactically valid, names unresolved).
Guarantees: either a ``CompileError`` with every user mistake found (each pinned to the
source with a caret), or a ``Checked`` stencil in which

* there is exactly one ``grid`` (1d, 2d or 3d, f32 or f64) and at least one state field;
* every name is declared once, is not reserved, and resolves to what its use needs
  (fields are read, tables indexed inside sums, params and lets used as values);
* every state field has exactly one update, no input is updated, ``.prev`` is used only
  on two-level fields, boundaries name state fields and are dirichlet or neumann on their
  faces, periodic along the axes named (all when none);
* a primed read (``ex'``, the new value of this step) names a state field whose update
  comes earlier in the source than the update that reads it, directly or through lets; a
  field read primed that wraps y or z has an update reading only state fields wrapping the
  same axes (and inputs along another axis), and is not injected into;
* every offset and table index is a compile-time integer for every value of the sum
  indices in scope, offsets have one component per grid dimension, table indices are in
  range, tables have the declared shape, ``^`` has an exponent that is an integer known at
  compile time (integer literals and sum indices) or a number known at run time;
* every expression is a number where a number is needed (a statement's value, the operands
  of arithmetic and comparisons, arguments, sum bodies, the branches of ``?:``) and a
  condition where a condition is needed (the operands of ``&&``, ``||``, ``!``, the condition
  of ``?:``); a condition is a comparison or one of those operators;
* lets are defined before use; coordinates ``x y z nx ny nz`` appear in inits, lets and
  updates, not in injects and records; inits read no field and no let;
* the step index ``t`` and series, read as ``w[t+k]`` (k a compile-time integer), appear
  only in updates and lets.

Unrolling, constant folding of tables and the derived facts happen in ``lower``; the
integer evaluation both use is ``eval_int`` here.

The package, by concern (each module states what it expects and guarantees):

* ``model``        the checked AST (``Checked``, ``FieldInfo``, ``TableInfo``) and the built-in names;
* ``consteval``    compile-time evaluation: offsets and indices, constants, exponents, sum ranges;
* ``base``         the checker's state, shared by the concerns below, and their small helpers;
* ``declarations`` pass 1: the grid and every declaration; the warnings about unused names;
* ``expressions``  every expression in its context: names, references, sums, calls, literals;
* ``steps``        lets, updates and inits in source order: the sub-steps' primed reads;
* ``points``       ``inject`` and ``record`` at a set of points;
* ``boundaries``   boundary conditions and periodic axes, and the wrapped fields read primed;
* ``checker``      the checker composed of those, running the passes in order: ``check``.
"""

from __future__ import annotations

from .checker import check
from .consteval import (
    NOT_FINITE,
    NotConstant,
    eval_const,
    eval_int,
    exponent_at_run_time,
    exponent_of,
    series_offset,
    sum_envs,
)
from .model import (
    BOUNDARY_KINDS,
    COORDS,
    EXTENTS,
    MAX_POWER,
    MAX_SUM_TERMS,
    RESERVED,
    TIME,
    Checked,
    FieldInfo,
    TableInfo,
)

__all__ = [
    "BOUNDARY_KINDS", "COORDS", "EXTENTS", "MAX_POWER", "MAX_SUM_TERMS", "NOT_FINITE", "RESERVED", "TIME", "Checked",
    "FieldInfo", "NotConstant", "TableInfo", "check", "eval_const", "eval_int", "exponent_at_run_time",
    "exponent_of", "series_offset",
    "sum_envs",
]
