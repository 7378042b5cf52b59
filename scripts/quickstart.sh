#!/usr/bin/env bash
# scripts/quickstart.sh — from a fresh machine to a C++ program running Triton kernels.
#
#   bash scripts/quickstart.sh
#
#   1. installs the Debian packages and a virtual environment with triton==3.9.0 (scripts/setup.sh)
#   2. builds and installs tritonpack (run-time headers, the `tritonpack` packer, CMake package)
#      into build-quickstart/prefix
#   3. builds examples/quickstart as a user's project would: find_package(tritonpack) +
#      tritonpack_add_kernels(), which compiles kernels.py with Triton for sm_80, sm_90, sm_100,
#      gfx90a and gfx942 and packs the result into quickstart.hpp
#   4. runs it: on a GPU it launches both kernels and checks them against a CPU reference; without
#      one it shows what it carries, what it would pick on each GPU, and why it cannot launch here
#
# Environment: BUILD_DIR (default <repo>/build-quickstart), JOBS (default nproc), and
# scripts/setup.sh's TRITONPACK_VENV / TRITONPACK_TRITON / TRITONPACK_NO_APT.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh" --lib
cd "$TP_ROOT"
: "${BUILD_DIR:=$TP_ROOT/build-quickstart}"
: "${JOBS:=$(nproc)}"
T0=$SECONDS

tp_install_debian_packages "${TP_APT_QUICKSTART[@]}"
tp_make_venv

tp_log "tritonpack: build and install into $BUILD_DIR/prefix"
cmake -S . -B "$BUILD_DIR/tritonpack" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DTRITONPACK_BUILD_TESTS=OFF -DTRITONPACK_BUILD_BENCH=OFF -DTRITONPACK_BUILD_EXAMPLES=OFF \
      -DTRITONPACK_INSTALL=ON -DCMAKE_INSTALL_PREFIX="$BUILD_DIR/prefix" >/dev/null
cmake --build "$BUILD_DIR/tritonpack" -j "$JOBS"
cmake --install "$BUILD_DIR/tritonpack" >/dev/null

tp_log "quickstart: compile the kernels with Triton, pack, build (examples/quickstart)"
cmake -S examples/quickstart -B "$BUILD_DIR/quickstart" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$BUILD_DIR/prefix" -DTRITONPACK_PYTHON="$TRITONPACK_PYTHON" >/dev/null
CMAKE_BUILD_PARALLEL_LEVEL="$JOBS" cmake --build "$BUILD_DIR/quickstart" -j "$JOBS"

tp_log "quickstart: run ($BUILD_DIR/quickstart/quickstart)"
"$BUILD_DIR/quickstart/quickstart"
tp_log "done in $((SECONDS - T0))s — the program is $BUILD_DIR/quickstart/quickstart; copy it to a GPU node and run it there"
