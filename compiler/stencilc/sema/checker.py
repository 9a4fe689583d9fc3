"""The semantic checker: the concerns of sema composed, and the passes run in order.

Expects: an ``ast.Stencil`` from the front end and its ``SourceFile``.
Guarantees: ``check`` returns a ``Checked`` stencil or raises ``CompileError`` with every
error found (the package's docstring lists the rules).  The passes: every sum index is
collected, then the grid and the declarations (pass 1; errors stop here, so that names are
sound before expressions are checked); then every statement in source order -- lets,
updates, inits, injects, records, boundaries, saves -- and the defaults of the boundaries; then what
spans the whole step; errors stop here; the warnings come last.
"""

from __future__ import annotations

from .. import ast
from ..diagnostics import SourceFile
from .boundaries import BoundaryChecks
from .declarations import DeclarationChecks
from .expressions import ExpressionChecks
from .model import Checked
from .points import PointChecks
from .saves import SaveChecks
from .steps import StepChecks


class _Checker(DeclarationChecks, ExpressionChecks, StepChecks, PointChecks, BoundaryChecks, SaveChecks):
    def run(self) -> Checked:
        """Every pass, in order; the ``Checked`` stencil, or ``CompileError`` with every error found."""
        decls = self.tree.decls
        self._collect_sum_vars(decls)
        self._grid(decls)
        self._declarations(decls)
        self.rep.check()  # names must be sound before expressions are checked
        self._statements(decls)
        self._completeness()
        self.rep.check()
        self._warnings()
        return Checked(
            source=self.source, tree=self.tree, name=self.tree.name, ndim=self.ndim, dtype=self.dtype,
            params=self.params, fields=self.fields, tables=self.tables, lets=self.let_order,
            warnings=self.rep.warnings, series=list(self.series), points=list(self.points), offgrid=self.offgrid,
            injects=self.injects,
            records=self.records, saves=self.saves,
        )

    def _statements(self, decls) -> None:
        """Pass 2: every statement, in source order (updates read the new values of those before)."""
        for d in decls:
            if isinstance(d, ast.LetDecl):
                self._let_definition(d)
            elif isinstance(d, ast.UpdateDecl):
                self._update(d)
            elif isinstance(d, ast.InitDecl):
                self._init(d)
            elif isinstance(d, ast.PointsDecl):
                self._points_decl(d)
            elif isinstance(d, ast.InjectDecl):
                self._inject(d)
            elif isinstance(d, ast.RecordDecl):
                self._record(d)
            elif isinstance(d, ast.BoundaryDecl):
                self._boundary(d)
            elif isinstance(d, ast.SaveDecl):
                self._save(d)
        self._default_boundaries()


def check(tree: ast.Stencil, source: SourceFile) -> Checked:
    """Run every semantic check; raise ``CompileError`` with all errors found."""
    return _Checker(tree, source).run()

