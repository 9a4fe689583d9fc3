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
        4,1,54,268,2,0,7,0,2,1,7,1,2,2,7,2,2,3,7,3,2,4,7,4,2,5,7,5,2,6,7,
        6,2,7,7,7,2,8,7,8,2,9,7,9,1,0,1,0,1,0,1,0,5,0,25,8,0,10,0,12,0,28,
        9,0,1,0,1,0,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
        1,1,1,1,3,1,47,8,1,1,1,1,1,1,1,1,1,1,1,3,1,54,8,1,1,1,1,1,1,1,1,
        1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
        1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,4,1,85,8,1,11,1,12,1,86,1,
        1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
        1,1,1,3,1,107,8,1,1,1,1,1,5,1,111,8,1,10,1,12,1,114,9,1,1,1,1,1,
        1,1,1,1,1,1,3,1,121,8,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,5,1,131,
        8,1,10,1,12,1,134,9,1,1,1,3,1,137,8,1,1,2,1,2,1,2,1,2,5,2,143,8,
        2,10,2,12,2,146,9,2,1,2,3,2,149,8,2,3,2,151,8,2,1,2,1,2,1,3,1,3,
        3,3,157,8,3,1,4,1,4,1,4,1,4,1,4,1,4,1,4,1,4,1,4,5,4,168,8,4,10,4,
        12,4,171,9,4,1,4,1,4,1,4,3,4,176,8,4,1,4,1,4,1,4,1,4,1,4,1,4,1,4,
        1,4,1,4,1,4,1,4,1,4,1,4,1,4,1,4,1,4,1,4,1,4,1,4,1,4,1,4,1,4,1,4,
        1,4,1,4,1,4,1,4,5,4,205,8,4,10,4,12,4,208,9,4,1,5,1,5,1,5,1,5,1,
        5,1,5,1,6,3,6,217,8,6,1,6,1,6,1,7,1,7,1,8,1,8,1,8,1,8,1,8,1,8,5,
        8,229,8,8,10,8,12,8,232,9,8,3,8,234,8,8,1,8,1,8,1,8,3,8,239,8,8,
        1,8,1,8,3,8,243,8,8,1,8,5,8,246,8,8,10,8,12,8,249,9,8,1,8,1,8,1,
        8,1,8,3,8,255,8,8,1,9,1,9,1,9,1,9,5,9,261,8,9,10,9,12,9,264,9,9,
        1,9,1,9,1,9,0,1,8,10,0,2,4,6,8,10,12,14,16,18,0,6,2,0,33,33,48,49,
        1,0,50,51,1,0,48,49,2,0,25,26,31,32,1,0,27,28,1,0,21,22,303,0,20,
        1,0,0,0,2,136,1,0,0,0,4,138,1,0,0,0,6,156,1,0,0,0,8,175,1,0,0,0,
        10,209,1,0,0,0,12,216,1,0,0,0,14,220,1,0,0,0,16,254,1,0,0,0,18,256,
        1,0,0,0,20,21,5,1,0,0,21,22,5,23,0,0,22,26,5,46,0,0,23,25,3,2,1,
        0,24,23,1,0,0,0,25,28,1,0,0,0,26,24,1,0,0,0,26,27,1,0,0,0,27,29,
        1,0,0,0,28,26,1,0,0,0,29,30,5,47,0,0,30,31,5,0,0,1,31,1,1,0,0,0,
        32,33,5,2,0,0,33,34,5,20,0,0,34,35,5,23,0,0,35,137,5,40,0,0,36,37,
        5,3,0,0,37,38,5,23,0,0,38,39,5,39,0,0,39,40,3,8,4,0,40,41,5,40,0,
        0,41,137,1,0,0,0,42,43,5,4,0,0,43,46,5,23,0,0,44,45,5,12,0,0,45,
        47,3,14,7,0,46,44,1,0,0,0,46,47,1,0,0,0,47,48,1,0,0,0,48,137,5,40,
        0,0,49,50,5,5,0,0,50,53,5,23,0,0,51,52,5,11,0,0,52,54,5,23,0,0,53,
        51,1,0,0,0,53,54,1,0,0,0,54,55,1,0,0,0,55,137,5,40,0,0,56,57,5,6,
        0,0,57,58,5,23,0,0,58,137,5,40,0,0,59,60,5,7,0,0,60,61,5,23,0,0,
        61,137,5,40,0,0,62,63,5,8,0,0,63,64,5,23,0,0,64,65,5,10,0,0,65,66,
        5,23,0,0,66,67,5,38,0,0,67,68,3,8,4,0,68,69,5,40,0,0,69,137,1,0,
        0,0,70,71,5,9,0,0,71,72,5,23,0,0,72,73,5,39,0,0,73,74,3,8,4,0,74,
        75,5,10,0,0,75,76,5,23,0,0,76,77,5,40,0,0,77,137,1,0,0,0,78,79,5,
        13,0,0,79,84,5,23,0,0,80,81,5,44,0,0,81,82,3,14,7,0,82,83,5,45,0,
        0,83,85,1,0,0,0,84,80,1,0,0,0,85,86,1,0,0,0,86,84,1,0,0,0,86,87,
        1,0,0,0,87,88,1,0,0,0,88,89,5,39,0,0,89,90,3,4,2,0,90,91,5,40,0,
        0,91,137,1,0,0,0,92,93,5,14,0,0,93,94,5,23,0,0,94,95,5,39,0,0,95,
        96,3,8,4,0,96,97,5,40,0,0,97,137,1,0,0,0,98,99,5,23,0,0,99,100,5,
        37,0,0,100,101,5,39,0,0,101,102,3,8,4,0,102,103,5,40,0,0,103,137,
        1,0,0,0,104,106,5,15,0,0,105,107,5,23,0,0,106,105,1,0,0,0,106,107,
        1,0,0,0,107,108,1,0,0,0,108,112,5,23,0,0,109,111,5,23,0,0,110,109,
        1,0,0,0,111,114,1,0,0,0,112,110,1,0,0,0,112,113,1,0,0,0,113,115,
        1,0,0,0,114,112,1,0,0,0,115,137,5,40,0,0,116,117,5,16,0,0,117,120,
        5,23,0,0,118,119,5,36,0,0,119,121,5,23,0,0,120,118,1,0,0,0,120,121,
        1,0,0,0,121,122,1,0,0,0,122,123,5,39,0,0,123,124,3,8,4,0,124,125,
        5,40,0,0,125,137,1,0,0,0,126,127,5,17,0,0,127,132,5,23,0,0,128,129,
        5,23,0,0,129,131,3,14,7,0,130,128,1,0,0,0,131,134,1,0,0,0,132,130,
        1,0,0,0,132,133,1,0,0,0,133,135,1,0,0,0,134,132,1,0,0,0,135,137,
        5,40,0,0,136,32,1,0,0,0,136,36,1,0,0,0,136,42,1,0,0,0,136,49,1,0,
        0,0,136,56,1,0,0,0,136,59,1,0,0,0,136,62,1,0,0,0,136,70,1,0,0,0,
        136,78,1,0,0,0,136,92,1,0,0,0,136,98,1,0,0,0,136,104,1,0,0,0,136,
        116,1,0,0,0,136,126,1,0,0,0,137,3,1,0,0,0,138,150,5,46,0,0,139,144,
        3,6,3,0,140,141,5,41,0,0,141,143,3,6,3,0,142,140,1,0,0,0,143,146,
        1,0,0,0,144,142,1,0,0,0,144,145,1,0,0,0,145,148,1,0,0,0,146,144,
        1,0,0,0,147,149,5,41,0,0,148,147,1,0,0,0,148,149,1,0,0,0,149,151,
        1,0,0,0,150,139,1,0,0,0,150,151,1,0,0,0,151,152,1,0,0,0,152,153,
        5,47,0,0,153,5,1,0,0,0,154,157,3,4,2,0,155,157,3,8,4,0,156,154,1,
        0,0,0,156,155,1,0,0,0,157,7,1,0,0,0,158,159,6,4,-1,0,159,176,3,16,
        8,0,160,161,7,0,0,0,161,176,3,8,4,9,162,163,5,18,0,0,163,164,5,42,
        0,0,164,169,3,10,5,0,165,166,5,41,0,0,166,168,3,10,5,0,167,165,1,
        0,0,0,168,171,1,0,0,0,169,167,1,0,0,0,169,170,1,0,0,0,170,172,1,
        0,0,0,171,169,1,0,0,0,172,173,5,43,0,0,173,174,3,8,4,7,174,176,1,
        0,0,0,175,158,1,0,0,0,175,160,1,0,0,0,175,162,1,0,0,0,176,206,1,
        0,0,0,177,178,10,10,0,0,178,179,5,52,0,0,179,205,3,8,4,10,180,181,
        10,8,0,0,181,182,7,1,0,0,182,205,3,8,4,9,183,184,10,6,0,0,184,185,
        7,2,0,0,185,205,3,8,4,7,186,187,10,5,0,0,187,188,7,3,0,0,188,205,
        3,8,4,6,189,190,10,4,0,0,190,191,7,4,0,0,191,205,3,8,4,5,192,193,
        10,3,0,0,193,194,5,29,0,0,194,205,3,8,4,4,195,196,10,2,0,0,196,197,
        5,30,0,0,197,205,3,8,4,3,198,199,10,1,0,0,199,200,5,34,0,0,200,201,
        3,8,4,0,201,202,5,35,0,0,202,203,3,8,4,1,203,205,1,0,0,0,204,177,
        1,0,0,0,204,180,1,0,0,0,204,183,1,0,0,0,204,186,1,0,0,0,204,189,
        1,0,0,0,204,192,1,0,0,0,204,195,1,0,0,0,204,198,1,0,0,0,205,208,
        1,0,0,0,206,204,1,0,0,0,206,207,1,0,0,0,207,9,1,0,0,0,208,206,1,
        0,0,0,209,210,5,23,0,0,210,211,5,19,0,0,211,212,3,12,6,0,212,213,
        5,24,0,0,213,214,3,12,6,0,214,11,1,0,0,0,215,217,7,2,0,0,216,215,
        1,0,0,0,216,217,1,0,0,0,217,218,1,0,0,0,218,219,3,14,7,0,219,13,
        1,0,0,0,220,221,7,5,0,0,221,15,1,0,0,0,222,255,3,14,7,0,223,224,
        5,23,0,0,224,233,5,42,0,0,225,230,3,8,4,0,226,227,5,41,0,0,227,229,
        3,8,4,0,228,226,1,0,0,0,229,232,1,0,0,0,230,228,1,0,0,0,230,231,
        1,0,0,0,231,234,1,0,0,0,232,230,1,0,0,0,233,225,1,0,0,0,233,234,
        1,0,0,0,234,235,1,0,0,0,235,255,5,43,0,0,236,238,5,23,0,0,237,239,
        5,37,0,0,238,237,1,0,0,0,238,239,1,0,0,0,239,242,1,0,0,0,240,241,
        5,36,0,0,241,243,5,23,0,0,242,240,1,0,0,0,242,243,1,0,0,0,243,247,
        1,0,0,0,244,246,3,18,9,0,245,244,1,0,0,0,246,249,1,0,0,0,247,245,
        1,0,0,0,247,248,1,0,0,0,248,255,1,0,0,0,249,247,1,0,0,0,250,251,
        5,42,0,0,251,252,3,8,4,0,252,253,5,43,0,0,253,255,1,0,0,0,254,222,
        1,0,0,0,254,223,1,0,0,0,254,236,1,0,0,0,254,250,1,0,0,0,255,17,1,
        0,0,0,256,257,5,44,0,0,257,262,3,8,4,0,258,259,5,41,0,0,259,261,
        3,8,4,0,260,258,1,0,0,0,261,264,1,0,0,0,262,260,1,0,0,0,262,263,
        1,0,0,0,263,265,1,0,0,0,264,262,1,0,0,0,265,266,5,45,0,0,266,19,
        1,0,0,0,25,26,46,53,86,106,112,120,132,136,144,148,150,156,169,175,
        204,206,216,230,233,238,242,247,254,262
    ]

class StencilParser ( Parser ):

    grammarFileName = "Stencil.g4"

    atn = ATNDeserializer().deserialize(serializedATN())

    decisionsToDFA = [ DFA(ds, i) for i, ds in enumerate(atn.decisionToState) ]

    sharedContextCache = PredictionContextCache()

    literalNames = [ "<INVALID>", "'stencil'", "'grid'", "'param'", "'state'", 
                     "'input'", "'series'", "'points'", "'inject'", "'record'", 
                     "'at'", "'along'", "'levels'", "'table'", "'let'", 
                     "'boundary'", "'init'", "'save'", "'sum'", "'in'", 
                     "<INVALID>", "<INVALID>", "<INVALID>", "<INVALID>", 
                     "'..'", "'<='", "'>='", "'=='", "'!='", "'&&'", "'||'", 
                     "'<'", "'>'", "'!'", "'?'", "':'", "'.'", "'''", "'+='", 
                     "'='", "';'", "','", "'('", "')'", "'['", "']'", "'{'", 
                     "'}'", "'+'", "'-'", "'*'", "'/'", "'^'" ]

    symbolicNames = [ "<INVALID>", "STENCIL", "GRID", "PARAM", "STATE", 
                      "INPUT", "SERIES", "POINTS", "INJECT", "RECORD", "AT", 
                      "ALONG", "LEVELS", "TABLE", "LET", "BOUNDARY", "INIT", 
                      "SAVE", "SUM", "IN", "DIMS", "FLOAT", "INT", "ID", 
                      "DOTDOT", "LE", "GE", "EQ", "NE", "AND", "OR", "LT", 
                      "GT", "NOT", "QUESTION", "COLON", "DOT", "PRIME", 
                      "PLUSEQ", "ASSIGN", "SEMI", "COMMA", "LPAREN", "RPAREN", 
                      "LBRACK", "RBRACK", "LBRACE", "RBRACE", "PLUS", "MINUS", 
                      "STAR", "SLASH", "CARET", "LINE_COMMENT", "WS" ]

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
    SAVE=17
    SUM=18
    IN=19
    DIMS=20
    FLOAT=21
    INT=22
    ID=23
    DOTDOT=24
    LE=25
    GE=26
    EQ=27
    NE=28
    AND=29
    OR=30
    LT=31
    GT=32
    NOT=33
    QUESTION=34
    COLON=35
    DOT=36
    PRIME=37
    PLUSEQ=38
    ASSIGN=39
    SEMI=40
    COMMA=41
    LPAREN=42
    RPAREN=43
    LBRACK=44
    RBRACK=45
    LBRACE=46
    RBRACE=47
    PLUS=48
    MINUS=49
    STAR=50
    SLASH=51
    CARET=52
    LINE_COMMENT=53
    WS=54

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
            while (((_la) & ~0x3f) == 0 and ((1 << _la) & 8643580) != 0):
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


    class SaveDeclContext(DeclContext):

        def __init__(self, parser, ctx:ParserRuleContext): # actually a StencilParser.DeclContext
            super().__init__(parser)
            self.field = None # Token
            self._ID = None # Token
            self.keys = list() # of Tokens
            self.copyFrom(ctx)

        def SAVE(self):
            return self.getToken(StencilParser.SAVE, 0)
        def SEMI(self):
            return self.getToken(StencilParser.SEMI, 0)
        def ID(self, i:int=None):
            if i is None:
                return self.getTokens(StencilParser.ID)
            else:
                return self.getToken(StencilParser.ID, i)
        def number(self, i:int=None):
            if i is None:
                return self.getTypedRuleContexts(StencilParser.NumberContext)
            else:
                return self.getTypedRuleContext(StencilParser.NumberContext,i)


        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitSaveDecl" ):
                return visitor.visitSaveDecl(self)
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
            self.state = 136
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
                    if not (_la==44):
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
            elif token in [23]:
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
                while _la==23:
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
                if _la==36:
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
            elif token in [17]:
                localctx = StencilParser.SaveDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 14)
                self.state = 126
                self.match(StencilParser.SAVE)
                self.state = 127
                localctx.field = self.match(StencilParser.ID)
                self.state = 132
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                while _la==23:
                    self.state = 128
                    localctx._ID = self.match(StencilParser.ID)
                    localctx.keys.append(localctx._ID)
                    self.state = 129
                    self.number()
                    self.state = 134
                    self._errHandler.sync(self)
                    _la = self._input.LA(1)

                self.state = 135
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
            self.state = 138
            self.match(StencilParser.LBRACE)
            self.state = 150
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            if (((_la) & ~0x3f) == 0 and ((1 << _la) & 919200325697536) != 0):
                self.state = 139
                self.tableItem()
                self.state = 144
                self._errHandler.sync(self)
                _alt = self._interp.adaptivePredict(self._input,9,self._ctx)
                while _alt!=2 and _alt!=ATN.INVALID_ALT_NUMBER:
                    if _alt==1:
                        self.state = 140
                        self.match(StencilParser.COMMA)
                        self.state = 141
                        self.tableItem() 
                    self.state = 146
                    self._errHandler.sync(self)
                    _alt = self._interp.adaptivePredict(self._input,9,self._ctx)

                self.state = 148
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                if _la==41:
                    self.state = 147
                    self.match(StencilParser.COMMA)




            self.state = 152
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
            self.state = 156
            self._errHandler.sync(self)
            token = self._input.LA(1)
            if token in [46]:
                self.enterOuterAlt(localctx, 1)
                self.state = 154
                self.tableInit()
                pass
            elif token in [18, 21, 22, 23, 33, 42, 48, 49]:
                self.enterOuterAlt(localctx, 2)
                self.state = 155
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
            self.state = 175
            self._errHandler.sync(self)
            token = self._input.LA(1)
            if token in [21, 22, 23, 42]:
                localctx = StencilParser.PrimaryExprContext(self, localctx)
                self._ctx = localctx
                _prevctx = localctx

                self.state = 159
                self.primary()
                pass
            elif token in [33, 48, 49]:
                localctx = StencilParser.UnaryExprContext(self, localctx)
                self._ctx = localctx
                _prevctx = localctx
                self.state = 160
                localctx.op = self._input.LT(1)
                _la = self._input.LA(1)
                if not((((_la) & ~0x3f) == 0 and ((1 << _la) & 844433520066560) != 0)):
                    localctx.op = self._errHandler.recoverInline(self)
                else:
                    self._errHandler.reportMatch(self)
                    self.consume()
                self.state = 161
                localctx.operand = self.expr(9)
                pass
            elif token in [18]:
                localctx = StencilParser.SumExprContext(self, localctx)
                self._ctx = localctx
                _prevctx = localctx
                self.state = 162
                self.match(StencilParser.SUM)
                self.state = 163
                self.match(StencilParser.LPAREN)
                self.state = 164
                self.sumRange()
                self.state = 169
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                while _la==41:
                    self.state = 165
                    self.match(StencilParser.COMMA)
                    self.state = 166
                    self.sumRange()
                    self.state = 171
                    self._errHandler.sync(self)
                    _la = self._input.LA(1)

                self.state = 172
                self.match(StencilParser.RPAREN)
                self.state = 173
                localctx.body = self.expr(7)
                pass
            else:
                raise NoViableAltException(self)

            self._ctx.stop = self._input.LT(-1)
            self.state = 206
            self._errHandler.sync(self)
            _alt = self._interp.adaptivePredict(self._input,16,self._ctx)
            while _alt!=2 and _alt!=ATN.INVALID_ALT_NUMBER:
                if _alt==1:
                    if self._parseListeners is not None:
                        self.triggerExitRuleEvent()
                    _prevctx = localctx
                    self.state = 204
                    self._errHandler.sync(self)
                    la_ = self._interp.adaptivePredict(self._input,15,self._ctx)
                    if la_ == 1:
                        localctx = StencilParser.PowExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 177
                        if not self.precpred(self._ctx, 10):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 10)")
                        self.state = 178
                        localctx.op = self.match(StencilParser.CARET)
                        self.state = 179
                        localctx.rhs = self.expr(10)
                        pass

                    elif la_ == 2:
                        localctx = StencilParser.MulExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 180
                        if not self.precpred(self._ctx, 8):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 8)")
                        self.state = 181
                        localctx.op = self._input.LT(1)
                        _la = self._input.LA(1)
                        if not(_la==50 or _la==51):
                            localctx.op = self._errHandler.recoverInline(self)
                        else:
                            self._errHandler.reportMatch(self)
                            self.consume()
                        self.state = 182
                        localctx.rhs = self.expr(9)
                        pass

                    elif la_ == 3:
                        localctx = StencilParser.AddExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 183
                        if not self.precpred(self._ctx, 6):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 6)")
                        self.state = 184
                        localctx.op = self._input.LT(1)
                        _la = self._input.LA(1)
                        if not(_la==48 or _la==49):
                            localctx.op = self._errHandler.recoverInline(self)
                        else:
                            self._errHandler.reportMatch(self)
                            self.consume()
                        self.state = 185
                        localctx.rhs = self.expr(7)
                        pass

                    elif la_ == 4:
                        localctx = StencilParser.RelExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 186
                        if not self.precpred(self._ctx, 5):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 5)")
                        self.state = 187
                        localctx.op = self._input.LT(1)
                        _la = self._input.LA(1)
                        if not((((_la) & ~0x3f) == 0 and ((1 << _la) & 6543114240) != 0)):
                            localctx.op = self._errHandler.recoverInline(self)
                        else:
                            self._errHandler.reportMatch(self)
                            self.consume()
                        self.state = 188
                        localctx.rhs = self.expr(6)
                        pass

                    elif la_ == 5:
                        localctx = StencilParser.EqExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 189
                        if not self.precpred(self._ctx, 4):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 4)")
                        self.state = 190
                        localctx.op = self._input.LT(1)
                        _la = self._input.LA(1)
                        if not(_la==27 or _la==28):
                            localctx.op = self._errHandler.recoverInline(self)
                        else:
                            self._errHandler.reportMatch(self)
                            self.consume()
                        self.state = 191
                        localctx.rhs = self.expr(5)
                        pass

                    elif la_ == 6:
                        localctx = StencilParser.AndExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 192
                        if not self.precpred(self._ctx, 3):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 3)")
                        self.state = 193
                        localctx.op = self.match(StencilParser.AND)
                        self.state = 194
                        localctx.rhs = self.expr(4)
                        pass

                    elif la_ == 7:
                        localctx = StencilParser.OrExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 195
                        if not self.precpred(self._ctx, 2):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 2)")
                        self.state = 196
                        localctx.op = self.match(StencilParser.OR)
                        self.state = 197
                        localctx.rhs = self.expr(3)
                        pass

                    elif la_ == 8:
                        localctx = StencilParser.CondExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.cond = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 198
                        if not self.precpred(self._ctx, 1):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 1)")
                        self.state = 199
                        localctx.op = self.match(StencilParser.QUESTION)
                        self.state = 200
                        localctx.then = self.expr(0)
                        self.state = 201
                        self.match(StencilParser.COLON)
                        self.state = 202
                        localctx.other = self.expr(1)
                        pass

             
                self.state = 208
                self._errHandler.sync(self)
                _alt = self._interp.adaptivePredict(self._input,16,self._ctx)

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
            self.state = 209
            localctx.var = self.match(StencilParser.ID)
            self.state = 210
            self.match(StencilParser.IN)
            self.state = 211
            localctx.lo = self.signedNumber()
            self.state = 212
            self.match(StencilParser.DOTDOT)
            self.state = 213
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
            self.state = 216
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            if _la==48 or _la==49:
                self.state = 215
                localctx.sign = self._input.LT(1)
                _la = self._input.LA(1)
                if not(_la==48 or _la==49):
                    localctx.sign = self._errHandler.recoverInline(self)
                else:
                    self._errHandler.reportMatch(self)
                    self.consume()


            self.state = 218
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
            self.state = 220
            _la = self._input.LA(1)
            if not(_la==21 or _la==22):
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
            self.state = 254
            self._errHandler.sync(self)
            la_ = self._interp.adaptivePredict(self._input,23,self._ctx)
            if la_ == 1:
                localctx = StencilParser.NumberPrimaryContext(self, localctx)
                self.enterOuterAlt(localctx, 1)
                self.state = 222
                self.number()
                pass

            elif la_ == 2:
                localctx = StencilParser.CallPrimaryContext(self, localctx)
                self.enterOuterAlt(localctx, 2)
                self.state = 223
                localctx.func = self.match(StencilParser.ID)
                self.state = 224
                self.match(StencilParser.LPAREN)
                self.state = 233
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                if (((_la) & ~0x3f) == 0 and ((1 << _la) & 848831581519872) != 0):
                    self.state = 225
                    self.expr(0)
                    self.state = 230
                    self._errHandler.sync(self)
                    _la = self._input.LA(1)
                    while _la==41:
                        self.state = 226
                        self.match(StencilParser.COMMA)
                        self.state = 227
                        self.expr(0)
                        self.state = 232
                        self._errHandler.sync(self)
                        _la = self._input.LA(1)



                self.state = 235
                self.match(StencilParser.RPAREN)
                pass

            elif la_ == 3:
                localctx = StencilParser.RefPrimaryContext(self, localctx)
                self.enterOuterAlt(localctx, 3)
                self.state = 236
                localctx.name = self.match(StencilParser.ID)
                self.state = 238
                self._errHandler.sync(self)
                la_ = self._interp.adaptivePredict(self._input,20,self._ctx)
                if la_ == 1:
                    self.state = 237
                    localctx.new = self.match(StencilParser.PRIME)


                self.state = 242
                self._errHandler.sync(self)
                la_ = self._interp.adaptivePredict(self._input,21,self._ctx)
                if la_ == 1:
                    self.state = 240
                    self.match(StencilParser.DOT)
                    self.state = 241
                    localctx.suffix = self.match(StencilParser.ID)


                self.state = 247
                self._errHandler.sync(self)
                _alt = self._interp.adaptivePredict(self._input,22,self._ctx)
                while _alt!=2 and _alt!=ATN.INVALID_ALT_NUMBER:
                    if _alt==1:
                        self.state = 244
                        self.subscript() 
                    self.state = 249
                    self._errHandler.sync(self)
                    _alt = self._interp.adaptivePredict(self._input,22,self._ctx)

                pass

            elif la_ == 4:
                localctx = StencilParser.ParenPrimaryContext(self, localctx)
                self.enterOuterAlt(localctx, 4)
                self.state = 250
                self.match(StencilParser.LPAREN)
                self.state = 251
                self.expr(0)
                self.state = 252
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
            self.state = 256
            self.match(StencilParser.LBRACK)
            self.state = 257
            self.expr(0)
            self.state = 262
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            while _la==41:
                self.state = 258
                self.match(StencilParser.COMMA)
                self.state = 259
                self.expr(0)
                self.state = 264
                self._errHandler.sync(self)
                _la = self._input.LA(1)

            self.state = 265
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
         




