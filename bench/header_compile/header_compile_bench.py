#!/usr/bin/env python3
"""Compile time and peak memory of a generated header's container data with `g++ -O2`.

For each container size and encoding, gen_header writes the header with the real header writer;
this script compiles a translation unit holding the header's data (the `detail` namespace, exactly
as generated) and, when the run-time headers are present, one including the whole header, under
/usr/bin/time -v, and prints wall time and peak RSS. Goal: 16 MB in <= 2 s and <= 200 MB.

usage: header_compile_bench.py --gen PATH [--cxx g++] [--include DIR] [--sizes 1,4,16]
                               [--per-line 64,2048] [--hex-sizes 1,4] [--markdown FILE]
Standard library only.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile


def measure(cmd):
    r = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("compile failed: %s\n%s" % (" ".join(cmd), r.stderr[-3000:]))
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", r.stderr)
    secs = (int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3)))
    cpu = float(re.search(r"User time \(seconds\): ([\d.]+)", r.stderr).group(1)) + \
        float(re.search(r"System time \(seconds\): ([\d.]+)", r.stderr).group(1))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr).group(1))
    return secs, cpu, rss / 1024.0


def data_only_tu(header_text, path):
    """The header's namespace detail block (the container data) plus a use of it."""
    b = header_text.index("namespace detail {")
    e = header_text.index("}  // namespace detail") + len("}  // namespace detail")
    with open(path, "w") as f:
        f.write("#include <cstddef>\nnamespace bench {\n" + header_text[b:e] + "\n}\n"
                "const char* use() { return bench::detail::container_data; }\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--cxx", default="g++")
    ap.add_argument("--include", help="tritonpack include dir, to also compile the whole header")
    ap.add_argument("--sizes", default="1,4,16")
    ap.add_argument("--per-line", default="64,2048")
    ap.add_argument("--hex-sizes", default="1,4", help="sizes for the {0x..,} baseline ('' to skip)")
    ap.add_argument("--markdown")
    ap.add_argument("--repeat", type=int, default=3, help="runs per point; the best is reported")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="tp_hc_")
    rows = []

    def best(cmd):
        runs = [measure(cmd) for _ in range(a.repeat)]
        return tuple(min(r[i] for r in runs) for i in range(3))

    have_runtime = a.include and os.path.exists(os.path.join(a.include, "tritonpack", "tritonpack.hpp"))
    for mb in [float(x) for x in a.sizes.split(",") if x]:
        for per_line in [int(x) for x in a.per_line.split(",") if x]:
            hpp = os.path.join(work, "bench.hpp")
            size = int(subprocess.run([a.gen, str(mb), str(per_line), hpp], check=True, capture_output=True, text=True).stdout)
            with open(hpp) as f:
                text = f.read()
            tu = os.path.join(work, "data.cpp")
            data_only_tu(text, tu)
            t, c, m = best([a.cxx, "-std=c++17", "-O2", "-c", tu, "-o", os.path.join(work, "data.o")])
            rows.append(("string literal, %d B/line" % per_line, size, os.path.getsize(hpp), "data only", t, c, m))
            if have_runtime:
                full = os.path.join(work, "full.cpp")
                with open(full, "w") as f:
                    f.write('#include "bench.hpp"\nvoid use() { bench::library(); }\n')
                t, c, m = best([a.cxx, "-std=c++17", "-O2", "-I", a.include, "-I", work, "-c", full, "-o", os.path.join(work, "full.o")])
                rows.append(("string literal, %d B/line" % per_line, size, os.path.getsize(hpp), "whole header", t, c, m))
    for mb in [float(x) for x in a.hex_sizes.split(",") if x]:
        hpp = os.path.join(work, "hex.hpp")
        size = int(subprocess.run([a.gen, str(mb), "0", hpp, "--hex-list"], check=True, capture_output=True, text=True).stdout)
        tu = os.path.join(work, "hex.cpp")
        with open(tu, "w") as f:
            f.write('#include "hex.hpp"\nconst unsigned char* use() { return bench::detail::container_data; }\n')
        t, c, m = measure([a.cxx, "-std=c++17", "-O2", "-I", work, "-c", tu, "-o", os.path.join(work, "hex.o")])
        rows.append(("{0x..,} list (baseline)", size, os.path.getsize(hpp), "data only", t, c, m))

    head = ("encoding", "container bytes", "header bytes", "compiled", "wall s", "CPU s", "peak RSS MB")
    print("compiler: %s -std=c++17 -O2 -c; best of %d runs" % (a.cxx, a.repeat))
    print("%-28s %16s %14s %13s %8s %8s %12s" % head)
    for r in rows:
        print("%-28s %16d %14d %13s %8.2f %8.2f %12.1f" % r)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write("| " + " | ".join(head) + " |\n|" + "---|" * len(head) + "\n")
            for r in rows:
                f.write("| %s | %d | %d | %s | %.2f | %.2f | %.1f |\n" % r)
    return 0


if __name__ == "__main__":
    sys.exit(main())
