"""The CUDA target (``--target cuda``): the kernels as CUDA C, from the same layout as the C.

Expects: the ``KernelLayout`` that ``build_layout`` makes of a checked program's IR (for ``render_cuda``).
Guarantees: every construct sema accepts is carried (sub-steps reading a periodic field's new value
included: ``substeps.cu.j2`` wraps them); four files named after the stencil --

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

from .layout import KernelLayout

__all__ = ["NVCC_FLAGS", "render_check", "render_cuda"]

NVCC_FLAGS = ("-O3", "--fmad=false", "-std=c++14")

_FILES = (("{}.h", "kernel.h.j2"), ("{}_cuda.h", "kernel_cuda.h.j2"), ("{}_cuda.cu", "kernel.cu.j2"),
          ("{}_cuda_api.cu", "cuda_api.cu.j2"))


def _render(layout: KernelLayout, files: tuple[tuple[str, str], ...]) -> dict[str, str]:
    from . import _render_files  # (the C target's environment and names: one set of rules for both)

    return _render_files(layout, files)


def render_cuda(layout: KernelLayout) -> dict[str, str]:
    """The CUDA files of ``layout``: file name -> text."""
    return _render(layout, _FILES)


def render_check(layout: KernelLayout) -> dict[str, str]:
    """``NAME_cuda_check.cu``: a program that runs the CUDA kernels against the C kernels (``NAME.c``) on one
    grid, bit for bit, or times the CUDA step (tools/gpu_kernel_check.py builds it for tools/gpu-check.sh)."""
    return _render(layout, (("{}_cuda_check.cu", "cuda_check.cu.j2"),))
