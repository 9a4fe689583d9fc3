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
element type).  Every runtime failure raises ``stencilc.Error`` with the runtime's message.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import shlex
import tempfile
from pathlib import Path
from typing import Any

from . import __version__, toolchain
from .codegen import build_layout, render
from .diagnostics import CompileError, SourceFile

__all__ = ["Error", "Program", "Simulation", "compile"]

AXES = "xyz"


class Error(Exception):
    """A failure the runtime reported (its message), or a bad argument."""


class _Box(ctypes.Structure):
    _fields_ = [("lo", ctypes.c_int64 * 3), ("hi", ctypes.c_int64 * 3)]


def compile(path: str | os.PathLike, cc: str | None = None, cflags: str | None = None) -> Program:  # noqa: A001
    """The stencil of ``path``, built (or found in the cache) as a shared library."""
    from . import frontend, lower, sema

    source = SourceFile.read(str(path))
    try:
        program = lower.lower(sema.check(frontend.parse(source), source))
    except CompileError as e:
        raise Error(e.render()) from None
    ccmd, flags = toolchain._cc(cc), toolchain._cflags(cflags)
    rtlib = toolchain.runtime_library(ccmd, flags + ["-fPIC"])  # its path names the runtime's sources
    h = hashlib.sha256()
    for part in (__version__, shlex.join(ccmd + flags), str(rtlib), Path(path).name, source.text):
        h.update(part.encode() + b"\0")
    prefix = toolchain.cache_dir() / f"lib-{program.name}-{h.hexdigest()[:16]}"
    so = prefix / "lib" / f"lib{program.name}.so"
    if not so.exists():
        prefix.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=prefix.parent, prefix=".building-") as tmp:
            staged = Path(tmp) / "stage"
            toolchain.build_library(program, render(build_layout(program)), staged, cc=cc, cflags=cflags)
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
        self.fields: dict[str, int] = {f.name: f.levels for f in layout.fields}
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

    def open(self, size, steps: int | None = None, *, mode: str | None = None, mem: str | None = None,
             dir: str | os.PathLike | None = None, params: dict[str, float] | None = None,  # noqa: A002
             init: dict[str, str | os.PathLike] | None = None, out: dict[str, str | os.PathLike] | None = None,
             threads: int = 0, quiet: bool = True, options: list[str] = ()) -> Simulation:
        """Open a simulation: each argument is the command-line option of its name (docs/cli.md);
        ``init``/``out`` map a field (or series, points, record) to an .npy file; ``options`` adds any other."""
        size = (size,) if isinstance(size, int) else tuple(size)
        if len(size) != self.dims:
            raise Error(f"{self.name}: size {size}: the grid has {self.dims} axes (x first)")
        args = ["--size", ",".join(str(int(n)) for n in size)]
        if steps is not None:
            args += ["--steps", str(int(steps))]
        for opt, val in (("--mode", mode), ("--mem", mem), ("--dir", dir)):
            if val is not None:
                args += [opt, str(val)]
        for k, v in (params or {}).items():
            if k not in self.params:
                raise Error(f"{self.name}: no param '{k}' (its params: {', '.join(self.params) or 'none'})")
            args += ["--param", f"{k}={float(v)!r}"]
        for opt, files in (("--init", init), ("--out", out)):
            for k, v in (files or {}).items():
                args += [opt, f"{k}={os.fspath(v)}"]
        if threads:
            args += ["--threads", str(int(threads))]
        if quiet:
            args.append("--quiet")
        args += [str(a) for a in options]
        argv = (ctypes.c_char_p * len(args))(*[a.encode() for a in args])
        handle = ctypes.c_void_p()
        self._check(self._lib.stn_sim_open(self._desc, len(args), argv, ctypes.byref(handle)), "open")
        return Simulation(self, handle, tuple(size))


class Simulation:
    """An open simulation (``Program.open``); a context manager that closes it."""

    def __init__(self, prog: Program, handle: ctypes.c_void_p, size: tuple[int, ...]):
        self.prog, self._h, self.size = prog, handle, size

    def _handle(self) -> ctypes.c_void_p:
        if self._h is None:
            raise Error(f"{self.prog.name}: the simulation is closed")
        return self._h

    def _box(self, field: str, box: dict[str, Any]) -> tuple[_Box, tuple[int, ...], list[int]]:
        """The box of ``x=``, ``y=``, ``z=`` (an int: that index, dropped from the array's shape; a slice
        with step 1; absent: the whole axis), the array's shape (C order), and its axes (x = 0)."""
        if field.split(".")[0] not in self.prog.fields:
            raise Error(f"{self.prog.name} has no field '{field}' (its fields: {', '.join(self.prog.fields)})")
        bad = [k for k in box if k not in AXES[: self.prog.dims]]
        if bad:
            raise Error(f"{self.prog.name}: no axis {', '.join(bad)} in a {self.prog.dims}d grid")
        b, shape, kept = _Box(), [], []
        for d in range(3):
            if d >= self.prog.dims:
                b.lo[d], b.hi[d] = 0, 1
                continue
            v, n = box.get(AXES[d], slice(None)), self.size[d]
            if isinstance(v, slice):
                lo, hi, step = v.indices(n)
                if step != 1:
                    raise Error(f"{self.prog.name}: {AXES[d]}={v}: only slices of step 1")
                b.lo[d], b.hi[d] = lo, max(lo, hi)
                shape.append(b.hi[d] - b.lo[d])
                kept.append(d)
            else:
                i = int(v)
                b.lo[d], b.hi[d] = (i + n if i < 0 else i), (i + n if i < 0 else i) + 1
        return b, tuple(reversed(shape)), kept

    def write(self, field: str, array, **box) -> None:
        """Put ``array`` (the box's shape, C order) into the box of ``field`` ("u" or "u.prev")."""
        import numpy as np

        b, shape, kept = self._box(field, box)
        a = np.asarray(array, dtype=self.prog.dtype)
        if a.shape != shape:
            raise Error(f"{self.prog.name}: write {field}: an array of shape {a.shape} for a box of shape {shape}")
        item = a.itemsize
        if any(s % item for s in a.strides):
            a = np.ascontiguousarray(a)
        strides = (ctypes.c_int64 * 3)(0, 0, 0)
        for axis, d in enumerate(reversed(kept)):  # the array's axes are (..., y, x)
            strides[d] = a.strides[axis] // item
        self.prog._check(self.prog._lib.stn_sim_write(self._handle(), field.encode(), ctypes.byref(b),
                                                      ctypes.c_void_p(a.ctypes.data), strides), f"write {field}")

    def read(self, field: str, **box):
        """A new array (C order) of the box of ``field``."""
        import numpy as np

        b, shape, kept = self._box(field, box)
        a = np.empty(shape, dtype=self.prog.dtype)
        strides = (ctypes.c_int64 * 3)(0, 0, 0)
        for axis, d in enumerate(reversed(kept)):
            strides[d] = a.strides[axis] // a.itemsize
        self.prog._check(self.prog._lib.stn_sim_read(self._handle(), field.encode(), ctypes.byref(b),
                                                     ctypes.c_void_p(a.ctypes.data), strides), f"read {field}")
        return a

    def advance(self, steps: int) -> None:
        self.prog._check(self.prog._lib.stn_sim_advance(self._handle(), int(steps)), f"advance {steps}")

    @property
    def steps_done(self) -> int:
        return int(self.prog._lib.stn_sim_steps_done(self._handle()))

    def checkpoint(self, dir: str | os.PathLike) -> dict:  # noqa: A002
        """Every level of every field into DIR/FIELD.npy, and DIR/NAME.checkpoint.json (returned): the
        steps done and the ``init`` that opens a simulation from these levels."""
        self.prog._check(self.prog._lib.stn_sim_checkpoint(self._handle(), os.fspath(dir).encode()),
                         f"checkpoint {dir}")
        return json.loads((Path(dir) / f"{self.prog.name}.checkpoint.json").read_text())

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
