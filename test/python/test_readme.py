"""The README's examples, run as written (issue 28, point 18), so that it cannot drift from the program.

The README marks its blocks with directives (test/python/docs_blocks.py):

* ``run``: shell commands.  Every ``sh`` block of its "Use" section has one.  They run in order, as
  one script pasted into a shell (``set -e``), in a temporary directory that holds what a clone
  holds for them (``examples/``, ``tools/``) and a ``.venv/bin/activate`` that puts this tree's
  compiler on PATH; the only changes are the block's own ``sub`` clauses (smaller sizes);
* ``sample``: what the run above printed (its first and last two lines, ``...`` between, when longer);
  its first and last lines, with the numbers masked, must be among the lines the run prints here.
  ``python test/python/test_readme.py --refresh`` runs the first ``run`` block as written (no ``sub``)
  and puts what it prints in the sample;
* ``stn NAME``: a .stn file, which must compile; ``error of the next stn block``: what the compiler
  prints for that file after the ``sub`` clauses, exactly.

Every ``make TARGET`` the README names must be a target, and every relative link must exist.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import docs_blocks
import pytest
from conftest import stencilc_command

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
NUMBER = re.compile(r"\d+(?:\.\d+)?(?:e[+-]?\d+)?")
ELLIPSIS = "..."  # in a sample, in place of the lines between its first and last two


def readme_blocks() -> list[docs_blocks.Block]:
    return docs_blocks.blocks(README)


def masked(line: str) -> str:
    line = re.sub(r"\(device curves: [^)]*\)", "(device curves: C)", line)  # (calibrated now on a first run, or cached)
    # (a size's unit follows the plan, which follows the device's curves: measured, they vary by machine)
    line = re.sub(r"\d+(?:\.\d+)? (?:bytes|KiB|MiB|GiB|TiB)", "# B", line)
    line = re.sub(r"z-strip \w+", "z-strip S", line)  # (and so does where the plan puts its z-strip)
    return NUMBER.sub("#", line.rstrip())


def clone_like(d: Path) -> Path:
    """``d`` as a clone is for the README's commands: examples/ and tools/, and a .venv/bin/activate
    that puts this tree's stencilc (and the Python running the tests) first on PATH."""
    for sub in ("examples", "tools"):
        (d / sub).symlink_to(REPO / sub)
    bin_ = d / ".venv" / "bin"
    bin_.mkdir(parents=True)
    cmd, env = stencilc_command()
    (bin_ / "stencilc").write_text(f"#!/bin/sh\nPYTHONPATH={shlex.quote(env.get('PYTHONPATH', ''))} "
                                   f"exec {shlex.join(cmd)} \"$@\"\n")
    (bin_ / "stencilc").chmod(0o755)
    (bin_ / "python").symlink_to(sys.executable)
    (bin_ / "activate").write_text(f'PATH={shlex.quote(str(bin_))}:"$PATH"; export PATH\n')
    return d


def run_script(d: Path, script: str, timeout: float = 1200) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-e", "-x", "-c", script], cwd=d, capture_output=True, text=True, timeout=timeout)


def test_every_command_block_of_use_is_run():
    use = [b for b in readme_blocks() if b.section == "Use" and b.info in ("sh", "bash", "shell")]
    assert len(use) >= 2 and all(b.has("run") for b in use), [(b.line, b.clauses) for b in use]


def test_the_use_section_runs_as_written_and_prints_its_sample(tmp_path):
    blocks = readme_blocks()
    runs = [b for b in blocks if b.has("run")]
    d = clone_like(tmp_path)
    r = run_script(d, "".join(b.substituted() for b in runs))
    assert r.returncode == 0, f"the README's commands failed here:\n{r.stderr[-4000:]}"
    for made in ("heat3d", "u.npy", "run.json", "u2.npy", "u3.npy", "heat3d-c/heat3d.c", "probe.json"):
        assert (d / made).exists(), made
    sample = next(b for b in blocks if b.has("sample"))
    printed = {masked(line) for line in r.stderr.splitlines() if not line.startswith("+")}
    lines = [ln for ln in sample.text.splitlines() if ln.strip() and ln != ELLIPSIS]
    for line in (lines[0], lines[-1]):
        assert masked(line) in printed, (f"README line {sample.line}: the sample's {line!r} is no longer what a run "
                                         f"prints; run python test/python/test_readme.py --refresh\n{r.stderr[-3000:]}")


def test_the_language_block_compiles_and_the_error_block_is_what_the_compiler_prints(tmp_path):
    blocks = readme_blocks()
    cmd, env = stencilc_command()
    for i, b in enumerate(blocks):
        if b.has("stn"):
            f = tmp_path / b.args("stn")[0][0]
            f.write_text(b.text)
            r = subprocess.run([*cmd, str(f), "--emit=ir"], cwd=tmp_path, capture_output=True, text=True, env=env)
            assert r.returncode == 0, f"README line {b.line}: {r.stderr}"
        if b.has("error"):
            stn = next(s for s in blocks[i + 1:] if s.has("stn"))
            f = tmp_path / stn.args("stn")[0][0]
            f.write_text(docs_blocks.Block(stn.info, stn.text, stn.line, stn.section, b.clauses).substituted())
            r = subprocess.run([*cmd, f.name], cwd=tmp_path, capture_output=True, text=True, env=env)
            assert r.returncode == 1 and r.stderr == b.text, f"README line {b.line}:\n{r.stderr}"


def test_make_targets_and_links_exist():
    text = README.read_text()
    for target in sorted(set(re.findall(r"\bmake ([a-z][a-z-]*)", text))):
        r = subprocess.run(["make", "-n", target], cwd=REPO, capture_output=True, text=True)
        assert r.returncode == 0, f"make {target}: {r.stderr}"
    for link in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text):
        assert (REPO / link).exists(), link


def test_a_drift_fails(tmp_path):
    """The checks can fail: a renamed flag, a file that is not there."""
    block = next(b for b in readme_blocks() if b.has("run"))
    d = clone_like(tmp_path)
    assert run_script(d, block.substituted().replace("--steps", "--step-count")).returncode != 0
    assert run_script(d, block.substituted().replace("examples/heat3d.stn", "heat3d.stn")).returncode != 0
    with pytest.raises(ValueError, match="no '--nothing'"):
        docs_blocks.Block("sh", "x\n", 1, "", docs_blocks.parse_clauses('sub "--nothing" "y"')).substituted()


def refresh() -> int:
    """Runs the first ``run`` block as written and puts what it prints in the ``sample`` block."""
    blocks = readme_blocks()
    first = next(b for b in blocks if b.has("run"))
    sample = next(b for b in blocks if b.has("sample"))
    with tempfile.TemporaryDirectory() as d:
        r = run_script(clone_like(Path(d)), first.text)
    if r.returncode:
        sys.stderr.write(r.stderr)
        return 1
    out = [line for line in r.stderr.splitlines() if not line.startswith("+")]
    if len(out) > 6:
        out = out[:2] + [ELLIPSIS] + out[-2:]
    printed = "".join(line + "\n" for line in out)
    lines = README.read_text().splitlines(keepends=True)
    start, end = sample.line, sample.line + len(sample.text.splitlines())  # the lines between the fences
    README.write_text("".join(lines[:start]) + printed + "".join(lines[end:]))
    print(f"README.md: the sample at line {sample.line} is now what the run printed ({len(printed.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("STENCILC_CACHE_DIR", str(REPO / "build" / "stencilc-cache"))
    sys.exit(refresh() if sys.argv[1:] == ["--refresh"] else print(__doc__) or 2)
