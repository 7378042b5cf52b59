#!/usr/bin/env python3
"""Draws compile_cost.py's results.csv: CPU time (left) and peak memory (right) of each compile, by
compiler and optimisation level, one bar per mode; the dashed lines are issue 28's goal for a
translation unit that calls kernels (2 s, 160 MB at g++ 12 -O2).

    python3 bench/compile_cost/plot_compile_cost.py [--csv bench/compile_cost/results.csv] [--out results.png]

Needs matplotlib.
"""
import argparse
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MODES = [("separate", "#1f77b4", "calling TU, separate mode (default)"),
         ("header-only", "#d62728", "calling TU, header-only"),
         ("separate, once", "#7f7f7f", "src/runtime.cpp, once per build")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", default=os.path.join(HERE, "results.csv"))
    ap.add_argument("--out", default=os.path.join(HERE, "results.png"))
    a = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_compile_cost: needs matplotlib (pip install matplotlib)")
    rows = list(csv.DictReader(open(a.csv)))
    groups = []  # (compiler, opt) in the CSV's order
    for r in rows:
        if (r["compiler"], r["opt"]) not in groups:
            groups.append((r["compiler"], r["opt"]))
    value = {(r["compiler"], r["opt"], r["mode"]): r for r in rows}
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8))
    width = 0.8 / len(MODES)
    for ax, key, unit, goal in ((axes[0], "cpu_s_median", "CPU s (user + system)", 2.0),
                                (axes[1], "peak_rss_mb_median", "peak RSS, MB", 160.0)):
        for m, (mode, colour, label) in enumerate(MODES):
            xs, ys = [], []
            for g, (cxx, opt) in enumerate(groups):
                r = value.get((cxx, opt, mode))
                if r:
                    xs.append(g + (m - (len(MODES) - 1) / 2) * width)
                    ys.append(float(r[key]))
            bars = ax.bar(xs, ys, width, color=colour, label=label)
            ax.bar_label(bars, fmt="%.2f" if key.startswith("cpu") else "%.0f", fontsize=7)
        ax.axhline(goal, color="black", linestyle="--", linewidth=1)
        ax.set_ylim(0, max(float(r[key]) for r in rows) * 1.3)  # room for the legend and labels
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels(["%s %s" % g for g in groups], fontsize=8)
        ax.set_ylabel(unit)
    axes[0].set_title("CPU time (goal for a calling TU: 2 s)")
    axes[1].set_title("peak memory (goal: 160 MB)")
    axes[0].legend(fontsize=8, loc="upper left", ncol=2)
    fig.suptitle("Compiling a translation unit that calls two generated kernels, and the run time once")
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    print(a.out)


if __name__ == "__main__":
    main()
