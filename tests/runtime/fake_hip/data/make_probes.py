# Regenerates the two probe code objects beside this file (Triton 3.6 on the CPU; no GPU needed):
#   PYTHONPATH= /work/venv/bin/python tests/runtime/fake_hip/data/make_probes.py
# They cover what the fixtures in tests/data do not: every scalar width with its alignment padding
# (mixed_scalars: i64, fp16, bf16, fp64, i1, i32) and hidden arguments (grid_size calls
# tl.num_programs, so its kernarg segment holds hidden_block_count_* etc. after the explicit ones).
import os

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource


@triton.jit
def mixed_scalars(out, a, b, c, d, flag, n):
    pid = tl.program_id(0)
    v = a.to(tl.float64) + b.to(tl.float64) + c.to(tl.float64) + d + flag.to(tl.float64) + n
    tl.store(out + pid, v)


@triton.jit
def grid_size(out, n):
    pid = tl.program_id(0)
    tl.store(out + pid, tl.num_programs(0) + n)


HERE = os.path.dirname(os.path.abspath(__file__))
PROBES = [
    (mixed_scalars, {"out": "*fp64", "a": "i64", "b": "fp16", "c": "bf16", "d": "fp64", "flag": "i1", "n": "i32"}, "gfx942"),
    (grid_size, {"out": "*i32", "n": "i32"}, "gfx90a"),
]
for fn, sig, arch in PROBES:
    k = triton.compile(ASTSource(fn, sig, {}), target=GPUTarget("hip", arch, 64), options={"num_warps": 4})
    with open(os.path.join(HERE, f"{fn.__name__}_{arch}.hsaco"), "wb") as f:
        f.write(k.asm["hsaco"])
