"""The CUDA target (``--target cuda``): the kernels as CUDA C, from the same layout as the C.

Expects: a checked AST (for ``refuse_unsupported``) and the ``KernelLayout`` that ``build_layout``
makes of its IR (for ``render_cuda``).  Guarantees: the constructs the CUDA kernels do not carry
yet -- sub-steps reading a periodic field's new value (``u'``) -- are refused with a located
``CompileError`` naming the construct, before any text is printed; for every other program, four files
named after the stencil --

* ``NAME.h``       the public kernel header of the C target (the view, box, params and slots);
* ``NAME_cuda.h``  the device kernels' C-callable entry points (step, boundary, init, inject, record on a
                   box);
* ``NAME_cuda.cu`` the kernels: one thread a cell, the point update printed by the same
                   ``cexpr.CPrinter`` into the same row pointers as ``NAME.c``;
* ``NAME_cuda_api.cu`` the runtime's CUDA entry points (``stn_cuda_ops``: streams, device and pinned
                   memory, asynchronous copies, the kernels), which ``NAME_api.c`` refers to weakly.

The templates (``kernel.cu.j2``, ``kernel_cuda.h.j2``) render with StrictUndefined through the
same environment as the C.  The printed expressions never contract a multiply and an add (the
printer writes no ``fma``); ``NVCC_FLAGS`` keep nvcc from contracting them either
(``--fmad=false``), so + - * / give the C kernels' bits.
"""

from __future__ import annotations

import dataclasses

from .. import ast
from ..diagnostics import InternalError, Reporter, SourceFile
from .layout import KernelLayout

__all__ = ["NVCC_FLAGS", "refuse_unsupported", "render_check", "render_cuda"]

NVCC_FLAGS = ("-O3", "--fmad=false", "-std=c++14")

_FILES = (("{}.h", "kernel.h.j2"), ("{}_cuda.h", "kernel_cuda.h.j2"), ("{}_cuda.cu", "kernel.cu.j2"),
          ("{}_cuda_api.cu", "cuda_api.cu.j2"))

_NOT_YET = "the CUDA target does not support {} yet (docs/design/024-gpu-tier.md); use the C target"


def _first_prime(node: object) -> ast.Ref | None:
    """The first read of a new value (``u'``) in ``node``, in source order."""
    if isinstance(node, ast.Ref) and node.new:
        return node
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        for f in dataclasses.fields(node):
            found = _first_prime(getattr(node, f.name))
            if found is not None:
                return found
    elif isinstance(node, (tuple, list)):
        for item in node:
            found = _first_prime(item)
            if found is not None:
                return found
    return None


def refuse_unsupported(tree: ast.Stencil, source: SourceFile) -> None:
    """Raises ``CompileError`` at each construct of ``tree`` the CUDA kernels do not carry yet."""
    rep = Reporter(source)
    periodic = {d.field for d in tree.decls if isinstance(d, ast.BoundaryDecl) and d.kind == "periodic"}
    for d in tree.decls:
        if isinstance(d, (ast.UpdateDecl, ast.LetDecl)):
            ref = _first_prime(d)
            if ref is not None and (None in periodic or ref.id in periodic):
                rep.error(_NOT_YET.format(f"sub-steps reading a periodic field's new value ({ref.id}')"), ref.loc)
    rep.check()


def _render(layout: KernelLayout, files: tuple[tuple[str, str], ...]) -> dict[str, str]:
    from . import _render_files  # (the C target's environment and names: one set of rules for both)

    if any(sc.wrap_x or sc.wrap_y or sc.wrap_z for st in layout.stages for sc in st.scratch):
        raise InternalError("a layout with sub-steps of a periodic field reached the CUDA templates")
    return _render_files(layout, files)


def render_cuda(layout: KernelLayout) -> dict[str, str]:
    """The CUDA files of ``layout``: file name -> text."""
    return _render(layout, _FILES)


def render_check(layout: KernelLayout) -> dict[str, str]:
    """``NAME_cuda_check.cu``: a program that runs the CUDA kernels against the C kernels (``NAME.c``) on one
    grid, bit for bit, or times the CUDA step (tools/gpu_kernel_check.py builds it for tools/gpu-check.sh)."""
    return _render(layout, (("{}_cuda_check.cu", "cuda_check.cu.j2"),))
