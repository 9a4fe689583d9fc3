"""Where libhdf5 is on this machine, for the runtime's snapshot files (``--save-to FILE.h5``,
docs/design/021-snapshots.md).

Expects: ``pkg-config`` and Debian's ``libhdf5-dev`` (``hdf5.pc``: headers under
``/usr/include/hdf5/serial``), or nothing.  Guarantees: ``hdf5_flags()`` gives the compiler flags
(``-I``) and the link flags (``-L``, ``-lhdf5_hl -lhdf5``) when libhdf5 and its high-level library
(dimension scales) are found, and two empty lists otherwise (or when ``STENCILC_NO_HDF5`` is set to a
non-empty value other than ``0``): the runtime then compiles without HDF5 (``io/hdf5.c`` sees no
``hdf5.h``) and a program refuses ``--save-to`` saying so.  The answer is computed once per process.
"""

from __future__ import annotations

import functools
import os
import shlex
import shutil
import subprocess
from pathlib import Path


@functools.lru_cache(maxsize=1)
def hdf5_flags() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(cflags, libs) for libhdf5, or two empty tuples when it is not there (or not wanted)."""
    if os.environ.get("STENCILC_NO_HDF5", "") not in ("", "0") or not shutil.which("pkg-config"):
        return (), ()
    try:
        cf = subprocess.run(["pkg-config", "--cflags", "hdf5"], capture_output=True, text=True, timeout=30)
        lf = subprocess.run(["pkg-config", "--libs-only-L", "hdf5"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return (), ()
    if cf.returncode or lf.returncode:
        return (), ()
    cflags = tuple(shlex.split(cf.stdout))
    ldirs = tuple(shlex.split(lf.stdout))
    incs = [f[2:] for f in cflags if f.startswith("-I")] or ["/usr/include"]
    libdirs = [f[2:] for f in ldirs if f.startswith("-L")]
    if not any((Path(d) / "hdf5_hl.h").is_file() for d in incs):
        return (), ()  # the high-level library (dimension scales) is part of libhdf5-dev; without it, none
    if libdirs and not any((Path(d) / "libhdf5_hl.so").exists() or (Path(d) / "libhdf5_hl.a").exists()
                           for d in libdirs):
        return (), ()
    libs = []
    for name in ("hdf5_hl", "hdf5"):  # as files, so that a link line is whole without its -L (pkg-config's
        # --static --libs-only-other of a library's .pc, docs/embedding.md, keeps them; -L it would drop)
        path = next((Path(d) / f"lib{name}{ext}" for ext in (".so", ".a") for d in libdirs
                     if (Path(d) / f"lib{name}{ext}").exists()), None)
        libs.append(str(path) if path else f"-l{name}")
    rpath = tuple(f"-Wl,-rpath,{d}" for d in libdirs)
    return cflags, rpath + tuple(libs)
