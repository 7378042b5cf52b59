#!/usr/bin/env bash
# Regenerates tests/gpu/artifacts/ and tests/gpu/autotune/artifacts/ (used when no Python with Triton
# is available at build time) from kernels.toml and autotune/tune_kernels.toml with the Python front end.
# Needs Triton 3.6, no GPU.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
py="${PYTHON:-$repo/.venv/bin/python}"
[[ -x "$py" ]] || py=python3
for pair in kernels.toml:artifacts autotune/tune_kernels.toml:autotune/artifacts; do
  spec="${pair%%:*}" out="$here/${pair#*:}"
  rm -rf "$out"
  PYTHONPATH="$repo/generator/python" "$py" -m tritonpack_compile "$here/$spec" -o "$out" --no-cache -j "${JOBS:-2}"
  du -sh "$out"
done
