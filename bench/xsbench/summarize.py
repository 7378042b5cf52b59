"""Markdown tables from xsbench_bench's CSVs (RESULTS.md): lookups/s per variant, the Triton/CUDA
time ratios, the tile-size and packed-read experiments, and the tile occupancy counts.

  python bench/xsbench/summarize.py xsbench_bench.csv xsbench_tiles.csv
"""
import csv
import sys

MAIN = [("cuda", "fused", "256 threads"), ("cuda", "sorted", "256 threads"), ("triton", "fused", "b256w8"),
        ("triton", "split", "b256w8"), ("triton", "sorted", "b256w8")]


def load(path):
    return {(r["size"], r["grid"], int(r["lookups"]), r["impl"], r["variant"], r["config"]): r for r in csv.DictReader(open(path))}


def main():
    rows = load(sys.argv[1])
    cases = sorted({k[:3] for k in rows}, key=lambda c: (c[0] != "small", c[1] != "unionized", c[2]))
    print("Lookups/s (median of the timed runs; device time of all the variant's launches).\n")
    print("| size | grid | lookups | CUDA fused | CUDA sorted | Triton fused | Triton split | Triton sorted |"
          " Triton/CUDA fused | Triton sorted/CUDA fused | fused/sorted (Triton) | checksums |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for c in cases:
        got = [rows.get(c + m) for m in MAIN]
        rate = ["%.3g" % float(r["lookups_per_s"]) if r else "—" for r in got]
        ms = [float(r["median_ms"]) if r else None for r in got]
        ratio = lambda a, b: "%.2f" % (ms[a] / ms[b]) if ms[a] and ms[b] else "—"  # noqa: E731
        ok = all(r and r["mismatches"] == "0" and (not r["published"] or r["checksum"] == r["published"]) for r in got if r)
        pub = next((r["published"] for r in got if r and r["published"]), "")
        check = ("all " + (got[0]["checksum"] + (" = published" if pub else ""))) if ok and got[0] else "MISMATCH"
        print(f"| {c[0]} | {c[1]} | {c[2]:,} | " + " | ".join(rate) + f" | {ratio(2, 0)} | {ratio(4, 0)} | {ratio(2, 4)} | {check} |")

    print("\nTriton experiments (unionized grid): time relative to the default fused kernel (b256w8) of the same case.\n")
    configs = sorted({k[5] for k in rows if k[3] == "triton" and k[1] == "unionized" and k[5] != "b256w8"} |
                     {"b256w8"}, key=lambda s: (("packed" in s), int(s[1:].split("w")[0]) if s[1:].split("w")[0].isdigit() else 0))
    head = [f"fused {cfg}" for cfg in configs if "packed" not in cfg] + ["sorted b256w8", "sorted packed"]
    print("| size | lookups | " + " | ".join(head) + " | CUDA fused 32 threads/256 |")
    print("|---|---:|" + "---:|" * (len(head) + 1))
    for c in cases:
        if c[1] != "unionized":
            continue
        base = rows.get(c + ("triton", "fused", "b256w8"))
        if not base:
            continue
        b = float(base["median_ms"])
        cells = []
        for cfg in configs:
            if "packed" in cfg:
                continue
            r = rows.get(c + ("triton", "fused", cfg))
            cells.append("%.2f" % (float(r["median_ms"]) / b) if r else "—")
        for key in (("triton", "sorted", "b256w8"), ("triton", "sorted", "b256w8-packed")):
            r = rows.get(c + key)
            cells.append("%.2f" % (float(r["median_ms"]) / b) if r else "—")
        c32, c256 = rows.get(c + ("cuda", "fused", "32 threads")), rows.get(c + ("cuda", "fused", "256 threads"))
        cells.append("%.2f" % (float(c32["median_ms"]) / float(c256["median_ms"])) if c32 and c256 else "—")
        print(f"| {c[0]} | {c[2]:,} | " + " | ".join(cells) + " |")

    if len(sys.argv) > 2:
        print("\nNuclide-loop trips per tile and useful lanes, counted from the sampled materials.\n")
        print("| size | lookups | tile (lanes) | mean trips per tile | max | useful lanes, fused | useful lanes, sorted |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for r in csv.DictReader(open(sys.argv[2])):
            print(f"| {r['size']} | {int(r['lookups']):,} | {r['tile']} | {float(r['mean_trips']):.1f} | {r['max_trips']} |"
                  f" {float(r['useful_lane_fraction']):.3f} | {float(r['sorted_useful_lane_fraction']):.3f} |")


if __name__ == "__main__":
    main()
