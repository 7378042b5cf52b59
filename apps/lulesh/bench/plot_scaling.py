"""PNG of LULESH's weak scaling across GPUs from the CSV that scripts/multi-gpu-check.sh writes
(issue 29): parallel efficiency against one rank on one GPU (FOM / (GPUs used x FOM of 1 rank)) for
each number of ranks, one line per size per domain and halo-buffer path (the 1-rank run, which
exchanges nothing, starts each), and the share of the run in the halo exchanges beneath.

  python3 apps/lulesh/bench/plot_scaling.py lulesh_scaling.csv -o scaling.png

Only the CSV's `scaling` rows that ran (status ok) are plotted; a row skipped or timed out is listed
on stderr, never drawn. Exits 1 when there is nothing to plot.
"""
import argparse
import collections
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_rows(path):
    """The CSV's scaling rows that ran, as (label, ranks, efficiency, comm %), and the rest's notes."""
    points, notes, gpus, name = [], [], set(), set()
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r.get("kind") != "scaling":
                continue
            what = f"{r['ranks']} ranks x s = {r['s']} ({r['buffers']})"
            if r.get("status") != "ok" or not r.get("efficiency_vs_1gpu"):
                notes.append(f"{what}: not plotted ({r.get('status') or 'no efficiency'})")
                continue
            gpus.add(r["gpus"])
            name.add(r["gpu_name"])
            comm = float(r["comm_pct"]) if r.get("comm_pct") else 0.0
            points.append((f"s = {r['s']}, {r['buffers']} buffers", int(r["ranks"]), float(r["efficiency_vs_1gpu"]), comm))
    return points, notes, gpus, name


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("-o", "--output", default="scaling.png")
    a = ap.parse_args()
    points, notes, gpus, names = read_rows(a.csv)
    for n in notes:
        print(n, file=sys.stderr)
    if not points:
        print(f"plot_scaling.py: no scaling row of {a.csv} ran: nothing to plot", file=sys.stderr)
        return 1
    lines = collections.defaultdict(list)
    for label, ranks, eff, comm in points:
        lines[label].append((ranks, eff, comm))
    # One rank exchanges no halo: its run (host buffers in the CSV) starts every buffer path's line.
    for label in list(lines):
        size = label.split(",")[0]
        for other, pts in list(lines.items()):
            if other != label and other.startswith(size + ",") and not any(p[0] == 1 for p in lines[label]):
                lines[label] += [p for p in pts if p[0] == 1]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 7), sharex=True, gridspec_kw={"height_ratios": [3, 2]})
    for label in sorted(lines):
        pts = sorted(lines[label])
        xs = [p[0] for p in pts]
        top.plot(xs, [p[1] for p in pts], marker="o", label=label)
        bottom.plot(xs, [p[2] for p in pts], marker="o", label=label)
    ranks = sorted({p[1] for p in points})
    top.axhline(1.0, color="gray", linestyle="--")
    top.set_ylabel("parallel efficiency vs 1 rank on 1 GPU")
    top.set_ylim(bottom=0)
    where = f"{'/'.join(sorted(gpus))} x {'/'.join(sorted(names))}"
    top.set_title(f"LULESH weak scaling across GPUs ({where})")
    top.legend()
    top.grid(True, alpha=0.3)
    bottom.set_xscale("log")
    bottom.set_xticks(ranks)
    bottom.set_xticklabels([str(r) for r in ranks])
    bottom.set_xlabel("MPI ranks (one domain each; rank r on GPU r % GPUs)")
    bottom.set_ylabel("halo exchanges, % of the run")
    bottom.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(a.output, dpi=110)
    print(f"wrote {a.output} ({len(points)} points)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
