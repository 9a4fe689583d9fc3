"""The embedding API (stn_sim_*, the generated NAME_api.h): a host program drives a stencil step by
step, and gets the bits of the command-line run of the same steps with the same writes.

The host is test/embed/host.c, built per stencil against the generated NAME_api.c and NAME.c and
the runtime library stencilc builds.  Its ops: advance N, write/read a box from/to a raw file."""

from __future__ import annotations

import json
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
    "jacobi1d": ((3001,), "<f8", "A"),  # 1d, sub-steps; out of core folded into rows, several blocks
    "heat3d_f32": ((17, 15, 13), "<f4", "u"),  # f32
    "wave3d_surface": ((16, 14, 12), "<f8", "u"),  # a boundary per face (a free surface), two levels
    "advect_ab3": ((23, 19), "<f8", "u"),  # three levels (u.prev.prev a field of its own), a torus
}


def _lohi(size: tuple[int, ...]) -> tuple[str, str]:
    return "0,0,0", ",".join(map(str, size))


def ooc_blocks(size: tuple[int, ...], bt: int = 3) -> list[str]:
    """--block for several blocks of a small grid: whole planes 4 thick (3d), rows 5 (2d), 700 cells (1d:
    two rows of its fold); bt steps."""
    return ["--block", f"{size[1]},4,{bt}" if len(size) == 3 else f"5,{bt}" if len(size) == 2 else f"700,{bt}"]


def modes(tmp_path: Path, size: tuple[int, ...]) -> dict[str, list[str]]:
    """The engines a host tries: in-core (time tiles forced off, and chosen), and out of core in several
    blocks (a sweep of 3 steps, so that advances split sweeps) with its report."""
    return {"incore-plain": ["mode=incore", "--time-tiles", "off"], "incore": ["mode=incore"],
            "ooc": ["mode=ooc", "mem=64M", f"dir={tmp_path}", f"report={tmp_path / 'r.json'}", *ooc_blocks(size)]}


def exact_bytes(tmp_path: Path, mode: str) -> None:
    """An out-of-core report: the bytes moved are the model's, both ways."""
    if mode != "ooc":
        return
    from conftest import load_report

    r = load_report(tmp_path / "r.json")
    assert r["mode"] == "ooc"
    assert (r["bytes_read"], r["bytes_written"]) == (r["predicted_bytes_read"], r["predicted_bytes_written"])
    assert not [p for p in tmp_path.iterdir() if p.suffix == ".grid" or p.name.endswith(".ooc-state")], \
        "scratch files left behind"


@pytest.mark.parametrize("name", sorted(CASES))
def test_advance_in_pieces_is_one_run(hosts, tmp_path, name):
    """advance(2), advance(0), advance(8) from the init expressions: the CLI's 10 steps, bit for bit, in-core
    (time tiles off and on) and out of core in several blocks (predicted bytes == counted)."""
    size, dtype, field = CASES[name]
    host, cli = hosts(name)
    szs = ",".join(map(str, size))
    cli_run(cli, ["--size", szs, "--steps", "10", "--mode", "incore", "--out", f"{field}={tmp_path / 'cli.npy'}"])
    want = np.load(tmp_path / "cli.npy")
    for mode, config in modes(tmp_path, size).items():
        lo, hi = _lohi(size)
        host_run(host, [f"size={szs}", "steps=10", *config],
                 ["advance", "2", "advance", "0", "advance", "8", "read", field, lo, hi, tmp_path / "api.raw"])
        got = raw(tmp_path / "api.raw", size, dtype)
        assert got.tobytes() == want.tobytes(), f"{name} {mode}: max |diff| {np.abs(got - want).max()}"
        exact_bytes(tmp_path, mode)


@pytest.mark.parametrize("name", ["heat3d", "advect2d", "wave3d", "jacobi1d", "wave3d_surface", "advect_ab3"])
def test_a_write_between_advances_is_an_init_file(hosts, tmp_path, name):
    """advance 4, write a box, advance 6 == CLI 4 steps, the box changed in the .npy, CLI 6 steps from it
    (these stencils do not read t, so the second run starting at t = 0 is the same computation)."""
    size, dtype, field = CASES[name]
    host, cli = hosts(name)
    szs = ",".join(map(str, size))
    lvl = {"wave3d": ["u", "u.prev"], "wave3d_surface": ["u", "u.prev", "c"], "jacobi1d": ["A", "B"],
           "advect_ab3": ["u", "u.prev", "u.prev.prev"]}.get(name, [field])
    outs = [f"--out={f}={tmp_path / (f + '.4.npy')}" for f in lvl]
    cli_run(cli, ["--size", szs, "--steps", "4", "--mode", "incore", *[a for o in outs for a in o.split("=", 1)]])
    box_lo = [1] * len(size)
    box_hi = [min(s - 1, 7) for s in size]
    box_lo[0] = 0  # a boundary cell too: dirichlet keeps what is written, neumann mirrors over it
    if name == "jacobi1d":  # a partial row, a whole row and a partial row of the fold
        box_lo, box_hi = [3], [1300]
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
    want = np.load(tmp_path / "cli.npy")
    for mode, config in modes(tmp_path, size).items():
        host_run(host, [f"size={szs}", "steps=10", *config],
                 ["advance", "4", "write", field, lo3, hi3, tmp_path / "patch.raw", "advance", "6",
                  "read", field, wlo, whi, tmp_path / "api.raw"])
        got = raw(tmp_path / "api.raw", size, dtype)
        assert got.tobytes() == want.tobytes(), f"{name} {mode}: max |diff| {np.abs(got - want).max()}"
        exact_bytes(tmp_path, mode)


def test_writing_an_input_of_init_expressions(hosts, tmp_path):
    """varheat's input c comes from its init expression, which the engine computes where c is read: out of
    core it has no file until a write gives it one.  Read c, write a box of it, advance 4 and 3: the CLI's 7
    steps from an --init file of c with that box changed, bit for bit, in every engine, bytes as the model's."""
    size, dtype = (20, 18, 16), "<f8"
    host, cli = hosts("varheat")
    szs = ",".join(map(str, size))
    lo, hi = _lohi(size)
    host_run(host, [f"size={szs}", "steps=7", "mode=incore"], ["read", "c", lo, hi, tmp_path / "c0.raw"])
    c = raw(tmp_path / "c0.raw", size, dtype).copy()
    patch = (0.2 + 0.5 * np.random.default_rng(5).random((5, 6, 5))).astype(dtype)  # (z, y, x)
    patch.tofile(tmp_path / "patch.raw")
    c[3:8, 2:8, 4:9] = patch
    np.save(tmp_path / "c.npy", c)
    cli_run(cli, ["--size", szs, "--steps", "7", "--mode", "incore", "--init", f"c={tmp_path / 'c.npy'}",
                  "--out", f"u={tmp_path / 'cli.npy'}"])
    want = np.load(tmp_path / "cli.npy")
    for mode, config in modes(tmp_path, size).items():
        host_run(host, [f"size={szs}", "steps=7", *config],
                 ["write", "c", "4,2,3", "9,8,8", tmp_path / "patch.raw", "advance", "4", "advance", "3",
                  "read", "u", lo, hi, tmp_path / "api.raw"])
        got = raw(tmp_path / "api.raw", size, dtype)
        assert got.tobytes() == want.tobytes(), f"{mode}: max |diff| {np.abs(got - want).max()}"
        exact_bytes(tmp_path, mode)


@pytest.mark.parametrize("name", ["heat3d", "wave3d", "advect2d"])
def test_writes_before_the_first_advance_out_of_core(hosts, tmp_path, name):
    """Out of core, a write before any sweep puts the state into the scratch files first: the bits of the
    command line from an --init file holding that write, the bytes the model's."""
    size, dtype, field = CASES[name]
    host, cli = hosts(name)
    szs = ",".join(map(str, size))
    lvl = ["u", "u.prev"] if name == "wave3d" else [field]
    cli_run(cli, ["--size", szs, "--steps", "0", "--mode", "incore",
                  *[a for f in lvl for a in ("--out", f"{f}={tmp_path / (f + '.0.npy')}")]])
    patch = np.random.default_rng(11).random((3, 4, 5)[3 - len(size):]).astype(dtype)
    patch.tofile(tmp_path / "patch.raw")
    a = np.load(tmp_path / f"{field}.0.npy")
    a[tuple(slice(1, 1 + n) for n in patch.shape)] = patch
    np.save(tmp_path / "w.npy", a)
    inits = ["--init", f"{field}={tmp_path / 'w.npy'}"] + (["--init", f"u.prev={tmp_path / 'u.prev.0.npy'}"]
                                                            if name == "wave3d" else [])
    cli_run(cli, ["--size", szs, "--steps", "7", "--mode", "incore", *inits, "--out", f"{field}={tmp_path / 'cli.npy'}"])
    hi = ",".join(str(1 + n) for n in reversed(patch.shape))
    lo = ",".join("1" for _ in patch.shape)
    wlo, whi = _lohi(size)
    host_run(host, [f"size={szs}", "steps=7", *modes(tmp_path, size)["ooc"]],
             ["write", field, lo, hi, tmp_path / "patch.raw", "advance", "7", "read", field, wlo, whi,
              tmp_path / "api.raw"])
    assert raw(tmp_path / "api.raw", size, dtype).tobytes() == np.load(tmp_path / "cli.npy").tobytes()
    exact_bytes(tmp_path, "ooc")


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
    p = host_run(host, ["size=18,16,14", "steps=5", "mode=incore", "--resume"], [], ok=False)
    assert p.returncode == 1 and "only an out-of-core simulation keeps its state in files" in p.stderr
    p = host_run(host, ["size=18,16,14", "steps=5", f"dir={tmp_path}", "--plan-only"], [], ok=False)
    assert p.returncode == 1 and "--plan-only is an option of the command line" in p.stderr
    p = host_run(host, ["size=18,16", "steps=5", "mode=incore"], [], ok=False)
    assert p.returncode == 1 and "--size" in p.stderr, p.stderr


@pytest.mark.parametrize("schedule", ["alg1", "alg2"])
def test_the_papers_schedules_advance_in_a_simulation(hosts, tmp_path, schedule):
    """--schedule alg1|alg2 held open: advances of 4 and 6 (sweeps of 3 cut by the advances) give the
    command line's bits and the model's bytes; alg2 keeps its levels in place, so a box is refused."""
    size, dtype, field = CASES["wave3d"]
    host, cli = hosts("wave3d")
    szs = ",".join(map(str, size))
    cli_run(cli, ["--size", szs, "--steps", "10", "--mode", "incore", "--out", f"u={tmp_path / 'cli.npy'}"])
    config = [f"size={szs}", "steps=10", *modes(tmp_path, size)["ooc"], "--schedule", schedule,
              "--out", f"u={tmp_path / 'api.npy'}"]
    ops = ["advance", "4", "advance", "6"]
    if schedule == "alg2":
        ops += ["expect-fail", "read", "u", "0,0,0", "1,1,1", tmp_path / "x.raw"]
    p = host_run(host, config, ops)
    assert np.load(tmp_path / "api.npy").tobytes() == np.load(tmp_path / "cli.npy").tobytes()
    exact_bytes(tmp_path, "ooc")
    if schedule == "alg2":
        assert "--schedule alg2 keeps its levels in place" in p.stdout, p.stdout


def test_a_killed_host_resumes_its_records(hosts, tmp_path):
    """acoustic2d (a source, a series, receivers): a host killed after 7 of 10 steps reopens with
    --resume; the samples of the committed sweeps come back from DIR/NAME.records, and the record and
    the field equal the uninterrupted command-line run's, bit for bit."""
    size = (30, 26)
    host, cli = hosts("acoustic2d")
    np.save(tmp_path / "w.npy", np.sin(np.arange(12, dtype="<f8")))
    np.save(tmp_path / "src.npy", np.array([[11, 9]], dtype="<i8"))
    np.save(tmp_path / "rcv.npy", np.array([[3, 4], [20, 17], [11, 10]], dtype="<i8"))
    init = ["--init", f"wavelet={tmp_path / 'w.npy'}", "--init", f"src={tmp_path / 'src.npy'}",
            "--init", f"rcv={tmp_path / 'rcv.npy'}"]
    cli_run(cli, ["--size", "30,26", "--steps", "10", "--mode", "incore", *init,
                  "--out", f"rec={tmp_path / 'cli-rec.npy'}", "--out", f"u={tmp_path / 'cli-u.npy'}"])
    config = ["size=30,26", "steps=10", *modes(tmp_path, size)["ooc"], *init,
              "--out", f"rec={tmp_path / 'api-rec.npy'}", "--out", f"u={tmp_path / 'api-u.npy'}"]
    p = host_run(host, config, ["advance", "4", "advance", "3", "crash"], ok=False)
    assert p.returncode == 9, p.stderr
    assert (tmp_path / "acoustic2d.records").exists()
    host_run(host, [*config, "--resume"], ["steps-done", "7", "advance", "3"])
    assert np.load(tmp_path / "api-rec.npy").tobytes() == np.load(tmp_path / "cli-rec.npy").tobytes()
    assert np.load(tmp_path / "api-u.npy").tobytes() == np.load(tmp_path / "cli-u.npy").tobytes()
    assert np.abs(np.load(tmp_path / "cli-rec.npy")).max() > 0  # the source reached a receiver
    exact_bytes(tmp_path, "ooc")


def test_series_and_records_hold_the_steps_opened_for(hosts, tmp_path):
    """fdtd2d reads a series: advancing past the steps it was opened for is refused, with the numbers."""
    host, _ = hosts("fdtd2d")
    fict = np.arange(12, dtype="<f8") * 0.01
    np.save(tmp_path / "fict.npy", fict)
    p = host_run(host, ["size=20,18", "steps=8", "mode=incore", "--init", f"fict={tmp_path / 'fict.npy'}"],
                 ["advance", "5", "expect-fail", "advance", "4", "advance", "3"])
    assert "advance 4 steps after 5: past the 8 steps the simulation was opened for" in p.stdout, p.stdout


# ------------------------------------------------------------------ --emit=lib


def test_emit_lib_links_shared_and_static(hosts, tmp_path):
    """``--emit=lib``: a prefix with the headers, libNAME.a, libNAME.so and NAME.pc; the host links either
    way through pkg-config and gets the command line's bits."""
    import shutil

    if not shutil.which("pkg-config"):
        pytest.skip("pkg-config is missing (tools/setup.sh installs it)")
    from stencilc import toolchain

    _, cli = hosts("advect2d")
    cmd, env = stencilc_command()
    prefix = tmp_path / "advect2d-lib"
    p = subprocess.run([*cmd, str(REPO_ROOT / "examples" / "advect2d.stn"), "--emit=lib", "-o", str(prefix)],
                       capture_output=True, text=True, env=env, timeout=COMPILE_TIMEOUT_S, cwd=REPO_ROOT)
    assert p.returncode == 0, p.stderr
    for f in ("include/advect2d.h", "include/advect2d_api.h", "include/stn_rt.h", "lib/libadvect2d.a",
              "lib/libadvect2d.so", "lib/pkgconfig/advect2d.pc", "src/advect2d_api.c"):
        assert (prefix / f).is_file(), f
    assert not [x for x in prefix.iterdir() if x.name.startswith("stencilc-lib-")], "a temporary was left behind"
    nm = _sh(["nm", "-D", "--defined-only", prefix / "lib" / "libadvect2d.so"], 60).stdout
    assert " T advect2d_open" in nm and " T stn_sim_advance" in nm

    def pc(*args: str) -> list[str]:
        r = subprocess.run(["pkg-config", *args, "advect2d"], capture_output=True, text=True,
                           env={**env, "PKG_CONFIG_PATH": str(prefix / "lib" / "pkgconfig")})
        assert r.returncode == 0, r.stderr
        return r.stdout.split()

    cc, flags = toolchain._cc(None), toolchain._cflags(None)
    size = "40,33"
    cli_run(cli, ["--size", size, "--steps", "9", "--mode", "incore", "--out", f"u={tmp_path / 'cli.npy'}"])
    want = np.load(tmp_path / "cli.npy")
    for kind, link in (("shared", [*pc("--libs"), f"-Wl,-rpath,{prefix / 'lib'}"]),
                       ("static", [str(prefix / "lib" / "libadvect2d.a"), *pc("--static", "--libs-only-other"),
                                   *[x for x in pc("--static", "--libs-only-l") if x != "-ladvect2d"]])):
        exe = tmp_path / f"host-{kind}"
        r = _sh([*cc, *flags, "-DSTN=advect2d", "-include", "advect2d_api.h", *pc("--cflags"), "-o", exe, HOST,
                 *link], COMPILE_TIMEOUT_S)
        assert r.returncode == 0, r.stderr
        host_run(exe, [f"size={size}", "steps=9", "mode=incore"],
                 ["advance", "2", "advance", "7", "read", "u", "0,0,0", "40,33,1", tmp_path / f"{kind}.raw"])
        assert raw(tmp_path / f"{kind}.raw", (40, 33), "<f8").tobytes() == want.tobytes(), kind


# ------------------------------------------------------------------ Python


@pytest.fixture(scope="module")
def py_prog():
    """``py_prog(name)``: stencilc.compile of an example (the library is cached by content)."""
    import stencilc

    progs = {}

    def get(name: str):
        if name not in progs:
            progs[name] = stencilc.compile(REPO_ROOT / "examples" / f"{name}.stn")
        return progs[name]

    return get


def test_python_api_pieces_writes_and_boxes(py_prog, hosts, tmp_path):
    """The issue's snippet: write a whole field and a plane, advance in pieces, read boxes; the bits of
    the command line with the same writes as --init files."""
    import stencilc
    from conftest import validate_report

    prog = py_prog("heat3d")
    _, cli = hosts("heat3d")
    assert prog.dims == 3 and prog.fields == {"u": 1} and prog.params == {"alpha": 0.1}
    size = (18, 16, 14)
    u0 = np.random.default_rng(5).random(size[::-1])
    plane = np.random.default_rng(6).random((size[1], size[0])).astype("<f4")  # converted to f64
    np.save(tmp_path / "u0.npy", u0)
    cli_run(cli, ["--size", "18,16,14", "--steps", "4", "--mode", "incore", "--init", f"u={tmp_path / 'u0.npy'}",
                  "--param", "alpha=0.07", "--out", f"u={tmp_path / 'u4.npy'}"])
    u4 = np.load(tmp_path / "u4.npy")
    u4[9] = plane
    np.save(tmp_path / "u4w.npy", u4)
    cli_run(cli, ["--size", "18,16,14", "--steps", "5", "--mode", "incore", "--init", f"u={tmp_path / 'u4w.npy'}",
                  "--param", "alpha=0.07", "--out", f"u={tmp_path / 'cli.npy'}"])
    want = np.load(tmp_path / "cli.npy")
    # out of core: --mem 192K makes Blk-Tune cut one-plane blocks and sweeps of 5 steps (the advances split them)
    for mode in ({"mode": "incore"}, {"mode": "ooc", "mem": "192K", "dir": tmp_path}):
        with prog.open(size=size, steps=9, params={"alpha": 0.07}, out={"u": tmp_path / "py.npy"}, **mode) as sim:
            sim.write("u", u0.T.copy().T)  # Fortran order: passed with its strides
            sim.advance(4)
            sim.write("u", plane, z=9)
            sim.advance(2)
            sim.advance(3)
            assert sim.steps_done == 9
            got = sim.read("u")
            assert got.tobytes() == want.tobytes(), mode
            assert np.array_equal(sim.read("u", z=slice(2, 5), x=-1), want[2:5, :, -1])
            rep = validate_report(sim.report(), "sim.report()")
            assert rep["steps"] == 9 and rep["mode"] == mode["mode"]
            if mode["mode"] == "ooc":
                assert rep["params"]["bz"] < 12 and rep["params"]["bt"] < 9, rep["params"]
                assert rep["bytes_read"] == rep["predicted_bytes_read"]
                assert rep["bytes_written"] == rep["predicted_bytes_written"]
        assert np.load(tmp_path / "py.npy").tobytes() == want.tobytes(), mode
    with pytest.raises(stencilc.Error, match=r"an array of shape \(3, 3\) for a box of shape \(16, 18\)"):
        with prog.open(size=size, mode="incore") as sim:
            sim.write("u", np.zeros((3, 3)), z=0)
    with pytest.raises(stencilc.Error, match="the simulation is closed"):
        sim.advance(1)


def test_python_two_levels_1d_and_discard(py_prog, hosts, tmp_path):
    """wave3d's u.prev; jacobi1d's 1d grid (size an int); a failure inside `with` writes no output."""
    import stencilc

    w = py_prog("wave3d")
    _, wcli = hosts("wave3d")
    cli_run(wcli, ["--size", "16,14,12", "--steps", "7", "--mode", "incore", "--out", f"u={tmp_path / 'w.npy'}"])
    with w.open(size=(16, 14, 12), mode="incore") as sim:
        prev = sim.read("u.prev")
        sim.advance(3)
        sim.advance(4)
        assert sim.read("u").tobytes() == np.load(tmp_path / "w.npy").tobytes()
        assert prev.shape == (12, 14, 16)
    j = py_prog("jacobi1d")
    _, jcli = hosts("jacobi1d")
    cli_run(jcli, ["--size", "61", "--steps", "8", "--mode", "incore", "--out", f"A={tmp_path / 'j.npy'}"])
    with j.open(size=61, mode="incore") as sim:
        sim.advance(8)
        assert sim.read("A").tobytes() == np.load(tmp_path / "j.npy").tobytes()
        assert sim.read("B", x=slice(3, 9)).shape == (6,)
    with pytest.raises(RuntimeError, match="the host gives up"):
        with j.open(size=61, mode="incore", out={"A": tmp_path / "never.npy"}) as sim:
            sim.advance(2)
            raise RuntimeError("the host gives up")
    assert not (tmp_path / "never.npy").exists()
    assert not list(tmp_path.glob("never.npy*")), "a temporary of the output was left"
    with pytest.raises(stencilc.Error, match="no param 'beta'"):
        j.open(size=61, params={"beta": 1})
    with pytest.raises(stencilc.Error, match=r"size \(61, 2\): the grid has 1 axes"):
        j.open(size=(61, 2))


# ------------------------------------------------------------------ CMake


def _cmake_build(src: Path, build: Path, cmake_dir: str, extra: list[str] = ()) -> None:
    import shutil

    if not shutil.which("cmake"):
        pytest.fail("cmake is missing: tools/setup.sh installs it")
    for cmd in (["cmake", "-S", src, "-B", build, f"-Dstencilc_DIR={cmake_dir}", *extra], ["cmake", "--build", build]):
        p = _sh(cmd, COMPILE_TIMEOUT_S)
        assert p.returncode == 0, f"{' '.join(map(str, cmd))}:\n{p.stdout}{p.stderr}"


def _heatsim_checks(heatsim: Path, out: Path, py_prog, cli: Path) -> None:
    """heatsim's planes, out of core: the command line's with the same writes (a run per advance, each from
    the last one's --out with the source set), the Python API's, bit for bit, and the NumPy reference's."""
    from reference import EXAMPLES

    size, steps, every = (24, 20, 18), 12, 5
    out.mkdir(exist_ok=True)
    # out of core: 256K makes Blk-Tune cut 2-plane blocks and sweeps of 4 steps, which the advances split
    p = _sh([heatsim, *size, steps, every, out / "p", "ooc", "256K", out], RUN_TIMEOUT_S)
    assert p.returncode == 0, p.stderr
    assert not list(out.glob("*.grid")), "scratch files left behind"
    ex = EXAMPLES["heat3d"]
    u = ex.initial(size)["u"]
    src = np.ones((4, 4, 4))
    nx, ny, nz = size
    box = (slice(nz // 2 - 2, nz // 2 + 2), slice(ny // 2 - 2, ny // 2 + 2), slice(nx // 2 - 2, nx // 2 + 2))
    szs = ",".join(map(str, size))
    cli_run(cli, ["--size", szs, "--steps", "0", "--mode", "incore", "--out", f"u={out / 'cli.npy'}"])
    with py_prog("heat3d").open(size=size, steps=steps, mode="incore") as sim:
        for t in range(0, steps, every):
            n = min(every, steps - t)
            sim.write("u", src, x=box[2], y=box[1], z=box[0])
            sim.advance(n)
            u[box] = 1.0
            u = ex.run({"u": u}, steps=n)["u"]
            c = np.load(out / "cli.npy")  # the command line: the source set in the .npy, n steps from it
            c[box] = 1.0
            np.save(out / "cli-in.npy", c)
            cli_run(cli, ["--size", szs, "--steps", str(n), "--mode", "incore", "--init", f"u={out / 'cli-in.npy'}",
                          "--out", f"u={out / 'cli.npy'}"])
            got = np.load(out / f"p_{t + n}.npy")
            assert got.tobytes() == np.load(out / "cli.npy")[nz // 2].tobytes(), f"step {t + n}: not the CLI's"
            assert got.tobytes() == sim.read("u", z=nz // 2).tobytes(), f"step {t + n}"
            np.testing.assert_allclose(got, u[nz // 2], rtol=0, atol=1e-12)


def test_cmake_package_builds_the_embed_example(py_prog, hosts, tmp_path):
    """examples/embed from a clean build folder with find_package(stencilc): its planes are the Python
    API's, bit for bit, and the NumPy reference's; editing the .stn's copy rebuilds the library."""
    cmd, env = stencilc_command()
    cmake_dir = subprocess.run([*cmd, "--cmake-dir"], capture_output=True, text=True, env=env).stdout.strip()
    assert (Path(cmake_dir) / "stencilcConfig.cmake").is_file()
    _cmake_build(REPO_ROOT / "examples" / "embed", tmp_path / "build", cmake_dir)
    _heatsim_checks(tmp_path / "build" / "heatsim", tmp_path / "out", py_prog, hosts("heat3d")[1])


def test_cmake_version_file_names_the_package_version():
    from stencilc import __version__

    text = (REPO_ROOT / "cmake" / "stencilcConfigVersion.cmake").read_text()
    assert f'set(PACKAGE_VERSION "{__version__}")' in text


@pytest.mark.skipif(not __import__("os").environ.get("STENCILC_TEST_PIP", "1") == "1",
                    reason="STENCILC_TEST_PIP=0")
def test_pip_install_then_cmake_outside_the_repository(py_prog, hosts, tmp_path):
    """`pip install .` into a fresh venv; a CMake project in a folder of its own finds the package through
    `stencilc --cmake-dir` of that venv (which also gives it the stencilc command), builds and runs."""
    import shutil
    import sys

    venv = tmp_path / "venv"
    p = _sh([sys.executable, "-m", "venv", venv], 300)
    assert p.returncode == 0, p.stderr
    p = _sh([venv / "bin" / "python", "-m", "pip", "install", "-q", str(REPO_ROOT)], 900)
    assert p.returncode == 0, p.stdout + p.stderr
    cmake_dir = _sh([venv / "bin" / "stencilc", "--cmake-dir"], 60).stdout.strip()
    assert cmake_dir.startswith(str(venv)), cmake_dir
    proj = tmp_path / "mysim"
    proj.mkdir()
    shutil.copy(REPO_ROOT / "examples" / "embed" / "heatsim.c", proj / "heatsim.c")
    shutil.copy(REPO_ROOT / "examples" / "heat3d.stn", proj / "heat3d.stn")
    text = (REPO_ROOT / "examples" / "embed" / "CMakeLists.txt").read_text()
    (proj / "CMakeLists.txt").write_text(text.replace("${CMAKE_CURRENT_SOURCE_DIR}/../heat3d.stn",
                                                      "${CMAKE_CURRENT_SOURCE_DIR}/heat3d.stn"))
    _cmake_build(proj, tmp_path / "build", cmake_dir)
    cache = (tmp_path / "build" / "CMakeCache.txt").read_text()
    assert f"STENCILC_EXECUTABLE:FILEPATH={venv}/" in cache.replace("//", "/"), "not the venv's stencilc"
    _heatsim_checks(tmp_path / "build" / "heatsim", tmp_path / "out", py_prog, hosts("heat3d")[1])


# ------------------------------------------------------------------ Fortran


def heat3d_lib(tmp_path: Path) -> Path:
    """heat3d's `--emit=lib` in tmp_path/lib (its headers, NAME_api.f90, libheat3d.so): the prefix."""
    cmd, env = stencilc_command()
    prefix = tmp_path / "lib"
    p = subprocess.run([*cmd, str(REPO_ROOT / "examples" / "heat3d.stn"), "--emit=lib", "-o", str(prefix)],
                       capture_output=True, text=True, env=env, timeout=COMPILE_TIMEOUT_S, cwd=REPO_ROOT)
    assert p.returncode == 0, p.stderr
    return prefix


def fortran_program(prefix: Path, source: Path, exe: Path) -> Path:
    """A Fortran program built with gfortran against heat3d_lib's NAME_api.f90 and libheat3d.so: its path."""
    import shutil

    fc = shutil.which("gfortran")
    if not fc:
        pytest.fail("gfortran is missing: tools/setup.sh installs it")
    p = _sh([fc, "-Wall", "-Werror", "-fopenmp", "-J", exe.parent, prefix / "include" / "heat3d_api.f90", source,
             "-L", prefix / "lib", "-lheat3d", f"-Wl,-rpath,{prefix / 'lib'}", "-o", exe], COMPILE_TIMEOUT_S)
    assert p.returncode == 0, p.stderr
    return exe


def fortran_driver(tmp_path: Path) -> Path:
    """test/embed/heat3d_driver.f90 built against heat3d's `--emit=lib` (in tmp_path/lib): the driver's path."""
    return fortran_program(heat3d_lib(tmp_path), REPO_ROOT / "test" / "embed" / "heat3d_driver.f90",
                           tmp_path / "driver")


def test_fortran_module_drives_the_simulation(hosts, tmp_path):
    """`--emit=lib` ships NAME_api.f90; test/embed/heat3d_driver.f90, built with gfortran against it and
    libheat3d.so, gets the command line's bits for the same writes (in-core, and out of core under a
    --mem that cuts several blocks), and the runtime's messages; its checkpoint, report, restart (options
    built by heat3d_option) and discard work."""
    exe = fortran_driver(tmp_path)
    _, cli = hosts("heat3d")  # the command line's bits: 3 steps, the box set in the .npy, 4 steps
    cli_run(cli, ["--size", "18,16,14", "--steps", "3", "--mode", "incore", "--out", f"u={tmp_path / 'u3.npy'}"])
    u3 = np.load(tmp_path / "u3.npy")
    u3[7:10, 6:9, 5:8] = 2.0
    np.save(tmp_path / "u3w.npy", u3)
    cli_run(cli, ["--size", "18,16,14", "--steps", "4", "--mode", "incore", "--init", f"u={tmp_path / 'u3w.npy'}",
                  "--out", f"u={tmp_path / 'cli.npy'}"])
    want = np.load(tmp_path / "cli.npy")
    for mode in (["--mode", "incore"], ["--mem", "192K", "--dir", str(tmp_path), "--report", str(tmp_path / "r.json")]):
        p = _sh([exe, tmp_path / "u.raw", *mode], RUN_TIMEOUT_S)
        assert p.returncode == 0, p.stdout + p.stderr
        assert "heat3d has no field 'v' (its fields: u)" in p.stdout
        assert raw(tmp_path / "u.raw", (18, 16, 14), "<f8").tobytes() == want.tobytes(), mode
        # heat3d_checkpoint, heat3d_report (paths longer than any fixed length), restart, discard
        assert np.load(tmp_path / "u.raw.ckpt" / "u.npy").tobytes() == want.tobytes()
        assert json.loads((tmp_path / "u.raw.json").read_text())["steps"] == 7
        exact_bytes(tmp_path, "ooc" if "--mem" in mode else "incore")


@pytest.mark.parametrize("mode", ["incore", "ooc"])
def test_checkpoint_restarts_bit_for_bit(hosts, tmp_path, mode):
    """checkpoint DIR after 4 of 10 steps writes every level as .npy and a manifest; a simulation opened
    with the manifest's --init files and advanced 6 steps gives the bits of the 10-step run (wave3d:
    both levels); the bytes of the checkpoint are in the model."""
    import json

    size, dtype, field = CASES["wave3d"]
    host, cli = hosts("wave3d")
    szs = ",".join(map(str, size))
    cli_run(cli, ["--size", szs, "--steps", "10", "--mode", "incore", "--out", f"u={tmp_path / 'cli.npy'}"])
    config = modes(tmp_path, size)["ooc" if mode == "ooc" else "incore"]
    host_run(host, [f"size={szs}", "steps=10", *config],
             ["advance", "4", "checkpoint", tmp_path / "ck", "advance", "6"])
    exact_bytes(tmp_path, mode)
    man = json.loads((tmp_path / "ck" / "wave3d.checkpoint.json").read_text())
    assert man["stencil"] == "wave3d" and man["steps_done"] == 4 and man["size"] == list(size)
    assert man["init"] == [f"u={tmp_path / 'ck' / 'u.npy'}", f"u.prev={tmp_path / 'ck' / 'u.prev.npy'}"]
    inits = [a for i in man["init"] for a in ("--init", i)]
    lo, hi = _lohi(size)
    host_run(host, [f"size={szs}", "steps=6", *config, *inits], ["advance", "6", "read", "u", lo, hi,
                                                                 tmp_path / "api.raw"])
    assert raw(tmp_path / "api.raw", size, dtype).tobytes() == np.load(tmp_path / "cli.npy").tobytes()
    exact_bytes(tmp_path, mode)


# ------------------------------------------------------------------ random stencils through the API




def test_random_stencils_through_the_api_equal_the_command_line(tmp_path_factory):
    """The property test of test_ooc.py's random stencils (sub-steps, t and series, points and records,
    `along` inputs, periodic axes and tori, 1d, neumann), through the API: out of core with the reference
    schedule in random blocks (y-blocked with its strip too), the steps split into random advances; every
    field and record equals the command line's in-core run, bit for bit, and the bytes are the model's."""
    import os
    import random

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    from stencilc import toolchain
    from stencilc.codegen import LIBS
    from stencilc.resources import runtime_dir
    from test_ooc import min_extent, random_run_inputs, random_stencil

    cc, flags = toolchain._cc(None), toolchain._cflags(None)
    lib = toolchain.runtime_library(cc, flags)
    cmd, env = stencilc_command()

    @settings(max_examples=int(os.environ.get("STENCILC_EMBED_EXAMPLES", "6")), deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
    @given(seed=st.integers(0, 2**31), data=st.data())
    def check(seed, data):
        rng = random.Random(seed)
        tmp = tmp_path_factory.mktemp("rapi")
        src, ndim, fields, timed, periodic, torus = random_stencil(rng, "rnd")
        (tmp / "rnd.stn").write_text(src)
        ir = subprocess.run([*cmd, str(tmp / "rnd.stn"), "--emit=ir"], capture_output=True, text=True, env=env).stdout
        for args in (["--emit=c", "-o", tmp / "gen"], ["-o", tmp / "cli"]):
            p = subprocess.run([*cmd, str(tmp / "rnd.stn"), *map(str, args)], capture_output=True, text=True, env=env)
            assert p.returncode == 0, p.stderr
        host = tmp / "host"
        p = _sh([*cc, *flags, "-I", tmp / "gen", "-I", runtime_dir() / "include", "-DSTN=rnd", "-include",
                 "rnd_api.h", "-o", host, HOST, tmp / "gen" / "rnd.c", tmp / "gen" / "rnd_api.c", lib, *LIBS],
                COMPILE_TIMEOUT_S)
        assert p.returncode == 0, p.stderr
        size = []
        for axis in "xyz"[:ndim]:
            lo, hi = min_extent(ir, axis)
            size.append(data.draw(st.integers(lo + hi + max(lo, hi, 1), lo + hi + max(lo, hi, 1)
                                              + {1: 2000, 2: 40, 3: 16}[ndim]), label=f"n{axis}"))
        steps = data.draw(st.integers(1, 9), label="steps")
        cut = sorted(data.draw(st.lists(st.integers(0, steps), min_size=0, max_size=3), label="cuts"))
        pieces = [b - a for a, b in zip([0, *cut], [*cut, steps])]
        bz, bt = data.draw(st.integers(1, 12), label="bz"), data.draw(st.integers(1, 12), label="bt")
        if torus:
            lo, hi = min_extent(ir, "xyz"[ndim - 1])
            bt = max(1, min(bt, (size[-1] - lo - 2 * hi) // max(lo, hi, 1)))
        elif ndim > 1 and "xyz"[ndim - 1] in periodic:
            bt = 1
        by, strip = (size[1] if ndim > 1 else 1), []
        if ndim == 3 and not set("yz") & set(periodic) and data.draw(st.booleans(), label="yblock"):
            by = data.draw(st.integers(1, max(1, size[1] - 1)), label="by")
            strip = ["--strip", data.draw(st.sampled_from(["dram", "file"]), label="strip")]
        block = ([by] if ndim == 3 else []) + ([bz] if ndim > 1 else []) + [bt]
        block = ",".join(map(str, [bz * 100, bt] if ndim == 1 and not periodic else block))  # 1d: bx cells
        common = ["--quiet", *random_run_inputs(tmp, data, ir, size, steps, timed, fields)]
        outs = lambda tag: [a for f in fields for a in ("--out", f"{f}={tmp / (tag + '_' + f + '.npy')}")]  # noqa: E731
        szs = ",".join(map(str, size))
        cli_run(tmp / "cli", ["--size", szs, "--steps", str(steps), "--mode", "incore", *common, *outs("in")])
        ops = [a for n in pieces for a in ("advance", str(n))]
        host_run(host, [f"size={szs}", f"steps={steps}", "mode=ooc", f"dir={tmp}", f"report={tmp / 'r.json'}",
                        "--block", block, *strip, *common, *outs("api")], ops)
        what = f"seed {seed}, size {size}, pieces {pieces}, block {block} {strip}\n{src}"
        for f in fields:
            a, b = np.load(tmp / f"in_{f}.npy"), np.load(tmp / f"api_{f}.npy")
            assert a.tobytes() == b.tobytes(), f"field {f} differs (max {np.abs(a - b).max()}): {what}"
        exact_bytes(tmp, "ooc")

    check()


@pytest.mark.parametrize("name", ["wave3d", "advect2d", "fdtd2d"])
def test_a_killed_host_resumes_from_its_last_sweep(hosts, tmp_path, name):
    """Out of core each sweep commits, as the program's do: a host killed after 7 of 10 steps (sweeps of 3,
    so the advances 4 and 3 made sweeps of 3, 1 and 3) reopens with --resume at step 7 and its last 3
    steps give the bits of the uninterrupted command-line run (fdtd2d: t and a series go on too); the
    resumed run's bytes are the model's."""
    size, dtype, field = {"fdtd2d": ((20, 18), "<f8", "hz")}.get(name) or CASES[name]
    host, cli = hosts(name)
    szs = ",".join(map(str, size))
    extra = []
    if name == "fdtd2d":
        np.save(tmp_path / "fict.npy", np.arange(12, dtype="<f8") * 0.01)
        extra = ["--init", f"fict={tmp_path / 'fict.npy'}"]
    cli_run(cli, ["--size", szs, "--steps", "10", "--mode", "incore", *extra, "--out", f"{field}={tmp_path / 'cli.npy'}"])
    config = [f"size={szs}", "steps=10", *modes(tmp_path, size)["ooc"], *extra]
    p = host_run(host, config, ["advance", "4", "advance", "3", "crash"], ok=False)
    assert p.returncode == 9, p.stderr
    assert (tmp_path / f"{name}.ooc-state").exists()
    lo, hi = _lohi(size)
    host_run(host, [*config, "--resume"], ["steps-done", "7", "advance", "3", "read", field, lo, hi,
                                           tmp_path / "api.raw"])
    assert raw(tmp_path / "api.raw", size, dtype).tobytes() == np.load(tmp_path / "cli.npy").tobytes()
    exact_bytes(tmp_path, "ooc")
