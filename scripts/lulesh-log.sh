# shellcheck shell=bash
# scripts/lulesh-log.sh — LULESH runs for the GPU scripts (lulesh-fusion-check.sh, multi-gpu-check.sh,
# lulesh-same-results.sh, apps/lulesh/bench/vs-public-port.sh and kernel-profile.sh): the options of
# each named mode, the programs of a side-by-side run, LLNL's reference results, and what a run
# printed (apps/lulesh's lulesh and lulesh-mpi, in the reference's words). Sourced, not run.

# lulesh_mode_options MODE: lulesh's options for a named choice of kernels and rounding, each named in
# full so that a mode means the same whatever the program's default (since session 14 both fused
# kernels with FMA; before, every kernel apart without). Fails for a mode not in LULESH_MODES. A
# program older than session 14 knows none of the --no-* options: give it plain only.
LULESH_MODES="plain fp-fusion no-fp-fusion apart apart-fp-fusion fused-nodes fused-nodes-fp-fusion fused-q-eos fused fused-fp-fusion"
lulesh_mode_options() {
  local apart="--no-fused-nodes --no-fused-q-eos"
  case $1 in
    plain) echo "" ;;
    fp-fusion) echo "--fp-fusion" ;;
    no-fp-fusion) echo "--no-fp-fusion" ;;
    apart) echo "$apart --no-fp-fusion" ;;
    apart-fp-fusion) echo "$apart --fp-fusion" ;;
    fused-nodes) echo "--fused-nodes --no-fused-q-eos --no-fp-fusion" ;;
    fused-nodes-fp-fusion) echo "--fused-nodes --no-fused-q-eos --fp-fusion" ;;
    fused-q-eos) echo "--no-fused-nodes --fused-q-eos --no-fp-fusion" ;;
    fused) echo "--fused-nodes --fused-q-eos --no-fp-fusion" ;;
    fused-fp-fusion) echo "--fused-nodes --fused-q-eos --fp-fusion" ;;
    *) return 1 ;;
  esac
}

# lulesh_our_programs OURS [OPTION...]: appends to the caller's PROGRAMS array one "label|command" per
# mode of OURS_MODES (default plain; labelled tritonpack, or tritonpack-MODE) and per "LABEL=PROGRAM"
# of EXTRA_OURS (other builds of our lulesh in their plain mode, labelled tritonpack-LABEL, each
# described on stdout); every command runs with --require-gpu and the OPTIONs. For the side-by-side
# scripts (vs-public-port.sh, kernel-profile.sh); needs scripts/ext-common.sh. Fails, saying why on
# stderr, for an unknown mode or a bad EXTRA_OURS entry.
lulesh_our_programs() {
  local ours=$1 m opts label e prog
  shift
  for m in ${OURS_MODES:-plain}; do
    opts=$(lulesh_mode_options "$m") || { echo "${0##*/}: OURS_MODES: '$m' is none of $LULESH_MODES" >&2; return 1; }
    label=tritonpack
    [ "$m" != plain ] && label=tritonpack-$m
    PROGRAMS+=("$label|$ours --require-gpu${opts:+ $opts}${*:+ $*}")
  done
  for e in ${EXTRA_OURS:-}; do
    [[ $e == *=* ]] || { echo "${0##*/}: EXTRA_OURS: '$e' is not LABEL=PROGRAM" >&2; return 1; }
    prog=$(ext_find_program "${e#*=}" lulesh apps/lulesh/lulesh) ||
      { echo "${0##*/}: EXTRA_OURS: no lulesh program at '${e#*=}'" >&2; return 1; }
    PROGRAMS+=("tritonpack-${e%%=*}|$prog --require-gpu${*:+ $*}")
    echo "ours (${e%%=*}): $prog ($(stat -c %s "$prog") bytes, sha256 $(sha256sum "$prog" | cut -c1-16))"
  done
}

# LLNL's results to completion, "cycles energy" by size: apps/lulesh/reference/final_results.txt
# (the published table's sizes and LLNL's CPU build of larger ones; vs_public_port.py reads it too).
# shellcheck disable=SC2034  # read by the scripts that source this file
declare -A LULESH_LLNL_REFERENCE=()
while read -r _s _c _e _; do
  [[ $_s =~ ^[0-9]+$ ]] && LULESH_LLNL_REFERENCE[$_s]="$_c $_e"
done <"$(dirname "${BASH_SOURCE[0]}")/../apps/lulesh/reference/final_results.txt"
unset _s _c _e

# What a run printed; each prints nothing when the run did not get that far.

lulesh_iters() { awk '/Iteration count/ {print $4}' "$1"; }
lulesh_energy() { awk '/Final Origin Energy/ {print $5}' "$1"; }
# PASS or FAIL: the published table's verdict (s = 5, 10, 30, 45).
lulesh_verdict() { grep -o 'VERIFICATION [A-Z]*' "$1" | awk '{print $2}'; }
