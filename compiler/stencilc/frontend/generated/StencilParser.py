# Generated from grammar/Stencil.g4 by ANTLR 4.13.2
# encoding: utf-8
from antlr4 import *
from io import StringIO
import sys
if sys.version_info[1] > 5:
	from typing import TextIO
else:
	from typing.io import TextIO

def serializedATN():
    return [
        4,1,36,211,2,0,7,0,2,1,7,1,2,2,7,2,2,3,7,3,2,4,7,4,2,5,7,5,2,6,7,
        6,2,7,7,7,2,8,7,8,2,9,7,9,1,0,1,0,1,0,1,0,5,0,25,8,0,10,0,12,0,28,
        9,0,1,0,1,0,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
        1,1,1,1,3,1,47,8,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
        1,1,1,4,1,62,8,1,11,1,12,1,63,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
        1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,3,1,84,8,1,1,1,1,1,1,1,1,1,
        1,1,1,1,3,1,92,8,1,1,1,1,1,1,1,1,1,3,1,98,8,1,1,2,1,2,1,2,1,2,5,
        2,104,8,2,10,2,12,2,107,9,2,1,2,3,2,110,8,2,3,2,112,8,2,1,2,1,2,
        1,3,1,3,3,3,118,8,3,1,4,1,4,1,4,1,4,1,4,1,4,1,4,1,4,1,4,5,4,129,
        8,4,10,4,12,4,132,9,4,1,4,1,4,1,4,3,4,137,8,4,1,4,1,4,1,4,1,4,1,
        4,1,4,1,4,1,4,1,4,5,4,148,8,4,10,4,12,4,151,9,4,1,5,1,5,1,5,1,5,
        1,5,1,5,1,6,3,6,160,8,6,1,6,1,6,1,7,1,7,1,8,1,8,1,8,1,8,1,8,1,8,
        5,8,172,8,8,10,8,12,8,175,9,8,3,8,177,8,8,1,8,1,8,1,8,3,8,182,8,
        8,1,8,1,8,3,8,186,8,8,1,8,5,8,189,8,8,10,8,12,8,192,9,8,1,8,1,8,
        1,8,1,8,3,8,198,8,8,1,9,1,9,1,9,1,9,5,9,204,8,9,10,9,12,9,207,9,
        9,1,9,1,9,1,9,0,1,8,10,0,2,4,6,8,10,12,14,16,18,0,3,1,0,30,31,1,
        0,32,33,1,0,15,16,234,0,20,1,0,0,0,2,97,1,0,0,0,4,99,1,0,0,0,6,117,
        1,0,0,0,8,136,1,0,0,0,10,152,1,0,0,0,12,159,1,0,0,0,14,163,1,0,0,
        0,16,197,1,0,0,0,18,199,1,0,0,0,20,21,5,1,0,0,21,22,5,17,0,0,22,
        26,5,28,0,0,23,25,3,2,1,0,24,23,1,0,0,0,25,28,1,0,0,0,26,24,1,0,
        0,0,26,27,1,0,0,0,27,29,1,0,0,0,28,26,1,0,0,0,29,30,5,29,0,0,30,
        31,5,0,0,1,31,1,1,0,0,0,32,33,5,2,0,0,33,34,5,14,0,0,34,35,5,17,
        0,0,35,98,5,22,0,0,36,37,5,3,0,0,37,38,5,17,0,0,38,39,5,21,0,0,39,
        40,3,8,4,0,40,41,5,22,0,0,41,98,1,0,0,0,42,43,5,4,0,0,43,46,5,17,
        0,0,44,45,5,7,0,0,45,47,3,14,7,0,46,44,1,0,0,0,46,47,1,0,0,0,47,
        48,1,0,0,0,48,98,5,22,0,0,49,50,5,5,0,0,50,51,5,17,0,0,51,98,5,22,
        0,0,52,53,5,6,0,0,53,54,5,17,0,0,54,98,5,22,0,0,55,56,5,8,0,0,56,
        61,5,17,0,0,57,58,5,26,0,0,58,59,3,14,7,0,59,60,5,27,0,0,60,62,1,
        0,0,0,61,57,1,0,0,0,62,63,1,0,0,0,63,61,1,0,0,0,63,64,1,0,0,0,64,
        65,1,0,0,0,65,66,5,21,0,0,66,67,3,4,2,0,67,68,5,22,0,0,68,98,1,0,
        0,0,69,70,5,9,0,0,70,71,5,17,0,0,71,72,5,21,0,0,72,73,3,8,4,0,73,
        74,5,22,0,0,74,98,1,0,0,0,75,76,5,17,0,0,76,77,5,20,0,0,77,78,5,
        21,0,0,78,79,3,8,4,0,79,80,5,22,0,0,80,98,1,0,0,0,81,83,5,10,0,0,
        82,84,5,17,0,0,83,82,1,0,0,0,83,84,1,0,0,0,84,85,1,0,0,0,85,86,5,
        17,0,0,86,98,5,22,0,0,87,88,5,11,0,0,88,91,5,17,0,0,89,90,5,19,0,
        0,90,92,5,17,0,0,91,89,1,0,0,0,91,92,1,0,0,0,92,93,1,0,0,0,93,94,
        5,21,0,0,94,95,3,8,4,0,95,96,5,22,0,0,96,98,1,0,0,0,97,32,1,0,0,
        0,97,36,1,0,0,0,97,42,1,0,0,0,97,49,1,0,0,0,97,52,1,0,0,0,97,55,
        1,0,0,0,97,69,1,0,0,0,97,75,1,0,0,0,97,81,1,0,0,0,97,87,1,0,0,0,
        98,3,1,0,0,0,99,111,5,28,0,0,100,105,3,6,3,0,101,102,5,23,0,0,102,
        104,3,6,3,0,103,101,1,0,0,0,104,107,1,0,0,0,105,103,1,0,0,0,105,
        106,1,0,0,0,106,109,1,0,0,0,107,105,1,0,0,0,108,110,5,23,0,0,109,
        108,1,0,0,0,109,110,1,0,0,0,110,112,1,0,0,0,111,100,1,0,0,0,111,
        112,1,0,0,0,112,113,1,0,0,0,113,114,5,29,0,0,114,5,1,0,0,0,115,118,
        3,4,2,0,116,118,3,8,4,0,117,115,1,0,0,0,117,116,1,0,0,0,118,7,1,
        0,0,0,119,120,6,4,-1,0,120,137,3,16,8,0,121,122,7,0,0,0,122,137,
        3,8,4,4,123,124,5,12,0,0,124,125,5,24,0,0,125,130,3,10,5,0,126,127,
        5,23,0,0,127,129,3,10,5,0,128,126,1,0,0,0,129,132,1,0,0,0,130,128,
        1,0,0,0,130,131,1,0,0,0,131,133,1,0,0,0,132,130,1,0,0,0,133,134,
        5,25,0,0,134,135,3,8,4,2,135,137,1,0,0,0,136,119,1,0,0,0,136,121,
        1,0,0,0,136,123,1,0,0,0,137,149,1,0,0,0,138,139,10,5,0,0,139,140,
        5,34,0,0,140,148,3,8,4,5,141,142,10,3,0,0,142,143,7,1,0,0,143,148,
        3,8,4,4,144,145,10,1,0,0,145,146,7,0,0,0,146,148,3,8,4,2,147,138,
        1,0,0,0,147,141,1,0,0,0,147,144,1,0,0,0,148,151,1,0,0,0,149,147,
        1,0,0,0,149,150,1,0,0,0,150,9,1,0,0,0,151,149,1,0,0,0,152,153,5,
        17,0,0,153,154,5,13,0,0,154,155,3,12,6,0,155,156,5,18,0,0,156,157,
        3,12,6,0,157,11,1,0,0,0,158,160,7,0,0,0,159,158,1,0,0,0,159,160,
        1,0,0,0,160,161,1,0,0,0,161,162,3,14,7,0,162,13,1,0,0,0,163,164,
        7,2,0,0,164,15,1,0,0,0,165,198,3,14,7,0,166,167,5,17,0,0,167,176,
        5,24,0,0,168,173,3,8,4,0,169,170,5,23,0,0,170,172,3,8,4,0,171,169,
        1,0,0,0,172,175,1,0,0,0,173,171,1,0,0,0,173,174,1,0,0,0,174,177,
        1,0,0,0,175,173,1,0,0,0,176,168,1,0,0,0,176,177,1,0,0,0,177,178,
        1,0,0,0,178,198,5,25,0,0,179,181,5,17,0,0,180,182,5,20,0,0,181,180,
        1,0,0,0,181,182,1,0,0,0,182,185,1,0,0,0,183,184,5,19,0,0,184,186,
        5,17,0,0,185,183,1,0,0,0,185,186,1,0,0,0,186,190,1,0,0,0,187,189,
        3,18,9,0,188,187,1,0,0,0,189,192,1,0,0,0,190,188,1,0,0,0,190,191,
        1,0,0,0,191,198,1,0,0,0,192,190,1,0,0,0,193,194,5,24,0,0,194,195,
        3,8,4,0,195,196,5,25,0,0,196,198,1,0,0,0,197,165,1,0,0,0,197,166,
        1,0,0,0,197,179,1,0,0,0,197,193,1,0,0,0,198,17,1,0,0,0,199,200,5,
        26,0,0,200,205,3,8,4,0,201,202,5,23,0,0,202,204,3,8,4,0,203,201,
        1,0,0,0,204,207,1,0,0,0,205,203,1,0,0,0,205,206,1,0,0,0,206,208,
        1,0,0,0,207,205,1,0,0,0,208,209,5,27,0,0,209,19,1,0,0,0,22,26,46,
        63,83,91,97,105,109,111,117,130,136,147,149,159,173,176,181,185,
        190,197,205
    ]

class StencilParser ( Parser ):

    grammarFileName = "Stencil.g4"

    atn = ATNDeserializer().deserialize(serializedATN())

    decisionsToDFA = [ DFA(ds, i) for i, ds in enumerate(atn.decisionToState) ]

    sharedContextCache = PredictionContextCache()

    literalNames = [ "<INVALID>", "'stencil'", "'grid'", "'param'", "'state'", 
                     "'input'", "'series'", "'levels'", "'table'", "'let'", 
                     "'boundary'", "'init'", "'sum'", "'in'", "<INVALID>", 
                     "<INVALID>", "<INVALID>", "<INVALID>", "'..'", "'.'", 
                     "'''", "'='", "';'", "','", "'('", "')'", "'['", "']'", 
                     "'{'", "'}'", "'+'", "'-'", "'*'", "'/'", "'^'" ]

    symbolicNames = [ "<INVALID>", "STENCIL", "GRID", "PARAM", "STATE", 
                      "INPUT", "SERIES", "LEVELS", "TABLE", "LET", "BOUNDARY", 
                      "INIT", "SUM", "IN", "DIMS", "FLOAT", "INT", "ID", 
                      "DOTDOT", "DOT", "PRIME", "ASSIGN", "SEMI", "COMMA", 
                      "LPAREN", "RPAREN", "LBRACK", "RBRACK", "LBRACE", 
                      "RBRACE", "PLUS", "MINUS", "STAR", "SLASH", "CARET", 
                      "LINE_COMMENT", "WS" ]

    RULE_program = 0
    RULE_decl = 1
    RULE_tableInit = 2
    RULE_tableItem = 3
    RULE_expr = 4
    RULE_sumRange = 5
    RULE_signedNumber = 6
    RULE_number = 7
    RULE_primary = 8
    RULE_subscript = 9

    ruleNames =  [ "program", "decl", "tableInit", "tableItem", "expr", 
                   "sumRange", "signedNumber", "number", "primary", "subscript" ]

    EOF = Token.EOF
    STENCIL=1
    GRID=2
    PARAM=3
    STATE=4
    INPUT=5
    SERIES=6
    LEVELS=7
    TABLE=8
    LET=9
    BOUNDARY=10
    INIT=11
    SUM=12
    IN=13
    DIMS=14
    FLOAT=15
    INT=16
    ID=17
    DOTDOT=18
    DOT=19
    PRIME=20
    ASSIGN=21
    SEMI=22
    COMMA=23
    LPAREN=24
    RPAREN=25
    LBRACK=26
    RBRACK=27
    LBRACE=28
    RBRACE=29
    PLUS=30
    MINUS=31
    STAR=32
    SLASH=33
    CARET=34
    LINE_COMMENT=35
    WS=36

    def __init__(self, input:TokenStream, output:TextIO = sys.stdout):
        super().__init__(input, output)
        self.checkVersion("4.13.2")
        self._interp = ParserATNSimulator(self, self.atn, self.decisionsToDFA, self.sharedContextCache)
        self._predicates = None




    class ProgramContext(ParserRuleContext):
        __slots__ = 'parser'

        def __init__(self, parser, parent:ParserRuleContext=None, invokingState:int=-1):
            super().__init__(parent, invokingState)
            self.parser = parser
            self.name = None # Token

        def STENCIL(self):
            return self.getToken(StencilParser.STENCIL, 0)

        def LBRACE(self):
            return self.getToken(StencilParser.LBRACE, 0)

        def RBRACE(self):
            return self.getToken(StencilParser.RBRACE, 0)

        def EOF(self):
            return self.getToken(StencilParser.EOF, 0)

        def ID(self):
            return self.getToken(StencilParser.ID, 0)

        def decl(self, i:int=None):
            if i is None:
                return self.getTypedRuleContexts(StencilParser.DeclContext)
            else:
                return self.getTypedRuleContext(StencilParser.DeclContext,i)


        def getRuleIndex(self):
            return StencilParser.RULE_program

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitProgram" ):
                return visitor.visitProgram(self)
            else:
                return visitor.visitChildren(self)




    def program(self):

        localctx = StencilParser.ProgramContext(self, self._ctx, self.state)
        self.enterRule(localctx, 0, self.RULE_program)
        self._la = 0 # Token type
        try:
            self.enterOuterAlt(localctx, 1)
            self.state = 20
            self.match(StencilParser.STENCIL)
            self.state = 21
            localctx.name = self.match(StencilParser.ID)
            self.state = 22
            self.match(StencilParser.LBRACE)
            self.state = 26
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            while (((_la) & ~0x3f) == 0 and ((1 << _la) & 135036) != 0):
                self.state = 23
                self.decl()
                self.state = 28
                self._errHandler.sync(self)
                _la = self._input.LA(1)

            self.state = 29
            self.match(StencilParser.RBRACE)
            self.state = 30
            self.match(StencilParser.EOF)
        except RecognitionException as re:
            localctx.exception = re
            self._errHandler.reportError(self, re)
            self._errHandler.recover(self, re)
        finally:
            self.exitRule()
        return localctx


    class DeclContext(ParserRuleContext):
        __slots__ = 'parser'

        def __init__(self, parser, parent:ParserRuleContext=None, invokingState:int=-1):
            super().__init__(parent, invokingState)
            self.parser = parser


        def getRuleIndex(self):
            return StencilParser.RULE_decl

     
        def copyFrom(self, ctx:ParserRuleContext):
            super().copyFrom(ctx)



    class SeriesDeclContext(DeclContext):

        def __init__(self, parser, ctx:ParserRuleContext): # actually a StencilParser.DeclContext
            super().__init__(parser)
            self.name = None # Token
            self.copyFrom(ctx)

        def SERIES(self):
            return self.getToken(StencilParser.SERIES, 0)
        def SEMI(self):
            return self.getToken(StencilParser.SEMI, 0)
        def ID(self):
            return self.getToken(StencilParser.ID, 0)

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitSeriesDecl" ):
                return visitor.visitSeriesDecl(self)
            else:
                return visitor.visitChildren(self)


    class InputDeclContext(DeclContext):

        def __init__(self, parser, ctx:ParserRuleContext): # actually a StencilParser.DeclContext
            super().__init__(parser)
            self.name = None # Token
            self.copyFrom(ctx)

        def INPUT(self):
            return self.getToken(StencilParser.INPUT, 0)
        def SEMI(self):
            return self.getToken(StencilParser.SEMI, 0)
        def ID(self):
            return self.getToken(StencilParser.ID, 0)

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitInputDecl" ):
                return visitor.visitInputDecl(self)
            else:
                return visitor.visitChildren(self)


    class InitDeclContext(DeclContext):

        def __init__(self, parser, ctx:ParserRuleContext): # actually a StencilParser.DeclContext
            super().__init__(parser)
            self.name = None # Token
            self.suffix = None # Token
            self.copyFrom(ctx)

        def INIT(self):
            return self.getToken(StencilParser.INIT, 0)
        def ASSIGN(self):
            return self.getToken(StencilParser.ASSIGN, 0)
        def expr(self):
            return self.getTypedRuleContext(StencilParser.ExprContext,0)

        def SEMI(self):
            return self.getToken(StencilParser.SEMI, 0)
        def ID(self, i:int=None):
            if i is None:
                return self.getTokens(StencilParser.ID)
            else:
                return self.getToken(StencilParser.ID, i)
        def DOT(self):
            return self.getToken(StencilParser.DOT, 0)

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitInitDecl" ):
                return visitor.visitInitDecl(self)
            else:
                return visitor.visitChildren(self)


    class BoundaryDeclContext(DeclContext):

        def __init__(self, parser, ctx:ParserRuleContext): # actually a StencilParser.DeclContext
            super().__init__(parser)
            self.field = None # Token
            self.kind = None # Token
            self.copyFrom(ctx)

        def BOUNDARY(self):
            return self.getToken(StencilParser.BOUNDARY, 0)
        def SEMI(self):
            return self.getToken(StencilParser.SEMI, 0)
        def ID(self, i:int=None):
            if i is None:
                return self.getTokens(StencilParser.ID)
            else:
                return self.getToken(StencilParser.ID, i)

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitBoundaryDecl" ):
                return visitor.visitBoundaryDecl(self)
            else:
                return visitor.visitChildren(self)


    class UpdateDeclContext(DeclContext):

        def __init__(self, parser, ctx:ParserRuleContext): # actually a StencilParser.DeclContext
            super().__init__(parser)
            self.name = None # Token
            self.copyFrom(ctx)

        def PRIME(self):
            return self.getToken(StencilParser.PRIME, 0)
        def ASSIGN(self):
            return self.getToken(StencilParser.ASSIGN, 0)
        def expr(self):
            return self.getTypedRuleContext(StencilParser.ExprContext,0)

        def SEMI(self):
            return self.getToken(StencilParser.SEMI, 0)
        def ID(self):
            return self.getToken(StencilParser.ID, 0)

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitUpdateDecl" ):
                return visitor.visitUpdateDecl(self)
            else:
                return visitor.visitChildren(self)


    class ParamDeclContext(DeclContext):

        def __init__(self, parser, ctx:ParserRuleContext): # actually a StencilParser.DeclContext
            super().__init__(parser)
            self.name = None # Token
            self.copyFrom(ctx)

        def PARAM(self):
            return self.getToken(StencilParser.PARAM, 0)
        def ASSIGN(self):
            return self.getToken(StencilParser.ASSIGN, 0)
        def expr(self):
            return self.getTypedRuleContext(StencilParser.ExprContext,0)

        def SEMI(self):
            return self.getToken(StencilParser.SEMI, 0)
        def ID(self):
            return self.getToken(StencilParser.ID, 0)

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitParamDecl" ):
                return visitor.visitParamDecl(self)
            else:
                return visitor.visitChildren(self)


    class LetDeclContext(DeclContext):

        def __init__(self, parser, ctx:ParserRuleContext): # actually a StencilParser.DeclContext
            super().__init__(parser)
            self.name = None # Token
            self.copyFrom(ctx)

        def LET(self):
            return self.getToken(StencilParser.LET, 0)
        def ASSIGN(self):
            return self.getToken(StencilParser.ASSIGN, 0)
        def expr(self):
            return self.getTypedRuleContext(StencilParser.ExprContext,0)

        def SEMI(self):
            return self.getToken(StencilParser.SEMI, 0)
        def ID(self):
            return self.getToken(StencilParser.ID, 0)

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitLetDecl" ):
                return visitor.visitLetDecl(self)
            else:
                return visitor.visitChildren(self)


    class TableDeclContext(DeclContext):

        def __init__(self, parser, ctx:ParserRuleContext): # actually a StencilParser.DeclContext
            super().__init__(parser)
            self.name = None # Token
            self.copyFrom(ctx)

        def TABLE(self):
            return self.getToken(StencilParser.TABLE, 0)
        def ASSIGN(self):
            return self.getToken(StencilParser.ASSIGN, 0)
        def tableInit(self):
            return self.getTypedRuleContext(StencilParser.TableInitContext,0)

        def SEMI(self):
            return self.getToken(StencilParser.SEMI, 0)
        def ID(self):
            return self.getToken(StencilParser.ID, 0)
        def LBRACK(self, i:int=None):
            if i is None:
                return self.getTokens(StencilParser.LBRACK)
            else:
                return self.getToken(StencilParser.LBRACK, i)
        def number(self, i:int=None):
            if i is None:
                return self.getTypedRuleContexts(StencilParser.NumberContext)
            else:
                return self.getTypedRuleContext(StencilParser.NumberContext,i)

        def RBRACK(self, i:int=None):
            if i is None:
                return self.getTokens(StencilParser.RBRACK)
            else:
                return self.getToken(StencilParser.RBRACK, i)

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitTableDecl" ):
                return visitor.visitTableDecl(self)
            else:
                return visitor.visitChildren(self)


    class GridDeclContext(DeclContext):

        def __init__(self, parser, ctx:ParserRuleContext): # actually a StencilParser.DeclContext
            super().__init__(parser)
            self.dims = None # Token
            self.dtype = None # Token
            self.copyFrom(ctx)

        def GRID(self):
            return self.getToken(StencilParser.GRID, 0)
        def SEMI(self):
            return self.getToken(StencilParser.SEMI, 0)
        def DIMS(self):
            return self.getToken(StencilParser.DIMS, 0)
        def ID(self):
            return self.getToken(StencilParser.ID, 0)

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitGridDecl" ):
                return visitor.visitGridDecl(self)
            else:
                return visitor.visitChildren(self)


    class StateDeclContext(DeclContext):

        def __init__(self, parser, ctx:ParserRuleContext): # actually a StencilParser.DeclContext
            super().__init__(parser)
            self.name = None # Token
            self.levels = None # NumberContext
            self.copyFrom(ctx)

        def STATE(self):
            return self.getToken(StencilParser.STATE, 0)
        def SEMI(self):
            return self.getToken(StencilParser.SEMI, 0)
        def ID(self):
            return self.getToken(StencilParser.ID, 0)
        def LEVELS(self):
            return self.getToken(StencilParser.LEVELS, 0)
        def number(self):
            return self.getTypedRuleContext(StencilParser.NumberContext,0)


        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitStateDecl" ):
                return visitor.visitStateDecl(self)
            else:
                return visitor.visitChildren(self)



    def decl(self):

        localctx = StencilParser.DeclContext(self, self._ctx, self.state)
        self.enterRule(localctx, 2, self.RULE_decl)
        self._la = 0 # Token type
        try:
            self.state = 97
            self._errHandler.sync(self)
            token = self._input.LA(1)
            if token in [2]:
                localctx = StencilParser.GridDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 1)
                self.state = 32
                self.match(StencilParser.GRID)
                self.state = 33
                localctx.dims = self.match(StencilParser.DIMS)
                self.state = 34
                localctx.dtype = self.match(StencilParser.ID)
                self.state = 35
                self.match(StencilParser.SEMI)
                pass
            elif token in [3]:
                localctx = StencilParser.ParamDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 2)
                self.state = 36
                self.match(StencilParser.PARAM)
                self.state = 37
                localctx.name = self.match(StencilParser.ID)
                self.state = 38
                self.match(StencilParser.ASSIGN)
                self.state = 39
                self.expr(0)
                self.state = 40
                self.match(StencilParser.SEMI)
                pass
            elif token in [4]:
                localctx = StencilParser.StateDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 3)
                self.state = 42
                self.match(StencilParser.STATE)
                self.state = 43
                localctx.name = self.match(StencilParser.ID)
                self.state = 46
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                if _la==7:
                    self.state = 44
                    self.match(StencilParser.LEVELS)
                    self.state = 45
                    localctx.levels = self.number()


                self.state = 48
                self.match(StencilParser.SEMI)
                pass
            elif token in [5]:
                localctx = StencilParser.InputDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 4)
                self.state = 49
                self.match(StencilParser.INPUT)
                self.state = 50
                localctx.name = self.match(StencilParser.ID)
                self.state = 51
                self.match(StencilParser.SEMI)
                pass
            elif token in [6]:
                localctx = StencilParser.SeriesDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 5)
                self.state = 52
                self.match(StencilParser.SERIES)
                self.state = 53
                localctx.name = self.match(StencilParser.ID)
                self.state = 54
                self.match(StencilParser.SEMI)
                pass
            elif token in [8]:
                localctx = StencilParser.TableDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 6)
                self.state = 55
                self.match(StencilParser.TABLE)
                self.state = 56
                localctx.name = self.match(StencilParser.ID)
                self.state = 61 
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                while True:
                    self.state = 57
                    self.match(StencilParser.LBRACK)
                    self.state = 58
                    self.number()
                    self.state = 59
                    self.match(StencilParser.RBRACK)
                    self.state = 63 
                    self._errHandler.sync(self)
                    _la = self._input.LA(1)
                    if not (_la==26):
                        break

                self.state = 65
                self.match(StencilParser.ASSIGN)
                self.state = 66
                self.tableInit()
                self.state = 67
                self.match(StencilParser.SEMI)
                pass
            elif token in [9]:
                localctx = StencilParser.LetDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 7)
                self.state = 69
                self.match(StencilParser.LET)
                self.state = 70
                localctx.name = self.match(StencilParser.ID)
                self.state = 71
                self.match(StencilParser.ASSIGN)
                self.state = 72
                self.expr(0)
                self.state = 73
                self.match(StencilParser.SEMI)
                pass
            elif token in [17]:
                localctx = StencilParser.UpdateDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 8)
                self.state = 75
                localctx.name = self.match(StencilParser.ID)
                self.state = 76
                self.match(StencilParser.PRIME)
                self.state = 77
                self.match(StencilParser.ASSIGN)
                self.state = 78
                self.expr(0)
                self.state = 79
                self.match(StencilParser.SEMI)
                pass
            elif token in [10]:
                localctx = StencilParser.BoundaryDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 9)
                self.state = 81
                self.match(StencilParser.BOUNDARY)
                self.state = 83
                self._errHandler.sync(self)
                la_ = self._interp.adaptivePredict(self._input,3,self._ctx)
                if la_ == 1:
                    self.state = 82
                    localctx.field = self.match(StencilParser.ID)


                self.state = 85
                localctx.kind = self.match(StencilParser.ID)
                self.state = 86
                self.match(StencilParser.SEMI)
                pass
            elif token in [11]:
                localctx = StencilParser.InitDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 10)
                self.state = 87
                self.match(StencilParser.INIT)
                self.state = 88
                localctx.name = self.match(StencilParser.ID)
                self.state = 91
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                if _la==19:
                    self.state = 89
                    self.match(StencilParser.DOT)
                    self.state = 90
                    localctx.suffix = self.match(StencilParser.ID)


                self.state = 93
                self.match(StencilParser.ASSIGN)
                self.state = 94
                self.expr(0)
                self.state = 95
                self.match(StencilParser.SEMI)
                pass
            else:
                raise NoViableAltException(self)

        except RecognitionException as re:
            localctx.exception = re
            self._errHandler.reportError(self, re)
            self._errHandler.recover(self, re)
        finally:
            self.exitRule()
        return localctx


    class TableInitContext(ParserRuleContext):
        __slots__ = 'parser'

        def __init__(self, parser, parent:ParserRuleContext=None, invokingState:int=-1):
            super().__init__(parent, invokingState)
            self.parser = parser

        def LBRACE(self):
            return self.getToken(StencilParser.LBRACE, 0)

        def RBRACE(self):
            return self.getToken(StencilParser.RBRACE, 0)

        def tableItem(self, i:int=None):
            if i is None:
                return self.getTypedRuleContexts(StencilParser.TableItemContext)
            else:
                return self.getTypedRuleContext(StencilParser.TableItemContext,i)


        def COMMA(self, i:int=None):
            if i is None:
                return self.getTokens(StencilParser.COMMA)
            else:
                return self.getToken(StencilParser.COMMA, i)

        def getRuleIndex(self):
            return StencilParser.RULE_tableInit

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitTableInit" ):
                return visitor.visitTableInit(self)
            else:
                return visitor.visitChildren(self)




    def tableInit(self):

        localctx = StencilParser.TableInitContext(self, self._ctx, self.state)
        self.enterRule(localctx, 4, self.RULE_tableInit)
        self._la = 0 # Token type
        try:
            self.enterOuterAlt(localctx, 1)
            self.state = 99
            self.match(StencilParser.LBRACE)
            self.state = 111
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            if (((_la) & ~0x3f) == 0 and ((1 << _la) & 3506671616) != 0):
                self.state = 100
                self.tableItem()
                self.state = 105
                self._errHandler.sync(self)
                _alt = self._interp.adaptivePredict(self._input,6,self._ctx)
                while _alt!=2 and _alt!=ATN.INVALID_ALT_NUMBER:
                    if _alt==1:
                        self.state = 101
                        self.match(StencilParser.COMMA)
                        self.state = 102
                        self.tableItem() 
                    self.state = 107
                    self._errHandler.sync(self)
                    _alt = self._interp.adaptivePredict(self._input,6,self._ctx)

                self.state = 109
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                if _la==23:
                    self.state = 108
                    self.match(StencilParser.COMMA)




            self.state = 113
            self.match(StencilParser.RBRACE)
        except RecognitionException as re:
            localctx.exception = re
            self._errHandler.reportError(self, re)
            self._errHandler.recover(self, re)
        finally:
            self.exitRule()
        return localctx


    class TableItemContext(ParserRuleContext):
        __slots__ = 'parser'

        def __init__(self, parser, parent:ParserRuleContext=None, invokingState:int=-1):
            super().__init__(parent, invokingState)
            self.parser = parser

        def tableInit(self):
            return self.getTypedRuleContext(StencilParser.TableInitContext,0)


        def expr(self):
            return self.getTypedRuleContext(StencilParser.ExprContext,0)


        def getRuleIndex(self):
            return StencilParser.RULE_tableItem

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitTableItem" ):
                return visitor.visitTableItem(self)
            else:
                return visitor.visitChildren(self)




    def tableItem(self):

        localctx = StencilParser.TableItemContext(self, self._ctx, self.state)
        self.enterRule(localctx, 6, self.RULE_tableItem)
        try:
            self.state = 117
            self._errHandler.sync(self)
            token = self._input.LA(1)
            if token in [28]:
                self.enterOuterAlt(localctx, 1)
                self.state = 115
                self.tableInit()
                pass
            elif token in [12, 15, 16, 17, 24, 30, 31]:
                self.enterOuterAlt(localctx, 2)
                self.state = 116
                self.expr(0)
                pass
            else:
                raise NoViableAltException(self)

        except RecognitionException as re:
            localctx.exception = re
            self._errHandler.reportError(self, re)
            self._errHandler.recover(self, re)
        finally:
            self.exitRule()
        return localctx


    class ExprContext(ParserRuleContext):
        __slots__ = 'parser'

        def __init__(self, parser, parent:ParserRuleContext=None, invokingState:int=-1):
            super().__init__(parent, invokingState)
            self.parser = parser


        def getRuleIndex(self):
            return StencilParser.RULE_expr

     
        def copyFrom(self, ctx:ParserRuleContext):
            super().copyFrom(ctx)


    class UnaryExprContext(ExprContext):

        def __init__(self, parser, ctx:ParserRuleContext): # actually a StencilParser.ExprContext
            super().__init__(parser)
            self.op = None # Token
            self.operand = None # ExprContext
            self.copyFrom(ctx)

        def expr(self):
            return self.getTypedRuleContext(StencilParser.ExprContext,0)

        def MINUS(self):
            return self.getToken(StencilParser.MINUS, 0)
        def PLUS(self):
            return self.getToken(StencilParser.PLUS, 0)

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitUnaryExpr" ):
                return visitor.visitUnaryExpr(self)
            else:
                return visitor.visitChildren(self)


    class PrimaryExprContext(ExprContext):

        def __init__(self, parser, ctx:ParserRuleContext): # actually a StencilParser.ExprContext
            super().__init__(parser)
            self.copyFrom(ctx)

        def primary(self):
            return self.getTypedRuleContext(StencilParser.PrimaryContext,0)


        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitPrimaryExpr" ):
                return visitor.visitPrimaryExpr(self)
            else:
                return visitor.visitChildren(self)


    class SumExprContext(ExprContext):

        def __init__(self, parser, ctx:ParserRuleContext): # actually a StencilParser.ExprContext
            super().__init__(parser)
            self.body = None # ExprContext
            self.copyFrom(ctx)

        def SUM(self):
            return self.getToken(StencilParser.SUM, 0)
        def LPAREN(self):
            return self.getToken(StencilParser.LPAREN, 0)
        def sumRange(self, i:int=None):
            if i is None:
                return self.getTypedRuleContexts(StencilParser.SumRangeContext)
            else:
                return self.getTypedRuleContext(StencilParser.SumRangeContext,i)

        def RPAREN(self):
            return self.getToken(StencilParser.RPAREN, 0)
        def expr(self):
            return self.getTypedRuleContext(StencilParser.ExprContext,0)

        def COMMA(self, i:int=None):
            if i is None:
                return self.getTokens(StencilParser.COMMA)
            else:
                return self.getToken(StencilParser.COMMA, i)

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitSumExpr" ):
                return visitor.visitSumExpr(self)
            else:
                return visitor.visitChildren(self)


    class AddExprContext(ExprContext):

        def __init__(self, parser, ctx:ParserRuleContext): # actually a StencilParser.ExprContext
            super().__init__(parser)
            self.lhs = None # ExprContext
            self.op = None # Token
            self.rhs = None # ExprContext
            self.copyFrom(ctx)

        def expr(self, i:int=None):
            if i is None:
                return self.getTypedRuleContexts(StencilParser.ExprContext)
            else:
                return self.getTypedRuleContext(StencilParser.ExprContext,i)

        def PLUS(self):
            return self.getToken(StencilParser.PLUS, 0)
        def MINUS(self):
            return self.getToken(StencilParser.MINUS, 0)

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitAddExpr" ):
                return visitor.visitAddExpr(self)
            else:
                return visitor.visitChildren(self)


    class MulExprContext(ExprContext):

        def __init__(self, parser, ctx:ParserRuleContext): # actually a StencilParser.ExprContext
            super().__init__(parser)
            self.lhs = None # ExprContext
            self.op = None # Token
            self.rhs = None # ExprContext
            self.copyFrom(ctx)

        def expr(self, i:int=None):
            if i is None:
                return self.getTypedRuleContexts(StencilParser.ExprContext)
            else:
                return self.getTypedRuleContext(StencilParser.ExprContext,i)

        def STAR(self):
            return self.getToken(StencilParser.STAR, 0)
        def SLASH(self):
            return self.getToken(StencilParser.SLASH, 0)

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitMulExpr" ):
                return visitor.visitMulExpr(self)
            else:
                return visitor.visitChildren(self)


    class PowExprContext(ExprContext):

        def __init__(self, parser, ctx:ParserRuleContext): # actually a StencilParser.ExprContext
            super().__init__(parser)
            self.lhs = None # ExprContext
            self.op = None # Token
            self.rhs = None # ExprContext
            self.copyFrom(ctx)

        def expr(self, i:int=None):
            if i is None:
                return self.getTypedRuleContexts(StencilParser.ExprContext)
            else:
                return self.getTypedRuleContext(StencilParser.ExprContext,i)

        def CARET(self):
            return self.getToken(StencilParser.CARET, 0)

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitPowExpr" ):
                return visitor.visitPowExpr(self)
            else:
                return visitor.visitChildren(self)



    def expr(self, _p:int=0):
        _parentctx = self._ctx
        _parentState = self.state
        localctx = StencilParser.ExprContext(self, self._ctx, _parentState)
        _prevctx = localctx
        _startState = 8
        self.enterRecursionRule(localctx, 8, self.RULE_expr, _p)
        self._la = 0 # Token type
        try:
            self.enterOuterAlt(localctx, 1)
            self.state = 136
            self._errHandler.sync(self)
            token = self._input.LA(1)
            if token in [15, 16, 17, 24]:
                localctx = StencilParser.PrimaryExprContext(self, localctx)
                self._ctx = localctx
                _prevctx = localctx

                self.state = 120
                self.primary()
                pass
            elif token in [30, 31]:
                localctx = StencilParser.UnaryExprContext(self, localctx)
                self._ctx = localctx
                _prevctx = localctx
                self.state = 121
                localctx.op = self._input.LT(1)
                _la = self._input.LA(1)
                if not(_la==30 or _la==31):
                    localctx.op = self._errHandler.recoverInline(self)
                else:
                    self._errHandler.reportMatch(self)
                    self.consume()
                self.state = 122
                localctx.operand = self.expr(4)
                pass
            elif token in [12]:
                localctx = StencilParser.SumExprContext(self, localctx)
                self._ctx = localctx
                _prevctx = localctx
                self.state = 123
                self.match(StencilParser.SUM)
                self.state = 124
                self.match(StencilParser.LPAREN)
                self.state = 125
                self.sumRange()
                self.state = 130
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                while _la==23:
                    self.state = 126
                    self.match(StencilParser.COMMA)
                    self.state = 127
                    self.sumRange()
                    self.state = 132
                    self._errHandler.sync(self)
                    _la = self._input.LA(1)

                self.state = 133
                self.match(StencilParser.RPAREN)
                self.state = 134
                localctx.body = self.expr(2)
                pass
            else:
                raise NoViableAltException(self)

            self._ctx.stop = self._input.LT(-1)
            self.state = 149
            self._errHandler.sync(self)
            _alt = self._interp.adaptivePredict(self._input,13,self._ctx)
            while _alt!=2 and _alt!=ATN.INVALID_ALT_NUMBER:
                if _alt==1:
                    if self._parseListeners is not None:
                        self.triggerExitRuleEvent()
                    _prevctx = localctx
                    self.state = 147
                    self._errHandler.sync(self)
                    la_ = self._interp.adaptivePredict(self._input,12,self._ctx)
                    if la_ == 1:
                        localctx = StencilParser.PowExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 138
                        if not self.precpred(self._ctx, 5):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 5)")
                        self.state = 139
                        localctx.op = self.match(StencilParser.CARET)
                        self.state = 140
                        localctx.rhs = self.expr(5)
                        pass

                    elif la_ == 2:
                        localctx = StencilParser.MulExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 141
                        if not self.precpred(self._ctx, 3):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 3)")
                        self.state = 142
                        localctx.op = self._input.LT(1)
                        _la = self._input.LA(1)
                        if not(_la==32 or _la==33):
                            localctx.op = self._errHandler.recoverInline(self)
                        else:
                            self._errHandler.reportMatch(self)
                            self.consume()
                        self.state = 143
                        localctx.rhs = self.expr(4)
                        pass

                    elif la_ == 3:
                        localctx = StencilParser.AddExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 144
                        if not self.precpred(self._ctx, 1):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 1)")
                        self.state = 145
                        localctx.op = self._input.LT(1)
                        _la = self._input.LA(1)
                        if not(_la==30 or _la==31):
                            localctx.op = self._errHandler.recoverInline(self)
                        else:
                            self._errHandler.reportMatch(self)
                            self.consume()
                        self.state = 146
                        localctx.rhs = self.expr(2)
                        pass

             
                self.state = 151
                self._errHandler.sync(self)
                _alt = self._interp.adaptivePredict(self._input,13,self._ctx)

        except RecognitionException as re:
            localctx.exception = re
            self._errHandler.reportError(self, re)
            self._errHandler.recover(self, re)
        finally:
            self.unrollRecursionContexts(_parentctx)
        return localctx


    class SumRangeContext(ParserRuleContext):
        __slots__ = 'parser'

        def __init__(self, parser, parent:ParserRuleContext=None, invokingState:int=-1):
            super().__init__(parent, invokingState)
            self.parser = parser
            self.var = None # Token
            self.lo = None # SignedNumberContext
            self.hi = None # SignedNumberContext

        def IN(self):
            return self.getToken(StencilParser.IN, 0)

        def DOTDOT(self):
            return self.getToken(StencilParser.DOTDOT, 0)

        def ID(self):
            return self.getToken(StencilParser.ID, 0)

        def signedNumber(self, i:int=None):
            if i is None:
                return self.getTypedRuleContexts(StencilParser.SignedNumberContext)
            else:
                return self.getTypedRuleContext(StencilParser.SignedNumberContext,i)


        def getRuleIndex(self):
            return StencilParser.RULE_sumRange

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitSumRange" ):
                return visitor.visitSumRange(self)
            else:
                return visitor.visitChildren(self)




    def sumRange(self):

        localctx = StencilParser.SumRangeContext(self, self._ctx, self.state)
        self.enterRule(localctx, 10, self.RULE_sumRange)
        try:
            self.enterOuterAlt(localctx, 1)
            self.state = 152
            localctx.var = self.match(StencilParser.ID)
            self.state = 153
            self.match(StencilParser.IN)
            self.state = 154
            localctx.lo = self.signedNumber()
            self.state = 155
            self.match(StencilParser.DOTDOT)
            self.state = 156
            localctx.hi = self.signedNumber()
        except RecognitionException as re:
            localctx.exception = re
            self._errHandler.reportError(self, re)
            self._errHandler.recover(self, re)
        finally:
            self.exitRule()
        return localctx


    class SignedNumberContext(ParserRuleContext):
        __slots__ = 'parser'

        def __init__(self, parser, parent:ParserRuleContext=None, invokingState:int=-1):
            super().__init__(parent, invokingState)
            self.parser = parser
            self.sign = None # Token

        def number(self):
            return self.getTypedRuleContext(StencilParser.NumberContext,0)


        def MINUS(self):
            return self.getToken(StencilParser.MINUS, 0)

        def PLUS(self):
            return self.getToken(StencilParser.PLUS, 0)

        def getRuleIndex(self):
            return StencilParser.RULE_signedNumber

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitSignedNumber" ):
                return visitor.visitSignedNumber(self)
            else:
                return visitor.visitChildren(self)




    def signedNumber(self):

        localctx = StencilParser.SignedNumberContext(self, self._ctx, self.state)
        self.enterRule(localctx, 12, self.RULE_signedNumber)
        self._la = 0 # Token type
        try:
            self.enterOuterAlt(localctx, 1)
            self.state = 159
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            if _la==30 or _la==31:
                self.state = 158
                localctx.sign = self._input.LT(1)
                _la = self._input.LA(1)
                if not(_la==30 or _la==31):
                    localctx.sign = self._errHandler.recoverInline(self)
                else:
                    self._errHandler.reportMatch(self)
                    self.consume()


            self.state = 161
            self.number()
        except RecognitionException as re:
            localctx.exception = re
            self._errHandler.reportError(self, re)
            self._errHandler.recover(self, re)
        finally:
            self.exitRule()
        return localctx


    class NumberContext(ParserRuleContext):
        __slots__ = 'parser'

        def __init__(self, parser, parent:ParserRuleContext=None, invokingState:int=-1):
            super().__init__(parent, invokingState)
            self.parser = parser

        def INT(self):
            return self.getToken(StencilParser.INT, 0)

        def FLOAT(self):
            return self.getToken(StencilParser.FLOAT, 0)

        def getRuleIndex(self):
            return StencilParser.RULE_number

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitNumber" ):
                return visitor.visitNumber(self)
            else:
                return visitor.visitChildren(self)




    def number(self):

        localctx = StencilParser.NumberContext(self, self._ctx, self.state)
        self.enterRule(localctx, 14, self.RULE_number)
        self._la = 0 # Token type
        try:
            self.enterOuterAlt(localctx, 1)
            self.state = 163
            _la = self._input.LA(1)
            if not(_la==15 or _la==16):
                self._errHandler.recoverInline(self)
            else:
                self._errHandler.reportMatch(self)
                self.consume()
        except RecognitionException as re:
            localctx.exception = re
            self._errHandler.reportError(self, re)
            self._errHandler.recover(self, re)
        finally:
            self.exitRule()
        return localctx


    class PrimaryContext(ParserRuleContext):
        __slots__ = 'parser'

        def __init__(self, parser, parent:ParserRuleContext=None, invokingState:int=-1):
            super().__init__(parent, invokingState)
            self.parser = parser


        def getRuleIndex(self):
            return StencilParser.RULE_primary

     
        def copyFrom(self, ctx:ParserRuleContext):
            super().copyFrom(ctx)



    class ParenPrimaryContext(PrimaryContext):

        def __init__(self, parser, ctx:ParserRuleContext): # actually a StencilParser.PrimaryContext
            super().__init__(parser)
            self.copyFrom(ctx)

        def LPAREN(self):
            return self.getToken(StencilParser.LPAREN, 0)
        def expr(self):
            return self.getTypedRuleContext(StencilParser.ExprContext,0)

        def RPAREN(self):
            return self.getToken(StencilParser.RPAREN, 0)

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitParenPrimary" ):
                return visitor.visitParenPrimary(self)
            else:
                return visitor.visitChildren(self)


    class CallPrimaryContext(PrimaryContext):

        def __init__(self, parser, ctx:ParserRuleContext): # actually a StencilParser.PrimaryContext
            super().__init__(parser)
            self.func = None # Token
            self.copyFrom(ctx)

        def LPAREN(self):
            return self.getToken(StencilParser.LPAREN, 0)
        def RPAREN(self):
            return self.getToken(StencilParser.RPAREN, 0)
        def ID(self):
            return self.getToken(StencilParser.ID, 0)
        def expr(self, i:int=None):
            if i is None:
                return self.getTypedRuleContexts(StencilParser.ExprContext)
            else:
                return self.getTypedRuleContext(StencilParser.ExprContext,i)

        def COMMA(self, i:int=None):
            if i is None:
                return self.getTokens(StencilParser.COMMA)
            else:
                return self.getToken(StencilParser.COMMA, i)

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitCallPrimary" ):
                return visitor.visitCallPrimary(self)
            else:
                return visitor.visitChildren(self)


    class RefPrimaryContext(PrimaryContext):

        def __init__(self, parser, ctx:ParserRuleContext): # actually a StencilParser.PrimaryContext
            super().__init__(parser)
            self.name = None # Token
            self.new = None # Token
            self.suffix = None # Token
            self.copyFrom(ctx)

        def ID(self, i:int=None):
            if i is None:
                return self.getTokens(StencilParser.ID)
            else:
                return self.getToken(StencilParser.ID, i)
        def DOT(self):
            return self.getToken(StencilParser.DOT, 0)
        def subscript(self, i:int=None):
            if i is None:
                return self.getTypedRuleContexts(StencilParser.SubscriptContext)
            else:
                return self.getTypedRuleContext(StencilParser.SubscriptContext,i)

        def PRIME(self):
            return self.getToken(StencilParser.PRIME, 0)

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitRefPrimary" ):
                return visitor.visitRefPrimary(self)
            else:
                return visitor.visitChildren(self)


    class NumberPrimaryContext(PrimaryContext):

        def __init__(self, parser, ctx:ParserRuleContext): # actually a StencilParser.PrimaryContext
            super().__init__(parser)
            self.copyFrom(ctx)

        def number(self):
            return self.getTypedRuleContext(StencilParser.NumberContext,0)


        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitNumberPrimary" ):
                return visitor.visitNumberPrimary(self)
            else:
                return visitor.visitChildren(self)



    def primary(self):

        localctx = StencilParser.PrimaryContext(self, self._ctx, self.state)
        self.enterRule(localctx, 16, self.RULE_primary)
        self._la = 0 # Token type
        try:
            self.state = 197
            self._errHandler.sync(self)
            la_ = self._interp.adaptivePredict(self._input,20,self._ctx)
            if la_ == 1:
                localctx = StencilParser.NumberPrimaryContext(self, localctx)
                self.enterOuterAlt(localctx, 1)
                self.state = 165
                self.number()
                pass

            elif la_ == 2:
                localctx = StencilParser.CallPrimaryContext(self, localctx)
                self.enterOuterAlt(localctx, 2)
                self.state = 166
                localctx.func = self.match(StencilParser.ID)
                self.state = 167
                self.match(StencilParser.LPAREN)
                self.state = 176
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                if (((_la) & ~0x3f) == 0 and ((1 << _la) & 3238236160) != 0):
                    self.state = 168
                    self.expr(0)
                    self.state = 173
                    self._errHandler.sync(self)
                    _la = self._input.LA(1)
                    while _la==23:
                        self.state = 169
                        self.match(StencilParser.COMMA)
                        self.state = 170
                        self.expr(0)
                        self.state = 175
                        self._errHandler.sync(self)
                        _la = self._input.LA(1)



                self.state = 178
                self.match(StencilParser.RPAREN)
                pass

            elif la_ == 3:
                localctx = StencilParser.RefPrimaryContext(self, localctx)
                self.enterOuterAlt(localctx, 3)
                self.state = 179
                localctx.name = self.match(StencilParser.ID)
                self.state = 181
                self._errHandler.sync(self)
                la_ = self._interp.adaptivePredict(self._input,17,self._ctx)
                if la_ == 1:
                    self.state = 180
                    localctx.new = self.match(StencilParser.PRIME)


                self.state = 185
                self._errHandler.sync(self)
                la_ = self._interp.adaptivePredict(self._input,18,self._ctx)
                if la_ == 1:
                    self.state = 183
                    self.match(StencilParser.DOT)
                    self.state = 184
                    localctx.suffix = self.match(StencilParser.ID)


                self.state = 190
                self._errHandler.sync(self)
                _alt = self._interp.adaptivePredict(self._input,19,self._ctx)
                while _alt!=2 and _alt!=ATN.INVALID_ALT_NUMBER:
                    if _alt==1:
                        self.state = 187
                        self.subscript() 
                    self.state = 192
                    self._errHandler.sync(self)
                    _alt = self._interp.adaptivePredict(self._input,19,self._ctx)

                pass

            elif la_ == 4:
                localctx = StencilParser.ParenPrimaryContext(self, localctx)
                self.enterOuterAlt(localctx, 4)
                self.state = 193
                self.match(StencilParser.LPAREN)
                self.state = 194
                self.expr(0)
                self.state = 195
                self.match(StencilParser.RPAREN)
                pass


        except RecognitionException as re:
            localctx.exception = re
            self._errHandler.reportError(self, re)
            self._errHandler.recover(self, re)
        finally:
            self.exitRule()
        return localctx


    class SubscriptContext(ParserRuleContext):
        __slots__ = 'parser'

        def __init__(self, parser, parent:ParserRuleContext=None, invokingState:int=-1):
            super().__init__(parent, invokingState)
            self.parser = parser

        def LBRACK(self):
            return self.getToken(StencilParser.LBRACK, 0)

        def expr(self, i:int=None):
            if i is None:
                return self.getTypedRuleContexts(StencilParser.ExprContext)
            else:
                return self.getTypedRuleContext(StencilParser.ExprContext,i)


        def RBRACK(self):
            return self.getToken(StencilParser.RBRACK, 0)

        def COMMA(self, i:int=None):
            if i is None:
                return self.getTokens(StencilParser.COMMA)
            else:
                return self.getToken(StencilParser.COMMA, i)

        def getRuleIndex(self):
            return StencilParser.RULE_subscript

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitSubscript" ):
                return visitor.visitSubscript(self)
            else:
                return visitor.visitChildren(self)




    def subscript(self):

        localctx = StencilParser.SubscriptContext(self, self._ctx, self.state)
        self.enterRule(localctx, 18, self.RULE_subscript)
        self._la = 0 # Token type
        try:
            self.enterOuterAlt(localctx, 1)
            self.state = 199
            self.match(StencilParser.LBRACK)
            self.state = 200
            self.expr(0)
            self.state = 205
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            while _la==23:
                self.state = 201
                self.match(StencilParser.COMMA)
                self.state = 202
                self.expr(0)
                self.state = 207
                self._errHandler.sync(self)
                _la = self._input.LA(1)

            self.state = 208
            self.match(StencilParser.RBRACK)
        except RecognitionException as re:
            localctx.exception = re
            self._errHandler.reportError(self, re)
            self._errHandler.recover(self, re)
        finally:
            self.exitRule()
        return localctx



    def sempred(self, localctx:RuleContext, ruleIndex:int, predIndex:int):
        if self._predicates == None:
            self._predicates = dict()
        self._predicates[4] = self.expr_sempred
        pred = self._predicates.get(ruleIndex, None)
        if pred is None:
            raise Exception("No predicate with index:" + str(ruleIndex))
        else:
            return pred(localctx, predIndex)

    def expr_sempred(self, localctx:ExprContext, predIndex:int):
            if predIndex == 0:
                return self.precpred(self._ctx, 5)
         

            if predIndex == 1:
                return self.precpred(self._ctx, 3)
         

            if predIndex == 2:
                return self.precpred(self._ctx, 1)
         




