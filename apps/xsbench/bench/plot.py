"""PNG of xsbench_bench's lookups/s per variant (17M lookups, or the largest count in the CSV), one
panel per problem size and grid, CUDA and Triton side by side.

  python apps/xsbench/bench/plot.py xsbench_bench.csv -o lookups.png
"""
import argparse
import csv

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("-o", "--output", default="lookups.png")
    a = ap.parse_args()
    rows = list(csv.DictReader(open(a.csv)))
    n = max(int(r["lookups"]) for r in rows)
    panels = [(s, g) for s in ("small", "large") for g in ("unionized", "hash")
              if any(r["size"] == s and r["grid"] == g for r in rows)]
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 5), sharey=False, squeeze=False)
    for ax, (s, g) in zip(axes[0], panels):
        sel = [r for r in rows if r["size"] == s and r["grid"] == g and int(r["lookups"]) == n]
        labels = [f"{r['impl']} {r['variant']}\n{r['config']}" for r in sel]
        rates = [float(r["lookups_per_s"]) for r in sel]
        colors = ["tab:green" if r["impl"] == "cuda" else "tab:blue" for r in sel]
        ax.barh(range(len(sel)), rates, color=colors)
        ax.set_yticks(range(len(sel)))
        ax.set_yticklabels(labels, fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel("lookups/s (device time)")
        ax.set_title(f"{s}, {g} grid, {n:,} lookups", fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    fig.suptitle("XSBench event lookups on one H200: CUDA twin (green) and Triton via tritonpack (blue)")
    fig.tight_layout()
    fig.savefig(a.output, dpi=110)


if __name__ == "__main__":
    main()
