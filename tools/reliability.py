#!/usr/bin/env python3
"""The reliability campaign (issue 16): `make reliability` (root; about 45 minutes on 2 cores) runs
each part and writes docs/reliability.md: what was tried, how many times, what failed, and the
command.  `--profile short` is CI's (a few minutes, nothing written under docs/).

Parts:
  fuzz       the .stn fuzzer (tools/fuzz_stn.py): mutated programs through the compiler in-process,
             declared names among them renamed to names C or the generated code reserve, for every
             kind of declaration; no traceback, no hang, every error located, the C of a sample compiles.
  kills      heat3d out of core, SIGKILLed at random moments (every schedule, the z-strip spilled to
             a file, two-level fields) and resumed until done: the bits of an uninterrupted run, the
             input untouched, no output before the run completes.
  budgets    runs at --mem 8 MiB .. 1 GiB inside a memory cgroup (v1) of the budget plus a stated
             slack: never OOM-killed; the cgroup's peak against the budget.
  sanitizers `make test-asan`: the C runtime's tests and the engines' tests under ASan + UBSan.

  aimed      kills aimed at the state's commits and the output's export: the shim holds the N-th
             rename, write, fdatasync or fsync and the run is SIGKILLed there.
  faults     IO calls failed on purpose (runtime/tests/faultshim.c, LD_PRELOAD): the N-th io_submit,
             io_getevents, pwrite, write, fdatasync, fsync, rename, fallocate or ftruncate, for N
             spread along a run, with EIO, ENOSPC or a short transfer.

  diskfull   --dir on a tmpfs too small from the start (refused up front, --mode ooc and mmap), and on one
             that another process fills after the first committed sweep (ENOSPC naming the file; resumed
             once freed).
  edges      the command line's edges, run for real: huge and odd values in every numeric option (--size,
             --steps, --block, --iblock, --time-tiles, --ranks, --threads, --mem, --param), each run ending
             in time with exit 0, 1 or 2 and a message, leaving no file in --dir (a BT of 99999999 ran for
             ever); and --report targets that cannot be written (a missing directory, a FIFO, a device, a
             directory, a read-only file system) refused before anything is computed, no output left.

  libfuzzer  runtime/fuzz/fuzz_npy.c (the .npy reader: header, checks, loads) and fuzz_args.c (the
             command line, against a 1d, a 2d and a 3d program's descriptors), built with clang-15's
             libFuzzer under ASan + UBSan, run from seed corpora (and the corpus earlier campaigns left):
             no crash, no sanitizer report, no error without a message.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tools"))
BUILD = REPO / "build" / "reliability"
CGROUP = Path("/sys/fs/cgroup/memory")
SLACK = 64 << 20  # the memory cgroup's limit is the budget plus this (the program, libraries, threads)

from reliability_libfuzzer import part_libfuzzer  # noqa: E402  (tools/ is on sys.path just above)


@functools.cache
def _heat3d() -> Path:
    """examples/heat3d.stn, compiled once for every part."""
    BUILD.mkdir(parents=True, exist_ok=True)
    exe = BUILD / "heat3d"
    env = dict(os.environ, PYTHONPATH=str(REPO / "compiler"))
    subprocess.run([sys.executable, "-m", "stencilc", str(REPO / "examples" / "heat3d.stn"), "-o", str(exe)],
                   check=True, env=env)
    return exe


@functools.cache
def _shim() -> Path:
    """runtime/tests/faultshim.c, built once."""
    BUILD.mkdir(parents=True, exist_ok=True)
    shim = BUILD / "faultshim.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-Wall", "-o", str(shim),
                    str(REPO / "runtime" / "tests" / "faultshim.c"), "-ldl"], check=True)
    return shim


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


# ---------------------------------------------------------------- fuzz


def part_fuzz(profile: str) -> dict:
    import fuzz_stn

    n, comp, jobs = (100_000, 300, 2) if profile == "full" else (3000, 20, 2)
    stats = fuzz_stn.parallel(n, 1, comp, 60.0, BUILD / "fuzz", jobs)
    return {"part": "fuzz", "tried": stats["inputs"], "failed": len(stats["failures"]), "stats": stats,
            "command": f"python tools/fuzz_stn.py --inputs {n} --seed 1 --compile {comp} --jobs {jobs}"}


# ---------------------------------------------------------------- kills


def part_kills(profile: str) -> dict:
    kills = 60 if profile == "full" else 8
    d = BUILD / "kills"
    d.mkdir(parents=True, exist_ok=True)
    exe = _heat3d()
    size = ["--size", "96,80,150"]
    rng = np.random.default_rng(16)
    init = d / "init.npy"
    np.save(init, rng.random((150, 80, 96)))
    sha_in = _sha(init)
    ref = d / "ref.npy"
    subprocess.run([str(exe), *size, "--steps", "24", "--mode", "incore", "--quiet", "--init", f"u={init}",
                    "--out", f"u={ref}"], check=True)
    setups = [["--mem", "8M", "--schedule", "ref", "--block", "80,6,3"],
              ["--mem", "8M", "--schedule", "ref", "--block", "40,8,4", "--strip", "file"],
              ["--mem", "8M", "--schedule", "alg1", "--block", "80,10,3"], ["--mem", "8M", "--schedule", "ref"],
              ["--mem", "32M", "--schedule", "ref", "--block", "80,150,24"]]  # (one block: the whole grid)
    pyrng = random.Random(16)
    done = fails = runs = 0
    notes = []
    while done < kills:
        setup = setups[runs % len(setups)]
        runs += 1
        w = d / f"run{runs}"
        w.mkdir(exist_ok=True)
        out = w / "u.npy"
        cmd = [str(exe), *size, "--steps", "24", "--mode", "ooc", "--quiet", "--dir", str(w),
               "--init", f"u={init}", "--out", f"u={out}", *setup]
        resume = []
        for _ in range(40):
            p = subprocess.Popen(cmd + resume, stderr=subprocess.PIPE, text=True)
            t = pyrng.uniform(0.02, 1.2)
            try:
                rc = p.wait(timeout=t)
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGKILL)
                p.wait()
                done += 1
                if out.exists():  # the run finished as it was killed: its output must be the whole one
                    if np.load(out).tobytes() != np.load(ref).tobytes():
                        fails += 1
                        notes.append(f"{' '.join(setup)}: an output left by a kill is not the run's result")
                    break
                resume = ["--resume"]
                continue
            if rc != 0:
                fails += 1
                notes.append(f"{' '.join(setup)}: exit {rc}: {p.stderr.read()[-300:]}")
            elif np.load(out).tobytes() != np.load(ref).tobytes():
                fails += 1
                notes.append(f"{' '.join(setup)}: not the bits of the uninterrupted run")
            break
        for f in w.iterdir():
            f.unlink()
        w.rmdir()
    if _sha(init) != sha_in:
        fails += 1
        notes.append("the --init file changed")
    return {"part": "kills", "tried": done, "runs": runs, "failed": fails, "notes": notes,
            "command": "heat3d --size 96,80,150 --steps 24 --mode ooc --mem 8M (ref, ref with the z-strip in a file, "
                       "alg1, tuned; one block at --mem 32M) SIGKILLed after 0.02-1.2 s and resumed with --resume "
                       "until done"}


# ---------------------------------------------------------------- the shim's runs


class ShimRuns:
    """heat3d out of core on a random --init, with its in-core reference, for runs under the fault
    shim (runtime/tests/faultshim.c): `ooc` is the command, `fresh()` empties --dir and removes the
    output, `counts` the calls of each operation in a run without a fault, `env(spec)` the
    environment that injects STN_FAULT=spec."""

    def __init__(self, name: str, seed: int) -> None:
        d = BUILD / name
        d.mkdir(parents=True, exist_ok=True)
        self.shim = _shim()
        exe = _heat3d()
        self.init = d / "init.npy"
        np.save(self.init, np.random.default_rng(seed).random((150, 80, 96)))
        self.sha_in = _sha(self.init)
        self.ref = d / "ref.npy"
        args = ["--size", "96,80,150", "--steps", "24", "--quiet", "--init", f"u={self.init}"]
        subprocess.run([str(exe), *args, "--mode", "incore", "--out", f"u={self.ref}"], check=True)
        self.dir, self.out, self.mark = d / "run", d / "out.npy", d / "stalled"
        self.ooc = [str(exe), *args, "--mode", "ooc", "--mem", "8M", "--block", "80,10,3", "--dir", str(self.dir),
                    "--out", f"u={self.out}"]
        self.fresh()
        counts_file = d / "counts.txt"
        subprocess.run(self.ooc, check=True, env=dict(os.environ, LD_PRELOAD=str(self.shim),
                                                      STN_FAULT_COUNT=str(counts_file)))
        self.counts = {ln.split()[0]: int(ln.split()[1]) for ln in counts_file.read_text().splitlines()}

    def fresh(self) -> None:
        if self.dir.exists():
            for f in self.dir.iterdir():
                f.unlink()
        self.dir.mkdir(exist_ok=True)
        self.out.unlink(missing_ok=True)

    def env(self, spec: str) -> dict:
        return dict(os.environ, LD_PRELOAD=str(self.shim), STN_FAULT=spec, STN_FAULT_MARK=str(self.mark))

    def right(self) -> bool:
        """The output is in place and has the uninterrupted run's bits."""
        return self.out.exists() and np.load(self.out).tobytes() == np.load(self.ref).tobytes()

    def after(self, what: str) -> str | None:
        """The run after a fault or a kill (--resume when a state was committed): None when it gives
        the uninterrupted run's bits, else what went wrong."""
        resume = ["--resume"] if any(f.name.endswith(".ooc-state") for f in self.dir.iterdir()) else []
        q = subprocess.run(self.ooc + resume, capture_output=True, text=True)
        if q.returncode == 0 and self.right():
            return None
        return f"{what}, then {' '.join(resume) or 'a fresh run'}: exit {q.returncode}, {q.stderr[-300:]}"


# ---------------------------------------------------------------- faults


def part_faults(profile: str) -> dict:
    """heat3d out of core under tools' LD_PRELOAD shim (runtime/tests/faultshim.c): the N-th call of
    each IO operation fails (EIO, ENOSPC, a short transfer), for N spread along the run.  Each such
    run ends with exit 1 and an error naming a file, or (the fault harmless) exit 0 with the right
    bits; then a run without the fault, resuming what the faulty one committed, gives the bits of an
    uninterrupted run; no output appears from a failed run, and the input never changes."""
    r = ShimRuns("faults", 3)
    w, out, init, ooc, counts = r.dir, r.out, r.init, r.ooc, r.counts
    spread = 12 if profile == "full" else 3
    tried = fails = tolerated = 0
    notes, harmless = [], []
    for op, c in counts.items():
        if c == 0:
            continue
        ns = sorted({1, c} | {1 + k * (c - 1) // max(1, spread - 1) for k in range(spread)})
        errs = ["EIO", "ENOSPC"] + (["SHORT"] if op in ("pwrite", "write", "io_getevents") else [])
        for n in ns:
            for err in errs if profile == "full" else ["EIO"]:
                r.fresh()
                r.mark.unlink(missing_ok=True)
                p = subprocess.run(ooc, capture_output=True, text=True, env=r.env(f"{op}:{n}:{err}"))
                what = f"{op}:{n}:{err}"
                if not r.mark.exists():  # (this run made fewer such calls: io_getevents' count varies)
                    continue
                tried += 1
                if p.returncode == 0:
                    if not r.right():
                        fails += 1
                        notes.append(f"{what}: exit 0 with wrong bits")
                    else:
                        tolerated += 1
                        harmless.append(what)
                    continue
                cause = {"EIO": os.strerror(5), "ENOSPC": os.strerror(28)}.get(err, "")
                named = any(s in p.stderr for s in (str(w), str(out), str(init)))  # the file, or for memory (the
                if p.returncode != 1 or "error:" not in p.stderr or not (named or cause and cause in p.stderr):
                    fails += 1  # window's memfd) the cause
                    notes.append(f"{what}: exit {p.returncode} without an error naming a file or the cause: "
                                 f"{p.stderr[-300:]}")
                if out.exists() and not ("is written, but syncing its directory" in p.stderr and r.right()):
                    fails += 1  # (only a whole output whose directory entry may not be durable may stay)
                    notes.append(f"{what}: a failed run left {out.name}")
                bad = r.after(what)
                if bad:
                    fails += 1
                    notes.append(bad)
    if _sha(init) != r.sha_in:
        fails += 1
        notes.append("the --init file changed")
    return {"part": "faults", "tried": tried, "failed": fails, "tolerated": tolerated, "counts": counts,
            "notes": notes, "harmless": harmless,
            "command": "heat3d --size 96,80,150 --steps 24 --mode ooc --mem 8M --block 80,10,3 --init u=... --out "
                       "u=..., under LD_PRELOAD=faultshim.so with STN_FAULT=OP:N:ERR, then again without it "
                       "(--resume when a state was committed)"}


# ---------------------------------------------------------------- kills aimed at a moment


def part_aimed(profile: str) -> dict:
    """Kills aimed at the moments a random kill seldom hits: the shim holds the N-th rename, write,
    fsync or fdatasync of a run (STN_FAULT=OP:N:STALL; the state's commits, the output's export) and
    the run is SIGKILLed there; the next run (resuming what was committed) gives the uninterrupted
    bits, and no output exists unless it is the whole one."""
    r = ShimRuns("aimed", 9)
    out, ooc, counts, mark = r.out, r.ooc, r.counts, r.mark
    tried = fails = 0
    notes = []
    for op in ("rename", "write", "fdatasync", "fsync"):
        c = counts.get(op, 0)
        ns = range(1, c + 1) if profile == "full" else sorted({1, c})
        for n in ns:
            r.fresh()
            mark.unlink(missing_ok=True)
            p = subprocess.Popen(ooc, stderr=subprocess.DEVNULL, env=r.env(f"{op}:{n}:STALL"))
            deadline = time.monotonic() + 60
            while not mark.exists() and p.poll() is None and time.monotonic() < deadline:
                time.sleep(0.002)
            if p.poll() is not None:  # (that call came only from a path this run did not take)
                continue
            tried += 1
            p.send_signal(signal.SIGKILL)
            p.wait()
            if out.exists() and not r.right():
                fails += 1
                notes.append(f"killed in {op} #{n}: an incomplete output is in place")
            bad = r.after(f"killed in {op} #{n}")
            if bad:
                fails += 1
                notes.append(bad)
    return {"part": "aimed", "tried": tried, "failed": fails, "counts": counts, "notes": notes,
            "command": "heat3d --size 96,80,150 --steps 24 --mode ooc --mem 8M --block 80,10,3, held at the N-th "
                       "rename, write, fdatasync or fsync (STN_FAULT=OP:N:STALL) and SIGKILLed there, then run "
                       "again (--resume when a state was committed)"}


# ---------------------------------------------------------------- disk full


def part_diskfull(profile: str) -> dict:
    """A disk too small from the start (refused up front, with the numbers), and one that another
    process fills during the run (a small tmpfs as --dir, holding the output too): the run ends with
    ENOSPC naming the file, leaves no output, and resumes to the uninterrupted run's bits once the
    space is freed."""
    if os.geteuid() != 0:
        return {"part": "diskfull", "tried": 0, "failed": 0, "skipped": "not root (it mounts a tmpfs)"}
    d = BUILD / "diskfull"
    mnt = d / "mnt"
    mnt.mkdir(parents=True, exist_ok=True)
    exe = _heat3d()
    init = d / "init.npy"
    np.save(init, np.random.default_rng(5).random((150, 80, 96)))
    ref = d / "ref.npy"
    args = ["--size", "96,80,150", "--steps", "40", "--quiet", "--init", f"u={init}"]
    subprocess.run([str(exe), *args, "--mode", "incore", "--out", f"u={ref}"], check=True)
    out = mnt / "u.npy"
    ooc = [str(exe), *args, "--mode", "ooc", "--mem", "8M", "--block", "80,10,2", "--dir", str(mnt), "--out",
           f"u={out}"]
    tried = fails = 0
    notes = []
    rounds = 3 if profile == "full" else 1
    for size, mid in [("12M", False)] + [("40M", True)] * rounds:
        tried += 1
        if subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mnt)]).returncode:
            return {"part": "diskfull", "tried": 0, "failed": 0, "skipped": "cannot mount a tmpfs"}
        try:
            if not mid:
                p = subprocess.run(ooc, capture_output=True, text=True)
                if p.returncode != 1 or "No space" not in p.stderr and "free" not in p.stderr:
                    fails += 1
                    notes.append(f"a {size} disk: exit {p.returncode}: {p.stderr[-300:]}")
                tried += 1  # --mode mmap on the same disk: refused with the sizes (it died of SIGBUS, issue 28)
                mm = [str(exe), *args, "--mode", "mmap", "--dir", str(mnt), "--out", f"u={out}"]
                p = subprocess.run(mm, capture_output=True, text=True)
                if p.returncode != 1 or "the files of --mode mmap need" not in p.stderr or out.exists():
                    fails += 1
                    notes.append(f"--mode mmap on a {size} disk: exit {p.returncode}: {p.stderr[-300:]}")
                continue
            run = subprocess.Popen(ooc, stderr=subprocess.PIPE, text=True)
            deadline = time.monotonic() + 60
            while not (mnt / "heat3d.ooc-state").exists() and run.poll() is None and time.monotonic() < deadline:
                time.sleep(0.005)
            filler = mnt / "filler"
            with open(filler, "wb") as f:  # another process takes every byte left
                try:
                    while True:
                        f.write(b"\0" * (1 << 20))
                        f.flush()
                except OSError:
                    pass
            err = run.communicate()[1]
            if run.returncode == 0:
                notes.append(f"a {size} disk filled mid-run: the run needed no more space (exit 0)")
            elif run.returncode != 1 or "No space left on device" not in err or str(mnt) not in err:
                fails += 1
                notes.append(f"a {size} disk filled mid-run: exit {run.returncode}: {err[-300:]}")
            if run.returncode != 0 and out.exists():
                fails += 1
                notes.append(f"a {size} disk filled mid-run: the failed run left {out.name}")
            filler.unlink()
            resume = ["--resume"] if (mnt / "heat3d.ooc-state").exists() else []
            q = subprocess.run(ooc + resume, capture_output=True, text=True)
            if q.returncode != 0 or np.load(out).tobytes() != np.load(ref).tobytes():
                fails += 1
                notes.append(f"after freeing the space {' '.join(resume)}: exit {q.returncode}: {q.stderr[-300:]}")
        finally:
            subprocess.run(["umount", str(mnt)])
    return {"part": "diskfull", "tried": tried, "failed": fails, "notes": notes,
            "command": "heat3d --size 96,80,150 --steps 40 --mode ooc --mem 8M --block 80,10,2 with --dir and --out "
                       "on a tmpfs of 12M (refused up front; --mode mmap too), and of 40M filled by another process "
                       "after the first committed sweep (then freed, and --resume)"}


# ---------------------------------------------------------------- edges

# Values that broke or could break a numeric option (issue 28: a BT of 99999999 ran for ever): the edges of
# int64 and uint64, zero and signs, other notations, and plain large numbers.
ODD = ["0", "1", "-1", "+1", "007", "1e3", "0x10", " 1", "1 ", "99999999", "4294967296", "4611686018427387904",
       "9223372036854775807", "9223372036854775808", "18446744073709551616", "1" * 40, "1.5", ""]


def _odd_line(rng: random.Random) -> list[str]:
    """A heat3d command line of a 16^3 grid, 2 steps, with one numeric option given an odd value."""
    v = rng.choice(ODD)
    where = rng.randrange(3)

    def triple(base: list[str]) -> str:
        base = list(base)
        base[where % len(base)] = v
        return ",".join(base)

    size, rest = "16,16,16", ["--steps", "2"]
    kind = rng.choice(["size", "steps", "block", "iblock", "time-tiles", "ranks", "threads", "mem", "mem-unit",
                       "param"])
    if kind == "size":
        size = triple(["16", "16", "16"])
    elif kind == "steps":
        rest = ["--steps", v]
    elif kind == "block":
        rest += ["--block", triple(["16", "4", "2"])]
    elif kind == "iblock":
        rest += ["--iblock", triple(["4", "4"])]
    elif kind == "time-tiles":
        rest += ["--mode", "incore", "--time-tiles", triple(["8", "8", "2"])]
    elif kind == "ranks":
        rest += ["--ranks", triple(["1", "1", "1"])]
    elif kind in ("threads", "mem"):
        rest += [f"--{kind}", v]
    elif kind == "mem-unit":
        rest += ["--mem", v + rng.choice(["K", "M", "G", "T"])]
    else:
        rest += ["--param", "alpha=" + v]
    if kind == "steps" and v.strip().isdigit() and int(v) > 100:
        rest += ["--plan-only"]  # (a run of that many steps is a real run: plan it only)
    if "--mode" not in rest and "--plan-only" not in rest:
        rest += ["--mode", rng.choice(["ooc", "ooc", "incore", "mmap"])]
    return ["--size", size, *rest]


def part_edges(profile: str) -> dict:
    """Odd numbers in every numeric option, and --report targets that cannot be written."""
    exe = _heat3d()
    d = BUILD / "edges"
    scratch = d / "dir"
    scratch.mkdir(parents=True, exist_ok=True)
    rng = random.Random(28)
    n = 400 if profile == "full" else 40
    tried = fails = 0
    notes = []
    for _ in range(n):
        line = _odd_line(rng)
        tried += 1
        t0 = time.monotonic()
        try:
            p = subprocess.run([str(exe), *line, "--dir", str(scratch), "--quiet"], capture_output=True, text=True,
                               timeout=120)
            rc, err = p.returncode, p.stderr
        except subprocess.TimeoutExpired:
            rc, err = "timeout", ""
        left = sorted(f.name for f in scratch.iterdir())
        for f in scratch.iterdir():
            f.unlink()
        bad = rc not in (0, 1, 2) or (rc != 0 and "heat3d: error: " not in err) or left
        if bad:
            fails += 1
            notes.append(f"{' '.join(repr(a) for a in line)}: exit {rc} after {time.monotonic() - t0:.1f} s, "
                         f"{err.strip()[-200:]!r}, left {left}")
    # --report targets that cannot be written: refused before the run, nothing written
    fifo = d / "pipe"
    if not fifo.exists():
        os.mkfifo(fifo)
    targets = [d / "nodir" / "r.json", fifo, Path("/dev/null"), d]
    ro = d / "ro"
    ro.mkdir(exist_ok=True)
    mounted = os.geteuid() == 0 and subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1M,ro", "tmpfs", str(ro)],
                                                   capture_output=True).returncode == 0
    if mounted:
        targets.append(ro / "r.json")
    out = d / "o.npy"
    try:
        for target in targets:
            for mode in ("ooc", "incore", "mmap"):
                tried += 1
                p = subprocess.run([str(exe), "--size", "32,32,32", "--steps", "3", "--mode", mode, "--dir",
                                    str(scratch), "--out", f"u={out}", "--report", str(target)], capture_output=True,
                                   text=True, timeout=120)
                left = sorted(f.name for f in scratch.iterdir())
                if p.returncode != 1 or f"--report {target}: " not in p.stderr or out.exists() or left or \
                        "done:" in p.stderr:
                    fails += 1
                    notes.append(f"--report {target} --mode {mode}: exit {p.returncode}, {p.stderr.strip()[-200:]!r}, "
                                 f"output {'written' if out.exists() else 'absent'}, left {left}")
                out.unlink(missing_ok=True)
    finally:
        if mounted:
            subprocess.run(["umount", str(ro)])
    return {"part": "edges", "tried": tried, "failed": fails, "notes": notes,
            "command": f"heat3d --size 16,16,16 --steps 2 with one numeric option given one of {len(ODD)} odd values "
                       f"({n} runs, seed 28); --report at a missing directory, a FIFO, /dev/null, a directory"
                       f"{' and a read-only tmpfs' if mounted else ''}, in each mode"}


# ---------------------------------------------------------------- budgets


def _in_cgroup(name: str, limit: int, cmd: list[str]) -> tuple[int, int, int, str]:
    """(exit status, the cgroup's peak bytes, OOM kills, stderr) of cmd run in a new memory cgroup."""
    cg = CGROUP / name
    cg.mkdir()
    try:
        (cg / "memory.limit_in_bytes").write_text(str(limit))
        p = subprocess.run(["sh", "-c", f'echo $$ > {cg / "cgroup.procs"} && exec "$@"', "sh", *cmd],
                           capture_output=True, text=True)
        peak = int((cg / "memory.max_usage_in_bytes").read_text())
        oom = 0
        for line in (cg / "memory.oom_control").read_text().splitlines():
            if line.startswith("oom_kill "):
                oom = int(line.split()[1])
        return p.returncode, peak, oom, p.stderr
    finally:
        cg.rmdir()


def part_budgets(profile: str) -> dict:
    if not (CGROUP / "memory.limit_in_bytes").exists() or os.geteuid() != 0:
        return {"part": "budgets", "tried": 0, "failed": 0, "skipped": "no cgroup v1 memory controller, or not root"}
    budgets = [8 << 20, 32 << 20, 128 << 20, 512 << 20, 1 << 30] if profile == "full" else [8 << 20, 32 << 20]
    d = BUILD / "budgets"
    d.mkdir(parents=True, exist_ok=True)
    exe = _heat3d()
    rows, fails = [], 0
    for b in budgets:
        n = int(round((3 * b / 8) ** (1 / 3)))  # a grid of three budgets
        w = d / f"b{b}"
        w.mkdir(exist_ok=True)
        cmd = [str(exe), "--size", f"{n},{n},{n}", "--steps", "6", "--mode", "ooc", "--mem", str(b), "--quiet",
               "--dir", str(w), "--report", str(w / "r.json")]
        rc, peak, oom, err = _in_cgroup(f"stencilc-rel-{os.getpid()}-{b}", b + SLACK, cmd)
        r = json.loads((w / "r.json").read_text()) if rc == 0 else {}
        ok = rc == 0 and oom == 0 and r.get("bytes_read") == r.get("predicted_bytes_read")
        fails += not ok
        rows.append({"budget": b, "grid": f"{n}^3", "limit": b + SLACK, "exit": rc, "oom_kills": oom,
                     "cgroup_peak": peak, "peak_over_budget": round(peak / b, 3), "plan": r.get("mem_plan_bytes"),
                     "peak_pss": r.get("peak_pss_bytes"), "peak_rss": r.get("peak_rss_bytes"),
                     "error": err[-300:] if rc else ""})
        for f in w.iterdir():
            f.unlink()
        w.rmdir()
    return {"part": "budgets", "tried": len(rows), "failed": fails, "rows": rows, "slack": SLACK,
            "command": "heat3d --size N,N,N (3 budgets of data) --steps 6 --mode ooc --mem B, in a memory cgroup "
                       "limited to B + 64 MiB"}


# ---------------------------------------------------------------- sanitizers


def part_sanitizers(profile: str) -> dict:
    if profile != "full":
        return {"part": "sanitizers", "tried": 0, "failed": 0, "skipped": "full profile only (make test-asan)"}
    p = subprocess.run(["make", "test-asan"], cwd=REPO, capture_output=True, text=True)
    BUILD.mkdir(parents=True, exist_ok=True)
    (BUILD / "sanitizers.log").write_text(p.stdout + p.stderr)
    tail = [ln for ln in p.stdout.strip().splitlines() if " passed" in ln or " failed" in ln][-1:]
    return {"part": "sanitizers", "tried": 1, "failed": int(p.returncode != 0), "summary": tail,
            "command": "make test-asan"}


# ---------------------------------------------------------------- the report

PARTS = {"fuzz": part_fuzz, "libfuzzer": part_libfuzzer, "kills": part_kills, "aimed": part_aimed,
         "faults": part_faults, "diskfull": part_diskfull, "edges": part_edges, "budgets": part_budgets,
         "sanitizers": part_sanitizers}


def _mib(b: int) -> str:
    return f"{b / (1 << 20):.1f} MiB"


def write_report(results: list[dict], path: Path, seconds: float) -> None:
    out = ["# Reliability", "",
           f"Written by `make reliability` (`python tools/reliability.py --profile full --report {path.relative_to(REPO)}`)"
           f" on {time.strftime('%Y-%m-%d')} on this 2-core VM (each part names the commit it ran at). "
           "Each part says what was tried, how many times, and what failed; the campaign exits 1 if anything did. "
           "CI runs the short profile (`--profile short`) and the fuzzer's CI test.", ""]
    for r in results:
        out.append(f"## {r['part']}")
        out.append("")
        if r.get("skipped"):
            out += [f"Skipped: {r['skipped']}.", ""]
            continue
        out.append(f"Tried: {r['tried']}. Failed: **{r['failed']}**. Command: `{r['command']}` "
                   f"(commit {r.get('commit', '?')}, {r.get('date', '?')}).")
        out.append("")
        if r["part"] == "fuzz":
            s = r["stats"]
            out.append(f"{s['inputs']} inputs ({s['jobs']} workers, seeds 1..{s['jobs']}): {s['accepted']} accepted "
                       f"(C generated), {s['refused']} refused with a located error; {s['tracebacks']} tracebacks, "
                       f"{s['hangs']} hangs, {s['unlocated']} errors without FILE:LINE:COL; {s['compiled']} "
                       f"accepted programs' C compiled, {s['compile_failures']} failed. Slowest input "
                       f"{s['slowest_seconds']} s.")
        if r["part"] == "kills":
            out.append(f"{r['tried']} kills over {r['runs']} runs.")
        if r["part"] == "aimed":
            calls = ", ".join(f"{k} {r['counts'][k]}" for k in ("rename", "write", "fdatasync", "fsync"))
            out.append(f"Calls of a run: {calls} (the state's commits each sweep, the output's export at the "
                       f"end); {r['tried']} runs killed while held in one of them.")
        if r["part"] == "faults":
            calls = ", ".join(f"{k} {v}" for k, v in r["counts"].items() if v)
            out.append(f"Calls of a run without a fault: {calls}. {r['tried']} runs with one fault each "
                       f"({r['tolerated']} of them harmless: exit 0, the right bits); every other one exit 1 with "
                       "an error naming its file, no output left, and the next run (resuming what was committed) "
                       "the uninterrupted run's bits.")
            kinds: dict[str, list[str]] = {}
            for h in r.get("harmless", []):
                op, n, err = h.split(":")
                kinds.setdefault(f"{op} {err}", []).append(n)
            if kinds:
                out.append("")
                out.append("The harmless ones (operation, error: the calls N): " + "; ".join(
                    f"{k}: {', '.join(v)}" for k, v in sorted(kinds.items())) + ". Short transfers are completed "
                    "by the runtime; the first pwrite and ftruncate write the lock file's pid note, the first write "
                    "resets the kernel's page-reference bits for the PSS figure: both only informative.")
        if r["part"] == "budgets":
            out += ["The cgroup peak is the group's `memory.max_usage_in_bytes`: resident memory and the page cache "
                    "charged to the group. It may pass the budget by the process's own fixed memory (the program, "
                    "its libraries, the threads' stacks: a few MiB), which the slack covers; the plan is the "
                    "engine's planned DRAM (`mem_plan_bytes`) of the plan chosen; at startup Blk-Tune measures its "
                    "finalists on blocks of their own, each within the budget, so the peak may pass the chosen "
                    "plan.", "",
                    "The report's own figures beside it: `peak_pss_bytes` (the proportional set size, sampled after "
                    "each sweep, which counts each page of the double-mapped rings once: what counts against the "
                    "budget) and `peak_rss_bytes` (the kernel's resident peak, which counts those pages once per "
                    "mapping, so it overstates the memory).", "",
                    "| --mem | grid | cgroup limit | exit | OOM kills | cgroup peak | peak / budget | plan | report's PSS "
                    "peak | report's RSS peak |",
                    "|---|---|---|---|---|---|---|---|---|---|"]
            for row in r["rows"]:
                out.append(f"| {_mib(row['budget'])} | {row['grid']} | {_mib(row['limit'])} | {row['exit']} | "
                           f"{row['oom_kills']} | {_mib(row['cgroup_peak'])} | {row['peak_over_budget']} | "
                           f"{_mib(row['plan']) if row['plan'] else '-'} | "
                           f"{_mib(row['peak_pss']) if row.get('peak_pss') else '-'} | "
                           f"{_mib(row['peak_rss']) if row.get('peak_rss') else '-'} |")
        if r["part"] == "libfuzzer":
            out += ["Each harness runs for the time given, from its seeds and the corpus earlier campaigns left "
                    "(build/reliability/libfuzzer/corpus-*); cov and ft are libFuzzer's final coverage counters "
                    "(edges and features of the instrumented runtime).", "",
                    "| harness | seconds | inputs run | per second | cov | ft | corpus | crashes |",
                    "|---|---|---|---|---|---|---|---|"]
            for row in r["rows"]:
                out.append(f"| fuzz_{row['harness']} | {row['seconds']} | {row['execs']} | {row['per_second']} | "
                           f"{row['cov']} | {row['features']} | {row['corpus']} | {len(row['artifacts'])} |")
        if r["part"] == "sanitizers" and r.get("summary"):
            out.append(f"`{r['summary'][0]}`")
        for n in r.get("notes", [])[:20]:
            out.append(f"- {n}")
        out.append("")
    path.write_text("\n".join(out))


def _commit() -> str:
    p = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True)
    return p.stdout.strip() or "unknown"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--profile", choices=["short", "full"], default="short")
    ap.add_argument("--parts", default=",".join(PARTS), help="comma-separated: " + ", ".join(PARTS))
    ap.add_argument("--report", type=Path, help="write the markdown report here (full: docs/reliability.md)")
    ap.add_argument("--merge", action="store_true", help="keep the other parts' results of the profile's last "
                    "run (build/reliability/results-PROFILE.json) in the report")
    a = ap.parse_args()
    t0 = time.monotonic()
    results = []
    for name in filter(None, a.parts.split(",")):
        print(f"== {name}", flush=True)
        r = PARTS[name](a.profile)
        r["commit"], r["date"], r["profile"] = _commit(), time.strftime("%Y-%m-%d %H:%M"), a.profile
        print(json.dumps({k: v for k, v in r.items() if k not in ("stats", "rows")} |
                         ({"rows": r["rows"]} if "rows" in r else {}), default=str), flush=True)
        results.append(r)
    saved = BUILD / f"results-{a.profile}.json"  # (per profile: a short run never replaces the full one's)
    if a.merge and saved.exists():  # the parts not run this time: as the last run left them
        ran = {r["part"] for r in results}
        results = [r for r in json.loads(saved.read_text()) if r["part"] not in ran] + results
        results.sort(key=lambda r: list(PARTS).index(r["part"]))
    if a.report:
        write_report(results, a.report.resolve(), time.monotonic() - t0)
    BUILD.mkdir(parents=True, exist_ok=True)
    saved.write_text(json.dumps(results, indent=2, default=str))
    return 1 if any(r["failed"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
