"""Signature parsing: our rules, and agreement with Triton's own AOT parser (tools/compile.py)."""
import pytest

from tritonpack_compile.errors import SyntaxProblem
from tritonpack_compile.signature import parse_entry, parse_signature, split_entries


def test_simple():
    es = parse_signature("*fp32:16, *fp32, i32:16, i32:1, fp32, 1024, 0.5")
    assert [e.type for e in es] == ["*fp32", "*fp32", "i32", "i32", "fp32", None, None]
    assert [e.hint for e in es] == [16, None, 16, 1, None, None, None]
    assert [e.spec_kind for e in es] == ["div16", "none", "div16", "equal1", "none", "constexpr", "constexpr"]
    assert [e.is_passed for e in es] == [True, True, True, False, True, False, False]
    assert es[5].constexpr_value() == 1024 and isinstance(es[5].constexpr_value(), int)
    assert es[6].constexpr_value() == 0.5


def test_whitespace_and_empty():
    assert [e.text for e in parse_signature("  *fp16:16 ,i64  ")] == ["*fp16:16", "i64"]
    assert parse_signature("   ") == []


def test_negative_and_exponent_constants():
    assert parse_entry("-3").constexpr_value() == -3
    assert parse_entry("1e-3").constexpr_value() == 0.001


def test_tensordesc_keeps_its_commas():
    es = parse_signature("tensordesc<fp16[64, 64]>, *fp32, i32")
    assert es[0].type == "tensordesc<fp16[64,64]>"
    assert len(es) == 3
    assert split_entries("a<b, c>, d[1, 2], e") == ["a<b, c>", "d[1, 2]", "e"]


@pytest.mark.parametrize("ty", ["*i1", "*i8", "*u8", "*i16", "*u16", "*i32", "*u32", "*i64", "*u64",
                                "*fp16", "*bf16", "*fp32", "*fp64", "*fp8e4nv", "*fp8e5", "*fp8e4b15",
                                "*kfp32", "i1", "u1", "i8", "u8", "i16", "u16", "i32", "u32", "i64",
                                "u64", "fp16", "bf16", "fp32", "fp64"])
def test_all_types(ty):
    assert parse_entry(ty).type == ty


@pytest.mark.parametrize("text,fragment", [
    ("i33", "unknown type 'i33'"),
    ("*float", "unknown pointer element type 'float'"),
    ("float32", "unknown type"),
    ("fp32:16", "the divisibility hint applies to pointers and integers only"),
    ("*fp32:1", "the equal-to-1 hint applies to integers only"),
    ("fp16:1", "the equal-to-1 hint applies to integers only"),
    ("i1:16", "hints do not apply to booleans"),
    ("i32:8", "only :16 (divisible by 16) and :1 (equal to 1) exist"),
    ("i32:x", "bad hint ':x'"),
    ("constexpr", "write a constexpr as its value"),
    ("(i32, i32)", "tuple arguments"),
    ("tensordesc<fp16>", "bad tensor descriptor type"),
    ("tensordesc<half[64]>", "unknown tensor descriptor element type"),
    ("", "empty signature entry"),
])
def test_bad_entries(text, fragment):
    with pytest.raises(SyntaxProblem) as e:
        parse_entry(text)
    assert fragment in str(e.value)


def test_error_names_the_entry():
    with pytest.raises(SyntaxProblem, match=r"entry 3 \('i33'\)"):
        parse_signature("*fp32, i32, i33")
    with pytest.raises(SyntaxProblem, match="empty signature entry"):
        parse_signature("*fp32,, i32")
    with pytest.raises(SyntaxProblem, match="unbalanced"):
        parse_signature("tensordesc<fp16[64, 64>")


def test_not_a_string():
    with pytest.raises(SyntaxProblem, match="must be a string"):
        parse_signature(["*fp32"])


# --- agreement with Triton's AOT compiler ------------------------------------------------------

SIGS_FOR_VECTOR_ADD = [
    "*fp32:16, *fp32:16, *fp32:16, i32:16, fp32, 1024",
    "*fp32, *fp32, *fp32, i32, fp32, 256",
    "*fp32:16, *fp32, *fp32:16, i32:1, fp32, 128",
    "*fp32, *fp32, *fp32, 4096, fp32, 64",
    "*fp16:16, *bf16, *fp32, i64:16, fp16, 32",
]


def _triton_aot_parse(monkeypatch, tmp_path, signature):
    """Run Triton 3.6's tools/compile.py on `signature` up to the point where it builds the
    ASTSource, and return what it passes (signature, constexprs, attrs): Triton's own reading of
    the syntax. create_binder (which needs a GPU driver) is replaced by one that installs a
    capturing ASTSource."""
    from triton.runtime.jit import JITFunction
    from triton.tools import compile as aot
    captured = {}

    class Stop(Exception):
        pass

    def capture(**kw):
        captured.update(kw)
        raise Stop()

    def fake_binder(self):
        self.ASTSource = capture
    monkeypatch.setattr(JITFunction, "create_binder", fake_binder)
    from conftest import DATA
    args = aot.CompileArgs(path=str(DATA / "kernels.py"), kernel_name="vector_add", signature=signature,
                           grid="1,1,1", target="cuda:80:32", num_warps=4, num_stages=3,
                           out_name=None, out_path=tmp_path / "k")
    with pytest.raises(Stop):
        aot.compile_kernel(args)
    return captured


@pytest.mark.slow
@pytest.mark.parametrize("sig", SIGS_FOR_VECTOR_ADD)
def test_same_reading_as_triton_tools_compile(sig, monkeypatch, tmp_path):
    from tritonpack_compile.frontend import _worker_payload
    from tritonpack_compile.introspect import describe_kernel
    from tritonpack_compile.spec import bind_kernel, load_spec
    from conftest import DATA, write_spec
    import shutil
    shutil.copy(DATA / "kernels.py", tmp_path / "kernels.py")
    spec_path = write_spec(tmp_path, f"""
        targets = ["sm_80"]
        [[kernel]]
        source = "kernels.py:vector_add"
        signatures = ["{sig}"]
    """)
    spec = load_spec(spec_path)
    ks = spec.kernels[0]
    bk = bind_kernel(spec, ks, describe_kernel(ks.source_path, ks.function))
    ours = _worker_payload(bk, 0, ks.targets[0], False)

    src = _triton_aot_parse(monkeypatch, tmp_path, sig)
    theirs_constants = src["constexprs"]
    theirs_div16 = sorted(k[0] for k, v in src["attrs"].items() if ["tt.divisibility", 16] in v)
    assert ours["signature"] == dict(src["signature"])
    assert ours["constexprs"] == theirs_constants
    assert sorted(ours["div16"]) == theirs_div16
