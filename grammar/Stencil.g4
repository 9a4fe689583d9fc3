/*
 * Stencil.g4 -- the grammar of the .stn language (docs/language.md describes it).
 *
 * Expects: ANTLR 4.13.2 (tools/fetch-antlr.sh); tools/gen-parser.sh turns it into the Python3
 * parser and visitor under compiler/stencilc/frontend/generated/ (committed, kept current by
 * test/python/test_grammar_current.py).
 *
 * Guarantees: the parse tree the front end's builder (compiler/stencilc/frontend/builder.py) turns
 * into the AST.  The grammar is deliberately a little more permissive than the language where a
 * later check gives a clearer message than a syntax error would:
 *   - `grid` takes any `<digits>d` and any name as the element type; sema checks 2d/3d and f32/f64;
 *   - `levels`, table dimensions and sum bounds take any number; the builder insists on integers;
 *   - `.SUFFIX` takes any names; the builder insists on `prev`, at most twice (`u.prev.prev`;
 *     `prev` is not a keyword);
 *   - `boundary` takes any names as the field, kind and axes or faces (`x`, `x-`, `z+`); the builder
 *     sorts `boundary periodic x` (which parses as field `periodic`, kind `x`) and sema checks
 *     dirichlet/neumann/periodic and the faces;
 *   - a reference may be primed (`ex'`, `ex'[1,0]`: the new value of a field updated earlier in
 *     the step); sema checks that the field is one, and the builder refuses `ex'.prev`;
 *   - comparisons, `&&`, `||`, `!` and `c ? a : b` take any expressions; sema checks that the
 *     operands of `&&`, `||`, `!` and the condition of `?:` are conditions (comparisons or those
 *     operators), and that every other operand is a number.
 *
 * Expression precedence, highest first (the order of the alternatives of `expr` below):
 *   primary;  ^ (right associative);  unary - + !;  * /;  sum(...) BODY;  + -;
 *   < <= > >=;  == !=;  &&;  ||;  ?: (right associative)
 * `sum` is a prefix operator whose BODY is parsed at its own level, so it takes the product
 * term that follows: `sum(i in -1..1) a*u[i,0] + b` is `(sum a*u[i,0]) + b`, and `-x^2` is `-(x^2)`.
 * Below the sum the levels are C's: `a + b < c && d == e ? f : g` is `(((a + b) < c) && (d == e)) ? f : g`.
 */
grammar Stencil;

// ------------------------------------------------------------------ structure

program
    : STENCIL name=ID LBRACE decl* RBRACE EOF
    ;

decl
    : GRID dims=DIMS dtype=ID SEMI                                     # gridDecl
    | PARAM name=ID ASSIGN expr SEMI                                   # paramDecl
    | STATE name=ID (LEVELS levels=number)? SEMI                       # stateDecl
    | INPUT name=ID (ALONG axis=ID)? SEMI                              # inputDecl
    | SERIES name=ID SEMI                                              # seriesDecl
    | POINTS name=ID (kind=ID (key=ID spacing=ID)?)? SEMI              # pointsDecl
    | INJECT field=ID AT pts=ID PLUSEQ expr SEMI                       # injectDecl
    | RECORD name=ID ASSIGN expr AT pts=ID SEMI                        # recordDecl
    | TABLE name=ID (LBRACK number RBRACK)+ ASSIGN tableInit SEMI      # tableDecl
    | LET name=ID ASSIGN expr SEMI                                     # letDecl
    | name=ID PRIME ASSIGN expr SEMI                                   # updateDecl
    | BOUNDARY (field=ID)? kind=ID (faces+=face)* SEMI                 # boundaryDecl
    | INIT name=ID (DOT suffix+=ID)* ASSIGN expr SEMI                  # initDecl
    | SAVE field=ID (keys+=ID number)* SEMI                            # saveDecl
    ;

// `x` (an axis: both of its faces), `x-` or `x+` (one face) in a boundary declaration
face
    : axis=ID sign=(PLUS | MINUS)?
    ;

// `{1, 2, 3}` or nested `{{1, 2}, {3, 4}}`; a trailing comma is allowed.
tableInit
    : LBRACE (tableItem (COMMA tableItem)* COMMA?)? RBRACE
    ;

tableItem
    : tableInit
    | expr
    ;

// ------------------------------------------------------------------ expressions

expr
    : primary                                                          # primaryExpr
    | <assoc=right> lhs=expr op=CARET rhs=expr                         # powExpr
    | op=(MINUS | PLUS | NOT) operand=expr                             # unaryExpr
    | lhs=expr op=(STAR | SLASH) rhs=expr                              # mulExpr
    | SUM LPAREN sumRange (COMMA sumRange)* RPAREN body=expr            # sumExpr
    | lhs=expr op=(PLUS | MINUS) rhs=expr                              # addExpr
    | lhs=expr op=(LT | LE | GT | GE) rhs=expr                         # relExpr
    | lhs=expr op=(EQ | NE) rhs=expr                                   # eqExpr
    | lhs=expr op=AND rhs=expr                                         # andExpr
    | lhs=expr op=OR rhs=expr                                          # orExpr
    | <assoc=right> cond=expr op=QUESTION then=expr COLON other=expr   # condExpr
    ;

// `i in -2..2` (inclusive)
sumRange
    : var=ID IN lo=signedNumber DOTDOT hi=signedNumber
    ;

signedNumber
    : sign=(MINUS | PLUS)? number
    ;

number
    : INT
    | FLOAT
    ;

primary
    : number                                                           # numberPrimary
    | func=ID LPAREN (expr (COMMA expr)*)? RPAREN                      # callPrimary
    | name=ID (new=PRIME)? (DOT suffix+=ID)* subscript*                # refPrimary
    | LPAREN expr RPAREN                                               # parenPrimary
    ;

// one bracket group of a reference: `[1, 0, 0]`, or `[i+2]` of `w[i+2][j+2]`
subscript
    : LBRACK expr (COMMA expr)* RBRACK
    ;

// ------------------------------------------------------------------ tokens

// Keywords come before ID so that they are never names.
STENCIL  : 'stencil';
GRID     : 'grid';
PARAM    : 'param';
STATE    : 'state';
INPUT    : 'input';
SERIES   : 'series';
POINTS   : 'points';
INJECT   : 'inject';
RECORD   : 'record';
AT       : 'at';
ALONG    : 'along';
LEVELS   : 'levels';
TABLE    : 'table';
LET      : 'let';
BOUNDARY : 'boundary';
INIT     : 'init';
SAVE     : 'save';
SUM      : 'sum';
IN       : 'in';

// `2d`, `3d` (and `4d`, for sema to reject with a clear message).
DIMS     : DIGITS 'd';

// A float needs digits after its point, so `-2..2` lexes as INT '..' INT.
FLOAT
    : DIGITS '.' DIGITS EXPONENT?
    | '.' DIGITS EXPONENT?
    | DIGITS EXPONENT
    ;

INT      : DIGITS;
ID       : [a-zA-Z_] [a-zA-Z_0-9]*;

DOTDOT   : '..';
LE       : '<=';
GE       : '>=';
EQ       : '==';
NE       : '!=';
AND      : '&&';
OR       : '||';
LT       : '<';
GT       : '>';
NOT      : '!';
QUESTION : '?';
COLON    : ':';
DOT      : '.';
PRIME    : '\'';
PLUSEQ   : '+=';
ASSIGN   : '=';
SEMI     : ';';
COMMA    : ',';
LPAREN   : '(';
RPAREN   : ')';
LBRACK   : '[';
RBRACK   : ']';
LBRACE   : '{';
RBRACE   : '}';
PLUS     : '+';
MINUS    : '-';
STAR     : '*';
SLASH    : '/';
CARET    : '^';

LINE_COMMENT : '//' ~[\r\n]* -> skip;
WS           : [ \t\r\n\f]+ -> skip;

fragment DIGITS   : [0-9]+;
fragment EXPONENT : [eE] [+-]? DIGITS;
