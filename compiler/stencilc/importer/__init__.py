"""``stencilc import FILE.c``: lift a stencil loop nest out of existing C (docs/import.md).

The driver of the importer: read the C file, lift it (``lift.py``, over ``cfront.py``, the only
module that imports libclang), check that the ``.stn`` it wrote compiles (a lifted file the
front end refuses is stencilc's bug, reported as an internal error), write it.  The C file is
bytes: what is not UTF-8 (a Latin-1 comment) is kept as it is by the rewrite and shown replaced
(U+FFFD) in diagnostics.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from ..diagnostics import NO_LOC, CompileError, Diagnostic, InternalError, SourceFile


def stencil_name(output: str | None, cfile: str) -> str:
    """The stencil's name, made of the output's stem (else the C file's)."""
    stem = Path(output).stem if output else Path(cfile).stem
    name = re.sub(r"[^A-Za-z0-9_]", "_", stem) or "stencil"
    return name if not name[0].isdigit() else "s_" + name


def refuse_bad_name(name: str, output: str | None, cfile: str) -> None:
    """A ``CompileError`` (a user error, not the lifter's) when no stencil may be named ``name`` (``c``, ``math``,
    ``stn_x``, ``_x``, a keyword such as ``grid``), which ``stencil_name`` made of ``output`` or ``cfile``."""
    why = _name_problem(name)
    if why:
        what = f"the output file '{output}'" if output else f"the C file '{cfile}' (there is no -o)"
        raise CompileError([Diagnostic("error", f"the stencil is named after {what}, and its name '{name}' {why}; "
                                                "name the output otherwise (-o NAME.stn)", None, NO_LOC)])


def _name_problem(name: str) -> str | None:
    """Why the compiler refuses a stencil named ``name`` (as ``codegen.cnames.stencil_name_problem`` says), or
    None; a keyword of the language is no name."""
    from ..codegen.cnames import stencil_name_problem
    from ..frontend import parse

    why = stencil_name_problem(name)
    if why is None:
        try:
            parse(SourceFile("<name>", f"stencil {name} {{ grid 2d f64; }}"))
        except CompileError:
            why = "is a keyword of the language"
    return why


def read_c(path: str) -> bytes:
    """The bytes of a C file, or the CompileError of a .stn file that cannot be read (UTF-8 is not asked)."""
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise CompileError([Diagnostic("error", f"no such file: '{path}'", None, NO_LOC)]) from None
    except IsADirectoryError:
        raise CompileError([Diagnostic("error", f"'{path}' is a directory, not a C file", None, NO_LOC)]) from None
    except PermissionError:
        raise CompileError([Diagnostic("error", f"cannot read '{path}': permission denied", None, NO_LOC)]) from None
    except OSError as e:
        raise CompileError([Diagnostic("error", f"cannot read '{path}': {e.strerror}", None, NO_LOC)]) from None


def run(cfile: str, *, function: str | None, output: str | None, cflags: list[str],
        rewrite: str | None = None) -> int:
    from . import cfront, lift
    from . import rewrite as rw

    data = read_c(cfile)
    src = SourceFile(cfile, data.decode("utf-8", "replace"))  # (for diagnostics)
    name = stencil_name(output, cfile)
    try:
        text, lifted = lift.lift(src.name, data, function, name, cflags)
    except cfront.FrontError as e:
        raise CompileError([Diagnostic("error", str(e), src, NO_LOC)]) from None
    refuse_bad_name(name, output, cfile)  # (after the C file's own errors)
    program = _check(text, name)
    new_c = None
    if rewrite:
        if Path(rewrite).resolve() == Path(cfile).resolve():
            raise CompileError([Diagnostic("error", f"--rewrite {rewrite} is the input file: the rewrite is a copy, "
                                                    "it never changes the C file it reads", src, NO_LOC)])
        try:
            from ..codegen.build import build_layout

            cnames = {p.name: p.cname for p in build_layout(program).params}  # the config's member names
            new_c = rw.rewrite(data, name, lifted, cnames)
        except rw.RewriteError as e:
            raise CompileError([Diagnostic("error", str(e), src, lifted.time_loop.loc)]) from None
    if output:
        Path(output).write_text(text)
    else:
        sys.stdout.write(text)
    if new_c is not None:
        Path(rewrite).write_bytes(new_c)
    return 0


def _check(text: str, name: str):
    """The lifted file goes through the front end and sema; their refusal is a bug of the lifter."""
    from .. import lower, sema
    from ..frontend import parse

    try:
        src = SourceFile(f"{name}.stn", text)
        return lower.lower(sema.check(parse(src), src))
    except CompileError as e:
        raise InternalError("stencilc import wrote a .stn file the compiler refuses:\n" + e.render() +
                            "\n--- the file:\n" + text) from None
