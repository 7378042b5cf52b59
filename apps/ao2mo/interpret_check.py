#!/usr/bin/env python3
"""interpret_check.py — the AO->MO kernels (kernels.py) in Triton's interpreter, on the CPU:

* `contract` as each of the four quarter steps of AO->MO and as the three TCCG contractions of
  apps/ao2mo/bench (ijkl-imjn-lnkm, abcd-ea-ebcd, mhkn,ukvh->munv) at small, non-multiple-of-tile
  extents, with the strides main.cpp and apps/ao2mo/bench pass;
* `permute4` (transposes and copies of runs, partial tiles, the ALIGN = 8 variant) and the Triton
  TTGT chain of apps/ao2mo/bench (permute4, the K-major `gemm`, permute4) for the three TCCG cases;
* `half_transform` twice (transposed writes) as the fused transformation, with both accumulators
  (R_LO > 0) and with one; `pair_transform` twice with triton_ao2mo.hpp's strides (the MO integrals
  row-major and pair-transposed) and with J in batch blocks (fused_sweep.py's), both first-product
  orientations;
* the MP2 energy: the four occupied/virtual quarter steps as `gemm` (mp2.hpp's mp2_step), then
  `mp2_energy` (unfused) and `mp2_fused` (last step + energy, two V_PAD), each + `sum_partials`;
* `ladder_update` (apps/ao2mo/bench's fusion case: X = W . T, divided by the denominators, added to
  the amplitudes, the squared update norm per program) at partial tiles and with NaN-poisoned
  outputs, + `sum_partials` for the norm;

each against numpy's einsum in FP64 on random data. Exit 0: all agree; 1: a mismatch; 77: numpy
1.x missing (Triton 3.6's interpreter needs it; ctest reports the test as skipped).
"""

import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [here, os.path.dirname(here)]
# Before triton (kernels imports it): turns the interpreter on; exits 77 (skipped) without numpy 1.x.
from interpreter_host import HostArray, np  # noqa: E402

import kernels  # noqa: E402


def strides(a):
    return [s // a.itemsize for s in a.strides]


failures = 0


def check(name, got, want, tol):
    global failures
    err = np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1e-300)
    ok = err <= tol
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {name}: max error / max |value| = {err:.2e} (limit {tol:.0e})")


def run_contract(a, b, out, m, n, k, sa, sb, so, block=(16, 16, 16), precision="ieee"):
    """m, n, k: (outer, inner) extents; sa = (m1, m2, k1, k2), sb = (k1, k2, n1, n2), so = (m1, m2, n1, n2)."""
    bm, bn, bk = block
    grid = (-(-m[0] * m[1] // bm) * -(-n[0] * n[1] // bn),)
    kernels.contract[grid](HostArray(a), HostArray(b), HostArray(out), m[0], m[1], n[0], n[1], k[0], k[1],
                           *sa, *sb, *so, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=2, PRECISION=precision)


def run_gemm(a, b, out, batches, m, n, k, sa, sb, so, block=(32, 32, 16), precision="ieee"):
    """out[bt, m, n] = sum_k a[bt, m, k] b[bt, k, n]; sa = (b, m, k), sb = (b, k, n), so = (b, m, n) strides."""
    bm, bn, bk = block
    grid = (-(-m // bm) * -(-n // bn), batches)
    kernels.gemm[grid](HostArray(a), HostArray(b), HostArray(out), m, n, k, batches, *sa, *sb, *so,
                       BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=2, PRECISION=precision)


def run_pair(x, c_t, y, n, sx, so, in_t, out_t, block, hi, lo):
    """One pair_transform launch over all n^2 batches; block = (BLOCK_B, BLOCK_S, BLOCK_L, S_ROWS)."""
    bb, bs, bl, s_rows = block
    grid = (-(-n * n // bb) * -(-n // bs),)
    kernels.pair_transform[grid](HostArray(x), HostArray(c_t), HostArray(y), n, *sx, *so, R_HI=hi, R_LO=lo, K_HI=hi,
                                 K_LO=lo, BLOCK_B=bb, BLOCK_S=bs, BLOCK_L=bl, IN_T=in_t, OUT_T=out_t, S_ROWS=s_rows,
                                 PRECISION="ieee")


def quarter_steps(rng, n, dtype):
    ao = rng.standard_normal((n, n, n, n)).astype(dtype)
    c = rng.standard_normal((n, n)).astype(dtype)
    c_t = np.ascontiguousarray(c.T)
    want = np.einsum("ijkl,ip,jq,kr,ls->pqrs", ao.astype(np.float64), *[c.astype(np.float64)] * 4, optimize=True)
    n2, n3 = n * n, n * n * n
    tol = 1e-5 if dtype == np.float32 else 1e-12
    t1, t2, t3, t4 = (np.full((n, n, n, n), np.nan, dtype) for _ in range(4))
    # The four quarter steps as `contract` descriptors (ao2mo.hpp's quarter_step) ...
    block = (32, 128, 32)
    run_contract(ao, c, t1, (1, n3), (1, n), (1, n), (0, n, 0, 1), (0, n, 0, 1), (0, n, 0, 1), block)
    run_contract(c, t1, t2, (1, n), (n2, n), (1, n), (0, 1, 0, n), (0, n, n2, 1), (0, n, n2, 1), block)
    run_contract(c, t2, t3, (1, n), (n, n2), (1, n), (0, 1, 0, n), (0, n2, n3, 1), (0, n2, n3, 1), block)
    run_contract(c, t3, t4, (1, n), (1, n3), (1, n), (0, 1, 0, n), (0, n3, 0, 1), (0, n3, 0, 1), block)
    check(f"contract: four quarter steps, N={n}, {np.dtype(dtype).name}", t4, want, tol)

    # ... and as batched GEMMs (contraction.hpp's as_batched_gemm of the same descriptors).
    t1, t2, t3, t4 = (np.full((n, n, n, n), np.nan, dtype) for _ in range(4))
    run_gemm(ao, c, t1, 1, n3, n, n, (0, n, 1), (0, n, 1), (0, n, 1))
    run_gemm(c, t1, t2, n2, n, n, n, (0, 1, n), (n2, n, 1), (n2, n, 1))
    run_gemm(c, t2, t3, n, n, n2, n, (0, 1, n), (n3, n2, 1), (n3, n2, 1))
    run_gemm(c, t3, t4, 1, n, n3, n, (0, 1, n), (0, n3, 1), (0, n3, 1))
    check(f"gemm: four quarter steps, N={n}, {np.dtype(dtype).name}", t4, want, tol)
    # Steps 2-4 reading C^T (triton_ao2mo.hpp's reading_coef_t: a contiguous along k).
    t2, t3, t4 = (np.full((n, n, n, n), np.nan, dtype) for _ in range(3))
    run_gemm(c_t, t1, t2, n2, n, n, n, (0, n, 1), (n2, n, 1), (n2, n, 1))
    run_gemm(c_t, t2, t3, n, n, n2, n, (0, n, 1), (n3, n2, 1), (n3, n2, 1))
    run_gemm(c_t, t3, t4, 1, n, n3, n, (0, n, 1), (0, n3, 1), (0, n3, 1))
    check(f"gemm: quarter steps 2-4 reading C^T, N={n}, {np.dtype(dtype).name}", t4, want, tol)

    # The cyclic layout (ao2mo.hpp's cyclic_quarter_step): one GEMM shape four times, both operands
    # along k, I -> T1[s, mu nu lam] -> T2[r, s mu nu] -> T3[q, r s mu] -> (pq|rs) row-major.
    x = ao
    for _ in range(4):
        y = np.full((n, n, n, n), np.nan, dtype)
        run_gemm(c_t, x, y, 1, n, n3, n, (0, n, 1), (0, 1, n), (0, n3, 1))
        x = y
    check(f"gemm: four cyclic quarter steps (both operands along k), N={n}, {np.dtype(dtype).name}", x, want, tol)
    # ... and with the MO index as the GEMM's columns (cyclic_quarter_step_transposed: a = the tensor,
    # b = C^T, out written along m).
    x = ao
    for _ in range(4):
        y = np.full((n, n, n, n), np.nan, dtype)
        run_gemm(x, c_t, y, 1, n3, n, n, (0, n, 1), (0, 1, n), (0, 1, n3))
        x = y
    check(f"gemm: four cyclic quarter steps, MO index as columns, N={n}, {np.dtype(dtype).name}", x, want, tol)

    # The fused transformation: both accumulators where N > 16, one (R_LO = 0) where N <= 16;
    # batch blocks that do not divide N^2 where N = 18 (324 = 40 * 8 + 4).
    for r_hi, r_lo in (((16, 16),) if n > 16 else ((16, 0),)):
        for block_b, block_s in ((8, 16), (4, 32)):
            j, mo = np.full((n, n, n, n), np.nan, dtype), np.full((n, n, n, n), np.nan, dtype)
            for x, y in ((ao, j), (j, mo)):
                # x read as [b, lam, sig], y written as y[r, s, b]: b fastest (transposed); C read as C^T.
                grid = (-(-n2 // block_b), -(-n // block_s))
                kernels.half_transform[grid](HostArray(x), HostArray(c_t), HostArray(y), n, n2, n3, n2,
                                             R_HI=r_hi, R_LO=r_lo, BLOCK_B=block_b, BLOCK_S=block_s, BLOCK_L=16,
                                             BLOCK_K=16, PRECISION="ieee")
            check(f"half_transform twice (R_HI={r_hi}, R_LO={r_lo}, BLOCK_B={block_b}, BLOCK_S={block_s}), N={n}, "
                  f"{np.dtype(dtype).name}", mo, want, tol)

    # The second fused design, pair_transform twice: with triton_ao2mo.hpp's transform_fused_pair
    # strides (J[r, s, (mu nu)], block 0; (pq|rs) row-major or pair-transposed, mo[(r s), (p q)]) and
    # with J in batch blocks of 2 (IN_T / OUT_T, fused_sweep.py's strides); the first launch's first
    # product as x . C (permuted on chip), the second's as C^T x^T (S_ROWS: reshaped only); both
    # accumulators and both K parts where N > 16.
    hi, lo = (16, 16) if n > 16 else (16, 0)
    for block, layout in ((0, "pq_rs"), (0, "rs_pq"), (2, "pq_rs")):
        j, mo = np.full(n ** 4, np.nan, dtype), np.full(n ** 4, np.nan, dtype)
        t = block
        so1 = (n3, n2, 1, 1) if t == 0 else (n * t, t, 1, n2 * t)
        run_pair(ao, c_t, j, n, (n2, n, 1), so1, 1, max(t, 1), (8, 16, 16, 0), hi, lo)
        sx2 = (n2, n, 1) if t == 0 else (t, n3, n2 * t)
        so2 = (n3, n2, 1, 1) if layout == "pq_rs" else (n, 1, n2, n2)
        run_pair(j, c_t, mo, n, sx2, so2, max(t, 1), 1, (2, 32, 16, 1), hi, lo)
        got = mo.reshape(n2, n2)
        if layout == "rs_pq":
            got = got.T
        check(f"pair_transform twice (J block {block}, MO {layout}, R_HI={hi}, R_LO={lo}), N={n}, {np.dtype(dtype).name}",
              got.reshape(n, n, n, n), want, tol)


def tccg(rng):
    f = np.float32

    def rand(*shape):
        return rng.standard_normal(shape).astype(f)

    # ijkl-imjn-lnkm: C[i,j,k,l] = A[i,m,j,n] B[l,n,k,m]; rows (i,j), cols (k,l), contracted (m,n).
    i, j, k, l, m, n = 5, 7, 6, 9, 4, 11
    A, B = rand(i, m, j, n), rand(l, n, k, m)
    C = np.full((i, j, k, l), np.nan, f)
    sA, sB, sC = strides(A), strides(B), strides(C)
    run_contract(A, B, C, (i, j), (k, l), (m, n), (sA[0], sA[2], sA[1], sA[3]), (sB[3], sB[1], sB[2], sB[0]),
                 (sC[0], sC[1], sC[2], sC[3]))
    check("contract: ijkl-imjn-lnkm", C, np.einsum("imjn,lnkm->ijkl", A.astype(float), B.astype(float)), 1e-5)

    # abcd-ea-ebcd: C[a,(b,cd)] = A[e,a] B[e,b,c,d]; one contracted index (K1 = 1).
    a, b, c, d, e = 13, 6, 5, 7, 19
    A, B = rand(e, a), rand(e, b, c, d)
    C = np.full((a, b, c, d), np.nan, f)
    run_contract(A, B, C, (1, a), (b, c * d), (1, e), (0, 1, 0, a), (0, b * c * d, c * d, 1), (0, b * c * d, c * d, 1))
    check("contract: abcd-ea-ebcd", C, np.einsum("ea,ebcd->abcd", A.astype(float), B.astype(float)), 1e-5)

    # mhkn,ukvh->munv: C[m,u,n,v] = A[m,h,k,n] B[u,k,v,h]; rows (m,n), cols (u,v), contracted (h,k).
    m, h, k, n, u, v = 6, 5, 7, 9, 10, 3
    A, B = rand(m, h, k, n), rand(u, k, v, h)
    C = np.full((m, u, n, v), np.nan, f)
    sA, sB, sC = strides(A), strides(B), strides(C)
    run_contract(A, B, C, (m, n), (u, v), (h, k), (sA[0], sA[3], sA[1], sA[2]), (sB[3], sB[1], sB[0], sB[2]),
                 (sC[0], sC[2], sC[1], sC[3]), precision="tf32")
    check("contract: mhkn,ukvh->munv (tf32 in the interpreter is exact)", C,
          np.einsum("mhkn,ukvh->munv", A.astype(float), B.astype(float)), 1e-5)


def run_permute(x, out_shape, in_strides, align=1, block=(8, 8)):
    """out (row-major, out_shape)[i0..i3] = x.flat[sum i_d in_strides[d]], as apps/ao2mo/bench's
    permute_plan.hpp calls `permute4`: rows r = the outer output dimension along which x is fastest,
    columns c = the last; with align > 1 every extent and stride but the unit one divided by it."""
    out = np.full(out_shape, np.nan, x.dtype)
    so = strides(out)
    r = max((d for d in range(3) if out_shape[d] > 1), key=lambda d: (-in_strides[d], d), default=2)
    p, q = [d for d in range(3) if d != r]
    unit_r = int(in_strides[r] == 1)
    args = [out_shape[r], out_shape[3], in_strides[p], in_strides[q], in_strides[r], in_strides[3], so[p], so[q], so[r]]
    if align > 1:
        args = [1 if (i == 4 and unit_r) or (i == 5 and not unit_r) else v // align for i, v in enumerate(args)]
    tiles = -(-out_shape[r] // block[0]) * -(-out_shape[3] // block[1])
    kernels.permute4[(out_shape[p] * out_shape[q] * tiles,)](HostArray(x), HostArray(out), out_shape[p], out_shape[q], *args,
                                                            BLOCK_R=block[0], BLOCK_C=block[1], ALIGN=align, UNIT_R=unit_r)
    return out


def permutes(rng):
    """`permute4` on its own: a transpose (x fastest along an outer output dimension), a copy of
    runs (x fastest along the last), partial tiles, and the ALIGN = 8 variant on multiples of 8."""
    x = rng.standard_normal((5, 7, 9, 11)).astype(np.float32)
    for perm in ((0, 2, 1, 3), (3, 1, 0, 2), (2, 3, 0, 1), (1, 0, 3, 2)):
        got = run_permute(x, [x.shape[d] for d in perm], [strides(x)[d] for d in perm])
        check(f"permute4 {perm}, extents 5x7x9x11, 8x8 tiles", got, x.transpose(perm), 0)
    x = rng.standard_normal((8, 16, 8, 24)).astype(np.float32)
    for perm in ((0, 2, 1, 3), (3, 1, 0, 2)):
        got = run_permute(x, [x.shape[d] for d in perm], [strides(x)[d] for d in perm], align=8, block=(16, 16))
        check(f"permute4 ALIGN=8 {perm}, extents 8x16x8x24, 16x16 tiles", got, x.transpose(perm), 0)


def ttgt(rng):
    """The Triton TTGT chain of apps/ao2mo/bench (permute_plan.hpp's k_major_plan) for the three TCCG
    cases at small extents: A -> A'[m1, m2, k1, k2], B -> B'[n1, n2, k1, k2] (both K-major), the
    K-major `gemm` C'[m, n] = sum_k A'[m, k] B'[n, k], then C' -> C where C is not C' already."""
    f = np.float32

    def chain(name, A, B, C_shape, a_order, b_order, c_order, expr):
        # a_order: A's dimensions holding (m1, m2, k1, k2); b_order: B's holding (k1, k2, n1, n2);
        # c_order: C's holding (m1, m2, n1, n2).
        sA, sB = strides(A), strides(B)
        a2 = run_permute(A, [A.shape[d] for d in a_order], [sA[d] for d in a_order])
        b_kn = [b_order[2], b_order[3], b_order[0], b_order[1]]  # B' is [n1, n2, k1, k2]
        b2 = run_permute(B, [B.shape[d] for d in b_kn], [sB[d] for d in b_kn])
        M, K = a2.shape[0] * a2.shape[1], a2.shape[2] * a2.shape[3]
        N = b2.shape[0] * b2.shape[1]
        c2 = np.full((M, N), np.nan, f)
        run_gemm(a2, b2, c2, 1, M, N, K, (0, K, 1), (0, 1, K), (0, N, 1), precision="tf32")
        cp = c2.reshape(a2.shape[:2] + b2.shape[:2])
        inv = [c_order.index(d) for d in range(4)]  # C's dimension d is C''s inv[d]
        C = cp if list(c_order) == [0, 1, 2, 3] else run_permute(cp, list(C_shape), [strides(cp)[i] for i in inv])
        # TF32 gemm rounds its result to TF32 (the interpreter's product itself is exact): 2^-11 relative.
        check(f"TTGT (permute4, K-major gemm, permute4): {name}", C, np.einsum(expr, A.astype(float), B.astype(float)), 2.0**-11)

    i, j, k, l, m, n = 5, 7, 6, 9, 4, 11
    chain("ijkl-imjn-lnkm", rng.standard_normal((i, m, j, n)).astype(f), rng.standard_normal((l, n, k, m)).astype(f),
          (i, j, k, l), (0, 2, 1, 3), (3, 1, 2, 0), (0, 1, 2, 3), "imjn,lnkm->ijkl")
    a, b, c, d, e = 13, 6, 5, 7, 19
    chain("abcd-ea-ebcd", rng.standard_normal((1, 1, e, a)).astype(f), rng.standard_normal((e, b, c, d)).astype(f).reshape(1, e, b, c * d),
          (1, a, b, c * d), (0, 3, 1, 2), (0, 1, 2, 3), (0, 1, 2, 3), "xyea,xebn->xabn")
    m, h, k, n, u, v = 6, 5, 7, 9, 10, 3
    chain("mhkn,ukvh->munv", rng.standard_normal((m, h, k, n)).astype(f), rng.standard_normal((u, k, v, h)).astype(f),
          (m, u, n, v), (0, 3, 1, 2), (3, 1, 0, 2), (0, 2, 1, 3), "mhkn,ukvh->munv")


def mp2(rng, n, o):
    """The MP2 energy: the four occupied/virtual quarter steps (triton_ao2mo.hpp's mp2_steps) as
    `gemm`, then `mp2_energy` (unfused) and `mp2_fused` (step 4 + energy), each + `sum_partials`."""
    f = np.float32
    v = n - o
    ao = rng.standard_normal((n, n, n, n)).astype(f)
    c = rng.standard_normal((n, n)).astype(f) / np.sqrt(n)
    c_occ, c_vir = np.ascontiguousarray(c[:, :o]), np.ascontiguousarray(c[:, o:])
    c_occ_t, c_vir_t = np.ascontiguousarray(c_occ.T), np.ascontiguousarray(c_vir.T)
    e_occ = np.sort(rng.uniform(-2.0, -0.3, o)).astype(f)
    e_vir = np.sort(rng.uniform(0.2, 3.0, v)).astype(f)
    d = np.float64
    ovov = np.einsum("mnls,mi,na,lj,sb->iajb", ao.astype(d), c_occ.astype(d), c_vir.astype(d), c_occ.astype(d),
                     c_vir.astype(d), optimize=True)
    denom = e_occ.astype(d)[:, None, None, None] + e_occ.astype(d)[None, None, :, None] - e_vir.astype(d)[None, :, None, None] \
        - e_vir.astype(d)[None, None, None, :]
    want = np.sum(ovov * (2 * ovov - ovov.transpose(0, 3, 2, 1)) / denom)
    n2, n3 = n * n, n * n * n
    x1, x2 = np.full((o, n, n, n), np.nan, f), np.full((o, v, n, n), np.nan, f)
    x3, k = np.full((o, v, o, n), np.nan, f), np.full((o, v, o, v), np.nan, f)
    run_gemm(c_occ_t, ao, x1, 1, o, n3, n, (0, n, 1), (0, n3, 1), (0, n3, 1))
    run_gemm(c_vir_t, x1, x2, o, v, n2, n, (0, n, 1), (n3, n2, 1), (v * n2, n2, 1))
    run_gemm(c_occ_t, x2, x3, o * v, o, n, n, (0, n, 1), (n2, n, 1), (o * n, n, 1))
    run_gemm(x3, c_vir, k, 1, o * v * o, v, n, (0, n, 1), (0, v, 1), (0, v, 1))
    check(f"gemm: (ia|jb) in four occupied/virtual steps, N={n}, o={o}", k, ovov, 1e-5)

    def energy(launch):
        partials, out = np.full(o * o, np.nan), np.full(1, np.nan)
        launch(HostArray(partials))
        kernels.sum_partials[(1,)](HostArray(partials), HostArray(out), o * o, BLOCK=16)
        return out[0]

    got = energy(lambda p: kernels.mp2_energy[(o * o,)](HostArray(k), HostArray(e_occ), HostArray(e_vir), p, o, v, BLOCK=8))
    check(f"mp2_energy + sum_partials (E2 = {want:.6e}), N={n}, o={o}", np.array([got]), np.array([want]), 1e-5)
    for v_pad in (16, 32):
        got = energy(lambda p: kernels.mp2_fused[(o * o,)](HostArray(x3), HostArray(c_vir), HostArray(e_occ), HostArray(e_vir), p,
                                                           n, o, v, V_PAD=v_pad, BLOCK_K=8, PRECISION="ieee"))
        check(f"mp2_fused (V_PAD={v_pad}) + sum_partials, N={n}, o={o}", np.array([got]), np.array([want]), 1e-5)



def tf32_rounding(rng):
    """TF32 `gemm` writes its result rounded to the nearest TF32 value (kernels.py's _round_tf32; the
    interpreter's TF32 dot is exact FP32, so the output is exactly the rounded FP32 product), and a
    NaN (a poisoned input) stays NaN."""
    global failures
    def round_tf32(x):
        bits = x.astype(np.float32).view(np.uint32)
        r = ((bits.astype(np.uint64) + 0x1000) & 0xFFFFE000).astype(np.uint32).view(np.float32)
        return np.where(np.isnan(x), x, r)
    m, n, k = 24, 40, 16
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    a[3, 5] = np.nan
    ieee, tf32 = (np.full((m, n), 7.0, np.float32) for _ in range(2))
    run_gemm(a, b, ieee, 1, m, n, k, (0, k, 1), (0, n, 1), (0, n, 1))
    run_gemm(a, b, tf32, 1, m, n, k, (0, k, 1), (0, n, 1), (0, n, 1), precision="tf32")
    want = round_tf32(ieee)
    same = np.array_equal(tf32, want, equal_nan=True)
    low_bits_clear = not np.any(tf32[~np.isnan(tf32)].view(np.uint32) & 0x1FFF)
    nan_kept = bool(np.all(np.isnan(tf32[3])) and not np.any(np.isnan(np.delete(tf32, 3, axis=0))))
    ok = same and low_bits_clear and nan_kept
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} gemm tf32: output = FP32 result rounded to nearest TF32 ({same}), low 13 bits clear "
          f"({low_bits_clear}), the NaN row stays NaN ({nan_kept})")


def ladder(rng, o, v, block):
    """ladder_update against numpy in FP64: t_new = t_old + (W . T) / (d_row[ij] + d_col[ab]) and the
    squared norm of the update, with (ij), (kl) the o^2 occupied pairs and (ab) the v^2 virtual ones."""
    m, k, n = o * o, o * o, v * v
    e_occ = np.sort(rng.uniform(-2.0, -0.3, o)).astype(np.float32)
    e_vir = np.sort(rng.uniform(0.2, 3.0, v)).astype(np.float32)
    d_row = (e_occ[:, None] + e_occ[None, :]).reshape(-1).astype(np.float32)
    d_col = -(e_vir[:, None] + e_vir[None, :]).reshape(-1).astype(np.float32)
    w = rng.standard_normal((m, k)).astype(np.float32)
    t = rng.standard_normal((k, n)).astype(np.float32)
    t_old = rng.standard_normal((m, n)).astype(np.float32)
    update = (w.astype(np.float64) @ t.astype(np.float64)) / (d_row[:, None].astype(np.float64) + d_col[None, :])
    want, want_norm = t_old + update, np.sum(update * update)
    bm, bn, bk = block
    programs = -(-m // bm) * -(-n // bn)
    t_new = np.full((m, n), np.nan, np.float32)
    partials = np.full(programs, np.nan, np.float64)
    kernels.ladder_update[(programs,)](HostArray(w), HostArray(t), HostArray(t_old), HostArray(t_new), HostArray(d_row), HostArray(d_col),
                                       HostArray(partials), m, n, k, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, PRECISION="ieee")
    norm = np.full(1, np.nan, np.float64)
    kernels.sum_partials[(1,)](HostArray(partials), HostArray(norm), programs, BLOCK=8)
    check(f"ladder_update o={o} v={v} tiles {block}: t_new", t_new, want, 1e-5)
    check(f"ladder_update o={o} v={v} tiles {block}: update norm + sum_partials", norm, np.array([want_norm]), 1e-5)


rng = np.random.default_rng(13)
quarter_steps(rng, 18, np.float32)  # N > 16: partial tiles everywhere, both fused accumulators
quarter_steps(rng, 10, np.float64)
tccg(rng)
permutes(rng)
ttgt(rng)
tf32_rounding(rng)
mp2(rng, 19, 5)  # v = 14: partial tiles in every kernel; BLOCK = 8 makes mp2_energy loop over 2 x 2 tiles
ladder(rng, 5, 7, (16, 32, 16))  # M = K = 25, N = 49: partial row, column and contracted tiles, two K steps
ladder(rng, 4, 8, (16, 64, 16))  # whole tiles
print("interpret_check:", "all agree" if not failures else f"{failures} mismatch(es)")
sys.exit(1 if failures else 0)
