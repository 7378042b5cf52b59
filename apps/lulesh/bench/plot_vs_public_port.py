"""PNG of zone-cycles/s against s for tritonpack and the public CUDA port, and their ratio, from the
medians CSV that vs_public_port.py writes.

  python3 apps/lulesh/bench/plot_vs_public_port.py vs_public_port.csv -o vs_public_port.png
"""
import argparse
import collections
import csv

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("-o", "--output", default="vs_public_port.png")
    ap.add_argument("--baseline", default="port")
    a = ap.parse_args()
    rate = collections.defaultdict(dict)  # program -> s -> median zone-cycles/s
    for r in csv.DictReader(open(a.csv)):
        if r["median_zone_cycles_per_s"]:
            rate[r["program"]][int(r["s"])] = float(r["median_zone_cycles_per_s"])
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 7), sharex=True, gridspec_kw={"height_ratios": [3, 2]})
    for program, by_s in rate.items():
        sizes = sorted(by_s)
        top.plot(sizes, [by_s[s] for s in sizes], marker="o", label=program)
        if program != a.baseline and a.baseline in rate:
            both = [s for s in sizes if s in rate[a.baseline]]
            bottom.plot(both, [by_s[s] / rate[a.baseline][s] for s in both], marker="o", label=f"{program} / {a.baseline}")
    top.set_yscale("log")
    top.set_ylabel("zone-cycles per second (median)")
    top.set_title("LULESH 2.0: tritonpack vs the public CUDA port (same GPU, interleaved)")
    top.legend()
    top.grid(True, which="both", alpha=0.3)
    bottom.axhline(1.0, color="gray", linestyle="--")
    bottom.set_xlabel("s (elements per edge)")
    bottom.set_ylabel("ratio")
    bottom.set_xscale("log")
    bottom.set_xticks(sorted({s for by_s in rate.values() for s in by_s}))
    bottom.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
    bottom.legend()
    bottom.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(a.output, dpi=120)
    print(f"wrote {a.output}")


if __name__ == "__main__":
    main()
