#!/usr/bin/env python3
"""table.py — the AO->MO and MP2 rows of bench/tensor4's CSV (tensor4_bench --csv) as a Markdown
table for RESULTS.md: median ms of each path, modelled HBM MB (unfused / fused), max relative error,
and the fused path's speed-up over the best vendor path (cuBLAS ms / fused ms: > 1 means faster).

    python3 table.py tensor4.csv
"""
import csv
import sys

PATHS = ["cublas_unfused", "triton_unfused_tuned", "triton_fused"]


def main(src):
    with open(src) as f:
        rows = [r for r in csv.DictReader(f) if r["case"].startswith(("ao2mo_", "mp2_"))]
    by = {(r["case"], r["precision"], r["impl"]): r for r in rows}
    print("| case | prec | cuBLAS ms | Triton unfused ms | Triton fused ms | HBM MB unfused / fused | max rel err (c / u / f) | fused speed-up vs cuBLAS |")
    print("|---|---|---:|---:|---:|---:|---|---:|")
    for case in dict.fromkeys(r["case"] for r in rows):
        for prec in ("fp32", "tf32"):
            got = [by.get((case, prec, p)) for p in PATHS]
            if not any(got):
                continue
            ms = [f"{float(r['ms_median']):.3f}" if r else "—" for r in got]
            mb = " / ".join(f"{float(r['model_bytes']) / 1e6:.0f}" for r in got[1:] if r)
            err = " / ".join(f"{float(r['max_rel_err']):.1e}" if r else "—" for r in got)
            c, fused = got[0], got[2]
            ratio = f"{float(c['ms_median']) / float(fused['ms_median']):.2f}x" if c and fused else "—"
            print(f"| {case} | {prec} | {' | '.join(ms)} | {mb} | {err} | {ratio} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
