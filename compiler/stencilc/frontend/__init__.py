"""The front end: ``.stn`` text -> AST.

Expects: a ``SourceFile`` (its text and the name to show in diagnostics).

Guarantees: ``parse`` returns an ``ast.Stencil`` (see ``stencilc.ast``) in which every node carries
its source ``Loc``, or raises ``CompileError``:

* for a syntax error, with exactly one diagnostic -- the first error in the file, lexical or
  syntactic, worded by ``frontend.errors`` -- and nothing printed to the console;
* for what the grammar leaves to the builder (integer literals for ``levels``, table dimensions and
  sum bounds; ``.prev`` as the only suffix), with every such error in the file;
* for a table of more than ``MAX_TABLE_ENTRIES`` entries, found by a scan of the text before the
  parser runs (which would take minutes on a million entries).

``too_deep`` is the located error for a program that the later passes cannot recurse through.

The AST is purely syntactic: names, kinds (``dirichlet``/``neumann``), dimensions (``2d``/``3d``),
element types and arities are checked by ``sema``.  ANTLR is an implementation detail of this
package: nothing outside ``stencilc.frontend`` imports ``antlr4`` or the generated parser.
"""

from __future__ import annotations

import re

from antlr4 import CommonTokenStream, InputStream

from .. import ast
from ..diagnostics import CompileError, Reporter, SourceFile
from .builder import build
from .errors import ErrorStrategy, LexerErrorListener, ParserErrorListener, SyntaxStop
from .generated.StencilLexer import StencilLexer
from .generated.StencilParser import StencilParser

__all__ = ["parse", "too_deep"]


MAX_TABLE_ENTRIES = 100_000  # (ANTLR's Python runtime parses such a table in seconds; 10x that in a minute)


def _table_sizes(source: SourceFile) -> None:
    """Refuse a table of more than MAX_TABLE_ENTRIES entries before the parser spends minutes on it:
    a table is folded into the kernels' code, and coefficients that many belong in an input field."""
    code = source.code
    for m in re.finditer(r"\btable\s+([A-Za-z_]\w*)[^{;]*?=\s*\{", code):
        depth, entries = 0, 1
        for b in re.finditer(r"[{},;]", code[m.end() - 1:]):
            c = b.group()
            depth += {"{": 1, "}": -1}.get(c, 0)
            entries += c == ","
            if depth == 0 or c == ";":
                break
        if entries > MAX_TABLE_ENTRIES:
            rep = Reporter(source)
            rep.error(f"table '{m.group(1)}' has about {entries} entries; the limit is {MAX_TABLE_ENTRIES} (a table is "
                      f"folded into the kernels' code: give coefficients this many as an input field, "
                      f"'input {m.group(1)};' and --init {m.group(1)}=FILE.npy)", source.loc_at(m.start(), len("table")))
            rep.check()


def too_deep(source: SourceFile) -> CompileError:
    """The error for a program whose expressions nest deeper than the passes recurse (the CLI runs
    them with a large stack: about 10000 levels, or a flat sum of as many terms), located at the
    statement with the most tokens, where such an expression lives."""
    code = source.code
    best, start = (0, 0), 0
    for m in re.finditer(r"[;{}]", code):
        stmt = code[start:m.start()]
        tokens = len(re.findall(r"[A-Za-z_0-9.]+|[-+*/^()\[\],']", stmt))
        if tokens > best[0]:
            best = (tokens, start + len(stmt) - len(stmt.lstrip()))
        start = m.end()
    rep = Reporter(source)
    rep.error("this statement nests too deeply for the compiler (an expression of more than about 10000 levels, or "
              "a sum of as many terms): split it with lets", source.loc_at(best[1]))
    return CompileError(rep.errors)


def parse(source: SourceFile) -> ast.Stencil:
    """Parse one ``.stn`` file into its AST; raise ``CompileError`` if it is not well formed."""
    text = source.text
    if text.startswith("\ufeff"):  # a byte-order mark: blank it out, keeping the columns of line 1
        text = " " + text[1:]
    _table_sizes(source)
    lexer = StencilLexer(InputStream(text))
    lexer.removeErrorListeners()
    lexer_errors = LexerErrorListener(source)
    lexer.addErrorListener(lexer_errors)
    tokens = CommonTokenStream(lexer)
    tokens.fill()  # lex the whole file first, so a lexer error is known before parsing starts

    parser = StencilParser(tokens)
    parser.removeErrorListeners()
    strategy = ErrorStrategy()
    parser._errHandler = strategy
    parser.addErrorListener(ParserErrorListener(source, strategy))

    try:
        tree = parser.program()
    except SyntaxStop as stop:
        # A parse error before the first bad character is genuine; one after it may be an artefact
        # of the character the lexer skipped, so the lexer error wins from there on.
        first = lexer_errors.first
        if first is not None and first.index <= stop.index:
            stop = first
        raise CompileError([stop.diagnostic]) from None
    if lexer_errors.first is not None:
        raise CompileError([lexer_errors.first.diagnostic])
    return build(tree, Reporter(source))
