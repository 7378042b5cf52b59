#!/usr/bin/env bash
# Regenerates tests/gpu/artifacts/ (used when no Python with Triton is available at build time)
# from kernels.toml with the Python front end. Needs Triton 3.6, no GPU.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
py="${PYTHON:-$repo/.venv/bin/python}"
[[ -x "$py" ]] || py=python3
rm -rf "$here/artifacts"
PYTHONPATH="$repo/generator/python" "$py" -m tritonpack_compile "$here/kernels.toml" -o "$here/artifacts" --no-cache -j "${JOBS:-2}"
du -sh "$here/artifacts"
