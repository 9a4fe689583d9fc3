"""The committed parser is what the pinned ANTLR makes of the committed grammar.

Expects: java on PATH (the test is skipped, saying so, without it) and the ANTLR 4.13.2 jar in
``.cache/antlr/`` -- ``tools/gen-parser.sh`` fetches it with ``tools/fetch-antlr.sh`` when it is
missing, which needs the network once.

Guarantees: fails, naming the files that differ, when ``grammar/Stencil.g4`` was edited without
running ``tools/gen-parser.sh`` (or the generated files were edited by hand).
"""

from __future__ import annotations

import difflib
import shutil
import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
COMMITTED = REPO_ROOT / "compiler" / "stencilc" / "frontend" / "generated"
GEN_SCRIPT = REPO_ROOT / "tools" / "gen-parser.sh"


def _files(d: Path) -> dict[str, Path]:
    return {p.name: p for p in sorted(d.iterdir()) if p.is_file()}


def test_generated_parser_is_current(tmp_path: Path) -> None:
    if shutil.which("java") is None:
        pytest.skip("java is not installed, so ANTLR cannot regenerate the parser to compare it")
    fresh = tmp_path / "generated"
    proc = subprocess.run(["bash", str(GEN_SCRIPT), str(fresh)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, f"tools/gen-parser.sh failed (exit {proc.returncode}):\n{proc.stdout}{proc.stderr}"

    committed, regenerated = _files(COMMITTED), _files(fresh)
    assert sorted(committed) == sorted(regenerated), (
        "the generated file set differs from the committed one; run tools/gen-parser.sh\n"
        f"  committed:   {sorted(committed)}\n  regenerated: {sorted(regenerated)}"
    )
    stale = []
    for name, path in regenerated.items():
        old = committed[name].read_text(encoding="utf-8")
        new = path.read_text(encoding="utf-8")
        if old != new:
            diff = "".join(list(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                                     f"committed/{name}", f"regenerated/{name}"))[:40])
            stale.append(diff)
    assert not stale, "the committed parser is stale; run tools/gen-parser.sh and commit the result\n" + "\n".join(
        stale)
