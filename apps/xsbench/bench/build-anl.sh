#!/usr/bin/env bash
# apps/xsbench/bench/build-anl.sh — builds ANL's XSBench CUDA version (ANL-CESAR/XSBench, cuda/: the
# baseline event kernel, -k 0, and its optimised kernels, -k 1..6) for sm_90 from a source tree the user
# gives, for vs-anl.sh. Nothing of that code is in this repository: fetch it yourself
# (git clone https://github.com/ANL-CESAR/XSBench). Needs nvcc (CUDA 13.0 is what we use); no GPU.
#
#   bash apps/xsbench/bench/build-anl.sh SRC [OUT]      # OUT defaults to build-ext/xsbench-anl
#   XSBENCH_ANL_SRC=SRC bash apps/xsbench/bench/build-anl.sh
#
# SRC is a checkout of ANL-CESAR/XSBench (has cuda/Main.cu), its cuda folder, or a git directory (bare
# or not; XSBENCH_ANL_REF picks the commit, default HEAD). OUT receives XSBench (the program) and
# build-info.txt (source commit, compiler, flags, sizes).
#
# Flags: those of cuda/Makefile (COMPILER=nvidia OPTIMIZE=yes) with SM_VERSION=90, except -std=c++14 ->
# -std=c++17: CUDA 13's Thrust/CUB refuse C++14 ("CUB requires at least C++17"). That is the only
# change; the source is built as it is (ANL_NVCC_FLAGS replaces the flags, ANL_ARCH the sm_90).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
SRC=${1:-${XSBENCH_ANL_SRC:-}}
OUT=${2:-$ROOT/build-ext/xsbench-anl}
REF=${XSBENCH_ANL_REF:-HEAD}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
ARCH=${ANL_ARCH:-sm_90}
FLAGS=${ANL_NVCC_FLAGS:--Xcompiler -Wall -Xcompiler -O3 -std=c++17 -O3}
die() { echo "build-anl.sh: $*" >&2; exit 1; }
[ -n "$SRC" ] || die "give XSBench's source: a checkout of ANL-CESAR/XSBench (git clone https://github.com/ANL-CESAR/XSBench), as the first argument or XSBENCH_ANL_SRC"
[ -e "$SRC" ] || die "source '$SRC' does not exist"
[ -x "$NVCC" ] || die "nvcc not found (set NVCC=/path/to/nvcc)"
source "$ROOT/scripts/ext-common.sh"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)  # the build runs in a scratch copy of the source

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
COMMIT=$(ext_copy_source "$SRC" "$REF" cuda Main.cu "$WORK/src") || die "no cuda/Main.cu in '$SRC' (at $REF): is it ANL-CESAR/XSBench?"

cd "$WORK/src"
# cuda/Makefile: every .cu into one program, -lm.
CMD="$NVCC $FLAGS -arch=$ARCH Main.cu io.cu Simulation.cu GridInit.cu XSutils.cu Materials.cu -o $OUT/XSBench -lm"
echo "$CMD"
t0=$SECONDS
nice -n "${NICE:-10}" $CMD 2>"$OUT/build.log" || { tail -30 "$OUT/build.log"; die "nvcc failed (log: $OUT/build.log)"; }
echo "built in $((SECONDS - t0)) s"
{
  echo "program: XSBench CUDA version (ANL-CESAR/XSBench cuda/; -k 0 baseline, -k 1..6 optimised)"
  echo "source: $SRC"
  echo "commit: $COMMIT"
  echo "nvcc: $("$NVCC" --version | tail -1)"
  echo "command: $CMD"
  echo "patch: none (flags only: -std=c++17 for CUDA 13's Thrust/CUB, -arch=$ARCH)"
  echo "size: $(stat -c %s "$OUT/XSBench") bytes"
  echo "sha256: $(sha256sum "$OUT/XSBench" | cut -d' ' -f1)"
  echo "device code: $(ext_list_elf "$OUT/XSBench")"
} >"$OUT/build-info.txt"
cat "$OUT/build-info.txt"
ext_require_arch "$OUT/XSBench" "$ARCH"
