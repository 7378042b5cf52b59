#!/usr/bin/env bash
# apps/lulesh/bench/kernel-profile.sh — where each program's time step goes, kernel by kernel, under
# Nsight Compute: our lulesh (each mode asked for) and the public CUDA port (build-public-port.sh) at
# one size for a few cycles, every launch profiled (`--clock-control none`: the clocks as the bench
# runs them), then one table per program (kernel_profile.py): launches and GPU µs per cycle, share,
# registers, achieved occupancy, DRAM traffic. ncu serialises and replays each launch, so the times
# are of kernels alone (no launch gaps): the bench (vs-public-port.sh) is what measures the step.
#
#   bash apps/lulesh/bench/kernel-profile.sh OURS PORT      (as vs-public-port.sh's; PORT `-`: none)
#   SIZE=150 CYCLES=6 OURS_MODES="plain" EXTRA_OURS="LABEL=PROGRAM ..." NCU=ncu
#
# Logs, reports and CSVs go to $OUT/lulesh-kernel-profile (else ./lulesh-kernel-profile-logs).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
HERE=$ROOT/apps/lulesh/bench
# shellcheck source=scripts/ext-common.sh
source "$ROOT/scripts/ext-common.sh"
# shellcheck source=scripts/lulesh-log.sh
source "$ROOT/scripts/lulesh-log.sh"
die() { echo "kernel-profile.sh: $*" >&2; exit 2; }
[ $# -eq 2 ] || die "usage: kernel-profile.sh OURS PORT (our lulesh program or its build folder; the port's program or build-public-port.sh's folder, or -)"
OURS=$(ext_find_program "$1" lulesh apps/lulesh/lulesh) || die "no lulesh program at '$1'"
PORT=""
if [ "$2" != - ]; then
  PORT=$(ext_find_program "$2" lulesh-port) || die "no lulesh-port at '$2' (run apps/lulesh/bench/build-public-port.sh first)"
fi
NCU=${NCU:-$(command -v ncu || ls -d /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | tail -1)}
[ -n "$NCU" ] && [ -x "$NCU" ] || die "no Nsight Compute (ncu) here: set NCU"
LD_LIBRARY_PATH=$(dirname "$OURS"):$(dirname "$OURS")/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
SIZE=${SIZE:-150}
CYCLES=${CYCLES:-6}
LOGS=${OUT:+$OUT/lulesh-kernel-profile}
LOGS=${LOGS:-$PWD/lulesh-kernel-profile-logs}
mkdir -p "$LOGS"
PY=${PYTHON:-$(command -v python3 || echo python3-not-found)}
METRICS=gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo "(no nvidia-smi)"
echo "ncu: $NCU ($("$NCU" --version 2>/dev/null | tail -1)); s = $SIZE, $CYCLES cycles"

declare -a PROGRAMS=()
# --no-graph: each kernel launched by itself, so that every launch is profiled whatever ncu does
# with graph nodes (the kernels are the same).
lulesh_our_programs "$OURS" --no-graph || exit 2
[ -n "$PORT" ] && PROGRAMS+=("port|$PORT")

SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
declare -a TABLES=()
FAILED=0
for p in "${PROGRAMS[@]}"; do
  label=${p%%|*} cmd=${p#*|}
  log=$LOGS/$label.log
  echo "--- $label: $cmd -s $SIZE -i $CYCLES"
  # shellcheck disable=SC2086  # cmd is a program and its options
  (cd "$SCRATCH" && "$NCU" --clock-control none --metrics "$METRICS" --export "$LOGS/$label" --force-overwrite \
      $cmd -s "$SIZE" -i "$CYCLES") >"$log" 2>&1
  rc=$?
  grep -E 'Iteration count|Final Origin|ERROR|error' "$log" | head -5
  if [ $rc -ne 0 ] || [ ! -f "$LOGS/$label.ncu-rep" ]; then
    echo "$label: ncu or the program failed (exit $rc): $log"; FAILED=1; continue
  fi
  "$NCU" --import "$LOGS/$label.ncu-rep" --csv --page raw --print-units base >"$LOGS/$label.csv" 2>>"$log"
  TABLES+=("$label=$LOGS/$label.csv")
done
[ ${#TABLES[@]} -gt 0 ] && { "$PY" "$HERE/kernel_profile.py" --cycles "$CYCLES" --csv "$LOGS/kernel_profile.csv" "${TABLES[@]}" | tee "$LOGS/summary.md"; [ "${PIPESTATUS[0]}" -eq 0 ] || FAILED=1; }
exit $FAILED
