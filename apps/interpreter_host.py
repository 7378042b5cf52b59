"""interpreter_host.py — what the apps' interpreter checks (apps/*/interpret_check.py) share.
Import it before triton: it turns Triton's interpreter on (TRITON_INTERPRET=1, kernels run on the CPU
with numpy), exits 77 (ctest: skipped) without numpy 1.x, and gives `np` and HostArray, a numpy
array passed to a kernel."""

import os
import sys

os.environ["TRITON_INTERPRET"] = "1"
_tool = os.path.basename(sys.argv[0]) or "interpret_check"
try:
    import numpy as np
except ImportError:
    print(f"{_tool}: skipped, Triton's interpreter needs numpy (pip install \"numpy<2\")")
    sys.exit(77)
if int(np.__version__.split(".")[0]) >= 2:
    # Triton 3.6's interpreter turns 1-element arrays into ints, which numpy 2 refuses.
    print(f"{_tool}: skipped, Triton 3.6's interpreter needs numpy 1.x, this is {np.__version__}")
    sys.exit(77)


class HostArray:
    """A numpy array dressed as the torch tensor the interpreter expects (it is host memory already,
    so the interpreter's copies to and from "the device" are no-ops). A contiguous array is used in
    place: the kernel's stores land in it."""

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
        return tuple(s // self.a.itemsize for s in self.a.strides)

    def copy_(self, other):
        return self
