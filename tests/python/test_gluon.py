"""Gluon kernels (@gluon.jit) compile through the front end like @triton.jit ones: from a
GluonASTSource, with const inference from their first stage (TTGIR: they have no TTIR)."""
import io
import json
import re
import shutil

import pytest

from conftest import HERE_DIR, write_spec
from tritonpack_compile.frontend import compile_spec
from tritonpack_compile.manifest import check_manifest

pytestmark = pytest.mark.slow

SPEC = """
    name = "gluon_demo"
    targets = ["sm_80", "sm_90a"]
    [[kernel]]
    source = "gluon_kernels.py:scale2"
    signatures = ["*fp32:16, *fp32:16, i32, 128"]
    num_warps = 4
    grid = ["cdiv(n, 128)", 1, 1]
"""


def _compile(tmp_path, cache, text):
    shutil.copy(HERE_DIR / "gluon_kernels.py", tmp_path / "gluon_kernels.py")
    spec = write_spec(tmp_path, text)
    buf = io.StringIO()
    outcome = compile_spec(spec, tmp_path / "out", jobs=2, cache_dir=cache, stream=buf)
    return outcome, buf.getvalue()


@pytest.fixture(scope="module")
def gluon_out(tmp_path_factory, shared_cache):
    d = tmp_path_factory.mktemp("gluon")
    outcome, log = _compile(d, shared_cache, SPEC)
    assert not outcome.failures, (outcome.failures, log)
    return d / "out", outcome, log


def test_gluon_kernel_compiles_for_each_target(gluon_out):
    out, outcome, _ = gluon_out
    m = json.loads((out / "manifest.json").read_text())
    assert check_manifest(m, base_dir=out) == []
    (k,) = m["kernels"]
    assert k["name"] == "scale2"
    images = [img for v in k["variants"] for img in v["images"]]
    archs = {(img["kind"], img["arch"]) for img in images}
    assert ("cubin", "sm_80") in archs and ("cubin", "sm_90a") in archs, archs
    for img in images:
        if img["kind"] == "ptx":
            ptx = (out / img["file"]).read_text()
            assert re.search(r"\.entry\s+scale2\s*\(", ptx)


def test_gluon_const_inference_uses_ttgir(gluon_out):
    out, outcome, log = gluon_out
    m = json.loads((out / "manifest.json").read_text())
    args = {a["name"]: a for a in m["kernels"][0]["args"]}
    assert args["x_ptr"].get("const") is True  # only loaded from
    assert args["y_ptr"].get("const") is False  # stored to
    assert not any("could not match the TTIR arguments" in w for w in outcome.warnings), outcome.warnings


def test_gluon_kernel_for_a_target_it_was_not_written_for_fails_naming_it(tmp_path, shared_cache):
    outcome, log = _compile(tmp_path, shared_cache, SPEC.replace('["sm_80", "sm_90a"]', '["gfx942"]'))
    assert outcome.failures
    text = "\n".join(str(f) for f in outcome.failures) + log
    assert "gfx942" in text and "invalid layout" in text, text
    assert "Gluon kernel is written for one GPU family" in text, text
