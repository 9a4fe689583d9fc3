"""docs/embedding.md's examples, run as written, so that the page cannot drift from the program.

Every fenced code block of the page is taken as it stands.  A block whose first line is a comment naming
a file (``/* mysim.c ...``, ``! mysim.f90 ...``, ``# CMakeLists.txt ...``, ``# mysim.py ...``) is that
file; every ``sh`` block is a shell session, run with ``bash -e`` in a fresh folder that holds those files
and a copy of ``examples/`` (the page's commands run from a checkout's top folder), with ``stencilc`` on
PATH (this tree's compiler; the CMake package is told the same through CMAKE_PROGRAM_PATH, as an installed
one finds the stencilc beside it) and ``python`` the interpreter running the tests.  Each section (``##``)
is a test of its own; a section whose commands need a missing tool (gfortran, cmake, pkg-config) is
skipped with that reason.  Expects: the blocks of a section need only the files of the page and what the
section's own sh blocks make.  Guarantees: every block of the page is used (a block that is neither a
file nor sh fails the test), and every sh block exits 0."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import docs_blocks
import pytest
from conftest import REPO_ROOT

DOC = REPO_ROOT / "docs" / "embedding.md"
FILE_LINE = re.compile(r"^(?:/\*|!|#)\s*([\w.-]+\.(?:c|f90|py|txt))\b")
TOOLS = ("cc", "gfortran", "cmake", "pkg-config")


def blocks() -> list[tuple[str, str, str]]:
    """(section, language, text) of every fenced block, in the page's order."""
    return [(b.section, b.info or "text", b.text) for b in docs_blocks.blocks(DOC)]


def files() -> dict[str, str]:
    """The page's files by name (the blocks that name one on their first line)."""
    named = {}
    for _, lang, text in blocks():
        m = FILE_LINE.match(text)
        if lang != "sh" and m:
            assert m.group(1) not in named, f"{m.group(1)} is given twice"
            named[m.group(1)] = text
    return named


SECTIONS = sorted({s for s, lang, _ in blocks() if lang == "sh"}, key=[b[0] for b in blocks()].index)


def test_every_block_is_a_file_or_a_session():
    for section, lang, text in blocks():
        assert lang == "sh" or FILE_LINE.match(text), f"{section}: a {lang} block that names no file:\n{text}"
    names = files()
    for needed in ("mysim.c", "CMakeLists.txt", "mysim.f90", "mysim.py"):
        assert needed in names, f"the page gives no {needed}"


@pytest.mark.parametrize("section", SECTIONS)
def test_the_sections_commands_run_as_written(section, tmp_path):
    sessions = [text for s, lang, text in blocks() if s == section and lang == "sh"]
    words = set(re.findall(r"[\w-]+", "\n".join(sessions)))
    missing = [t for t in TOOLS if t in words and not shutil.which(t)]
    if missing:
        pytest.skip(f"{section}: {', '.join(missing)} missing here")
    work = tmp_path / "work"
    shutil.copytree(REPO_ROOT / "examples", work / "examples", ignore=shutil.ignore_patterns("__pycache__"))
    for name, text in files().items():
        (work / name).write_text(text)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, cmd in (("stencilc", f"{sys.executable} -m stencilc"), ("python", sys.executable)):
        (bin_dir / name).write_text(f'#!/bin/sh\nexec {cmd} "$@"\n')
        (bin_dir / name).chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", CMAKE_PROGRAM_PATH=str(bin_dir),
               PYTHONPATH=str(REPO_ROOT / "compiler"))
    for text in sessions:
        p = subprocess.run(["bash", "-e", "-c", text], cwd=work, env=env, capture_output=True, text=True,
                           timeout=1200)
        assert p.returncode == 0, f"{section}: exit {p.returncode}:\n{text}\n--- stdout\n{p.stdout}\n--- stderr\n{p.stderr}"
    assert not list(work.glob("scratch/*.grid")), "scratch files left behind"
    assert not (work / "heat3d.lock").exists()
