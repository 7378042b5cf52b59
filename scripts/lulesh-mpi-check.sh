#!/usr/bin/env bash
# scripts/lulesh-mpi-check.sh — LULESH across MPI ranks on a GPU node (issue 25): builds lulesh and
# lulesh-mpi, runs the cases below with host buffers and, where the MPI is CUDA-aware, device
# buffers, and prints one table: iterations, final origin energy, the reference MPI build's values
# (apps/lulesh/README.md, "Across MPI ranks"), verification, FOM and the share of time in the halo
# exchanges. Needs an MPI (Debian: libopenmpi-dev openmpi-bin). Logs go to $OUT when it is set.
#
#   bash scripts/lulesh-mpi-check.sh [BUILD_DIR]
#   CASES="8:10 8:15 8:30 27:10" (ranks:s per domain) picks the runs; the default is below.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-$ROOT/build-gpu}
LOGS=${OUT:-$BUILD/logs}
mkdir -p "$LOGS"
PY=${TRITONPACK_PYTHON:-$(command -v python3)}
# 8 ranks sharing the GPU at s = 15 (global 30, the reference's 932 cycles) and s = 30 (global 60,
# no reference MPI number: compare with single-domain lulesh -s 60 below), 27 ranks x s = 10.
CASES=${CASES:-"8:10 8:15 8:30 27:10"}
MPIRUN=(mpirun)
mpirun --version 2>/dev/null | grep -q "Open MPI" && MPIRUN+=(--oversubscribe) && [ "$(id -u)" = 0 ] && MPIRUN+=(--allow-run-as-root)

cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRITONPACK_PYTHON="$PY" -DTRITONPACK_FUZZ=OFF \
  >"$LOGS/lulesh-mpi-configure.log" 2>&1 || { tail -30 "$LOGS/lulesh-mpi-configure.log"; exit 1; }
# Every target the CPU checks below run (the decomposition tests, the test-double driver of
# example.lulesh.mpi.fake): a test whose program is missing fails, and says nothing of LULESH.
cmake --build "$BUILD" --target lulesh lulesh-mpi lulesh_decomposition_test lulesh_decomposition_mpi_test \
  tritonpack_fake_cuda >"$LOGS/lulesh-mpi-build.log" 2>&1 ||
  { tail -30 "$LOGS/lulesh-mpi-build.log"; exit 1; }
(cd "$BUILD" && ctest -R 'example.lulesh.(mpi|decomposition|halo_kernels)' --output-on-failure) >"$LOGS/lulesh-mpi-ctest.log" 2>&1
echo "CPU checks: $(grep -o "[0-9]*% tests passed.*" "$LOGS/lulesh-mpi-ctest.log" || echo "no summary: see $LOGS/lulesh-mpi-ctest.log")"

cuda_aware=$(ompi_info --parsable --all 2>/dev/null | grep -c 'mpi_built_with_cuda_support:value:true')
buffers="host"; [ "$cuda_aware" != 0 ] && buffers="host device"
printf '%-6s %-4s %-7s %-7s %-13s %-22s %-6s %-12s %-8s\n' ranks s buffers iters "origin energy" "reference" verify FOM "comm %"
FAILED=0
for c in $CASES; do
  np=${c%%:*}; s=${c##*:}
  for b in $buffers; do
    log="$LOGS/lulesh-mpi-np${np}-s${s}-${b}.log"
    "${MPIRUN[@]}" -np "$np" "$BUILD/apps/lulesh/lulesh-mpi" -s "$s" --require-gpu --mpi-buffers "$b" >"$log" 2>&1
    rc=$?
    iters=$(awk '/Iteration count/ {print $4}' "$log")
    energy=$(awk '/Final Origin Energy/ {print $5}' "$log")
    ref=$(awk '/final origin energy/ {print $6}' "$log")
    refit=$(awk '/iteration count  / {print $5}' "$log")
    fom=$(awk '/^FOM/ {print $3}' "$log")
    comm=$(awk '/^Communication/ {print $8}' "$log")
    verdict=$(grep -o 'VERIFICATION [A-Z]*' "$log" | awk '{print $2}')
    [ -z "$verdict" ] && verdict=$(grep -q 'not applicable' "$log" && echo "n/a" || echo "rc=$rc")
    [ "$rc" != 0 ] && FAILED=1
    printf '%-6s %-4s %-7s %-7s %-13s %-22s %-6s %-12s %-8s\n' "$np" "$s" "$b" "${iters:--}" "${energy:--}" \
      "${refit:+$refit / }${ref:--}" "$verdict" "${fom:--}" "${comm:--}"
  done
  # The single-domain run of the same global size, for the FOM next to it.
  g=$((s * $(python3 -c "print(round($np ** (1/3)))")))
  log="$LOGS/lulesh-s${g}.log"
  "$BUILD/apps/lulesh/lulesh" -s "$g" --require-gpu >"$log" 2>&1
  printf '%-6s %-4s %-7s %-7s %-13s %-22s %-6s %-12s %-8s\n' 1 "$g" "-" "$(awk '/Iteration count/ {print $4}' "$log")" \
    "$(awk '/Final Origin Energy/ {print $5}' "$log")" "(one domain)" "$(grep -o 'VERIFICATION [A-Z]*' "$log" | awk '{print $2}')" \
    "$(awk '/^FOM/ {print $3}' "$log")" "-"
done
exit $FAILED
