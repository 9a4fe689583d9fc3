"""The GPU engine (``--mode gpu``, ``--mode gpu-ooc``; docs/design/024-gpu-tier.md) on a machine without a GPU.

Every example the CUDA target carries is built as a whole program with ``stencilc --target cuda --emit=exe``
against the host emulation of the CUDA runtime (``$STENCILC_CUDA_EMU`` = test/python/cuda_emu: the ``.cu`` files
compiled as C++ by the host compiler, every launch run on the CPU, streams checked, device memory filled with
NaN), and run in ``--mode gpu`` and ``--mode gpu-ooc --gpu-mem`` 1/8 of the grid's arrays (several blocks and
sweeps): every level of every state field written by ``--out`` is the CPU in-core run's, byte for byte, and so
are the samples of every record (acoustic2d, seismic_surface: sets of points of the test's own, on and off the
grid, in several blocks, one point twice), and the report's bytes copied each way (the points up, the samples
down included) equal the plan's prediction; the examples periodic along the streamed axis (advect_ab3, d2q9)
run gpu-ooc in wrapped windows, several blocks of several steps a sweep (jacobi1d, a 1d grid, in blocks of cells
along x).  A construct the engine does not carry yet (sub-steps in wrapped windows) is refused with its reason.
Also:
the refusals (a program built without CUDA, a ``--gpu-mem`` too small), and, where nvcc is found, a real
``--target cuda`` program built with it (skipped with the reason where it is not).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import EXAMPLES_DIR, force2d_stn, load_report
from stencilc import driver
from stencilc.codegen import build_layout
from stencilc.diagnostics import CompileError
from stencilc.toolchain import find_nvcc

EMU = Path(__file__).resolve().parent / "cuda_emu"
REPO = Path(__file__).resolve().parents[2]


def _carried() -> list[str]:
    names = []
    for p in sorted(EXAMPLES_DIR.glob("*.stn")):
        try:
            driver.front(str(p), target="cuda")
        except CompileError:
            continue
        names.append(p.stem)
    return names


CARRIED = _carried()


def _stencilc(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    e = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "compiler"), *sys.path]), **(env or {})}
    return subprocess.run([sys.executable, "-m", "stencilc", *args], capture_output=True, text=True, env=e,
                          timeout=600)


class _Programs(dict):
    """name -> the example's program built with --target cuda against the host emulation, built on first
    use: each xdist worker builds only the examples its tests run (building them all in every worker
    cost each two minutes on the CI machine)."""

    def __init__(self, out: Path):
        super().__init__()
        self.out = out

    def __missing__(self, name: str) -> Path:
        exe = self.out / name
        r = _stencilc([str(EXAMPLES_DIR / f"{name}.stn"), "--target", "cuda", "--emit=exe", "-o", str(exe)],
                      {"STENCILC_CUDA_EMU": str(EMU)})
        assert r.returncode == 0, r.stderr
        self[name] = exe
        return exe


@pytest.fixture(scope="module")
def emu_programs(tmp_path_factory):
    return _Programs(tmp_path_factory.mktemp("gpu-emu"))


def _run(exe: Path, args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=300)


def _setup(name: str, tmp_path: Path, stn: Path | None = None):
    """The run's size, the --out of every level of every state field, the grid's arrays' bytes, the --init of
    every series (values written under ``tmp_path``), and what the engine cannot carry for this program
    (None: everything).  stn: the .stn file (else the example ``name``)."""
    layout = build_layout(driver.front(str(stn or EXAMPLES_DIR / f"{name}.stn"), target="cuda"))
    size = [10, 8, 256] if layout.ndim == 3 else [16, 256] if layout.dims == 2 else [512]
    cells = int(np.prod(size))
    es = 4 if layout.dtype == "f32" else 8
    levels = []
    for f in layout.fields:
        if f.kind == "state":
            levels.append(f.run_name)
            if f.levels == 2:
                levels.append(f"{f.run_name}.prev")
    arrays = (len(layout.src_slots) + len(layout.dst_slots)) * cells * es
    inits = []
    for k, w in enumerate(layout.series):
        np.save(tmp_path / f"series.{w}.npy", np.cos(np.arange(40) * (0.3 + 0.1 * k)).astype(f"<f{es}"))
        inits += ["--init", f"{w}={tmp_path / f'series.{w}.npy'}"]
    for k, ps in enumerate(layout.points):
        np.save(tmp_path / f"points.{ps}.npy", _points(size, k, layout.points_spacing[k], layout.params))
        inits += ["--init", f"{ps}={tmp_path / f'points.{ps}.npy'}"]
    levels += [o.name for o in layout.records]  # (each record's samples, --out NAME=FILE)
    refused = None
    if layout.stages and _wraps(layout):
        refused = ("ooc", "the stencil has sub-steps (their cells around a block would cross the wrap)")
    return size, levels, arrays, inits, refused


def _wraps(layout) -> bool:
    """Whether the program's state fields are periodic along the streamed axis (gpu-ooc's windows wrap; a 1d
    grid is cut along x, into blocks of cells)."""
    streamed = 0 if layout.dims == 1 else layout.ndim - 1
    return any(streamed in f.periodic for f in layout.fields if f.kind == "state")


def _points(size: list[int], k: int, spacing: int, params) -> np.ndarray:
    """Set k of points on the grid `size`, in the interior: a point twice (coinciding sources add in the C
    order), points near one another and on the streamed axis near the ends and the middle (in several blocks
    of gpu-ooc, and in the cones of their neighbours); an off-grid set (spacing > -2) at fractions of a cell,
    in units of its spacing param (-1: cells)."""
    n = size[-1]
    along = [2, 3, n // 2, n // 2, n // 2 + 1, n // 3 + k, n - 4, n - 3]
    cells = [[2 + (i + k) % (c - 5) for c in size[:-1]] + [z] for i, z in enumerate(along)]
    cells[3] = list(cells[2])
    if spacing <= -2:
        return np.array(cells, dtype=np.int64)
    h = params[spacing].value if spacing >= 0 else 1.0
    return (np.array(cells, dtype=np.float64) + [0.25 + 0.125 * j for j in range(len(size))]) * h


@pytest.mark.parametrize("name", CARRIED)
def test_the_gpu_modes_give_the_cpu_bits_and_the_predicted_bytes(emu_programs, tmp_path, name):
    _check_gpu_modes(emu_programs[name], name, tmp_path)


LIT_CUDA = REPO / "test" / "lit" / "cuda"


@pytest.mark.parametrize("name", ["cuda_substeps_periodic", "cuda_substeps_periodic3d", "cuda_substeps_wrap_x"])
def test_sub_steps_reading_a_periodic_fields_new_value_give_the_cpu_bits(tmp_path, name):
    """Sub-steps reading a periodic field's new value (test/lit/cuda: 2d periodic along x and y, 3d along x and y,
    2d along x with an inject and a record) in --mode gpu and gpu-ooc at 1/8 of the arrays: the CPU in-core run's
    bits, bytes as predicted; gpu-ooc of the 2d torus (periodic along y, the streamed axis, with sub-steps) is
    refused with its reason."""
    stn = LIT_CUDA / f"{name}.stn"
    exe = tmp_path / name
    r = _stencilc([str(stn), "--target", "cuda", "--emit=exe", "-o", str(exe)], {"STENCILC_CUDA_EMU": str(EMU)})
    assert r.returncode == 0, r.stderr
    _check_gpu_modes(exe, name, tmp_path, stn)


WRAPALONG = """
stencil wrapalong {
  grid 2d f64;
  param c2 = 0.25;
  input dy along y;
  input k;
  state u levels 2;
  u' = (2 * u - (1 - dy) * u.prev + c2 * k * (u[1,0] + u[-1,0] + u[0,1] + u[0,-1] - 4 * u)) / (1 + dy)
       + 0.001 * sin(0.3 * y);
  boundary periodic;
  init dy = 0.1 * (1 + sin(0.2 * y));
  init k = 0.5 + 0.25 * cos(0.1 * x + 0.3 * y);
  init u = exp(-((x - nx/2)^2 + (y - ny/3)^2) / 20.0);
}
"""


def test_wrapped_windows_see_the_grids_coordinates_and_inputs(tmp_path):
    """A torus (2d, periodic along y, the streamed axis) of two levels whose update reads an input along y, an
    input field at its own cell and the y coordinate: gpu-ooc's wrapped windows (each piece of a step's region
    under the grid's own indices, the input's planes those they wrap to) give the CPU's bits."""
    stn = tmp_path / "wrapalong.stn"
    stn.write_text(WRAPALONG)
    exe = tmp_path / "wrapalong"
    r = _stencilc([str(stn), "--target", "cuda", "--emit=exe", "-o", str(exe)], {"STENCILC_CUDA_EMU": str(EMU)})
    assert r.returncode == 0, r.stderr
    _check_gpu_modes(exe, "wrapalong", tmp_path, stn)


def _check_gpu_modes(exe: Path, name: str, tmp_path: Path, stn: Path | None = None) -> None:
    """The program ``exe`` of ``name`` (an example, or ``stn``) in --mode gpu and gpu-ooc at 1/8 of the grid's
    arrays: every state level and record the CPU in-core run's bits, bytes counted == predicted."""
    size, levels, arrays, inits, refused = _setup(name, tmp_path, stn)
    layout = build_layout(driver.front(str(stn or EXAMPLES_DIR / f"{name}.stn"), target="cuda"))
    common = ["--size", ",".join(map(str, size)), "--steps", "9", *inits, "--quiet"]

    def outs(tag: str) -> list[str]:
        return [a for lv in levels for a in ("--out", f"{lv}={tmp_path / f'{tag}.{lv}.npy'}")]

    r = _run(exe, [*common, "--mode", "incore", *outs("cpu")])
    assert r.returncode == 0, r.stderr
    for rec in (o.name for o in layout.records):  # (samples that a wrong step, point or row would change)
        assert np.count_nonzero(np.load(tmp_path / f"cpu.{rec}.npy")) > 0, rec
    runs = {"gpu": ["--mode", "gpu"], "ooc": ["--mode", "gpu-ooc", "--gpu-mem", str(arrays // 8)]}
    for tag, mode in runs.items():
        rep = tmp_path / f"{tag}.json"
        r = _run(exe, [*common, *mode, *outs(tag), "--report", str(rep)])
        if refused and refused[0] in ("both", tag):
            assert r.returncode == 1 and refused[1] in r.stderr, f"{name} {mode}: {r.stderr}"
            continue
        assert r.returncode == 0, f"{name} {mode}: {r.stderr}"
        for lv in levels:
            a, b = (tmp_path / f"cpu.{lv}.npy").read_bytes(), (tmp_path / f"{tag}.{lv}.npy").read_bytes()
            assert a == b, f"{name} {mode}: {lv} is not the CPU in-core run's bits"
        g = load_report(rep)["gpu"]
        assert g["h2d_bytes"] == g["predicted_h2d_bytes"] > 0, g
        assert g["d2h_bytes"] == g["predicted_d2h_bytes"] > 0, g
        if tag == "ooc":
            assert g["blocks"] > 1 and g["dev_bytes"] <= arrays // 8 and g["streams"] == 3, g
            if _wraps(layout):  # (the windows wrap past the grid's faces: several steps a sweep)
                assert g["bt"] > 1, g
        else:
            assert g["blocks"] == 1 and g["bt"] == 9, g


def _launches(log: Path) -> dict[str, int]:
    """The emulation's count of each kernel's launches ($EMU_LAUNCH_LOG, cuda_emu/cuda_runtime.h)."""
    return {k: int(n) for k, n in (ln.split() for ln in log.read_text().splitlines())}


@pytest.mark.parametrize("boundary", ["dirichlet", "neumann"])
def test_a_step_of_heat3d_on_the_gpu_is_two_launches(tmp_path, boundary):
    """--mode gpu, heat3d (its dirichlet boundary, and neumann): each step launches the step kernel once and the
    boundary kernel once (the whole boundary shell in one launch, docs/design/024-gpu-tier.md), counted by the
    emulation as the launches of 5 steps less those of 1; and the neumann variant gives the CPU's bits."""
    stn = (EXAMPLES_DIR / "heat3d.stn").read_text()
    assert "boundary dirichlet;" in stn
    (tmp_path / "heat3d.stn").write_text(stn.replace("boundary dirichlet;", f"boundary {boundary};"))
    exe = tmp_path / "heat3d"
    r = _stencilc([str(tmp_path / "heat3d.stn"), "--target", "cuda", "--emit=exe", "-o", str(exe)],
                  {"STENCILC_CUDA_EMU": str(EMU)})
    assert r.returncode == 0, r.stderr
    counts = {}
    for steps in (1, 5):
        log, out = tmp_path / f"launches.{steps}", tmp_path / f"gpu.{steps}.npy"
        r = subprocess.run([str(exe), "--size", "16,12,10", "--steps", str(steps), "--mode", "gpu", "--quiet",
                            "--out", f"u={out}"], capture_output=True, text=True, timeout=120,
                           env={**os.environ, "EMU_LAUNCH_LOG": str(log)})
        assert r.returncode == 0, r.stderr
        counts[steps] = _launches(log)
    per4 = {k: n - counts[1].get(k, 0) for k, n in counts[5].items() if n != counts[1].get(k, 0)}
    assert per4 == {"heat3d_step_kernel_": 4, "heat3d_boundary_kernel_": 4}, per4
    r = _run(exe, ["--size", "16,12,10", "--steps", "5", "--quiet", "--out", f"u={tmp_path / 'cpu.npy'}"])
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "cpu.npy").read_bytes() == (tmp_path / "gpu.5.npy").read_bytes()


TIMED = """
stencil timed {
  grid 3d f64;
  param a = 0.1;
  series w;
  state u levels 2;
  u' = u + a * (u[1,0,0] + u[-1,0,0] + u[0,1,0] + u[0,-1,0] + u[0,0,1] + u[0,0,-1] - 6 * u) - 0.01 * u.prev
       + 0.001 * sin(0.1 * t) + 0.01 * w[t] - 0.005 * w[t-1];
  init u = sin(0.3 * x) + cos(0.2 * z);
  boundary neumann;
}
"""


def _timed(tmp_path):
    """TIMED built for the emulation in tmp_path, with its series w.npy beside it."""
    (tmp_path / "timed.stn").write_text(TIMED)
    exe = tmp_path / "timed"
    r = _stencilc([str(tmp_path / "timed.stn"), "--target", "cuda", "--emit=exe", "-o", str(exe)],
                  {"STENCILC_CUDA_EMU": str(EMU)})
    assert r.returncode == 0, r.stderr
    np.save(tmp_path / "w.npy", np.cos(np.arange(40) * 0.7))
    return exe


def test_the_step_index_and_the_series_go_on_across_blocks_and_sweeps(tmp_path):
    """A stencil reading t, w[t] and w[t-1] (each step's params queued with its kernels) and a neumann field of
    two levels: gpu-ooc over several blocks and sweeps of several steps gives the CPU's bits."""
    exe = _timed(tmp_path)
    common = ["--size", "10,8,200", "--steps", "23", "--init", f"w={tmp_path / 'w.npy'}", "--quiet"]
    r = _run(exe, [*common, "--out", f"u={tmp_path / 'cpu.npy'}", "--out", f"u.prev={tmp_path / 'cpup.npy'}"])
    assert r.returncode == 0, r.stderr
    arrays = 3 * 10 * 8 * 200 * 8
    for budget in (arrays // 8, arrays // 3):
        rep = tmp_path / f"r{budget}.json"
        r = _run(exe, [*common, "--mode", "gpu-ooc", "--gpu-mem", str(budget), "--out", f"u={tmp_path / 'g.npy'}",
                       "--out", f"u.prev={tmp_path / 'gp.npy'}", "--report", str(rep)])
        assert r.returncode == 0, r.stderr
        g = load_report(rep)["gpu"]
        assert g["blocks"] > 1 and g["bt"] > 1 and g["h2d_bytes"] == g["predicted_h2d_bytes"], g
        assert (tmp_path / "g.npy").read_bytes() == (tmp_path / "cpu.npy").read_bytes(), budget
        assert (tmp_path / "gp.npy").read_bytes() == (tmp_path / "cpup.npy").read_bytes(), budget


def test_gpu_ooc_cuts_large_planes_along_y_as_well(tmp_path):
    """Planes large against the budget (6x160x40: a plane of 7.5 KiB, a budget of a few planes a window): the
    chooser cuts each block of planes along y into tiles (their windows the cone along both axes, copied up and
    down by cudaMemcpy2DAsync), and the run gives the CPU's bits, every level, with the bytes predicted.  The
    stencil of the test above: neumann, two levels, t and a series."""
    exe = _timed(tmp_path)
    size = (6, 160, 40)
    common = ["--size", ",".join(map(str, size)), "--steps", "17", "--init", f"w={tmp_path / 'w.npy'}", "--quiet"]
    r = _run(exe, [*common, "--out", f"u={tmp_path / 'cpu.npy'}", "--out", f"u.prev={tmp_path / 'cpup.npy'}"])
    assert r.returncode == 0, r.stderr
    arrays = 3 * int(np.prod(size)) * 8
    tiled = 0
    for budget in (arrays // 8, arrays // 20):
        rep = tmp_path / f"r{budget}.json"
        r = _run(exe, [*common, "--mode", "gpu-ooc", "--gpu-mem", str(budget), "--out", f"u={tmp_path / 'g.npy'}",
                       "--out", f"u.prev={tmp_path / 'gp.npy'}", "--report", str(rep)])
        assert r.returncode == 0, r.stderr
        g = load_report(rep)["gpu"]
        tiled += g["ytiles"] > 1
        assert g["blocks"] > 1 and g["dev_bytes"] <= budget, g
        assert g["h2d_bytes"] == g["predicted_h2d_bytes"] and g["d2h_bytes"] == g["predicted_d2h_bytes"], g
        assert (tmp_path / "g.npy").read_bytes() == (tmp_path / "cpu.npy").read_bytes(), g
        assert (tmp_path / "gp.npy").read_bytes() == (tmp_path / "cpup.npy").read_bytes(), g
    assert tiled == 2


FORCE = force2d_stn("neumann")


@pytest.mark.parametrize("offgrid", [False, True])
def test_injects_a_sub_step_reads_primed_give_the_cpu_bits(tmp_path, offgrid):
    """Force sources in the velocities of a staggered model, which the pressure's update reads primed (the CUDA
    step adds them right after the velocities' stage, on its region, before that region's boundary cells mirror
    them): points on the first and last interior rows and columns, one twice (or off the grid: weighted corners,
    NAME_cuda_step_box_pts's weights); --mode gpu and gpu-ooc under three budgets (several blocks, bt 1 to 3)
    give every field's and the record's CPU in-core bits, bytes as predicted."""
    (tmp_path / "force2d.stn").write_text(FORCE.replace("points src;", "points src real;") if offgrid else FORCE)
    exe = tmp_path / "force2d"
    r = _stencilc([str(tmp_path / "force2d.stn"), "--target", "cuda", "--emit=exe", "-o", str(exe)],
                  {"STENCILC_CUDA_EMU": str(EMU)})
    assert r.returncode == 0, r.stderr
    size, steps = (29, 64), 13
    files = {"w": np.sin(np.arange(steps + 2) * 0.3),
             "src": np.array([[1, 5], [10, 10], [27, 3], [1, 62], [14, 32], [10, 10], [5, 40]], dtype=np.int64),
             "rcv": np.array([[5, 5], [20, 7], [1, 1], [27, 62], [10, 11], [14, 33]], dtype=np.int64),
             "rho": 1 + 0.3 * np.random.default_rng(1).random(size[::-1])}
    if offgrid:  # (each point's 4 corners, weighted: the first two the same point)
        files["src"] = np.array([[1.5, 5.25], [1.5, 5.25], [26.75, 3.5], [10.125, 61.5], [14.5, 32.5]])
    common = ["--size", "29,64", "--steps", str(steps), "--quiet"]
    for k, a in files.items():
        np.save(tmp_path / f"{k}.npy", a)
        common += ["--init", f"{k}={tmp_path / k}.npy"]

    def run(tag: str, *mode: str) -> dict:
        rep = tmp_path / f"{tag}.json"
        outs = [a for f in ("vx", "vy", "p", "r") for a in ("--out", f"{f}={tmp_path / f'{tag}.{f}.npy'}")]
        r = _run(exe, [*common, *mode, *outs, "--report", str(rep)])
        assert r.returncode == 0, f"{mode}: {r.stderr}"
        if tag != "cpu":
            g = load_report(rep)["gpu"]
            assert g["h2d_bytes"] == g["predicted_h2d_bytes"] and g["d2h_bytes"] == g["predicted_d2h_bytes"], g
            assert (g["blocks"] > 1) == (tag != "gpu"), g
        return {f: (tmp_path / f"{tag}.{f}.npy").read_bytes() for f in ("vx", "vy", "p", "r")}

    want = run("cpu", "--mode", "incore")
    assert np.count_nonzero(np.load(tmp_path / "cpu.r.npy")) > 0
    assert run("gpu", "--mode", "gpu") == want
    for budget in (22000, 40000, 70000):
        assert run(f"ooc{budget}", "--mode", "gpu-ooc", "--gpu-mem", str(budget)) == want, budget


def test_gpu_mem_too_small_names_the_budget_and_the_smallest_plan(emu_programs):
    r = _run(emu_programs["heat3d"], ["--size", "10,8,256", "--steps", "3", "--mode", "gpu-ooc", "--gpu-mem", "4K"])
    assert r.returncode == 1
    assert "heat3d: error: --mode gpu-ooc: --gpu-mem 4096 bytes is below the smallest plan" in r.stderr, r.stderr
    r = _run(emu_programs["heat3d"], ["--size", "10,8,256", "--steps", "3", "--mode", "gpu", "--gpu-mem", "64K"])
    assert r.returncode == 1
    assert "--mode gpu: the grid's 2 arrays need 320.00 KiB on the device, more than --gpu-mem" in r.stderr, r.stderr
    assert "--mode gpu-ooc streams it through" in r.stderr
    r = _run(emu_programs["heat3d"], ["--size", "10,8,256", "--steps", "3", "--mode", "gpu", "--gpu-mem", "x"])
    assert r.returncode == 2 and "--gpu-mem x: expected a positive byte count" in r.stderr, r.stderr


def test_the_device_budget_defaults_to_its_free_memory(emu_programs, tmp_path):
    """Without --gpu-mem, gpu-ooc plans within the device's free memory (the emulation's EMU_DEVICE_MEM)."""
    rep = tmp_path / "r.json"
    # below the smallest plan: a tile of 2 rows of 2 planes and its cone of 1 step (4 x 4 rows of 10 cells), of 2
    # arrays in 3 streams
    env = {**os.environ, "EMU_DEVICE_MEM": str(4 * 4 * 10 * 8 * 2 * 3 - 8)}
    r = subprocess.run([str(emu_programs["heat3d"]), "--size", "10,8,256", "--steps", "3", "--mode", "gpu-ooc"],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 1 and "no --gpu-mem: the device's free memory" in r.stderr, r.stderr
    # (the smallest plan named is of tiles: 4 planes of a 4-row window of 10 cells, 2 arrays, 3 streams)
    assert "below the smallest plan: 4 planes of 320 bytes (a tile's rows)" in r.stderr and " 7680 bytes" in r.stderr
    env["EMU_DEVICE_MEM"] = str(64 << 30)
    r = subprocess.run([str(emu_programs["heat3d"]), "--size", "10,8,256", "--steps", "3", "--mode", "gpu-ooc",
                        "--report", str(rep)], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert re.search(r"; copied 160\.00 KiB to the device and 160\.00 KiB back \(as predicted\); ", r.stderr), r.stderr
    g = json.loads(rep.read_text())["gpu"]
    assert g["gpu_mem"] == 64 << 30 and g["blocks"] == 1  # the grid fits: in core
    # a --gpu-mem beyond what the device has: its allocation fails, and the run says so (no crash, no output)
    env["EMU_DEVICE_MEM"] = str(100_000)
    r = subprocess.run([str(emu_programs["heat3d"]), "--size", "10,8,256", "--steps", "3", "--mode", "gpu-ooc",
                        "--gpu-mem", "1M", "--out", f"u={tmp_path / 'u.npy'}"], capture_output=True, text=True,
                       env=env, timeout=120)
    assert r.returncode == 1, r.stderr
    assert "heat3d: error: --mode gpu-ooc: the device has no " in r.stderr and "left (out of memory)" in r.stderr, \
        r.stderr
    assert not (tmp_path / "u.npy").exists()


def test_a_program_built_without_cuda_refuses_the_gpu_modes(compile_example, run_program):
    exe = compile_example("heat3d")
    for mode in ("gpu", "gpu-ooc"):
        rc, _, err = run_program(exe, ["--size", "16,16,16", "--steps", "1", "--mode", mode])
        assert rc == 2
        assert (f"heat3d: error: --mode {mode}: this program was built without CUDA; build it with "
                "`stencilc --target cuda --emit=exe`") in err, err


NVCC = find_nvcc()


@pytest.mark.skipif(NVCC is None, reason="no nvcc ($CUDACXX, PATH, /usr/local/cuda, or PyPI's nvidia-cuda-nvcc "
                    "in this Python: tools/setup.sh installs it where it can)")
def test_target_cuda_builds_a_program_with_nvcc(tmp_path):
    """nvcc compiles the kernels and the entry points, and the program links against the CUDA runtime
    (cudart_static); it runs --mode gpu only on a GPU (tools/gpu-check.sh), the CPU modes anywhere."""
    exe = tmp_path / "heat3d"
    r = _stencilc([str(EXAMPLES_DIR / "heat3d.stn"), "--target", "cuda", "--emit=exe", "-o", str(exe)],
                  {"STENCILC_CUDA_EMU": ""})
    assert r.returncode == 0, r.stderr
    syms = subprocess.run(["nm", str(exe)], capture_output=True, text=True).stdout
    assert " heat3d_cuda_ops_" in syms and "cudaMemcpyAsync" in syms
    r = _run(exe, ["--size", "16,16,16", "--steps", "2", "--mode", "incore", "--quiet"])
    assert r.returncode == 0, r.stderr
    r = _run(exe, ["--size", "16,16,16", "--steps", "2", "--mode", "gpu", "--quiet"])  # (no GPU: a clear error)
    assert r.returncode == 0 or (r.returncode == 1 and "heat3d: error: --mode gpu: opening the device failed: "
                                 in r.stderr), r.stderr


@pytest.mark.skipif(NVCC is None, reason="no nvcc (see above)")
def test_the_python_library_builds_with_nvcc(monkeypatch):
    import stencilc

    monkeypatch.delenv("STENCILC_CUDA_EMU", raising=False)
    prog = stencilc.compile(EXAMPLES_DIR / "heat3d.stn", target="cuda")
    syms = subprocess.run(["nm", str(prog.prefix / "lib" / "libheat3d.so")], capture_output=True, text=True).stdout
    assert " D heat3d_cuda_ops_" in syms
    with prog.open(size=(16, 16, 16), steps=2, mode="incore") as sim:
        sim.advance(2)
    try:
        with prog.open(size=(16, 16, 16), steps=2, mode="gpu") as sim:
            sim.advance(2)
    except stencilc.Error as e:  # (no GPU here)
        assert "--mode gpu: opening the device failed: " in str(e), e


def test_without_nvcc_target_cuda_exe_says_where_it_looked(tmp_path):
    r = _stencilc([str(EXAMPLES_DIR / "heat3d.stn"), "--target", "cuda", "--emit=exe", "-o", str(tmp_path / "h")],
                  {"CUDACXX": str(tmp_path / "no-nvcc"), "STENCILC_CUDA_EMU": ""})
    assert r.returncode == 1
    assert "stencilc: error: --target cuda needs nvcc to build, and none was found ($CUDACXX" in r.stderr, r.stderr
    assert not (tmp_path / "h").exists()


def test_a_simulation_in_the_gpu_modes_advances_in_pieces_with_writes_between(tmp_path, monkeypatch):
    """The C API (NAME_api.h, test/embed/host.c) over --mode gpu and gpu-ooc: a host linking libNAME.a of
    --emit=lib and libNAME_cuda.a of --target cuda --emit=lib (the entry points pulled in with -u, against the
    host emulation) advances in pieces, with a write between them: the in-core simulation's bits (the step
    index, the series and the written cells go on across the calls), and the report's gpu bytes as predicted."""
    from stencilc import toolchain

    monkeypatch.setenv("STENCILC_CUDA_EMU", str(EMU))
    (tmp_path / "timed.stn").write_text(TIMED)
    prefix, cudalib = tmp_path / "lib", tmp_path / "cuda"
    for args in (["--emit=lib", "-o", str(prefix)], ["--target", "cuda", "--emit=lib", "-o", str(cudalib)]):
        r = _stencilc([str(tmp_path / "timed.stn"), *args])
        assert r.returncode == 0, r.stderr
    cc, flags = toolchain._cc(None), toolchain._cflags(None)
    host = tmp_path / "host"
    r = subprocess.run([*cc, *flags, "-DSTN=timed", "-include", "timed_api.h", f"-I{prefix / 'include'}", "-o",
                        str(host), str(REPO / "test" / "embed" / "host.c"), str(prefix / "lib" / "libtimed.a"),
                        str(cudalib / "libtimed_cuda.a"), "-Wl,-u,timed_cuda_ops_", *toolchain.cuda_link_flags(),
                        *toolchain._libs(flags)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    np.save(tmp_path / "w.npy", np.cos(np.arange(40) * 0.7))
    (tmp_path / "patch.raw").write_bytes(np.full((3, 4, 5), 0.25).tobytes())
    ops = ["advance", "5", "write", "u", "2,2,40", "7,6,43", str(tmp_path / "patch.raw"), "advance", "11",
           "advance", "7"]

    def run(mode: str, *opts: str) -> bytes:
        out = tmp_path / f"{mode}.raw"
        rep = tmp_path / f"{mode}.json"
        p = subprocess.run([str(host), "size=10,8,200", "steps=23", f"mode={mode}", f"report={rep}", "quiet",
                            "--init", f"w={tmp_path / 'w.npy'}", *opts, "--", *ops,
                            "read", "u", "0,0,0", "10,8,200", str(out)], capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stdout + p.stderr
        if mode != "incore":
            g = load_report(rep)["gpu"]
            assert g["h2d_bytes"] == g["predicted_h2d_bytes"] and g["d2h_bytes"] == g["predicted_d2h_bytes"], g
            assert mode == "gpu" or g["blocks"] > 1, g
        return out.read_bytes()

    want = run("incore")
    assert run("gpu") == want
    assert run("gpu-ooc", "--gpu-mem", str(3 * 10 * 8 * 200 * 8 // 8)) == want


def test_the_python_api_in_the_gpu_modes(tmp_path, monkeypatch):
    """``stencilc.compile(path, target="cuda")`` (against the host emulation): a simulation opened in
    mode="gpu" and "gpu-ooc" (several blocks), advanced in pieces with a write between, reads the in-core
    simulation's bits, its report's gpu bytes as predicted; the target is checked."""
    import stencilc

    monkeypatch.setenv("STENCILC_CUDA_EMU", str(EMU))
    (tmp_path / "timed.stn").write_text(TIMED)
    np.save(tmp_path / "w.npy", np.cos(np.arange(40) * 0.7))
    prog = stencilc.compile(tmp_path / "timed.stn", target="cuda")
    got = {}
    for mode, opts in (("incore", []), ("gpu", []), ("gpu-ooc", ["--gpu-mem", str(3 * 10 * 8 * 200 * 8 // 8)])):
        with prog.open(size=(10, 8, 200), steps=23, mode=mode, init={"w": tmp_path / "w.npy"}, options=opts) as sim:
            sim.advance(5)
            box = {"x": slice(2, 7), "y": slice(2, 6), "z": slice(40, 43)}
            sim.write("u", np.full_like(sim.read("u", **box), 0.25), **box)
            sim.advance(11)
            sim.advance(7)
            got[mode] = sim.read("u")
            if mode != "incore":
                g = sim.report()["gpu"]
                assert g["h2d_bytes"] == g["predicted_h2d_bytes"] and g["d2h_bytes"] == g["predicted_d2h_bytes"], g
                assert (g["blocks"] > 1) == (mode == "gpu-ooc"), g
    assert got["gpu"].tobytes() == got["incore"].tobytes()
    assert got["gpu-ooc"].tobytes() == got["incore"].tobytes()
    with pytest.raises(stencilc.Error, match="target 'metal': expected 'c' or 'cuda'"):
        stencilc.compile(tmp_path / "timed.stn", target="metal")


def test_a_simulation_records_in_the_gpu_modes_advanced_in_pieces(tmp_path, monkeypatch):
    """acoustic2d opened through the Python API (``stencilc.compile(path, target="cuda")``, the host emulation) in
    mode="gpu" and "gpu-ooc" (several blocks) and advanced in pieces of 4, 1 and 6 steps: each piece's samples
    land in their steps' rows (``out={"rec": FILE}``, written at close) and the field, as in the in-core
    simulation, byte for byte."""
    import stencilc

    monkeypatch.setenv("STENCILC_CUDA_EMU", str(EMU))
    size = [16, 256]
    np.save(tmp_path / "wavelet.npy", np.cos(np.arange(20) * 0.4))
    init = {"wavelet": tmp_path / "wavelet.npy"}
    for k, ps in enumerate(("src", "rcv")):
        np.save(tmp_path / f"{ps}.npy", _points(size, k, -2, []))
        init[ps] = tmp_path / f"{ps}.npy"
    prog = stencilc.compile(EXAMPLES_DIR / "acoustic2d.stn", target="cuda")
    got = {}
    for mode, opts in (("incore", []), ("gpu", []), ("gpu-ooc", ["--gpu-mem", str(4 * 16 * 256 * 8 // 8)])):
        rec = tmp_path / f"{mode}.rec.npy"
        with prog.open(size=tuple(size), steps=11, mode=mode, init=init, out={"rec": rec}, options=opts) as sim:
            for n in (4, 1, 6):
                sim.advance(n)
            u = sim.read("u")
            if mode != "incore":
                g = sim.report()["gpu"]
                assert g["h2d_bytes"] == g["predicted_h2d_bytes"] and g["d2h_bytes"] == g["predicted_d2h_bytes"], g
                assert (g["blocks"] > 1) == (mode == "gpu-ooc"), g
        got[mode] = (u.tobytes(), rec.read_bytes())
    assert np.count_nonzero(np.load(tmp_path / "incore.rec.npy")[5:]) > 0
    assert got["gpu"] == got["incore"]
    assert got["gpu-ooc"] == got["incore"]
