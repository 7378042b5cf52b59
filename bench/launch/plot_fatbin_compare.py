#!/usr/bin/env python3
"""Draws fatbin_compare.py's CSV: each way of shipping the same images, its first load against the
raw load of the uncompressed cubin (first kernel of a process on the left, a further kernel on the
right; bars are medians, whiskers the quartiles, the dashed line issue 28's goal of 1.5× raw).

    python3 bench/launch/plot_fatbin_compare.py bench/launch/logs/fatbin-h100-2026-12-06-s19/fatbin.csv

Writes fatbin.png beside the CSV. Needs matplotlib.
"""
import argparse
import csv
import os
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--out", help="PNG to write (default: fatbin.png beside the CSV)")
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_fatbin_compare: needs matplotlib (pip install matplotlib)")
    rows = list(csv.DictReader(open(a.csv)))
    if not rows:
        sys.exit("plot_fatbin_compare: %s holds no rows" % a.csv)
    raw = {w: float(rows[0][w]) for w in ("first", "further")}
    labels = [r["row"] for r in rows]
    colours = ["#7f7f7f" if l.startswith("raw") else "#76b900" if l.startswith("fat binary") else "#1f77b4"
               for l in labels]
    fig, axes = plt.subplots(1, 2, figsize=(12, 5.5), sharey=True)
    for ax, w, title in zip(axes, ("first", "further"), ("first kernel of a process", "a further kernel")):
        med = [float(r[w]) / raw[w] for r in rows]
        lo = [m - float(r[w + "_q1"]) / raw[w] for m, r in zip(med, rows)]
        hi = [float(r[w + "_q3"]) / raw[w] - m for m, r in zip(med, rows)]
        y = list(range(len(rows)))[::-1]
        ax.barh(y, med, xerr=[lo, hi], color=colours, capsize=3)
        for yy, m, h in zip(y, med, hi):
            ax.text(m + h + 0.04, yy, "%.2f×" % m, va="center", fontsize=8)
        ax.axvline(1.5, color="red", linestyle="--", linewidth=1)
        ax.set_title("%s (raw %.0f µs)" % (title, raw[w]))
        ax.set_xlabel("first load / raw cubin load (median, quartiles)")
        ax.set_yticks(y)
        ax.set_yticklabels(labels, fontsize=8)
    fig.suptitle(a.title or "First load: tritonpack's container (blue) against NVIDIA's fat binaries (green), same images")
    fig.tight_layout()
    out = a.out or os.path.join(os.path.dirname(os.path.abspath(a.csv)), "fatbin.png")
    fig.savefig(out, dpi=110)
    print(out)


if __name__ == "__main__":
    main()
