#!/usr/bin/env python3
"""Writes compiler/stencilc/codegen/cmacros.py: the object-like macros the C headers define.

A DSL name printed as a C identifier (a param's member of ``NAME_params``, a let's local) must not be
a macro of a header the generated files or a host that includes them may include: ``double EOF;``
does not compile after ``<stdio.h>``.  This script asks the C compiler (``cc -dM -E``, the generated
code's standard ``-std=gnu11 -fopenmp``) for the macros of every C11 standard header, ``<omp.h>`` and
the runtime's ``stn_rt.h``, keeps the object-like ones the implementation does not already reserve
(``__x``, ``_X``: the compiler renames those anyway) and writes them, sorted, into the module.

    python tools/c_macros.py            # rewrite the module from this machine's headers
    python tools/c_macros.py --check    # exit 1 if this machine defines a macro the module lacks

Function-like macros (``isnan``, ``assert``) are left out: a DSL name is never printed before a ``(``.
test/python/test_reserved_names.py runs ``--check``'s comparison, so a new libc cannot slip through.
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MODULE = REPO / "compiler" / "stencilc" / "codegen" / "cmacros.py"
HEADERS = ("assert complex ctype errno fenv float inttypes iso646 limits locale math setjmp signal stdalign stdarg "
           "stdatomic stdbool stddef stdint stdio stdlib stdnoreturn string tgmath threads time uchar wchar wctype "
           "omp").split()
_DEFINE = re.compile(r"^#define ([A-Za-z_][A-Za-z0-9_]*)(\(?)", re.M)


def header_macros(cc: str = "cc") -> set[str]:
    """The object-like macros ``cc`` defines after including HEADERS and stn_rt.h, less the names C
    reserves anyway (two underscores, or an underscore and a capital, first)."""
    with tempfile.TemporaryDirectory() as d:
        src = Path(d, "all.c")
        src.write_text("".join(f"#include <{h}.h>\n" for h in HEADERS) + '#include "stn_rt.h"\n')
        out = subprocess.run([*shlex.split(cc), "-std=gnu11", "-fopenmp", "-dM", "-E", "-I",
                              str(REPO / "runtime" / "include"), str(src)], capture_output=True, text=True, check=True)
    return {m.group(1) for m in _DEFINE.finditer(out.stdout)
            if not m.group(2) and not re.match(r"__|_[A-Z]", m.group(1))}


def module_text(names: set[str]) -> str:
    body = textwrap.fill(" ".join(sorted(names)), width=112, break_on_hyphens=False)
    return (f'"""The object-like macros of the C headers (written by tools/c_macros.py; do not edit).\n\n'
            f"Every C11 standard header, <omp.h> and stn_rt.h, as gcc and glibc define them, less the names C\n"
            f'reserves anyway; codegen/cnames.py renames a DSL name that is one of them."""\n\n'
            f'C_MACROS = frozenset("""\n{body}\n""".split())\n')


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare with the module instead of writing it")
    ap.add_argument("--cc", default="cc")
    a = ap.parse_args()
    names = header_macros(a.cc)
    if a.check:
        sys.path.insert(0, str(REPO / "compiler"))
        from stencilc.codegen.cmacros import C_MACROS

        missing = sorted(names - C_MACROS)
        print(f"{len(names)} macros here, {len(missing)} missing from {MODULE.name}: {' '.join(missing)}")
        return 1 if missing else 0
    MODULE.write_text(module_text(names | _existing()))
    print(f"wrote {MODULE} ({len(names)} macros from this machine's headers)")
    return 0


def _existing() -> set[str]:
    """The names the module lists now (kept: other platforms' headers put them there)."""
    if not MODULE.exists():
        return set()
    ns: dict = {}
    exec(MODULE.read_text(), ns)  # noqa: S102 - our own generated module
    return set(ns["C_MACROS"])


if __name__ == "__main__":
    sys.exit(main())
