"""Measuring the flash device: ``stencilc probe --dir DIR [--size 1G] [--seconds 0.3] [-o FILE]``.

Expects: DIR on the device to measure, in a file system that accepts O_DIRECT, with room for a
test file of ``--size`` bytes; a C compiler, as for any build.  Guarantees: the curves are
measured by the runtime's own code (``runtime/src/io/probe.c`` through ``runtime/tools/probe_main.c``,
built once against the cached runtime library by ``toolchain.runtime_tool``), with the runtime's
libaio queue and O_DIRECT, so the time model is fed by the IO path it models.  The machine file
(docs/machines.md: this machine's cores, caches, DRAM and device block, the device's ``read``,
``write``, ``mixed`` and ``mixed_new`` curves and ``compute_under_io``) appears whole or not at all, at ``-o FILE`` or at the cache path a run looks
in (``devices/MAJOR-MINOR.json`` under ``$STENCILC_CACHE_DIR``, ``$XDG_CACHE_HOME/stencilc`` or
``~/.cache/stencilc``); the test file is removed, also on failure.  The exit status is the tool's:
0, 1 (the directory, the device or the output failed), 2 (a command-line mistake).
"""

from __future__ import annotations

import subprocess

from .toolchain import runtime_tool


def command(exe: str, directory: str, size: str | None = None, seconds: str | None = None, output: str | None = None,
            quiet: bool = False) -> list[str]:
    """The tool's command line for these options (None: the tool's default)."""
    cmd = [exe, "--dir", directory]
    for flag, value in (("--size", size), ("--seconds", seconds), ("-o", output)):
        if value is not None:
            cmd += [flag, value]
    if quiet:
        cmd.append("--quiet")
    return cmd


def run(directory: str, size: str | None = None, seconds: str | None = None, output: str | None = None,
        quiet: bool = False, cc: str | None = None, cflags: str | None = None) -> int:
    """Build the probe (cached) and run it; its output goes straight to ours, its status is returned."""
    exe = runtime_tool("probe", cc=cc, cflags=cflags)
    r = subprocess.run(command(str(exe), directory, size, seconds, output, quiet))
    return r.returncode if r.returncode >= 0 else 128 - r.returncode  # killed by a signal: as a shell says
