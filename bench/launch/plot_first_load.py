#!/usr/bin/env python3
"""First loads before and after a change, from one device call's logs: writes first_load.csv and
parse_scaling.csv into the log folder and draws first_load.png there (left: each first load in µs
against the raw driver load of the same cubin; right: opening a library against its kernel count).

    python3 bench/launch/plot_first_load.py bench/launch/logs/first-load-h100-2026-12-06-s18

The folder holds what bench/launch/RESULTS.md's commands print: ab.txt (cpu_ab.py: raw, tritonpack,
raw-second, second), ab_stored.txt (the stored-binaries program), ab_jit.txt (the warm JIT cache)
and parse_scaling.txt (parse_scaling.py's table). Needs matplotlib for the PNG (the CSVs are written
without it).
"""
import argparse
import csv
import os
import re
import sys

LINE = re.compile(r"^(before|after) (\S+) us=([0-9.]+) \[([0-9.]+), ([0-9.]+)\]")
# The rows of the table: (label, log, mode); the raw row of each is ab.txt's.
ROWS = [
    ("first kernel", "ab.txt", "tritonpack", "raw"),
    ("further kernel", "ab.txt", "second", "raw-second"),
    ("first, stored", "ab_stored.txt", "tritonpack", "raw"),
    ("further, stored", "ab_stored.txt", "second", "raw-second"),
    ("first, warm JIT", "ab_jit.txt", "tritonpack", "raw"),
    ("further, warm JIT", "ab_jit.txt", "second", "raw-second"),
]


def read_ab(path):
    """{(build, mode): (median, q1, q3)} of one cpu_ab.py log."""
    out = {}
    with open(path) as f:
        for line in f:
            m = LINE.match(line.strip())
            if m:
                out[(m.group(1), m.group(2))] = tuple(float(m.group(i)) for i in (3, 4, 5))
    return out


def read_scaling(path):
    """[(kernels, before µs, after µs)] from parse_scaling.py's table (with --before)."""
    rows = []
    with open(path) as f:
        for line in f:
            cells = [c.strip().strip("*") for c in line.strip().strip("|").split("|")]
            if len(cells) >= 5 and cells[0].isdigit():
                rows.append((int(cells[0]), float(cells[3].split()[0]), float(cells[4].split()[0])))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("logs", help="the device call's log folder")
    a = ap.parse_args()
    logs = {name: read_ab(os.path.join(a.logs, name)) for name in ("ab.txt", "ab_stored.txt", "ab_jit.txt")}
    table = []
    for label, log, mode, raw_mode in ROWS:
        row = {"load": label}
        for build in ("before", "after"):
            got, raw = logs[log].get((build, mode)), logs["ab.txt"].get((build, raw_mode))
            if not got or not raw:
                sys.exit(f"{log}: no '{build} {mode}' or ab.txt: no '{build} {raw_mode}' line")
            row[f"{build}_us"], row[f"{build}_q1"], row[f"{build}_q3"] = got
            row[f"{build}_raw_us"] = raw[0]
            row[f"{build}_x_raw"] = round(got[0] / raw[0], 3)
        table.append(row)
    with open(os.path.join(a.logs, "first_load.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(table[0]))
        w.writeheader()
        w.writerows(table)
    scaling = read_scaling(os.path.join(a.logs, "parse_scaling.txt"))
    with open(os.path.join(a.logs, "parse_scaling.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["kernels", "before_parse_us", "after_parse_us"])
        w.writerows(scaling)
    try:
        import matplotlib
    except ImportError:
        print("matplotlib is not installed: CSVs written, no PNG")
        return 0
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.8), gridspec_kw={"width_ratios": [3, 2]})
    x = range(len(table))
    for off, build, color in ((-0.2, "before", "#bbbbbb"), (0.2, "after", "#3a6ea5")):
        ratios = [r[f"{build}_x_raw"] for r in table]
        left.bar([i + off for i in x], ratios, 0.4, label=build, color=color)
        for i, v in zip(x, ratios):
            left.text(i + off, v + 0.03, f"{v:.2f}", ha="center", fontsize=8)
    left.axhline(1.5, color="#c0392b", linestyle="--", linewidth=1, label="goal: 1.5× raw")
    left.axhline(1.0, color="black", linewidth=0.8)
    left.set_xticks(list(x))
    left.set_xticklabels([r["load"] for r in table], rotation=20, ha="right", fontsize=9)
    left.set_ylabel("× the raw cuModuleLoadData + launch of the same cubin")
    left.set_title("First loads, median of fresh processes")
    left.legend(fontsize=8)
    ks = [r[0] for r in scaling]
    right.loglog(ks, [r[1] for r in scaling], "o-", color="#999999", label="before")
    right.loglog(ks, [r[2] for r in scaling], "o-", color="#3a6ea5", label="after")
    right.set_xlabel("kernels in the library (6 images each)")
    right.set_ylabel("container::parse, µs (fresh process)")
    right.set_title("Opening a library")
    right.grid(True, which="both", linewidth=0.3)
    right.legend(fontsize=8)
    fig.suptitle(os.path.basename(os.path.normpath(a.logs)), fontsize=9)
    fig.tight_layout()
    out = os.path.join(a.logs, "first_load.png")
    fig.savefig(out, dpi=110)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
