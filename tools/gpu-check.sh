#!/usr/bin/env bash
# tools/gpu-check.sh -- the GPU tier's device check (docs/design/024-gpu-tier.md, issue 32).
#
# Run on a machine with an NVIDIA GPU, nvcc, CMake and Python (stencilc's .venv, or python3 with
# jinja2 and antlr4-python3-runtime); installs nothing and reaches no network.  One line per check:
#   PASS|FAIL|SKIP  what  (why)
# then "gpu-check: N passed, N failed, N skipped" and exit 0 only when nothing failed.  A missing tool
# is a FAIL, never a pass.  Checks:
#   1. the tools: nvcc (stencilc's search: $CUDACXX, PATH, /usr/local/cuda, PyPI's wheels), a GPU, cmake;
#   2. the planner's C tests (test_gpu_plan, CTest);
#   3. every example: the CUDA kernels against the C kernels, bit for bit (tools/gpu_kernel_check.py),
#      SKIP for the constructs the CUDA target refuses (sub-steps, inject, record), with the reason;
#   4. the device-to-device copy bandwidth and heat3d 512^3 f64: cells/s x 16 bytes >= 70% of it;
#   3b. the schedule of --mode gpu and gpu-ooc (1/8 of the grid) with the CUDA kernels on CUDA streams, in
#      the kernel check: the C kernels' in-core bits, bytes counted == predicted;
#   5. every example's program (stencilc --target cuda --emit=exe) in --mode gpu and --mode gpu-ooc (--gpu-mem
#      1/8 of the grid's arrays) against the CPU's in-core bits, and bytes predicted == counted (the report's gpu
#      figures); SKIP, with the engine's reason, for what it does not carry yet.
# Env: GPU_CHECK_DIR (default build/gpu-check), BENCH_STEPS (default 50), PYTHON; GPU_CHECK_SIZE3, GPU_CHECK_SIZE2
# and GPU_CHECK_STEPS, the grids and steps of check 5 (default 96,96,512, 256,4096 and 20).
# GPU_CHECK_EMU=1, the dry path for a machine without a GPU: checks 1-4 are SKIPs and check 5 runs against the
# host emulation of CUDA (test/python/cuda_emu through STENCILC_CUDA_EMU; small grids by default), which checks
# the script and the engine's schedule, not the device.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${GPU_CHECK_DIR:-$ROOT/build/gpu-check}
mkdir -p "$OUT"
PY=${PYTHON:-}
[ -n "$PY" ] || { [ -x .venv/bin/python ] && PY=.venv/bin/python || PY=python3; }
export PYTHONPATH="$ROOT/compiler${PYTHONPATH:+:$PYTHONPATH}"
export STENCILC_CACHE_DIR=${STENCILC_CACHE_DIR:-$OUT/cache}
npass=0 nfail=0 nskip=0
line() { # STATUS WHAT [WHY]
    printf '%-4s  %s%s\n' "$1" "$2" "${3:+  ($3)}"
    case $1 in PASS) npass=$((npass + 1)) ;; FAIL) nfail=$((nfail + 1)) ;; *) nskip=$((nskip + 1)) ;; esac
}
finish() {
    echo "gpu-check: $npass passed, $nfail failed, $nskip skipped"
    [ "$nfail" = 0 ]
    exit $?
}
first() { tr '\n' ' ' <"$1" | cut -c1-200; }

SIZE3=${GPU_CHECK_SIZE3:-96,96,512} SIZE2=${GPU_CHECK_SIZE2:-256,4096} STEPS=${GPU_CHECK_STEPS:-20}
if [ -n "${GPU_CHECK_EMU:-}" ]; then # the dry path: no device, check 5 on the host emulation
    export STENCILC_CUDA_EMU="$ROOT/test/python/cuda_emu"
    SIZE3=${GPU_CHECK_SIZE3:-10,8,256} SIZE2=${GPU_CHECK_SIZE2:-16,256} STEPS=${GPU_CHECK_STEPS:-9}
    for c in tools planner kernels schedule bench; do line SKIP "$c" "GPU_CHECK_EMU: no device"; done
fi

# ---- 1. the tools
if [ -z "${GPU_CHECK_EMU:-}" ]; then
if nvcc=$("$PY" -c 'from stencilc.toolchain import find_nvcc; import shlex; n = find_nvcc(); print(shlex.join(n)) if n else exit(1)' 2>"$OUT/nvcc.err"); then
    line PASS "nvcc: $nvcc"
else
    line FAIL "nvcc" "none found: \$CUDACXX, nvcc on PATH, /usr/local/cuda/bin, PyPI's nvidia-cuda-nvcc; $(first "$OUT/nvcc.err")"
    finish
fi
if gpu=$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 | head -1) && [ -n "$gpu" ]; then
    line PASS "gpu: $gpu"
else
    line FAIL "gpu" "nvidia-smi: ${gpu:-no output}"
fi
command -v cmake >/dev/null && line PASS "cmake: $(cmake --version | head -1)" || line FAIL "cmake" "not on PATH"

# ---- 2. the planner and its byte model (C unit tests)
if cmake -S . -B "$OUT/cmake" -G "$(command -v ninja >/dev/null && echo Ninja || echo 'Unix Makefiles')" >"$OUT/cmake.log" 2>&1 &&
    cmake --build "$OUT/cmake" --target test_gpu_plan >>"$OUT/cmake.log" 2>&1; then
    if "$OUT/cmake/runtime/tests/test_gpu_plan" >"$OUT/test_gpu_plan.log" 2>&1; then
        line PASS "planner: $(tail -1 "$OUT/test_gpu_plan.log")"
    else
        line FAIL "planner" "$(tail -3 "$OUT/test_gpu_plan.log" | tr '\n' ' ')"
    fi
else
    line FAIL "planner" "the CMake build failed: $OUT/cmake.log"
fi

# ---- 3. the CUDA kernels against the C kernels, every example
for stn in examples/*.stn; do
    name=$(basename "$stn" .stn)
    dir="$OUT/kernels/$name"
    if ! exe=$("$PY" tools/gpu_kernel_check.py "$stn" "$dir" 2>"$OUT/$name.build.err"); then
        if grep -q "the CUDA target does not support" "$OUT/$name.build.err"; then
            line SKIP "kernels $name" "$(grep -o 'does not support [^(]*' "$OUT/$name.build.err" | head -1)"
        else
            line FAIL "kernels $name" "build: $(first "$OUT/$name.build.err")"
        fi
        continue
    fi
    dims=$("$PY" -c "import sys; from stencilc import driver; p = driver.front(sys.argv[1]); print(p.ndim)" "$stn" 2>/dev/null)
    if [ "$dims" = 3 ]; then size="34 30 26"; else size="130 70 1"; fi
    if res=$(timeout 120 "$exe" $size 6 2>&1); then
        line PASS "kernels $name" "$res"
    else
        line FAIL "kernels $name" "$(echo "$res" | head -2 | tr '\n' ' ')"
    fi
done

# ---- 3b. the schedule of --mode gpu (in core) and gpu-ooc (1/8 of the grid's arrays) with the CUDA kernels on
# CUDA streams (the runtime's gpu_plan.c and gpu_sched.c, in the kernel check), against the C kernels' in-core
# bits, bytes counted == predicted; exit 3 of the check: a construct the schedule does not carry yet
for stn in examples/*.stn; do
    name=$(basename "$stn" .stn)
    exe="$OUT/kernels/$name/${name}_cuda_check"
    [ -x "$exe" ] || continue
    dims=$("$PY" -c "import sys; from stencilc import driver; print(driver.front(sys.argv[1]).ndim)" "$stn" 2>/dev/null)
    if [ "$dims" = 3 ]; then size="48 40 256"; else size="200 512 1"; fi
    for div in 1 8; do
        what="schedule $name $([ $div = 1 ] && echo "gpu (in core)" || echo "gpu-ooc 1/$div")"
        res=$(timeout 120 "$exe" $size 20 ooc $div 2>&1)
        case $? in
        0) line PASS "$what" "$res" ;;
        3) line SKIP "$what" "$res" ;;
        *) line FAIL "$what" "$(echo "$res" | head -2 | tr '\n' ' ')" ;;
        esac
    done
done

# ---- 4. the bench: heat3d 512^3 f64 against the device-to-device copy bandwidth
if [ -x "$OUT/kernels/heat3d/heat3d_cuda_check" ] &&
    res=$(timeout 300 "$OUT/kernels/heat3d/heat3d_cuda_check" 512 512 512 "${BENCH_STEPS:-50}" bench 2>&1); then
    ratio=$(echo "$res" | sed -n 's/.*ratio \([0-9.]*\).*/\1/p')
    if [ -n "$ratio" ] && awk -v r="$ratio" 'BEGIN { exit !(r >= 0.70) }'; then
        line PASS "bench heat3d 512^3 f64 >= 70% of the copy bandwidth" "$res"
    else
        line FAIL "bench heat3d 512^3 f64 >= 70% of the copy bandwidth" "$res"
    fi
else
    line FAIL "bench heat3d 512^3 f64" "${res:-the heat3d kernel check was not built}"
fi

fi # (GPU_CHECK_EMU: checks 1-4 skipped)

# ---- 5. the engine: --mode gpu and gpu-ooc against the CPU's in-core bits, bytes predicted == counted
# Each example the CUDA target carries is built with `stencilc --target cuda --emit=exe`; its in-core run on the
# CPU writes every level of every state field, and so do --mode gpu and --mode gpu-ooc --gpu-mem (1/8 of the
# grid's arrays: several blocks); the .npy files must be the same bytes and the report's gpu byte counts equal
# the plan's.  A construct the engine does not carry yet (periodic along the streamed axis past one block; a 1d
# grid, one row, in gpu-ooc under a budget smaller than it) is a SKIP with the engine's reason.  Each series is
# given values of our own (--init NAME=FILE.npy).
for stn in examples/*.stn; do
    name=$(basename "$stn" .stn)
    dir="$OUT/runs/$name"
    mkdir -p "$dir"
    # the grid (GPU_CHECK_SIZE3 / GPU_CHECK_SIZE2), 1/8 of the bytes its arrays take, every state level's name
    if ! info=$("$PY" - "$stn" "$SIZE3" "$SIZE2" "$dir" "$STEPS" 2>"$dir/info.err" <<'EOF'
import sys
from stencilc import driver
from stencilc.codegen import build_layout
import math
import struct
lay = build_layout(driver.front(sys.argv[1], target="cuda"))
size = [int(n) for n in (sys.argv[2] if lay.ndim == 3 else sys.argv[3]).split(",")]
if lay.dims == 1:  # a 1d grid: one row of the 2d grid's cells
    size = [size[0] * size[1]]
cells = 1
for n in size:
    cells *= n
arrays = len(lay.src_slots) + len(lay.dst_slots)
levels = [lv for f in lay.fields if f.kind == "state"
          for lv in ([f.run_name, f.run_name + ".prev"] if f.levels == 2 else [f.run_name])]
inits = []  # every series: values of our own, one per step
for k, w in enumerate(lay.series):
    path = "%s/series.%s.npy" % (sys.argv[4], w)
    vals = [math.cos(i * (0.3 + 0.1 * k)) for i in range(int(sys.argv[5]) + 1)]  # (.npy by hand: no numpy here)
    head = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (lay.npy_descr, len(vals))
    head += " " * (63 - (10 + len(head)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode())
        f.write(struct.pack("<%d%s" % (len(vals), "f" if lay.elem_size == 4 else "d"), *vals))
    inits.append("%s=%s" % (w, path))
print(",".join(map(str, size)), cells * lay.elem_size * arrays // 8, ",".join(inits) or "-", *levels)
EOF
    ); then
        if grep -q "the CUDA target does not support" "$dir/info.err"; then
            line SKIP "engine $name" "$(grep -o 'does not support [^(]*' "$dir/info.err" | head -1)"
        else
            line FAIL "engine $name" "$(first "$dir/info.err")"
        fi
        continue
    fi
    read -r size gpumem series fields <<<"$info"
    inits=()
    if [ "$series" != - ]; then
        IFS=, read -r -a list <<<"$series"
        for s in "${list[@]}"; do inits+=(--init "$s"); done
    fi
    if ! "$PY" -m stencilc "$stn" --target cuda --emit=exe -o "$dir/$name" >"$dir/build.log" 2>&1; then
        line FAIL "engine $name" "stencilc --target cuda: $(first "$dir/build.log")"
        continue
    fi
    outs() { for f in $fields; do printf -- '--out %s=%s/%s.%s.npy ' "$f" "$dir" "$f" "$1"; done; }
    # shellcheck disable=SC2046
    if ! "$dir/$name" --size "$size" --steps "$STEPS" "${inits[@]}" --mode incore --quiet $(outs cpu) >"$dir/cpu.log" 2>&1; then
        line FAIL "engine $name: in-core on the CPU" "$(first "$dir/cpu.log")"
        continue
    fi
    for mode in gpu gpu-ooc; do
        extra=()
        [ "$mode" = gpu-ooc ] && extra=(--gpu-mem "$gpumem")
        # shellcheck disable=SC2046
        if ! timeout 300 "$dir/$name" --size "$size" --steps "$STEPS" "${inits[@]}" --mode "$mode" "${extra[@]}" --quiet \
            --report "$dir/$mode.json" $(outs "$mode") >"$dir/$mode.log" 2>&1; then
            if grep -q "does not carry\|periodic along\|a 1d grid is one row" "$dir/$mode.log"; then
                line SKIP "engine $name --mode $mode" "not carried yet: $(first "$dir/$mode.log")"
            else
                line FAIL "engine $name --mode $mode" "$(first "$dir/$mode.log")"
            fi
            continue
        fi
        bad=""
        for f in $fields; do
            cmp -s "$dir/$f.cpu.npy" "$dir/$f.$mode.npy" || bad="$bad $f"
        done
        bytes=$("$PY" -c '
import json, sys
r = json.load(open(sys.argv[1])).get("gpu") or {}
keys = ("h2d_bytes", "predicted_h2d_bytes", "d2h_bytes", "predicted_d2h_bytes")
if not all(k in r for k in keys):
    print("the report has no gpu byte counts"); sys.exit(1)
print("h2d %d/%d d2h %d/%d, %d blocks of %d planes, bt %d" % (*(r[k] for k in keys), r["blocks"], r["bz"], r["bt"]))
sys.exit(0 if (r["h2d_bytes"], r["d2h_bytes"]) == (r["predicted_h2d_bytes"], r["predicted_d2h_bytes"]) else 1)
' "$dir/$mode.json" 2>&1)
        brc=$?
        if [ -z "$bad" ] && [ $brc = 0 ]; then
            line PASS "engine $name --mode $mode" "the CPU's bits; bytes counted/predicted: $bytes"
        else
            line FAIL "engine $name --mode $mode" "${bad:+differs from the CPU in:$bad; }bytes: $bytes"
        fi
    done
done
finish
