# Generated from grammar/Stencil.g4 by ANTLR 4.13.2
from antlr4 import *
if "." in __name__:
    from .StencilParser import StencilParser
else:
    from StencilParser import StencilParser

# This class defines a complete generic visitor for a parse tree produced by StencilParser.

class StencilVisitor(ParseTreeVisitor):

    # Visit a parse tree produced by StencilParser#program.
    def visitProgram(self, ctx:StencilParser.ProgramContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#gridDecl.
    def visitGridDecl(self, ctx:StencilParser.GridDeclContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#paramDecl.
    def visitParamDecl(self, ctx:StencilParser.ParamDeclContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#stateDecl.
    def visitStateDecl(self, ctx:StencilParser.StateDeclContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#inputDecl.
    def visitInputDecl(self, ctx:StencilParser.InputDeclContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#seriesDecl.
    def visitSeriesDecl(self, ctx:StencilParser.SeriesDeclContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#pointsDecl.
    def visitPointsDecl(self, ctx:StencilParser.PointsDeclContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#injectDecl.
    def visitInjectDecl(self, ctx:StencilParser.InjectDeclContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#recordDecl.
    def visitRecordDecl(self, ctx:StencilParser.RecordDeclContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#tableDecl.
    def visitTableDecl(self, ctx:StencilParser.TableDeclContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#letDecl.
    def visitLetDecl(self, ctx:StencilParser.LetDeclContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#updateDecl.
    def visitUpdateDecl(self, ctx:StencilParser.UpdateDeclContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#boundaryDecl.
    def visitBoundaryDecl(self, ctx:StencilParser.BoundaryDeclContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#initDecl.
    def visitInitDecl(self, ctx:StencilParser.InitDeclContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#saveDecl.
    def visitSaveDecl(self, ctx:StencilParser.SaveDeclContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#face.
    def visitFace(self, ctx:StencilParser.FaceContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#tableInit.
    def visitTableInit(self, ctx:StencilParser.TableInitContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#tableItem.
    def visitTableItem(self, ctx:StencilParser.TableItemContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#eqExpr.
    def visitEqExpr(self, ctx:StencilParser.EqExprContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#unaryExpr.
    def visitUnaryExpr(self, ctx:StencilParser.UnaryExprContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#primaryExpr.
    def visitPrimaryExpr(self, ctx:StencilParser.PrimaryExprContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#sumExpr.
    def visitSumExpr(self, ctx:StencilParser.SumExprContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#addExpr.
    def visitAddExpr(self, ctx:StencilParser.AddExprContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#mulExpr.
    def visitMulExpr(self, ctx:StencilParser.MulExprContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#condExpr.
    def visitCondExpr(self, ctx:StencilParser.CondExprContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#orExpr.
    def visitOrExpr(self, ctx:StencilParser.OrExprContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#powExpr.
    def visitPowExpr(self, ctx:StencilParser.PowExprContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#relExpr.
    def visitRelExpr(self, ctx:StencilParser.RelExprContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#andExpr.
    def visitAndExpr(self, ctx:StencilParser.AndExprContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#sumRange.
    def visitSumRange(self, ctx:StencilParser.SumRangeContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#signedNumber.
    def visitSignedNumber(self, ctx:StencilParser.SignedNumberContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#number.
    def visitNumber(self, ctx:StencilParser.NumberContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#numberPrimary.
    def visitNumberPrimary(self, ctx:StencilParser.NumberPrimaryContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#callPrimary.
    def visitCallPrimary(self, ctx:StencilParser.CallPrimaryContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#refPrimary.
    def visitRefPrimary(self, ctx:StencilParser.RefPrimaryContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#parenPrimary.
    def visitParenPrimary(self, ctx:StencilParser.ParenPrimaryContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by StencilParser#subscript.
    def visitSubscript(self, ctx:StencilParser.SubscriptContext):
        return self.visitChildren(ctx)



del StencilParser