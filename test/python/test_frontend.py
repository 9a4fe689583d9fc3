"""Unit tests of the front end: grammar, AST builder, locations and syntax diagnostics.

Expects: the source tree (``compiler/`` importable; ``conftest.py`` is not needed).  Guarantees:
pins the language of docs/language.md as ``frontend.parse`` reads it -- operator
precedence and associativity (a fully parenthesised rendering of each tree), every declaration
kind, the ``Loc`` of every node kind, lexing corner cases, and the wording and position of
syntax errors -- so that a wrong grammar or builder fails here, not downstream.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "compiler"))

from stencilc import ast, frontend  # noqa: E402
from stencilc.diagnostics import CompileError, Loc, SourceFile  # noqa: E402

# ---------------------------------------------------------------- helpers


def parse(text: str, name: str = "t.stn") -> ast.Stencil:
    return frontend.parse(SourceFile(name, text))


def expr(text: str) -> ast.Expr:
    """The AST of one expression, parsed as the value of a ``let``."""
    tree = parse(f"stencil s {{\n  let e = {text};\n}}\n")
    (decl,) = tree.decls
    assert isinstance(decl, ast.LetDecl)
    return decl.value


def sx(e: object) -> str:
    """A fully parenthesised prefix rendering: the tree's shape, independent of ``ast.unparse``."""
    if isinstance(e, ast.Num):
        return e.text
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Ref):
        return e.id + (".prev" if e.prev else "") + "".join("[" + ",".join(sx(x) for x in g) + "]"
                                                           for g in e.subscripts)
    if isinstance(e, ast.Unary):
        return f"({'neg' if e.op == '-' else 'pos'} {sx(e.operand)})"
    if isinstance(e, ast.Binary):
        return f"({e.op} {sx(e.lhs)} {sx(e.rhs)})"
    if isinstance(e, ast.Call):
        return f"({e.func}" + "".join(" " + sx(a) for a in e.args) + ")"
    if isinstance(e, ast.Sum):
        ranges = " ".join(f"{r.var}:{r.lo}..{r.hi}" for r in e.ranges)
        return f"(sum [{ranges}] {sx(e.body)})"
    raise AssertionError(f"not an expression: {e!r}")


def error_of(text: str) -> tuple[str, Loc, list]:
    """The single diagnostic a syntax error produces: (message, loc, notes)."""
    with pytest.raises(CompileError) as info:
        parse(text)
    diags = info.value.diagnostics
    assert len(diags) == 1, [d.message for d in diags]
    d = diags[0]
    assert d.severity == "error"
    return d.message, d.loc, d.notes


HEAD = "stencil s {\n  grid 2d f64;\n  state u;\n"  # lines 1-3; the line under test is line 4


# ---------------------------------------------------------------- precedence and associativity

PRECEDENCE = [
    # ^ binds tighter than unary minus, and is right associative
    ("-x^2", "(neg (^ x 2))"),
    ("a^b^c", "(^ a (^ b c))"),
    ("a^-b", "(^ a (neg b))"),
    ("(-a)^2", "(^ (neg a) 2)"),
    ("2^-x*3", "(* (^ 2 (neg x)) 3)"),
    # unary binds tighter than * /
    ("-a*b", "(* (neg a) b)"),
    ("a*-b", "(* a (neg b))"),
    ("--a", "(neg (neg a))"),
    ("+a - -b", "(- (pos a) (neg b))"),
    # * / over + -, all left associative
    ("a*b+c", "(+ (* a b) c)"),
    ("a+b*c", "(+ a (* b c))"),
    ("a-b-c", "(- (- a b) c)"),
    ("a/b/c", "(/ (/ a b) c)"),
    ("a/b*c", "(* (/ a b) c)"),
    ("a-b+c", "(+ (- a b) c)"),
    ("(a+b)*c", "(* (+ a b) c)"),
    ("a*(b+c)", "(* a (+ b c))"),
    # sum: a prefix operator whose body is the product term that follows
    ("sum(i in -1..1) a*u[i,0] + b", "(+ (sum [i:-1..1] (* a u[i,0])) b)"),
    ("sum(i in -1..1) (a*u[i,0] + b)", "(sum [i:-1..1] (+ (* a u[i,0]) b))"),
    ("b + sum(i in -1..1) u[i,0]", "(+ b (sum [i:-1..1] u[i,0]))"),
    ("b - sum(i in -1..1) u[i,0] - c", "(- (- b (sum [i:-1..1] u[i,0])) c)"),
    ("a * sum(i in 0..1) u[i,0]*c + d", "(+ (* a (sum [i:0..1] (* u[i,0] c))) d)"),
    ("-sum(i in 0..1) u[i,0]^2", "(neg (sum [i:0..1] (^ u[i,0] 2)))"),
    ("sum(i in 0..1) -u[i,0]*2", "(sum [i:0..1] (* (neg u[i,0]) 2))"),
    ("sum(i in 0..1) sum(j in -1..0) u[i,j] - 1", "(- (sum [i:0..1] (sum [j:-1..0] u[i,j])) 1)"),
    ("(sum(i in 0..1) u[i,0]) * 2", "(* (sum [i:0..1] u[i,0]) 2)"),
    ("sum(i in -2..2, j in -1..+1) w[i+2][j+1]", "(sum [i:-2..2 j:-1..1] w[(+ i 2)][(+ j 1)])"),
    # calls and references are primaries
    ("f(a, b+c)*2", "(* (f a (+ b c)) 2)"),
    ("f()", "(f)"),
    ("max(a, min(b, c))^2", "(^ (max a (min b c)) 2)"),
    ("-u.prev[0,1]^2", "(neg (^ u.prev[0,1] 2))"),
    ("exp(-((x-nx/2)^2) / 50.0)", "(exp (/ (neg (^ (- x (/ nx 2)) 2)) 50.0))"),
]


@pytest.mark.parametrize("text, shape", PRECEDENCE)
def test_precedence_and_associativity(text: str, shape: str) -> None:
    assert sx(expr(text)) == shape


@pytest.mark.parametrize("text, shape", PRECEDENCE)
def test_unparse_round_trips(text: str, shape: str) -> None:
    e = expr(text)
    assert sx(expr(ast.unparse(e))) == sx(e) == shape


# ---------------------------------------------------------------- primaries and lexing


def test_bare_name_is_name_and_subscripted_or_prev_is_ref() -> None:
    assert expr("u") == ast.Name("u", Loc(2, 11, 1))
    prev = expr("u.prev")
    assert isinstance(prev, ast.Ref) and prev.prev and prev.subscripts == ()
    off = expr("u[1,0,-1]")
    assert isinstance(off, ast.Ref) and not off.prev and len(off.subscripts) == 1 and len(off.subscripts[0]) == 3
    both = expr("u.prev[0,-1,0]")
    assert isinstance(both, ast.Ref) and both.prev and sx(both) == "u.prev[0,(neg 1),0]"


def test_table_reference_has_one_subscript_per_bracket_group() -> None:
    w = expr("w[i+2][j+2]")
    assert isinstance(w, ast.Ref) and w.id == "w" and not w.prev
    assert [len(g) for g in w.subscripts] == [1, 1]
    assert sx(w) == "w[(+ i 2)][(+ j 2)]"


@pytest.mark.parametrize("text, is_int, value", [
    ("6", True, 6), ("007", True, 7), ("50.0", False, 50.0), ("1e-3", False, 1e-3), ("2.5E+3", False, 2500.0),
    (".5", False, 0.5), ("3e2", False, 300.0),
])
def test_numbers(text: str, is_int: bool, value: float) -> None:
    n = expr(text)
    assert isinstance(n, ast.Num) and n.text == text and n.is_int is is_int and n.value == value
    assert n.loc == Loc(2, 11, len(text))


@pytest.mark.parametrize("ranges, expected", [
    ("i in 2..2", [("i", 2, 2)]),
    ("i in -2..-1", [("i", -2, -1)]),
    ("i in +1..3", [("i", 1, 3)]),
    ("i in 0..0, j in -10..10", [("i", 0, 0), ("j", -10, 10)]),
    ("i in 3..1", [("i", 3, 1)]),  # an empty range is sema's to reject
])
def test_sum_ranges_are_signed_integer_literals(ranges: str, expected: list) -> None:
    s = expr(f"sum({ranges}) u[i,0]")
    assert isinstance(s, ast.Sum)
    assert [(r.var, r.lo, r.hi) for r in s.ranges] == expected


def test_comments_and_whitespace() -> None:
    text = "// leading comment\nstencil s { // after the brace\n\tgrid 2d f64;// no space\r\n  state u; }\n// trailing"
    tree = parse(text)
    assert [type(d).__name__ for d in tree.decls] == ["GridDecl", "StateDecl"]
    assert tree.decls[0].loc == Loc(3, 2, 4)  # a tab counts as one column
    assert tree.decls[1].loc == Loc(4, 9, 1)  # CRLF line endings count as one line break


def test_byte_order_mark_is_ignored() -> None:
    tree = parse("\ufeffstencil s { grid 2d f64; }")
    assert tree.loc == Loc(1, 10, 1)


def test_prev_is_not_a_keyword() -> None:
    tree = parse("stencil s { grid 2d f64; state u levels 2; let prev = u.prev; u' = prev; }")
    let = tree.decls[2]
    assert isinstance(let, ast.LetDecl) and let.name == "prev"
    upd = tree.decls[3]
    assert upd.value == ast.Name("prev", upd.value.loc)


def test_dirichlet_and_neumann_are_plain_names() -> None:
    tree = parse("stencil s { grid 2d f64; param dirichlet = 1; state neumann; neumann' = dirichlet; }")
    assert [getattr(d, "name", None) for d in tree.decls] == [None, "dirichlet", "neumann", "neumann"]


# ---------------------------------------------------------------- declarations

FULL = """\
stencil full {
  grid 3d f32;
  param alpha = 0.1;
  state u levels 2;
  state v;
  input k;
  table w[2][3] = {{1, 2, 3}, {4.0, 5, 6,},};
  let t = k * alpha;
  u' = u + t;
  v' = v;
  boundary neumann;
  boundary v dirichlet;
  init u = x + nx/2;
  init u.prev = 0;
}
"""


def test_every_declaration_kind() -> None:
    tree = parse(FULL)
    assert tree.name == "full" and tree.loc == Loc(1, 9, 4)
    kinds = [type(d).__name__ for d in tree.decls]
    assert kinds == ["GridDecl", "ParamDecl", "StateDecl", "StateDecl", "InputDecl", "TableDecl", "LetDecl",
                     "UpdateDecl", "UpdateDecl", "BoundaryDecl", "BoundaryDecl", "InitDecl", "InitDecl"]
    grid, param, su, sv, inp, table, let, uu, uv, b_all, b_v, iu, iup = tree.decls

    assert (grid.ndim, grid.dtype) == (3, "f32")
    assert (grid.loc, grid.ndim_loc, grid.dtype_loc) == (Loc(2, 3, 4), Loc(2, 8, 2), Loc(2, 11, 3))

    assert param.name == "alpha" and param.value == ast.Num("0.1", False, Loc(3, 17, 3)) and param.loc == Loc(3, 9, 5)

    assert (su.name, su.levels, su.levels_loc, su.loc) == ("u", 2, Loc(4, 18, 1), Loc(4, 9, 1))
    assert (sv.name, sv.levels, sv.levels_loc) == ("v", None, None)

    assert inp == ast.InputDecl("k", Loc(6, 9, 1))

    assert (table.name, table.dims, table.dims_locs) == ("w", (2, 3), (Loc(7, 11, 1), Loc(7, 14, 1)))
    assert table.loc == Loc(7, 9, 1) and table.init.loc == Loc(7, 19, 1)
    rows = table.init.items
    assert len(rows) == 2 and all(isinstance(r, ast.TableInit) for r in rows)
    assert [[sx(x) for x in r.items] for r in rows] == [["1", "2", "3"], ["4.0", "5", "6"]]
    assert rows[1].loc == Loc(7, 31, 1)

    assert let.name == "t" and sx(let.value) == "(* k alpha)" and let.loc == Loc(8, 7, 1)
    assert uu.name == "u" and sx(uu.value) == "(+ u t)" and uu.loc == Loc(9, 3, 1)
    assert uv.name == "v" and sx(uv.value) == "v"

    assert (b_all.field, b_all.field_loc, b_all.kind, b_all.kind_loc, b_all.loc) == (
        None, None, "neumann", Loc(11, 12, 7), Loc(11, 3, 8))
    assert (b_v.field, b_v.field_loc, b_v.kind, b_v.kind_loc) == ("v", Loc(12, 12, 1), "dirichlet", Loc(12, 14, 9))

    assert (iu.name, iu.prev, iu.loc, sx(iu.value)) == ("u", False, Loc(13, 8, 1), "(+ x (/ nx 2))")
    assert (iup.name, iup.prev, iup.loc, sx(iup.value)) == ("u", True, Loc(14, 8, 1), "0")


def test_grid_accepts_any_dimension_and_type_for_sema_to_check() -> None:
    grid = parse("stencil s { grid 4d f16; }").decls[0]
    assert (grid.ndim, grid.dtype) == (4, "f16")


def test_empty_stencil_and_empty_table() -> None:
    assert parse("stencil s {}").decls == ()
    table = parse("stencil s { table w[0] = {}; }").decls[0]
    assert table.dims == (0,) and table.init.items == ()


def test_interface_example_parses() -> None:
    text = """\
// heat3d.stn: explicit heat equation, 7-point star
stencil heat3d {
  grid 3d f64;                 // 2d or 3d; f32 or f64
  param alpha = 0.1;           // run-time scalar, overridable with --param alpha=0.2
  state u;                     // a field advanced every step (one time level)
  u' = u + alpha * (u[-1,0,0] + u[1,0,0] + u[0,-1,0] + u[0,1,0]
                   + u[0,0,-1] + u[0,0,1] - 6*u);
  boundary dirichlet;          // halo cells keep their initial values (the default)
  init u = exp(-((x-nx/2)^2 + (y-ny/2)^2 + (z-nz/2)^2) / 50.0);
}
"""
    tree = parse(text)
    upd = tree.decls[3]
    assert sx(upd.value) == (
        "(+ u (* alpha (- (+ (+ (+ (+ (+ u[(neg 1),0,0] u[1,0,0]) u[0,(neg 1),0]) u[0,1,0]) u[0,0,(neg 1)]) "
        "u[0,0,1]) (* 6 u))))")
    assert upd.value.rhs.rhs.loc == Loc(7, 43, 1)  # the '-' on the continuation line


@pytest.mark.parametrize("path", sorted((REPO_ROOT / "examples").glob("*.stn")), ids=lambda p: p.name)
def test_examples_parse(path: Path) -> None:
    tree = frontend.parse(SourceFile.read(path))
    assert isinstance(tree, ast.Stencil) and tree.decls


# ---------------------------------------------------------------- locations of expression nodes


def test_expression_locations() -> None:
    #               1         2         3         4
    #      1234567890123456789012345678901234567890123456
    line = "  let e = -max(a, u.prev[0,1]) * sum(i in -1..1) w[i+1];"
    tree = parse("stencil s {\n" + line + "\n}\n")
    e = tree.decls[0].value
    assert isinstance(e, ast.Binary) and e.op == "*" and e.loc == Loc(2, 32, 1)
    neg = e.lhs
    assert isinstance(neg, ast.Unary) and neg.loc == Loc(2, 11, 1)
    call = neg.operand
    assert isinstance(call, ast.Call) and call.loc == Loc(2, 12, 3)
    a, ref = call.args
    assert a.loc == Loc(2, 16, 1) and ref.loc == Loc(2, 19, 1)  # a Ref is located at its identifier
    s = e.rhs
    assert isinstance(s, ast.Sum) and s.loc == Loc(2, 34, 3)
    assert s.ranges[0].loc == Loc(2, 38, 1)
    w = s.body
    assert w.loc == Loc(2, 50, 1) and w.subscripts[0][0].loc == Loc(2, 53, 1)  # the '+' of i+1


# ---------------------------------------------------------------- syntax errors


def test_missing_semicolon_points_after_the_previous_token() -> None:
    msg, loc, notes = error_of(HEAD + "  u' = u + 1\n  boundary dirichlet;\n}\n")
    assert msg == "expected ';' after the update"
    assert loc == Loc(4, 13, 1) and notes == []


@pytest.mark.parametrize("decl, what", [
    ("param a = 1", "param declaration"), ("state v", "state declaration"), ("input k", "input declaration"),
    ("let t = u", "let declaration"), ("boundary neumann", "boundary declaration"), ("init u = 0", "init declaration"),
    ("table w[1] = {1}", "table declaration"),
])
def test_missing_semicolon_names_the_declaration(decl: str, what: str) -> None:
    msg, loc, _ = error_of(HEAD + f"  {decl}\n  u' = u;\n}}\n")
    assert msg == f"expected ';' after the {what}"
    assert loc == Loc(4, 3 + len(decl), 1)


def test_unclosed_paren_has_a_note_at_the_opener() -> None:
    msg, loc, notes = error_of(HEAD + "  u' = (u + 1;\n}\n")
    assert msg == "expected ')'" and loc == Loc(4, 14, 1)
    assert [(n.message, n.loc) for n in notes] == [("to match this '('", Loc(4, 8, 1))]


def test_unclosed_bracket() -> None:
    msg, loc, notes = error_of(HEAD + "  u' = u[1,0;\n}\n")
    assert msg == "unexpected ';'; expected ',' or ']'" and loc == Loc(4, 13, 1)
    assert [(n.message, n.loc) for n in notes] == [("to match this '['", Loc(4, 9, 1))]


@pytest.mark.parametrize("line, col, closer", [("  u' = u + 1);", 13, ")"), ("  u' = u[1,0]];", 14, "]")])
def test_unmatched_closer(line: str, col: int, closer: str) -> None:
    msg, loc, _ = error_of(HEAD + line + "\n}\n")
    assert msg == f"unmatched '{closer}'" and loc == Loc(4, col, 1)


def test_bad_character() -> None:
    msg, loc, _ = error_of(HEAD + "  u' = u @ 2;\n}\n")
    assert msg == "unexpected character '@'" and loc == Loc(4, 10, 1)


def test_invisible_character_is_named() -> None:
    msg, loc, _ = error_of(HEAD + "  u' = u +\u00a02;\n}\n")
    assert msg == "unexpected character U+00A0 (no-break space)" and loc == Loc(4, 11, 1)


@pytest.mark.parametrize("kw", ["stencil", "grid", "param", "state", "input", "levels", "table", "let", "boundary",
                                "init", "sum", "in"])
def test_keywords_cannot_be_names(kw: str) -> None:
    with pytest.raises(CompileError) as info:
        parse(f"stencil s {{\n  grid 2d f64;\n  let {kw} = 1;\n}}\n")
    (d,) = info.value.diagnostics
    assert kw in d.message and "keyword" in d.message
    assert d.loc.line == 3


def test_keyword_as_field_name() -> None:
    msg, loc, _ = error_of("stencil s {\n  state sum;\n}\n")
    assert msg == "'sum' is a keyword and cannot be used as a name" and loc == Loc(2, 9, 3)


def test_keyword_in_expression() -> None:
    msg, loc, _ = error_of(HEAD + "  u' = u + levels;\n}\n")
    assert msg == "'levels' is a keyword and cannot be used as a name" and loc == Loc(4, 12, 6)


def test_missing_header() -> None:
    msg, loc, _ = error_of("grid 2d f64;\nstate u;\n")
    assert msg == "unexpected 'grid'; a .stn file starts with 'stencil NAME {'" and loc == Loc(1, 1, 4)


def test_empty_file() -> None:
    msg, loc, _ = error_of("// only a comment\n")
    assert msg == "the file is empty; a .stn file starts with 'stencil NAME {'" and loc == Loc(1, 1, 1)


def test_unterminated_block() -> None:
    msg, loc, notes = error_of("stencil s {\n  grid 2d f64;\n  state u;\n\n")
    assert msg == "unexpected end of file; expected a declaration or '}'" and loc == Loc(3, 11, 1)
    assert [(n.message, n.loc) for n in notes] == [("to match this '{'", Loc(1, 11, 1))]


def test_garbage_after_closing_brace() -> None:
    msg, loc, notes = error_of(HEAD + "}\nstencil t {}\n")
    assert msg == "unexpected 'stencil' after the closing '}' of the stencil" and loc == Loc(5, 1, 7)
    assert [(n.message, n.loc) for n in notes] == [("the stencil ends here", Loc(4, 1, 1))]


@pytest.mark.parametrize("ranges, msg, loc", [
    ("i in -n..2", "unexpected 'n'; expected an integer literal", Loc(4, 18, 1)),
    ("i in -2..", "unexpected ')'; expected an integer literal", Loc(4, 21, 1)),
    ("i = -2..2", "unexpected '='; expected 'in'", Loc(4, 14, 1)),
    ("i in -2 2", "expected '..' after '2'", Loc(4, 19, 1)),
    ("i in 0.5..2", "a sum range bound must be an integer literal, like '-2..2'; got '0.5'", Loc(4, 17, 3)),
])
def test_bad_sum_range(ranges: str, msg: str, loc: Loc) -> None:
    assert error_of(HEAD + f"  u' = sum({ranges}) u[i,0];\n}}\n")[:2] == (msg, loc)


@pytest.mark.parametrize("body, msg, col", [
    ("  u' = ;", "unexpected ';'; expected an expression", 8),
    ("  u' = u + ;", "unexpected ';'; expected an expression", 12),
    ("  u' = u v;", "unexpected 'v'; expected ';'", 10),
    ("  u = u;", "expected \"'\" after 'u': write u' = ... to update the field, or let u = ... for a temporary", 4),
    ("  param a 1;", "expected '=' after 'a'", 10),
    ("  5;", "unexpected '5'; expected a declaration or '}'", 3),
    ("  u' = u.;", "expected 'prev' after '.'", 10),
    ("  boundary;", "unexpected ';'; expected a field name or a boundary kind ('dirichlet' or 'neumann')", 11),
])
def test_other_syntax_errors(body: str, msg: str, col: int) -> None:
    got_msg, loc, _ = error_of(HEAD + body + "\n}\n")
    assert (got_msg, loc.line, loc.col) == (msg, 4, col)


def test_grid_errors() -> None:
    assert error_of("stencil s {\n  grid 3 d f64;\n}\n")[:2] == (
        "unexpected '3'; expected a dimension ('2d' or '3d')", Loc(2, 8, 1))
    assert error_of("stencil s {\n  grid 3d;\n}\n")[:2] == (
        "expected an element type ('f32' or 'f64') after '3d'", Loc(2, 10, 1))


def test_only_the_first_syntax_error_is_reported() -> None:
    msg, loc, _ = error_of(HEAD + "  u' = (u + 1;\n  v' = ;\n}\n")
    assert msg == "expected ')'" and loc.line == 4


def test_lexer_error_after_a_parse_error_is_not_reported_first() -> None:
    msg, loc, _ = error_of(HEAD + "  u' = u u;\n  v' = @;\n}\n")
    assert msg == "unexpected 'u'; expected ';'" and loc == Loc(4, 10, 1)


def test_lexer_error_before_a_parse_error_wins() -> None:
    msg, loc, _ = error_of(HEAD + "  u' = u # 1;\n  v' = ;\n}\n")
    assert msg == "unexpected character '#'" and loc == Loc(4, 10, 1)


def test_syntax_errors_print_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(CompileError):
        parse(HEAD + "  u' = (u + @;\n")
    out, err = capsys.readouterr()
    assert out == "" and err == ""


def test_rendered_diagnostic_has_source_line_and_caret() -> None:
    with pytest.raises(CompileError) as info:
        parse(HEAD + "  u' = u + 1\n}\n", name="heat.stn")
    assert info.value.render().splitlines()[:3] == [
        "heat.stn:4:13: error: expected ';' after the update",
        "  u' = u + 1",
        "            ^",
    ]


# ---------------------------------------------------------------- builder errors


def test_builder_reports_every_integer_and_suffix_error() -> None:
    text = ("stencil s {\n  state u levels 2.0;\n  table w[3][1.5] = {};\n"
            "  u' = sum(i in -1..2.0) u.old[i];\n}\n")
    with pytest.raises(CompileError) as info:
        parse(text)
    got = [(d.message, d.loc) for d in info.value.diagnostics]
    assert got == [
        ("the number of levels must be an integer literal, like 'levels 2'; got '2.0'", Loc(2, 18, 3)),
        ("a table dimension must be an integer literal, like 'w[5][5]'; got '1.5'", Loc(3, 14, 3)),
        ("a sum range bound must be an integer literal, like '-2..2'; got '2.0'", Loc(4, 21, 3)),
        ("unknown suffix '.old'; the only one is '.prev', the previous time level", Loc(4, 28, 3)),
    ]


def test_init_suffix_must_be_prev() -> None:
    with pytest.raises(CompileError) as info:
        parse("stencil s {\n  init u.next = 0;\n}\n")
    (d,) = info.value.diagnostics
    assert d.message.startswith("unknown suffix '.next'") and d.loc == Loc(2, 10, 4)


# ---------------------------------------------------------------- --emit=ast rendering


def test_format_ast_is_one_node_per_line_with_locations() -> None:
    text = ast.format_ast(parse(FULL))
    lines = text.splitlines()
    assert lines[0] == "Stencil full <1:9>"
    assert all(re.search(r" <\d+:\d+>$", line) for line in lines), text
    assert "  StateDecl u levels=2 <4:9>" in lines
    assert "  BoundaryDecl field=v kind=dirichlet <12:3>" in lines
    assert "  InitDecl u.prev <14:8>" in lines


def test_format_ast_shows_refs_compactly() -> None:
    lines = ast.format_ast(expr("u.prev[0,-1] + w[i+2][j]")).splitlines()
    assert lines[:3] == ["Binary + <2:24>", "  Ref u.prev[0, -1] <2:11>", "  Ref w[i + 2][j] <2:26>"]
    assert lines[3:] == ["    Binary + <2:29>", "      Name i <2:28>", "      Num 2 <2:30>", "    Name j <2:33>"]


# ---------------------------------------------------------------- random expressions

hypothesis = pytest.importorskip("hypothesis")  # the tests below need it; the ones above do not
st = hypothesis.strategies


def _exprs() -> st.SearchStrategy[str]:
    leaves = st.sampled_from(["a", "b", "2", "0.5", "u[1,0]", "u.prev", "w[i+1][j]"])

    def extend(sub: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        binary = st.tuples(sub, st.sampled_from(["+", "-", "*", "/", "^"]), sub).map(lambda t: f"{t[0]} {t[1]} {t[2]}")
        unary = st.tuples(st.sampled_from(["-", "+"]), sub).map(lambda t: t[0] + t[1])
        paren = sub.map(lambda s: f"({s})")
        call = st.tuples(sub, sub).map(lambda t: f"max({t[0]}, {t[1]})")
        sums = sub.map(lambda s: f"sum(i in -1..1) {s}")
        return binary | unary | paren | call | sums

    return st.recursive(leaves, extend, max_leaves=12)


@hypothesis.settings(max_examples=150, deadline=None)
@hypothesis.given(_exprs())
def test_unparse_then_parse_is_the_same_tree(text: str) -> None:
    e = expr(text)
    assert sx(expr(ast.unparse(e))) == sx(e)


# ---------------------------------------------------------------- containment of ANTLR


def test_antlr_texts_are_reworded() -> None:
    from stencilc.frontend.errors import reword_antlr_message

    assert (reword_antlr_message("mismatched input 'foo' expecting {';', ID}")
            == "unexpected 'foo'; expected ';' or a name")
    assert reword_antlr_message("extraneous input ')' expecting ';'") == "unexpected ')'; expected ';'"
    assert reword_antlr_message("missing ';' at 'boundary'") == "expected ';' before 'boundary'"
    assert reword_antlr_message("no viable alternative at input '<EOF>'") == "unexpected end of file"
    assert reword_antlr_message("token recognition error at: '@'") == "unexpected character '@'"


def test_only_the_frontend_imports_antlr() -> None:
    pkg = REPO_ROOT / "compiler" / "stencilc"
    offenders = [
        str(p.relative_to(pkg)) for p in pkg.rglob("*.py")
        if pkg / "frontend" not in p.parents and re.search(r"^\s*(from|import)\s+antlr4", p.read_text(), re.M)
    ]
    assert offenders == []


@pytest.mark.parametrize("body", [
    "u' = " + "(" * 3000 + "u" + ")" * 3000 + ";",  # parentheses 3000 deep
    "u' = " + "-" * 3000 + "u;",  # unary minuses
    "u' = " + " + ".join(["u"] * 5000) + ";",  # a flat sum
    "u' = 1e-4 * sum(i in 1..2000) u[i % 1 + 0,0];".replace(" % 1 + 0", ""),  # an unrolled sum
])
def test_deep_and_long_expressions_compile_without_a_traceback(tmp_path, body):
    """The passes recurse over expressions; they run with a stack and a recursion limit for thousands
    of levels (200 parentheses, 500 minuses or a sum of 500 terms were RecursionError tracebacks)."""
    import subprocess

    from conftest import stencilc_command

    src = tmp_path / "deep.stn"
    src.write_text("stencil s {\n  grid 2d f64;\n  state u;\n  " + body + "\n}\n")
    cmd, env = stencilc_command()
    p = subprocess.run([*cmd, str(src), "--emit=ir"], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode in (0, 1) and "Traceback" not in p.stderr, p.stderr[-2000:]
    assert p.returncode == 0, p.stderr[-2000:]


def test_too_deep_is_a_clean_error(tmp_path):
    import subprocess

    from conftest import stencilc_command

    src = tmp_path / "deeper.stn"
    src.write_text("stencil s {\n  grid 2d f64;\n  state u;\n  u' = " + "(" * 60000 + "u" + ")" * 60000 + ";\n}\n")
    cmd, env = stencilc_command()
    p = subprocess.run([*cmd, str(src), "--emit=ir"], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr[-2000:]
    assert f"{src}:4:3: error: this statement nests too deeply for the compiler" in p.stderr, p.stderr[:300]


def test_a_table_of_a_million_entries_is_refused_before_parsing():
    """A 1000 x 1000 table took the parser over a minute (issue 16): the front end counts a table's
    entries in the text first and refuses more than MAX_TABLE_ENTRIES, at the table's keyword; a
    'table' in a comment is not counted."""
    rows = ",\n".join("{" + ",".join("1" for _ in range(1000)) + "}" for _ in range(1000))
    text = (f"stencil s {{\n  grid 2d f64;\n  state u;\n  // table c[9] = {{1,2,3}};\n"
            f"  table w[1000][1000] = {{{rows}}};\n  u' = u;\n}}\n")
    with pytest.raises(CompileError) as e:
        frontend.parse(SourceFile("big.stn", text))
    d = e.value.diagnostics[0]
    assert (d.loc.line, d.loc.col) == (5, 3) and d.message.startswith(
        f"table 'w' has about 1000000 entries; the limit is {frontend.MAX_TABLE_ENTRIES}"), d.message
    small = text.replace("w[1000][1000]", "w[2][2]").replace(rows, "{1, 2}, {3, 4}")
    assert frontend.parse(SourceFile("small.stn", small)).name == "s"
