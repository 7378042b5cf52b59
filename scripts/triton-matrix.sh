#!/usr/bin/env bash
# scripts/triton-matrix.sh — every supported Triton release, compiled here and run on a GPU node.
#
#   bash scripts/triton-matrix.sh build [PYTHON...]   # where the Triton releases are installed (no GPU)
#   bash scripts/triton-matrix.sh run                 # on the GPU node, on what `build` made
#   bash scripts/triton-matrix.sh pack [PYTHON...]    # every spec of the repository, each release (no GPU)
#
# The GPU node needs no Triton (that is the point of tritonpack), so each release compiles its
# kernels here and the node runs the resulting executables as they are.
#
# build: for each Python given (default: build-matrix/pythons, one interpreter path a line, else
# .venv/bin/python and every /work/venvs/triton-*/bin/python), asks it for its Triton version V,
# configures build-matrix/V with -DTRITONPACK_PYTHON=that Python, builds the GPU tests, the
# quickstart, LULESH and XSBench, and copies the executables to build-matrix/carry/V/. The device tool
# carries `build-matrix/carry` (an ignored path: name it in `carry`).
# Environment: MATRIX_TARGETS (default "tritonpack_gpu_tests quickstart lulesh xsbench"; xsbench
# and lulesh also feed bench/triton-versions/run.sh), JOBS (nproc).
#
# run: for each build-matrix/carry/V: the GPU tests on the image selection picks (cubin) and on the
# generic sm_80 PTX (TRITONPACK_FORCE_IMAGE=ptx:sm_80, TRITONPACK_VERIFY_ABI=1), the quickstart
# (cubin, then TRITONPACK_FORCE_IR=1: the PTX path a newer GPU takes; which PTX it picked and why is
# in the log), and LULESH -s 10 (its own check against the reference's published result). Prints
# one table; logs go to $OUT/triton-matrix (or build-matrix/logs). Exit status 1 if any step failed.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MATRIX=$ROOT/build-matrix
CARRY=$MATRIX/carry
mode=${1:-}
shift || true

pythons() {
  if [ $# -gt 0 ]; then printf '%s\n' "$@"; return; fi
  if [ -f "$MATRIX/pythons" ]; then grep -v '^\s*\(#\|$\)' "$MATRIX/pythons"; return; fi
  [ -x "$ROOT/.venv/bin/python" ] && echo "$ROOT/.venv/bin/python"
  for p in /work/venvs/triton-*/bin/python; do [ -x "$p" ] && echo "$p"; done
}

do_build() {
  local targets=${MATRIX_TARGETS:-tritonpack_gpu_tests quickstart lulesh xsbench} jobs=${JOBS:-$(nproc)} failed=0
  mkdir -p "$CARRY"
  while read -r py; do
    local v
    if ! v=$("$py" -c 'import triton; print(triton.__version__)' 2>/dev/null); then
      echo "triton-matrix: $py cannot import triton; skipped" >&2; failed=1; continue
    fi
    local b=$MATRIX/$v
    echo "== Triton $v ($py) -> $b"
    cmake -S "$ROOT" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRITONPACK_PYTHON="$py" \
      -DTRITONPACK_FUZZ=OFF >"$MATRIX/configure-$v.log" 2>&1 || { echo "configure failed: $MATRIX/configure-$v.log"; failed=1; continue; }
    # shellcheck disable=SC2086
    if ! cmake --build "$b" -j "$jobs" --target $targets >"$MATRIX/build-$v.log" 2>&1; then
      echo "build failed (Triton $v): tail of $MATRIX/build-$v.log:"; tail -30 "$MATRIX/build-$v.log"; failed=1; continue
    fi
    rm -rf "${CARRY:?}/$v" && mkdir -p "$CARRY/$v"
    for t in $targets; do
      local exe
      exe=$(find "$b" -type f -name "$t" -perm -u+x | head -1)
      [ -n "$exe" ] && cp "$exe" "$CARRY/$v/" || { echo "no executable $t in $b"; failed=1; }
    done
    echo "$py" >"$CARRY/$v/python"
    du -sh "$CARRY/$v"
  done < <(pythons "$@")
  du -sh "$CARRY" 2>/dev/null
  return $failed
}

do_run() {
  local logs=${OUT:+$OUT/triton-matrix}
  logs=${logs:-$MATRIX/logs}
  mkdir -p "$logs"
  local failed=0
  declare -a rows=()
  # step LABEL LOG CMD... — one cell: ok/FAILED and seconds
  cell() {
    local log=$1; shift
    local t0=$SECONDS
    "$@" >"$log" 2>&1; local rc=$?
    if [ $rc -eq 0 ]; then echo "ok $((SECONDS - t0))s"; else echo "FAILED($rc)"; fi
    return $rc
  }
  [ -d "$CARRY" ] || { echo "triton-matrix: no $CARRY (run 'build' first and carry it)"; return 1; }
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  for d in "$CARRY"/*/; do
    local v
    v=$(basename "$d")
    local l=$logs/$v
    mkdir -p "$l"
    local g="-" p="-" q="-" qi="-" lu="-"
    if [ -x "$d/tritonpack_gpu_tests" ]; then
      g=$(TRITONPACK_CACHE_DIR=$l/jit cell "$l/gpu_tests.log" "$d/tritonpack_gpu_tests") || failed=1
      p=$(TRITONPACK_FORCE_IMAGE=ptx:sm_80 TRITONPACK_VERIFY_ABI=1 TRITONPACK_CACHE_DIR=$l/jit-sm80 \
          cell "$l/gpu_tests_sm80_ptx.log" "$d/tritonpack_gpu_tests") || failed=1
    fi
    if [ -x "$d/quickstart" ]; then
      q=$(cell "$l/quickstart.log" "$d/quickstart") || failed=1
      qi=$(TRITONPACK_FORCE_IR=1 TRITONPACK_LOG=1 TRITONPACK_CACHE=0 cell "$l/quickstart_ir.log" "$d/quickstart") || failed=1
    fi
    if [ -x "$d/lulesh" ]; then
      lu=$(cell "$l/lulesh_s10.log" "$d/lulesh" -s 10 --require-gpu) || failed=1
      local it en
      it=$(sed -n 's/.*Iteration count *= *//p' "$l/lulesh_s10.log" | head -1)
      en=$(sed -n 's/.*Final Origin Energy *= *//p' "$l/lulesh_s10.log" | head -1)
      lu="$lu ${it:-?} it, E=${en:-?}"
    fi
    rows+=("$(printf '%-8s %-12s %-12s %-12s %-12s %s' "$v" "$g" "$p" "$q" "$qi" "$lu")")
  done
  printf '\n%-8s %-12s %-12s %-12s %-12s %s\n' Triton "gpu tests" "sm_80 PTX" quickstart "forced PTX" "LULESH -s 10"
  printf '%s\n' "${rows[@]}"
  echo "logs: $logs"
  return $failed
}

# pack: every kernel spec of the repository (MATRIX_SPECS, default below), compiled by the front end
# with each Python's Triton and packed by the CLI (TRITONPACK_CLI, default build-matrix/<first
# version>/generator/cli/tritonpack): a version x spec table, logs in build-matrix/pack-<version>/.
do_pack() {
  local specs=${MATRIX_SPECS:-"tests/data/fixtures.toml tests/gpu/kernels.toml tests/gpu/autotune/tune_kernels.toml
    examples/quickstart/kernels.toml examples/mpi/kernels.toml apps/lulesh/kernels.toml apps/xsbench/kernels.toml
    apps/xsbench/bench/experiments.toml apps/ao2mo/kernels.toml bench/autotune/kernels.toml bench/size/kernels.toml
    tests/package/common/kernels.toml tests/package/two_libraries/comp_a/kernels.toml
    tests/package/two_libraries/comp_b/kernels.toml"}
  local cli=${TRITONPACK_CLI:-} failed=0
  [ -z "$cli" ] && cli=$(find "$MATRIX" -path '*/generator/cli/tritonpack' -type f -perm -u+x | head -1)
  [ -x "$cli" ] || { echo "triton-matrix pack: no tritonpack CLI (build one, or set TRITONPACK_CLI)" >&2; return 1; }
  declare -a rows=()
  while read -r py; do
    local v
    v=$("$py" -c 'import triton; print(triton.__version__)' 2>/dev/null) || { echo "$py cannot import triton" >&2; failed=1; continue; }
    local out=$MATRIX/pack-$v ok=0 bad=0 where=""
    rm -rf "$out" && mkdir -p "$out"
    for spec in $specs; do
      local d=$out/$(echo "$spec" | tr '/' '_')
      if PYTHONPATH="$ROOT/generator/python" "$py" -m tritonpack_compile -q "$ROOT/$spec" -o "$d/artifacts" >"$d.log" 2>&1 &&
         "$cli" pack "$d/artifacts/manifest.json" -o "$d/packed" --name matrix >>"$d.log" 2>&1; then
        ok=$((ok + 1))
      else
        bad=$((bad + 1)); where="$where $spec"; failed=1
      fi
    done
    rows+=("$(printf '%-8s %3d packed  %3d failed%s' "$v" "$ok" "$bad" "${where:+:$where}")")
  done < <(pythons "$@")
  printf '%s\n' "${rows[@]}"
  return $failed
}

case "$mode" in
  build) do_build "$@" ;;
  pack) do_pack "$@" ;;
  run) do_run ;;
  *) sed -n '2,22p' "$0"; exit 2 ;;
esac
