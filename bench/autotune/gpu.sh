#!/usr/bin/env bash
# bench/autotune/gpu.sh — the autotuning check in one call on a machine with an NVIDIA GPU, cmake,
# ninja and a python3 with Triton 3.6 and torch: builds autotune_bench (kernels for sm_90, cubins
# only) and the default GPU tuning test, runs both GPU ctests (autotune_gpu: every config verified,
# tuning from an empty cache, a second process without trial launches; gpu_autotune: split-K with
# reset_to_zero and in-place with restore tuned from an empty cache, a second process, read-only
# mode), the benchmark from an empty cache, Triton's own autotuner on the same shapes
# (triton_autotune.py, agreement table), a second process, and 8 processes started together on one
# empty cache. In $OUT (else <build>/logs): autotune.csv, triton_autotune.csv, agreement.md,
# bench.log, ctest_gpu.log and logs.tgz (the other logs).
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
       && cmake --build "$BUILD" -j "${JOBS:-16}" -t autotune_bench tritonpack_gpu_autotune; } >"$LOGS/build.log" 2>&1; then
  tail -40 "$LOGS/build.log"; echo "build FAILED after $((SECONDS - t0)) s"; exit 1
fi
echo "build: $((SECONDS - t0)) s"
BENCH="$BUILD/bench/autotune/autotune_bench"

t0=$SECONDS
(cd "$BUILD" && ctest -L gpu -R 'autotune_gpu|gpu_autotune' -V --timeout 180) >"$LOGS/ctest_gpu.log" 2>&1
echo "ctest -L gpu -R 'autotune_gpu|gpu_autotune': exit $?, $((SECONDS - t0)) s"
grep -E "FAILED|Passed|Failed|tests passed|persisted-only|differ" "$LOGS/ctest_gpu.log" | head -30

export TRITONPACK_CACHE_DIR="$BUILD/tune-cache"
rm -rf "$TRITONPACK_CACHE_DIR"
t0=$SECONDS
TRITONPACK_LOG=1 "$BENCH" --csv "$LOGS/autotune.csv" --reps "${REPS:-15}" >"$LOGS/bench.log" 2>"$LOGS/bench_tuning_log.txt"
echo "bench (empty cache): exit $?, $((SECONDS - t0)) s"; sed -n '/^kernel /,$p' "$LOGS/bench.log"
"$BENCH" --persisted-only >"$LOGS/second_process.log" 2>&1; echo "second process: exit $? ($(tail -1 "$LOGS/second_process.log"))"

# Triton's own autotuner on the same shapes (the CSV's), beside tritonpack's choices of this run.
t0=$SECONDS
PYTHONUNBUFFERED=1 "$PY" "$ROOT/bench/autotune/triton_autotune.py" --shapes "$LOGS/autotune.csv" --csv "$LOGS/triton_autotune.csv" \
  --table "$LOGS/agreement.md" >"$LOGS/triton_autotune.log" 2>&1
echo "triton_autotune.py: exit $?, $((SECONDS - t0)) s"; grep -E "WRONG|Error|error:" "$LOGS/triton_autotune.log" | head -5; cat "$LOGS/agreement.md"

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
# At most 8 files come back from the GPU machine: the rest in one archive.
rest=$(cd "$LOGS" && ls build.log bench_tuning_log.txt second_process.log triton_autotune.log procs.tgz 2>/dev/null)
tar czf "$LOGS/logs.tgz" -C "$LOGS" $rest && (cd "$LOGS" && rm -f $rest)
