"""The embedding API (stn_sim_*, the generated NAME_api.h): a host program drives a stencil step by
step, and gets the bits of the command-line run of the same steps with the same writes.

The host is test/embed/host.c, built per stencil against the generated NAME_api.c and NAME.c and
the runtime library stencilc builds.  Its ops: advance N, write/read a box from/to a raw file."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import COMPILE_TIMEOUT_S, REPO_ROOT, RUN_TIMEOUT_S, stencilc_command

HOST = REPO_ROOT / "test" / "embed" / "host.c"


def _sh(cmd: list[str], timeout: float, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, cwd=cwd)


@pytest.fixture(scope="module")
def hosts(tmp_path_factory):
    """``hosts(name) -> (host, cli)``: the host program and the command-line program of an example."""
    from stencilc import toolchain
    from stencilc.codegen import LIBS
    from stencilc.resources import runtime_dir

    cc, flags = toolchain._cc(None), toolchain._cflags(None)
    lib = toolchain.runtime_library(cc, flags)
    out = tmp_path_factory.mktemp("embed")
    built: dict[str, tuple[Path, Path]] = {}

    def build(name: str) -> tuple[Path, Path]:
        if name not in built:
            src = REPO_ROOT / "examples" / f"{name}.stn"
            gen = out / name
            cmd, env = stencilc_command()
            for args in (["--emit=c", "-o", gen], ["-o", out / f"{name}-cli"]):
                p = subprocess.run([*cmd, str(src), *map(str, args)], capture_output=True, text=True, env=env,
                                   timeout=COMPILE_TIMEOUT_S, cwd=REPO_ROOT)
                assert p.returncode == 0, p.stderr
            host = out / f"{name}-host"
            p = _sh([*cc, *flags, "-Wall", "-Wextra", "-Werror", "-I", gen, "-I", runtime_dir() / "include",
                     f"-DSTN={name}", "-include", f"{name}_api.h", "-o", host, HOST, gen / f"{name}.c",
                     gen / f"{name}_api.c", lib, *LIBS], COMPILE_TIMEOUT_S)
            assert p.returncode == 0, p.stderr
            built[name] = (host, out / f"{name}-cli")
        return built[name]

    return build


def host_run(host: Path, config: list[str], ops: list[str], ok: bool = True) -> subprocess.CompletedProcess:
    p = _sh([host, *config, "quiet", "--", *ops], RUN_TIMEOUT_S)
    if ok:
        assert p.returncode == 0, f"{host.name} {' '.join(config)} -- {' '.join(ops)}:\n{p.stdout}{p.stderr}"
    return p


def cli_run(cli: Path, args: list[str]) -> None:
    p = _sh([cli, *args, "--quiet"], RUN_TIMEOUT_S)
    assert p.returncode == 0, f"{cli.name} {' '.join(args)}:\n{p.stderr}"


def raw(path: Path, shape: tuple[int, ...], dtype) -> np.ndarray:
    """A dense box the host wrote (x fastest) as a C-order array (..., y, x)."""
    return np.fromfile(path, dtype=dtype).reshape(shape[::-1])


# the stencils the API is tried on: boundary kinds, levels, dims, sub-steps, series
CASES = {
    "heat3d": ((18, 16, 14), "<f8", "u"),  # dirichlet, one level, 3d
    "wave3d": ((16, 14, 12), "<f8", "u"),  # two levels
    "advect2d": ((40, 33), "<f8", "u"),  # neumann beside dirichlet
    "jacobi1d": ((61,), "<f8", "A"),  # 1d, sub-steps
    "heat3d_f32": ((17, 15, 13), "<f4", "u"),  # f32
}


def _lohi(size: tuple[int, ...]) -> tuple[str, str]:
    return "0,0,0", ",".join(map(str, size))


@pytest.mark.parametrize("name", sorted(CASES))
def test_advance_in_pieces_is_one_run(hosts, tmp_path, name):
    """advance(3), advance(0), advance(7) from the init expressions: the CLI's 10 steps, bit for bit, for
    every level; with time tiles forced and without."""
    size, dtype, field = CASES[name]
    host, cli = hosts(name)
    szs = ",".join(map(str, size))
    for tiles in (["--time-tiles", "off"], []):
        cli_run(cli, ["--size", szs, "--steps", "10", "--mode", "incore", "--out", f"{field}={tmp_path / 'cli.npy'}",
                      *tiles])
        lo, hi = _lohi(size)
        host_run(host, [f"size={szs}", "steps=10", "mode=incore", *tiles],
                 ["advance", "3", "advance", "0", "advance", "7", "read", field, lo, hi, tmp_path / "api.raw"])
        want = np.load(tmp_path / "cli.npy")
        got = raw(tmp_path / "api.raw", size, dtype)
        assert got.tobytes() == want.tobytes(), f"{name} {tiles}: max |diff| {np.abs(got - want).max()}"


@pytest.mark.parametrize("name", ["heat3d", "advect2d", "wave3d"])
def test_a_write_between_advances_is_an_init_file(hosts, tmp_path, name):
    """advance 4, write a box, advance 6 == CLI 4 steps, the box changed in the .npy, CLI 6 steps from it
    (these stencils do not read t, so the second run starting at t = 0 is the same computation)."""
    size, dtype, field = CASES[name]
    host, cli = hosts(name)
    szs = ",".join(map(str, size))
    lvl = ["u", "u.prev"] if name == "wave3d" else [field]
    outs = [f"--out={f}={tmp_path / (f + '.4.npy')}" for f in lvl]
    cli_run(cli, ["--size", szs, "--steps", "4", "--mode", "incore", *[a for o in outs for a in o.split("=", 1)]])
    box_lo = [1] * len(size)
    box_hi = [min(s - 1, 7) for s in size]
    box_lo[0] = 0  # a boundary cell too: dirichlet keeps what is written, neumann mirrors over it
    patch = np.random.default_rng(7).random(tuple(b - a for a, b in zip(box_lo, box_hi))[::-1]).astype(dtype)
    patch.tofile(tmp_path / "patch.raw")
    inits = []
    for f in lvl:
        a = np.load(tmp_path / f"{f}.4.npy")
        if f == lvl[0]:
            a[tuple(slice(lo, hi) for lo, hi in zip(box_lo, box_hi))[::-1]] = patch
        np.save(tmp_path / f"{f}.w.npy", a)
        inits += ["--init", f"{f}={tmp_path / (f + '.w.npy')}"]
    cli_run(cli, ["--size", szs, "--steps", "6", "--mode", "incore", *inits, "--out", f"{field}={tmp_path / 'cli.npy'}"])
    lo3 = ",".join(map(str, box_lo + [0] * (3 - len(size))))
    hi3 = ",".join(map(str, box_hi + [1] * (3 - len(size))))
    wlo, whi = _lohi(size)
    host_run(host, [f"size={szs}", "steps=10", "mode=incore"],
             ["advance", "4", "write", field, lo3, hi3, tmp_path / "patch.raw", "advance", "6",
              "read", field, wlo, whi, tmp_path / "api.raw"])
    want, got = np.load(tmp_path / "cli.npy"), raw(tmp_path / "api.raw", size, dtype)
    assert got.tobytes() == want.tobytes(), f"{name}: max |diff| {np.abs(got - want).max()}"


def test_boxes_strides_and_outputs(hosts, tmp_path):
    """A sub-box read densely and with reversed strides; --init and --out through config.options; the --out
    close writes equals the read; the report."""
    size, dtype, field = CASES["heat3d"]
    host, cli = hosts("heat3d")
    szs = ",".join(map(str, size))
    u0 = np.random.default_rng(3).random(size[::-1])
    np.save(tmp_path / "u0.npy", u0)
    host_run(host, [f"size={szs}", "steps=5", "mode=incore", f"report={tmp_path / 'r.json'}", "--init",
                    f"u={tmp_path / 'u0.npy'}", "--out", f"u={tmp_path / 'out.npy'}"],
             ["read", "u", "2,3,4", "9,8,7", tmp_path / "b0.raw", "advance", "5",
              "readT", "u", "2,3,4", "9,8,7", tmp_path / "bT.raw", "read", "u", "0,0,0", szs, tmp_path / "all.raw"])
    assert np.array_equal(raw(tmp_path / "b0.raw", (7, 5, 3), dtype), u0[4:7, 3:8, 2:9])
    out = np.load(tmp_path / "out.npy")
    assert raw(tmp_path / "all.raw", size, dtype).tobytes() == out.tobytes()
    bt = np.fromfile(tmp_path / "bT.raw", dtype=dtype).reshape(7, 5, 3)  # (x, y, z)
    assert np.array_equal(bt.transpose(2, 1, 0), out[4:7, 3:8, 2:9])
    cli_run(cli, ["--size", szs, "--steps", "5", "--mode", "incore", "--init", f"u={tmp_path / 'u0.npy'}",
                  "--out", f"u={tmp_path / 'cli.npy'}"])
    assert np.load(tmp_path / "cli.npy").tobytes() == out.tobytes()
    assert (tmp_path / "r.json").exists()


@pytest.mark.parametrize("ops, message", [
    (["read", "v", "0,0,0", "1,1,1", "x.raw"], "heat3d has no field 'v' (its fields: u)"),
    (["read", "u.prev", "0,0,0", "1,1,1", "x.raw"], "field 'u' has one level, no previous one"),
    (["read", "u", "0,0,0", "19,1,1", "x.raw"], "the box's x range [0, 19) is not within the grid's [0, 18)"),
    (["read", "u", "3,0,0", "2,1,1", "x.raw"], "the box's x range [3, 2)"),
    (["advance", "-1"], "advance: -1 steps"),
])
def test_bad_calls_are_refused_with_the_reason(hosts, tmp_path, ops, message):
    host, _ = hosts("heat3d")
    p = host_run(host, ["size=18,16,14", "steps=5", "mode=incore"], ["expect-fail", *ops])
    assert message in p.stdout, p.stdout


def test_open_refusals(hosts, tmp_path):
    host, _ = hosts("heat3d")
    p = host_run(host, ["size=18,16,14", "steps=5"], [], ok=False)  # the default mode: out of core
    assert p.returncode == 1 and "cannot be held open between calls yet" in p.stderr
    p = host_run(host, ["size=18,16,14", "steps=5", "mode=incore", "--resume"], [], ok=False)
    assert p.returncode == 1 and "--resume is an option of the command line" in p.stderr
    p = host_run(host, ["size=18,16", "steps=5", "mode=incore"], [], ok=False)
    assert p.returncode == 1 and "--size" in p.stderr, p.stderr


def test_series_and_records_hold_the_steps_opened_for(hosts, tmp_path):
    """fdtd2d reads a series: advancing past the steps it was opened for is refused, with the numbers."""
    host, _ = hosts("fdtd2d")
    fict = np.arange(12, dtype="<f8") * 0.01
    np.save(tmp_path / "fict.npy", fict)
    p = host_run(host, ["size=20,18", "steps=8", "mode=incore", "--init", f"fict={tmp_path / 'fict.npy'}"],
                 ["advance", "5", "expect-fail", "advance", "4", "advance", "3"])
    assert "advance 4 steps after 5: past the 8 steps the simulation was opened for" in p.stdout, p.stdout
