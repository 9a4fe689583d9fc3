"""The ``--init`` files read with O_DIRECT (io/npyd.c): out of core, a ``.npy``'s rows go around the page cache
through a bounce buffer that the plan counts in its DRAM; its data start 128 bytes into the file,
off every O_DIRECT alignment, so each read takes the aligned bytes around a piece and copies the piece out.

* The results are the in-core run's bits whatever reads the rows: the reader thread of the first sweep,
  alg1's re-reads, alg2's import, an input's import, both levels of a two-level field.
* ``init_reads.direct_bytes`` is every file's payload, read once; ``bounce_bytes`` is in ``mem_plan_bytes``,
  which stays within the budget.
* Under a 4 MiB budget there is no bounce and the files go through the page cache, with the same bits.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import load_report

ENV = dict(os.environ, OMP_NUM_THREADS="2", STENCILC_CALIBRATE="0")


def _run(exe: Path, tmp: Path, name: str, size: tuple, steps: int, inits: list[str], *extra) -> tuple[dict, bytes]:
    d = tmp / f"d-{name}"
    d.mkdir()
    out = d / "u.npy"
    args = [str(exe), "--size", ",".join(map(str, size)), "--steps", str(steps), "--out", f"u={out}",
            "--report", str(d / "r.json"), "--quiet"]
    for i in inits:
        args += ["--init", i]
    r = subprocess.run([*args, *extra], capture_output=True, text=True, env=ENV, timeout=600, cwd=d)
    assert r.returncode == 0, r.stderr
    return load_report(d / "r.json"), out.read_bytes()


def _npy(path: Path, size: tuple, seed: int) -> Path:
    np.save(path, np.random.default_rng(seed).random(size[::-1]))
    return path


@pytest.mark.parametrize("schedule", ["ref", "alg1", "alg2"])
def test_a_state_read_with_o_direct_is_in_cores_bits(compile_example, tmp_path, schedule):
    heat3d = compile_example("heat3d")
    size = (67, 53, 37)  # primes: no row, plane or file offset is aligned
    u = _npy(tmp_path / "u.npy", size, 1)
    ref, want = _run(heat3d, tmp_path, "incore", size, 9, [f"u={u}"], "--mode", "incore")
    rep, got = _run(heat3d, tmp_path, f"ooc-{schedule}", size, 9, [f"u={u}"], "--mem", "4M", "--dir", ".",
                    "--schedule", schedule)
    assert got == want
    reads = rep["init_reads"]
    assert reads["bounce_bytes"] > 0, reads
    payload = u.stat().st_size - 128
    if schedule == "alg1":  # (its blocks read their shared slices again from the source: the .npy in sweep 0)
        assert reads["direct_bytes"] > payload and reads["direct_bytes"] % 8 == 0, reads
    else:
        assert reads["direct_bytes"] == payload, reads  # once
    assert rep["mem_plan_bytes"] <= 4 << 20, rep["mem_plan_bytes"]
    assert rep["bytes_read"] == rep["predicted_bytes_read"], rep


def test_both_levels_and_an_input_are_read_with_o_direct(compile_example, tmp_path):
    wave3d, varheat = compile_example("wave3d"), compile_example("varheat")
    size = (41, 29, 23)
    u, prev, c = (_npy(tmp_path / f"{n}.npy", size, k) for k, n in enumerate(["u", "prev", "c"]))
    for exe, inits in ((wave3d, [f"u={u}", f"u.prev={prev}"]), (varheat, [f"u={u}", f"c={c}"])):
        _, want = _run(exe, tmp_path, f"{exe.name}-incore", size, 7, inits, "--mode", "incore")
        rep, got = _run(exe, tmp_path, f"{exe.name}-ooc", size, 7, inits, "--mem", "4M", "--dir", ".")
        assert got == want, exe.name
        payload = 2 * (u.stat().st_size - 128)
        assert rep["init_reads"]["direct_bytes"] == payload, (exe.name, rep["init_reads"])


def test_under_4_mib_the_files_go_through_the_page_cache_with_the_same_bits(compile_example, tmp_path):
    heat3d = compile_example("heat3d")
    size = (23, 19, 17)
    u = _npy(tmp_path / "u.npy", size, 5)
    _, want = _run(heat3d, tmp_path, "incore", size, 5, [f"u={u}"], "--mode", "incore")
    rep, got = _run(heat3d, tmp_path, "small", size, 5, [f"u={u}"], "--mem", "1M", "--dir", ".")
    assert got == want
    assert rep["init_reads"] == {"bounce_bytes": 0, "direct_bytes": 0}, rep["init_reads"]
