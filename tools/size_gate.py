#!/usr/bin/env python3
"""The size gate (issue 29): no source file over 800 lines, no function over 100 lines.

Expects: a directory laid out like the repository (the repository itself, or a test's scratch
directory): the sources are the C files (``.c``, ``.h``) and the Python files (``.py``) under
``SOURCE_DIRS`` (hidden directories, ``__pycache__`` and lit's ``Output`` skipped), less
``EXCLUDED`` (the generated ANTLR parser).  The Jinja templates are not sources here.  C is
read with libclang, the same one ``stencilc import`` loads (``stencilc.importer.cfront``).

Guarantees: ``measure(root)`` returns every file over ``MAX_FILE_LINES`` lines and every
function over ``MAX_FUNCTION_LINES`` lines, nothing else, each with its number of lines:

* a file's lines are its newline characters (``wc -l``), plus one for a last line without one;
* a Python function is every ``def`` (``async def`` too), methods and nested functions each
  counted on their own, from its ``def`` line to its last line (``end_lineno - lineno + 1``,
  decorators not counted); its name is its qualified name (``Class.method``, ``outer.inner``);
* a C function is every function definition libclang finds in the file (parsed as the main
  file, with ``runtime/include``, ``runtime/src`` and the file's own directory on the include
  path), from the first line of its extent (its return type) to its closing brace.  A file
  that tests ``STN_MPI`` in a conditional is parsed a second time with it defined, so both
  branches are measured (``CONFIGS``).  libclang's extents do not depend on the headers being
  found (a missing ``mpi.h`` or generated header changes no extent); code in a branch no
  configuration enables (``#if 0``) is not measured.
* keys are paths relative to ``root`` with ``/`` (files) and ``PATH:NAME`` (functions); a name
  defined twice in one file (the two branches of ``par.c``) is reported at its longest.

``python tools/size_gate.py [ROOT]`` (``make size``) prints the offenders, largest first.  The
test ``test/python/test_size_gate.py`` holds the ratchet: today's offenders, which may only shrink.
"""

from __future__ import annotations

import ast
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

MAX_FILE_LINES = 800
MAX_FUNCTION_LINES = 100
SOURCE_DIRS = ("bench", "compiler", "examples", "runtime", "test", "tools")
EXCLUDED = ("compiler/stencilc/frontend/generated",)  # ANTLR's output (tools/gen-parser.sh)
C_SUFFIXES = (".c", ".h")
CONFIGS = ("STN_MPI",)  # macros whose branches are measured too, in files that test them


@dataclass
class Sizes:
    """The offenders: path -> lines (files), ``path:name`` -> lines (functions)."""

    files: dict[str, int] = field(default_factory=dict)
    functions: dict[str, int] = field(default_factory=dict)

    def add_function(self, key: str, lines: int) -> None:
        if lines > MAX_FUNCTION_LINES and lines > self.functions.get(key, 0):
            self.functions[key] = lines


def sources(root: Path) -> list[Path]:
    """The C and Python sources the gate measures, sorted."""
    out = []
    for top in SOURCE_DIRS:
        for dirpath, dirnames, filenames in os.walk(root / top):
            rel = Path(dirpath).relative_to(root).as_posix()
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in ("__pycache__", "Output")
                                 and f"{rel}/{d}" not in EXCLUDED)
            out += [Path(dirpath) / f for f in filenames if f.endswith((".py", *C_SUFFIXES))]
    return sorted(out)


def count_lines(text: str) -> int:
    """Lines as ``wc -l`` counts them, plus a last line without a newline."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def python_functions(text: str, filename: str = "<source>") -> list[tuple[str, int]]:
    """(qualified name, lines) of every def in a Python source."""
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((prefix + child.name, child.end_lineno - child.lineno + 1))
                visit(child, prefix + child.name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(text, filename=filename), "")
    return found


class CFunctions:
    """Function definitions of C files, through libclang (one index for every file)."""

    def __init__(self, root: Path):
        sys.path.insert(0, str(REPO / "compiler"))  # (the stencilc of this checkout, as the tests use it)
        from stencilc.importer.cfront import _builtin_includes, _cindex

        self.ci = _cindex()
        self.index = self.ci.Index.create()
        self.args = ["-std=gnu11", *_builtin_includes(), f"-I{root / 'runtime' / 'include'}",
                     f"-I{root / 'runtime' / 'src'}"]

    def __call__(self, path: Path, text: str) -> list[tuple[str, int]]:
        """(name, lines) of every function defined in ``path``, in each configuration it tests."""
        configs = [[]] + [[f"-D{m}"] for m in CONFIGS
                          if re.search(rf"^\s*#\s*(?:if|ifdef|ifndef|elif)\b.*\b{m}\b", text, re.M)]
        found = []
        for extra in configs:
            tu = self.index.parse(str(path), args=[*self.args, f"-I{path.parent}", *extra])
            for c in tu.cursor.get_children():
                if c.kind == self.ci.CursorKind.FUNCTION_DECL and c.is_definition() and c.location.file \
                        and c.location.file.name == str(path):
                    found.append((c.spelling, c.extent.end.line - c.extent.start.line + 1))
        return found


def measure(root: Path | str) -> Sizes:
    """The files and functions over the limits under ``root``."""
    root = Path(root).resolve()
    sizes = Sizes()
    c_functions = None
    for path in sources(root):
        rel = path.relative_to(root).as_posix()
        text = path.read_text(errors="replace")
        n = count_lines(text)
        if n > MAX_FILE_LINES:
            sizes.files[rel] = n
        if path.suffix == ".py":
            functions = python_functions(text, rel)
        else:
            c_functions = c_functions or CFunctions(root)
            functions = c_functions(path, text)
        for name, lines in functions:
            sizes.add_function(f"{rel}:{name}", lines)
    return sizes


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else REPO
    sizes = measure(root)
    print(f"files over {MAX_FILE_LINES} lines: {len(sizes.files)}")
    for key, n in sorted(sizes.files.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {n:6d}  {key}")
    print(f"functions over {MAX_FUNCTION_LINES} lines: {len(sizes.functions)}")
    for key, n in sorted(sizes.functions.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {n:6d}  {key}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
