"""How the names of a .stn file become C names: the one place that decides it.

Expects: DSL identifiers (``[A-Za-z_][A-Za-z0-9_]*``, checked by sema) and the C templates under
``templates/``.  Guarantees:

* ``c_reserved(name)``: the name cannot be printed as a C identifier as it is: a C11, GNU C or C++
  keyword (the headers are C++-clean), an object-like macro of a C standard header, ``<omp.h>`` or
  ``stn_rt.h`` (``cmacros.py``, written by ``tools/c_macros.py``), or a name C reserves for the
  implementation (two underscores, or an underscore and a capital letter, first);
* ``template_words()``: the identifiers the kernels' templates print themselves outside comments
  and strings where a .stn name could meet them (at file scope, and in the function bodies that
  declare locals named after the .stn file), read from the templates, so that it cannot fall
  behind them; ``stencil_words(stencil)``: those they derive from the stencil's name
  (``heat_view``, ``HEAT_NSRC``), and the prefixes of the enum constants they derive from it and a
  field's name (``HEAT_FIELD_``, ``HEAT_SRC_``, ...);
* ``Namer(stencil).fresh(wanted)``: a C name that is none of the above and was not given before:
  ``wanted`` itself when it can be; else ``v`` before it (a name C reserves by its underscores, or
  one that starts like the stencil's enum constants) and ``_`` after it as often as needed;
  ``is_spelling_of(cname, name)`` holds exactly for the spellings ``fresh`` makes;
* ``stencil_name_problem(name)``: why a stencil cannot have that name (None when it can).  The name
  names files, C functions, types and macros, and a Fortran module, so it is refused, never renamed.
"""

from __future__ import annotations

import functools
import re

from ..ir import FUNCTIONS
from ..resources import templates_dir
from .cmacros import C_MACROS

C_KEYWORDS = frozenset(
    # C11
    "auto break case char const continue default do double else enum extern float for goto if inline int long "
    "register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while "
    "_Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn _Static_assert _Thread_local "
    # GNU C
    "typeof asm __typeof__ __asm__ __asm __inline__ __restrict__ __extension__ __attribute__ __int128 __label__ "
    "__thread __func__ __FUNCTION__ __PRETTY_FUNCTION__ "
    # C++ (NAME.h and NAME_api.h are included by C++ hosts too)
    "alignas alignof and and_eq bitand bitor bool catch char16_t char32_t class compl constexpr const_cast decltype "
    "delete dynamic_cast explicit export false friend mutable namespace new noexcept not not_eq nullptr operator or "
    "or_eq private protected public reinterpret_cast static_assert static_cast template this thread_local throw "
    "true try typeid typename using virtual wchar_t xor xor_eq "
    # names the generated C calls or the headers declare as types, and main
    "main errno fabs fabsf fmin fmax pow powf sqrt sqrtf exp expf log logf sin sinf cos cosf tanh tanhf "
    "int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t intptr_t uintptr_t size_t ssize_t "
    "ptrdiff_t FILE stdin stdout stderr assert offsetof linux unix i386".split()
    # and every libm function the kernels may call for a .stn function, in double and in float
    + [f + sfx for f in FUNCTIONS if f not in ("abs", "min", "max") for sfx in ("", "f")]
)

# the stencil's name becomes NAME.h and NAME_api.h: '#include <NAME.h>' must still find the system's header
# in code compiled with -I on the generated files (the programs, and hosts as docs/embedding.md builds them)
SYSTEM_HEADERS = frozenset(
    "assert complex ctype errno fenv float inttypes iso646 limits locale math setjmp signal stdalign stdarg "
    "stdatomic stdbool stddef stdint stdio stdlib stdnoreturn string tgmath threads time uchar wchar wctype "
    "omp mpi libaio hwloc aio unistd fcntl pthread sched dirent dlfcn poll strings alloca malloc memory "
    "features endian".split()
)
MAKE_TARGETS = frozenset({"clean", "kernels"})  # the generated Makefile's own targets, beside the program's
FORTRAN_NAME_MAX = 63  # and the Fortran module's longest name is NAME_steps_done
_FORTRAN_SUFFIX = len("_steps_done")

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def c_reserved(name: str) -> bool:
    """``name`` cannot be printed as a C identifier as it is (a keyword, a header's macro, or a name C
    reserves for the implementation)."""
    return (name in C_KEYWORDS or name in C_MACROS or name.startswith("__")
            or (len(name) > 1 and name[0] == "_" and name[1].isupper()))


# ---------------------------------------------------------------- the templates' own identifiers

_N, _U, _GAP = "\x01", "\x02", "\x00"  # the stencil's name, its upper case, another template expression
# expressions with a few values, each a mark standing for them in a word (``n{{ ax.name }}``: nx, ny, nz)
_EXPAND = {"real": ("\x04", ("float", "double")), "kind": ("\x05", ("inject", "record")),
           "ax.name": ("\x06", tuple("xyz")), "a.axis": ("\x06", tuple("xyz")), "ax.NAME": ("\x07", tuple("XYZ"))}
_JINJA = re.compile(r"\{#.*?#\}|\{%.*?%\}", re.S)
_EXPR = re.compile(r"\{\{.*?\}\}", re.S)
_C_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_C_LITERAL = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z0-9_\x01\x02\x04-\x07]+)[^\n]*", re.M)
_DIRECTIVE = re.compile(r"^[ \t]*#[^\n]*", re.M)
_MEMBER = re.compile(r"(?:\.|->)[ \t]*[A-Za-z_][A-Za-z0-9_]*")  # a member cannot clash with a local
_WORD = re.compile(r"([\x00\x03]?)([A-Za-z_\x01\x02\x04-\x07][A-Za-z0-9_\x01\x02\x04-\x07]*)([\x00\x03]?)")


def _expanded(word: str) -> list[str]:
    """A word with marks of ``_EXPAND`` in it, as each of the words it stands for."""
    out = [word]
    for mark, values in dict(_EXPAND.values()).items():
        if mark in word:
            out = [w.replace(mark, v) for w in out for v in values]
    return out


# a template expression that prints a name of the .stn file (``{{ p.cname }}``, ``{{ s.arg }}``...)
_DSL_NAME = re.compile(r"\{\{-?\s*[a-z]+\.(?:cname|arg|name|row|target|array)\s*-?\}\}")
_MARK = "\x03"
# a function (the templates put its body's braces alone at the start of a line) in which no name of the
# .stn file is declared: its parameters and locals cannot meet one
_FUNCTION = re.compile(r"^([^\n;{}#]*?)\(([^;{}]*?)\)[ \t]*\n\{\n(.*?)^\}\n", re.M | re.S)
_KERNELS = ("kernel.h.j2", "kernel.c.j2", "substeps.c.j2", "kernel.cu.j2", "substeps.cu.j2")  # where the .stn file's names are C locals

# The hand-kept list the scan replaced: these stay renamed, so that no program's C names change (a
# host's ``config.params.c_`` keeps its spelling).
_KEPT = frozenset(
    "sy sz y0 z0 x0 x1 span_y span_z ty tz kz ky zb ze yb ye row p v pv w c b src dst box iy ix iz whole interior "
    "nx ny nz m r a cur next field level data xl xh yl yh zl zh xi0 xi1 yi0 yi1 zi0 zi1 nrx threads splits memcpy "
    "omp_get_max_threads MIN_ MAX_ default_tiles_ dirichlet_ neumann_ params_ view_ box_ init_ step_ boundary_ "
    "fields_ params_desc_ program_ argc argv chunk_y chunk_z zc0 zc1 ty0 ty1 nyc nzc kc rz0 rz1 ry0 ry1 rx0 rx1 ix0 "
    "ix1 splane_ per_ scratch_ rc_ ok_ stage_chunk_ malloc free ENOMEM which pts n i px py pz at out".split()
)


def _code(text: str) -> str:
    """A template as C: its expressions as marks (the stencil's name, its upper case, a .stn name, one
    of a few values, another), without the template's statements, C comments, strings and directives but the
    names #define defines, and without member names (a member cannot clash with a local)."""

    def mark(m: re.Match) -> str:
        inner = m.group(0).strip("{}- ")
        if inner in _EXPAND:
            return _EXPAND[inner][0]
        return {"name": _N, "NAME": _U}.get(inner, _MARK if _DSL_NAME.fullmatch(m.group(0)) else _GAP)

    text = _EXPR.sub(mark, _JINJA.sub(" ", text))
    text = _C_LITERAL.sub(" ", _C_COMMENT.sub(" ", text))
    return _MEMBER.sub(" ", _DIRECTIVE.sub(" ", _DEFINE.sub(r"\1", text)))


def _words(code: str, words: set[str], prefixes: set[str]) -> None:
    """Adds the identifiers of ``code`` to ``words``, and the names an expression ends that have the
    stencil's name in them (``HEAT_FIELD_{{ f.NAME }}``) to ``prefixes``."""
    for before, word, after in _WORD.findall(code):
        if before:
            continue  # the tail of a name a template expression begins: the generator's own
        if after:
            if _N in word or _U in word:
                prefixes.update(_expanded(word))
            continue
        words.update(_expanded(word))


@functools.lru_cache(maxsize=1)
def _scan() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(words, words with the stencil's name in them, prefixes with it) of the C templates; words: the
    kernels' files' (``_KERNELS``) at file scope and in the functions that declare a .stn file's name."""
    words: set[str] = set()
    derived: set[str] = set()
    prefixes: set[str] = set()
    for path in sorted([*templates_dir().glob("*.[ch].j2"), *templates_dir().glob("*.cu.j2")]):
        code = _code(path.read_text())
        every: set[str] = set()
        _words(code, every, prefixes)
        derived |= {w for w in every if _N in w or _U in w}
        if path.name in _KERNELS:
            _words(_FUNCTION.sub(lambda m: m.group(0) if _MARK in m.group(0) else m.group(1) + "\n", code),
                   words, prefixes)
    return (frozenset(w for w in words if _N not in w and _U not in w) | _KEPT, frozenset(derived),
            frozenset(prefixes))


def template_words() -> frozenset[str]:
    """The identifiers the C templates print themselves, whatever the stencil."""
    return _scan()[0]


def stencil_words(stencil: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The identifiers the templates make of the stencil's name, and the prefixes of those they make
    of it and another name (the enum constants ``HEAT_FIELD_U``...)."""
    _, derived, prefixes = _scan()

    def sub(w: str) -> str:
        return w.replace(_N, stencil).replace(_U, stencil.upper())

    return frozenset(sub(w) for w in derived), tuple(sorted(sub(p) for p in prefixes))


# ---------------------------------------------------------------- naming


class Namer:
    """Gives each C identifier the kernels declare a name that collides with nothing else."""

    def __init__(self, stencil: str) -> None:
        self.taken: set[str] = set()
        self.words, self.prefixes = stencil_words(stencil)

    def clashes(self, name: str) -> bool:
        """``name`` is reserved by C, the templates or the stencil's own names, or already given."""
        return (name in self.taken or c_reserved(name) or name in template_words() or name in self.words
                or name.startswith(self.prefixes))

    def fresh(self, wanted: str) -> str:
        name = wanted
        if c_reserved(name) and name.startswith("_") or name.startswith(self.prefixes):
            name = "v" + name  # (_X, __x: the C library's; HEAT_FIELD_U...: the enum constants')
        while self.clashes(name):
            name += "_"
        self.taken.add(name)
        return name


def is_spelling_of(cname: str, name: str) -> bool:
    """``cname`` is a spelling ``Namer.fresh`` may give ``name``: itself, with a ``v`` before it, with
    ``_`` after it."""
    return re.fullmatch("v?" + re.escape(name) + "_*", cname) is not None


def stencil_name_problem(name: str) -> str | None:
    """Why a stencil cannot be named ``name`` (a full sentence after the quoted name), or None."""
    if not _IDENT.match(name):
        return "is not an identifier"
    if name.startswith("_"):
        return ("begins with an underscore: it begins the C functions of the stencil (C reserves such names) "
                "and its Fortran module (whose names begin with a letter)")
    if name == "stn" or name.startswith("stn_"):
        return "is the runtime's prefix or begins with it ('stn_'): its C names would clash with the runtime's"
    if name in SYSTEM_HEADERS:
        return f"would name the generated header {name}.h, which hides the system's <{name}.h>"
    if name in MAKE_TARGETS:
        return f"is a target of the generated Makefile ('make {name}')"
    if name.lower() == "c":
        return "gives Fortran names (c_open, ...) that the Fortran module uses for its C interfaces"
    if len(name) + _FORTRAN_SUFFIX > FORTRAN_NAME_MAX:
        return (f"is {len(name)} characters long: the Fortran module's names ({name[:8]}..._steps_done) may have "
                f"{FORTRAN_NAME_MAX}, so a stencil's name may have {FORTRAN_NAME_MAX - _FORTRAN_SUFFIX}")
    words, prefixes = stencil_words(name)
    bad = sorted(w for w in words | set(prefixes) if c_reserved(w) or w in template_words())
    if bad:
        return f"gives the C name {bad[0]}, which C or the generated code already uses"
    return None
