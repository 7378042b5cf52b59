"""Real-sized Triton kernels for the container size benchmark (bench/size/size_bench.py).

Production-shaped configs, so the cubins and PTX are the sizes users ship: a vector add, a
pipelined fp16 matmul with 128x128x64 tiles, a fused row softmax, a layer norm, and a flash-
attention forward pass.
"""
import triton
import triton.language as tl


@triton.jit
def vector_add(x, y, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)


@triton.jit
def matmul(a, b, c, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    group = GROUP_M * num_n
    gid = pid // group
    first_m = gid * GROUP_M
    size_m = min(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % group) % size_m
    pid_n = (pid % group) // size_m
    rm = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    rn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    rk = tl.arange(0, BLOCK_K)
    a_ptr = a + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptr = b + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        am = tl.load(a_ptr, mask=rk[None, :] < K - k * BLOCK_K, other=0.0)
        bm = tl.load(b_ptr, mask=rk[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(am, bm, acc)
        a_ptr += BLOCK_K * stride_ak
        b_ptr += BLOCK_K * stride_bk
    cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(c + cm[:, None] * stride_cm + cn[None, :] * stride_cn, acc.to(tl.float16),
             mask=(cm[:, None] < M) & (cn[None, :] < N))


@triton.jit
def softmax(out, inp, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(inp + row * in_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out + row * out_stride + cols, num / tl.sum(num, axis=0), mask=mask)


@triton.jit
def layer_norm(x, y, w, b, stride, n, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x += row * stride
    y += row * stride
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x + cols, mask=cols < n, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / n
    var_acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        v = tl.load(x + cols, mask=cols < n, other=0.0).to(tl.float32)
        v = tl.where(cols < n, v - mean, 0.0)
        var_acc += v * v
    rstd = 1 / tl.sqrt(tl.sum(var_acc, axis=0) / n + eps)
    for off in range(0, n, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        m = cols < n
        v = tl.load(x + cols, mask=m, other=0.0).to(tl.float32)
        tl.store(y + cols, ((v - mean) * rstd * tl.load(w + cols, mask=m) + tl.load(b + cols, mask=m)).to(tl.float16), mask=m)


@triton.jit
def attention_fwd(q, k, v, o, sm_scale, stride_qm, stride_kn, stride_vn, stride_om, n_ctx,
                  HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0)
    bh = tl.program_id(1)
    q += bh * n_ctx * stride_qm
    k += bh * n_ctx * stride_kn
    v += bh * n_ctx * stride_vn
    o += bh * n_ctx * stride_om
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    qt = tl.load(q + offs_m[:, None] * stride_qm + offs_d[None, :], mask=offs_m[:, None] < n_ctx, other=0.0)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    for start_n in range(0, n_ctx, BLOCK_N):
        cols = start_n + offs_n
        kt = tl.load(k + cols[None, :] * stride_kn + offs_d[:, None], mask=cols[None, :] < n_ctx, other=0.0)
        s = tl.dot(qt, kt) * sm_scale
        s = tl.where(cols[None, :] < n_ctx, s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        vt = tl.load(v + cols[:, None] * stride_vn + offs_d[None, :], mask=cols[:, None] < n_ctx, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), vt)
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(o + offs_m[:, None] * stride_om + offs_d[None, :], acc.to(tl.float16), mask=offs_m[:, None] < n_ctx)
