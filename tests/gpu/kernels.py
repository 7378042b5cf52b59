"""Triton kernels of the run time's GPU tests (tests/gpu). Each exercises one part of the launch
ABI (docs/triton-abi.md): an fp32 scalar, a caller-given grid, > 48 KB of shared memory, every
scalar type, a 2-D grid, clusters (num_ctas=2), device-side tensor descriptors (global scratch),
and a host-side tensor descriptor (CUtensorMap argument)."""
import triton
import triton.language as tl


@triton.jit
def vector_add(x, y, out, n, alpha, BLOCK: tl.constexpr):
    """out = x + alpha * y."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out + offs, tl.load(x + offs, mask=mask) + alpha * tl.load(y + offs, mask=mask), mask=mask)


@triton.jit
def softmax(out, inp, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    """One program per row."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(inp + row * in_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out + row * out_stride + cols, num / tl.sum(num, axis=0), mask=mask)


@triton.jit
def matmul(a, b, c, M, N, K, stride_am, stride_bk, stride_cm,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """c[M, N] = a[M, K] @ b[K, N] in fp16 with fp32 accumulation (row-major, unit inner strides)."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ka = k0 + rk
        a_tile = tl.load(a + rm[:, None] * stride_am + ka[None, :], mask=(rm[:, None] < M) & (ka[None, :] < K), other=0.0)
        b_tile = tl.load(b + ka[:, None] * stride_bk + rn[None, :], mask=(ka[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a_tile, b_tile)
    tl.store(c + rm[:, None] * stride_cm + rn[None, :], acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def scalars(out_i64, out_f32, out_f64, out_i32, a, b, c, d, e):
    """Echoes each scalar argument so the host can check its bits arrived."""
    tl.store(out_i64, a + 1)
    tl.store(out_f32, b.to(tl.float32))
    tl.store(out_f32 + 1, c.to(tl.float32))
    tl.store(out_f64, d * 2.0)
    tl.store(out_i32, tl.where(e, 7, 3))


@triton.jit
def add2d(x, out, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    """out[i, j] = x[i, j] + i * 1000 + j over a 2-D grid of BM×BN tiles."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    offs = rm[:, None] * stride + rn[None, :]
    v = tl.load(x + offs, mask=mask) + (rm[:, None] * 1000 + rn[None, :]).to(tl.float32)
    tl.store(out + offs, v, mask=mask)


@triton.jit
def cluster_scale(x, out, n, alpha, BLOCK: tl.constexpr):
    """Compiled with num_ctas=2: each program is a cluster of two CTAs."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out + offs, tl.load(x + offs, mask=mask) * alpha, mask=mask)


@triton.jit
def tma_copy(inp, out, M, N, BM: tl.constexpr, BN: tl.constexpr):
    """Device-side tensor descriptors (tl.make_tensor_descriptor): needs global scratch."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    src = tl.make_tensor_descriptor(inp, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dst = tl.make_tensor_descriptor(out, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    tile = src.load([pid_m * BM, pid_n * BN])
    dst.store([pid_m * BM, pid_n * BN], tile * 2.0 + 1.0)


@triton.jit
def desc_scale(src, out, M, N, alpha, BM: tl.constexpr, BN: tl.constexpr):
    """A host-side tensor descriptor argument: out = alpha * src (TMA load)."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    tile = src.load([pid_m * BM, pid_n * BN])
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(out + rm[:, None] * N + rn[None, :], tile * alpha, mask=mask)
