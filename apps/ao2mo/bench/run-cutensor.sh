#!/usr/bin/env bash
# apps/ao2mo/bench/run-cutensor.sh — issue 31 on the GPU machine: the bench against cuTENSOR and
# where fusion pays, after cutensor/carry.sh has brought libcutensor.so.2 there (RESULTS.md,
# "cuTENSOR and fusion", has the whole call sequence). One part per device call:
#
#   build    configure and build tensor4_bench (the Triton kernels compile here: minutes; the build
#            folder stays on the warm machine for the later calls); a bench already in $BUILD
#            that runs here (e.g. carried prebuilt: BUILD=$PWD/build-t4) is used instead
#   tables   AO->MO + MP2 at N = 64, 96, 128, 160 (cuBLAS, Triton unfused/fused, cuTENSOR chains)
#            and the TCCG cases (FP32, TF32, FP64): tensor4-cutensor.csv, table.md, the PNG
#   steps    every quarter step alone at each N (cuTENSOR FP32/TF32/FP64 vs cuBLAS and Triton):
#            steps.csv and its table
#   fusion   the fusion case (bench_fusion.hpp) timed, then under ncu for the DRAM bytes of each
#            kernel: fusion.csv, fusion table, ncu-fusion.csv and its summary
#
#   bash apps/ao2mo/bench/run-cutensor.sh build|tables|steps|fusion [more parts...]
# Environment: TENSOR4_CUTENSOR (default /tmp/cutensor/lib/libcutensor.so.2), TENSOR4_CUBLAS (else
# python3's nvidia-cublas), CUTENSOR_TUNING (default heuristic,autotune8), SIZES (64,96,128,160),
# FUSION_SIZES (4:1024,8:512,8:768,16:256), OUT (logs; else <build>/logs-cutensor).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
BUILD=${BUILD:-$ROOT/build-tensor4}
LOGS=${OUT:-$BUILD/logs-cutensor}
mkdir -p "$LOGS"
PY=${TRITONPACK_PYTHON:-$(command -v python3)}
BENCH=$BUILD/apps/ao2mo/bench/tensor4_bench
SIZES=${SIZES:-64,96,128,160}
FUSION_SIZES=${FUSION_SIZES:-4:1024,8:512,8:768,16:256}
TUNING=${CUTENSOR_TUNING:-heuristic,autotune8}
export TENSOR4_CUTENSOR=${TENSOR4_CUTENSOR:-/tmp/cutensor/lib/libcutensor.so.2}
export TRITONPACK_CACHE_DIR=${TRITONPACK_CACHE_DIR:-$BUILD/tune-cache}  # tuned choices kept between calls
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
date -u

if [ -z "${TENSOR4_CUBLAS:-}" ]; then
  TENSOR4_CUBLAS=$("$PY" - <<'PY'
import glob, os, site, sys
for r in site.getsitepackages() + [site.getusersitepackages()]:
    for p in sorted(glob.glob(os.path.join(r, "nvidia", "**", "libcublas.so*"), recursive=True)):
        if "Lt" not in os.path.basename(p):
            print(p); sys.exit()
PY
)
  export TENSOR4_CUBLAS
fi
# libcutensor.so.2 needs libcublasLt.so.13: cuBLAS's folder on the loader's path too.
[ -n "${TENSOR4_CUBLAS:-}" ] && export LD_LIBRARY_PATH="$(dirname "$TENSOR4_CUBLAS")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "cuBLAS: ${TENSOR4_CUBLAS:-not found}; cuTENSOR: $TENSOR4_CUTENSOR$([ -f "$TENSOR4_CUTENSOR" ] || echo ' (absent: its rows will be skipped)')"

rc=0
table() {  # table SCRIPT [--fusion] CSV OUTPUT.md: a table of the CSV, where the bench wrote one
  local csv=${*: -2:1} md=${*: -1}
  if [ -s "$csv" ]; then "$PY" "${@:1:$#-1}" | tee "$md" || rc=1; else echo "no $csv: no table"; rc=1; fi
}
bench() {  # bench LOGNAME TIMEOUT ARGS...: the bench with its log and CSV in $LOGS
  local name=$1 limit=$2
  shift 2
  timeout "$limit" "$BENCH" --csv "$LOGS/$name.csv" --cutensor-tuning "$TUNING" "$@" 2>&1 | tee "$LOGS/$name.log" || rc=1
}
for part in "$@"; do
  t0=$SECONDS
  case "$part" in
  build)
    # A bench already there (carried prebuilt into $BUILD, or built by an earlier call) that runs on
    # this machine is used as it is (REBUILD=1 builds anyway).
    if [ -z "${REBUILD:-}" ] && [ -x "$BENCH" ] && "$BENCH" --list --no-tccg --no-mp2 --sizes 64 >/dev/null 2>&1; then
      echo "build: using $BENCH (it runs here)"
    elif ! { cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRITONPACK_PYTHON="$PY" \
             -DTRITONPACK_BENCH_TENSOR4=ON -DCMAKE_CUDA_COMPILER="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" \
             -DTRITONPACK_BUILD_TESTS=OFF -DTRITONPACK_FUZZ=OFF &&
           cmake --build "$BUILD" -j "${JOBS:-16}" -t tensor4_bench; } >"$LOGS/build.log" 2>&1; then
      tail -40 "$LOGS/build.log"
      echo "build FAILED"
      exit 1
    fi
    ;;
  tables)
    bench tables "${TABLES_TIMEOUT:-560}" --sizes "$SIZES"
    [ -s "$LOGS/tables.csv" ] && { "$PY" "$ROOT/apps/ao2mo/bench/plot.py" "$LOGS/tables.csv" "$LOGS/tensor4-cutensor.png" || echo "plot.py failed (plot here from the CSV)"; }
    table "$ROOT/apps/ao2mo/bench/table.py" "$LOGS/tables.csv" "$LOGS/table.md"
    table "$ROOT/apps/ao2mo/bench/cutensor_table.py" "$LOGS/tables.csv" "$LOGS/cutensor-table.md"
    ;;
  steps)
    bench steps "${STEPS_TIMEOUT:-560}" --no-ao2mo --no-mp2 --no-tccg --steps "$SIZES"
    table "$ROOT/apps/ao2mo/bench/cutensor_table.py" "$LOGS/steps.csv" "$LOGS/steps-table.md"
    ;;
  fusion)
    bench fusion "${FUSION_TIMEOUT:-300}" --no-ao2mo --no-mp2 --no-tccg --fusion "$FUSION_SIZES"
    table "$ROOT/apps/ao2mo/bench/cutensor_table.py" --fusion "$LOGS/fusion.csv" "$LOGS/fusion-table.md"
    # DRAM bytes per kernel (each path's check run and one timed run), where ncu reads the counters.
    if command -v ncu >/dev/null; then
      timeout "${NCU_TIMEOUT:-240}" ncu --clock-control none --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
        --csv --log-file "$LOGS/ncu-fusion.csv" "$BENCH" --no-ao2mo --no-mp2 --no-tccg --fusion "${NCU_FUSION_SIZES:-8:768}" \
        --cutensor-tuning heuristic --reps 1 --warmup 0 >"$LOGS/ncu-fusion.log" 2>&1 || echo "ncu failed or timed out (see ncu-fusion.log)"
      "$PY" "$ROOT/apps/ao2mo/bench/ncu_bytes.py" "$LOGS/ncu-fusion.csv" | tee "$LOGS/ncu-fusion.md" || true
    else
      echo "ncu not on the PATH: no DRAM-byte counts (the fusion table's bytes are the analytic ones)"
    fi
    ;;
  *)
    sed -n '2,/^# FUSION_SIZES/p' "${BASH_SOURCE[0]}"
    exit 2
    ;;
  esac
  echo "run-cutensor.sh: $part done in $((SECONDS - t0)) s"
done
[ -d "$TRITONPACK_CACHE_DIR/tune-v1" ] && tar -czf "$LOGS/tune.tar.gz" -C "$TRITONPACK_CACHE_DIR" tune-v1
echo "run-cutensor.sh: done in $SECONDS s (rc $rc)"
exit $rc
