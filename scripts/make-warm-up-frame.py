#!/usr/bin/env python3
"""Writes the zstd frame that tritonpack's run time decodes once when its backend starts
(include/tritonpack/container/codec.hpp, codec::warm_up), as the C++ array to paste there.

The text is 32 lines of PTX-like instructions from a fixed linear congruential generator, so the
frame's literals are Huffman-coded in four streams and its sequences FSE-coded: the paths a cubin's
or a PTX's decode takes. tests/container/test_roundtrip.cpp rebuilds the same text and checks that
the embedded frame decodes to it byte for byte.

  python3 scripts/make-warm-up-frame.py          # the array (needs the zstd program)
  python3 scripts/make-warm-up-frame.py --text   # the text alone
"""
import os
import subprocess
import sys
import tempfile
import textwrap

OPS = ["ld.global.nc.f32", "fma.rn.f32", "add.s32", "mul.wide.s32", "setp.lt.s32", "st.global.f32",
       "mov.u32", "shl.b32"]


def text(lines=32):
    x = 12345
    out = []
    for _ in range(lines):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        out.append(f"\t{OPS[x % 8]} \t%r{(x >> 8) % 97}, %r{(x >> 13) % 89}, {(x >> 17) % 4096};")
    return ("\n".join(out) + "\n").encode()


def main():
    raw = text()
    if "--text" in sys.argv[1:]:
        sys.stdout.buffer.write(raw)
        return
    # From a file, so that the frame records its content size as the container's frames do.
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "warm-up.txt")
        with open(path, "wb") as f:
            f.write(raw)
        frame = subprocess.run(["zstd", "-q", "-19", "--no-check", "-c", path], check=True,
                               capture_output=True).stdout
    body = ", ".join(f"0x{b:02x}" for b in frame)
    print(f"// {len(raw)} bytes of text, {len(frame)} bytes of frame")
    print("inline constexpr std::uint8_t warm_up_frame[] = {")
    print("\n".join("    " + line for line in textwrap.wrap(body, 96)) + "};")
    print(f"inline constexpr std::size_t warm_up_frame_raw_size = {len(raw)};")


if __name__ == "__main__":
    main()
