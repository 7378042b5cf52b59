"""bench/autotune/plot.py — from the benchmark's CSV (bench.cpp --csv): per problem, each config's
time relative to the exhaustive best (dots), the config tuning chose (ring), config 0 (cross) and,
given triton_autotune.py's CSV, the config Triton's own @triton.autotune picked (triangle).

    python3 plot.py logs/autotune.csv autotune.png [logs/triton_autotune.csv]
"""
import csv
import sys
from collections import OrderedDict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    rows = OrderedDict()
    with open(path) as f:
        for r in csv.DictReader(f):
            key = (r["kernel"], r["kind"], int(r["m"]), int(r["n"]), int(r["k"]))
            e = rows.setdefault(key, {"configs": {}, "tuned": None, "table": None})
            c = r["config"]
            if c.startswith("tuned="):
                e["tuned"] = int(c.split("=")[1])
            elif c.startswith("table="):
                e["table"] = int(c.split("=")[1])
            else:
                e["configs"][int(c)] = float(r["us"])
    return rows


def triton_picks(path):
    """{(kernel, kind, m, n, k): config} from triton_autotune.py's CSV."""
    picks = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["chosen"] == "1":
                picks[(r["kernel"], r["kind"], int(r["m"]), int(r["n"]), int(r["k"]))] = int(r["config"])
    return picks


def main(src, dst, triton_csv=None):
    rows = load(src)
    picks = triton_picks(triton_csv) if triton_csv else {}
    labels, fig = [], plt.figure(figsize=(12, 5))
    ax = fig.add_subplot(111)
    for x, (key, e) in enumerate(rows.items()):
        best = min(e["configs"].values())
        rel = {c: t / best for c, t in e["configs"].items()}
        ax.scatter([x] * len(rel), list(rel.values()), s=12, color="0.6", zorder=2)
        ax.scatter([x], [rel[0]], marker="x", color="tab:red", zorder=3, label="config 0 (before tuning)" if x == 0 else None)
        if e["tuned"] is not None:
            ax.scatter([x], [rel[e["tuned"]]], s=90, facecolors="none", edgecolors="tab:blue", linewidths=1.5, zorder=4,
                       label="tuned on first use" if x == 0 else None)
        if key in picks:
            ax.scatter([x], [rel[picks[key]]], marker="^", s=28, color="tab:orange", zorder=5,
                       label="Triton's @triton.autotune pick (timed on its own build)" if x == 0 else None)
        kernel, kind, m, n, k = key
        labels.append(f"{kernel}\n{m}x{n}" + (f"x{k}" if k else ""))
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, fontsize=7, rotation=60)
    ax.set_yscale("log")
    ax.set_ylabel("time / exhaustive best (log)")
    ax.axhline(1.03, color="tab:green", linestyle=":", linewidth=1, label="+3%")
    ax.set_title("H200: every config (grey), tritonpack's on-device choice (blue), config 0 (red)" +
                 (", Triton's autotuner (orange)" if picks else ""))
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    main(*(sys.argv[1:4] if len(sys.argv) >= 3 else ("logs/autotune.csv", "autotune.png")))
