#!/usr/bin/env python3
"""plot.py — apps/ao2mo/bench's CSV (tensor4_bench --csv) as a PNG: GFLOP/s per case, FP32 (ieee) and
TF32 side by side, one bar per implementation (Triton's direct contraction at its best config).

    python3 plot.py tensor4.csv tensor4.png
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

IMPLS = ["cublas_unfused", "cublas_unfused_cyclic", "triton_unfused", "triton_unfused_tuned", "triton_unfused_cyclic", "triton_unfused_cyclic_t",
         "triton_fused", "triton_fused_pair", "triton_fused_pair_rs_pq", "cutensor_unfused", "cutensor_unfused_cyclic", "cutensor",
         "cutensor+epilogue", "cublas+epilogue", "cublas", "cublas_ttgt", "triton_ttgt", "triton_ttgt_b_in_place", "triton_direct", "triton_gemm"]
COLORS = {"cublas_unfused": "#7f7f7f", "cublas_unfused_cyclic": "#c7c7c7", "triton_unfused": "#aec7e8",
          "triton_unfused_tuned": "#1f77b4", "triton_unfused_cyclic": "#17becf", "triton_unfused_cyclic_t": "#9edae5", "triton_fused": "#d62728",
          "triton_fused_pair": "#ff9896", "triton_fused_pair_rs_pq": "#9467bd",
          "cublas_ttgt": "#7f7f7f", "triton_ttgt": "#ff7f0e", "triton_ttgt_b_in_place": "#ffbb78",
          "triton_direct": "#1f77b4", "triton_gemm": "#2ca02c",
          "cutensor_unfused": "#8c564b", "cutensor_unfused_cyclic": "#c49c94", "cutensor": "#8c564b",
          "cutensor+epilogue": "#8c564b", "cublas+epilogue": "#7f7f7f", "cublas": "#7f7f7f"}


def best(rows):
    """(case, impl, precision) -> the row with the highest GFLOP/s (over configs)."""
    out = {}
    for r in rows:
        key = (r["case"], r["impl"], r["precision"])
        if key not in out or float(r["gflops"]) > float(out[key]["gflops"]):
            out[key] = r
    return out


def main(src, dst):
    with open(src) as f:
        rows = list(csv.DictReader(f))
    top = best(rows)
    cases = list(dict.fromkeys(r["case"] for r in rows))
    fig, axes = plt.subplots(1, 2, figsize=(14, 5), sharey=False)
    for ax, prec in zip(axes, ["fp32", "tf32"]):
        width = 0.8 / max(len([i for i in IMPLS if (c, i, prec) in top]) for c in cases)
        for ci, case in enumerate(cases):
            impls = [i for i in IMPLS if (case, i, prec) in top]
            for ii, impl in enumerate(impls):
                v = float(top[(case, impl, prec)]["gflops"]) / 1000
                ax.bar(ci + (ii - (len(impls) - 1) / 2) * width, v, width, color=COLORS[impl],
                       label=impl if ci == 0 or impl not in ax.get_legend_handles_labels()[1] else None)
        ax.set_xticks(range(len(cases)))
        ax.set_xticklabels(cases, rotation=30, ha="right", fontsize=8)
        ax.set_ylabel("TFLOP/s (useful flops / median time)")
        ax.set_title(f"{prec.upper()}{' (input_precision=ieee)' if prec == 'fp32' else ''}, H200")
        handles, labels = ax.get_legend_handles_labels()
        uniq = dict(zip(labels, handles))
        ax.legend(uniq.values(), uniq.keys(), fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    vendors = "cuBLAS and cuTENSOR" if any(r["impl"].startswith("cutensor") for r in rows) else "cuBLAS"
    fig.suptitle(f"apps/ao2mo/bench: AO->MO and MP2 energy (unfused/fused), TCCG contractions, Triton via tritonpack vs {vendors}")
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
