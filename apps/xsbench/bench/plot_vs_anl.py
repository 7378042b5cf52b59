"""PNG of lookups/s per program (tritonpack's variants, ANL's kernels) for each problem, from the medians
CSV that vs_anl.py writes.

  python3 apps/xsbench/bench/plot_vs_anl.py vs_anl.csv -o vs_anl.png
"""
import argparse
import csv

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("-o", "--output", default="vs_anl.png")
    a = ap.parse_args()
    rows = [r for r in csv.DictReader(open(a.csv)) if r["median_lookups_per_s"]]
    problems = list(dict.fromkeys((r["size"], r["grid"]) for r in rows))
    fig, axes = plt.subplots(1, len(problems), figsize=(5 * len(problems), 5), sharey=True, squeeze=False)
    for ax, (size, grid) in zip(axes[0], problems):
        group = [r for r in rows if (r["size"], r["grid"]) == (size, grid)]
        names = [r["program"].replace("tritonpack/", "tp ") for r in group]
        values = [float(r["median_lookups_per_s"]) for r in group]
        errors = [[v - float(r["min_lookups_per_s"]) for v, r in zip(values, group)],
                  [float(r["max_lookups_per_s"]) - v for v, r in zip(values, group)]]
        colors = ["tab:blue" if r["program"].startswith("tritonpack") else "tab:gray" for r in group]
        ax.bar(range(len(group)), values, yerr=errors, color=colors, capsize=3)
        ax.set_xticks(range(len(group)))
        ax.set_xticklabels(names, rotation=60, ha="right")
        ax.set_title(f"{size} problem, {grid} grid")
        ax.grid(True, axis="y", alpha=0.3)
    axes[0][0].set_ylabel("lookups per second (median; bars: min-max)")
    fig.suptitle("XSBench event mode, 17M lookups: tritonpack (blue) vs ANL's CUDA kernels (gray), same GPU, interleaved")
    fig.tight_layout()
    fig.savefig(a.output, dpi=120)
    print(f"wrote {a.output}")


if __name__ == "__main__":
    main()
