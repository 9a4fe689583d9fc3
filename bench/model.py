"""The bounds each experiment is measured against, and the time the IO model predicts.

- DRAM bound (in-core): a step reads and writes each cell's f64 once, 16 bytes, so
  cells/s <= DRAM bandwidth / 16, the bandwidth the better of the STREAM triad and copy (the
  copy has the stencil's pattern, one stream read and one written; STREAM's counting, no
  write-allocate on either side).
- Compute bound: the same stencil in-core on a grid that fits in cache (bench/limits.py).
- IO bound (out-of-core): the run's own traffic at the device's best O_DIRECT bandwidths, reads
  and writes at once (a virtio disk or an NVMe device can overlap them, so this is the bound a
  run cannot beat): t_min = max(read / BW_read, written / BW_write).
- Predicted time of an out-of-core run: the model's bytes at those bandwidths, one after the
  other (t_io = read / BW_read + written / BW_write), overlapped with the compute at the
  in-core rate of the same stencil and grid: max(t_io(predicted bytes), cells / incore rate).
"""

from __future__ import annotations

BYTES_PER_CELL = 16


def io_bw(res: dict) -> tuple[float, float] | None:
    a = res["limits"]["aio"]
    return (a["best_read"], a["best_write"]) if a.get("runs") else None


def dram_bound(res: dict) -> float:
    return dram_bw(res) / BYTES_PER_CELL


def dram_bw(res: dict) -> float:
    t = res["limits"]["triad"]
    return max(t["bytes_per_second"], t.get("copy_bytes_per_second", 0.0))


def compute_bound(res: dict, stencil: str) -> float | None:
    r = res["limits"]["in_cache"].get(stencil)
    return r.get("cells_per_second") if r else None


def io_seconds(res: dict, read: float, written: float) -> float | None:
    """Reads, then writes, at the best bandwidths: the model's IO time."""
    bw = io_bw(res)
    return read / bw[0] + written / bw[1] if bw else None


def io_min_seconds(res: dict, read: float, written: float) -> float | None:
    """Reads and writes at once, at the best bandwidths: no run moves these bytes faster."""
    bw = io_bw(res)
    return max(read / bw[0], written / bw[1]) if bw else None


def io_bound(res: dict, row: dict) -> float | None:
    """cells/s the device allows for this run's counted traffic."""
    t = io_min_seconds(res, row.get("bytes_read", 0), row.get("bytes_written", 0)) if "bytes_read" in row else None
    return row["cells"] / t if t else None


def predicted_seconds(res: dict, row: dict) -> float | None:
    if "predicted_bytes_read" not in row:
        return None
    t_io = io_seconds(res, row["predicted_bytes_read"], row["predicted_bytes_written"])
    rate = row.get("incore_cells_per_second") or compute_bound(res, row["stencil"])
    if t_io is None or not rate:
        return None
    return max(t_io, row["cells"] / rate)


def bound(res: dict, row: dict) -> tuple[float | None, str]:
    """The tightest bound on this row's cells/s, and which one it is."""
    st = row.get("stencil", "heat3d")
    cands = [(compute_bound(res, st), "compute")]
    if row.get("mode") == "ooc":
        cands.append((io_bound(res, row), "IO"))
    elif row.get("mode") == "mmap" and "paging_bytes_read" in row:  # the page cache's traffic
        t = io_min_seconds(res, row["paging_bytes_read"], row.get("paging_bytes_written", 0))
        cands.append((row["cells"] / t if t else None, "IO"))
    elif row.get("mode") == "incore":
        cands.append((dram_bound(res), "DRAM"))
    cands = [(v, k) for v, k in cands if v]
    return min(cands) if cands else (None, "none")
