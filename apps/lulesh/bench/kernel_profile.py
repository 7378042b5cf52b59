#!/usr/bin/env python3
"""apps/lulesh/bench/kernel_profile.py — per-kernel table from Nsight Compute's raw CSV pages, one per
program (kernel-profile.sh writes them: `ncu --import REP --csv --page raw --print-units base`).

    python3 kernel_profile.py --cycles N LABEL=FILE.csv [LABEL=FILE.csv ...] [--csv OUT.csv]

For each program: every kernel (name up to its parameter list), launches per cycle, GPU time per
cycle (gpu__time_duration summed over the run, divided by N), its share of the program's GPU time,
registers per thread, achieved occupancy (mean over launches, weighted by time), DRAM bytes per cycle
and the bandwidth they imply. Exits 1 when a file holds no kernel or lacks the duration column, so that
a profile that did not run is never summarised as if it had.
"""
import argparse
import csv
import sys

DURATION = "gpu__time_duration.sum"
REGISTERS = "launch__registers_per_thread"
OCCUPANCY = "sm__warps_active.avg.pct_of_peak_sustained_active"
DRAM_READ = "dram__bytes_read.sum"
DRAM_WRITE = "dram__bytes_write.sum"


def kernel_name(raw):
    """'void CalcVolumeForceForElems_kernel<true>(const double *, ...)' -> 'CalcVolumeForceForElems_kernel<true>'."""
    name = raw.split("(", 1)[0].strip()
    return name[5:] if name.startswith("void ") else name


def number(text):
    text = text.replace(",", "").strip()
    try:
        return float(text)
    except ValueError:
        return None


def read_raw_page(path):
    """Rows of ncu's raw page as dicts (its second line gives the units and is skipped)."""
    with open(path, newline="") as f:
        lines = [line for line in f if line.startswith('"')]  # drop ==PROF== and warning lines
    rows = list(csv.reader(lines))
    if len(rows) < 2:
        return [], []
    header = rows[0]
    if "Kernel Name" not in header:
        return header, []
    body = rows[2:] if rows[1] and rows[1][header.index("Kernel Name")] == "" else rows[1:]
    return header, [dict(zip(header, r)) for r in body]


def summarise(path, cycles):
    header, rows = read_raw_page(path)
    if not rows or DURATION not in header:
        raise SystemExit(f"kernel_profile.py: {path}: no kernel rows with {DURATION} "
                         "(did ncu run? see its log next to the CSV)")
    kernels = {}
    for r in rows:
        k = kernels.setdefault(kernel_name(r["Kernel Name"]),
                               {"launches": 0, "ns": 0.0, "regs": set(), "occ_ns": 0.0, "dram": 0.0})
        ns = number(r[DURATION]) or 0.0
        k["launches"] += 1
        k["ns"] += ns
        if number(r.get(REGISTERS, "")) is not None:
            k["regs"].add(int(number(r[REGISTERS])))
        if number(r.get(OCCUPANCY, "")) is not None:
            k["occ_ns"] += number(r[OCCUPANCY]) * ns
        for m in (DRAM_READ, DRAM_WRITE):
            if number(r.get(m, "")) is not None:
                k["dram"] += number(r[m])
    return kernels


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("programs", nargs="+", metavar="LABEL=FILE.csv")
    ap.add_argument("--cycles", type=int, required=True, help="cycles the profiled run made (-i N)")
    ap.add_argument("--csv", help="also write the table here")
    args = ap.parse_args()
    out_rows = []
    for spec in args.programs:
        if "=" not in spec:
            raise SystemExit(f"kernel_profile.py: '{spec}' is not LABEL=FILE.csv")
        label, path = spec.split("=", 1)
        kernels = summarise(path, args.cycles)
        total = sum(k["ns"] for k in kernels.values())
        print(f"\n### {label}: {total / args.cycles / 1e3:.1f} µs of GPU time per cycle "
              f"({sum(k['launches'] for k in kernels.values())} launches over {args.cycles} cycles)\n")
        print("| kernel | launches/cycle | µs/cycle | share | regs | achieved occupancy % | DRAM MB/cycle | DRAM GB/s |")
        print("|---|---|---|---|---|---|---|---|")
        for name, k in sorted(kernels.items(), key=lambda kv: -kv[1]["ns"]):
            us = k["ns"] / args.cycles / 1e3
            occ = k["occ_ns"] / k["ns"] if k["ns"] else float("nan")
            mb = k["dram"] / args.cycles / 1e6
            gbs = k["dram"] / k["ns"] if k["ns"] else float("nan")  # bytes per ns = GB/s
            regs = "/".join(str(r) for r in sorted(k["regs"])) or "?"
            print(f"| {name} | {k['launches'] / args.cycles:.1f} | {us:.1f} | {100 * k['ns'] / total:.1f} % | "
                  f"{regs} | {occ:.1f} | {mb:.0f} | {gbs:.0f} |")
            out_rows.append([label, name, k["launches"] / args.cycles, round(us, 2), regs, round(occ, 1),
                             round(mb, 1), round(gbs, 0)])
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["program", "kernel", "launches_per_cycle", "us_per_cycle", "registers",
                        "achieved_occupancy_pct", "dram_mb_per_cycle", "dram_gb_s"])
            w.writerows(out_rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
