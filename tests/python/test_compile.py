"""Real cross-compilation on the CPU (no GPU): NVIDIA and AMD targets, checked against the images."""
import io
import json
import re
import shutil

import pytest

from conftest import DATA, HERE_DIR, write_spec
from tritonpack_compile.frontend import compile_spec
from tritonpack_compile.manifest import check_manifest

pytestmark = pytest.mark.slow

PTX_TYPE = {"*": "u64", "i32": "u32", "i64": "u64", "fp32": "f32", "u32": "u32"}


@pytest.fixture
def sdir(tmp_path):
    shutil.copy(DATA / "kernels.py", tmp_path / "kernels.py")
    shutil.copy(HERE_DIR / "spec_kernels.py", tmp_path / "spec_kernels.py")
    return tmp_path


def run(spec, out, cache, **kw):
    buf = io.StringIO()
    outcome = compile_spec(spec, out, jobs=2, cache_dir=cache, stream=buf, **kw)
    return outcome, buf.getvalue()


TWO_KERNELS = """
    name = "two"
    targets = ["sm_80", "gfx942"]
    [[kernel]]
    source = "kernels.py:vector_add"
    signatures = ["*fp32:16, *fp32:16, *fp32:16, i32, fp32", "*fp32, *fp32, *fp32, i32:1, fp32"]
    constexprs = {BLOCK = 256}
    grid = ["cdiv(n, BLOCK)", 1, 1]
    [[kernel]]
    source = "kernels.py:row_softmax"
    signatures = ["*fp32:16, *fp32:16, i32, i32, i32, 128"]
    num_warps = 2
"""


@pytest.fixture(scope="module")
def two(tmp_path_factory, shared_cache):
    d = tmp_path_factory.mktemp("two")
    shutil.copy(DATA / "kernels.py", d / "kernels.py")
    spec = write_spec(d, TWO_KERNELS)
    outcome, log = run(spec, d / "out", shared_cache)
    assert not outcome.failures, outcome.failures
    return d / "out", json.loads((d / "out" / "manifest.json").read_text())


def test_manifest_is_valid(two):
    out, m = two
    assert check_manifest(m, base_dir=out) == []
    assert [k["name"] for k in m["kernels"]] == ["vector_add", "row_softmax"]


def _ptx_params(ptx):
    entry = re.search(r"\.entry\s+(\w+)\s*\(([^)]*)\)", ptx, re.S)
    return entry.group(1), re.findall(r"\.param\s+\.(\w+)", entry.group(2))


def test_ptx_entry_matches_kernel_params_and_metadata(two):
    out, m = two
    checked = 0
    for k in m["kernels"]:
        types = {a["name"]: a["type"] for a in k["args"]}
        for v in k["variants"]:
            for img in v["images"]:
                md = json.loads((out / img["metadata"]).read_text())
                assert md["num_warps"] == v["config"]["num_warps"]
                if img["kind"] != "ptx":
                    continue
                name, params = _ptx_params((out / img["file"]).read_text())
                assert name == md["name"] == k["name"]
                # run-time params in order, then Triton's global_scratch and profile_scratch
                assert len(params) == len(v["kernel_params"]) + 2
                want = [PTX_TYPE["*" if types[p].startswith("*") else types[p]] for p in v["kernel_params"]]
                assert params == want + ["u64", "u64"]
                checked += 1
    assert checked == 3


def test_amd_llir_and_hsaco_match_kernel_params(two):
    out, m = two
    checked = 0
    for k in m["kernels"]:
        for v in k["variants"]:
            for img in v["images"]:
                md = json.loads((out / img["metadata"]).read_text())
                if img["kind"] == "hsaco":
                    data = (out / img["file"]).read_bytes()
                    assert data[:4] == b"\x7fELF"
                    assert md["target"] == {"backend": "hip", "arch": "gfx942", "warp_size": 64}
                    assert md["warp_size"] == 64
                if img["kind"] == "llir":
                    text = (out / img["file"]).read_text()
                    sig = re.search(r"^define amdgpu_kernel void @(\w+)\((.*)$", text, re.M)
                    assert sig.group(1) == md["name"]
                    # parameters are the %0, %1, ... names (attributes such as captures(none) hold parens)
                    n = len(re.findall(r"%\d+\b", sig.group(2).split(" #")[0]))
                    assert n == len(v["kernel_params"]) + 2
                    checked += 1
    assert checked == 3


def test_manifest_records_what_built_each_binary(two):
    """The ptxas of each cubin and the LLVM of each code object, as the installed Triton reports
    them (provenance.py); no PyPI wheel of 3.6.0-3.9.0 records a git commit, so none is written."""
    import subprocess
    import triton.backends.amd.compiler as amdc
    import triton.backends.nvidia.compiler as nvc
    # Triton 3.9+ generates AMD code with a separate LLVM library that reports its own revision.
    codegen_revision = getattr(amdc, "get_amd_codegen_revision", None)
    out, m = two
    assert "triton_commit" not in m
    ptxas = subprocess.run([nvc.get_ptxas(80).path, "--version"], capture_output=True, text=True).stdout
    seen = set()
    for k in m["kernels"]:
        for v in k["variants"]:
            for img in v["images"]:
                if img["kind"] == "cubin":
                    assert re.fullmatch(r"\d+\.\d+\.\d+", img["ptxas_version"])
                    assert f"V{img['ptxas_version']}" in ptxas
                elif img["kind"] == "hsaco" and codegen_revision is not None:
                    assert img["llvm_version"] == codegen_revision()
                elif img["kind"] == "hsaco":
                    # LLD names the LLVM it belongs to in the code object's .comment
                    ver, commit = re.fullmatch(r"(\d+\.\d+\.\d+) \(([0-9a-f]{40})\)", img["llvm_version"]).groups()
                    assert f"LLD {ver} (".encode() in (out / img["file"]).read_bytes()
                    assert commit.encode() in (out / img["file"]).read_bytes()
                else:
                    assert "ptxas_version" not in img and "llvm_version" not in img
                seen.add(img["kind"])
    assert seen == {"cubin", "ptx", "hsaco", "llir"}


def test_equal1_variant_folds_n(two):
    _, m = two
    va = m["kernels"][0]
    first, second = va["variants"]
    assert first["specs"][3] == {"kind": "equal1"}        # the folded one is tried first
    assert first["kernel_params"] == ["x", "y", "out", "alpha"]
    assert second["kernel_params"] == ["x", "y", "out", "n", "alpha"]


def test_const_inference_end_to_end(two):
    _, m = two
    va, sm = m["kernels"]
    assert {a["name"]: a.get("const") for a in va["args"]} == {"x": True, "y": True, "out": False, "n": None,
                                                              "alpha": None}
    assert {a["name"]: a.get("const") for a in sm["args"]}["inp"] is True
    assert {a["name"]: a.get("const") for a in sm["args"]}["out"] is False


def test_generic_ptx_is_the_sm80_ptx(two):
    _, m = two
    for k in m["kernels"]:
        for v in k["variants"]:
            gen = [i for i in v["images"] if i.get("generic_ptx")]
            assert [(i["arch"], i["kind"]) for i in gen] == [("sm_80", "ptx")]


def test_modes_select_images(sdir, shared_cache):
    spec = write_spec(sdir, TWO_KERNELS)
    for mode, kinds in (("binary", {"cubin", "hsaco"}), ("ir", {"ptx", "llir"})):
        outcome, _ = run(spec, sdir / mode, shared_cache, mode=mode)
        m = outcome.manifest
        assert m["mode"] == mode
        assert {i["kind"] for k in m["kernels"] for v in k["variants"] for i in v["images"]} == kinds
        assert check_manifest(m, base_dir=sdir / mode) == []
        files = {p.suffix for p in (sdir / mode).rglob("*") if p.is_file()}
        assert files == {"." + k for k in kinds} | {".json"}


def test_generic_ptx_for_sm90_only(sdir, shared_cache):
    """Only sm_90 requested: a second compile gives non-'a' PTX (.target sm_90), validated by
    ptxas for the generic target. A Hopper dot (wgmma) cannot be generic: sm_80 PTX instead."""
    spec = write_spec(sdir, """
        targets = ["sm_90"]
        mode = "ir"
        [[kernel]]
        source = "kernels.py:vector_add"
        signatures = ["*fp32:16, *fp32:16, *fp32:16, i32, fp32"]
        constexprs = {BLOCK = 1024}
        [[kernel]]
        source = "kernels.py:small_matmul"
        signatures = ["*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32:16, i32:16, i32:16"]
        configs = [{num_warps = 4, constexprs = {BLOCK_M = 64, BLOCK_N = 64, BLOCK_K = 32}}]
    """)
    outcome, log = run(spec, sdir / "out", shared_cache)
    assert not outcome.failures
    va, mm = outcome.manifest["kernels"]
    imgs = va["variants"][0]["images"]
    assert [(i["arch"], i.get("generic_ptx", False)) for i in imgs] == [("sm_90a", False), ("sm_90", True)]
    ptx = (sdir / "out" / imgs[1]["file"]).read_text()
    assert re.search(r"^\.target sm_90$", ptx, re.M)
    assert "wgmma" in (sdir / "out" / mm["variants"][0]["images"][0]["file"]).read_text()
    gen = [i for i in mm["variants"][0]["images"] if i.get("generic_ptx")]
    assert [i["arch"] for i in gen] == ["sm_80"]
    assert any("shipped sm_80 PTX instead" in w for w in outcome.warnings)
    assert check_manifest(outcome.manifest, base_dir=sdir / "out") == []


def test_failures_are_reported_and_the_rest_compiles(sdir, tmp_path, capsys):
    from tritonpack_compile.cli import compile_main
    spec = write_spec(sdir, """
        targets = ["sm_80", "gfx942"]
        [[kernel]]
        source = "kernels.py:vector_add"
        signatures = ["*fp32, *fp32, *fp32, i32, fp32, 128"]
        [[kernel]]
        source = "spec_kernels.py:broken"
        signatures = ["*fp32, i32, 64"]
        [[kernel]]
        source = "kernels.py:small_matmul"
        signatures = ["*fp16, *fp16, *fp16, i32, i32, i32, i32, i32, i32"]
        configs = [{num_warps = 4, num_ctas = 2, constexprs = {BLOCK_M = 16, BLOCK_N = 16, BLOCK_K = 16}}]
    """)
    out = sdir / "out"
    out.mkdir()
    (out / "manifest.json").write_text("{}")  # a stale manifest must not survive a failed build
    cache = tmp_path / "cache"
    rc = compile_main([str(spec), "-o", str(out), "--cache-dir", str(cache), "-j", "2"])
    cap = capsys.readouterr()
    assert rc == 1
    assert "Traceback" not in cap.err
    assert "4 of 6 compilations failed" in cap.err
    # kernel, target and Triton's own message
    assert re.search(r"error: kernel 'broken' \(variant 0: \"\*fp32, i32, 64\"\), target cuda:sm_80: "
                     r"CompilationError: .*undefined_name", cap.err, re.S)
    assert "target hip:gfx942" in cap.err
    assert re.search(r"kernel 'small_matmul' .* target cuda:sm_80: ValueError: num_ctas > 1 requires NVIDIA SM90\+",
                     cap.err)
    assert "no manifest written" in cap.err
    assert not (out / "manifest.json").exists()
    # the good kernel compiled and is cached: fixing the spec recompiles only what failed before
    spec.write_text(spec.read_text().split("[[kernel]]\nsource = \"spec_kernels.py:broken\"")[0])
    rc = compile_main([str(spec), "-o", str(out), "--cache-dir", str(cache), "-q"])
    assert rc == 0
    assert "0 compiled, 2 cached" in capsys.readouterr().out


def test_hip_feature_suffix(sdir, shared_cache):
    spec = write_spec(sdir, """
        targets = ["gfx90a:xnack-"]
        mode = "binary"
        [[kernel]]
        source = "kernels.py:vector_add"
        signatures = ["*fp32, *fp32, *fp32, i32, fp32, 128"]
    """)
    outcome, log = run(spec, sdir / "out", shared_cache)
    assert "gfx90a:xnack-: Triton emits feature-neutral code objects" in log
    (img,) = outcome.manifest["kernels"][0]["variants"][0]["images"]
    assert img["arch"] == "gfx90a"
    data = (sdir / "out" / img["file"]).read_bytes()
    import struct
    e_flags = struct.unpack_from("<I", data, 0x30)[0]
    assert e_flags & 0x300 == 0x100  # EF_AMDGPU_FEATURE_XNACK_ANY_V4: runs with xnack on or off


def test_autotuned_dtype_constexpr_and_options(sdir, shared_cache):
    spec = write_spec(sdir, """
        targets = ["sm_80"]
        mode = "binary"
        [[kernel]]
        source = "spec_kernels.py:cast_copy"
        signatures = ["*fp32, *fp16, i32"]
        constexprs = {BLOCK = 256, DTYPE = "tl.float16"}
        options = {maxnreg = 64}
    """)
    outcome, _ = run(spec, sdir / "out", shared_cache)
    v = outcome.manifest["kernels"][0]["variants"][0]
    assert v["config"]["constexprs"] == {"BLOCK": 256, "DTYPE": "tl.float16"}
    md = json.loads((sdir / "out" / v["images"][0]["metadata"]).read_text())
    assert md["maxnreg"] == 64
