"""Offline Blk-Tune: ``stencilc tune FILE.stn --machine M.json --size ... --steps ...``.

Expects: a .stn file and a machine description (docs/machines.md).  Guarantees: the plan is
chosen by the generated program's own runtime (``--plan-only --machine``), so offline and online
tuning run one implementation of the model and the search; nothing is written but the optional
``--report`` and, with ``--emit-variant -o DIR``, DIR's C sources, header and Makefile with the
chosen parameters built in as the program's defaults, and the program built from them.  A stage
that lasts (compiling, planning) says so on stderr after a few seconds; the summary goes to stdout.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from . import driver
from .codegen import Tuned, generate
from .toolchain import ToolchainError, build


class TuneError(Exception):
    """The run of the planning program failed: `status` is its exit status (2: command line)."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


# A stage that lasts longer than this says so on stderr, then again every STATUS_EVERY seconds (compiling
# the runtime library the first time, or a loaded machine, took a minute with nothing printed).
STATUS_AFTER = 2.0
STATUS_EVERY = 30.0


@contextlib.contextmanager
def status(what: str) -> Iterator[None]:
    """Say on stderr what `tune` is doing (`what`, e.g. "compiling heat3d") once the block has run for
    STATUS_AFTER seconds, and how long it has taken every STATUS_EVERY seconds after that; whole lines
    only (stderr may be a log).  Nothing is printed for a stage that ends sooner."""
    done = threading.Event()
    t0 = time.monotonic()

    def speak() -> None:
        if done.wait(STATUS_AFTER):
            return
        sys.stderr.write(f"stencilc tune: {what}...\n")
        sys.stderr.flush()
        while not done.wait(STATUS_EVERY):
            sys.stderr.write(f"stencilc tune: still {what} ({time.monotonic() - t0:.0f} s so far)\n")
            sys.stderr.flush()

    t = threading.Thread(target=speak, name="stencilc-tune-status", daemon=True)
    t.start()
    try:
        yield
    finally:
        done.set()
        t.join()


def _gib(n: int) -> str:
    return f"{n / (1 << 30):.2f} GiB"


def _machine_name(machine: str) -> str:
    """The machine file's "name", else its stem (a file tune cannot read is the planner's to refuse)."""
    try:
        name = json.loads(Path(machine).read_text()).get("name")
    except (OSError, ValueError, AttributeError):
        name = None
    return name if isinstance(name, str) and name else Path(machine).stem


def plan(exe: Path, machine: str, size: str, steps: str, mem: str | None, tuner: str | None,
         schedule: str | None, report: Path) -> dict:
    """Run the program's --plan-only for the described machine; its JSON report."""
    cmd = [str(exe), "--plan-only", "--machine", machine, "--size", size, "--steps", steps, "--quiet",
           "--report", str(report)]
    for flag, value in (("--mem", mem), ("--tuner", tuner), ("--schedule", schedule)):
        if value is not None:
            cmd += [flag, value]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        lines = [ln.split(": error: ", 1)[-1] for ln in r.stderr.strip().splitlines()] or [f"exit {r.returncode}"]
        raise TuneError("; ".join(lines), 2 if r.returncode == 2 else 1)
    return json.loads(report.read_text())


def summary(rep: dict, machine_file: str) -> str:
    p, hw, tune = rep["params"], rep["hardware"], rep.get("tune", {})
    size = ",".join(str(n) for n in rep["size"])
    blocks = "  ".join(f"{k} {p[k]}" for k in ("by", "bz", "bt") if p[k] is not None)
    iblock = "  ".join(f"{k} {p[k]}" for k in ("iy", "iz") if p[k] is not None)
    lines = [
        f"{rep['stencil']} on {hw['machine']} ({machine_file}): --size {size} --steps {rep['steps']}, "
        f"schedule {rep['schedule']}",
        f"  machine     {hw['cores']['value']} cores, {hw['sockets']['value']} sockets, "
        f"L2 {hw['l2_bytes']['value'] >> 10} KiB, DRAM {_gib(hw['dram_bytes']['value'])}, "
        f"device block {hw['device_block_bytes']['value']} B",
        f"  budget      {_gib(rep['mem_budget_bytes'])} ({rep['mem_budget_source']})",
        f"  blocks      {blocks}  (z-strip: {rep['strip']})",
        f"  iBlock      {iblock}  ({rep['iblock_source']})",
        f"  predicted   read {_gib(rep['predicted_bytes_read'])}, written {_gib(rep['predicted_bytes_written'])}",
        f"  DRAM        {_gib(rep['mem_plan_bytes'])} of the budget's {_gib(rep['mem_budget_bytes'])}",
    ]
    if tune:
        lines.append(f"  tuner       {rep['tuner']}: {tune['plans_weighed']} plans weighed in "
                     f"{tune['seconds'] * 1e3:.1f} ms")
    return "\n".join(lines) + "\n"


def tuned_from(rep: dict, machine_file: str) -> Tuned:
    p, size = rep["params"], list(rep["size"])
    nd = len(size)
    return Tuned(
        machine=rep["hardware"]["machine"], machine_file=machine_file,
        size=(size[0], size[1], size[2] if nd == 3 else 1), steps=rep["steps"],
        block=(p["by"], p["bz"] if nd == 3 else 0, p["bt"]), iblock=(p["iy"], p["iz"] if nd == 3 else 1),
        strip=rep["strip"], schedule=rep["schedule"], tuner=rep["tuner"], mem_budget=rep["mem_budget_bytes"],
        mem_plan=rep["mem_plan_bytes"], predicted_read=rep["predicted_bytes_read"],
        predicted_written=rep["predicted_bytes_written"])


def run(path: str, machine: str, size: str, steps: str, mem: str | None = None, tuner: str | None = None,
        schedule: str | None = None, report: str | None = None, emit_variant: bool = False,
        output: str | None = None, cc: str | None = None, cflags: str | None = None) -> int:
    if emit_variant and not output:
        raise ToolchainError("--emit-variant writes a directory: give it with -o DIR")
    if output and not emit_variant:
        raise ToolchainError("-o DIR is where --emit-variant writes; without --emit-variant tune writes nothing")
    program = driver.front(path)
    with tempfile.TemporaryDirectory(prefix="stencilc-tune-") as tmp:
        with status(f"compiling {program.name} (the runtime library is built once per compiler and flags, "
                    "then cached)"):
            exe = build(program, generate(program), Path(tmp) / program.name, cc=cc, cflags=cflags)
        rep_path = Path(report) if report else Path(tmp) / "plan.json"
        with status(f"planning {program.name} for {_machine_name(machine)} (the tuner weighs the plans)"):
            rep = plan(exe, machine, size, steps, mem, tuner, schedule, rep_path)
    print(summary(rep, machine), end="")
    if emit_variant:
        files = generate(program, tuned_from(rep, machine))
        driver.write_sources(files, output)
        with status(f"compiling the variant {output}/{program.name}"):
            exe = build(program, files, Path(output) / program.name, cc=cc, cflags=cflags)
        print(f"  variant     {output}/: {', '.join(sorted(files))} and the program {exe}")
    return 0
