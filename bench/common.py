"""What the experiments share: a memory cgroup of our own (v1 or v2), dropping the page cache,
building a program from a .stn file, running it and reading its report, and medians.  The
cgroup and drop_caches need root; without it the runner says what it could not do."""

from __future__ import annotations

import functools
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MiB, GiB = float(1 << 20), float(1 << 30)
# A capped run's cgroup: the budget's 4/3 (the runtime's reserve) plus the process's own pages (its binary and
# libraries, hwloc, HDF5, libaio..., read in after the page cache was dropped and charged to the cgroup as it
# starts: 40-45 MiB on 2026-11-29, which the runtime takes off the cgroup's room before it takes a budget)
PROCESS_EXTRA = 48 << 20


CAP_RULE = f"4/3 of the budget + {PROCESS_EXTRA >> 20} MiB"  # run_cap, in words


def model_rate_from(rep: dict) -> str:
    """Where an out-of-core run's time model took its kernels' rate: the startup's measurement, the earlier runs'
    loops (the report's cells_per_second_source then begins "the median of"), or the startup's scaled by the
    machine's earlier loops (it begins "the startup's"; docs/out-of-core.md, "Earlier runs' loops")."""
    src = (rep.get("time_model") or {}).get("cells_per_second_source", "")
    return "earlier runs" if src.startswith("the median of") else "startup, scaled" if src.startswith("the startup's") else "startup"


def run_cap(budget: int) -> int:
    """The memory cgroup's limit for a capped run of `--mem budget`."""
    return budget * 4 // 3 + PROCESS_EXTRA


def sh(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    """Run a command; a failure stops the benchmark with the command and its output."""
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError(f"failed ({r.returncode}): {shlex.join(map(str, cmd))}\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
    return r


@functools.cache
def build(stn: str, exe: Path) -> Path:
    """stencilc STN -o EXE from this checkout (skipped when EXE is newer than the .stn and the compiler).
    Once per process: the sources do not change during a run."""
    src = REPO / stn
    newest = max([src.stat().st_mtime] + [p.stat().st_mtime for d in ("compiler/stencilc", "runtime", "templates")
                                          for p in (REPO / d).rglob("*") if p.is_file()])
    if exe.exists() and exe.stat().st_mtime > newest:
        return exe
    exe.parent.mkdir(parents=True, exist_ok=True)
    sh([sys.executable, "-m", "stencilc", str(src), "-o", str(exe)], env=dict(os.environ, PYTHONPATH=str(REPO / "compiler")))
    return exe


def cflags() -> str:
    """The flags stencilc compiles its own programs with."""
    if str(REPO / "compiler") not in sys.path:
        sys.path.insert(0, str(REPO / "compiler"))
    from stencilc.codegen import DEFAULT_CFLAGS

    return DEFAULT_CFLAGS


@functools.cache
def cc(src: str, exe: Path, *flags: str) -> Path:
    """Compile one of bench/c/*.c with stencilc's flags (once per process)."""
    exe.parent.mkdir(parents=True, exist_ok=True)
    sh(["cc", *shlex.split(cflags()), str(REPO / "bench" / "c" / src), "-o", str(exe), *flags])
    return exe


class Cgroup:
    """A child memory cgroup of our own, v2 if this machine's memory controller is v2, else v1.
    The limit counts the page cache, so it is what proves a DRAM budget."""

    def __init__(self, name: str, limit: int):
        self.limit = limit
        v2_root = Path("/sys/fs/cgroup")
        if (v2_root / "cgroup.controllers").exists() and "memory" in (v2_root / "cgroup.controllers").read_text():
            own = next(ln[3:].strip() for ln in open("/proc/self/cgroup") if ln.startswith("0::"))
            self.v2, self.dir = True, v2_root / own.lstrip("/") / name
        else:
            own = next(ln.split(":", 2)[2].strip() for ln in open("/proc/self/cgroup") if ":memory:" in ln)
            self.v2, self.dir = False, Path("/sys/fs/cgroup/memory") / own.lstrip("/") / name
        self.dir.mkdir(exist_ok=True)
        if self.v2:
            (self.dir / "memory.max").write_text(str(limit))
            if (self.dir / "memory.swap.max").exists():
                (self.dir / "memory.swap.max").write_text("0")
        else:
            (self.dir / "memory.limit_in_bytes").write_text(str(limit))
            (self.dir / "memory.max_usage_in_bytes").write_text("0")

    @staticmethod
    def available() -> str | None:
        """None when we can make memory cgroups here, else why not."""
        if os.geteuid() != 0:
            return "not root"
        try:
            cg = Cgroup(f"stencilc-probe-{os.getpid()}", 1 << 30)
            cg.remove()
            return None
        except (OSError, StopIteration) as e:
            return f"no memory cgroup: {e}"

    def add_self(self) -> None:  # runs in the child before exec
        (self.dir / "cgroup.procs").write_text(str(os.getpid()))

    def peak(self) -> int:
        f = self.dir / ("memory.peak" if self.v2 else "memory.max_usage_in_bytes")
        return int(f.read_text()) if f.exists() else -1

    def oom_kills(self) -> int:
        if self.v2:
            ev = dict(ln.split() for ln in (self.dir / "memory.events").read_text().splitlines())
            return int(ev.get("oom_kill", 0))
        ctl = dict(ln.split() for ln in (self.dir / "memory.oom_control").read_text().splitlines())
        return int(ctl.get("oom_kill", 0))

    def remove(self) -> None:
        for _ in range(50):
            try:
                self.dir.rmdir()
                return
            except OSError:
                time.sleep(0.1)


def drop_caches() -> str:
    """Write back and drop the page cache: 'dropped', or why not."""
    try:
        subprocess.run(["sync"], check=True)
        Path("/proc/sys/vm/drop_caches").write_text("3")
        return "dropped"
    except OSError as e:
        return f"not dropped ({e.strerror})"


def run(exe: Path, args: list[str], cg: Cgroup | None = None, timeout: float | None = None,
        env: dict | None = None) -> tuple[dict | None, float, str]:
    """Run a generated program with --report; (its report or None, wall seconds, 'ok' or why not)."""
    t0 = time.monotonic()
    try:
        p = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=timeout,
                           preexec_fn=cg.add_self if cg else None, env=env)
    except subprocess.TimeoutExpired:
        return None, time.monotonic() - t0, "timeout"
    wall = time.monotonic() - t0
    if p.returncode != 0:
        return None, wall, f"exit {p.returncode}: {p.stderr.strip()[-500:]}"
    rep = Path(args[args.index("--report") + 1])
    return json.loads(rep.read_text()), wall, "ok"


def random_npy(path: Path, size: tuple[int, int, int], seed: int) -> Path:
    """A .npy of random f64 values of `size` (x first) at `path`, written plane by plane (no whole grid in
    RAM) into a temporary renamed when complete."""
    import numpy as np

    tmp = path.with_suffix(".partial.npy")
    u = np.lib.format.open_memmap(tmp, mode="w+", dtype="<f8", shape=tuple(size[::-1]))
    rng = np.random.default_rng(seed)
    for z in range(size[2]):
        u[z] = rng.random((size[1], size[0]))
    u.flush()
    del u
    tmp.rename(path)
    return path


def parse_bytes(text: str) -> int:
    """'64M', '2G', '512K' or a plain number of bytes."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(float(text[:-1]) * units[text[-1].upper()]) if text[-1].upper() in units else int(text)


def median_spread(xs: list[float]) -> tuple[float, float]:
    """The median and the spread (max - min) / median of repeated measurements."""
    m = statistics.median(xs)
    return m, ((max(xs) - min(xs)) / m if m and len(xs) > 1 else 0.0)
