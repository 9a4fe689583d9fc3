"""Shared fixtures for the Python tests.

- ``repo_root``: the repository's top directory.
- ``compile_example(name)``: compiles ``examples/NAME.stn`` once per test session and returns
  the program's path (a failed compilation fails every test that asks for it, with the
  compiler's diagnostic).  Uses ``python -m stencilc`` from ``compiler/``, or the ``stencilc``
  on PATH when the environment has ``STENCILC_INSTALLED=1``.
- ``run_program(exe, args, timeout=...)``: runs a program, returns ``(returncode, stdout, stderr)``.
- ``load_report(path) -> dict`` (a function: ``from conftest import load_report``): reads a run
  report (``--report FILE``) and validates it against ``docs/report.schema.json``; a report that
  does not validate fails the test with the path and the message of every error.  Every test that
  reads a report goes through it; ``validate_report(dict)`` checks one already in memory.
- An autouse fixture validates, after each test that used ``tmp_path``, every run report left
  there (a JSON object with ``runtime_version`` and ``mode``): a safety net for a report a test
  writes and never reads.
- ``force2d_stn(vx_boundary)``: the staggered model whose force sources go into the velocities the
  pressure's update reads primed (test_points.py, test_offgrid.py, test_gpu_engine.py), vx's boundary given.

``STENCILC_CACHE_DIR`` defaults to ``build/stencilc-cache`` (the user's cache is not written) and
``STENCILC_RATE_HISTORY`` to 0 (no run predicts from loops an earlier test left).

``examples/`` is put on ``sys.path`` so tests can ``import reference``, and ``compiler/`` first, so that
``import stencilc`` is this tree's (unless ``STENCILC_INSTALLED=1``).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import numpy as np
import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLES_DIR = REPO_ROOT / "examples"
COMPILE_TIMEOUT_S = 300
RUN_TIMEOUT_S = 120
REPORT_SCHEMA = REPO_ROOT / "docs" / "report.schema.json"

# the suite's cache (compiled runtimes, device curves, earlier loops' rates) is the build tree's, not the user's
# ~/.cache/stencilc; and no run's time model takes the rate of loops an earlier run of the suite left there, unless
# a test asks for it (test_rate_history.py sets STENCILC_RATE_HISTORY itself)
os.environ.setdefault("STENCILC_CACHE_DIR", str(REPO_ROOT / "build" / "stencilc-cache"))
os.environ.setdefault("STENCILC_RATE_HISTORY", "0")

if str(EXAMPLES_DIR) not in sys.path:
    sys.path.insert(0, str(EXAMPLES_DIR))
# the compiler of this tree, not the one installed (editable from another checkout): `import stencilc` in
# a test is the code beside it, as the subprocesses' PYTHONPATH is (stencilc_command)
if os.environ.get("STENCILC_INSTALLED") != "1" and sys.path[:1] != [str(REPO_ROOT / "compiler")]:
    sys.path.insert(0, str(REPO_ROOT / "compiler"))
    for _m in [m for m in sys.modules if m == "stencilc" or m.startswith("stencilc.")]:
        del sys.modules[_m]


def stencilc_command() -> tuple[list[str], dict[str, str]]:
    """The command that runs the compiler, and the environment to run it in."""
    env = dict(os.environ)
    if env.get("STENCILC_INSTALLED") == "1":
        return ["stencilc"], env
    compiler = str(REPO_ROOT / "compiler")
    env["PYTHONPATH"] = compiler + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return [sys.executable, "-m", "stencilc"], env


def _run(cmd: list[str], timeout: float, env: dict[str, str] | None = None,
         cwd: Path | None = None) -> tuple[int, str, str]:
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        pytest.fail(f"timed out after {timeout} s: {' '.join(map(str, cmd))}\n{out}\n{err}")
    return p.returncode, p.stdout, p.stderr


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def run_program():
    """``run_program(exe, args, timeout=RUN_TIMEOUT_S) -> (returncode, stdout, stderr)``."""

    def run(exe: Path | str, args: list[str], timeout: float = RUN_TIMEOUT_S) -> tuple[int, str, str]:
        return _run([str(exe), *map(str, args)], timeout)

    return run


@pytest.fixture(scope="session")
def compile_example(tmp_path_factory):
    """``compile_example(name) -> Path`` of the compiled program, built once per session."""
    outdir = tmp_path_factory.mktemp("examples-bin")
    cache: dict[str, tuple[Path | None, str]] = {}

    def build(name: str) -> Path:
        if name not in cache:
            src = EXAMPLES_DIR / f"{name}.stn"
            exe = outdir / name
            cmd, env = stencilc_command()
            rc, out, err = _run([*cmd, str(src), "-o", str(exe)], COMPILE_TIMEOUT_S, env=env, cwd=REPO_ROOT)
            if rc != 0 or not exe.exists():
                cache[name] = (None, f"stencilc failed on {src.name} (exit {rc}):\n{out}{err}")
            else:
                cache[name] = (exe, "")
        exe, why = cache[name]
        if exe is None:
            pytest.fail(why, pytrace=False)
        return exe

    return build


def build_and_stop(d: Path, name: str, text: str, size: tuple, levels: tuple, steps: int, seed: int,
                   extra: tuple = ()) -> tuple:
    """A stencil of the tests' own (`text`) compiled into `d` (`extra`: stencilc's further options, --mpi), its
    levels given random --init files (a seeded generator), and the --out of in-core runs stopped at each step
    k = 0 .. steps.  -> (program, its --init arguments, stopped[k][field], size, the fields)."""
    (d / f"{name}.stn").write_text(text)
    cmd, env = stencilc_command()
    r = subprocess.run([*cmd, str(d / f"{name}.stn"), *extra, "-o", str(d / name)], capture_output=True, text=True,
                       env=env)
    assert r.returncode == 0, r.stderr
    rng, inits = np.random.default_rng(seed), []
    for lv in levels:
        np.save(d / f"i-{lv}.npy", rng.random(size[::-1]))
        inits += ["--init", f"{lv}={d / f'i-{lv}.npy'}"]
    fields = [lv for lv in levels if "." not in lv]
    stopped = {}
    for k in range(steps + 1):
        outs = [a for f in fields for a in ("--out", f"{f}={d / f'{f}{k}.npy'}")]
        r = subprocess.run([str(d / name), "--size", ",".join(map(str, size)), "--steps", str(k), "--mode", "incore",
                            "--quiet", *inits, *outs], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        stopped[k] = {f: np.load(d / f"{f}{k}.npy") for f in fields}
    return d / name, inits, stopped, size, fields


@pytest.fixture(scope="session")
def compile_mpi(tmp_path_factory):
    """``compile_mpi(name) -> Path`` of the example's ``stencilc --mpi`` build, once per session."""
    outdir, built = tmp_path_factory.mktemp("mpi-bin"), {}

    def build(name: str) -> Path:
        if name not in built:
            cmd, env = stencilc_command()
            rc, out, err = _run([*cmd, str(EXAMPLES_DIR / f"{name}.stn"), "--mpi", "-o", str(outdir / name)],
                                COMPILE_TIMEOUT_S, env=env, cwd=REPO_ROOT)
            assert rc == 0, f"stencilc --mpi failed on {name}.stn (exit {rc}):\n{out}{err}"
            built[name] = outdir / name
        return built[name]

    return build


@pytest.fixture(scope="session")
def two_node_xml(tmp_path_factory) -> Path:
    """An hwloc XML topology of two NUMA nodes of two cores each (HWLOC_XMLFILE), made by Debian's lstopo;
    the tests that take it skip without lstopo."""
    if not shutil.which("lstopo"):
        pytest.skip("lstopo (Debian's hwloc) is not installed")
    p = tmp_path_factory.mktemp("topo") / "two-nodes.xml"
    two_nodes = "pack:2 numa:1(memory=1GB) l3:1(size=4MB) l2:1(size=1MB) core:2 pu:1"
    subprocess.run(["lstopo", "-i", two_nodes, "--of", "xml", str(p)], check=True)
    return p


# ------------------------------------------------------------------ run reports


@functools.cache
def report_validator() -> jsonschema.Draft202012Validator:
    """The validator of docs/report.schema.json (the schema itself checked first)."""
    schema = json.loads(REPORT_SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def report_errors(report: object) -> list[str]:
    """Every way `report` breaks the schema, as ``JSON-PATH: message`` lines (empty: it validates)."""
    errors = sorted(report_validator().iter_errors(report), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    return [f"{e.json_path}: {_message(e)}" for e in errors]


def _message(e: jsonschema.ValidationError) -> str:
    if e.validator == "not" and e.validator_value == {}:  # the schema's $defs/absent
        return "not in a report of this kind (see the conditions of docs/report.schema.json)"
    return e.message


def validate_report(report: object, what: str = "the report") -> dict:
    """Fail the test unless `report` validates against docs/report.schema.json; return it."""
    errors = report_errors(report)
    if errors:
        shown = "\n  ".join(errors[:20]) + (f"\n  ... and {len(errors) - 20} more" if len(errors) > 20 else "")
        pytest.fail(f"{what} does not match docs/report.schema.json:\n  {shown}", pytrace=False)
    assert isinstance(report, dict)
    return report


def load_report(path: Path | str) -> dict:
    """Read the run report at `path` (--report FILE), validate it against the schema, return it."""
    text = Path(path).read_text()
    try:
        report = json.loads(text)
    except ValueError as e:
        pytest.fail(f"the report {path} is not JSON: {e}\n{text[:2000]}", pytrace=False)
    return validate_report(report, f"the report {path}")


def is_run_report(doc: object) -> bool:
    """What the safety net takes for a run report: a JSON object with runtime_version and mode."""
    return isinstance(doc, dict) and "runtime_version" in doc and "mode" in doc


def run_reports_under(root: Path, max_bytes: int = 4 << 20):
    """(path, report) for every run report in the JSON files under `root` (symlinks not followed)."""
    for dirpath, _, files in os.walk(root):
        for name in sorted(files):
            path = Path(dirpath) / name
            if not name.endswith(".json") or path.is_symlink():
                continue
            try:
                if path.stat().st_size > max_bytes:
                    continue
                doc = json.loads(path.read_text())
            except (OSError, ValueError):
                continue
            if is_run_report(doc):
                yield path, doc


@pytest.fixture(autouse=True)
def _validate_reports_left_in_tmp_path(request):
    """After a test that used tmp_path: every run report left there must validate (the net for a
    report a test writes and never reads).  tmp_path is taken at setup, so that this teardown
    runs before tmp_path's own (which may remove the directory)."""
    tmp = request.getfixturevalue("tmp_path") if "tmp_path" in request.fixturenames else None
    yield
    if tmp is None or not tmp.is_dir():
        return
    bad = []
    for path, report in run_reports_under(tmp):
        errors = report_errors(report)
        if errors:
            bad.append(f"{path.relative_to(tmp)}:\n    " + "\n    ".join(errors[:10]))
    if bad:
        pytest.fail("run reports left in tmp_path do not match docs/report.schema.json:\n  " + "\n  ".join(bad),
                    pytrace=False)


def records_across_a_kill(common: list[str], tmp_path: Path, name: str, out: str = "rec") -> tuple[Path, Path, dict]:
    """Runs ``common`` (an out-of-core command without --dir and --out) to its end in tmp_path/a, and again
    in tmp_path/b killed (SIGKILL) once its first sweep is committed (NAME.ooc-state appears), then
    --resume'd. Returns the uninterrupted run's --out file of record ``out``, the resumed run's, and the
    resumed run's report; checks that the killed run left no --out file but its records file."""
    import signal
    import time

    (tmp_path / "a").mkdir()
    subprocess.run(common + ["--dir", str(tmp_path / "a"), "--out", f"{out}={tmp_path / 'a.npy'}"], check=True,
                   timeout=300)
    state = tmp_path / "b" / f"{name}.ooc-state"
    (tmp_path / "b").mkdir()
    for _ in range(5):
        p = subprocess.Popen(common + ["--dir", str(tmp_path / "b"), "--out", f"{out}={tmp_path / 'b.npy'}"])
        t0 = time.monotonic()
        while not state.exists() and p.poll() is None and time.monotonic() - t0 < 60:
            time.sleep(0.002)
        if p.poll() is None:
            os.kill(p.pid, signal.SIGKILL)
            p.wait()
            break
    else:
        pytest.fail("the run always ended before its first sweep committed: make it longer")
    assert not (tmp_path / "b.npy").exists() and (tmp_path / "b" / f"{name}.records").exists()
    r = subprocess.run(common + ["--dir", str(tmp_path / "b"), "--out", f"{out}={tmp_path / 'b.npy'}", "--resume",
                                 "--report", str(tmp_path / "r.json")], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return tmp_path / "a.npy", tmp_path / "b.npy", load_report(tmp_path / "r.json")


FORCE2D = """
stencil force2d {
  grid 2d f64;
  param c = 0.4;
  state vx;
  state vy;
  state p;
  input rho;
  series w;
  points src;
  points rcv;
  vx' = vx - c / rho * (p[1,0] - p);
  vy' = vy - c / rho * (p[0,1] - p);
  p' = p - c * (vx' - vx'[-1,0] + vy' - vy'[0,-1]);
  inject vx at src += 0.5 * w[t] / rho;
  inject vy at src += 0.25 * w[t];
  inject p at src += 0.1 * w[t];
  record r = p' at rcv;
  boundary vx VX_BOUNDARY;
  boundary vy neumann;
}
"""


def force2d_stn(vx_boundary: str) -> str:
    """Force sources into the velocities of a staggered model, which the pressure's update reads primed
    (``inject`` after a sub-step, a ``record`` of the pressure): the .stn text, vx's boundary ``vx_boundary``
    (``"periodic x"``, ``"neumann"``)."""
    return FORCE2D.replace("VX_BOUNDARY", vx_boundary)
