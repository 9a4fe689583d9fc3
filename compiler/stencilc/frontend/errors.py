"""Syntax errors: ANTLR's recognition errors, reworded into clear English diagnostics.

Expects: to be installed on the generated lexer and parser by ``frontend.parse`` (an
``ErrorStrategy`` on the parser, a ``ParserErrorListener`` and a ``LexerErrorListener`` in place of
ANTLR's console listeners).

Guarantees: the parser stops at its FIRST syntax error: the listener raises ``SyntaxStop`` carrying
one ``Diagnostic`` with a caret ``Loc`` (line, 1-based column, length of the offending token), and
nothing is printed to the console.  Lexer errors are only recorded (the lexer skips the bad
character) so that ``frontend.parse`` can report whichever error comes first in the file.

The message shapes (T is the offending token, quoted, or ``end of file``; a caret at "after" sits
just past the previous token, clang style, so a missing ';' is shown on its own line):

* ``expected ';' after the update`` (``the param declaration``, ``the state declaration``, ...) --
  also when a declaration that could go on (``state u`` ``levels``?) meets the next line's token;
* ``expected ')'`` / ``']'`` / ``'}'`` -- a missing closer, with a note ``to match this '('``;
* ``expected X after 'Y'`` -- any other missing token (``expected '=' after 'a'``,
  ``expected a name after 'stencil'``, ``expected 'prev' after '.'``);
* ``unexpected T; expected X`` -- X summarises ANTLR's expected set: ``a declaration``,
  ``an expression``, ``an operator``, ``a name``, ``an integer literal`` (levels, table
  dimensions, sum bounds), ``a dimension ('2d' or '3d')``, ``an element type ('f32' or 'f64')``,
  ``a boundary kind (...)``, quoted tokens, joined with ``,`` and ``or``; inside brackets (and at
  end of file) a note ``to match this '('`` shows where they opened;
* ``unexpected ','; expected a table entry (a number, or '{' for a row) after ','`` -- an empty
  entry in a table (``{1, , 1}``);
* ``'sum' is a keyword and cannot be used as a name``;
* ``unmatched ')'`` / ``unmatched ']'`` -- a closer with no opener before it;
* ``unexpected T after the closing '}' of the stencil`` -- with a note ``the stencil ends here``;
* ``unexpected T; a .stn file starts with 'stencil NAME {'``, ``expected 'stencil' before 'T'; ...``
  and ``the file is empty; ...``;
* ``expected "'" after 'u': write u' = ... to update the field, or let u = ... for a temporary``;
* ``unexpected character '@'`` -- from the lexer; invisible and non-ASCII characters are named
  (``unexpected character U+00A0 (no-break space)``); a lone ``&`` or ``|`` is
  ``unexpected character '&' (the logical operators are '&&' and '||')``.
"""

from __future__ import annotations

import re
import unicodedata

from antlr4.error.ErrorListener import ErrorListener
from antlr4.error.Errors import InputMismatchException, NoViableAltException, RecognitionException
from antlr4.error.ErrorStrategy import DefaultErrorStrategy
from antlr4.IntervalSet import IntervalSet
from antlr4.ParserRuleContext import ParserRuleContext
from antlr4.Token import Token
from antlr4.tree.Tree import TerminalNode

from ..diagnostics import Diagnostic, Loc, SourceFile
from .generated.StencilParser import StencilParser as P

# ---------------------------------------------------------------- token vocabulary

KEYWORDS = frozenset({P.STENCIL, P.GRID, P.PARAM, P.STATE, P.INPUT, P.SERIES, P.POINTS, P.INJECT, P.RECORD, P.AT,
                      P.ALONG, P.LEVELS, P.TABLE, P.LET, P.BOUNDARY, P.INIT, P.SUM, P.IN, P.SAVE})
DECL_START = frozenset({P.GRID, P.PARAM, P.STATE, P.INPUT, P.SERIES, P.POINTS, P.INJECT, P.RECORD, P.TABLE, P.LET,
                        P.BOUNDARY, P.INIT, P.SAVE, P.ID})
EXPR_START = frozenset({P.INT, P.FLOAT, P.ID, P.LPAREN, P.MINUS, P.PLUS, P.SUM, P.NOT})
NUMBERS = frozenset({P.INT, P.FLOAT})
BINOPS = frozenset({P.PLUS, P.MINUS, P.STAR, P.SLASH, P.CARET, P.LT, P.LE, P.GT, P.GE, P.EQ, P.NE, P.AND, P.OR,
                    P.QUESTION})
OPENER_OF = {P.RPAREN: P.LPAREN, P.RBRACK: P.LBRACK, P.RBRACE: P.LBRACE}  # closer -> its opener
_LIST_PUNCT = frozenset({P.COMMA, *OPENER_OF})

_TOKEN_NAMES = {
    Token.EOF: "end of file",
    P.ID: "a name",
    P.INT: "an integer",
    P.FLOAT: "a number",
    P.DIMS: "a dimension ('2d' or '3d')",
}

# what a declaration is called in "expected ';' after the ..."
_DECL_WHAT = {
    P.GridDeclContext: "grid declaration",
    P.ParamDeclContext: "param declaration",
    P.StateDeclContext: "state declaration",
    P.InputDeclContext: "input declaration",
    P.TableDeclContext: "table declaration",
    P.LetDeclContext: "let declaration",
    P.UpdateDeclContext: "update",
    P.BoundaryDeclContext: "boundary declaration",
    P.InitDeclContext: "init declaration",
    P.SaveDeclContext: "save statement",
}

_HEADER = "a .stn file starts with 'stencil NAME {'"


def quote(text: str) -> str:
    """``'text'``, or ``"text"`` when the text is itself a single quote (the update's prime)."""
    return f'"{text}"' if "'" in text else f"'{text}'"


def _show_char(text: str) -> str:
    """A character the lexer rejected, shown so that invisible and look-alike ones can be told apart."""
    if len(text) != 1:
        return quote(text if text.isprintable() else text.encode("unicode_escape").decode("ascii"))
    code = f"U+{ord(text):04X}"
    name = unicodedata.name(text, "").lower()
    if not text.isprintable() or text.isspace():
        return code + (f" ({name})" if name else "")
    if ord(text) > 127:
        return f"{quote(text)} ({code}" + (f" {name}" if name else "") + ")"
    return quote(text)


def _join(parts: list[str]) -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " or " + parts[-1]


# ---------------------------------------------------------------- the error record


class SyntaxStop(Exception):
    """The first syntax error; ``index`` is the char offset of the offending text, to order errors."""

    def __init__(self, diagnostic: Diagnostic, index: int):
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic
        self.index = index


class _Issue:
    def __init__(self, message: str, loc: Loc, token: Token, notes: list[tuple[str, Loc]] | None = None):
        self.message = message
        self.loc = loc
        self.token = token
        self.notes = notes or []


def _tok_loc(tok: Token) -> Loc:
    return Loc(tok.line, tok.column + 1, max(1, len(tok.text or "")) if tok.type != Token.EOF else 1)


def _after(tok: Token) -> Loc:
    """Just past the end of ``tok`` (where a missing token belongs)."""
    return Loc(tok.line, tok.column + len(tok.text or "") + 1, 1)


# ---------------------------------------------------------------- the parser side


class ErrorStrategy(DefaultErrorStrategy):
    """Words each recognition error as a diagnostic and hands it to the parser's error listeners.

    ANTLR's recovery (single-token insertion and deletion) still decides WHAT went wrong (a missing
    token, an extra token, a mismatch); this class only decides how to say it.
    """

    def __init__(self) -> None:
        super().__init__()
        self.pending: _Issue | None = None  # the issue being handed to the listeners

    # -- the four kinds of report ANTLR makes

    def reportMissingToken(self, recognizer: P) -> None:  # ANTLR names these in camelCase
        self._hand_over(recognizer, self._missing(recognizer), None)

    def reportUnwantedToken(self, recognizer: P) -> None:
        tok = recognizer.getCurrentToken()
        issue = self._unexpected(recognizer, tok, self.getExpectedTokens(recognizer), recognizer._ctx)
        self._hand_over(recognizer, issue, None)

    def reportInputMismatch(self, recognizer: P, e: InputMismatchException) -> None:
        issue = self._unexpected(recognizer, e.offendingToken, e.getExpectedTokens(), e.ctx)
        self._hand_over(recognizer, issue, e)

    def reportNoViableAlternative(self, recognizer: P, e: NoViableAltException) -> None:
        issue = self._unexpected(recognizer, e.offendingToken, e.getExpectedTokens(), e.ctx)
        self._hand_over(recognizer, issue, e)

    def reportFailedPredicate(self, recognizer: P, e: RecognitionException) -> None:
        issue = self._unexpected(recognizer, e.offendingToken, e.getExpectedTokens(), e.ctx)
        self._hand_over(recognizer, issue, e)

    def _hand_over(self, recognizer: P, issue: _Issue, e: RecognitionException | None) -> None:
        self.pending = issue
        recognizer.notifyErrorListeners(issue.message, issue.token, e)

    # -- wording

    def _previous(self, recognizer: P) -> Token | None:
        stream = recognizer.getTokenStream()
        return stream.LT(-1) if stream.index > 0 else None

    def _missing(self, recognizer: P) -> _Issue:
        expected = self.getExpectedTokens(recognizer)
        types = set(expected)
        tok = recognizer.getCurrentToken()
        prev = self._previous(recognizer)
        ctx = recognizer._ctx
        loc = _after(prev) if prev is not None else _tok_loc(tok)
        if len(types) != 1:
            what = self._describe(types, ctx, prev)
            after = f" after {quote(prev.text)}" if prev is not None else ""
            return _Issue(f"expected {what}{after}", loc, tok)
        (want,) = types
        if want == P.SEMI and type(ctx) in _DECL_WHAT:
            return _Issue(f"expected ';' after the {_DECL_WHAT[type(ctx)]}", loc, tok)
        if want in OPENER_OF:
            return _Issue(f"expected {self._name(want)}", loc, tok, self._opener_note(ctx, want))
        if want == P.STENCIL:
            return _Issue(f"expected 'stencil' before {quote(tok.text)}; {_HEADER}", _tok_loc(tok), tok)
        if want == P.PRIME and isinstance(ctx, P.UpdateDeclContext) and prev is not None:
            name = prev.text
            return _Issue(f"expected \"'\" after '{name}': write {name}' = ... to update the field, "
                          f"or let {name} = ... for a temporary", loc, tok)
        what = self._describe(types, ctx, prev)
        if want == P.ID and tok.type in KEYWORDS and prev is not None:
            return _Issue(f"expected {what} after {quote(prev.text)}; {quote(tok.text)} is a keyword and cannot be "
                          "used as a name", loc, tok)
        after = f" after {quote(prev.text)}" if prev is not None else ""
        return _Issue(f"expected {what}{after}", loc, tok)

    def _unexpected(self, recognizer: P, tok: Token, expected: IntervalSet | None,
                    ctx: ParserRuleContext | None) -> _Issue:
        types = set(expected) if expected is not None else set()
        ctx = ctx if ctx is not None else recognizer._ctx
        stream = recognizer.getTokenStream()
        prev = stream.get(tok.tokenIndex - 1) if tok.tokenIndex > 0 else None
        loc = _tok_loc(tok)
        if tok.type == Token.EOF:
            loc = _after(prev) if prev is not None else Loc(1, 1, 1)
        shown = "end of file" if tok.type == Token.EOF else quote(tok.text)

        semi = self._missing_semicolon(stream, tok, prev, types, ctx)
        if semi is not None:
            return semi
        if types == {Token.EOF}:
            notes = []
            root = _root(ctx)
            if root is not None and root.RBRACE() is not None:
                notes.append(("the stencil ends here", _tok_loc(root.RBRACE().symbol)))
            return _Issue(f"unexpected {shown} after the closing '}}' of the stencil", loc, tok, notes)
        if types == {P.STENCIL}:
            if tok.type == Token.EOF and prev is None:
                return _Issue(f"the file is empty; {_HEADER}", loc, tok)
            return _Issue(f"unexpected {shown}; {_HEADER}", loc, tok)
        if tok.type in OPENER_OF and tok.type not in types and _depth_before(stream, tok) <= 0:
            return _Issue(f"unmatched {quote(tok.text)}", loc, tok)
        if tok.type == P.PRIME and prev is not None and prev.type in KEYWORDS:  # `init' = ...`
            return _Issue(f"{quote(prev.text)} is a keyword and cannot be used as a name", _tok_loc(prev), tok)
        if tok.type in KEYWORDS and P.ID in types and tok.type not in types:
            looks_like_name = not isinstance(ctx, P.ProgramContext) or stream.get(tok.tokenIndex + 1).type == P.PRIME
            if looks_like_name:
                return _Issue(f"{quote(tok.text)} is a keyword and cannot be used as a name", loc, tok)

        if tok.type == P.COMMA and prev is not None and prev.type in (P.COMMA, P.LBRACE) and \
                isinstance(ctx, (P.TableInitContext, P.TableItemContext)):  # `{1, , 1}`: an entry is missing
            return _Issue(f"unexpected ','; expected a table entry (a number, or '{{' for a row) after "
                          f"{quote(prev.text)}", loc, tok, self._opener_note(ctx, P.RBRACE))
        notes: list[tuple[str, Loc]] = []
        if tok.type == Token.EOF or types <= _LIST_PUNCT:  # inside brackets: show where they opened
            for closer in OPENER_OF:
                if closer in types:
                    notes += self._opener_note(ctx, closer)
        return _Issue(f"unexpected {shown}; expected {self._describe(types, ctx, prev)}", loc, tok, notes[:1])

    def _missing_semicolon(self, stream, tok: Token, prev: Token | None, types: set[int],
                           ctx: ParserRuleContext | None) -> _Issue | None:
        """A declaration that could go on (``state u`` may take ``levels``, ``boundary neumann`` a
        kind) is not reported as a missing ';' by ANTLR; do it when a line break says so."""
        decl = ctx
        while decl is not None and not isinstance(decl, P.DeclContext):
            decl = decl.parentCtx
        # `boundary neumann <newline> u' = ...`: the next line's first name was taken for the kind (or a face)
        if isinstance(decl, P.BoundaryDeclContext) and decl.start is not None:
            words = [t for t in stream.tokens[decl.start.tokenIndex:tok.tokenIndex] if t.channel == Token.DEFAULT_CHANNEL]
            if len(words) >= 3 and words[-1].tokenIndex == tok.tokenIndex - 1 and words[-1].line > words[-2].line \
                    and words[-1].type == P.ID:
                return _Issue("expected ';' after the boundary declaration", _after(words[-2]), tok)
        if decl is None or type(decl) not in _DECL_WHAT or P.SEMI not in types:
            return None
        what = _DECL_WHAT[type(decl)]
        # the offending token starts a new line: the ';' belongs at the end of the previous one
        if prev is not None and tok.type != Token.EOF and tok.line > prev.line \
                and (tok.type in DECL_START or tok.type == P.RBRACE):
            return _Issue(f"expected ';' after the {what}", _after(prev), tok)
        return None

    def _opener_note(self, ctx: ParserRuleContext | None, closer: int) -> list[tuple[str, Loc]]:
        """``to match this '('``, at the last opener of ``closer``'s kind among ``ctx``'s own tokens."""
        opener = OPENER_OF[closer]
        found = None
        for child in getattr(ctx, "children", None) or []:
            if isinstance(child, TerminalNode) and child.symbol.type == opener:
                found = child.symbol
        if found is None:
            return []
        return [(f"to match this {quote(found.text)}", _tok_loc(found))]

    def _name(self, t: int) -> str:
        if t in _TOKEN_NAMES:
            return _TOKEN_NAMES[t]
        lit = P.literalNames[t] if 0 <= t < len(P.literalNames) else "<INVALID>"
        if lit != "<INVALID>":
            return quote(lit[1:-1].replace("\\'", "'"))
        return P.symbolicNames[t] if 0 <= t < len(P.symbolicNames) else f"token {t}"

    def _describe(self, types: set[int], ctx: ParserRuleContext | None, prev: Token | None) -> str:
        """A short English phrase for an expected-token set."""
        left = set(types)
        parts: list[str] = []
        if DECL_START <= left:
            parts.append("a declaration")
            left -= DECL_START
        if EXPR_START <= left:
            parts.append("an expression")
            left -= EXPR_START
        if NUMBERS <= left:
            if _in_integer_context(ctx):
                parts.append("an integer literal")
                left -= {P.PLUS, P.MINUS}  # a sum bound's sign is part of its literal
            else:
                parts.append("a number")
            left -= NUMBERS
        if BINOPS <= left:
            parts.append("an operator")
            left -= BINOPS
        if P.ID in left:
            left.discard(P.ID)
            if prev is not None and prev.type == P.DOT:
                parts.append("'prev'")
            elif isinstance(ctx, P.GridDeclContext):
                parts.append("an element type ('f32' or 'f64')")
            elif isinstance(ctx, (P.FaceContext, P.BoundaryDeclContext)) and \
                    _kind_given(ctx if isinstance(ctx, P.BoundaryDeclContext) else ctx.parentCtx, prev):
                decl = ctx if isinstance(ctx, P.BoundaryDeclContext) else ctx.parentCtx
                parts.append("an axis ('x', 'y', 'z')" if _kind_given(decl, prev) == "periodic"
                             else "a face ('x-', 'x+', 'y-', ...; an axis for both of its faces)")
            elif isinstance(ctx, P.BoundaryDeclContext):
                parts.append("a boundary kind ('dirichlet' or 'neumann')"
                             if ctx.field is not None or (prev is not None and prev.type != P.BOUNDARY)
                             else "a field name or a boundary kind ('dirichlet' or 'neumann')")
            else:
                parts.append("a name")
        parts += [self._name(t) for t in sorted(left, key=_token_order)]
        return _join(parts) if parts else "something else"


def _kind_given(decl: ParserRuleContext, prev: Token | None) -> str | None:
    """The kind (dirichlet, neumann, periodic) a boundary declaration has at or before ``prev``, if any: what
    may follow is then a face (an axis for periodic)."""
    if prev is None or decl.start is None or getattr(decl, "parser", None) is None:
        return None
    tokens = decl.parser.getTokenStream().tokens[decl.start.tokenIndex:prev.tokenIndex + 1]
    return next((t.text for t in tokens if t.type == P.ID and t.text in ("dirichlet", "neumann", "periodic")), None)


def _token_order(t: int) -> tuple[int, int]:
    # closers and ';' first: they are the likeliest fix; end of file last
    if t == Token.EOF:
        return (2, 0)
    if t in (P.SEMI, P.RPAREN, P.RBRACK, P.RBRACE, P.COMMA):
        return (0, t)
    return (1, t)


def _in_integer_context(ctx: ParserRuleContext | None) -> bool:
    while ctx is not None:
        if isinstance(ctx, (P.StateDeclContext, P.TableDeclContext, P.SumRangeContext)):
            return True
        if isinstance(ctx, (P.ExprContext, P.DeclContext)):
            return False
        ctx = ctx.parentCtx
    return False


def _root(ctx: ParserRuleContext | None) -> P.ProgramContext | None:
    while ctx is not None and not isinstance(ctx, P.ProgramContext):
        ctx = ctx.parentCtx
    return ctx


def _depth_before(stream, tok: Token) -> int:
    """How many openers of ``tok``'s kind are still open just before it."""
    opener = OPENER_OF[tok.type]
    depth = 0
    for i in range(tok.tokenIndex):
        t = stream.get(i).type
        if t == opener:
            depth += 1
        elif t == tok.type:
            depth -= 1
    return depth


class ParserErrorListener(ErrorListener):
    """Raises ``SyntaxStop`` at the first syntax error the parser reports."""

    def __init__(self, source: SourceFile, strategy: ErrorStrategy):
        self.source = source
        self.strategy = strategy

    def syntaxError(self, recognizer, offendingSymbol, line, column, msg, e):  # ANTLR names these in camelCase
        issue, self.strategy.pending = self.strategy.pending, None
        if issue is None:  # reported by a path the strategy does not word: reword ANTLR's text
            length = max(1, len(offendingSymbol.text or "")) if offendingSymbol is not None else 1
            issue = _Issue(reword_antlr_message(msg), Loc(line, column + 1, length), offendingSymbol)
        diag = Diagnostic("error", issue.message, self.source, issue.loc)
        for text, nloc in issue.notes:
            diag.notes.append(Diagnostic("note", text, self.source, nloc))
        index = offendingSymbol.start if offendingSymbol is not None else 0
        if offendingSymbol is not None and offendingSymbol.type == Token.EOF:
            index = len(self.source.text)
        raise SyntaxStop(diag, index)


# ---------------------------------------------------------------- the lexer side


class LexerErrorListener(ErrorListener):
    """Records the first character the lexer cannot make a token of (the lexer skips it)."""

    def __init__(self, source: SourceFile):
        self.source = source
        self.first: SyntaxStop | None = None

    def syntaxError(self, recognizer, offendingSymbol, line, column, msg, e):  # ANTLR names these in camelCase
        if self.first is not None:
            return
        start = recognizer._tokenStartCharIndex
        text = recognizer._input.getText(start, recognizer._input.index) or "?"
        if text[0] in "&|":  # half of '&&' or '||'
            text = text[0]
            message = f"unexpected character '{text}' (the logical operators are '&&' and '||')"
        elif len(text) == 1:
            message = f"unexpected character {_show_char(text)}"
        else:
            message = f"unexpected {_show_char(text)}"
        loc = Loc(line, column + 1, max(1, len(text)))
        self.first = SyntaxStop(Diagnostic("error", message, self.source, loc), start)


# ---------------------------------------------------------------- ANTLR's own texts


_ANTLR_NAMES = {"ID": "a name", "INT": "an integer", "FLOAT": "a number", "DIMS": "a dimension ('2d' or '3d')",
                "<EOF>": "end of file"}


def _reword_set(text: str) -> str:
    text = text.strip()
    items = [s.strip() for s in text[1:-1].split(",")] if text.startswith("{") else [text]
    return _join([_ANTLR_NAMES.get(s, s) for s in items if s])


def _reword_token(text: str) -> str:
    return "end of file" if text == "'<EOF>'" else text


def reword_antlr_message(msg: str) -> str:
    """ANTLR's ``mismatched input``/``extraneous input``/``missing``/``no viable alternative``/``token
    recognition error`` texts, in the words of this module's other messages."""
    m = re.match(r"^(?:mismatched|extraneous) input (.*) expecting (.*)$", msg, re.S)
    if m:
        return f"unexpected {_reword_token(m[1])}; expected {_reword_set(m[2])}"
    m = re.match(r"^missing (.*) at (.*)$", msg, re.S)
    if m:
        return f"expected {_reword_set(m[1])} before {_reword_token(m[2])}"
    m = re.match(r"^no viable alternative at input (.*)$", msg, re.S)
    if m:
        return f"unexpected {_reword_token(m[1])}"
    m = re.match(r"^token recognition error at: (.*)$", msg, re.S)
    if m:
        return f"unexpected character {m[1]}"
    return f"syntax error: {msg}"
