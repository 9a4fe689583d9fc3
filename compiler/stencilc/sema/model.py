"""The checked AST and the names the language builds in.

Expects: nothing (plain data; ``checker`` fills it in).
Guarantees: ``Checked`` is what ``sema.check`` returns and ``lower`` reads: the tree plus
every resolved fact (the grid, params' values, fields with their update, inits and
boundaries, folded tables, lets, series, points, injects, records, warnings), each in
declaration or source order as its comment says.  ``RESERVED`` is every name a
declaration may not take.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import ast
from ..diagnostics import Diagnostic, SourceFile
from ..ir import FUNCTIONS

COORDS = {"x": 0, "y": 1, "z": 2}
EXTENTS = {"nx": 0, "ny": 1, "nz": 2}
TIME = "t"  # the index of the step being computed
BOUNDARY_KINDS = ("dirichlet", "neumann", "periodic")
FACES = ("x-", "x+", "y-", "y+", "z-", "z+")  # face 2 * axis + (0 below, 1 above)
RESERVED = set(COORDS) | set(EXTENTS) | set(FUNCTIONS) | {TIME}
MAX_SUM_TERMS = 100_000
MAX_POWER = 64  # '^' multiplies out at most this many times


@dataclass
class FieldInfo:
    name: str
    kind: str  # "state" | "input"
    levels: int
    decl: ast.StateDecl | ast.InputDecl
    boundary: str | None = None
    boundary_decl: ast.BoundaryDecl | None = None
    update: ast.UpdateDecl | None = None
    init: ast.InitDecl | None = None
    init_prev: ast.InitDecl | None = None
    init_prev2: ast.InitDecl | None = None  # ``init u.prev.prev = ...`` (a three-level field)
    along: int | None = None  # ``input c along y;``: the axis of a 1d coefficient (0 x, 1 y, 2 z)
    periodic: set[int] = field(default_factory=set)  # the axes its boundary wraps around
    periodic_decl: ast.BoundaryDecl | None = None
    # per face (0 x-, 1 x+, 2 y-, 3 y+, 4 z-, 5 z+): the kind a ``boundary FIELD KIND FACES;`` gives
    # it, and where; after the defaults (a "mixed" boundary) the kind of every face, None on the
    # faces of periodic axes and of axes the grid lacks
    faces: dict[int, str] = field(default_factory=dict)
    face_locs: dict[int, object] = field(default_factory=dict)
    face_kinds: tuple[str | None, ...] = ()


@dataclass
class TableInfo:
    name: str
    dims: tuple[int, ...]
    values: list[float]  # row-major
    decl: ast.TableDecl


@dataclass
class Checked:
    """The checked AST: the tree plus everything resolved about it."""

    source: SourceFile
    tree: ast.Stencil
    name: str
    ndim: int
    dtype: str
    params: dict[str, float]
    fields: dict[str, FieldInfo]  # declaration order
    tables: dict[str, TableInfo]
    lets: list[ast.LetDecl]  # declaration order
    warnings: list[Diagnostic] = field(default_factory=list)
    series: list[str] = field(default_factory=list)  # declaration order
    points: list[str] = field(default_factory=list)  # declaration order
    offgrid: dict[str, str] = field(default_factory=dict)  # off-grid sets: name -> spacing param ("" in cells)
    injects: list[ast.InjectDecl] = field(default_factory=list)  # source order
    records: list[ast.RecordDecl] = field(default_factory=list)  # source order
    saves: list[ast.SaveDecl] = field(default_factory=list)  # source order: the default snapshots

