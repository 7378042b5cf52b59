"""Finds fp64 constants in Triton's PTX that are really fp32 values: a Python float that Triton
materialised as an fp32 scalar (bound to a local name, compared as a bare tl.constexpr, ...) and
then widened, e.g. 1/12 as 0.0833333358 (0d3FB5555560000000). Such a constant has its 29 low
mantissa bits zero while its fp32 mantissa uses the low bits (a short binary fraction like 0.25
or -4 is exact either way and is not reported).

  python apps/lulesh/check_fp64_constants.py <artifacts dir or .ptx files>...   # exit 1 if any
"""
import pathlib
import re
import struct
import sys

IMMEDIATE = re.compile(r"\b0d([0-9A-Fa-f]{16})\b")


def widened_fp32(bits):
    if bits & ((1 << 29) - 1):
        return False  # uses fp64 precision
    value = struct.unpack(">d", bits.to_bytes(8, "big"))[0]
    f32 = struct.unpack(">I", struct.pack(">f", value))[0]
    return (f32 & 0xFF) != 0  # the fp32 mantissa is full: a rounded value, not a short fraction


def main(args):
    files = []
    for a in args:
        p = pathlib.Path(a)
        files += sorted(p.rglob("*.ptx")) if p.is_dir() else [p]
    if not files:
        print(f"no PTX files in {' '.join(args)}: nothing was checked (compile with mode ir or both)")
        return 1
    found = 0
    for f in files:
        hits = sorted({m.group(1).upper() for m in IMMEDIATE.finditer(f.read_text())
                       if widened_fp32(int(m.group(1), 16))})
        for h in hits:
            value = struct.unpack(">d", bytes.fromhex(h))[0]
            print(f"{f}: 0d{h} = {value!r}: an fp32 value widened to fp64")
            found += 1
    print(f"{len(files)} PTX files, {found} widened fp32 constants")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
