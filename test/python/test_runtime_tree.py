"""The runtime's sources in folders by layer (runtime/src/base, io, ..., program; docs/design/020), and
everything that lists them follows: the driver compiles every one and keys its cache on every one.

Expects: the checkout's ``compiler/`` on the path (conftest).  Guarantees: ``toolchain.runtime_sources``
is every ``.c`` under ``runtime/src`` at any depth, with distinct names, and at least one of them in a
folder; the cache key of the runtime library changes when a file in a folder changes (a stale library
would otherwise be linked); the runtime's own tool builds against the folders' headers.
"""

from __future__ import annotations

import shutil
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


def test_the_runtime_dir_is_the_checkouts():
    assert resources.runtime_dir() == REPO / "runtime"
