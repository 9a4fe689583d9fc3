"""End-to-end tests: every ``examples/NAME.stn``, compiled by stencilc, against the NumPy
references in ``examples/reference.py``.

Each example is compiled once per session; each case runs the generated program
(``--mode incore`` unless said otherwise) and compares every field it writes with the
reference: ``max|a - b| / max|b|`` below 1e-12 (f64) or 1e-5 (f32).  Hypothesis draws the
grid sizes (primes, the smallest legal size, sizes just above the halo), the number of steps
(0..7), the initial data and a ``--param`` override.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
import reference as ref
from conftest import load_report
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

NAMES = sorted(ref.EXAMPLES)
PRIMES = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97,
          101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151, 157, 163, 167, 173, 179, 181, 191, 193, 197, 199]
MAX_SIZE = {3: 40, 2: 200, 1: 6000}  # largest size per dimension
TYPICAL = {3: 24, 2: 64, 1: 3000}  # most drawn sizes stay below this (1d: rows of 512 cells or more)
MAX_STEPS = 7

SETTINGS = dict(deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])


def tolerance(ex: ref.Example) -> float:
    return 1e-12 if ex.dtype == np.float64 else 1e-5


# ------------------------------------------------------------------ strategies


def min_size(ex: ref.Example, d: int) -> int:
    """The smallest legal size of dimension d: one interior cell for dirichlet; with a
    neumann field the interior must hold every mirror image (at least max(h_lo, h_hi))."""
    lo, hi = ex.halo_lo[d], ex.halo_hi[d]
    if any(bc in ("neumann", "mixed") for _, bc in ex.state.values()):
        return lo + hi + max(lo, hi, 1)
    return lo + hi + 1


def dim_size(ex: ref.Example, d: int) -> st.SearchStrategy[int]:
    m, top, typical = min_size(ex, d), MAX_SIZE[ex.ndim], TYPICAL[ex.ndim]
    special = sorted({m, m + 1, m + 2} | {p for p in PRIMES if m <= p <= top})
    return st.one_of(st.sampled_from([m, m + 1]), st.sampled_from(special), st.integers(m, typical))


def sizes(ex: ref.Example) -> st.SearchStrategy[tuple[int, ...]]:
    return st.tuples(*[dim_size(ex, d) for d in range(ex.ndim)])


def param_overrides(ex: ref.Example) -> st.SearchStrategy[dict[str, float]]:
    """No override, or one param scaled by a factor in [0.5, 1] (the defaults are stable,
    and so are the smaller values)."""
    # (a param that is an off-grid set's spacing stays: the points' files are made in its default units)
    names = sorted(set(ex.params) - {v for v in (ex.offgrid or {}).values() if v})
    if not names:
        return st.just({})
    one = st.tuples(st.sampled_from(names), st.floats(0.5, 1.0)).map(
        lambda t: {t[0]: float(ex.params[t[0]] * t[1])})
    return st.one_of(st.just({}), one)


def random_fields(ex: ref.Example, size: tuple[int, ...], seed: int, with_prev: bool) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    shape = ex.shape(size)
    out = {}
    for f in ex.fields:
        if f == "c":  # a conductivity: positive (it goes through sqrt)
            a = rng.uniform(0.1, 1.0, shape)
        elif ex.name == "filter2d":  # grey levels, a little outside [0, 1] so the clamp acts
            a = rng.uniform(-0.25, 1.25, shape)
        elif ex.name == "d2q9":  # populations: positive, near their equilibrium (the density divides)
            a = rng.uniform(0.08, 0.14, shape)
        else:
            a = rng.uniform(-1.0, 1.0, shape)
        out[f] = a.astype(ex.dtype)
    for w in ex.series:
        out[w] = rng.uniform(-1.0, 1.0, ref.Example.SERIES_LENGTH).astype(ex.dtype)
    for a, axis in ex.along.items():  # coefficients along one axis: small and positive (a damping, a mask)
        out[a] = rng.uniform(0.0, 0.3, size["xyz".index(axis)]).astype(ex.dtype)
    for s in ex.points:  # 0 to 4 points anywhere in the interior, repeats allowed
        lo, hi = np.array(ex.halo_lo), np.array(size) - np.array(ex.halo_hi)
        n = int(rng.integers(0, 5))
        if s in ex.offgrid and (hi - lo < 2).any():  # (an off-grid point needs two interior cells an axis)
            out[s] = np.zeros((0, ex.ndim))
        elif s in ex.offgrid:  # off-grid: reals whose corners stay in the interior, in the spacing's units
            h = ex.params[ex.offgrid[s]] if ex.offgrid[s] else 1.0
            out[s] = rng.uniform(lo, hi - 1, size=(n, ex.ndim)) * h
        else:
            out[s] = rng.integers(lo, hi, size=(n, ex.ndim)).astype(np.int64)
    if with_prev:
        for f, (levels, _) in ex.state.items():
            for k in range(1, levels):  # NAME.prev, and NAME.prev.prev of three levels
                out[f + ".prev" * k] = rng.uniform(-1.0, 1.0, shape).astype(ex.dtype)
    return out


# ------------------------------------------------------------------ running a program


def run_stencil(run_program, exe: Path, ex: ref.Example, size: tuple[int, ...], steps: int,
                params: dict[str, float], inits: dict[str, np.ndarray], workdir: Path,
                extra: tuple[str, ...] = ("--mode", "incore")) -> tuple[dict[str, np.ndarray], dict]:
    """Run the program; return the fields it wrote (``--out`` for every field) and its report.  A
    series not in ``inits`` gets the reference's default values, as ``ex.initial`` does."""
    args = ["--quiet", "--size", ",".join(map(str, size)), "--steps", str(steps), *extra]
    inits = {**{w: default(ref.Example.SERIES_LENGTH).astype(ex.dtype) for w, default in ex.series.items()},
             **{s: default(size) for s, default in ex.points.items()}, **inits}
    for key, arr in inits.items():
        path = workdir / f"in_{key}.npy"
        np.save(path, arr)
        args += ["--init", f"{key}={path}"]
    outs = {f: workdir / f"out_{f}.npy" for f in (*ex.fields, *ex.records)}
    for f, path in outs.items():
        args += ["--out", f"{f}={path}"]
    for k, v in params.items():
        args += ["--param", f"{k}={float(v)!r}"]
    report = workdir / "report.json"
    args += ["--report", str(report)]
    rc, stdout, stderr = run_program(exe, args)
    assert rc == 0, f"{ex.name} exited with {rc}\n$ {exe.name} {' '.join(args)}\n{stdout}{stderr}"
    got = {f: np.load(path) for f, path in outs.items()}
    return got, load_report(report)  # validated before a temporary workdir vanishes


def compare(ex: ref.Example, got: dict[str, np.ndarray], want: dict[str, np.ndarray], what: str) -> None:
    for f in (*ex.fields, *ex.records):
        a, b = got[f], want[f]
        assert a.shape == b.shape, f"{what}: {f} has shape {a.shape}, expected {b.shape}"
        assert a.dtype == ex.dtype, f"{what}: {f} has dtype {a.dtype}, expected {np.dtype(ex.dtype)}"
        if b.size == 0:  # a record of no step or no point
            continue
        diff = np.abs(a.astype(np.float64) - b.astype(np.float64))
        scale = float(np.max(np.abs(b)))
        err = float(np.max(diff)) / scale if scale > 0 else float(np.max(diff))
        if not err < tolerance(ex):  # also catches NaN
            idx = np.unravel_index(int(np.nanargmax(diff)) if not np.isnan(diff).all() else 0, diff.shape)
            inside = all(ex.halo_lo[d] <= idx[ex.ndim - 1 - d] < a.shape[ex.ndim - 1 - d] - ex.halo_hi[d]
                         for d in range(ex.ndim))
            bad = int(np.count_nonzero(~(diff <= tolerance(ex) * max(scale, 1e-300))))
            pytest.fail(f"{what}: field {f}: relative error {err:.3e} (tolerance {tolerance(ex):.0e}); "
                        f"{bad} cells off; worst at numpy index {tuple(map(int, idx))} "
                        f"({'interior' if inside else 'boundary'} cell): got {a[idx]!r}, expected {b[idx]!r}",
                        pytrace=False)


def describe(ex, size, steps, params, how) -> str:
    return f"{ex.name} --size {','.join(map(str, size))} --steps {steps} params {params or 'default'} ({how})"


# ------------------------------------------------------------------ (a) random initial fields


@pytest.mark.parametrize("name", NAMES)
def test_random_initial_fields(name, compile_example, run_program):
    """Every field from a seeded random ``--init`` file; for two-level fields the previous
    level is a file too, or (not given) the stencil's ``init NAME.prev`` expression."""
    ex = ref.EXAMPLES[name]
    exe = compile_example(name)

    @settings(max_examples=10, **SETTINGS)
    @given(size=sizes(ex), steps=st.integers(0, MAX_STEPS), params=param_overrides(ex),
           seed=st.integers(0, 2**32 - 1), with_prev=st.booleans())
    def check(size, steps, params, seed, with_prev):
        files = random_fields(ex, size, seed, with_prev)
        with tempfile.TemporaryDirectory() as tmp:
            got, _ = run_stencil(run_program, exe, ex, size, steps, params, files, Path(tmp))
        want = ex.run(ex.initial(size, params, files), params, steps)
        compare(ex, got, want, describe(ex, size, steps, params, f"random --init, seed {seed}, "
                                        f"{'with' if with_prev else 'without'} .prev files"))

    check()


# ------------------------------------------------------------------ (b) the stencil's own init expressions


@pytest.mark.parametrize("name", NAMES)
def test_init_expressions(name, compile_example, run_program):
    """No ``--init``: the program evaluates the ``init`` expressions itself."""
    ex = ref.EXAMPLES[name]
    exe = compile_example(name)

    @settings(max_examples=8, **SETTINGS)
    @given(size=sizes(ex), steps=st.integers(0, MAX_STEPS), params=param_overrides(ex))
    def check(size, steps, params):
        with tempfile.TemporaryDirectory() as tmp:
            got, _ = run_stencil(run_program, exe, ex, size, steps, params, {}, Path(tmp))
        want = ex.run(ex.initial(size, params), params, steps)
        compare(ex, got, want, describe(ex, size, steps, params, "init expressions"))

    check()


@pytest.mark.parametrize("name", NAMES)
def test_zero_steps_writes_the_initial_state(name, compile_example, run_program, tmp_path):
    """``--steps 0`` writes the initial values (neumann fields mirrored once, as before step 1).
    Odd sizes make ``nx/2`` a half-integer in the element type."""
    ex = ref.EXAMPLES[name]
    size = (17, 15, 13)[: ex.ndim]
    got, _ = run_stencil(run_program, compile_example(name), ex, size, 0, {}, {}, tmp_path)
    init = ex.initial(size)
    compare(ex, got, ex.run(init, None, 0), describe(ex, size, 0, {}, "init expressions"))


# ------------------------------------------------------------------ the report


def check_report(ex: ref.Example, report: dict, size: tuple[int, ...], steps: int, what: str) -> None:
    for key in ("mode", "size", "steps", "bytes_read", "bytes_written", "predicted_bytes_read",
                "predicted_bytes_written", "seconds", "cells_per_second"):
        assert key in report, f"{what}: the report has no {key!r}"
    assert report["steps"] == steps, what
    assert report["size"] in (list(size), ",".join(map(str, size))), f"{what}: size {report['size']!r}"
    assert report["bytes_read"] == report["predicted_bytes_read"], \
        f"{what}: bytes_read {report['bytes_read']} != predicted {report['predicted_bytes_read']}"
    assert report["bytes_written"] == report["predicted_bytes_written"], \
        f"{what}: bytes_written {report['bytes_written']} != predicted {report['predicted_bytes_written']}"
    if steps > 0:
        assert report["cells_per_second"] > 0, f"{what}: cells_per_second {report['cells_per_second']!r}"


@pytest.mark.parametrize("name", NAMES)
def test_report_counts_what_it_predicts(name, compile_example, run_program):
    ex = ref.EXAMPLES[name]
    exe = compile_example(name)

    @settings(max_examples=4, **SETTINGS)
    @given(size=sizes(ex), steps=st.integers(0, MAX_STEPS), use_files=st.booleans())
    def check(size, steps, use_files):
        files = random_fields(ex, size, 0, True) if use_files else {}
        with tempfile.TemporaryDirectory() as tmp:
            _, report = run_stencil(run_program, exe, ex, size, steps, {}, files, Path(tmp))
        check_report(ex, report, size, steps, describe(ex, size, steps, {}, "incore report"))

    check()


# ------------------------------------------------------------------ out of core


def periodic_blocks(ex, size, block, schedule):
    """The blocks and schedule a periodic stencil can run out of core with: whole planes when it
    wraps y or z (3d); when it wraps the axis the blocks stream along (z of whole planes, y in
    2d), not alg2, and one step a sweep unless it is a torus run with ref (every field wraps that
    axis, and is neumann or wraps every axis; no input field, no input along that axis: the
    wedge, whose sweeps of bt steps need an interior of bt skews and the halo); others unchanged."""
    axes = "".join(ex.periodic.values())
    stream = "z" if ex.ndim == 3 else "y"
    if ex.ndim == 3 and ("y" in axes or "z" in axes):
        block[0] = size[1]
    if stream in axes:
        schedule = "ref" if schedule == "alg2" else schedule
        d = "xyz".index(stream)
        torus = (set(ex.periodic) == set(ex.state) and not ex.inputs and stream not in ex.along.values()
                 and not isinstance(ex.update, tuple)
                 and all(stream in ex.periodic[f] and (bc == "neumann" or len(ex.periodic[f]) == ex.ndim)
                         for f, (_, bc) in ex.state.items()))
        lo, hi = ex.halo_lo[d], ex.halo_hi[d]
        most = (size[d] - lo - 2 * hi) // max(lo, hi, 1)
        block[-1] = max(1, min(block[-1], most)) if torus and schedule == "ref" else 1
    return block, schedule


@pytest.mark.parametrize("name", NAMES)
def test_out_of_core_is_bit_identical_to_incore(name, compile_example, run_program):
    """``--mode ooc`` with hand-set blocks (not dividing the grid, smaller than the skew,
    ``bt > steps``...) gives exactly the in-core result, and counts the bytes it predicts."""
    ex = ref.EXAMPLES[name]
    exe = compile_example(name)
    nblock = max(ex.ndim, 2)  # by,bz,bt in 3d, by,bt in 2d, bx,bt in 1d

    @settings(max_examples=6, **SETTINGS)
    @given(size=sizes(ex), steps=st.integers(1, MAX_STEPS), seed=st.integers(0, 2**32 - 1),
           schedule=st.sampled_from(["ref", "ref", "alg1", "alg2"]), strip=st.sampled_from(["dram", "file"]),
           whole=st.booleans(), block=st.lists(st.integers(1, 9), min_size=nblock, max_size=nblock))
    def check(size, steps, seed, block, schedule, strip, whole):
        if ex.ndim == 3 and (whole or schedule != "ref"):
            block[0] = size[1]  # by = ny: whole planes (alg1 and alg2 block z only)
        if ex.ndim == 1:  # bx cells: whole rows of the fold (512 cells or more), one to several
            block[0] *= 300
        block, schedule = periodic_blocks(ex, size, block, schedule)
        extra = ("--strip", strip) if ex.ndim == 3 and block[0] < size[1] else ()
        files = random_fields(ex, size, seed, True)
        what = describe(ex, size, steps, {},
                        f"ooc --schedule {schedule} --block {','.join(map(str, block))} {' '.join(extra)}")
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            (tmp / "a").mkdir()
            (tmp / "b").mkdir()
            (tmp / "scratch").mkdir()
            incore, _ = run_stencil(run_program, exe, ex, size, steps, {}, files, tmp / "a")
            ooc, report = run_stencil(run_program, exe, ex, size, steps, {}, files, tmp / "b",
                                      extra=("--mode", "ooc", "--schedule", schedule, "--dir", str(tmp / "scratch"),
                                             "--block", ",".join(map(str, block)), *extra))
        for f in (*ex.fields, *ex.records):
            np.testing.assert_array_equal(ooc[f], incore[f], err_msg=f"{what}: {f}")
        compare(ex, ooc, ex.run(ex.initial(size, None, files), None, steps), what)
        check_report(ex, report, size, steps, what)

    check()


def test_periodic_stencils_run_out_of_core(compile_example, run_program, tmp_path):
    """A periodic stencil runs out of core by default: d2q9 is a torus, so its sweeps wrap several
    steps around y (the axis the blocks stream along); blocks that cannot wrap are refused with
    the reason; in-core time tiles are off (they would need the far side)."""
    ex = ref.EXAMPLES["d2q9"]
    exe = compile_example("d2q9")
    args = ["--size", "18,12", "--steps", "9", "--dir", str(tmp_path), "--report", str(tmp_path / "r.json")]
    rc, out, err = run_program(exe, [*args, "--mem", "200K", "--out", f"f2={tmp_path / 'f2.npy'}"])
    r = load_report(tmp_path / "r.json")
    assert rc == 0 and r["mode"] == "ooc", err
    assert r["bytes_read"] == r["predicted_bytes_read"] > 0, r["params"]
    want = ex.run(ex.initial((18, 12)), None, 9)["f2"]
    np.testing.assert_allclose(np.load(tmp_path / "f2.npy"), want, rtol=0, atol=1e-14)
    rc, _, err = run_program(exe, [*args, "--block", "5,2", "--schedule", "alg1"])  # only ref wraps bt > 1
    assert rc == 1 and ("--block 5,2: this stencil is periodic along y, the axis the blocks stream along, and only "
                        "the ref schedule carries the wrap-around slices with a sweep") in err, err
    rc, _, err = run_program(exe, [*args, "--block", "5,10", "--out", f"f2={tmp_path / 'f2b.npy'}"])
    assert rc == 0, err  # bt is bounded by the 9 steps: 9 skews and the halo fill y's interior of 10 exactly
    np.testing.assert_allclose(np.load(tmp_path / "f2b.npy"), want, rtol=0, atol=1e-14)
    ten = [*args[:2], "--steps", "10", *args[4:]]
    rc, _, err = run_program(exe, [*ten, "--block", "5,10"])  # 10 steps: sweeps of 10 need 11 slices of y
    assert rc == 1 and "periodic along y, whose interior of 10 is too short for sweeps of 10 steps" in err, err
    rc, _, err = run_program(exe, [*args, "--schedule", "alg2"])
    assert rc == 2 and "--schedule alg2: this stencil is periodic along y, and alg2 updates its files in place" in err
    rc, _, err = run_program(exe, [*args, "--mode", "incore"])
    r = load_report(tmp_path / "r.json")
    assert rc == 0 and r["time_tiles"]["source"].startswith("off: 'f0' is periodic"), r["time_tiles"]
