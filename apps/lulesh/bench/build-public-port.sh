#!/usr/bin/env bash
# apps/lulesh/bench/build-public-port.sh — builds the public all-GPU CUDA port of LULESH 2.0 (NVIDIA's
# lineage: LLNL/LULESH, branch 2.0.2-dev, cuda/src) for sm_90 from a source tree the user gives, for
# vs-public-port.sh. Nothing of that code is in this repository: fetch it yourself
# (git clone -b 2.0.2-dev https://github.com/LLNL/LULESH). Needs nvcc (CUDA 13.0 is what we use); no GPU.
#
#   bash apps/lulesh/bench/build-public-port.sh SRC [OUT]      # OUT defaults to build-ext/lulesh-port
#   LULESH_PORT_SRC=SRC bash apps/lulesh/bench/build-public-port.sh
#
# SRC is a checkout of LLNL/LULESH at 2.0.2-dev (has cuda/src/lulesh.cu), its cuda/src folder, or a git
# directory (bare or not; LULESH_PORT_REF picks the commit, default 2.0.2-dev).
# OUT receives lulesh-port (the program), build-info.txt (source commit, compiler, flags, patch, sizes)
# and patch.diff (what the build changed in its copy of the source).
#
# Flags: issue 32's, `-O3 -DNDEBUG -DNormal_forward=1 -DRESTRICT -arch=sm_90` (the port's own Makefile
# has -O3 -DNDEBUG -arch=sm_35; the two macros are not read by this source: they change nothing, kept so
# that the build is the one issue 32 measured). PORT_NVCC_FLAGS replaces them, PORT_ARCH the sm_90.
# Patch step, on a copy: write_solution() writes every node's coordinates to ./xyz.asc after the timed
# loop (about 170 MB at s = 150); it is switched off (PORT_WRITE_SOLUTION=1 keeps it). It runs after
# the clock stops, so the timings are the same either way. No CUDA 13 fix is needed (it builds as is).
# PORT_SYNCWARP=1 (an experiment, not the port a user gets): the time-constraint minima
# (CalcTimeConstraintsForElems_kernel, CalcMinDtOneBlock) finish warp-synchronously through volatile
# shared memory, which Volta and later GPUs no longer guarantee (independent thread scheduling); this
# adds __syncwarp() before each of those 15 steps, to see whether the port's other iteration counts
# (922 instead of 932 at s = 30, issue 32) come from there. Build it into another OUT folder.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
SRC=${1:-${LULESH_PORT_SRC:-}}
OUT=${2:-$ROOT/build-ext/lulesh-port}
REF=${LULESH_PORT_REF:-2.0.2-dev}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
ARCH=${PORT_ARCH:-sm_90}
FLAGS=${PORT_NVCC_FLAGS:--O3 -DNDEBUG -DNormal_forward=1 -DRESTRICT}
die() { echo "build-public-port.sh: $*" >&2; exit 1; }
[ -n "$SRC" ] || die "give the port's source: a checkout of LLNL/LULESH at branch 2.0.2-dev (git clone -b 2.0.2-dev https://github.com/LLNL/LULESH), as the first argument or LULESH_PORT_SRC"
[ -e "$SRC" ] || die "source '$SRC' does not exist"
[ -x "$NVCC" ] || die "nvcc not found (set NVCC=/path/to/nvcc)"
source "$ROOT/scripts/ext-common.sh"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)  # the build runs in a scratch copy of the source

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
COMMIT=$(ext_copy_source "$SRC" "$REF" cuda/src lulesh.cu "$WORK/src") || die "no cuda/src/lulesh.cu in '$SRC' (at $REF): is it LLNL/LULESH's 2.0.2-dev branch?"
cp -r "$WORK/src" "$WORK/orig"

cd "$WORK/src"
if [ -z "${PORT_WRITE_SOLUTION:-}" ]; then
  grep -q 'bool write_solution_flag=true;' lulesh.cu ||
    die "patch step: 'bool write_solution_flag=true;' not found in lulesh.cu (another version of the port?); PORT_WRITE_SOLUTION=1 builds it unpatched"
  sed -i 's/bool write_solution_flag=true;/bool write_solution_flag=false;  \/\/ build-public-port.sh: no xyz.asc/' lulesh.cu
fi
if [ -n "${PORT_SYNCWARP:-}" ]; then
  pattern='^\( *\)if (tid < *\(16\|8\|4\|2\|1\)) {'
  n=$(grep -c "$pattern" lulesh.cu || true)
  [ "$n" -eq 15 ] || die "PORT_SYNCWARP: expected 15 warp-synchronous steps in lulesh.cu, found $n (another version of the port?)"
  sed -i "s/$pattern/\1__syncwarp(); if (tid < \2) {/" lulesh.cu
fi
(cd "$WORK" && diff -ru orig src >"$WORK/patch.diff" || true)

# The port's Makefile (cuda/build/Makefile.CRAY) without MPI: these four files, one program.
CMD="$NVCC $FLAGS -arch=$ARCH -I. allocator.cu lulesh.cu lulesh-comms.cu lulesh-comms-gpu.cu -o $OUT/lulesh-port"
echo "$CMD"
t0=$SECONDS
nice -n "${NICE:-10}" $CMD 2>"$OUT/build.log" || { tail -30 "$OUT/build.log"; die "nvcc failed (log: $OUT/build.log)"; }
echo "built in $((SECONDS - t0)) s"
cp "$WORK/patch.diff" "$OUT/patch.diff"
{
  echo "program: LULESH 2.0 CUDA port (LLNL/LULESH cuda/src, NVIDIA's lineage)"
  echo "source: $SRC"
  echo "commit: $COMMIT"
  echo "nvcc: $("$NVCC" --version | tail -1)"
  echo "command: $CMD"
  echo "patch: $( [ -z "${PORT_WRITE_SOLUTION:-}" ] && echo -n 'write_solution_flag=false; ')$( [ -n "${PORT_SYNCWARP:-}" ] && echo -n '__syncwarp() in the dt minima (PORT_SYNCWARP=1); ')see patch.diff"
  echo "size: $(stat -c %s "$OUT/lulesh-port") bytes"
  echo "sha256: $(sha256sum "$OUT/lulesh-port" | cut -d' ' -f1)"
  echo "device code: $(ext_list_elf "$OUT/lulesh-port")"
} >"$OUT/build-info.txt"
cat "$OUT/build-info.txt"
ext_require_arch "$OUT/lulesh-port" "$ARCH"
