#!/usr/bin/env bash
# scripts/lulesh-same-results.sh — after a change to LULESH's kernels that should not change a single
# bit (another order of the same operations, loads without masks), shows on the GPU that it does
# not: a NEW and an OLD build of `lulesh` side by side at each size and in each mode, their reports
# compared line by line (iteration count, final origin energy and the three symmetry measures, whose
# last digits move with any rounding difference), each also against its reference: the published
# table and every cycle's time and dt at s = 5, 10, 30, 45 (lulesh's own VERIFICATION line), LLNL's
# CPU build at 50, 70, 90. Both also from PTX (TRITONPACK_FORCE_IR=1) at PTX_SIZES. No build there.
#
#   bash scripts/lulesh-same-results.sh NEW OLD          (programs, or folders holding `lulesh`)
#   SIZES="5 10 30 45 50 70 90" MODES="plain no-fp-fusion" PTX_SIZES="10 45" RUN_TIMEOUT_S=120
#   (MODES: scripts/lulesh-log.sh's lulesh_mode_options; each run names its options in full)
# Logs go to $OUT/lulesh-same-results (else ./lulesh-same-results-logs). Exit 0 when every pair
# agrees and every reference holds, 1 otherwise.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() { echo "lulesh-same-results.sh: $*" >&2; exit 2; }
[ $# -eq 2 ] || die "usage: lulesh-same-results.sh NEW OLD (lulesh programs or folders holding one)"
# shellcheck source=scripts/ext-common.sh
source "$ROOT/scripts/ext-common.sh"
# shellcheck source=scripts/lulesh-log.sh
source "$ROOT/scripts/lulesh-log.sh"
NEW=$(ext_find_program "$1" lulesh apps/lulesh/lulesh) || die "no lulesh program at '$1'"
OLD=$(ext_find_program "$2" lulesh apps/lulesh/lulesh) || die "no lulesh program at '$2'"
SIZES=${SIZES:-5 10 30 45 50 70 90}
MODES=${MODES:-plain no-fp-fusion}
PTX_SIZES=${PTX_SIZES:-10 45}
RUN_TIMEOUT_S=${RUN_TIMEOUT_S:-120}
LOGS=${OUT:+$OUT/lulesh-same-results}
LOGS=${LOGS:-$PWD/lulesh-same-results-logs}
mkdir -p "$LOGS"

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo "(no nvidia-smi)"
for p in "$NEW" "$OLD"; do echo "$(basename "$(dirname "$p")")/$(basename "$p"): $(stat -c %s "$p") bytes, sha256 $(sha256sum "$p" | cut -c1-16)"; done
# A staged folder may carry libzstd beside the program.
run() { # LOG PROGRAM ARGS...: one run, its report kept
  local log=$1 prog=$2
  shift 2
  LD_LIBRARY_PATH=$(dirname "$prog"):$(dirname "$prog")/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
    timeout "$RUN_TIMEOUT_S" "$prog" --require-gpu "$@" >"$log" 2>&1
}
# The lines that must agree: what the reference prints of the result (not times, not the image line).
report() { grep -E 'Iteration count|Final Origin Energy|MaxAbsDiff|TotalAbsDiff|MaxRelDiff' "$1"; }
reference_verdict() { # LOG SIZE: the run against its reference
  local log=$1 s=$2 v
  v=$(lulesh_verdict "$log")
  if [ -n "$v" ]; then
    # every cycle's time and dt against lulesh2.0 -p (lulesh reads the copy in the source tree)
    if grep -q 'Trajectory vs .*: PASS' "$log"; then echo "published table: $v; every cycle: PASS"
    elif grep -q 'Trajectory vs' "$log"; then echo "published table: $v; every cycle: FAIL"
    else echo "published table: $v; every cycle: not compared"; fi
  elif [ -n "${LULESH_LLNL_REFERENCE[$s]:-}" ]; then
    read -r c e <<<"${LULESH_LLNL_REFERENCE[$s]}"
    [ "$(lulesh_iters "$log")" = "$c" ] && [ "$(lulesh_energy "$log")" = "$e" ] && echo "LLNL CPU: PASS" || echo "LLNL CPU: FAIL ($c, $e)"
  else echo "no reference"; fi
}

FAILED=0
TABLE="| s | mode | cycles | energy | NEW vs OLD report | NEW's reference | OLD's reference |"$'\n'"|---|---|---|---|---|---|---|"
for s in $SIZES; do
  for m in $MODES; do
    opts=$(lulesh_mode_options "$m") || die "MODES: '$m' is none of $LULESH_MODES"
    # shellcheck disable=SC2086  # opts are options
    run "$LOGS/s${s}_${m}_new.log" "$NEW" -s "$s" $opts; rn=$?
    # shellcheck disable=SC2086
    run "$LOGS/s${s}_${m}_old.log" "$OLD" -s "$s" $opts; ro=$?
    if [ $rn -ne 0 ] || [ $ro -ne 0 ]; then same="run failed (exit new $rn, old $ro)"; FAILED=1
    elif [ -z "$(report "$LOGS/s${s}_${m}_new.log")" ]; then same="no report"; FAILED=1
    elif diff <(report "$LOGS/s${s}_${m}_new.log") <(report "$LOGS/s${s}_${m}_old.log") >"$LOGS/s${s}_${m}.diff"; then same="identical"
    else same="DIFFERS (s${s}_${m}.diff)"; FAILED=1; fi
    vn=$(reference_verdict "$LOGS/s${s}_${m}_new.log" "$s")
    vo=$(reference_verdict "$LOGS/s${s}_${m}_old.log" "$s")
    [[ $vn == *FAIL* ]] && FAILED=1
    TABLE+=$'\n'"| $s | $m | $(lulesh_iters "$LOGS/s${s}_${m}_new.log") | $(lulesh_energy "$LOGS/s${s}_${m}_new.log") | $same | $vn | $vo |"
  done
done
# From PTX (the driver JIT-compiles sm_80's PTX: an image of its own, whose FMA contraction may differ
# from the sm_90a cubin's), NEW against OLD on the same path.
for s in $PTX_SIZES; do
  TRITONPACK_FORCE_IR=1 run "$LOGS/s${s}_ptx_new.log" "$NEW" -s "$s"; rn=$?
  TRITONPACK_FORCE_IR=1 run "$LOGS/s${s}_ptx_old.log" "$OLD" -s "$s"; ro=$?
  if [ $rn -ne 0 ] || [ $ro -ne 0 ]; then same="run failed (exit new $rn, old $ro)"; FAILED=1
  elif [ -z "$(report "$LOGS/s${s}_ptx_new.log")" ]; then same="no report"; FAILED=1
  elif diff <(report "$LOGS/s${s}_ptx_new.log") <(report "$LOGS/s${s}_ptx_old.log") >"$LOGS/s${s}_ptx.diff"; then same="identical"
  else same="DIFFERS (s${s}_ptx.diff)"; FAILED=1; fi
  vn=$(reference_verdict "$LOGS/s${s}_ptx_new.log" "$s")
  vo=$(reference_verdict "$LOGS/s${s}_ptx_old.log" "$s")
  [[ $vn == *FAIL* ]] && FAILED=1
  TABLE+=$'\n'"| $s | plain, PTX JIT | $(lulesh_iters "$LOGS/s${s}_ptx_new.log") | $(lulesh_energy "$LOGS/s${s}_ptx_new.log") | $same | $vn | $vo |"
done
echo "$TABLE" | tee "$LOGS/summary.md"
[ $FAILED -eq 0 ] && echo "every pair identical, every reference held" || echo "SOMETHING DIFFERS OR FAILED: see the table and $LOGS"
exit $FAILED
