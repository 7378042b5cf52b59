#!/usr/bin/env bash
# bench/autotune/gpu.sh — the autotuning check in one call on a machine with an NVIDIA GPU, cmake,
# ninja and a python3 with Triton 3.6: builds autotune_bench (kernels for sm_90, cubins only), runs
# the GPU ctest (every config verified, tuning from an empty cache, a second process without trial
# launches), the benchmark from an empty cache, a second process, and 8 processes started together
# on one empty cache. Logs and CSV in $OUT (else <build>/logs).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build-autotune}
LOGS=${OUT:-$BUILD/logs}
mkdir -p "$LOGS"
PY=${TRITONPACK_PYTHON:-$(command -v python3)}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
date -u
t0=$SECONDS
if ! { cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRITONPACK_PYTHON="$PY" -DTRITONPACK_BUILD_TESTS=ON \
         -DTRITONPACK_BUILD_EXAMPLES=OFF -DTRITONPACK_BENCH_AUTOTUNE=ON -DTRITONPACK_FUZZ=OFF \
       && cmake --build "$BUILD" -j "${JOBS:-16}" -t autotune_bench; } >"$LOGS/build.log" 2>&1; then
  tail -40 "$LOGS/build.log"; echo "build FAILED after $((SECONDS - t0)) s"; exit 1
fi
echo "build: $((SECONDS - t0)) s"
BENCH="$BUILD/bench/autotune/autotune_bench"

t0=$SECONDS
(cd "$BUILD" && ctest -L gpu -R autotune_gpu --output-on-failure --timeout 120) >"$LOGS/ctest_gpu.log" 2>&1
echo "ctest -L gpu -R autotune_gpu: exit $?, $((SECONDS - t0)) s"; grep -E "verify|persisted-only|Passed|Failed" "$LOGS/ctest_gpu.log" | head -20

export TRITONPACK_CACHE_DIR="$BUILD/tune-cache"
rm -rf "$TRITONPACK_CACHE_DIR"
t0=$SECONDS
TRITONPACK_LOG=1 "$BENCH" --csv "$LOGS/autotune.csv" --reps "${REPS:-15}" >"$LOGS/bench.log" 2>"$LOGS/bench_tuning_log.txt"
echo "bench (empty cache): exit $?, $((SECONDS - t0)) s"; sed -n '/^kernel /,$p' "$LOGS/bench.log"
"$BENCH" --persisted-only >"$LOGS/second_process.log" 2>&1; echo "second process: exit $? ($(tail -1 "$LOGS/second_process.log"))"

# 8 processes at once on one empty cache: one tuning run per entry, every file whole.
export TRITONPACK_CACHE_DIR="$BUILD/tune-cache-8"
rm -rf "$TRITONPACK_CACHE_DIR"
for i in 1 2 3 4 5 6 7 8; do "$BENCH" --quick --once >"$LOGS/proc$i.log" 2>&1 & done
wait
runs=$(grep -h "^persisted-only" "$LOGS"/proc*.log | awk '{s += $2} END {print s}')
files=$(find "$TRITONPACK_CACHE_DIR" -name '*.tune' | wc -l)
echo "8 processes: $runs tuning runs in all, $files entries (4 expected for both)"
for f in $(find "$TRITONPACK_CACHE_DIR" -name '*.tune'); do tail -c +33 "$f" | grep -c "^config" ; done | sort | uniq -c
tar czf "$LOGS/procs.tgz" -C "$LOGS" $(cd "$LOGS" && ls proc*.log) && rm -f "$LOGS"/proc*.log
