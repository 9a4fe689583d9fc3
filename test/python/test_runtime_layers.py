"""The runtime's files call each other in layers, one folder of runtime/src a layer, as
runtime/src/run/stn_run.h lists them.

Expects: a C compiler and ``nm`` (binutils).  Guarantees: each .c under runtime/src (at any depth) is
compiled on its own and ``nm`` reads which global symbols it defines and which it uses; then

* every file lies in a folder of LAYERS (its first folder under src/: engines/ooc/ is engines), no
  file lies at the top of src/, every folder of LAYERS holds files, and no two files share a name
  (each is NAME.o in one library);
* no file uses a symbol defined in a higher layer (so nothing calls up into program/, and the
  tuner, the plan and the model need no engine);
* the files call each other without a cycle (within a layer too);
* stn_run.h's list of layers names every folder, in this order, and every file;
* program/ reaches an engine only through engines/engine.c (the engines' table), and only mpi/ sends
  and receives between ranks.

A new file goes into the folder of its layer; a new folder must be placed in LAYERS (and in
stn_run.h's list) before this test passes.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "runtime" / "src"
LISTING = SRC / "run" / "stn_run.h"

# Lowest first; the same list as the comment at the top of runtime/src/run/stn_run.h.
LAYERS = ["base", "io", "run", "mpi", "kernels", "plan", "engines", "report", "program"]
ENGINES = ("engines", "program", "report")  # what the tuner and the model must not reach


def sources() -> dict[str, Path]:
    """File stem -> path of every runtime source."""
    out: dict[str, Path] = {}
    for src in sorted(SRC.rglob("*.c")):
        assert src.stem not in out, f"two runtime files are named {src.stem}.c: {out[src.stem]} and {src}"
        out[src.stem] = src
    return out


def layer_of(src: Path) -> str:
    rel = src.relative_to(SRC)
    return rel.parts[0] if len(rel.parts) > 1 else ""


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
def objects(tmp_path_factory) -> tuple[dict[str, str], dict[str, set[str]]]:
    """(symbol -> the stem of the file that defines it, stem -> the symbols the file uses)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None or shutil.which("nm") is None:
        pytest.skip("needs a C compiler and nm")
    tmp = tmp_path_factory.mktemp("layers")
    defined_by: dict[str, str] = {}
    uses: dict[str, set[str]] = {}
    for stem, src in sources().items():
        obj = tmp / (stem + ".o")
        subprocess.run([cc, "-c", "-O0", "-fopenmp", "-std=gnu11", "-I", str(REPO / "runtime" / "include"),
                        "-I", str(SRC), str(src), "-o", str(obj)], check=True, capture_output=True, text=True)
        defined, used = _symbols(obj)
        for sym in defined:
            assert sym not in defined_by, f"{sym} is defined in both {defined_by[sym]}.c and {stem}.c"
            defined_by[sym] = stem
        uses[stem] = used
    return defined_by, uses


@pytest.fixture(scope="module")
def symbols(objects) -> dict[str, set[str]]:
    """File stem -> the symbols it uses."""
    return objects[1]


@pytest.fixture(scope="module")
def graph(objects) -> dict[str, set[str]]:
    """File stem -> the stems of the files it calls."""
    defined_by, uses = objects
    return {f: {defined_by[s] for s in used if s in defined_by and defined_by[s] != f} for f, used in uses.items()}


def rank(stem: str) -> int:
    return LAYERS.index(layer_of(sources()[stem]))


def test_every_file_lies_in_a_layer_and_every_layer_holds_files():
    found = sources()
    loose = sorted(str(p.relative_to(SRC)) for p in found.values() if layer_of(p) not in LAYERS)
    assert not loose, f"files outside the layers' folders {LAYERS}: {loose}"
    empty = [layer for layer in LAYERS if not any(layer_of(p) == layer for p in found.values())]
    assert not empty, f"layers without a file: {empty}"
    stray = sorted(p.name for p in SRC.iterdir() if p.is_file())
    assert not stray, f"files at the top of runtime/src (each belongs in its layer's folder): {stray}"


def test_the_header_lists_every_layer_in_order_and_every_file():
    listing = LISTING.read_text().split("*/")[0]
    at = [listing.find(f"{layer}/") for layer in LAYERS]
    assert all(k >= 0 for k in at), f"stn_run.h's list does not name the folders {[x for x, k in zip(LAYERS, at) if k < 0]}"
    assert at == sorted(at), "stn_run.h lists the layers in another order than LAYERS"
    for stem in sources():
        assert re.search(rf"\b{re.escape(stem)}\b", listing), f"stn_run.h's list of layers does not name {stem}.c"


def test_no_file_calls_up(graph):
    up = sorted((f, g) for f, deps in graph.items() for g in deps if rank(g) > rank(f))
    assert not up, "calls into a higher layer: " + ", ".join(
        f"{layer_of(sources()[f])}/{f}.c -> {layer_of(sources()[g])}/{g}.c" for f, g in up)


def test_nothing_calls_into_program(graph):
    program = {f for f in graph if layer_of(sources()[f]) == "program"}
    callers = sorted(f for f, deps in graph.items() if deps & program and f not in program)
    assert not callers, f"{callers} call into program/"


def test_the_files_call_each_other_without_a_cycle(graph):
    try:
        order = list(TopologicalSorter(graph).static_order())
    except CycleError as e:
        pytest.fail(f"a cycle between runtime files: {' -> '.join(e.args[1])}")
    assert layer_of(sources()[order[-1]]) == "program"


def test_the_tuner_and_the_model_need_no_engine(graph):
    """plan/ reaches neither an engine nor report/ or program/, directly or through others."""
    def reach(f: str, seen: set[str]) -> set[str]:
        for g in graph[f] - seen:
            seen.add(g)
            reach(g, seen)
        return seen

    for f in graph:
        if layer_of(sources()[f]) == "plan":
            bad = sorted(g for g in reach(f, set()) if layer_of(sources()[g]) in ENGINES)
            assert not bad, f"plan/{f}.c reaches {bad}"


def test_the_program_reaches_an_engine_only_through_the_engines_table(graph):
    """program/ calls into engines/ only through engine.c (stn_engine_open, _advance, ...): no engine's
    own function, no branch on which engine runs (issue 29)."""
    engines = {f for f in graph if layer_of(sources()[f]) == "engines"}
    for f in graph:
        if layer_of(sources()[f]) == "program":
            direct = sorted(graph[f] & engines - {"engine"})
            assert not direct, f"program/{f}.c calls engines/{direct} directly, not through engine.c's table"


def test_the_messages_between_ranks_are_the_mpi_layers(symbols):
    """Only mpi/ sends and receives: the point-to-point calls of par.c are used by no file outside it
    (the engines' exchanges go through mpi/ghosts.c)."""
    p2p = {"stn_par_sendrecv", "stn_par_isendrecv"}
    users = sorted(f for f, used in symbols.items() if used & p2p and layer_of(sources()[f]) != "mpi")
    assert not users, f"{users} send or receive themselves (the MPI layer's exchanges are mpi/'s)"
