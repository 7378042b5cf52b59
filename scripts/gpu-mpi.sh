#!/usr/bin/env bash
# scripts/gpu-mpi.sh — the MPI example (examples/mpi) on one GPU node: many ranks sharing its GPU(s)
# and its JIT cache. Needs the NVIDIA driver, an MPI with mpirun (OpenMPI), cmake, ninja, a C++17
# compiler, the -dev packages of zstd, fmt and nlohmann-json, and a python3 with triton. Nothing
# is downloaded.
#
#   bash scripts/gpu-mpi.sh [BUILD_DIR]        (default build-gpu-mpi)
#
# Builds mpi_example (kernels compiled by the in-tree front end), then for each rank count in
# RANKS (default "8 32") runs examples/mpi/run_modes.sh: cold JIT cache + TRITONPACK_FORCE_IR=1,
# the same cache warm, then cubins; each run checked against the CPU and its counts checked
# (run_modes.sh says what). Prints one table: ranks, mode, compiles, cache hits, cubins,
# start-up median / max, checksum. Logs (build, every run's output and every rank's
# TRITONPACK_LOG) go to $OUT when it is set, else BUILD_DIR/mpi-logs.
#
# Never hangs: each mpirun runs under a timeout (TP_MPI_TIMEOUT seconds, default 300), and the
# build under BUILD_TIMEOUT (default 1800). As root it sets OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM).
# MPIEXEC selects the mpirun; TRITONPACK_PYTHON the python with triton.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-$ROOT/build-gpu-mpi}
LOGS=${OUT:-$BUILD/mpi-logs}
mkdir -p "$LOGS"
PY=${TRITONPACK_PYTHON:-$(command -v python3)}
: "${MPIEXEC:=mpirun}"
: "${RANKS:=8 32}"
: "${BUILD_TIMEOUT:=1800}"
export MPIEXEC
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi

die() {  # die WHAT LOG — the failure, the end of its log, and what the machine has
  echo "gpu-mpi.sh: $1 failed" >&2
  [ -n "${2:-}" ] && [ -f "$2" ] && { echo "---- last lines of $2 ----" >&2; tail -n 60 "$2" >&2; }
  echo "---- environment ----" >&2
  { nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader 2>&1 | head -n 4
    command -v "$MPIEXEC" || echo "$MPIEXEC: not found"
    "$MPIEXEC" --version 2>&1 | head -n 2
    "$PY" -c 'import triton, sys; print("python", sys.version.split()[0], "triton", triton.__version__)' 2>&1 | tail -n 1
    cmake --version 2>&1 | head -n 1; ninja --version 2>&1; "${CXX:-c++}" --version 2>&1 | head -n 1; } >&2
  exit 1
}

echo "== GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -n 1 || true)"
echo "== MPI: $("$MPIEXEC" --version 2>&1 | head -n 1)"
command -v "$MPIEXEC" >/dev/null || die "finding $MPIEXEC (set MPIEXEC)" ""
# A trivial run first: an MPI that cannot start processes here is told apart from the example.
hello_flags=()
"$MPIEXEC" --version 2>&1 | grep -qi "open mpi" && hello_flags=(--oversubscribe)
timeout -k 10 60 "$MPIEXEC" "${hello_flags[@]}" -np 2 true >"$LOGS/mpirun-sanity.log" 2>&1 ||
  die "mpirun -np 2 true (MPI cannot start processes here)" "$LOGS/mpirun-sanity.log"

echo "== configure + build mpi_example in $BUILD"
timeout -k 10 600 cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRITONPACK_PYTHON="$PY" \
  -DTRITONPACK_BUILD_TESTS=OFF -DTRITONPACK_BUILD_BENCH=OFF -DTRITONPACK_FUZZ=OFF -DMPIEXEC_EXECUTABLE="$(command -v "$MPIEXEC")" \
  >"$LOGS/configure.log" 2>&1 || die "cmake configure" "$LOGS/configure.log"
grep -q "examples/mpi skipped\|examples skipped" "$LOGS/configure.log" && die "configure (the MPI example was skipped)" "$LOGS/configure.log"
timeout -k 10 "$BUILD_TIMEOUT" cmake --build "$BUILD" -j "$(nproc)" --target mpi_example >"$LOGS/build.log" 2>&1 ||
  die "building mpi_example" "$LOGS/build.log"
EXE=$(find "$BUILD" -type f -name mpi_example -perm -u+x | head -n 1)
[ -n "$EXE" ] || die "finding the built mpi_example" "$LOGS/build.log"

echo "== running: ranks $RANKS; modes cold (forced IR), warm (forced IR), cubin"
# shellcheck disable=SC2086
OUT="$LOGS" bash "$ROOT/examples/mpi/run_modes.sh" "$EXE" $RANKS 2>&1 | tee "$LOGS/run_modes.log"
rc=${PIPESTATUS[0]}
if [ "$rc" -ne 0 ]; then  # the runs' own diagnostics are above; add the GPU's state
  echo "---- nvidia-smi after the failed run(s) ----" >&2
  nvidia-smi 2>&1 | head -n 40 >&2
fi
exit "$rc"
