"""A kernel file written for PyTorch (imports torch, computes an SM count at import) compiles
without torch: the spec's stub_modules loads it with stand-ins, stub_values gives what it computes
from the GPU, and a use of a stub as a value is an error at the user's line naming what to do."""
import json
import textwrap

import pytest

from conftest import write_spec
from tritonpack_compile.cli import compile_main
from tritonpack_compile.errors import SpecError
from tritonpack_compile.introspect import KernelLoadError, describe_kernel, load_module
from tritonpack_compile.spec import load_spec

TORCH_KERNELS = textwrap.dedent("""\
    import torch
    import torch.nn.functional as F
    import triton
    import triton.language as tl

    torch.backends.cuda.matmul.allow_tf32 = True
    DEVICE = torch.device("cuda")
    NUM_SMS = torch.cuda.get_device_properties("cuda").multi_processor_count
    WORKERS = 2 * NUM_SMS


    @triton.jit
    def scale(x_ptr, n, BLOCK: tl.constexpr):
        i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(x_ptr + i, tl.load(x_ptr + i, mask=i < n) * 2.0, mask=i < n)
    """)

SPEC = """\
    name = "torchy"
    targets = ["sm_80"]
    {extra}
    [[kernel]]
    source = "torch_kernels.py:scale"
    signatures = ["*fp32:16, i32"]
    constexprs = {{ BLOCK = 128 }}
    grid = ["cdiv(n, BLOCK)", 1, 1]
    """

STUBS = ('stub_modules = ["torch"]\n'
         'stub_values = { "torch.cuda.get_device_properties().multi_processor_count" = 132 }')


@pytest.fixture
def kfile(tmp_path):
    (tmp_path / "torch_kernels.py").write_text(TORCH_KERNELS)
    return tmp_path / "torch_kernels.py"


def test_without_stubs_torch_is_missing(kfile):
    with pytest.raises(KernelLoadError, match="No module named 'torch'"):
        describe_kernel(kfile, "scale")


def test_stubs_and_values_load_the_file_and_give_the_sm_count(kfile):
    stubs = {"modules": ["torch"], "values": {"torch.cuda.get_device_properties().multi_processor_count": 132}}
    info = describe_kernel(kfile, "scale", stubs)
    assert [p["name"] for p in info["params"]] == ["x_ptr", "n", "BLOCK"]
    mod = load_module(kfile, stubs)
    assert mod.NUM_SMS == 132 and mod.WORKERS == 264
    import sys
    assert "torch" not in sys.modules  # the stand-ins are gone once the file is loaded


def test_a_stub_used_as_a_value_is_named_at_the_users_line(tmp_path, kfile):
    spec = write_spec(tmp_path, SPEC.format(extra='stub_modules = ["torch"]'))
    with pytest.raises(SpecError) as e:
        from tritonpack_compile.frontend import compile_spec
        compile_spec(spec, tmp_path / "out", use_cache=False)
    msg = str(e.value)
    assert "torch_kernels.py:9" in msg
    assert ("torch.cuda.get_device_properties().multi_processor_count is used as an operand of rmul, but torch is a "
            "stub (the spec's stub_modules): if the kernel file computes a setting from it at import, give the value "
            "in the spec, e.g. stub_values = { \"torch.cuda.get_device_properties().multi_processor_count\" = 132 }") in msg


def test_spec_checks_stub_modules_and_values(tmp_path):
    bad = [("stub_modules = \"torch\"", "stub_modules: must be a list of module names"),
           ("stub_modules = [\"triton\"]", "'triton' cannot be a stub: the front end compiles with triton itself"),
           ("stub_modules = [\"torch-nn\"]", "'torch-nn' is not a module name"),
           ("stub_modules = [\"torch\"]\nstub_values = { \"numpy.pi\" = 3 }", "stub_values.numpy.pi: 'numpy.pi' is not under a module"),
           ("stub_modules = [\"torch\"]\nstub_values = { \"torch.x\" = [1] }", "stub_values.torch.x: must be a number")]
    (tmp_path / "torch_kernels.py").write_text(TORCH_KERNELS)
    for extra, fragment in bad:
        spec = write_spec(tmp_path, SPEC.format(extra=extra))
        with pytest.raises(SpecError, match=None) as e:
            load_spec(spec)
        assert fragment in str(e.value), (extra, str(e.value))
    spec = write_spec(tmp_path, SPEC.format(extra=STUBS))
    s = load_spec(spec)
    assert s.kernels[0].stubs == {"modules": ["torch"],
                                  "values": {"torch.cuda.get_device_properties().multi_processor_count": 132}}


@pytest.mark.slow
def test_a_pytorch_kernel_file_compiles_without_torch(tmp_path, kfile):
    spec = write_spec(tmp_path, SPEC.format(extra=STUBS))
    assert compile_main([str(spec), "-o", str(tmp_path / "out"), "--no-cache", "-q"]) == 0
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert [k["name"] for k in manifest["kernels"]] == ["scale"]


def test_extern_libs_option_resolves_relative_to_the_spec(tmp_path, kfile):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "libdevice.10.bc").write_bytes(b"BC")
    spec = write_spec(tmp_path, SPEC.format(extra=STUBS).replace(
        'grid = ["cdiv(n, BLOCK)", 1, 1]', 'grid = ["cdiv(n, BLOCK)", 1, 1]\noptions = { extern_libs = { libdevice = "lib/libdevice.10.bc" } }'))
    s = load_spec(spec)
    assert s.kernels[0].defaults["options"]["extern_libs"] == {"libdevice": str((tmp_path / "lib" / "libdevice.10.bc").resolve())}
    spec = write_spec(tmp_path, SPEC.format(extra=STUBS).replace(
        'grid = ["cdiv(n, BLOCK)", 1, 1]', 'grid = ["cdiv(n, BLOCK)", 1, 1]\noptions = { extern_libs = { libdevice = "nope.bc" } }'))
    with pytest.raises(SpecError, match=r"options.extern_libs.libdevice: nope.bc \(.*\) is not a file"):
        load_spec(spec)
