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
