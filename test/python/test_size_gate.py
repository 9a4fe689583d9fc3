"""The size gate (issue 29): no C or Python source over 800 lines, no function over 100 lines.

What counts, and how, is ``tools/size_gate.py``'s (the generated parser and the templates are
not sources).  ``FILES`` and ``FUNCTIONS`` below held the runtime's offenders of the day the gate
came (deb7b28 and the Python split after it), a ratchet that only went down; the runtime's split
(issue 29) emptied them, and an empty table allows no offender.  The test fails when

* a file or function not in the tables is over the limit (a new offender);
* a listed one grew past its number;
* a listed one is within the limit now: delete its line, so the tables end empty.

Python has no offender and gets none: the tables hold C only.  The checker itself is shown to
find what it must on files planted in a scratch directory.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

import size_gate  # noqa: E402

# path -> lines: may only shrink (then: delete the line once it is at most 800)
FILES: dict[str, int] = {}

# path:function -> lines: may only shrink (then: delete the line once it is at most 100)
FUNCTIONS: dict[str, int] = {}


def ratchet(found: dict[str, int], table: dict[str, int], limit: int, what: str) -> list[str]:
    """What is wrong with ``found`` (the offenders measured) against ``table`` (those allowed)."""
    problems = []
    for key, n in sorted(found.items()):
        if key not in table:
            problems.append(f"{key}: {n} lines, a new {what} over {limit} (split it by concern)")
        elif n > table[key]:
            problems.append(f"{key}: {n} lines, more than the {table[key]} it is allowed (it may only shrink)")
    for key in sorted(table):
        if key not in found:
            problems.append(f"{key}: at most {limit} lines now -- delete its line from the table in {Path(__file__).name}")
    return problems


def test_the_tree_keeps_to_the_limits_or_its_ratchet():
    sizes = size_gate.measure(REPO)
    problems = (ratchet(sizes.files, FILES, size_gate.MAX_FILE_LINES, "file")
                + ratchet(sizes.functions, FUNCTIONS, size_gate.MAX_FUNCTION_LINES, "function"))
    assert not problems, "\n".join(problems)


def test_the_ratchet_is_empty():
    """Issue 29 ended it: a new offender is split by concern, never listed."""
    assert FILES == {} and FUNCTIONS == {}


def test_the_ratchet_holds_c_only():
    assert all(k.split(":")[0].endswith((".c", ".h")) for k in [*FILES, *FUNCTIONS])


def test_the_ratchet_fails_on_a_new_a_grown_and_a_fixed_offender():
    table = {"a.c": 900, "b.c": 850}
    assert ratchet({"a.c": 900, "b.c": 820}, table, 800, "file") == []  # shrunk, still over: allowed
    problems = ratchet({"a.c": 901, "c.py": 801}, table, 800, "file")
    assert problems == ["a.c: 901 lines, more than the 900 it is allowed (it may only shrink)",
                        "c.py: 801 lines, a new file over 800 (split it by concern)",
                        "b.c: at most 800 lines now -- delete its line from the table in test_size_gate.py"]


def _plant(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


def _py_function(name: str, lines: int, indent: str = "") -> str:
    """A def of exactly ``lines`` lines."""
    return f"{indent}def {name}():\n" + "".join(f"{indent}    x = {i}\n" for i in range(lines - 1))


def _c_function(name: str, lines: int) -> str:
    """A C function definition of exactly ``lines`` lines (return type on its own line)."""
    return f"static int\n{name}(void)\n{{\n" + "    int x = 0;\n" * (lines - 4) + "}\n"


def test_the_gate_finds_planted_offenders_and_nothing_else(tmp_path):
    root = tmp_path
    _plant(root, "compiler/big.py", "x = 1\n" * 801)
    _plant(root, "compiler/ok.py", "x = 1\n" * 800)
    _plant(root, "tools/long.py", _py_function("long", 101) + _py_function("fine", 100)
           + "class K:\n" + _py_function("method", 101, "    ")
           + "def outer():\n" + _py_function("inner", 101, "    ") + "    return inner\n")
    _plant(root, "runtime/src/big.c", "/* x */\n" * 800 + "int last;")  # 801 lines, the last without newline
    _plant(root, "runtime/src/ok.h", "/* x */\n" * 800)
    _plant(root, "runtime/src/long.c", '#include "missing.h"\n' + _c_function("too_long", 101)
           + _c_function("just_fits", 100))
    _plant(root, "runtime/src/par.c", "#ifdef STN_MPI\n" + _c_function("both", 102) + "#else\n"
           + _c_function("both", 10) + _c_function("mpi_off", 101) + "#endif\n")
    _plant(root, "compiler/stencilc/frontend/generated/Parser.py", _py_function("generated", 500) * 2)
    _plant(root, "templates/kernel.c", _c_function("template", 900))  # not a source directory
    _plant(root, "runtime/src/Output/lit.c", _c_function("lit_output", 900))
    sizes = size_gate.measure(root)
    assert sizes.files == {"compiler/big.py": 801, "runtime/src/big.c": 801}
    assert sizes.functions == {
        "tools/long.py:long": 101,
        "tools/long.py:K.method": 101,
        "tools/long.py:outer": 103,
        "tools/long.py:outer.inner": 101,
        "runtime/src/long.c:too_long": 101,
        "runtime/src/par.c:both": 102,  # the STN_MPI branch, parsed with it defined
        "runtime/src/par.c:mpi_off": 101,
    }
    # ... and the ratchet would fail on every one of them
    assert len(ratchet(sizes.files, {}, 800, "file")) == 2


def test_the_tool_prints_the_offenders(tmp_path, capsys):
    _plant(tmp_path, "bench/big.py", "x = 1\n" * 900)
    _plant(tmp_path, "runtime/tests/t.c", _c_function("main", 120))
    assert size_gate.main([str(tmp_path)]) == 0
    assert capsys.readouterr().out == ("files over 800 lines: 1\n     900  bench/big.py\n"
                                       "functions over 100 lines: 1\n     120  runtime/tests/t.c:main\n")
