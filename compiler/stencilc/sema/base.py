"""The checker's state, shared by every concern of sema, and the helpers they share.

Expects: the tree and its source; the concerns (``declarations``, ``expressions``,
``steps``, ``points``, ``boundaries``) are mixins of ``CheckerBase`` and read and write its
attributes only as their comments here say; ``checker._Checker`` composes them.
Guarantees: one ``Reporter`` collects every diagnostic in the order the passes find them;
the state starts empty (a 3d f64 grid until the grid declaration says otherwise);
``_suggest`` offers the closest declared (or built-in) name for a misspelling, or nothing.
"""

from __future__ import annotations

from .. import ast
from ..diagnostics import Loc, Reporter, SourceFile
from .model import COORDS, EXTENTS, FieldInfo, TableInfo


class CheckerBase:
    """The state of one run of the checker over one tree."""

    def __init__(self, tree: ast.Stencil, source: SourceFile):
        self.tree = tree
        self.rep = Reporter(source)
        self.source = source
        self.ndim = 3
        self.dtype = "f64"
        self.params: dict[str, float] = {}
        self.fields: dict[str, FieldInfo] = {}
        self.tables: dict[str, TableInfo] = {}
        self.lets: dict[str, ast.LetDecl] = {}
        self.let_order: list[ast.LetDecl] = []
        self.series: dict[str, ast.SeriesDecl] = {}
        self.init_along: FieldInfo | None = None  # the field whose init is being checked
        self.periodic_all: set[int] = set()  # the whole-grid periodic axes
        self.whole_grid_boundary: ast.BoundaryDecl | None = None  # boundary KIND; (no field), once
        self.whole_grid_periodic: ast.BoundaryDecl | None = None  # boundary periodic [AXES]; (no field), once
        self.whole_grid_faces: dict[int, str] = {}  # boundary KIND FACES; (no field): each face once
        self.whole_grid_face_locs: dict[int, object] = {}
        self.points: dict[str, ast.PointsDecl] = {}
        self.offgrid: dict[str, str] = {}  # off-grid sets (``points rcv real;``): name -> spacing param or ""
        self.injects: list[ast.InjectDecl] = []
        self.records: list[ast.RecordDecl] = []
        self.saves: list[ast.SaveDecl] = []
        self.decl_of: dict[str, tuple[str, Loc]] = {}  # name -> (kind, loc)
        self.all_sum_vars: set[str] = set()
        self.used: set[str] = set()
        self.prev_read: set[str] = set()
        self.prev2_read: set[str] = set()  # the fields whose ``.prev.prev`` is read
        self.defined_lets: set[str] = set()
        # sub-steps: the fields updated so far (source order), the one being updated, and for
        # each let the new values (``ex'``) it reads, directly or through other lets
        self.updated: list[str] = []
        self.updating: str | None = None
        self.defining_let: str | None = None
        self.let_new_reads: dict[str, dict[str, Loc]] = {}

    def _suggest(self, name: str, kind: str) -> str:
        import difflib

        pool = list(self.fields) if kind == "field" else list(self.decl_of) + list(COORDS) + list(EXTENTS)
        close = difflib.get_close_matches(name, pool, n=1, cutoff=0.6)
        return f"; did you mean '{close[0]}'?" if close else ""


def _shape(dims: tuple[int, ...]) -> str:
    return "".join(f"[{d}]" for d in dims)


def _names(e: ast.Expr):
    if isinstance(e, ast.Name):
        yield e
    elif isinstance(e, ast.Unary):
        yield from _names(e.operand)
    elif isinstance(e, ast.Binary):
        yield from _names(e.lhs)
        yield from _names(e.rhs)


def _loc(e) -> Loc:
    """The best caret position for an expression: its leftmost token."""
    while isinstance(e, (ast.Binary, ast.Cond)):
        e = e.lhs if isinstance(e, ast.Binary) else e.cond
    return e.loc
