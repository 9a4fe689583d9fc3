"""The in-core engine's temporal tiles (``--time-tiles``) against its plain loop.

Expects: every ``examples/NAME.stn`` compiles.  Guarantees: for any tiles (thin ones of one row,
ones wider than the grid, bt larger than the steps), any grid and any steps, every field the
program writes -- and the previous level of a two-level field -- is bit-identical to the plain
loop's (``--time-tiles off``), from random ``--init`` data (also a given previous level, whose
dirichlet boundary differs from the current one).  The loop itself is pinned to the NumPy
references by test_examples.py; the report says which tiles ran.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
import reference as ref
from hypothesis import given, settings
from hypothesis import strategies as st
from test_examples import SETTINGS, periodic_blocks, random_fields, sizes

NAMES = sorted(ref.EXAMPLES)


def run(run_program, exe: Path, ex: ref.Example, size, steps: int, tiles: str, inits: dict, work: Path,
        mode: tuple[str, ...] = ("--mode", "incore")):
    args = ["--quiet", *mode, "--size", ",".join(map(str, size)), "--steps", str(steps),
            "--time-tiles", tiles, "--report", str(work / "r.json")]
    for key, arr in inits.items():
        np.save(work / f"in_{key}.npy", arr)
        args += ["--init", f"{key}={work / f'in_{key}.npy'}"]
    outs = [f for f in ex.fields] + [f + ".prev" for f, (levels, _) in ex.state.items() if levels == 2]
    for f in outs:
        args += ["--out", f"{f}={work / f'out_{f}.npy'}"]
    rc, out, err = run_program(exe, args)
    assert rc == 0, f"{ex.name} {' '.join(args)}\n{out}{err}"
    return {f: np.load(work / f"out_{f}.npy") for f in outs}


def tiles_of(ex: ref.Example) -> st.SearchStrategy[str]:
    n = ex.ndim  # by,bz,bt in 3d; by,bt in 2d; bt in 1d (one row)
    return st.lists(st.integers(1, 12), min_size=n, max_size=n).map(lambda v: ",".join(map(str, v)))


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=5, **SETTINGS)
@given(data=st.data())
def test_tiles_are_bit_identical_to_the_loop(name, data, compile_example, run_program):
    ex = ref.EXAMPLES[name]
    exe = compile_example(name)
    size = data.draw(sizes(ex), label="size")
    steps = data.draw(st.integers(0, 11), label="steps")
    tiles = data.draw(st.one_of(tiles_of(ex), st.just("auto")), label="tiles")
    inits = random_fields(ex, size, data.draw(st.integers(0, 2**31), label="seed"),
                          with_prev=data.draw(st.booleans(), label="prev"))
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        want = run(run_program, exe, ex, size, steps, "off", inits, work)
        got = run(run_program, exe, ex, size, steps, tiles, inits, work)
    for f in want:
        assert np.array_equal(got[f], want[f], equal_nan=True), (
            f"{name} --size {size} --steps {steps} --time-tiles {tiles}: {f} differs from the plain loop, "
            f"max |diff| {np.nanmax(np.abs(got[f] - want[f]))}")


def test_report_and_errors(compile_example, run_program, tmp_path):
    from conftest import load_report

    exe = compile_example("heat3d")
    common = ["--quiet", "--mode", "incore", "--size", "40,40,40", "--report", str(tmp_path / "r.json")]
    rc, _, err = run_program(exe, common + ["--steps", "9", "--time-tiles", "5,6,4"])
    assert rc == 0, err
    tt = load_report(tmp_path / "r.json")["time_tiles"]
    assert (tt["by"], tt["bz"], tt["bt"], tt["source"]) == (5, 6, 4, "--time-tiles")
    rc, _, err = run_program(exe, common + ["--steps", "9", "--time-tiles", "off"])
    tt = load_report(tmp_path / "r.json")["time_tiles"]
    assert rc == 0 and tt["bt"] is None and tt["source"].startswith("off")
    rc, _, err = run_program(exe, common + ["--steps", "1"])  # auto with one step: the loop
    tt = load_report(tmp_path / "r.json")["time_tiles"]
    assert rc == 0 and tt["bt"] is None and "fewer than 2 steps" in tt["source"]
    rc, _, err = run_program(exe, common + ["--steps", "9"])  # auto: tiles that fit half the cache
    tt = load_report(tmp_path / "r.json")["time_tiles"]
    assert rc == 0 and tt["bt"] >= 2 and tt["source"].startswith("auto")
    rc, _, err = run_program(exe, ["--quiet", "--size", "40,40,40", "--steps", "8", "--time-tiles", "5,6,4",
                                   "--block", "40,12,8", "--dir", str(tmp_path), "--report", str(tmp_path / "r.json")])
    tt = load_report(tmp_path / "r.json")["time_tiles"]  # out-of-core: the cache tiles inside each block
    assert rc == 0 and (tt["by"], tt["bz"], tt["bt"], tt["source"]) == (5, 6, 4, "--time-tiles"), (err, tt)
    for bad in ("5,6", "0,1,1", "a,b,c", "1,2,3,4"):
        rc, _, err = run_program(exe, common + ["--steps", "9", "--time-tiles", bad])
        assert rc == 2 and f"--time-tiles {bad}: expected auto, off or by,bz,bt" in err, err


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=5, **SETTINGS)
@given(data=st.data())
def test_out_of_core_cache_tiles_are_bit_identical(name, data, compile_example, run_program):
    """Out of core, each block is cut into cache tiles (--time-tiles): any blocks (whole planes or
    y-blocked), any tiles, and the result is the in-core loop's, bit for bit."""
    ex = ref.EXAMPLES[name]
    exe = compile_example(name)
    size = data.draw(sizes(ex), label="size")
    steps = data.draw(st.integers(1, 9), label="steps")
    tiles = data.draw(tiles_of(ex), label="tiles")
    by = data.draw(st.integers(1, size[1]), label="by") if ex.ndim > 1 else 1
    block = [by, data.draw(st.integers(1, size[2]), label="bz")] if ex.ndim == 3 else [by] if ex.ndim == 2 else []
    if ex.ndim == 3 and by < size[1]:  # y-blocked: a few z-rows at least
        block[1] = min(block[1], max(1, size[2] // 2))
    block.append(data.draw(st.integers(1, steps + 1), label="bt"))
    block, _ = periodic_blocks(ex, size, block, "ref")
    inits = random_fields(ex, size, data.draw(st.integers(0, 2**31), label="seed"),
                          with_prev=data.draw(st.booleans(), label="prev"))
    with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp:
        work = Path(tmp)
        want = run(run_program, exe, ex, size, steps, "off", inits, work)
        got = run(run_program, exe, ex, size, steps, tiles, inits, work,
                  mode=("--mode", "ooc", "--dir", str(work), "--mem", "1G", "--block", ",".join(map(str, block))))
    for f in want:
        assert np.array_equal(got[f], want[f], equal_nan=True), (
            f"{name} --size {size} --steps {steps} --block {block} --time-tiles {tiles}: {f} differs from "
            f"in-core, max |diff| {np.nanmax(np.abs(got[f] - want[f]))}")
