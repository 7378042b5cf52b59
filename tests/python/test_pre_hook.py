"""@triton.autotune pre_hooks (docs/spec.md "Tuning", generator/python/tritonpack_compile/pre_hook.py).

Triton's persistent-matmul tutorial gives each TensorDescriptor the config's block shape in a
pre_hook. Nothing runs that hook at a tritonpack launch: compiled with the signature's one block
shape, configs with another BLOCK_K read overlapping tiles and tuning may keep one of them (a wrong
result, nothing raised). So a hook is an error unless the spec says what it does, and with
pre_hook = "block_shapes" each config compiles with the block shapes its hook sets."""
import json

import pytest

from conftest import write_spec
from tritonpack_compile.errors import SpecError
from tritonpack_compile.frontend import _worker_payload, compile_spec, prepare, triton_version
from tritonpack_compile.manifest import check_manifest
from tritonpack_compile.spec import load_spec

# The tutorial's TMA matmul (09-persistent-matmul.py, matmul_kernel_tma) cut to what matters here:
# configs that differ in BLOCK_N and BLOCK_K, the descriptors' block shapes set by the hook.
TMA_MATMUL = '''
import triton
import triton.language as tl


def set_block_shapes(nargs):
    BLOCK_M, BLOCK_N, BLOCK_K = nargs["BLOCK_M"], nargs["BLOCK_N"], nargs["BLOCK_K"]
    nargs["a_desc"].block_shape = [BLOCK_M, BLOCK_K]
    nargs["b_desc"].block_shape = [BLOCK_N, BLOCK_K]
    nargs["c_desc"].block_shape = [BLOCK_M, BLOCK_N // 2] if nargs.get("SUBTILE", False) else [BLOCK_M, BLOCK_N]


def zero_c_too(nargs):
    set_block_shapes(nargs)
    nargs["c_desc"].base.zero_()


def HOOK_CONFIGS(hook):
    return [triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64}, num_warps=4, num_stages=3, pre_hook=hook),
            triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 32}, num_warps=4, num_stages=3, pre_hook=hook)]


@triton.autotune(configs=HOOK_CONFIGS(set_block_shapes), key=["M", "N", "K"])
@triton.jit
def tma_matmul(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
               BLOCK_K: tl.constexpr, SUBTILE: tl.constexpr = False):
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    offs_m = (pid // num_pid_n) * BLOCK_M
    offs_n = (pid % num_pid_n) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([offs_m, k * BLOCK_K])
        b = b_desc.load([offs_n, k * BLOCK_K])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([offs_m, offs_n], acc.to(tl.float16))


@triton.autotune(configs=HOOK_CONFIGS(zero_c_too), key=["M", "N", "K"])
@triton.jit
def tma_matmul_zeroing(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                       BLOCK_K: tl.constexpr):
    pass


def set_m_block(nargs):
    nargs["M"].block_shape = [64, 64]


@triton.autotune(configs=HOOK_CONFIGS(set_m_block), key=["M"])
@triton.jit
def hook_on_an_integer(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                       BLOCK_K: tl.constexpr):
    pass


def three_dims(nargs):
    nargs["a_desc"].block_shape = [1, 64, 64]


@triton.autotune(configs=HOOK_CONFIGS(three_dims), key=["M"])
@triton.jit
def wrong_rank(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
               BLOCK_K: tl.constexpr):
    pass


@triton.autotune(configs=[triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64})], key=["M"])
@triton.jit
def no_hook(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
            BLOCK_K: tl.constexpr):
    pass
'''

# The signature's block is the shape the caller's Python code would start from; the hook replaces it.
SIG = "tensordesc<fp16[64, 64]>, tensordesc<fp16[64, 64]>, tensordesc<fp16[64, 64]>, i32, i32, i32"


def spec_for(d, function, extra="", sig=SIG):
    (d / "tma.py").write_text(TMA_MATMUL)
    return write_spec(d, f"""
        targets = ["sm_90"]
        mode = "binary"
        [[kernel]]
        source = "tma.py:{function}"
        signatures = ["{sig}"]
        configs = "autotune"
        grid = ["cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)", 1, 1]
        {extra}
    """)


def bind(p):
    return prepare(load_spec(p), triton_version(), None)[0]


def expect_error(p, fragment, key="pre_hook"):
    with pytest.raises(SpecError) as e:
        bind(p)
    msg = str(e.value)
    assert f": {key}: " in msg and fragment in msg, msg
    return msg


def test_a_pre_hook_the_spec_does_not_explain_is_an_error(tmp_path):
    msg = expect_error(spec_for(tmp_path, "tma_matmul"), "autotune config 0 of 'tma_matmul' has a pre_hook")
    assert 'pre_hook = "block_shapes"' in msg and 'pre_hook = "ignore"' in msg


def test_block_shapes_compile_each_config_with_the_shapes_its_hook_sets(tmp_path):
    (k,) = bind(spec_for(tmp_path, "tma_matmul", 'pre_hook = "block_shapes"'))
    # Config 0's shapes are the signature's, so only config 1 records its own.
    assert [v.descriptor_blocks for v in k.variants] == [
        {}, {"a_desc": [64, 32], "b_desc": [128, 32], "c_desc": [64, 128]}]
    sigs = [_worker_payload(k, i, k.spec.targets[0], False)["signature"] for i in range(2)]
    assert [s["a_desc"] for s in sigs] == ["tensordesc<fp16[64,64]>", "tensordesc<fp16[64,32]>"]
    assert [s["b_desc"] for s in sigs] == ["tensordesc<fp16[64,64]>", "tensordesc<fp16[128,32]>"]
    assert [s["c_desc"] for s in sigs] == ["tensordesc<fp16[64,64]>", "tensordesc<fp16[64,128]>"]
    # The C++ function keeps one descriptor type: element type and rank are all it depends on.
    assert [a["type"] for a in k.args[:3]] == ["tensordesc<fp16[64,64]>"] * 3


def test_a_hook_that_does_more_than_set_block_shapes_is_refused(tmp_path):
    msg = expect_error(spec_for(tmp_path, "tma_matmul_zeroing", 'pre_hook = "block_shapes"'),
                       "the pre_hook of autotune config 0 does more than set tensor descriptor block shapes: "
                       "it reads c_desc.base")
    assert 'set pre_hook = "ignore"' in msg


def test_ignore_compiles_with_the_signatures_block_shape(tmp_path):
    (k,) = bind(spec_for(tmp_path, "tma_matmul", 'pre_hook = "ignore"'))
    assert all(not v.descriptor_blocks for v in k.variants)


@pytest.mark.parametrize("function,extra,fragment", [
    ("no_hook", 'pre_hook = "ignore"', "no config of 'no_hook' has a pre_hook"),
    ("tma_matmul", 'pre_hook = "yes"', 'must be "block_shapes"'),
    ("hook_on_an_integer", 'pre_hook = "block_shapes"', "sets M.block_shape, but 'M' is i32 there"),
    ("wrong_rank", 'pre_hook = "block_shapes"', "sets a_desc.block_shape to [1, 64, 64] (3 dimensions)"),
])
def test_pre_hook_errors(tmp_path, function, extra, fragment):
    with pytest.raises(SpecError) as e:
        bind(spec_for(tmp_path, function, extra))
    assert ": pre_hook: " in str(e.value) and fragment in str(e.value), str(e.value)


def test_manifest_descriptor_blocks_are_checked():
    m = {"schema": "tritonpack-manifest", "version": 1, "generator": "g", "triton_version": "3.6.0",
         "name": "t", "mode": "binary", "kernels": [{
             "name": "k", "source": "k.py:k", "args": [{"name": "d", "type": "tensordesc<fp16[64,64]>"},
                                                      {"name": "n", "type": "i32"}],
             "grid": ["1", "1", "1"], "variants": [{
                 "signature": "s", "specs": [{"kind": "none"}, {"kind": "none"}],
                 "config": {"num_warps": 4, "num_stages": 3, "num_ctas": 1, "constexprs": {}},
                 "kernel_params": ["d", "n"], "descriptor_blocks": {"d": [64], "n": [1]},
                 "images": [{"file": "k.cubin", "backend": "cuda", "kind": "cubin", "arch": "sm_90a",
                             "metadata": "k.json"}]}]}]}
    errs = check_manifest(m)
    assert any("descriptor_blocks.d: must be 2 positive integers" in e for e in errs), errs
    assert any("descriptor_blocks: 'n' is not a tensordesc argument" in e for e in errs), errs


@pytest.mark.slow
def test_each_config_image_carries_its_own_block_shape(tmp_path, shared_cache):
    """Compiled for sm_90 (TMA): each image's tensordesc_meta, from which the run time builds the
    descriptor, has the block shape its config's hook set."""
    p = spec_for(tmp_path, "tma_matmul", 'pre_hook = "block_shapes"')
    out = tmp_path / "out"
    compile_spec(p, out, jobs=2, cache_dir=shared_cache, quiet=True)
    m = json.loads((out / "manifest.json").read_text())
    (k,) = m["kernels"]
    assert [v.get("descriptor_blocks", {}) for v in k["variants"]] == [
        {}, {"a_desc": [64, 32], "b_desc": [128, 32], "c_desc": [64, 128]}]
    blocks = []
    for v in k["variants"]:
        (img,) = v["images"]
        meta = json.loads((out / img["metadata"]).read_text())
        blocks.append([d["block_size"] for d in meta["tensordesc_meta"][:2]])
    # a_desc and b_desc: the TMA box is the block. (c_desc's [64, 128] fp16 rows are 256 bytes,
    # wider than the 128-byte swizzle, so Triton stores them in two boxes of [64, 64].)
    assert blocks == [[[64, 64], [64, 64]], [[64, 32], [128, 32]]]
