"""Source files, locations and diagnostics.

Two kinds of failure leave the compiler:

* ``CompileError`` -- the user's ``.stn`` file is wrong.  It carries one or more
  ``Diagnostic``s, each rendered as ``FILE:LINE:COL: error: MESSAGE`` followed by the
  source line and a caret under the offending text (clang style), with optional
  ``note:`` lines.  The CLI prints them and exits with status 1, never a traceback.
* ``InternalError`` -- a bug in stencilc (an IR node that fails validation, a template
  variable that is missing).  The CLI reports it as an internal error with a request to
  file an issue, and exits with status 70.

Every pass raises ``CompileError`` for user mistakes and lets everything else surface
as an internal error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Loc:
    """A position in a source file: 1-based line and column, and the length of the
    text it covers (at least 1, for the caret)."""

    line: int
    col: int
    length: int = 1

    def __str__(self) -> str:
        return f"{self.line}:{self.col}"


NO_LOC = Loc(0, 0, 0)


@dataclass
class SourceFile:
    """The text of one ``.stn`` file and the name to show in diagnostics."""

    name: str
    text: str

    @classmethod
    def read(cls, path: str | Path) -> SourceFile:
        p = Path(path)
        try:
            data = p.read_bytes()
        except FileNotFoundError:
            raise CompileError([Diagnostic("error", f"no such file: '{path}'", None, NO_LOC)]) from None
        except IsADirectoryError:
            raise CompileError([Diagnostic("error", f"'{path}' is a directory, not a .stn file", None, NO_LOC)]) from None
        except PermissionError:
            raise CompileError([Diagnostic("error", f"cannot read '{path}': permission denied", None, NO_LOC)]) from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise CompileError(
                [Diagnostic("error", f"'{path}' is not UTF-8 text (byte {e.start})", None, NO_LOC)]
            ) from None
        return cls(str(path), text)

    @property
    def code(self) -> str:
        """The text with its ``//`` comments blanked out, at the same offsets: for scans of the
        text that run before (or instead of) the parser."""
        return re.sub(r"//[^\r\n]*", lambda m: " " * len(m.group()), self.text)

    def loc_at(self, offset: int, length: int = 1) -> Loc:
        """The line and column of a character offset into the text."""
        return Loc(self.text.count("\n", 0, offset) + 1, offset - (self.text.rfind("\n", 0, offset) + 1) + 1, length)

    def line_text(self, line: int) -> str:
        lines = self.text.splitlines()
        if 1 <= line <= len(lines):
            return lines[line - 1]
        return ""


@dataclass
class Diagnostic:
    severity: str  # "error" | "warning" | "note"
    message: str
    source: SourceFile | None
    loc: Loc
    notes: list[Diagnostic] = field(default_factory=list)

    def render(self) -> str:
        """``FILE:LINE:COL: error: MESSAGE``, the source line, a caret, then the notes."""
        if self.source is None or self.loc.line == 0:
            where = f"{self.source.name}: " if self.source is not None else "stencilc: "
            out = [f"{where}{self.severity}: {self.message}"]
        else:
            out = [f"{self.source.name}:{self.loc.line}:{self.loc.col}: {self.severity}: {self.message}"]
            text = self.source.line_text(self.loc.line).replace("\t", " ")
            out.append(text)
            caret = " " * (self.loc.col - 1) + "^" + "~" * max(0, min(self.loc.length, len(text) - self.loc.col + 1) - 1)
            out.append(caret)
        for n in self.notes:
            out.append(n.render())
        return "\n".join(out)


class Error(Exception):
    """A failure the user can act on (``stencilc.Error``): the base of ``CompileError``,
    ``toolchain.ToolchainError`` and every failure of the Python API (embed.py), so that
    ``except stencilc.Error`` catches them all.  Never a bug: ``InternalError`` is not one."""


class CompileError(Error):
    """The user's input is wrong; carries the diagnostics to print."""

    def __init__(self, diagnostics: list[Diagnostic]):
        super().__init__("\n".join(d.message for d in diagnostics))
        self.diagnostics = diagnostics

    def render(self) -> str:
        return "\n".join(d.render() for d in self.diagnostics)


class InternalError(Exception):
    """A bug in stencilc, never the user's fault."""


class Reporter:
    """Collects diagnostics for one source file.

    Passes call ``error(...)`` for each problem they find and ``check()`` at a point
    where continuing makes no sense; ``check`` raises ``CompileError`` with all errors
    collected so far, so the user sees several independent mistakes in one run.
    """

    def __init__(self, source: SourceFile):
        self.source = source
        self.errors: list[Diagnostic] = []
        self.warnings: list[Diagnostic] = []

    def diag(self, severity: str, message: str, loc: Loc) -> Diagnostic:
        return Diagnostic(severity, message, self.source, loc)

    def error(self, message: str, loc: Loc, notes: list[tuple[str, Loc]] | None = None) -> None:
        d = self.diag("error", message, loc)
        for text, nloc in notes or []:
            d.notes.append(self.diag("note", text, nloc))
        self.errors.append(d)

    def warning(self, message: str, loc: Loc) -> None:
        self.warnings.append(self.diag("warning", message, loc))

    def fail(self, message: str, loc: Loc, notes: list[tuple[str, Loc]] | None = None):
        """Report an error and stop at once."""
        self.error(message, loc, notes)
        self.check()
        raise InternalError("unreachable")  # pragma: no cover

    def check(self) -> None:
        if self.errors:
            errs, self.errors = self.errors, []
            raise CompileError(errs)
