#!/usr/bin/env bash
# bench/triton-versions/run.sh — what a newer Triton buys: the same programs' host code, their
# kernels compiled by each Triton release in the support window, timed on one GPU in one call.
#
#   bash scripts/triton-matrix.sh build            # here: one build per release -> build-matrix/carry/V
#   bash bench/triton-versions/run.sh [CARRY_DIR]  # on the GPU node (no Triton needed there)
#   python3 bench/triton-versions/plot.py triton_versions.csv -o triton_versions.png
#
# Per release V (each build-matrix/carry/V holding lulesh and xsbench): LULESH's whole-step
# throughput at s = 90 and s = 150 (zone-cycles/s = 1e6 / the reference's grind time, -i ITERS,
# no --timing, REPEAT runs, median) and XSBench's lookups/s on the large problem (unionized grid,
# 17M lookups, every variant, the program's own median of --repeat XS_REPEAT). Every run must pass its
# own check (LULESH: the run completes; XSBench: the published checksum), else the row says FAILED
# and the script exits 1. Writes $OUT/triton_versions.csv (or ./triton_versions.csv) and prints a table.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CARRY=${1:-$ROOT/build-matrix/carry}
DEST=${OUT:-.}
LOGS=$DEST/triton-versions-logs
mkdir -p "$LOGS"
ITERS=${ITERS:-100}
REPEAT=${REPEAT:-3}
XS_REPEAT=${XS_REPEAT:-5}
SIZES=${SIZES:-"90 150"}
CSV=$DEST/triton_versions.csv
[ -d "$CARRY" ] || { echo "run.sh: no $CARRY; run 'scripts/triton-matrix.sh build' and carry it" >&2; exit 1; }
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "triton,program,case,value,unit,runs" >"$CSV"
failed=0
median() { sort -g | awk '{v[NR]=$1} END {if (NR) print v[int((NR+1)/2)]}'; }

for d in "$CARRY"/*/; do
  v=$(basename "$d")
  if [ -x "$d/lulesh" ]; then
    for s in $SIZES; do
      vals=()
      for r in $(seq "$REPEAT"); do
        log=$LOGS/lulesh-$v-s$s-$r.log
        if "$d/lulesh" -s "$s" -i "$ITERS" --require-gpu >"$log" 2>&1; then
          # Grind time (us/z/c) = 1e6 / zone-cycles per second
          g=$(awk '/^Grind time/ {print $5}' "$log")
          [ -n "$g" ] && vals+=("$(awk -v g="$g" 'BEGIN {printf "%.4g", 1e6 / g}')")
        else
          echo "FAILED: $log"; tail -5 "$log"; failed=1
        fi
      done
      if [ ${#vals[@]} -eq "$REPEAT" ]; then
        m=$(printf '%s\n' "${vals[@]}" | median)
        echo "$v,lulesh,s=$s,$m,zone-cycles/s,$(IFS=';'; echo "${vals[*]}")" >>"$CSV"
      else
        echo "$v,lulesh,s=$s,FAILED,zone-cycles/s," >>"$CSV"; failed=1
      fi
    done
  fi
  if [ -x "$d/xsbench" ]; then
    log=$LOGS/xsbench-$v-large.log
    "$d/xsbench" -s large --variant all --repeat "$XS_REPEAT" --require-gpu >"$log" 2>&1 || { echo "FAILED: $log"; tail -5 "$log"; failed=1; }
    for variant in fused split sorted energy; do
      # "<variant> Runtime: T s  Lookups/s: R", then "<variant> Verification checksum: N (Valid)"
      rate=$(awk -v k="$variant" '$1 == k && $2 == "Runtime:" {print $6}' "$log")
      if [ -n "$rate" ] && grep -q "^$variant Verification checksum: [0-9]* (Valid)" "$log"; then
        echo "$v,xsbench,large $variant,$rate,lookups/s,$XS_REPEAT" >>"$CSV"
      else
        echo "$v,xsbench,large $variant,FAILED,lookups/s," >>"$CSV"; failed=1
      fi
    done
  fi
done

echo
awk -F, 'NR > 1 {key = $2 " " $3; if (!(key in seen)) {seen[key] = 1; keys[++n] = key}
               if (!($1 in vs)) {vs[$1] = 1; ver[++m] = $1}; val[$1, key] = $4}
         END {printf "%-22s", "case"; for (j = 1; j <= m; ++j) printf " %12s", ver[j]; printf "\n";
              for (i = 1; i <= n; ++i) {printf "%-22s", keys[i];
                for (j = 1; j <= m; ++j) printf " %12s", ((ver[j], keys[i]) in val) ? val[ver[j], keys[i]] : "-"; printf "\n"}}' "$CSV"
echo "csv: $CSV, logs: $LOGS"
exit $failed
