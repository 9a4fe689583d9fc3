"""The compiler driver: it only sequences the stages.

    source --frontend.parse--> AST --sema.check--> checked AST --lower.lower--> IR
           --codegen.generate--> C files --toolchain.build--> program
                                         --toolchain.build_library--> libNAME.a, libNAME.so (--emit=lib)
           --codegen.cuda.render_cuda--> CUDA files --toolchain.build_cuda--> libNAME_cuda.a (--target cuda)
                                         --toolchain.build_cuda_program--> the program with it (--target cuda)

Each stage lives in its own module, with a docstring that states what it expects and
what it guarantees; ``--emit`` stops after a stage and shows it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from . import ast, frontend, ir, lower, sema
from .codegen import build_layout, generate
from .codegen.cuda import render_cuda
from .diagnostics import SourceFile
from .toolchain import ToolchainError, build, build_cuda, build_cuda_program, build_library

__all__ = ["run", "ToolchainError"]


def _write_text(text: str, output: str | None) -> None:
    if output is None or output == "-":
        sys.stdout.write(text)
    else:
        Path(output).write_text(text)


def front(path: str, target: str = "c") -> ir.Program:
    """parse -> check -> lower: the IR of a .stn file (warnings printed on stderr).  ``target`` ("c" or "cuda"):
    both targets carry every construct sema accepts, from the same IR."""
    source = SourceFile.read(path)
    try:
        checked = sema.check(frontend.parse(source), source)
        for w in checked.warnings:
            sys.stderr.write(w.render() + "\n")
        del target  # (the same IR for both targets)
        return lower.lower(checked)
    except RecursionError:
        raise frontend.too_deep(source) from None


def write_sources(files: dict[str, str], output: str | None) -> None:
    """The C files into directory ``output`` (stdout, with file markers, for None or '-')."""
    if output is None or output == "-":
        for name, text in files.items():
            sys.stdout.write(f"// ---- file: {name} ----\n{text}")
        return
    out = Path(output)
    out.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (out / name).write_text(text)


def run_cuda(path: str, emit: str, output: str | None, cc: str | None = None, cflags: str | None = None) -> int:
    """``--target cuda``: the CUDA sources (``--emit=c``), those and ``libNAME_cuda.a`` built by nvcc
    (``--emit=lib``) in ``output``, or the program (``exe``): the C program linked with ``libNAME_cuda.a`` and
    the CUDA runtime, which runs ``--mode gpu`` and ``gpu-ooc`` (docs/design/024)."""
    program = front(path, target="cuda")
    if emit == "ir":
        _write_text(ir.format_program(program), output)
        return 0
    try:
        files = render_cuda(build_layout(program))
    except RecursionError:
        raise frontend.too_deep(SourceFile.read(path)) from None
    if emit == "c":
        write_sources(files, output)
        return 0
    if emit == "exe":
        exe = Path(output) if output else Path(Path(path).stem)
        build_cuda_program(program, generate(program), files, exe, cc=cc, cflags=cflags)
        return 0
    build_cuda(program.name, files, Path(output) if output else Path(f"{program.name}-cuda-lib"))
    return 0


def run(path: str, emit: str = "exe", output: str | None = None, cc: str | None = None,
        cflags: str | None = None, mpi: bool = False, target: str = "c") -> int:
    if mpi:  # the runtime's MPI build (runtime/src/mpi/par.c), cached apart by its flags
        cc = cc or "mpicc"
        cflags = " ".join(filter(None, [cflags if cflags is not None else os.environ.get("STENCILC_CFLAGS", ""),
                                        "-DSTN_MPI"]))
    if target == "cuda" and emit != "ast":  # (--mpi: the C program's runtime is the MPI build, one GPU a rank)
        return run_cuda(path, emit, output, cc=cc, cflags=cflags)
    if emit == "ast":
        _write_text(ast.format_ast(frontend.parse(SourceFile.read(path))), output)
        return 0
    program = front(path)
    if emit == "ir":
        _write_text(ir.format_program(program), output)
        return 0
    try:
        files = generate(program)
    except RecursionError:
        raise frontend.too_deep(SourceFile.read(path)) from None  # (read again: the rare path)
    if emit == "c":
        write_sources(files, output)
        return 0
    if emit == "lib":
        build_library(program, files, Path(output) if output else Path(f"{program.name}-lib"), cc=cc, cflags=cflags)
        return 0
    exe = Path(output) if output else Path(Path(path).stem)
    build(program, files, exe, cc=cc, cflags=cflags)
    return 0
