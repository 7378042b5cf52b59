"""PNG of time(Triton) / time(CUDA twin) per kernel against s, from lulesh_bench's CSV.

  python apps/lulesh/bench/plot.py lulesh_bench.csv -o ratio.png [--backend triton|triton_tuned]
"""
import argparse
import collections
import csv

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SKIP = {"status copy", "sum of kernels"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("-o", "--output", default="ratio.png")
    ap.add_argument("--backend", default="triton")
    ap.add_argument("--cuda", default="cuda_tree")
    a = ap.parse_args()
    t = {}
    for r in csv.DictReader(open(a.csv)):
        if r["kind"] in ("kernel", "step"):
            t[(int(r["s"]), r["backend"], r["name"])] = float(r["median_us"])
    series = collections.defaultdict(list)
    for (s, b, name), us in sorted(t.items()):
        if b != a.backend or name in SKIP:
            continue
        cuda = t.get((s, a.cuda, name))
        if cuda:
            label = "whole step (loop)" if name.startswith("whole step") else name
            series[label].append((s, us / cuda))
    fig, ax = plt.subplots(figsize=(9, 5.5))
    colors = plt.get_cmap("tab20").colors
    markers = "os^vD<>ph*"
    for i, (name, pts) in enumerate(sorted(series.items())):
        xs, ys = zip(*pts)
        style = (dict(linewidth=3, color="black", marker="o") if name.startswith("whole")
                 else dict(color=colors[i % len(colors)], marker=markers[i % len(markers)]))
        ax.plot(xs, ys, label=name, **style)
    ax.axhline(1.0, color="gray", linestyle="--", linewidth=1)
    ax.set_xlabel("s (mesh is s^3 elements)")
    ax.set_ylabel(f"time {a.backend} / time {a.cuda}  (>1: Triton slower)")
    ax.set_title(f"LULESH on the H200: {a.backend} vs the CUDA C++ twin, per kernel (CUDA events, median)")
    ax.set_xscale("log")
    ax.set_xticks(sorted({s for pts in series.values() for s, _ in pts}))
    ax.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.get_xaxis().set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.legend(fontsize=8, ncol=2)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(a.output, dpi=120)


if __name__ == "__main__":
    main()
