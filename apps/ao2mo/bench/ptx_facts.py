#!/usr/bin/env python3
"""ptx_facts.py — what the Triton TTGT kernels compile to on sm_90, read from the PTX here (no GPU):
global load/store vector widths and cp.async sizes of `permute4` (each signature of
tensor4_configs.toml, and the ALIGN=8 variant) and of `gemm` (the K-major signature, the b-along-n
signature with any a, the general one), wgmma / mma.sync counts.

    /work/venv/bin/python apps/ao2mo/bench/ptx_facts.py
    /work/venv/bin/python apps/ao2mo/bench/ptx_facts.py --sass build-bench   # the packed cubins' SASS instead

With --sass BUILD: the cubins tritonpack packed for tensor4_configs (BUILD/apps/ao2mo/bench/tritonpack/
configs/artifacts), every variant of gemm_* and permute4*, disassembled with Triton's nvdisasm:
LDG/STG widths, LDGSTS (cp.async) 4-byte or .128, FFMA counts.
"""
import collections
import os
import re
import sys

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # the app: kernels.py
import kernels  # noqa: E402

TARGET = GPUTarget("cuda", 90, 32)


def compile_kernel(fn, names, spec, constexprs, warps, stages):
    """spec: one entry per name, '' (i32/pointer), '16' (divisible by 16) or '1' (folded)."""
    sig, const, attrs = {}, dict(constexprs), {}
    for i, (n, s) in enumerate(zip(names, spec)):
        sig[n] = "*fp32" if i < 3 and fn is kernels.gemm or (i < 2 and fn is kernels.permute4) else "i32"
        if s == "1":
            sig[n], const[n] = "constexpr", 1
        elif s == "16":
            attrs[(i,)] = [["tt.divisibility", 16]]
    for n in constexprs:
        sig[n] = "constexpr"
    src = ASTSource(fn=fn, signature=sig, constexprs=const, attrs=attrs)
    return triton.compile(src, target=TARGET, options=dict(num_warps=warps, num_stages=stages))


def facts(ptx):
    loads = collections.Counter(re.findall(r"ld\.global(?:\.[a-z0-9_]+)*?(\.v[248])?\.b32", ptx))
    stores = collections.Counter(re.findall(r"st\.global(?:\.[a-z0-9_]+)*?(\.v[248])?\.b32", ptx))
    cp = collections.Counter(int(n, 0) for n in re.findall(r"cp\.async\.c[ag]\.shared\.global \[[^\]]*\], \[[^\]]*\], (0x[0-9a-f]+|\d+)", ptx))
    width = lambda c: {(k or ".v1")[1:]: v for k, v in sorted(c.items())}  # noqa: E731
    return (f"ld.global {width(loads)} st.global {width(stores)} cp.async bytes {dict(cp)} "
            f"wgmma {len(re.findall('wgmma.mma_async', ptx))} mma.sync {len(re.findall('mma.sync', ptx))}")


PERMUTE = ["inp", "out", "P", "Q", "R", "C", "si_p", "si_q", "si_r", "si_c", "so_p", "so_q", "so_r"]
# The signatures of tensor4_configs.toml's permute4 (pointers always :16).
PERMUTE_SIGS = {
    "transpose (input fastest along r)": ["16", "16", "", "", "16", "16", "16", "16", "1", "16", "16", "16", "16"],
    "runs (input fastest along c)": ["16", "16", "", "", "16", "16", "16", "16", "16", "1", "16", "16", "16"],
    "general": ["16", "16"] + [""] * 11,
    "ALIGN=8, input fastest along r (extent 72)": ["16", "16"] + [""] * 11,
    "ALIGN=8, input fastest along c (extent 72)": ["16", "16"] + [""] * 11,
}
GEMM = ["a", "b", "out", "M", "N", "K", "B", "sa_b", "sa_m", "sa_k", "sb_b", "sb_k", "sb_n", "so_b", "so_m", "so_n"]
GEMM_SIGS = {
    "K-major (sa_k = sb_k = 1)": "16 16 16 16 16 16 _ 16 16 1 16 1 16 16 16 1",
    "b along n, any a (abcd-ea-ebcd)": "16 16 16 _ 16 _ _ _ _ _ 16 16 1 16 16 1",
    "general": "16 16 16 _ _ _ _ _ _ _ _ _ _ _ _ _",
}

def sass_facts(build):
    import json
    import subprocess
    root = os.path.join(build, "apps", "ao2mo", "bench", "tritonpack", "configs", "artifacts")
    nvdisasm = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "nvdisasm")
    with open(os.path.join(root, "manifest.json")) as f:
        manifest = json.load(f)
    for k in manifest["kernels"]:
        if not k["name"].startswith(("gemm_", "permute4")):
            continue
        for v in k["variants"]:
            sass = subprocess.run([nvdisasm, os.path.join(root, v["images"][0]["file"])], capture_output=True, text=True, check=True).stdout
            ops = collections.Counter(re.sub(r"\.(CONSTANT|EF|EL|LU|LTC128B|STRONG\.GPU)", "", o) for o in
                                      re.findall(r"\b(LDGSTS\.E[.A-Z0-9]*|LDG\.E[.A-Z0-9]*|STG\.E[.A-Z0-9]*|HGMMA|FFMA)\b", sass))
            c = v["config"]
            tile = "x".join(str(x) for n, x in c["constexprs"].items() if n.startswith("BLOCK_"))
            print(f"{k['name']} [{v['signature'].replace('*fp32:16, ', '')}] {tile} w{c['num_warps']}s{c['num_stages']}: "
                  + ", ".join(f"{o} {n}" for o, n in sorted(ops.items())))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--sass":
        sass_facts(sys.argv[2])
        sys.exit(0)
    for label, spec in PERMUTE_SIGS.items():
        for br, bc, w in ((32, 32, 4), (64, 64, 8)):
            align = 8 if "ALIGN" in label else 1
            c = compile_kernel(kernels.permute4, PERMUTE, spec, dict(BLOCK_R=br, BLOCK_C=bc, ALIGN=align, UNIT_R=int("along r" in label)), w, 1)
            print(f"permute4 {label}, {br}x{bc} w{w}: {facts(c.asm['ptx'])}")
    for label, spec in GEMM_SIGS.items():
        spec = ["" if s == "_" else s for s in spec.split()]
        for prec, (bm, bn, bk, w, s) in (("ieee", (128, 128, 16, 8, 2)), ("tf32", (128, 128, 32, 8, 3)), ("tf32", (128, 256, 32, 8, 1))):
            c = compile_kernel(kernels.gemm, GEMM, spec, dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, PRECISION=prec), w, s)
            print(f"gemm {label}, {prec} m{bm}n{bn}k{bk}w{w}s{s}: {facts(c.asm['ptx'])}")
