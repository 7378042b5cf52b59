#!/usr/bin/env python3
"""Evidence for docs/spec.md "Generic AMDGPU targets": what Triton 3.6 does with LLVM's generic
AMDGPU targets (gfx9-4-generic, gfx11-generic, ...). No GPU needed; run with the project's venv:

    /work/venv/bin/python scripts/probe-amd-generic-targets.py

1. triton.compile for a generic name fails in Triton's front end (HIPOptions parses the gfx major
   from the name).
2. The front end could retarget the LLVM IR Triton wrote for gfx942 with Triton's own LLVM 22, as it
   does for generic sm_90 PTX: LLVM refuses at code object v5, the version Triton sets, and compiles
   at v6. Each step runs in a child process, because LLVM reports the first failure by aborting.
"""
import subprocess
import sys
import tempfile

KERNEL = r'''
import triton, triton.language as tl
from triton.backends.compiler import GPUTarget

@triton.jit
def axpy(x, y, out, a, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    tl.store(out + i, a * tl.load(x + i, mask=m) + tl.load(y + i, mask=m), mask=m)

src = triton.compiler.ASTSource(fn=axpy, signature={"x": "*fp32", "y": "*fp32", "out": "*fp32", "a": "fp32", "n": "i32"},
                                constexprs={"BLOCK": 1024})
'''

COMPILE_GENERIC = KERNEL + r'''
import sys
try:
    triton.compile(src, target=GPUTarget("hip", sys.argv[1], 64))
    print("compiled")
except Exception as e:
    print(f"{type(e).__name__}: {e}")
'''

RETARGET = KERNEL + r'''
import struct, sys, tempfile
from triton._C.libtriton import llvm, amd
cov = int(sys.argv[1])
llir = triton.compile(src, target=GPUTarget("hip", "gfx942", 64)).asm["llir"]
llir = llir.replace('"amdhsa_code_object_version", i32 500', f'"amdhsa_code_object_version", i32 {cov}')
llvm.init_targets()
asm = llvm.translate_to_asm(llir, amd.TARGET_TRIPLE, "gfx9-4-generic", "", [], True, False)
obj = amd.assemble_amdgcn(asm, "gfx9-4-generic", "")
with tempfile.NamedTemporaryFile() as i, tempfile.NamedTemporaryFile() as o:
    open(i.name, "wb").write(obj)
    amd.link_hsaco(i.name, o.name)
    h = open(o.name, "rb").read()
flags = struct.unpack_from("<I", h, 48)[0]
print(f"code object {len(h)} bytes, EI_ABIVERSION {h[8]}, e_flags {flags:#x} (MACH {flags & 0xff:#x}, "
      f"generic version {flags >> 24})")
'''


def run(code, *args):
    # @triton.jit needs its source in a file.
    with tempfile.NamedTemporaryFile("w", suffix=".py") as f:
        f.write(code)
        f.flush()
        p = subprocess.run([sys.executable, f.name, *args], capture_output=True, text=True, timeout=300)
    lines = (p.stdout + p.stderr).strip().splitlines()
    return f"(exit {p.returncode}) " + (lines[-1] if lines else "")


for name in ("gfx9-4-generic", "gfx11-generic"):
    print(f"triton.compile for {name}: {run(COMPILE_GENERIC, name)}")
for cov in (500, 600):
    print(f"gfx942 LLIR retargeted to gfx9-4-generic, code object v{cov // 100}: {run(RETARGET, str(cov))}")
