"""Python on NumPy: a stencil compiled into its library and driven step by step.

    import stencilc
    prog = stencilc.compile("heat3d.stn")                 # built once, cached by content
    with prog.open(size=(512, 512, 256), mode="incore", params={"alpha": 0.1}) as sim:
        sim.write("u", u0)                                # a NumPy array of the whole field
        sim.write("u", plane, z=100)                      # or of a box: ints and slices per axis
        sim.advance(100)
        u = sim.read("u", z=slice(0, 8))                  # a NumPy array of that box

Expects: a .stn file that compiles.  Guarantees: ``compile`` builds the library of ``--emit=lib``
(``toolchain.build_library``) into the cache (``$STENCILC_CACHE_DIR``), keyed by the source text, the
compiler version, the C compiler and flags and the runtime's sources, and renamed into place whole;
``Program.open`` calls the runtime's ``stn_sim_*`` (stn_rt.h, docs/embedding.md) through ctypes.
Arrays are NumPy arrays in C order, ``(nz, ny, nx)``: ``read`` returns a new array of the box,
``write`` passes the caller's array with its strides (no copy when it already has the stencil's
element type).  Every failure raises ``stencilc.Error`` (``diagnostics.Error``, the base of ``CompileError``
and ``ToolchainError`` too): the runtime's refusals with its message, and every argument of the wrong
type or range before it reaches ctypes (which would truncate a float, wrap an integer, cut a string at
a NUL or drop an imaginary part), naming the argument.  ``open(restart=DIR)`` opens from a checkpoint
(``stn_sim_restart``).
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import numbers
import operator
import os
import shlex
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import __version__, toolchain
from .codegen import build_layout, render
from .codegen.cuda import render_cuda
from .diagnostics import CompileError, Error, InternalError, SourceFile

__all__ = ["CompileError", "Error", "Program", "Simulation", "compile"]

AXES = "xyz"
INT64_MAX = 2**63 - 1


def _int(what: str, v: Any, lo: int = 0, hi: int = INT64_MAX, kind: str = "a step count") -> int:
    """v as an int in [lo, hi]: an integer (NumPy's too), never a bool, a float or a str."""
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise Error(f"{what} {v!r}: an integer expected ({kind} from {lo} to {'2^63 - 1' if hi == INT64_MAX else hi})")
    n = operator.index(v)
    if not lo <= n <= hi:
        raise Error(f"{what} {n}: {kind} from {lo} to {'2^63 - 1' if hi == INT64_MAX else hi}")
    return n


def _text(what: str, v: Any, path: bool = False) -> str:
    """v as a str for the runtime (a path: str or os.PathLike), without the NUL a C string would end at."""
    if path and isinstance(v, os.PathLike):
        v = os.fspath(v)
    if not isinstance(v, str):
        raise Error(f"{what} {v!r}: {'a path (str or os.PathLike)' if path else 'a string'} expected")
    if "\0" in v:
        raise Error(f"{what} {v!r}: a NUL character (C strings end there)")
    try:
        os.fsencode(v)
    except UnicodeError:
        raise Error(f"{what} {v!r}: not encodable as a file name of this system") from None
    return v


class _Box(ctypes.Structure):
    _fields_ = [("lo", ctypes.c_int64 * 3), ("hi", ctypes.c_int64 * 3)]


def compile(path: str | os.PathLike, cc: str | None = None, cflags: str | None = None,  # noqa: A001
            target: str = "c") -> Program:
    """The stencil of ``path``, built (or found in the cache) as a shared library.  A wrong .stn file
    raises ``CompileError``, a missing C compiler ``ToolchainError`` (both ``stencilc.Error``).  ``target``
    "cuda": the library carries the CUDA kernels and entry points too (nvcc, else ``ToolchainError``), so
    its simulations also open in ``mode="gpu"`` and ``"gpu-ooc"``; constructs the CUDA target does not
    carry are refused (``CompileError``)."""
    from . import frontend, lower, sema

    path = _text("compile", path, path=True)
    for what, v in (("cc", cc), ("cflags", cflags)):
        if v is not None:
            _text(f"compile: {what}", v)
    try:
        if target not in ("c", "cuda"):
            raise Error(f"compile: target {target!r}: expected 'c' or 'cuda'")
        source = SourceFile.read(path)
        checked = sema.check(frontend.parse(source), source)
        program = lower.lower(checked)
    except CompileError as e:  # (a stencilc.Error) with the diagnostics rendered as the CLI prints them
        e.args = (e.render(),)
        raise e from None
    ccmd, flags = toolchain._cc(cc), toolchain._cflags(cflags)
    rtlib = toolchain.runtime_library(ccmd, flags + ["-fPIC"])  # its path names the runtime's sources
    h = hashlib.sha256()
    cuda = target == "cuda" and os.environ.get(toolchain.CUDA_EMU_ENV) or ""
    if target == "cuda":
        toolchain._cuda_compiler()  # (no nvcc: the error before anything is built)
        cuda = f"cuda {cuda or shlex.join(toolchain.find_nvcc() or [])}"  # the emulation or nvcc: the key
    for part in (__version__, shlex.join(ccmd + flags), str(rtlib), Path(path).name, source.text, cuda):
        h.update(part.encode() + b"\0")
    prefix = toolchain.cache_dir() / f"lib-{program.name}-{h.hexdigest()[:16]}"
    so = prefix / "lib" / f"lib{program.name}.so"
    if not so.exists():
        prefix.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=prefix.parent, prefix=".building-") as tmp:
            staged = Path(tmp) / "stage"
            try:
                layout = build_layout(program)
                toolchain.build_library(program, render(layout), staged, cc=cc, cflags=cflags,
                                        cuda_files=render_cuda(layout) if target == "cuda" else None)
            except InternalError as e:
                if cc is None and cflags is None:
                    raise
                raise Error(f"compile {path} with cc={cc!r} cflags={cflags!r}: {e}") from None
            try:
                os.rename(staged, prefix)
            except OSError:
                if not so.exists():  # not a concurrent build that got there first
                    raise
    return Program(program, prefix)


class Program:
    """A compiled stencil: its fields, params and element type, and its shared library."""

    def __init__(self, program, prefix: Path):
        layout = build_layout(program)
        self.name: str = layout.name
        self.prefix = prefix
        self.dims: int = layout.dims
        self.dtype: str = layout.npy_descr
        self.fields: dict[str, int] = {f.run_name: f.levels for f in layout.fields}
        self.params: dict[str, float] = {p.name: p.value for p in layout.params}
        self._lib = ctypes.CDLL(str(prefix / "lib" / f"lib{self.name}.so"))
        lib = self._lib
        getattr(lib, f"{self.name}_program").restype = ctypes.c_void_p
        self._desc = getattr(lib, f"{self.name}_program")()
        lib.stn_errmsg.restype = ctypes.c_char_p
        lib.stn_sim_open.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p),
                                     ctypes.POINTER(ctypes.c_void_p)]
        for fn in (lib.stn_sim_write, lib.stn_sim_read):
            fn.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(_Box), ctypes.c_void_p,
                           ctypes.POINTER(ctypes.c_int64)]
        lib.stn_sim_restart.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p),
                                        ctypes.POINTER(ctypes.c_void_p)]
        lib.stn_sim_advance.argtypes = [ctypes.c_void_p, ctypes.c_int64]
        lib.stn_sim_steps_done.argtypes = [ctypes.c_void_p]
        lib.stn_sim_steps_done.restype = ctypes.c_int64
        lib.stn_sim_report.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        lib.stn_sim_checkpoint.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        lib.stn_sim_close.argtypes = [ctypes.c_void_p]
        lib.stn_sim_discard.argtypes = [ctypes.c_void_p]
        lib.stn_sim_discard.restype = None

    def __repr__(self) -> str:
        return f"<stencilc.Program {self.name}: {self.dims}d {self.dtype}, fields {', '.join(self.fields)}>"

    def _check(self, rc: int, what: str) -> None:
        if rc != 0:
            msg = self._lib.stn_errmsg().decode(errors="replace")
            raise Error(f"{self.name}: {what}: {msg} ({os.strerror(-rc) if rc < 0 else rc})")

    def open(self, size=None, steps: int | None = None, *, mode: str | None = None, mem: str | int | None = None,
             dir: str | os.PathLike | None = None, params: dict[str, float] | None = None,  # noqa: A002
             init: dict[str, str | os.PathLike] | None = None, out: dict[str, str | os.PathLike] | None = None,
             threads: int = 0, quiet: bool = True, options: list[str] = (),
             restart: str | os.PathLike | None = None, save: dict[str, Any] | None = None,
             save_to: str | os.PathLike | None = None, tier: str | None = None) -> Simulation:
        """Open a simulation: each argument is the command-line option of its name (docs/cli.md);
        ``tier`` is ``--tier`` (``"aio"`` or ``"pmem"``: how the out-of-core engine reaches its scratch files);
        ``init``/``out`` map a field (or series, points, record) to an .npy file; ``options`` adds any other.
        ``save`` maps a state field to its snapshots, a dict of ``every``, ``from``, ``to``, ``stride`` (ints;
        ``every`` required) or the text after ``FIELD:`` of ``--save``; ``save_to`` is the HDF5 file they go to,
        written when the simulation closes (docs/snapshots.md; ``steps`` is then required).
        ``restart``: the folder of a checkpoint (``Simulation.checkpoint``) to start from, its levels and
        its size (``size`` may then be left out; given, it must be the checkpoint's); ``steps`` are then
        those to run from it.  Every argument is checked for its type and range first (``stencilc.Error``)."""
        name = self.name
        restart = None if restart is None else _text("restart", restart, path=True)
        if size is None and restart is not None:
            man = Path(restart) / f"{name}.checkpoint.json"
            try:
                size = tuple(json.loads(man.read_text())["size"][: self.dims])
            except (OSError, ValueError, KeyError, TypeError):
                size = None  # (stn_sim_restart says why)
        args = []
        if size is not None:
            if isinstance(size, (str, bytes)) or not (isinstance(size, (numbers.Integral, Sequence))
                                                      or type(size).__name__ == "ndarray"):
                raise Error(f"{name}: size {size!r}: a tuple of {self.dims} integers (x first), or an int in 1d")
            size = (size,) if isinstance(size, numbers.Integral) else tuple(size)
            if len(size) != self.dims:
                raise Error(f"{name}: size {size}: the grid has {self.dims} axes (x first)")
            for n in size:
                if isinstance(n, bool) or not isinstance(n, numbers.Integral):
                    raise Error(f"{name}: size {size}: an integer expected for each axis, not {n!r}")
            size = tuple(operator.index(n) for n in size)
            args += ["--size", ",".join(map(str, size))]
        elif restart is None:
            raise Error(f"{name}: open: a size is needed (x first), or a checkpoint to restart from")
        if steps is not None:
            args += ["--steps", str(_int(f"{name}: steps", steps))]
        for opt, val in (("mode", mode), ("mem", mem), ("dir", dir), ("tier", tier)):
            if val is None:
                continue
            if opt == "mem" and isinstance(val, numbers.Integral) and not isinstance(val, bool):
                val = str(_int(f"{name}: mem", val, 1, kind="a byte count"))
            args += [f"--{opt}", _text(f"{name}: {opt}", val, path=opt == "dir")]
        for k, v in (params or {}).items():
            if k not in self.params:
                raise Error(f"{name}: no param '{k}' (its params: {', '.join(self.params) or 'none'})")
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise Error(f"{name}: params {k}={v!r}: a real number expected")
            args += ["--param", f"{k}={float(v)!r}"]
        for opt, files in (("init", init), ("out", out)):
            for k, v in (files or {}).items():
                if not isinstance(v, (str, os.PathLike)):
                    raise Error(f"{name}: {opt} {k}={v!r}: a path (str or os.PathLike) expected")
                args += [f"--{opt}", f"{_text(f'{name}: {opt}', k)}={_text(f'{name}: {opt} {k}=', v, path=True)}"]
        args += self._save_args(save, save_to)
        if threads:
            args += ["--threads", str(_int(f"{name}: threads", threads, 0, 2**31 - 1, "a thread count"))]
        if not isinstance(quiet, bool):
            raise Error(f"{name}: quiet {quiet!r}: True or False")
        if quiet:
            args.append("--quiet")
        if isinstance(options, (str, bytes)) or not isinstance(options, (list, tuple)):
            raise Error(f"{name}: options: a list of strings, one option or value each (not {options!r})")
        args += [_text(f"{name}: options", a, path=True) for a in options]
        argv = (ctypes.c_char_p * len(args))(*[os.fsencode(a) for a in args])
        handle = ctypes.c_void_p()
        if restart is None:
            rc = self._lib.stn_sim_open(self._desc, len(args), argv, ctypes.byref(handle))
        else:
            rc = self._lib.stn_sim_restart(self._desc, os.fsencode(restart), len(args), argv, ctypes.byref(handle))
        self._check(rc, "open" if restart is None else "restart")
        return Simulation(self, handle, tuple(size))


    def _save_args(self, save: dict[str, Any] | None, save_to) -> list[str]:
        """``--save`` and ``--save-to`` of ``open``'s ``save`` and ``save_to``, each checked for its type."""
        name, args = self.name, []
        if save is not None and not isinstance(save, dict):
            raise Error(f"{name}: save {save!r}: a dict of field -> {{'every': K, ...}} or 'every=K:...'")
        for field, spec in (save or {}).items():
            if isinstance(spec, dict):
                parts = []
                for k, v in spec.items():
                    if k not in ("every", "from", "to", "stride"):
                        raise Error(f"{name}: save {field}: unknown key {k!r} (every, from, to, stride)")
                    parts.append(f"{k}={_int(f'{name}: save {field} {k}', v, kind='an integer')}")
                spec = ":".join(parts)
            args += ["--save", f"{_text(f'{name}: save', field)}:{_text(f'{name}: save {field}', spec)}"]
        if save_to is not None:
            if not isinstance(save_to, (str, os.PathLike)):
                raise Error(f"{name}: save_to {save_to!r}: a path (str or os.PathLike) expected")
            args += ["--save-to", _text(f"{name}: save_to", save_to, path=True)]
        return args


class Simulation:
    """An open simulation (``Program.open``); a context manager that closes it."""

    def __init__(self, prog: Program, handle: ctypes.c_void_p, size: tuple[int, ...]):
        self.prog, self._h, self.size = prog, handle, size

    def _handle(self) -> ctypes.c_void_p:
        if self._h is None:
            raise Error(f"{self.prog.name}: the simulation is closed")
        return self._h

    def _box(self, field: str, box: dict[str, Any]) -> tuple[_Box, tuple[int, ...], list[int]]:
        """The box of ``x=``, ``y=``, ``z=`` (an int: that index, dropped from the array's shape, negative from
        the end; a slice with step 1, clipped as NumPy clips it; absent: the whole axis), the array's shape (C
        order), and its axes (x = 0).  Indices outside the grid are the runtime's to refuse, with the axis."""
        name = self.prog.name
        if not isinstance(field, str):
            raise Error(f"{name}: field {field!r}: a name expected ({', '.join(self.prog.fields)})")
        _text(f"{name}: field", field)
        if field.split(".")[0] not in self.prog.fields:
            raise Error(f"{name} has no field '{field}' (its fields: {', '.join(self.prog.fields)})")
        bad = [k for k in box if k not in AXES[: self.prog.dims]]
        if bad:
            raise Error(f"{name}: no axis {', '.join(bad)} in a {self.prog.dims}d grid")
        b, shape, kept = _Box(), [], []
        for d in range(3):
            if d >= self.prog.dims:
                b.lo[d], b.hi[d] = 0, 1
                continue
            v, n = box.get(AXES[d], slice(None)), self.size[d]
            if isinstance(v, slice):
                for part in (v.start, v.stop, v.step):
                    if part is not None and (isinstance(part, bool) or not isinstance(part, numbers.Integral)):
                        raise Error(f"{name}: {AXES[d]}={v}: a slice of integers expected")
                lo, hi, step = v.indices(n)
                if step != 1:
                    raise Error(f"{name}: {AXES[d]}={v}: only slices of step 1")
                b.lo[d], b.hi[d] = lo, max(lo, hi)
                shape.append(b.hi[d] - b.lo[d])
                kept.append(d)
            else:
                if isinstance(v, bool) or not isinstance(v, numbers.Integral):
                    raise Error(f"{name}: {AXES[d]}={v!r}: an index (an integer) or a slice expected")
                i = operator.index(v)
                i = i + n if i < 0 else i
                if not -(2**62) < i < 2**62:  # (the runtime says which range is the grid's)
                    raise Error(f"{name}: {AXES[d]}={v}: not an index of the grid's [0, {n})")
                b.lo[d], b.hi[d] = i, i + 1
        return b, tuple(reversed(shape)), kept

    def write(self, field: str, array, **box) -> None:
        """Put ``array`` (the box's shape, C order: any NumPy array, or what np.asarray makes one, of integers
        or reals, converted to the stencil's type; passed with its strides when it has that type already) into
        the box of ``field`` ("u" or "u.prev")."""
        import numpy as np

        b, shape, kept = self._box(field, box)
        name = self.prog.name
        try:
            a = np.asarray(array)
        except ValueError as e:
            raise Error(f"{name}: write {field}: not an array of numbers ({e})") from None
        if a.dtype.kind not in "iuf":
            raise Error(f"{name}: write {field}: an array of {a.dtype.type.__name__.rstrip('_0123456789')} "
                        f"({a.dtype}): integers or reals expected (a {self.prog.dtype} array, converted "
                        f"otherwise){'; complex values have no place in a real field' if a.dtype.kind == 'c' else ''}")
        if a.dtype != np.dtype(self.prog.dtype):
            a = a.astype(self.prog.dtype)  # (values kept exactly, or rounded as NumPy rounds)
        if a.shape != shape:
            raise Error(f"{name}: write {field}: an array of shape {a.shape} for a box of shape {shape}")
        item = a.itemsize
        if any(s % item for s in a.strides):
            a = np.ascontiguousarray(a)
        strides = (ctypes.c_int64 * 3)(0, 0, 0)
        for axis, d in enumerate(reversed(kept)):  # the array's axes are (..., y, x)
            strides[d] = a.strides[axis] // item
        self.prog._check(self.prog._lib.stn_sim_write(self._handle(), os.fsencode(field), ctypes.byref(b),
                                                      ctypes.c_void_p(a.ctypes.data), strides), f"write {field}")

    def read(self, field: str, **box):
        """A new array (C order) of the box of ``field``."""
        import numpy as np

        b, shape, kept = self._box(field, box)
        a = np.empty(shape, dtype=self.prog.dtype)
        strides = (ctypes.c_int64 * 3)(0, 0, 0)
        for axis, d in enumerate(reversed(kept)):
            strides[d] = a.strides[axis] // a.itemsize
        self.prog._check(self.prog._lib.stn_sim_read(self._handle(), os.fsencode(field), ctypes.byref(b),
                                                     ctypes.c_void_p(a.ctypes.data), strides), f"read {field}")
        return a

    def advance(self, steps: int) -> None:
        """Run ``steps`` more steps: an integer from 0 to 2^63 - 1, checked before ctypes converts it; the runtime
        refuses more than 10^15 in all (and, with series or records, more than the steps opened for)."""
        n = _int("advance", steps)
        self.prog._check(self.prog._lib.stn_sim_advance(self._handle(), n), f"advance {n}")

    @property
    def steps_done(self) -> int:
        return int(self.prog._lib.stn_sim_steps_done(self._handle()))

    def checkpoint(self, dir: str | os.PathLike) -> dict:  # noqa: A002
        """Every level of every field into DIR/FIELD.npy, and DIR/NAME.checkpoint.json (returned): the
        steps done and the ``init`` that opens a simulation from these levels (``open(restart=DIR)``)."""
        dir = _text("checkpoint", dir, path=True)  # noqa: A001
        self.prog._check(self.prog._lib.stn_sim_checkpoint(self._handle(), os.fsencode(dir)), f"checkpoint {dir}")
        try:
            return json.loads((Path(dir) / f"{self.prog.name}.checkpoint.json").read_bytes())
        except (OSError, ValueError) as e:  # (a folder name that is not UTF-8 makes the manifest not JSON)
            raise Error(f"{self.prog.name}: checkpoint {dir}: written, but its manifest does not read back: {e}") from None

    def report(self) -> dict:
        """The run's JSON report so far (docs/report.schema.json), as a dict."""
        with tempfile.TemporaryDirectory(prefix="stencilc-report-") as tmp:
            path = Path(tmp) / "report.json"
            self.prog._check(self.prog._lib.stn_sim_report(self._handle(), str(path).encode()), "report")
            return json.loads(path.read_text())

    def close(self) -> None:
        """Write the ``out`` files and the report option's file; free everything.  Closing twice is fine."""
        if self._h is None:
            return
        h, self._h = self._h, None
        self.prog._check(self.prog._lib.stn_sim_close(h), "close")

    def __enter__(self) -> Simulation:
        return self

    def discard(self) -> None:
        """Free everything and write nothing (no ``out`` file, no report)."""
        if self._h is not None:
            h, self._h = self._h, None
            self.prog._lib.stn_sim_discard(h)

    def __exit__(self, *exc) -> None:
        if exc[0] is None:
            self.close()
        else:  # a failure in the block: no output may look complete
            self.discard()

    def __del__(self) -> None:  # never closed: nothing is written
        self.discard()
