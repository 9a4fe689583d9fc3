"""lit configuration for stencilc's FileCheck tests (``lit test/lit``).

Expects: ``lit`` and FileCheck (``FileCheck``, ``FileCheck-NN`` or ``/usr/lib/llvm-*/bin/FileCheck``;
the env var ``FILECHECK`` overrides the search).  Tests are ``.stn`` files (and ``.c`` files for ``stencilc
import``) whose ``// RUN:`` lines
use these substitutions:

* ``stencilc`` -- ``<python> -m stencilc`` with ``PYTHONPATH=<repo>/compiler`` (the source tree), or
  the command in the env var ``STENCILC`` (or ``stencilc`` from PATH when ``STENCILC_INSTALLED=1``),
  to test an installed compiler;
* ``FileCheck`` -- the FileCheck found above;
* ``%examples`` -- the repository's ``examples/`` directory;
* ``%python`` -- the Python that runs lit (for ``%python %S/../validate_report.py REPORT.json``,
  which checks a run report against ``docs/report.schema.json``; it needs jsonschema).

Guarantees: tests run with lit's internal shell (``execute_external=False``), so ``not`` works on
every platform; a missing FileCheck is a configuration error, not a silent pass; lit's scratch files
go to ``build/lit/``, never into the source tree.
"""

# ruff: noqa: F821 - lit injects `config` and `lit_config`

import glob
import os
import re
import shlex
import shutil
import sys

import lit.formats

config.name = "stencilc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".stn", ".c"]  # .c: stencilc import
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
repo_root = os.path.dirname(os.path.dirname(config.test_source_root))
# lit's Output/ dirs and .lit_test_times.txt go under the (ignored) build dir, not into test/lit.
config.test_exec_root = os.path.join(repo_root, "build", "lit")


def _find_filecheck():
    explicit = os.environ.get("FILECHECK")
    if explicit:
        return explicit
    for name in ["FileCheck"] + [f"FileCheck-{v}" for v in range(25, 9, -1)]:
        path = shutil.which(name)
        if path:
            return path
    def llvm_version(path):
        m = re.search(r"/llvm-(\d+)/", path)
        return int(m.group(1)) if m else 0

    candidates = sorted(glob.glob("/usr/lib/llvm-*/bin/FileCheck"), key=llvm_version)
    return candidates[-1] if candidates else None


filecheck = _find_filecheck()
if filecheck is None:
    lit_config.fatal("FileCheck not found: install LLVM's FileCheck (e.g. apt-get install llvm) or set FILECHECK")

stencilc_env = os.environ.get("STENCILC")
if stencilc_env:
    stencilc = stencilc_env
elif os.environ.get("STENCILC_INSTALLED") == "1":
    stencilc = shutil.which("stencilc") or lit_config.fatal("STENCILC_INSTALLED=1 but no stencilc on PATH")
else:
    stencilc = f"{shlex.quote(sys.executable)} -m stencilc"
    compiler_dir = os.path.join(repo_root, "compiler")
    pythonpath = os.environ.get("PYTHONPATH")
    config.environment["PYTHONPATH"] = compiler_dir + (os.pathsep + pythonpath if pythonpath else "")

# Pass through what the compiler and its toolchain may need.
for var in ("HOME", "TMPDIR", "CC", "STENCILC_CFLAGS", "LANG", "LC_ALL"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
# the cache (compiled runtimes, device curves, loops' rates): the build tree's, as pytest's (conftest.py), not the
# user's ~/.cache/stencilc; and no prediction from loops an earlier test left there
config.environment["STENCILC_CACHE_DIR"] = os.environ.get("STENCILC_CACHE_DIR") or os.path.join(
    repo_root, "build", "stencilc-cache")
config.environment["STENCILC_RATE_HISTORY"] = os.environ.get("STENCILC_RATE_HISTORY", "0")

# Word-boundary substitutions: `stencilc` must not rewrite `stencilc` inside a path or a word.
config.substitutions.append(("%examples", os.path.join(repo_root, "examples")))
# (lit applies these before its own, so %python is never read as %p followed by "ython")
config.substitutions.append(("%python", shlex.quote(sys.executable)))
config.substitutions.append((r"(?<![\w/.-])stencilc(?![\w/.-])", stencilc))
config.substitutions.append((r"(?<![\w/.-])FileCheck(?![\w/.-])", shlex.quote(filecheck)))
