"""``stencilc import`` on PolyBench/C 4.2's own stencil files, with their headers and macros (issue 28).

PolyBench is third-party code we do not commit: this test runs when ``STENCILC_POLYBENCH_DIR`` names
an unpacked PolyBench/C 4.2 (``stencils/*/``, ``utilities/polybench.h``, ``polybench.c``) and is
skipped otherwise.  For each stencil, the importer either lifts the kernel (``--function``) and
rewrites the file onto the engine (``--rewrite``), and the rewritten program, built with PolyBench's
utilities, prints PolyBench's own dump (``-DPOLYBENCH_DUMP_ARRAYS``) with the original program's
bits; or it refuses with the true reason.  The dumps print every bit: a header of ours, given with
``-include``, prints PolyBench's ``%0.2lf`` values as ``%a``.  What CI pins without PolyBench's files
is in test_import_edges.py and test/lit/import/ (our own macro layer, Inputs/pbstyle.h).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import stencilc_command

pytest.importorskip("clang.cindex", reason="the libclang package (a dependency of stencilc) is not installed")

PB = os.environ.get("STENCILC_POLYBENCH_DIR")
pytestmark = pytest.mark.skipif(
    not PB or not (Path(PB) / "utilities" / "polybench.h").is_file(),
    reason="STENCILC_POLYBENCH_DIR does not name an unpacked PolyBench/C 4.2 (its files are not ours to commit)")

CC = ["cc", "-O2", "-ffp-contract=off", "-std=gnu11"]

# PolyBench's dump prints '%0.2lf ' (double) or '%0.2f ' (float): every bit instead, everything else as it was.
HARNESS = r"""
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
static int stn_pb_fprintf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    int r;
    va_start(ap, fmt);
    if (strcmp(fmt, "%0.2lf ") == 0 || strcmp(fmt, "%0.2f ") == 0)
        r = fprintf(f, "%a ", va_arg(ap, double));
    else
        r = vfprintf(f, fmt, ap);
    va_end(ap);
    return r;
}
#define fprintf stn_pb_fprintf
"""

# benchmark: (what the importer must do: "lift", or the refusal's words)
BENCH = {
    "jacobi-1d": "lift",
    "jacobi-2d": "lift",
    "heat-3d": "lift",
    "fdtd-2d": "a loop in the time step that is not a stencil nest: it writes 'ey[0][j]', not the element of its "
               "own loop indices",
    "seidel-2d": "error: the nest reads 'A' at an offset from the element it writes: that value may be old or new "
                 "(a Gauss-Seidel sweep)",
}
RESTRICT = ["-DPOLYBENCH_USE_RESTRICT"]


def _sh(cmd, **kw) -> subprocess.CompletedProcess:
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=600, **kw)
    assert p.returncode == 0, f"{' '.join(map(str, cmd))}:\n{p.stdout}{p.stderr[-4000:]}"
    return p


def _import(tmp_path: Path, bench: str, flags: list[str]) -> tuple[subprocess.CompletedProcess, Path, Path]:
    d = Path(PB) / "stencils" / bench
    cmd, env = stencilc_command()
    stn, rw = tmp_path / f"{bench.replace('-', '_')}.stn", tmp_path / f"{bench}_rw.c"
    fn = "kernel_" + bench.replace("-", "_")
    p = subprocess.run([*cmd, "import", str(d / f"{bench}.c"), "--function", fn, "-o", str(stn), "--rewrite",
                        str(rw), "--", "-I", str(Path(PB) / "utilities"), "-I", str(d), *flags],
                       capture_output=True, text=True, env=env, timeout=600)
    return p, stn, rw


@pytest.mark.parametrize("bench,flags", [
    ("jacobi-1d", ["-DSMALL_DATASET"]),
    ("jacobi-2d", ["-DSMALL_DATASET"]),
    ("jacobi-2d", ["-DMINI_DATASET", "-DPOLYBENCH_USE_SCALAR_LB"]),
    ("jacobi-2d", ["-DMINI_DATASET", "-DPOLYBENCH_USE_C99_PROTO"]),
    ("jacobi-2d", ["-DMINI_DATASET", "-DPOLYBENCH_PADDING_FACTOR=3"]),
    ("heat-3d", ["-DSMALL_DATASET"]),
    ("heat-3d", ["-DMINI_DATASET", "-DPOLYBENCH_PADDING_FACTOR=2"]),
    ("fdtd-2d", ["-DSMALL_DATASET"]),
    ("seidel-2d", ["-DSMALL_DATASET"]),
])
def test_polybench_stencils_lift_with_the_c_bits_or_refuse_with_the_reason(tmp_path, bench, flags):
    flags = [*RESTRICT, *flags]
    p, stn, rw = _import(tmp_path, bench, flags)
    want = BENCH[bench]
    if want != "lift":
        assert p.returncode == 1 and want in p.stderr and f"{bench}.c:" in p.stderr, p.stderr
        return
    assert p.returncode == 0, p.stderr
    if not shutil.which("pkg-config"):
        pytest.skip("pkg-config is missing (tools/setup.sh installs it)")
    d, util = Path(PB) / "stencils" / bench, Path(PB) / "utilities"
    harness = tmp_path / "harness.h"
    harness.write_text(HARNESS)
    common = [*CC, "-I", util, "-I", d, *flags, "-DPOLYBENCH_DUMP_ARRAYS", "-include", harness]
    _sh([*common, "-o", tmp_path / "orig", util / "polybench.c", d / f"{bench}.c", "-lm"])
    cmd, env = stencilc_command()
    lib = tmp_path / "lib"
    _sh([*cmd, stn, "--emit=lib", "-o", lib], env=env)
    pc = _sh(["pkg-config", "--cflags", "--libs", stn.stem], env={"PKG_CONFIG_PATH": str(lib / "lib" / "pkgconfig")})
    _sh([*common, "-o", tmp_path / "rw", util / "polybench.c", rw, *pc.stdout.split(), f"-Wl,-rpath,{lib / 'lib'}",
         "-lm"])
    want_dump = _sh([tmp_path / "orig"]).stderr
    assert "==BEGIN DUMP_ARRAYS==" in want_dump and "0x" in want_dump
    for mode, mem in (("ooc", "8M"), ("incore", "")):
        run_env = dict(os.environ, STENCILC_MODE=mode, STENCILC_DIR=str(tmp_path))
        if mem:
            run_env["STENCILC_MEM"] = mem
        got = _sh([tmp_path / "rw"], env=run_env).stderr
        assert got == want_dump, f"{bench} {flags} {mode}: the rewritten program's dump differs from PolyBench's"


def test_polybench_arrays_without_restrict_are_refused_as_possible_aliases(tmp_path):
    """Without POLYBENCH_USE_RESTRICT, PolyBench's array parameters are plain pointers that may overlap
    (C lets a caller pass A twice): refused with that reason, as 'double (*A)[n]' is."""
    p, _, _ = _import(tmp_path, "jacobi-2d", ["-DSMALL_DATASET"])
    assert p.returncode == 1 and "are pointers that may point into the same array" in p.stderr, p.stderr
    assert "double A[restrict N][...]" in p.stderr
