"""Print the headline figures of a program's --report JSON (used by `make demo`).

Out of core it says how the grid compares with the DRAM budget, how many sweeps the run took (each
one after the first reads back the state the one before wrote), and whether the bytes read and
written are the IO model's prediction; it exits 1 when they are not (the model is exact by contract).
"""

from __future__ import annotations

import json
import sys


def human(n: float, unit: str = "B") -> str:
    for prefix in ("", "Ki", "Mi", "Gi", "Ti"):
        if abs(n) < 1024 or prefix == "Ti":
            return f"{n:.1f} {prefix}{unit}" if prefix else f"{n:.0f} {unit}"
        n /= 1024
    return f"{n} {unit}"


ELEM_BYTES = {"f32": 4, "f64": 8}


def budget_line(r: dict) -> str | None:
    """Out of core: the grid against the budget, and the sweeps; None in other modes."""
    if r["mode"] != "ooc" or not (r.get("params") or {}).get("bt"):
        return None
    cells = 1
    for n in r["size"]:
        cells *= n
    level = cells * ELEM_BYTES.get(r.get("dtype"), 8)
    budget, bt = r["mem_budget_bytes"], r["params"]["bt"]
    sweeps = -(-r["steps"] // bt)
    return (f"  budget    a field level is {human(level)}, the DRAM budget {human(budget)} "
            f"({level / budget:.1f}x smaller): the grid lives in scratch files; {sweeps} sweep"
            f"{'s' if sweeps != 1 else ''} of up to {bt} steps"
            + (", each after the first reading back the state the last one wrote" if sweeps > 1 else ""))


def io_line(r: dict) -> tuple[str, bool]:
    """The bytes moved, and whether they are the IO model's prediction."""
    counted = (r["bytes_read"], r["bytes_written"])
    predicted = (r["predicted_bytes_read"], r["predicted_bytes_written"])
    text = f"  io        read {human(counted[0])}, written {human(counted[1])}"
    if counted == predicted:
        return text + f" ({counted[0] + counted[1]} bytes): predicted == counted, byte for byte", True
    return text + (f": NOT the IO model's prediction (predicted read {predicted[0]}, written {predicted[1]}; "
                   f"counted {counted[0]}, {counted[1]})"), False


def main(path: str) -> int:
    with open(path) as f:
        r = json.load(f)
    size = "x".join(str(n) for n in r["size"])
    print(f"{r.get('stencil', '?')}: mode {r['mode']}, grid {size}, {r['steps']} steps")
    line = budget_line(r)
    if line:
        print(line)
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
    text, exact = io_line(r)
    print(text)
    budget = f"budget {human(r['mem_budget_bytes'])} ({r.get('mem_budget_source', '?')})"
    if r.get("peak_pss_bytes"):  # out of core: PSS, the part before the engine opened set apart
        print(f"  memory    the engine's buffers {human(r['engine_bytes'])}, {budget}; the process's peak "
              f"{human(r['peak_pss_bytes'])} PSS, {human(r['pss_at_open_bytes'])} of it before the engine "
              "opened (code, libraries, threads, inputs)")
    else:
        print(f"  memory    peak {human(r['peak_rss_bytes'])} RSS, the engine's buffers {human(r['engine_bytes'])}, "
              f"{budget}")
    for w in r.get("warnings", []):
        print(f"  warning   {w}")
    print(f"  report    {path}")
    return 0 if exact else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
