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
run() { # LOG PROGRAM ENV ARGS...: one run (ENV: an environment assignment, or ""), its report kept
  local log=$1 prog=$2 env=$3
  shift 3
  env ${env:+"$env"} LD_LIBRARY_PATH="$(dirname "$prog"):$(dirname "$prog")/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
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

# compare S NAME LABEL ENV OPTION...: NEW and OLD at size S with the OPTIONs (and ENV), their reports
# compared line by line and each against its reference; one row of the table, labelled LABEL; FAILED
# set when they differ, a run fails or NEW's reference does not hold.
compare() {
  local s=$1 name=$2 label=$3 env=$4 rn ro same vn vo
  shift 4
  local new=$LOGS/s${s}_${name}_new.log old=$LOGS/s${s}_${name}_old.log
  run "$new" "$NEW" "$env" -s "$s" "$@"; rn=$?
  run "$old" "$OLD" "$env" -s "$s" "$@"; ro=$?
  if [ $rn -ne 0 ] || [ $ro -ne 0 ]; then same="run failed (exit new $rn, old $ro)"; FAILED=1
  elif [ -z "$(report "$new")" ]; then same="no report"; FAILED=1
  elif diff <(report "$new") <(report "$old") >"$LOGS/s${s}_${name}.diff"; then same="identical"
  else same="DIFFERS (s${s}_${name}.diff)"; FAILED=1; fi
  vn=$(reference_verdict "$new" "$s")
  vo=$(reference_verdict "$old" "$s")
  [[ $vn == *FAIL* ]] && FAILED=1
  TABLE+=$'\n'"| $s | $label | $(lulesh_iters "$new") | $(lulesh_energy "$new") | $same | $vn | $vo |"
}

FAILED=0
TABLE="| s | mode | cycles | energy | NEW vs OLD report | NEW's reference | OLD's reference |"$'\n'"|---|---|---|---|---|---|---|"
for s in $SIZES; do
  for m in $MODES; do
    opts=$(lulesh_mode_options "$m") || die "MODES: '$m' is none of $LULESH_MODES"
    # shellcheck disable=SC2086  # opts are options
    compare "$s" "$m" "$m" "" $opts
  done
done
# From PTX (the driver JIT-compiles sm_80's PTX: an image of its own, whose FMA contraction may differ
# from the sm_90a cubin's), NEW against OLD on the same path.
for s in $PTX_SIZES; do compare "$s" ptx "plain, PTX JIT" TRITONPACK_FORCE_IR=1; done
echo "$TABLE" | tee "$LOGS/summary.md"
[ $FAILED -eq 0 ] && echo "every pair identical, every reference held" || echo "SOMETHING DIFFERS OR FAILED: see the table and $LOGS"
exit $FAILED
