"""The quickstart's Triton kernels. Plain @triton.jit functions: nothing here knows about tritonpack.

Debug them on the CPU with Triton's interpreter (TRITON_INTERPRET=1) and a Python debugger; the
C++ program calls them through the generated header quickstart.hpp.
"""
import triton
import triton.language as tl


@triton.jit
def vector_add(x, y, out, n, alpha, BLOCK: tl.constexpr):
    """out[i] = x[i] + alpha * y[i] for i < n; alpha is an fp32 scalar."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(x + offs, mask=mask)
    b = tl.load(y + offs, mask=mask)
    tl.store(out + offs, a + alpha * b, mask=mask)


@triton.jit
def row_softmax(out, inp, n_rows, n_cols, in_stride, out_stride, BLOCK: tl.constexpr):
    """Fused row softmax: one program per row reads the row once, computes max, exp, sum and the
    quotient in registers, and writes once (three kernels and two extra passes unfused).
    Rows of up to BLOCK columns; the grid is one program per row."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = (cols < n_cols) & (row < n_rows)
    x = tl.load(inp + row * in_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out + row * out_stride + cols, num / tl.sum(num, axis=0), mask=mask)
