#!/usr/bin/env bash
# Compiles kernels.toml into artifacts/ with the project's Python front end (Triton 3.6, no GPU).
# The artifacts are committed so the size benchmark runs without Python or Triton.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
py="${PYTHON:-}"
if [[ -z "$py" ]]; then
  if [[ -x /opt/tp-venv/bin/python ]]; then py=/opt/tp-venv/bin/python; else py=python3; fi
fi
export PYTHONPATH="$repo/generator/python${PYTHONPATH:+:$PYTHONPATH}"
rm -rf "$here/artifacts"
"$py" -m tritonpack_compile "$here/kernels.toml" -o "$here/artifacts" --no-cache -j "${JOBS:-2}" "$@"
du -sh "$here/artifacts"
