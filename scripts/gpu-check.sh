#!/usr/bin/env bash
# scripts/gpu-check.sh — everything that needs a GPU, in one call, on a machine with an NVIDIA GPU
# and its driver, cmake, ninja, a C++17 compiler, the Debian/Ubuntu -dev packages of zstd, fmt,
# nlohmann-json, doctest and Google Benchmark, and a python3 with triton (torch only for the
# Triton-launcher row of the launch benchmark). Nothing is downloaded.
#
#   bash scripts/gpu-check.sh [BUILD_DIR]
#
# Builds everything with kernels compiled by the in-tree front end, runs the CPU tests and the GPU
# tests (`ctest -L gpu`: cubin path and forced PTX path), the quickstart, the front end's GPU test,
# and the launch benchmarks, then prints one summary table. Logs go to $OUT when it is set.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-$ROOT/build-gpu}
LOGS=${OUT:-$BUILD/logs}
mkdir -p "$LOGS"
PY=${TRITONPACK_PYTHON:-$(command -v python3)}
declare -a ROWS=()
FAILED=0
row() { ROWS+=("$(printf '%-28s %-8s %s' "$1" "$2" "$3")"); }
run_step() {  # run_step NAME LOGFILE CMD...
  local name=$1 log=$2; shift 2
  local t0=$SECONDS
  "$@" >"$LOGS/$log" 2>&1; local rc=$?
  if [ $rc -eq 0 ]; then row "$name" ok "$((SECONDS - t0))s"; else row "$name" FAILED "exit $rc, $((SECONDS - t0))s, see $log"; FAILED=1; tail -40 "$LOGS/$log"; fi
  return $rc
}

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run_step configure configure.log cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DTRITONPACK_PYTHON="$PY" -DTRITONPACK_FUZZ=OFF
# GPU_CHECK_QUICK=1 builds only what the GPU steps run and skips the CPU suite (for a short lease).
if [ -n "${GPU_CHECK_QUICK:-}" ]; then
  # What `ctest -L gpu` runs (scripts/ctest_targets.py reads it from the configured tests, so a new
  # GPU test is built without being listed here), and the benchmarks' programs, which no test runs.
  mapfile -t targets < <(python3 "$ROOT/scripts/ctest_targets.py" "$BUILD" --label gpu)
  for t in tritonpack_bench_launch tritonpack_bench_launch_separate tritonpack_first_launch tritonpack_first_launch_stored; do
    ninja -C "$BUILD" -t query "$t" >/dev/null 2>&1 && targets+=("$t")
  done
  # GPU_CHECK_EXTRA_TARGETS: more targets to build (a program a later step runs that no GPU test
  # names); a name this tree does not define fails the build step.
  read -r -a extra <<<"${GPU_CHECK_EXTRA_TARGETS:-}"
  targets+=("${extra[@]}")
  run_step build build.log cmake --build "$BUILD" -j "$(nproc)" --target "${targets[@]}"
else
  run_step build build.log cmake --build "$BUILD" -j "$(nproc)"
fi
run_step "ctest -L gpu" ctest_gpu.log bash -c "cd '$BUILD' && ctest -L gpu --output-on-failure --timeout 600"
[ -z "${GPU_CHECK_QUICK:-}" ] && run_step "ctest cpu" ctest_cpu.log bash -c "cd '$BUILD' && ctest -LE 'gpu|fuzz|package' -j $(nproc) --output-on-failure --timeout 600"
QS=$(find "$BUILD" -type f -name quickstart -perm -u+x | head -1)
if [ -n "$QS" ]; then run_step quickstart quickstart.log "$QS"; else row quickstart FAILED "binary not built"; FAILED=1; fi
# The quickstart's kernels from C (built here) and from Fortran (this machine may lack gfortran: a
# self-contained build carried in $GPU_CARRY, see examples/fortran), each checked on the CPU.
QC=$(find "$BUILD" -type f -name quickstart_c -perm -u+x | head -1)
[ -n "$QC" ] && run_step "quickstart (C)" quickstart_c.log "$QC" --require-gpu
# Binaries built on the development machine (no GPU) and carried: the same files run here.
GPU_CARRY=${GPU_CARRY:-$ROOT/.gpu-carry}
for exe in quickstart quickstart_fortran quickstart_c; do
  [ -x "$GPU_CARRY/$exe" ] || continue
  echo "carried $exe: sha256 $(sha256sum "$GPU_CARRY/$exe" | cut -d' ' -f1)" | tee -a "$LOGS/carried.log"
  run_step "carried $exe" "carried_$exe.log" "$GPU_CARRY/$exe" --require-gpu
done
# LULESH (apps/lulesh): the reference's published verification at several sizes, the PTX path,
# and a per-kernel timing table; LULESH_SIZES overrides the sizes run to completion.
LU=$(find "$BUILD" -type f -name lulesh -perm -u+x | head -1)
if [ -n "$LU" ]; then
  for s in ${LULESH_SIZES:-5 10 30 45}; do run_step "lulesh -s $s" "lulesh_s$s.log" "$LU" -s "$s" --require-gpu; done
  run_step "lulesh -s 10 (PTX JIT)" lulesh_s10_ir.log env TRITONPACK_FORCE_IR=1 "$LU" -s 10 --require-gpu
  run_step "lulesh -s 90 -i 100 timing" lulesh_s90_timing.log "$LU" -s 90 -i 100 --timing --require-gpu
else
  row lulesh FAILED "binary not built"; FAILED=1
fi
# MPI: 8 and 32 ranks sharing the GPU and a cold JIT cache (scripts/gpu-mpi.sh prints its table).
[ -z "${GPU_CHECK_NO_MPI:-}" ] && run_step "mpi 8+32 ranks" mpi.log env OUT="$LOGS/mpi" bash "$ROOT/scripts/gpu-mpi.sh" "$BUILD-mpi"
run_step "pytest gpu launch" pytest_gpu.log env PYTHONPATH="$ROOT/generator/python" \
  "$PY" -m pytest -q -p no:cacheprovider "$ROOT/tests/python/test_gpu_launch.py"
run_step "launch bench" bench_launch.log "$PY" "$ROOT/bench/launch/run.py" --build "$BUILD" --runs "${BENCH_RUNS:-21}" --rounds "${BENCH_ROUNDS:-3}" --out "$LOGS/RESULTS_launch.md"

echo; echo "=== GPU test counts ==="; grep -E 'tests passed|Total Test' "$LOGS/ctest_gpu.log" "$LOGS/ctest_cpu.log"
echo; echo "=== quickstart ==="; cat "$LOGS/quickstart.log" 2>/dev/null | tail -30
echo; echo "=== lulesh ==="; for f in "$LOGS"/lulesh_*.log; do echo "--- $(basename "$f")"; grep -E -i 'Run completed|Problem size|Iteration count|Final Origin|MaxAbsDiff|MaxRelDiff|TotalAbsDiff|Elapsed|FOM|VERIFICATION|PASS|FAIL|Trajectory|error' "$f" | head -20; done
echo; echo "=== lulesh timing (s=90) ==="; tail -30 "$LOGS/lulesh_s90_timing.log" 2>/dev/null
echo; echo "=== C / Fortran / carried ==="; for f in "$LOGS"/quickstart_c.log "$LOGS"/carried*.log; do [ -f "$f" ] && { echo "--- $(basename "$f")"; tail -12 "$f"; }; done
echo; echo "=== mpi ==="; grep -A30 -E '^ *ranks|^== running' "$LOGS/mpi.log" 2>/dev/null | tail -30
echo; echo "=== launch benchmarks ==="; cat "$LOGS/RESULTS_launch.md" 2>/dev/null | sed -n '/^| measure/,/^$/p'
echo; echo "=== summary ==="; printf '%s\n' "${ROWS[@]}"
exit $FAILED
