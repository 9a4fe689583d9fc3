"""The step index ``t`` and time series (``series w;``, read as ``w[t]``, ``w[t-1]``...), given by
``--init w=FILE.npy``: PolyBench's fdtd-2d with its bits, a stencil reading ``t`` and a series at
several offsets on every engine (the step index counts on across sweeps, time tiles and blocks),
and the refusals of a series that is missing, too short or malformed.
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
import reference as ref
from conftest import load_report, stencilc_command

RUNS = [
    ("incore", ("--mode", "incore", "--time-tiles", "off")),
    ("incore-tiles", ("--mode", "incore", "--time-tiles", "4,3")),
    ("ooc-ref", ("--mode", "ooc", "--schedule", "ref", "--block", "3,2")),
    ("ooc-alg1", ("--mode", "ooc", "--schedule", "alg1", "--block", "4,3")),
    ("ooc-alg2", ("--mode", "ooc", "--schedule", "alg2", "--block", "5,2")),
]


@pytest.mark.parametrize("nx,ny,tmax", [(7, 9, 5), (12, 10, 11), (3, 3, 4)])
def test_polybench_fdtd2d_bit_for_bit(compile_example, run_program, tmp_path, nx, ny, tmax):
    """examples/fdtd2d.stn against PolyBench's loop (its nx x ny arrays are the grid's interior)."""
    exe = compile_example("fdtd2d")
    i, j = np.mgrid[0:nx, 0:ny].astype(np.float64)
    ex, ey, hz = i * (j + 1) / nx, i * (j + 2) / ny, i * (j + 3) / nx  # PolyBench's init_array
    fict = np.arange(tmax, dtype=np.float64)
    want = ref.polybench_fdtd2d(ex.copy(), ey.copy(), hz.copy(), fict, tmax)
    np.save(tmp_path / "fict.npy", fict)
    for how, args in RUNS:
        d = tmp_path / how
        d.mkdir()
        rc, _, err = run_program(exe, ["--size", f"{ny + 2},{nx + 2}", "--steps", str(tmax), "--quiet", "--dir", str(d),
                                       "--init", f"fict={tmp_path / 'fict.npy'}", "--report", str(d / "r.json"), *args,
                                       *[a for f in ("ex", "ey", "hz") for a in ("--out", f"{f}={d / f}.npy")]])
        assert rc == 0, f"{how}: {err}"
        for f, w in zip(("ex", "ey", "hz"), want):
            np.testing.assert_array_equal(np.load(d / f"{f}.npy")[1:-1, 1:-1], w, err_msg=f"{how}: {f}")
        r = load_report(d / "r.json")
        assert r["bytes_read"] == r["predicted_bytes_read"], how  # the series file included
        assert r["bytes_read"] >= fict.nbytes


CLOCK = """
stencil clock {
  grid 2d f64;
  param k = 0.2;
  series w;
  series v;
  state u;
  state c;
  let s = 0.01 * w[t] - 0.005 * w[t-1] + 0.002 * w[t+2];
  u' = u + k * (u[1,0] + u[-1,0] + u[0,1] + u[0,-1] - 4 * u) + s + 1e-4 * t * v[t];
  c' = c + 1;
  boundary u neumann;
  init u = sin(0.3 * x) * cos(0.2 * y);
}
"""


def _clock(f, p):
    u, w, v = f["u"], f["w"], f["v"]
    s = 0.01 * w() - 0.005 * w(-1) + 0.002 * w(2)
    return {"u": u() + p.k * (u(1, 0) + u(-1, 0) + u(0, 1) + u(0, -1) - 4 * u()) + s + 1e-4 * p.t * v(),
            "c": f["c"]() + 1}


CLOCK_REF = ref.Example(
    name="clock", ndim=2, dtype=np.float64, halo_lo=(1, 1), halo_hi=(1, 1),
    state={"u": (1, "neumann"), "c": (1, "dirichlet")}, inputs=(), params={"k": 0.2},
    inits={"u": lambda c, p: np.sin(0.3 * c.x) * np.cos(0.2 * c.y)}, update=_clock,
    series={"w": lambda n: np.cos(0.7 * np.arange(n)), "v": lambda n: 1 + 0.5 * np.sin(np.arange(n))})


@pytest.fixture(scope="module")
def clock(tmp_path_factory):
    d = tmp_path_factory.mktemp("clock")
    (d / "clock.stn").write_text(CLOCK)
    cmd, env = stencilc_command()
    r = subprocess.run(cmd + [str(d / "clock.stn"), "-o", str(d / "clock")], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    return d / "clock"


@pytest.mark.parametrize("steps", [1, 6, 13])
def test_t_and_series_on_every_engine(clock, run_program, tmp_path, steps):
    size = (11, 9)
    series = {w: make(steps + 2) for w, make in CLOCK_REF.series.items()}  # w[t+2]: steps + 2 values
    inits = []
    for w, a in series.items():
        np.save(tmp_path / f"{w}.npy", a)
        inits += ["--init", f"{w}={tmp_path / w}.npy"]
    want = CLOCK_REF.run(CLOCK_REF.initial(size, None, series), None, steps)
    base = None
    for how, args in RUNS:
        d = tmp_path / how
        d.mkdir()
        rc, _, err = run_program(clock, ["--size", "11,9", "--steps", str(steps), "--quiet", "--dir", str(d), *inits,
                                         *args, "--out", f"u={d / 'u.npy'}", "--out", f"c={d / 'c.npy'}"])
        assert rc == 0, f"{how}: {err}"
        u = np.load(d / "u.npy")
        if base is None:
            base = u
        np.testing.assert_array_equal(u, base, err_msg=how)
        np.testing.assert_allclose(u, want["u"], rtol=0, atol=1e-13, err_msg=how)
        assert (np.load(d / "c.npy")[1:-1, 1:-1] == steps).all()


def test_series_files_are_checked(clock, run_program, tmp_path):
    def go(*extra):
        return run_program(clock, ["--size", "11,9", "--steps", "6", "--mode", "incore", "--quiet", *extra])

    w, v = tmp_path / "w.npy", tmp_path / "v.npy"
    np.save(w, np.zeros(8))
    np.save(v, np.zeros(6))
    rc, _, err = go("--init", f"w={w}")
    assert rc == 1 and "series 'v' has no values: give them with --init v=FILE.npy (a 1d '<f8' array of at " \
                       "least 6 values, one per step from t = 0)" in err, err
    short = tmp_path / "short.npy"
    np.save(short, np.zeros(7))
    rc, _, err = go("--init", f"w={short}", "--init", f"v={v}")
    assert rc == 1 and f"--init w={short}: '{short}' holds 7 values, but --steps 6 reads w up to index 7: it " \
                       "needs at least 8" in err, err
    flat = tmp_path / "flat.npy"
    np.save(flat, np.zeros((3, 4)))
    rc, _, err = go("--init", f"w={flat}", "--init", f"v={v}")
    assert rc == 1 and "has 2 dimensions; a series is a 1d array (one value per step)" in err, err
    f32 = tmp_path / "f32.npy"
    np.save(f32, np.zeros(9, np.float32))
    rc, _, err = go("--init", f"w={f32}", "--init", f"v={v}")
    assert rc == 1 and "holds '<f4' (float32); this stencil is f64" in err, err
    rc, _, err = go("--init", f"w={w}", "--init", f"v={v}", "--out", f"w={tmp_path / 'x.npy'}")
    assert rc == 2 and "--out w=" in err and "'w' is a series, given to the run (--init w=FILE); --out writes " \
                                             "fields" in err, err
    rc, _, err = go("--init", f"w={w}", "--init", f"v={v}", "--out", f"u={v}")
    assert rc == 2 and "is the --init file of series v; input files are never overwritten" in err, err
    assert np.load(v).shape == (6,)  # untouched
    rc, _, err = go("--init", f"w={w}", "--init", f"w={w}")
    assert rc == 2 and "series w is already given" in err, err
    rc, out, _ = run_program(clock, ["--help"])
    assert "Series (--init NAME=FILE, required" in out and "w            read as w[t-1], w[t], w[t+2]: at least " \
                                                          "--steps + 2 values" in out, out


def test_inputs_along_an_axis_are_checked(compile_example, run_program, tmp_path):
    """An input along an axis from a file: one value per index of its axis, never an output."""
    exe = compile_example("sponge2d")
    ex = ref.EXAMPLES["sponge2d"]
    size = (30, 20)
    dy = np.linspace(0, 0.2, 20)
    np.save(tmp_path / "dy.npy", dy)
    base = ["--size", "30,20", "--steps", "12", "--quiet", "--init", f"dy={tmp_path / 'dy.npy'}"]
    outs = {}
    for how, args in RUNS[:3]:
        rc, _, err = run_program(exe, [*base, "--dir", str(tmp_path), *args, "--out", f"u={tmp_path / how}.npy",
                                       "--report", str(tmp_path / f"{how}.json")])
        assert rc == 0, f"{how}: {err}"
        outs[how] = np.load(tmp_path / f"{how}.npy")
        r = load_report(tmp_path / f"{how}.json")
        assert r["bytes_read"] == r["predicted_bytes_read"] >= dy.nbytes, how
        np.testing.assert_array_equal(outs[how], outs["incore"], err_msg=how)
    want = ex.run(ex.initial(size, None, {"dy": dy}), None, 12)["u"]
    np.testing.assert_allclose(outs["incore"], want, rtol=0, atol=1e-13)
    np.save(tmp_path / "short.npy", np.zeros(19))
    rc, _, err = run_program(exe, [*base[:-2], "--init", f"dy={tmp_path / 'short.npy'}", "--mode", "incore"])
    assert rc == 1 and "has shape (19,), but this grid needs (20,)" in err and "an input along y: one value per " \
                                                                               "index of y" in err, err
    rc, _, err = run_program(exe, [*base, "--out", f"dx={tmp_path / 'x.npy'}"])
    assert rc == 2 and "'dx' is an input along x, given to the run (--init dx=FILE)" in err, err
