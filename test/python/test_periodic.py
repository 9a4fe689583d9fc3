"""Periodic boundaries out of core, beyond examples/d2q9: a 3d stencil whose fields wrap around
different axes (one neumann field periodic in z and x, a two-level field periodic in y, a
dirichlet field and an input that do not wrap), reaches of 2 across the wrap.  Out of core,
with several blocks and schedules, it is bit-identical to in-core and moves the bytes it
predicts; along z (the axis whole planes stream along) such a stencil wraps one step a sweep,
and the blocks that cannot wrap are refused with the reason.  When only x and y wrap, any bt and
every schedule run.  A torus (every field wraps z, nothing read at its coordinates) wraps sweeps
of several steps: the wedge, whose last block computes the slices the first one left.
"""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest
from conftest import stencilc_command

TORUS = """
stencil {name} {{
  grid 3d f64;
  param a = 0.05;
  state u;
  state v levels 2;
  state w;
  input k;
  boundary u neumann;
  boundary u periodic {uaxes};
  boundary v periodic {vaxes};
  boundary w dirichlet;
  u' = u + a * k * (u[-1,0,0] + u[1,0,0] + u[0,-2,0] + u[0,1,0] + u[0,0,-1] + u[0,0,2] - 6*u) + 0.01 * v;
  v' = 2*v - v.prev + a * (v[0,-1,0] + v[0,1,0] + v[0,0,-1] + v[0,0,1] + v[1,0,0] + v[-1,0,0] - 6*v)
       + 0.001 * u[0,0,1];
  w' = w + a * (w[0,0,-1] + w[0,0,1] - 2*w) + 0.01 * u;
  init v = sin(x + 2*y + 3*z);
}}
"""
SIZE = (23, 19, 31)
STEPS = 9
OUTS = ("u", "v", "v.prev", "w")


@pytest.fixture(scope="module")
def torus(tmp_path_factory):
    """name -> (program, directory with its --init files)."""
    cmd, env = stencilc_command()
    d = tmp_path_factory.mktemp("torus")
    rng = np.random.default_rng(2)
    shape = SIZE[::-1]
    for f in ("u", "k", "w"):
        np.save(d / f"{f}.npy", rng.random(shape) + (1 if f == "k" else 0))
    out = {}
    for name, axes, vaxes in (("torusz", "z x", "y"), ("torusx", "x", "y"), ("torusxx", "x", "x")):
        (d / f"{name}.stn").write_text(TORUS.format(name=name, uaxes=axes, vaxes=vaxes))
        r = subprocess.run(cmd + [str(d / f"{name}.stn"), "-o", str(d / name)], capture_output=True, text=True,
                           env=env)
        assert r.returncode == 0, r.stderr
        out[name] = d / name
    return out, d


def run(exe, d, work, *extra):
    work.mkdir(exist_ok=True)
    args = [str(exe), "--size", ",".join(map(str, SIZE)), "--steps", str(STEPS), "--quiet",
            "--report", str(work / "r.json"), "--dir", str(work)]
    args += [a for f in ("u", "k", "w") for a in ("--init", f"{f}={d / (f + '.npy')}")]
    args += [a for f in OUTS for a in ("--out", f"{f}={work / (f + '.npy')}")]
    r = subprocess.run(args + list(extra), capture_output=True, text=True)
    return r, work


def results(work):
    return {f: np.load(work / f"{f}.npy") for f in OUTS}


@pytest.mark.parametrize("name,block,schedule", [
    ("torusz", "19,4,1", "ref"), ("torusz", "19,7,1", "alg1"), ("torusz", "19,40,1", "ref"),
    ("torusx", "19,4,3", "ref"), ("torusx", "19,5,4", "alg1"), ("torusx", "19,7,9", "alg2"),
    ("torusx", "7,5,2", "ref"),
])
def test_out_of_core_wraps_bit_identically(torus, tmp_path, name, block, schedule):
    progs, d = torus
    r, a = run(progs[name], d, tmp_path / "incore", "--mode", "incore")
    assert r.returncode == 0, r.stderr
    want = results(a)
    # the wrap is real: u's boundary planes in z (or x) hold the interior's far side
    u = want["u"]
    assert np.array_equal(u[:, :, 0], u[:, :, SIZE[0] - 2]) and np.array_equal(u[:, :, -1], u[:, :, 1])
    if name == "torusz":
        assert np.array_equal(u[:1], u[SIZE[2] - 3:SIZE[2] - 2]) and np.array_equal(u[-2:], u[1:3])
    if block.startswith("7,"):  # y-blocked tiles: v wraps y, so they are refused
        r, _ = run(progs[name], d, tmp_path / "ooc", "--mode", "ooc", "--block", block)
        assert r.returncode == 1 and "periodic along y, which y-blocked tiles cannot wrap around" in r.stderr
        return
    r, b = run(progs[name], d, tmp_path / "ooc", "--mode", "ooc", "--block", block, "--schedule", schedule)
    assert r.returncode == 0, r.stderr
    got = results(b)
    for f in OUTS:
        assert np.array_equal(got[f], want[f]), f"{name} --block {block} --schedule {schedule}: {f} differs"
    rep = json.loads((b / "r.json").read_text())
    assert rep["bytes_read"] == rep["predicted_bytes_read"] and rep["bytes_written"] == rep["predicted_bytes_written"]


def test_blocks_that_cannot_wrap_are_refused_and_the_tuner_avoids_them(torus, tmp_path):
    progs, d = torus
    r, _ = run(progs["torusz"], d, tmp_path / "a", "--block", "19,4,2")
    assert r.returncode == 1 and ("--block 19,4,2: this stencil is periodic along z, the axis the blocks stream "
                                  "along, and not every field wraps it") in r.stderr, r.stderr
    r, _ = run(progs["torusz"], d, tmp_path / "b", "--schedule", "alg2")
    assert r.returncode == 2 and "--schedule alg2: this stencil is periodic along z" in r.stderr
    r, w = run(progs["torusz"], d, tmp_path / "c", "--mem", "2M")  # the tuner: whole planes, bt = 1
    assert r.returncode == 0, r.stderr
    rep = json.loads((w / "r.json").read_text())
    assert rep["mode"] == "ooc" and rep["params"]["by"] == SIZE[1] and rep["params"]["bt"] == 1, rep["params"]
    r, w = run(progs["torusx"], d, tmp_path / "d", "--mem", "2M")  # x and y wrap in the plane: any bt
    assert r.returncode == 0, r.stderr
    rep = json.loads((w / "r.json").read_text())
    assert rep["params"]["by"] == SIZE[1] and rep["params"]["bt"] > 1, rep["params"]


TORUS_WEDGE = """
stencil tw {
  grid 3d f64;
  param a = 0.05;
  state u;
  state v levels 2;
  state w;
  boundary u neumann;
  boundary u periodic z x;
  boundary v periodic;
  boundary w neumann;
  boundary w periodic z;
  let g = u[0,0,-1] - u;
  u' = u + a * (u[-1,0,0] + u[1,0,0] + u[0,-2,0] + u[0,1,0] + u[0,0,-1] + u[0,0,2] - 6*u) + 0.01 * v;
  v' = 2*v - v.prev + a * (v[0,-1,0] + v[0,1,0] + v[0,0,-1] + v[0,0,1] + v[1,0,0] + v[-1,0,0] - 6*v)
       + 0.001 * u[0,0,1];
  w' = w + a * (w[0,0,-2] + w[0,0,1] - 2*w) + 0.01 * (g[0,0,1] - g);
  init v = sin(x + 2*y + 3*z);
  init w = cos(0.3 * z) + 0.1 * y;
}
"""


@pytest.fixture(scope="module")
def wedge(tmp_path_factory):
    cmd, env = stencilc_command()
    d = tmp_path_factory.mktemp("wedge")
    (d / "tw.stn").write_text(TORUS_WEDGE)
    r = subprocess.run(cmd + [str(d / "tw.stn"), "-o", str(d / "tw")], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    np.save(d / "u.npy", np.random.default_rng(5).random(SIZE[::-1]))
    return d / "tw", d


def run_tw(exe, d, work, steps, *extra):
    work.mkdir(exist_ok=True)
    args = [str(exe), "--size", ",".join(map(str, SIZE)), "--steps", str(steps), "--quiet", "--report",
            str(work / "r.json"), "--dir", str(work), "--init", f"u={d / 'u.npy'}"]
    args += [a for f in OUTS for a in ("--out", f"{f}={work / (f + '.npy')}")]
    return subprocess.run(args + list(extra), capture_output=True, text=True)


@pytest.mark.parametrize("block,tiles", [("19,4,2", "off"), ("19,7,3", "5,2,2"), ("19,40,5", "19,3,4"),
                                         ("19,3,4", "off"), ("19,1,3", "4,1,2"), ("19,9,11", "7,6,5"),
                                         ("19,12,6", "19,2,6")])
def test_the_wedge_wraps_sweeps_of_several_steps(wedge, tmp_path, block, tiles):
    """Blocks wider and thinner than the skew, one block, bt not dividing the steps, cache tiles
    inside the blocks: bit-identical to in-core, and the bytes are the model's (each level read
    whole, its interior written)."""
    exe, d = wedge
    r = run_tw(exe, d, tmp_path / "in", 11, "--mode", "incore")
    assert r.returncode == 0, r.stderr
    r = run_tw(exe, d, tmp_path / "ooc", 11, "--mode", "ooc", "--block", block, "--time-tiles", tiles)
    assert r.returncode == 0, r.stderr
    for f in OUTS:
        assert np.array_equal(np.load(tmp_path / "ooc" / f"{f}.npy"), np.load(tmp_path / "in" / f"{f}.npy")), f
    rep = json.loads((tmp_path / "ooc" / "r.json").read_text())
    assert rep["params"]["bt"] == int(block.split(",")[2])
    assert rep["bytes_read"] == rep["predicted_bytes_read"] and rep["bytes_written"] == rep["predicted_bytes_written"]


def test_the_wedge_is_chosen_and_bounded(wedge, tmp_path):
    exe, d = wedge
    r = run_tw(exe, d, tmp_path / "a", 40, "--mem", "3M")  # the tuner: several steps a sweep
    assert r.returncode == 0, r.stderr
    rep = json.loads((tmp_path / "a" / "r.json").read_text())
    assert rep["params"]["bt"] > 1 and rep["time_tiles"]["source"].startswith("auto"), rep
    r = run_tw(exe, d, tmp_path / "b", 40, "--mode", "incore")
    assert np.array_equal(np.load(tmp_path / "a" / "u.npy"), np.load(tmp_path / "b" / "u.npy"))
    r = run_tw(exe, d, tmp_path / "c", 40, "--block", "19,4,14")  # z's interior: 31 - 2 - 2 = 27 < 14 * 2 + 2
    assert r.returncode == 1 and ("--block 19,4,14: this stencil is periodic along z, whose interior of 27 is too "
                                  "short for sweeps of 14 steps") in r.stderr, r.stderr
    r = run_tw(exe, d, tmp_path / "e", 40, "--block", "19,4,3", "--schedule", "alg1")
    assert r.returncode == 1 and "only the ref schedule carries the wrap-around slices with a sweep" in r.stderr


RING = """
stencil ring2d {
  grid 2d f64;
  param c = 0.3;
  state u levels 2;
  input a along x;
  points src;
  points rcv;
  series w;
  u' = 2*u - u.prev + c * a * (u[-1,0] + u[1,0] + u[0,-1] + u[0,1] - 4*u);
  inject u at src += 0.1 * w[t];
  record p = u' - u at rcv;
  boundary periodic;
  init a = 1 - 0.2 * exp(-(x - nx / 2)^2 / 40);
}
"""


RING_K = """
stencil ringk {
  grid 2d f64;
  param c = 0.3;
  state u levels 2;
  input k;
  input m;
  points src;
  series w;
  u' = 2*u - u.prev + c * k * (u[-1,0] + u[1,0] + u[0,-1] + u[0,1] - 4*u) + 0.01 * (m[1,0] - m[-1,0]);
  inject u at src += 0.1 * w[t];
  boundary periodic;
  init m = sin(0.3 * x) * cos(0.2 * y);
}
"""


@pytest.mark.parametrize("block", ["5,4", "3,7", "40,9", "1,2", "7,16"])
def test_the_wedge_reads_inputs_at_their_cell(tmp_path, block):
    """Inputs read at their own cell along y (k from a file, m from an init, read across x): the
    wedge reads their slices past H from where they wrap to; bit for bit, the bytes the model's,
    the input exported as given. Read across y, an input keeps sweeps to one step."""
    cmd, env = stencilc_command()
    for name, src in (("ringk", RING_K), ("ringky", RING_K.replace("ringk", "ringky").replace("c * k *", "c * k[0,1] *"))):
        (tmp_path / f"{name}.stn").write_text(src)
        r = subprocess.run(cmd + [str(tmp_path / f"{name}.stn"), "-o", str(tmp_path / name)], capture_output=True,
                           text=True, env=env)
        assert r.returncode == 0, r.stderr
    rng = np.random.default_rng(3)
    np.save(tmp_path / "k.npy", 0.5 + 0.5 * rng.random((38, 33)))
    np.save(tmp_path / "w.npy", np.sin(0.4 * np.arange(60)))
    np.save(tmp_path / "src.npy", np.array([[10, 1], [20, 35], [5, 20]], dtype=np.int64))
    common = ["--size", "33,38", "--steps", "40", "--quiet", "--dir", str(tmp_path),
              *[a for f in ("w", "src", "k") for a in ("--init", f"{f}={tmp_path / (f + '.npy')}")]]
    for how, extra in (("in", ["--mode", "incore"]), ("ooc", ["--mode", "ooc", "--block", block])):
        r = subprocess.run([str(tmp_path / "ringk"), *common, *extra, "--out", f"u={tmp_path / (how + 'u.npy')}",
                            "--out", f"k={tmp_path / (how + 'k.npy')}", "--report", str(tmp_path / "r.json")],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    assert np.array_equal(np.load(tmp_path / "inu.npy"), np.load(tmp_path / "oocu.npy"))
    assert np.array_equal(np.load(tmp_path / "oock.npy"), np.load(tmp_path / "k.npy"))
    rep = json.loads((tmp_path / "r.json").read_text())
    assert rep["params"]["bt"] == int(block.split(",")[1]) > 1
    assert rep["bytes_read"] == rep["predicted_bytes_read"] and rep["bytes_written"] == rep["predicted_bytes_written"]
    r = subprocess.run([str(tmp_path / "ringky"), *common, "--block", block], capture_output=True, text=True)
    assert r.returncode == 1 and "(or an input is read at an offset along it)" in r.stderr, r.stderr


@pytest.mark.parametrize("block", ["5,4", "3,7", "40,9", "1,2", "7,16"])
def test_the_wedge_moves_sources_and_receivers(tmp_path, block):
    """A wave on a torus with an input along x, a source series and receivers, some in the rows
    the last block computes past H: the wedge injects and samples them there, bit for bit."""
    cmd, env = stencilc_command()
    (tmp_path / "ring2d.stn").write_text(RING)
    r = subprocess.run(cmd + [str(tmp_path / "ring2d.stn"), "-o", str(tmp_path / "ring2d")], capture_output=True,
                       text=True, env=env)
    assert r.returncode == 0, r.stderr
    np.save(tmp_path / "w.npy", np.sin(0.4 * np.arange(60)))
    np.save(tmp_path / "src.npy", np.array([[10, 1], [20, 35], [5, 20], [30, 2]], dtype=np.int64))
    np.save(tmp_path / "rcv.npy", np.array([[3, 1], [12, 36], [25, 18], [7, 2], [7, 3]], dtype=np.int64))
    common = [str(tmp_path / "ring2d"), "--size", "33,38", "--steps", "40", "--quiet", "--dir", str(tmp_path),
              *[a for f in ("w", "src", "rcv") for a in ("--init", f"{f}={tmp_path / (f + '.npy')}")]]
    out = {}
    for how, extra in (("in", ["--mode", "incore"]), ("ooc", ["--mode", "ooc", "--block", block])):
        r = subprocess.run(common + extra + ["--out", f"u={tmp_path / (how + 'u.npy')}", "--out",
                                             f"p={tmp_path / (how + 'p.npy')}", "--report", str(tmp_path / "r.json")],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        out[how] = (np.load(tmp_path / f"{how}u.npy"), np.load(tmp_path / f"{how}p.npy"))
    assert np.array_equal(out["in"][0], out["ooc"][0]) and np.array_equal(out["in"][1], out["ooc"][1])
    rep = json.loads((tmp_path / "r.json").read_text())
    assert rep["params"]["bt"] == int(block.split(",")[1]) > 1
    assert rep["bytes_read"] == rep["predicted_bytes_read"] and rep["bytes_written"] == rep["predicted_bytes_written"]


@pytest.mark.parametrize("tiles", ["5,4,3", "19,31,9", "3,2,2", "7,5,4"])
def test_incore_time_tiles_wrap_x(torus, tmp_path, tiles):
    """In-core time tiles cut y and z, never x: a stencil periodic along x alone keeps them, bit
    for bit; one periodic along y runs the plain loop and says so."""
    progs, d = torus
    r, a = run(progs["torusxx"], d, tmp_path / "plain", "--mode", "incore", "--time-tiles", "off")
    assert r.returncode == 0, r.stderr
    r, b = run(progs["torusxx"], d, tmp_path / "tiled", "--mode", "incore", "--time-tiles", tiles)
    assert r.returncode == 0, r.stderr
    assert json.loads((b / "r.json").read_text())["time_tiles"]["source"] == "--time-tiles"
    want, got = results(a), results(b)
    for f in OUTS:
        assert np.array_equal(got[f], want[f]), f"--time-tiles {tiles}: {f}"
    r, c = run(progs["torusx"], d, tmp_path / "y", "--mode", "incore", "--time-tiles", tiles)
    rep = json.loads((c / "r.json").read_text())
    assert r.returncode == 0 and any("--time-tiles: 'v' is periodic along y, and time tiles do not wrap around it "
                                     "yet: running the plain loop" in w for w in rep["warnings"]), rep["warnings"]
    assert rep["time_tiles"]["source"].startswith("off: 'v' is periodic along y")


PFDTD = """
stencil pfdtd {{
  grid 2d f64;
  state ex;
  state ey;
  state hz;
  ey' = ey - 0.5 * (hz - hz[0,-1]);
  ex' = ex - 0.5 * (hz - hz[-1,0]);
  hz' = hz - 0.7 * (ex'[1,0] - ex' + ey'[0,1] - ey');
  boundary periodic {axes};
  init ex = sin(0.3 * x) * cos(0.2 * y);
  init ey = cos(0.17 * x + 0.1 * y);
  init hz = sin(0.05 * x * y + 0.4);
}}
"""


def _pfdtd_numpy(nx, ny, steps, wrap_y):
    """FDTD periodic in x (interior [1, nx-1), the boundary columns wrap), in y too or dirichlet
    there: ex and ey first, then hz from their new values, which wrap too (docs/language.md)."""
    y, x = np.mgrid[0:ny, 0:nx].astype(np.float64)
    ex, ey, hz = np.sin(0.3 * x) * np.cos(0.2 * y), np.cos(0.17 * x + 0.1 * y), np.sin(0.05 * x * y + 0.4)

    def wrap(a):
        a[:, 0], a[:, -1] = a[:, -2], a[:, 1]
        if wrap_y:
            a[0, :], a[-1, :] = a[-2, :], a[1, :]
        return a

    for a in (ex, ey, hz):
        wrap(a)
    i = (slice(1, -1), slice(1, -1))
    for _ in range(steps):
        ey_n, ex_n, hz_n = ey.copy(), ex.copy(), hz.copy()
        ey_n[i] = ey[i] - 0.5 * (hz[i] - hz[:-2, 1:-1])
        ex_n[i] = ex[i] - 0.5 * (hz[i] - hz[1:-1, :-2])
        wrap(ey_n), wrap(ex_n)
        hz_n[i] = hz[i] - 0.7 * (ex_n[1:-1, 2:] - ex_n[i] + ey_n[2:, 1:-1] - ey_n[i])
        ex, ey, hz = ex_n, ey_n, wrap(hz_n)
    return {"ex": ex, "ey": ey, "hz": hz}


def _run_against(tmp_path, exe, size, steps, how, want, mem="64M"):
    """Run ``exe`` in-core without tiles and as ``how``: every output equals ``want`` to 1e-12 and
    in-core bit for bit; the report of ``how``."""
    got, rep = {}, None
    for tag, args in (("ref", ["--mode", "incore", "--time-tiles", "off"]), ("run", how)):
        d = tmp_path / tag
        d.mkdir()
        outs = [a for f in want for a in ("--out", f"{f}={d / (f + '.npy')}")]
        r = subprocess.run([str(exe), "--size", ",".join(map(str, size)), "--steps", str(steps), "--quiet",
                            "--dir", str(d), "--mem", mem, "--report", str(d / "report.json"), *outs, *args],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        got[tag] = {f: np.load(d / f"{f}.npy") for f in want}
        rep = json.loads((d / "report.json").read_text())
    for f in want:
        np.testing.assert_allclose(got["run"][f], want[f], rtol=0, atol=1e-12, err_msg=f"{f} {how}")
        assert got["run"][f].tobytes() == got["ref"][f].tobytes(), f"{f} {how}: not in-core's bits"
    return rep


def _compile(tmp_path, name, text):
    cmd, env = stencilc_command()
    (tmp_path / f"{name}.stn").write_text(text)
    r = subprocess.run(cmd + [str(tmp_path / f"{name}.stn"), "-o", str(tmp_path / name)], capture_output=True,
                       text=True, env=env)
    assert r.returncode == 0, r.stderr
    return tmp_path / name


@pytest.mark.parametrize("axes", ["x", "x y"])
@pytest.mark.parametrize("how", [["--mode", "incore", "--time-tiles", "off"], ["--mode", "incore"],
                                 ["--mode", "ooc", "--block", "5,3"], ["--mode", "ooc", "--block", "3,1"],
                                 ["--mode", "ooc", "--block", "7,5"]])
def test_a_field_read_with_a_prime_wraps(tmp_path, axes, how):
    """Sub-steps on a channel periodic in x, and on a torus periodic in x and y: hz reads ex' and ey'
    across the wrap, which each tile's scratch computes on whole rows (x) and on the boundary rows
    with the update itself (y; out of core the wedge's last block runs past H); every engine equals
    the NumPy loop (to 1e-12) and in-core bit for bit, moving the bytes it predicts."""
    exe = _compile(tmp_path, "pfdtd", PFDTD.format(axes=axes))
    nx, ny, steps = 29, 23, 11
    rep = _run_against(tmp_path, exe, (nx, ny), steps, how, _pfdtd_numpy(nx, ny, steps, axes == "x y"))
    if how[1] == "ooc":
        assert rep["bytes_read"] == rep["predicted_bytes_read"]
        assert rep["bytes_written"] == rep["predicted_bytes_written"]


ACOUSTIC3D = """
stencil ac3 {{
  grid 3d f64;
  param c = 0.3;
  state vx;
  state vy;
  state vz;
  state p;
  input rho along x;
  vx' = vx - c / rho * (p[1,0,0] - p);
  vy' = vy - c / rho * (p[0,1,0] - p);
  vz' = vz - c / rho * (p[0,0,1] - p);
  p' = p - c * (vx' - vx'[-1,0,0] + vy' - vy'[0,-1,0] + vz' - vz'[0,0,-1]);
  boundary periodic y z;
  boundary {xface} neumann;
  init p = exp(-0.05 * ((x - 7)^2 + (y - 6)^2 + (z - 9)^2));
  init rho = 1 + 0.05 * x;
}}
"""


def _ac3_numpy(size, steps, all_neumann):
    """The staggered acoustic torus in y and z (neumann in x for vx, for the others too or
    dirichlet), in NumPy: the velocities, then p from their new values."""
    nx, ny, nz = size
    z, y, x = np.mgrid[0:nz, 0:ny, 0:nx].astype(np.float64)
    c = 0.3
    rho = 1 + 0.05 * np.arange(nx, dtype=np.float64)
    p = np.exp(-0.05 * ((x - 7) ** 2 + (y - 6) ** 2 + (z - 9) ** 2))
    vx, vy, vz = np.zeros_like(p), np.zeros_like(p), np.zeros_like(p)

    def bc(a, neumann):
        if neumann:
            a[:, :, 0], a[:, :, -1] = a[:, :, 1], a[:, :, -2]
        a[:, 0, :], a[:, -1, :] = a[:, -2, :], a[:, 1, :]
        a[0, :, :], a[-1, :, :] = a[-2, :, :], a[1, :, :]
        return a

    for a, nm in ((vx, True), (vy, all_neumann), (vz, all_neumann), (p, all_neumann)):
        bc(a, nm)
    i = (slice(1, -1),) * 3
    r = rho[1:-1]
    for _ in range(steps):
        vx_n, vy_n, vz_n, p_n = vx.copy(), vy.copy(), vz.copy(), p.copy()
        vx_n[i] = vx[i] - c / r * (p[1:-1, 1:-1, 2:] - p[i])
        vy_n[i] = vy[i] - c / r * (p[1:-1, 2:, 1:-1] - p[i])
        vz_n[i] = vz[i] - c / r * (p[2:, 1:-1, 1:-1] - p[i])
        bc(vx_n, True), bc(vy_n, all_neumann), bc(vz_n, all_neumann)
        p_n[i] = p[i] - c * (vx_n[i] - vx_n[1:-1, 1:-1, :-2] + vy_n[i] - vy_n[1:-1, :-2, 1:-1]
                             + vz_n[i] - vz_n[:-2, 1:-1, 1:-1])
        vx, vy, vz, p = vx_n, vy_n, vz_n, bc(p_n, all_neumann)
    return {"vx": vx, "vy": vy, "vz": vz, "p": p}


@pytest.mark.parametrize("xface,how", [
    ("", ["--mode", "incore", "--time-tiles", "off"]), ("", ["--mode", "incore"]),
    ("", ["--mode", "ooc", "--block", "13,6,3"]), ("", ["--mode", "ooc", "--block", "13,4,1"]), ("", ["--mode", "ooc"]),
    ("vx", ["--mode", "incore"]), ("vx", ["--mode", "ooc", "--block", "13,4,1"]), ("vx", ["--mode", "ooc"])])
def test_sub_steps_on_a_torus_in_y_and_z(tmp_path, xface, how):
    """A 3d staggered acoustic model periodic in y and z (z: the axis whole planes stream along),
    neumann in x (every field: the wedge; vx only: one step a sweep), a coefficient along x: p reads
    the new velocities across both wraps."""
    exe = _compile(tmp_path, "ac3", ACOUSTIC3D.format(xface=xface))
    size, steps = (17, 13, 19), 7
    rep = _run_against(tmp_path, exe, size, steps, how, _ac3_numpy(size, steps, xface == ""),
                       mem="3M" if how == ["--mode", "ooc"] else "64M")
    if how[1] == "ooc":
        assert rep["bytes_read"] == rep["predicted_bytes_read"]
        assert rep["bytes_written"] == rep["predicted_bytes_written"]
        if how[-1] == "ooc":  # the tuner's own plan: several blocks, and the wedge's bt where it applies
            prm = rep["params"]
            assert prm["bz"] < size[2] and (prm["bt"] > 1) == (xface == ""), prm


LEAP = """
stencil leap {
  grid 2d f64;
  state v levels 2;
  v' = 2 * v - v.prev + 0.1 * (v[-1,0] + v[1,0] + v[0,-1] + v[0,1] - 4 * v);
  boundary v periodic x;
  init v = sin(0.3 * x + 0.2 * y);
  init v.prev = cos(0.1 * x * y);
}
"""


@pytest.mark.parametrize("block", ["3,2", "4,4", "2,5"])
def test_a_periodic_field_keeps_the_dirichlet_faces_of_its_levels(tmp_path, block):
    """A two-level field periodic in x, dirichlet in y, whose initial previous level has boundary
    values of its own: at step 2 the array that held that level gets level 0's faces (found by
    the random stencils: out of core, sweeps of several steps kept the previous level's)."""
    exe = _compile(tmp_path, "leap", LEAP)
    (tmp_path / "ref").mkdir()
    (tmp_path / "ooc").mkdir()
    for tag, args in (("ref", ["--mode", "incore", "--time-tiles", "off"]), ("ooc", ["--mode", "ooc", "--block", block])):
        r = subprocess.run([str(exe), "--size", "13,17", "--steps", "6", "--quiet", "--dir", str(tmp_path / tag),
                            "--out", f"v={tmp_path / tag / 'v.npy'}", "--out", f"v.prev={tmp_path / tag / 'p.npy'}",
                            *args], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    for f in ("v", "p"):
        assert (tmp_path / "ref" / f"{f}.npy").read_bytes() == (tmp_path / "ooc" / f"{f}.npy").read_bytes(), f
