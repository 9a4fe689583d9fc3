"""Names C reserves, for every kind of declaration (issue 28, point 3).

A `let __y` stopped the generator with an internal error: the let's C name was `v__y` and a check
expected `__y` with underscores after it.  These tests declare every kind of name the language has
(param, state, state with two levels, input, input along an axis, series, points, record, table,
let, a let read at an offset, a sum's index, a field with a boundary of its own, a field read
primed, and the stencil's own name) with every C11 keyword, names C reserves (`__func__`, `__y`,
`_X`), `main`, C library names (`printf`, `errno`, `stdin`, `EOF`), C++ keywords, and names the
generated code and the runtime use (`s_view`, `S_FIELD_FLD`, `rc`, `stn_error`, `fld_next`).

Each program must compile to C that the C compiler accepts, or be refused with a located
`FILE:LINE:COL: error:`; never an internal error.  Programs of every kind with them run, and give
the bits of the same program with plain names, in-core and out of core.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from conftest import load_report, stencilc_command

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))
sys.path.insert(0, str(REPO / "compiler"))

import fuzz_stn  # noqa: E402
from stencilc.codegen import DEFAULT_CFLAGS  # noqa: E402

C11_KEYWORDS = ("auto break case char const continue default do double else enum extern float for goto if inline "
                "int long register restrict return short signed sizeof static struct switch typedef union unsigned "
                "void volatile while _Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn "
                "_Static_assert _Thread_local").split()
# the stencil is 's' and its own field 'fld': the names the generated code makes of them are here too
OTHER_NAMES = ("__func__ __x __y _X _x __ main printf errno stdin stdout EOF NULL I M_PI EINVAL INT64_MAX class new "
               "bool true linux exit malloc memcpy j0 y1 stn stn_error stn_sim_open s_view s_box s_min s_max s_params "
               "s_step S_FIELD_FLD S_SRC_FLD S_DST_FLD_NEXT S_NSRC S_H fld_next fld_prev fld_y0 FLD src dst row rc "
               "balance_tiles_ bx0_ snx_ sxo_ params_ omp_get_max_threads default_tiles_").split()
NAMES = C11_KEYWORDS + OTHER_NAMES
DSL_REFUSED = ["exp", "sin", "x", "nx", "t", "sum", "state", "in"]  # the language's own: refused where declared
STENCIL_NAMES = C11_KEYWORDS + ("__func__ __y _X main printf errno stdin EOF math string omp stn stn_rt clean kernels "
                                "c C heat_view I class omp_get_max_threads".split()) + ["long_" * 10 + "ab"]
PRIME = "'"
GRID = "  grid 2d f64;\n  state fld;\n  init fld = x + 2*y;\n"


def kind_programs(names: list[str]) -> dict[str, str]:
    """One program per kind of declaration that declares every name of ``names`` as one of that kind."""
    n = list(names)
    lap = "0.25*({0}[1,0] + {0}[-1,0] + {0}[0,1] + {0}[0,-1])"
    terms = " + ".join
    k = {
        "param": [f"param {v} = {0.001 * (i + 1)};" for i, v in enumerate(n)]
        + [f"fld' = fld + ({terms(n)}) * (fld[1,0] - fld);"],
        "let": [f"let {v} = fld[1,0] * {i + 1};" for i, v in enumerate(n)] + [f"fld' = 0.001 * ({terms(n)});"],
        "let at an offset": [f"let {v} = fld[1,0] - fld;" for v in n]
        + [f"fld' = fld + 0.001 * ({terms(f'({v} - {v}[-1,0])' for v in n)});"],
        "state": [f"state {v};\n  {v}' = {lap.format(v)};\n  init {v} = x + {i}*y;" for i, v in enumerate(n)]
        + [f"fld' = {lap.format('fld')};"],
        "state levels 2": [f"state {v} levels 2;\n  {v}' = 2*{v} - {v}.prev + 0.1*({v}[1,0] + {v}[-1,0] - 2*{v});\n"
                           f"  init {v} = x + {i}*y;\n  init {v}.prev = x;" for i, v in enumerate(n)]
        + [f"fld' = {lap.format('fld')};"],
        "input": [f"input {v};\n  init {v} = 0.01*x + {i};" for i, v in enumerate(n)]
        + [f"fld' = fld + 0.001 * ({terms(n)}) * (fld[1,0] - fld);"],
        "input along": [f"input {v} along y;\n  init {v} = 0.01*y + {i};" for i, v in enumerate(n)]
        + [f"fld' = fld + 0.001 * ({terms(f'{v}[1]' for v in n)}) * (fld[1,0] - fld);"],
        "series": [f"series {v};" for v in n] + [f"fld' = fld + 0.001 * ({terms(f'{v}[t]' for v in n)});"],
        "points": [f"points {v};\n  inject fld at {v} += {i};" for i, v in enumerate(n)] + ["fld' = fld;"],
        "record": ["points pq0;"] + [f"record {v} = fld' at pq0;" for v in n] + ["fld' = fld + 1;"],
        "table": [f"table {v}[3] = {{1, {i}, 1}};" for i, v in enumerate(n)]
        + [f"fld' = 0.001 * ({terms(f'(sum(kk0 in -1..1) {v}[kk0+1]*fld[kk0,0])' for v in n)});"],
        "sum index": [f"fld' = 0.001 * ({terms(f'(sum({v} in -1..1) fld[{v},0])' for v in n)});"],
        "boundary of a field": [f"state {v};\n  {v}' = {lap.format(v)};\n  boundary {v} neumann;\n  init {v} = x;"
                                for v in n] + [f"fld' = {lap.format('fld')};"],
        "read primed": [f"state {v};\n  {v}' = fld[1,0] - fld;\n  init {v} = 0;" for v in n]
        + [f"fld' = fld + 0.01 * ({terms('(' + v + PRIME + '[-1,0] - ' + v + PRIME + ')' for v in n)});"],
    }
    return {kind: "stencil s {\n" + GRID + "".join(f"  {line}\n" for line in lines) + "}\n"
            for kind, lines in k.items()}


def _syntax_ok(files: dict[str, str]) -> str | None:
    """None when the C compiler accepts every generated .c file (and gfortran, where present, the
    Fortran module); else what it said."""
    cc = shlex.split(shutil.which("cc") or "cc")
    flags = [f for f in shlex.split(DEFAULT_CFLAGS) if f != "-march=native"]
    with tempfile.TemporaryDirectory() as d:
        for name, text in files.items():
            Path(d, name).write_text(text)
        cs = [str(Path(d, f)) for f in files if f.endswith(".c")]
        r = subprocess.run([*cc, *flags, "-fsyntax-only", "-Werror=implicit-function-declaration", "-I",
                            str(REPO / "runtime" / "include"), "-I", d, *cs], capture_output=True, text=True)
        if r.returncode:
            return r.stderr[-3000:]
        f90 = [f for f in files if f.endswith(".f90")]
        if f90 and shutil.which("gfortran"):
            r = subprocess.run(["gfortran", "-fsyntax-only", "-J", d, str(Path(d, f90[0]))], capture_output=True,
                               text=True, cwd=d)
            if r.returncode:
                return r.stderr[-3000:]
    return None


@pytest.mark.parametrize("kind", list(kind_programs(["q"])))
def test_every_kind_of_declaration_takes_c_reserved_names(kind):
    text = kind_programs(NAMES)[kind]
    res = fuzz_stn._compile(text)
    assert res[0] == "ok", f"{kind}: {res[1]}"
    why = _syntax_ok(res[1])
    assert why is None, f"{kind}: the C does not compile:\n{why}"


@pytest.mark.parametrize("name", DSL_REFUSED)
def test_the_languages_own_names_are_refused_where_declared(name):
    for kind, text in kind_programs([name]).items():
        res = fuzz_stn._compile(text)
        assert res[0] == "error" and res[2] and re.search(r"fuzz\.stn:\d+:\d+: error: ", res[1]), (kind, res)


def test_every_stencil_name_compiles_or_is_refused_at_the_name():
    refused = []
    for name in STENCIL_NAMES:
        res = fuzz_stn._compile(f"stencil {name} {{\n" + GRID + "  fld' = fld[1,0];\n}\n")
        if res[0] == "error":
            assert res[2] and f"fuzz.stn:1:9: error: the stencil's name '{name}' " in res[1], res
            refused.append(name)
            continue
        assert res[0] == "ok", f"{name}: {res[1]}"
        why = _syntax_ok(res[1])
        assert why is None, f"stencil {name}: the generated files do not compile:\n{why}"
    # the ones C, the runtime, the headers, the Makefile and Fortran cannot take; the keywords can be names
    assert sorted(refused) == sorted("_Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn "
                                     "_Static_assert _Thread_local __func__ __y _X errno math string omp stn stn_rt "
                                     "clean kernels c C float".split())


# ---------------------------------------------------------------- programs that run

EVERY_KIND = """stencil {stencil} {{
  grid 2d f64;
  param {P1} = 0.05;
  param {P2} = 0.02;
  state {S1};
  state {S2} levels 2;
  state {SUB};
  input {IN};
  input {AL} along y;
  series {SER};
  points {PTS};
  table {TAB}[3] = {{1, 2, 1}};
  let {L1} = {S1}[1,0] - {S1};
  let {L2} = sum({IDX} in -1..1) {TAB}[{IDX}+1] * {S1}[{IDX},0];
  {SUB}' = {S1}[1,0] - {S1};
  {S1}' = {S1} + {P1} * ({L1} - {L1}[-1,0]) + {P2} * {IN} * ({SUB}'[-1,0] - {SUB}') + 0.001 * {L2}
          + 0.01 * {AL} + 0.001 * {SER}[t];
  {S2}' = 2*{S2} - {S2}.prev + 0.1*({S2}[1,0] + {S2}[-1,0] + {S2}[0,1] + {S2}[0,-1] - 4*{S2}) + 0.01*{S1};
  inject {S2} at {PTS} += {P1} * {SER}[t];
  record {REC} = {S1}' at {PTS};
  boundary {S2} neumann;
  init {S1} = x + 2*y;
  init {S2} = 0.5*x;
  init {S2}.prev = 0.25*x;
  init {IN} = 0.1*y;
  init {AL} = 0.01*y;
  init {SUB} = 0;
}}
"""
PLAIN = dict(stencil="plain", P1="p1", P2="p2", S1="s1", S2="s2", SUB="sub", IN="cin", AL="al", SER="ser", PTS="pts",
             TAB="tab", L1="l1", L2="l2", IDX="ii", REC="rec")
RESERVED = [
    dict(stencil="int", P1="_Bool", P2="__y", S1="errno", S2="_Static_assert", SUB="int_view", IN="EOF",
         AL="__func__", SER="printf", PTS="stdin", TAB="_Generic", L1="INT_FIELD_ERRNO", L2="rc", IDX="__x",
         REC="main"),
    dict(stencil="main", P1="class", P2="S_NSRC", S1="src", S2="default", SUB="_X", IN="I", AL="stn_error",
         SER="sizeof", PTS="while", TAB="return", L1="balance_tiles_", L2="main_view", IDX="if", REC="exit"),
]


def _run_every_kind(tmp: Path, names: dict[str, str]) -> dict[str, dict[str, np.ndarray]]:
    """Builds EVERY_KIND with ``names``, runs it in-core and out of core, and returns each run's outputs
    under the plain names."""
    src = tmp / f"{names['stencil']}.stn"
    src.write_text(EVERY_KIND.format(**names))
    cmd, env = stencilc_command()
    exe = tmp / "prog"
    r = subprocess.run([*cmd, str(src), "-o", str(exe)], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr
    size, steps = (23, 17), 9
    np.save(tmp / "ser.npy", np.linspace(0.5, 1.5, steps + 1))
    np.save(tmp / "pts.npy", np.array([[3, 4], [10, 12], [20, 1]], dtype=np.int64))
    outs = {}
    for how, extra in (("incore", ["--mode", "incore"]), ("ooc", ["--mode", "ooc", "--block", "5,3"])):
        w = tmp / how
        w.mkdir()
        args = ["--size", ",".join(map(str, size)), "--steps", str(steps), "--quiet", "--dir", str(w), *extra,
                "--init", f"{names['SER']}={tmp / 'ser.npy'}", "--init", f"{names['PTS']}={tmp / 'pts.npy'}",
                "--param", f"{names['P2']}=0.03", "--report", str(w / "r.json")]
        for k in ("S1", "S2", "SUB", "REC"):
            args += ["--out", f"{names[k]}={w / k}.npy"]
        r = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, f"{names['stencil']} {how}: {r.stderr}"
        rep = load_report(w / "r.json")
        assert (rep["bytes_read"], rep["bytes_written"]) == (rep["predicted_bytes_read"], rep["predicted_bytes_written"])
        outs[how] = {k: np.load(w / f"{k}.npy") for k in ("S1", "S2", "SUB", "REC")}
    return outs


def test_programs_with_reserved_names_give_the_bits_of_plain_names(tmp_path):
    (tmp_path / "plain").mkdir()
    want = _run_every_kind(tmp_path / "plain", PLAIN)
    assert all(np.array_equal(want["incore"][k], want["ooc"][k]) for k in want["incore"])
    assert np.ptp(want["incore"]["REC"]) > 0 and np.ptp(want["incore"]["S2"]) > 0  # (something happened)
    for i, names in enumerate(RESERVED):
        (tmp_path / str(i)).mkdir()
        got = _run_every_kind(tmp_path / str(i), names)
        for how in want:
            for k in want[how]:
                assert np.array_equal(got[how][k], want[how][k]), (names["stencil"], how, k)


def test_the_macro_list_covers_this_machines_headers():
    """codegen/cmacros.py (tools/c_macros.py) holds every object-like macro the C headers define here:
    a libc that adds one fails this test until the list is rewritten."""
    import c_macros
    from stencilc.codegen.cmacros import C_MACROS

    here = c_macros.header_macros(shutil.which("cc") or "cc")
    assert len(here) > 300 and {"EOF", "EINVAL", "M_PI", "I", "stdin", "errno"} <= here
    assert not here - C_MACROS, f"run tools/c_macros.py: missing {sorted(here - C_MACROS)}"
