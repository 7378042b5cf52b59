"""Spec parsing, binding to the Python functions, and every error path (with where it points)."""
import shutil

import pytest

from conftest import DATA, write_spec
from tritonpack_compile.errors import SpecError
from tritonpack_compile.frontend import prepare, triton_version
from tritonpack_compile.spec import load_spec

HERE = DATA.parent / "python"


@pytest.fixture
def sdir(tmp_path):
    shutil.copy(DATA / "kernels.py", tmp_path / "kernels.py")
    shutil.copy(HERE / "spec_kernels.py", tmp_path / "spec_kernels.py")
    return tmp_path


def bind(spec_path, cache=None):
    spec = load_spec(spec_path)
    kernels, _ = prepare(spec, triton_version(), cache)
    return spec, kernels


def expect_error(spec_path, kernel, key, fragment, phase="bind"):
    with pytest.raises(SpecError) as e:
        if phase == "load":
            load_spec(spec_path)
        else:
            bind(spec_path)
    msg = str(e.value)
    assert msg.startswith(str(spec_path)), msg
    if kernel is not None:
        assert f"kernel '{kernel}'" in msg, msg
    if key is not None:
        assert f": {key}: " in msg, msg
    assert fragment in msg, msg
    return msg


VADD = """
    [[kernel]]
    source = "kernels.py:vector_add"
    signatures = ["*fp32:16, *fp32:16, *fp32:16, i32:16, fp32"]
    constexprs = {BLOCK = 1024}
"""


# --- good specs -------------------------------------------------------------------------------

def test_defaults_and_variants(sdir):
    p = write_spec(sdir, VADD)
    spec, (k,) = bind(p)
    assert spec.name == "spec" and spec.mode == "both"
    assert [str(t) for t in spec.targets] == ["cuda:sm_80", "cuda:sm_90a", "hip:gfx942"]
    assert k.name == "vector_add"
    assert [a["name"] for a in k.args] == ["x", "y", "out", "n", "alpha"]
    assert k.grid is None
    v = k.variants[0]
    assert v.config.manifest() == {"num_warps": 4, "num_stages": 3, "num_ctas": 1, "constexprs": {"BLOCK": 1024}}
    assert v.kernel_params == ["x", "y", "out", "n", "alpha"]


def test_file_defaults_and_kernel_overrides(sdir):
    p = write_spec(sdir, """
        name = "lib"
        targets = ["sm_90", "gfx90a"]
        mode = "ir"
        [[kernel]]
        source = "kernels.py:vector_add"
        signatures = ["*fp32, *fp32, *fp32, i32, fp32, 256"]
        [[kernel]]
        source = "kernels.py:row_softmax"
        name = "softmax"
        signatures = ["*fp32, *fp32, i32, i32, i32, 128"]
        targets = "gfx942"
        mode = "binary"
    """)
    spec, (a, b) = bind(p)
    assert spec.name == "lib"
    assert [str(t) for t in a.spec.targets] == ["cuda:sm_90a", "hip:gfx90a"] and a.spec.mode == "ir"
    assert [str(t) for t in b.spec.targets] == ["hip:gfx942"] and b.spec.mode == "binary"
    assert b.name == "softmax"


def test_cli_overrides(sdir):
    p = write_spec(sdir, VADD.replace("[[kernel]]", 'targets = ["sm_80"]\n[[kernel]]\n') + 'targets = ["sm_100"]\nmode = "ir"\n')
    spec = load_spec(p, target_override=["gfx942", "sm_90"], mode_override="binary")
    assert [str(t) for t in spec.kernels[0].targets] == ["hip:gfx942", "cuda:sm_90a"]
    assert spec.kernels[0].mode == "binary"


def test_signature_constants_and_ordering(sdir):
    # the general signature is written first; variants come out most specialised first
    p = write_spec(sdir, """
        [[kernel]]
        source = "kernels.py:vector_add"
        signatures = ["*fp32, *fp32, *fp32, i32, fp32",
                      "*fp32:16, *fp32:16, *fp32:16, i32:16, fp32",
                      "*fp32, *fp32, *fp32, 4096, fp32",
                      "*fp32, *fp32, *fp32, i32:1, fp32"]
        configs = [{num_warps = 4, constexprs = {BLOCK = 1024}}, {num_warps = 8, constexprs = {BLOCK = 2048}}]
        grid = ["cdiv(n, BLOCK)"]
    """)
    _, (k,) = bind(p)
    kinds = [[s["kind"] for s in v.specs] for v in k.variants]
    assert [v.signature for v in k.variants] == [
        "*fp32, *fp32, *fp32, 4096, fp32", "*fp32, *fp32, *fp32, 4096, fp32",
        "*fp32, *fp32, *fp32, i32:1, fp32", "*fp32, *fp32, *fp32, i32:1, fp32",
        "*fp32:16, *fp32:16, *fp32:16, i32:16, fp32", "*fp32:16, *fp32:16, *fp32:16, i32:16, fp32",
        "*fp32, *fp32, *fp32, i32, fp32", "*fp32, *fp32, *fp32, i32, fp32"]
    # within one signature, configs keep their order (the first is the default)
    assert [v.config.num_warps for v in k.variants] == [4, 8] * 4
    assert k.variants[0].specs[3] == {"kind": "constexpr", "value": "4096"}
    assert kinds[2][3] == "equal1"
    # n is an argument (typed in some signatures) but not a kernel parameter where it is folded
    assert [a["name"] for a in k.args] == ["x", "y", "out", "n", "alpha"]
    assert k.variants[0].kernel_params == ["x", "y", "out", "alpha"]
    assert k.variants[2].kernel_params == ["x", "y", "out", "alpha"]
    assert k.variants[4].kernel_params == ["x", "y", "out", "n", "alpha"]
    assert k.grid == ["cdiv(n, BLOCK)", "1", "1"]


def test_parameter_constant_in_every_signature_is_not_an_arg(sdir):
    p = write_spec(sdir, """
        [[kernel]]
        source = "kernels.py:vector_add"
        signatures = ["*fp32, *fp32, *fp32, 64, fp32, 64"]
    """)
    _, (k,) = bind(p)
    assert [a["name"] for a in k.args] == ["x", "y", "out", "alpha"]


def test_trailing_constexpr_default_may_be_omitted(sdir):
    p = write_spec(sdir, """
        [[kernel]]
        source = "spec_kernels.py:with_default"
        signatures = ["*fp32, *fp32, i32, 128", "*fp32, *fp32, i32, 128, 1"]
    """)
    _, (k,) = bind(p)
    configs = sorted([v.config.constexprs for v in k.variants], key=str)
    assert {"EVEN": False} in configs  # the Python default, recorded
    assert [a["name"] for a in k.args] == ["x", "out", "n"]


def test_dtype_constexpr_and_explicit_const(sdir):
    p = write_spec(sdir, """
        [[kernel]]
        source = "spec_kernels.py:cast_copy"
        signatures = ["*kfp32, *fp16, i32"]
        constexprs = {BLOCK = 256, DTYPE = "tl.float16"}
    """)
    _, (k,) = bind(p)
    assert k.args[0] == {"name": "x", "type": "*fp32", "const": False}  # const decided after compiling
    assert k.explicit_const["x"] is True
    assert k.variants[0].config.constexprs["DTYPE"] == "tl.float16"


SMALL_MATMUL_AUTOTUNE = """
    [[kernel]]
    source = "kernels.py:small_matmul"
    signatures = ["*fp16, *fp16, *fp16, i32, i32, i32, i32, i32, i32"]
    configs = "autotune"
    grid = ["cdiv(M, BLOCK_M)", "cdiv(N, BLOCK_N)", 1]
"""


def test_autotune_configs(sdir):
    p = write_spec(sdir, SMALL_MATMUL_AUTOTUNE)
    _, (k,) = bind(p)
    assert [v.config.manifest() for v in k.variants] == [
        {"num_warps": 1, "num_stages": 1, "num_ctas": 1, "constexprs": {"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16}},
        {"num_warps": 2, "num_stages": 2, "num_ctas": 1, "constexprs": {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16}},
    ]


def test_heuristics_wrapper_is_unwrapped(sdir):
    p = write_spec(sdir, """
        [[kernel]]
        source = "spec_kernels.py:heuristic_kernel"
        signatures = ["*fp32, *fp32, i32"]
        constexprs = {BLOCK = 128, EVEN = true}
    """)
    _, (k,) = bind(p)
    assert k.variants[0].config.constexprs == {"BLOCK": 128, "EVEN": True}


def test_kernel_level_launch_defaults_and_options(sdir):
    p = write_spec(sdir, VADD + "num_warps = 8\nnum_stages = 2\noptions = {maxnreg = 128, enable_fp_fusion = false}\n")
    _, (k,) = bind(p)
    c = k.variants[0].config
    assert (c.num_warps, c.num_stages, c.options) == (8, 2, {"maxnreg": 128, "enable_fp_fusion": False})


# --- errors found while reading the TOML -------------------------------------------------------

@pytest.mark.parametrize("text,kernel,key,fragment", [
    ("name = ", None, None, "invalid TOML"),
    ("nmae = 'x'\n" + VADD, None, "nmae", "unknown key 'nmae' (did you mean 'name'?)"),
    ("name = 'x'\n", None, None, "no kernels"),
    ("[kernel.vector_add]\nsource = 'kernels.py:vector_add'\n", None, "kernel", "array of tables"),
    ("name = 'class'\n" + VADD, None, "name", "C++ keyword"),
    ("name = 'my-lib'\n" + VADD, None, "name", "'my-lib' is not a name: use a letter, then letters, digits and _ only; "
     "use e.g. name = \"my_lib\""),
    ("targets = ['sm_80', 'volta']\n" + VADD, None, "targets", "unknown target 'volta'"),
    ("targets = []\n" + VADD, None, "targets", "non-empty list"),
    ("mode = 'fast'\n" + VADD, None, "mode", "must be one of binary, ir, both"),
    ("[[kernel]]\nsignatures = ['i32']\n", "kernel[0]", "source", "missing required key 'source'"),
    ("[[kernel]]\nsource = 'kernels.py'\nsignatures = ['i32']\n", "kernel[0]", "source", "path/file.py:function"),
    ("[[kernel]]\nsource = 'nope.py:f'\nsignatures = ['i32']\n", "f", "source", "source file 'nope.py' not found"),
    ("[[kernel]]\nsource = 'kernels.py:vector_add'\n", "vector_add", "signatures", "missing required key 'signatures'"),
    ("[[kernel]]\nsource = 'kernels.py:vector_add'\nsignature = 'i32'\n", "vector_add", "signature", "unknown key 'signature' (did you mean 'signatures'?)"),
    ("[[kernel]]\nsource = 'kernels.py:vector_add'\nsignatures = []\n", "vector_add", "signatures", "non-empty list"),
    (VADD + "signatures = ['*fp32:8']\n", None, None, "invalid TOML"),   # duplicate key
    ("[[kernel]]\nsource = 'kernels.py:vector_add'\nsignatures = ['*fp32, *fp32:8']\n", "vector_add",
     "signatures[0]", "entry 2 ('*fp32:8')"),
    ("[[kernel]]\nsource = 'kernels.py:vector_add'\nsignatures = ['i32', ' i32 ']\n", "vector_add",
     "signatures[1]", "duplicate signature"),
    ("[[kernel]]\nsource = 'kernels.py:vector_add'\nsignatures = ['i32']\nnmae = 'v'\n", "vector_add",
     "nmae", "did you mean 'name'"),
    ("[[kernel]]\nsource = 'kernels.py:vector_add'\nname = 'int'\nsignatures = ['i32']\n", "int", "name", "C++ keyword"),
    ("[[kernel]]\nsource = 'kernels.py:vector_add'\nsignatures = ['i32']\nconstexprs = 3\n", "vector_add",
     "constexprs", "must be a table"),
    ("[[kernel]]\nsource = 'kernels.py:vector_add'\nsignatures = ['i32']\nconstexprs = {B = [1]}\n", "vector_add",
     "constexprs.B", "must be a number, a boolean or a string"),
    ("[[kernel]]\nsource = 'kernels.py:vector_add'\nsignatures = ['i32']\nnum_warps = 3\n", "vector_add",
     "num_warps", "power of two"),
    ("[[kernel]]\nsource = 'kernels.py:vector_add'\nsignatures = ['i32']\nnum_stages = 0\n", "vector_add",
     "num_stages", "positive integer"),
    ("[[kernel]]\nsource = 'kernels.py:vector_add'\nsignatures = ['i32']\nconfigs = 'best'\n", "vector_add",
     "configs", "or \"autotune\""),
    ("[[kernel]]\nsource = 'kernels.py:vector_add'\nsignatures = ['i32']\nconfigs = [{warps = 4}]\n", "vector_add",
     "configs[0].warps", "unknown key 'warps'"),
    ("[[kernel]]\nsource = 'kernels.py:vector_add'\nsignatures = ['i32']\nconfigs = [{num_warps = 6}]\n", "vector_add",
     "configs[0].num_warps", "power of two"),
    ("[[kernel]]\nsource = 'kernels.py:vector_add'\nsignatures = ['i32']\noptions = {maxnregs = 1}\n", "vector_add",
     "options.maxnregs", "did you mean 'maxnreg'"),
    ("[[kernel]]\nsource = 'kernels.py:vector_add'\nsignatures = ['i32']\noptions = {maxnreg = true}\n", "vector_add",
     "options.maxnreg", "must be of type int"),
    ("[[kernel]]\nsource = 'kernels.py:vector_add'\nsignatures = ['i32']\noptions = {num_warps = 4}\n", "vector_add",
     "options.num_warps", "set it on the kernel or in configs"),
    ("[[kernel]]\nsource = 'kernels.py:vector_add'\nsignatures = ['i32']\ngrid = ['n // 2']\n", "vector_add",
     "grid", "operator // is not allowed"),
    ("[[kernel]]\nsource = 'kernels.py:vector_add'\nsignatures = ['i32']\ngrid = [1, 1, 1, 1]\n", "vector_add",
     "grid", "1 to 3"),
    # Constant zero divisors used to be accepted and kill the program with SIGFPE at launch.
    ("[[kernel]]\nsource = 'kernels.py:vector_add'\nsignatures = ['i32']\ngrid = ['n / 0']\n", "vector_add",
     "grid[0]", "'n / 0' divides by zero"),
    ("[[kernel]]\nsource = 'kernels.py:vector_add'\nsignatures = ['i32']\ngrid = [1, 'n % 0']\n", "vector_add",
     "grid[1]", "'n % 0' divides by zero"),
    ("[[kernel]]\nsource = 'kernels.py:vector_add'\nsignatures = ['i32']\ngrid = [1, 1, 'cdiv(n, 4 - 4)']\n",
     "vector_add", "grid[2]", "'cdiv(n, 4 - 4)' divides by zero: 4 - 4 is 0"),
    ("[[kernel]]\nsource = 'kernels.py:vector_add'\nsignatures = ['i32']\ntargets = ['sm_80a']\n", "vector_add",
     "targets", "no arch-specific 'a' variant"),
    ("[[kernel]]\nsource = 'kernels.py:vector_add'\nsignatures = ['i32']\nmode = 'all'\n", "vector_add",
     "mode", "must be one of"),
    ("kernel = 3\n", None, "kernel", "no kernels"),
])
def test_load_errors(sdir, text, kernel, key, fragment):
    p = write_spec(sdir, text)
    expect_error(p, kernel, key, fragment, phase="load")


def test_unreadable_and_non_utf8(sdir):
    with pytest.raises(SpecError, match="cannot read the spec"):
        load_spec(sdir / "missing.toml")
    p = sdir / "bad.toml"
    p.write_bytes(b"name = '\xff'\n")
    with pytest.raises(SpecError, match="not UTF-8"):
        load_spec(p)


# --- errors found when binding to the Python function ------------------------------------------

def K(src, sigs, extra=""):
    sig_list = ", ".join(f'"{s}"' for s in sigs)
    return f'[[kernel]]\nsource = "{src}"\nsignatures = [{sig_list}]\n{extra}\n'


@pytest.mark.parametrize("text,kernel,key,fragment", [
    (K("kernels.py:nope", ["i32"]), "nope", "source", "has no function 'nope'"),
    (K("spec_kernels.py:not_a_kernel", ["i32"]), "not_a_kernel", "source", "is not a @triton.jit function"),
    (K("kernels.py:vector_add", ["*fp32, *fp32, *fp32, i32"], "constexprs = {BLOCK = 1}"), "vector_add",
     "signatures[0]", "has 4 entries but vector_add takes 5 here: x, y, out, n, alpha (not counting BLOCK"),
    (K("kernels.py:vector_add", ["*fp32, *fp32, *fp32, i32, fp32"]), "vector_add", "signatures[0]",
     "has 5 entries but vector_add takes 6 here"),
    (K("kernels.py:vector_add", ["*fp32, *fp32, *fp32, i32, fp32, i32"]), "vector_add", "signatures[0]",
     "parameter 'BLOCK' is declared tl.constexpr, so it needs a value"),
    (K("kernels.py:vector_add", ["*fp32, *fp32, *fp32, i32, fp32, 64", "*fp16, *fp32, *fp32, i32, fp32, 64"]),
     "vector_add", "signatures", "signatures disagree on the type of 'x'"),
    (K("kernels.py:vector_add", ["*fp32, *fp32, *fp32, i32, fp32"], "constexprs = {BLOK = 1}"), "vector_add",
     "constexprs", "constexpr 'BLOK' is not a parameter of vector_add(x, y, out, n, alpha, BLOCK) (did you mean 'BLOCK'?)"),
    (K("kernels.py:vector_add", ["*fp32, *fp32, *fp32, i32, fp32"], "configs = 'autotune'"), "vector_add",
     "configs", "is not wrapped in @triton.autotune"),
    (K("kernels.py:vector_add", ["*fp32, *fp32, *fp32, i32, fp32"],
       "configs = [{constexprs = {BLOCK = 64}}, {num_warps = 8}]"), "vector_add", "configs[1]",
     "every config must set the same constexprs"),
    (K("kernels.py:vector_add", ["*fp32, *fp32, *fp32, i32, fp32"],
       "constexprs = {BLOCK = 64}\nconfigs = [{constexprs = {BLOCK = 128}}]"), "vector_add", "configs[0]",
     "set both in the kernel's constexprs"),
    (K("kernels.py:vector_add", ["*fp32, *fp32, *fp32, i32, fp32, 64"], "grid = ['cdiv(n, BLOCK)']"), "vector_add",
     "grid", "'BLOCK' is a constexpr fixed by the signature"),
    (K("kernels.py:vector_add", ["*fp32, *fp32, *fp32, i32, fp32"],
       "configs = [{constexprs = {BLOCK = 64}}, {constexprs = {BLOCK = 0}}]\ngrid = ['cdiv(n, BLOCK)']"),
     "vector_add", "grid[0]", "'cdiv(n, BLOCK)' divides by zero: BLOCK is 0"),
    (K("kernels.py:vector_add", ["*fp32, *fp32, *fp32, i32, fp32"],
       "constexprs = {BLOCK = 64}\ngrid = [1, 'n / (BLOCK - 64)']"),
     "vector_add", "grid[1]", "'n / (BLOCK - 64)' divides by zero: BLOCK - 64 is 0 with BLOCK = 64"),
    (K("kernels.py:vector_add", ["*fp32, *fp32, *fp32, i32, fp32, 64"], "grid = ['cdiv(m, 64)']"), "vector_add",
     "grid", "'m' is neither an argument (x, y, out, n, alpha) nor a config constexpr"),
    (K("kernels.py:vector_add", ["*fp32, *fp32, *fp32, i32, fp32, 64"], "grid = ['x']"), "vector_add",
     "grid", "'x' has type *fp32; only integer arguments"),
    (K("kernels.py:vector_add", ["*fp32, *fp32, *fp32, i32, fp32, 64"], "grid = ['alpha']"), "vector_add",
     "grid", "only integer arguments"),
    (K("spec_kernels.py:cast_copy", ["*fp32, *fp16, i32"],
       "constexprs = {BLOCK = 256, DTYPE = 'tl.float16'}\ngrid = ['DTYPE']"), "cast_copy", "grid",
     "constexpr 'DTYPE' is not an integer"),
    (K("kernels.py:vector_add", ["*fp32, *fp32, *fp32, i32, fp32, 64"]) +
     K("kernels.py:vector_add", ["*fp32, *fp32, *fp32, i32, fp32, 128"]), "vector_add", "name",
     "'vector_add' is already used by kernel [0]; give this kernel another `name`"),
])
def test_bind_errors(sdir, text, kernel, key, fragment):
    p = write_spec(sdir, text)
    expect_error(p, kernel, key, fragment)


def test_zero_divisor_exits_2_before_compiling(sdir, capsys):
    from tritonpack_compile.cli import compile_main
    p = write_spec(sdir, K("kernels.py:vector_add", ["*fp32, *fp32, *fp32, i32, fp32"],
                           "configs = [{constexprs = {BLOCK = 64}}, {constexprs = {BLOCK = 0}}]\n"
                           "grid = ['cdiv(n, BLOCK)']"))
    rc = compile_main([str(p), "-o", str(sdir / "out"), "--cache-dir", str(sdir / "cache")])
    err = capsys.readouterr().err
    assert rc == 2
    assert f"error: {p}: kernel 'vector_add': grid[0]: 'cdiv(n, BLOCK)' divides by zero: BLOCK is 0" in err
    assert not (sdir / "out").exists()


def test_import_error_in_kernel_file(sdir):
    (sdir / "bad.py").write_text("import triton\n\nx = 1 / 0\n")
    p = write_spec(sdir, K("bad.py:k", ["i32"]))
    msg = expect_error(p, "k", "source", "ZeroDivisionError")
    assert "bad.py:3:5: ZeroDivisionError: division by zero\n    x = 1 / 0\n        ^" in msg


def test_no_traceback_for_spec_errors_on_the_command_line(sdir, capsys):
    from tritonpack_compile.cli import compile_main
    p = write_spec(sdir, K("kernels.py:vector_add", ["*fp32, *fp32, *fp32, i32"], "constexprs = {BLOCK = 1}"))
    rc = compile_main([str(p), "-o", str(sdir / "out"), "--cache-dir", str(sdir / "cache")])
    err = capsys.readouterr().err
    assert rc == 2
    assert "Traceback" not in err
    assert err.startswith(f"error: {p}: kernel 'vector_add': signatures[0]: has 4 entries")
    assert not (sdir / "out" / "manifest.json").exists()


# --- tuning (docs/spec.md "Tuning") ------------------------------------------------------------

ACCUMULATE = '''
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 64}, num_warps=1), triton.Config({"BLOCK": 128}, num_warps=2)],
                 key=["n", "BLOCK_K"], reset_to_zero=["out"], restore_value=["x"])
@triton.jit
def accumulate(x, out, n, BLOCK_K: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x + offs, mask=offs < n)
    tl.atomic_add(out + offs, v, mask=offs < n)
    tl.store(x + offs, v * 2, mask=offs < n)
'''


def test_autotune_key_is_kept_as_the_tuning_key(sdir):
    p = write_spec(sdir, SMALL_MATMUL_AUTOTUNE)
    _, (k,) = bind(p)
    assert k.tuning["config_count"] == 2 and k.tuning["on_first_use"] is False
    assert k.tuning["args"] == [{"name": n, "role": "key", "bucket": "pow2"} for n in ("M", "N", "K")]


def test_autotune_reset_to_zero_and_restore_value_are_kept_with_their_sizes(sdir):
    (sdir / "acc.py").write_text(ACCUMULATE)
    p = write_spec(sdir, """
        [[kernel]]
        source = "acc.py:accumulate"
        signatures = ["*fp32, *fp32, i32, 16"]
        configs = "autotune"
        grid = ["cdiv(n, BLOCK)", 1, 1]
        tune = { bucket = { n = "exact" }, on_first_use = true, bytes = { out = "n * 4", x = "n * 4" } }
    """)
    spec, (k,) = bind(p)
    assert k.tuning["on_first_use"] is True
    assert k.tuning["args"] == [{"name": "n", "role": "key", "bucket": "exact"},
                                {"name": "out", "role": "reset_to_zero", "bytes": "n * 4"},
                                {"name": "x", "role": "restore", "bytes": "n * 4"}]
    # BLOCK_K is a constexpr fixed by the signature: it cannot select a config at run time.
    assert any("'BLOCK_K' is not an integer argument" in w for w in k.tuning["warnings"])


def test_explicit_configs_with_a_tune_table(sdir):
    p = write_spec(sdir, VADD.replace("constexprs = {BLOCK = 1024}", "configs = [{constexprs = {BLOCK = 256}}, "
                                      "{constexprs = {BLOCK = 1024}, num_warps = 8}]") +
                   'tune = { key = ["n"], reset_to_zero = ["out"], bytes = { out = "n * 4" } }\n')
    _, (k,) = bind(p)
    assert k.tuning["config_count"] == 2
    assert [a["role"] for a in k.tuning["args"]] == ["key", "reset_to_zero"]


def test_one_config_and_no_tune_table_means_no_tuning(sdir):
    _, (k,) = bind(write_spec(sdir, VADD))
    assert k.tuning is None


@pytest.mark.parametrize("tune,key,fragment", [
    ('{ key = ["x"] }', "tune.key", "'x' has type *fp32; a tuning key must be an integer argument"),
    ('{ key = ["m"] }', "tune.key", "'m' is not an argument of the C++ function"),
    ('{ reset_to_zero = ["out"] }', "tune.bytes", "trial runs must protect 'out' but its size is unknown"),
    ('{ reset_to_zero = ["n"], bytes = { n = "4" } }', "tune.reset_to_zero", "only pointer arguments can be protected"),
    ('{ reset_to_zero = ["out"], bytes = { out = "alpha * 4" } }', "tune.bytes.out", "not an integer argument"),
    ('{ reset_to_zero = ["out"], restore = ["out"], bytes = { out = "n" } }', "tune", "both reset_to_zero and restore"),
    ('{ bucket = "log" }', "tune.bucket", "use \"pow2\""),
    ('{ bucket = { m = "exact" } }', "tune.bucket.m", "is not a tuning key"),
    ('{ keys = ["n"] }', "tune.keys", "did you mean 'key'"),
    ('{ on_first_use = "yes" }', "tune.on_first_use", "must be true or false"),
])
def test_tune_errors(sdir, tune, key, fragment):
    p = write_spec(sdir, VADD + f"tune = {tune}\n")
    expect_error(p, "vector_add", key, fragment)
