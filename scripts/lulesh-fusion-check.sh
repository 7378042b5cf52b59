#!/usr/bin/env bash
# scripts/lulesh-fusion-check.sh — issue 32's fusion and FP-contraction evidence for LULESH in ONE device
# call (no build on the GPU machine: a prebuilt `lulesh` that knows --no-fused-nodes and --no-fused-q-eos,
# session 14 on). "default" below means every kernel apart (--no-fused-nodes --no-fused-q-eos), as the
# reference's loops are; lulesh's own default is both fused kernels (first measured by this script,
# session 14: apps/lulesh/bench/RESULTS.md "Fusion").
#   a. verification of the fused paths (the node kernel, the Q + EOS kernel, both): s = 5, 10, 30, 45
#      (published table exact, every cycle's time and dt as lulesh2.0 -p prints them) and s = 90
#      (LLNL's CPU build: 3145 cycles), each against the kernels-apart path's report line for line (the
#      fused kernels are bit-identical by design);
#   b. per kernel (--timing: host clock, a synchronisation per launch) at s = 45 (to completion) and
#      s = 150 (-i TIMING_ITERS_150), kernels apart vs both fusions;
#   c. whole-step FOM at s = 45, 90, 150, interleaved rounds, medians (apps/lulesh/bench/vs-public-port.sh):
#      kernels apart, the node kernel fused, both fused, both with --fp-fusion, and the public CUDA
#      port when PORT is given;
#   d. --fp-fusion with lulesh's default kernels (both fused: lulesh's default as a whole) against the
#      references: s = 5, 10, 30, 45 from cubins and from PTX (TRITONPACK_FORCE_IR=1) against the
#      published table; s = 50, 70, 90, 150 beside the kernels-apart run without FMA and LLNL's CPU
#      reference where the repository records it (apps/lulesh/reference/final_results.txt).
# Then one summary. Logs go to $OUT/lulesh-fusion (else ./lulesh-fusion-logs).
#
#   bash scripts/lulesh-fusion-check.sh OURS [PORT]
#     OURS: the lulesh program, or a folder holding it (build-ext/fused, or a build folder)
#     PORT: the public port's program or build-public-port.sh's folder (build-ext/lulesh-port)
#   BUDGET_S=500 (no run starts after it, and none runs past it but step c's last, whose limit is
#   FOM_RUN_TIMEOUT_S=60: at most 560 s in all, inside the device call's 600) RUN_TIMEOUT_S=150
#   REPS=3 TIMING_ITERS_150=500 FOM_SIZES="45 90 150"
# Exit status 0 when every verification held and every run ended normally, 1 otherwise.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() { echo "lulesh-fusion-check.sh: $*" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: lulesh-fusion-check.sh OURS [PORT] (see the header)"
# shellcheck source=scripts/ext-common.sh
source "$ROOT/scripts/ext-common.sh"
# shellcheck source=scripts/lulesh-log.sh
source "$ROOT/scripts/lulesh-log.sh"
# A folder stands for the program inside it (a staged folder, or a build folder).
OURS=$(ext_find_program "$1" lulesh apps/lulesh/lulesh) || die "no lulesh program at '$1'"
for opt in --no-fused-nodes --no-fused-q-eos --no-fp-fusion; do
  "$OURS" -h 2>&1 | grep -q -- "$opt" || die "$OURS does not know $opt: build lulesh from a tree that has it (session 14 on)"
done
PORT=
[ -n "${2:-}" ] && { PORT=$(ext_find_program "$2" lulesh-port) ||
  die "no lulesh-port at '$2' (apps/lulesh/bench/build-public-port.sh makes it)"; }
LD_LIBRARY_PATH=$(dirname "$OURS"):$(dirname "$OURS")/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH

LOGS=${OUT:+$OUT/lulesh-fusion}
LOGS=${LOGS:-$PWD/lulesh-fusion-logs}
mkdir -p "$LOGS"
BUDGET_S=${BUDGET_S:-500}
RUN_TIMEOUT_S=${RUN_TIMEOUT_S:-150}
FOM_RUN_TIMEOUT_S=${FOM_RUN_TIMEOUT_S:-60}
REPS=${REPS:-3}
TIMING_ITERS_150=${TIMING_ITERS_150:-500}
FOM_SIZES=${FOM_SIZES:-45 90 150}
REFDIR=$ROOT/apps/lulesh/reference
T0=$SECONDS
FAILED=0
# The fused paths of step a: label and options.
# "default" below is the kernels apart, as the reference's loops are (lulesh's own default has been
# both fused kernels since session 14): each option is named, whatever the program's default.
APART=$(lulesh_mode_options apart)
FUSED_PATHS=("fused-nodes|$(lulesh_mode_options fused-nodes)" "fused-q-eos|$(lulesh_mode_options fused-q-eos)"
             "both|$(lulesh_mode_options fused)")

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo "(no nvidia-smi)"
date -u
echo "ours: $OURS ($(stat -c %s "$OURS") bytes, sha256 $(sha256sum "$OURS" | cut -c1-16))"
[ -n "$PORT" ] && echo "port: $PORT" || echo "port: none given (step c without it)"

left() { echo $((BUDGET_S - (SECONDS - T0))); }
# run LOG ARGS...: one lulesh run, output to $LOGS/LOG, limited to RUN_TIMEOUT_S and to what is left
# of the budget; skipped when the budget is spent.
run() {
  local log=$1 limit
  shift
  limit=$(left)
  if [ "$limit" -le 0 ]; then echo "skipped (budget spent)" >"$LOGS/$log"; return 124; fi
  timeout "$((limit < RUN_TIMEOUT_S ? limit : RUN_TIMEOUT_S))" "$@" >"$LOGS/$log" 2>&1
}
iters() { lulesh_iters "$LOGS/$1"; }
energy() { lulesh_energy "$LOGS/$1"; }
verdict() { lulesh_verdict "$LOGS/$1"; }
trajectory() { grep -q '^Trajectory vs .*: PASS' "$LOGS/$1" && echo PASS || (grep -q '^Trajectory' "$LOGS/$1" && echo differs || echo -); }
# The report's numbers (cycles, energy, the three symmetry measures), which bit-identical runs share.
report() { grep -E 'Iteration count|Final Origin Energy|MaxAbsDiff|TotalAbsDiff|MaxRelDiff' "$LOGS/$1" | tr -s ' '; }
progress() { [ -f "$REFDIR/progress_s$1.txt" ] && echo "--reference-progress $REFDIR/progress_s$1.txt"; }

echo
echo "a. The fused paths: verification, and the report against the default path's"
VERIFY_TABLE="| s | path | iterations | origin energy | verification | trajectory | report as the default's |"$'\n'"|---|---|---|---|---|---|---|"
for s in 5 10 30 45 90; do
  run "a-s$s-default.log" "$OURS" -s "$s" --require-gpu $APART $(progress "$s")
  rc_d=$?
  for path in "${FUSED_PATHS[@]}"; do
    label=${path%%|*}
    log="a-s$s-$label.log"
    run "$log" "$OURS" -s "$s" --require-gpu ${path#*|} $(progress "$s")
    rc=$?
    same=$([ -n "$(report "$log")" ] && [ "$(report "$log")" = "$(report "a-s$s-default.log")" ] && echo yes || echo NO)
    v=$(verdict "$log")
    if [ "$s" = 90 ]; then
      read -r want want_e <<<"${LULESH_LLNL_REFERENCE[90]}"
      v=$([ "$(iters "$log")" = "$want" ] && [ "$(energy "$log")" = "$want_e" ] && echo "PASS ($want cycles, $want_e, LLNL CPU)" ||
        echo "FAIL (LLNL CPU: $want cycles, $want_e)")
    fi
    { [ "$rc" != 0 ] || [ "$rc_d" != 0 ] || [ "$same" != yes ] || [[ "$v" != PASS* ]]; } && FAILED=1
    VERIFY_TABLE+=$'\n'"| $s | ${path#*|} | $(iters "$log") | $(energy "$log") | ${v:-none}$([ "$rc" != 0 ] && echo " (exit $rc)") | $(trajectory "$log") | $same (default: exit $rc_d, $(verdict "a-s$s-default.log")) |"
  done
done
echo "$VERIFY_TABLE"

echo
echo "b. Per kernel (--timing), default vs both fusions ($(left) s left)"
# per_step LOG: "kernel us" per line from print_timing's table (report.hpp).
per_step() { awk '/^Per-kernel time/ {on = 1; next} on && NF >= 6 && $NF ~ /%$/ && $1 != "kernel" {print $1, $(NF - 2)} on && $1 == "all" {print "all", $(NF - 1)}' "$LOGS/$1"; }
TIMING_TABLE=""
for spec in "45:" "150:-i $TIMING_ITERS_150"; do
  s=${spec%%:*}; extra=${spec#*:}
  run "b-s$s-default.log" "$OURS" -s "$s" --require-gpu --timing $APART $extra || FAILED=1
  run "b-s$s-fused.log" "$OURS" -s "$s" --require-gpu --timing $(lulesh_mode_options fused) $extra || FAILED=1
  TIMING_TABLE+=$'\n'"s = $s${extra:+ ($extra)}: µs per step (host clock, synchronised after each launch)"$'\n'
  # Kernels in launch order (the default's, then those only the fused run has); each fusion's
  # kernels summed against its fused kernel.
  TIMING_TABLE+=$(awk 'FNR == 1 {file++} {if (!($1 in seen)) {seen[$1] = 1; order[++n] = $1}; t[file, $1] = $2}
    function v(f, k) { return (f, k) in t ? t[f, k] : "-" }
    END {print "| kernel | default | fused (both) |"; print "|---|---:|---:|"
         for (i = 1; i <= n; i++) if (order[i] != "all") print "| " order[i] " | " v(1, order[i]) " | " v(2, order[i]) " |"
         node = t[1, "gather_node_forces"] + t[1, "acceleration"] + t[1, "acceleration_bc"] + t[1, "position_velocity"]
         printf "| node loops (the four / advance_nodes) | %.1f | %s |\n", node, v(2, "advance_nodes")
         qe = t[1, "monotonic_q"] + t[1, "material_eos"]
         printf "| monotonic_q + material_eos / monotonic_q_material_eos | %.1f | %s |\n", qe, v(2, "monotonic_q_material_eos")
         print "| all | " v(1, "all") " | " v(2, "all") " |"}' <(per_step "b-s$s-default.log") <(per_step "b-s$s-fused.log"))$'\n'
done
echo "$TIMING_TABLE"

echo
echo "d. --fp-fusion against the references ($(left) s left)"
FMA_TABLE="| s | run | iterations | origin energy | reference | verdict |"$'\n'"|---|---|---|---|---|---|"
for s in 5 10 30 45; do
  run "d-s$s-fma.log" "$OURS" -s "$s" --require-gpu --fp-fusion $(progress "$s")
  rc=$?
  TRITONPACK_FORCE_IR=1 run "d-s$s-fma-ir.log" "$OURS" -s "$s" --require-gpu --fp-fusion $(progress "$s")
  rc_ir=$?
  for kind in fma fma-ir; do
    log="d-s$s-$kind.log"
    FMA_TABLE+=$'\n'"| $s | --fp-fusion$([ $kind = fma-ir ] && echo ", PTX (TRITONPACK_FORCE_IR=1)") | $(iters $log) | $(energy $log) | published | $(verdict $log) (trajectory $(trajectory $log)) |"
  done
  { [ "$rc" != 0 ] || [ "$rc_ir" != 0 ]; } && FAILED=1
done
for s in 50 70 90 150; do
  if [ -f "$LOGS/a-s$s-default.log" ]; then cp "$LOGS/a-s$s-default.log" "$LOGS/d-s$s-default.log"
  else run "d-s$s-default.log" "$OURS" -s "$s" --require-gpu $APART || FAILED=1; fi
  run "d-s$s-fma.log" "$OURS" -s "$s" --require-gpu --fp-fusion || FAILED=1
done
for s in 50 70 90 150; do
  # LLNL's CPU result where apps/lulesh/reference/final_results.txt records it, "- -" where not (s = 150)
  read -r ref_c ref_e <<<"${LULESH_LLNL_REFERENCE[$s]:-- -}"
  for kind in default fma; do
    log="d-s$s-$kind.log"
    c=$(iters $log); e=$(energy $log)
    [ -n "$c" ] || { FMA_TABLE+=$'\n'"| $s | $kind | not run (budget or failure: $log) | | | |"; continue; }
    if [ "$ref_c" = - ] && [ "$ref_e" = - ]; then v="no LLNL reference recorded"
    else v=$({ [ "$ref_c" = - ] || [ "$c" = "$ref_c" ]; } && { [ "$ref_e" = - ] || [ "$e" = "$ref_e" ]; } && echo "as LLNL's" || echo "DIFFERS from LLNL's"); fi
    if [ $kind = fma ]; then
      dc=$(iters "d-s$s-default.log"); de=$(energy "d-s$s-default.log")
      v+="; $([ "$c" = "$dc" ] && [ "$e" = "$de" ] && echo "as the default (no FMA)" || echo "differs from the default ($dc, $de)")"
    fi
    FMA_TABLE+=$'\n'"| $s | $([ $kind = fma ] && echo "--fp-fusion" || echo "default") | $c | $e | LLNL CPU: ${ref_c} cycles, ${ref_e} | $v |"
  done
done
echo "$FMA_TABLE"

echo
echo "c. Whole step, interleaved rounds, medians ($(left) s left)"
budget_c=$(left)
SIZES="$FOM_SIZES" REPS="$REPS" OURS_MODES="apart fused-nodes fused fused-fp-fusion" RUN_TIMEOUT_S="$FOM_RUN_TIMEOUT_S" \
  BUDGET_S=$((budget_c > 0 ? budget_c : 0)) OUT="$LOGS" \
  bash "$ROOT/apps/lulesh/bench/vs-public-port.sh" "$OURS" "${PORT:--}" >"$LOGS/c-fom.log" 2>&1 || FAILED=1
FOM_TABLE=$(sed -n '/^| s /,$p' "$LOGS/c-fom.log" | grep -E '^\||^FLAG')
echo "${FOM_TABLE:-$(tail -20 "$LOGS/c-fom.log")}"
# Medians per size and program from the CSV: the ratios that matter here.
FOM_CSV=$LOGS/lulesh-vs-port/vs_public_port.csv
RATIOS=$([ -f "$FOM_CSV" ] && awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) col[$i] = i; next}
  {m[$col["s"] "," $col["program"]] = $col["median_zone_cycles_per_s"]; sizes[$col["s"]] = 1}
  function r(a, b) { return (a && b) ? sprintf("%.3f", a / b) : "—" }
  END {print "| s | nodes / default | both / default | both+FMA / default | default / port | both / port | both+FMA / port |"
       print "|---|---:|---:|---:|---:|---:|---:|"
       for (s in sizes) {d = m[s ",tritonpack-apart"]; n = m[s ",tritonpack-fused-nodes"]; f = m[s ",tritonpack-fused"]
         ff = m[s ",tritonpack-fused-fp-fusion"]; p = m[s ",port"]
         print "| " s " | " r(n, d) " | " r(f, d) " | " r(ff, d) " | " r(d, p) " | " r(f, p) " | " r(ff, p) " |"}}' "$FOM_CSV" |
  sort -t'|' -k2 -n)
echo "$RATIOS"

{
  echo "# lulesh-fusion-check $(date -u +%Y-%m-%dT%H:%MZ), $((SECONDS - T0)) s"
  echo
  echo "## a. The fused paths: verification"
  echo "$VERIFY_TABLE"
  echo
  echo "## b. Per kernel"
  echo "$TIMING_TABLE"
  echo "## c. Whole step (zone-cycles/s, medians of $REPS interleaved rounds)"
  echo "$FOM_TABLE"
  echo
  echo "$RATIOS"
  echo
  echo "## d. --fp-fusion against the references"
  echo "$FMA_TABLE"
  echo
  echo "exit status: $FAILED (0: every verification held and every run ended normally)"
} >"$LOGS/summary.md"
echo
echo "===================== summary ($LOGS/summary.md) ====================="
cat "$LOGS/summary.md"
exit $FAILED
