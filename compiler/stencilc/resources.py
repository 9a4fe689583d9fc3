"""Where stencilc finds its templates and the C runtime sources.

In an installed wheel they live in ``stencilc/_data``; in a source checkout (or an
editable install) they are the repository's ``templates/`` and ``runtime/``.
"""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent


def data_dir() -> Path:
    packaged = _PKG / "_data"
    if packaged.is_dir():
        return packaged
    repo = _PKG.parents[1]
    if (repo / "templates").is_dir() and (repo / "runtime").is_dir():
        return repo
    raise FileNotFoundError("stencilc's templates and runtime sources are missing from this installation")


def templates_dir() -> Path:
    return data_dir() / "templates"


def runtime_dir() -> Path:
    return data_dir() / "runtime"


def cmake_dir() -> Path:
    """The CMake package's folder (stencilcConfig.cmake): ``stencilc --cmake-dir``."""
    return data_dir() / "cmake"
