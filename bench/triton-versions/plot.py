"""PNG of bench/triton-versions/run.sh's CSV: per case, each Triton release's throughput relative to
the oldest release in the CSV (1.0 = no change), one bar group per case, the absolute value on top.

  python3 bench/triton-versions/plot.py triton_versions.csv -o triton_versions.png
"""
import argparse
import csv

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def version_key(v):
    return tuple(int(x) if x.isdigit() else x for x in v.replace("+", ".").split("."))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("-o", "--output", default="triton_versions.png")
    a = ap.parse_args()
    rows = [r for r in csv.DictReader(open(a.csv)) if r["value"] != "FAILED"]
    versions = sorted({r["triton"] for r in rows}, key=version_key)
    cases = []
    for r in rows:
        c = (r["program"], r["case"], r["unit"])
        if c not in cases:
            cases.append(c)
    value = {(r["triton"], r["program"], r["case"]): float(r["value"]) for r in rows}
    fig, ax = plt.subplots(figsize=(max(8, 1.6 * len(cases)), 5))
    width = 0.8 / max(1, len(versions))
    for i, v in enumerate(versions):
        xs, ys, labels = [], [], []
        for j, (prog, case, unit) in enumerate(cases):
            base = value.get((versions[0], prog, case))
            val = value.get((v, prog, case))
            if base and val:
                xs.append(j + (i - (len(versions) - 1) / 2) * width)
                ys.append(val / base)
                labels.append(f"{val:.3g}")
        bars = ax.bar(xs, ys, width, label=f"Triton {v}")
        for b, t in zip(bars, labels):
            ax.text(b.get_x() + b.get_width() / 2, b.get_height(), t, ha="center", va="bottom", fontsize=6, rotation=90)
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels([f"{p} {c}\n({u})" for p, c, u in cases], fontsize=8)
    ax.set_ylabel(f"throughput relative to Triton {versions[0]}")
    ax.set_title("Same host code, kernels compiled by each Triton release (one H200, one call)")
    ax.legend(fontsize=8)
    lo = min((bar.get_height() for c in ax.containers for bar in c), default=1.0)
    ax.set_ylim(min(0.8, lo * 0.95), None)
    fig.tight_layout()
    fig.savefig(a.output, dpi=130)
    print(f"wrote {a.output}")


if __name__ == "__main__":
    main()
