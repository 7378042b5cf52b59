#!/usr/bin/env python3
"""table.py — apps/ao2mo/bench's CSV (tensor4_bench --csv) as Markdown tables for RESULTS.md. AO->MO and
MP2: median ms of each path (unfused as batched GEMMs and in the cyclic layout, both orientations,
where run), modelled HBM MB (unfused / fused), max relative error, the best Triton unfused path's
time over the best vendor path's (< 1: Triton faster) and the fused path's speed-up over the best
vendor path (best cuBLAS ms / fused ms: > 1 means faster). Fused: `half_transform` twice, then (TF32,
where run) `pair_transform` twice writing (pq|rs) row-major and pair-transposed; the speed-up is the best
of them, with the MO layout it wrote. TCCG: median ms (TFLOP/s) of the cuBLAS
TTGT, the Triton TTGT (b laid out per precision, and left in place where that differs), the tuned `gemm` in
place and the direct `contract` at its best config, and the best Triton path's time over cuBLAS's
(the goal: within 0.9-1.1), and each TTGT's GEMM alone (cuBLAS / Triton).

    python3 table.py tensor4.csv
"""
import csv
import sys

CUBLAS = ["cublas_unfused", "cublas_unfused_cyclic"]
TRITON = ["triton_unfused_tuned", "triton_unfused_cyclic", "triton_unfused_cyclic_t"]
FUSED = ["triton_fused", "triton_fused_pair", "triton_fused_pair_rs_pq"]


def main(src):
    with open(src) as f:
        rows = [r for r in csv.DictReader(f) if r["case"].startswith(("ao2mo_", "mp2_"))]
    by = {(r["case"], r["precision"], r["impl"]): r for r in rows}
    ms = lambda r: float(r["ms_median"])
    print("| case | prec | cuBLAS ms (batched / cyclic) | Triton unfused ms (batched / cyclic / cyclic, MO as columns) | "
          "Triton fused ms (half_transform / pair / pair, MO pair-transposed) | HBM MB unfused / fused | "
          "max rel err (cuBLAS / Triton unfused / best fused) | best Triton unfused / best cuBLAS time | "
          "fused speed-up vs best cuBLAS |")
    print("|---|---|---:|---:|---:|---:|---|---:|---:|")
    for case in dict.fromkeys(r["case"] for r in rows):
        for prec in ("fp32", "tf32"):
            get = lambda impls: [by.get((case, prec, i)) for i in impls]
            cublas, triton, fused = get(CUBLAS), get(TRITON), get(FUSED)
            if not any(cublas + triton + fused):
                continue
            pair = lambda rs: " / ".join(f"{ms(r):.3f}" if r else "—" for r in rs)
            best = lambda rs: min((r for r in rs if r), key=ms, default=None)
            bc, bt, bf = best(cublas), best(triton), best(fused)
            mb = " / ".join(f"{float(r['model_bytes']) / 1e6:.0f}" for r in (bt, bf) if r)
            err = " / ".join(f"{float(r['max_rel_err']):.1e}" if r else "—" for r in (bc, bt, bf))
            unfused_ratio = f"{ms(bt) / ms(bc):.2f}" if bc and bt else "—"
            fused_ratio = f"{ms(bc) / ms(bf):.2f}x" if bc and bf else "—"
            if bf and bf["impl"] == "triton_fused_pair_rs_pq":
                fused_ratio += " (MO pair-transposed)"
            fused_cells = pair(fused) if any(fused[1:]) else pair(fused[:1])
            print(f"| {case} | {prec} | {pair(cublas)} | {pair(triton)} | {fused_cells} | {mb} | {err} | "
                  f"{unfused_ratio} | {fused_ratio} |")


TCCG = ["triton_ttgt", "triton_ttgt_b_in_place", "triton_gemm", "triton_direct"]


def tccg_table(src):
    with open(src) as f:
        rows = [r for r in csv.DictReader(f) if not r["case"].startswith(("ao2mo_", "mp2_"))]
    if not rows:
        return
    best = {}
    for r in rows:  # the fastest config of each (case, precision, impl)
        key = (r["case"], r["precision"], r["impl"])
        if key not in best or float(r["ms_median"]) < float(best[key]["ms_median"]):
            best[key] = r
    cell = lambda r: f"{float(r['ms_median']):.3f} ({float(r['gflops']) / 1e3:.1f})" if r else "—"
    print()
    print("| case | prec | cuBLAS TTGT ms (TFLOP/s) | " + " | ".join(f"`{i}`" for i in TCCG) +
          " | best Triton / cuBLAS time | max rel err (best Triton, cuBLAS) | GEMM alone ms: cuBLAS / Triton |")
    print("|---|---|---:|" + "---:|" * len(TCCG) + "---:|---|---:|")
    for case in dict.fromkeys(r["case"] for r in rows):
        for prec in ("fp32", "tf32"):
            vendor = best.get((case, prec, "cublas_ttgt"))
            triton = [best.get((case, prec, i)) for i in TCCG]
            top = min((r for r in triton if r), key=lambda r: float(r["ms_median"]), default=None)
            if not vendor and not top:
                continue
            ratio = f"{float(top['ms_median']) / float(vendor['ms_median']):.2f} ({top['impl']})" if vendor and top else "—"
            err = ", ".join(f"{float(r['max_rel_err']):.1e}" if r else "—" for r in (top, vendor))
            gemms = [best.get((case, prec, i)) for i in ("cublas_ttgt_gemm", "triton_ttgt_gemm")]
            alone = " / ".join(f"{float(r['ms_median']):.3f}" if r else "—" for r in gemms)
            print(f"| {case} | {prec} | {cell(vendor)} | " + " | ".join(cell(r) for r in triton) + f" | {ratio} | {err} | {alone} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
    tccg_table(sys.argv[1])
