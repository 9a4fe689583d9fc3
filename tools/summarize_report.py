"""Print the headline figures of a program's --report JSON (used by `make demo`)."""

from __future__ import annotations

import json
import sys


def human(n: float, unit: str = "B") -> str:
    for prefix in ("", "Ki", "Mi", "Gi", "Ti"):
        if abs(n) < 1024 or prefix == "Ti":
            return f"{n:.1f} {prefix}{unit}" if prefix else f"{n:.0f} {unit}"
        n /= 1024
    return f"{n} {unit}"


def main(path: str) -> int:
    with open(path) as f:
        r = json.load(f)
    size = "x".join(str(n) for n in r["size"])
    print(f"{r.get('stencil', '?')}: mode {r['mode']}, grid {size}, {r['steps']} steps")
    p = r.get("params") or {}
    if r.get("schedule"):
        blocks = ", ".join(f"{k}={p[k]}" for k in ("by", "bz", "bt") if p.get(k) is not None)
        print(f"  blocks    {blocks} (schedule {r['schedule']}, chosen by {r.get('tuner')})")
    if p.get("iy") is not None:
        iblock = ", ".join(f"{k}={p[k]}" for k in ("iy", "iz") if p.get(k) is not None)
        print(f"  iBlock    {iblock} ({r.get('iblock_source', '?')})")
    hw = r.get("hardware", {})
    if "cores" in hw:
        print(f"  machine   {hw['cores']['value']} cores, L2 {human(hw['l2_bytes']['value'])}, DRAM "
              f"{human(hw['dram_bytes']['value'])} ({hw['dram_bytes']['source']})")
    s = r["seconds"]
    phases = ", ".join(f"{k} {s[k]:.3f}s" for k in ("read", "write", "copy", "compute", "wait") if k in s)
    cells = r["size"][0] * r["size"][1] * (r["size"][2] if len(r["size"]) > 2 else 1) * r["steps"]
    loop = cells / r["cells_per_second"] if r.get("cells_per_second") else None
    print(f"  time      {s['total']:.3f} s in all" + (f", {loop:.3f} s the time loop" if loop else "") + f" ({phases})")
    if "predicted_seconds" in r:  # out-of-core: the time model (of the time loop), and where its curves came from
        tm = r["time_model"]
        print(f"  predicted {r['predicted_seconds']:.3f} s the time loop (compute {tm['compute']:.3f}, IO {tm['io']:.3f}; "
              f"device: {tm['device_source']})")
    print(f"  speed     {r['cells_per_second']:.3e} cells/s")
    print(f"  io        read {human(r['bytes_read'])} (model {human(r['predicted_bytes_read'])}), "
          f"written {human(r['bytes_written'])} (model {human(r['predicted_bytes_written'])})")
    peak = r.get("peak_pss_bytes") or r["peak_rss_bytes"]
    print(f"  memory    peak {human(peak)}, budget {human(r['mem_budget_bytes'])} ({r.get('mem_budget_source', '?')})")
    for w in r.get("warnings", []):
        print(f"  warning   {w}")
    print(f"  report    {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
