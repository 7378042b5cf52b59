#!/usr/bin/env bash
# scripts/ext-baselines.sh — both external baselines side by side in one device call: LULESH against
# the public CUDA port (apps/lulesh/bench/vs-public-port.sh), then XSBench against ANL's CUDA version
# (apps/xsbench/bench/vs-anl.sh), each with a share of the call's time.
#
#   bash scripts/ext-baselines.sh OURS PORT_DIR ANL_DIR
#     OURS:     a build folder (apps/lulesh/lulesh, apps/xsbench/xsbench) or a prebuilt folder holding
#               lulesh and xsbench (and lib/libzstd.so.1 if they need it)
#     PORT_DIR: apps/lulesh/bench/build-public-port.sh's output (build-ext/lulesh-port)
#     ANL_DIR:  apps/xsbench/bench/build-anl.sh's output (build-ext/xsbench-anl)
#   EXT_BUDGET_S=560 (the whole call; LULESH gets LULESH_SHARE=45 % of it, XSBench what is left)
#   and each script's own variables (SIZES, REPS, OURS_MODES, XS_SIZES, ANL_KERNELS, ...).
# Logs and CSVs: $OUT/lulesh-vs-port and $OUT/xsbench-vs-anl (else folders in the current one).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -eq 3 ] || { echo "usage: ext-baselines.sh OURS PORT_DIR ANL_DIR (see the header)" >&2; exit 2; }
BUDGET=${EXT_BUDGET_S:-560}
T0=$SECONDS
BUDGET_S=$((BUDGET * ${LULESH_SHARE:-45} / 100)) bash "$ROOT/apps/lulesh/bench/vs-public-port.sh" "$1" "$2"
rc_lulesh=$?
left=$((BUDGET - (SECONDS - T0) - 20))  # 20 s for the last run to finish and the summary
echo
BUDGET_S=$((left > 0 ? left : 0)) bash "$ROOT/apps/xsbench/bench/vs-anl.sh" "$1" "$3"
rc_xsbench=$?
echo "ext-baselines: LULESH exit $rc_lulesh, XSBench exit $rc_xsbench, $((SECONDS - T0)) s"
[ $rc_lulesh -eq 0 ] && [ $rc_xsbench -eq 0 ]
