# shellcheck shell=bash
# scripts/ext-common.sh — helpers for the scripts that build external baselines from a source tree the
# user gives (apps/lulesh/bench/build-public-port.sh, apps/xsbench/bench/build-anl.sh). Sourced, not run.

# ext_copy_source SRC REF SUBDIR MARKER DEST: copies the external code's SUBDIR (the folder holding
# MARKER) to DEST and prints the commit it came from. SRC is a checkout (SUBDIR/MARKER inside), the
# SUBDIR folder itself, or a git directory (bare or not), read at REF.
ext_copy_source() {
  local src=$1 ref=$2 sub=$3 marker=$4 dest=$5
  if [ -f "$src/$sub/$marker" ]; then
    cp -r "$src/$sub" "$dest"
    git -C "$src" rev-parse HEAD 2>/dev/null || echo "unknown (not a git checkout)"
  elif [ -f "$src/$marker" ]; then
    cp -r "$src" "$dest"
    git -C "$src" rev-parse HEAD 2>/dev/null || echo "unknown (not a git checkout)"
  elif git --git-dir="$src" rev-parse --verify -q "$ref^{commit}" >/dev/null 2>&1; then
    local tmp
    tmp=$(mktemp -d)
    git --git-dir="$src" archive "$ref" "$sub" | tar -x -C "$tmp" || { rm -rf "$tmp"; return 1; }
    [ -f "$tmp/$sub/$marker" ] || { rm -rf "$tmp"; return 1; }
    mv "$tmp/$sub" "$dest" && rm -rf "$tmp"
    git --git-dir="$src" rev-parse "$ref^{commit}"
  else
    return 1
  fi
}

# ext_find_program PATH NAME...: PATH itself when it is a file, else the first NAME inside the folder
# PATH (a program, a staged folder, or a build folder), as an absolute path (the scripts run programs
# from scratch folders); fails when there is none.
ext_find_program() {
  local p=$1 n
  shift
  if [ ! -f "$p" ]; then
    [ -d "$p" ] || return 1
    for n in "$@"; do [ -f "$p/$n" ] && break; n=; done
    [ -n "$n" ] || return 1
    p=$p/$n
  fi
  echo "$(cd "$(dirname "$p")" && pwd)/$(basename "$p")"
}

# ext_cuobjdump: prints a cuobjdump (CUOBJDUMP, next to nvcc, on PATH, or the one Triton's wheel carries).
ext_cuobjdump() {
  local c
  for c in "${CUOBJDUMP:-}" "$(dirname "${NVCC:-/usr/local/cuda/bin/nvcc}")/cuobjdump" "$(command -v cuobjdump || true)"; do
    [ -n "$c" ] && [ -x "$c" ] && { echo "$c"; return 0; }
  done
  for c in /work/venvs/*/lib/python3*/site-packages/triton/backends/nvidia/bin/cuobjdump \
           "$(python3 -c 'import os, triton; print(os.path.dirname(triton.__file__))' 2>/dev/null)/backends/nvidia/bin/cuobjdump"; do
    [ -x "$c" ] && { echo "$c"; return 0; }
  done
  return 1
}

# ext_list_elf BIN: the GPU code objects in BIN, on one line ("sm_90 cubin x5, sm_90 PTX x4").
ext_list_elf() {
  local co
  co=$(ext_cuobjdump) || { echo "not checked (no cuobjdump; set CUOBJDUMP)"; return 0; }
  { "$co" --list-elf "$1" 2>/dev/null | grep -o 'sm_[0-9a-z]*\.cubin' | sed 's/\.cubin/ cubin/'
    "$co" --list-ptx "$1" 2>/dev/null | grep -o 'sm_[0-9a-z]*\.ptx' | sed 's/\.ptx/ PTX/'; } |
    sort | uniq -c | awk '{printf "%s%s %s x%d", (NR > 1 ? ", " : ""), $2, $3, $1}'
  echo
}

# ext_require_arch BIN ARCH: fails unless BIN carries a cubin for ARCH (warns when it cannot check).
ext_require_arch() {
  local co
  co=$(ext_cuobjdump) || { echo "warning: no cuobjdump to check that $1 carries $2 code (set CUOBJDUMP)" >&2; return 0; }
  local elves
  elves=$("$co" --list-elf "$1" 2>&1) || true  # all of it first: grep -q would cut the pipe (pipefail)
  grep -q "\.$2\.cubin" <<<"$elves" || { echo "$1 carries no $2 cubin ($co --list-elf says: $elves)" >&2; return 1; }
  echo "checked: $1 carries $2 cubins"
}

# ext_rounds LOG_PREFIX SUMMARY_REGEX: the side-by-side runs of apps/lulesh/bench/vs-public-port.sh and
# apps/xsbench/bench/vs-anl.sh. Reads the caller's PROGRAMS ("label|command") and CASES
# ("tsv fields|log key|arguments|description"; tsv fields tab-separated), REPS, BUDGET_S, RUN_TIMEOUT_S,
# LOGS and SCRATCH. Round-major: a round runs every case, so a budget cut drops whole rounds, never the
# large cases; within a case the order of the programs rotates from round to round. Appends one line
# per run to $LOGS/runs.tsv ("fields program rep exit wall_s log"; the caller writes its header) and
# prints one per run with the lines of its log that SUMMARY_REGEX matches.
ext_rounds() {
  local prefix=$1 summary=$2
  local n=${#PROGRAMS[@]} t0=$SECONDS skipped=0 rep c k
  for ((rep = 1; rep <= REPS; rep++)); do
    for c in "${CASES[@]}"; do
      local fields=${c%%|*} rest=${c#*|}
      local key=${rest%%|*}
      rest=${rest#*|}
      local args=${rest%%|*} what=${rest#*|}
      for ((k = 0; k < n; k++)); do
        local entry=${PROGRAMS[$(((k + rep - 1) % n))]}
        local label=${entry%%|*} cmd=${entry#*|}
        if [ $((SECONDS - t0)) -ge "$BUDGET_S" ]; then
          echo "skipped (budget ${BUDGET_S}s spent): $what $label round $rep"
          skipped=$((skipped + 1))
          continue
        fi
        local log=${prefix}_${key}_${label}_r${rep}.log t ms rc
        t=$(date +%s%N)
        # shellcheck disable=SC2086  # cmd and args are word lists by design
        (cd "$SCRATCH" && timeout "$RUN_TIMEOUT_S" $cmd $args) >"$LOGS/$log" 2>&1
        rc=$?
        ms=$((($(date +%s%N) - t) / 1000000))
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$fields" "$label" "$rep" "$rc" "$((ms / 1000)).$(printf %03d $((ms % 1000)))" "$log" >>"$LOGS/runs.tsv"
        printf '%-16s %-22s round %d: exit %d, %d ms: %s\n' "$what" "$label" "$rep" "$rc" "$ms" \
          "$(grep -E "$summary" "$LOGS/$log" | tr -s ' ' | tr '\n' ' ' | cut -c1-220)"
        rm -f "$SCRATCH"/xyz.asc  # LULESH's solution dump, where a program writes one
      done
    done
  done
  echo "runs: $((SECONDS - t0)) s, $skipped skipped"
}
