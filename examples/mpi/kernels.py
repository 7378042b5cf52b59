"""The MPI example's Triton kernels: one explicit time step of a field and a reduction of it.

Plain @triton.jit functions; main.cpp calls them through the generated header mpi_kernels.hpp.
"""
import triton
import triton.language as tl


@triton.jit
def time_step(u, f, u_next, n, dt, BLOCK: tl.constexpr):
    """u_next[i] = u[i] + dt * f[i] for i < n: an explicit Euler step of du/dt = f."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(u + offs, mask=mask)
    b = tl.load(f + offs, mask=mask)
    tl.store(u_next + offs, a + dt * b, mask=mask)


@triton.jit
def sum_squares(x, partial, n, BLOCK: tl.constexpr):
    """partial[p] = sum of x[i]^2 over program p's block: the host adds the partial sums."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x + offs, mask=offs < n, other=0.0)
    tl.store(partial + pid, tl.sum(v * v, axis=0))
