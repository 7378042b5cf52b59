"""Triton kernels of the AO->MO integral transformation (examples/ao2mo) and of bench/tensor4.

(pq|rs) = sum_{mu nu lam sig} C[mu,p] C[nu,q] C[lam,r] C[sig,s] (mu nu|lam sig), with the AO
integrals stored row-major as I[mu, nu, lam, sig] and the MO coefficients as C[mu, p] (AO rows,
MO columns), both for N basis functions.

Two kernels:

* `contract`: a general contraction of two tensors over two indices with two free indices on each
  side, by strides alone (no permutes): out[(m1,m2),(n1,n2)] = sum_{(k1,k2)} A[(m1,m2),(k1,k2)] *
  B[(k1,k2),(n1,n2)]. Each pair is one flattened GEMM dimension (m = m1*M2 + m2, ...); every index
  has its own stride in each tensor, so a permuted operand costs no copy. One quarter step of the
  AO->MO transformation is such a contraction (the batch folded into a free index), and so are the
  TCCG cases of bench/tensor4 (ijkl-imjn-lnkm, abcd-ea-ebcd, mhkn,ukvh->munv).

* `half_transform`: two quarter steps in one kernel, the N x N intermediate kept on chip (a
  back-to-back GEMM): out[b, r, s] = sum_lam C[lam, r] * (sum_sig x[b, lam, sig] * C[sig, s]). One
  program holds every r of its (b, s-tile) in registers, so the first product is computed once.
  With `out` written transposed (b fastest), two launches make the whole transformation: the first
  turns (mu nu|lam sig) into J[r s, mu nu], the second J into (pq|rs), and no quarter-transformed
  tensor ever reaches memory.

Dot precision is a constexpr, PRECISION: "ieee" (true FP32 or FP64 products) or "tf32" (tensor
cores, 10-bit mantissa inputs); kernels.toml compiles each kernel once per precision.
"""

import triton
import triton.language as tl


@triton.jit
def _pair_offsets(idx, inner, stride_outer, stride_inner):
    # Offset of the flattened index idx = outer*inner + inner_idx in a tensor with these strides.
    return (idx // inner) * stride_outer + (idx % inner) * stride_inner


@triton.jit
def contract(a, b, out,
             M1, M2, N1, N2, K1, K2,
             sa_m1, sa_m2, sa_k1, sa_k2,
             sb_k1, sb_k2, sb_n1, sb_n2,
             so_m1, so_m2, so_n1, so_n2,
             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
             GROUP_M: tl.constexpr, PRECISION: tl.constexpr):
    M = M1 * M2
    N = N1 * N2
    K = K1 * K2
    # Grouped launch order: GROUP_M row tiles share the column tiles they read, for L2 reuse.
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    in_group = GROUP_M * tiles_n
    first_m = (pid // in_group) * GROUP_M
    group_rows = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % in_group) % group_rows
    pid_n = (pid % in_group) // group_rows

    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    row_ok = rows < M
    col_ok = cols < N
    a_rows = _pair_offsets(rows, M2, sa_m1, sa_m2)
    b_cols = _pair_offsets(cols, N2, sb_n1, sb_n2)

    # Accumulate in the inputs' type: FP32 (ieee or tf32 products) or FP64.
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=a.dtype.element_ty)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        k_ok = ks < K
        a_tile = tl.load(a + a_rows[:, None] + _pair_offsets(ks, K2, sa_k1, sa_k2)[None, :],
                         mask=row_ok[:, None] & k_ok[None, :], other=0.0)
        b_tile = tl.load(b + _pair_offsets(ks, K2, sb_k1, sb_k2)[:, None] + b_cols[None, :],
                         mask=k_ok[:, None] & col_ok[None, :], other=0.0)
        acc = tl.dot(a_tile, b_tile, acc, input_precision=PRECISION, out_dtype=acc.dtype)
    o = out + _pair_offsets(rows, M2, so_m1, so_m2)[:, None] + _pair_offsets(cols, N2, so_n1, so_n2)[None, :]
    tl.store(o, acc.to(out.dtype.element_ty), mask=row_ok[:, None] & col_ok[None, :])


@triton.jit
def _half_rows(coef, xc, rows, n, row_ok, lam, lam_ok, acc, PRECISION: tl.constexpr):
    # acc[r, s] += sum_lam C[lam, r] * xc[lam, s] for the rows r of this accumulator.
    ct = tl.load(coef + lam[None, :] * n + rows[:, None], mask=row_ok[:, None] & lam_ok[None, :], other=0.0)
    return tl.dot(ct, xc, acc, input_precision=PRECISION, out_dtype=acc.dtype)


@triton.jit
def half_transform(x, coef, out, n,
                   sx_b, sx_l, sx_s, so_b, so_r, so_s,
                   R_HI: tl.constexpr, R_LO: tl.constexpr,
                   BLOCK_S: tl.constexpr, BLOCK_L: tl.constexpr, BLOCK_K: tl.constexpr,
                   PRECISION: tl.constexpr):
    # One program: batch b (an index pair of the other half), columns s of one tile, every row r
    # (R_HI + R_LO >= n rows in two power-of-two accumulators, e.g. 128 + 32 for n = 160).
    b = tl.program_id(0)
    s = tl.program_id(1) * BLOCK_S + tl.arange(0, BLOCK_S)
    s_ok = s < n
    x_b = x + b.to(tl.int64) * sx_b
    acc_dtype: tl.constexpr = x.dtype.element_ty
    rows_hi = tl.arange(0, R_HI)
    acc_hi = tl.zeros((R_HI, BLOCK_S), dtype=acc_dtype)
    if R_LO > 0:
        rows_lo = R_HI + tl.arange(0, R_LO)
        acc_lo = tl.zeros((R_LO, BLOCK_S), dtype=acc_dtype)
    for l0 in range(0, n, BLOCK_L):
        lam = l0 + tl.arange(0, BLOCK_L)
        lam_ok = lam < n
        # First quarter step for these lam: xc[lam, s] = sum_sig x[b, lam, sig] * C[sig, s], on chip.
        xc = tl.zeros((BLOCK_L, BLOCK_S), dtype=acc_dtype)
        for k0 in range(0, n, BLOCK_K):
            sig = k0 + tl.arange(0, BLOCK_K)
            sig_ok = sig < n
            xt = tl.load(x_b + lam[:, None] * sx_l + sig[None, :] * sx_s,
                         mask=lam_ok[:, None] & sig_ok[None, :], other=0.0)
            cs = tl.load(coef + sig[:, None] * n + s[None, :], mask=sig_ok[:, None] & s_ok[None, :], other=0.0)
            xc = tl.dot(xt, cs, xc, input_precision=PRECISION, out_dtype=acc_dtype)
        # Second quarter step: contract lam with C[lam, r] for every r.
        xc = xc.to(x.dtype.element_ty)
        acc_hi = _half_rows(coef, xc, rows_hi, n, rows_hi < n, lam, lam_ok, acc_hi, PRECISION)
        if R_LO > 0:
            acc_lo = _half_rows(coef, xc, rows_lo, n, rows_lo < n, lam, lam_ok, acc_lo, PRECISION)
    o = out + b.to(tl.int64) * so_b + s[None, :] * so_s
    tl.store(o + rows_hi[:, None] * so_r, acc_hi.to(out.dtype.element_ty), mask=(rows_hi < n)[:, None] & s_ok[None, :])
    if R_LO > 0:
        tl.store(o + rows_lo[:, None] * so_r, acc_lo.to(out.dtype.element_ty), mask=(rows_lo < n)[:, None] & s_ok[None, :])
