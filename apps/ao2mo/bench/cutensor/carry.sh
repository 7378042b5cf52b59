#!/usr/bin/env bash
# apps/ao2mo/bench/cutensor/carry.sh — bringing cuTENSOR (libcutensor.so.2, 323 MB) to a GPU machine
# that has no internet and takes at most 64 MiB per call (issue 31). Nothing of cuTENSOR is
# committed: the PyPI wheel is downloaded here, its library compressed (zstd -15 --long=27:
# 184 MB) and split into pieces of at most 47 MB (with the ~10 MB working tree, under the 64 MiB a
# call carries), each carried by one call while the machine stays warm; the last one reassembles.
#
#   here:     bash apps/ao2mo/bench/cutensor/carry.sh pack        # -> .cutensor/ (git-ignored): manifest + pieces
#   device:   bash apps/ao2mo/bench/cutensor/carry.sh stash N     # call N (carry .cutensor/manifest and piece N): to /tmp/cutensor
#   device:   bash apps/ao2mo/bench/cutensor/carry.sh assemble    # after the last piece: /tmp/cutensor/lib/libcutensor.so.2, checked
#
# Decoding there: the zstd program if present, else zstd_stream_decode.c (beside this script; built
# with cc, it dlopens libzstd.so.1), else Python's zstandard module; the result must have the
# SHA-256 the manifest recorded here.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)
HERE=$ROOT/apps/ao2mo/bench/cutensor
PACK=$ROOT/.cutensor
DEST=${CUTENSOR_DEST:-/tmp/cutensor}
VERSION=${CUTENSOR_WHEEL_VERSION:-2.8.1}
PIECE_BYTES=${PIECE_BYTES:-47000000}

case "${1:-}" in
pack)
  mkdir -p "$PACK/wheel"
  rm -f "$PACK"/libcutensor.so.2.zst.* "$PACK/manifest"
  python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --platform manylinux2014_x86_64 \
    -d "$PACK/wheel" "cutensor-cu13==$VERSION" >/dev/null
  whl=$(ls "$PACK"/wheel/cutensor_cu13-"$VERSION"-*.whl)
  unzip -o -q -j "$whl" cutensor/lib/libcutensor.so.2 -d "$PACK/wheel"
  unzip -o -q "$whl" 'cutensor/include/*' -d "$PACK/wheel"  # for -DTENSOR4_CUTENSOR_INCLUDE (the loader's declarations checked)
  so=$PACK/wheel/libcutensor.so.2
  zstd -q -f -T0 -15 --long=27 "$so" -o "$PACK/wheel/libcutensor.so.2.zst"
  split -b "$PIECE_BYTES" -d -a 1 "$PACK/wheel/libcutensor.so.2.zst" "$PACK/libcutensor.so.2.zst."
  {
    echo "wheel=$(basename "$whl")"
    echo "so_bytes=$(stat -c %s "$so")"
    echo "so_sha256=$(sha256sum "$so" | cut -d' ' -f1)"
    echo "zst_bytes=$(stat -c %s "$PACK/wheel/libcutensor.so.2.zst")"
    echo "pieces=$(ls "$PACK"/libcutensor.so.2.zst.* | wc -l)"
  } >"$PACK/manifest"
  cat "$PACK/manifest"
  ls -l "$PACK"/libcutensor.so.2.zst.*
  n=$(grep ^pieces= "$PACK/manifest" | cut -d= -f2)
  echo "carry per call: [\".cutensor/manifest\", \".cutensor/libcutensor.so.2.zst.N\"] for N = 0..$((n - 1))"
  ;;
stash)
  n=${2:?stash needs the piece number}
  mkdir -p "$DEST"
  [ -f "$PACK/libcutensor.so.2.zst.$n" ] || { echo "carry.sh: .cutensor/libcutensor.so.2.zst.$n was not carried with this call"; exit 1; }
  cp "$PACK/manifest" "$DEST/manifest"
  cp "$PACK/libcutensor.so.2.zst.$n" "$DEST/"
  echo "carry.sh: piece $n stashed ($(stat -c %s "$DEST/libcutensor.so.2.zst.$n") bytes); in $DEST: $(ls "$DEST" | grep -c 'zst\.[0-9]') of $(grep ^pieces= "$DEST/manifest" | cut -d= -f2) pieces"
  ;;
assemble)
  m=$DEST/manifest
  [ -f "$m" ] || { echo "carry.sh: no $m (stash the pieces first)"; exit 1; }
  want=$(grep ^pieces= "$m" | cut -d= -f2)
  for ((i = 0; i < want; ++i)); do
    [ -f "$DEST/libcutensor.so.2.zst.$i" ] || { echo "carry.sh: piece $i of $want missing in $DEST (the machine was released between calls? start again at piece 0)"; exit 1; }
  done
  mkdir -p "$DEST/lib"
  out=$DEST/lib/libcutensor.so.2
  pieces=$(for ((i = 0; i < want; ++i)); do echo "$DEST/libcutensor.so.2.zst.$i"; done)
  t0=$SECONDS
  if [ "${CARRY_DECODER:-}" != stream ] && command -v zstd >/dev/null; then  # CARRY_DECODER=stream: the decoder below
    how="zstd"
    cat $pieces | zstd -d -q --long=27 -o "$out" -f
  elif command -v cc >/dev/null && cc -O2 -o "$DEST/zstd_stream_decode" "$HERE/zstd_stream_decode.c" -ldl 2>/dev/null &&
       [[ $("$DEST/zstd_stream_decode" </dev/null 2>&1 || true) == *"no input"* ]]; then  # it runs and found libzstd.so.1
    how="zstd_stream_decode (libzstd.so.1)"
    cat $pieces | "$DEST/zstd_stream_decode" >"$out"
  else
    how="python zstandard"
    cat $pieces | python3 -c 'import sys, zstandard; zstandard.ZstdDecompressor(max_window_size=2**31).copy_stream(sys.stdin.buffer, sys.stdout.buffer)' >"$out"
  fi
  got=$(sha256sum "$out" | cut -d' ' -f1)
  if [ "$got" != "$(grep ^so_sha256= "$m" | cut -d= -f2)" ]; then
    echo "carry.sh: $out has SHA-256 $got, not the manifest's: a piece is damaged or missing"
    exit 1
  fi
  rm -f $pieces
  echo "carry.sh: $out ($(stat -c %s "$out") bytes, SHA-256 ok) by $how in $((SECONDS - t0)) s; $(grep ^wheel= "$m")"
  ;;
*)
  sed -n '2,16p' "${BASH_SOURCE[0]}"
  exit 2
  ;;
esac
