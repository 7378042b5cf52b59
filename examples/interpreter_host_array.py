"""HostArray: a numpy array dressed as the torch tensor Triton's interpreter expects, for the
examples' interpreter checks (examples/*/interpret_check.py), which run kernels on the CPU without
torch. The data is host memory already, so the interpreter's copies to and from "the device" are
no-ops.
"""
import numpy as np


class HostArray:
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
