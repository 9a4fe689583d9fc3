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
        4,1,54,287,2,0,7,0,2,1,7,1,2,2,7,2,2,3,7,3,2,4,7,4,2,5,7,5,2,6,7,
        6,2,7,7,7,2,8,7,8,2,9,7,9,2,10,7,10,1,0,1,0,1,0,1,0,5,0,27,8,0,10,
        0,12,0,30,9,0,1,0,1,0,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
        1,1,1,1,1,1,1,1,1,3,1,49,8,1,1,1,1,1,1,1,1,1,1,1,3,1,56,8,1,1,1,
        1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,3,1,67,8,1,3,1,69,8,1,1,1,1,1,1,
        1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
        1,1,1,1,1,1,1,1,1,4,1,94,8,1,11,1,12,1,95,1,1,1,1,1,1,1,1,1,1,1,
        1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,3,1,116,8,1,1,
        1,1,1,5,1,120,8,1,10,1,12,1,123,9,1,1,1,1,1,1,1,1,1,1,1,5,1,130,
        8,1,10,1,12,1,133,9,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,5,1,143,8,
        1,10,1,12,1,146,9,1,1,1,3,1,149,8,1,1,2,1,2,3,2,153,8,2,1,3,1,3,
        1,3,1,3,5,3,159,8,3,10,3,12,3,162,9,3,1,3,3,3,165,8,3,3,3,167,8,
        3,1,3,1,3,1,4,1,4,3,4,173,8,4,1,5,1,5,1,5,1,5,1,5,1,5,1,5,1,5,1,
        5,5,5,184,8,5,10,5,12,5,187,9,5,1,5,1,5,1,5,3,5,192,8,5,1,5,1,5,
        1,5,1,5,1,5,1,5,1,5,1,5,1,5,1,5,1,5,1,5,1,5,1,5,1,5,1,5,1,5,1,5,
        1,5,1,5,1,5,1,5,1,5,1,5,1,5,1,5,1,5,5,5,221,8,5,10,5,12,5,224,9,
        5,1,6,1,6,1,6,1,6,1,6,1,6,1,7,3,7,233,8,7,1,7,1,7,1,8,1,8,1,9,1,
        9,1,9,1,9,1,9,1,9,5,9,245,8,9,10,9,12,9,248,9,9,3,9,250,8,9,1,9,
        1,9,1,9,3,9,255,8,9,1,9,1,9,5,9,259,8,9,10,9,12,9,262,9,9,1,9,5,
        9,265,8,9,10,9,12,9,268,9,9,1,9,1,9,1,9,1,9,3,9,274,8,9,1,10,1,10,
        1,10,1,10,5,10,280,8,10,10,10,12,10,283,9,10,1,10,1,10,1,10,0,1,
        10,11,0,2,4,6,8,10,12,14,16,18,20,0,6,1,0,48,49,2,0,33,33,48,49,
        1,0,50,51,2,0,25,26,31,32,1,0,27,28,1,0,21,22,324,0,22,1,0,0,0,2,
        148,1,0,0,0,4,150,1,0,0,0,6,154,1,0,0,0,8,172,1,0,0,0,10,191,1,0,
        0,0,12,225,1,0,0,0,14,232,1,0,0,0,16,236,1,0,0,0,18,273,1,0,0,0,
        20,275,1,0,0,0,22,23,5,1,0,0,23,24,5,23,0,0,24,28,5,46,0,0,25,27,
        3,2,1,0,26,25,1,0,0,0,27,30,1,0,0,0,28,26,1,0,0,0,28,29,1,0,0,0,
        29,31,1,0,0,0,30,28,1,0,0,0,31,32,5,47,0,0,32,33,5,0,0,1,33,1,1,
        0,0,0,34,35,5,2,0,0,35,36,5,20,0,0,36,37,5,23,0,0,37,149,5,40,0,
        0,38,39,5,3,0,0,39,40,5,23,0,0,40,41,5,39,0,0,41,42,3,10,5,0,42,
        43,5,40,0,0,43,149,1,0,0,0,44,45,5,4,0,0,45,48,5,23,0,0,46,47,5,
        12,0,0,47,49,3,16,8,0,48,46,1,0,0,0,48,49,1,0,0,0,49,50,1,0,0,0,
        50,149,5,40,0,0,51,52,5,5,0,0,52,55,5,23,0,0,53,54,5,11,0,0,54,56,
        5,23,0,0,55,53,1,0,0,0,55,56,1,0,0,0,56,57,1,0,0,0,57,149,5,40,0,
        0,58,59,5,6,0,0,59,60,5,23,0,0,60,149,5,40,0,0,61,62,5,7,0,0,62,
        68,5,23,0,0,63,66,5,23,0,0,64,65,5,23,0,0,65,67,5,23,0,0,66,64,1,
        0,0,0,66,67,1,0,0,0,67,69,1,0,0,0,68,63,1,0,0,0,68,69,1,0,0,0,69,
        70,1,0,0,0,70,149,5,40,0,0,71,72,5,8,0,0,72,73,5,23,0,0,73,74,5,
        10,0,0,74,75,5,23,0,0,75,76,5,38,0,0,76,77,3,10,5,0,77,78,5,40,0,
        0,78,149,1,0,0,0,79,80,5,9,0,0,80,81,5,23,0,0,81,82,5,39,0,0,82,
        83,3,10,5,0,83,84,5,10,0,0,84,85,5,23,0,0,85,86,5,40,0,0,86,149,
        1,0,0,0,87,88,5,13,0,0,88,93,5,23,0,0,89,90,5,44,0,0,90,91,3,16,
        8,0,91,92,5,45,0,0,92,94,1,0,0,0,93,89,1,0,0,0,94,95,1,0,0,0,95,
        93,1,0,0,0,95,96,1,0,0,0,96,97,1,0,0,0,97,98,5,39,0,0,98,99,3,6,
        3,0,99,100,5,40,0,0,100,149,1,0,0,0,101,102,5,14,0,0,102,103,5,23,
        0,0,103,104,5,39,0,0,104,105,3,10,5,0,105,106,5,40,0,0,106,149,1,
        0,0,0,107,108,5,23,0,0,108,109,5,37,0,0,109,110,5,39,0,0,110,111,
        3,10,5,0,111,112,5,40,0,0,112,149,1,0,0,0,113,115,5,15,0,0,114,116,
        5,23,0,0,115,114,1,0,0,0,115,116,1,0,0,0,116,117,1,0,0,0,117,121,
        5,23,0,0,118,120,3,4,2,0,119,118,1,0,0,0,120,123,1,0,0,0,121,119,
        1,0,0,0,121,122,1,0,0,0,122,124,1,0,0,0,123,121,1,0,0,0,124,149,
        5,40,0,0,125,126,5,16,0,0,126,131,5,23,0,0,127,128,5,36,0,0,128,
        130,5,23,0,0,129,127,1,0,0,0,130,133,1,0,0,0,131,129,1,0,0,0,131,
        132,1,0,0,0,132,134,1,0,0,0,133,131,1,0,0,0,134,135,5,39,0,0,135,
        136,3,10,5,0,136,137,5,40,0,0,137,149,1,0,0,0,138,139,5,17,0,0,139,
        144,5,23,0,0,140,141,5,23,0,0,141,143,3,16,8,0,142,140,1,0,0,0,143,
        146,1,0,0,0,144,142,1,0,0,0,144,145,1,0,0,0,145,147,1,0,0,0,146,
        144,1,0,0,0,147,149,5,40,0,0,148,34,1,0,0,0,148,38,1,0,0,0,148,44,
        1,0,0,0,148,51,1,0,0,0,148,58,1,0,0,0,148,61,1,0,0,0,148,71,1,0,
        0,0,148,79,1,0,0,0,148,87,1,0,0,0,148,101,1,0,0,0,148,107,1,0,0,
        0,148,113,1,0,0,0,148,125,1,0,0,0,148,138,1,0,0,0,149,3,1,0,0,0,
        150,152,5,23,0,0,151,153,7,0,0,0,152,151,1,0,0,0,152,153,1,0,0,0,
        153,5,1,0,0,0,154,166,5,46,0,0,155,160,3,8,4,0,156,157,5,41,0,0,
        157,159,3,8,4,0,158,156,1,0,0,0,159,162,1,0,0,0,160,158,1,0,0,0,
        160,161,1,0,0,0,161,164,1,0,0,0,162,160,1,0,0,0,163,165,5,41,0,0,
        164,163,1,0,0,0,164,165,1,0,0,0,165,167,1,0,0,0,166,155,1,0,0,0,
        166,167,1,0,0,0,167,168,1,0,0,0,168,169,5,47,0,0,169,7,1,0,0,0,170,
        173,3,6,3,0,171,173,3,10,5,0,172,170,1,0,0,0,172,171,1,0,0,0,173,
        9,1,0,0,0,174,175,6,5,-1,0,175,192,3,18,9,0,176,177,7,1,0,0,177,
        192,3,10,5,9,178,179,5,18,0,0,179,180,5,42,0,0,180,185,3,12,6,0,
        181,182,5,41,0,0,182,184,3,12,6,0,183,181,1,0,0,0,184,187,1,0,0,
        0,185,183,1,0,0,0,185,186,1,0,0,0,186,188,1,0,0,0,187,185,1,0,0,
        0,188,189,5,43,0,0,189,190,3,10,5,7,190,192,1,0,0,0,191,174,1,0,
        0,0,191,176,1,0,0,0,191,178,1,0,0,0,192,222,1,0,0,0,193,194,10,10,
        0,0,194,195,5,52,0,0,195,221,3,10,5,10,196,197,10,8,0,0,197,198,
        7,2,0,0,198,221,3,10,5,9,199,200,10,6,0,0,200,201,7,0,0,0,201,221,
        3,10,5,7,202,203,10,5,0,0,203,204,7,3,0,0,204,221,3,10,5,6,205,206,
        10,4,0,0,206,207,7,4,0,0,207,221,3,10,5,5,208,209,10,3,0,0,209,210,
        5,29,0,0,210,221,3,10,5,4,211,212,10,2,0,0,212,213,5,30,0,0,213,
        221,3,10,5,3,214,215,10,1,0,0,215,216,5,34,0,0,216,217,3,10,5,0,
        217,218,5,35,0,0,218,219,3,10,5,1,219,221,1,0,0,0,220,193,1,0,0,
        0,220,196,1,0,0,0,220,199,1,0,0,0,220,202,1,0,0,0,220,205,1,0,0,
        0,220,208,1,0,0,0,220,211,1,0,0,0,220,214,1,0,0,0,221,224,1,0,0,
        0,222,220,1,0,0,0,222,223,1,0,0,0,223,11,1,0,0,0,224,222,1,0,0,0,
        225,226,5,23,0,0,226,227,5,19,0,0,227,228,3,14,7,0,228,229,5,24,
        0,0,229,230,3,14,7,0,230,13,1,0,0,0,231,233,7,0,0,0,232,231,1,0,
        0,0,232,233,1,0,0,0,233,234,1,0,0,0,234,235,3,16,8,0,235,15,1,0,
        0,0,236,237,7,5,0,0,237,17,1,0,0,0,238,274,3,16,8,0,239,240,5,23,
        0,0,240,249,5,42,0,0,241,246,3,10,5,0,242,243,5,41,0,0,243,245,3,
        10,5,0,244,242,1,0,0,0,245,248,1,0,0,0,246,244,1,0,0,0,246,247,1,
        0,0,0,247,250,1,0,0,0,248,246,1,0,0,0,249,241,1,0,0,0,249,250,1,
        0,0,0,250,251,1,0,0,0,251,274,5,43,0,0,252,254,5,23,0,0,253,255,
        5,37,0,0,254,253,1,0,0,0,254,255,1,0,0,0,255,260,1,0,0,0,256,257,
        5,36,0,0,257,259,5,23,0,0,258,256,1,0,0,0,259,262,1,0,0,0,260,258,
        1,0,0,0,260,261,1,0,0,0,261,266,1,0,0,0,262,260,1,0,0,0,263,265,
        3,20,10,0,264,263,1,0,0,0,265,268,1,0,0,0,266,264,1,0,0,0,266,267,
        1,0,0,0,267,274,1,0,0,0,268,266,1,0,0,0,269,270,5,42,0,0,270,271,
        3,10,5,0,271,272,5,43,0,0,272,274,1,0,0,0,273,238,1,0,0,0,273,239,
        1,0,0,0,273,252,1,0,0,0,273,269,1,0,0,0,274,19,1,0,0,0,275,276,5,
        44,0,0,276,281,3,10,5,0,277,278,5,41,0,0,278,280,3,10,5,0,279,277,
        1,0,0,0,280,283,1,0,0,0,281,279,1,0,0,0,281,282,1,0,0,0,282,284,
        1,0,0,0,283,281,1,0,0,0,284,285,5,45,0,0,285,21,1,0,0,0,28,28,48,
        55,66,68,95,115,121,131,144,148,152,160,164,166,172,185,191,220,
        222,232,246,249,254,260,266,273,281
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
            self.kind = None # Token
            self.key = None # Token
            self.spacing = None # Token
            self.copyFrom(ctx)

        def POINTS(self):
            return self.getToken(StencilParser.POINTS, 0)
        def SEMI(self):
            return self.getToken(StencilParser.SEMI, 0)
        def ID(self, i:int=None):
            if i is None:
                return self.getTokens(StencilParser.ID)
            else:
                return self.getToken(StencilParser.ID, i)

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
            self.state = 148
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
                self.state = 68
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                if _la==23:
                    self.state = 63
                    localctx.kind = self.match(StencilParser.ID)
                    self.state = 66
                    self._errHandler.sync(self)
                    _la = self._input.LA(1)
                    if _la==23:
                        self.state = 64
                        localctx.key = self.match(StencilParser.ID)
                        self.state = 65
                        localctx.spacing = self.match(StencilParser.ID)




                self.state = 70
                self.match(StencilParser.SEMI)
                pass
            elif token in [8]:
                localctx = StencilParser.InjectDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 7)
                self.state = 71
                self.match(StencilParser.INJECT)
                self.state = 72
                localctx.field = self.match(StencilParser.ID)
                self.state = 73
                self.match(StencilParser.AT)
                self.state = 74
                localctx.pts = self.match(StencilParser.ID)
                self.state = 75
                self.match(StencilParser.PLUSEQ)
                self.state = 76
                self.expr(0)
                self.state = 77
                self.match(StencilParser.SEMI)
                pass
            elif token in [9]:
                localctx = StencilParser.RecordDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 8)
                self.state = 79
                self.match(StencilParser.RECORD)
                self.state = 80
                localctx.name = self.match(StencilParser.ID)
                self.state = 81
                self.match(StencilParser.ASSIGN)
                self.state = 82
                self.expr(0)
                self.state = 83
                self.match(StencilParser.AT)
                self.state = 84
                localctx.pts = self.match(StencilParser.ID)
                self.state = 85
                self.match(StencilParser.SEMI)
                pass
            elif token in [13]:
                localctx = StencilParser.TableDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 9)
                self.state = 87
                self.match(StencilParser.TABLE)
                self.state = 88
                localctx.name = self.match(StencilParser.ID)
                self.state = 93 
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                while True:
                    self.state = 89
                    self.match(StencilParser.LBRACK)
                    self.state = 90
                    self.number()
                    self.state = 91
                    self.match(StencilParser.RBRACK)
                    self.state = 95 
                    self._errHandler.sync(self)
                    _la = self._input.LA(1)
                    if not (_la==44):
                        break

                self.state = 97
                self.match(StencilParser.ASSIGN)
                self.state = 98
                self.tableInit()
                self.state = 99
                self.match(StencilParser.SEMI)
                pass
            elif token in [14]:
                localctx = StencilParser.LetDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 10)
                self.state = 101
                self.match(StencilParser.LET)
                self.state = 102
                localctx.name = self.match(StencilParser.ID)
                self.state = 103
                self.match(StencilParser.ASSIGN)
                self.state = 104
                self.expr(0)
                self.state = 105
                self.match(StencilParser.SEMI)
                pass
            elif token in [23]:
                localctx = StencilParser.UpdateDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 11)
                self.state = 107
                localctx.name = self.match(StencilParser.ID)
                self.state = 108
                self.match(StencilParser.PRIME)
                self.state = 109
                self.match(StencilParser.ASSIGN)
                self.state = 110
                self.expr(0)
                self.state = 111
                self.match(StencilParser.SEMI)
                pass
            elif token in [15]:
                localctx = StencilParser.BoundaryDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 12)
                self.state = 113
                self.match(StencilParser.BOUNDARY)
                self.state = 115
                self._errHandler.sync(self)
                la_ = self._interp.adaptivePredict(self._input,6,self._ctx)
                if la_ == 1:
                    self.state = 114
                    localctx.field = self.match(StencilParser.ID)


                self.state = 117
                localctx.kind = self.match(StencilParser.ID)
                self.state = 121
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                while _la==23:
                    self.state = 118
                    localctx._face = self.face()
                    localctx.faces.append(localctx._face)
                    self.state = 123
                    self._errHandler.sync(self)
                    _la = self._input.LA(1)

                self.state = 124
                self.match(StencilParser.SEMI)
                pass
            elif token in [16]:
                localctx = StencilParser.InitDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 13)
                self.state = 125
                self.match(StencilParser.INIT)
                self.state = 126
                localctx.name = self.match(StencilParser.ID)
                self.state = 131
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                while _la==36:
                    self.state = 127
                    self.match(StencilParser.DOT)
                    self.state = 128
                    localctx._ID = self.match(StencilParser.ID)
                    localctx.suffix.append(localctx._ID)
                    self.state = 133
                    self._errHandler.sync(self)
                    _la = self._input.LA(1)

                self.state = 134
                self.match(StencilParser.ASSIGN)
                self.state = 135
                self.expr(0)
                self.state = 136
                self.match(StencilParser.SEMI)
                pass
            elif token in [17]:
                localctx = StencilParser.SaveDeclContext(self, localctx)
                self.enterOuterAlt(localctx, 14)
                self.state = 138
                self.match(StencilParser.SAVE)
                self.state = 139
                localctx.field = self.match(StencilParser.ID)
                self.state = 144
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                while _la==23:
                    self.state = 140
                    localctx._ID = self.match(StencilParser.ID)
                    localctx.keys.append(localctx._ID)
                    self.state = 141
                    self.number()
                    self.state = 146
                    self._errHandler.sync(self)
                    _la = self._input.LA(1)

                self.state = 147
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
            self.state = 150
            localctx.axis = self.match(StencilParser.ID)
            self.state = 152
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            if _la==48 or _la==49:
                self.state = 151
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
            self.state = 154
            self.match(StencilParser.LBRACE)
            self.state = 166
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            if (((_la) & ~0x3f) == 0 and ((1 << _la) & 919200325697536) != 0):
                self.state = 155
                self.tableItem()
                self.state = 160
                self._errHandler.sync(self)
                _alt = self._interp.adaptivePredict(self._input,12,self._ctx)
                while _alt!=2 and _alt!=ATN.INVALID_ALT_NUMBER:
                    if _alt==1:
                        self.state = 156
                        self.match(StencilParser.COMMA)
                        self.state = 157
                        self.tableItem() 
                    self.state = 162
                    self._errHandler.sync(self)
                    _alt = self._interp.adaptivePredict(self._input,12,self._ctx)

                self.state = 164
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                if _la==41:
                    self.state = 163
                    self.match(StencilParser.COMMA)




            self.state = 168
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
            self.state = 172
            self._errHandler.sync(self)
            token = self._input.LA(1)
            if token in [46]:
                self.enterOuterAlt(localctx, 1)
                self.state = 170
                self.tableInit()
                pass
            elif token in [18, 21, 22, 23, 33, 42, 48, 49]:
                self.enterOuterAlt(localctx, 2)
                self.state = 171
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
            self.state = 191
            self._errHandler.sync(self)
            token = self._input.LA(1)
            if token in [21, 22, 23, 42]:
                localctx = StencilParser.PrimaryExprContext(self, localctx)
                self._ctx = localctx
                _prevctx = localctx

                self.state = 175
                self.primary()
                pass
            elif token in [33, 48, 49]:
                localctx = StencilParser.UnaryExprContext(self, localctx)
                self._ctx = localctx
                _prevctx = localctx
                self.state = 176
                localctx.op = self._input.LT(1)
                _la = self._input.LA(1)
                if not((((_la) & ~0x3f) == 0 and ((1 << _la) & 844433520066560) != 0)):
                    localctx.op = self._errHandler.recoverInline(self)
                else:
                    self._errHandler.reportMatch(self)
                    self.consume()
                self.state = 177
                localctx.operand = self.expr(9)
                pass
            elif token in [18]:
                localctx = StencilParser.SumExprContext(self, localctx)
                self._ctx = localctx
                _prevctx = localctx
                self.state = 178
                self.match(StencilParser.SUM)
                self.state = 179
                self.match(StencilParser.LPAREN)
                self.state = 180
                self.sumRange()
                self.state = 185
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                while _la==41:
                    self.state = 181
                    self.match(StencilParser.COMMA)
                    self.state = 182
                    self.sumRange()
                    self.state = 187
                    self._errHandler.sync(self)
                    _la = self._input.LA(1)

                self.state = 188
                self.match(StencilParser.RPAREN)
                self.state = 189
                localctx.body = self.expr(7)
                pass
            else:
                raise NoViableAltException(self)

            self._ctx.stop = self._input.LT(-1)
            self.state = 222
            self._errHandler.sync(self)
            _alt = self._interp.adaptivePredict(self._input,19,self._ctx)
            while _alt!=2 and _alt!=ATN.INVALID_ALT_NUMBER:
                if _alt==1:
                    if self._parseListeners is not None:
                        self.triggerExitRuleEvent()
                    _prevctx = localctx
                    self.state = 220
                    self._errHandler.sync(self)
                    la_ = self._interp.adaptivePredict(self._input,18,self._ctx)
                    if la_ == 1:
                        localctx = StencilParser.PowExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 193
                        if not self.precpred(self._ctx, 10):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 10)")
                        self.state = 194
                        localctx.op = self.match(StencilParser.CARET)
                        self.state = 195
                        localctx.rhs = self.expr(10)
                        pass

                    elif la_ == 2:
                        localctx = StencilParser.MulExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 196
                        if not self.precpred(self._ctx, 8):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 8)")
                        self.state = 197
                        localctx.op = self._input.LT(1)
                        _la = self._input.LA(1)
                        if not(_la==50 or _la==51):
                            localctx.op = self._errHandler.recoverInline(self)
                        else:
                            self._errHandler.reportMatch(self)
                            self.consume()
                        self.state = 198
                        localctx.rhs = self.expr(9)
                        pass

                    elif la_ == 3:
                        localctx = StencilParser.AddExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 199
                        if not self.precpred(self._ctx, 6):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 6)")
                        self.state = 200
                        localctx.op = self._input.LT(1)
                        _la = self._input.LA(1)
                        if not(_la==48 or _la==49):
                            localctx.op = self._errHandler.recoverInline(self)
                        else:
                            self._errHandler.reportMatch(self)
                            self.consume()
                        self.state = 201
                        localctx.rhs = self.expr(7)
                        pass

                    elif la_ == 4:
                        localctx = StencilParser.RelExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 202
                        if not self.precpred(self._ctx, 5):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 5)")
                        self.state = 203
                        localctx.op = self._input.LT(1)
                        _la = self._input.LA(1)
                        if not((((_la) & ~0x3f) == 0 and ((1 << _la) & 6543114240) != 0)):
                            localctx.op = self._errHandler.recoverInline(self)
                        else:
                            self._errHandler.reportMatch(self)
                            self.consume()
                        self.state = 204
                        localctx.rhs = self.expr(6)
                        pass

                    elif la_ == 5:
                        localctx = StencilParser.EqExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 205
                        if not self.precpred(self._ctx, 4):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 4)")
                        self.state = 206
                        localctx.op = self._input.LT(1)
                        _la = self._input.LA(1)
                        if not(_la==27 or _la==28):
                            localctx.op = self._errHandler.recoverInline(self)
                        else:
                            self._errHandler.reportMatch(self)
                            self.consume()
                        self.state = 207
                        localctx.rhs = self.expr(5)
                        pass

                    elif la_ == 6:
                        localctx = StencilParser.AndExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 208
                        if not self.precpred(self._ctx, 3):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 3)")
                        self.state = 209
                        localctx.op = self.match(StencilParser.AND)
                        self.state = 210
                        localctx.rhs = self.expr(4)
                        pass

                    elif la_ == 7:
                        localctx = StencilParser.OrExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.lhs = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 211
                        if not self.precpred(self._ctx, 2):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 2)")
                        self.state = 212
                        localctx.op = self.match(StencilParser.OR)
                        self.state = 213
                        localctx.rhs = self.expr(3)
                        pass

                    elif la_ == 8:
                        localctx = StencilParser.CondExprContext(self, StencilParser.ExprContext(self, _parentctx, _parentState))
                        localctx.cond = _prevctx
                        self.pushNewRecursionContext(localctx, _startState, self.RULE_expr)
                        self.state = 214
                        if not self.precpred(self._ctx, 1):
                            from antlr4.error.Errors import FailedPredicateException
                            raise FailedPredicateException(self, "self.precpred(self._ctx, 1)")
                        self.state = 215
                        localctx.op = self.match(StencilParser.QUESTION)
                        self.state = 216
                        localctx.then = self.expr(0)
                        self.state = 217
                        self.match(StencilParser.COLON)
                        self.state = 218
                        localctx.other = self.expr(1)
                        pass

             
                self.state = 224
                self._errHandler.sync(self)
                _alt = self._interp.adaptivePredict(self._input,19,self._ctx)

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
            self.state = 225
            localctx.var = self.match(StencilParser.ID)
            self.state = 226
            self.match(StencilParser.IN)
            self.state = 227
            localctx.lo = self.signedNumber()
            self.state = 228
            self.match(StencilParser.DOTDOT)
            self.state = 229
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
            self.state = 232
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            if _la==48 or _la==49:
                self.state = 231
                localctx.sign = self._input.LT(1)
                _la = self._input.LA(1)
                if not(_la==48 or _la==49):
                    localctx.sign = self._errHandler.recoverInline(self)
                else:
                    self._errHandler.reportMatch(self)
                    self.consume()


            self.state = 234
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
            self.state = 236
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
            self.state = 273
            self._errHandler.sync(self)
            la_ = self._interp.adaptivePredict(self._input,26,self._ctx)
            if la_ == 1:
                localctx = StencilParser.NumberPrimaryContext(self, localctx)
                self.enterOuterAlt(localctx, 1)
                self.state = 238
                self.number()
                pass

            elif la_ == 2:
                localctx = StencilParser.CallPrimaryContext(self, localctx)
                self.enterOuterAlt(localctx, 2)
                self.state = 239
                localctx.func = self.match(StencilParser.ID)
                self.state = 240
                self.match(StencilParser.LPAREN)
                self.state = 249
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                if (((_la) & ~0x3f) == 0 and ((1 << _la) & 848831581519872) != 0):
                    self.state = 241
                    self.expr(0)
                    self.state = 246
                    self._errHandler.sync(self)
                    _la = self._input.LA(1)
                    while _la==41:
                        self.state = 242
                        self.match(StencilParser.COMMA)
                        self.state = 243
                        self.expr(0)
                        self.state = 248
                        self._errHandler.sync(self)
                        _la = self._input.LA(1)



                self.state = 251
                self.match(StencilParser.RPAREN)
                pass

            elif la_ == 3:
                localctx = StencilParser.RefPrimaryContext(self, localctx)
                self.enterOuterAlt(localctx, 3)
                self.state = 252
                localctx.name = self.match(StencilParser.ID)
                self.state = 254
                self._errHandler.sync(self)
                la_ = self._interp.adaptivePredict(self._input,23,self._ctx)
                if la_ == 1:
                    self.state = 253
                    localctx.new = self.match(StencilParser.PRIME)


                self.state = 260
                self._errHandler.sync(self)
                _alt = self._interp.adaptivePredict(self._input,24,self._ctx)
                while _alt!=2 and _alt!=ATN.INVALID_ALT_NUMBER:
                    if _alt==1:
                        self.state = 256
                        self.match(StencilParser.DOT)
                        self.state = 257
                        localctx._ID = self.match(StencilParser.ID)
                        localctx.suffix.append(localctx._ID) 
                    self.state = 262
                    self._errHandler.sync(self)
                    _alt = self._interp.adaptivePredict(self._input,24,self._ctx)

                self.state = 266
                self._errHandler.sync(self)
                _alt = self._interp.adaptivePredict(self._input,25,self._ctx)
                while _alt!=2 and _alt!=ATN.INVALID_ALT_NUMBER:
                    if _alt==1:
                        self.state = 263
                        self.subscript() 
                    self.state = 268
                    self._errHandler.sync(self)
                    _alt = self._interp.adaptivePredict(self._input,25,self._ctx)

                pass

            elif la_ == 4:
                localctx = StencilParser.ParenPrimaryContext(self, localctx)
                self.enterOuterAlt(localctx, 4)
                self.state = 269
                self.match(StencilParser.LPAREN)
                self.state = 270
                self.expr(0)
                self.state = 271
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
            self.state = 275
            self.match(StencilParser.LBRACK)
            self.state = 276
            self.expr(0)
            self.state = 281
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            while _la==41:
                self.state = 277
                self.match(StencilParser.COMMA)
                self.state = 278
                self.expr(0)
                self.state = 283
                self._errHandler.sync(self)
                _la = self._input.LA(1)

            self.state = 284
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
         




