#!/usr/bin/env python3
"""Run every example in a set of configurations with one stencilc tree, and compare two such runs.

A refactoring of the runtime must leave what the programs do unchanged: the same bits, the same
reports, the same messages.  ``run`` records what a tree's programs do; ``diff`` compares two records.

    python tools/compare_reports.py run --tree /work/wt-base --out build/cmp/before
    python tools/compare_reports.py run --tree . --out build/cmp/after
    python tools/compare_reports.py diff build/cmp/before build/cmp/after

``run`` expects: a stencilc checkout at ``--tree`` (its ``compiler/`` is the compiler, its
``examples/*.stn`` the programs, its ``runtime/tests/faultshim.c`` the fault injector), a C compiler,
and for the MPI configurations ``mpicc`` and ``mpirun`` (skipped without them).  ``STENCILC_CACHE_DIR``
is passed on.  It guarantees: under ``--out``, for every example and configuration a directory
``runs/EXAMPLE/CONFIG`` with ``result.json`` (exit status, stdout and stderr of each program run, the
report, the SHA-256 of every ``--out`` file), the run's root path written as ``<OUT>``.  The inputs are
made from each example's reference (``examples/reference.py``) with a fixed seed, so two ``run``s make
the same inputs.

Configurations (each with ``--mem 64M`` unless it names its own budget, so that no figure of the machine's
free memory enters a plan): in-core with the init expressions and with ``--init`` files; ``--mode mmap``;
out of core with blocks of whole planes (several blocks and sweeps), the init expressions, the schedules
alg1 and alg2, y-blocked tiles with the z-strip in DRAM and spilled to a file (3d), the tuner ranking by
bytes under a small budget and its ``--plan-only``; a planned stop (the third state commit's ``rename``
fails, through the fault shim) and its ``--resume``; and for a few examples 2 MPI ranks out of core and
in-core, splitting the streaming axis or (``--ranks``) cutting x.

``diff`` expects two ``--out`` directories; it prints every difference outside the keys that measure time
or the machine's load (``VOLATILE``, and the decimals and peak memory of the program's plan and summary
lines on stderr) and exits 1 when there is one.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

SIZE = {1: (3000,), 2: (64, 56), 3: (24, 20, 28)}
STEPS = 7
MPI_EXAMPLES = ("heat3d", "jacobi2d", "jacobi1d", "d2q9")
TUNED_MEM = "2300K"  # a little above the smallest plan of every example (the IO queue takes 2 MiB)
MPI_FLAGS = ["--oversubscribe", "--bind-to", "none", "--mca", "btl", "self,vader"]
# What measures time, rates, the machine's load or its memory: these keys (at any depth), every number
# that is not an integer (seconds, rates, the time model's predictions: bytes and counts are integers),
# and every string that reports a measurement ("measured at startup: ... 0.102 s").  The DRAM figures of
# "hardware" are the machine's (a VM's memory as hwloc counts it changed between two runs here); no
# plan depends on them, every run giving --mem.
VOLATILE = {"peak_rss_bytes", "peak_pss_bytes", "mem_available_bytes", "paging_bytes_read",
            "paging_bytes_written", "dram_bytes", "dram_hwloc_bytes", "reserve_bytes"}
MEASURED = re.compile(r"measured at startup")
# The program's own lines on stderr that carry times, rates and the peak memory (its plan once chosen,
# its summary at the end): in those lines every decimal number and the peak memory are measurements.
SUMMARY_LINE = re.compile(r"^\S+: (plan|done): .*$", re.M)
DECIMAL = re.compile(r"\d+\.\d+(e[+-]?\d+)?|\d+e[+-]?\d+")
PEAK = re.compile(r"peak memory \S+ \S+")


def mask_summary(text: str) -> str:
    """text with the decimals and the peak memory of its plan and summary lines masked."""
    return SUMMARY_LINE.sub(lambda m: DECIMAL.sub("<n>", PEAK.sub("peak memory <n>", m.group(0))), text)


# ------------------------------------------------------------------ the configurations


def planes(ndim: int, size: tuple[int, ...]) -> str:
    """--block of whole planes, several blocks and sweeps of 2 steps."""
    return f"{size[1]},5,2" if ndim == 3 else "10,2" if ndim == 2 else "600,2"


def configs(ndim: int, size: tuple[int, ...]) -> dict[str, list[str]]:
    """name -> the options of one configuration (``@init``: the --init files; ``@dir``: its --dir)."""
    blk = ["--block", planes(ndim, size)]
    out = {
        "incore-init-expr": ["--mode", "incore"],
        "incore": ["--mode", "incore", "@init"],
        "mmap": ["--mode", "mmap", "@dir", "@init"],
        "ooc-planes": [*blk, "@dir", "@init"],
        "ooc-init-expr": [*blk, "@dir"],
        "ooc-alg1": [*blk, "--schedule", "alg1", "@dir", "@init"],
        "ooc-alg2": [*blk, "--schedule", "alg2", "@dir", "@init"],
        "ooc-tuned": ["--mem", TUNED_MEM, "--rank", "bytes", "@dir", "@init"],
        "ooc-plan-only": ["--mem", TUNED_MEM, "--rank", "bytes", "--plan-only", "@dir", "@init"],
        "ooc-resume": [*blk, "@dir", "@init", "@stop"],
    }
    if ndim == 3:
        out["ooc-yblocked-dram"] = ["--block", "8,5,2", "--strip", "dram", "@dir", "@init"]
        out["ooc-yblocked-file"] = ["--block", "8,5,2", "--strip", "file", "@dir", "@init"]
    return out


def mpi_configs(ndim: int, size: tuple[int, ...]) -> dict[str, list[str]]:
    out = {"mpi2-ooc": ["--block", planes(ndim, size), "@dir", "@init"],
           "mpi2-incore": ["--mode", "incore", "@init"]}
    if ndim > 1:  # the ranks cut x: the exchange across the rows
        cross = ["--ranks", "2,1,1" if ndim == 3 else "2,1"]
        out["mpi2-ooc-cross"] = ["--block", planes(ndim, size), *cross, "@dir", "@init"]
        out["mpi2-incore-cross"] = ["--mode", "incore", *cross, "@init"]
    return out


# ------------------------------------------------------------------ the inputs


def make_inputs(ex, size: tuple[int, ...], where: Path) -> dict[str, Path]:
    """--init files for every field level, series, set of points and input along an axis: the
    reference's initial values, a little perturbed (fixed seed), so that files and expressions differ."""
    rng = np.random.default_rng(29)
    where.mkdir(parents=True, exist_ok=True)
    values = ex.initial(size)
    files = {}
    for key, a in values.items():
        if key in ex.points:
            arr = np.asarray(a, dtype=np.int64)
        elif key in ex.series or key in ex.along:
            arr = np.asarray(a, dtype=ex.dtype)
        else:
            scale = float(np.max(np.abs(a))) or 1.0
            arr = (a + ex.dtype(0.01 * scale) * rng.uniform(-1, 1, a.shape).astype(ex.dtype)).astype(ex.dtype)
        files[key] = where / f"{key}.npy"
        np.save(files[key], arr)
    return files


# ------------------------------------------------------------------ running


class Runner:
    """Builds and runs one tree's programs into ``out``."""

    def __init__(self, tree: Path, out: Path):
        self.tree, self.out = tree.resolve(), out.resolve()
        self.env = dict(os.environ, PYTHONPATH=str(self.tree / "compiler"))
        self.mpirun = shutil.which("mpirun") if shutil.which("mpicc") else None
        self.shim = self.out / "faultshim.so"

    def build(self, name: str, mpi: bool = False) -> Path:
        exe = self.out / "bin" / (name + (".mpi" if mpi else ""))
        exe.parent.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, "-m", "stencilc", str(self.tree / "examples" / f"{name}.stn"), "-o", str(exe)]
        subprocess.run(cmd + (["--mpi"] if mpi else []), env=self.env, check=True, capture_output=True)
        return exe

    def build_shim(self) -> None:
        subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-o", str(self.shim),
                        str(self.tree / "runtime" / "tests" / "faultshim.c"), "-ldl"], check=True)

    def args_of(self, opts: list[str], ex, size, inputs: dict[str, Path], rundir: Path) -> list[str]:
        args = ["--quiet", "--size", ",".join(map(str, size)), "--steps", str(STEPS)]
        if "--mem" not in opts:
            args += ["--mem", "64M"]
        for o in opts:
            if o == "@dir":
                (rundir / "scratch").mkdir(exist_ok=True)
                args += ["--dir", str(rundir / "scratch")]
            elif o == "@init":
                args += [a for key, p in inputs.items() for a in ("--init", f"{key}={p}")]
            elif o != "@stop":
                args.append(o)
        if "@init" not in opts:  # (series and points: no expression gives them)
            args += [a for key, p in inputs.items() if key in ex.series or key in ex.points
                     for a in ("--init", f"{key}={p}")]
        if "--plan-only" not in opts:
            args += [a for f in (*ex.fields, *ex.records) for a in ("--out", f"{f}={rundir / f'out_{f}.npy'}")]
        return args + ["--report", str(rundir / "report.json")]

    def one(self, exe: Path, args: list[str], prefix: list[str], env: dict[str, str] | None = None) -> dict:
        p = subprocess.run([*prefix, str(exe), *args], capture_output=True, text=True, timeout=600, env=env)
        return {"rc": p.returncode, "stdout": p.stdout, "stderr": p.stderr}

    def run_config(self, name: str, cfg: str, opts: list[str], exe: Path, ex, size, inputs, prefix) -> None:
        rundir = self.out / "runs" / name / cfg
        shutil.rmtree(rundir, ignore_errors=True)
        rundir.mkdir(parents=True)
        args = self.args_of(opts, ex, size, inputs, rundir)
        runs = []
        if "@stop" in opts:  # the third state commit fails: two sweeps saved, then --resume
            env = dict(os.environ, LD_PRELOAD=str(self.shim), STN_FAULT="rename:3:EIO")
            runs.append(self.one(exe, args, prefix, env))
            args = args + ["--resume"]
        runs.append(self.one(exe, args, prefix))
        result = {"runs": runs, "outputs": {}, "report": None}
        for f in sorted(rundir.glob("out_*.npy")):
            result["outputs"][f.name] = hashlib.sha256(f.read_bytes()).hexdigest()
        if (rundir / "report.json").exists():
            result["report"] = json.loads((rundir / "report.json").read_text())
        text = json.dumps(result, indent=1, sort_keys=True).replace(str(self.out), "<OUT>")
        text = re.sub(r"(partial|tmp)-[0-9]+", r"\1-PID", text.replace(str(self.tree), "<TREE>"))
        (rundir / "result.json").write_text(text)
        shutil.rmtree(rundir / "scratch", ignore_errors=True)

    def example(self, name: str, ref, mpi: bool, only: list[str] | None) -> None:
        ex = ref.EXAMPLES[name]
        size = SIZE[ex.ndim]
        inputs = make_inputs(ex, size, self.out / "inputs" / name)
        exe = self.build(name)
        for cfg, opts in configs(ex.ndim, size).items():
            if only and cfg not in only:
                continue
            print(f"{name} {cfg}", flush=True)
            self.run_config(name, cfg, opts, exe, ex, size, inputs, [])
        if mpi and self.mpirun and name in MPI_EXAMPLES:
            exe = self.build(name, mpi=True)
            flags = (["--allow-run-as-root"] if os.geteuid() == 0 else []) + MPI_FLAGS
            for cfg, opts in mpi_configs(ex.ndim, size).items():
                if only and cfg not in only:
                    continue
                print(f"{name} {cfg}", flush=True)
                self.run_config(name, cfg, opts, exe, ex, size, inputs, [self.mpirun, *flags, "-np", "2"])


def run(tree: Path, out: Path, names: list[str] | None, mpi: bool, only: list[str] | None = None) -> int:
    sys.path.insert(0, str(tree.resolve() / "examples"))
    import reference as ref

    r = Runner(tree, out)
    r.out.mkdir(parents=True, exist_ok=True)
    r.build_shim()
    for name in names or sorted(ref.EXAMPLES):
        r.example(name, ref, mpi, only)
    return 0


# ------------------------------------------------------------------ comparing


def strip_volatile(x):
    """x without what measures time or the machine's load (VOLATILE, MEASURED, non-integer numbers)."""
    if isinstance(x, dict):
        return {k: mask_summary(v) if k == "stderr" and isinstance(v, str) else strip_volatile(v)
                for k, v in x.items() if k not in VOLATILE}
    if isinstance(x, list):
        return [strip_volatile(v) for v in x]
    if isinstance(x, float) or (isinstance(x, str) and MEASURED.search(x)):
        return "<volatile>"
    return x


def differences(a, b, path: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b))
                for d in (differences(a[k], b[k], f"{path}.{k}") if k in a and k in b
                          else [f"{path}.{k}: only in {'before' if k in a else 'after'}"])]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


def diff(before: Path, after: Path) -> int:
    problems, compared = [], 0
    names = sorted({p.relative_to(before / "runs") for p in (before / "runs").glob("*/*/result.json")}
                   | {p.relative_to(after / "runs") for p in (after / "runs").glob("*/*/result.json")})
    for rel in names:
        a, b = before / "runs" / rel, after / "runs" / rel
        if not (a.exists() and b.exists()):
            problems.append(f"{rel.parent}: only in {'before' if a.exists() else 'after'}")
            continue
        compared += 1
        ra, rb = (strip_volatile(json.loads(p.read_text())) for p in (a, b))
        problems += [f"{rel.parent}{d}" for d in differences(ra, rb)]
    print("\n".join(problems) if problems else
          f"{compared} runs compared: equal apart from {sorted(VOLATILE)}, measurements and non-integers")
    return 1 if problems else 0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run every example in every configuration with one tree")
    r.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1])
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--examples", nargs="*", help="these examples only (default: every one)")
    r.add_argument("--no-mpi", action="store_true", help="skip the MPI configurations")
    r.add_argument("--configs", nargs="*", help="these configurations only (default: every one)")
    d = sub.add_parser("diff", help="compare two runs' records")
    d.add_argument("before", type=Path)
    d.add_argument("after", type=Path)
    a = ap.parse_args(argv)
    if a.cmd == "run":
        return run(a.tree, a.out, a.examples, not a.no_mpi, a.configs)
    return diff(a.before, a.after)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
