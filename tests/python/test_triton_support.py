"""The supported Triton versions (one clear error outside them, before anything compiles) and the
Triton APIs that differ between them (tritonpack_compile/triton_support.py)."""
import pytest

from conftest import SMALL_SPEC, write_spec
from tritonpack_compile import triton_support
from tritonpack_compile.cli import compile_main
from tritonpack_compile.errors import TritonpackError


# ---------------------------------------------------------------------------------------- the window

@pytest.mark.parametrize("version,ok", [
    ("3.6.0", True), ("3.7.1", True), ("3.8.0", True), ("3.9.0", True), ("3.9.1+git1a2b3c", True),
    ("3.5.0", False), ("3.5.1", False), ("3.10.0", False), ("3.10.0.dev0", False), ("4.0.0", False),
    ("2.3.1", False), ("unknown", False),
])
def test_window(version, ok):
    if ok:
        triton_support.check_supported(version)
    else:
        with pytest.raises(TritonpackError) as e:
            triton_support.check_supported(version)
        assert "supports Triton 3.6 to 3.9" in str(e.value)
        assert 'pip install "triton>=3.6,<3.10"' in str(e.value)


def test_pip_requirement_follows_the_bounds(monkeypatch):
    monkeypatch.setattr(triton_support, "SUPPORTED_MAX", (3, 12))
    assert triton_support.pip_requirement() == "triton>=3.6,<3.13"


@pytest.mark.parametrize("fake", ["3.5.0", "3.10.0", "4.0.0"])
def test_unsupported_triton_is_one_error_before_compiling(kdir, tmp_path, capfd, monkeypatch, fake):
    import triton
    monkeypatch.setattr(triton, "__version__", fake)
    spec = write_spec(kdir, SMALL_SPEC)
    cache = tmp_path / "cache"
    rc = compile_main([str(spec), "-o", str(kdir / "out"), "--cache-dir", str(cache)])
    cap = capfd.readouterr()
    assert rc == 2
    assert cap.err.startswith(f"error: Triton {fake} is installed in this Python (")
    assert "tritonpack-compile supports Triton 3.6 to 3.9" in cap.err
    assert 'pip install "triton>=3.6,<3.10"' in cap.err
    assert "Traceback" not in cap.err and len(cap.err.splitlines()) == 1
    assert not cache.exists() and not (kdir / "out").exists()   # nothing compiled, nothing written


def test_the_installed_triton_is_supported():
    from tritonpack_compile.frontend import triton_version
    triton_support.check_supported(triton_version())


# ---------------------------------------------------------------------------------------- llvm.translate_to_asm

class _Pybind:
    """A stand-in for a pybind11 function: its signature text and the calls it accepts."""

    def __init__(self, doc, required, optional=0):
        self.__doc__ = doc
        self.required, self.optional, self.calls = required, optional, []

    def __call__(self, *args):
        if not self.required <= len(args) <= self.required + self.optional:
            raise TypeError("translate_to_asm(): incompatible function arguments. ...")
        self.calls.append(args)
        return "asm"


class _LLVM:
    def __init__(self, fn):
        self.translate_to_asm = fn


SIG_36 = ("translate_to_asm(arg0: str, arg1: str, arg2: str, arg3: str, arg4: collections.abc.Sequence[str], "
          "arg5: bool, arg6: bool) -> object\n")
SIG_38 = ("translate_to_asm(arg0: str, arg1: str, arg2: str, arg3: str, arg4: collections.abc.Sequence[str], "
          "arg5: bool, arg6: bool, arg7: bool) -> object\n")
SIG_39 = ("translate_to_asm(llvm_ir: str, triple: str, proc: str, features: str, flags: "
          "collections.abc.Sequence[str], enable_fp_fusion: bool, is_object: bool, canonicalize_gep: bool, "
          "sched4reg: bool = False) -> object\n")


@pytest.mark.parametrize("doc,required,optional", [(SIG_36, 7, 0), (SIG_38, 8, 0), (SIG_39, 8, 1),
                                                   (None, 7, 0), (None, 8, 0), ("", 8, 0)])
def test_translate_to_asm_fits_each_signature(doc, required, optional):
    fn = _Pybind(doc, required, optional)
    args = ("ir", "triple", "help", "", [], False, True)
    assert triton_support.translate_to_asm(_LLVM(fn), *args) == "asm"
    assert fn.calls[-1] == args + (False,) * (required - 7)


def test_translate_to_asm_with_an_unknown_parameter_is_a_clear_error():
    doc = SIG_38.replace("arg7: bool", "arg7: str")
    with pytest.raises(TritonpackError, match="parameters the front end does not know"):
        triton_support.translate_to_asm(_LLVM(_Pybind(doc, 8)), "ir", "t", "help", "", [], False, False)


@pytest.mark.slow
def test_translate_to_asm_with_the_installed_triton():
    import subprocess
    import sys
    from conftest import env_with_pkg
    code = ("from triton._C.libtriton import llvm\n"
            "from tritonpack_compile.triton_support import translate_to_asm\n"
            "llvm.init_targets()\n"
            "print(translate_to_asm(llvm, 'define void @f() {\\n  ret void\\n}\\n', 'nvptx64-nvidia-cuda', "
            "'sm_80', '', [], False, False))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env_with_pkg())
    assert r.returncode == 0, r.stderr
    assert ".target sm_80" in r.stdout


# ---------------------------------------------------------------------------------------- fp fusion

@pytest.mark.slow
@pytest.mark.parametrize("options,expected", [("", True), ("options = {enable_fp_fusion = false}", False),
                                              ("options = {enable_fp_fusion = true}", True)])
def test_triton_compile_is_always_given_enable_fp_fusion(kdir, monkeypatch, options, expected):
    """Triton's default changes (off from 3.10), so the worker always passes the spec's value, or
    the front end's default (on)."""
    import triton
    from tritonpack_compile import worker
    from tritonpack_compile.frontend import _worker_payload
    from tritonpack_compile.introspect import describe_kernel
    from tritonpack_compile.spec import bind_kernel, load_spec
    spec = load_spec(write_spec(kdir, SMALL_SPEC + "    " + options + "\n"))
    ks = spec.kernels[0]
    bk = bind_kernel(spec, ks, describe_kernel(ks.source_path, ks.function))
    job = dict(_worker_payload(bk, 0, ks.targets[0], False), out_dir=str(kdir / "o"))
    given = []
    monkeypatch.setattr(triton, "compile", lambda src, target=None, options=None: given.append(options))
    worker._compile(job)
    assert given[0]["enable_fp_fusion"] is expected
    assert triton_support.DEFAULT_FP_FUSION is True
