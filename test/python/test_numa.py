"""NUMA placement (issue 33, runtime/src/base/numa.c): under a two-node topology given to hwloc as XML
(``HWLOC_XMLFILE``, written by ``lstopo`` from a synthetic description), every engine's report lists the
nodes and the OpenMP threads each runs (contiguous groups, by the nodes' processing units); the topology
is applied (threads bound and read back) only with ``HWLOC_THISSYSTEM=1``, and the bits do not change.
On this machine's own topology (one node) the report has no ``numa`` key."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import load_report

TWO_NODES = "pack:2 numa:1(memory=1GB) l3:1(size=4MB) l2:1(size=1MB) core:{cores} pu:1"


def topology(tmp_path: Path, cores: int) -> Path:
    if not shutil.which("lstopo"):
        pytest.skip("lstopo (Debian's hwloc) is not installed")
    xml = tmp_path / f"two-nodes-{cores}.xml"
    subprocess.run(["lstopo", "-i", TWO_NODES.format(cores=cores), "--of", "xml", str(xml)], check=True)
    return xml


def run(exe: Path, tmp_path: Path, name: str, mode: str, threads: int, env_extra: dict[str, str]):
    report, out = tmp_path / f"{name}.json", tmp_path / f"{name}.npy"
    env = {k: v for k, v in os.environ.items() if not k.startswith("HWLOC_")}
    env.update(env_extra)
    r = subprocess.run([str(exe), "--size", "32,32,32", "--steps", "6", "--mode", mode, "--threads", str(threads),
                        "--mem", "2M", "--dir", str(tmp_path), "--quiet", "--report", str(report), "--out",
                        f"u={out}"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    return load_report(report), np.load(out)


@pytest.mark.parametrize("mode", ["incore", "ooc", "mmap"])
def test_two_nodes_from_xml_are_planned_and_reported(compile_example, tmp_path, mode):
    exe = compile_example("heat3d")
    xml = topology(tmp_path, cores=2)
    plain, want = run(exe, tmp_path, "plain", mode, 4, {})
    assert "numa" not in plain, plain["numa"]  # one node here: the report as before
    rep, got = run(exe, tmp_path, "two", mode, 4, {"HWLOC_XMLFILE": str(xml)})
    numa = rep["numa"]
    assert numa["source"] == f"hwloc: HWLOC_XMLFILE={xml}"
    assert [(n["os_index"], n["pus"], n["memory_bytes"], n["threads"]) for n in numa["nodes"]] == [
        (0, 2, 10**9, [0, 1]), (1, 2, 10**9, [2, 3])]
    assert numa["threads"] == 4 and numa["threads_bound"] == 0, numa
    assert "not this system's" in numa["memory"], numa
    np.testing.assert_array_equal(got, want)


def test_threads_are_bound_where_the_topology_is_this_systems(compile_example, tmp_path):
    """HWLOC_THISSYSTEM=1 with a topology whose processing units 0 and 1 exist here: each of the two
    threads is bound to its node's unit and reads its binding back."""
    if not {0, 1} <= os.sched_getaffinity(0):
        pytest.skip("processing units 0 and 1 are not both ours")
    exe = compile_example("heat3d")
    xml = topology(tmp_path, cores=1)
    _, want = run(exe, tmp_path, "plain", "ooc", 2, {})
    rep, got = run(exe, tmp_path, "bound", "ooc", 2, {"HWLOC_XMLFILE": str(xml), "HWLOC_THISSYSTEM": "1"})
    numa = rep["numa"]
    assert [n["threads"] for n in numa["nodes"]] == [[0], [1]]
    assert numa["threads_bound"] == 2, numa
    # the kernel here has one node: interleaving over two is refused, and the report says so
    assert numa["memory"].startswith(("interleaved over the 2 nodes", "not bound: hwloc_set_membind")), numa
    np.testing.assert_array_equal(got, want)


def test_more_nodes_than_threads_leave_a_node_without_threads(compile_example, tmp_path):
    exe = compile_example("heat3d")
    xml = topology(tmp_path, cores=1)
    rep, _ = run(exe, tmp_path, "one", "incore", 1, {"HWLOC_XMLFILE": str(xml)})
    assert [n["threads"] for n in rep["numa"]["nodes"]] == [[], [0]], rep["numa"]


@pytest.mark.parametrize("name,size,axis,plane", [("heat3d", "32,32,32", "z", 32 * 32 * 8),
                                                  ("jacobi2d", "40,30", "y", 40 * 8)])
def test_in_core_arrays_are_cut_into_one_slab_a_node(compile_example, tmp_path, name, size, axis, plane):
    """In-core, the arrays' planes of z (a 2d grid's rows) go to the nodes in proportion to their threads, the
    split the kernels' static schedule gives each node's contiguous threads, each slab bound to its node (planned
    under a topology not this system's); the bits do not change, and on one node the report has no numa key."""
    exe, xml = compile_example(name), topology(tmp_path, cores=3)
    extent = int(size.split(",")[-1])

    def go(tag, threads, env):
        out, rep = tmp_path / f"{tag}.npy", tmp_path / f"{tag}.json"
        env = {**{k: v for k, v in os.environ.items() if not k.startswith("HWLOC_")}, **env}
        r = subprocess.run([str(exe), "--size", size, "--steps", "5", "--mode", "incore", "--threads", str(threads),
                            "--quiet", "--report", str(rep), "--out", f"u={out}"], capture_output=True, text=True,
                           env=env, timeout=120)
        assert r.returncode == 0, r.stderr
        return load_report(rep), np.load(out)

    plain, want = go("plain", 4, {})
    assert "numa" not in plain
    rep, got = go("two", 5, {"HWLOC_XMLFILE": str(xml)})  # 5 threads over two nodes: an uneven split
    numa = rep["numa"]
    first = len(numa["nodes"][0]["threads"])
    assert sorted([first, len(numa["nodes"][1]["threads"])]) == [2, 3], numa
    assert numa["slab_axis"] == axis, numa
    assert numa["buffers"] == f"not bound: the topology is not this system's (planned: each node's " \
                              f"{'planes of z' if axis == 'z' else 'rows'} of every array)", numa
    cut = extent * first // 5
    assert [n["slab"] for n in numa["nodes"]] == [[0, cut], [cut, extent]], numa
    assert [n["buffer_bytes"] for n in numa["nodes"]] == [2 * cut * plane, 2 * (extent - cut) * plane], numa
    np.testing.assert_array_equal(got, want)


def test_in_core_slabs_are_bound_where_the_topology_is_this_systems(compile_example, tmp_path):
    """HWLOC_THISSYSTEM=1: the slabs are bound with hwloc_set_area_membind, or the report says why not (this
    kernel has one node, so node 1's memory is refused)."""
    exe, xml = compile_example("heat3d"), topology(tmp_path, cores=1)
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("HWLOC_")}, "HWLOC_XMLFILE": str(xml),
           "HWLOC_THISSYSTEM": "1"}
    rep = tmp_path / "r.json"
    r = subprocess.run([str(exe), "--size", "16,16,64", "--steps", "2", "--mode", "incore", "--threads", "2",
                        "--quiet", "--report", str(rep)], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    numa = load_report(rep)["numa"]
    assert numa["buffers"].startswith(("each node's planes of z of every array bound to it",
                                       "not bound: hwloc_set_area_membind")), numa
    assert [n["slab"] for n in numa["nodes"]] == [[0, 32], [32, 64]], numa


def test_mmap_has_no_slabs_and_ooc_cuts_the_rows_of_whole_planes(compile_example, tmp_path):
    """mmap's arrays are the files' page cache: no slabs.  Out of core in whole planes the rows (y) are cut."""
    exe, xml = compile_example("heat3d"), topology(tmp_path, cores=2)
    rep, _ = run(exe, tmp_path, "mmap", "mmap", 4, {"HWLOC_XMLFILE": str(xml)})
    assert "slab_axis" not in rep["numa"] and all("slab" not in n for n in rep["numa"]["nodes"]), rep["numa"]
    rep, _ = run(exe, tmp_path, "ooc", "ooc", 4, {"HWLOC_XMLFILE": str(xml)})
    whole = rep["params"]["by"] >= 32
    assert rep["numa"].get("slab_axis") == ("y" if whole else None), rep["numa"]
