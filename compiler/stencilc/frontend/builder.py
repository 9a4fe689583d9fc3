"""Parse tree -> AST: a visitor over the ANTLR parse tree of ``grammar/Stencil.g4``.

Expects: a parse tree that parsed without syntax errors (``frontend.parse`` guarantees it), and a
``Reporter`` for the source file it came from.

Guarantees: ``build`` returns an ``ast.Stencil`` whose every node carries the ``Loc`` that
``ast.py`` documents (1-based line and column, length of the text), or raises ``CompileError``
with every problem the grammar leaves to this pass: ``levels`` and table dimensions that are not
integer literals, sum bounds that are not (signed) integer literals, and a ``.SUFFIX`` other than
``.prev``.  Nothing else is checked here: names, kinds, arities and ranges are sema's.
"""

from __future__ import annotations

from antlr4.Token import Token

from .. import ast
from ..diagnostics import Loc, Reporter
from .generated.StencilParser import StencilParser
from .generated.StencilVisitor import StencilVisitor

BOUNDARY_WORDS = ("dirichlet", "neumann", "periodic")  # the kinds: what comes first when no field does


def token_loc(token: Token) -> Loc:
    """The ``Loc`` of one token: its line, 1-based column and length (at least 1)."""
    return Loc(token.line, token.column + 1, max(1, len(token.text or "")))


def _face_loc(axis: Token, sign: Token | None) -> Loc:
    """The ``Loc`` of a face (``x``, ``x-``): its axis, through its sign when the sign follows on the line."""
    if sign is None or sign.line != axis.line:
        return token_loc(axis)
    return Loc(axis.line, axis.column + 1, sign.column + len(sign.text) - axis.column)


def build(tree: StencilParser.ProgramContext, reporter: Reporter) -> ast.Stencil:
    """Turn a parse tree into the AST, reporting every builder-level error at once."""
    stencil = _Builder(reporter).visit(tree)
    reporter.check()
    return stencil


class _Builder(StencilVisitor):
    def __init__(self, reporter: Reporter):
        self.r = reporter

    # ------------------------------------------------------------ helpers

    def _int_literal(self, ctx: StencilParser.NumberContext, what: str, example: str) -> tuple[int, Loc]:
        tok = ctx.start
        loc = token_loc(tok)
        if tok.type != StencilParser.INT:
            self.r.error(f"{what} must be an integer literal, like {example}; got '{tok.text}'", loc)
            return 0, loc
        return int(tok.text), loc

    def _signed_int(self, ctx: StencilParser.SignedNumberContext) -> int:
        value, _ = self._int_literal(ctx.number(), "a sum range bound", "'-2..2'")
        return -value if ctx.sign is not None and ctx.sign.type == StencilParser.MINUS else value

    def _prev_suffix(self, suffixes: list[Token]) -> int:
        """How many levels back a reference's suffixes go: 0 (none), 1 (``.prev``), 2 (``.prev.prev``)."""
        for s in suffixes:
            if s.text != "prev":
                self.r.error(f"unknown suffix '.{s.text}'; the only one is '.prev', the previous time level",
                             token_loc(s))
                return min(len(suffixes), 2)
        if len(suffixes) > 2:
            self.r.error(f"'{'.prev' * len(suffixes)}' goes back {len(suffixes)} levels; a state field keeps at "
                         f"most 3 time levels, so '.prev.prev' is the oldest", token_loc(suffixes[2]))
            return 2
        return len(suffixes)

    # ------------------------------------------------------------ structure

    def visitProgram(self, ctx: StencilParser.ProgramContext) -> ast.Stencil:
        decls = tuple(self.visit(d) for d in ctx.decl())
        return ast.Stencil(ctx.name.text, decls, token_loc(ctx.name))

    def visitGridDecl(self, ctx: StencilParser.GridDeclContext) -> ast.GridDecl:
        ndim = int(ctx.dims.text[:-1])  # DIMS is <digits>d
        return ast.GridDecl(ndim, token_loc(ctx.dims), ctx.dtype.text, token_loc(ctx.dtype),
                            token_loc(ctx.GRID().symbol))

    def visitParamDecl(self, ctx: StencilParser.ParamDeclContext) -> ast.ParamDecl:
        return ast.ParamDecl(ctx.name.text, self.visit(ctx.expr()), token_loc(ctx.name))

    def visitStateDecl(self, ctx: StencilParser.StateDeclContext) -> ast.StateDecl:
        levels = levels_loc = None
        if ctx.levels is not None:
            levels, levels_loc = self._int_literal(ctx.levels, "the number of levels", "'levels 2'")
        return ast.StateDecl(ctx.name.text, levels, levels_loc, token_loc(ctx.name))

    def visitInputDecl(self, ctx: StencilParser.InputDeclContext) -> ast.InputDecl:
        along = ctx.axis.text if ctx.axis is not None else None
        return ast.InputDecl(ctx.name.text, token_loc(ctx.name), along, token_loc(ctx.axis) if along else None)

    def visitSeriesDecl(self, ctx: StencilParser.SeriesDeclContext) -> ast.SeriesDecl:
        return ast.SeriesDecl(ctx.name.text, token_loc(ctx.name))

    def visitPointsDecl(self, ctx: StencilParser.PointsDeclContext) -> ast.PointsDecl:
        def word(tok):  # (an optional word: its text and place, or None twice)
            return (tok.text, token_loc(tok)) if tok is not None else (None, None)

        return ast.PointsDecl(ctx.name.text, token_loc(ctx.name), *word(ctx.kind), *word(ctx.key), *word(ctx.spacing))

    def visitInjectDecl(self, ctx: StencilParser.InjectDeclContext) -> ast.InjectDecl:
        return ast.InjectDecl(ctx.field.text, ctx.pts.text, self.visit(ctx.expr()), token_loc(ctx.field),
                              token_loc(ctx.pts))

    def visitRecordDecl(self, ctx: StencilParser.RecordDeclContext) -> ast.RecordDecl:
        return ast.RecordDecl(ctx.name.text, self.visit(ctx.expr()), ctx.pts.text, token_loc(ctx.name),
                              token_loc(ctx.pts))

    def visitTableDecl(self, ctx: StencilParser.TableDeclContext) -> ast.TableDecl:
        dims = [self._int_literal(n, "a table dimension", "'w[5][5]'") for n in ctx.number()]
        return ast.TableDecl(
            ctx.name.text,
            tuple(d for d, _ in dims),
            tuple(loc for _, loc in dims),
            self.visit(ctx.tableInit()),
            token_loc(ctx.name),
        )

    def visitTableInit(self, ctx: StencilParser.TableInitContext) -> ast.TableInit:
        return ast.TableInit(tuple(self.visit(item) for item in ctx.tableItem()), token_loc(ctx.LBRACE().symbol))

    def visitTableItem(self, ctx: StencilParser.TableItemContext):
        sub = ctx.tableInit()
        return self.visit(sub if sub is not None else ctx.expr())

    def visitLetDecl(self, ctx: StencilParser.LetDeclContext) -> ast.LetDecl:
        return ast.LetDecl(ctx.name.text, self.visit(ctx.expr()), token_loc(ctx.name))

    def visitUpdateDecl(self, ctx: StencilParser.UpdateDeclContext) -> ast.UpdateDecl:
        return ast.UpdateDecl(ctx.name.text, self.visit(ctx.expr()), token_loc(ctx.name))

    def visitBoundaryDecl(self, ctx: StencilParser.BoundaryDeclContext) -> ast.BoundaryDecl:
        words = ([(ctx.field, None)] if ctx.field is not None else []) + [(ctx.kind, None)]
        words += [(f.axis, f.sign) for f in ctx.faces]
        # `boundary periodic x;` parses as field `periodic`, kind `x`: a kind comes first, or second
        start = 0 if words[0][0].text in BOUNDARY_WORDS or len(words) == 1 else 1
        field = words[0][0] if start == 1 else None
        (kind, kind_sign), axes = words[start], words[start + 1:]
        if kind_sign is not None:  # `boundary x+;`: a face where the kind belongs
            axes = [(kind, kind_sign)] + axes
        return ast.BoundaryDecl(field.text if field else None, token_loc(field) if field else None, kind.text,
                                token_loc(kind), token_loc(ctx.BOUNDARY().symbol),
                                tuple(a.text + (s.text if s is not None else "") for a, s in axes),
                                tuple(_face_loc(a, s) for a, s in axes))

    def visitInitDecl(self, ctx: StencilParser.InitDeclContext) -> ast.InitDecl:
        prev = self._prev_suffix(ctx.suffix)
        return ast.InitDecl(ctx.name.text, prev, self.visit(ctx.expr()), token_loc(ctx.name))

    def visitSaveDecl(self, ctx: StencilParser.SaveDeclContext) -> ast.SaveDecl:
        keys, klocs, vlocs = [], [], []
        for word, num in zip(ctx.keys, ctx.number()):
            value, vloc = self._int_literal(num, f"the value of '{word.text}'", f"'save {ctx.field.text} every 10;'")
            keys.append((word.text, value))
            klocs.append(token_loc(word))
            vlocs.append(vloc)
        return ast.SaveDecl(ctx.field.text, tuple(keys), token_loc(ctx.field), tuple(klocs), tuple(vlocs))

    # ------------------------------------------------------------ expressions

    def visitPrimaryExpr(self, ctx: StencilParser.PrimaryExprContext) -> ast.Expr:
        return self.visit(ctx.primary())

    def visitPowExpr(self, ctx: StencilParser.PowExprContext) -> ast.Binary:
        return ast.Binary("^", self.visit(ctx.lhs), self.visit(ctx.rhs), token_loc(ctx.op))

    def visitMulExpr(self, ctx: StencilParser.MulExprContext) -> ast.Binary:
        return ast.Binary(ctx.op.text, self.visit(ctx.lhs), self.visit(ctx.rhs), token_loc(ctx.op))

    def visitAddExpr(self, ctx: StencilParser.AddExprContext) -> ast.Binary:
        return ast.Binary(ctx.op.text, self.visit(ctx.lhs), self.visit(ctx.rhs), token_loc(ctx.op))

    def visitRelExpr(self, ctx: StencilParser.RelExprContext) -> ast.Binary:
        return ast.Binary(ctx.op.text, self.visit(ctx.lhs), self.visit(ctx.rhs), token_loc(ctx.op))

    def visitEqExpr(self, ctx: StencilParser.EqExprContext) -> ast.Binary:
        return ast.Binary(ctx.op.text, self.visit(ctx.lhs), self.visit(ctx.rhs), token_loc(ctx.op))

    def visitAndExpr(self, ctx: StencilParser.AndExprContext) -> ast.Binary:
        return ast.Binary(ctx.op.text, self.visit(ctx.lhs), self.visit(ctx.rhs), token_loc(ctx.op))

    def visitOrExpr(self, ctx: StencilParser.OrExprContext) -> ast.Binary:
        return ast.Binary(ctx.op.text, self.visit(ctx.lhs), self.visit(ctx.rhs), token_loc(ctx.op))

    def visitCondExpr(self, ctx: StencilParser.CondExprContext) -> ast.Cond:
        return ast.Cond(self.visit(ctx.cond), self.visit(ctx.then), self.visit(ctx.other), token_loc(ctx.op))

    def visitUnaryExpr(self, ctx: StencilParser.UnaryExprContext) -> ast.Unary:
        return ast.Unary(ctx.op.text, self.visit(ctx.operand), token_loc(ctx.op))

    def visitSumExpr(self, ctx: StencilParser.SumExprContext) -> ast.Sum:
        ranges = tuple(self.visit(r) for r in ctx.sumRange())
        return ast.Sum(ranges, self.visit(ctx.body), token_loc(ctx.SUM().symbol))

    def visitSumRange(self, ctx: StencilParser.SumRangeContext) -> ast.SumRange:
        lo = self._signed_int(ctx.lo)
        hi = self._signed_int(ctx.hi)
        return ast.SumRange(ctx.var.text, lo, hi, token_loc(ctx.var))

    def visitNumberPrimary(self, ctx: StencilParser.NumberPrimaryContext) -> ast.Num:
        return self.visit(ctx.number())

    def visitNumber(self, ctx: StencilParser.NumberContext) -> ast.Num:
        tok = ctx.start
        return ast.Num(tok.text, tok.type == StencilParser.INT, token_loc(tok))

    def visitCallPrimary(self, ctx: StencilParser.CallPrimaryContext) -> ast.Call:
        return ast.Call(ctx.func.text, tuple(self.visit(e) for e in ctx.expr()), token_loc(ctx.func))

    def visitRefPrimary(self, ctx: StencilParser.RefPrimaryContext) -> ast.Name | ast.Ref:
        prev = self._prev_suffix(ctx.suffix)
        new = ctx.new is not None
        if new and ctx.suffix:
            self.r.error(f"'{ctx.name.text}'.{ctx.suffix[0].text}' names two levels at once: '{ctx.name.text}'' is the "
                         f"new value of this step, '{ctx.name.text}.prev' the level before the current one",
                         token_loc(ctx.suffix[0]))
        subscripts = tuple(tuple(self.visit(e) for e in sub.expr()) for sub in ctx.subscript())
        if not prev and not new and not subscripts:
            return ast.Name(ctx.name.text, token_loc(ctx.name))
        return ast.Ref(ctx.name.text, prev, subscripts, token_loc(ctx.name), new)

    def visitParenPrimary(self, ctx: StencilParser.ParenPrimaryContext) -> ast.Expr:
        return self.visit(ctx.expr())
