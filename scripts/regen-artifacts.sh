#!/usr/bin/env bash
# scripts/regen-artifacts.sh — regenerates the committed artifact directories with the Python front
# end (Triton 3.6 unless a set says otherwise, no GPU needed).
#
#   scripts/regen-artifacts.sh [SET...] [-- FRONT-END OPTIONS...]
#
# Sets (no SET: all of them):
#   test-data  tests/data/fixtures.toml            -> tests/data/artifacts (packer and run-time test inputs)
#   gpu        tests/gpu/kernels.toml              -> tests/gpu/artifacts
#              tests/gpu/autotune/tune_kernels.toml -> tests/gpu/autotune/artifacts
#              (packed when no Python with Triton is there at build time)
#   triton-3.7 tests/data/triton-3.7/desc.toml     -> tests/data/triton-3.7/artifacts
#              (images of another Triton release's launch ABI, docs/triton-abi.md §7; compiled
#              with TRITON37_PYTHON, default /work/venvs/triton-3.7/bin/python, which must have
#              Triton 3.7; only when named)
#   triton-3.9 tests/data/triton-3.9/strict.toml   -> tests/data/triton-3.9/artifacts
#              (gfx1250 and gfx1250-strict code objects; TRITON39_PYTHON, default
#              /work/venvs/triton-3.9/bin/python; only when named)
#
# Each directory is removed and compiled from scratch (--no-cache), so the committed artifacts come
# from the current front end; then its manifest is checked against docs/manifest.md's rules
# (tritonpack_compile.manifest.check_manifest). Options after `--` go to every front-end run.
# Regenerate when the kernels, a spec or the manifest format change, and commit the result with
# the change (tests/python/test_cli.py checks that tests/data/artifacts is what the front end makes).
#
# Environment: PYTHON (default: <repo>/.venv/bin/python, else /opt/tp-venv/bin/python, else
# python3), TRITON37_PYTHON and TRITON39_PYTHON (above), JOBS (front-end workers, default 2).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# set name -> "spec:output ..." (paths relative to the repository)
declare -A SETS=(
  [test-data]="tests/data/fixtures.toml:tests/data/artifacts"
  [gpu]="tests/gpu/kernels.toml:tests/gpu/artifacts tests/gpu/autotune/tune_kernels.toml:tests/gpu/autotune/artifacts"
  [triton-3.7]="tests/data/triton-3.7/desc.toml:tests/data/triton-3.7/artifacts"
  [triton-3.9]="tests/data/triton-3.9/strict.toml:tests/data/triton-3.9/artifacts"
)
ALL=(test-data gpu)
# Sets compiled by another Triton release: the Python to use, and the version it must have.
declare -A SET_PYTHON=([triton-3.7]="${TRITON37_PYTHON:-/work/venvs/triton-3.7/bin/python}"
                       [triton-3.9]="${TRITON39_PYTHON:-/work/venvs/triton-3.9/bin/python}")
declare -A SET_TRITON=([triton-3.7]="3.7." [triton-3.9]="3.9.")

sets=()
while (($#)); do
  case "$1" in
    --) shift; break ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; exit 0 ;;
    *)
      if [[ -z "${SETS[$1]+x}" ]]; then
        echo "regen-artifacts.sh: unknown set '$1' (sets: ${ALL[*]})" >&2
        exit 2
      fi
      sets+=("$1"); shift ;;
  esac
done
((${#sets[@]})) || sets=("${ALL[@]}")

py="${PYTHON:-}"
if [[ -z "$py" ]]; then
  for c in "$repo/.venv/bin/python" /opt/tp-venv/bin/python; do
    [[ -x "$c" ]] && { py="$c"; break; }
  done
  : "${py:=python3}"
fi
export PYTHONPATH="$repo/generator/python${PYTHONPATH:+:$PYTHONPATH}"

for set in "${sets[@]}"; do
  py_default="$py"
  if [[ -n "${SET_PYTHON[$set]+x}" ]]; then
    py="${SET_PYTHON[$set]}"
    have="$("$py" -c 'import triton; print(triton.__version__)' 2>/dev/null || true)"
    if [[ "$have" != "${SET_TRITON[$set]}"* ]]; then
      echo "regen-artifacts.sh: set '$set' needs Triton ${SET_TRITON[$set]}x; $py has '${have:-none}'" >&2
      exit 2
    fi
  fi
  for pair in ${SETS[$set]}; do
    spec="$repo/${pair%%:*}" out="$repo/${pair#*:}"
    echo "== $set: ${pair%%:*} -> ${pair#*:}"
    rm -rf "$out"
    "$py" -m tritonpack_compile "$spec" -o "$out" --no-cache -j "${JOBS:-2}" "$@"
    "$py" - "$out" <<'PY'
import json, sys
from pathlib import Path
from tritonpack_compile.manifest import check_manifest
d = Path(sys.argv[1])
problems = check_manifest(json.loads((d / "manifest.json").read_text()), base_dir=d)
for p in problems:
    print("manifest problem:", p)
sys.exit(1 if problems else 0)
PY
    du -sh "$out"
  done
  py="$py_default"
done
