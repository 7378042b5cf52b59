"""A Gluon kernel (@gluon.jit: Triton's lower-level language, explicit layouts) for the GPU test
of tests/gpu/gluon: y = a x + b, with a masked tail."""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@gluon.jit
def axpb(x_ptr, y_ptr, n, a, b, BLOCK: gl.constexpr):
    # 4 warps of 32 lanes, 4 elements a lane: written for NVIDIA GPUs (a 64-lane AMD wavefront
    # does not fit this layout), so the spec lists NVIDIA targets only.
    layout: gl.constexpr = gl.BlockedLayout([4], [32], [4], [0])
    offs = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout=layout)
    mask = offs < n
    x = gl.load(x_ptr + offs, mask=mask)
    gl.store(y_ptr + offs, x * a + b, mask=mask)
