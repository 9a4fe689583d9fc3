"""--dir a,b: one scratch directory per NUMA node (issue 33 point 2, docs/design/022, docs/cli.md), under a
two-node topology given to hwloc as XML (``HWLOC_XMLFILE``, written by ``lstopo``).

Guarantees checked (heat3d, out of core):
* the y range is cut into one slab a node in proportion to the node's threads; every grid file lives in
  parts, a slab's rows in its node's directory, the report's ``numa`` nodes list their directory and rows;
* whole planes, y-blocked (z-strip in DRAM and spilled) and ``--tier pmem``: the bits of in-core over
  several sweeps, the bytes counted equal to the bytes predicted;
* while a run goes, each directory holds its slab's part of every scratch file (sizes: the slab's rows x
  the planes x a row); a SIGKILLed run resumes to the same bits with the same list, and a resume with
  another list (or one directory) is refused, and so is a second run sharing a directory (its lock);
* refused up front (exit 2): a count that is neither 1 nor the nodes', an empty name, another engine;
  at the start of the run: one directory twice, a node without threads;
* the engine's window rings per node: with whole planes node k's rows of every slot bound to node k (planned
  under the XML topology), the report's ``numa.buffers`` and nodes' ``buffer_bytes`` in proportion to the rows;
  y-blocked: none, and the report says why;
* one directory under the same topology: the report's nodes have no ``dir``, ``rows`` or ``buffer_bytes``; where the
  slab edge is a chunk edge, the parts one after the other are the one-directory file byte for byte;
* under MPI ranks each rank takes its node's entry of a list: test_mpi_dirs.py.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import load_report

BASE = {k: v for k, v in os.environ.items() if not k.startswith("HWLOC_")}
ENV = dict(BASE, OMP_NUM_THREADS="3", STENCILC_CALIBRATE="0")  # threads [0] on node 0, [1, 2] on node 1
SIZE, NY, NZ = "128,96,40", 96, 40


@pytest.fixture(scope="module")
def heat3d(compile_example):
    return compile_example("heat3d")


@pytest.fixture(scope="module")
def start(tmp_path_factory):
    p = tmp_path_factory.mktemp("init") / "start.npy"
    np.save(p, np.random.default_rng(11).random((NZ, NY, 128)))
    return p


def run(exe, args, env, timeout=600):
    return subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True, env=env, timeout=timeout)


def dirs(tmp: Path, *names: str) -> list[Path]:
    out = [tmp / n for n in names]
    for d in out:
        d.mkdir(exist_ok=True)
    return out


@pytest.fixture(scope="module")
def in_core(heat3d, start, tmp_path_factory):
    out = tmp_path_factory.mktemp("ic") / "u.npy"
    r = run(heat3d, ["--size", SIZE, "--steps", 7, "--mode", "incore", "--init", f"u={start}", "--out", f"u={out}"],
            ENV)
    assert r.returncode == 0, r.stderr
    return out.read_bytes()


def exact(report: Path) -> dict:
    rep = load_report(report)
    assert rep["bytes_read"] == rep["predicted_bytes_read"], rep
    assert rep["bytes_written"] == rep["predicted_bytes_written"], rep
    return rep


def binding(rep: dict) -> list:
    return [(n["dir"], n["rows"], n["threads"]) for n in rep["numa"]["nodes"]]


@pytest.mark.parametrize("blocking", [["--block", "96,4,2"], ["--block", "16,4,2", "--strip", "dram"],
                                      ["--block", "16,4,2", "--strip", "file"],
                                      ["--block", "16,4,2", "--strip", "file", "--tier", "pmem"],
                                      ["--block", "96,4,2", "--tier", "pmem"]],
                         ids=["whole-planes", "y-blocked", "y-blocked-spilled", "pmem-y-blocked", "pmem-planes"])
def test_two_directories_keep_the_bits_and_the_bytes(heat3d, two_node_xml, start, in_core, tmp_path, blocking):
    """Four sweeps (bt 2 over 7 steps), from an --init .npy: in-core's bits, the bytes as predicted, the
    binding reported; the files are gone at the end, from both directories, the locks too."""
    d0, d1 = dirs(tmp_path, "n0", "n1")
    out, rep = tmp_path / "u.npy", tmp_path / "r.json"
    r = run(heat3d, ["--size", SIZE, "--steps", 7, "--mem", "8M", *blocking, "--init", f"u={start}", "--dir",
                     f"{d0},{d1}", "--out", f"u={out}", "--report", rep], dict(ENV, HWLOC_XMLFILE=str(two_node_xml)))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == in_core
    got = exact(rep)
    assert binding(got) == [(str(d0), [0, 32], [0]), (str(d1), [32, 96], [1, 2])], got["numa"]
    assert list(d0.iterdir()) == [] and list(d1.iterdir()) == []
    buffers_per_node(got, blocking[1] == "96,4,2")


def buffers_per_node(got: dict, whole_planes: bool) -> None:
    """The report's per-node buffers: with whole planes each node's rows of every ring slot, so node 0's 32 rows
    and node 1's 64 rows of 1024 bytes (128 f64) in the same slots (planned: the XML topology is not this
    system's); a y-blocked window's slots hold every node's rows in turn: none placed per node, and said why."""
    b = [n["buffer_bytes"] for n in got["numa"]["nodes"]]
    if whole_planes:
        assert b[0] > 0 and b[0] % (32 * 1024) == 0 and b[1] == 2 * b[0], b
        assert got["numa"]["buffers"].startswith("not bound: the topology is not this system's"), got["numa"]
    else:
        assert b == [0, 0] and got["numa"]["buffers"].startswith("interleaved: a y-blocked window"), got["numa"]


def part_sizes(d0: Path, d1: Path) -> dict:
    """Each grid file's part sizes in both directories (the same names in both)."""
    a = {p.name: p.stat().st_size for p in d0.glob("*.grid")}
    b = {p.name: p.stat().st_size for p in d1.glob("*.grid")}
    assert a and a.keys() == b.keys(), (a, b)
    return {k: (a[k], b[k]) for k in a}


@pytest.mark.parametrize("tier", ["aio", "pmem"])
def test_sigkill_mid_run_resumes_with_the_same_list_only(heat3d, two_node_xml, tmp_path, tier):
    """A y-blocked run spilling its z-strip: while it goes, each directory holds its slab's part of the
    state's files (16 and 32 rows of 48); SIGKILLed after two commits, a resume naming other directories
    or one directory is refused, the same list resumes to the bits of a run never killed."""
    size, ny, nz, steps = "64,48,24", 48, 24, 400
    common = ["--size", size, "--steps", steps, "--mem", "4M", "--block", "8,4,2", "--strip", "file", "--tier",
              tier]
    env = dict(ENV, HWLOC_XMLFILE=str(two_node_xml))
    ref = tmp_path / "ref.npy"
    r = run(heat3d, ["--size", size, "--steps", steps, "--mode", "incore", "--out", f"u={ref}"], ENV)
    assert r.returncode == 0, r.stderr
    d0, d1, other = dirs(tmp_path, "n0", "n1", "other")
    out = tmp_path / "u.npy"
    p = subprocess.Popen([str(heat3d), *map(str, common), "--dir", f"{d0},{d1}", "--out", f"u={out}", "--quiet"], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    state, t0 = d0 / "heat3d.ooc-state", time.monotonic()
    while p.poll() is None and time.monotonic() - t0 < 300:
        text = state.read_text() if state.exists() else ""
        if "sweeps_done" in text and int(text.split("sweeps_done ")[1].split()[0]) >= 2:
            break
        time.sleep(0.002)
    sizes = part_sizes(d0, d1)  # (the run is going: its files are there)
    # each directory is locked: a second run sharing only the second one is refused
    r = run(heat3d, [*common, "--dir", f"{other},{d1}", "--out", f"u={tmp_path / 'v.npy'}"], env)
    assert r.returncode == 1 and f"--dir {d1} is in use: another run of heat3d (pid {p.pid})" in r.stderr, r.stderr
    assert p.poll() is None, "the run ended before it could be killed: make it longer"
    p.send_signal(signal.SIGKILL)
    p.wait()
    text = state.read_text()
    assert "dirs 2\n" in text and f"dir {d0}\n" in text and f"dir {d1}\n" in text, text
    assert {"heat3d.u.A.grid", "heat3d.u.B.grid"} <= sizes.keys(), sizes
    for a, b in sizes.values():  # slab 0: 16 rows, slab 1: 32 rows, of nz planes of one padded row each
        assert a * 2 == b and a % (ny // 3 * nz) == 0 and a // (ny // 3 * nz) >= 64 * 8, sizes
    assert not (d1 / "heat3d.ooc-state").exists() and (d1 / "heat3d.lock").exists()
    for wrong in (f"{d0},{other}", str(d0)):
        r = run(heat3d, [*common, "--dir", wrong, "--out", f"u={out}", "--resume"], env)
        assert r.returncode == 1 and "give the list of the run it resumes" in r.stderr, r.stderr
        assert f"--dir {d0},{d1} (2 directories)" in r.stderr, r.stderr
    rep = tmp_path / "r.json"
    r = run(heat3d, [*common, "--dir", f"{d0},{d1}", "--out", f"u={out}", "--resume", "--report", rep], env)
    assert r.returncode == 0, r.stderr
    exact(rep)
    assert out.read_bytes() == ref.read_bytes()
    assert list(d0.iterdir()) == [] and list(d1.iterdir()) == []


def test_one_directory_keeps_its_files_whole(heat3d, two_node_xml, tmp_path):
    """One --dir on two nodes: no directory or file rows a node; a plan of whole planes still cuts the window's
    rows into one slab a node (test_numa_tiles.py), a y-blocked one does not (no binding, no slab)."""
    d = dirs(tmp_path, "d")[0]
    for block, whole in (("32,30,6", True), ("8,8,2", False)):
        rep = tmp_path / "r.json"
        r = run(heat3d, ["--size", "32,32,32", "--steps", 4, "--mem", "2M", "--block", block, "--dir", d,
                         "--report", rep], dict(ENV, HWLOC_XMLFILE=str(two_node_xml)))
        assert r.returncode == 0, r.stderr
        numa = load_report(rep)["numa"]
        assert len(numa["nodes"]) == 2 and all("dir" not in n and "rows" not in n for n in numa["nodes"]), numa
        assert all(("slab" in n and "buffer_bytes" in n) == whole for n in numa["nodes"]), numa
        assert ("buffers" in numa) == whole and list(d.iterdir()) == [], numa


def test_lists_that_do_not_fit_are_refused(heat3d, two_node_xml, tmp_path):
    d0, d1, d2 = dirs(tmp_path, "a", "b", "c")
    two = dict(ENV, HWLOC_XMLFILE=str(two_node_xml))
    base = ["--size", "32,32,32", "--steps", 2, "--mem", "2M"]
    for args, env, code, want in [
        (["--dir", f"{d0},{d1},{d2}"], two, 2,
         f"--dir {d0},{d1},{d2}: 3 directories, but hwloc finds 2 NUMA nodes with processing units: give one "
         "directory, or one per node"),
        (["--dir", f"{d0},{d1}"], BASE, 2, f"--dir {d0},{d1}: 2 directories, but hwloc finds 1 NUMA node "),
        (["--dir", f"{d0},,{d1}"], two, 2, f"--dir {d0},,{d1}: directory 2 of the list is empty"),
        (["--dir", f"{d0},{d1}", "--mode", "incore"], two, 2, "it needs --mode ooc (--mode incore keeps one"),
        (["--dir", f"{d0}%r,{d1}"], two, 2, f"--dir {d0}%r,{d1}: %r is an MPI rank's number; in one process a list of "
         "directories gives each NUMA node its directory: name them without %r"),
        (["--dir", f"{d0},{d0}"], two, 1, f"--dir: directories 1 ({d0}) and 2 ({d0}) of the list are the same one"),
        (["--dir", f"{d0},{d1}", "--threads", "1"], two, 1,
         f"--dir: directory 1 ({d0}) is NUMA node 0's, which runs no thread"),
    ]:
        r = run(heat3d, [*base, *args], env)
        assert r.returncode == code and want in r.stderr, (args, r.returncode, r.stderr)
        assert not list(d1.iterdir()), list(d1.iterdir())


@pytest.fixture(scope="module")
def faultshim(tmp_path_factory):
    shim = tmp_path_factory.mktemp("shim") / "faultshim.so"
    repo = Path(__file__).resolve().parents[2]
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", str(shim), str(repo / "runtime/tests/faultshim.c"),
                    "-ldl"], check=True)
    return shim


def test_the_parts_are_the_one_directory_file_cut_at_the_slab_edge(heat3d, two_node_xml, start, tmp_path, faultshim):
    """Two threads: the slabs are rows [0, 48) and [48, 96), and 48 is already a chunk edge of the plan
    (by 16), so the layouts agree: stopped after two sweeps (the third commit fails), each file set's two
    parts, one after the other, are the one-directory run's file byte for byte."""
    env = dict(ENV, OMP_NUM_THREADS="2", LD_PRELOAD=str(faultshim), STN_FAULT="rename:3:EIO")
    one, d0, d1 = dirs(tmp_path, "one", "n0", "n1")
    common = ["--size", SIZE, "--steps", 7, "--mem", "8M", "--block", "16,4,2", "--init", f"u={start}"]
    for d, extra in ((str(one), {}), (f"{d0},{d1}", {"HWLOC_XMLFILE": str(two_node_xml)})):
        r = run(heat3d, [*common, "--dir", d, "--out", f"u={tmp_path / 'u.npy'}"], dict(env, **extra))
        assert r.returncode == 1 and "cannot save the run's state" in r.stderr, r.stderr
    chunks = [ln for ln in (one / "heat3d.ooc-state").read_text().splitlines() if ln.startswith("chunks 0")]
    assert " 48 " in chunks[0] + " ", chunks
    for name in ("heat3d.u.A.grid", "heat3d.u.B.grid"):
        whole = (one / name).read_bytes()
        a, b = (d0 / name).read_bytes(), (d1 / name).read_bytes()
        assert len(a) == len(b) == len(whole) // 2 and a + b == whole, name
