#!/usr/bin/env python3
"""Build the CUDA-against-C kernel check of one .stn file (docs/design/024-gpu-tier.md).

    tools/gpu_kernel_check.py FILE.stn OUTDIR

Writes ``NAME.h``, ``NAME.c`` (the C target's kernels), ``NAME_cuda.h``, ``NAME_cuda.cu`` and
``NAME_cuda_check.cu`` into OUTDIR, compiles ``NAME.c`` with the C compiler (``$CC``, else cc;
``-O2 -ffp-contract=off``, as the runtime builds it) and the runtime's GPU planner and schedule
(``plan/gpu_plan.c``, ``plan/gpu_wrap.c``, ``plan/gpu_tiles.c``, ``engines/gpu_sched.c``, ``base/error.c``), the
rest with nvcc
(``--fmad=false``), and links ``OUTDIR/NAME_cuda_check``; prints its path.  Exit 0 built; 1 the .stn file is refused by the
CUDA target (the diagnostic on stderr) or there is no nvcc; 2 usage.  Needs no GPU to build; the
program needs one to run (tools/gpu-check.sh runs it).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "compiler"))

from stencilc import driver  # noqa: E402
from stencilc.codegen import build_layout, generate  # noqa: E402
from stencilc.codegen.cuda import NVCC_FLAGS, render_check, render_cuda  # noqa: E402
from stencilc.diagnostics import CompileError  # noqa: E402
from stencilc.resources import runtime_dir  # noqa: E402
from stencilc.toolchain import CUDA_SEARCH, find_nvcc  # noqa: E402


def runtime_sources() -> list[Path]:
    """The runtime's files the check links: the GPU tier's planner and schedule, and the error message."""
    src = runtime_dir() / "src"
    plan = src / "plan"
    return [src / "base" / "error.c", plan / "gpu_plan.c", plan / "gpu_wrap.c", plan / "gpu_tiles.c",
            src / "engines" / "gpu_sched.c"]


def runtime_includes() -> list[str]:
    return [f"-I{runtime_dir() / 'src'}", f"-I{runtime_dir() / 'include'}"]


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    stn, out = argv[0], Path(argv[1])
    try:
        layout = build_layout(driver.front(stn, target="cuda"))
    except CompileError as e:
        sys.stderr.write(e.render() + "\n")
        return 1
    nvcc = find_nvcc()
    if nvcc is None:
        sys.stderr.write(f"gpu_kernel_check: no nvcc ({CUDA_SEARCH})\n")
        return 1
    name = layout.name
    files = {**render_cuda(layout), **render_check(layout)}
    files[f"{name}.c"] = generate(driver.front(stn))[f"{name}.c"]
    out.mkdir(parents=True, exist_ok=True)
    for fname, text in files.items():
        (out / fname).write_text(text)
    cc = shlex.split(os.environ.get("CC") or "cc")
    steps = [[*cc, "-O2", "-ffp-contract=off", "-std=gnu11", "-c", f"{name}.c", "-o", f"{name}_c.o"],
             *[[*cc, "-O2", "-std=gnu11", *runtime_includes(), "-c", str(src), "-o", f"rt_{src.stem}.o"]
               for src in runtime_sources()],
             [*nvcc, *NVCC_FLAGS, *runtime_includes(), f"{name}_cuda_check.cu", f"{name}_cuda.cu", f"{name}_c.o",
              *[f"rt_{src.stem}.o" for src in runtime_sources()], "-o", f"{name}_cuda_check", "-lm"]]
    for cmd in steps:
        r = subprocess.run(cmd, cwd=out, capture_output=True, text=True)
        if r.returncode != 0:
            sys.stderr.write(f"$ {shlex.join(cmd)}\n{r.stdout}{r.stderr}")
            return 1
    print(out / f"{name}_cuda_check")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
