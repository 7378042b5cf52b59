#!/usr/bin/env bash
# apps/ao2mo/bench/run.sh — the whole tensor4 benchmark in one call on a machine with an NVIDIA GPU:
# builds tensor4_bench and the ao2mo example (or uses prebuilt ones: PREBUILT=dir holding both,
# built on another machine, which saves the GPU lease the Triton compiles), runs the example's GPU
# check (the command of ctest's example.ao2mo.gpu), the benchmark (AO->MO, MP2 energy, TCCG;
# BENCH_ARGS="--no-tccg" leaves TCCG out, "--no-ao2mo --no-mp2" runs TCCG alone), plot.py and table.py
# (the AO->MO / MP2 table and the TCCG table).
#
#   bash apps/ao2mo/bench/run.sh           # CSV, logs and the PNG in $OUT, else <build>/logs
# cuBLAS: TENSOR4_CUBLAS=/path/libcublas.so.N, else found in python3's nvidia-cublas package.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
BUILD=${BUILD:-$ROOT/build-tensor4}
LOGS=${OUT:-$BUILD/logs}
mkdir -p "$LOGS"
PY=${TRITONPACK_PYTHON:-$(command -v python3)}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
date -u

if [ -z "${TENSOR4_CUBLAS:-}" ]; then
  TENSOR4_CUBLAS=$("$PY" - <<'PY'
import glob, os, site, sys
roots = site.getsitepackages() + [site.getusersitepackages()]
for r in roots:
    for p in sorted(glob.glob(os.path.join(r, "nvidia", "**", "libcublas.so*"), recursive=True)):
        if "Lt" not in os.path.basename(p):
            print(p); sys.exit()
PY
)
  export TENSOR4_CUBLAS
fi
echo "cuBLAS: ${TENSOR4_CUBLAS:-not found (the bench will say what it tried)}"

if [ -n "${PREBUILT:-}" ]; then
  BENCH=$PREBUILT/tensor4_bench
  EXAMPLE=$PREBUILT/ao2mo
  [ -d "$PREBUILT/lib" ] && export LD_LIBRARY_PATH="$PREBUILT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  # A program that cannot start here (other system libraries) exits 127: build instead.
  "$EXAMPLE" -n 0 >/dev/null 2>&1
  if [ $? -ne 2 ]; then echo "prebuilt programs do not run here: building"; PREBUILT=; fi
fi
if [ -z "${PREBUILT:-}" ]; then
  t0=$SECONDS
  if ! { cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRITONPACK_PYTHON="$PY" \
           -DTRITONPACK_BENCH_TENSOR4=ON -DCMAKE_CUDA_COMPILER="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" \
           -DTRITONPACK_BUILD_TESTS=OFF -DTRITONPACK_FUZZ=OFF &&
         cmake --build "$BUILD" -j "${JOBS:-16}" -t tensor4_bench ao2mo; } >"$LOGS/build.log" 2>&1; then
    tail -40 "$LOGS/build.log"
    echo "build FAILED after $((SECONDS - t0)) s"
    exit 1
  fi
  echo "build: $((SECONDS - t0)) s"
  BENCH=$BUILD/apps/ao2mo/bench/tensor4_bench
  EXAMPLE=$BUILD/apps/ao2mo/ao2mo
fi

rc=0
# ctest's example.ao2mo.gpu: fused and unfused AO->MO and MP2 energy vs the FP64 CPU reference,
# outputs poisoned first.
timeout 90 "$EXAMPLE" -n 20,48,64 --reps 2 --mp2 --require-gpu 2>&1 | tee "$LOGS/example_check.log" || rc=1
# Optional (EXAMPLE_SIZES="64,128"): the example's own timings at larger N, all three precisions.
if [ -n "${EXAMPLE_SIZES:-}" ]; then
  timeout 120 "$EXAMPLE" -n "$EXAMPLE_SIZES" --reps 5 --check-max 64 2>&1 | tee "$LOGS/example_sizes.log" || rc=1
fi
# The tuned kernels tune on first use; their choices persist in the cache directory (kept in $LOGS).
export TRITONPACK_CACHE_DIR=${TRITONPACK_CACHE_DIR:-$LOGS/cache}
timeout "${BENCH_TIMEOUT:-300}" "$BENCH" --csv "$LOGS/tensor4.csv" ${BENCH_ARGS:-} 2>&1 | tee "$LOGS/bench.log" || rc=1
[ -d "$TRITONPACK_CACHE_DIR/tune-v1" ] && tar -czf "$LOGS/tune.tar.gz" -C "$TRITONPACK_CACHE_DIR" tune-v1 && rm -rf "$LOGS/cache"
"$PY" "$ROOT/apps/ao2mo/bench/plot.py" "$LOGS/tensor4.csv" "$LOGS/tensor4.png" || echo "plot.py failed (plot here from the CSV)"
# The AO->MO and MP2 table for RESULTS.md (ms, modelled HBM MB, errors, fused speed-up vs cuBLAS).
"$PY" "$ROOT/apps/ao2mo/bench/table.py" "$LOGS/tensor4.csv" | tee "$LOGS/table.md" || rc=1
echo "run.sh: done in $SECONDS s (rc $rc)"
exit $rc
