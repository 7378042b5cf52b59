#!/usr/bin/env bash
# apps/lulesh/bench/run.sh — the whole LULESH benchmark in one call on a machine with an NVIDIA GPU, nvcc,
# cmake, ninja and a python3 with Triton 3.6: builds lulesh_bench (the Triton library for sm_90
# only, cubins only, plus the tuning library and the CUDA twin), verifies both back ends, runs the
# benchmark, profiles two kernels with ncu if it can, and prints the tables (summarize.py).
#
#   bash apps/lulesh/bench/run.sh            # logs and CSV in $OUT, else <build>/logs
#   BENCH_ARGS="--sizes 30,90" bash apps/lulesh/bench/run.sh
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
BUILD=${BUILD:-$ROOT/build-lulesh-bench}
LOGS=${OUT:-$BUILD/logs}
mkdir -p "$LOGS"
PY=${TRITONPACK_PYTHON:-$(command -v python3)}
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
date -u

t0=$SECONDS
if ! { cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRITONPACK_PYTHON="$PY" \
         -DTRITONPACK_BENCH_LULESH=ON -DCMAKE_CUDA_COMPILER="$NVCC" -DTRITONPACK_BUILD_TESTS=OFF \
         -DTRITONPACK_FUZZ=OFF && cmake --build "$BUILD" -j "${JOBS:-16}" -t lulesh_bench; } >"$LOGS/build.log" 2>&1; then
  tail -60 "$LOGS/build.log"
  echo "build FAILED after $((SECONDS - t0)) s"
  exit 1
fi
echo "build: $((SECONDS - t0)) s"
BENCH="$BUILD/apps/lulesh/bench/lulesh_bench"

t0=$SECONDS
"$BENCH" --csv "$LOGS/lulesh_bench.csv" ${BENCH_ARGS:-} >"$LOGS/bench.log" 2>&1
rc=$?
echo "bench: exit $rc, $((SECONDS - t0)) s"
grep -E "^verify|VERIF|passed|error|failed" "$LOGS/bench.log" | head -40

# Two kernels on each side under Nsight Compute (s = 90, the first launch of each), if it works here.
# Skipped when the run is already long (the GPU lease allows 6 minutes a call).
if [ -z "${NO_NCU:-}" ] && [ $SECONDS -lt 220 ] && command -v ncu >/dev/null; then
  t0=$SECONDS
  for b in triton cuda_tree; do
    timeout 50 ncu --clock-control none -k "regex:${NCU_KERNELS:-monotonic_q|material_eos}" -c 2 \
      --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
      --section WarpStateStats --section InstructionStats --section ComputeWorkloadAnalysis \
      "$BENCH" --verify "" --sizes 90 --backends $b --warmup 2 --steps 1 --kernel-steps 1 --graph-steps 1 \
      --sweep-reps 0 --csv /tmp/ncu_bench.csv >"$LOGS/ncu_$b.txt" 2>&1
    echo "ncu $b: exit $?, $((SECONDS - t0)) s"
  done
fi

# Capture before any launch (each kernel's first launch inside the capture), a fresh process each.
for b in triton cuda_tree; do "$BENCH" --cold-capture 16 --backends $b 2>&1 | tee -a "$LOGS/bench.log"; done

"$PY" "$ROOT/apps/lulesh/bench/summarize.py" "$LOGS/lulesh_bench.csv" >"$LOGS/summary.md"
head -60 "$LOGS/summary.md"
exit $rc
