"""``stencilc import`` on C as real programs write it (issue 28): arrays whose rows are longer than the
loops sweep, loop bounds through function-like macros (PolyBench's layer, here our own
test/lit/import/Inputs/pbstyle.h), in-place point-wise updates (FDTD), 1d nests, a sum too deep for
libclang's stack, bytes that are not UTF-8.  Each C program is built and run; its time loop is lifted
and rewritten onto the engine (--rewrite, built against --emit=lib); the rewritten program's output
is the original's, byte for byte (and the lifted .stn run from the same arrays gives the same bits).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import REPO_ROOT, stencilc_command

pytest.importorskip("clang.cindex", reason="the libclang package (a dependency of stencilc) is not installed")

INPUTS = REPO_ROOT / "test" / "lit" / "import" / "Inputs"
CC = ["cc", "-O2", "-ffp-contract=off", "-std=gnu11"]


def _sh(cmd, **kw) -> subprocess.CompletedProcess:
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=600, **kw)
    assert p.returncode == 0, f"{' '.join(map(str, cmd))}:\n{p.stdout}{p.stderr}"
    return p


def _rewrite_and_compare(tmp_path: Path, name: str, src: str, function: str, args: list[str],
                         cflags: list[str] = (), mem: str = "16M") -> str:
    """Builds SRC, lifts FUNCTION with --rewrite, builds the rewrite against --emit=lib (both with -Wall
    -Wextra -Werror: the rewrite adds no warning), runs both with ARGS and a last argument naming the output file: the same bytes.  Returns the
    .stn text."""
    if not shutil.which("pkg-config"):
        pytest.skip("pkg-config is missing (tools/setup.sh installs it)")
    c = tmp_path / f"{name}.c"
    c.write_text(src)
    flags = ["-I", INPUTS, *cflags]
    _sh([*CC, "-Wall", "-Wextra", "-Werror", *flags, "-o", tmp_path / "orig", c, "-lm"])
    _sh([tmp_path / "orig", *args, tmp_path / "want.raw"])
    cmd, env = stencilc_command()
    stn, rw = tmp_path / f"{name}.stn", tmp_path / f"{name}_rw.c"
    _sh([*cmd, "import", c, "--function", function, "-o", stn, "--rewrite", rw, "--", *flags], env=env)
    lib = tmp_path / "lib"
    _sh([*cmd, stn, "--emit=lib", "-o", lib], env=env)
    pc = _sh(["pkg-config", "--cflags", "--libs", name], env={"PKG_CONFIG_PATH": str(lib / "lib" / "pkgconfig")})
    _sh([*CC, "-Wall", "-Wextra", "-Werror", *flags, "-o", tmp_path / "rw", rw, *pc.stdout.split(),
         f"-Wl,-rpath,{lib / 'lib'}", "-lm"])
    run_env = dict(os.environ, STENCILC_MODE="ooc", STENCILC_MEM=mem, STENCILC_DIR=str(tmp_path))
    _sh([tmp_path / "rw", *args, tmp_path / "got.raw"], env=run_env)
    want, got = (tmp_path / "want.raw").read_bytes(), (tmp_path / "got.raw").read_bytes()
    if got != want:
        a, b = np.frombuffer(want, dtype="<f8"), np.frombuffer(got, dtype="<f8")
        diff = a != b if a.shape == b.shape else np.ones(1, bool)
        pytest.fail(f"{name}: the rewritten program's output differs in {int(diff.sum())} cells "
                    f"(max |diff| {np.abs(a - b).max() if a.shape == b.shape else 'n/a'})")
    return stn.read_text()


# ----------------------------------------------------------------------------------------------- point 1

ROWS = r"""
#include <stdio.h>
#include <stdlib.h>
#define N 40
static void kernel(int n, int tsteps, double A[restrict N][N], double B[restrict N][N])
{
    for (int t = 0; t < tsteps; t++) {
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i + 1][j] + A[i - 1][j]);
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][j + 1] + B[i + 1][j] + B[i - 1][j]);
    }
}
int main(int argc, char **argv)
{
    (void)argc;
    static double A[N][N], B[N][N];
    int n = atoi(argv[1]), tsteps = atoi(argv[2]);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            A[i][j] = (double)((i * 7 + j * 13) % 17) / 16.0;
            B[i][j] = (double)((i * 5 + j * 3) % 11) / 10.0;
        }
    kernel(n, tsteps, A, B);
    FILE *f = fopen(argv[3], "wb");
    if (!f || fwrite(A, sizeof A, 1, f) != 1 || fwrite(B, sizeof B, 1, f) != 1 || fclose(f))
        return 1;
    return 0;
}
"""

PADDED3D = r"""
#include <stdio.h>
#include <stdlib.h>
static void heat(int nx, int ny, int nz, int steps, double (*restrict u)[ny + 2][nx + 3],
                 double (*restrict v)[ny + 2][nx + 3])
{
    for (int t = 0; t < steps; t++) {
        for (int k = 1; k < nz - 1; k++)
            for (int j = 1; j < ny - 1; j++)
                for (int i = 1; i < nx - 1; i++)
                    v[k][j][i] = u[k][j][i] + 0.1 * (u[k][j][i - 1] + u[k][j][i + 1] + u[k][j - 1][i] +
                                 u[k][j + 1][i] + u[k - 1][j][i] + u[k + 1][j][i] - 6.0 * u[k][j][i]);
        double (*w)[ny + 2][nx + 3] = u;
        u = v;
        v = w;
    }
    if (steps % 2) /* the caller's first buffer holds the result */
        for (size_t c = 0; c < (size_t)nz * (ny + 2) * (nx + 3); c++)
            ((double *)v)[c] = ((double *)u)[c];
}
int main(int argc, char **argv)
{
    (void)argc;
    int nx = atoi(argv[1]), ny = atoi(argv[2]), nz = atoi(argv[3]), steps = atoi(argv[4]);
    size_t cells = (size_t)nz * (ny + 2) * (nx + 3);
    double (*u)[ny + 2][nx + 3] = malloc(cells * sizeof(double)), (*v)[ny + 2][nx + 3] = malloc(cells * sizeof(double));
    if (!u || !v)
        return 1;
    for (size_t c = 0; c < cells; c++)
        ((double *)u)[c] = ((double *)v)[c] = (double)(c % 89) / 89.0;
    heat(nx, ny, nz, steps, u, v);
    FILE *f = fopen(argv[5], "wb");
    if (!f || fwrite(u, sizeof(double), cells, f) != cells || fclose(f))
        return 1;
    free(u);
    free(v);
    return 0;
}
"""


def test_rows_longer_than_the_loops_rewrite_with_their_stride(tmp_path):
    """double A[restrict N][N] with N = 40 swept to n - 1 with n = 30: the rewrite passes the rows' real
    stride (it passed &A[0][0] as if rows were n long: 1008 cells of each array differed, exit 0)."""
    text = _rewrite_and_compare(tmp_path, "rows", ROWS, "kernel", ["30", "9"])
    assert "grid 2d f64;" in text


def test_padded_3d_rows_and_planes_rewrite_with_their_strides(tmp_path):
    """Pointers to padded 3d rows (double (*u)[ny + 2][nx + 3]) swept over nx x ny x nz, with a pointer
    swap: the rewrite passes the row and plane strides; the padding is left as it was."""
    _rewrite_and_compare(tmp_path, "padded", PADDED3D, "heat", ["21", "17", "13", "5"])


# ----------------------------------------------------------------------------------------------- point 2

PBJACOBI = r"""
#include <stdio.h>
#include <stdlib.h>
#include "pbstyle.h"
#ifndef N
#define N 64
#endif
#define TSTEPS 11
#define _PB_N POLYBENCH_LOOP_BOUND(N, n)
#define _PB_TSTEPS POLYBENCH_LOOP_BOUND(TSTEPS, tsteps)
static void kernel_jacobi_2d(int tsteps, int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n),
                             DATA_TYPE POLYBENCH_2D(B, N, N, n, n))
{
    int t, i, j;
    (void)n; /* (used through the bounds only, which PB_CONST_BOUNDS makes constants) */
    (void)tsteps;
    for (t = 0; t < _PB_TSTEPS; t++) {
        for (i = 1; i < _PB_N - 1; i++)
            for (j = 1; j < _PB_N - 1; j++)
                B[i][j] = SCALAR_VAL(0.2) * (A[i][j] + A[i][j - 1] + A[i][1 + j] + A[1 + i][j] + A[i - 1][j]);
        for (i = 1; i < _PB_N - 1; i++)
            for (j = 1; j < _PB_N - 1; j++)
                A[i][j] = SCALAR_VAL(0.2) * (B[i][j] + B[i][j - 1] + B[i][1 + j] + B[1 + i][j] + B[i - 1][j]);
    }
}
int main(int argc, char **argv)
{
    (void)argc;
    int n = atoi(argv[1]), tsteps = TSTEPS;
    static DATA_TYPE A[N + PB_PAD][N + PB_PAD], B[N + PB_PAD][N + PB_PAD];
    for (int i = 0; i < N + PB_PAD; i++)
        for (int j = 0; j < N + PB_PAD; j++) {
            A[i][j] = ((DATA_TYPE)i * (j + 2) + 2) / N;
            B[i][j] = ((DATA_TYPE)i * (j + 3) + 3) / N;
        }
    kernel_jacobi_2d(tsteps, n, A, B);
    FILE *f = fopen(argv[2], "wb");
    if (!f || fwrite(A, sizeof A, 1, f) != 1 || fwrite(B, sizeof B, 1, f) != 1 || fclose(f))
        return 1;
    return 0;
}
"""


@pytest.mark.parametrize("flags", [[], ["-DPB_CONST_BOUNDS"], ["-DPB_PAD=3"], ["-DPB_C99_EXTENTS"]],
                         ids=["runtime-bounds", "const-bounds", "padded", "c99-extents"])
def test_polybench_style_macro_bounds_rewrite_to_c_that_gives_the_bits(tmp_path, flags):
    """Bounds through POLYBENCH_LOOP_BOUND(N, n) became '(int64_t)()' (the empty text of a macro argument):
    the rewrite prints what Clang expanded; with run-time or constant bounds, padded rows, C99 extents."""
    _rewrite_and_compare(tmp_path, "pbjacobi", PBJACOBI, "kernel_jacobi_2d", ["64"], ["-DPB_RESTRICT", *flags])


# ---------------------------------------------------------------------------------------------- point 10

PBFDTD = r"""
#include <stdio.h>
#include <stdlib.h>
#include "pbstyle.h"
#define NX 45
#define NY 38
#define _PB_NX POLYBENCH_LOOP_BOUND(NX, nx)
#define _PB_NY POLYBENCH_LOOP_BOUND(NY, ny)
static void kernel_fdtd_2d(int tmax, int nx, int ny, DATA_TYPE POLYBENCH_2D(ex, NX, NY, nx, ny),
                           DATA_TYPE POLYBENCH_2D(ey, NX, NY, nx, ny), DATA_TYPE POLYBENCH_2D(hz, NX, NY, nx, ny))
{
    int t, i, j;
    for (t = 0; t < tmax; t++) {
        for (i = 1; i < _PB_NX - 1; i++)
            for (j = 1; j < _PB_NY - 1; j++)
                ey[i][j] = ey[i][j] - SCALAR_VAL(0.5) * (hz[i][j] - hz[i - 1][j]);
        for (i = 1; i < _PB_NX - 1; i++)
            for (j = 1; j < _PB_NY - 1; j++)
                ex[i][j] = ex[i][j] - SCALAR_VAL(0.5) * (hz[i][j] - hz[i][j - 1]);
        for (i = 1; i < _PB_NX - 1; i++)
            for (j = 1; j < _PB_NY - 1; j++)
                hz[i][j] = hz[i][j] - SCALAR_VAL(0.7) * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
    }
}
static DATA_TYPE ex[NX][NY], ey[NX][NY], hz[NX][NY];
int main(int argc, char **argv)
{
    (void)argc;
    int tmax = atoi(argv[1]);
    for (int i = 0; i < NX; i++)
        for (int j = 0; j < NY; j++) {
            ex[i][j] = ((DATA_TYPE)i * (j + 1)) / NX;
            ey[i][j] = ((DATA_TYPE)i * (j + 2)) / NY;
            hz[i][j] = ((DATA_TYPE)i * (j + 3)) / NX;
        }
    FILE *f = fopen(argv[2], "wb");
    if (!f || fwrite(ex, sizeof ex, 1, f) != 1 || fwrite(ey, sizeof ey, 1, f) != 1 || fwrite(hz, sizeof hz, 1, f) != 1)
        return 1;
    kernel_fdtd_2d(tmax, NX, NY, ex, ey, hz);
    if (fwrite(ex, sizeof ex, 1, f) != 1 || fwrite(ey, sizeof ey, 1, f) != 1 || fwrite(hz, sizeof hz, 1, f) != 1 ||
        fclose(f))
        return 1;
    return 0;
}
"""


def test_in_place_point_wise_updates_lift_with_the_c_bits(tmp_path):
    """FDTD's ey[i][j] = ey[i][j] - ... reads the element it writes, its old value (it was refused as a
    Gauss-Seidel sweep): the lifted .stn, run from the C program's initial arrays, and the rewritten
    program give the C program's bits."""
    text = _rewrite_and_compare(tmp_path, "pbfdtd", PBFDTD, "kernel_fdtd_2d", ["13"], ["-DPB_RESTRICT"])
    assert "ey' = ey - 0.5 * (hz - hz[0,-1]);" in text, text
    cmd, env = stencilc_command()
    _sh([*cmd, tmp_path / "pbfdtd.stn", "-o", tmp_path / "s"], env=env)
    raw = np.fromfile(tmp_path / "want.raw", dtype="<f8").reshape(6, 45, 38)
    inits, outs = [], []
    for k, f in enumerate(["ex", "ey", "hz"]):
        np.save(tmp_path / f"{f}0.npy", raw[k])
        inits += ["--init", f"{f}={tmp_path / f'{f}0.npy'}"]
        outs += ["--out", f"{f}={tmp_path / f'{f}1.npy'}"]
    _sh([tmp_path / "s", "--size", "38,45", "--steps", "13", *inits, *outs, "--quiet", "--dir", tmp_path,
         "--mode", "ooc", "--block", "7,5", "--mem", "64M"])
    for k, f in enumerate(["ex", "ey", "hz"]):
        assert np.load(tmp_path / f"{f}1.npy").tobytes() == raw[3 + k].tobytes(), f


PBJACOBI1D = r"""
#include <stdio.h>
#include <stdlib.h>
#include "pbstyle.h"
#define N 400
#define _PB_N POLYBENCH_LOOP_BOUND(N, n)
static void kernel_jacobi_1d(int tsteps, int n, DATA_TYPE POLYBENCH_1D(A, N, n), DATA_TYPE POLYBENCH_1D(B, N, n))
{
    int t, i;
    for (t = 0; t < tsteps; t++) {
        for (i = 1; i < _PB_N - 1; i++)
            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
        for (i = 1; i < _PB_N - 1; i++)
            A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
    }
}
int main(int argc, char **argv)
{
    (void)argc;
    static DATA_TYPE A[N], B[N];
    int n = atoi(argv[1]);
    for (int i = 0; i < N; i++) {
        A[i] = ((DATA_TYPE)i + 2) / n;
        B[i] = ((DATA_TYPE)i + 3) / n;
    }
    kernel_jacobi_1d(atoi(argv[2]), n, A, B);
    FILE *f = fopen(argv[3], "wb");
    if (!f || fwrite(A, sizeof A, 1, f) != 1 || fwrite(B, sizeof B, 1, f) != 1 || fclose(f))
        return 1;
    return 0;
}
"""


def test_a_1d_nest_lifts_and_rewrites_with_the_c_bits(tmp_path):
    """PolyBench's jacobi-1d shape (it was 'no stencil loop nest found'): a 1d grid, swept to n - 1 < N."""
    text = _rewrite_and_compare(tmp_path, "pbj1d", PBJACOBI1D, "kernel_jacobi_1d", ["350", "17"], ["-DPB_RESTRICT"])
    assert "grid 1d f64;" in text


# ----------------------------------------------------------------------------------------------- point 4

def _huge_sum(terms: int) -> str:
    at = ["[i][j]", "[i][j + 1]", "[i][j - 1]", "[i + 1][j]", "[i - 1][j]"]
    body = " + ".join(f"{k % 7 + 1}.0 * a{at[k % 5]}" for k in range(terms))
    return ("void s(int n, int T, double (*restrict a)[n], double (*restrict b)[n]) {\n"
            "  for (int t = 0; t < T; t++) {\n#pragma stencilc\n"
            "    for (int i = 1; i < n - 1; i++)\n      for (int j = 1; j < n - 1; j++)\n"
            f"        b[i][j] = {body};\n"
            "    double (*tmp)[n] = a; a = b; b = tmp;\n  }\n}\n")


def test_a_sum_too_deep_for_libclangs_stack_is_no_crash(tmp_path):
    """A sum of 15,000 terms: the import segfaulted inside libclang's parse (exit 139, no message; its
    parse thread has an 8 MiB stack).  Now the parse runs in a child process on a large stack: the import
    lifts it (or refuses it with a message); it never crashes."""
    lits = " + ".join(f"{k % 7 + 1}.0" for k in range(15000))
    src = tmp_path / "huge.c"
    src.write_text(_huge_sum(5).replace("b[i][j] = ", f"b[i][j] = a[i][j] * ({lits}) + "))
    cmd, env = stencilc_command()
    p = subprocess.run([*cmd, "import", str(src), "-o", str(tmp_path / "huge.stn")], capture_output=True,
                       text=True, env=env, timeout=600)
    assert p.returncode in (0, 1), (p.returncode, p.stderr[-2000:])
    if p.returncode == 1:
        assert "error:" in p.stderr and "internal error" not in p.stderr, p.stderr[-2000:]
    else:
        assert "a' = a * (1.0 + 2.0 + 3.0 + 4.0 + 5.0 + 6.0 + 7.0 + 1.0" in (tmp_path / "huge.stn").read_text()[:2000]


def test_a_crash_of_the_parse_is_a_located_error(tmp_path, monkeypatch):
    """Whatever kills the parsing process (here a SIGSEGV sent to it) is an error naming the file and the
    cause, never the importer's own death."""
    sys.path.insert(0, str(REPO_ROOT / "compiler"))
    from stencilc.importer import cfront

    src = tmp_path / "k.c"
    src.write_text(_huge_sum(3))
    monkeypatch.setattr(cfront, "CHILD", [sys.executable, "-c",
                                          "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"])
    with pytest.raises(cfront.FrontError) as e:
        cfront.parse(str(src), src.read_bytes(), [])
    msg = str(e.value)
    assert str(src) in msg and "SIGSEGV" in msg and f"exit {128 + signal.SIGSEGV}" in msg, msg


def test_a_parse_that_never_ends_is_stopped_with_the_reason(tmp_path):
    """`#pragma clang __debug overflow_stack` made libclang hang and the import with it (no timeout).
    Now the parse is stopped after STENCILC_IMPORT_TIMEOUT seconds (300 by default) with an error naming
    the file and the knob."""
    src = tmp_path / "hang.c"
    src.write_text("#pragma clang __debug overflow_stack\n" + _huge_sum(3))
    cmd, env = stencilc_command()
    env = dict(env, STENCILC_IMPORT_TIMEOUT="5")
    p = subprocess.run([*cmd, "import", str(src), "-o", str(tmp_path / "h.stn")], capture_output=True, text=True,
                       env=env, timeout=120)
    assert p.returncode == 1, (p.returncode, p.stderr[-2000:])
    assert f"libclang did not finish parsing '{src}' in 5 s" in p.stderr, p.stderr
    assert "STENCILC_IMPORT_TIMEOUT=SECONDS" in p.stderr and not (tmp_path / "h.stn").exists()
    bad = subprocess.run([*cmd, "import", str(src), "-o", str(tmp_path / "h.stn")], capture_output=True, text=True,
                         env=dict(env, STENCILC_IMPORT_TIMEOUT="soon"), timeout=60)
    assert bad.returncode == 1 and "STENCILC_IMPORT_TIMEOUT='soon': expected a positive number" in bad.stderr


# ---------------------------------------------------------------------------------------------- point 14

def test_bytes_that_are_not_utf8_are_kept(tmp_path):
    """A Latin-1 byte in a comment and in a string literal (it was refused: 'not UTF-8 text'): the file
    lifts, and the rewrite keeps those bytes as they were."""
    text = (b"/* temp\xe9rature: a heat sweep */\n#include <stdio.h>\n"
            b"static const char *label = \"caf\xe9\";\n" + _huge_sum(5).encode() +
            b"int main(void) { return label[0] == 'c' ? 0 : 1; }\n")
    src = tmp_path / "latin1.c"
    src.write_bytes(text)
    cmd, env = stencilc_command()
    _sh([*cmd, "import", src, "-o", tmp_path / "latin1.stn", "--rewrite", tmp_path / "rw.c"], env=env)
    assert "stencil latin1 {" in (tmp_path / "latin1.stn").read_text()
    rw = (tmp_path / "rw.c").read_bytes()
    assert b"/* temp\xe9rature: a heat sweep */" in rw and b"\"caf\xe9\"" in rw
    bad = tmp_path / "bad.c"  # a refusal quotes the line with the byte replaced, located
    bad.write_bytes(b"void f(int n, double (*a)[n]) { /* \xff */ for (int t = 0; t < n; t++) {\n#pragma stencilc\n"
                    b"for (int i = 1; i < n - 1; i++) for (int j = 1; j < n - 1; j++) a[i][j] = a[i][j+1]; } }\n")
    p = subprocess.run([*cmd, "import", str(bad)], capture_output=True, env=env)
    assert p.returncode == 1 and b"bad.c:3:" in p.stderr and b"Gauss-Seidel" in p.stderr, p.stderr
