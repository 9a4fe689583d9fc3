"""``stencilc import``: the C programs of examples/import/ (PolyBench's heat-3d with two nests a
step, a Jacobi sweep with a pointer swap, a wave with three rotating pointers, a heat equation
with a coefficient array, an upwind scheme with conditionals and the loop indices in its
arithmetic) are built with the C compiler and run; their time loops are lifted into .stn files,
compiled by stencilc and run from the C program's initial arrays, in-core and out of core in
several blocks: the results are the C program's, bit for bit (both keep the
operation order; -ffp-contract=off on both sides), and the bytes are the model's.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import REPO_ROOT, load_report, stencilc_command

pytest.importorskip("clang.cindex", reason="the libclang package (a dependency of stencilc) is not installed")

EX = REPO_ROOT / "examples" / "import"


def _sh(cmd, **kw) -> subprocess.CompletedProcess:
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=600, **kw)
    assert p.returncode == 0, f"{' '.join(map(str, cmd))}:\n{p.stdout}{p.stderr}"
    return p


def _raw(path: Path, shape) -> np.ndarray:
    return np.fromfile(path, dtype="<f8").reshape(shape)


# name: (C arguments before the files, the files the C program writes (field or input, or "out"), shape
# (C order), stencil size x first, steps)
CASES = {
    "heat3d": (["14", "9"], ["A", "out"], (14, 14, 14), "14,14,14", 9),
    "jacobi2d": (["33", "29", "11"], ["u", "out"], (29, 33), "33,29", 11),
    "wave2d": (["31", "17"], ["cur", "cur.prev", "out"], (31, 31), "31,31", 17),
    "varheat2d": (["40", "27", "9"], ["u", "k", "out"], (27, 40), "40,27", 9),
    "upwind2d": (["41", "26", "13"], ["q", "out"], (26, 41), "41,26", 13),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_lifted_stencil_gives_the_c_programs_bits(tmp_path, name):
    args, files, shape, size, steps = CASES[name]
    exe = tmp_path / f"{name}-c"
    _sh(["cc", "-O2", "-ffp-contract=off", "-std=gnu11", "-o", exe, EX / f"{name}.c", "-lm"])
    raws = [tmp_path / f"{f}.raw" for f in files]
    _sh([exe, *args, *raws])
    cmd, env = stencilc_command()
    stn = tmp_path / f"{name}.stn"
    _sh([*cmd, "import", EX / f"{name}.c", "-o", stn], env=env)
    _sh([*cmd, stn, "-o", tmp_path / name], env=env)
    inits = []
    for f, r in zip(files[:-1], raws):
        np.save(tmp_path / f"{f}.npy", _raw(r, shape))
        inits += ["--init", f"{f}={tmp_path / f'{f}.npy'}"]
    if name == "heat3d":  # PolyBench's B starts equal to A
        inits += ["--init", f"B={tmp_path / 'A.npy'}"]
    want = _raw(raws[-1], shape)
    field = files[0]
    blocks = "14,4,3" if len(shape) == 3 else "5,3"
    for mode in (["--mode", "incore"], ["--mode", "ooc", "--mem", "64M", "--block", blocks]):
        out, rep = tmp_path / "out.npy", tmp_path / "r.json"
        _sh([tmp_path / name, "--size", size, "--steps", str(steps), *inits, "--out", f"{field}={out}", "--quiet",
             "--dir", tmp_path, "--report", rep, *mode])
        got = np.load(out)
        assert got.tobytes() == want.tobytes(), f"{name} {mode[1]}: max |diff| {np.abs(got - want).max()}"
        r = load_report(rep)
        assert (r["bytes_read"], r["bytes_written"]) == (r["predicted_bytes_read"], r["predicted_bytes_written"])


def test_import_writes_stdout_and_names_the_stencil_after_the_output(tmp_path):
    cmd, env = stencilc_command()
    p = _sh([*cmd, "import", EX / "jacobi2d.c"], env=env)
    assert "stencil jacobi2d {" in p.stdout and "param w = 0.2;" in p.stdout
    _sh([*cmd, "import", EX / "jacobi2d.c", "-o", tmp_path / "my-sweep.stn"], env=env)
    assert "stencil my_sweep {" in (tmp_path / "my-sweep.stn").read_text()


def test_clang_flags_after_the_separator_reach_clang(tmp_path):
    """-D after '--' defines what the file needs; without it clang's own error is reported, located."""
    src = tmp_path / "d.c"
    src.write_text("void s(int n, int T, double (*restrict a)[n], double (*restrict b)[n]) {\n"
                   "  for (int t = 0; t < T; t++) {\n#pragma stencilc\n"
                   "    for (int i = 1; i < n - 1; i++) for (int j = 1; j < n - 1; j++)\n"
                   "      b[i][j] = COEF * (a[i-1][j] + a[i+1][j] + a[i][j-1] + a[i][j+1]);\n"
                   "    double (*tmp)[n] = a; a = b; b = tmp;\n  }\n}\n")
    cmd, env = stencilc_command()
    p = subprocess.run([*cmd, "import", str(src)], capture_output=True, text=True, env=env)
    assert p.returncode == 1 and "d.c:5:17: error: clang cannot compile this file: use of undeclared identifier " \
                                 "'COEF'" in p.stderr, p.stderr
    p = _sh([*cmd, "import", src, "--", "-DCOEF=0.25"], env=env)
    assert "0.25 * (a[0,-1] + a[0,1] + a[-1,0] + a[1,0])" in p.stdout, p.stdout


# name: (the C program's arguments at a size where --mem 24M cuts several blocks, the file it writes last)
BIG = {
    "heat3d": ["160", "6"],
    "jacobi2d": ["1500", "1400", "7"],
    "wave2d": ["1500", "9"],
    "varheat2d": ["1500", "1400", "9"],
    "upwind2d": ["1500", "1400", "7"],
}


@pytest.mark.parametrize("name", sorted(BIG))
def test_rewritten_source_runs_the_engine_with_the_c_programs_bits(tmp_path, name):
    """--rewrite: the C file with its time loop replaced by the stencil's C API, built against --emit=lib
    through pkg-config (-Wall -Wextra -Werror), run out of core under a --mem that cuts several blocks: the
    same output file as the original program, byte for byte; the report's bytes are the model's."""
    import shutil

    if not shutil.which("pkg-config"):
        pytest.skip("pkg-config is missing (tools/setup.sh installs it)")
    cmd, env = stencilc_command()
    stn, new_c = tmp_path / f"{name}.stn", tmp_path / f"{name}_rw.c"
    _sh([*cmd, "import", EX / f"{name}.c", "-o", stn, "--rewrite", new_c], env=env)
    text = new_c.read_text()
    original = (EX / f"{name}.c").read_text()
    assert f'#include "{name}_api.h"' in text and f"{name}_advance(stn_sim_, stn_cfg_.steps)" in text
    assert "#pragma stencilc" not in text.split("*/", 1)[1]  # the loop is gone ...
    assert original.split("#pragma stencilc")[0].split("for (int t")[0] in text  # ... the rest is kept
    lib = tmp_path / "lib"
    _sh([*cmd, stn, "--emit=lib", "-o", lib], env=env)
    pc = _sh(["pkg-config", "--cflags", "--libs", name], env={"PKG_CONFIG_PATH": str(lib / "lib" / "pkgconfig")})
    _sh(["cc", "-O2", "-ffp-contract=off", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-o", tmp_path / "rw", new_c,
         *pc.stdout.split(), f"-Wl,-rpath,{lib / 'lib'}", "-lm"])
    _sh(["cc", "-O2", "-ffp-contract=off", "-std=gnu11", "-o", tmp_path / "orig", EX / f"{name}.c", "-lm"])
    nfiles = len(CASES[name][1])
    want = [tmp_path / f"want{i}.raw" for i in range(nfiles)]
    got = [tmp_path / f"got{i}.raw" for i in range(nfiles)]
    _sh([tmp_path / "orig", *BIG[name], *want])
    rep = tmp_path / "r.json"
    import os

    run_env = dict(os.environ, STENCILC_MODE="ooc", STENCILC_MEM="24M", STENCILC_DIR=str(tmp_path),
                   STENCILC_REPORT=str(rep))
    _sh([tmp_path / "rw", *BIG[name], *got], env=run_env)
    assert got[-1].read_bytes() == want[-1].read_bytes()
    r = load_report(rep)
    assert r["mode"] == "ooc" and (r["bytes_read"], r["bytes_written"]) == (r["predicted_bytes_read"],
                                                                             r["predicted_bytes_written"])
    blocks = r["params"]
    assert (blocks["bz"] or 0) < 160 if name == "heat3d" else blocks["by"] < 1400, blocks  # several blocks


F32 = r"""
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
static const float k = 0.2f;
static void smooth(int nx, int ny, int steps, float (*restrict a)[nx], float (*restrict b)[nx]) {
    for (int t = 0; t < steps; t++) {
        for (int y = 1; y < ny - 1; y++)
            for (int x = 1; x < nx - 1; x++)
                b[y][x] = k * (a[y][x] + a[y - 1][x] + a[y + 1][x] + a[y][x - 1] + a[y][x + 1]) + 0.01f * sqrtf(a[y][x]);
        float (*tmp)[nx] = a;
        a = b;
        b = tmp;
    }
    if (steps % 2)
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++)
                b[y][x] = a[y][x];
}
int main(int argc, char **argv) {
    int nx = 37, ny = 23, steps = 9;
    float (*a)[nx] = malloc(sizeof(float[ny][nx])), (*b)[nx] = malloc(sizeof(float[ny][nx]));
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++)
            a[y][x] = b[y][x] = (float)((x * 5 + y * 3) % 11);
    FILE *f = fopen(argv[1], "wb");
    fwrite(a, sizeof(float), (size_t)nx * ny, f);
    fclose(f);
    smooth(nx, ny, steps, a, b);
    f = fopen(argv[2], "wb");
    fwrite(a, sizeof(float), (size_t)nx * ny, f);
    fclose(f);
    return 0;
}
"""


def test_a_float_nest_by_function_gives_the_c_bits(tmp_path):
    """float arrays and a const float (--function, no pragma): an f32 stencil, the C program's bits (sqrtf
    is sqrt in f32)."""
    src = tmp_path / "smooth32.c"
    src.write_text(F32)
    _sh(["cc", "-O2", "-ffp-contract=off", "-std=gnu11", "-o", tmp_path / "c", src, "-lm"])
    _sh([tmp_path / "c", tmp_path / "a0.raw", tmp_path / "a1.raw"])
    cmd, env = stencilc_command()
    _sh([*cmd, "import", src, "--function", "smooth", "-o", tmp_path / "smooth32.stn"], env=env)
    assert "grid 2d f32;" in (tmp_path / "smooth32.stn").read_text()
    _sh([*cmd, tmp_path / "smooth32.stn", "-o", tmp_path / "s"], env=env)
    np.save(tmp_path / "a0.npy", np.fromfile(tmp_path / "a0.raw", dtype="<f4").reshape(23, 37))
    _sh([tmp_path / "s", "--size", "37,23", "--steps", "9", "--init", f"a={tmp_path / 'a0.npy'}", "--out",
         f"a={tmp_path / 'o.npy'}", "--quiet", "--dir", tmp_path, "--mode", "ooc", "--block", "4,2", "--mem", "64M"])
    assert np.load(tmp_path / "o.npy").tobytes() == (tmp_path / "a1.raw").read_bytes()


FLAT3D = r"""
#include <stdio.h>
#include <stdlib.h>
#define IDX(i, j, k) (((i) * ny + (j)) * nx + (k))
static void heat(int nx, int ny, int nz, int steps, double *restrict u, double *restrict v) {
    for (int t = 0; t < steps; t++) {
#pragma stencilc
        for (int i = 1; i < nz - 1; i++)
            for (int j = 1; j < ny - 1; j++)
                for (int k = 1; k < nx - 1; k++)
                    v[IDX(i, j, k)] = u[IDX(i, j, k)] + 0.1 * (u[IDX(i + 1, j, k)] + u[IDX(i - 1, j, k)] +
                                      u[IDX(i, j + 1, k)] + u[IDX(i, j - 1, k)] + u[(i * ny + j) * nx + k + 1] +
                                      u[i * ny * nx + j * nx + k - 1] - 6.0 * u[IDX(i, j, k)]);
        double *tmp = u;
        u = v;
        v = tmp;
    }
    if (steps % 2)
        for (long c = 0; c < (long)nx * ny * nz; c++)
            v[c] = u[c];
}
int main(int argc, char **argv) {
    if (argc != 7)
        return 2;
    int nx = atoi(argv[1]), ny = atoi(argv[2]), nz = atoi(argv[3]), steps = atoi(argv[4]);
    size_t n = (size_t)nx * ny * nz;
    double *u = malloc(n * sizeof *u), *v = malloc(n * sizeof *v);
    for (size_t c = 0; c < n; c++)
        u[c] = v[c] = (double)(c % 97) / 97.0;
    FILE *f = fopen(argv[5], "wb");
    fwrite(u, sizeof *u, n, f);
    fclose(f);
    heat(nx, ny, nz, steps, u, v);
    f = fopen(argv[6], "wb");
    fwrite(u, sizeof *u, n, f);
    fclose(f);
    return 0;
}
"""


def test_flat_subscripts_and_their_rewrite(tmp_path):
    """A 3d heat loop on flat arrays (u[(i*ny + j)*nx + k], through a macro and spelled out): the offsets
    come out of the strides; the lifted stencil and the rewritten program give the C program's bits, the
    rewrite out of core in several blocks."""
    import os
    import shutil

    src = tmp_path / "flatheat.c"
    src.write_text(FLAT3D)
    _sh(["cc", "-O2", "-ffp-contract=off", "-std=gnu11", "-o", tmp_path / "c", src])
    args = ["64", "48", "40", "5"]
    _sh([tmp_path / "c", *args, tmp_path / "u0.raw", tmp_path / "u1.raw"])
    cmd, env = stencilc_command()
    stn = tmp_path / "flatheat.stn"
    _sh([*cmd, "import", src, "-o", stn, "--rewrite", tmp_path / "rw.c"], env=env)
    assert "u' = u + 0.1 * (u[0,0,1] + u[0,0,-1] + u[0,1,0] + u[0,-1,0] + u[1,0,0] + u[-1,0,0] - 6.0 * u);" \
        in stn.read_text(), stn.read_text()
    _sh([*cmd, stn, "-o", tmp_path / "s"], env=env)
    np.save(tmp_path / "u0.npy", np.fromfile(tmp_path / "u0.raw").reshape(40, 48, 64))
    _sh([tmp_path / "s", "--size", "64,48,40", "--steps", "5", "--init", f"u={tmp_path / 'u0.npy'}", "--out",
         f"u={tmp_path / 'o.npy'}", "--quiet", "--dir", tmp_path, "--mode", "ooc", "--block", "48,4,2", "--mem", "64M"])
    assert np.load(tmp_path / "o.npy").tobytes() == (tmp_path / "u1.raw").read_bytes()
    if not shutil.which("pkg-config"):
        return
    lib = tmp_path / "lib"
    _sh([*cmd, stn, "--emit=lib", "-o", lib], env=env)
    pc = _sh(["pkg-config", "--cflags", "--libs", "flatheat"], env={"PKG_CONFIG_PATH": str(lib / "lib" / "pkgconfig")})
    _sh(["cc", "-O2", "-ffp-contract=off", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-o", tmp_path / "rw",
         tmp_path / "rw.c", *pc.stdout.split(), f"-Wl,-rpath,{lib / 'lib'}"])
    _sh([tmp_path / "rw", *args, tmp_path / "r0.raw", tmp_path / "r1.raw"],
        env=dict(os.environ, STENCILC_MODE="ooc", STENCILC_MEM="16M", STENCILC_DIR=str(tmp_path)))
    assert (tmp_path / "r1.raw").read_bytes() == (tmp_path / "u1.raw").read_bytes()
