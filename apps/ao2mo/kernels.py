"""Triton kernels of the AO->MO integral transformation (apps/ao2mo) and of apps/ao2mo/bench.

(pq|rs) = sum_{mu nu lam sig} C[mu,p] C[nu,q] C[lam,r] C[sig,s] (mu nu|lam sig), with the AO
integrals stored row-major as I[mu, nu, lam, sig] and the MO coefficients as C[mu, p] (AO rows,
MO columns), both for N basis functions.

Kernels:

* `gemm`: a strided-batched GEMM, out[bt, m, n] = sum_k a[bt, m, k] * b[bt, k, n]. Every quarter step of
  the AO->MO transformation in these row-major layouts is one (ao2mo.hpp, contraction.hpp's
  as_batched_gemm), with no transpose. Its tiles run along real tensor indices, so with the strides
  kernels.toml promises (i32:1, i32:16) Triton sees contiguous, aligned rows: vector loads, wgmma.

* `contract`: a general contraction of two tensors over two indices with two free indices on each
  side, by strides alone (no permutes): out[(m1,m2),(n1,n2)] = sum_{(k1,k2)} A[(m1,m2),(k1,k2)] *
  B[(k1,k2),(n1,n2)]. Each pair is one flattened GEMM dimension (m = m1*M2 + m2, ...); every index
  has its own stride in each tensor, so a permuted operand costs no copy. The TCCG cases of
  apps/ao2mo/bench (ijkl-imjn-lnkm, abcd-ea-ebcd, mhkn,ukvh->munv) run through it. Flattened pairs
  hide contiguity from Triton (`//`, `%`): every load is a 4-byte gather, hence `gemm` for the
  common case.

* `permute4`: a 4-D tensor copied into another index order in 2-D tiles (read along the input's
  fastest dimension, written along the output's last): the transposes of apps/ao2mo/bench's Triton
  TTGT, which hands `gemm` both operands contiguous along k (TF32 wgmma's fast layout on sm_90).
  Not in kernels.toml (the example does not use it); apps/ao2mo/bench/tensor4_configs.toml compiles it.

* `pair_transform`: the same two quarter steps with the loop structure of attention (one loop, both
  products in it, the intermediate handed on in registers) and every layout set by strides: the
  fused transformation's second design (apps/ao2mo/bench's `triton_fused_pair`, fused_sweep.py).

* `half_transform`: two quarter steps in one kernel, the N x N intermediate kept on chip (a
  back-to-back GEMM): out[r, s, b] = sum_lam C[lam, r] * (sum_sig x[b, lam, sig] * C[sig, s]). One
  program holds every r of its (batch block, s-tile) in registers, so the first product is computed
  once. With `out` written transposed (b fastest, in runs of BLOCK_B), two launches make the whole
  transformation: the first turns (mu nu|lam sig) into J[r s, mu nu], the second J into (pq|rs), and
  no quarter-transformed tensor ever reaches memory.

* `ladder_update`: where fusion pays (apps/ao2mo/bench's fusion table): a coupled-cluster-style
  amplitude update, X = W . T (the hole-hole ladder, X[ij, ab] = sum_kl W[ij, kl] T[kl, ab]),
  divided by the orbital-energy denominators d_row[ij] + d_col[ab] and added to the amplitudes,
  t_new = t_old + X / D, with the squared norm of the update summed per program (the convergence
  test) — X never reaches memory, where a vendor library writes it and an elementwise pass reads it
  back. Not in kernels.toml; apps/ao2mo/bench/tensor4_configs.toml compiles it.

Dot precision is a constexpr, PRECISION: "ieee" (true FP32 or FP64 products) or "tf32" (tensor
cores, 10-bit mantissa inputs); kernels.toml compiles each kernel once per precision. The tensor
cores truncate fp32 operands to TF32, where cuBLAS rounds them: so in TF32 `gemm` and
`half_transform` round what they write (and the on-chip intermediate) to the nearest TF32 value
(_round_tf32), and the host rounds the inputs (ao2mo.hpp's rounded_to_tf32): no operand is ever
truncated, and a chain of products carries no bias.
"""

import triton
import triton.language as tl


@triton.jit
def _pair_offsets(idx, inner, stride_outer, stride_inner):
    # Offset of the flattened index idx = outer*inner + inner_idx in a tensor with these strides.
    return (idx // inner) * stride_outer + (idx % inner) * stride_inner


@triton.jit
def _grouped_tile(pid, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    # Grouped launch order: GROUP_M row tiles share the column tiles they read, for L2 reuse.
    # Returns the (row tile, column tile) of program pid.
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    in_group = GROUP_M * tiles_n
    first_m = (pid // in_group) * GROUP_M
    group_rows = tl.minimum(tiles_m - first_m, GROUP_M)
    return first_m + (pid % in_group) % group_rows, (pid % in_group) // group_rows


@triton.jit
def _round_tf32(x):
    # x rounded to the nearest TF32 value (10-bit mantissa; ties away from zero, as cvt.rna.tf32.f32),
    # kept in FP32. The tensor cores read an fp32 operand's top 19 bits, i.e. they truncate: fed to
    # the next product unrounded, every intermediate would lose half a TF32 ulp on average toward
    # zero, a bias a chain of four products accumulates (the MP2 energy came out 0.55 % low). A NaN
    # stays NaN (the bit trick would make the canonical NaN -0.0 and hide a poisoned input); Inf
    # stays Inf.
    bits = x.to(tl.uint32, bitcast=True)
    rounded = ((bits + 0x1000) & 0xFFFFE000).to(tl.float32, bitcast=True)
    return tl.where(x != x, x, rounded)


@triton.jit
def _intermediate(x, dtype, PRECISION: tl.constexpr):
    # A fused kernel's on-chip intermediate as the next product takes it: in the data's type and, in
    # TF32, rounded to the nearest TF32 value as gemm rounds T1..T3 (else the tensor cores truncate it).
    x = x.to(dtype)
    if PRECISION == "tf32":
        x = _round_tf32(x)
    return x


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
    pid_m, pid_n = _grouped_tile(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)

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
def gemm(a, b, out, M, N, K, B,
         sa_b, sa_m, sa_k, sb_b, sb_k, sb_n, so_b, so_m, so_n,
         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
         GROUP_M: tl.constexpr, PRECISION: tl.constexpr):
    # out[bt, m, n] = sum_k a[bt, m, k] * b[bt, k, n] for the B batches bt (grid axis 1): the common
    # case of `contract` (one free index per side, one contracted, a batch index), which is every
    # AO->MO quarter step. The tiles run along real tensor indices, so when kernels.toml folds a
    # stride to 1 (i32:1) and promises the others divisible by 16 (i32:16), Triton sees contiguous,
    # 16-byte aligned rows: vector loads and cp.async of 16 bytes, wgmma fed from shared memory.
    bt = tl.program_id(1)
    pid_m, pid_n = _grouped_tile(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)

    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    row_ok = rows < M
    col_ok = cols < N
    a_ptr = a + bt * sa_b + rows[:, None] * sa_m
    b_ptr = b + bt * sb_b + cols[None, :] * sb_n
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=a.dtype.element_ty)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        k_ok = ks < K
        a_tile = tl.load(a_ptr + ks[None, :] * sa_k, mask=row_ok[:, None] & k_ok[None, :], other=0.0)
        b_tile = tl.load(b_ptr + ks[:, None] * sb_k, mask=k_ok[:, None] & col_ok[None, :], other=0.0)
        acc = tl.dot(a_tile, b_tile, acc, input_precision=PRECISION, out_dtype=acc.dtype)
    if PRECISION == "tf32":
        acc = _round_tf32(acc)  # TF32 results are TF32 values: the next step's products do not truncate them
    o = out + bt * so_b + rows[:, None] * so_m + cols[None, :] * so_n
    tl.store(o, acc.to(out.dtype.element_ty), mask=row_ok[:, None] & col_ok[None, :])


@triton.jit
def permute4(inp, out, P, Q, R, C, si_p, si_q, si_r, si_c, so_p, so_q, so_r,
             BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr, ALIGN: tl.constexpr, UNIT_R: tl.constexpr):
    # A 4-D tensor copied into another index order (apps/ao2mo/bench's Triton TTGT):
    # out[p, q, r, c] = inp[p*si_p + q*si_q + r*si_r + c*si_c], out row-major except for the strides
    # so_* of its three outer dimensions (c, its last, has stride 1). The caller (permute_plan.hpp)
    # names as r the output dimension along which the input is fastest, so one program's 2-D tile
    # [BLOCK_R, BLOCK_C] is read along r and written along c: with si_r folded to 1 (i32:1) and the
    # other strides i32:16, Triton loads 16-byte vectors down r and, after transposing the tile
    # through shared memory, stores 16-byte vectors along c. Where the input is already fastest along
    # c (si_c = 1: a copy of runs), both sides run along c.
    #
    # ALIGN > 1: the caller passes every extent and stride divided by ALIGN (permute_plan.hpp does,
    # only where they divide) except the input's unit stride, si_r (UNIT_R = 1) or si_c (UNIT_R =
    # 0), which the kernel takes as 1. Multiplying back, Triton knows every value a multiple of
    # ALIGN (tl.multiple_of on a scalar argument is dropped in Triton 3.6): the vector widths for
    # extents such as 72 that are no multiple of 16, the only divisibility a signature can state.
    # Its own [[kernel]] in tensor4_configs.toml.
    if ALIGN > 1:
        R = R * ALIGN
        C = C * ALIGN
        si_p = si_p * ALIGN
        si_q = si_q * ALIGN
        so_p = so_p * ALIGN
        so_q = so_q * ALIGN
        so_r = so_r * ALIGN
        if UNIT_R:
            si_r = 1
            si_c = si_c * ALIGN
        else:
            si_r = si_r * ALIGN
            si_c = 1
    # One flat grid axis (no 65535 limit): the (p, q) slice outermost, then the tile of R x C.
    pid = tl.program_id(0)
    tiles_c = tl.cdiv(C, BLOCK_C)
    tiles = tl.cdiv(R, BLOCK_R) * tiles_c
    pq = pid // tiles
    t = pid % tiles
    p = pq // Q
    q = pq % Q
    r = (t // tiles_c) * BLOCK_R + tl.arange(0, BLOCK_R)
    c = (t % tiles_c) * BLOCK_C + tl.arange(0, BLOCK_C)
    ok = (r < R)[:, None] & (c < C)[None, :]
    x = tl.load(inp + p * si_p + q * si_q + r[:, None] * si_r + c[None, :] * si_c, mask=ok)
    tl.store(out + p * so_p + q * so_q + r[:, None] * so_r + c[None, :], x, mask=ok)


@triton.jit
def _half_rows(coef_t, xc, rows, n, lam, lam_ok, acc, PRECISION: tl.constexpr):
    # acc[r, (s, b)] += sum_lam C[lam, r] * xc[lam, (s, b)] for the rows r of this accumulator.
    ct = tl.load(coef_t + rows[:, None] * n + lam[None, :], mask=(rows < n)[:, None] & lam_ok[None, :], other=0.0)
    return tl.dot(ct, xc, acc, input_precision=PRECISION, out_dtype=acc.dtype)


@triton.jit
def _half_store(out, acc, rows, n, so_r, cols_off, cols_ok, PRECISION: tl.constexpr):
    # TF32 results are TF32 values (_intermediate): the next half's products do not truncate them.
    o = out + rows[:, None] * so_r + cols_off[None, :]
    tl.store(o, _intermediate(acc, out.dtype.element_ty, PRECISION), mask=(rows < n)[:, None] & cols_ok[None, :])


@triton.jit
def half_transform(x, coef_t, out, n, sx_b, so_r, so_s,
                   R_HI: tl.constexpr, R_LO: tl.constexpr, BLOCK_B: tl.constexpr,
                   BLOCK_S: tl.constexpr, BLOCK_L: tl.constexpr, BLOCK_K: tl.constexpr,
                   PRECISION: tl.constexpr):
    # y[r, s, b] = sum_lam C[lam, r] sum_sig x[b, lam, sig] C[sig, s] for the n*n batches b, with x's
    # sig stride 1, y's b stride 1 (b fastest, the next half's input layout). C comes transposed,
    # coef_t[r, lam] = C[lam, r], so that both products read C along their contracted index: TF32
    # wgmma takes fp32 operands only K-major from shared memory, which 16-byte copies then fill.
    #
    # One program: BLOCK_B consecutive batches, one tile of BLOCK_S columns s, every row r (R_HI +
    # R_LO >= n rows in two power-of-two accumulators, e.g. 128 + 32 for n = 160). Its columns are
    # the pairs (s, b) with b fastest, so the result goes out as runs of BLOCK_B contiguous elements
    # (16-32 bytes: whole sectors) although y is written transposed.
    pid_b = tl.program_id(0)
    pid_s = tl.program_id(1)
    batches = n * n
    acc_dtype: tl.constexpr = x.dtype.element_ty
    # First product's rows: the pairs (lam, b), b fastest.
    pair = tl.arange(0, BLOCK_L * BLOCK_B)
    row_b = pid_b * BLOCK_B + pair % BLOCK_B
    row_b_ok = row_b < batches
    row_l = pair // BLOCK_B
    s = pid_s * BLOCK_S + tl.arange(0, BLOCK_S)
    s_ok = s < n
    rows_hi = tl.arange(0, R_HI)
    acc_hi = tl.zeros((R_HI, BLOCK_S * BLOCK_B), dtype=acc_dtype)
    if R_LO > 0:
        rows_lo = R_HI + tl.arange(0, R_LO)
        acc_lo = tl.zeros((R_LO, BLOCK_S * BLOCK_B), dtype=acc_dtype)
    for l0 in range(0, n, BLOCK_L):
        lam_of_row = l0 + row_l
        x_rows = x + row_b * sx_b + lam_of_row * n
        x_rows_ok = row_b_ok & (lam_of_row < n)
        # First quarter step for these lam: xc[(lam, b), s] = sum_sig x[b, lam, sig] * C[sig, s], on chip.
        xc = tl.zeros((BLOCK_L * BLOCK_B, BLOCK_S), dtype=acc_dtype)
        for k0 in range(0, n, BLOCK_K):
            sig = k0 + tl.arange(0, BLOCK_K)
            sig_ok = sig < n
            xt = tl.load(x_rows[:, None] + sig[None, :], mask=x_rows_ok[:, None] & sig_ok[None, :], other=0.0)
            cs = tl.load(coef_t + s[None, :] * n + sig[:, None], mask=sig_ok[:, None] & s_ok[None, :], other=0.0)
            xc = tl.dot(xt, cs, xc, input_precision=PRECISION, out_dtype=acc_dtype)
        # [(lam, b), s] -> [lam, (s, b)]: the second product's operand, columns as the store wants them.
        xc = tl.reshape(tl.permute(tl.reshape(xc, (BLOCK_L, BLOCK_B, BLOCK_S)), (0, 2, 1)), (BLOCK_L, BLOCK_S * BLOCK_B))
        xc = _intermediate(xc, x.dtype.element_ty, PRECISION)
        lam = l0 + tl.arange(0, BLOCK_L)
        lam_ok = lam < n
        # Second quarter step: contract lam with C[lam, r] for every r.
        acc_hi = _half_rows(coef_t, xc, rows_hi, n, lam, lam_ok, acc_hi, PRECISION)
        if R_LO > 0:
            acc_lo = _half_rows(coef_t, xc, rows_lo, n, lam, lam_ok, acc_lo, PRECISION)
    col = tl.arange(0, BLOCK_S * BLOCK_B)
    col_s = pid_s * BLOCK_S + col // BLOCK_B
    col_b = pid_b * BLOCK_B + col % BLOCK_B
    cols_off = col_s * so_s + col_b
    cols_ok = (col_s < n) & (col_b < batches)
    _half_store(out, acc_hi, rows_hi, n, so_r, cols_off, cols_ok, PRECISION)
    if R_LO > 0:
        _half_store(out, acc_lo, rows_lo, n, so_r, cols_off, cols_ok, PRECISION)


@triton.jit
def _pair_first(x_rows, x_ok, coef_t, s, s_ok, k0, n, sx_kb, acc, K: tl.constexpr, IN_T: tl.constexpr,
                S_ROWS: tl.constexpr, PRECISION: tl.constexpr):
    # The first product over sig in [k0, k0 + K) for the rows (b, lam) of this iteration:
    # S_ROWS: acc[s, (b, lam)] += C^T[s, sig] x[(b, lam), sig]^T; else acc[(b, lam), s] += x . C.
    # x's sig runs in blocks of IN_T contiguous elements, sx_kb apart (IN_T = 1: sig contiguous).
    sig = k0 + tl.arange(0, K)
    sig_ok = sig < n
    if IN_T == 1:
        sig_off = sig
    else:
        sig_off = (sig // IN_T) * sx_kb + sig % IN_T
    xt = tl.load(x_rows[:, None] + sig_off[None, :], mask=x_ok[:, None] & sig_ok[None, :], other=0.0)
    cs = tl.load(coef_t + s[:, None] * n + sig[None, :], mask=s_ok[:, None] & sig_ok[None, :], other=0.0)
    if S_ROWS:
        return tl.dot(cs, tl.trans(xt), acc, input_precision=PRECISION, out_dtype=acc.dtype)
    else:
        return tl.dot(xt, tl.trans(cs), acc, input_precision=PRECISION, out_dtype=acc.dtype)


@triton.jit
def _pair_second(y, coef_t, rows, n, lam, lam_ok, acc, PRECISION: tl.constexpr):
    # acc[(s, b), r] += sum_lam y[(s, b), lam] C[lam, r], C read as coef_t[r, lam] (K-major).
    ct = tl.load(coef_t + rows[:, None] * n + lam[None, :], mask=(rows < n)[:, None] & lam_ok[None, :], other=0.0)
    return tl.dot(y, tl.trans(ct), acc, input_precision=PRECISION, out_dtype=acc.dtype)


@triton.jit
def _pair_store(out, acc, rows_off, rows_ok, r, n, so_r, PRECISION: tl.constexpr):
    # y[r, (s, b)] for the accumulator's rows (s, b), rounded as _half_store rounds.
    tl.store(out + rows_off[:, None] + r[None, :] * so_r, _intermediate(acc, out.dtype.element_ty, PRECISION),
             mask=rows_ok[:, None] & (r < n)[None, :])


@triton.jit
def pair_transform(x, coef_t, out, n, sx_b, sx_l, sx_kb, so_r, so_s, so_b, so_bb,
                   R_HI: tl.constexpr, R_LO: tl.constexpr, K_HI: tl.constexpr, K_LO: tl.constexpr,
                   BLOCK_B: tl.constexpr, BLOCK_S: tl.constexpr, BLOCK_L: tl.constexpr,
                   IN_T: tl.constexpr, OUT_T: tl.constexpr, S_ROWS: tl.constexpr, PRECISION: tl.constexpr):
    # The same two quarter steps as half_transform, y[r, s, b] = sum_lam C[lam, r] sum_sig x[b, lam, sig]
    # C[sig, s] for the n*n batches b, shaped for the tensor cores: one loop over lam tiles, both
    # products in each iteration (the first over every sig at once, K_HI + K_LO >= n, so no inner loop
    # restarts the pipeline), the intermediate handed to the second product from registers (its A
    # operand, as attention's P). The accumulator is [(s, b), r]: BLOCK_S * BLOCK_B rows, every r in
    # R_HI + R_LO columns. The s tiles of one batch block are neighbouring programs, so the x they all
    # read comes from HBM once (L2). C comes transposed (coef_t[r, lam] = C[lam, r]): both products
    # read C along their contracted index, TF32 wgmma's K-major layout.
    #
    # Layouts by strides, so one kernel serves both launches of the fused transformation
    # (triton_ao2mo.hpp's transform_fused_pair) in every layout of its intermediate:
    #   x[b, lam, sig] at b sx_b + lam sx_l + (sig // IN_T) sx_kb + sig % IN_T (IN_T = 1: sig contiguous);
    #   y[r, s, b] at r so_r + s so_s + (b // OUT_T) so_bb + (b % OUT_T) so_b.
    # Long runs in y need either b fastest and BLOCK_B large, or s fastest (so_s = 1) or blocks of
    # OUT_T batches with BLOCK_S large; fused_sweep.py measures which pays (RESULTS.md).
    #
    # S_ROWS: the first product is C^T x^T, rows s (BLOCK_S >= 64 for wgmma) and columns (b, lam),
    # which is the second product's [(s, b), lam] operand by a reshape alone. Else it is x C, rows
    # (b, lam), columns s, and the operand a permute of it (small BLOCK_S, many batches).
    pid = tl.program_id(0)
    tiles_s = tl.cdiv(n, BLOCK_S)
    pid_b = pid // tiles_s
    pid_s = pid % tiles_s
    batches = n * n
    ROWS: tl.constexpr = BLOCK_S * BLOCK_B
    acc_dtype: tl.constexpr = x.dtype.element_ty
    # This iteration's x rows: the pairs (b, lam), lam fastest (each batch's lam rows are contiguous).
    pair = tl.arange(0, BLOCK_B * BLOCK_L)
    row_b = pid_b * BLOCK_B + pair // BLOCK_L
    row_l = pair % BLOCK_L
    s = pid_s * BLOCK_S + tl.arange(0, BLOCK_S)
    s_ok = s < n
    r_hi = tl.arange(0, R_HI)
    acc_hi = tl.zeros((ROWS, R_HI), dtype=acc_dtype)
    if R_LO > 0:
        r_lo = R_HI + tl.arange(0, R_LO)
        acc_lo = tl.zeros((ROWS, R_LO), dtype=acc_dtype)
    for l0 in range(0, n, BLOCK_L):
        lam_of_row = l0 + row_l
        x_rows = x + row_b * sx_b + lam_of_row * sx_l
        x_ok = (row_b < batches) & (lam_of_row < n)
        if S_ROWS:
            y = tl.zeros((BLOCK_S, BLOCK_B * BLOCK_L), dtype=acc_dtype)
        else:
            y = tl.zeros((BLOCK_B * BLOCK_L, BLOCK_S), dtype=acc_dtype)
        y = _pair_first(x_rows, x_ok, coef_t, s, s_ok, 0, n, sx_kb, y, K_HI, IN_T, S_ROWS, PRECISION)
        if K_LO > 0:
            y = _pair_first(x_rows, x_ok, coef_t, s, s_ok, K_HI, n, sx_kb, y, K_LO, IN_T, S_ROWS, PRECISION)
        if S_ROWS:
            y = tl.reshape(y, (ROWS, BLOCK_L))  # [s, (b, lam)] -> [(s, b), lam]
        else:
            y = tl.reshape(tl.permute(tl.reshape(y, (BLOCK_B, BLOCK_L, BLOCK_S)), (2, 0, 1)), (ROWS, BLOCK_L))
        y = _intermediate(y, x.dtype.element_ty, PRECISION)
        lam = l0 + tl.arange(0, BLOCK_L)
        lam_ok = lam < n
        acc_hi = _pair_second(y, coef_t, r_hi, n, lam, lam_ok, acc_hi, PRECISION)
        if R_LO > 0:
            acc_lo = _pair_second(y, coef_t, r_lo, n, lam, lam_ok, acc_lo, PRECISION)
    rows = tl.arange(0, ROWS)
    row_s = pid_s * BLOCK_S + rows // BLOCK_B
    row_b = pid_b * BLOCK_B + rows % BLOCK_B
    rows_off = row_s * so_s + (row_b // OUT_T) * so_bb + (row_b % OUT_T) * so_b
    rows_ok = (row_s < n) & (row_b < batches)
    _pair_store(out, acc_hi, rows_off, rows_ok, r_hi, n, so_r, PRECISION)
    if R_LO > 0:
        _pair_store(out, acc_lo, rows_off, rows_ok, r_lo, n, so_r, PRECISION)


# ---- MP2 energy ----------------------------------------------------------------------------------
#
# E(2) = sum_{ijab} (ia|jb) [2 (ia|jb) - (ib|ja)] / (e_i + e_j - e_a - e_b) for o occupied orbitals
# i, j and v virtual ones a, b (closed shell, real orbitals). For one pair (i, j) the v x v block
# K_ij[a, b] = (ia|jb) holds both terms: (ib|ja) = K_ij[b, a]. Each program below sums one pair's
# block into partials[i * o + j] (FP64); `sum_partials` adds the o^2 partials in a fixed order, so
# the energy is deterministic (no atomics).


@triton.jit
def _pair_energy(k, kt, e_ij, e_a, e_b, ok):
    # sum of K[a, b] (2 K[a, b] - K[b, a]) / (e_i + e_j - e_a - e_b) over the valid (a, b).
    denom = e_ij - e_a[:, None] - e_b[None, :]
    term = k * (2.0 * k - kt) / tl.where(ok, denom, 1.0)
    return tl.sum(tl.sum(tl.where(ok, term, 0.0), axis=1), axis=0)


@triton.jit
def mp2_energy(ovov, e_occ, e_vir, partials, o, v, BLOCK: tl.constexpr):
    # From the transformed integrals ovov[i, a, j, b] = (ia|jb) in memory (the unfused path): one
    # program per pair (i, j), its v x v block in BLOCK x BLOCK tiles, the exchange tile read at the
    # transposed addresses.
    pid = tl.program_id(0)
    i = pid // o
    j = pid % o
    e_ij = tl.load(e_occ + i) + tl.load(e_occ + j)
    block = ovov + i * v * o * v + j * v  # K_ij[a, b] at block + a * (o v) + b
    row = o * v
    acc = 0.0
    for a0 in range(0, v, BLOCK):
        a = a0 + tl.arange(0, BLOCK)
        e_a = tl.load(e_vir + a, mask=a < v, other=0.0)
        for b0 in range(0, v, BLOCK):
            b = b0 + tl.arange(0, BLOCK)
            e_b = tl.load(e_vir + b, mask=b < v, other=0.0)
            ok = (a < v)[:, None] & (b < v)[None, :]
            k = tl.load(block + a[:, None] * row + b[None, :], mask=ok, other=0.0)
            kt = tl.load(block + b[None, :] * row + a[:, None], mask=ok, other=0.0)
            acc += _pair_energy(k, kt, e_ij, e_a, e_b, ok)
    tl.store(partials + pid, acc.to(tl.float64))


@triton.jit
def mp2_fused(x3, c_vir, e_occ, e_vir, partials, n, o, v,
              V_PAD: tl.constexpr, BLOCK_K: tl.constexpr, PRECISION: tl.constexpr):
    # The last quarter step and the energy in one kernel: for the pair (i, j) of this program,
    # K_ij[a, b] = sum_sig x3[i, a, j, sig] C_vir[sig, b] is built in registers (all v <= V_PAD rows
    # and columns), its transpose taken on chip (tl.trans) for the exchange term, and reduced with
    # the denominators; (ia|jb) (o^2 v^2 elements) is never written.
    pid = tl.program_id(0)
    i = pid // o
    j = pid % o
    ab = tl.arange(0, V_PAD)
    ab_ok = ab < v
    rows = x3 + (i * v + ab) * (o * n) + j * n  # x3[i, a, j, :] for every a
    k = tl.zeros((V_PAD, V_PAD), dtype=tl.float32)
    for k0 in range(0, n, BLOCK_K):
        sig = k0 + tl.arange(0, BLOCK_K)
        sig_ok = sig < n
        xt = tl.load(rows[:, None] + sig[None, :], mask=ab_ok[:, None] & sig_ok[None, :], other=0.0)
        cv = tl.load(c_vir + sig[:, None] * v + ab[None, :], mask=sig_ok[:, None] & ab_ok[None, :], other=0.0)
        k = tl.dot(xt, cv, k, input_precision=PRECISION, out_dtype=tl.float32)
    e_ab = tl.load(e_vir + ab, mask=ab_ok, other=0.0)
    e_ij = tl.load(e_occ + i) + tl.load(e_occ + j)
    energy = _pair_energy(k, tl.trans(k), e_ij, e_ab, e_ab, ab_ok[:, None] & ab_ok[None, :])
    tl.store(partials + pid, energy.to(tl.float64))


@triton.jit
def sum_partials(partials, out, count, BLOCK: tl.constexpr):
    # out[0] = the sum of count FP64 partials, in one program and a fixed order: deterministic.
    acc = tl.zeros((BLOCK,), dtype=tl.float64)
    for i0 in range(0, count, BLOCK):
        idx = i0 + tl.arange(0, BLOCK)
        acc += tl.load(partials + idx, mask=idx < count, other=0.0)
    tl.store(out, tl.sum(acc, axis=0))


@triton.jit
def ladder_update(w, t, t_old, t_new, d_row, d_col, partials, M, N, K,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, PRECISION: tl.constexpr):
    # One (BLOCK_M x BLOCK_N) tile of X = W[M, K] . T[K, N] (row-major), then in registers:
    # u = X / (d_row[m] + d_col[n]), t_new = t_old + u, and partials[program] = sum of u^2 (FP64).
    # Row tiles vary fastest, so the programs that read one column block of T run together (L2).
    tiles_m = tl.cdiv(M, BLOCK_M)
    pid = tl.program_id(0)
    rows = (pid % tiles_m) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = (pid // tiles_m) * BLOCK_N + tl.arange(0, BLOCK_N)
    row_ok = rows < M
    col_ok = cols < N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        k_ok = ks < K
        w_tile = tl.load(w + rows[:, None] * K + ks[None, :], mask=row_ok[:, None] & k_ok[None, :], other=0.0)
        t_tile = tl.load(t + ks[:, None] * N + cols[None, :], mask=k_ok[:, None] & col_ok[None, :], other=0.0)
        acc = tl.dot(w_tile, t_tile, acc, input_precision=PRECISION, out_dtype=tl.float32)
    ok = row_ok[:, None] & col_ok[None, :]
    denom = tl.load(d_row + rows, mask=row_ok, other=1.0)[:, None] + tl.load(d_col + cols, mask=col_ok, other=0.0)[None, :]
    update = tl.where(ok, acc / denom, 0.0)
    offs = rows[:, None] * N + cols[None, :]
    tl.store(t_new + offs, tl.load(t_old + offs, mask=ok, other=0.0) + update, mask=ok)
    tl.store(partials + pid, tl.sum(tl.sum(update * update, axis=1), axis=0).to(tl.float64))
