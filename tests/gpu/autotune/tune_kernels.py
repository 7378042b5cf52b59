"""Tuned kernels of the GPU tuning test (test_autotune_gpu.cpp, ctest `gpu_autotune`): configs, key,
reset_to_zero and restore_value come from @triton.autotune, as in a user's Python code.

Each config stores its TAG into `tag` from its first program, so the test sees which config the
generated function really launched (the tuned one, the persisted one, config 0 when read-only)."""
import triton
import triton.language as tl


def _splitk_configs():
    c = triton.Config
    return [
        # Config 0 is slow on purpose (16x16 tiles, one warp, no split of K): tuning must beat it,
        # and a read-only run without a tuning result must still run it correctly.
        c({"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16, "SPLIT_K": 1, "TAG": 0}, num_warps=1, num_stages=1),
        c({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "SPLIT_K": 4, "TAG": 1}, num_warps=4, num_stages=3),
        c({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64, "SPLIT_K": 16, "TAG": 2}, num_warps=4, num_stages=3),
    ]


@triton.autotune(configs=_splitk_configs(), key=["M", "N", "K"], reset_to_zero=["c"])
@triton.jit
def matmul_splitk(a, b, c, tag, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  SPLIT_K: tl.constexpr, TAG: tl.constexpr):
    """c[M, N] += a[M, K] @ b[K, N] (fp16 in, fp32 out, row-major): program (i, s) adds the product
    over the s-th of SPLIT_K slices of K with atomics. c must be zero before the call, which is why
    trial runs must zero it (reset_to_zero): every run adds into it."""
    pid = tl.program_id(0)
    pid_k = tl.program_id(1)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    rm = (pid // num_pid_n) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = (pid % num_pid_n) * BLOCK_N + tl.arange(0, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    per_split = tl.cdiv(k_tiles, SPLIT_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for t in range(pid_k * per_split, tl.minimum((pid_k + 1) * per_split, k_tiles)):
        rk = t * BLOCK_K + tl.arange(0, BLOCK_K)
        x = tl.load(a + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        y = tl.load(b + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(x, y, acc)
    tl.atomic_add(c + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))
    if (pid == 0) & (pid_k == 0):
        tl.store(tag, TAG)


@triton.autotune(
    configs=[triton.Config({"BLOCK": b, "TAG": i}, num_warps=w) for i, (b, w) in enumerate(((128, 1), (1024, 4), (4096, 8)))],
    key=["n"], restore_value=["x"])
@triton.jit
def scale_shift_inplace(x, tag, n, alpha, beta, BLOCK: tl.constexpr, TAG: tl.constexpr):
    """x = alpha * x + beta, in place: a trial run that is not undone (restore_value) changes the
    caller's x once more."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x + offs, alpha * tl.load(x + offs, mask=mask) + beta, mask=mask)
    if pid == 0:
        tl.store(tag, TAG)


def _tma_set_block_shapes(nargs):
    """Triton's persistent-matmul tutorial hook (09-persistent-matmul.py,
    matmul_tma_set_block_size_hook): each descriptor takes the block shape of the config about to
    run. The spec says so (pre_hook = "block_shapes"): the front end runs it per config and compiles
    each config with these shapes."""
    BLOCK_M, BLOCK_N, BLOCK_K = nargs["BLOCK_M"], nargs["BLOCK_N"], nargs["BLOCK_K"]
    nargs["a_desc"].block_shape = [BLOCK_M, BLOCK_K]
    nargs["b_desc"].block_shape = [BLOCK_N, BLOCK_K]
    nargs["c_desc"].block_shape = [BLOCK_M, BLOCK_N]


def _tma_configs():
    c = triton.Config
    h = _tma_set_block_shapes
    return [
        c({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64, "TAG": 0}, num_warps=4, num_stages=3, pre_hook=h),
        # The signature's block shapes for a, b and c but BLOCK_K = 32: compiled with the signature's
        # [64, 64] a and b blocks, it adds every K tile twice (max error 91 on the H200).
        c({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "TAG": 1}, num_warps=4, num_stages=4, pre_hook=h),
        c({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "TAG": 2}, num_warps=8, num_stages=2, pre_hook=h),
        c({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 64, "TAG": 3}, num_warps=4, num_stages=3, pre_hook=h),
    ]


@triton.autotune(configs=_tma_configs(), key=["M", "N", "K"])
@triton.jit
def matmul_tma(a_desc, b_desc, c_desc, tag, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
               BLOCK_K: tl.constexpr, TAG: tl.constexpr):
    """c[M, N] = a[M, K] @ b[N, K]^T through host-side tensor descriptors (fp16 in, fp32 out), as the
    tutorial's matmul_kernel_tma: the descriptors' block shapes come from the config (pre_hook), so
    a config run with another config's descriptors reads the wrong tiles."""
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    offs_m = (pid // num_pid_n) * BLOCK_M
    offs_n = (pid % num_pid_n) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([offs_m, k * BLOCK_K])
        b = b_desc.load([offs_n, k * BLOCK_K])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([offs_m, offs_n], acc)
    if pid == 0:
        tl.store(tag, TAG)
