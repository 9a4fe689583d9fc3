"""Offline Blk-Tune: ``stencilc tune FILE.stn --machine M.json --size ... --steps ...``.

Expects: a .stn file and a machine description (docs/machines.md).  Guarantees: the plan is
chosen by the generated program's own runtime (``--plan-only --machine``), so offline and online
tuning run one implementation of the model and the search; nothing is written but the optional
``--report`` and, with ``--emit-variant -o DIR``, DIR's C sources, header and Makefile with the
chosen parameters built in as the program's defaults, and the program built from them.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

from . import driver
from .codegen import Tuned, generate
from .toolchain import ToolchainError, build


class TuneError(Exception):
    """The run of the planning program failed: `status` is its exit status (2: command line)."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


def _gib(n: int) -> str:
    return f"{n / (1 << 30):.2f} GiB"


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
        exe = build(program, generate(program), Path(tmp) / program.name, cc=cc, cflags=cflags)
        rep_path = Path(report) if report else Path(tmp) / "plan.json"
        rep = plan(exe, machine, size, steps, mem, tuner, schedule, rep_path)
    print(summary(rep, machine), end="")
    if emit_variant:
        files = generate(program, tuned_from(rep, machine))
        driver.write_sources(files, output)
        exe = build(program, files, Path(output) / program.name, cc=cc, cflags=cflags)
        print(f"  variant     {output}/: {', '.join(sorted(files))} and the program {exe}")
    return 0
