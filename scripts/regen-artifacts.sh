#!/usr/bin/env bash
# scripts/regen-artifacts.sh — regenerates the committed artifact directories with the Python front
# end (Triton 3.6, no GPU needed).
#
#   scripts/regen-artifacts.sh [SET...] [-- FRONT-END OPTIONS...]
#
# Sets (no SET: all of them):
#   test-data  tests/data/fixtures.toml            -> tests/data/artifacts (packer and run-time test inputs)
#   gpu        tests/gpu/kernels.toml              -> tests/gpu/artifacts
#              tests/gpu/autotune/tune_kernels.toml -> tests/gpu/autotune/artifacts
#              (packed when no Python with Triton is there at build time)
#
# Each directory is removed and compiled from scratch (--no-cache), so the committed artifacts come
# from the current front end; then its manifest is checked against docs/manifest.md's rules
# (tritonpack_compile.manifest.check_manifest). Options after `--` go to every front-end run.
# Regenerate when the kernels, a spec or the manifest format change, and commit the result with
# the change (tests/python/test_cli.py checks that tests/data/artifacts is what the front end makes).
#
# Environment: PYTHON (default: <repo>/.venv/bin/python, else /opt/tp-venv/bin/python, else
# python3), JOBS (front-end workers, default 2).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# set name -> "spec:output ..." (paths relative to the repository)
declare -A SETS=(
  [test-data]="tests/data/fixtures.toml:tests/data/artifacts"
  [gpu]="tests/gpu/kernels.toml:tests/gpu/artifacts tests/gpu/autotune/tune_kernels.toml:tests/gpu/autotune/artifacts"
)
ALL=(test-data gpu)

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
done
