"""The importer's fuzzer, CI profile (issue 28; tools/fuzz_import.py runs longer campaigns): random and
mutated C kernels -- macros, 1d to 3d nests, in-place reads, sums of up to 20,000 terms, bytes that are
not UTF-8 -- through ``stencilc import``, a fixed seed so that a failure reproduces.  Each must end with
exit 0 and a .stn (and a rewrite), or a located error: never an internal error, a crash or a hang."""

from __future__ import annotations

import faulthandler
import os
import signal
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

pytest.importorskip("clang.cindex", reason="the libclang package (a dependency of stencilc) is not installed")

import fuzz_import  # noqa: E402


def test_the_import_fuzzers_ci_profile_finds_nothing(tmp_path):
    stats = fuzz_import.campaign(inputs=40, seed=20261128, timeout=300.0, save_dir=tmp_path, huge_every=8)
    assert stats["inputs"] == 40 and stats["accepted"] >= 5 and stats["refused"] >= 5, stats
    assert stats["huge"] >= 3, stats  # the sums that crashed libclang's parse are in the profile
    assert not stats["failures"], "\n\n".join(f"{f['kind']}: {f.get('file')}\n{f['detail']}"
                                             for f in stats["failures"][:5])


def test_the_import_fuzzer_tells_a_crash_from_a_refusal(tmp_path, monkeypatch):
    """Its classification on inputs whose outcome is known (a campaign that could not see a failure
    would prove nothing): a lifted kernel, located refusals, a dead importer."""
    good = str(REPO / "examples" / "import" / "jacobi2d.c")
    assert fuzz_import._import(good, [], None, str(tmp_path / "g")) == ("ok", "")
    assert (tmp_path / "g.stn").read_text().startswith("// g.stn: lifted")
    bad = tmp_path / "bad.c"
    bad.write_text("void f(int n) { n = n; }\n")
    kind, text = fuzz_import._import(str(bad), [], "f", str(tmp_path / "b"))
    assert kind == "error" and "bad.c:1:1: error: no stencil loop nest" in text, text
    assert fuzz_import._import(str(bad), [], "nothere", str(tmp_path / "c"))[0] == "error"
    monkeypatch.setattr(fuzz_import, "_import",  # (pytest's faulthandler would print the dying worker's stack)
                        lambda *a: (faulthandler.disable(), os.kill(os.getpid(), signal.SIGSEGV)))
    w = fuzz_import.Worker()  # (forked after the patch: its import dies)
    try:
        kind, text = w.run(("x.c", [], None, "x"), 60)
        assert kind == "crash" and f"exit {-signal.SIGSEGV}" in text, (kind, text)
    finally:
        w.close()
