"""A bounded random test of the embedding API under use and misuse (issue 28: "extend the fuzzers to API
step counts"), in C and in Python.

C: test/embed/misuse.c, built per stencil against its generated descriptor and the runtime, makes random
calls on an out-of-core or in-core simulation beside an in-core shadow that gets only the accepted ones:
step counts of every size (negative, 2^63 - 1, sums that overflow, past 10^15), boxes in and out of the
grid, NULL fields, boxes, buffers and simulations, unknown names, strides dense, transposed and negative,
checkpoints and reports to good and bad paths, restarts, and scratch files cut short under an advance.
Each refusal must come with a message and change nothing; each accepted read must be the shadow's, bit for
bit; the --out written at close is the shadow's field, or absent after a failed advance.

Python: the same calls through ``stencilc`` with arguments drawn from pools of good and bad values (types
and ranges: floats, bools, strings, NUL characters, huge integers, complex/bool/str/object arrays, arrays
of every layout): a bad one raises ``stencilc.Error`` and nothing else, a good one is accepted, and after
each call the simulation's field equals the shadow's.

The number of seeds is ``STENCILC_EMBED_FUZZ`` (default 3 a case; the seeds are printed on failure)."""

from __future__ import annotations

import os
import random
import subprocess

import numpy as np
import pytest
from conftest import COMPILE_TIMEOUT_S, REPO_ROOT, RUN_TIMEOUT_S, stencilc_command

SEEDS = int(os.environ.get("STENCILC_EMBED_FUZZ", "3"))
MISUSE = REPO_ROOT / "test" / "embed" / "misuse.c"

# (stencil, size, options of the subject beyond --size/--dir/--out)
C_CASES = {
    "heat3d-ooc": ("heat3d", (18, 16, 14), ["--mode", "ooc", "--mem", "64M", "--block", "16,4,3"]),
    "heat3d-incore": ("heat3d", (18, 16, 14), ["--mode", "incore"]),
    "wave3d-ooc": ("wave3d", (16, 14, 12), ["--mode", "ooc", "--mem", "64M", "--block", "14,3,2"]),
    "advect2d-ooc": ("advect2d", (40, 33), ["--mode", "ooc", "--mem", "64M", "--block", "5,3"]),
    "jacobi1d-incore": ("jacobi1d", (301,), ["--mode", "incore"]),
}


@pytest.fixture(scope="module")
def misuse_exe(tmp_path_factory):
    """``misuse_exe(name)``: test/embed/misuse.c built for an example stencil."""
    from stencilc import toolchain
    from stencilc.codegen import LIBS
    from stencilc.resources import runtime_dir

    cc, flags = toolchain._cc(None), toolchain._cflags(None)
    lib = toolchain.runtime_library(cc, flags)
    out = tmp_path_factory.mktemp("misuse")
    built = {}

    def build(name: str):
        if name not in built:
            cmd, env = stencilc_command()
            gen = out / name
            p = subprocess.run([*cmd, str(REPO_ROOT / "examples" / f"{name}.stn"), "--emit=c", "-o", str(gen)],
                               capture_output=True, text=True, env=env, timeout=COMPILE_TIMEOUT_S)
            assert p.returncode == 0, p.stderr
            exe = out / f"{name}-misuse"
            p = subprocess.run([*cc, *flags, "-Wall", "-Wextra", "-Werror", "-I", str(gen), "-I",
                                str(runtime_dir() / "include"), f"-DSTN={name}", "-include", f"{name}_api.h", "-o",
                                str(exe), str(MISUSE), str(gen / f"{name}.c"), str(gen / f"{name}_api.c"), str(lib),
                                *LIBS], capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S)
            assert p.returncode == 0, p.stderr
            built[name] = exe
        return built[name]

    return build


@pytest.mark.parametrize("case", sorted(C_CASES))
def test_c_api_under_misuse(misuse_exe, tmp_path, case):
    name, size, opts = C_CASES[case]
    exe = misuse_exe(name)
    field = {"heat3d": "u", "wave3d": "u", "advect2d": "u", "jacobi1d": "A"}[name]
    failed_runs = 0
    for seed in range(SEEDS):
        d = tmp_path / f"s{seed}"
        d.mkdir()
        out = d / "out.npy"
        args = [str(exe), str(1000 + seed), "150", str(d), "--size", ",".join(map(str, size)), *opts, "--dir", str(d),
                "--out", f"{field}={out}", "--quiet"]
        p = subprocess.run(args, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
        assert p.returncode == 0, f"{' '.join(args)}\n{p.stdout}{p.stderr}"
        assert "refused" in p.stdout
        shadow = np.fromfile(d / "shadow.raw", dtype="<f8").reshape(size[::-1])
        if "an advance failed" in p.stdout:
            failed_runs += 1
            assert not out.exists() and not list(d.glob("out.npy*")), "an --out after a failed advance"
        else:
            assert np.load(out).tobytes() == shadow.tobytes(), f"seed {1000 + seed}: the --out is not the shadow's"
    if "ooc" in case and SEEDS >= 3:
        assert failed_runs > 0, "no run cut its scratch files short: the failure path was not tried"


# ------------------------------------------------------------------ Python

BAD_STEPS = [-1, -(2**63), 2**63, 2**64 + 1, 2**63 - 1, 10**15 + 1, 1.0, True, "1", None, np.float64(2), 1 + 0j]
GOOD_STEPS = [0, 1, 2, 3, np.int64(2), np.uint8(1)]


def _good_index(rng: random.Random, n: int):
    """An int (maybe negative, from the end) or a slice of step 1 within [0, n)."""
    if rng.random() < 0.4:
        return rng.randrange(-n, n)
    lo = rng.randrange(0, n)
    return slice(lo, rng.randrange(lo + 1, n + 1))


def _bad_index(rng: random.Random, n: int):
    return rng.choice([n, -n - 1, 2**70, 1.5, True, "1", slice(0, 2, 2), slice(0.5, 2), None, np.float32(1)])


def _box(rng: random.Random, size: tuple[int, ...]) -> tuple[dict, bool]:
    box, ok = {}, True
    for d, n in enumerate(size):
        axis = "xyz"[d]
        r = rng.random()
        if r < 0.3:
            continue  # the whole axis
        if r < 0.9:
            box[axis] = _good_index(rng, n)
        else:
            box[axis], ok = _bad_index(rng, n), False
    if rng.random() < 0.05:
        box["w"], ok = 0, False
    return box, ok


def _shape(box: dict, size: tuple[int, ...]) -> tuple[int, ...]:
    shape = []
    for d, n in enumerate(size):
        v = box.get("xyz"[d], slice(None))
        if isinstance(v, slice):
            lo, hi, _ = v.indices(n)
            shape.append(max(0, hi - lo))
    return tuple(reversed(shape))


def _array(rng: random.Random, shape: tuple[int, ...], np_rng) -> tuple[object, bool]:
    """An array of the box's shape in some layout (good), or one the API must refuse (bad)."""
    v = np_rng.random(shape)
    kind = rng.randrange(10)
    if kind == 0 and v.ndim:  # reversed on every axis
        return v[(slice(None, None, -1),) * v.ndim].copy()[(slice(None, None, -1),) * v.ndim], True
    if kind == 1:
        return np.asfortranarray(v), True
    if kind == 2 and v.ndim:  # every other element of a wider array
        wide = np_rng.random((*shape[:-1], 2 * shape[-1]))
        return wide[..., ::2], True
    if kind == 3:
        return v.astype(">f8"), True
    if kind == 4:
        return (v * 100).astype(np.int32), True
    if kind == 5:
        return v.astype(complex), False
    if kind == 6:
        return rng.choice([v.astype(bool), v.astype(str), v.astype(object)]), False
    if kind == 7 and v.ndim:
        return np.zeros((*shape[:-1], shape[-1] + 1)), False
    return v, True


def _python_fuzz(prog, field: str, size: tuple[int, ...], subject_kw: dict, tmp_path, seed: int) -> str:
    """One random sequence; returns how it ended ("closed" or "failed")."""
    import stencilc

    rng, np_rng = random.Random(seed), np.random.default_rng(seed)
    sim = prog.open(size=size, **subject_kw)
    shadow = prog.open(size=size, mode="incore")
    failed, log = False, []

    def attempt(what: str, ok: bool, call, mirror=None, after_failure: bool = False):
        """call(sim) must be accepted when ok (and no advance failed, unless after_failure) and refused with a
        stencilc.Error otherwise; an accepted call is made on the shadow too (mirror)."""
        nonlocal failed
        log.append(what)
        try:
            got = call(sim)
        except stencilc.Error:
            assert not ok or (failed and not after_failure), \
                f"seed {seed}: {what}: refused, expected accepted\n" + "\n".join(log[-8:])
            return None
        except Exception as e:  # noqa: BLE001 - the point of the test
            pytest.fail(f"seed {seed}: {what}: {type(e).__name__}: {e}\n" + "\n".join(log[-8:]))
        assert ok and (after_failure or not failed), \
            f"seed {seed}: {what}: accepted, expected refused\n" + "\n".join(log[-8:])
        if mirror:
            mirror(shadow)
        return got

    for i in range(60):
        r = rng.random()
        if i == 40 and seed % 4 == 0 and "dir" in subject_kw:  # scratch files cut short, after a sweep
            attempt("advance 1", True, lambda s: s.advance(1), lambda s: s.advance(1))
            for g in os.listdir(subject_kw["dir"]):
                if g.endswith(".grid"):
                    os.truncate(os.path.join(subject_kw["dir"], g), 0)
            attempt("advance 1 over scratch files cut short", False, lambda s: s.advance(1))
            failed = True
        elif r < 0.3:
            k = rng.choice(GOOD_STEPS if rng.random() < 0.7 else BAD_STEPS)
            ok = isinstance(k, (int, np.integer)) and not isinstance(k, bool) and 0 <= k <= 3
            attempt(f"advance {k!r}", ok, lambda s, k=k: s.advance(k), lambda s, k=k: s.advance(int(k)))
        elif r < 0.55:
            box, bok = _box(rng, size)
            f = field if rng.random() < 0.9 else rng.choice(["v", 3, f"{field}\0", None])
            shape = _shape(box, size) if bok else (2,)
            a, aok = _array(rng, shape, np_rng)
            ok = bok and aok and f == field
            attempt(f"write {f!r} {box} {getattr(a, 'dtype', '?')} {getattr(a, 'strides', '')}", ok,
                    lambda s, f=f, a=a, box=box: s.write(f, a, **box), lambda s, a=a, box=box: s.write(field, a, **box))
        elif r < 0.75:
            box, bok = _box(rng, size)
            got = attempt(f"read {box}", bok, lambda s, box=box: s.read(field, **box))
            if got is not None:
                assert got.tobytes() == shadow.read(field, **box).tobytes(), f"seed {seed}: read {box}"
        elif r < 0.82:
            good = tmp_path / f"ck{seed}-{i}"
            d = rng.choice([good, good, 5, "a\0b", REPO_ROOT / "README.md"])
            man = attempt(f"checkpoint {d!r}", d == good, lambda s, d=d: s.checkpoint(d))
            if man is not None:
                with prog.open(restart=good, mode="incore") as again:
                    assert again.read(field).tobytes() == shadow.read(field).tobytes(), f"seed {seed}: restart"
        elif r < 0.86:
            attempt("report", True, lambda s: s.report(), after_failure=True)  # (the bytes so far)
        else:
            assert sim.steps_done == shadow.steps_done
        if not failed:
            assert sim.read(field).tobytes() == shadow.read(field).tobytes(), f"seed {seed}: after {log[-1]}"
    shadow.close()
    if failed:
        with pytest.raises(stencilc.Error, match="an earlier advance failed"):
            sim.close()
    else:
        sim.close()
    for call in (lambda: sim.advance(1), lambda: sim.read(field), lambda: sim.steps_done, lambda: sim.report()):
        with pytest.raises(stencilc.Error, match="the simulation is closed"):
            call()
    sim.close()  # twice is fine
    return "failed" if failed else "closed"


@pytest.mark.parametrize("name, size, field", [("heat3d", (18, 16, 14), "u"), ("advect2d", (40, 33), "u")])
def test_python_api_under_misuse(name, size, field, tmp_path, monkeypatch):
    import stencilc

    monkeypatch.chdir(tmp_path)  # (a relative path accepted by mistake lands here)
    prog = stencilc.compile(REPO_ROOT / "examples" / f"{name}.stn")
    ends = []
    for seed in range(SEEDS):
        d = tmp_path / f"ooc{seed}"
        d.mkdir()
        kw = {"mem": "64M", "dir": d, "options": ["--block", "16,4,3" if len(size) == 3 else "5,3"]}
        ends.append(_python_fuzz(prog, field, size, kw if seed % 2 == 0 else {"mode": "incore"}, tmp_path, seed))
    if SEEDS >= 3:
        assert "failed" in ends, "no sequence cut its scratch files short"
