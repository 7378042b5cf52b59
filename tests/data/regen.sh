#!/usr/bin/env bash
# Regenerates tests/data/artifacts/ from fixtures.toml with the Python front end.
# Needs Triton 3.6 (no GPU). Uses $PYTHON, else /opt/tp-venv/bin/python, else python3.
# Compiles from scratch (--no-cache) so the committed artifacts always come from the current
# front end, then checks the manifest against docs/manifest.md's rules.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
py="${PYTHON:-}"
if [[ -z "$py" ]]; then
  if [[ -x /opt/tp-venv/bin/python ]]; then py=/opt/tp-venv/bin/python; else py=python3; fi
fi
export PYTHONPATH="$repo/generator/python${PYTHONPATH:+:$PYTHONPATH}"
rm -rf "$here/artifacts"
"$py" -m tritonpack_compile "$here/fixtures.toml" -o "$here/artifacts" --no-cache -j "${JOBS:-2}" "$@"
"$py" - "$here/artifacts" <<'PY'
import json, sys
from pathlib import Path
from tritonpack_compile.manifest import check_manifest
d = Path(sys.argv[1])
problems = check_manifest(json.loads((d / "manifest.json").read_text()), base_dir=d)
for p in problems:
    print("manifest problem:", p)
sys.exit(1 if problems else 0)
PY
du -sh "$here/artifacts"
