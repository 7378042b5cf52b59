#!/usr/bin/env python3
"""ncu_bytes.py — the DRAM bytes of each kernel launch from `ncu --csv --metrics
dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum` (run-cutensor.sh's fusion part), as
a Markdown table in launch order (MB read, MB written, µs), then summed per kernel name: what each
path of the fusion case moved, measured, beside the analytic bytes of the fusion table. The bench
runs each path twice under ncu (its check, then one timed run with --reps 1 --warmup 0).

    python3 ncu_bytes.py ncu-fusion.csv
"""
import csv
import sys

SCALE = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6, "GB": 1e9,
         "nsecond": 1e-3, "usecond": 1, "msecond": 1e3, "ns": 1e-3, "us": 1, "ms": 1e3}


def main(src):
    with open(src) as f:
        lines = f.read().splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    if start is None:
        sys.exit(f"ncu_bytes.py: no CSV table in {src} (did ncu read the counters? see ncu-fusion.log)")
    launches = {}
    for r in csv.DictReader(lines[start:]):
        k = launches.setdefault(r["ID"], {"name": r["Kernel Name"], "read": 0.0, "write": 0.0, "us": 0.0})
        v = float(r["Metric Value"].replace(",", "")) * SCALE.get(r["Metric Unit"], 1)
        if r["Metric Name"].startswith("dram__bytes_read"):
            k["read"] = v / 1e6
        elif r["Metric Name"].startswith("dram__bytes_write"):
            k["write"] = v / 1e6
        elif r["Metric Name"].startswith("gpu__time_duration"):
            k["us"] = v
    short = lambda n: n if len(n) <= 70 else n[:67] + "..."
    print("| launch | kernel | DRAM MB read | DRAM MB written | µs (under ncu) |")
    print("|---:|---|---:|---:|---:|")
    for i, k in launches.items():
        print(f"| {i} | `{short(k['name'])}` | {k['read']:.1f} | {k['write']:.1f} | {k['us']:.1f} |")
    per = {}
    for k in launches.values():
        p = per.setdefault(k["name"], [0, 0.0, 0.0])
        p[0] += 1
        p[1] += k["read"]
        p[2] += k["write"]
    print()
    print("| kernel | launches | mean DRAM MB read + written per launch |")
    print("|---|---:|---:|")
    for name, (n, rd, wr) in per.items():
        print(f"| `{short(name)}` | {n} | {(rd + wr) / n:.1f} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
