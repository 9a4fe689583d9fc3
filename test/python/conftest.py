"""Shared fixtures for the Python tests.

- ``repo_root``: the repository's top directory.
- ``compile_example(name)``: compiles ``examples/NAME.stn`` once per test session and returns
  the program's path (a failed compilation fails every test that asks for it, with the
  compiler's diagnostic).  Uses ``python -m stencilc`` from ``compiler/``, or the ``stencilc``
  on PATH when the environment has ``STENCILC_INSTALLED=1``.
- ``run_program(exe, args, timeout=...)``: runs a program, returns ``(returncode, stdout, stderr)``.

``examples/`` is put on ``sys.path`` so tests can ``import reference``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLES_DIR = REPO_ROOT / "examples"
COMPILE_TIMEOUT_S = 300
RUN_TIMEOUT_S = 120

if str(EXAMPLES_DIR) not in sys.path:
    sys.path.insert(0, str(EXAMPLES_DIR))


def stencilc_command() -> tuple[list[str], dict[str, str]]:
    """The command that runs the compiler, and the environment to run it in."""
    env = dict(os.environ)
    if env.get("STENCILC_INSTALLED") == "1":
        return ["stencilc"], env
    compiler = str(REPO_ROOT / "compiler")
    env["PYTHONPATH"] = compiler + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return [sys.executable, "-m", "stencilc"], env


def _run(cmd: list[str], timeout: float, env: dict[str, str] | None = None,
         cwd: Path | None = None) -> tuple[int, str, str]:
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        pytest.fail(f"timed out after {timeout} s: {' '.join(map(str, cmd))}\n{out}\n{err}")
    return p.returncode, p.stdout, p.stderr


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def run_program():
    """``run_program(exe, args, timeout=RUN_TIMEOUT_S) -> (returncode, stdout, stderr)``."""

    def run(exe: Path | str, args: list[str], timeout: float = RUN_TIMEOUT_S) -> tuple[int, str, str]:
        return _run([str(exe), *map(str, args)], timeout)

    return run


@pytest.fixture(scope="session")
def compile_example(tmp_path_factory):
    """``compile_example(name) -> Path`` of the compiled program, built once per session."""
    outdir = tmp_path_factory.mktemp("examples-bin")
    cache: dict[str, tuple[Path | None, str]] = {}

    def build(name: str) -> Path:
        if name not in cache:
            src = EXAMPLES_DIR / f"{name}.stn"
            exe = outdir / name
            cmd, env = stencilc_command()
            rc, out, err = _run([*cmd, str(src), "-o", str(exe)], COMPILE_TIMEOUT_S, env=env, cwd=REPO_ROOT)
            if rc != 0 or not exe.exists():
                cache[name] = (None, f"stencilc failed on {src.name} (exit {rc}):\n{out}{err}")
            else:
                cache[name] = (exe, "")
        exe, why = cache[name]
        if exe is None:
            pytest.fail(why, pytrace=False)
        return exe

    return build
