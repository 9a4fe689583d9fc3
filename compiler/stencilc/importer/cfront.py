"""The C front end of ``stencilc import``: the only module that imports libclang.

Expects a C file (its bytes: they need not be UTF-8) and its compiler flags; parses it with libclang (``clang.cindex`` from the
``libclang`` package, which ships ``libclang.so``: docs/design/016-import.md says why not a
libtooling tool) and returns a small tree of the parts the lifter reads -- functions, ``for``
loops, assignments, array subscripts, arithmetic, calls, names and literals, each with its
location -- plus the constants of the translation unit.  Guarantees: every node is one of the
dataclasses below; anything else in a statement position is an ``Other`` with its location, so
the lifter can name it in a diagnostic.  Nothing of libclang leaves this module.

``parse`` runs libclang in a child process (``_child.py``), on a thread with a large stack: a file
that crashes libclang (a sum of tens of thousands of terms overflows the stack of its parse) ends
that process, never the importer, and comes back as a ``FrontError`` naming the file and the cause.
"""

from __future__ import annotations

import ctypes
import os
import pickle
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..diagnostics import Loc


@dataclass
class Node:
    """A node at `loc`; `span`, set by the builder on loops, is its byte range in the file (for
    `--rewrite`, which replaces the time loop's)."""

    loc: Loc


@dataclass
class Num(Node):
    text: str  # as written (a macro's value, printed exactly, when it came from one)
    value: float
    ctype: str = "int"  # "int", "double" or "float": C's type of the literal


@dataclass
class Name(Node):
    id: str
    kind: str  # "var" (a variable), "fn" (a function), "other"
    const: float | None = None  # the value of a const variable with a constant initializer
    ctype: str = ""  # C's type of the variable


@dataclass
class Index(Node):
    base: Node  # Name, or another Index (a[i][j])
    index: Node


@dataclass
class Bin(Node):
    op: str
    lhs: Node
    rhs: Node


@dataclass
class Un(Node):
    op: str
    operand: Node


@dataclass
class Call(Node):
    fn: str
    args: list[Node]


@dataclass
class Cond(Node):
    cond: Node
    then: Node
    other: Node


@dataclass
class Assign(Node):
    op: str  # "=", "+=", ...
    lhs: Node
    rhs: Node


@dataclass
class Decl(Node):
    name: str
    init: Node | None


@dataclass
class For(Node):
    var: str | None
    lo: Node | None
    cond: Node | None
    step: str | None  # "++" (var++ or ++var, or var += 1), else None
    body: list[Node]
    end_line: int = 0
    declares: bool = False  # the loop declares its variable (for (int i = ...)), rather than assigning it


@dataclass
class Block(Node):
    body: list[Node]


@dataclass
class Other(Node):
    what: str  # libclang's kind of the statement, for a diagnostic


@dataclass
class Array:
    """An array variable: its element type and, for fixed extents, the sizes (outermost first)."""

    name: str
    elem: str  # "double", "float", or another type's spelling
    dims: list[int | None]
    pointer: bool  # a pointer to (an array of) elements, or a parameter declared as an array (C makes it one)
    restrict: bool


@dataclass
class Function:
    name: str
    loc: Loc
    body: list[Node]
    arrays: dict[str, Array]  # the arrays it sees: the file's, its parameters', its locals'


@dataclass
class Unit:
    path: str
    text: str  # the file decoded as UTF-8, a byte that is not UTF-8 replaced (for diagnostics only)
    functions: dict[str, Function] = field(default_factory=dict)
    arrays: dict[str, Array] = field(default_factory=dict)
    pragmas: list[int] = field(default_factory=list)  # lines of "#pragma stencilc"
    errors: list[tuple[Loc, str]] = field(default_factory=list)  # clang's own errors


def c_text(n: Node, show: bool = False) -> str | None:
    """An expression as C text that means what Clang parsed (macros expanded, every operation in
    parentheses; numbers by value), or None where it has no such text (a statement, a side effect).
    With `show`, for a message: numbers as written, no parentheses but those written."""
    def go(x: Node) -> str | None:
        if isinstance(x, Num):
            if show:
                return x.text
            return str(int(x.value)) if x.ctype == "int" and x.value == int(x.value) else repr(x.value)
        if isinstance(x, Name):
            return x.id
        if isinstance(x, Index):
            b, i = go(x.base), go(x.index)
            return None if b is None or i is None else f"{b}[{i}]"
        if isinstance(x, Bin) and x.op not in ("=", ",") and not x.op.endswith("="):
            a, b = go(x.lhs), go(x.rhs)
            return None if a is None or b is None else (f"{a} {x.op} {b}" if show else f"({a} {x.op} {b})")
        if isinstance(x, Bin) and x.op in ("==", "<=", ">=", "!="):
            a, b = go(x.lhs), go(x.rhs)
            return None if a is None or b is None else f"({a} {x.op} {b})"
        if isinstance(x, Un) and x.op in ("()", "-", "+", "!", "~") or isinstance(x, Un) and x.op.startswith("("):
            a = go(x.operand)
            if a is None:
                return None
            if x.op == "()":
                return f"({a})"
            return f"{x.op}{a}" if show or x.op.startswith("(") and a.startswith("(") else f"({x.op}({a}))"
        if isinstance(x, Call):
            args = [go(a) for a in x.args]
            return None if None in args else f"{x.fn}(" + ", ".join(args) + ")"
        if isinstance(x, Cond):
            c, a, b = go(x.cond), go(x.then), go(x.other)
            return None if None in (c, a, b) else f"({c} ? {a} : {b})"
        return None

    return go(n)


class FrontError(Exception):
    """libclang is missing or cannot parse: the message says which."""


def _cindex():
    try:
        import clang.cindex as ci
    except ImportError as e:  # pragma: no cover - the package is a dependency
        raise FrontError("the 'libclang' Python package is missing (pip install libclang): " + str(e)) from None
    return ci


def _builtin_includes() -> list[str]:
    """libclang's wheel has no resource headers (stddef.h): the C compiler's."""
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        return []
    try:
        p = subprocess.run([cc, "-print-file-name=include"], capture_output=True, text=True, timeout=30)
    except OSError:
        return []
    d = p.stdout.strip()
    return ["-isystem", d] if p.returncode == 0 and d and d != "include" else []


class _Eval:
    """clang_Cursor_Evaluate, which the Python bindings do not wrap."""

    def __init__(self, ci):
        lib = ci.conf.lib
        self.ok = hasattr(lib, "clang_Cursor_Evaluate")
        if not self.ok:
            return
        lib.clang_Cursor_Evaluate.argtypes = [ci.Cursor]
        lib.clang_Cursor_Evaluate.restype = ctypes.c_void_p
        lib.clang_EvalResult_getKind.argtypes = [ctypes.c_void_p]
        lib.clang_EvalResult_getKind.restype = ctypes.c_int
        lib.clang_EvalResult_getAsLongLong.argtypes = [ctypes.c_void_p]
        lib.clang_EvalResult_getAsLongLong.restype = ctypes.c_longlong
        lib.clang_EvalResult_getAsDouble.argtypes = [ctypes.c_void_p]
        lib.clang_EvalResult_getAsDouble.restype = ctypes.c_double
        lib.clang_EvalResult_dispose.argtypes = [ctypes.c_void_p]
        self.lib = lib

    def __call__(self, cursor) -> float | None:
        if not self.ok:
            return None
        r = self.lib.clang_Cursor_Evaluate(cursor)
        if not r:
            return None
        try:
            kind = self.lib.clang_EvalResult_getKind(r)
            if kind == 1:  # CXEval_Int
                return float(self.lib.clang_EvalResult_getAsLongLong(r))
            if kind == 2:  # CXEval_Float
                return self.lib.clang_EvalResult_getAsDouble(r)
            return None
        finally:
            self.lib.clang_EvalResult_dispose(r)


# The child that parses: this interpreter, on this package (the tests replace it to check a crash's report).
CHILD = [sys.executable, "-m", "stencilc.importer._child"]
# The longest a parse may take (seconds; STENCILC_IMPORT_TIMEOUT overrides it): a 180 KB file of one
# 15,000-term sum parses in seconds, and `#pragma clang __debug overflow_stack` made libclang hang.
PARSE_TIMEOUT = 300.0


def _parse_timeout() -> float:
    text = os.environ.get("STENCILC_IMPORT_TIMEOUT", "")
    try:
        value = float(text) if text else PARSE_TIMEOUT
    except ValueError:
        value = -1.0
    if not value > 0:
        raise FrontError(f"STENCILC_IMPORT_TIMEOUT={text!r}: expected a positive number of seconds")
    return value


def parse(path: str, data: bytes, cflags: list[str]) -> Unit:
    """The Unit of the C file `path` whose bytes are `data`, parsed in a child process (``_child.py``).
    Raises FrontError for what libclang cannot do, a crash of the parse included."""
    env = dict(os.environ)
    pkg_parent = str(Path(__file__).resolve().parents[2])  # the directory holding the stencilc package
    env["PYTHONPATH"] = pkg_parent + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    limit = _parse_timeout()
    try:
        p = subprocess.run(CHILD, input=pickle.dumps((path, data, cflags)), capture_output=True, env=env,
                           timeout=limit)
    except OSError as e:
        raise FrontError(f"cannot start the process that parses '{path}': {e}") from None
    except subprocess.TimeoutExpired:
        raise FrontError(f"libclang did not finish parsing '{path}' in {limit:g} s (it was stopped; a file that "
                         "parses slowly can be given more with STENCILC_IMPORT_TIMEOUT=SECONDS)") from None
    if p.returncode < 0 or p.returncode >= 128:
        sig = -p.returncode if p.returncode < 0 else p.returncode - 128
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        why = " (its stack overflowed, most likely: an expression nested too deeply, such as a sum of tens of " \
              "thousands of terms; split it)" if sig == signal.SIGSEGV else ""
        err = p.stderr.decode(errors="replace").strip()
        raise FrontError(f"libclang crashed parsing '{path}' ({name}, exit {128 + sig}){why}" +
                         (f": {err[-500:]}" if err else ""))
    try:
        kind, value = pickle.loads(p.stdout)
    except Exception:  # noqa: BLE001 - whatever the child printed, it is not its answer
        from ..diagnostics import InternalError

        raise InternalError(f"the parse of '{path}' gave no answer (exit {p.returncode}):\n"
                            + p.stderr.decode(errors="replace")) from None
    if kind == "error":
        raise FrontError(value)
    return value


def parse_here(path: str, data: bytes, cflags: list[str]) -> Unit:
    """The parse itself, in this process (the child's work: libclang may crash the process it runs in)."""
    ci = _cindex()
    try:
        index = ci.Index.create()
        tu = index.parse(path, args=["-std=gnu11", *_builtin_includes(), *cflags],
                         unsaved_files=[(path, data)], options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
    except ci.TranslationUnitLoadError as e:
        raise FrontError(f"libclang cannot parse '{path}': {e}") from None
    except ci.LibclangError as e:  # pragma: no cover - the wheel ships the library
        raise FrontError(f"libclang cannot be loaded: {e}") from None
    return _Builder(ci, tu, path, data.decode("utf-8", "replace")).unit


def _spell(x) -> str:
    """A token's or diagnostic's spelling; libclang's bindings decode it as UTF-8, which a string literal
    or a comment quoted in a message need not be."""
    try:
        return x.spelling
    except UnicodeDecodeError:
        return "\ufffd"


class _Builder:
    def __init__(self, ci, tu, path, text):
        self.ci, self.K, self.path = ci, ci.CursorKind, path
        self.eval = _Eval(ci)
        self.unit = Unit(path, text)
        self.scope: dict[str, Array] = self.unit.arrays
        lib = ci.conf.lib
        self.binop = None
        if hasattr(lib, "clang_getCursorBinaryOperatorKind"):  # libclang >= 17
            lib.clang_getCursorBinaryOperatorKind.argtypes = [ci.Cursor]
            lib.clang_getCursorBinaryOperatorKind.restype = ctypes.c_int
            lib.clang_getBinaryOperatorKindSpelling.argtypes = [ctypes.c_int]
            lib.clang_getBinaryOperatorKindSpelling.restype = ci._CXString
            self.binop = lib.clang_getCursorBinaryOperatorKind
            self.binop_spelling = lib.clang_getBinaryOperatorKindSpelling
        for d in tu.diagnostics:
            if d.severity >= ci.Diagnostic.Error and d.location.file and d.location.file.name == path:
                self.unit.errors.append((Loc(d.location.line, d.location.column), _spell(d)))
            elif d.severity >= ci.Diagnostic.Error:
                self.unit.errors.append((Loc(0, 0), _spell(d)))
        toks = [(_spell(t), t) for t in tu.get_tokens(extent=tu.cursor.extent)]
        for (a, ta), (b, _), (c, _) in zip(toks, toks[1:], toks[2:]):
            if a == "#" and b == "pragma" and c == "stencilc" and ta.location.file and ta.location.file.name == path:
                self.unit.pragmas.append(ta.location.line)
        for c in tu.cursor.get_children():
            if not (c.location.file and c.location.file.name == path):
                continue
            if c.kind == self.K.FUNCTION_DECL and c.is_definition():
                self.scope = dict(self.unit.arrays)
                for p in c.get_children():
                    if p.kind == self.K.PARM_DECL:
                        self.var(p)
                body = next((x for x in c.get_children() if x.kind == self.K.COMPOUND_STMT), None)
                stmts = self.stmts(body) if body else []
                self.unit.functions[c.spelling] = Function(c.spelling, self.loc(c), stmts, self.scope)
            elif c.kind == self.K.VAR_DECL:
                self.scope = self.unit.arrays
                self.var(c)

    # ------------------------------------------------------------------ helpers

    def loc(self, c, kind=None) -> Loc:
        ext = c.extent  # (each of a location's line and column asks libclang again: ask once)
        _, sl, sc, _ = ext.start._get_instantiation()
        _, el, ec, _ = ext.end._get_instantiation()
        n = ec - sc if el == sl and ec > sc else 1
        return Loc(c.location.line if (kind or c.kind) == self.K.FOR_STMT else sl, sc, n)

    def var(self, c) -> None:
        """An array (or pointer to one) declared at file or function scope.  A parameter declared as an
        array (double a[restrict n][n]) is a pointer, as C makes it: restrict when its first brackets say so."""
        t = c.type
        dims: list[int | None] = []
        pointer = restrict = False
        if t.kind == self.ci.TypeKind.POINTER:
            pointer, restrict = True, t.is_restrict_qualified() or "restrict" in t.spelling
            t = t.get_pointee()
        elif c.kind == self.K.PARM_DECL and "[" in t.spelling:
            first = t.spelling[t.spelling.index("["):t.spelling.index("]") + 1]
            pointer, restrict = True, "restrict" in first.replace("[", " ").replace("]", " ").split()
        while t.kind in (self.ci.TypeKind.CONSTANTARRAY, self.ci.TypeKind.VARIABLEARRAY,
                         self.ci.TypeKind.INCOMPLETEARRAY):
            dims.append(t.get_array_size() if t.kind == self.ci.TypeKind.CONSTANTARRAY else None)
            t = t.get_array_element_type()
        if dims or pointer:
            elem = t.get_canonical().spelling.replace("const ", "")
            self.scope[c.spelling] = Array(c.spelling, elem, ([None] if pointer else []) + dims, pointer, restrict)

    def tokens(self, c) -> list[str]:
        return [_spell(t) for t in c.get_tokens()]

    def op_between(self, c, lhs) -> str:
        """The operator of a binary expression: libclang's (macros expand where the tokens cannot
        show it), else the first token after its left operand."""
        if self.binop is not None:
            kind = self.binop(c)
            if kind > 0:  # CXBinaryOperator_Invalid is 0
                text = self.ci._CXString.from_result(self.binop_spelling(kind))
                if text:
                    return str(text)
        end = lhs.extent.end.offset
        for t in c.get_tokens():
            if t.extent.start.offset >= end:
                return _spell(t)
        return "?"

    # ------------------------------------------------------------------ statements

    def stmts(self, c) -> list[Node]:
        out: list[Node] = []
        for s in c.get_children():
            out.extend(self.stmt(s))
        return out

    def stmt(self, c) -> list[Node]:
        K = self.K
        if c.kind == K.COMPOUND_STMT:
            return [Block(self.loc(c), self.stmts(c))]
        if c.kind == K.FOR_STMT:
            return [self.for_(c)]
        if c.kind == K.DECL_STMT:
            out: list[Node] = []
            for d in c.get_children():
                if d.kind == K.VAR_DECL:
                    self.var(d)
                    init = [x for x in d.get_children() if x.kind.is_expression()]
                    out.append(Decl(self.loc(d), d.spelling, self.expr(init[-1]) if init else None))
            return out
        if c.kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
            lhs, rhs = list(c.get_children())
            op = self.op_between(c, lhs)
            if op.endswith("=") and op not in ("==", "<=", ">=", "!="):
                return [Assign(self.loc(c), op, self.expr(lhs), self.expr(rhs))]
        if c.kind == K.NULL_STMT:
            return []
        return [Other(self.loc(c), c.kind.name.lower().replace("_", " "))]

    def for_(self, c) -> For:
        K = self.K
        kids = list(c.get_children())
        body = self.stmt(kids[-1]) if kids else []
        if len(body) == 1 and isinstance(body[0], Block):
            body = body[0].body
        var = lo = cond = step = None
        declares = False
        # init; cond; inc: libclang omits the missing ones, so read them by kind
        heads = kids[:-1]
        for h in heads:
            if h.kind == K.DECL_STMT:
                d = next(h.get_children(), None)
                if d is not None and d.kind == K.VAR_DECL:
                    var, declares = d.spelling, True
                    e = [x for x in d.get_children() if x.kind.is_expression()]
                    lo = self.expr(e[-1]) if e else None
            elif h.kind == K.BINARY_OPERATOR and self.op_between(h, next(h.get_children())) == "=" and var is None:
                lhs, rhs = list(h.get_children())
                var, lo = lhs.spelling, self.expr(rhs)
            elif h.kind == K.BINARY_OPERATOR and cond is None:
                cond = self.expr(h)
            elif h.kind in (K.UNARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
                t = self.tokens(h)
                if t in ([var, "++"], ["++", var], [var, "+=", "1"]):
                    step = "++"
        f = For(self.loc(c), var, lo, cond, step, body, c.extent.end.line, declares)
        f.span = (c.extent.start.offset, c.extent.end.offset)
        return f

    # ------------------------------------------------------------------ expressions

    def expr(self, c) -> Node:
        return self._expr(c)

    def _expr(self, c) -> Node:
        K = self.K
        kind = c.kind  # (each .kind asks libclang again)
        loc = self.loc(c, kind)
        if kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.CSTYLE_CAST_EXPR) and kind != K.CSTYLE_CAST_EXPR:
            kids = list(c.get_children())
            if len(kids) == 1:
                e = self.expr(kids[0])
                return Un(loc, "()", e) if kind == K.PAREN_EXPR else e
        if kind == K.CSTYLE_CAST_EXPR:
            kids = [k for k in c.get_children() if k.kind.is_expression()]
            return Un(loc, f"({c.type.spelling})", self.expr(kids[-1]))
        if kind in (K.INTEGER_LITERAL, K.FLOATING_LITERAL):
            v = self.eval(c)
            toks = self.tokens(c)
            text = toks[0] if len(toks) == 1 and toks[0][:1].isdigit() or (toks and toks[0][:1] == ".") else None
            if v is None:
                v = float(text.rstrip("fFlLuU")) if text else 0.0
            ctype = "int" if kind == K.INTEGER_LITERAL else c.type.get_canonical().spelling
            return Num(loc, text.rstrip("fFlLuU") if text else repr(v), v, ctype)
        if kind == K.DECL_REF_EXPR:
            ref = c.referenced
            kind = "fn" if ref is not None and ref.kind == K.FUNCTION_DECL else "var"
            const = None
            if ref is not None and ref.kind == K.VAR_DECL and ref.type.is_const_qualified():
                const = self.eval(ref)
            return Name(loc, c.spelling, kind, const, c.type.get_canonical().spelling.replace("const ", ""))
        if kind == K.ARRAY_SUBSCRIPT_EXPR:
            base, idx = list(c.get_children())
            return Index(loc, self.expr(base), self.expr(idx))
        if kind == K.BINARY_OPERATOR:
            lhs, rhs = list(c.get_children())
            return Bin(loc, self.op_between(c, lhs), self.expr(lhs), self.expr(rhs))
        if kind == K.UNARY_OPERATOR:
            (operand,) = list(c.get_children())
            toks = self.tokens(c)
            op = toks[0] if toks and toks[0] in ("-", "+", "!", "~", "*", "&", "++", "--") else \
                (toks[-1] + "post" if toks else "?")
            return Un(loc, op, self.expr(operand))
        if kind == K.CALL_EXPR:
            kids = list(c.get_children())
            return Call(loc, c.spelling, [self.expr(a) for a in kids[1:]])
        if kind == K.CONDITIONAL_OPERATOR:
            a, b, d = list(c.get_children())
            return Cond(loc, self.expr(a), self.expr(b), self.expr(d))
        if kind == K.CXX_UNARY_EXPR:  # sizeof, _Alignof (libclang names the kind so): constants Clang evaluates
            v = self.eval(c)
            if v is not None:
                return Num(loc, str(int(v)) if v == int(v) else repr(v), v, "int" if v == int(v) else "double")
        return Other(loc, c.kind.name.lower().replace("_", " "))
