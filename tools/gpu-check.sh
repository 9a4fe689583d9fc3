#!/usr/bin/env bash
# tools/gpu-check.sh -- the GPU tier's device check (docs/design/024-gpu-tier.md, issue 32).
#
# Run on a machine with an NVIDIA GPU, nvcc, CMake and Python (stencilc's .venv, or python3 with
# jinja2 and antlr4-python3-runtime); installs nothing and reaches no network.  One line per check:
#   PASS|FAIL|SKIP  what  (why)
# (notes on stderr begin with "# ") then "gpu-check: N passed, N failed, N skipped" and exit 0 only when nothing failed.  A missing tool
# is a FAIL, never a pass.  Checks:
#   1. the tools: nvcc (stencilc's search: $CUDACXX, PATH, /usr/local/cuda, PyPI's wheels), a GPU, cmake;
#   2. the planner's C tests (test_gpu_plan, CTest);
#   3. every example: the CUDA kernels against the C kernels, bit for bit (tools/gpu_kernel_check.py; the injects
#      and records at points of its own too), SKIP for the constructs the CUDA target refuses, with the reason;
#   4. the device-to-device copy bandwidth and heat3d 512^3 f64: cells/s x 16 bytes >= 70% of it;
#   3b. the schedule of --mode gpu and gpu-ooc (1/8 of the grid) with the CUDA kernels on CUDA streams, in
#      the kernel check: the C kernels' in-core bits, bytes counted == predicted;
#   5. every example's program (stencilc --target cuda --emit=exe) in --mode gpu and --mode gpu-ooc (--gpu-mem
#      1/8 of the grid's arrays) against the CPU's in-core bits (every state level, and every record's samples at
#      points of our own), and bytes predicted == counted (the report's gpu figures); SKIP, with the engine's
#      reason, for what it does not carry yet.
#   5b. MPI, one GPU per rank: heat3d built with --mpi under `mpirun -np 2` in --mode gpu (40 steps: several chunks
#      of the ghosts' depth, the ghosts exchanged on the host between them) against the CPU's in-core bits, each
#      rank's bytes predicted == counted and its device named; SKIP where mpirun or mpicc is missing.
#   6. the bench of gpu-ooc: heat3d (512^3, and 128x128x8192: the same cells in smaller planes) f64 in --mode gpu
#      and in --mode gpu-ooc at 1/4 and 1/8 of the grid's arrays, cells/s side by side in one run: >= 0.8 of gpu.
# What the machine lacks is carried: tools/gpu-deps.sh (run where apt-get and pip reach their archives) puts the
# runtime's libraries (libaio, hwloc, libpmem, as Debian's .deb files) and the ANTLR runtime's wheel in
# .gpu-carry; here they are unpacked under GPU_CHECK_DIR/deps (never into /) and found through CPATH,
# LIBRARY_PATH, LD_LIBRARY_PATH and CMAKE_PREFIX_PATH.  The builds run side by side on every core
# (GPU_CHECK_JOBS), the runs one at a time.
# Env: GPU_CHECK_DIR (default build/gpu-check), BENCH_STEPS (default 50), BENCH_OOC_STEPS (default 256), PYTHON,
# GPU_CHECK_CARRY (default .gpu-carry), GPU_CHECK_JOBS (default: the cores), GPU_CHECK_QUICK (checks 1-4 only); GPU_CHECK_SIZE3, GPU_CHECK_SIZE2
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
START=$(date +%s)
finish() {
    echo "gpu-check: $npass passed, $nfail failed, $nskip skipped ($(($(date +%s) - START)) s)"
    [ "$nfail" = 0 ]
    exit $?
}
first() { tr '\n' ' ' <"$1" | cut -c1-200; }
JOBS=${GPU_CHECK_JOBS:-$(nproc)}
par() { # run "$@" in the background, at most $JOBS at once (`wait` for the last ones)
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
    "$@" &
}

# ---- 0. what the machine lacks, carried (tools/gpu-deps.sh): unpacked under $OUT/deps, never into /
CARRY=${GPU_CHECK_CARRY:-$ROOT/.gpu-carry}
if [ -d "$CARRY" ]; then
    deps="$OUT/deps" arch=$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)
    mkdir -p "$deps"
    for deb in "$CARRY"/*.deb; do
        [ -e "$deb" ] || continue
        case $(basename "$deb") in # the system's own udev, uuid and kmod where it has them
        libudev1_* | libuuid1_* | libkmod2_*)
            so=$(dpkg-deb -c "$deb" | awk '{print $6}' | grep -o '[^/]*\.so\.[0-9]*$' | head -1)
            [ -n "$so" ] && ldconfig -p | grep -q "^[[:space:]]*$so " && continue ;;
        esac
        dpkg-deb -x "$deb" "$deps" || { line FAIL "carried $(basename "$deb")" "dpkg-deb -x failed"; finish; }
    done
    libs="$deps/usr/lib/$arch:$deps/lib/$arch"
    export CPATH="$deps/usr/include${CPATH:+:$CPATH}" LIBRARY_PATH="$libs${LIBRARY_PATH:+:$LIBRARY_PATH}"
    export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export CMAKE_PREFIX_PATH="$deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
    if ls "$CARRY"/*.whl >/dev/null 2>&1; then
        "$PY" -m pip install -q --no-index --no-deps --no-compile --target "$OUT/site" "$CARRY"/*.whl \
            >"$OUT/pip.log" 2>&1 || { line FAIL "carried wheels" "$(first "$OUT/pip.log")"; finish; }
        export PYTHONPATH="$PYTHONPATH:$OUT/site"
    fi
    echo "# carried: $(ls "$CARRY" | tr '\n' ' ')" >&2
fi

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
# nvcc's code for this GPU (-arch=native, through nvcc's own NVCC_APPEND_FLAGS), not only PTX for the driver to
# compile at each program's start, where nvcc can build for it; else the default (said so)
if [ -z "${NVCC_APPEND_FLAGS+x}" ]; then
    printf '__global__ void k(int *p) { *p = 1; }\nint main() { return 0; }\n' >"$OUT/arch.cu"
    if (cd "$OUT" && ${nvcc%% *} -arch=native arch.cu -o arch >arch.log 2>&1); then
        export NVCC_APPEND_FLAGS=-arch=native
        echo "# nvcc builds for this GPU: NVCC_APPEND_FLAGS=-arch=native" >&2
    else
        echo "# nvcc -arch=native failed ($(first "$OUT/arch.log")): nvcc's default architecture" >&2
    fi
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

# ---- 3. the CUDA kernels against the C kernels, every example (built side by side, run one at a time)
build_kernel() { # STN NAME: $OUT/NAME.build.{out,err,rc}
    "$PY" tools/gpu_kernel_check.py "$1" "$OUT/kernels/$2" >"$OUT/$2.build.out" 2>"$OUT/$2.build.err"
    echo $? >"$OUT/$2.build.rc"
}
for stn in examples/*.stn; do par build_kernel "$stn" "$(basename "$stn" .stn)"; done
wait
echo "# kernel checks built: $(($(date +%s) - START)) s" >&2
for stn in examples/*.stn; do
    name=$(basename "$stn" .stn)
    exe=$(cat "$OUT/$name.build.out")
    if [ "$(cat "$OUT/$name.build.rc")" != 0 ]; then
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
    # 3d: blocks cut along y as well (tiles: cudaMemcpy2DAsync), where planes are large against the budget
    [ "$dims" = 3 ] || continue
    res=$(timeout 120 "$exe" 9 64 48 9 ooc 12 tiles 2>&1)
    case $? in
    0) line PASS "schedule $name gpu-ooc 1/12 tiles" "$res" ;;
    3) line SKIP "schedule $name gpu-ooc 1/12 tiles" "$res" ;;
    *) line FAIL "schedule $name gpu-ooc 1/12 tiles" "$(echo "$res" | head -2 | tr '\n' ' ')" ;;
    esac
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

if [ -n "${GPU_CHECK_QUICK:-}" ]; then # (checks 1-4 only: the kernels, their schedule and their speed)
    line SKIP "engine" "GPU_CHECK_QUICK: checks 1-4 only"
    finish
fi

# ---- 5. the engine: --mode gpu and gpu-ooc against the CPU's in-core bits, bytes predicted == counted
# Each example the CUDA target carries is built with `stencilc --target cuda --emit=exe`; its in-core run on the
# CPU writes every level of every state field, and so do --mode gpu and --mode gpu-ooc --gpu-mem (1/8 of the
# grid's arrays: several blocks); the .npy files must be the same bytes and the report's gpu byte counts equal
# the plan's (a 1d grid in gpu-ooc: blocks of cells).  A construct the engine does not carry yet (what the wrapped
# windows of a field periodic along the streamed axis refuse past one block) is a SKIP with the engine's reason.
# Each series, and
# each set of points, is given values of our own (--init NAME=FILE.npy), and each record's samples are compared.
prep_engine() { # STN NAME: $dir/info (or info.err and rc 1), then the program (build.log, build.rc)
    local dir="$OUT/runs/$2"
    mkdir -p "$dir"
    # the grid (GPU_CHECK_SIZE3 / GPU_CHECK_SIZE2), 1/8 of the bytes its arrays take, every state level's name
    if ! "$PY" - "$1" "$SIZE3" "$SIZE2" "$dir" "$STEPS" >"$dir/info" 2>"$dir/info.err" <<'EOF'
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
def npy(path, descr, shape, fmt, vals):  # (.npy by hand: no numpy here)
    head = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, "".join("%d," % n for n in shape))
    head += " " * (63 - (10 + len(head)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode())
        f.write(struct.pack("<%d%s" % (len(vals), fmt), *vals))
for k, ps in enumerate(lay.points):  # every set of points: in the interior, in several blocks, two the same
    n = size[-1]
    along = [2, 3, n // 2, n // 2, n // 2 + 1, n // 3 + k, n - 4, n - 3]
    at = [[2 + (i + k) % (c - 5) for c in size[:-1]] + [z] for i, z in enumerate(along)]
    at[3] = list(at[2])
    path = "%s/points.%s.npy" % (sys.argv[4], ps)
    sp = lay.points_spacing[k]
    if sp <= -2:  # grid points
        npy(path, "<i8", (len(at), len(size)), "q", [c for p in at for c in p])
    else:  # off-grid, in units of the spacing param: a fraction of a cell off each
        h = lay.params[sp].value if sp >= 0 else 1.0
        npy(path, "<f8", (len(at), len(size)), "d", [(c + 0.25 + 0.125 * j) * h for p in at for j, c in enumerate(p)])
    inits.append("%s=%s" % (ps, path))
levels += [o.name for o in lay.records]  # every record's samples
print(",".join(map(str, size)), cells * lay.elem_size * arrays // 8, ",".join(inits) or "-", *levels)
EOF
    then
        echo 1 >"$dir/info.rc"
        return
    fi
    echo 0 >"$dir/info.rc"
    "$PY" -m stencilc "$1" --target cuda --emit=exe -o "$dir/$2" >"$dir/build.log" 2>&1
    echo $? >"$dir/build.rc"
}
prep_mpi() { # heat3d with --mpi (check 5b): $OUT/runs/heat3d-mpi/heat3d, build.log, build.rc
    local dir="$OUT/runs/heat3d-mpi"
    mkdir -p "$dir"
    "$PY" -m stencilc examples/heat3d.stn --target cuda --emit=exe --mpi -o "$dir/heat3d" >"$dir/build.log" 2>&1
    echo $? >"$dir/build.rc"
}
HAVE_MPI=""
command -v mpirun >/dev/null && command -v mpicc >/dev/null && HAVE_MPI=1
prep_engine examples/heat3d.stn heat3d # (first alone: it builds the runtime library the others take from the cache)
[ -n "$HAVE_MPI" ] && par prep_mpi
for stn in examples/*.stn; do
    name=$(basename "$stn" .stn)
    [ "$name" = heat3d ] || par prep_engine "$stn" "$name"
done
wait
echo "# programs built: $(($(date +%s) - START)) s" >&2
for stn in examples/*.stn; do
    name=$(basename "$stn" .stn)
    dir="$OUT/runs/$name"
    if [ "$(cat "$dir/info.rc")" != 0 ]; then
        if grep -q "the CUDA target does not support" "$dir/info.err"; then
            line SKIP "engine $name" "$(grep -o 'does not support [^(]*' "$dir/info.err" | head -1)"
        else
            line FAIL "engine $name" "$(first "$dir/info.err")"
        fi
        continue
    fi
    read -r size gpumem series fields <"$dir/info"
    inits=()
    if [ "$series" != - ]; then
        IFS=, read -r -a list <<<"$series"
        for s in "${list[@]}"; do inits+=(--init "$s"); done
    fi
    if [ "$(cat "$dir/build.rc")" != 0 ]; then
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
            if grep -q "does not carry\|periodic along" "$dir/$mode.log"; then
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

# ---- 5b. MPI, one GPU per rank: heat3d under mpirun -np 2 in --mode gpu against the single process' in-core bits
dir="$OUT/runs/heat3d-mpi"
if [ -z "$HAVE_MPI" ]; then
    line SKIP "engine heat3d --mpi, mpirun -np 2 --mode gpu" "no mpirun or mpicc (OpenMPI) here"
elif [ "$(cat "$dir/build.rc")" != 0 ]; then
    line FAIL "engine heat3d --mpi" "stencilc --target cuda --mpi: $(first "$dir/build.log")"
else
    size=$(cut -d' ' -f1 "$OUT/runs/heat3d/info")
    mflags=(--oversubscribe --bind-to none)
    [ "$(id -u)" = 0 ] && mflags+=(--allow-run-as-root)
    run=(--size "$size" --steps 40 --quiet)
    if ! "$dir/heat3d" "${run[@]}" --mode incore --out "u=$dir/u.cpu.npy" >"$dir/cpu.log" 2>&1; then
        line FAIL "engine heat3d --mpi: in-core on the CPU" "$(first "$dir/cpu.log")"
    elif ! timeout 300 mpirun "${mflags[@]}" -np 2 "$dir/heat3d" "${run[@]}" --mode gpu --out "u=$dir/u.gpu.npy" \
        --report "$dir/gpu.json" >"$dir/gpu.log" 2>&1; then
        line FAIL "engine heat3d --mpi, mpirun -np 2 --mode gpu" "$(first "$dir/gpu.log")"
    else
        bytes=$("$PY" -c '
import json, sys
m = json.load(open(sys.argv[1]))["mpi"]
keys = ("h2d_bytes", "predicted_h2d_bytes", "d2h_bytes", "predicted_d2h_bytes")
ranks = [p.get("gpu") or {} for p in m["per_rank"]]
print("; ".join("rank %d on device %s: h2d %s/%s d2h %s/%s" % (k, g.get("device"), *(g.get(x) for x in keys))
                for k, g in enumerate(ranks)))
sys.exit(0 if len(ranks) == 2 and all("device" in g and g["h2d_bytes"] == g["predicted_h2d_bytes"] > 0 and
                                      g["d2h_bytes"] == g["predicted_d2h_bytes"] > 0 for g in ranks) else 1)
' "$dir/gpu.json" 2>&1)
        brc=$?
        if cmp -s "$dir/u.cpu.npy" "$dir/u.gpu.npy" && [ $brc = 0 ]; then
            line PASS "engine heat3d --mpi, mpirun -np 2 --mode gpu" "the CPU's bits; $bytes"
        else
            cmp -s "$dir/u.cpu.npy" "$dir/u.gpu.npy" || bytes="differs from the CPU; $bytes"
            line FAIL "engine heat3d --mpi, mpirun -np 2 --mode gpu" "$bytes"
        fi
    fi
fi

# ---- 6. the bench of gpu-ooc: heat3d f64 in --mode gpu and in gpu-ooc at 1/4 and 1/8 of the grid's arrays, in one
# run; cells/s of each beside gpu's (the loop: uploads, steps, downloads), >= 0.8 of it.  Two shapes of the same
# cells: 512^3, and 128x128x8192 (planes 16x smaller, so the same budget holds a deeper window and a longer sweep).
exe="$OUT/runs/heat3d/heat3d"
if [ -n "${GPU_CHECK_EMU:-}" ]; then
    line SKIP "bench gpu-ooc" "GPU_CHECK_EMU: no device"
elif [ ! -x "$exe" ]; then
    line FAIL "bench gpu-ooc" "the heat3d program was not built"
else
    arrays=$((512 * 512 * 512 * 8 * 2)) # (both shapes: 2^27 cells, two f64 arrays)
    rate() { # SHAPE MODE [--gpu-mem N]: "cells/s bz bt blocks h2d loop_s" of the report, or the error
        timeout 300 "$exe" --size "$1" --steps "${BENCH_OOC_STEPS:-256}" --mode "${@:2}" --quiet \
            --report "$OUT/bench.json" >"$OUT/bench.log" 2>&1 || { first "$OUT/bench.log"; return 1; }
        "$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); g = r["gpu"]
print("%.4g %d %d %d %d %.3g" % (r["cells_per_second"], g["bz"], g["bt"], g["blocks"], g["h2d_bytes"],
      r["seconds"]["loop"]))' "$OUT/bench.json"
    }
    for shape in 512,512,512 128,128,8192; do
        if ! base=$(rate "$shape" gpu); then
            line FAIL "bench gpu-ooc $shape: --mode gpu" "$base"
            continue
        fi
        for div in 4 8; do
            if ! got=$(rate "$shape" gpu-ooc --gpu-mem $((arrays / div))); then
                line FAIL "bench gpu-ooc $shape at 1/$div" "$got"
                continue
            fi
            read -r r0 _ _ _ _ s0 <<<"$base"
            read -r r1 bz bt nb h2d s1 <<<"$got"
            ratio=$(awk -v a="$r1" -v b="$r0" 'BEGIN { printf "%.3f", a / b }')
            why="gpu $r0 cells/s (${s0} s), gpu-ooc $r1 (${s1} s): ratio $ratio; $nb blocks of $bz planes, bt $bt, h2d $h2d bytes"
            if awk -v r="$ratio" 'BEGIN { exit !(r >= 0.8) }'; then
                line PASS "bench gpu-ooc $shape at 1/$div >= 0.8 of gpu" "$why"
            else
                line FAIL "bench gpu-ooc $shape at 1/$div >= 0.8 of gpu" "$why"
            fi
        done
    done
fi
finish
