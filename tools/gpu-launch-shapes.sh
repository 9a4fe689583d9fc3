#!/usr/bin/env bash
# tools/gpu-launch-shapes.sh -- the launch shapes of the CUDA step kernel, side by side on one GPU (issue 32):
# for each BX,BY,BZ (threads of a block along x and y, planes a thread walks along z: the -D's of kernel.cu.j2),
# heat3d's kernel check built with them, checked bit for bit against the C kernels, and its bench (512^3 f64,
# BENCH_STEPS steps: cells/s x 16 bytes against the device-to-device copy bandwidth).  The default shape is the
# one that won here (docs/benchmarks.md).  Needs what tools/gpu-check.sh needs (.gpu-carry where Python lacks
# the ANTLR runtime).  GPU_SHAPES_NCU=1: then Nsight Compute on the first shape's program, one step of 512^3, each
# kernel's time, DRAM throughput (% of peak) and bytes.  Usage: tools/gpu-launch-shapes.sh [STN [BX,BY,BZ ...]]
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${GPU_CHECK_DIR:-build/gpu-shapes}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] && [ -z "${PYTHON:-}" ] && PY=.venv/bin/python
export PYTHONPATH="$PWD/compiler${PYTHONPATH:+:$PYTHONPATH}"
if ! "$PY" -c 'import antlr4' 2>/dev/null && ls .gpu-carry/*.whl >/dev/null 2>&1; then
    "$PY" -m pip install -q --no-index --no-deps --no-compile --target "$OUT/site" .gpu-carry/*.whl || exit 1
    export PYTHONPATH="$PYTHONPATH:$OUT/site"
fi
stn=${1:-examples/heat3d.stn}
shift || true
NAME=$(basename "$stn" .stn | tr '[:lower:]' '[:upper:]')
shapes=("$@")
[ ${#shapes[@]} -gt 0 ] || shapes=(32,8,1 32,8,4 32,8,8 32,8,16 32,8,32 64,4,16 128,2,16 32,4,16 64,8,8)
for s in "${shapes[@]}"; do
    IFS=, read -r bx by bz <<<"$s"
    NVCC_APPEND_FLAGS="-arch=native -D${NAME}_CUDA_BX_=$bx -D${NAME}_CUDA_BY_=$by -D${NAME}_CUDA_BZ_=$bz" \
        "$PY" tools/gpu_kernel_check.py "$stn" "$OUT/$s" >"$OUT/$s.out" 2>"$OUT/$s.err" &
done
wait
for s in "${shapes[@]}"; do
    exe=$(cat "$OUT/$s.out")
    [ -x "$exe" ] || { echo "$s: not built: $(head -c 300 "$OUT/$s.err")"; continue; }
    bits=$("$exe" 34 30 26 6 2>&1 | head -1)
    echo "$s: $(timeout 120 "$exe" 512 512 512 "${BENCH_STEPS:-50}" bench 2>&1 | head -1) | $bits"
done
if [ -n "${GPU_SHAPES_NCU:-}" ]; then
    exe=$(cat "$OUT/${shapes[0]}.out")
    ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
    [ -n "$ncu" ] || { echo "ncu: not found"; exit 1; }
    "$ncu" --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,\
dram__bytes_write.sum,lts__t_bytes.sum,l1tex__t_bytes.sum,sm__warps_active.avg.pct_of_peak_sustained_active,\
smsp__inst_executed.sum "$exe" 512 512 512 1 bench 2>&1 | grep -E "^  [a-z_]+.*\(|gpu__|dram__|lts__|l1tex__|sm__|smsp__" |
        sed 's/  */ /g'
fi
