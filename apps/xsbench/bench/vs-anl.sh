#!/usr/bin/env bash
# apps/xsbench/bench/vs-anl.sh — tritonpack's `xsbench` (every variant) against ANL's XSBench CUDA
# version (build-anl.sh: its baseline kernel -k 0 and optimised kernels -k 1..6), side by side on one
# GPU in one call: event mode, the same problems (small, large), the same lookups (17M) and seeds (both
# use the reference's), REPS rounds, each round runs every program once (the order rotates), medians
# of the lookups/s each prints, checksums compared.
#
#   bash apps/xsbench/bench/vs-anl.sh OURS ANL
#     OURS: our xsbench program, or a build folder / prebuilt folder holding it (apps/xsbench/xsbench)
#     ANL:  ANL's program, or build-anl.sh's output folder (XSBench)
#   XS_SIZES="small large" XS_GRIDS=unionized XS_LOOKUPS=17000000 REPS=3 ANL_KERNELS="0 1 2 3 4 5 6"
#   OURS_VARIANTS=all OURS_REPEAT=1 BUDGET_S=540 RUN_TIMEOUT_S=120
#
# Each process builds its problem on the host first (ANL's large problem: some seconds), then times one
# pass (OURS_REPEAT>1 gives ours a median of several passes in one process; ANL has no such option).
# Logs, runs.tsv and the CSVs go to $OUT/xsbench-vs-anl (else ./xsbench-vs-anl-logs); the table is
# printed (vs_anl.py) and a plot written when matplotlib is there. BUDGET_S: no run starts after that
# many seconds (the device call allows 600); the runs left out are listed.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
HERE=$ROOT/apps/xsbench/bench
# shellcheck source=scripts/ext-common.sh
source "$ROOT/scripts/ext-common.sh"
die() { echo "vs-anl.sh: $*" >&2; exit 2; }
[ $# -eq 2 ] || die "usage: vs-anl.sh OURS ANL (our xsbench program or its build folder; ANL's XSBench or build-anl.sh's folder)"
OURS=$(ext_find_program "$1" xsbench apps/xsbench/xsbench) || die "no xsbench program at '$1' (give the program or a build folder with apps/xsbench/xsbench)"
ANL=$(ext_find_program "$2" XSBench) || die "no XSBench at '$2' (run apps/xsbench/bench/build-anl.sh first)"
# A prebuilt folder may carry the libraries our program links besides libc and libstdc++ (libzstd).
LD_LIBRARY_PATH=$(dirname "$OURS"):$(dirname "$OURS")/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH

LOGS=${OUT:+$OUT/xsbench-vs-anl}
LOGS=${LOGS:-$PWD/xsbench-vs-anl-logs}
mkdir -p "$LOGS"
XS_SIZES=${XS_SIZES:-small large}
XS_GRIDS=${XS_GRIDS:-unionized}
XS_LOOKUPS=${XS_LOOKUPS:-17000000}
REPS=${REPS:-3}
ANL_KERNELS=${ANL_KERNELS:-0 1 2 3 4 5 6}
OURS_VARIANTS=${OURS_VARIANTS:-all}
OURS_REPEAT=${OURS_REPEAT:-1}
BUDGET_S=${BUDGET_S:-540}
RUN_TIMEOUT_S=${RUN_TIMEOUT_S:-120}
PY=${PYTHON:-$(command -v python3 || echo python3-not-found)}

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>/dev/null || echo "(no nvidia-smi)"
date -u
echo "ours: $OURS ($(stat -c %s "$OURS") bytes, sha256 $(sha256sum "$OURS" | cut -c1-16))"
echo "ANL:  $ANL ($(stat -c %s "$ANL") bytes, sha256 $(sha256sum "$ANL" | cut -c1-16))"
[ -f "$(dirname "$ANL")/build-info.txt" ] && sed 's/^/  ANL /' "$(dirname "$ANL")/build-info.txt"
echo "sizes: $XS_SIZES; grids: $XS_GRIDS; $XS_LOOKUPS lookups; rounds: $REPS; ANL kernels: $ANL_KERNELS; our variants: $OURS_VARIANTS"

# The programs of one round, as "label|command" (ours, then ANL's kernels).
declare -a PROGRAMS=()
variant_args=""
for v in $OURS_VARIANTS; do variant_args+=" --variant $v"; done
PROGRAMS+=("tritonpack|$OURS --require-gpu$variant_args --repeat $OURS_REPEAT")
for k in $ANL_KERNELS; do PROGRAMS+=("anl-k$k|$ANL -m event -k $k"); done

SCRATCH=$(mktemp -d)  # ANL's -b mode would write here; nothing else does
trap 'rm -rf "$SCRATCH"' EXIT
printf '# size\tgrid\tprogram\trep\texit\twall_s\tlog\n' >"$LOGS/runs.tsv"
declare -a CASES=()
# Both read -s SIZE -G GRID -l LOOKUPS the reference's way.
for size in $XS_SIZES; do
  for grid in $XS_GRIDS; do CASES+=("$size	$grid|${size}_${grid}|-s $size -G $grid -l $XS_LOOKUPS|$size/$grid"); done
done
ext_rounds xsbench 'Lookups/s|checksum'

"$PY" "$HERE/vs_anl.py" "$LOGS" --csv "$LOGS/vs_anl.csv" --lookups "$XS_LOOKUPS" | tee "$LOGS/summary.md"
rc=${PIPESTATUS[0]}
"$PY" "$HERE/plot_vs_anl.py" "$LOGS/vs_anl.csv" -o "$LOGS/vs_anl.png" 2>/dev/null ||
  echo "(no plot here: run apps/xsbench/bench/plot_vs_anl.py on the CSV where matplotlib is)"
exit $rc
