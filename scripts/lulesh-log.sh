# shellcheck shell=bash
# scripts/lulesh-log.sh — what a LULESH run printed (apps/lulesh's lulesh and lulesh-mpi, in the
# reference's words), read from its log by the GPU scripts (lulesh-fusion-check.sh,
# multi-gpu-check.sh). Sourced, not run. Each prints nothing when the run did not get that far.

lulesh_iters() { awk '/Iteration count/ {print $4}' "$1"; }
lulesh_energy() { awk '/Final Origin Energy/ {print $5}' "$1"; }
# PASS or FAIL: the published table's verdict (s = 5, 10, 30, 45).
lulesh_verdict() { grep -o 'VERIFICATION [A-Z]*' "$1" | awk '{print $2}'; }
