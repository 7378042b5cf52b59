#!/usr/bin/env python3
"""Opening a library against the number of kernels it holds (bench/launch/parse_scaling.cpp).

For each kernel count, writes a container with the program's `write` mode, then times the
program's `time` mode in fresh processes: container::parse and the model of kernel 0, each with
its minor page faults. With --before, a second build's program (the same `time` mode, e.g. main
before a change) reads the same files, process by process alternating with the first, and the
table puts the two side by side. Prints a Markdown table (medians and quartiles of the runs).

    python3 bench/launch/parse_scaling.py --program <build>/bench/launch/tritonpack_parse_scaling \\
        [--before <other build's program>] [--kernels 3,30,300,3000] [--runs 21]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from cpu_ab import quartiles  # this folder's: (q1, q3) of a sample, its ends below 4 values


def run_time(program, path):
    out = subprocess.run([program, "time", path], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--program", required=True, help="parse_scaling built from the code under test")
    ap.add_argument("--before", help="parse_scaling of another build, run on the same files")
    ap.add_argument("--kernels", default="3,30,300,3000", help="comma-separated kernel counts")
    ap.add_argument("--runs", type=int, default=21, help="fresh processes per count and program")
    ap.add_argument("--dir", help="where the containers are written (default: a temporary one)")
    ap.add_argument("--out", help="also write the table to this file")
    a = ap.parse_args()
    counts = [int(k) for k in a.kernels.split(",") if k]
    if not counts or min(counts) < 1 or a.runs < 1:
        ap.error("--kernels needs positive counts and --runs at least 1")
    programs = [("after", a.program)] + ([("before", a.before)] if a.before else [])
    with tempfile.TemporaryDirectory() as tmp:
        where = a.dir or tmp
        os.makedirs(where, exist_ok=True)
        rows = []
        for n in counts:
            path = os.path.join(where, f"scaling-{n}.tpk")
            subprocess.run([a.program, "write", str(n), path], check=True)
            got = {label: [] for label, _ in programs}
            for r in range(a.runs):
                order = programs if r % 2 == 0 else list(reversed(programs))
                for label, program in order:
                    got[label].append(run_time(program, path))
            rows.append((n, got))
    lines = []
    if a.before:
        lines.append("| kernels | images | container bytes | parse µs, before | parse µs, after | "
                     "parse faults, before → after | kernel(0) µs, before → after |")
        lines.append("|---:|---:|---:|---:|---:|---|---|")
    else:
        lines.append("| kernels | images | container bytes | parse µs | parse faults | kernel(0) µs |")
        lines.append("|---:|---:|---:|---:|---:|---:|")
    for n, got in rows:
        first = got["after"][0]

        def cell(label, key):
            values = [g[key] for g in got[label]]
            lo, hi = quartiles(values)
            return f"{statistics.median(values):.1f} [{lo:.1f}, {hi:.1f}]"

        def med(label, key):
            return statistics.median(g[key] for g in got[label])

        head = f"| {first['kernels']} | {first['images']} | {first['bytes']} |"
        if a.before:
            lines.append(f"{head} {cell('before', 'parse_us')} | **{cell('after', 'parse_us')}** | "
                         f"{med('before', 'parse_faults'):.0f} → {med('after', 'parse_faults'):.0f} | "
                         f"{med('before', 'kernel_us'):.1f} → {med('after', 'kernel_us'):.1f} |")
        else:
            lines.append(f"{head} {cell('after', 'parse_us')} | {med('after', 'parse_faults'):.0f} | "
                         f"{cell('after', 'kernel_us')} |")
    table = "\n".join(lines)
    print(table)
    if a.out:
        with open(a.out, "w") as f:
            f.write(table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
