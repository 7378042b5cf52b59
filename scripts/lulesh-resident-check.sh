#!/usr/bin/env bash
# scripts/lulesh-resident-check.sh — LULESH's device-resident time step on a GPU node (issue 32):
# builds lulesh, runs its CPU checks, then
#   1. verification: s = 5, 10, 30, 45 to completion in each time loop — the default (TimeIncrement
#      on the GPU, status every 16 cycles, CUDA graph), --no-graph, --host-step, and the default
#      from PTX (TRITONPACK_FORCE_IR=1): iterations, origin energy, the published verdict and the
#      every-cycle trajectory line (the reference's -p output) of each run;
#   2. timing: the same binary, REPS interleaved full runs per size and loop (medians of the FOM,
#      zone-cycles/s = 1e6 / grind time), the ratio of each loop to --host-step, and a sweep of
#      --status-every at one size.
# Logs go to $OUT when it is set, else BUILD/logs.
#
#   bash scripts/lulesh-resident-check.sh [BUILD_DIR]
#   SIZES="10 30 45" REPS=3 SWEEP_S=30 pick the timing runs (defaults below).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-$ROOT/build-gpu}
LOGS=${OUT:-$BUILD/logs}
mkdir -p "$LOGS"
PY=${TRITONPACK_PYTHON:-$(command -v python3)}
SIZES=${SIZES:-"10 30 45"}
REPS=${REPS:-3}
SWEEP_S=${SWEEP_S:-30}
LULESH="$BUILD/apps/lulesh/lulesh"

cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRITONPACK_PYTHON="$PY" -DTRITONPACK_FUZZ=OFF \
  >"$LOGS/lulesh-resident-configure.log" 2>&1 || { tail -30 "$LOGS/lulesh-resident-configure.log"; exit 1; }
cmake --build "$BUILD" --target lulesh lulesh_setup_test lulesh_resident_loop_test lulesh_time_increment_oracle \
  tritonpack_fake_cuda >"$LOGS/lulesh-resident-build.log" 2>&1 || { tail -30 "$LOGS/lulesh-resident-build.log"; exit 1; }
(cd "$BUILD" && ctest -R 'example.lulesh.(setup|resident_loop|advance_time|fake_driver|fp64_constants)$' \
  --output-on-failure) >"$LOGS/lulesh-resident-ctest.log" 2>&1
echo "CPU checks: $(grep -o "[0-9]*% tests passed.*" "$LOGS/lulesh-resident-ctest.log" || echo "no summary: see $LOGS/lulesh-resident-ctest.log")"

field() { awk "$1" "$2"; }
FAILED=0
echo
echo "1. Verification (published table and every cycle's time and dt as lulesh2.0 -p prints them)"
printf '%-4s %-20s %-6s %-13s %-8s %-12s %-28s %s\n' s loop iters "origin energy" verify trajectory "time step" "status reads"
for s in 5 10 30 45; do
  for mode in default no-graph host-step force-ir; do
    log="$LOGS/lulesh-s$s-$mode.log"
    case $mode in
      default) "$LULESH" -s "$s" --require-gpu >"$log" 2>&1 ;;
      no-graph) "$LULESH" -s "$s" --require-gpu --no-graph >"$log" 2>&1 ;;
      host-step) "$LULESH" -s "$s" --require-gpu --host-step >"$log" 2>&1 ;;
      force-ir) TRITONPACK_FORCE_IR=1 "$LULESH" -s "$s" --require-gpu >"$log" 2>&1 ;;
    esac
    rc=$?
    [ "$rc" != 0 ] && FAILED=1
    traj=$(grep -q '^Trajectory vs .*: PASS' "$log" && echo PASS || (grep -q '^Trajectory' "$log" && echo differs || echo -))
    printf '%-4s %-20s %-6s %-13s %-8s %-12s %-28s %s\n' "$s" "$mode" "$(field '/Iteration count/ {print $4}' "$log")" \
      "$(field '/Final Origin Energy/ {print $5}' "$log")" \
      "$(grep -o 'VERIFICATION [A-Z]*' "$log" | awk '{print $2}')$([ "$rc" != 0 ] && echo " rc=$rc")" "$traj" \
      "$(grep -o 'replayed as a CUDA graph\|launched one by one\|host-stepped' "$log" | head -1)" \
      "$(field '/^Status reads/ {print $3}' "$log")"
  done
done

median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
fom() { "$LULESH" "$@" --require-gpu 2>&1 | awk '/^FOM/ {print $3}'; }
echo
echo "2. Timing: FOM (z/s as LULESH prints it: 1000 / grind time in us), median of $REPS interleaved full runs"
printf '%-4s %-14s %-14s %-14s %-14s %s\n' s default no-graph host-step "status 64" "default / host-step"
for s in $SIZES; do
  : >"$LOGS/fom-$s-default"; : >"$LOGS/fom-$s-nograph"; : >"$LOGS/fom-$s-host"; : >"$LOGS/fom-$s-k64"
  for _ in $(seq "$REPS"); do
    fom -s "$s" >>"$LOGS/fom-$s-default"
    fom -s "$s" --no-graph >>"$LOGS/fom-$s-nograph"
    fom -s "$s" --host-step >>"$LOGS/fom-$s-host"
    fom -s "$s" --status-every 64 >>"$LOGS/fom-$s-k64"
  done
  d=$(median <"$LOGS/fom-$s-default"); n=$(median <"$LOGS/fom-$s-nograph")
  h=$(median <"$LOGS/fom-$s-host"); k=$(median <"$LOGS/fom-$s-k64")
  printf '%-4s %-14s %-14s %-14s %-14s %s\n' "$s" "$d" "$n" "$h" "$k" "$(awk -v a="$d" -v b="$h" 'BEGIN {printf "%.2f", a / b}')"
done
echo
echo "   --status-every sweep at s = $SWEEP_S (median of $REPS)"
for k in 1 4 16 64 256; do
  : >"$LOGS/fom-sweep-$k"
  for _ in $(seq "$REPS"); do fom -s "$SWEEP_S" --status-every "$k" >>"$LOGS/fom-sweep-$k"; done
  printf '   k = %-4s FOM %s\n' "$k" "$(median <"$LOGS/fom-sweep-$k")"
done
exit $FAILED
