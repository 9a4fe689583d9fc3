"""The abstract syntax tree of a ``.stn`` file, as the front end builds it.

Expects: nothing (plain data).  Guarantees: every node carries the ``Loc`` of the text
it came from, so every later pass can point its diagnostics at the source.  The AST is
purely syntactic: names are not resolved, sums are not unrolled, ``u`` and ``w[i][j]``
are both ``Ref`` nodes until semantic analysis tells fields from tables.

``format_ast`` renders the tree for ``stencilc --emit=ast``; ``unparse`` turns an expression back
into source text.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Union

from .diagnostics import Loc

# ---------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Num:
    """A numeric literal; ``text`` is kept as written (``50.0``, ``1e-3``, ``6``)."""

    text: str
    is_int: bool
    loc: Loc

    @property
    def value(self) -> float | int:
        return int(self.text) if self.is_int else float(self.text)


@dataclass(frozen=True)
class Name:
    """A bare identifier: a param, let, sum index, field, table, ``x y z`` or ``nx ny nz``."""

    id: str
    loc: Loc


@dataclass(frozen=True)
class Ref:
    """``u.prev``, ``u[1,0,0]``, ``u.prev[0,-1,0]``, ``ex'[1,0]`` or ``w[i+2][j+2]``.

    ``subscripts`` holds one tuple per bracket pair: ``u[1,0,0]`` is ``((1,0,0),)`` and
    ``w[i][j]`` is ``((i,), (j,))``.  ``prev`` is 1 for ``.prev``, 2 for ``.prev.prev`` (0: the
    current level), ``new`` for a prime
    (the value an earlier update of the same step computed).
    """

    id: str
    prev: int
    subscripts: tuple[tuple[Expr, ...], ...]
    loc: Loc  # the identifier
    new: bool = False


@dataclass(frozen=True)
class Unary:
    op: str  # "-", "+" or "!"
    operand: Expr
    loc: Loc


@dataclass(frozen=True)
class Binary:
    op: str  # "+", "-", "*", "/", "^"; "<", "<=", ">", ">=", "==", "!="; "&&", "||"
    lhs: Expr
    rhs: Expr
    loc: Loc  # the operator


@dataclass(frozen=True)
class Cond:
    """``cond ? then : other``."""

    cond: Expr
    then: Expr
    other: Expr
    loc: Loc  # the '?'


@dataclass(frozen=True)
class Call:
    func: str
    args: tuple[Expr, ...]
    loc: Loc  # the function name


@dataclass(frozen=True)
class SumRange:
    """``i in -2..2`` (inclusive bounds)."""

    var: str
    lo: int
    hi: int
    loc: Loc  # the index name


@dataclass(frozen=True)
class Sum:
    """``sum(i in a..b, j in c..d) body``; the body is the product term that follows."""

    ranges: tuple[SumRange, ...]
    body: Expr
    loc: Loc  # the keyword


Expr = Union[Num, Name, Ref, Unary, Binary, Cond, Call, Sum]

COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")
LOGIC = ("&&", "||")


def is_condition(e: object) -> bool:
    """``e`` is a condition (true or false), not a number: a comparison, ``&&``, ``||`` or ``!``."""
    return (isinstance(e, Binary) and e.op in COMPARISONS + LOGIC) or (isinstance(e, Unary) and e.op == "!")

# ---------------------------------------------------------------- declarations


@dataclass(frozen=True)
class GridDecl:
    """``grid 3d f64;`` -- ``ndim`` as written (checked by sema), ``dtype`` as written."""

    ndim: int
    ndim_loc: Loc
    dtype: str
    dtype_loc: Loc
    loc: Loc  # the keyword


@dataclass(frozen=True)
class ParamDecl:
    name: str
    value: Expr
    loc: Loc  # the name


@dataclass(frozen=True)
class StateDecl:
    name: str
    levels: int | None  # None when no ``levels`` clause
    levels_loc: Loc | None
    loc: Loc  # the name


@dataclass(frozen=True)
class InputDecl:
    name: str
    loc: Loc  # the name
    along: str | None = None  # ``input c along y;``: a 1d coefficient, one value per index of that axis
    along_loc: Loc | None = None


@dataclass(frozen=True)
class SeriesDecl:
    """``series w;``: a time series given at run time, read as ``w[t]``, ``w[t-1]``..."""

    name: str
    loc: Loc  # the name


@dataclass(frozen=True)
class PointsDecl:
    """``points src;``: grid points given at run time (an (n, dims) integer array, x first);
    ``points rcv real;`` off-grid points (an (n, dims) f64 array, in cells), ``points rcv real spacing h;``
    in physical units (divided by the param ``h``).  ``kind``/``key``/``spacing`` are the words as
    written (sema checks them), None where absent."""

    name: str
    loc: Loc
    kind: str | None = None
    kind_loc: Loc | None = None
    key: str | None = None
    key_loc: Loc | None = None
    spacing: str | None = None
    spacing_loc: Loc | None = None


@dataclass(frozen=True)
class InjectDecl:
    """``inject u at src += EXPR;``: EXPR added to u's new value at each point, after its update."""

    field: str
    points: str
    value: Expr
    loc: Loc  # the field
    points_loc: Loc


@dataclass(frozen=True)
class RecordDecl:
    """``record r = EXPR at rcv;``: EXPR sampled at each point every step."""

    name: str
    value: Expr
    points: str
    loc: Loc  # the name
    points_loc: Loc


@dataclass(frozen=True)
class TableInit:
    """A brace list ``{a, b, ...}``; items are nested ``TableInit``s or expressions."""

    items: tuple[TableInit | Expr, ...]
    loc: Loc  # the opening brace


@dataclass(frozen=True)
class TableDecl:
    name: str
    dims: tuple[int, ...]
    dims_locs: tuple[Loc, ...]
    init: TableInit
    loc: Loc  # the name


@dataclass(frozen=True)
class LetDecl:
    name: str
    value: Expr
    loc: Loc  # the name


@dataclass(frozen=True)
class UpdateDecl:
    """``u' = expr;``"""

    name: str
    value: Expr
    loc: Loc  # the name


@dataclass(frozen=True)
class BoundaryDecl:
    """``boundary neumann;`` (field None), ``boundary u neumann;``, ``boundary periodic x y;``,
    ``boundary u dirichlet z+;``, ``boundary u neumann x y-;``."""

    field: str | None
    field_loc: Loc | None
    kind: str  # as written; sema checks it is dirichlet, neumann or periodic
    kind_loc: Loc
    loc: Loc  # the keyword
    axes: tuple[str, ...] = ()  # the axes or faces named, as written (`x`, `y-`, `z+`); none: all
    axes_locs: tuple[Loc, ...] = ()


@dataclass(frozen=True)
class InitDecl:
    """``init u = expr;``, ``init u.prev = expr;`` (``prev`` 1) or ``init u.prev.prev = expr;`` (2)."""

    name: str
    prev: int
    value: Expr
    loc: Loc  # the name


@dataclass(frozen=True)
class SaveDecl:
    """``save u every 10 [from A] [to B] [stride S];``: the snapshots a run with --save-to takes by default.
    Each key once, in any order; ``every`` required (the builder and sema check)."""

    field: str
    keys: tuple[tuple[str, int], ...]  # (key, value) in source order
    loc: Loc  # the field's name
    key_locs: tuple[Loc, ...]  # each key's word
    value_locs: tuple[Loc, ...]  # each value


Decl = Union[GridDecl, ParamDecl, StateDecl, InputDecl, SeriesDecl, PointsDecl, InjectDecl, RecordDecl, TableDecl,
             LetDecl, UpdateDecl, BoundaryDecl, InitDecl, SaveDecl]


@dataclass(frozen=True)
class Stencil:
    name: str
    decls: tuple[Decl, ...]
    loc: Loc  # the name


def children(e: object) -> tuple:
    """The sub-expressions of an expression: a sum's body, an operator's operands, a call's
    arguments, every subscript of a reference, a conditional's condition and branches."""
    if isinstance(e, Cond):
        return (e.cond, e.then, e.other)
    if isinstance(e, Sum):
        return (e.body,)
    if isinstance(e, Unary):
        return (e.operand,)
    if isinstance(e, Binary):
        return (e.lhs, e.rhs)
    if isinstance(e, Call):
        return tuple(e.args)
    if isinstance(e, Ref):
        return tuple(x for g in e.subscripts for x in g)
    return ()


# ---------------------------------------------------------------- printing


def format_ast(node: object, indent: int = 0) -> str:
    """An indented, one-node-per-line rendering with source locations, for ``--emit=ast``.

    Each line is ``Kind summary <line:col>``; children follow, one level deeper, in source order
    (a ``Binary``'s lhs then rhs, a ``Sum``'s ranges then its body).  A ``Ref`` shows its subscripts
    in its summary (``Ref u.prev[0, -1, 0]``); when they are not all integer literals, their
    expressions follow as children, bracket group by bracket group.  Nodes this function does not
    know are shown field by field.
    """
    lines: list[str] = []
    _fmt(node, indent, lines)
    return "\n".join(lines) + "\n"


# binding strength of each expression form, as in the grammar: higher binds tighter
_PREC = {"?": 1, "||": 2, "&&": 3, "==": 4, "!=": 4, "<": 5, "<=": 5, ">": 5, ">=": 5, "+": 6, "-": 6, "*": 8,
         "/": 8, "^": 10}
_PREC_SUM, _PREC_UNARY, _PREC_PRIMARY = 7, 9, 11


def _prec(e: object) -> int:
    if isinstance(e, Binary):
        return _PREC[e.op]
    if isinstance(e, Cond):
        return _PREC["?"]
    if isinstance(e, Unary):
        return _PREC_UNARY
    if isinstance(e, Sum):
        return _PREC_SUM
    return _PREC_PRIMARY


def unparse(e: object) -> str:
    """``e`` as ``.stn`` source, with only the parentheses the grammar needs (for messages and dumps)."""
    if isinstance(e, Num):
        return e.text
    if isinstance(e, Name):
        return e.id
    if isinstance(e, Ref):
        groups = "".join("[" + ", ".join(unparse(x) for x in g) + "]" for g in e.subscripts)
        return e.id + ("'" if e.new else "") + ".prev" * int(e.prev) + groups
    if isinstance(e, Call):
        return f"{e.func}(" + ", ".join(unparse(a) for a in e.args) + ")"
    if isinstance(e, Unary):
        return e.op + _paren(e.operand, _prec(e.operand) < _PREC_UNARY)
    if isinstance(e, Binary):
        p = _PREC[e.op]
        right_assoc = e.op == "^"
        lhs = _paren(e.lhs, _prec(e.lhs) < p or (right_assoc and _prec(e.lhs) == p))
        rhs = _paren(e.rhs, _prec(e.rhs) < p or (not right_assoc and _prec(e.rhs) == p))
        return f"{lhs} {e.op} {rhs}" if p <= _PREC["+"] else f"{lhs}{e.op}{rhs}"
    if isinstance(e, Cond):  # right associative: a conditional in the condition is parenthesised
        p = _PREC["?"]
        return f"{_paren(e.cond, _prec(e.cond) <= p)} ? {unparse(e.then)} : {_paren(e.other, _prec(e.other) < p)}"
    if isinstance(e, Sum):
        ranges = ", ".join(f"{r.var} in {r.lo}..{r.hi}" for r in e.ranges)
        return f"sum({ranges}) " + _paren(e.body, _prec(e.body) < _PREC_SUM)
    return repr(e)


def _paren(e: object, needed: bool) -> str:
    return f"({unparse(e)})" if needed else unparse(e)


def _is_int_literal(e: object) -> bool:
    if isinstance(e, Unary):
        e = e.operand
    return isinstance(e, Num) and e.is_int


def _at(loc: Loc | None) -> str:
    return f" <{loc.line}:{loc.col}>" if loc is not None else ""


def _fmt(node: object, depth: int, out: list[str]) -> None:
    pad = "  " * depth
    kind = type(node).__name__
    head: str | None = None
    kids: list[object] = []
    if isinstance(node, Num):
        head = f"Num {node.text}"
    elif isinstance(node, Name):
        head = f"Name {node.id}"
    elif isinstance(node, Ref):
        head = "Ref " + unparse(node)
        if not all(_is_int_literal(e) for group in node.subscripts for e in group):
            kids = [e for group in node.subscripts for e in group]
    elif isinstance(node, (Unary, Binary)):
        head = f"{kind} {node.op}"
        kids = [node.operand] if isinstance(node, Unary) else [node.lhs, node.rhs]
    elif isinstance(node, Cond):
        head, kids = "Cond ?:", [node.cond, node.then, node.other]
    elif isinstance(node, Call):
        head, kids = f"Call {node.func}", list(node.args)
    elif isinstance(node, SumRange):
        head = f"SumRange {node.var} in {node.lo}..{node.hi}"
    elif isinstance(node, Sum):
        head, kids = "Sum", [*node.ranges, node.body]
    elif isinstance(node, GridDecl):
        head = f"GridDecl {node.ndim}d {node.dtype}"
    elif isinstance(node, (ParamDecl, LetDecl)):
        head, kids = f"{kind} {node.name}", [node.value]
    elif isinstance(node, StateDecl):
        head = f"StateDecl {node.name}" + (f" levels={node.levels}" if node.levels is not None else "")
    elif isinstance(node, InputDecl):
        head = f"InputDecl {node.name}" + (f" along {node.along}" if node.along else "")
    elif isinstance(node, SeriesDecl):
        head = f"SeriesDecl {node.name}"
    elif isinstance(node, PointsDecl):
        head = f"PointsDecl {node.name}" + (f" {node.kind}" if node.kind else "") + \
            (f" {node.key} {node.spacing}" if node.key else "")
    elif isinstance(node, InjectDecl):
        head, kids = f"InjectDecl {node.field} at {node.points}", [node.value]
    elif isinstance(node, RecordDecl):
        head, kids = f"RecordDecl {node.name} at {node.points}", [node.value]
    elif isinstance(node, TableDecl):
        head, kids = f"TableDecl {node.name}" + "".join(f"[{d}]" for d in node.dims), [node.init]
    elif isinstance(node, TableInit):
        head, kids = f"TableInit ({len(node.items)} items)", list(node.items)
    elif isinstance(node, UpdateDecl):
        head, kids = f"UpdateDecl {node.name}'", [node.value]
    elif isinstance(node, BoundaryDecl):
        head = "BoundaryDecl " + (f"field={node.field} " if node.field is not None else "") + f"kind={node.kind}"
    elif isinstance(node, InitDecl):
        head, kids = f"InitDecl {node.name}" + ".prev" * int(node.prev), [node.value]
    elif isinstance(node, SaveDecl):
        head = f"SaveDecl {node.field}" + "".join(f" {k}={v}" for k, v in node.keys)
    elif isinstance(node, Stencil):
        head, kids = f"Stencil {node.name}", list(node.decls)
    if head is None:
        _fmt_generic(node, depth, out)
        return
    out.append(pad + head + _at(getattr(node, "loc", None)))
    for k in kids:
        _fmt(k, depth + 1, out)


def _fmt_generic(node: object, depth: int, out: list[str], label: str = "") -> None:
    """Field-by-field rendering for values ``_fmt`` has no summary for."""
    pad = "  " * depth + (f"{label}: " if label else "")
    if isinstance(node, tuple):
        out.append(pad + f"({len(node)} items)")
        for item in node:
            _fmt(item, depth + 1, out)
        return
    if not hasattr(node, "__dataclass_fields__"):
        out.append(pad + repr(node))
        return
    scalars = []
    children = []
    for f in fields(node):  # type: ignore[arg-type]
        if f.name == "loc" or f.name.endswith("_loc") or f.name.endswith("_locs"):
            continue
        v = getattr(node, f.name)
        if hasattr(v, "__dataclass_fields__") or (isinstance(v, tuple) and v and not isinstance(v[0], (int, str))):
            children.append((f.name, v))
        else:
            scalars.append(f"{f.name}={list(v) if isinstance(v, tuple) else v!r}")
    out.append(pad + " ".join([type(node).__name__, *scalars]) + _at(getattr(node, "loc", None)))
    for name, v in children:
        _fmt_generic(v, depth + 1, out, name) if isinstance(v, tuple) else _fmt(v, depth + 1, out)
