#!/usr/bin/env python3
"""Plots size_bench.py's CSV files: container bytes / `fatbinary --compress-mode=size` bytes per
kernel, one bar per CSV (e.g. the default and `--ptx-as-is`), with the goal (0.75) as a line.

usage: plot_size.py -o results.png LABEL=FILE.csv [LABEL=FILE.csv ...]
Needs matplotlib (e.g. /work/venvs/plot/bin/python).
"""
import argparse
import csv

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--goal", type=float, default=0.75)
    ap.add_argument("runs", nargs="+", help="LABEL=FILE.csv, written by size_bench.py --csv")
    a = ap.parse_args()
    runs = []
    for spec in a.runs:
        label, path = spec.split("=", 1)
        with open(path) as f:
            runs.append((label, list(csv.DictReader(f))))
    # Each manifest's rows end with "all of NAME": its kernels are labelled "NAME: kernel".
    names, pending = [], []
    for r in runs[0][1]:
        if r["kernels"].startswith("all of "):
            group = r["kernels"][len("all of "):]
            names += ["%s: %s" % (group, k) for k in pending] + [r["kernels"]]
            pending = []
        else:
            pending.append(r["kernels"])
    names += pending
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(names)), 4))
    width = 0.8 / len(runs)
    for k, (label, rows) in enumerate(runs):
        xs = [i + (k - (len(runs) - 1) / 2) * width for i in range(len(rows))]
        ratios = [float(r["ratio"]) for r in rows]
        bars = ax.bar(xs, ratios, width, label=label)
        for b, v in zip(bars, ratios):
            ax.text(b.get_x() + b.get_width() / 2, v + 0.01, "%.2f" % v, ha="center", va="bottom", fontsize=7)
    ax.axhline(a.goal, color="red", linestyle="--", linewidth=1, label="goal %.2f" % a.goal)
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("bytes / fatbinary --compress-mode=size")
    ax.set_title("tritonpack container size vs fatbinary (same cubins + PTX)")
    ax.set_ylim(0, 1.15)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(a.output, dpi=120)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
