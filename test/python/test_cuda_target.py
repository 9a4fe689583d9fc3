"""The CUDA target (``--target cuda``, docs/design/024-gpu-tier.md) on a machine without a GPU.

Pins: every example is rendered as CUDA (sub-steps reading a periodic field's new value included: the kernel
check runs such stencils of test/lit/cuda on boxes cutting the grid); a rendered one prints each let and update with the
same text as the C target (one printer; with sub-steps, those of every stage), and no ``fma``; the .stn names never meet the CUDA template's own identifiers; and,
where nvcc is found (tools/setup.sh installs PyPI's), every rendered example compiles with
``nvcc --fmad=false`` into ``libNAME_cuda.a`` (skipped with the reason where it is not).
"""

from __future__ import annotations

import os
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import EXAMPLES_DIR
from stencilc import driver
from stencilc.codegen import build_layout, generate
from stencilc.codegen.cuda import render_cuda
from stencilc.diagnostics import CompileError
from stencilc.toolchain import ToolchainError, build_cuda, find_nvcc

EXAMPLES = sorted(p.stem for p in EXAMPLES_DIR.glob("*.stn"))
# the examples the CUDA kernels do not carry yet, and the construct each is refused at
REFUSED: dict[str, str] = {}  # (none since inject and record are carried)


def _cuda(name: str) -> dict[str, str]:
    return render_cuda(build_layout(driver.front(str(EXAMPLES_DIR / f"{name}.stn"), target="cuda")))


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_example_renders_or_is_refused_at_the_construct(name):
    if name in REFUSED:
        with pytest.raises(CompileError) as e:
            _cuda(name)
        text = e.value.render()
        assert re.match(rf".*{name}\.stn:\d+:\d+: error: the CUDA target does not support {REFUSED[name]}", text)
        return
    files = _cuda(name)
    assert set(files) == {f"{name}.h", f"{name}_cuda.h", f"{name}_cuda.cu", f"{name}_cuda_api.cu"}
    cu = files[f"{name}_cuda.cu"]
    c = generate(driver.front(str(EXAMPLES_DIR / f"{name}.stn")))[f"{name}.c"]
    assert files[f"{name}.h"] == generate(driver.front(str(EXAMPLES_DIR / f"{name}.stn")))[f"{name}.h"]
    # the same printer: each let and update of the C kernel is in the CUDA kernel, character for character
    step_c = c[c.index(f"int {name}_step_box("):]
    end = "free(scratch_);" if "free(scratch_);" in step_c else "return 0;"  # (sub-steps: substeps.c.j2)
    step_c = step_c[step_c.index("#pragma omp simd"):step_c.index(end)]
    # the bodies of the point loops (with sub-steps, one a stage; not the scratch's boundary copies)
    bodies = [b.split("\n}")[0] for b in re.sub(r"\n\s*}", "\n}", step_c).split("#pragma omp simd")]
    lines = [ln.strip() for b in bodies for ln in b.splitlines() if re.match(r"\s*(const \w+ \w+ = |\w+\[x\] = )", ln)]
    assert lines, "no update found in the C kernel"
    for ln in lines:
        assert ln in cu, f"{name}: the CUDA kernel lacks the C kernel's line {ln!r}"
    assert not re.search(r"\b(fma|fmaf|__fma_\w+)\s*\(", cu), "a contracted multiply-add in the CUDA kernels"
    assert f"from {EXAMPLES_DIR / name}.stn" in cu or f"{name}.stn" in cu.splitlines()[2]


LIT_CUDA = Path(__file__).resolve().parents[2] / "test" / "lit" / "cuda"
PERIODIC_SUBSTEPS = ["cuda_substeps_periodic", "cuda_substeps_periodic3d", "cuda_substeps_wrap_x"]


@pytest.mark.parametrize("name", PERIODIC_SUBSTEPS)
def test_sub_steps_reading_a_periodic_fields_new_value_give_the_c_kernels_bits(tmp_path, name):
    """Sub-steps reading a periodic field's new value (2d periodic along x and y; 3d along x and y; 2d along x with
    an inject, a record and a face of its own): the CUDA kernels on the interior cut into 2 x 3 boxes (a box's
    cells around it running past the interior: the field's new values on the whole interior along that axis,
    then its boundary cells wrapped from them) give the C kernels' bits, emulated; without the wrap they do not
    (checked by hand)."""
    _emulated_check(tmp_path, name, str(LIT_CUDA / f"{name}.stn"))


def test_dsl_names_never_meet_the_cuda_templates_identifiers(tmp_path):
    """The name scan reads kernel.cu.j2 too: a param named as a CUDA built-in is renamed."""
    stn = tmp_path / "names.stn"
    stn.write_text("stencil names {\n  grid 3d f64;\n  param threadIdx = 0.5;\n  param launch_shape_ = 0.25;\n"
                   "  param zb_ = 0.125;\n"
                   "  state u;\n  u' = threadIdx * u + launch_shape_ * u[1,0,0] + zb_ * u[0,0,1];\n  boundary dirichlet;\n}\n")
    layout = build_layout(driver.front(str(stn), target="cuda"))
    cnames = {p.cname for p in layout.params}
    assert "threadIdx" not in cnames and "launch_shape_" not in cnames and "zb_" not in cnames, cnames
    assert "threadIdx_" in render_cuda(layout)["names_cuda.cu"] or "vthreadIdx" in render_cuda(layout)["names_cuda.cu"]


def test_without_nvcc_a_cuda_build_says_where_it_looked(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDACXX", str(tmp_path / "no-such-nvcc"))
    assert find_nvcc() is None
    with pytest.raises(ToolchainError, match=r"needs nvcc to build.*\$CUDACXX"):
        build_cuda("heat3d", _cuda("heat3d"), tmp_path / "lib")


NVCC = find_nvcc()


@pytest.mark.skipif(NVCC is None, reason="no nvcc ($CUDACXX, PATH, /usr/local/cuda, or PyPI's nvidia-cuda-nvcc "
                    "in this Python: tools/setup.sh installs it where it can)")
def test_every_rendered_example_compiles_with_nvcc(tmp_path):
    names = [n for n in EXAMPLES if n not in REFUSED]

    def one(name: str) -> Path:
        return build_cuda(name, _cuda(name), tmp_path / name)

    with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
        libs = list(pool.map(one, names))
    for lib in libs:
        assert lib.is_file() and lib.stat().st_size > 0


FORCE = """
stencil force2d {
  grid 2d f64;
  param c = 0.4;
  state vx;
  state p;
  input rho;
  series w;
  points src real;
  points rcv;
  vx' = vx - c / rho * (p[1,0] - p);
  p' = p - c * (vx' - vx'[-1,0]);
  inject vx at src += 0.5 * w[t] / rho;
  inject p at rcv += 0.1 * w[t];
  record r = p' at rcv;
  boundary vx neumann;
}
"""


def test_injects_and_records_render_and_a_sub_steps_inject_goes_in_the_step(tmp_path):
    """A stencil injecting into a field a later sub-step reads primed (at off-grid points) and into another:
    NAME_cuda_step_box_pts adds the first right after its stage on one thread; NAME_cuda_inject_box adds the
    other on one thread and skips the first; the record runs a thread a point; nvcc compiles it (where found), and
    the emulated kernel check gives the C kernels' bits and samples."""
    (tmp_path / "force2d.stn").write_text(FORCE)
    files = render_cuda(build_layout(driver.front(str(tmp_path / "force2d.stn"), target="cuda")))
    cu, h = files["force2d_cuda.cu"], files["force2d_cuda.h"]
    assert "int force2d_cuda_step_box_pts(" in h and "int force2d_cuda_inject_box(" in h
    assert "int force2d_cuda_record_box(" in h
    assert cu.count("force2d_inject_kernel_<<<1, 1, 0, ") == 2  # (the step's, and NAME_cuda_inject_box's)
    assert "vx_next[at] += (w ? (double)w[i] : (double)1) * (0.5 * w_t0 / rho[at]);" in cu
    assert "p__next[at] += 0.1 * w_t0;" in cu  # (p: renamed, the kernels name their params p)
    assert "force2d_cuda_step_pts_" in files["force2d_cuda_api.cu"]
    if NVCC is not None:
        lib = build_cuda("force2d", files, tmp_path / "lib")
        assert lib.is_file() and lib.stat().st_size > 0
    check = tmp_path / "check"
    check.mkdir()
    _emulated_check(check, "force2d", str(tmp_path / "force2d.stn"))  # (the kernel check: the other inject, the record)


@pytest.mark.skipif(NVCC is None, reason="no nvcc (see above)")
@pytest.mark.parametrize("name", ["heat3d", "d2q9", "sponge2d", "upwind_limiter", "wave3d", "heat3d_f32"])
def test_the_kernel_check_builds(tmp_path, name):
    """tools/gpu_kernel_check.py: the CUDA-against-C check of tools/gpu-check.sh compiles and links here (two
    levels, periodic, inputs along an axis, coordinates, f32); it runs only on a GPU."""
    import subprocess
    import sys

    tool = Path(__file__).resolve().parents[2] / "tools" / "gpu_kernel_check.py"
    r = subprocess.run([sys.executable, str(tool), str(EXAMPLES_DIR / f"{name}.stn"), str(tmp_path)],
                       capture_output=True, text=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert r.returncode == 0, r.stderr
    assert Path(r.stdout.strip()) == tmp_path / f"{name}_cuda_check" and (tmp_path / f"{name}_cuda_check").is_file()


def test_the_kernel_check_refuses_what_the_front_end_refuses(tmp_path):
    import subprocess
    import sys

    tool = Path(__file__).resolve().parents[2] / "tools" / "gpu_kernel_check.py"
    refused = tmp_path / "refused.stn"  # (an inject into a field periodic along y that a sub-step reads primed)
    refused.write_text("stencil refused {\n  grid 2d f64;\n  points src;\n  state a;\n  state b;\n"
                       "  b' = 0.5 * (b[-1,0] + b[1,0]);\n  a' = a + 0.1 * (b'[0,1] - b');\n  inject b at src += 0.1;\n"
                       "  boundary dirichlet;\n  boundary b periodic x y;\n}\n")
    r = subprocess.run([sys.executable, str(tool), str(refused), str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 1 and "refused.stn:8:10: error: 'b' is injected into and periodic along y" in r.stderr


def test_the_device_check_fails_clearly_without_nvcc(tmp_path):
    """tools/gpu-check.sh: a missing tool is a FAIL line and exit 1, never a pass."""
    import subprocess

    script = Path(__file__).resolve().parents[2] / "tools" / "gpu-check.sh"
    env = {**os.environ, "CUDACXX": str(tmp_path / "no-nvcc"), "GPU_CHECK_DIR": str(tmp_path / "out")}
    r = subprocess.run(["bash", str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stdout.splitlines()[0].startswith("FAIL  nvcc  (none found")
    assert r.stdout.splitlines()[-1].startswith("gpu-check: 0 passed, 1 failed, 0 skipped (")  # (and its seconds)


EMU = Path(__file__).resolve().parent / "cuda_emu"
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))


@pytest.mark.parametrize("name", [n for n in EXAMPLES if n not in REFUSED])
def test_the_cuda_kernels_give_the_c_kernels_bits_on_the_host(tmp_path, name):
    """The CUDA kernels, compiled as C++ by the host compiler against cuda_emu/cuda_runtime.h (every thread of
    every block run in turn), against the C kernels by the kernel check of tools/gpu-check.sh: the indexing, the
    boundary phases, the levels' rotation and the init, bit for bit, on a grid of several blocks per axis."""
    _emulated_check(tmp_path, name, str(EXAMPLES_DIR / f"{name}.stn"))


EVERY_FUNCTION = """
stencil allfn {
  grid 3d f64;
  param n = 3;
  state u;
  let s = x < nx / 2 && !(y >= ny - 2) || z == 0 ? 0.1 : -0.1;
  u' = u + 0.01 * (sqrt(abs(u)) + cbrt(u) + exp(u) + exp2(u) + expm1(u) + log(1 + abs(u)) + log2(2 + u)
       + log10(3 + u) + log1p(abs(u)) + sin(u) + cos(u) + tan(u) + asin(0.5 * u) + acos(0.5 * u) + atan(u)
       + sinh(u) + cosh(u) + tanh(u) + asinh(u) + acosh(2 + abs(u)) + atanh(0.5 * u) + fabs(u) + floor(3 * u)
       + ceil(3 * u) + trunc(3 * u) + min(u, s) + max(u, s) + fmin(u, s) + fmax(u, s) + pow(abs(u), 0.3)
       + fmod(u, 0.3) + atan2(u, s) + hypot(u, s) + copysign(s, u) + u^n + s[1,0,-1] * z / nz)
       + (u[1,0,0] > u[-1,0,0] ? 0.01 * (u[1,0,0] - u) : 0.02 * (u - u[-1,0,0]));
  init u = sin(0.3 * x) * cos(0.2 * y) + (z > 2 ? 0.1 * z / nz : -0.2);
}
"""


def test_the_cuda_kernels_give_the_c_kernels_bits_with_every_function(tmp_path):
    """Every function of the language (ir.FUNCTIONS), conditionals and the coordinates in a let read at an
    offset, in CUDA (emulated) as in C, bit for bit: the CUDA target prints the C printer's calls; nvcc, where
    it is found, compiles them."""
    from stencilc.ir import FUNCTIONS

    assert all(re.search(rf"\b{f}\(", EVERY_FUNCTION) for f in FUNCTIONS), "a function is left out"
    (tmp_path / "allfn.stn").write_text(EVERY_FUNCTION)
    _emulated_check(tmp_path, "allfn", str(tmp_path / "allfn.stn"))
    if NVCC is not None:  # (and nvcc knows every function the kernels call on the device)
        files = render_cuda(build_layout(driver.front(str(tmp_path / "allfn.stn"), target="cuda")))
        assert build_cuda("allfn", files, tmp_path / "nvcc").stat().st_size > 0


SHELLS = {"shells3": """
stencil shells3 {
  grid 3d f64;
  state a;
  state b;
  state c levels 2;
  state d;
  boundary a neumann;
  boundary a periodic y;
  boundary b dirichlet;
  boundary b periodic x;
  boundary c neumann;
  boundary c dirichlet z+ x-;
  boundary d periodic y;
  boundary d neumann x z-;
  a' = a + 0.1 * (a[-2,0,0] + a[1,0,0] + a[0,-1,0] + a[0,2,0] + a[0,0,-1] + a[0,0,2] - 6*a) + 0.01 * d;
  b' = b + 0.1 * (b[-1,0,0] + b[2,0,0] + b[0,-1,0] + b[0,1,0] + b[0,0,-2] + b[0,0,1] - 6*b) + 0.02 * a;
  c' = 2*c - c.prev + 0.05 * (c[-1,0,0] + c[1,0,0] + c[0,-2,0] + c[0,1,0] + c[0,0,-1] + c[0,0,2] - 6*c) + 0.01 * b;
  d' = d + 0.1 * (d[-1,0,0] + d[2,0,0] + d[0,-1,0] + d[0,1,0] + d[0,0,-2] + d[0,0,1] - 6*d) + 0.03 * c;
  init a = sin(0.3 * x) + cos(0.2 * y) * z;
  init b = cos(0.1 * x * y) + 0.2 * z;
  init c = 0.1 * x - 0.05 * y + cos(0.3 * z);
  init d = sin(0.7 * x + 0.3 * y - 0.2 * z);
}
""", "shells3z": """
stencil shells3z {
  grid 3d f64;
  state a;
  state b;
  boundary a neumann;
  boundary a periodic z x;
  boundary b periodic z;
  boundary b neumann x- y;
  a' = a + 0.1 * (a[-2,0,0] + a[1,0,0] + a[0,-1,0] + a[0,2,0] + a[0,0,-1] + a[0,0,2] - 6*a);
  b' = b + 0.1 * (b[-1,0,0] + b[2,0,0] + b[0,-1,0] + b[0,1,0] + b[0,0,-2] + b[0,0,1] - 6*b) + 0.02 * a;
  init a = sin(0.3 * x) + cos(0.2 * y) * z;
  init b = cos(0.1 * x * y) + 0.2 * z;
}
"""}


@pytest.mark.parametrize("name", sorted(SHELLS))
def test_the_one_launch_boundary_gives_the_c_phases_bits(tmp_path, name):
    """The boundary kernel (one launch over the shell, each cell the composition of the C phases) on the
    combinations no example has: neumann or dirichlet with periodic axes, per-face boundaries with and without
    a periodic axis, halos of two cells on one side, two levels; the kernel check's whole grid and (shells3) the
    gpu-ooc schedule's slabs, bit for bit against the C kernels."""
    (tmp_path / f"{name}.stn").write_text(SHELLS[name])
    _emulated_check(tmp_path, name, str(tmp_path / f"{name}.stn"))


def _emulated_check(tmp_path: Path, name: str, stn: str) -> None:
    """The CUDA kernels of the stencil ``name`` in ``stn`` against its C kernels, emulated on the host."""
    import shutil
    import subprocess

    cc, cxx = shutil.which("gcc") or shutil.which("cc"), shutil.which("g++") or shutil.which("c++")
    if not cc or not cxx:
        pytest.skip("no C or C++ compiler")
    layout = build_layout(driver.front(stn, target="cuda"))
    from stencilc.codegen.cuda import render_check

    files = {**render_cuda(layout), **render_check(layout), f"{name}.c": generate(driver.front(stn))[f"{name}.c"]}
    for fname, text in files.items():
        if fname.endswith(".cu"):
            text, n = re.subn(r"(\w+)<<<([^,]+), ([^,]+), 0, ([^>]+)>>>\(", r"EMU_LAUNCH_S_(\4, \2, \3, \1, ", text)
            assert n > 0 or fname.endswith(("_check.cu", "_api.cu"))
        (tmp_path / fname).write_text(text)
    import gpu_kernel_check  # tools/: the runtime's files the check links

    rt = [str(p) for p in gpu_kernel_check.runtime_sources()]
    inc = gpu_kernel_check.runtime_includes()
    steps = [[cc, "-O1", "-ffp-contract=off", "-std=gnu11", "-c", f"{name}.c", "-o", "c.o"],
             *[[cc, "-O1", "-std=gnu11", *inc, "-c", src, "-o", f"rt{i}.o"] for i, src in enumerate(rt)],
             [cxx, "-O1", "-ffp-contract=off", "-std=c++14", "-w", f"-I{EMU}", *inc, "-x", "c++", f"{name}_cuda.cu",
              f"{name}_cuda_check.cu", "-x", "none", "c.o", *[f"rt{i}.o" for i in range(len(rt))], "-o", "emu",
              "-lm"]]
    for cmd in steps:
        r = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    size = ["37", "19", "11"] if layout.ndim == 3 else ["70", "21", "1"]
    r = subprocess.run([str(tmp_path / "emu"), *size, "5"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "the CUDA kernels give the C kernels' bits" in r.stdout
    # the gpu-ooc schedule (the runtime's planner and gpu_sched.c) with these kernels, on a grid of several blocks
    size = ["13", "11", "256"] if layout.ndim == 3 else ["29", "256", "1"]
    r = subprocess.run([str(tmp_path / "emu"), *size, "9", "ooc", "8"], capture_output=True, text=True, timeout=300)
    if layout.step_values:
        assert r.returncode == 3 and "does not carry" in r.stdout
        return
    if layout.stages and any(layout.ndim - 1 in f.periodic for f in layout.fields if f.kind == "state"):
        assert r.returncode == 3 and "not carried yet" in r.stdout and "sub-steps" in r.stdout  # (wrapped windows)
        return
    assert r.returncode == 0, r.stdout + r.stderr
    assert "the C kernels' in-core bits" in r.stdout and "blocks" in r.stdout and " 1 blocks" not in r.stdout
    if layout.ndim == 3 and not any(a in f.periodic for f in layout.fields if f.kind == "state" for a in (1, 2)):
        # blocks cut along y as well (tiles, cudaMemcpy2DAsync), where planes are large against the budget (not
        # periodic along y or z: those are of whole planes, the kernel check's tiles mode a SKIP)
        r = subprocess.run([str(tmp_path / "emu"), "9", "64", "48", "9", "ooc", "12", "tiles"], capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "the C kernels' in-core bits" in r.stdout and " 1 tiles" not in r.stdout, r.stdout
