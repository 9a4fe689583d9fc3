"""The embedding API's edges (issue 28): step counts that do not fit, arguments of the wrong type or
range, arrays with any strides, restarts from a checkpoint, and an open without a step count out of
core.  Each is checked through the Python API (``stencilc.compile``/``open``) and, where it reaches the
runtime, through the generated C API (test/embed/host.c, built by test_embed.py's ``hosts``).

Expects: a C compiler, libaio, hwloc (as the other embedding tests).  Guarantees: every failure of the
Python API is a ``stencilc.Error`` (``CompileError`` among them) with a message naming the argument, and
nothing is silently truncated, wrapped or converted."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import REPO_ROOT
from test_embed import cli_run, host_run, hosts, raw  # noqa: F401 - hosts is a fixture

SIZE = (18, 16, 14)


@pytest.fixture(scope="module")
def heat():
    import stencilc

    return stencilc.compile(REPO_ROOT / "examples" / "heat3d.stn")


@pytest.fixture(scope="module")
def wave():
    import stencilc

    return stencilc.compile(REPO_ROOT / "examples" / "wave3d.stn")


@pytest.fixture(scope="module")
def fdtd():
    import stencilc

    return stencilc.compile(REPO_ROOT / "examples" / "fdtd2d.stn")


def _open_modes(tmp_path: Path) -> list[dict]:
    """In-core, and out of core in several blocks (sweeps of 3 steps)."""
    return [{"mode": "incore"}, {"mem": "64M", "dir": tmp_path, "options": ["--block", "16,4,3"]}]


# ------------------------------------------------------------------ 7: step counts


@pytest.mark.parametrize("steps, message", [
    (2**64 + 1, "advance 18446744073709551617: a step count from 0 to 2^63 - 1"),
    (2**63, "advance 9223372036854775808: a step count from 0 to 2^63 - 1"),
    (-(2**63) - 1, "advance -9223372036854775809: a step count from 0 to 2^63 - 1"),
    (2**63 - 1, "a simulation runs at most 1000000000000000 steps in all"),
    (10**15 + 1, "a simulation runs at most 1000000000000000 steps in all"),
    (-1, "advance -1: a step count from 0 to 2^63 - 1"),
])
def test_python_step_counts_that_do_not_fit_are_refused(heat, steps, message):
    """Checked in Python's wide integers before ctypes converts them (2^64 + 1 ran one step, 2^63 said
    "-9223372036854775808 steps"), then in the runtime without overflow (2^63 - 1 ran for ever)."""
    import stencilc

    with heat.open(size=SIZE, mode="incore") as sim:
        sim.advance(2)
        t0 = time.monotonic()
        with pytest.raises(stencilc.Error, match=message.replace("^", r"\^").replace("(", r"\(")):
            sim.advance(steps)
        assert time.monotonic() - t0 < 10
        assert sim.steps_done == 2
        sim.advance(1)  # a refusal leaves the simulation usable
        assert sim.steps_done == 3


def test_python_series_refuses_an_advance_that_overflows_past_the_opened_steps(fdtd, tmp_path):
    """advance(5) then advance(2^63 - 5) passed `done + steps > opened` by signed overflow."""
    import stencilc

    np.save(tmp_path / "fict.npy", np.arange(12.0))
    with fdtd.open(size=(12, 10), steps=10, mode="incore", init={"fict": tmp_path / "fict.npy"}) as sim:
        sim.advance(5)
        with pytest.raises(stencilc.Error, match="past the 10 steps the simulation was opened for"):
            sim.advance(2**63 - 5)
        with pytest.raises(stencilc.Error, match="past the 10 steps"):
            sim.advance(6)
        sim.advance(5)
        assert sim.steps_done == 10


def test_c_step_counts_that_do_not_fit_are_refused(hosts, tmp_path):  # noqa: F811 - the fixture imported above
    """The generated C API (int64_t steps): 2^63 - 1 after 2 steps is refused at once, as is the sum that
    overflows; with a series, 5 then 2^63 - 5 is past the 10 steps opened for."""
    host, _ = hosts("heat3d")
    p = host_run(host, ["size=18,16,14", "mode=incore"],
                 ["advance", "2", "expect-fail", "advance", str(2**63 - 1), "steps-done", "2",
                  "expect-fail", "advance", str(10**15 - 1), "advance", "1", "steps-done", "3"])
    assert p.stdout.count("a simulation runs at most 1000000000000000 steps in all") == 2, p.stdout
    host, _ = hosts("fdtd2d")
    np.save(tmp_path / "fict.npy", np.arange(12.0))
    p = host_run(host, ["size=12,10", "steps=10", "mode=incore", "--init", f"fict={tmp_path / 'fict.npy'}"],
                 ["advance", "5", "expect-fail", "advance", str(2**63 - 5), "advance", "5", "steps-done", "10"])
    assert "past the 10 steps the simulation was opened for" in p.stdout, p.stdout
    host, _ = hosts("heat3d")  # a negative count in the typed config is not an open horizon
    p = host_run(host, ["size=18,16,14", "steps=-5", "mode=incore"], [], ok=False)
    assert p.returncode == 1 and "heat3d_open: steps -5: the steps it is opened for, or -1" in p.stderr, p.stderr


# ------------------------------------------------------------------ 9: every failure is a stencilc.Error


def _bad_calls(tmp_path: Path):
    """(what, call(prog, sim), the message's pattern): each must raise stencilc.Error and nothing else."""
    return [
        ("complex array", lambda p, s: s.write("u", np.zeros(SIZE[::-1], complex)), "complex"),
        ("string array", lambda p, s: s.write("u", np.full(SIZE[::-1], "x")), "an array of str"),
        ("object array", lambda p, s: s.write("u", np.array([[None] * 18] * 16), z=0), "an array of object"),
        ("bool array", lambda p, s: s.write("u", np.zeros(SIZE[::-1], bool)), "an array of bool"),
        ("ragged list", lambda p, s: s.write("u", [[1.0, 2.0], [3.0]], z=0), "not an array of numbers"),
        ("param str", lambda p, s: p.open(size=SIZE, params={"alpha": "x"}, mode="incore"), "params alpha='x': a real number"),
        ("param bool", lambda p, s: p.open(size=SIZE, params={"alpha": True}, mode="incore"), "params alpha=True: a real number"),
        ("param complex", lambda p, s: p.open(size=SIZE, params={"alpha": 1j}, mode="incore"), "a real number"),
        ("param nan", lambda p, s: p.open(size=SIZE, mode="incore", params={"alpha": float("nan")}), "finite"),
        ("size float", lambda p, s: p.open(size=(16.7, 18, 20), mode="incore"), r"size \(16.7, 18, 20\): an integer"),
        ("size bool", lambda p, s: p.open(size=(True, 18, 20), mode="incore"), "size .*an integer"),
        ("size str", lambda p, s: p.open(size="18,16,14", mode="incore"), "size '18,16,14'"),
        ("size negative", lambda p, s: p.open(size=(-18, 16, 14), mode="incore"), "--size"),
        ("steps float", lambda p, s: p.open(size=SIZE, steps=2.5, mode="incore"), "steps 2.5: an integer"),
        ("steps negative", lambda p, s: p.open(size=SIZE, steps=-3, mode="incore"), "steps -3: a step count"),
        ("steps huge", lambda p, s: p.open(size=SIZE, steps=2**70, mode="incore"), "steps 1180591620717411303424"),
        ("threads float", lambda p, s: p.open(size=SIZE, threads=1.5, mode="incore"), "threads 1.5: an integer"),
        ("threads negative", lambda p, s: p.open(size=SIZE, threads=-2, mode="incore"), "threads -2"),
        ("mode int", lambda p, s: p.open(size=SIZE, mode=3), "mode 3: a string"),
        ("mode bad", lambda p, s: p.open(size=SIZE, mode="fast"), "--mode"),
        ("quiet str", lambda p, s: p.open(size=SIZE, quiet="no", mode="incore"), "quiet 'no': True or False"),
        ("options str", lambda p, s: p.open(size=SIZE, options="--quiet", mode="incore"), "options: a list"),
        ("options NUL", lambda p, s: p.open(size=SIZE, options=["--dir", "a\0b"], mode="incore"), "NUL"),
        ("dir NUL", lambda p, s: p.open(size=SIZE, dir="a\0b", mode="incore"), "NUL"),
        ("dir surrogate", lambda p, s: p.open(size=SIZE, dir="a\ud800", mode="incore"), "not encodable"),
        ("field surrogate", lambda p, s: s.read("u\ud800"), "not encodable"),
        ("init bad type", lambda p, s: p.open(size=SIZE, init={"u": 3}, mode="incore"), "init u=3: a path"),
        ("init unknown", lambda p, s: p.open(size=SIZE, mode="incore", init={"v": tmp_path / "v.npy"}), "v"),
        ("advance float", lambda p, s: s.advance(2.0), "advance 2.0: an integer expected"),
        ("advance bool", lambda p, s: s.advance(True), "advance True: an integer expected"),
        ("advance str", lambda p, s: s.advance("3"), "advance '3': an integer expected"),
        ("box float", lambda p, s: s.read("u", z=1.5), "z=1.5"),
        ("box bool", lambda p, s: s.read("u", z=True), "z=True"),
        ("box str slice", lambda p, s: s.read("u", z=slice("a", 3)), "z=slice"),
        ("box step", lambda p, s: s.read("u", z=slice(0, 8, 2)), "only slices of step 1"),
        ("box outside", lambda p, s: s.read("u", z=14), r"z range \[14, 15\) is not within the grid's \[0, 14\)"),
        ("box below", lambda p, s: s.read("u", x=-19), r"x range \[-1, 0\)"),
        ("box axis", lambda p, s: s.read("u", w=1), "no axis w"),
        ("field int", lambda p, s: s.read(3), "field 3: a name"),
        ("field NUL", lambda p, s: s.read("u\0v"), "NUL"),
        ("field unknown", lambda p, s: s.read("v"), r"has no field 'v' \(its fields: u\)"),
        ("field prev", lambda p, s: s.read("u.prev"), "one level"),
        ("shape", lambda p, s: s.write("u", np.zeros((3, 3)), z=0), r"an array of shape \(3, 3\)"),
        ("checkpoint file", lambda p, s: s.checkpoint(REPO_ROOT / "README.md"), "checkpoint"),
        ("checkpoint type", lambda p, s: s.checkpoint(5), "checkpoint 5: a path"),
        ("compile missing", lambda p, s: __import__("stencilc").compile(tmp_path / "missing.stn"), "no such file"),
        ("compile type", lambda p, s: __import__("stencilc").compile(5), "compile 5: a path"),
        ("compile cc", lambda p, s: __import__("stencilc").compile(REPO_ROOT / "examples" / "heat3d.stn",
                                                                   cc="no-such-cc"), "no-such-cc"),
        ("restart missing", lambda p, s: p.open(restart=tmp_path / "none"), "heat3d.checkpoint.json"),
        ("no size", lambda p, s: p.open(), "size"),
    ]


def test_python_errors_are_all_stencilc_errors(heat, tmp_path, monkeypatch):
    """docs/embedding.md: every failure raises stencilc.Error.  A complex array lost its imaginary part, a
    string array or a param 'x' raised ValueError, compile('missing.stn') raised a CompileError that
    `except stencilc.Error` missed, size 16.7 became 16; and the rest of the API's surface alike."""
    import stencilc

    monkeypatch.chdir(tmp_path)  # (a call accepted by mistake opens nothing elsewhere)
    assert issubclass(stencilc.CompileError, stencilc.Error)
    failures = []
    with heat.open(size=SIZE, mode="incore") as sim:
        for what, call, pattern in _bad_calls(tmp_path):
            try:
                got = call(heat, sim)
            except stencilc.Error as e:
                if not re.search(pattern, str(e)):
                    failures.append(f"{what}: message {str(e)!r} does not match {pattern!r}")
                continue
            except Exception as e:  # noqa: BLE001 - what the test is looking for
                failures.append(f"{what}: {type(e).__name__}: {e}")
                continue
            if isinstance(got, stencilc.Simulation):
                got.discard()
            failures.append(f"{what}: accepted")
        assert not failures, "\n".join(failures)
        sim.advance(1)  # none of it broke the simulation
        assert sim.steps_done == 1


def test_python_accepts_what_is_exactly_representable(heat, tmp_path):
    """NumPy integers for sizes, steps and boxes; an int param; int and f32 arrays (converted exactly)."""
    with heat.open(size=np.array(SIZE), mode="incore") as sim:
        assert sim.size == SIZE
    with heat.open(size=tuple(np.int64(n) for n in SIZE), steps=np.int32(3), mode="incore",
                   params={"alpha": 0}, threads=np.int16(1)) as sim:
        sim.write("u", np.arange(18 * 16, dtype=np.int32).reshape(16, 18), z=np.int64(5))
        assert np.array_equal(sim.read("u", z=np.uint8(5)), np.arange(18 * 16.0).reshape(16, 18))
        sim.advance(np.int64(3))
        assert sim.steps_done == 3


@pytest.mark.parametrize("engine", ["incore", "ooc"])
def test_python_arrays_with_any_strides(heat, tmp_path, engine):
    """Views passed with their strides (reversed, every other element, broadcast, Fortran order, big
    endian converted): the cells written are the view's, and reads into them round-trip."""
    kw = _open_modes(tmp_path)[engine == "ooc"]
    rng = np.random.default_rng(3)
    base = rng.random((14, 16, 36))
    views = {
        "reversed": base[::-1, ::-1, 18:],
        "every other x": base[:, :, ::2],
        "broadcast": np.broadcast_to(rng.random(18), (14, 16, 18)),
        "fortran": np.asfortranarray(base[:, :, :18]),
        "big endian": base[:, :, :18].astype(">f8"),
        "transposed plane": rng.random((18, 16)).T,
    }
    with heat.open(size=SIZE, **kw) as sim:
        for what, v in views.items():
            if v.ndim == 2:
                sim.write("u", v, z=3)
                assert np.array_equal(sim.read("u", z=3), v), what
            else:
                sim.write("u", v)
                assert np.array_equal(sim.read("u"), v), what
        sim.write("u", views["reversed"][2:5], z=slice(4, 7))
        assert np.array_equal(sim.read("u", z=slice(4, 7)), views["reversed"][2:5])


# ------------------------------------------------------------------ 12: restart from a checkpoint


@pytest.mark.parametrize("engine", ["incore", "ooc"])
def test_python_restart_from_a_checkpoint_is_one_run(wave, hosts, tmp_path, engine):  # noqa: F811 - the fixture imported above
    """advance 4, checkpoint, restart, advance 6 = one run of 10 (wave3d: both levels); the manifest's
    `init` (NAME=FILE values that open(options=...) refused) is what restart=DIR uses; a folder name
    with quotes, a backslash and a space round-trips through the manifest's JSON."""
    import stencilc

    size = (16, 14, 12)
    _, cli = hosts("wave3d")
    cli_run(cli, ["--size", "16,14,12", "--steps", "10", "--mode", "incore", "--out", f"u={tmp_path / 'cli.npy'}"])
    want = np.load(tmp_path / "cli.npy")
    kw = _open_modes(tmp_path)[engine == "ooc"]
    ck = tmp_path / 'ck "a\\b" c'
    with wave.open(size=size, steps=10, **kw) as sim:
        sim.advance(4)
        man = sim.checkpoint(ck)
    assert man["steps_done"] == 4 and man["size"] == list(size)
    assert man["init"] == [f"u={ck / 'u.npy'}", f"u.prev={ck / 'u.prev.npy'}"]
    with wave.open(steps=6, restart=ck, **kw) as sim:
        assert sim.size == size
        sim.advance(6)
        assert sim.read("u").tobytes() == want.tobytes()
    with wave.open(size=size, steps=6, restart=ck, **kw) as sim:
        sim.advance(6)
        assert sim.read("u").tobytes() == want.tobytes()
    with pytest.raises(stencilc.Error, match="--init u="):
        wave.open(size=(16, 14, 13), restart=ck, mode="incore")
    (ck / "wave3d.checkpoint.json").unlink()  # a checkpoint cut short: its manifest comes last
    with pytest.raises(stencilc.Error, match="a folder holds a complete checkpoint of wave3d once its manifest"):
        wave.open(restart=ck, mode="incore")


def test_c_restart_from_a_checkpoint(hosts, tmp_path):  # noqa: F811 - the fixture imported above
    """NAME_restart (stn_sim_restart): advance 4, checkpoint, restart with the checkpoint's size, advance
    6 = the 10-step run; a manifest of another stencil and a broken one are refused with the reason."""
    host, cli = hosts("wave3d")
    cli_run(cli, ["--size", "16,14,12", "--steps", "10", "--mode", "incore", "--out", f"u={tmp_path / 'cli.npy'}"])
    host_run(host, ["size=16,14,12", "mode=incore"], ["advance", "4", "checkpoint", tmp_path / "ck"])
    host_run(host, [f"restart={tmp_path / 'ck'}", "steps=6", "mode=incore"],
             ["advance", "6", "read", "u", "0,0,0", "16,14,12", tmp_path / "api.raw"])
    assert raw(tmp_path / "api.raw", (16, 14, 12), "<f8").tobytes() == np.load(tmp_path / "cli.npy").tobytes()
    man = tmp_path / "ck" / "wave3d.checkpoint.json"
    doc = json.loads(man.read_text())
    for broken, message in ((dict(doc, stencil="heat3d"), "is a checkpoint of heat3d, not of wave3d"),
                            ({k: v for k, v in doc.items() if k != "init"}, "\"init\" missing"),
                            (dict(doc, init=["u"]), "not LEVEL=FILE")):
        man.write_text(json.dumps(broken))
        p = host_run(host, [f"restart={tmp_path / 'ck'}", "mode=incore"], [], ok=False)
        assert p.returncode == 1 and message in p.stderr, p.stderr
    man.write_text("{\"stencil\": \"wave3d\", ")
    p = host_run(host, [f"restart={tmp_path / 'ck'}", "mode=incore"], [], ok=False)
    assert p.returncode == 1 and "is not a checkpoint manifest" in p.stderr, p.stderr


# ------------------------------------------------------------------ 15: an open without steps, out of core


def test_open_without_steps_out_of_core_is_prompt(heat, tmp_path):
    """docs/embedding.md's example without steps= sat in Blk-Tune for over ten minutes (64^3, mem 8M: the
    horizon of 2^40 steps); it now plans for a bounded horizon at once, and advances as in-core does."""
    u0 = np.random.default_rng(2).random((64, 64, 64))
    t0 = time.monotonic()
    with heat.open(size=(64, 64, 64), mem="8M", dir=tmp_path) as sim:
        opened = time.monotonic() - t0
        sim.write("u", u0)
        sim.advance(3)
        sim.advance(4)
        got = sim.read("u")
        bt = sim.report()["params"]["bt"]
    assert opened < 60, f"open took {opened:.1f} s"
    assert bt >= 7
    with heat.open(size=(64, 64, 64), mode="incore") as sim:
        sim.write("u", u0)
        sim.advance(7)
        assert sim.read("u").tobytes() == got.tobytes()


# ------------------------------------------------------------------ issue 33: the tier from the API


def test_python_opens_the_pmem_tier_and_gets_the_incore_bits(heat):
    """``open(tier="pmem")`` runs out of core through libpmem (the report says so) and its state after
    the steps is the in-core run's, bit for bit; a tier that does not exist is refused by name."""
    import tempfile

    import stencilc

    u0 = np.random.default_rng(33).random(SIZE[::-1])
    got = {}
    d = tempfile.mkdtemp(dir="/dev/shm" if Path("/dev/shm").is_dir() else None)
    for what, kw in (("incore", {"mode": "incore"}),
                     ("pmem", {"mode": "ooc", "tier": "pmem", "mem": "64M", "dir": d, "options": ["--block", "16,4,3"]})):
        with heat.open(size=SIZE, steps=7, **kw) as sim:
            sim.write("u", u0)
            sim.advance(7)
            got[what] = sim.read("u")
            if what == "pmem":
                rep = sim.report()
                assert rep["tier"]["name"] == "pmem", rep["tier"]
                assert rep["bytes_read"] > 0
    assert np.array_equal(got["incore"], got["pmem"])
    with pytest.raises(stencilc.Error, match="--tier dax: expected one of aio, pmem"):
        heat.open(size=SIZE, steps=1, tier="dax")
    with pytest.raises(stencilc.Error, match="tier"):
        heat.open(size=SIZE, steps=1, tier=3)
