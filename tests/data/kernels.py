"""Small Triton kernels used as test fixtures by the front end, the packer and the run time.

They are deliberately tiny (short compile times, small images) but cover what the pipeline must
handle: an fp32 scalar argument (ABI: passed as a 4-byte float), read-only and written pointers
(const inference), an integer that may be specialised (`:16`, `:1`), a 2-D launch, constexpr
configs, and an autotuned kernel whose configs come from @triton.autotune.
"""
import triton
import triton.language as tl


@triton.jit
def vector_add(x, y, out, n, alpha, BLOCK: tl.constexpr):
    """out[i] = x[i] + alpha * y[i] for i < n."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(x + offs, mask=mask)
    b = tl.load(y + offs, mask=mask)
    tl.store(out + offs, a + alpha * b, mask=mask)


@triton.jit
def row_softmax(out, inp, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    """One program per row: out[r, :n_cols] = softmax(inp[r, :n_cols])."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(inp + row * in_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out + row * out_stride + cols, num / tl.sum(num, axis=0), mask=mask)


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16}, num_warps=1, num_stages=1),
        triton.Config({"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16}, num_warps=2, num_stages=2),
    ],
    key=["M", "N", "K"],
)
@triton.jit
def small_matmul(a, b, c, M, N, K, stride_am, stride_bk, stride_cm,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """c[M, N] = a[M, K] @ b[K, N], fp32 accumulation; row-major with unit inner strides."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ka = k0 + rk
        a_tile = tl.load(a + rm[:, None] * stride_am + ka[None, :],
                         mask=(rm[:, None] < M) & (ka[None, :] < K), other=0.0)
        b_tile = tl.load(b + ka[:, None] * stride_bk + rn[None, :],
                         mask=(ka[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a_tile, b_tile)
    tl.store(c + rm[:, None] * stride_cm + rn[None, :], acc.to(c.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))
