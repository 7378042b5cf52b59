"""Markdown tables from xsbench_bench's CSVs (RESULTS.md): lookups/s per variant, Triton/CUDA time
ratios, the packed-read, tile-size and sorting experiments, and the tile occupancy counts.

  python apps/xsbench/bench/summarize.py xsbench_bench.csv [xsbench_tiles.csv [ncu.csv]]
"""
import collections
import csv
import sys


def load(path):
    return {(r["size"], r["grid"], int(r["lookups"]), r["impl"], r["variant"], r["config"]): r
            for r in csv.DictReader(open(path))}


def cases_of(rows):
    return sorted({k[:3] for k in rows}, key=lambda c: (c[0] != "small", c[1] != "unionized", c[2]))


def rate_table(rows, title, columns, ratios=()):
    """One row per case: lookups/s of each (label, impl, variant, config), then time ratios a/b."""
    print(title + "\n")
    print("| size | grid | lookups | " + " | ".join(c[0] for c in columns) + "".join(f" | {r[0]}" for r in ratios) + " |")
    print("|---|---|---:|" + "---:|" * (len(columns) + len(ratios)))
    for case in cases_of(rows):
        got = {c[0]: rows.get(case + c[1:]) for c in columns}
        if not any(got.values()):
            continue
        cells = ["%.3g" % float(got[c[0]]["lookups_per_s"]) if got[c[0]] else "—" for c in columns]
        for _, a, b in ratios:
            ra, rb = got.get(a), got.get(b)
            cells.append("%.2f" % (float(ra["median_ms"]) / float(rb["median_ms"])) if ra and rb else "—")
        print(f"| {case[0]} | {case[1]} | {case[2]:,} | " + " | ".join(cells) + " |")
    print()


def verification(rows):
    bad = [k for k, r in rows.items() if r["mismatches"] != "0" or (r["published"] and r["checksum"] != r["published"])]
    published = sorted({(k[0], r["checksum"]) for k, r in rows.items() if r["published"]})
    print(f"Verification: {len(rows) - len(bad)} of {len(rows)} runs agree with the CUDA baseline lookup for lookup;"
          " published checksums met: " + ", ".join(f"{s} {c}" for s, c in published) + ".")
    for k in bad:
        print("  MISMATCH:", k)
    print()


def main():
    rows = load(sys.argv[1])
    verification(rows)
    rate_table(rows, "Lookups/s (median of the timed runs; device time of all the variant's launches).", [
        ("CUDA fused", "cuda", "fused", "256 threads"),
        ("CUDA sorted", "cuda", "sorted", "256 threads"),
        ("CUDA energy", "cuda", "energy", "256 threads"),
        ("Triton fused", "triton", "fused", "b256w8"),
        ("Triton split", "triton", "split", "b256w8"),
        ("Triton sorted", "triton", "sorted", "b256w8"),
        ("Triton energy", "triton", "energy", "b256w8"),
    ], ratios=[("T/C fused", "Triton fused", "CUDA fused"), ("T sorted/C fused", "Triton sorted", "CUDA fused"),
               ("T/C energy", "Triton energy", "CUDA energy")])
    rate_table(rows, "Packed reads (each nuclide's two grid points as 16-byte loads): lookups/s.", [
        ("CUDA fused", "cuda", "fused", "256 threads"),
        ("CUDA fused packed", "cuda", "fused", "256 threads-packed"),
        ("Triton fused packed", "triton", "fused", "b256w8-packed"),
        ("Triton sorted packed", "triton", "sorted", "b256w8-packed"),
        ("CUDA energy packed", "cuda", "energy", "256 threads-packed"),
        ("Triton energy packed", "triton", "energy", "b256w8-packed"),
    ], ratios=[("T/C fused packed", "Triton fused packed", "CUDA fused packed"),
               ("T/C energy packed", "Triton energy packed", "CUDA energy packed"),
               ("T energy packed/C fused", "Triton energy packed", "CUDA fused")])
    tiles = [("b32w1", "32/1"), ("b64w2", "64/2"), ("b128w4", "128/4"), ("b256w8", "256/8"), ("b512w8", "512/8"),
             ("b1024w8", "1024/8")]
    rate_table(rows, "Tile size (lanes/warps) of the Triton fused kernel, unionized grid: lookups/s.",
               [(f"Triton {label}", "triton", "fused", cfg) for cfg, label in tiles] +
               [("CUDA 32 threads", "cuda", "fused", "32 threads"), ("CUDA 256 threads", "cuda", "fused", "256 threads")])
    if len(sys.argv) > 2:
        print("Nuclide-loop trips per tile and useful lanes, counted from the sampled materials.\n")
        print("| size | lookups | tile (lanes) | mean trips per tile | max | useful lanes, fused | useful lanes, sorted |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for r in csv.DictReader(open(sys.argv[2])):
            print(f"| {r['size']} | {int(r['lookups']):,} | {r['tile']} | {float(r['mean_trips']):.1f} | {r['max_trips']} |"
                  f" {float(r['useful_lane_fraction']):.3f} | {float(r['sorted_useful_lane_fraction']):.3f} |")
        print()
    if len(sys.argv) > 3:
        ncu_table(sys.argv[3])


def ncu_table(path):
    """Nsight Compute's metrics per lookup kernel (run.sh's ncu step: every launch of a warm-up and
    one timed run, so each kernel twice), summed over a variant's launches and halved."""
    lines = [line for line in open(path) if line.startswith('"')]
    rows = list(csv.reader(lines))
    head, rows = rows[0], rows[1:]
    col = {name: head.index(name) for name in ("ID", "Kernel Name", "Block Size", "Metric Name", "Metric Value")}
    launches = collections.OrderedDict()
    for r in rows:
        key = r[col["ID"]]
        kernel = r[col["Kernel Name"]].split("(")[0].split("::")[-1].split("<")[0]
        launch = launches.setdefault(key, {"kernel": f"{kernel} ({r[col['Block Size']].split(',')[0].strip('(')} threads)"})
        launch[r[col["Metric Name"]]] = float(r[col["Metric Value"]].replace(",", ""))
    total = collections.OrderedDict()
    for launch in launches.values():
        t = total.setdefault(launch["kernel"], collections.Counter())
        t["launches"] += 1
        for m in ("gpu__time_duration.sum", "smsp__inst_executed.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                  "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "dram__bytes_read.sum"):
            t[m] += launch.get(m, 0.0)
        inst = launch.get("smsp__inst_executed.sum", 0.0)
        t["threads x inst"] += inst * launch.get("smsp__thread_inst_executed_per_inst_executed.ratio", 0.0)
        t["warps active x time"] += launch.get("gpu__time_duration.sum", 0.0) * launch.get(
            "sm__warps_active.avg.pct_of_peak_sustained_active", 0.0)
        t["registers"] = launch.get("launch__registers_per_thread", 0.0)
    print("Nsight Compute, small problem, unionized grid, 1M lookups (per run: all launches of the kernel).\n")
    print("| kernel | time (us) | warp instructions (M) | active threads per instruction | warps active (% of peak) |"
          " global load requests (M) | L1 sectors (M) | DRAM read (MB) | registers |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for kernel, t in total.items():
        runs = 2  # warm-up + one timed run
        inst = t["smsp__inst_executed.sum"]
        req = t["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]
        print(f"| {kernel} | {t['gpu__time_duration.sum'] / runs / 1e3:.0f} | {inst / runs / 1e6:.1f} |"
              f" {t['threads x inst'] / inst if inst else 0:.1f} |"
              f" {t['warps active x time'] / t['gpu__time_duration.sum']:.0f} |"
              f" {req / runs / 1e6 if req else float('nan'):.1f} |"
              f" {t['l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum'] / runs / 1e6:.1f} |"
              f" {t['dram__bytes_read.sum'] / runs / 1e6:.0f} | {t['registers']:.0f} |")


if __name__ == "__main__":
    main()
