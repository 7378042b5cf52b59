#!/usr/bin/env bash
# scripts/setup.sh — install what tritonpack needs on a Debian/Ubuntu machine, then print the Python.
#
#   bash scripts/setup.sh            # Debian packages (apt) + a virtual environment with Triton
#   source scripts/setup.sh --lib    # only define the functions (used by quickstart.sh and test.sh)
#
# Environment:
#   TRITONPACK_VENV      where the virtual environment lives (default: <repo>/.venv)
#   TRITONPACK_TRITON    the Triton requirement (default: triton==3.9.0, the newest release the
#                        front end supports: docs/spec.md "Triton versions")
#   TRITONPACK_TRITON_OLDEST  the oldest supported release, which the test suite's front-end tests
#                        also run with, in <repo>/.venv-oldest (default: triton==3.6.0)
#   TRITONPACK_NO_APT=1  skip the Debian packages (you installed them another way)
#
# Nothing needs a GPU, a CUDA toolkit or PyTorch: Triton compiles for every target on the CPU.

TP_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
: "${TRITONPACK_VENV:=$TP_ROOT/.venv}"
: "${TRITONPACK_TRITON:=triton==3.9.0}"
: "${TRITONPACK_TRITON_OLDEST:=triton==3.6.0}"

# Build tools and libraries; clang + libclang-rt for the fuzzer and sanitizers, OpenMPI for
# examples/mpi and its CI run, libamdhip64-5, Debian's real HIP runtime (ROCm 5.2.3), for the HIP
# backend's "no AMD GPU" test, libamd-comgr2, Debian's real comgr 2.4 (LLVM 15), for the AMD IR
# JIT's tests (version, ISA list, the clear failure on Triton's LLVM 22 IR), llvm-14 for llvm-readelf
# (the hsaco metadata test), and gfortran for the Fortran module's tests and examples/fortran
# (tests only).
TP_APT_PACKAGES=(cmake g++ ninja-build meson pkg-config git python3 python3-venv python3-pip
                 libzstd-dev libfmt-dev nlohmann-json3-dev doctest-dev libbenchmark-dev
                 clang libclang-rt-14-dev libopenmpi-dev openmpi-bin libamdhip64-5 libamd-comgr2 llvm-14
                 gfortran)
TP_APT_QUICKSTART=(cmake g++ ninja-build pkg-config python3 python3-venv python3-pip
                   libzstd-dev libfmt-dev nlohmann-json3-dev)

tp_log() { printf '\033[1m==> %s\033[0m\n' "$*"; }

# tp_install_debian_packages PKG... — installs the missing ones (one apt-get update, only if needed).
tp_install_debian_packages() {
  if [ "${TRITONPACK_NO_APT:-0}" = 1 ]; then return 0; fi
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    tp_log "Debian packages: all ${#@} present"
    return 0
  fi
  local sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  tp_log "Debian packages: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q </dev/null || return 1
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null || return 1
}

# tp_python_for_venv — a python3 that can make virtual environments.
tp_python_for_venv() {
  local py
  for py in python3 /usr/bin/python3; do
    if command -v "$py" >/dev/null 2>&1 && "$py" -c "import venv, ensurepip" >/dev/null 2>&1; then
      command -v "$py"; return 0
    fi
  done
  echo "no python3 with venv/ensurepip found (apt-get install python3-venv)" >&2
  return 1
}

# tp_make_venv — creates $TRITONPACK_VENV with Triton (+ pytest) unless it is already complete;
# sets TRITONPACK_PYTHON.
tp_make_venv() {
  local py want
  want="${TRITONPACK_TRITON#triton==}"
  if [ -x "$TRITONPACK_VENV/bin/python" ] &&
     "$TRITONPACK_VENV/bin/python" -c "import triton, pytest, wheel, numpy, sys; sys.exit(triton.__version__ != '$want')" 2>/dev/null; then
    tp_log "Python: $TRITONPACK_VENV (triton $want, ready)"
  else
    py="$(tp_python_for_venv)" || return 1
    tp_log "Python: creating $TRITONPACK_VENV with $TRITONPACK_TRITON (about 1 GB unpacked)"
    "$py" -m venv "$TRITONPACK_VENV" || return 1
    # wheel: tests/python/test_venv.py builds the front end's wheel offline in a Triton-only venv;
    # numpy < 2: Triton 3.6's interpreter, which runs the LULESH kernels on the CPU in a test
    "$TRITONPACK_VENV/bin/python" -m pip install -q --disable-pip-version-check \
        "$TRITONPACK_TRITON" pytest wheel "numpy<2" "tomli; python_version < '3.11'" </dev/null || return 1
  fi
  TRITONPACK_PYTHON="$TRITONPACK_VENV/bin/python"
  export TRITONPACK_PYTHON
}

if [ "${1:-}" != "--lib" ]; then
  set -euo pipefail
  tp_install_debian_packages "${TP_APT_PACKAGES[@]}"
  tp_make_venv
  echo "$TRITONPACK_PYTHON"
fi
