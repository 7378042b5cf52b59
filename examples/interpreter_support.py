"""What the examples' interpreter checks (examples/*/interpret_check.py) share to run kernels on the
CPU, in Triton's interpreter, without torch: numpy 1.x or a skip (exit 77, ctest's skip code), and
HostArray. Import it before triton: it sets TRITON_INTERPRET.
"""
import os
import sys

os.environ["TRITON_INTERPRET"] = "1"

try:
    import numpy as np
except ImportError:
    print("interpret_check: skipped, Triton's interpreter needs numpy (pip install \"numpy<2\")")
    sys.exit(77)
if int(np.__version__.split(".")[0]) >= 2:
    # Triton 3.6's interpreter turns 1-element arrays into ints, which numpy 2 refuses.
    print(f"interpret_check: skipped, Triton 3.6's interpreter needs numpy 1.x, this is {np.__version__}")
    sys.exit(77)
np.seterr(all="ignore")  # masked-off lanes divide by zero and 64-bit products wrap, as on the GPU


class HostArray:
    """A numpy array dressed as the torch tensor the interpreter expects (host memory already, so the
    interpreter's copies to and from "the device" are no-ops)."""

    def __init__(self, a):
        self.a = np.ascontiguousarray(a)
        self.dtype = self.a.dtype

    def data_ptr(self):
        return self.a.ctypes.data

    def untyped_storage(self):
        return self

    def cpu(self):
        return self

    def new_empty(self, *args, **kwargs):
        return self

    def set_(self, *args):
        return self

    def storage_offset(self):
        return 0

    def size(self):
        return self.a.shape

    def stride(self):
        return (1,)

    def copy_(self, other):
        pass
