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
        4,1,53,258,2,0,7,0,2,1,7,1,2,2,7,2,2,3,7,3,2,4,7,4,2,5,7,5,2,6,7,
        6,2,7,7,7,2,8,7,8,2,9,7,9,1,0,1,0,1,0,1,0,5,0,25,8,0,10,0,12,0,28,
        9,0,1,0,1,0,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
        1,1,1,1,3,1,47,8,1,1,1,1,1,1,1,1,1,1,1,3,1,54,8,1,1,1,1,1,1,1,1,
        1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
        1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,4,1,85,8,1,11,1,12,1,86,1,
        1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
        1,1,1,3,1,107,8,1,1,1,1,1,5,1,111,8,1,10,1,12,1,114,9,1,1,1,1,1,
        1,1,1,1,1,1,3,1,121,8,1,1,1,1,1,1,1,1,1,3,1,127,8,1,1,2,1,2,1,2,
        1,2,5,2,133,8,2,10,2,12,2,136,9,2,1,2,3,2,139,8,2,3,2,141,8,2,1,
        2,1,2,1,3,1,3,3,3,147,8,3,1,4,1,4,1,4,1,4,1,4,1,4,1,4,1,4,1,4,5,
        4,158,8,4,10,4,12,4,161,9,4,1,4,1,4,1,4,3,4,166,8,4,1,4,1,4,1,4,
        1,4,1,4,1,4,1,4,1,4,1,4,1,4,1,4,1,4,1,4,1,4,1,4,1,4,1,4,1,4,1,4,
        1,4,1,4,1,4,1,4,1,4,1,4,1,4,1,4,5,4,195,8,4,10,4,12,4,198,9,4,1,
        5,1,5,1,5,1,5,1,5,1,5,1,6,3,6,207,8,6,1,6,1,6,1,7,1,7,1,8,1,8,1,
        8,1,8,1,8,1,8,5,8,219,8,8,10,8,12,8,222,9,8,3,8,224,8,8,1,8,1,8,
        1,8,3,8,229,8,8,1,8,1,8,3,8,233,8,8,1,8,5,8,236,8,8,10,8,12,8,239,
        9,8,1,8,1,8,1,8,1,8,3,8,245,8,8,1,9,1,9,1,9,1,9,5,9,251,8,9,10,9,
        12,9,254,9,9,1,9,1,9,1,9,0,1,8,10,0,2,4,6,8,10,12,14,16,18,0,6,2,
        0,32,32,47,48,1,0,49,50,1,0,47,48,2,0,24,25,30,31,1,0,26,27,1,0,
        20,21,291,0,20,1,0,0,0,2,126,1,0,0,0,4,128,1,0,0,0,6,146,1,0,0,0,
        8,165,1,0,0,0,10,199,1,0,0,0,12,206,1,0,0,0,14,210,1,0,0,0,16,244,
        1,0,0,0,18,246,1,0,0,0,20,21,5,1,0,0,21,22,5,22,0,0,22,26,5,45,0,
        0,23,25,3,2,1,0,24,23,1,0,0,0,25,28,1,0,0,0,26,24,1,0,0,0,26,27,
        1,0,0,0,27,29,1,0,0,0,28,26,1,0,0,0,29,30,5,46,0,0,30,31,5,0,0,1,
        31,1,1,0,0,0,32,33,5,2,0,0,33,34,5,19,0,0,34,35,5,22,0,0,35,127,
        5,39,0,0,36,37,5,3,0,0,37,38,5,22,0,0,38,39,5,38,0,0,39,40,3,8,4,
        0,40,41,5,39,0,0,41,127,1,0,0,0,42,43,5,4,0,0,43,46,5,22,0,0,44,
        45,5,12,0,0,45,47,3,14,7,0,46,44,1,0,0,0,46,47,1,0,0,0,47,48,1,0,
        0,0,48,127,5,39,0,0,49,50,5,5,0,0,50,53,5,22,0,0,51,52,5,11,0,0,
        52,54,5,22,0,0,53,51,1,0,0,0,53,54,1,0,0,0,54,55,1,0,0,0,55,127,
        5,39,0,0,56,57,5,6,0,0,57,58,5,22,0,0,58,127,5,39,0,0,59,60,5,7,
        0,0,60,61,5,22,0,0,61,127,5,39,0,0,62,63,5,8,0,0,63,64,5,22,0,0,
        64,65,5,10,0,0,65,66,5,22,0,0,66,67,5,37,0,0,67,68,3,8,4,0,68,69,
        5,39,0,0,69,127,1,0,0,0,70,71,5,9,0,0,71,72,5,22,0,0,72,73,5,38,
        0,0,73,74,3,8,4,0,74,75,5,10,0,0,75,76,5,22,0,0,76,77,5,39,0,0,77,
        127,1,0,0,0,78,79,5,13,0,0,79,84,5,22,0,0,80,81,5,43,0,0,81,82,3,
        14,7,0,82,83,5,44,0,0,83,85,1,0,0,0,84,80,1,0,0,0,85,86,1,0,0,0,
        86,84,1,0,0,0,86,87,1,0,0,0,87,88,1,0,0,0,88,89,5,38,0,0,89,90,3,
        4,2,0,90,91,5,39,0,0,91,127,1,0,0,0,92,93,5,14,0,0,93,94,5,22,0,
        0,94,95,5,38,0,0,95,96,3,8,4,0,96,97,5,39,0,0,97,127,1,0,0,0,98,
        99,5,22,0,0,99,100,5,36,0,0,100,101,5,38,0,0,101,102,3,8,4,0,102,
        103,5,39,0,0,103,127,1,0,0,0,104,106,5,15,0,0,105,107,5,22,0,0,106,
        105,1,0,0,0,106,107,1,0,0,0,107,108,1,0,0,0,108,112,5,22,0,0,109,
        111,5,22,0,0,110,109,1,0,0,0,111,114,1,0,0,0,112,110,1,0,0,0,112,
        113,1,0,0,0,113,115,1,0,0,0,114,112,1,0,0,0,115,127,5,39,0,0,116,
        117,5,16,0,0,117,120,5,22,0,0,118,119,5,35,0,0,119,121,5,22,0,0,
        120,118,1,0,0,0,120,121,1,0,0,0,121,122,1,0,0,0,122,123,5,38,0,0,
        123,124,3,8,4,0,124,125,5,39,0,0,125,127,1,0,0,0,126,32,1,0,0,0,
        126,36,1,0,0,0,126,42,1,0,0,0,126,49,1,0,0,0,126,56,1,0,0,0,126,
        59,1,0,0,0,126,62,1,0,0,0,126,70,1,0,0,0,126,78,1,0,0,0,126,92,1,
        0,0,0,126,98,1,0,0,0,126,104,1,0,0,0,126,116,1,0,0,0,127,3,1,0,0,
        0,128,140,5,45,0,0,129,134,3,6,3,0,130,131,5,40,0,0,131,133,3,6,
        3,0,132,130,1,0,0,0,133,136,1,0,0,0,134,132,1,0,0,0,134,135,1,0,
        0,0,135,138,1,0,0,0,136,134,1,0,0,0,137,139,5,40,0,0,138,137,1,0,
        0,0,138,139,1,0,0,0,139,141,1,0,0,0,140,129,1,0,0,0,140,141,1,0,
        0,0,141,142,1,0,0,0,142,143,5,46,0,0,143,5,1,0,0,0,144,147,3,4,2,
        0,145,147,3,8,4,0,146,144,1,0,0,0,146,145,1,0,0,0,147,7,1,0,0,0,
        148,149,6,4,-1,0,149,166,3,16,8,0,150,151,7,0,0,0,151,166,3,8,4,
        9,152,153,5,17,0,0,153,154,5,41,0,0,154,159,3,10,5,0,155,156,5,40,
        0,0,156,158,3,10,5,0,157,155,1,0,0,0,158,161,1,0,0,0,159,157,1,0,
        0,0,159,160,1,0,0,0,160,162,1,0,0,0,161,159,1,0,0,0,162,163,5,42,
        0,0,163,164,3,8,4,7,164,166,1,0,0,0,165,148,1,0,0,0,165,150,1,0,
        0,0,165,152,1,0,0,0,166,196,1,0,0,0,167,168,10,10,0,0,168,169,5,
        51,0,0,169,195,3,8,4,10,170,171,10,8,0,0,171,172,7,1,0,0,172,195,
        3,8,4,9,173,174,10,6,0,0,174,175,7,2,0,0,175,195,3,8,4,7,176,177,
        10,5,0,0,177,178,7,3,0,0,178,195,3,8,4,6,179,180,10,4,0,0,180,181,
        7,4,0,0,181,195,3,8,4,5,182,183,10,3,0,0,183,184,5,28,0,0,184,195,
        3,8,4,4,185,186,10,2,0,0,186,187,5,29,0,0,187,195,3,8,4,3,188,189,
        10,1,0,0,189,190,5,33,0,0,190,191,3,8,4,0,191,192,5,34,0,0,192,193,
        3,8,4,1,193,195,1,0,0,0,194,167,1,0,0,0,194,170,1,0,0,0,194,173,
        1,0,0,0,194,176,1,0,0,0,194,179,1,0,0,0,194,182,1,0,0,0,194,185,
        1,0,0,0,194,188,1,0,0,0,195,198,1,0,0,0,196,194,1,0,0,0,196,197,
        1,0,0,0,197,9,1,0,0,0,198,196,1,0,0,0,199,200,5,22,0,0,200,201,5,
        18,0,0,201,202,3,12,6,0,202,203,5,23,0,0,203,204,3,12,6,0,204,11,
        1,0,0,0,205,207,7,2,0,0,206,205,1,0,0,0,206,207,1,0,0,0,207,208,
        1,0,0,0,208,209,3,14,7,0,209,13,1,0,0,0,210,211,7,5,0,0,211,15,1,
        0,0,0,212,245,3,14,7,0,213,214,5,22,0,0,214,223,5,41,0,0,215,220,
        3,8,4,0,216,217,5,40,0,0,217,219,3,8,4,0,218,216,1,0,0,0,219,222,
        1,0,0,0,220,218,1,0,0,0,220,221,1,0,0,0,221,224,1,0,0,0,222,220,
        1,0,0,0,223,215,1,0,0,0,223,224,1,0,0,0,224,225,1,0,0,0,225,245,
        5,42,0,0,226,228,5,22,0,0,227,229,5,36,0,0,228,227,1,0,0,0,228,229,
        1,0,0,0,229,232,1,0,0,0,230,231,5,35,0,0,231,233,5,22,0,0,232,230,
        1,0,0,0,232,233,1,0,0,0,233,237,1,0,0,0,234,236,3,18,9,0,235,234,
        1,0,0,0,236,239,1,0,0,0,237,235,1,0,0,0,237,238,1,0,0,0,238,245,
        1,0,0,0,239,237,1,0,0,0,240,241,5,41,0,0,241,242,3,8,4,0,242,243,
        5,42,0,0,243,245,1,0,0,0,244,212,1,0,0,0,244,213,1,0,0,0,244,226,
        1,0,0,0,244,240,1,0,0,0,245,17,1,0,0,0,246,247,5,43,0,0,247,252,
        3,8,4,0,248,249,5,40,0,0,249,251,3,8,4,0,250,248,1,0,0,0,251,254,
        1,0,0,0,252,250,1,0,0,0,252,253,1,0,0,0,253,255,1,0,0,0,254,252,
        1,0,0,0,255,256,5,44,0,0,256,19,1,0,0,0,24,26,46,53,86,106,112,120,
        126,134,138,140,146,159,165,194,196,206,220,223,228,232,237,244,
        252
    ]

class StencilParser ( Parser ):

    grammarFileName = "Stencil.g4"

    atn = ATNDeserializer().deserialize(serializedATN())

    decisionsToDFA = [ DFA(ds, i) for i, ds in enumerate(atn.decisionToState) ]

    sharedContextCache = PredictionContextCache()

    literalNames = [ "<INVALID>", "'stencil'", "'grid'", "'param'", "'state'", 
                     "'input'", "'series'", "'points'", "'inject'", "'record'", 
                     "'at'", "'along'", "'levels'", "'table'", "'let'", 
                     "'boundary'", "'init'", "'sum'", "'in'", "<INVALID>", 
                     "<INVALID>", "<INVALID>", "<INVALID>", "'..'", "'<='", 
                     "'>='", "'=='", "'!='", "'&&'", "'||'", "'<'", "'>'", 
                     "'!'", "'?'", "':'", "'.'", "'''", "'+='", "'='", "';'", 
                     "','", "'('", "')'", "'['", "']'", "'{'", "'}'", "'+'", 
                     "'-'", "'*'", "'/'", "'^'" ]

    symbolicNames = [ "<INVALID>", "STENCIL", "GRID", "PARAM", "STATE", 
                      "INPUT", "SERIES", "POINTS", "INJECT", "RECORD", "AT", 
                      "ALONG", "LEVELS", "TABLE", "LET", "BOUNDARY", "INIT", 
                      "SUM", "IN", "DIMS", "FLOAT", "INT", "ID", "DOTDOT", 
                      "LE", "GE", "EQ", "NE", "AND", "OR", "LT", "GT", "NOT", 
                      "QUESTION", "COLON", "DOT", "PRIME", "PLUSEQ", "ASSIGN", 
                      "SEMI", "COMMA", "LPAREN", "RPAREN", "LBRACK", "RBRACK", 
                      "LBRACE", "RBRACE", "PLUS", "MINUS", "STAR", "SLASH", 
                      "CARET", "LINE_COMMENT", "WS" ]

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
    POINTS=7
    INJECT=8
    RECORD=9
    AT=10
    ALONG=11
    LEVELS=12
    TABLE=13
    LET=14
    BOUNDARY=15
    INIT=16
    SUM=17
    IN=18
    DIMS=19
    FLOAT=20
    INT=21
    ID=22
    DOTDOT=23
    LE=24
    GE=25
    EQ=26
    NE=27
    AND=28
    OR=29
    LT=30
    GT=31
    NOT=32
    QUESTION=33
    COLON=34
    DOT=35
    PRIME=36
    PLUSEQ=37
    ASSIGN=38
    SEMI=39
    COMMA=40
    LPAREN=41
    RPAREN=42
    LBRACK=43
    RBRACK=44
    LBRACE=45
    RBRACE=46
    PLUS=47
    MINUS=48
    STAR=49
    SLASH=50
    CARET=51
    LINE_COMMENT=52
    WS=53

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
            while (((_la) & ~0x3f) == 0 and ((1 << _la) & 4318204) != 0):
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
            self.axis = None # Token
            self.copyFrom(ctx)

        def INPUT(self):
            return self.getToken(StencilParser.INPUT, 0)
        def SEMI(self):
            return self.getToken(StencilParser.SEMI, 0)
        def ID(self, i:int=None):
            if i is None:
                return self.getTokens(StencilParser.ID)
            else:
                return self.getToken(StencilParser.ID, i)
        def ALONG(self):
            return self.getToken(StencilParser.ALONG, 0)

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


    class PointsDeclContext(DeclContext):

        def __init__(self, parser, ctx:ParserRuleContext): # actually a StencilParser.DeclContext
            super().__init__(parser)
            self.name = None # Token
            self.copyFrom(ctx)

        def POINTS(self):
            return self.getToken(StencilParser.POINTS, 0)
        def SEMI(self):
            return self.getToken(StencilParser.SEMI, 0)
        def ID(self):
            return self.getToken(StencilParser.ID, 0)

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitPointsDecl" ):
                return visitor.visitPointsDecl(self)
            else:
                return visitor.visitChildren(self)


    class InjectDeclContext(DeclContext):

        def __init__(self, parser, ctx:ParserRuleContext): # actually a StencilParser.DeclContext
            super().__init__(parser)
            self.field = None # Token
            self.pts = None # Token
            self.copyFrom(ctx)

        def INJECT(self):
            return self.getToken(StencilParser.INJECT, 0)
        def AT(self):
            return self.getToken(StencilParser.AT, 0)
        def PLUSEQ(self):
            return self.getToken(StencilParser.PLUSEQ, 0)
        def expr(self):
            return self.getTypedRuleContext(StencilParser.ExprContext,0)

        def SEMI(self):
            return self.getToken(StencilParser.SEMI, 0)
        def ID(self, i:int=None):
            if i is None:
                return self.getTokens(StencilParser.ID)
            else:
                return self.getToken(StencilParser.ID, i)

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitInjectDecl" ):
                return visitor.visitInjectDecl(self)
            else:
                return visitor.visitChildren(self)


    class BoundaryDeclContext(DeclContext):

        def __init__(self, parser, ctx:ParserRuleContext): # actually a StencilParser.DeclContext
            super().__init__(parser)
            self.field = None # Token
            self.kind = None # Token
            self._ID = None # Token
            self.axes = list() # of Tokens
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


    class RecordDeclContext(DeclContext):

        def __init__(self, parser, ctx:ParserRuleContext): # actually a StencilParser.DeclContext
            super().__init__(parser)
            self.name = None # Token
            self.pts = None # Token
            self.copyFrom(ctx)

        def RECORD(self):
            return self.getToken(StencilParser.RECORD, 0)
        def ASSIGN(self):
            return self.getToken(StencilParser.ASSIGN, 0)
        def expr(self):
            return self.getTypedRuleContext(StencilParser.ExprContext,0)

        def AT(self):
            return self.getToken(StencilParser.AT, 0)
        def SEMI(self):
            return self.getToken(StencilParser.SEMI, 0)
        def ID(self, i:int=None):
            if i is None:
                return self.getTokens(StencilParser.ID)
            else:
                return self.getToken(StencilParser.ID, i)

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitRecordDecl" ):
                return visitor.visitRecordDecl(self)
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
            self.state = 126
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
                if _la==12:
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
                self.state = 53
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                if _la==11:
                    self.state = 51
                    self.match(StencilParser.ALONG)
                    self.state = 52
                    localctx.axis = self.match(StencilParser.ID)


                self.state = 55
                self.match(StencilParser.SEMI)
                pass
            elif token in [6]:
                localctx = StencilParser.SeriesDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 5)
                self.state = 56
                self.match(StencilParser.SERIES)
                self.state = 57
                localctx.name = self.match(StencilParser.ID)
                self.state = 58
                self.match(StencilParser.SEMI)
                pass
            elif token in [7]:
                localctx = StencilParser.PointsDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 6)
                self.state = 59
                self.match(StencilParser.POINTS)
                self.state = 60
                localctx.name = self.match(StencilParser.ID)
                self.state = 61
                self.match(StencilParser.SEMI)
                pass
            elif token in [8]:
                localctx = StencilParser.InjectDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 7)
                self.state = 62
                self.match(StencilParser.INJECT)
                self.state = 63
                localctx.field = self.match(StencilParser.ID)
                self.state = 64
                self.match(StencilParser.AT)
                self.state = 65
                localctx.pts = self.match(StencilParser.ID)
                self.state = 66
                self.match(StencilParser.PLUSEQ)
                self.state = 67
                self.expr(0)
                self.state = 68
                self.match(StencilParser.SEMI)
                pass
            elif token in [9]:
                localctx = StencilParser.RecordDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 8)
                self.state = 70
                self.match(StencilParser.RECORD)
                self.state = 71
                localctx.name = self.match(StencilParser.ID)
                self.state = 72
                self.match(StencilParser.ASSIGN)
                self.state = 73
                self.expr(0)
                self.state = 74
                self.match(StencilParser.AT)
                self.state = 75
                localctx.pts = self.match(StencilParser.ID)
                self.state = 76
                self.match(StencilParser.SEMI)
                pass
            elif token in [13]:
                localctx = StencilParser.TableDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 9)
                self.state = 78
                self.match(StencilParser.TABLE)
                self.state = 79
                localctx.name = self.match(StencilParser.ID)
                self.state = 84 
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                while True:
                    self.state = 80
                    self.match(StencilParser.LBRACK)
                    self.state = 81
                    self.number()
                    self.state = 82
                    self.match(StencilParser.RBRACK)
                    self.state = 86 
                    self._errHandler.sync(self)
                    _la = self._input.LA(1)
                    if not (_la==43):
                        break

                self.state = 88
                self.match(StencilParser.ASSIGN)
                self.state = 89
                self.tableInit()
                self.state = 90
                self.match(StencilParser.SEMI)
                pass
            elif token in [14]:
                localctx = StencilParser.LetDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 10)
                self.state = 92
                self.match(StencilParser.LET)
                self.state = 93
                localctx.name = self.match(StencilParser.ID)
                self.state = 94
                self.match(StencilParser.ASSIGN)
                self.state = 95
                self.expr(0)
                self.state = 96
                self.match(StencilParser.SEMI)
                pass
            elif token in [22]:
                localctx = StencilParser.UpdateDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 11)
                self.state = 98
                localctx.name = self.match(StencilParser.ID)
                self.state = 99
                self.match(StencilParser.PRIME)
                self.state = 100
                self.match(StencilParser.ASSIGN)
                self.state = 101
                self.expr(0)
                self.state = 102
                self.match(StencilParser.SEMI)
                pass
            elif token in [15]:
                localctx = StencilParser.BoundaryDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 12)
                self.state = 104
                self.match(StencilParser.BOUNDARY)
                self.state = 106
                self._errHandler.sync(self)
                la_ = self._interp.adaptivePredict(self._input,4,self._ctx)
                if la_ == 1:
                    self.state = 105
                    localctx.field = self.match(StencilParser.ID)


                self.state = 108
                localctx.kind = self.match(StencilParser.ID)
                self.state = 112
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                while _la==22:
                    self.state = 109
                    localctx._ID = self.match(StencilParser.ID)
                    localctx.axes.append(localctx._ID)
                    self.state = 114
                    self._errHandler.sync(self)
                    _la = self._input.LA(1)

                self.state = 115
                self.match(StencilParser.SEMI)
                pass
            elif token in [16]:
                localctx = StencilParser.InitDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 13)
                self.state = 116
                self.match(StencilParser.INIT)
                self.state = 117
                localctx.name = self.match(StencilParser.ID)
                self.state = 120
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                if _la==35:
                    self.state = 118
                    self.match(StencilParser.DOT)
                    self.state = 119
                    localctx.suffix = self.match(StencilParser.ID)


                self.state = 122
                self.match(StencilParser.ASSIGN)
                self.state = 123
                self.expr(0)
                self.state = 124
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
            self.state = 128
            self.match(StencilParser.LBRACE)
            self.state = 140
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            if (((_la) & ~0x3f) == 0 and ((1 << _la) & 459600162848768) != 0):
                self.state = 129
                self.tableItem()
                self.state = 134
                self._errHandler.sync(self)
                _alt = self._interp.adaptivePredict(self._input,8,self._ctx)
                while _alt!=2 and _alt!=ATN.INVALID_ALT_NUMBER:
                    if _alt==1:
                        self.state = 130
                        self.match(StencilParser.COMMA)
                        self.state = 131
                        self.tableItem() 
                    self.state = 136
                    self._errHandler.sync(self)
                    _alt = self._interp.adaptivePredict(self._input,8,self._ctx)

                self.state = 138
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                if _la==40:
                    self.state = 137
                    self.match(StencilParser.COMMA)




            self.state = 142
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
            self.state = 146
            self._errHandler.sync(self)
            token = self._input.LA(1)
            if token in [45]:
                self.enterOuterAlt(localctx, 1)
                self.state = 144
                self.tableInit()
                pass
            elif token in [17, 20, 21, 22, 32, 41, 47, 48]:
                self.enterOuterAlt(localctx, 2)
                self.state = 145
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


    class EqExprContext(ExprContext):

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

        def EQ(self):
            return self.getToken(StencilParser.EQ, 0)
        def NE(self):
            return self.getToken(StencilParser.NE, 0)

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitEqExpr" ):
                return visitor.visitEqExpr(self)
            else:
                return visitor.visitChildren(self)


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
        def NOT(self):
            return self.getToken(StencilParser.NOT, 0)

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


    class CondExprContext(ExprContext):

        def __init__(self, parser, ctx:ParserRuleContext): # actually a StencilParser.ExprContext
            super().__init__(parser)
            self.cond = None # ExprContext
            self.op = None # Token
            self.then = None # ExprContext
            self.other = None # ExprContext
            self.copyFrom(ctx)

        def COLON(self):
            return self.getToken(StencilParser.COLON, 0)
        def expr(self, i:int=None):
            if i is None:
                return self.getTypedRuleContexts(StencilParser.ExprContext)
            else:
                return self.getTypedRuleContext(StencilParser.ExprContext,i)

        def QUESTION(self):
            return self.getToken(StencilParser.QUESTION, 0)

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitCondExpr" ):
                return visitor.visitCondExpr(self)
            else:
                return visitor.visitChildren(self)


    class OrExprContext(ExprContext):

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

        def OR(self):
            return self.getToken(StencilParser.OR, 0)

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitOrExpr" ):
                return visitor.visitOrExpr(self)
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


    class RelExprContext(ExprContext):

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

        def LT(self):
            return self.getToken(StencilParser.LT, 0)
        def LE(self):
            return self.getToken(StencilParser.LE, 0)
        def GT(self):
            return self.getToken(StencilParser.GT, 0)
        def GE(self):
            return self.getToken(StencilParser.GE, 0)

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitRelExpr" ):
                return visitor.visitRelExpr(self)
            else:
                return visitor.visitChildren(self)


    class AndExprContext(ExprContext):

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

        def AND(self):
            return self.getToken(StencilParser.AND, 0)

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitAndExpr" ):
                return visitor.visitAndExpr(self)
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
            self.state = 165
            self._errHandler.sync(self)
            token = self._input.LA(1)
            if token in [20, 21, 22, 41]:
                localctx = StencilParser.PrimaryExprContext(self, localctx)
                self._ctx = localctx
                _prevctx = localctx

                self.state = 149
                self.primary()
                pass
            elif token in [32, 47, 48]:
                localctx = StencilParser.UnaryExprContext(self, localctx)
                self._ctx = localctx
                _prevctx = localctx
                self.state = 150
                localctx.op = self._input.LT(1)
                _la = self._input.LA(1)
                if not((((_la) & ~0x3f) == 0 and ((1 << _la) & 422216760033280) != 0)):
                    localctx.op = self._errHandler.recoverInline(self)
                else:
                    self._errHandler.reportMatch(self)
                    self.consume()
                self.state = 151
                localctx.operand = self.expr(9)
                pass
            elif token in [17]:
                localctx = StencilParser.SumExprContext(self, localctx)
                self._ctx = localctx
                _prevctx = localctx
                self.state = 152
                self.match(StencilParser.SUM)
                self.state = 153
                self.match(StencilParser.LPAREN)
                self.state = 154
                self.sumRange()
                self.state = 159
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                while _la==40:
                    self.state = 155
                    self.match(StencilParser.COMMA)
                    self.state = 156
                    self.sumRange()
                    self.state = 161
                    self._errHandler.sync(self)
                    _la = self._input.LA(1)

                self.state = 162
                self.match(StencilParser.RPAREN)
                self.state = 163
                localctx.body = self.expr(7)
                pass
            else:
                raise NoViableAltException(self)

            self._ctx.stop = self._input.LT(-1)
            self.state = 196
            self._errHandler.sync(self)
            _alt = self._interp.adaptivePredict(self._input,15,self._ctx)
            while _alt!=2 and _alt!=ATN.INVALID_ALT_NUMBER:
                if _alt==1:
                    if self._parseListeners is not None:
                        self.triggerExitRuleEvent()
                    _prevctx = localctx
                    self.state = 194
                    self._errHandler.sync(self)
                    la_ = self._interp.adaptivePredict(self._input,14,self._ctx)
                    if la_ == 1:
                        localctx = StencilParser.PowExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 167
                        if not self.precpred(self._ctx, 10):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 10)")
                        self.state = 168
                        localctx.op = self.match(StencilParser.CARET)
                        self.state = 169
                        localctx.rhs = self.expr(10)
                        pass

                    elif la_ == 2:
                        localctx = StencilParser.MulExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 170
                        if not self.precpred(self._ctx, 8):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 8)")
                        self.state = 171
                        localctx.op = self._input.LT(1)
                        _la = self._input.LA(1)
                        if not(_la==49 or _la==50):
                            localctx.op = self._errHandler.recoverInline(self)
                        else:
                            self._errHandler.reportMatch(self)
                            self.consume()
                        self.state = 172
                        localctx.rhs = self.expr(9)
                        pass

                    elif la_ == 3:
                        localctx = StencilParser.AddExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 173
                        if not self.precpred(self._ctx, 6):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 6)")
                        self.state = 174
                        localctx.op = self._input.LT(1)
                        _la = self._input.LA(1)
                        if not(_la==47 or _la==48):
                            localctx.op = self._errHandler.recoverInline(self)
                        else:
                            self._errHandler.reportMatch(self)
                            self.consume()
                        self.state = 175
                        localctx.rhs = self.expr(7)
                        pass

                    elif la_ == 4:
                        localctx = StencilParser.RelExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 176
                        if not self.precpred(self._ctx, 5):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 5)")
                        self.state = 177
                        localctx.op = self._input.LT(1)
                        _la = self._input.LA(1)
                        if not((((_la) & ~0x3f) == 0 and ((1 << _la) & 3271557120) != 0)):
                            localctx.op = self._errHandler.recoverInline(self)
                        else:
                            self._errHandler.reportMatch(self)
                            self.consume()
                        self.state = 178
                        localctx.rhs = self.expr(6)
                        pass

                    elif la_ == 5:
                        localctx = StencilParser.EqExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 179
                        if not self.precpred(self._ctx, 4):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 4)")
                        self.state = 180
                        localctx.op = self._input.LT(1)
                        _la = self._input.LA(1)
                        if not(_la==26 or _la==27):
                            localctx.op = self._errHandler.recoverInline(self)
                        else:
                            self._errHandler.reportMatch(self)
                            self.consume()
                        self.state = 181
                        localctx.rhs = self.expr(5)
                        pass

                    elif la_ == 6:
                        localctx = StencilParser.AndExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 182
                        if not self.precpred(self._ctx, 3):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 3)")
                        self.state = 183
                        localctx.op = self.match(StencilParser.AND)
                        self.state = 184
                        localctx.rhs = self.expr(4)
                        pass

                    elif la_ == 7:
                        localctx = StencilParser.OrExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 185
                        if not self.precpred(self._ctx, 2):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 2)")
                        self.state = 186
                        localctx.op = self.match(StencilParser.OR)
                        self.state = 187
                        localctx.rhs = self.expr(3)
                        pass

                    elif la_ == 8:
                        localctx = StencilParser.CondExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.cond = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 188
                        if not self.precpred(self._ctx, 1):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 1)")
                        self.state = 189
                        localctx.op = self.match(StencilParser.QUESTION)
                        self.state = 190
                        localctx.then = self.expr(0)
                        self.state = 191
                        self.match(StencilParser.COLON)
                        self.state = 192
                        localctx.other = self.expr(1)
                        pass

             
                self.state = 198
                self._errHandler.sync(self)
                _alt = self._interp.adaptivePredict(self._input,15,self._ctx)

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
            self.state = 199
            localctx.var = self.match(StencilParser.ID)
            self.state = 200
            self.match(StencilParser.IN)
            self.state = 201
            localctx.lo = self.signedNumber()
            self.state = 202
            self.match(StencilParser.DOTDOT)
            self.state = 203
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
            self.state = 206
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            if _la==47 or _la==48:
                self.state = 205
                localctx.sign = self._input.LT(1)
                _la = self._input.LA(1)
                if not(_la==47 or _la==48):
                    localctx.sign = self._errHandler.recoverInline(self)
                else:
                    self._errHandler.reportMatch(self)
                    self.consume()


            self.state = 208
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
            self.state = 210
            _la = self._input.LA(1)
            if not(_la==20 or _la==21):
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
            self.state = 244
            self._errHandler.sync(self)
            la_ = self._interp.adaptivePredict(self._input,22,self._ctx)
            if la_ == 1:
                localctx = StencilParser.NumberPrimaryContext(self, localctx)
                self.enterOuterAlt(localctx, 1)
                self.state = 212
                self.number()
                pass

            elif la_ == 2:
                localctx = StencilParser.CallPrimaryContext(self, localctx)
                self.enterOuterAlt(localctx, 2)
                self.state = 213
                localctx.func = self.match(StencilParser.ID)
                self.state = 214
                self.match(StencilParser.LPAREN)
                self.state = 223
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                if (((_la) & ~0x3f) == 0 and ((1 << _la) & 424415790759936) != 0):
                    self.state = 215
                    self.expr(0)
                    self.state = 220
                    self._errHandler.sync(self)
                    _la = self._input.LA(1)
                    while _la==40:
                        self.state = 216
                        self.match(StencilParser.COMMA)
                        self.state = 217
                        self.expr(0)
                        self.state = 222
                        self._errHandler.sync(self)
                        _la = self._input.LA(1)



                self.state = 225
                self.match(StencilParser.RPAREN)
                pass

            elif la_ == 3:
                localctx = StencilParser.RefPrimaryContext(self, localctx)
                self.enterOuterAlt(localctx, 3)
                self.state = 226
                localctx.name = self.match(StencilParser.ID)
                self.state = 228
                self._errHandler.sync(self)
                la_ = self._interp.adaptivePredict(self._input,19,self._ctx)
                if la_ == 1:
                    self.state = 227
                    localctx.new = self.match(StencilParser.PRIME)


                self.state = 232
                self._errHandler.sync(self)
                la_ = self._interp.adaptivePredict(self._input,20,self._ctx)
                if la_ == 1:
                    self.state = 230
                    self.match(StencilParser.DOT)
                    self.state = 231
                    localctx.suffix = self.match(StencilParser.ID)


                self.state = 237
                self._errHandler.sync(self)
                _alt = self._interp.adaptivePredict(self._input,21,self._ctx)
                while _alt!=2 and _alt!=ATN.INVALID_ALT_NUMBER:
                    if _alt==1:
                        self.state = 234
                        self.subscript() 
                    self.state = 239
                    self._errHandler.sync(self)
                    _alt = self._interp.adaptivePredict(self._input,21,self._ctx)

                pass

            elif la_ == 4:
                localctx = StencilParser.ParenPrimaryContext(self, localctx)
                self.enterOuterAlt(localctx, 4)
                self.state = 240
                self.match(StencilParser.LPAREN)
                self.state = 241
                self.expr(0)
                self.state = 242
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
            self.state = 246
            self.match(StencilParser.LBRACK)
            self.state = 247
            self.expr(0)
            self.state = 252
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            while _la==40:
                self.state = 248
                self.match(StencilParser.COMMA)
                self.state = 249
                self.expr(0)
                self.state = 254
                self._errHandler.sync(self)
                _la = self._input.LA(1)

            self.state = 255
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
                return self.precpred(self._ctx, 10)
         

            if predIndex == 1:
                return self.precpred(self._ctx, 8)
         

            if predIndex == 2:
                return self.precpred(self._ctx, 6)
         

            if predIndex == 3:
                return self.precpred(self._ctx, 5)
         

            if predIndex == 4:
                return self.precpred(self._ctx, 4)
         

            if predIndex == 5:
                return self.precpred(self._ctx, 3)
         

            if predIndex == 6:
                return self.precpred(self._ctx, 2)
         

            if predIndex == 7:
                return self.precpred(self._ctx, 1)
         




