"""Where libhdf5 is on this machine, for the runtime's snapshot files (``--save-to FILE.h5``,
docs/design/021-snapshots.md).

Expects: ``pkg-config`` and Debian's ``libhdf5-dev`` (``hdf5-serial.pc``, or ``hdf5.pc``: headers under
``/usr/include/hdf5/serial``), and for ``--mpi`` programs Debian's ``libhdf5-openmpi-dev``
(``hdf5-openmpi.pc``: headers under ``/usr/include/hdf5/openmpi``), or nothing.  Guarantees:
``hdf5_flags(mpi)`` gives the compiler flags (``-I``) and the link flags (``-lhdf5_hl -lhdf5`` as files, with
their rpath) when libhdf5 and its high-level library (dimension scales) are found, and two empty lists
otherwise (or when ``STENCILC_NO_HDF5`` is set to a non-empty value other than ``0``): the runtime then
compiles without HDF5 (``io/hdf5.c`` sees no ``hdf5.h``) and a program refuses ``--save-to`` saying so.
The serial build asks for ``hdf5-serial`` by name (``hdf5.pc`` is a Debian alternative that installing
the OpenMPI build points at it); ``mpi=True`` asks for ``hdf5-openmpi`` (parallel HDF5: every rank writes
its own cells, docs/design/021) and falls back to the serial library when it is missing (rank 0 then
gathers the cells and writes, and says so at run time).  Each answer is computed once per process.
"""

from __future__ import annotations

import functools
import os
import shlex
import shutil
import subprocess
from pathlib import Path


def _pkg(name: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """(cflags, libs) of pkg-config package `name` when it is a libhdf5 with its high-level library."""
    try:
        cf = subprocess.run(["pkg-config", "--cflags", name], capture_output=True, text=True, timeout=30)
        lf = subprocess.run(["pkg-config", "--libs-only-L", name], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    if cf.returncode or lf.returncode:
        return None
    cflags = tuple(shlex.split(cf.stdout))
    ldirs = tuple(shlex.split(lf.stdout))
    incs = [f[2:] for f in cflags if f.startswith("-I")] or ["/usr/include"]
    libdirs = [f[2:] for f in ldirs if f.startswith("-L")]
    if not any((Path(d) / "hdf5_hl.h").is_file() for d in incs):
        return None  # the high-level library (dimension scales) is part of libhdf5-dev; without it, none
    if libdirs and not any((Path(d) / "libhdf5_hl.so").exists() or (Path(d) / "libhdf5_hl.a").exists()
                           for d in libdirs):
        return None
    libs = []
    for lib in ("hdf5_hl", "hdf5"):  # as files, so that a link line is whole without its -L (pkg-config's
        # --static --libs-only-other of a library's .pc, docs/embedding.md, keeps them; -L it would drop)
        path = next((Path(d) / f"lib{lib}{ext}" for ext in (".so", ".a") for d in libdirs
                     if (Path(d) / f"lib{lib}{ext}").exists()), None)
        libs.append(str(path) if path else f"-l{lib}")
    # (only the -I of libhdf5's headers: the MPI build's other -I are mpicc's own)
    rpath = tuple(f"-Wl,-rpath,{d}" for d in libdirs if "hdf5" in d)
    return tuple(f for f in cflags if not f.startswith("-I") or "hdf5" in f), rpath + tuple(libs)


@functools.lru_cache(maxsize=2)
def hdf5_flags(mpi: bool = False) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(cflags, libs) for libhdf5 (``mpi``: the OpenMPI build when there, else the serial one), or two
    empty tuples when it is not there (or not wanted)."""
    if os.environ.get("STENCILC_NO_HDF5", "") not in ("", "0") or not shutil.which("pkg-config"):
        return (), ()
    for name in (("hdf5-openmpi",) if mpi else ()) + ("hdf5-serial", "hdf5"):
        found = _pkg(name)
        if found and (name != "hdf5" or not any("openmpi" in f for f in found[0])):
            return found
    return (), ()
