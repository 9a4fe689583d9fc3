"""The runtime's files call each other in layers, as runtime/src/stn_run.h lists them.

Expects: a C compiler and ``nm`` (binutils).  Guarantees: each runtime/src/*.c is compiled on its
own and ``nm`` reads which global symbols it defines and which it uses; then

* no file uses a symbol defined in a higher layer (so nothing calls up into program.c, and the
  tuner, the plan and the model need no engine);
* the files call each other without a cycle (within a layer too);
* every file is in exactly one layer, and stn_run.h names each of them.

A new file must be placed in LAYERS (and in stn_run.h's list) before this test passes.
"""

from __future__ import annotations

import shutil
import subprocess
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "runtime" / "src"

# Lowest first; the same list as the comment at the top of runtime/src/stn_run.h.
LAYERS = [
    ["error", "stats", "alloc", "file", "ring", "npy", "progress", "hw", "gridio", "args", "usage", "mapfile",
     "device", "probe", "par", "desc", "checkpoint"],
    ["run", "iblock"],
    ["ooc_plan", "tune", "tune_rate"],
    ["incore", "ooc", "ooc_window", "ooc_xfer", "ooc_state"],
    ["report", "runfiles", "summary"],
    ["program"],
]
LAYER_OF = {name: k for k, names in enumerate(LAYERS) for name in names}


def _symbols(obj: Path) -> tuple[set[str], set[str]]:
    out = subprocess.run(["nm", "--format=posix", str(obj)], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            used.add(name)
        elif kind.isupper():  # global text, data, bss, read-only data, common
            defined.add(name)
    return defined, used


@pytest.fixture(scope="module")
def graph(tmp_path_factory) -> dict[str, set[str]]:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None or shutil.which("nm") is None:
        pytest.skip("needs a C compiler and nm")
    tmp = tmp_path_factory.mktemp("layers")
    defined_by: dict[str, str] = {}
    uses: dict[str, set[str]] = {}
    for src in sorted(SRC.glob("*.c")):
        obj = tmp / (src.stem + ".o")
        subprocess.run([cc, "-c", "-O0", "-fopenmp", "-std=gnu11", "-I", str(REPO / "runtime" / "include"),
                        str(src), "-o", str(obj)], check=True, capture_output=True, text=True)
        defined, used = _symbols(obj)
        for sym in defined:
            assert sym not in defined_by, f"{sym} is defined in both {defined_by[sym]}.c and {src.stem}.c"
            defined_by[sym] = src.stem
        uses[src.stem] = used
    return {f: {defined_by[s] for s in used if s in defined_by and defined_by[s] != f} for f, used in uses.items()}


def test_every_file_has_a_layer_and_the_header_names_it(graph):
    assert set(graph) == set(LAYER_OF), f"files without a layer: {set(graph) - set(LAYER_OF)}; " \
                                        f"layers naming no file: {set(LAYER_OF) - set(graph)}"
    listing = (SRC / "stn_run.h").read_text().split("*/")[0]
    for name in LAYER_OF:
        assert name in listing, f"stn_run.h's list of layers does not name {name}.c"


def test_no_file_calls_up(graph):
    up = sorted((f, g) for f, deps in graph.items() for g in deps if LAYER_OF[g] > LAYER_OF[f])
    assert not up, "calls into a higher layer: " + ", ".join(f"{f}.c -> {g}.c" for f, g in up)


def test_nothing_calls_into_program_c(graph):
    callers = sorted(f for f, deps in graph.items() if "program" in deps)
    assert not callers, f"{callers} call into program.c"


def test_the_files_call_each_other_without_a_cycle(graph):
    try:
        order = list(TopologicalSorter(graph).static_order())
    except CycleError as e:
        pytest.fail(f"a cycle between runtime files: {' -> '.join(e.args[1])}")
    assert order[-1] == "program"


def test_the_tuner_and_the_model_need_no_engine(graph):
    """tune.c and ooc_plan.c reach neither engine nor program.c, directly or through others."""
    def reach(f: str, seen: set[str]) -> set[str]:
        for g in graph[f] - seen:
            seen.add(g)
            reach(g, seen)
        return seen

    for f in ("tune", "tune_rate", "ooc_plan"):
        bad = reach(f, set()) & {"ooc", "ooc_window", "ooc_xfer", "ooc_state", "incore", "program", "report"}
        assert not bad, f"{f}.c reaches {sorted(bad)}"
