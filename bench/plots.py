"""The report's figures (matplotlib, Agg): every one titled, with units, labelled axes and its
bounds drawn as lines.  make(results, outdir) writes the PNGs and returns {name: path}."""

from __future__ import annotations

from pathlib import Path

from bench import model
from bench.common import run_cap

PHASE_COLORS = {"read": "#4c72b0", "write": "#dd8452", "copy": "#937860", "compute": "#55a868", "wait": "#c44e52",
                "init": "#8172b3", "other": "#bbbbbb"}


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"figure.dpi": 110, "axes.grid": True, "grid.alpha": 0.3, "font.size": 9})
    return plt


def _rows(res, exp):
    return [r for r in res["rows"] if r.get("experiment") == exp]


def _hline(ax, y, text, color, style="--", right=False):
    if y:
        ax.axhline(y, color=color, ls=style, lw=1.2)
        ax.annotate(text, (0.99 if right else 0.01, y), xycoords=("axes fraction", "data"), color=color, fontsize=8,
                    va="bottom", ha="right" if right else "left")


def _bounds(ax, res, stencil="heat3d", dram=True):
    c = model.compute_bound(res, stencil)
    _hline(ax, c, f"compute bound: {stencil} in cache, {c:.2e} cells/s" if c else "", "#2ca02c")
    if dram:
        d = model.dram_bound(res)
        _hline(ax, d, f"DRAM bound: {model.dram_bw(res) / 1e9:.1f} GB/s / 16 B per cell = {d:.2e} cells/s", "#9467bd")


def limits(res, plt, path):
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.6))
    runs = res["limits"]["aio"].get("runs", [])
    for d, m in (("read", "o-"), ("write", "s-")):
        xs = [x["qd"] for x in runs if x["direction"] == d]
        ys = [x["bytes_per_second"] / 1e9 for x in runs if x["direction"] == d]
        a.plot(xs, ys, m, label=f"O_DIRECT {d}")
    a.set_xscale("log", base=2)
    a.set_xlabel("libaio queue depth (requests in flight)")
    a.set_ylabel("bandwidth (GB/s)")
    req = res["limits"]["aio"].get("request_bytes", 0) >> 20
    a.set_title(f"device under {res['dir']}: {req} MiB requests")
    a.set_ylim(bottom=0)
    a.legend()
    t = res["limits"]["triad"]
    names = ["STREAM triad", "STREAM copy"]
    vals = [t["bytes_per_second"] / 1e9, t.get("copy_bytes_per_second", 0) / 1e9]
    b.bar(names, vals, color=["#4c72b0", "#55a868"])
    for i, v in enumerate(vals):
        b.text(i, v, f"{v:.1f}", ha="center", va="bottom")
    b.set_ylabel("bandwidth (GB/s)")
    b.set_title(f"DRAM, {t['threads']} threads, 3 x {t['n'] * 8 >> 20} MiB arrays")
    fig.suptitle("The machine's limits, measured in this run")
    fig.tight_layout()
    fig.savefig(path)


def size(res, plt, path):
    rows = _rows(res, "size")
    inc = sorted((r for r in rows if r["mode"] == "incore" and r["status"] == "ok"), key=lambda r: r["ratio"])
    ooc = sorted((r for r in rows if r["mode"] == "ooc" and r["status"] == "ok"), key=lambda r: r["ratio"])
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [3, 2]})
    for rs, m, lbl in ((inc, "o-", "in-core (no cap)"), (ooc, "s-", "out-of-core (capped)")):
        a.errorbar([r["ratio"] for r in rs], [r["cells_per_second"] for r in rs],
                   yerr=[[r["cells_per_second"] * r["spread"] / 2 for r in rs]] * 2, fmt=m, capsize=3, label=lbl)
    io = [(r["ratio"], model.io_bound(res, r)) for r in ooc if model.io_bound(res, r)]
    if io:
        a.plot(*zip(*io), ":", color="#d62728", label="IO bound of each ooc run's traffic")
    _bounds(a, res)
    a.set_xscale("log", base=2)
    a.set_xticks([r["ratio"] for r in inc], [f"{r['ratio']}x" for r in inc])
    a.set_xlabel("problem size / DRAM budget")
    a.set_ylabel("cells updated per second")
    a.set_ylim(bottom=0)
    budget = res["profile"]["budget"]
    a.set_title(f"heat3d, {res['profile']['steps']} steps, budget {budget >> 20} MiB (cgroup {run_cap(budget) >> 20} MiB)")
    a.legend(loc="lower left", fontsize=8)
    byr = {r["ratio"]: r["cells_per_second"] for r in inc}
    pairs = [(r["ratio"], r["cells_per_second"] / byr[r["ratio"]]) for r in ooc if r["ratio"] in byr]
    if pairs:
        b.bar([str(x) + "x" for x, _ in pairs], [y for _, y in pairs], color="#4c72b0")
        for i, (_, y) in enumerate(pairs):
            b.text(i, y, f"{y:.2f}", ha="center", va="bottom")
    _hline(b, 1.0, "in-core speed", "black", "-")
    b.set_xlabel("problem size / DRAM budget")
    b.set_ylabel("out-of-core / in-core (cells/s ratio)")
    b.set_title("relative to in-core (Blk-Tune paper, fig. 6)")
    fig.suptitle("Problem size against a fixed DRAM budget")
    fig.tight_layout()
    fig.savefig(path)


def methods(res, plt, path):
    rows = _rows(res, "methods")
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    bars = [r for r in rows if r["mode"] == "ooc" and r["status"] == "ok"]
    bottom = [0.0] * len(bars)
    for ph in ("read", "write", "copy", "compute", "wait", "init", "other"):
        vals = []
        for r in bars:
            p = r["phases"]
            vals.append(max(0.0, r["total_seconds"] - sum(p.values())) if ph == "other" else p.get(ph, 0.0))
        a.bar([r["label"] for r in bars], vals, bottom=bottom, label=ph, color=PHASE_COLORS[ph])
        bottom = [x + v for x, v in zip(bottom, vals)]
    for i, r in enumerate(bars):
        t_io = model.io_min_seconds(res, r.get("bytes_read", 0), r.get("bytes_written", 0)) if r["mode"] == "ooc" else None
        if t_io:
            a.plot([i - 0.4, i + 0.4], [t_io, t_io], color="#d62728", lw=2)
    a.plot([], [], color="#d62728", lw=2, label="IO bound of its traffic")
    a.set_ylabel("seconds (whole run, main thread)")
    a.set_title("time components (Blk-Tune paper, fig. 20)")
    a.legend(fontsize=7, ncol=2)
    labels, vals, hatch = [], [], []
    for r in rows:
        labels.append(r["label"])
        if r["status"] == "ok":
            vals.append(r["cells_per_second"])
            hatch.append("")
        else:
            vals.append(r.get("cells_per_second_at_most", 0.0))
            hatch.append("//")
    bb = b.bar(labels, vals, color="#4c72b0")
    for bar_, h, r, v in zip(bb, hatch, rows, vals):
        bar_.set_hatch(h)
        txt = f"{v:.2e}" if not h else f"< {v:.1e}\n(stopped at {r.get('wall', 0):.0f} s)"
        b.text(bar_.get_x() + bar_.get_width() / 2, v, txt, ha="center", va="bottom", fontsize=7)
    _bounds(b, res)
    b.set_yscale("log")
    b.set_ylabel("cells updated per second (log)")
    ratio = rows[0]["ratio"] if rows else "?"
    b.set_title(f"methods at {ratio}x the budget (Blk-Tune paper, figs. 5 and 12)")
    fig.suptitle("Out-of-core methods: the reference schedule, alg2, alg1 and mmap")
    fig.tight_layout()
    fig.savefig(path)


def tuners(res, plt, path):
    rows = sorted((r for r in _rows(res, "tuners") if r["status"] == "ok"), key=lambda r: r["seconds"])
    fig, ax = plt.subplots(figsize=(11, 4.2))
    colors = ["#c44e52" if r["label"] == "blk" else "#dd8452" if r["label"] == "naive" else "#8c8c8c" for r in rows]
    labels = [f"{r['label'].replace('manual --block ', 'manual ')}\n{(r['bytes_read'] + r['bytes_written']) / 2**30:.1f} GiB"
              for r in rows]
    ax.bar(range(len(rows)), [r["seconds"] for r in rows], color=colors,
           yerr=[r["seconds"] * r["spread"] / 2 for r in rows], capsize=2)
    ax.set_xticks(range(len(rows)), labels, rotation=60, ha="right", fontsize=7)
    inc = next((r.get("incore_cells_per_second") for r in rows if r.get("incore_cells_per_second")), None)
    if inc and rows:
        _hline(ax, rows[0]["cells"] / inc, "in-core time of the same run (no cap)", "#2ca02c")
    best_io = min((model.io_min_seconds(res, r["bytes_read"], r["bytes_written"]) or 0 for r in rows), default=0)
    _hline(ax, best_io, "IO bound of the least traffic", "#d62728", right=True)
    ax.set_ylabel("seconds (time loop; median of the finalists' runs)")
    ax.set_xlabel("choice (by,bz,bt) and the flash traffic it moved")
    ratio = rows[0]["ratio"] if rows else "?"
    ax.set_title(f"Blk-Tune (red) vs Naive-Tune (orange) vs hand-picked blocks (grey), heat3d at {ratio}x "
                 "the budget (Blk-Tune paper, figs. 19-21)")
    fig.tight_layout()
    fig.savefig(path)


def shapes(res, plt, path):
    rows = _rows(res, "shapes")
    sts = list(dict.fromkeys(r["stencil"] for r in rows))
    fig, ax = plt.subplots(figsize=(10, 4))
    w = 0.27
    for k, (kind, lbl, col) in enumerate((("cache", "in cache (compute bound)", "#2ca02c"),
                                          ("incore", "in-core (no cap)", "#4c72b0"),
                                          ("ooc", "out-of-core (capped)", "#dd8452"))):
        ys = []
        for st in sts:
            r = next((r for r in rows if r["stencil"] == st and (("in cache" in r["label"]) if kind == "cache" else
                      (r["mode"] == kind and "in cache" not in r["label"]))), None)
            ys.append(r["cells_per_second"] if r and r["status"] == "ok" else 0)
        bars = ax.bar([i + (k - 1) * w for i in range(len(sts))], ys, w, label=lbl, color=col)
        if kind == "ooc":
            for i, (b_, st) in enumerate(zip(bars, sts)):
                inc = next((r for r in rows if r["stencil"] == st and r["mode"] == "incore" and "in cache" not in
                            r["label"] and r["status"] == "ok"), None)
                if inc and ys[i]:
                    ax.text(b_.get_x() + w / 2, ys[i], f"{ys[i] / inc['cells_per_second']:.2f}x", ha="center",
                            va="bottom", fontsize=7)
    _hline(ax, model.dram_bound(res), "DRAM bound (16 B per cell)", "#9467bd")
    from bench.experiments import STENCILS

    ax.set_xticks(range(len(sts)), [f"{s}\n{STENCILS[s][1]}" for s in sts])
    ax.set_ylabel("cells updated per second")
    ratio = next((r["ratio"] for r in rows if "ratio" in r), "?")
    ax.set_title(f"Stencil shapes at {ratio}x the budget (label: out-of-core / in-core)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)


def peers(res, plt, path):
    rows = _rows(res, "peers")
    sizes = list(dict.fromkeys(r["size"][0] for r in rows))
    tools = list(dict.fromkeys(r["label"] for r in rows))
    fig, ax = plt.subplots(figsize=(10, 4))
    w = 0.8 / max(1, len(tools))
    for k, t in enumerate(tools):
        ys = [next((r.get("cells_per_second", 0) for r in rows if r["label"] == t and r["size"][0] == n), 0)
              for n in sizes]
        bars = ax.bar([i + (k - (len(tools) - 1) / 2) * w for i in range(len(sizes))], ys, w, label=t)
        for b_, y in zip(bars, ys):
            ax.text(b_.get_x() + w / 2, y, f"{y:.2g}" if y else "n/a", ha="center", va="bottom", fontsize=7)
    _bounds(ax, res)
    ax.set_xticks(range(len(sizes)), [f"{n}^3 ({n**3 * 8 >> 20} MiB per array)" for n in sizes])
    ax.set_ylabel("cells updated per second")
    ax.set_title(f"In-core heat3d (7-point, f64), all {res['machine']['cores']} threads, "
                 f"{res['profile']['peer_steps']} steps")
    ax.set_ylim(0, 1.35 * max([model.compute_bound(res, "heat3d") or 0, model.dram_bound(res)]))
    ax.legend(fontsize=8, ncol=5, loc="upper right")
    fig.tight_layout()
    fig.savefig(path)


def model_plot(res, plt, path):
    rows = [r for r in res["rows"] if r.get("mode") == "ooc" and r.get("status") == "ok" and "predicted_bytes_read" in r]
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4.2))
    exps = list(dict.fromkeys(r["experiment"] for r in rows))
    for e in exps:
        rs = [r for r in rows if r["experiment"] == e]
        a.plot([(r["predicted_bytes_read"] + r["predicted_bytes_written"]) / 2**30 for r in rs],
               [(r["bytes_read"] + r["bytes_written"]) / 2**30 for r in rs], "o", label=e, alpha=0.7)
        # the runtime's own prediction (each run's report), else the bench's older estimate
        pts = [(r.get("predicted_seconds") or model.predicted_seconds(res, r), r["seconds"]) for r in rs]
        pts = [p for p in pts if p[0]]
        if pts:
            b.plot(*zip(*pts), "o", label=e, alpha=0.7)
    for ax in (a, b):
        _, hi = ax.get_xlim()
        _, hi2 = ax.get_ylim()
        m = max(hi, hi2)
        ax.plot([0, m], [0, m], "k--", lw=1, label="measured = predicted")
        ax.set_xlim(0, m)
        ax.set_ylim(0, m)
        ax.legend(fontsize=7)
    a.set_xlabel("predicted flash traffic, read + written (GiB)")
    a.set_ylabel("counted flash traffic (GiB)")
    a.set_title("IO model: bytes")
    b.set_xlabel("predicted time: predicted_seconds of the run's report (s)")
    b.set_ylabel("measured time loop (s)")
    b.set_title("IO model: time")
    fig.suptitle("The cost model against measurement, every out-of-core run")
    fig.tight_layout()
    fig.savefig(path)


FIGURES = {"limits": limits, "size": size, "methods": methods, "tuners": tuners, "shapes": shapes, "peers": peers,
           "model": model_plot}


def make(res: dict, outdir: Path) -> dict[str, Path]:
    plt = _plt()
    done = {}
    for name, fn in FIGURES.items():
        if name not in ("limits", "model") and not _rows(res, name):
            continue
        path = outdir / f"{name}.png"
        fn(res, plt, path)
        plt.close("all")
        done[name] = path
    return done
