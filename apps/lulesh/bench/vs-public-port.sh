#!/usr/bin/env bash
# apps/lulesh/bench/vs-public-port.sh — tritonpack's `lulesh` against the public all-GPU CUDA port of
# LULESH 2.0 (build-public-port.sh), side by side on one GPU in one call: every size, REPS rounds,
# each round runs every program once (the order rotates from round to round), medians of the
# zone-cycles/s that each program prints (1000 x FOM). Flags a program whose iteration count or final
# origin energy differs from LLNL's reference (the port's does: issue 32).
#
#   bash apps/lulesh/bench/vs-public-port.sh OURS PORT
#     OURS: our lulesh program, or a build folder / prebuilt folder holding it (apps/lulesh/lulesh)
#     PORT: the port's program, or build-public-port.sh's output folder (lulesh-port); `-`: none
#     (our modes only, no ratios to the port)
#   SIZES="10 30 45 90 150" REPS=3 OURS_MODES="plain no-fp-fusion" ITERS= BUDGET_S=540 RUN_TIMEOUT_S=150
#   (plain: lulesh as it comes, fp-fusion / no-fp-fusion: with that option; apart, apart-fp-fusion:
#   every kernel apart (--no-fused-nodes --no-fused-q-eos), without / with FMA; fused-nodes,
#   fused-nodes-fp-fusion: the node kernel fused alone; fused-q-eos: the Q + EOS kernel alone; fused,
#   fused-fp-fusion: both fused kernels; scripts/lulesh-log.sh lulesh_mode_options)
#   EXTRA_OURS="LABEL=PROGRAM ..." (other builds of our lulesh, plain mode, labelled tritonpack-LABEL)
#   EXTRA_PORT=build-ext/lulesh-port-syncwarp (another build of the port in each round, labelled
#   EXTRA_PORT_LABEL, default port-syncwarp: build-public-port.sh's PORT_SYNCWARP=1 experiment)
#
# Logs, runs.tsv and the CSVs go to $OUT/lulesh-vs-port (else ./lulesh-vs-port-logs); the table is
# printed (vs_public_port.py) and a plot written when matplotlib is there. ITERS=N runs N cycles
# (-i N) instead of to completion. BUDGET_S: no run starts after that many seconds (the device call
# allows 600); the runs left out are listed.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
HERE=$ROOT/apps/lulesh/bench
# shellcheck source=scripts/ext-common.sh
source "$ROOT/scripts/ext-common.sh"
# shellcheck source=scripts/lulesh-log.sh
source "$ROOT/scripts/lulesh-log.sh"
die() { echo "vs-public-port.sh: $*" >&2; exit 2; }
[ $# -eq 2 ] || die "usage: vs-public-port.sh OURS PORT (our lulesh program or its build folder; the port's program or build-public-port.sh's folder)"
OURS=$(ext_find_program "$1" lulesh apps/lulesh/lulesh) || die "no lulesh program at '$1' (give the program or a build folder with apps/lulesh/lulesh)"
if [ "$2" != - ]; then
  PORT=$(ext_find_program "$2" lulesh-port) || die "no lulesh-port at '$2' (run apps/lulesh/bench/build-public-port.sh first)"
else
  PORT=""
fi
# A prebuilt folder may carry the libraries our program links besides libc and libstdc++ (libzstd).
LD_LIBRARY_PATH=$(dirname "$OURS"):$(dirname "$OURS")/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH

LOGS=${OUT:+$OUT/lulesh-vs-port}
LOGS=${LOGS:-$PWD/lulesh-vs-port-logs}
mkdir -p "$LOGS"
SIZES=${SIZES:-10 30 45 90 150}
REPS=${REPS:-3}
OURS_MODES=${OURS_MODES:-plain no-fp-fusion}
BUDGET_S=${BUDGET_S:-540}
RUN_TIMEOUT_S=${RUN_TIMEOUT_S:-150}
PY=${PYTHON:-$(command -v python3 || echo python3-not-found)}

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>/dev/null || echo "(no nvidia-smi)"
date -u
echo "ours: $OURS ($(stat -c %s "$OURS") bytes, sha256 $(sha256sum "$OURS" | cut -c1-16))"
if [ -n "$PORT" ]; then
  echo "port: $PORT ($(stat -c %s "$PORT") bytes, sha256 $(sha256sum "$PORT" | cut -c1-16))"
  [ -f "$(dirname "$PORT")/build-info.txt" ] && sed 's/^/  port /' "$(dirname "$PORT")/build-info.txt"
else
  echo "port: none (PORT -)"
fi
echo "sizes: $SIZES; rounds: $REPS; our modes: $OURS_MODES; $([ -n "${ITERS:-}" ] && echo "$ITERS cycles each" || echo "to completion")"

# The programs of one round, as "label|command" (our modes, then the port).
declare -a PROGRAMS=()
# Our modes (each option named in full: scripts/lulesh-log.sh) and the other builds of our lulesh
# (EXTRA_OURS="LABEL=PROGRAM ...": e.g. kernels compiled with other register limits).
lulesh_our_programs "$OURS" || exit 2
[ -n "$PORT" ] && PROGRAMS+=("port|$PORT")
if [ -n "${EXTRA_PORT:-}" ]; then
  extra=$(ext_find_program "$EXTRA_PORT" lulesh-port) || die "EXTRA_PORT: no lulesh-port at '$EXTRA_PORT'"
  PROGRAMS+=("${EXTRA_PORT_LABEL:-port-syncwarp}|$extra")
  [ -f "$(dirname "$extra")/build-info.txt" ] && grep '^patch' "$(dirname "$extra")/build-info.txt" | sed "s/^/  ${EXTRA_PORT_LABEL:-port-syncwarp} /"
fi

# The port writes nothing we need (its xyz.asc is patched off); run in a scratch folder anyway.
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
printf '# s\tprogram\trep\texit\twall_s\tlog\n' >"$LOGS/runs.tsv"
declare -a CASES=()
# The port reads -i as its 4th argument: "-s N -i K" (its own usage line).
for s in $SIZES; do CASES+=("$s|s$s|-s $s${ITERS:+ -i $ITERS}|s = $s"); done
ext_rounds lulesh '^FOM|Iteration count'

"$PY" "$HERE/vs_public_port.py" "$LOGS" --csv "$LOGS/vs_public_port.csv" ${ITERS:+--iterations-given} | tee "$LOGS/summary.md"
rc=${PIPESTATUS[0]}
"$PY" "$HERE/plot_vs_public_port.py" "$LOGS/vs_public_port.csv" -o "$LOGS/vs_public_port.png" 2>/dev/null ||
  echo "(no plot here: run apps/lulesh/bench/plot_vs_public_port.py on the CSV where matplotlib is)"
exit $rc
