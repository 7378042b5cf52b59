# shellcheck shell=bash
# scripts/lulesh-log.sh — LULESH runs for the GPU scripts (lulesh-fusion-check.sh, multi-gpu-check.sh,
# apps/lulesh/bench/vs-public-port.sh): the options of each named mode, and what a run printed
# (apps/lulesh's lulesh and lulesh-mpi, in the reference's words). Sourced, not run.

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

# What a run printed; each prints nothing when the run did not get that far.

lulesh_iters() { awk '/Iteration count/ {print $4}' "$1"; }
lulesh_energy() { awk '/Final Origin Energy/ {print $5}' "$1"; }
# PASS or FAIL: the published table's verdict (s = 5, 10, 30, 45).
lulesh_verdict() { grep -o 'VERIFICATION [A-Z]*' "$1" | awk '{print $2}'; }
