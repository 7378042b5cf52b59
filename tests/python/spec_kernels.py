"""Kernels for the front end's tests (spec binding and const inference); not shipped anywhere."""
import triton
import triton.language as tl


@triton.jit
def with_default(x, out, n, BLOCK: tl.constexpr, EVEN: tl.constexpr = False):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(out + offs, tl.load(x + offs))
    else:
        tl.store(out + offs, tl.load(x + offs, mask=offs < n), mask=offs < n)


@triton.jit
def cast_copy(x, out, n, BLOCK: tl.constexpr, DTYPE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out + offs, tl.load(x + offs, mask=m).to(DTYPE), mask=m)


@triton.jit
def scatter(src, idx, dst, n, BLOCK: tl.constexpr):
    """dst[idx[i]] = src[i]: idx and src are only read, even though a value loaded through idx
    becomes part of the store address."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    j = tl.load(idx + offs, mask=m)
    tl.store(dst + j, tl.load(src + offs, mask=m), mask=m)


@triton.jit
def histogram_atomic(x, bins, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(x + offs, mask=m)
    tl.atomic_add(bins + v, 1, mask=m)


@triton.jit
def loop_carried(a, b, n, BLOCK: tl.constexpr):
    """The written pointer is advanced in a loop (scf.for iter_args) and chosen by a select."""
    p = b + tl.arange(0, BLOCK)
    q = a + tl.arange(0, BLOCK)
    for i in range(0, n, BLOCK):
        tl.store(p, tl.load(q))
        p += BLOCK
        q += BLOCK


@triton.jit
def select_ptr(a, b, c, flag):
    """Stores through a pointer that is b or c depending on a run-time flag: both are written."""
    p = tl.where(flag > 0, b, c)
    tl.store(p, tl.load(a))


@triton.jit(noinline=True)
def _store_helper(p, v):
    tl.store(p, v)


@triton.jit
def via_call(a, b):
    """The store happens in a non-inlined function: the call must count as a write of b."""
    _store_helper(b, tl.load(a))


@triton.jit
def reduce_rows(x, out, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    v = tl.load(x + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(out + row, tl.sum(v, axis=0))


@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def heuristic_kernel(x, out, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out + offs, tl.load(x + offs))


@triton.jit
def broken(x, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x + offs, undefined_name)  # noqa: F821 - compile error on purpose


def not_a_kernel(x):
    return x
