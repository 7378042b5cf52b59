#!/usr/bin/env python3
"""table.py — the AO->MO and MP2 rows of bench/tensor4's CSV (tensor4_bench --csv) as a Markdown
table for RESULTS.md: median ms of each path (unfused as batched GEMMs and in the cyclic layout,
where run), modelled HBM MB (unfused / fused), max relative error, the best Triton unfused path's
time over the best vendor path's (< 1: Triton faster) and the fused path's speed-up over the best
vendor path (best cuBLAS ms / fused ms: > 1 means faster).

    python3 table.py tensor4.csv
"""
import csv
import sys

CUBLAS = ["cublas_unfused", "cublas_unfused_cyclic"]
TRITON = ["triton_unfused_tuned", "triton_unfused_cyclic"]
FUSED = "triton_fused"


def main(src):
    with open(src) as f:
        rows = [r for r in csv.DictReader(f) if r["case"].startswith(("ao2mo_", "mp2_"))]
    by = {(r["case"], r["precision"], r["impl"]): r for r in rows}
    ms = lambda r: float(r["ms_median"])
    print("| case | prec | cuBLAS ms (batched / cyclic) | Triton unfused ms (batched / cyclic) | Triton fused ms | "
          "HBM MB unfused / fused | max rel err (cuBLAS / Triton unfused / fused) | best Triton unfused / best cuBLAS time | "
          "fused speed-up vs best cuBLAS |")
    print("|---|---|---:|---:|---:|---:|---|---:|---:|")
    for case in dict.fromkeys(r["case"] for r in rows):
        for prec in ("fp32", "tf32"):
            get = lambda impls: [by.get((case, prec, i)) for i in impls]
            cublas, triton, fused = get(CUBLAS), get(TRITON), by.get((case, prec, FUSED))
            if not any(cublas + triton + [fused]):
                continue
            pair = lambda rs: " / ".join(f"{ms(r):.3f}" if r else "—" for r in rs)
            best = lambda rs: min((r for r in rs if r), key=ms, default=None)
            bc, bt = best(cublas), best(triton)
            mb = " / ".join(f"{float(r['model_bytes']) / 1e6:.0f}" for r in (bt, fused) if r)
            err = " / ".join(f"{float(r['max_rel_err']):.1e}" if r else "—" for r in (bc, bt, fused))
            unfused_ratio = f"{ms(bt) / ms(bc):.2f}" if bc and bt else "—"
            fused_ratio = f"{ms(bc) / ms(fused):.2f}x" if bc and fused else "—"
            print(f"| {case} | {prec} | {pair(cublas)} | {pair(triton)} | {f'{ms(fused):.3f}' if fused else '—'} | {mb} | {err} | "
                  f"{unfused_ratio} | {fused_ratio} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
