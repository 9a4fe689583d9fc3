#!/usr/bin/env bash
# Installs everything stencilc needs to build, run and test, then makes .venv.
# Idempotent and quiet when there is nothing to do; called by `make setup` (and so by
# `make demo` and `make test`).  Debian/Ubuntu packages need root (or sudo).
set -euo pipefail
cd "$(dirname "$0")/.."

DEB_PKGS=(gcc make cmake ninja-build default-jre-headless llvm-15-tools libhwloc-dev hwloc libaio-dev libpmem-dev
          clang-format-15 clang-15 python3-venv pkg-config gfortran openmpi-bin libopenmpi-dev
          libhdf5-dev hdf5-tools libhdf5-openmpi-dev)
# libhdf5: --save-to's snapshot files; its OpenMPI build: the same under `stencilc --mpi`, every rank writing its
# own cells (parallel HDF5; the driver asks pkg-config for hdf5-serial and hdf5-openmpi by name, so which one
# Debian's hdf5.pc alternative points at does not matter); hdf5-tools: h5dump
missing=()
for p in "${DEB_PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "setup: installing Debian packages: ${missing[*]}"
    SUDO=""
    if [ "$(id -u)" != 0 ]; then
        command -v sudo >/dev/null || { echo "setup: need root or sudo to install ${missing[*]}" >&2; exit 1; }
        SUDO=sudo
    fi
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    echo "setup: creating .venv"
    "$PY" -m venv .venv
fi
stamp=.venv/.stencilc-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    echo "setup: installing stencilc and its test tools into .venv"
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e ".[test]"
    touch "$stamp"
fi

# nvcc for `stencilc --target cuda --emit=lib` and the CUDA compile checks, from PyPI's CUDA 13 wheels (about
# 250 MB; they compile without a GPU).  Optional: where they cannot be installed, the CUDA builds are skipped
# with the reason (docs/design/024-gpu-tier.md) and everything else works.
cuda_stamp=.venv/.stencilc-cuda
CUDA_WHEELS=(nvidia-cuda-nvcc==13.0.88 nvidia-cuda-crt==13.0.88 nvidia-nvvm==13.0.88 nvidia-cuda-runtime==13.0.96)
if [ ! -f "$cuda_stamp" ] && [ -z "${STENCILC_NO_CUDA:-}" ]; then
    echo "setup: installing nvcc (PyPI's CUDA 13 wheels) into .venv"
    if .venv/bin/python -m pip install -q "${CUDA_WHEELS[@]}"; then
        touch "$cuda_stamp"
    else
        echo "setup: warning: nvcc could not be installed; --target cuda builds will be skipped" >&2
    fi
fi
