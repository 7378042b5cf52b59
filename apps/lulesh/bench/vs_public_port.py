"""Reads the logs of vs-public-port.sh (tritonpack's `lulesh` and the public CUDA port, run side by side),
prints the table of medians and writes two CSVs: every run, and the medians per size and program.

  python3 apps/lulesh/bench/vs_public_port.py LOGDIR [--csv vs_public_port.csv]

LOGDIR holds runs.tsv (one line per run: s, program, rep, exit status, wall seconds, log file) and the
logs. Both programs print LULESH 2.0's report; zone-cycles/s is 1000 x its FOM (the FOM is 1000 / grind
time in us, i.e. zone-cycles per millisecond, though it says z/s), the grind time when FOM is missing.
"""
import argparse
import csv
import os
import re
import statistics
import sys
from pathlib import Path


def read_reference(path=Path(__file__).resolve().parents[1] / "reference" / "final_results.txt"):
    """LULESH 2.0's results to completion, {s: (cycles, energy)}: the published table (s = 5-45)
    and LLNL's CPU reference build (s = 50-90), one file shared with scripts/lulesh-log.sh. The port
    is not exact LULESH: issue 32 saw 922 cycles at s = 30."""
    table = {}
    for line in path.read_text().splitlines():
        fields = line.split()
        if fields and not line.startswith("#"):
            table[int(fields[0])] = (int(fields[1]), fields[2])
    return table


REFERENCE = read_reference()

NUMBER = r"([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)"
PATTERNS = {
    "cycles": re.compile(r"Iteration count\s*=\s*(\d+)"),
    "energy": re.compile(r"Final Origin Energy\s*=\s*" + NUMBER),
    "elapsed_s": re.compile(r"Elapsed time\s*=\s*" + NUMBER),
    "grind_us": re.compile(r"Grind time \(us/z/c\)\s*=\s*" + NUMBER),
    "fom": re.compile(r"FOM\s*=\s*" + NUMBER),
    "size": re.compile(r"Problem size\s*=\s*(\d+)"),
}


def parse_log(text):
    """The numbers a LULESH 2.0 report gives; a missing one is None."""
    out = {}
    for key, pattern in PATTERNS.items():
        m = pattern.search(text)
        out[key] = m.group(1) if m else None
    if out["fom"]:
        out["zone_cycles_per_s"] = float(out["fom"]) * 1e3
    elif out["grind_us"] and float(out["grind_us"]) > 0:
        out["zone_cycles_per_s"] = 1e6 / float(out["grind_us"])
    else:
        out["zone_cycles_per_s"] = None
    m = re.search(r"VERIFICATION (PASS|FAIL)", text)
    out["verification"] = m.group(1) if m else ""
    return out


def read_runs(logdir):
    rows = []
    with open(os.path.join(logdir, "runs.tsv")) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            s, program, rep, rc, wall, log = line.rstrip("\n").split("\t")
            path = os.path.join(logdir, log)
            text = open(path, errors="replace").read() if os.path.exists(path) else ""
            row = {"s": int(s), "program": program, "rep": int(rep), "exit": int(rc), "wall_s": float(wall), "log": log}
            row.update(parse_log(text))
            if row["exit"] != 0 or row["zone_cycles_per_s"] is None:
                row["problem"] = f"exit {rc}" if row["exit"] != 0 else "no FOM in the log"
            else:
                row["problem"] = ""
            rows.append(row)
    return rows


def elapsed_of(run, s):
    if run["grind_us"] and run["cycles"]:
        return float(run["grind_us"]) * int(run["cycles"]) * s**3 / 1e6
    return float(run["elapsed_s"] or "nan")


def summarize(rows, iterations_given, baseline="port"):
    """One dict per (s, program): medians, and what the runs agree on. Programs in the order they first
    ran, the baseline last."""
    groups = {}
    for r in rows:
        groups.setdefault((r["s"], r["program"]), []).append(r)
    order = [p for p in dict.fromkeys(r["program"] for r in rows) if p != baseline] + [baseline]
    out = []
    for (s, program), runs in sorted(groups.items(), key=lambda kv: (kv[0][0], order.index(kv[0][1]))):
        good = [r for r in runs if not r["problem"]]
        rates = [r["zone_cycles_per_s"] for r in good]
        cycles = sorted({r["cycles"] for r in good})
        energies = sorted({r["energy"] for r in good})
        out.append({
            "s": s,
            "program": program,
            "runs": len(runs),
            "ok_runs": len(good),
            "median_zone_cycles_per_s": statistics.median(rates) if rates else None,
            "min_zone_cycles_per_s": min(rates) if rates else None,
            "max_zone_cycles_per_s": max(rates) if rates else None,
            # From the grind time (8 digits): the port prints its elapsed time to 10 ms only.
            "median_elapsed_s": statistics.median(elapsed_of(r, s) for r in good) if good else None,
            "cycles": "/".join(cycles),
            "energy": "/".join(energies),
            "reference_cycles": "" if iterations_given else (REFERENCE.get(s, (None, None))[0] or ""),
            "reference_energy": "" if iterations_given else (REFERENCE.get(s, (None, None))[1] or ""),
        })
    return out


def fmt(x):
    return f"{x:.3e}" if isinstance(x, float) else "—"


def print_table(summary, baseline="port"):
    by = {(r["s"], r["program"]): r for r in summary}
    sizes = sorted({r["s"] for r in summary})
    programs = [p for p in dict.fromkeys(r["program"] for r in summary)]
    ours = [p for p in programs if p != baseline]
    head = ["s"] + [f"{p} (zc/s)" for p in programs] + [f"{p}/{baseline}" for p in ours] + ["cycles (ref; " + ", ".join(programs) + ")", "energy"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    notes = []
    for s in sizes:
        cells = [str(s)]
        for p in programs:
            r = by.get((s, p))
            cells.append(fmt(r["median_zone_cycles_per_s"]) if r else "—")
        for p in ours:
            a, b = by.get((s, p)), by.get((s, baseline))
            if a and b and a["median_zone_cycles_per_s"] and b["median_zone_cycles_per_s"]:
                cells.append(f"{a['median_zone_cycles_per_s'] / b['median_zone_cycles_per_s']:.2f}")
            else:
                cells.append("—")
        ref = next((r["reference_cycles"] for r in summary if r["s"] == s), "")
        cells.append(f"{ref or '?'}; " + ", ".join((by[(s, p)]["cycles"] or "—") if (s, p) in by else "—" for p in programs))
        cells.append(", ".join((by[(s, p)]["energy"] or "—") if (s, p) in by else "—" for p in programs))
        print("| " + " | ".join(cells) + " |")
        # What to flag: a program whose iteration count or energy differs from LLNL's reference (or,
        # where no reference is known, from the first of our programs), runs that failed.
        ref_energy = next((r["reference_energy"] for r in summary if r["s"] == s), "")
        first = by.get((s, ours[0])) if ours else None
        for p in programs:
            r = by.get((s, p))
            if not r:
                continue
            if r["ok_runs"] < r["runs"]:
                notes.append(f"s = {s}, {p}: {r['runs'] - r['ok_runs']} of {r['runs']} runs failed (see runs CSV)")
            if "/" in r["cycles"] or "/" in r["energy"]:
                notes.append(f"s = {s}, {p}: runs disagree (cycles {r['cycles']}, energy {r['energy']})")
            if ref and r["cycles"] and r["cycles"] != str(ref):
                notes.append(f"s = {s}, {p}: {r['cycles']} cycles, LLNL's reference {ref}")
            elif not ref and first and p != first["program"] and r["cycles"] and r["cycles"] != first["cycles"]:
                notes.append(f"s = {s}, {p}: {r['cycles']} cycles, {first['program']} {first['cycles']} (no reference count here)")
            if ref_energy and r["energy"] and r["energy"] != ref_energy:
                notes.append(f"s = {s}, {p}: final origin energy {r['energy']}, reference {ref_energy}")
            elif first and p != first["program"] and r["energy"] and first["energy"] and r["energy"] != first["energy"]:
                a, b = float(r["energy"].split("/")[0]), float(first["energy"].split("/")[0])
                notes.append(f"s = {s}, {p}: final origin energy {r['energy']} vs {first['program']} {first['energy']} ({(a - b) / b:+.2%})")
    for n in notes:
        print("FLAG: " + n)
    return notes


def write_csv(path, rows, fields):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("logdir")
    ap.add_argument("--csv", help="medians CSV (default LOGDIR/vs_public_port.csv); runs go to *_runs.csv")
    ap.add_argument("--iterations-given", action="store_true", help="runs used -i: no reference counts apply")
    a = ap.parse_args()
    rows = read_runs(a.logdir)
    if not rows:
        sys.exit(f"{a.logdir}/runs.tsv lists no runs")
    summary = summarize(rows, a.iterations_given)
    print_table(summary)
    path = a.csv or os.path.join(a.logdir, "vs_public_port.csv")
    write_csv(path, summary, list(summary[0].keys()))
    runs_path = path[:-4] + "_runs.csv" if path.endswith(".csv") else path + "_runs"
    write_csv(runs_path, rows, ["s", "program", "rep", "exit", "wall_s", "zone_cycles_per_s", "cycles", "energy", "elapsed_s",
                                "grind_us", "fom", "verification", "problem", "log"])
    print(f"CSV: {path} (medians), {runs_path} (every run)")
    bad = [r for r in rows if r["problem"]]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
