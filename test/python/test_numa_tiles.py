"""The kernels' tiles of a node's slab computed by that node's threads (issue 33 point 2, docs/design/022,
docs/out-of-core.md "NUMA"), under a two-node topology given to hwloc as XML (``HWLOC_XMLFILE``).

With ``--dir a,b`` the y rows are cut into one slab a node (test_numa_dirs.py); the out-of-core engine
gives the kernels the threads' groups, and each kernel call splits its box's tiles so that a node's threads
compute only the rows of its slab.  The kernels count the rows each thread computed; the report's ``numa``
nodes carry them as ``computed`` (``rows`` [lo, hi) and ``row_updates``).

Guarantees checked (heat3d, staggered3d with sub-steps, jacobi2d; whole planes, y-blocked with the z-strip
in DRAM and spilled, ``--tier pmem``):
* node k's threads computed exactly the interior rows of its slab: ``computed.rows`` is the slab clipped to
  the interior, and ``row_updates`` is steps x those rows x the interior planes (each row once a step, by
  its node: none computed twice, none by the other node);
* the bits are in-core's (one node, no topology), the bytes counted equal the bytes predicted;
* one directory under the same topology: the nodes have no ``computed`` (and no ``dir``, ``rows``); no
  topology (one node): no ``numa`` object, the bits the same.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import load_report

BASE = {k: v for k, v in os.environ.items() if not k.startswith("HWLOC_")}
ENV = dict(BASE, OMP_NUM_THREADS="3", STENCILC_CALIBRATE="0")  # threads [0] on node 0, [1, 2] on node 1

# name, --size, the field written, its halo (every example here: one cell), steps
CASES = {
    "heat3d": ("128,96,40", "u"),
    "staggered3d": ("64,48,24", "pr"),
    "jacobi2d": ("256,96", "u"),
}
STEPS = 7


def run(exe, args, env, timeout=600):
    return subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True, env=env, timeout=timeout)


@pytest.fixture(scope="module")
def in_core(compile_example, tmp_path_factory):
    """``in_core(name) -> (exe, bytes of the field after STEPS in-core steps, one node)``."""
    done: dict[str, tuple[Path, bytes]] = {}

    def get(name):
        if name not in done:
            exe = compile_example(name)
            size, field = CASES[name]
            out = tmp_path_factory.mktemp("ic") / f"{field}.npy"
            r = run(exe, ["--size", size, "--steps", STEPS, "--mode", "incore", "--out", f"{field}={out}"], ENV)
            assert r.returncode == 0, r.stderr
            done[name] = (exe, out.read_bytes())
        return done[name]

    return get


def two_dirs(tmp: Path) -> tuple[Path, Path]:
    d0, d1 = tmp / "n0", tmp / "n1"
    d0.mkdir(), d1.mkdir()
    return d0, d1


@pytest.mark.parametrize("name,blocking", [
    ("heat3d", ["--block", "96,4,2"]),
    ("heat3d", ["--block", "16,4,2", "--strip", "dram"]),
    ("heat3d", ["--block", "16,4,2", "--strip", "file"]),
    ("heat3d", ["--block", "16,4,2", "--strip", "file", "--tier", "pmem"]),
    ("staggered3d", ["--block", "48,4,2"]),
    ("staggered3d", ["--block", "8,4,2", "--strip", "file"]),
    ("staggered3d", ["--block", "8,4,2", "--tier", "pmem"]),
    ("jacobi2d", ["--block", "8,2"]),
], ids=["heat3d-planes", "heat3d-y-blocked", "heat3d-spilled", "heat3d-pmem", "staggered3d-planes",
        "staggered3d-spilled", "staggered3d-pmem", "jacobi2d"])
def test_each_node_computes_its_slab(in_core, two_node_xml, tmp_path, name, blocking):
    """Each node's threads computed the interior rows of its slab, each once a step; in-core's bits; the
    bytes as predicted."""
    exe, ref = in_core(name)
    size, field = CASES[name]
    n = [int(s) for s in size.split(",")]
    ny, planes = n[1], (n[2] - 2 if len(n) == 3 else 1)  # the interior planes (one-cell halo)
    d0, d1 = two_dirs(tmp_path)
    out, rep = tmp_path / "o.npy", tmp_path / "r.json"
    r = run(exe, ["--size", size, "--steps", STEPS, "--mem", "8M", *blocking, "--dir", f"{d0},{d1}",
                  "--out", f"{field}={out}", "--report", rep], dict(ENV, HWLOC_XMLFILE=str(two_node_xml)))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == ref
    got = load_report(rep)
    assert got["bytes_read"] == got["predicted_bytes_read"], got
    assert got["bytes_written"] == got["predicted_bytes_written"], got
    nodes = got["numa"]["nodes"]
    assert [nd["threads"] for nd in nodes] == [[0], [1, 2]], nodes
    for nd in nodes:
        y0, y1 = nd["rows"]
        lo, hi = max(y0, 1), min(y1, ny - 1)  # the slab's interior rows
        assert nd["computed"] == {"rows": [lo, hi], "row_updates": STEPS * (hi - lo) * planes}, nodes


@pytest.mark.parametrize("name,block", [("heat3d", "96,4,2"), ("staggered3d", "48,4,2")])
def test_one_directory_in_whole_planes_computes_each_nodes_slab(in_core, two_node_xml, tmp_path, name, block):
    """One --dir on two nodes, a plan of whole planes: the rows cut into one slab a node as a list cuts them (no
    dir, the files whole), each node's threads computed its slab's interior rows, each once a step, and its rows
    of the rings are its buffer_bytes (planned: the topology is not this system's); in-core's bits."""
    exe, ref = in_core(name)
    size, field = CASES[name]
    n = [int(s) for s in size.split(",")]
    out, rep = tmp_path / "o.npy", tmp_path / "r.json"
    r = run(exe, ["--size", size, "--steps", STEPS, "--mem", "8M", "--block", block, "--dir", tmp_path,
                  "--out", f"{field}={out}", "--report", rep], dict(ENV, HWLOC_XMLFILE=str(two_node_xml)))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == ref
    got = load_report(rep)
    numa = got["numa"]
    assert numa["slab_axis"] == "y" and "dir" not in numa["nodes"][0], numa
    assert numa["buffers"].startswith("not bound: the topology is not this system's (planned: each node's rows"), numa
    cut = n[1] * 1 // 3  # thread 0 on node 0, threads 1 and 2 on node 1
    assert [nd["slab"] for nd in numa["nodes"]] == [[0, cut], [cut, n[1]]], numa
    assert numa["nodes"][1]["buffer_bytes"] == 2 * numa["nodes"][0]["buffer_bytes"] > 0, numa
    for nd in numa["nodes"]:
        lo, hi = max(nd["slab"][0], 1), min(nd["slab"][1], n[1] - 1)
        assert nd["computed"] == {"rows": [lo, hi], "row_updates": STEPS * (hi - lo) * (n[2] - 2)}, numa


def test_one_directory_or_one_node_reports_no_computed_rows(in_core, two_node_xml, tmp_path):
    """One --dir under the two-node topology, y-blocked: the nodes as before (no computed, dir, rows or slab: a
    y-blocked block is a few rows, one node's alone); no topology (one node): no numa object; the bits in-core's
    both ways."""
    exe, ref = in_core("heat3d")
    size, field = CASES["heat3d"]
    for env, key in ((dict(ENV, HWLOC_XMLFILE=str(two_node_xml)), True), (ENV, False)):
        d = tmp_path / ("xml" if key else "one")
        d.mkdir()
        out, rep = d / "o.npy", d / "r.json"
        r = run(exe, ["--size", size, "--steps", STEPS, "--mem", "8M", "--block", "16,4,2", "--dir", d,
                      "--out", f"{field}={out}", "--report", rep], env)
        assert r.returncode == 0, r.stderr
        assert out.read_bytes() == ref
        got = load_report(rep)
        if key:
            assert [sorted(nd) for nd in got["numa"]["nodes"]] == [["memory_bytes", "os_index", "pus", "threads"]] * 2
        else:
            assert "numa" not in got
