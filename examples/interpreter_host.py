"""interpreter_host.py — what the examples' interpreter checks (examples/*/interpret_check.py) share:
a numpy array passed to a kernel run by Triton's interpreter (TRITON_INTERPRET=1) on the CPU."""

import numpy as np


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
