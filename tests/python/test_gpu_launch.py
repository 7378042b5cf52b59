"""On an NVIDIA GPU node only: launch what the front end produced, through the CUDA driver API
(ctypes, no torch), and check the results. Skipped where libcuda.so.1 or a GPU is missing.

This checks the front end's artifacts end to end: that the committed fixture images run with the
parameter list the manifest gives (kernel_params + Triton's two scratch pointers, an fp32 scalar
passed as a 4-byte float), and that the generic, non-'a' sm_90 PTX made for forward compatibility
is accepted by the driver's JIT and computes the same thing.
"""
import ctypes
import json
import math
import random
import shutil
import struct

import pytest

from conftest import DATA, write_spec

ART = DATA / "artifacts"


class Cuda:
    def __init__(self):
        try:
            self.lib = ctypes.CDLL("libcuda.so.1")
        except OSError:
            pytest.skip("no CUDA driver (libcuda.so.1) on this machine")
        if self.lib.cuInit(0) != 0:
            pytest.skip("cuInit failed: no usable NVIDIA GPU")
        dev = ctypes.c_int()
        self.check(self.lib.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
        major, minor = ctypes.c_int(), ctypes.c_int()
        self.check(self.lib.cuDeviceGetAttribute(ctypes.byref(major), 75, dev), "major")
        self.check(self.lib.cuDeviceGetAttribute(ctypes.byref(minor), 76, dev), "minor")
        self.cc = major.value * 10 + minor.value
        self.ctx = ctypes.c_void_p()
        self.check(self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(self.ctx), dev), "retain")
        self.check(self.lib.cuCtxSetCurrent(self.ctx), "set current")
        self.lib.cuMemAlloc_v2.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t]
        self.lib.cuMemcpyHtoD_v2.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t]
        self.lib.cuMemcpyDtoH_v2.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t]
        self.lib.cuMemFree_v2.argtypes = [ctypes.c_uint64]
        self.lib.cuLaunchKernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [
            ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]

    def check(self, rc, what):
        assert rc == 0, f"{what}: CUDA error {rc}"

    def load(self, data: bytes, name: str):
        mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
        buf = ctypes.create_string_buffer(data + b"\0")
        self.check(self.lib.cuModuleLoadData(ctypes.byref(mod), buf), "cuModuleLoadData")
        self.check(self.lib.cuModuleGetFunction(ctypes.byref(fn), mod, name.encode()), "cuModuleGetFunction")
        return fn

    def alloc(self, raw: bytes):
        p = ctypes.c_uint64()
        self.check(self.lib.cuMemAlloc_v2(ctypes.byref(p), max(len(raw), 16)), "cuMemAlloc")
        self.check(self.lib.cuMemcpyHtoD_v2(p.value, raw, len(raw)), "HtoD")
        return p.value

    def read(self, ptr, n):
        buf = ctypes.create_string_buffer(n)
        self.check(self.lib.cuCtxSynchronize(), "cuCtxSynchronize (kernel)")
        self.check(self.lib.cuMemcpyDtoH_v2(buf, ptr, n), "DtoH")
        return buf.raw

    def launch(self, fn, grid, md, args):
        """args: (type, value) in kernel_params order; Triton's two scratch pointers are appended."""
        store = []
        for ty, v in list(args) + [("*", 0), ("*", 0)]:
            c = {"*": ctypes.c_uint64, "i32": ctypes.c_int32, "fp32": ctypes.c_float}[ty](v)
            store.append(c)
        params = (ctypes.c_void_p * len(store))(*[ctypes.cast(ctypes.byref(c), ctypes.c_void_p) for c in store])
        self.check(self.lib.cuLaunchKernel(fn, grid[0], grid[1], grid[2], md["warp_size"] * md["num_warps"], 1, 1,
                                           md["shared"], None, params, None), "cuLaunchKernel")


@pytest.fixture(scope="module")
def cuda():
    return Cuda()


def f32(xs):
    return struct.pack(f"<{len(xs)}f", *xs)


def unf32(b):
    return list(struct.unpack(f"<{len(b) // 4}f", b))


def runnable(images, cc):
    """The images of a variant this device can run: same-major cubins without 'a' (or the exact
    'a' one) and every PTX whose target is <= the device."""
    out = []
    for img in images:
        if img["backend"] != "cuda":
            continue
        arch = img["arch"]
        num = int(arch[3:].rstrip("a"))
        if img["kind"] == "cubin" and (num == cc if arch.endswith("a") else (num // 10 == cc // 10 and num <= cc)):
            out.append(img)
        if img["kind"] == "ptx" and num <= cc and (not arch.endswith("a") or num == cc):
            out.append(img)
    return out


def check_vector_add(cuda, base, kernel, variant, img):
    md = json.loads((base / img["metadata"]).read_text())
    fn = cuda.load((base / img["file"]).read_bytes(), md["name"])
    n = 4096 if variant["specs"][3]["kind"] == "div16" else 1000
    alpha = 0.5
    x = [random.uniform(-1, 1) for _ in range(n)]
    y = [random.uniform(-1, 1) for _ in range(n)]
    px, py, po = cuda.alloc(f32(x)), cuda.alloc(f32(y)), cuda.alloc(bytes(4 * n))
    values = {"x": ("*", px), "y": ("*", py), "out": ("*", po), "n": ("i32", n), "alpha": ("fp32", alpha)}
    block = variant["config"]["constexprs"]["BLOCK"]
    cuda.launch(fn, (math.ceil(n / block), 1, 1), md, [values[p] for p in variant["kernel_params"]])
    got = unf32(cuda.read(po, 4 * n))
    want = [a + alpha * b for a, b in zip(x, y)]
    assert max(abs(g - w) for g, w in zip(got, want)) < 1e-5, f"{img['file']}"


def test_fixture_images_run(cuda):
    m = json.loads((ART / "manifest.json").read_text())
    va = m["kernels"][0]
    ran = []
    for v in va["variants"]:
        for img in runnable(v["images"], cuda.cc):
            check_vector_add(cuda, ART, va, v, img)
            ran.append(img["file"])
    assert ran, f"no fixture image for compute capability {cuda.cc}"


def test_generic_sm90_ptx_runs(cuda, tmp_path, shared_cache):
    if cuda.cc < 90:
        pytest.skip("needs a GPU of capability 9.0 or later")
    from tritonpack_compile.frontend import compile_spec
    import io
    shutil.copy(DATA / "kernels.py", tmp_path / "kernels.py")
    spec = write_spec(tmp_path, """
        targets = ["sm_90"]
        mode = "ir"
        [[kernel]]
        source = "kernels.py:vector_add"
        signatures = ["*fp32:16, *fp32:16, *fp32:16, i32:16, fp32", "*fp32, *fp32, *fp32, i32, fp32"]
        constexprs = {BLOCK = 1024}
        grid = ["cdiv(n, BLOCK)", 1, 1]
    """)
    outcome = compile_spec(spec, tmp_path / "out", jobs=2, cache_dir=shared_cache, stream=io.StringIO())
    assert not outcome.failures
    va = outcome.manifest["kernels"][0]
    for v in va["variants"]:
        (gen,) = [i for i in v["images"] if i.get("generic_ptx")]
        assert gen["arch"] == "sm_90"
        check_vector_add(cuda, tmp_path / "out", va, v, gen)
