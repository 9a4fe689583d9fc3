"""Building programs: generated C + the stencilc runtime -> an executable.

Expects: the files from ``codegen.generate``.  Guarantees: the executable appears under
its final name only once it is completely linked (built under a temporary name, then
renamed).  The runtime (every ``.c`` under ``runtime/src``, in folders by layer) is compiled once per
compiler, flags and source version into a static library cached under ``$STENCILC_CACHE_DIR`` (default
``$XDG_CACHE_HOME/stencilc`` or ``~/.cache/stencilc``); the cache entry is also created
atomically, so concurrent builds are safe.  The runtime's own programs (``runtime/tools/NAME_main.c``,
e.g. the device probe) are linked against that library and cached the same way (``runtime_tool``).

A missing C compiler is the user's environment (``ToolchainError``, exit 1); a
generated file that fails to compile is a bug in stencilc (``InternalError``).
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path

from . import __version__, ir
from .codegen import BASE_LIBS, DEFAULT_CFLAGS
from .codegen.hdf5 import hdf5_flags
from .diagnostics import Error, InternalError
from .resources import runtime_dir


class ToolchainError(Error):
    """The machine lacks something needed to build (no C compiler, unwritable output)."""


def _cc(cc: str | None) -> list[str]:
    cmd = shlex.split(cc or os.environ.get("CC") or "cc")
    if not cmd or shutil.which(cmd[0]) is None:
        raise ToolchainError(f"C compiler '{cmd[0] if cmd else cc}' not found; install gcc (apt-get install gcc) "
                             "or pass --cc")
    return cmd


def _mpi(flags: list[str]) -> bool:
    """Whether these flags build the runtime's MPI build (the driver's --mpi adds -DSTN_MPI)."""
    return "-DSTN_MPI" in flags


def _cflags(extra: str | None) -> list[str]:
    """The default flags, libhdf5's include directory when found (codegen/hdf5.py: the runtime's io/hdf5.c
    compiles with HDF5 when it sees hdf5.h; an MPI build, the OpenMPI build's when there), then the user's
    (--cflags, else $STENCILC_CFLAGS)."""
    extra = shlex.split(extra if extra is not None else os.environ.get("STENCILC_CFLAGS", ""))
    return shlex.split(DEFAULT_CFLAGS) + list(hdf5_flags(_mpi(extra))[0]) + extra


def _libs(flags: list[str]) -> list[str]:
    """What every program links beside the runtime: libaio, hwloc, libpmem, libm and the libhdf5 that
    _cflags compiled the runtime against."""
    return [*BASE_LIBS, *hdf5_flags(_mpi(flags))[1]]


def _run(cmd: list[str], what: str, cwd: Path | None = None) -> None:
    try:
        r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    except OSError as e:
        raise ToolchainError(f"cannot run {cmd[0]}: {e}") from e
    if r.returncode != 0:
        raise InternalError(f"{what} failed to compile:\n$ {shlex.join(cmd)}\n{r.stdout}{r.stderr}")


def cache_dir() -> Path:
    env = os.environ.get("STENCILC_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return Path(xdg) / "stencilc" if xdg else Path.home() / ".cache" / "stencilc"


def runtime_sources() -> list[Path]:
    """Every C source of the runtime: the ``.c`` files in ``runtime/src``'s folders (their names are
    unique: each becomes ``NAME.o`` in one library)."""
    return sorted((runtime_dir() / "src").rglob("*.c"))


def runtime_key_files() -> list[Path]:
    """The files whose content names a runtime library in the cache: every file under ``runtime/src`` and
    ``runtime/include``, at any depth."""
    rt = runtime_dir()
    return sorted(p for d in ("src", "include") for p in (rt / d).rglob("*") if p.is_file())


def runtime_key(cc: list[str], cflags: list[str]) -> str:
    """The name of the runtime library built by this compiler with these flags from these sources: it
    changes with stencilc's version, the command, and the path and content of every key file."""
    rt = runtime_dir()
    h = hashlib.sha256()
    h.update(__version__.encode())
    h.update(shlex.join(cc + cflags).encode())
    for p in runtime_key_files():
        h.update(p.relative_to(rt).as_posix().encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def runtime_library(cc: list[str], cflags: list[str]) -> Path:
    """The runtime as a static library for this compiler and these flags (built once, its sources compiled
    on every core).  The key is taken again after the build: sources that changed while they were being
    compiled (an edit in a checkout) are built again under their new key, never published under the old."""
    for _ in range(3):
        key = runtime_key(cc, cflags)
        lib = cache_dir() / f"runtime-{key}" / "libstnrt.a"
        if lib.exists():
            return lib
        lib.parent.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=lib.parent.parent) as tmp:
            staged = _build_runtime(cc, cflags, Path(tmp))
            if runtime_key(cc, cflags) == key:
                _publish(staged, lib)
                return lib
    raise ToolchainError(f"the runtime's sources under {runtime_dir()} kept changing while they were compiled")


def _build_runtime(cc: list[str], cflags: list[str], tmp: Path) -> Path:
    """Every runtime source compiled into ``tmp`` (in parallel) and archived: the staged directory holding
    ``libstnrt.a``."""
    from concurrent.futures import ThreadPoolExecutor

    rt = runtime_dir()

    def one(src: Path) -> str:
        obj = tmp / (src.stem + ".o")
        _run(cc + cflags + ["-I", str(rt / "include"), "-I", str(rt / "src"), "-c", str(src), "-o", str(obj)],
             f"runtime {src.relative_to(rt / 'src').as_posix()}")
        return str(obj)

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        objs = list(pool.map(one, runtime_sources()))
    tmp_lib = tmp / "libstnrt.a"
    _run(["ar", "rcs", str(tmp_lib)] + objs, "runtime library")
    staged = tmp / "stage"
    staged.mkdir()
    shutil.move(str(tmp_lib), staged / "libstnrt.a")
    return staged


def _publish(staged: Path, target: Path) -> None:
    """Rename the staged directory into place as ``target.parent``, whole; a concurrent build
    that got there first is fine."""
    try:
        os.rename(staged, target.parent)
    except OSError:
        if not target.exists():  # not a concurrent build that won the race
            raise


def runtime_tool(name: str, cc: str | None = None, cflags: str | None = None) -> Path:
    """The runtime's tool ``runtime/tools/NAME_main.c`` (e.g. ``probe``: ``stencilc-probe``), linked
    against the cached runtime library: the executable's path.

    Built once per compiler, flags, runtime and tool source into the cache, in a temporary directory
    that is renamed into place whole (as ``runtime_library``), so concurrent builds are safe."""
    rt = runtime_dir()
    src = rt / "tools" / f"{name}_main.c"
    if not src.is_file():
        raise ToolchainError(f"the runtime tool '{name}' is missing from this installation: no {src}")
    ccmd = _cc(cc)
    flags = _cflags(cflags)
    lib = runtime_library(ccmd, flags)
    h = hashlib.sha256()
    h.update(str(lib).encode())  # the library's path names the runtime's version, compiler and flags
    h.update(shlex.join(ccmd + flags).encode())
    h.update(src.read_bytes())
    exe = cache_dir() / f"tool-{name}-{h.hexdigest()[:16]}" / f"stencilc-{name}"
    if exe.exists():
        return exe
    exe.parent.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=exe.parent.parent) as tmp:
        staged = Path(tmp) / "stage"
        staged.mkdir()
        _run(ccmd + flags + ["-I", str(rt / "src"), "-I", str(rt / "include"), str(src), str(lib),
                             "-o", str(staged / exe.name)] + _libs(flags), f"runtime tool {src.name}")
        _publish(staged, exe)
    return exe


def build(program: ir.Program, files: dict[str, str], exe: Path, cc: str | None = None,
          cflags: str | None = None, extra: list[str] | None = None) -> Path:
    """The program ``exe`` of the generated C ``files`` and the runtime library; ``extra``: more to link
    (before the system libraries)."""
    ccmd = _cc(cc)
    flags = _cflags(cflags)
    lib = runtime_library(ccmd, flags)
    exe = Path(exe)
    if exe.is_dir():
        raise ToolchainError(f"output '{exe}' is a directory")
    out_dir = exe.resolve().parent
    if not out_dir.is_dir():
        raise ToolchainError(f"output directory '{out_dir}' does not exist")
    with tempfile.TemporaryDirectory(prefix=f"stencilc-{program.name}-") as tmp:
        for name, text in files.items():
            (Path(tmp) / name).write_text(text)
        sources = [str(Path(tmp) / f"{program.name}{suffix}.c") for suffix in ("", "_api", "_main")]
        tmp_exe = out_dir / f".{exe.name}.partial-{os.getpid()}"
        try:
            _run(ccmd + flags + ["-I", tmp, "-I", str(runtime_dir() / "include")] + sources
                 + [str(lib), *(extra or []), "-o", str(tmp_exe)] + _libs(flags),
                 f"generated code for '{program.name}'")
            os.replace(tmp_exe, exe)
        finally:
            if tmp_exe.exists():
                tmp_exe.unlink()
    return exe


def build_library(program: ir.Program, files: dict[str, str], outdir: Path, cc: str | None = None,
                  cflags: str | None = None, cuda_files: dict[str, str] | None = None) -> Path:
    """``--emit=lib``: the stencil as a library a host program links (docs/embedding.md), in a prefix
    layout under ``outdir``:

    * ``include/``: ``NAME.h``, ``NAME_api.h``, the runtime's ``stn_rt.h``, and ``NAME_api.f90`` (the
      Fortran module, compiled with the host program: a ``.mod`` is particular to one compiler);
    * ``lib/libNAME.a`` (the kernels, the API and the whole runtime) and ``lib/libNAME.so`` (the same,
      position-independent, linked against OpenMP, libaio, hwloc, libpmem and libm);
    * ``lib/pkgconfig/NAME.pc``; ``src/``: the generated C, for reading.

    With ``cuda_files`` (``codegen.cuda.render_cuda``'s), the CUDA kernels and entry points are compiled
    (position-independent, ``cuda_objects``) into both libraries, and libNAME.so is linked with the CUDA
    runtime: its descriptor then runs ``--mode gpu`` and ``gpu-ooc``.

    Everything is built in a temporary directory first and each file is renamed into place whole, so
    a failed build leaves no half-written library."""
    ccmd = _cc(cc)
    flags = _cflags(cflags) + ["-fPIC"]
    rtlib = runtime_library(ccmd, flags)
    outdir = Path(outdir)
    if outdir.exists() and not outdir.is_dir():
        raise ToolchainError(f"output '{outdir}' is not a directory")
    outdir.mkdir(parents=True, exist_ok=True)
    name = program.name
    rt = runtime_dir()
    with tempfile.TemporaryDirectory(prefix=f"stencilc-lib-{name}-", dir=outdir) as tmp:
        t = Path(tmp)
        for sub in ("include", "lib/pkgconfig", "src", "obj", "rt"):
            (t / sub).mkdir(parents=True)
        for fname, text in files.items():
            (t / "src" / fname).write_text(text)
        for h in (f"{name}.h", f"{name}_api.h", f"{name}_api.f90"):
            shutil.copy(t / "src" / h, t / "include" / h)
        shutil.copy(rt / "include" / "stn_rt.h", t / "include" / "stn_rt.h")
        objs = []
        for stem in (name, f"{name}_api"):
            obj = t / "obj" / f"{stem}.o"
            _run(ccmd + flags + ["-I", str(t / "include"), "-c", str(t / "src" / f"{stem}.c"), "-o", str(obj)],
                 f"generated code for '{name}'")
            objs.append(str(obj))
        if cuda_files:
            objs += [str(o) for o in cuda_objects(name, cuda_files, t / "cuda")]
        _run(["ar", "x", str(rtlib)], "unpacking the runtime library", cwd=t / "rt")
        rt_objs = sorted(str(o) for o in (t / "rt").glob("*.o"))
        _run(["ar", "qc", str(t / "lib" / f"lib{name}.a")] + objs + rt_objs, f"lib{name}.a")
        _run(["ranlib", str(t / "lib" / f"lib{name}.a")], f"lib{name}.a")
        _run(ccmd + flags + ["-shared", f"-Wl,-soname,lib{name}.so", "-o", str(t / "lib" / f"lib{name}.so")]
             + objs + rt_objs + (cuda_link_flags() if cuda_files else []) + _libs(flags), f"lib{name}.so")
        private = " ".join(f for f in flags if f == "-fopenmp")
        (t / "lib" / "pkgconfig" / f"{name}.pc").write_text(
            f"# pkg-config file of the stencil '{name}', written by stencilc {__version__}\n"
            f"prefix={outdir.resolve()}\n"
            "includedir=${prefix}/include\n"
            "libdir=${prefix}/lib\n\n"
            f"Name: {name}\n"
            f"Description: the stencil '{name}' (stencilc {__version__}): kernels, simulation API, runtime\n"
            f"Version: {__version__}\n"
            "Cflags: -I${includedir}\n"
            f"Libs: -L${{libdir}} -l{name}\n"
            f"Libs.private: {private} {' '.join(_libs(flags))}\n")
        for sub in ("include", "lib", "lib/pkgconfig", "src"):
            (outdir / sub).mkdir(parents=True, exist_ok=True)
            for f in sorted((t / sub).iterdir()):
                if f.is_file():
                    os.replace(f, outdir / sub / f.name)
    return outdir


# ---------------------------------------------------------------- the CUDA target (--target cuda)

CUDA_SEARCH = "$CUDACXX, nvcc on PATH, /usr/local/cuda/bin/nvcc, the nvidia-cuda-nvcc wheel in this Python"


def find_nvcc() -> list[str] | None:
    """nvcc and the flags that find cuda_runtime.h, or None: ``$CUDACXX``, ``nvcc`` on PATH,
    ``/usr/local/cuda/bin/nvcc``, then the nvcc of PyPI's CUDA 13 wheels in this Python (``nvidia-cuda-nvcc``,
    ``-crt``, ``-runtime``, ``nvidia-nvvm``: tools/setup.sh installs them where it can), with ``-I`` on their
    headers and ``-L`` on their libraries (cudart_static).  (``nvidia-cuda-nvcc-cu12`` has no nvcc: ptxas and
    libnvvm only.)"""
    env = os.environ.get("CUDACXX")
    if env:
        cmd = shlex.split(env)
        return cmd if cmd and shutil.which(cmd[0]) else None
    for cand in (shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc"):
        if cand and os.access(cand, os.X_OK):
            return [cand]
    try:
        import nvidia  # the namespace package of NVIDIA's wheels
    except ImportError:
        return None
    for root in map(Path, nvidia.__path__):
        # CUDA 13's wheels (nvidia-cuda-nvcc, -crt, -runtime, nvidia-nvvm) lay out a toolkit under cu13/
        nvcc = root / "cu13" / "bin" / "nvcc"
        if nvcc.is_file() and os.access(nvcc, os.X_OK):
            return [str(nvcc), f"-I{root / 'cu13' / 'include'}", f"-L{root / 'cu13' / 'lib'}"]
    return None


CUDA_EMU_ENV = "STENCILC_CUDA_EMU"


def _cuda_compiler() -> tuple[list[str], bool]:
    """The compiler of the ``.cu`` files and whether it is the host emulation: nvcc (``find_nvcc``), or, where
    ``$STENCILC_CUDA_EMU`` names a directory holding an emulated ``cuda_runtime.h`` (the tests'
    test/python/cuda_emu), the host C++ compiler against it (``$CXX``, else c++), which runs every launch on the
    CPU in order.  Raises ``ToolchainError`` when there is neither."""
    from .codegen.cuda import NVCC_FLAGS

    emu = os.environ.get(CUDA_EMU_ENV)
    if emu:
        if not (Path(emu) / "cuda_runtime.h").is_file():
            raise ToolchainError(f"${CUDA_EMU_ENV}={emu}: no cuda_runtime.h there")
        cxx = shlex.split(os.environ.get("CXX") or "c++")
        if not cxx or shutil.which(cxx[0]) is None:
            raise ToolchainError(f"${CUDA_EMU_ENV}: C++ compiler '{cxx[0] if cxx else ''}' not found")
        return [*cxx, "-O1", "-ffp-contract=off", "-std=c++14", "-w", f"-I{emu}", "-x", "c++"], True
    nvcc = find_nvcc()
    if nvcc is None:
        raise ToolchainError(f"--target cuda needs nvcc to build, and none was found ({CUDA_SEARCH}); "
                             "--emit=c writes the CUDA sources without it")
    return [*nvcc, *NVCC_FLAGS], False


def _emulated(text: str) -> str:
    """A ``.cu`` file for the host emulation: each launch ``k<<<g, b, 0, s>>>(args)`` as ``EMU_LAUNCH_S_(s, g, b,
    k, args)`` (queued on its stream)."""
    import re

    return re.sub(r"(\w+)<<<([^,]+), ([^,]+), 0, ([^>]+)>>>\(", r"EMU_LAUNCH_S_(\4, \2, \3, \1, ", text)


def cuda_objects(name: str, files: dict[str, str], out: Path) -> list[Path]:
    """``NAME_cuda.o`` and ``NAME_cuda_api.o`` of the CUDA ``files``, position-independent (for a shared
    library), compiled as ``build_cuda`` compiles them, in ``out``."""
    cxx, emu = _cuda_compiler()
    out.mkdir(parents=True, exist_ok=True)
    for fname, text in files.items():
        (out / fname).write_text(_emulated(text) if emu and fname.endswith(".cu") else text)
    pic = ["-fPIC"] if emu else ["-Xcompiler", "-fPIC"]
    objs = []
    for stem in (f"{name}_cuda", f"{name}_cuda_api"):
        _run([*cxx, *pic, f"-I{runtime_dir() / 'include'}", "-c", f"{stem}.cu", "-o", f"{stem}.o"],
             f"{stem}.cu ({'host emulation' if emu else 'nvcc'})", cwd=out)
        objs.append(out / f"{stem}.o")
    return objs


def build_cuda(name: str, files: dict[str, str], out: Path) -> Path:
    """Writes the CUDA sources into ``out`` and compiles ``NAME_cuda.cu`` and ``NAME_cuda_api.cu`` (when given)
    with nvcc (``--fmad=false``; or the host emulation, ``_cuda_compiler``) into ``out/libNAME_cuda.a``.  Raises
    ``ToolchainError`` when there is no nvcc (saying where it looked); a generated file nvcc refuses is a bug
    (``InternalError``)."""
    cxx, emu = _cuda_compiler()
    try:
        out.mkdir(parents=True, exist_ok=True)
        for fname, text in files.items():
            (out / fname).write_text(_emulated(text) if emu and fname.endswith(".cu") else text)
    except OSError as e:
        raise ToolchainError(f"cannot write {out}: {e}") from e
    objs = []
    for stem in (f"{name}_cuda", f"{name}_cuda_api"):
        if f"{stem}.cu" not in files:
            continue
        obj = out / f"{stem}.o"
        _run([*cxx, f"-I{runtime_dir() / 'include'}", "-c", f"{stem}.cu", "-o", obj.name],
             f"{stem}.cu ({'host emulation' if emu else 'nvcc'})", cwd=out)
        objs.append(obj)
    lib = out / f"lib{name}_cuda.a"
    _run(["ar", "rcs", lib.name, *[o.name for o in objs]], f"lib{name}_cuda.a (ar)", cwd=out)
    for obj in objs:
        obj.unlink()
    return lib


def cuda_link_flags() -> list[str]:
    """What a program linking ``libNAME_cuda.a`` adds: the CUDA runtime (``cudart_static`` from the toolkit or the
    wheel that nvcc came from, and what it needs) and the C++ library; under the host emulation, the C++ library
    alone."""
    if os.environ.get(CUDA_EMU_ENV):
        return ["-lstdc++"]
    nvcc = find_nvcc() or []
    dirs = [f for f in nvcc[1:] if f.startswith("-L")]
    if nvcc and not dirs:
        root = Path(nvcc[0]).resolve().parent.parent
        dirs = [f"-L{root / d}" for d in ("lib64", "lib") if (root / d).is_dir()]
    return [*dirs, "-lcudart_static", "-ldl", "-lrt", "-lpthread", "-lstdc++"]


def build_cuda_program(program: ir.Program, files: dict[str, str], cuda_files: dict[str, str], exe: Path,
                       cc: str | None = None, cflags: str | None = None) -> Path:
    """``--target cuda``: the C program of ``files`` (as ``build``) linked with ``libNAME_cuda.a`` of
    ``cuda_files`` (``build_cuda``: the kernels and the runtime's CUDA entry points, which the descriptor refers to
    weakly, so ``-u NAME_cuda_ops_`` pulls them in) and the CUDA runtime.  Raises ``ToolchainError`` where there
    is no nvcc, as ``build_cuda``."""
    name = program.name
    _cuda_compiler()  # (no nvcc: the error before anything is built)
    with tempfile.TemporaryDirectory(prefix=f"stencilc-{name}-cuda-") as tmp:
        lib = build_cuda(name, cuda_files, Path(tmp))
        extra = [str(lib), f"-Wl,-u,{name}_cuda_ops_", *cuda_link_flags()]
        return build(program, files, exe, cc=cc, cflags=cflags, extra=extra)
