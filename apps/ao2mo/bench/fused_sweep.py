#!/usr/bin/env python3
"""fused_sweep.py — the fused AO->MO transformation's design space on the GPU, from Python (Triton +
PyTorch, no tritonpack), for choosing tensor4_configs.toml's configs (apps/ao2mo/bench/bench.cpp then
times the chosen ones through tritonpack).

The fused transformation is two launches of kernels.py's `pair_transform` (two quarter steps each,
the intermediate on chip). Half 1 reads the integrals I[(mu nu), lam, sig] and writes J; half 2 reads
J and writes the MO integrals. J's layout is ours: with J[(mu nu) / T, (r s), (mu nu) % T] (blocks of
T batches, "T-blocked"), half 1 writes runs of BLOCK_S * T elements and half 2 reads runs of
BLOCK_B * T; with T = 0 below J is [r, s, (mu nu)] (runs of BLOCK_B on both sides). Half 2 writes
(pq|rs) row-major ("pqrs": runs of its BLOCK_B) or as [(r s), (p q)] ("rspq": runs of its BLOCK_S;
the same array for integrals with (mu nu|lam sig) = (lam sig|mu nu), as every real ERI tensor).

Every combination is checked against a float64 transformation (outputs poisoned first) and timed
with triton.testing.do_bench (median); cuBLAS's four cyclic quarter steps (torch.matmul, TF32
allowed) are the vendor path. Prints each half's configs, then the best pair per (T, layout):

    python3 apps/ao2mo/bench/fused_sweep.py [--sizes 96,128,160] [--prec tf32] [--csv FILE]
"""
import argparse
import csv
import os
import sys

import torch
import triton
import triton.testing

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # the app: kernels.py
import kernels  # noqa: E402

SPLIT = {64: (64, 0), 96: (64, 32), 128: (128, 0), 160: (128, 32)}
# (BLOCK_B, BLOCK_S, BLOCK_L, S_ROWS, warps, stages)
HALF1 = {2: [(2, 64, 16, 1, 8, 2), (2, 64, 32, 1, 4, 2), (2, 64, 16, 1, 4, 3)],
         4: [(4, 32, 16, 0, 4, 3), (4, 32, 32, 0, 8, 2), (4, 32, 16, 0, 8, 2)],
         8: [(8, 16, 16, 0, 8, 2), (8, 16, 16, 0, 4, 2)]}
HALF2 = [(2, 64, 16, 1, 8, 2), (2, 64, 32, 1, 4, 2), (4, 32, 16, 0, 4, 3), (4, 32, 32, 0, 8, 2), (8, 16, 16, 0, 8, 2)]


def launch(x, ct, y, n, cfg, in_t, out_t, sx, so, prec):
    bb, bs, bl, sr, w, st = cfg
    hi, lo = SPLIT[n]
    grid = (triton.cdiv(n * n, bb) * triton.cdiv(n, bs),)
    kernels.pair_transform[grid](x, ct, y, n, *sx, *so, R_HI=hi, R_LO=lo, K_HI=hi, K_LO=lo, BLOCK_B=bb, BLOCK_S=bs,
                                 BLOCK_L=bl, IN_T=in_t, OUT_T=out_t, S_ROWS=sr, PRECISION=prec, num_warps=w, num_stages=st)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="96,128,160")
    ap.add_argument("--prec", default="tf32")
    ap.add_argument("--csv")
    args = ap.parse_args()
    prec = args.prec
    torch.backends.cuda.matmul.allow_tf32 = prec == "tf32"
    rows = []
    for n in (int(s) for s in args.sizes.split(",")):
        g = torch.Generator(device="cuda").manual_seed(n)
        x = torch.rand((n * n, n, n), device="cuda", generator=g) * 2 - 1
        c = torch.rand((n, n), device="cuda", generator=g) * 2 - 1
        if prec == "tf32":  # exact in TF32, as the bench gives every path
            x = (x.view(torch.int32) + 0x1000 & -0x2000).view(torch.float32)
            c = (c.view(torch.int32) + 0x1000 & -0x2000).view(torch.float32)
        ct = c.t().contiguous()
        n2, n3 = n * n, n ** 3
        flops = 8.0 * n ** 5
        # float64 reference, (pq|rs) row-major: four cyclic quarter steps.
        cd = c.double().t().contiguous()
        ref = x.double().view(n3, n)
        for _ in range(4):
            ref = (cd @ ref.t()).contiguous().view(n3, n)
        ref = ref.view(n2, n2)
        scale = ref.abs().max().item()
        t1, t2 = torch.empty((n, n3), device="cuda"), torch.empty((n, n3), device="cuda")

        def cublas4():
            torch.matmul(ct, x.view(n3, n).t(), out=t1)
            torch.matmul(ct, t1.view(n3, n).t(), out=t2)
            torch.matmul(ct, t2.view(n3, n).t(), out=t1)
            torch.matmul(ct, t1.view(n3, n).t(), out=t2)
        ms_ref = triton.testing.do_bench(cublas4, warmup=5, rep=200)
        cublas4()
        err_ref = ((t2.view(n2, n2).double() - ref).abs().max() / scale).item()
        print(f"N={n} cuBLAS four cyclic steps: {ms_ref:.3f} ms ({flops / ms_ref / 1e9:.1f} TFLOP/s) err {err_ref:.1e}", flush=True)
        rows.append(dict(n=n, what="cublas_cyclic4", t=0, layout="pqrs", half1="-", half2="-", ms=ms_ref, err=err_ref))
        j = torch.empty(n ** 4, device="cuda")
        out = torch.empty(n ** 4, device="cuda")
        best = {}
        for t in (0, 2, 4, 8):
            # half 1: I -> J (T-blocked, or [r, s, b] for T = 0)
            best1 = None
            for cfg in (HALF1[2] + HALF1[4] + HALF1[8] if t == 0 else HALF1[t]):
                so = (n3, n2, 1, 1) if t == 0 else (n * t, t, 1, n2 * t)
                try:
                    run = lambda: launch(x, ct, j, n, cfg, 1, max(t, 1), (n2, n, 1), so, prec)  # noqa: B023,E731
                    run()
                    ms = triton.testing.do_bench(run, warmup=3, rep=100)
                except Exception as e:
                    print(f"N={n} T={t} half1 {cfg}: FAILED {type(e).__name__}: {str(e)[:150]}", flush=True)
                    continue
                print(f"N={n} T={t} half1 {cfg}: {ms:.3f} ms ({flops / 2 / ms / 1e9:.1f} TFLOP/s)", flush=True)
                rows.append(dict(n=n, what="half1", t=t, layout="-", half1=str(cfg), half2="-", ms=ms, err=""))
                if best1 is None or ms < best1[0]:
                    best1 = (ms, cfg)
            if best1 is None:
                continue
            so1 = (n3, n2, 1, 1) if t == 0 else (n * t, t, 1, n2 * t)
            launch(x, ct, j, n, best1[1], 1, max(t, 1), (n2, n, 1), so1, prec)
            sx = (n2, n, 1) if t == 0 else (t, n3, n2 * t)
            for cfg in HALF2:
                for layout in ("pqrs", "rspq"):
                    so = (n3, n2, 1, 1) if layout == "pqrs" else (n, 1, n2, n2)
                    try:
                        out.fill_(float("nan"))
                        run = lambda: launch(j, ct, out, n, cfg, max(t, 1), 1, sx, so, prec)  # noqa: B023,E731
                        run()
                        torch.cuda.synchronize()
                        got = out.view(n2, n2).double()
                        if layout == "rspq":
                            got = got.t()
                        err = ((got - ref).abs().max() / scale).item()
                        ms = triton.testing.do_bench(run, warmup=3, rep=100)
                    except Exception as e:
                        print(f"N={n} T={t} half2 {cfg} {layout}: FAILED {type(e).__name__}: {str(e)[:150]}", flush=True)
                        continue
                    total = best1[0] + ms
                    print(f"N={n} T={t} half2 {cfg} {layout}: {ms:.3f} ms; with half1 {best1[1]}: {total:.3f} ms "
                          f"({flops / total / 1e9:.1f} TFLOP/s) err {err:.1e} speed-up vs cuBLAS {ms_ref / total:.2f}x", flush=True)
                    rows.append(dict(n=n, what="pair", t=t, layout=layout, half1=str(best1[1]), half2=str(cfg), ms=total, err=err))
                    if (t, layout) not in best or total < best[(t, layout)][0]:
                        best[(t, layout)] = (total, best1[1], cfg, err)
        for (t, layout), (ms, c1, c2, err) in sorted(best.items()):
            print(f"BEST N={n} T={t} {layout}: {ms:.3f} ms = {ms_ref / ms:.2f}x cuBLAS ({c1} + {c2}), err {err:.1e}", flush=True)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
