#!/usr/bin/env bash
# tools/gpu-deps.sh -- what tools/gpu-check.sh needs on a GPU machine that installs nothing and reaches nothing
# (issue 32, docs/design/024-gpu-tier.md): run here, where apt-get and pip reach their archives, then carry the
# folder it fills (default .gpu-carry, ignored by git) with the working tree.
#   - the runtime's libraries as Debian's .deb files: libaio, hwloc, libpmem and what they load (libndctl,
#     libdaxctl; udev, uuid and kmod, which gpu-check.sh unpacks only where the machine lacks them);
#   - the ANTLR runtime's wheel (pure Python), the one Python package of stencilc's that a CUDA image lacks
#     (Jinja2 and NumPy are there).
# gpu-check.sh unpacks them under its own folder, never into /.  Needs apt-get and a Python with pip.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-.gpu-carry}
PY=${PYTHON:-}
[ -n "$PY" ] || { [ -x .venv/bin/python ] && PY=.venv/bin/python || PY=python3; }
rm -rf "$DIR"
mkdir -p "$DIR"
(cd "$DIR" && apt-get download -q libaio1 libaio-dev libhwloc15 libhwloc-dev libpmem1 libpmem-dev libndctl6 \
    libdaxctl1 libudev1 libuuid1 libkmod2 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
antlr=$(sed -n 's/.*"antlr4-python3-runtime==\([0-9.]*\)".*/\1/p' pyproject.toml)
"$PY" -m pip download -q --no-deps --only-binary=:all: -d "$DIR" "antlr4-python3-runtime==${antlr:?}"
n=$(ls "$DIR"/*.deb | wc -l)
[ "$n" = 11 ] || { echo "gpu-deps: $n of 11 .deb files downloaded into $DIR" >&2; exit 1; }
echo "gpu-deps: $(ls "$DIR" | wc -l) files, $(du -sh "$DIR" | cut -f1), in $DIR"
