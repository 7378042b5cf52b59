"""The kernel toolchain.py compiles to learn whether Triton's AMD backend supports a processor
(a load and a store: code generation must select them)."""
import triton
import triton.language as tl


@triton.jit
def store_one(x, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    tl.store(x + o, tl.load(x + o) + 1)
