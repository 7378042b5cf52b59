"""A Gluon kernel (@gluon.jit, explicit layouts) for the front end's tests: y = 2 x."""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@gluon.jit
def scale2(x_ptr, y_ptr, n, BLOCK: gl.constexpr):
    # 4 warps of 32 lanes: written for NVIDIA GPUs (a 64-lane AMD wavefront does not fit it)
    layout: gl.constexpr = gl.BlockedLayout([1], [32], [4], [0])
    offs = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout=layout)
    mask = offs < n
    x = gl.load(x_ptr + offs, mask=mask)
    gl.store(y_ptr + offs, x * 2.0, mask=mask)
