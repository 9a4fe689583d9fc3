"""The markdown report: the run's facts, one section per experiment (its command line, a table,
its plot, its bound and where stencilc stands against it), and a summary that says plainly
where stencilc is behind a peer or far from a bound.  Every sentence with a number in it is
computed from the results; nothing here is written by hand after the fact."""

from __future__ import annotations

import os
from pathlib import Path

from bench import experiments, model
from bench.common import PROCESS_EXTRA, run_cap

GiB, MiB = float(1 << 30), float(1 << 20)
FAR = 0.5  # below this fraction of its bound a point is called far from it


def _ok(rows):
    return [r for r in rows if r.get("status") == "ok"]


def _rows(res, exp):
    return [r for r in res["rows"] if r.get("experiment") == exp]


def _model_ratio(r):
    """Measured / predicted time of an out-of-core row: the median of its runs' own ratios (each run
    predicts with the rates it measured at startup); older results: the medians' ratio."""
    if r.get("model_ratio"):
        return r["model_ratio"]
    return r["seconds"] / r["predicted_seconds"] if r.get("predicted_seconds") else None


def _e(x, fmt=".3g"):
    return "n/a" if x is None else format(x, fmt)


def _blk(r):
    """by,bz,bt and the sweeps they take; fewer than MIN_SWEEPS is said (a run that mostly computes
    in DRAM and reads little back is not what users run)."""
    from bench.experiments import MIN_SWEEPS

    p = r.get("params") or {}
    if not p.get("by"):
        return ""
    sw = _sweeps(r)
    note = "" if sw is None else f" ({sw} sweep{'s' if sw != 1 else ''}{f', < {MIN_SWEEPS}' if sw < MIN_SWEEPS else ''})"
    return f"{p.get('by')},{p.get('bz')},{p.get('bt')}{note}"


def _sweeps(r):
    """The sweeps of an out-of-core row (from its steps and bt in results older than the field)."""
    bt = (r.get("params") or {}).get("bt")
    if r.get("mode") != "ooc" or not bt or not (r.get("sweeps") or r.get("steps")):
        return None
    return r.get("sweeps") or -(-r["steps"] // bt)


def _traffic(r):
    if r.get("mode") == "mmap" and r.get("status") == "ok":
        return f"paging {r.get('paging_bytes_read', 0) / GiB:.1f} + {r.get('paging_bytes_written', 0) / GiB:.1f}"
    if "bytes_read" not in r or r.get("mode") != "ooc":
        return ""
    c = (r["bytes_read"] + r["bytes_written"]) / GiB
    p = (r["predicted_bytes_read"] + r["predicted_bytes_written"]) / GiB
    return f"{c:.2f} ({'= model' if abs(c - p) < 1e-9 else f'model {p:.2f}'})"


def _bound_txt(res, r):
    b, kind = model.bound(res, r)
    if not b or "cells_per_second" not in r:
        return "n/a"
    return f"{kind} {b:.2e}: {r['cells_per_second'] / b:.0%}"


def _peak(r):
    if not r.get("cap"):
        return "no cap"
    return f"{(r.get('peak_cgroup') or 0) / MiB:.0f} / {r['cap'] / MiB:.0f}"


def _cmd(res, name):
    base = res["command"]
    prof = res["profile"]["name"]
    return f"python -m bench --profile {prof} --only {name}" + (f" --dir {res['dir']}" if "--dir" in base else "")


class Report:
    def __init__(self, res, figs, path: Path):
        self.res, self.figs, self.path = res, figs, path
        self.lines: list[str] = []
        self.findings: list[str] = []

    def w(self, *ls):
        self.lines += ls

    def fig(self, name, alt):
        if name in self.figs:
            rel = os.path.relpath(self.figs[name], self.path.parent)
            self.w("", f"![{alt}]({rel})", "")

    def table(self, head, rows):
        self.w("", "| " + " | ".join(head) + " |", "|" + "---|" * len(head))
        for r in rows:
            self.w("| " + " | ".join(str(x) for x in r) + " |")
        self.w("")

    def section(self, exp: str, title: str) -> list:
        """The rows of experiment `exp`; when it has any, its heading and command line are written."""
        rows = _rows(self.res, exp)
        if rows:
            self.w("", f"## {title}", "", f"Command: `{_cmd(self.res, exp)}`", "")
        return rows

    # ------------------------------------------------------------------ sections

    def header(self):
        res = self.res
        m = res["machine"]
        self.w("# Benchmarks", "",
               f"Measured on {res['date'][:10]} (started {res['date']}) with the `{res['profile']['name']}` profile, "
               f"in {res.get('seconds_total', 0) / 60:.0f} minutes. This file is written by the runner; rerun it "
               "rather than editing it.", "",
               f"- Command: `{res['command']}`",
               f"- Machine: {m['cpu']}, {m['cores']} cores, {m['mem_total_bytes'] / GiB:.1f} GiB, Linux {m['kernel']}",
               f"- Device under test: `{res['dir']}`",
               f"- DRAM budgets: {'enforced' if res['cgroups'] else '**not enforced**'} ({res['cgroup_note']}; each "
               f"cap is 4/3 of the `--mem` budget plus {PROCESS_EXTRA >> 20} MiB for the process's binary and libraries, "
               "page cache included)",
               f"- Page cache before each run: {res['caches']}",
               f"- Repeats: {res['profile']['repeat']} per point; tables give the median, and the spread is "
               "(max - min) / median.",
               "- Plots and data: the PNGs beside this file's images, and `results.json`, `results.csv` and `log.txt` "
               "in the runner's output folder.")
        from bench.experiments import MIN_SWEEPS

        ooc = [r for r in _ok(res["rows"]) if r.get("mode") == "ooc"]
        few = [r for r in ooc if _sweeps(r) is not None and _sweeps(r) < MIN_SWEEPS]
        fresh = [r for r in ooc if not r.get("init")]
        if few or fresh:
            self.w(f"- **The favourable case:** {len(few)} of the {len(ooc)} out-of-core runs took fewer than "
                   f"{MIN_SWEEPS} sweeps, and {len(fresh)} started from the stencil's `init` expression rather than "
                   "an `--init` file, so they read little or nothing back from flash. Long runs that read their "
                   "state back are slower; see the `longrun` experiment where this run has it.")
            self.findings.append(f"{len(few)} of {len(ooc)} out-of-core runs are one sweep or few "
                                 f"(< {MIN_SWEEPS}), {len(fresh)} read no initial state: their ratios flatter the "
                                 "engine.")

    def limits(self):
        res = self.res
        lim = res["limits"]
        t = lim["triad"]
        self.w("", "## The machine's limits", "",
               "These are measured at the start of the same run (`bench/limits.py`).")
        rows = [["DRAM, STREAM triad", f"{t['bytes_per_second'] / 1e9:.1f} GB/s",
                 f"{t['threads']} threads, 3 x {t['n'] * 8 / MiB:.0f} MiB, best of {t['repeats']}"],
                ["DRAM, STREAM copy", f"{t.get('copy_bytes_per_second', 0) / 1e9:.1f} GB/s", "the stencil's pattern"]]
        for x in lim["aio"].get("runs", []):
            rows.append([f"O_DIRECT {x['direction']}, QD {x['qd']}", f"{x['bytes_per_second'] / 1e9:.2f} GB/s",
                         f"libaio, {x['request_bytes'] / MiB:.0f} MiB requests, {x['bytes'] / GiB:.0f} GiB"])
        if lim["aio"].get("refused"):
            rows.append(["O_DIRECT", "refused", lim["aio"]["refused"]])
        pr = lim.get("probe") or {}
        if pr.get("read"):
            rows.append(["device curve, read", f"`{pr['read']}`", "`stencilc probe --dir DIR`: REQUEST@DEPTH:BYTES/s"])
            rows.append(["device curve, write", f"`{pr['write']}`", "the time model's input for every run below"])
            if pr.get("mixed"):
                rows.append(["device curve, mixed", f"`{pr['mixed']}`", "reads and writes at once, both counted"])
            if pr.get("mixed_new"):
                rows.append(["device curve, mixed_new", f"`{pr['mixed_new']}`",
                             "the same, writing into new files (a run's first two sweeps)"])
            if pr.get("compute_under_io"):
                rows.append(["compute under IO", f"{pr['compute_under_io']:.2f}",
                             "the share of the kernels' speed left while the device is busy (probe)"])
            if pr.get("io_under_compute"):
                rows.append(["IO under compute", f"{pr['io_under_compute']:.2f}",
                             "the share of the device's mixed bandwidth left while the kernels run (probe)"])
        elif pr.get("failed"):
            rows.append(["device curve", "not measured", pr["failed"]])
        for st, r in lim["in_cache"].items():
            if r.get("cells_per_second"):
                rows.append([f"compute, {st} in cache", f"{r['cells_per_second']:.3e} cells/s",
                             f"in-core {r['size'][0]}^3, {r['steps']} steps"])
        self.table(["limit", "value", "how"], rows)
        self.w(f"The bounds drawn in the plots: in-core, **DRAM** {model.dram_bound(res):.3e} cells/s (the better "
               "bandwidth / 16 bytes per cell) and **compute** (the stencil in cache); out-of-core, **IO**, the run's "
               "own traffic at the best read and write bandwidths above (`bench/model.py`).")
        self.fig("limits", "bandwidth against queue depth; STREAM")

    def size(self):
        rows = self.section("size", "1. Problem size against a fixed DRAM budget (Blk-Tune paper, fig. 6)")
        if not rows:
            return
        res = self.res
        p = res["profile"]
        self.w(f"heat3d (f64), {p['plane']} x {p['plane']} planes, from an `--init` file, {rows[0].get('steps', p['steps'])} steps or more "
               "(4 sweeps of the blocks Blk-Tune picks, in the runs that record it). The out-of-core runs get "
               f"`--mem {p['budget'] >> 20}M` and a cgroup of {run_cap(p['budget']) >> 20} MiB; in-core runs have no cap. "
               "Every out-of-core result is compared bit for bit with in-core.")
        inc = {r["ratio"]: r for r in _ok(rows) if r["mode"] == "incore"}
        tab = []
        for r in (r for r in rows if r["mode"] == "ooc"):
            i = inc.get(r["ratio"])
            rel = r["cells_per_second"] / i["cells_per_second"] if i and r["status"] == "ok" else None
            tab.append([f"{r['ratio']}x", f"{r['problem_bytes'] / GiB:.2f}", _e(i and i["cells_per_second"], ".3e"),
                        _e(r.get("cells_per_second"), ".3e"), _e(rel, ".2f"), f"{r.get('spread', 0):.0%}", _blk(r),
                        _traffic(r), _peak(r), r.get("bit_identical_to_incore", r["status"]), _bound_txt(res, r)])
            if rel is not None and rel < 0.8:
                self.findings.append(f"Out-of-core at {r['ratio']}x the budget runs at {rel:.2f} of in-core "
                                     f"({r['cells_per_second']:.2e} against {i['cells_per_second']:.2e} cells/s).")
            self._far(r, f"heat3d out-of-core at {r['ratio']}x")
        self.table(["problem / budget", "GiB", "in-core cells/s", "ooc cells/s", "ooc / in-core", "spread",
                    "blocks by,bz,bt", "traffic GiB", "cgroup peak / cap MiB", "bit-identical", "bound: ooc at"], tab)
        self.fig("size", "cells/s against problem size / budget")

    def _far(self, r, what):
        b, kind = model.bound(self.res, r)
        if b and r.get("cells_per_second") and r["cells_per_second"] / b < FAR:
            self.findings.append(f"{what} is far from its {kind} bound: {r['cells_per_second']:.2e} cells/s, "
                                 f"{r['cells_per_second'] / b:.0%} of {b:.2e}.")

    def methods(self):
        rows = self.section("methods", "2. Out-of-core methods (Blk-Tune paper, figs. 5, 12 and 20)")
        if not rows:
            return
        res = self.res
        self.w(f"heat3d at {rows[0]['ratio']}x the budget: the reference schedule (`--schedule ref`), `alg2`, `alg1` "
               f"and `--mode mmap` (the same kernels on mmap'ed files; stopped after {res['profile']['mmap_timeout']:.0f} s), "
               "each in the same cgroup. Time components are the main thread's: read (synchronous reads), write "
               "(final syncs), copy, compute, wait (for asynchronous IO), init, and other (the rest of the loop).")
        tab = []
        for r in rows:
            ph = r.get("phases", {})
            cps = (f"{r['cells_per_second']:.3e}" if r["status"] == "ok" else
                   f"< {r.get('cells_per_second_at_most', 0):.2e} ({r['status']} at {r.get('wall', 0):.0f} s)")
            tab.append([r["label"], cps, _e(r.get("seconds"), ".2f"), f"{r.get('spread', 0):.0%}", _blk(r), _traffic(r),
                        " / ".join(f"{ph.get(k, 0):.2f}" for k in ("read", "write", "copy", "compute", "wait")) if ph
                        else "", _peak(r), _bound_txt(res, r)])
            if r["mode"] == "ooc":
                self._far(r, f"The {r['label']} schedule")
        self.table(["method", "cells/s", "loop s", "spread", "blocks", "traffic GiB", "read/write/copy/compute/wait s",
                    "cgroup peak / cap MiB", "bound: at"], tab)
        ref = next((r for r in _ok(rows) if r["label"] == "ooc ref"), None)
        if ref:
            for r in rows:
                if r is ref or r["mode"] == "incore":
                    continue
                if r["status"] == "ok":
                    s = ref["cells_per_second"] / r["cells_per_second"]
                    self.w(f"- The reference schedule is {s:.2f}x the speed of {r['label']}.")
                    if s < 0.95:
                        self.findings.append(f"The reference schedule is slower than {r['label']} ({s:.2f}x).")
                elif r.get("cells_per_second_at_most"):
                    self.w(f"- The reference schedule is at least {ref['cells_per_second'] / r['cells_per_second_at_most']:.0f}x "
                           f"the speed of {r['label']} (which did not finish).")
        self.fig("methods", "time components and cells/s of each method")

    def tuners(self):
        rows = self.section("tuners", "3. Blk-Tune against Naive-Tune and hand-picked blocks (Blk-Tune paper, "
                                      "figs. 19-21)")
        if not rows:
            return
        res = self.res
        ok = _ok(rows)
        self.w(f"heat3d at {rows[0]['ratio']}x the budget. Manual choices follow the paper's section VI: for each "
               "power-of-two bt, the largest power-of-two whole-plane bz that fits and the largest square tile, then "
               "halves. Everything ran once (a hand-picked choice still running at "
               f"{experiments.TUNERS_STOP_FACTOR:g}x the best wall time so far was stopped there: it could not "
               "be the best); then blk, naive and the three fastest manual choices ran again, "
               "interleaved, and their times are the medians of all their runs.")
        tab = [[r["label"], _blk(r), r.get("strip", ""), f"{r['seconds']:.2f}", f"{r['spread']:.0%}", len(r["runs"]),
                _traffic(r), _peak(r), _bound_txt(res, r)] for r in sorted(ok, key=lambda r: r["seconds"])]
        tab += [[r["label"], "", "", (f"> {r['wall']:.0f} wall s (stopped)" if r["status"] == "timeout" else r["status"]),
                 "", "", "", "", ""] for r in rows if r["status"] != "ok"]
        self.table(["choice", "by,bz,bt", "strip", "loop s", "spread", "runs", "traffic GiB", "cgroup peak / cap MiB",
                    "bound: at"], tab)
        blk = next((r for r in ok if r["label"] == "blk"), None)
        naive = next((r for r in ok if r["label"] == "naive"), None)
        manual = [r for r in ok if r["label"].startswith("manual")]
        if blk and manual:
            best = min(manual, key=lambda r: r["seconds"])
            q = blk["seconds"] / best["seconds"]
            self.w(f"- blk / best manual ({best['label']}) = **{q:.3f}** in time (target <= 1.05).")
            if q > 1.05:
                self.findings.append(f"Blk-Tune's choice is {q:.2f}x the time of the best hand-picked block "
                                     f"({best['label']}).")
        if blk and naive:
            q = naive["seconds"] / blk["seconds"]
            self.w(f"- naive / blk = **{q:.2f}** in time (target >= 1.2).")
            if q < 1.2:
                self.findings.append(f"Naive-Tune's choice is only {q:.2f}x the time of Blk-Tune's here.")
        self.fig("tuners", "time of each tuner's and each hand-picked choice")

    def shapes(self):
        rows = self.section("shapes", "4. Stencil shapes")
        if not rows:
            return
        from bench.experiments import STENCILS

        res = self.res
        self.w(f"Each stencil out-of-core at {res['profile'].get('shape_ratio', res['profile']['method_ratio'])}x the budget against its in-core run (bit "
               "for bit) and its in-cache rate.")
        tab = []
        for st in dict.fromkeys(r["stencil"] for r in rows):
            o = next((r for r in rows if r["stencil"] == st and r["mode"] == "ooc"), {})
            i = next((r for r in rows if r["stencil"] == st and r["mode"] == "incore" and "in cache" not in r["label"]),
                     {})
            c = next((r for r in rows if r["stencil"] == st and "in cache" in r["label"]), {})
            rel = o["cells_per_second"] / i["cells_per_second"] if o.get("cells_per_second") and i.get(
                "cells_per_second") else None
            tab.append([st, STENCILS[st][1], _e(c.get("cells_per_second"), ".3e"), _e(i.get("cells_per_second"), ".3e"),
                        _e(o.get("cells_per_second"), ".3e"), _e(rel, ".2f"), _blk(o), _traffic(o),
                        o.get("bit_identical_to_incore", o.get("status")), _bound_txt(res, o) if o else ""])
            if rel is not None and rel < 0.8:
                self.findings.append(f"{st} out-of-core runs at {rel:.2f} of its in-core speed.")
            if o:
                self._far(o, f"{st} out-of-core")
        self.table(["stencil", "shape", "in cache cells/s", "in-core", "out-of-core", "ooc / in-core", "blocks",
                    "traffic GiB", "bit-identical", "bound: ooc at"], tab)
        self.fig("shapes", "cells/s of each stencil shape")

    def longrun(self):
        rows = self.section("longrun", "5. Long runs that read their state back")
        if not rows:
            return
        p = self.res["profile"]
        self.w(f"heat3d (f64), one level of {p['long_level'] / GiB:.0f} GiB in three plane shapes, at least "
               f"{p['long_steps']} steps (and 4 sweeps of Blk-Tune's blocks) from an `--init` file on the device under "
               "test. Out-of-core gets `--mem` = 1/16 of a level and a "
               f"cgroup of 4/3 of that plus {PROCESS_EXTRA >> 20} MiB (the process's binary and libraries); in-core has no "
               "cap. The two ran in turn, "
               f"{p['repeat']} times each, so that drift hits both; each pair gives a ratio, by the time loop "
               "(cells/s) and by the whole job (the report's `seconds.job`: from the process's start, through the "
               "import of the `--init` file, the loop and the export, to the report).")
        tab = []
        for o in (r for r in rows if r["mode"] == "ooc"):
            i = next((r for r in rows if r["mode"] == "incore" and r["planes"] == o["planes"]), {})
            rel = o["cells_per_second"] / i["cells_per_second"] if o.get("cells_per_second") and i.get(
                "cells_per_second") else None
            pairs = o.get("pair_ratios") or []
            jobs = o.get("pair_job_ratios") or []
            ph = o.get("phases", {})
            tab.append([f"{o['planes'][0]} x {o['planes'][1]}", "x".join(map(str, o["size"])),
                        f"{(o.get('budget') or 0) >> 20}", _e(i.get("cells_per_second"), ".3e"),
                        _e(o.get("cells_per_second"), ".3e"), _e(rel, ".2f"),
                        ", ".join(f"{x:.2f}" for x in pairs), ", ".join(f"{x:.2f}" for x in jobs), _blk(o),
                        _traffic(o),
                        " / ".join(f"{ph.get(k, 0):.1f}" for k in ("read", "write", "compute", "wait")) if ph else "",
                        _e(o.get("predicted_seconds"), ".1f"),
                        _e(_model_ratio(o), ".2f"),
                        ", ".join(f"{x:.2f}" for x in o.get("job_model_ratios") or []),
                        _peak(o), o.get("bit_identical_to_incore", o.get("status"))])
            if rel is not None and rel < 0.9:
                self.findings.append(f"Long run, {o['planes'][0]} x {o['planes'][1]} planes: out-of-core runs at "
                                     f"{rel:.2f} of in-core (target >= 0.90).")
        self.table(["planes", "grid", "--mem MiB", "in-core cells/s", "ooc cells/s", "ooc / in-core", "each pair",
                    "each pair, whole job", "blocks", "traffic GiB", "read/write/compute/wait s", "predicted s", "measured / predicted",
                    "wall / predicted job, each run", "cgroup peak / cap MiB", "bit-identical"],
                   tab)

    def peers(self):
        rows = self.section("peers", "6. In-core against the tools users pick instead")
        if not rows:
            return
        res = self.res
        self.w("The same heat3d update (7-point, f64, Dirichlet) on all threads. Each Python tool is installed from "
               "PyPI by the runner into an environment of its own (`build/bench/venvs/`), and each tool, stencilc "
               "included, is checked against the NumPy reference of the test suite before it is timed. Times are of "
               "the time loop only (no compilation, no auto-tuning), the median of the repeats.")
        tab = []
        for r in rows:
            b, kind = model.bound(res, r) if r.get("cells_per_second") else (None, "")
            tab.append([f"{r['size'][0]}^3", r["label"], _e(r.get("cells_per_second"), ".3e"),
                        _e(r.get("seconds"), ".3f"), f"{r.get('spread', 0):.0%}", r.get("check", ""),
                        _e(r.get("check_max_abs_error"), ".1e"), f"{kind} {r['cells_per_second'] / b:.0%}" if b else "",
                        r.get("version", ""), (r.get("notes", "") + ("" if r["status"] == "ok" else " " + r["status"]))])
        self.table(["grid", "tool", "cells/s", "loop s", "spread", "check", "max error", "bound: at", "version",
                    "notes"], tab)
        for n in dict.fromkeys(r["size"][0] for r in rows):
            at = {r["label"]: r for r in _ok(rows) if r["size"][0] == n}
            ours = at.get("stencilc")
            if not ours:
                self.findings.append(f"stencilc did not run in-core at {n}^3.")
                continue
            parts = []
            for name, r in at.items():
                if name == "stencilc":
                    continue
                q = ours["cells_per_second"] / r["cells_per_second"]
                parts.append(f"{q:.2f}x {name}")
                if q < 0.95:
                    self.findings.append(f"In-core at {n}^3 stencilc is behind {name}: {ours['cells_per_second']:.2e} "
                                         f"against {r['cells_per_second']:.2e} cells/s ({q:.2f}x).")
            self.w(f"- {n}^3: stencilc runs at " + ", ".join(parts) + " the speed.")
            self._far(ours, f"stencilc in-core at {n}^3")
            for r in rows:
                if r["size"][0] == n and r.get("status") != "ok":
                    self.findings.append(f"{r['label']} at {n}^3 was not measured: {r['status']}")
        self.fig("peers", "in-core cells/s of stencilc and its peers")

    # ------------------------------------------------------------------ the targets of issue 12

    def _ooc_reason(self, o, i):
        """Why an out-of-core run is below 0.90 of its in-core run, from what was measured: the device's
        time for its traffic at the best bandwidths, else where its time went."""
        res = self.res
        t_in, t_o = i["seconds"], o["seconds"]
        t_io = model.io_min_seconds(res, o.get("bytes_read", 0), o.get("bytes_written", 0))
        bw = model.io_bw(res)
        gib = (o.get("bytes_read", 0) + o.get("bytes_written", 0)) / GiB
        if t_io and t_io > t_in / 0.9:
            return (f"IO-bound on this device: its {gib:.1f} GiB need at least {t_io:.1f} s at the best O_DIRECT "
                    f"bandwidths measured ({bw[0] / 1e9:.2f} GB/s read, {bw[1] / 1e9:.2f} GB/s write, at once), "
                    f"against {t_in:.1f} s in-core: no schedule moving these bytes reaches 0.90 here")
        ph = o.get("phases", {})
        c, w = ph.get("compute", 0), ph.get("wait", 0)
        return (f"{t_o:.1f} s against {t_in:.1f} s in-core: its kernels alone took {c:.1f} s ({c / t_in:.2f}x the "
                f"whole in-core run: they run slower while the device is busy), and it waited {w:.1f} s more for "
                f"the device, which needs at least {_e(t_io, '.1f')} s for its {gib:.1f} GiB at the best bandwidths "
                "measured")

    def targets(self):
        """One table: each target of issue 12, what this run measured, met or not, and why not."""
        res = self.res
        tab = []
        lr = _ok(_rows(res, "longrun"))
        for o in (r for r in lr if r["mode"] == "ooc"):
            i = next((r for r in lr if r["mode"] == "incore" and r["planes"] == o["planes"]), None)
            if not i:
                continue
            rel = o["cells_per_second"] / i["cells_per_second"]
            tab.append([f"heat3d {o['planes'][0]} x {o['planes'][1]} planes, long run from `--init`, `--mem` = 1/16 "
                        "of a level: ooc / in-core >= 0.90", f"{rel:.2f}", rel >= 0.9, _cmd(res, "longrun"),
                        "" if rel >= 0.9 else self._ooc_reason(o, i)])
        ooc = [r for r in _ok(res["rows"]) if r.get("mode") == "ooc" and _model_ratio(r)]
        if ooc:
            over = sorted((r for r in ooc if _model_ratio(r) > 1.15), key=_model_ratio, reverse=True)
            why = ""
            if over:
                w = over[0]
                ph = w.get("phases", {})
                why = (f"{len(over)} over: " + ", ".join(f"{r['experiment']} {r['label']} {_model_ratio(r):.2f}"
                                                          for r in over[:6]) + (", ..." if len(over) > 6 else "") +
                       f"; the worst waited {ph.get('wait', 0):.1f} s for IO and computed {ph.get('compute', 0):.1f} "
                       f"s of {w['seconds']:.1f} s, so the device gave it less than its probed curve while the "
                       "kernels ran")
            tab.append(["every out-of-core run: wall time <= 1.15x `predicted_seconds`",
                        f"{len(ooc) - len(over)} of {len(ooc)} (worst {max(_model_ratio(r) for r in ooc):.2f})",
                        not over, "every experiment above", why])
        peers = _ok(_rows(res, "peers"))
        ours = next((r for r in peers if r["label"] == "stencilc" and r["size"][0] == 512), None)
        dev = next((r for r in peers if r["label"].lower().startswith("devito") and r["size"][0] == 512), None)
        if ours and dev:
            q = ours["cells_per_second"] / dev["cells_per_second"]
            d = model.dram_bound(res)
            tab.append(["in-core heat3d 512^3: >= 1.5x Devito (its autotuner on)", f"{q:.2f}x", q >= 1.5,
                        _cmd(res, "peers"), "" if q >= 1.5 else
                        f"stencilc runs at {ours['cells_per_second'] / d:.0%} of the DRAM bound, Devito at "
                        f"{dev['cells_per_second'] / d:.0%}"])
        cache = model.compute_bound(res, "heat3d")
        runs = [r for r in lr if r["mode"] == "ooc" and (r.get("phases") or {}).get("compute")]
        if cache and runs:
            rates = [(r["cells"] / r["phases"]["compute"], r) for r in runs]
            low, r = min(rates, key=lambda x: x[0])
            i = next((x for x in lr if x["mode"] == "incore" and x["planes"] == r["planes"]), {})
            tab.append(["out-of-core compute >= 70% of the in-cache rate (long runs)",
                        f"{low / cache:.0%} at worst ({r['planes'][0]} x {r['planes'][1]}; "
                        + ", ".join(f"{x / cache:.0%}" for x, _ in rates) + ")", low / cache >= 0.7,
                        _cmd(res, "longrun"), "" if low / cache >= 0.7 else
                        f"the kernels compute {low:.2e} cells/s against {cache:.2e} in cache; in-core, with no IO "
                        f"at all, the same grid runs at {_e(i.get('cells_per_second'), '.2e')} cells/s"])
        tn = _rows(res, "tuners")
        blk = next((r for r in _ok(tn) if r["label"] == "blk"), None)
        manual = [r for r in tn if r["label"].startswith("manual")]
        done = _ok(manual)
        if blk and done:
            best = min(done, key=lambda r: r["seconds"])
            q = blk["seconds"] / best["seconds"]
            sweeps = _sweeps(blk) or 0
            differ = max(r["seconds"] for r in done) / best["seconds"]
            met = q <= 1.05 and len(manual) >= 12 and sweeps >= 2
            reasons = []
            if q > 1.05:
                reasons.append(f"Blk-Tune's {_blk(blk)} took {blk['seconds']:.1f} s against {best['seconds']:.1f} s "
                               f"for {best['label']}")
            if len(manual) < 12:
                reasons.append(f"only {len(manual)} manual choices ran")
            if sweeps < 2:
                reasons.append("Blk-Tune's plan is one sweep")
            tab.append(["Blk-Tune within 5% of the best of >= 12 manual choices, multi-sweep, choices that differ",
                        f"{q:.3f} of the best ({len(manual)} manual choices, the slowest {differ:.1f}x the best; "
                        f"blk {sweeps} sweeps)", met, _cmd(res, "tuners"), "; ".join(reasons)])
        if not tab:
            return
        self.w("", "## The targets (issue 12)", "",
               "Each target as the issue states it, what this run measured, and, where it is missed, the measured "
               "reason.")
        self.table(["target", "measured", "met", "command", "why not"],
                   [[t, m, "yes" if ok else "**no**", f"`{c}`" if c.startswith("python") else c, why]
                    for t, m, ok, c, why in tab])

    def model_section(self):
        res = self.res
        rows = [r for r in _ok(res["rows"]) if r.get("mode") == "ooc" and "predicted_bytes_read" in r]
        if not rows:
            return
        exact = sum(1 for r in rows if r["bytes_read"] == r["predicted_bytes_read"] and
                    r["bytes_written"] == r["predicted_bytes_written"])
        errs, runtime_model = [], all("predicted_seconds" in r for r in rows)
        for r in rows:
            if runtime_model:
                q = _model_ratio(r)
            else:
                p = model.predicted_seconds(res, r)
                q = r["seconds"] / p if p else None
            if q:
                errs.append((q, r))
        how = ("the runtime's own time model (`predicted_seconds` in each report; docs/out-of-core.md, 'The time "
               "model': the device curve at the plan's request size, the compute rate measured at startup or, after "
               "earlier runs of the same program, grid and plan, the rate that gave the model their loops' time, "
               "the pipeline of the schedule)" if runtime_model else
               "`bench/model.py`: the predicted bytes at the measured bandwidths, overlapped with the compute at the "
               "in-core rate (these results predate the runtime's time model)")
        self.w("", "## 7. The IO model against measurement", "",
               "Every out-of-core run above: the flash traffic the cost model predicted against the bytes the runtime "
               f"counted, and the time predicted by {how} against the measured time loop.", "",
               f"- Bytes: {exact} of {len(rows)} runs moved exactly the predicted bytes.")
        if exact < len(rows):
            self.findings.append(f"{len(rows) - exact} out-of-core runs did not move the bytes the model predicted.")
        if errs:
            qs = sorted(q for q, _ in errs)
            worst = max(errs, key=lambda x: abs(x[0] - 1))
            self.w(f"- Time: measured / predicted has median {qs[len(qs) // 2]:.2f} (from {qs[0]:.2f} to {qs[-1]:.2f}); "
                   f"the worst is {worst[1]['experiment']} {worst[1]['label']} at {worst[0]:.2f}.")
            over = [x for x in errs if x[0] > 1.15]
            self.w(f"- Target (issue 12): wall time <= 1.15x predicted for every run: "
                   f"{len(errs) - len(over)} of {len(errs)} runs meet it.")
            slow = [x for x in errs if x[0] > 1.5]
            if slow:
                self.findings.append(f"{len(slow)} of {len(errs)} out-of-core runs took more than 1.5x the time the "
                                     f"model predicts (worst: {worst[1]['experiment']} {worst[1]['label']}, "
                                     f"{worst[0]:.2f}x): IO and compute overlap less than the model assumes.")
        self.fig("model", "predicted against measured bytes and time")

    def mpi(self):
        """bench/mpi.py's results (mpi.json beside results.json), when there are some."""
        m = self.res.get("mpi")
        if not m:
            return
        gib, mib = float(1 << 30), float(1 << 20)
        net = m["network_here"]
        self.w("", "## 8. MPI ranks, each out of core (issue 17)", "",
               f"`python -m bench.mpi --plane {m['plane']} --nz {m['nz']} --steps {m['steps']} --fraction "
               f"{m.get('fraction', '?')} --reps {m.get('reps', '?')}` (measured {m.get('date', '?')}): heat3d, planes "
               f"{m['plane']} x {m['plane']}, {m['steps']} steps, each rank `--mem` {m['budget'] / mib:.0f} MiB, its "
               "state read back from an `--init` file, Blk-Tune's blocks (several sweeps, the ghosts exchanged "
               "between them), the page cache dropped before each run, "
               + (f"the whole job in one memory cgroup of the ranks' budgets x 4/3 + {PROCESS_EXTRA >> 20} MiB each" if m["cgroup"]
                  else "NOT in a cgroup") + "; strong: one grid; weak: the planes x the ranks. "
               "On this 2-core VM 3 and 4 ranks are oversubscribed and every rank shares the one virtual disk: "
               "what this shows is what the slabs do to the IO and what the messages cost, not more cores. "
               "*total* is the program's whole run (each rank's Blk-Tune rounds and rate measurements included); "
               "*loop* is its time loop (rank 0's; the ranks run in step).", "",
               "| run | ranks | planes | total s | loop s | loop: speedup / efficiency | bt | read GiB | written GiB "
               "| messages MiB | bytes and messages = model | cgroup peak MiB |",
               "|---|---|---|---|---|---|---|---|---|---|---|---|")
        for r in m["runs"]:
            self.w(f"| {r['kind']} | {r['ranks']} | {r['planes']} | {r['seconds']:.2f} (±{100 * r['spread']:.0f}%) | "
                   f"{r.get('loop_seconds', 0):.2f} (±{100 * r.get('loop_spread', 0):.0f}%) | "
                   f"{r.get('loop_ratio', 0):.2f} | {r['bt']} | {r['bytes_read'] / gib:.2f} | "
                   f"{r['bytes_written'] / gib:.2f} | {r['message_bytes'] / mib:.1f} | "
                   f"{'yes' if r['model_exact'] else 'NO'} | {r['cgroup_peak'] / mib:.0f} |")
        one = next((r for r in m["runs"] if r["kind"] == "strong" and r["ranks"] == 1), None)
        n1 = next((r for r in m["extrapolation"] if r["kind"] == "strong" and r["machines"] == 1
                   and not r.get("no_plan")), None)
        if one and one.get("loop_seconds"):
            rate = (one["bytes_read"] + one["bytes_written"]) / one["loop_seconds"] / 1e9
            self.w("", f"Reading it: one rank's time loop moves {(one['bytes_read'] + one['bytes_written']) / gib:.2f} GiB "
                   f"in {one['loop_seconds']:.2f} s, {rate:.2f} GB/s, about what the one virtual disk gives: the "
                   "ranks here share that disk and two cores, so the strong runs stay near one rank's time (their "
                   "ghosts add IO and messages), and each weak run moves P times the bytes through the same disk. "
                   "Machines with a disk each are what the model below is for."
                   + (f" Its one-machine figure, {n1['slab_seconds']:.2f} s, is {one['loop_seconds'] / n1['slab_seconds']:.1f}x "
                      "below the measured loop here (the device gave less than its probed curve while the kernels "
                      "ran, as in section 7): read its N-machine figures as the runtime's model, with that error."
                      if n1 and n1["slab_seconds"] else ""))
        self.w("", f"- The strong runs' `--out` is the one-rank run's, bit for bit: {'yes' if m['bit_identical'] else 'NO'}.",
               f"- MPI between two ranks here (shared memory, `bench/c/pingpong.c`): latency {net['latency'] * 1e6:.1f} "
               f"us, bandwidth {net['bandwidth'] / 1e9:.2f} GB/s.", "",
               "**The model for N machines.** Each rank on a machine of its own like this one (its cores, its disk at "
               "the probed curves); a rank's time is the runtime's own time model of its slab (the one-rank "
               "`--plan-only` report's `predicted_seconds` for a grid of the slab's planes, ghosts included, bt "
               "capped at what the thinnest slab gives), plus, per exchange, the ghosts' bytes each way at the "
               "network's bandwidth and one latency a slice (the exchange counted whole: the runtime overlaps its "
               "way down with the next sweep only when its buffers take at most an eighth of the budget, design 019, "
               "not at these budgets). "
               "Assumed networks: 10 Gb/s Ethernet (1.25 GB/s, 20 us) and 100 Gb/s InfiniBand (12.5 GB/s, 2 us); "
               "and this machine's measured MPI. Seconds of the time loop:", "")
        nets = [k for k in m["extrapolation"][0] if k.endswith(("Ethernet", "InfiniBand", "(shared memory)"))]
        self.w("| scaling | machines | planes | slab s | bt | exchanges | MiB each way | " + " | ".join(nets) + " |",
               "|---|---|---|---|---|---|---|" + "---|" * len(nets))
        for r in m["extrapolation"]:
            if r.get("no_plan"):
                self.w(f"| {r['kind']} | {r['machines']} | {r['grid_planes']} | no plan: the ghosts a slab this thin "
                       "needs do not fit its budget | | | |" + " |" * len(nets))
                continue
            self.w(f"| {r['kind']} | {r['machines']} | {r['grid_planes']} | {r['slab_seconds']:.2f} | {r['bt']} | "
                   f"{r['exchanges']} | {r['message_bytes'] / mib:.1f} | " + " | ".join(f"{r[k]:.2f}" for k in nets) + " |")
        sp = self.res.get("mpi_splits")
        if not sp:
            return
        self.w("", "**Cartesian splits** (design 019). "
               f"`python -m bench.mpi --splits --plane {sp['plane']} --nz {sp['nz']} --steps {sp['steps']} --fraction "
               f"{sp['plane'] * sp['plane'] * sp['nz'] * 8 // sp['budget']} --reps {sp['reps']}` (measured {sp['date']}): "
               f"heat3d {sp['plane']} x {sp['plane']} x {sp['nz']}, {sp['steps']} steps, 4 ranks each with `--mem` "
               f"{sp['budget'] / mib:.0f} MiB, the state read back from an `--init` file, Blk-Tune's blocks, the page "
               "cache dropped before each run, " + ("the job in one memory cgroup" if sp["cgroup"] else "NOT in a cgroup")
               + f", the runs alternating, median of {sp['reps']}. `--ranks 1,1,4` is the default split (the streaming "
               "axis alone); the others cut x or y too, each exchange then a pass over every part's files.", "",
               "| --ranks | seconds | x 1,1,4 | bt | read GiB | written GiB | messages MiB | overlapped | = model |",
               "|---|---|---|---|---|---|---|---|---|")
        for r in sp["runs"]:
            self.w(f"| {r['ranks']} | {r['seconds']:.2f} (±{100 * r['spread']:.0f}%) | {r['ratio']:.2f} | {r['bt']} | "
                   f"{r['bytes_read'] / gib:.2f} | {r['bytes_written'] / gib:.2f} | {r['message_bytes'] / mib:.1f} | "
                   f"{'yes' if r['overlapped'] else 'no'} | {'yes' if r['model_exact'] else 'NO'} |")
        self.w("", f"- Every split's `--out` is the 1,1,4 run's, bit for bit: {'yes' if sp['bit_identical'] else 'NO'}.",
               "- Reading it: the cuts across the rows move more bytes (the pass at each exchange, and ghosts on "
               "more sides) and run slower here, as the default split's pricing says; their parts are smaller, so "
               "Blk-Tune, which weighs each exchange's pass, may take longer sweeps (bt "
               + ", ".join(f"{r['bt']} for {r['ranks']}" for r in sp["runs"]) + "). "
               + ("No run overlapped its exchange: the buffers of g planes would take more than an eighth of the "
                  "budget." if not any(r["overlapped"] for r in sp["runs"]) else ""))

    def write(self):
        self.header()
        body_start = len(self.lines)
        self.limits()
        for s in (self.size, self.methods, self.tuners, self.shapes, self.longrun, self.peers, self.model_section,
                  self.mpi):
            s()
        summary = ["", "## Where stencilc is behind or far from a bound", ""]
        summary += [f"- {f}" for f in self.findings] or ["- Nowhere in this run: no peer was faster, no point fell "
                                                         f"below {FAR:.0%} of its bound."]
        self.lines[body_start:body_start] = summary
        targets_at = len(self.lines)
        self.targets()
        block = self.lines[targets_at:]
        del self.lines[targets_at:]
        self.lines[body_start:body_start] = block
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text("\n".join(self.lines) + "\n")


def write(res: dict, figs: dict, path: Path) -> None:
    Report(res, figs, path).write()
