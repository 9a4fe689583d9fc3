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
        4,1,54,280,2,0,7,0,2,1,7,1,2,2,7,2,2,3,7,3,2,4,7,4,2,5,7,5,2,6,7,
        6,2,7,7,7,2,8,7,8,2,9,7,9,2,10,7,10,1,0,1,0,1,0,1,0,5,0,27,8,0,10,
        0,12,0,30,9,0,1,0,1,0,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
        1,1,1,1,1,1,1,1,1,3,1,49,8,1,1,1,1,1,1,1,1,1,1,1,3,1,56,8,1,1,1,
        1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
        1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,4,1,87,8,1,11,1,
        12,1,88,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
        1,1,1,1,1,1,1,1,3,1,109,8,1,1,1,1,1,5,1,113,8,1,10,1,12,1,116,9,
        1,1,1,1,1,1,1,1,1,1,1,5,1,123,8,1,10,1,12,1,126,9,1,1,1,1,1,1,1,
        1,1,1,1,1,1,1,1,1,1,5,1,136,8,1,10,1,12,1,139,9,1,1,1,3,1,142,8,
        1,1,2,1,2,3,2,146,8,2,1,3,1,3,1,3,1,3,5,3,152,8,3,10,3,12,3,155,
        9,3,1,3,3,3,158,8,3,3,3,160,8,3,1,3,1,3,1,4,1,4,3,4,166,8,4,1,5,
        1,5,1,5,1,5,1,5,1,5,1,5,1,5,1,5,5,5,177,8,5,10,5,12,5,180,9,5,1,
        5,1,5,1,5,3,5,185,8,5,1,5,1,5,1,5,1,5,1,5,1,5,1,5,1,5,1,5,1,5,1,
        5,1,5,1,5,1,5,1,5,1,5,1,5,1,5,1,5,1,5,1,5,1,5,1,5,1,5,1,5,1,5,1,
        5,5,5,214,8,5,10,5,12,5,217,9,5,1,6,1,6,1,6,1,6,1,6,1,6,1,7,3,7,
        226,8,7,1,7,1,7,1,8,1,8,1,9,1,9,1,9,1,9,1,9,1,9,5,9,238,8,9,10,9,
        12,9,241,9,9,3,9,243,8,9,1,9,1,9,1,9,3,9,248,8,9,1,9,1,9,5,9,252,
        8,9,10,9,12,9,255,9,9,1,9,5,9,258,8,9,10,9,12,9,261,9,9,1,9,1,9,
        1,9,1,9,3,9,267,8,9,1,10,1,10,1,10,1,10,5,10,273,8,10,10,10,12,10,
        276,9,10,1,10,1,10,1,10,0,1,10,11,0,2,4,6,8,10,12,14,16,18,20,0,
        6,1,0,48,49,2,0,33,33,48,49,1,0,50,51,2,0,25,26,31,32,1,0,27,28,
        1,0,21,22,315,0,22,1,0,0,0,2,141,1,0,0,0,4,143,1,0,0,0,6,147,1,0,
        0,0,8,165,1,0,0,0,10,184,1,0,0,0,12,218,1,0,0,0,14,225,1,0,0,0,16,
        229,1,0,0,0,18,266,1,0,0,0,20,268,1,0,0,0,22,23,5,1,0,0,23,24,5,
        23,0,0,24,28,5,46,0,0,25,27,3,2,1,0,26,25,1,0,0,0,27,30,1,0,0,0,
        28,26,1,0,0,0,28,29,1,0,0,0,29,31,1,0,0,0,30,28,1,0,0,0,31,32,5,
        47,0,0,32,33,5,0,0,1,33,1,1,0,0,0,34,35,5,2,0,0,35,36,5,20,0,0,36,
        37,5,23,0,0,37,142,5,40,0,0,38,39,5,3,0,0,39,40,5,23,0,0,40,41,5,
        39,0,0,41,42,3,10,5,0,42,43,5,40,0,0,43,142,1,0,0,0,44,45,5,4,0,
        0,45,48,5,23,0,0,46,47,5,12,0,0,47,49,3,16,8,0,48,46,1,0,0,0,48,
        49,1,0,0,0,49,50,1,0,0,0,50,142,5,40,0,0,51,52,5,5,0,0,52,55,5,23,
        0,0,53,54,5,11,0,0,54,56,5,23,0,0,55,53,1,0,0,0,55,56,1,0,0,0,56,
        57,1,0,0,0,57,142,5,40,0,0,58,59,5,6,0,0,59,60,5,23,0,0,60,142,5,
        40,0,0,61,62,5,7,0,0,62,63,5,23,0,0,63,142,5,40,0,0,64,65,5,8,0,
        0,65,66,5,23,0,0,66,67,5,10,0,0,67,68,5,23,0,0,68,69,5,38,0,0,69,
        70,3,10,5,0,70,71,5,40,0,0,71,142,1,0,0,0,72,73,5,9,0,0,73,74,5,
        23,0,0,74,75,5,39,0,0,75,76,3,10,5,0,76,77,5,10,0,0,77,78,5,23,0,
        0,78,79,5,40,0,0,79,142,1,0,0,0,80,81,5,13,0,0,81,86,5,23,0,0,82,
        83,5,44,0,0,83,84,3,16,8,0,84,85,5,45,0,0,85,87,1,0,0,0,86,82,1,
        0,0,0,87,88,1,0,0,0,88,86,1,0,0,0,88,89,1,0,0,0,89,90,1,0,0,0,90,
        91,5,39,0,0,91,92,3,6,3,0,92,93,5,40,0,0,93,142,1,0,0,0,94,95,5,
        14,0,0,95,96,5,23,0,0,96,97,5,39,0,0,97,98,3,10,5,0,98,99,5,40,0,
        0,99,142,1,0,0,0,100,101,5,23,0,0,101,102,5,37,0,0,102,103,5,39,
        0,0,103,104,3,10,5,0,104,105,5,40,0,0,105,142,1,0,0,0,106,108,5,
        15,0,0,107,109,5,23,0,0,108,107,1,0,0,0,108,109,1,0,0,0,109,110,
        1,0,0,0,110,114,5,23,0,0,111,113,3,4,2,0,112,111,1,0,0,0,113,116,
        1,0,0,0,114,112,1,0,0,0,114,115,1,0,0,0,115,117,1,0,0,0,116,114,
        1,0,0,0,117,142,5,40,0,0,118,119,5,16,0,0,119,124,5,23,0,0,120,121,
        5,36,0,0,121,123,5,23,0,0,122,120,1,0,0,0,123,126,1,0,0,0,124,122,
        1,0,0,0,124,125,1,0,0,0,125,127,1,0,0,0,126,124,1,0,0,0,127,128,
        5,39,0,0,128,129,3,10,5,0,129,130,5,40,0,0,130,142,1,0,0,0,131,132,
        5,17,0,0,132,137,5,23,0,0,133,134,5,23,0,0,134,136,3,16,8,0,135,
        133,1,0,0,0,136,139,1,0,0,0,137,135,1,0,0,0,137,138,1,0,0,0,138,
        140,1,0,0,0,139,137,1,0,0,0,140,142,5,40,0,0,141,34,1,0,0,0,141,
        38,1,0,0,0,141,44,1,0,0,0,141,51,1,0,0,0,141,58,1,0,0,0,141,61,1,
        0,0,0,141,64,1,0,0,0,141,72,1,0,0,0,141,80,1,0,0,0,141,94,1,0,0,
        0,141,100,1,0,0,0,141,106,1,0,0,0,141,118,1,0,0,0,141,131,1,0,0,
        0,142,3,1,0,0,0,143,145,5,23,0,0,144,146,7,0,0,0,145,144,1,0,0,0,
        145,146,1,0,0,0,146,5,1,0,0,0,147,159,5,46,0,0,148,153,3,8,4,0,149,
        150,5,41,0,0,150,152,3,8,4,0,151,149,1,0,0,0,152,155,1,0,0,0,153,
        151,1,0,0,0,153,154,1,0,0,0,154,157,1,0,0,0,155,153,1,0,0,0,156,
        158,5,41,0,0,157,156,1,0,0,0,157,158,1,0,0,0,158,160,1,0,0,0,159,
        148,1,0,0,0,159,160,1,0,0,0,160,161,1,0,0,0,161,162,5,47,0,0,162,
        7,1,0,0,0,163,166,3,6,3,0,164,166,3,10,5,0,165,163,1,0,0,0,165,164,
        1,0,0,0,166,9,1,0,0,0,167,168,6,5,-1,0,168,185,3,18,9,0,169,170,
        7,1,0,0,170,185,3,10,5,9,171,172,5,18,0,0,172,173,5,42,0,0,173,178,
        3,12,6,0,174,175,5,41,0,0,175,177,3,12,6,0,176,174,1,0,0,0,177,180,
        1,0,0,0,178,176,1,0,0,0,178,179,1,0,0,0,179,181,1,0,0,0,180,178,
        1,0,0,0,181,182,5,43,0,0,182,183,3,10,5,7,183,185,1,0,0,0,184,167,
        1,0,0,0,184,169,1,0,0,0,184,171,1,0,0,0,185,215,1,0,0,0,186,187,
        10,10,0,0,187,188,5,52,0,0,188,214,3,10,5,10,189,190,10,8,0,0,190,
        191,7,2,0,0,191,214,3,10,5,9,192,193,10,6,0,0,193,194,7,0,0,0,194,
        214,3,10,5,7,195,196,10,5,0,0,196,197,7,3,0,0,197,214,3,10,5,6,198,
        199,10,4,0,0,199,200,7,4,0,0,200,214,3,10,5,5,201,202,10,3,0,0,202,
        203,5,29,0,0,203,214,3,10,5,4,204,205,10,2,0,0,205,206,5,30,0,0,
        206,214,3,10,5,3,207,208,10,1,0,0,208,209,5,34,0,0,209,210,3,10,
        5,0,210,211,5,35,0,0,211,212,3,10,5,1,212,214,1,0,0,0,213,186,1,
        0,0,0,213,189,1,0,0,0,213,192,1,0,0,0,213,195,1,0,0,0,213,198,1,
        0,0,0,213,201,1,0,0,0,213,204,1,0,0,0,213,207,1,0,0,0,214,217,1,
        0,0,0,215,213,1,0,0,0,215,216,1,0,0,0,216,11,1,0,0,0,217,215,1,0,
        0,0,218,219,5,23,0,0,219,220,5,19,0,0,220,221,3,14,7,0,221,222,5,
        24,0,0,222,223,3,14,7,0,223,13,1,0,0,0,224,226,7,0,0,0,225,224,1,
        0,0,0,225,226,1,0,0,0,226,227,1,0,0,0,227,228,3,16,8,0,228,15,1,
        0,0,0,229,230,7,5,0,0,230,17,1,0,0,0,231,267,3,16,8,0,232,233,5,
        23,0,0,233,242,5,42,0,0,234,239,3,10,5,0,235,236,5,41,0,0,236,238,
        3,10,5,0,237,235,1,0,0,0,238,241,1,0,0,0,239,237,1,0,0,0,239,240,
        1,0,0,0,240,243,1,0,0,0,241,239,1,0,0,0,242,234,1,0,0,0,242,243,
        1,0,0,0,243,244,1,0,0,0,244,267,5,43,0,0,245,247,5,23,0,0,246,248,
        5,37,0,0,247,246,1,0,0,0,247,248,1,0,0,0,248,253,1,0,0,0,249,250,
        5,36,0,0,250,252,5,23,0,0,251,249,1,0,0,0,252,255,1,0,0,0,253,251,
        1,0,0,0,253,254,1,0,0,0,254,259,1,0,0,0,255,253,1,0,0,0,256,258,
        3,20,10,0,257,256,1,0,0,0,258,261,1,0,0,0,259,257,1,0,0,0,259,260,
        1,0,0,0,260,267,1,0,0,0,261,259,1,0,0,0,262,263,5,42,0,0,263,264,
        3,10,5,0,264,265,5,43,0,0,265,267,1,0,0,0,266,231,1,0,0,0,266,232,
        1,0,0,0,266,245,1,0,0,0,266,262,1,0,0,0,267,19,1,0,0,0,268,269,5,
        44,0,0,269,274,3,10,5,0,270,271,5,41,0,0,271,273,3,10,5,0,272,270,
        1,0,0,0,273,276,1,0,0,0,274,272,1,0,0,0,274,275,1,0,0,0,275,277,
        1,0,0,0,276,274,1,0,0,0,277,278,5,45,0,0,278,21,1,0,0,0,26,28,48,
        55,88,108,114,124,137,141,145,153,157,159,165,178,184,213,215,225,
        239,242,247,253,259,266,274
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
    RULE_face = 2
    RULE_tableInit = 3
    RULE_tableItem = 4
    RULE_expr = 5
    RULE_sumRange = 6
    RULE_signedNumber = 7
    RULE_number = 8
    RULE_primary = 9
    RULE_subscript = 10

    ruleNames =  [ "program", "decl", "face", "tableInit", "tableItem", 
                   "expr", "sumRange", "signedNumber", "number", "primary", 
                   "subscript" ]

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
            self.state = 22
            self.match(StencilParser.STENCIL)
            self.state = 23
            localctx.name = self.match(StencilParser.ID)
            self.state = 24
            self.match(StencilParser.LBRACE)
            self.state = 28
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            while (((_la) & ~0x3f) == 0 and ((1 << _la) & 8643580) != 0):
                self.state = 25
                self.decl()
                self.state = 30
                self._errHandler.sync(self)
                _la = self._input.LA(1)

            self.state = 31
            self.match(StencilParser.RBRACE)
            self.state = 32
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
            self._ID = None # Token
            self.suffix = list() # of Tokens
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
        def DOT(self, i:int=None):
            if i is None:
                return self.getTokens(StencilParser.DOT)
            else:
                return self.getToken(StencilParser.DOT, i)

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
            self._face = None # FaceContext
            self.faces = list() # of FaceContexts
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
        def face(self, i:int=None):
            if i is None:
                return self.getTypedRuleContexts(StencilParser.FaceContext)
            else:
                return self.getTypedRuleContext(StencilParser.FaceContext,i)


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
            self.state = 141
            self._errHandler.sync(self)
            token = self._input.LA(1)
            if token in [2]:
                localctx = StencilParser.GridDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 1)
                self.state = 34
                self.match(StencilParser.GRID)
                self.state = 35
                localctx.dims = self.match(StencilParser.DIMS)
                self.state = 36
                localctx.dtype = self.match(StencilParser.ID)
                self.state = 37
                self.match(StencilParser.SEMI)
                pass
            elif token in [3]:
                localctx = StencilParser.ParamDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 2)
                self.state = 38
                self.match(StencilParser.PARAM)
                self.state = 39
                localctx.name = self.match(StencilParser.ID)
                self.state = 40
                self.match(StencilParser.ASSIGN)
                self.state = 41
                self.expr(0)
                self.state = 42
                self.match(StencilParser.SEMI)
                pass
            elif token in [4]:
                localctx = StencilParser.StateDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 3)
                self.state = 44
                self.match(StencilParser.STATE)
                self.state = 45
                localctx.name = self.match(StencilParser.ID)
                self.state = 48
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                if _la==12:
                    self.state = 46
                    self.match(StencilParser.LEVELS)
                    self.state = 47
                    localctx.levels = self.number()


                self.state = 50
                self.match(StencilParser.SEMI)
                pass
            elif token in [5]:
                localctx = StencilParser.InputDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 4)
                self.state = 51
                self.match(StencilParser.INPUT)
                self.state = 52
                localctx.name = self.match(StencilParser.ID)
                self.state = 55
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                if _la==11:
                    self.state = 53
                    self.match(StencilParser.ALONG)
                    self.state = 54
                    localctx.axis = self.match(StencilParser.ID)


                self.state = 57
                self.match(StencilParser.SEMI)
                pass
            elif token in [6]:
                localctx = StencilParser.SeriesDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 5)
                self.state = 58
                self.match(StencilParser.SERIES)
                self.state = 59
                localctx.name = self.match(StencilParser.ID)
                self.state = 60
                self.match(StencilParser.SEMI)
                pass
            elif token in [7]:
                localctx = StencilParser.PointsDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 6)
                self.state = 61
                self.match(StencilParser.POINTS)
                self.state = 62
                localctx.name = self.match(StencilParser.ID)
                self.state = 63
                self.match(StencilParser.SEMI)
                pass
            elif token in [8]:
                localctx = StencilParser.InjectDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 7)
                self.state = 64
                self.match(StencilParser.INJECT)
                self.state = 65
                localctx.field = self.match(StencilParser.ID)
                self.state = 66
                self.match(StencilParser.AT)
                self.state = 67
                localctx.pts = self.match(StencilParser.ID)
                self.state = 68
                self.match(StencilParser.PLUSEQ)
                self.state = 69
                self.expr(0)
                self.state = 70
                self.match(StencilParser.SEMI)
                pass
            elif token in [9]:
                localctx = StencilParser.RecordDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 8)
                self.state = 72
                self.match(StencilParser.RECORD)
                self.state = 73
                localctx.name = self.match(StencilParser.ID)
                self.state = 74
                self.match(StencilParser.ASSIGN)
                self.state = 75
                self.expr(0)
                self.state = 76
                self.match(StencilParser.AT)
                self.state = 77
                localctx.pts = self.match(StencilParser.ID)
                self.state = 78
                self.match(StencilParser.SEMI)
                pass
            elif token in [13]:
                localctx = StencilParser.TableDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 9)
                self.state = 80
                self.match(StencilParser.TABLE)
                self.state = 81
                localctx.name = self.match(StencilParser.ID)
                self.state = 86 
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                while True:
                    self.state = 82
                    self.match(StencilParser.LBRACK)
                    self.state = 83
                    self.number()
                    self.state = 84
                    self.match(StencilParser.RBRACK)
                    self.state = 88 
                    self._errHandler.sync(self)
                    _la = self._input.LA(1)
                    if not (_la==44):
                        break

                self.state = 90
                self.match(StencilParser.ASSIGN)
                self.state = 91
                self.tableInit()
                self.state = 92
                self.match(StencilParser.SEMI)
                pass
            elif token in [14]:
                localctx = StencilParser.LetDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 10)
                self.state = 94
                self.match(StencilParser.LET)
                self.state = 95
                localctx.name = self.match(StencilParser.ID)
                self.state = 96
                self.match(StencilParser.ASSIGN)
                self.state = 97
                self.expr(0)
                self.state = 98
                self.match(StencilParser.SEMI)
                pass
            elif token in [23]:
                localctx = StencilParser.UpdateDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 11)
                self.state = 100
                localctx.name = self.match(StencilParser.ID)
                self.state = 101
                self.match(StencilParser.PRIME)
                self.state = 102
                self.match(StencilParser.ASSIGN)
                self.state = 103
                self.expr(0)
                self.state = 104
                self.match(StencilParser.SEMI)
                pass
            elif token in [15]:
                localctx = StencilParser.BoundaryDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 12)
                self.state = 106
                self.match(StencilParser.BOUNDARY)
                self.state = 108
                self._errHandler.sync(self)
                la_ = self._interp.adaptivePredict(self._input,4,self._ctx)
                if la_ == 1:
                    self.state = 107
                    localctx.field = self.match(StencilParser.ID)


                self.state = 110
                localctx.kind = self.match(StencilParser.ID)
                self.state = 114
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                while _la==23:
                    self.state = 111
                    localctx._face = self.face()
                    localctx.faces.append(localctx._face)
                    self.state = 116
                    self._errHandler.sync(self)
                    _la = self._input.LA(1)

                self.state = 117
                self.match(StencilParser.SEMI)
                pass
            elif token in [16]:
                localctx = StencilParser.InitDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 13)
                self.state = 118
                self.match(StencilParser.INIT)
                self.state = 119
                localctx.name = self.match(StencilParser.ID)
                self.state = 124
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                while _la==36:
                    self.state = 120
                    self.match(StencilParser.DOT)
                    self.state = 121
                    localctx._ID = self.match(StencilParser.ID)
                    localctx.suffix.append(localctx._ID)
                    self.state = 126
                    self._errHandler.sync(self)
                    _la = self._input.LA(1)

                self.state = 127
                self.match(StencilParser.ASSIGN)
                self.state = 128
                self.expr(0)
                self.state = 129
                self.match(StencilParser.SEMI)
                pass
            elif token in [17]:
                localctx = StencilParser.SaveDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 14)
                self.state = 131
                self.match(StencilParser.SAVE)
                self.state = 132
                localctx.field = self.match(StencilParser.ID)
                self.state = 137
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                while _la==23:
                    self.state = 133
                    localctx._ID = self.match(StencilParser.ID)
                    localctx.keys.append(localctx._ID)
                    self.state = 134
                    self.number()
                    self.state = 139
                    self._errHandler.sync(self)
                    _la = self._input.LA(1)

                self.state = 140
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


    class FaceContext(ParserRuleContext):
        __slots__ = 'parser'

        def __init__(self, parser, parent:ParserRuleContext=None, invokingState:int=-1):
            super().__init__(parent, invokingState)
            self.parser = parser
            self.axis = None # Token
            self.sign = None # Token

        def ID(self):
            return self.getToken(StencilParser.ID, 0)

        def PLUS(self):
            return self.getToken(StencilParser.PLUS, 0)

        def MINUS(self):
            return self.getToken(StencilParser.MINUS, 0)

        def getRuleIndex(self):
            return StencilParser.RULE_face

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitFace" ):
                return visitor.visitFace(self)
            else:
                return visitor.visitChildren(self)




    def face(self):

        localctx = StencilParser.FaceContext(self, self._ctx, self.state)
        self.enterRule(localctx, 4, self.RULE_face)
        self._la = 0 # Token type
        try:
            self.enterOuterAlt(localctx, 1)
            self.state = 143
            localctx.axis = self.match(StencilParser.ID)
            self.state = 145
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            if _la==48 or _la==49:
                self.state = 144
                localctx.sign = self._input.LT(1)
                _la = self._input.LA(1)
                if not(_la==48 or _la==49):
                    localctx.sign = self._errHandler.recoverInline(self)
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
        self.enterRule(localctx, 6, self.RULE_tableInit)
        self._la = 0 # Token type
        try:
            self.enterOuterAlt(localctx, 1)
            self.state = 147
            self.match(StencilParser.LBRACE)
            self.state = 159
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            if (((_la) & ~0x3f) == 0 and ((1 << _la) & 919200325697536) != 0):
                self.state = 148
                self.tableItem()
                self.state = 153
                self._errHandler.sync(self)
                _alt = self._interp.adaptivePredict(self._input,10,self._ctx)
                while _alt!=2 and _alt!=ATN.INVALID_ALT_NUMBER:
                    if _alt==1:
                        self.state = 149
                        self.match(StencilParser.COMMA)
                        self.state = 150
                        self.tableItem() 
                    self.state = 155
                    self._errHandler.sync(self)
                    _alt = self._interp.adaptivePredict(self._input,10,self._ctx)

                self.state = 157
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                if _la==41:
                    self.state = 156
                    self.match(StencilParser.COMMA)




            self.state = 161
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
        self.enterRule(localctx, 8, self.RULE_tableItem)
        try:
            self.state = 165
            self._errHandler.sync(self)
            token = self._input.LA(1)
            if token in [46]:
                self.enterOuterAlt(localctx, 1)
                self.state = 163
                self.tableInit()
                pass
            elif token in [18, 21, 22, 23, 33, 42, 48, 49]:
                self.enterOuterAlt(localctx, 2)
                self.state = 164
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
        _startState = 10
        self.enterRecursionRule(localctx, 10, self.RULE_expr, _p)
        self._la = 0 # Token type
        try:
            self.enterOuterAlt(localctx, 1)
            self.state = 184
            self._errHandler.sync(self)
            token = self._input.LA(1)
            if token in [21, 22, 23, 42]:
                localctx = StencilParser.PrimaryExprContext(self, localctx)
                self._ctx = localctx
                _prevctx = localctx

                self.state = 168
                self.primary()
                pass
            elif token in [33, 48, 49]:
                localctx = StencilParser.UnaryExprContext(self, localctx)
                self._ctx = localctx
                _prevctx = localctx
                self.state = 169
                localctx.op = self._input.LT(1)
                _la = self._input.LA(1)
                if not((((_la) & ~0x3f) == 0 and ((1 << _la) & 844433520066560) != 0)):
                    localctx.op = self._errHandler.recoverInline(self)
                else:
                    self._errHandler.reportMatch(self)
                    self.consume()
                self.state = 170
                localctx.operand = self.expr(9)
                pass
            elif token in [18]:
                localctx = StencilParser.SumExprContext(self, localctx)
                self._ctx = localctx
                _prevctx = localctx
                self.state = 171
                self.match(StencilParser.SUM)
                self.state = 172
                self.match(StencilParser.LPAREN)
                self.state = 173
                self.sumRange()
                self.state = 178
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                while _la==41:
                    self.state = 174
                    self.match(StencilParser.COMMA)
                    self.state = 175
                    self.sumRange()
                    self.state = 180
                    self._errHandler.sync(self)
                    _la = self._input.LA(1)

                self.state = 181
                self.match(StencilParser.RPAREN)
                self.state = 182
                localctx.body = self.expr(7)
                pass
            else:
                raise NoViableAltException(self)

            self._ctx.stop = self._input.LT(-1)
            self.state = 215
            self._errHandler.sync(self)
            _alt = self._interp.adaptivePredict(self._input,17,self._ctx)
            while _alt!=2 and _alt!=ATN.INVALID_ALT_NUMBER:
                if _alt==1:
                    if self._parseListeners is not None:
                        self.triggerExitRuleEvent()
                    _prevctx = localctx
                    self.state = 213
                    self._errHandler.sync(self)
                    la_ = self._interp.adaptivePredict(self._input,16,self._ctx)
                    if la_ == 1:
                        localctx = StencilParser.PowExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 186
                        if not self.precpred(self._ctx, 10):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 10)")
                        self.state = 187
                        localctx.op = self.match(StencilParser.CARET)
                        self.state = 188
                        localctx.rhs = self.expr(10)
                        pass

                    elif la_ == 2:
                        localctx = StencilParser.MulExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 189
                        if not self.precpred(self._ctx, 8):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 8)")
                        self.state = 190
                        localctx.op = self._input.LT(1)
                        _la = self._input.LA(1)
                        if not(_la==50 or _la==51):
                            localctx.op = self._errHandler.recoverInline(self)
                        else:
                            self._errHandler.reportMatch(self)
                            self.consume()
                        self.state = 191
                        localctx.rhs = self.expr(9)
                        pass

                    elif la_ == 3:
                        localctx = StencilParser.AddExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 192
                        if not self.precpred(self._ctx, 6):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 6)")
                        self.state = 193
                        localctx.op = self._input.LT(1)
                        _la = self._input.LA(1)
                        if not(_la==48 or _la==49):
                            localctx.op = self._errHandler.recoverInline(self)
                        else:
                            self._errHandler.reportMatch(self)
                            self.consume()
                        self.state = 194
                        localctx.rhs = self.expr(7)
                        pass

                    elif la_ == 4:
                        localctx = StencilParser.RelExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 195
                        if not self.precpred(self._ctx, 5):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 5)")
                        self.state = 196
                        localctx.op = self._input.LT(1)
                        _la = self._input.LA(1)
                        if not((((_la) & ~0x3f) == 0 and ((1 << _la) & 6543114240) != 0)):
                            localctx.op = self._errHandler.recoverInline(self)
                        else:
                            self._errHandler.reportMatch(self)
                            self.consume()
                        self.state = 197
                        localctx.rhs = self.expr(6)
                        pass

                    elif la_ == 5:
                        localctx = StencilParser.EqExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 198
                        if not self.precpred(self._ctx, 4):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 4)")
                        self.state = 199
                        localctx.op = self._input.LT(1)
                        _la = self._input.LA(1)
                        if not(_la==27 or _la==28):
                            localctx.op = self._errHandler.recoverInline(self)
                        else:
                            self._errHandler.reportMatch(self)
                            self.consume()
                        self.state = 200
                        localctx.rhs = self.expr(5)
                        pass

                    elif la_ == 6:
                        localctx = StencilParser.AndExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 201
                        if not self.precpred(self._ctx, 3):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 3)")
                        self.state = 202
                        localctx.op = self.match(StencilParser.AND)
                        self.state = 203
                        localctx.rhs = self.expr(4)
                        pass

                    elif la_ == 7:
                        localctx = StencilParser.OrExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 204
                        if not self.precpred(self._ctx, 2):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 2)")
                        self.state = 205
                        localctx.op = self.match(StencilParser.OR)
                        self.state = 206
                        localctx.rhs = self.expr(3)
                        pass

                    elif la_ == 8:
                        localctx = StencilParser.CondExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.cond = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 207
                        if not self.precpred(self._ctx, 1):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 1)")
                        self.state = 208
                        localctx.op = self.match(StencilParser.QUESTION)
                        self.state = 209
                        localctx.then = self.expr(0)
                        self.state = 210
                        self.match(StencilParser.COLON)
                        self.state = 211
                        localctx.other = self.expr(1)
                        pass

             
                self.state = 217
                self._errHandler.sync(self)
                _alt = self._interp.adaptivePredict(self._input,17,self._ctx)

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
        self.enterRule(localctx, 12, self.RULE_sumRange)
        try:
            self.enterOuterAlt(localctx, 1)
            self.state = 218
            localctx.var = self.match(StencilParser.ID)
            self.state = 219
            self.match(StencilParser.IN)
            self.state = 220
            localctx.lo = self.signedNumber()
            self.state = 221
            self.match(StencilParser.DOTDOT)
            self.state = 222
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
        self.enterRule(localctx, 14, self.RULE_signedNumber)
        self._la = 0 # Token type
        try:
            self.enterOuterAlt(localctx, 1)
            self.state = 225
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            if _la==48 or _la==49:
                self.state = 224
                localctx.sign = self._input.LT(1)
                _la = self._input.LA(1)
                if not(_la==48 or _la==49):
                    localctx.sign = self._errHandler.recoverInline(self)
                else:
                    self._errHandler.reportMatch(self)
                    self.consume()


            self.state = 227
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
        self.enterRule(localctx, 16, self.RULE_number)
        self._la = 0 # Token type
        try:
            self.enterOuterAlt(localctx, 1)
            self.state = 229
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
            self._ID = None # Token
            self.suffix = list() # of Tokens
            self.copyFrom(ctx)

        def ID(self, i:int=None):
            if i is None:
                return self.getTokens(StencilParser.ID)
            else:
                return self.getToken(StencilParser.ID, i)
        def DOT(self, i:int=None):
            if i is None:
                return self.getTokens(StencilParser.DOT)
            else:
                return self.getToken(StencilParser.DOT, i)
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
        self.enterRule(localctx, 18, self.RULE_primary)
        self._la = 0 # Token type
        try:
            self.state = 266
            self._errHandler.sync(self)
            la_ = self._interp.adaptivePredict(self._input,24,self._ctx)
            if la_ == 1:
                localctx = StencilParser.NumberPrimaryContext(self, localctx)
                self.enterOuterAlt(localctx, 1)
                self.state = 231
                self.number()
                pass

            elif la_ == 2:
                localctx = StencilParser.CallPrimaryContext(self, localctx)
                self.enterOuterAlt(localctx, 2)
                self.state = 232
                localctx.func = self.match(StencilParser.ID)
                self.state = 233
                self.match(StencilParser.LPAREN)
                self.state = 242
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                if (((_la) & ~0x3f) == 0 and ((1 << _la) & 848831581519872) != 0):
                    self.state = 234
                    self.expr(0)
                    self.state = 239
                    self._errHandler.sync(self)
                    _la = self._input.LA(1)
                    while _la==41:
                        self.state = 235
                        self.match(StencilParser.COMMA)
                        self.state = 236
                        self.expr(0)
                        self.state = 241
                        self._errHandler.sync(self)
                        _la = self._input.LA(1)



                self.state = 244
                self.match(StencilParser.RPAREN)
                pass

            elif la_ == 3:
                localctx = StencilParser.RefPrimaryContext(self, localctx)
                self.enterOuterAlt(localctx, 3)
                self.state = 245
                localctx.name = self.match(StencilParser.ID)
                self.state = 247
                self._errHandler.sync(self)
                la_ = self._interp.adaptivePredict(self._input,21,self._ctx)
                if la_ == 1:
                    self.state = 246
                    localctx.new = self.match(StencilParser.PRIME)


                self.state = 253
                self._errHandler.sync(self)
                _alt = self._interp.adaptivePredict(self._input,22,self._ctx)
                while _alt!=2 and _alt!=ATN.INVALID_ALT_NUMBER:
                    if _alt==1:
                        self.state = 249
                        self.match(StencilParser.DOT)
                        self.state = 250
                        localctx._ID = self.match(StencilParser.ID)
                        localctx.suffix.append(localctx._ID) 
                    self.state = 255
                    self._errHandler.sync(self)
                    _alt = self._interp.adaptivePredict(self._input,22,self._ctx)

                self.state = 259
                self._errHandler.sync(self)
                _alt = self._interp.adaptivePredict(self._input,23,self._ctx)
                while _alt!=2 and _alt!=ATN.INVALID_ALT_NUMBER:
                    if _alt==1:
                        self.state = 256
                        self.subscript() 
                    self.state = 261
                    self._errHandler.sync(self)
                    _alt = self._interp.adaptivePredict(self._input,23,self._ctx)

                pass

            elif la_ == 4:
                localctx = StencilParser.ParenPrimaryContext(self, localctx)
                self.enterOuterAlt(localctx, 4)
                self.state = 262
                self.match(StencilParser.LPAREN)
                self.state = 263
                self.expr(0)
                self.state = 264
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
        self.enterRule(localctx, 20, self.RULE_subscript)
        self._la = 0 # Token type
        try:
            self.enterOuterAlt(localctx, 1)
            self.state = 268
            self.match(StencilParser.LBRACK)
            self.state = 269
            self.expr(0)
            self.state = 274
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            while _la==41:
                self.state = 270
                self.match(StencilParser.COMMA)
                self.state = 271
                self.expr(0)
                self.state = 276
                self._errHandler.sync(self)
                _la = self._input.LA(1)

            self.state = 277
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
        self._predicates[5] = self.expr_sempred
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
         




