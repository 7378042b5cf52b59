#!/usr/bin/env python3
"""cutensor_table.py — tensor4_bench's CSV as the Markdown tables of issue 31 (RESULTS.md, "cuTENSOR
and fusion"). Per (case, precision): the best cuTENSOR row (its plan: heuristic, autotuneN, ...)
and its heuristic one, the best cuBLAS path, the best Triton unfused path and the best Triton fused
path (median ms), Triton's best time over cuTENSOR's (the goal: <= 1.1, "within +-10 % or faster"),
the fused path's speed-up over the best vendor path (cuTENSOR or cuBLAS), and the errors. Rows
measured "timing only" (a TTGT's GEMM alone) are left out.

--fusion: the fusion case (bench_fusion.hpp): each path's median ms, the bytes it must move (MB,
analytic), the fused kernel's speed-up over the best vendor path (the goal: >= 1.3x) and its
effective bandwidth.

    python3 cutensor_table.py tables.csv          (or steps.csv)
    python3 cutensor_table.py --fusion fusion.csv
"""
import csv
import sys


def family(impl):
    if impl.endswith("+epilogue"):
        return "vendor+epilogue"
    if impl.startswith("cutensor"):
        return "cutensor"
    if impl.startswith("cublas"):
        return "cublas"
    if impl.startswith("triton") and "fused" in impl and "unfused" not in impl:
        return "fused"
    if impl.startswith("triton"):
        return "triton"
    return None


def load(src):
    with open(src) as f:
        return [r for r in csv.DictReader(f) if r["reference"] != "timing only"]


ms = lambda r: float(r["ms_median"])
best = lambda rs: min(rs, key=ms, default=None)


def fusion_cases(rows):
    return {r["case"] for r in rows if family(r["impl"]) == "vendor+epilogue"}


def contraction_tables(rows):
    rows = [r for r in rows if r["case"] not in fusion_cases(rows)]
    print("| case | prec | cuTENSOR best ms (plan) | cuTENSOR heuristic ms | best cuBLAS ms (path) | best Triton unfused ms (path) | "
          "Triton fused ms | best Triton / cuTENSOR time | fused speed-up vs best vendor | max rel err (cuTENSOR, Triton) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for case in dict.fromkeys(r["case"] for r in rows):
        for prec in ("fp32", "tf32", "fp64"):
            mine = [r for r in rows if r["case"] == case and r["precision"] == prec]
            fam = {f: [r for r in mine if family(r["impl"]) == f] for f in ("cutensor", "cublas", "triton", "fused")}
            ct, cb, tr, fu = (best(fam[f]) for f in ("cutensor", "cublas", "triton", "fused"))
            if not (ct or cb or tr or fu):
                continue
            heur = best([r for r in fam["cutensor"] if r["config"] == "heuristic"])
            cell = lambda r, what="impl": f"{ms(r):.3f} ({r[what]})" if r else "—"
            top = best([r for r in (tr, fu) if r])
            ratio = f"{ms(top) / ms(ct):.2f}" if top and ct else "—"
            if top and ct:
                ratio += " ok" if ms(top) / ms(ct) <= 1.1 else " (slower)"
            vendor = best([r for r in (ct, cb) if r])
            speedup = f"{ms(vendor) / ms(fu):.2f}x" if vendor and fu else "—"
            err = ", ".join(f"{float(r['max_rel_err']):.1e}" if r else "—" for r in (ct, top))
            print(f"| {case} | {prec} | {cell(ct, 'config')} | {f'{ms(heur):.3f}' if heur else '—'} | {cell(cb)} | {cell(tr)} | "
                  f"{f'{ms(fu):.3f}' if fu else '—'} | {ratio} | {speedup} | {err} |")


def fusion_table(rows):
    rows = [r for r in rows if r["case"] in fusion_cases(rows)]
    print("| case | prec | cuTENSOR + epilogue ms | cuBLAS + epilogue ms | Triton gemm + epilogue ms | Triton fused ms (config) | "
          "MB moved: unfused / fused | fused speed-up vs best vendor (goal >= 1.3x) | fused GB/s | max rel err (best vendor, fused) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for case in dict.fromkeys(r["case"] for r in rows):
        for prec in ("fp32", "tf32"):
            mine = [r for r in rows if r["case"] == case and r["precision"] == prec]
            if not mine:
                continue
            get = lambda impl: best([r for r in mine if r["impl"] == impl])
            ct, cb, tu, fu = get("cutensor+epilogue"), get("cublas+epilogue"), get("triton_unfused"), get("triton_fused")
            vendor = best([r for r in (ct, cb) if r])
            speed = f"{ms(vendor) / ms(fu):.2f}x" + (" ok" if ms(vendor) / ms(fu) >= 1.3 else " (below goal)") if vendor and fu else "—"
            mb = " / ".join(f"{float(r['model_bytes']) / 1e6:.0f}" for r in (vendor, fu) if r)
            f = lambda r: f"{ms(r):.3f}" if r else "—"
            err = ", ".join(f"{float(r['max_rel_err']):.1e}" if r else "—" for r in (vendor, fu))
            ct_cell = f"{f(ct)} ({ct['config']})" if ct else "—"
            fu_cell = f"{f(fu)} ({fu['config']})" if fu else "—"
            gbs = f"{float(fu['gbs']):.0f}" if fu else "—"
            print(f"| {case} | {prec} | {ct_cell} | {f(cb)} | {f(tu)} | {fu_cell} | {mb} | {speed} | {gbs} | {err} |")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--fusion"] and len(args) == 2:
        fusion_table(load(args[1]))
    elif len(args) == 1:
        contraction_tables(load(args[0]))
    else:
        sys.exit(__doc__)
