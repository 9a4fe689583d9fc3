"""The runtime's sources in folders by layer (runtime/src/base, io, ..., program; docs/design/020), and
everything that lists them follows: the driver compiles every one and keys its cache on every one.

Expects: the checkout's ``compiler/`` on the path (conftest).  Guarantees: ``toolchain.runtime_sources``
is every ``.c`` under ``runtime/src`` at any depth, with distinct names, and at least one of them in a
folder; the cache key of the runtime library changes when a file in a folder changes (a stale library
would otherwise be linked); the Makefile ``--emit=c`` writes builds a program from the sources in their
folders; every share of the DRAM budget is the memory policy's (base/mem.c).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import stencilc.resources as resources
import stencilc.toolchain as toolchain

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "runtime" / "src"


def test_the_driver_compiles_every_runtime_source_in_every_folder():
    found = toolchain.runtime_sources()
    assert found == sorted(SRC.rglob("*.c"))
    assert any(p.parent != SRC for p in found), "the sources are in folders by layer"
    stems = [p.stem for p in found]
    assert len(set(stems)) == len(stems), "two runtime files share a name (each is NAME.o in one library)"


def test_the_cache_key_covers_the_files_in_folders(tmp_path, monkeypatch):
    copy = tmp_path / "runtime"
    shutil.copytree(REPO / "runtime" / "src", copy / "src")
    shutil.copytree(REPO / "runtime" / "include", copy / "include")
    monkeypatch.setattr(toolchain, "runtime_dir", lambda: copy)
    keys = {str(p.relative_to(copy)) for p in toolchain.runtime_key_files()}
    assert keys == {str(p.relative_to(REPO / "runtime")) for d in ("src", "include")
                    for p in (REPO / "runtime" / d).rglob("*") if p.is_file()}
    before = toolchain.runtime_key(["cc"], ["-O2"])
    nested = next(p for p in sorted((copy / "src").rglob("*.h")) if p.parent != copy / "src")
    nested.write_text(nested.read_text() + "\n/* changed */\n")
    assert toolchain.runtime_key(["cc"], ["-O2"]) != before, f"a change to {nested.name} must rebuild the runtime"
    moved = copy / "src" / "base" / "moved.c"
    shutil.move(next((copy / "src" / "io").glob("*.c")), moved)
    assert toolchain.runtime_key(["cc"], ["-O2"]) != before


def test_sources_edited_during_the_build_are_never_cached_under_the_old_key(tmp_path, monkeypatch):
    """runtime_library takes the key again after compiling: an edit while the sources were being compiled
    (a checkout's runtime changed under a running build) must not leave a library of the old sources under
    the new key, nor of the new under the old; it is built again under the key of what it compiled."""
    copy = tmp_path / "runtime"
    shutil.copytree(REPO / "runtime" / "src", copy / "src")
    shutil.copytree(REPO / "runtime" / "include", copy / "include")
    monkeypatch.setattr(toolchain, "runtime_dir", lambda: copy)
    monkeypatch.setenv("STENCILC_CACHE_DIR", str(tmp_path / "cache"))
    header = copy / "include" / "stn_rt.h"
    builds = []

    def build(cc, cflags, tmp):  # (stands for the compile: records what it saw, edits during the first)
        builds.append(header.read_text())
        if len(builds) == 1:
            header.write_text(header.read_text() + "\n/* edited during the build */\n")
        staged = tmp / "stage"
        staged.mkdir()
        (staged / "libstnrt.a").write_text(builds[-1])
        return staged

    monkeypatch.setattr(toolchain, "_build_runtime", build)
    first_key = toolchain.runtime_key(["cc"], ["-O2"])
    lib = toolchain.runtime_library(["cc"], ["-O2"])
    assert len(builds) == 2 and lib.read_text() == header.read_text(), "built again from the edited sources"
    assert lib.parent.name == f"runtime-{toolchain.runtime_key(['cc'], ['-O2'])}" != f"runtime-{first_key}"
    assert not (tmp_path / "cache" / f"runtime-{first_key}").exists(), "nothing published under the old key"


def test_the_runtime_dir_is_the_checkouts():
    assert resources.runtime_dir() == REPO / "runtime"


# A fraction of the budget, of the DRAM figure or of the memory of a machine's ranks, taken by hand.
SHARE = re.compile(r"(mem_budget|budget|dram\.value)\s*[/*]\s*[0-9(]|/=\s*\(uint64_t\)\s*node")


def test_every_share_of_the_budget_is_the_memory_policys():
    """No runtime source but base/mem.c divides the budget or the DRAM figure (issue 29: main had
    mem_budget / 8 in ooc.c and / 4, / 8 in run.c): each share is named once, in the memory policy."""
    found = [f"{p.relative_to(SRC)}:{n}: {line.strip()}" for p in sorted(SRC.rglob("*.c")) if p.name != "mem.c"
             for n, line in enumerate(p.read_text().splitlines(), 1) if SHARE.search(line)]
    assert not found, "shares of the budget outside base/mem.c:\n" + "\n".join(found)
    assert SHARE.search("uint64_t cap = r->mem_budget / 4 < x;")  # (the pattern sees what main had)


def test_the_generated_makefile_builds_against_the_sources_in_folders(tmp_path):
    """`stencilc FILE --emit=c -o DIR` writes a Makefile that compiles the runtime's sources with the
    kernels (docs/cli.md): every one, in every folder, found by their paths under src/."""
    from conftest import stencilc_command

    cmd, env = stencilc_command()
    gen = tmp_path / "gen"
    subprocess.run([*cmd, str(REPO / "examples" / "heat3d.stn"), "--emit=c", "-o", str(gen)], env=env, check=True)
    make = subprocess.run(["make", "-C", str(gen), "CFLAGS=-O0 -fopenmp -std=gnu11"], capture_output=True, text=True,
                          timeout=900)
    assert make.returncode == 0, make.stdout + make.stderr
    run = subprocess.run([str(gen / "heat3d"), "--size", "8,8,8", "--steps", "2", "--mode", "incore", "--quiet"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
