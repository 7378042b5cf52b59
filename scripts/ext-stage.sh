#!/usr/bin/env bash
# scripts/ext-stage.sh — copies our two programs that scripts/ext-baselines.sh compares (lulesh, xsbench)
# out of a build folder into one small folder to carry to the GPU machine, with the libzstd they link
# (the GPU machine may lack it). Built without a GPU: the Triton kernels and nvcc need none.
#
#   bash scripts/ext-stage.sh BUILD [DEST]      # DEST defaults to build-ext/ours
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:?usage: ext-stage.sh BUILD [DEST] (BUILD: a build folder with apps/lulesh/lulesh and apps/xsbench/xsbench)}
DEST=${2:-$ROOT/build-ext/ours}
mkdir -p "$DEST/lib"
for p in apps/lulesh/lulesh apps/xsbench/xsbench; do
  [ -f "$BUILD/$p" ] || { echo "ext-stage.sh: no $BUILD/$p (build the targets lulesh and xsbench first)" >&2; exit 1; }
  cp "$BUILD/$p" "$DEST/"
done
zstd=$(ldd "$DEST/lulesh" | awk '/libzstd/ {print $3}')
[ -n "$zstd" ] && cp -L "$zstd" "$DEST/lib/"
ls -la "$DEST" "$DEST/lib"
