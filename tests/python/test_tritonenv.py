"""The environment part of the compile cache key (tritonpack_compile/tritonenv.py): what it reads,
and that its lists agree with the installed Triton's knobs and cache key."""
import os
import subprocess
import sys

import pytest

from conftest import env_with_pkg
from tritonpack_compile import tritonenv
from tritonpack_compile.frontend import default_cache_dir


@pytest.fixture
def clean_env(monkeypatch):
    for k in list(os.environ):
        if k in tritonenv.KEYED_ENV or k.startswith(("TRITON", "MLIR_", "LLVM_", "AMDGCN_")):
            monkeypatch.delenv(k)
    return monkeypatch


def test_nothing_set_is_empty(clean_env):
    assert tritonenv.compile_env() == {}


def test_set_variables_with_values(clean_env):
    clean_env.setenv("TRITON_F32_DEFAULT", "ieee")
    clean_env.setenv("PTXAS_OPTIONS", "-v")
    clean_env.setenv("TRITON_CACHE_DIR", "/somewhere")  # not an output-changing knob
    clean_env.setenv("TRITONPACK_UNRELATED", "1")
    assert tritonenv.compile_env() == {"TRITON_F32_DEFAULT": "ieee", "PTXAS_OPTIONS": "-v"}


def test_override_files_are_keyed(clean_env, tmp_path):
    d = tmp_path / "override"
    (d / "abc").mkdir(parents=True)
    clean_env.setenv("TRITON_OVERRIDE_DIR", str(d))
    assert tritonenv.compile_env() == {}  # the directory alone overrides nothing
    clean_env.setenv("TRITON_KERNEL_OVERRIDE", "1")
    empty = tritonenv.compile_env()
    (d / "abc" / "k.ttgir").write_text("module {}")
    one = tritonenv.compile_env()
    (d / "abc" / "k.ttgir").write_text("module { }")
    edited = tritonenv.compile_env()
    assert len({empty["<override files>"], one["<override files>"], edited["<override files>"]}) == 3
    # TRITON_HOME locates the default override directory
    clean_env.delenv("TRITON_OVERRIDE_DIR")
    clean_env.setenv("TRITON_HOME", str(tmp_path / "home"))
    (tmp_path / "home" / ".triton" / "override").mkdir(parents=True)
    (tmp_path / "home" / ".triton" / "override" / "k.ptx").write_text("// ptx")
    assert tritonenv.compile_env()["<override files>"] != empty["<override files>"]


def test_default_cache_dir(monkeypatch, tmp_path):
    monkeypatch.delenv("TRITONPACK_COMPILE_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("TRITONPACK_CACHE_DIR", str(tmp_path / "jit"))  # the run time's: not read
    assert default_cache_dir() == tmp_path / "xdg" / "tritonpack" / "compile"
    monkeypatch.setenv("TRITONPACK_COMPILE_CACHE_DIR", str(tmp_path / "cc"))
    assert default_cache_dir() == tmp_path / "cc"


# Runs in a fresh process: sets every name it checks.
_CHECK = r"""
import os, sys, json
import triton.knobs as K
from tritonpack_compile import tritonenv as T
knob_keys = set()
for name in dir(K):
    obj = getattr(K, name)
    if isinstance(obj, K.base_knobs):
        knob_keys |= {d.key for d in obj.knob_descriptors.values()}
for k in set(T.KEYED_ENV) | knob_keys:
    os.environ[k] = "1"
from triton._C.libtriton import get_cache_invalidating_env_vars
print(json.dumps({"knobs": sorted(knob_keys), "triton_keyed": sorted(get_cache_invalidating_env_vars())}))
"""


@pytest.mark.slow
def test_lists_match_the_installed_triton():
    import json
    r = subprocess.run([sys.executable, "-c", _CHECK], env=env_with_pkg(), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    triton_keyed = set(got["triton_keyed"])
    # every name we list as Triton's own is one Triton keys (a typo or a removed name fails here)
    assert set(tritonenv.TRITON_CACHE_ENV) <= triton_keyed
    # every Triton-keyed name that we know of is keyed by us too
    assert triton_keyed <= set(tritonenv.KEYED_ENV)
    # every knob of triton.knobs is either keyed or ignored with a reason
    unknown = set(got["knobs"]) - set(tritonenv.KEYED_ENV) - set(tritonenv.IGNORED_KNOBS)
    assert not unknown, f"triton.knobs has variables tritonenv.py does not classify: {sorted(unknown)}"
    assert not set(tritonenv.KEYED_ENV) & set(tritonenv.IGNORED_KNOBS)
