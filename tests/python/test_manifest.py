"""The manifest checker (docs/manifest.md) on the committed fixtures, and on broken manifests."""
import copy
import json

import pytest

from conftest import DATA
from tritonpack_compile.manifest import check_manifest

ART = DATA / "artifacts"


@pytest.fixture(scope="module")
def fixture_manifest():
    return json.loads((ART / "manifest.json").read_text())


def test_committed_fixtures_follow_the_contract(fixture_manifest):
    assert check_manifest(fixture_manifest, base_dir=ART) == []


def test_fixture_contents(fixture_manifest):
    m = fixture_manifest
    assert (m["schema"], m["version"], m["mode"], m["name"]) == ("tritonpack-manifest", 1, "both", "fixtures")
    by = {k["name"]: k for k in m["kernels"]}
    assert list(by) == ["vector_add", "row_softmax", "matmul_f16"]
    va = by["vector_add"]
    assert [(a["name"], a["type"], a.get("const")) for a in va["args"]] == [
        ("x", "*fp32", True), ("y", "*fp32", True), ("out", "*fp32", False), ("n", "i32", None),
        ("alpha", "fp32", None)]
    assert va["grid"] == ["cdiv(n, BLOCK)", "1", "1"]
    assert by["row_softmax"]["grid"] is None
    mm = by["matmul_f16"]
    assert [a["const"] for a in mm["args"][:3]] == [True, True, False]
    # the K == 1 specialisation comes first and does not pass K
    assert mm["variants"][0]["specs"][5] == {"kind": "equal1"}
    assert "K" not in mm["variants"][0]["kernel_params"]
    # every variant: a cubin + PTX per NVIDIA target, an hsaco + LLVM IR per AMD target
    for k in m["kernels"]:
        for v in k["variants"]:
            got = sorted((i["kind"], i["arch"]) for i in v["images"])
            assert got == sorted([("cubin", "sm_80"), ("ptx", "sm_80"), ("cubin", "sm_90a"), ("ptx", "sm_90a"),
                                  ("cubin", "sm_100a"), ("ptx", "sm_100a"), ("hsaco", "gfx90a"),
                                  ("llir", "gfx90a"), ("hsaco", "gfx942"), ("llir", "gfx942")])
            generic = [i for i in v["images"] if i.get("generic_ptx")]
            assert [(i["kind"], i["arch"]) for i in generic] == [("ptx", "sm_80")]


def test_fixture_metadata_is_tritons(fixture_manifest):
    img = fixture_manifest["kernels"][0]["variants"][0]["images"][0]
    md = json.loads((ART / img["metadata"]).read_text())
    assert md["triton_version"] == fixture_manifest["triton_version"]
    assert md["name"] == "vector_add" and md["num_warps"] == 4 and "global_scratch_size" in md


def mutate(m, path, value=None, delete=False):
    m = copy.deepcopy(m)
    obj = m
    for p in path[:-1]:
        obj = obj[p]
    if delete:
        del obj[path[-1]]
    else:
        obj[path[-1]] = value
    return m


@pytest.mark.parametrize("path,value,delete,fragment", [
    (["schema"], "other", False, "schema: expected 'tritonpack-manifest'"),
    (["version"], 2, False, "version: expected 1"),
    (["name"], "9lib", False, "name: '9lib' must start with a letter"),
    (["mode"], "fast", False, "mode: 'fast' is not binary, ir or both"),
    (["kernels"], None, True, "<root>.kernels: missing"),
    (["kernels", 0, "name"], "class", False, "kernels[0].name: 'class' is a C++ keyword"),
    (["kernels", 1, "name"], "vector_add", False, "kernels[1].name: 'vector_add' is already used by kernel [0]"),
    (["kernels", 1, "name"], "Vector_Add", False, "kernels[1].name: 'Vector_Add' and 'vector_add' (kernel [0]) differ only"),
    (["kernels", 1, "name"], "Fixtures", False, "kernels[1].name: 'Fixtures' is also the library's name"),
    (["kernels", 0, "source_hash"], "abc", False, "kernels[0].source_hash: not a sha256"),
    (["kernels", 0, "args", 0, "type"], "*float", False, "kernels[0].args[0].type: '*float' is not a Triton type"),
    (["kernels", 0, "args", 0, "const"], None, True, "kernels[0].args[0].const: missing"),
    (["kernels", 0, "args", 3, "const"], True, False, "kernels[0].args[3].const: only pointers can be const"),
    (["kernels", 0, "grid"], ["1", "1"], False, "kernels[0].grid: expected 3 non-empty strings or null"),
    (["kernels", 0, "grid"], None, True, "kernels[0].grid: missing"),
    (["kernels", 0, "variants"], [], False, "kernels[0].variants: empty"),
    (["kernels", 0, "variants", 0, "specs", 0, "kind"], "div8", False, "is not one of none, div16, equal1, constexpr"),
    (["kernels", 0, "variants", 0, "specs", 4, "kind"], "div16", False, "div16 on argument of type fp32"),
    (["kernels", 0, "variants", 0, "specs", 0, "kind"], "equal1", False, "equal1 on non-integer argument"),
    (["kernels", 0, "variants", 0, "specs", 3], {"kind": "constexpr"}, False, "specs[3].value: missing"),
    (["kernels", 0, "variants", 0, "specs"], [], False, "specs: 0 entries for 5 args"),
    (["kernels", 0, "variants", 0, "kernel_params"], ["x"], False, "kernel_params: ['x'] but"),
    (["kernels", 0, "variants", 0, "config", "num_warps"], 0, False, "config.num_warps: must be >= 1"),
    (["kernels", 0, "variants", 0, "config", "constexprs"], None, True, "config.constexprs: missing"),
    (["kernels", 0, "variants", 0, "images", 0, "kind"], "hsaco", False, "'hsaco' is not valid for cuda"),
    (["kernels", 0, "variants", 0, "images", 0, "arch"], "sm90", False, "'sm90' is not sm_XY or sm_XYa"),
    (["kernels", 0, "variants", 0, "images", 0, "ptx_version"], "8.7", False, "only PTX images have one"),
    (["kernels", 0, "variants", 0, "images", 1, "ptx_version"], None, True, "ptx_version: missing"),
    (["kernels", 0, "variants", 0, "images", 0, "metadata"], None, True, "metadata: missing"),
    (["kernels", 0, "variants", 0, "images", 0, "file"], "nope.cubin", False, "nope.cubin does not exist"),
    (["kernels", 0, "variants", 0, "images", 0, "generic_ptx"], True, False, "only a PTX for a non-'a' target"),
    (["triton_commit"], "v3.6.0", False, "triton_commit: expected a git commit"),
    (["kernels", 0, "variants", 0, "images", 1, "ptxas_version"], "12.8.93", False, "ptxas_version: only cubin images"),
    (["kernels", 0, "variants", 0, "images", 0, "ptxas_version"], "", False, "ptxas_version: expected a non-empty"),
    (["kernels", 0, "variants", 0, "images", 0, "llvm_version"], "22.0.0", False, "llvm_version: only hsaco images"),
])
def test_checker_finds(fixture_manifest, path, value, delete, fragment):
    problems = check_manifest(mutate(fixture_manifest, path, value, delete), base_dir=ART)
    assert any(fragment in p for p in problems), problems


def test_order_most_specialised_first(fixture_manifest):
    m = copy.deepcopy(fixture_manifest)
    m["kernels"][0]["variants"].reverse()
    assert any("more specialised than the variant before it" in p for p in check_manifest(m))


def test_mode_narrower_than_images(fixture_manifest):
    m = mutate(fixture_manifest, ["mode"], "binary")
    assert any("'ptx' is outside mode 'binary'" in p or "'llir' is outside mode 'binary'" in p
               for p in check_manifest(m))


def test_ptx_header_is_cross_checked(fixture_manifest, tmp_path):
    m = mutate(fixture_manifest, ["kernels", 0, "variants", 0, "images", 1, "ptx_version"], "7.0")
    assert any("ptx_version: file says" in p for p in check_manifest(m, base_dir=ART))


def test_not_an_object():
    assert check_manifest([]) == ["<root>: not a JSON object"]


@pytest.mark.parametrize("arch,accepted", [("gfx1250-strict", True), ("gfx1250-strict:sramecc+", True),
                                           ("gfx1250-lax", False), ("gfx1250strict", False)])
def test_hip_arch_may_be_strict(fixture_manifest, arch, accepted):
    # Triton 3.9's gfx1250-strict (gfx1250's A0 stepping) is a processor name of its own
    images = fixture_manifest["kernels"][0]["variants"][0]["images"]
    i = next(n for n, im in enumerate(images) if im["kind"] == "hsaco")
    problems = check_manifest(mutate(fixture_manifest, ["kernels", 0, "variants", 0, "images", i, "arch"], arch))
    assert any(f"'{arch}' is not a gfx target" in p for p in problems) != accepted, problems


def test_provenance_keys_are_optional_and_checked(fixture_manifest):
    """Manifests written before the provenance keys existed stay valid; with them, too."""
    m = copy.deepcopy(fixture_manifest)
    m["triton_commit"] = "0123456789abcdef0123456789abcdef01234567"
    for v in m["kernels"][0]["variants"]:
        for img in v["images"]:
            if img["kind"] == "cubin":
                img["ptxas_version"] = "12.8.93"
            if img["kind"] == "hsaco":
                img["llvm_version"] = "22.0.0 (f6ded0be897e2878612dd903f7e8bb85448269e5)"
    assert check_manifest(m, base_dir=ART) == []


class _Dist:
    def __init__(self, version, direct_url):
        self.version, self._direct = version, direct_url

    def read_text(self, name):
        return self._direct if name == "direct_url.json" else None


@pytest.mark.parametrize("version,direct_url,commit", [
    ("3.6.0", None, None),                                   # a release wheel records none
    ("3.6.0+git0123abcd", None, "0123abcd"),                 # a source build's local label
    ("3.6.0", json.dumps({"url": "https://github.com/triton-lang/triton",
                          "vcs_info": {"vcs": "git", "commit_id": "f" * 40}}), "f" * 40),
    ("3.6.0", json.dumps({"url": "file:///src/triton", "dir_info": {}}), None),
    ("3.6.0", "not json", None),
])
def test_triton_commit_only_where_recorded(monkeypatch, version, direct_url, commit):
    from importlib import metadata
    from tritonpack_compile import provenance
    monkeypatch.setattr(metadata, "distribution", lambda name: _Dist(version, direct_url))
    assert provenance.triton_commit() == commit
