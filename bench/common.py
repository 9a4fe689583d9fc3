"""What the benchmarks share: a memory cgroup of our own, dropping the page cache, running a
generated program and reading its report, building a program from a .stn file.  Needs root for
the cgroup and drop_caches."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def start(size: str, scratch: str | None, prefix: str) -> tuple[tuple[int, int, int], Path]:
    """Refuse to run without root; the grid's (nx, ny, nz) and the scratch directory (made)."""
    if os.geteuid() != 0:
        sys.exit("this benchmark needs root: it makes memory cgroups and drops the page cache")
    nx, ny, nz = (int(v) for v in size.split(","))
    work = Path(scratch or tempfile.mkdtemp(prefix=prefix, dir="/var/tmp"))
    work.mkdir(parents=True, exist_ok=True)
    return (nx, ny, nz), work


def build(stn: str, exe: Path) -> Path:
    """stencilc STN -o EXE from this checkout."""
    cmd = [sys.executable, "-m", "stencilc", str(REPO / stn), "-o", str(exe)]
    subprocess.run(cmd, check=True, env=dict(os.environ, PYTHONPATH=str(REPO / "compiler")))
    return exe


class Cgroup:
    """A child memory cgroup of our own, v2 if this machine's memory controller is v2, else v1."""

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
            (self.dir / "memory.swap.max").write_text("0") if (self.dir / "memory.swap.max").exists() else None
        else:
            (self.dir / "memory.limit_in_bytes").write_text(str(limit))
            (self.dir / "memory.max_usage_in_bytes").write_text("0")

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
    try:
        subprocess.run(["sync"], check=True)
        Path("/proc/sys/vm/drop_caches").write_text("3")
        return "dropped"
    except OSError as e:
        return f"not dropped ({e.strerror})"


def run(exe: Path, args: list[str], cg: Cgroup | None, timeout: float | None) -> tuple[dict | None, float, str]:
    t0 = time.monotonic()
    try:
        p = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=timeout,
                           preexec_fn=cg.add_self if cg else None)
    except subprocess.TimeoutExpired:
        return None, time.monotonic() - t0, "timeout"
    wall = time.monotonic() - t0
    if p.returncode != 0:
        return None, wall, f"exit {p.returncode}: {p.stderr.strip()[-500:]}"
    rep = Path(args[args.index("--report") + 1])
    return json.loads(rep.read_text()), wall, "ok"
