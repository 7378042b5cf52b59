#!/usr/bin/env bash
# apps/xsbench/bench/run.sh — the whole XSBench verification and benchmark in one call on a machine with
# an NVIDIA GPU: the example's GPU tests (the small problem, 1M lookups, every variant and both grids
# against the CPU, lookup for lookup), the benchmark (bench.cpp: Triton and CUDA side by side,
# small and large, unionized and hash, 1M/4M/17M lookups, the reference's checksums), and, if it
# works there, Nsight Compute on the lookup kernels of a small run.
#
# Binaries: $PREBUILT/xsbench and $PREBUILT/xsbench_bench when they run there (built on a machine
# without a GPU: the Triton kernels need no GPU to compile, nvcc neither), else a build here
# (cmake, ninja, nvcc and a python3 with Triton 3.6).
#
#   PREBUILT=prebuilt bash apps/xsbench/bench/run.sh  # logs and CSVs in $OUT, else ./xsbench-logs
#   TEST_GRIDS= BENCH_ARGS="--lookups 17000000" ...   # no GPU tests, the benchmark at 17M only
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
LOGS=${OUT:-$ROOT/xsbench-logs}
mkdir -p "$LOGS"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
date -u
T0=$SECONDS

# A prebuilt folder may carry the libraries the binaries link besides libc and libstdc++ (libzstd).
[ -n "${PREBUILT:-}" ] && export LD_LIBRARY_PATH=$(cd "$PREBUILT" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
XS=${PREBUILT:-none}/xsbench
BENCH=${PREBUILT:-none}/xsbench_bench
runs() { "$@" >/dev/null 2>&1; local s=$?; [ $s -ne 127 ] && [ $s -ne 126 ]; }  # loads (a usage error is fine)
if ! runs "$XS" --help || ! runs "$BENCH" --probe; then
  BUILD=${BUILD:-$ROOT/build-xsbench}
  NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  echo "no usable prebuilt binaries: building in $BUILD"
  if ! { cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRITONPACK_PYTHON="$(command -v python3)" \
           -DTRITONPACK_BENCH_XSBENCH=ON -DCMAKE_CUDA_COMPILER="$NVCC" -DTRITONPACK_BUILD_TESTS=OFF \
           -DTRITONPACK_FUZZ=OFF && cmake --build "$BUILD" -j "${JOBS:-16}" -t xsbench xsbench_bench; } >"$LOGS/build.log" 2>&1; then
    tail -40 "$LOGS/build.log"
    echo "build FAILED after $((SECONDS - T0)) s"
    exit 1
  fi
  XS=$BUILD/apps/xsbench/xsbench
  BENCH=$BUILD/apps/xsbench/bench/xsbench_bench
fi
echo "binaries ready: $((SECONDS - T0)) s"

# The example's GPU tests (CMakeLists.txt: example.xsbench.gpu.*), run directly.
rc=0
for grid in ${TEST_GRIDS-unionized hash}; do
  "$XS" -s small -G $grid -l 1000000 --variant all --verify-cpu --require-gpu 2>&1 | tee "$LOGS/gpu_test_$grid.log" | grep -E "checksum|differ|Runtime|rror"
  st=${PIPESTATUS[0]}
  echo "gpu test small/$grid/1M: exit $st"
  [ "$st" -eq 0 ] || rc=1
done
echo "tests done: $((SECONDS - T0)) s"

"$BENCH" --csv "$LOGS/xsbench_bench.csv" --analysis "$LOGS/xsbench_tiles.csv" ${BENCH_ARGS:-} 2>&1 | tee "$LOGS/bench.log"
st=${PIPESTATUS[0]}
echo "bench: exit $st, $((SECONDS - T0)) s"
[ "$st" -eq 0 ] || rc=1

# Nsight Compute on the fused and sorted lookup kernels of a small run (1M lookups), if time allows.
if [ -z "${NO_NCU:-}" ] && [ $((SECONDS - T0)) -lt "${NCU_BEFORE_S:-200}" ] && command -v ncu >/dev/null; then
  t=$SECONDS
  timeout "${NCU_TIMEOUT_S:-60}" ncu --clock-control none --csv \
    -k "regex:baseline_kernel|material_kernel|lookup_fused|lookup_material" \
    --metrics gpu__time_duration.sum,smsp__thread_inst_executed_per_inst_executed.ratio,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,launch__registers_per_thread \
    "$BENCH" --sizes small --grids unionized --lookups 1000000 --reps 1 \
    --only "${NCU_ONLY:-cuda/fused/256 threads,cuda/fused/256 threads-packed,cuda/energy/256 threads,triton/fused/b256w8,triton/fused/b256w8-packed,triton/energy/b256w8,triton/energy/b256w8-packed}" \
    --csv /tmp/ncu_bench.csv --analysis /tmp/ncu_tiles.csv >"$LOGS/ncu.csv" 2>&1
  echo "ncu: exit $?, $((SECONDS - t)) s"
fi
echo "total: $((SECONDS - T0)) s"
exit $rc
