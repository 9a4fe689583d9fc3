"""Scratch files chunked along y (docs/design/023, issue 30 point 1): a y-blocked plan's file sets are
written in chunks of rows, each block's reads and writes whole chunks wide, so that they move runs of
planes x rows instead of one request per plane.

Guarantees checked (heat3d, blocks given by hand so that the plans are y-blocked):
* chunked, plain (STENCILC_SCRATCH_LAYOUT=plain) and in-core give the same bits over several sweeps
  (a shorter last one), the bytes counted are the bytes predicted, and the report names the layout;
  whole planes (alg2's too: it blocks whole planes only) and 2d plans stay plain;
* a forced re-plan (STENCILC_REPLAN=force) keeps the bits: the sweep after it reads with the old chunks;
* a run stopped after two sweeps resumes from the chunks its state file recorded, even when resumed
  with the other layout asked for;
* --tier pmem, --mode mmap and two MPI ranks keep the bits;
* with runs long enough, the reads and writes of a y-blocked plan are requests of at least 512 KiB,
  where the plain layout makes requests of by rows (one a plane), and the time model's request size is
  the run's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import EXAMPLES_DIR, load_report, stencilc_command

ENV = dict(os.environ, OMP_NUM_THREADS="2", STENCILC_CALIBRATE="0")
SIZE = "128,96,40"  # rows of 1 KiB
YBLOCK = ["--mem", "8M", "--block", "16,4,2"]


@pytest.fixture(scope="module")
def heat3d(compile_example):
    return compile_example("heat3d")


@pytest.fixture(scope="module")
def start(tmp_path_factory):
    p = tmp_path_factory.mktemp("init") / "start.npy"
    np.save(p, np.random.default_rng(3).random((40, 96, 128)))
    return p


def _run(exe, tmp: Path, name: str, *args, env=None, steps=7, check=True):
    d = tmp / name
    d.mkdir(exist_ok=True)
    out = d / "u.npy"
    r = subprocess.run([str(exe), "--size", SIZE, "--steps", str(steps), "--dir", str(d), "--out", f"u={out}",
                        "--report", str(d / "r.json"), *map(str, args)], capture_output=True, text=True,
                       env=env or ENV, timeout=600)
    if check:
        assert r.returncode == 0, r.stderr
    return r, d, out


@pytest.fixture(scope="module")
def in_core(heat3d, start, tmp_path_factory):
    _, _, out = _run(heat3d, tmp_path_factory.mktemp("ic"), "ic", "--mode", "incore", "--init", f"u={start}")
    return out.read_bytes()


def _exact(d: Path) -> dict:
    rep = load_report(d / "r.json")
    assert rep["bytes_read"] == rep["predicted_bytes_read"], rep
    assert rep["bytes_written"] == rep["predicted_bytes_written"], rep
    return rep


@pytest.mark.parametrize("strip", ["dram", "file"])
def test_chunked_plain_and_in_core_give_the_same_bits(heat3d, start, in_core, tmp_path, strip):
    """Four sweeps (bt 2 over 7 steps: the last one step), from an --init .npy: the same bits in both
    layouts, the bytes as predicted, the layout reported."""
    _, dc, oc = _run(heat3d, tmp_path, "c", *YBLOCK, "--strip", strip, "--init", f"u={start}")
    _, dp, op = _run(heat3d, tmp_path, "p", *YBLOCK, "--strip", strip, "--init", f"u={start}",
                     env=dict(ENV, STENCILC_SCRATCH_LAYOUT="plain"))
    rc, rp = _exact(dc), _exact(dp)
    assert rc["scratch_layout"] == "chunked" and rp["scratch_layout"] == "plain"
    assert rc["params"]["by"] == 16 and rc["bytes_read"] == rp["bytes_read"]
    assert oc.read_bytes() == in_core and op.read_bytes() == in_core
    # the chunks move fewer, larger requests
    nc = sum(rc["request_sizes"]["read"]["requests"]) + sum(rc["request_sizes"]["write"]["requests"])
    np_ = sum(rp["request_sizes"]["read"]["requests"]) + sum(rp["request_sizes"]["write"]["requests"])
    assert nc < np_, (nc, np_)


def test_whole_planes_alg2_and_2d_stay_plain(heat3d, start, in_core, tmp_path, compile_example):
    _, d, out = _run(heat3d, tmp_path, "w", "--mem", "8M", "--block", "96,4,2", "--init", f"u={start}")
    assert _exact(d)["scratch_layout"] == "plain" and out.read_bytes() == in_core
    # (alg2 blocks whole planes only: y-blocking is the reference schedule's)
    _, d, out = _run(heat3d, tmp_path, "a", "--mem", "8M", "--block", "96,4,2", "--schedule", "alg2", "--init",
                     f"u={start}")
    assert _exact(d)["scratch_layout"] == "plain" and out.read_bytes() == in_core
    # 2d: one plane, where chunks would only cut the spans (r = y, q = z of one plane)
    d = tmp_path / "2d"
    d.mkdir()
    r = subprocess.run([str(compile_example("jacobi2d")), "--size", "64,56", "--steps", "7", "--block", "10,2",
                        "--dir", str(d), "--report", str(d / "r.json")], capture_output=True, text=True, env=ENV,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    assert _exact(d)["scratch_layout"] == "plain"


def test_a_forced_replan_reads_with_the_old_chunks(heat3d, start, in_core, tmp_path):
    r, d, out = _run(heat3d, tmp_path, "r", "--mem", "8M", "--block", "16,4,1", "--init", f"u={start}",
                     env=dict(ENV, STENCILC_REPLAN="force"), steps=7)
    assert "re-plan after sweep 1" in r.stderr, r.stderr
    rep = _exact(d)
    assert rep["scratch_layout"] == "chunked" and len(rep["replans"]) >= 1
    assert out.read_bytes() == in_core


@pytest.fixture(scope="module")
def faultshim(tmp_path_factory):
    shim = tmp_path_factory.mktemp("shim") / "faultshim.so"
    repo = Path(__file__).resolve().parents[2]
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", str(shim), str(repo / "runtime/tests/faultshim.c"),
                    "-ldl"], check=True)
    return shim


@pytest.mark.parametrize("then", ["chunked", "plain"])
def test_resume_reads_the_chunks_the_state_file_recorded(heat3d, start, in_core, tmp_path, faultshim, then):
    """The third state commit fails: two sweeps are in the files, their chunks in the state file; the
    resumed run reads them back through those chunks, whatever layout it is asked for (plain: it
    still reads the chunked files right, and writes its own sweeps plain)."""
    args = [*YBLOCK, "--init", f"u={start}"]
    r, d, out = _run(heat3d, tmp_path, "k", *args, check=False,
                     env=dict(ENV, LD_PRELOAD=str(faultshim), STN_FAULT="rename:3:EIO"))
    assert r.returncode == 1, r.stderr
    state = (d / "heat3d.ooc-state").read_text()
    assert "stencilc-ooc-state 4" in state and "sweeps_done 2" in state, state
    chunks = [line.split() for line in state.splitlines() if line.startswith("chunks ")]
    assert [c[1] for c in chunks] == ["0", "1", "2"] and int(chunks[0][2]) > 1, state  # set 0: sweep 1's
    env = dict(ENV, STENCILC_SCRATCH_LAYOUT="plain") if then == "plain" else ENV
    r, d, out = _run(heat3d, tmp_path, "k", *args, "--resume", env=env)
    _exact(d)
    assert out.read_bytes() == in_core


def test_the_pmem_tier_and_mmap_keep_the_bits(heat3d, start, in_core, tmp_path):
    _, d, out = _run(heat3d, tmp_path, "pm", *YBLOCK, "--strip", "file", "--tier", "pmem", "--init", f"u={start}")
    assert _exact(d)["scratch_layout"] == "chunked" and out.read_bytes() == in_core
    _, d, out = _run(heat3d, tmp_path, "mm", "--mode", "mmap", "--mem", "8M", "--init", f"u={start}")
    assert "scratch_layout" not in load_report(d / "r.json") and out.read_bytes() == in_core


@pytest.mark.skipif(not (shutil.which("mpirun") and shutil.which("mpicc")), reason="OpenMPI is not installed")
def test_two_mpi_ranks_keep_the_bits(start, in_core, tmp_path):
    cmd, env = stencilc_command()
    exe = tmp_path / "heat3d-mpi"
    p = subprocess.run([*cmd, str(EXAMPLES_DIR / "heat3d.stn"), "--mpi", "-o", str(exe)], capture_output=True,
                       text=True, env=env)
    assert p.returncode == 0, p.stderr
    flags = ["--oversubscribe", "--bind-to", "none", "--mca", "btl", "self,vader"]
    if os.geteuid() == 0:
        flags.insert(0, "--allow-run-as-root")
    d = tmp_path / "d"
    d.mkdir()
    r = subprocess.run([shutil.which("mpirun"), *flags, "-np", "2", str(exe), "--size", SIZE, "--steps", "7",
                        "--mem", "8M", "--block", "16,4,2", "--init", f"u={start}", "--dir", str(d), "--out",
                        f"u={d / 'u.npy'}", "--report", str(d / "r.json")], capture_output=True, text=True,
                       env=ENV, timeout=600)
    assert r.returncode == 0, r.stderr
    rep = _exact(d)
    assert rep["scratch_layout"] == "chunked" and rep["params"]["by"] == 16, rep["params"]
    assert (d / "u.npy").read_bytes() == in_core


def test_long_runs_make_large_requests(heat3d, tmp_path):
    """Rows of 8 KiB, by 8, bz 32, bt 8 (the skew moves the reads by a multiple of by: one chunk a block,
    8 rows x 32 planes = 2 MiB a run; the z-strip in DRAM: a spilled one is a plane or two deep): chunked, most bytes move in requests of at least 512 KiB and the
    time model's request is over 512 KiB; plain, every request of the loop is by rows of one plane
    (64 KiB), the time model's too."""
    reps = {}
    for layout in ("chunked", "plain"):
        d = tmp_path / layout
        d.mkdir()
        r = subprocess.run([str(heat3d), "--size", "1024,64,64", "--steps", "16", "--mem", "32M", "--block",
                            "8,32,8", "--strip", "dram", "--dir", str(d), "--report", str(d / "r.json")], capture_output=True,
                           text=True, env=dict(ENV, STENCILC_SCRATCH_LAYOUT=layout), timeout=600)
        assert r.returncode == 0, r.stderr
        reps[layout] = _exact(d)
        assert reps[layout]["params"]["by"] == 8 and reps[layout]["scratch_layout"] == layout
    big = reps["chunked"]["request_sizes"]["bucket_bytes"].index(512 << 10)
    for way in ("read", "write"):
        c, p = reps["chunked"]["request_sizes"][way], reps["plain"]["request_sizes"][way]
        assert sum(c["bytes"][big:]) >= 0.9 * sum(c["bytes"]) > 0, (way, c)
        assert sum(p["bytes"][big:]) == 0 and p["bytes"].index(max(p["bytes"])) == big - 3, (way, p)  # 64 KiB
    assert reps["chunked"]["time_model"]["request_bytes"] >= 512 << 10, reps["chunked"]["time_model"]
    # the rings those requests go to and from are in 2 MiB pages (docs/design/026): on Linux 6.1 on, gathered
    pages = reps["chunked"]["io_pages"]
    if tuple(int(x) for x in os.uname().release.split(".")[:2]) >= (6, 1):
        assert pages["source"] == "gathered with MADV_COLLAPSE", pages
        assert pages["huge_bytes"] >= 0.75 * (pages["huge_bytes"] + pages["small_bytes"]) > 0, pages
    else:
        assert pages["source"].startswith("MADV_COLLAPSE refused"), pages
        assert any("4 KiB pages" in w for w in reps["chunked"]["warnings"]), reps["chunked"]["warnings"]
    assert reps["plain"]["time_model"]["request_bytes"] == 64 << 10, reps["plain"]["time_model"]
