"""Incremental builds: unchanged entries are not recompiled, a no-op run is fast and does not
import Triton, and editing a kernel (or a module it imports) recompiles what depends on it."""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from conftest import DATA, SMALL_SPEC, env_with_pkg, write_spec

pytestmark = pytest.mark.slow

SPEC = """
    name = "inc"
    targets = ["sm_80", "gfx942"]
    [[kernel]]
    source = "kernels.py:vector_add"
    signatures = ["*fp32:16, *fp32:16, *fp32:16, i32, fp32"]
    constexprs = {BLOCK = 256}
    [[kernel]]
    source = "kernels.py:row_softmax"
    signatures = ["*fp32, *fp32, i32, i32, i32, 128"]
    [[kernel]]
    source = "helper_user.py:scaled_copy"
    signatures = ["*fp32, *fp32, i32, 128"]
"""

HELPER = """
import triton
import triton.language as tl


@triton.jit
def scale(v):
    return v * 2.0
"""

HELPER_USER = """
import triton
import triton.language as tl
from helpers import scale


@triton.jit
def scaled_copy(x, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out + offs, scale(tl.load(x + offs, mask=m)), mask=m)
"""


def cli(args, cwd, env=None):
    """The front end as users run it: a fresh Python process (`env`: variables to set, None to unset)."""
    full = env_with_pkg()
    for k, v in (env or {}).items():
        if v is None:
            full.pop(k, None)
        else:
            full[k] = v
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "tritonpack_compile", *args], cwd=cwd, env=full,
                       capture_output=True, text=True)
    return r, time.perf_counter() - t0


@pytest.fixture
def proj(tmp_path):
    shutil.copy(DATA / "kernels.py", tmp_path / "kernels.py")
    (tmp_path / "helpers.py").write_text(HELPER)
    (tmp_path / "helper_user.py").write_text(HELPER_USER)
    write_spec(tmp_path, SPEC)
    return tmp_path


def summary(r):
    line = [ln for ln in r.stdout.splitlines() if "images ->" in ln]
    assert line, r.stdout + r.stderr
    return line[-1]


def test_second_run_recompiles_nothing_and_is_fast(proj):
    args = ["spec.toml", "-o", "out", "--cache-dir", "cache", "-j", "2"]
    r, cold = cli(args, proj)
    assert r.returncode == 0, r.stderr
    assert "6 compiled, 0 cached" in summary(r)
    manifest = (proj / "out" / "manifest.json")
    files = {p: p.stat().st_mtime_ns for p in (proj / "out").rglob("*") if p.is_file()}

    r, warm = cli(args, proj)
    assert r.returncode == 0, r.stderr
    assert "0 compiled, 6 cached" in summary(r)
    assert warm < 1.0, f"no-op run took {warm:.2f}s (cold: {cold:.2f}s)"
    # nothing rewritten: build systems see no change
    assert {p: p.stat().st_mtime_ns for p in (proj / "out").rglob("*") if p.is_file()} == files
    json.loads(manifest.read_text())


def test_noop_run_does_not_import_triton(proj):
    args = ["spec.toml", "-o", "out", "--cache-dir", "cache"]
    assert cli(args, proj)[0].returncode == 0
    code = ("import sys, runpy; sys.argv = ['tritonpack-compile'] + sys.argv[1:]\n"
            "from tritonpack_compile.cli import compile_main\n"
            "rc = compile_main()\n"
            "print('TRITON_IMPORTED', 'triton' in sys.modules)\n"
            "sys.exit(rc)")
    r = subprocess.run([sys.executable, "-c", code, *args], cwd=proj, env=env_with_pkg(), capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    assert "TRITON_IMPORTED False" in r.stdout


def test_touch_keeps_cache_but_edit_recompiles(proj):
    args = ["spec.toml", "-o", "out", "--cache-dir", "cache", "-j", "2"]
    assert cli(args, proj)[0].returncode == 0
    os.utime(proj / "kernels.py")  # same content, newer time stamp
    r, _ = cli(args, proj)
    assert "0 compiled, 6 cached" in summary(r)
    # an edit of kernels.py recompiles both of its kernels (4 images), not the third kernel
    (proj / "kernels.py").write_text((proj / "kernels.py").read_text() + "\n# edited\n")
    r, _ = cli(args, proj)
    assert "4 compiled, 2 cached" in summary(r), r.stdout
    # editing a module a kernel imports recompiles that kernel only
    (proj / "helpers.py").write_text(HELPER.replace("2.0", "3.0"))
    r, _ = cli(args, proj)
    assert "2 compiled, 4 cached" in summary(r), r.stdout
    # a spec change (new config) compiles only the new variant
    spec = proj / "spec.toml"
    spec.write_text(spec.read_text().replace("constexprs = {BLOCK = 256}",
                                             "configs = [{constexprs = {BLOCK = 256}}, {num_warps = 8, constexprs = {BLOCK = 512}}]"))
    r, _ = cli(args, proj)
    assert "2 compiled, 6 cached" in summary(r), r.stdout


def test_mode_change_uses_the_cache_and_removes_stale_files(proj):
    args = ["spec.toml", "-o", "out", "--cache-dir", "cache", "-j", "2"]
    assert cli(args, proj)[0].returncode == 0
    assert list((proj / "out").rglob("*.ptx"))
    r, _ = cli(args + ["--mode", "binary"], proj)
    assert "0 compiled, 6 cached" in summary(r)
    assert not list((proj / "out").rglob("*.ptx")) and not list((proj / "out").rglob("*.llir"))
    assert list((proj / "out").rglob("*.cubin"))
    # renaming a kernel removes the old kernel's folder
    spec = proj / "spec.toml"
    spec.write_text(spec.read_text().replace('source = "kernels.py:row_softmax"',
                                             'source = "kernels.py:row_softmax"\nname = "softmax"'))
    r, _ = cli(args + ["--mode", "binary"], proj)
    assert r.returncode == 0
    assert not (proj / "out" / "row_softmax").exists()
    assert (proj / "out" / "softmax").is_dir()


def test_depfile_lists_imported_modules(proj):
    r, _ = cli(["spec.toml", "-o", "out", "--cache-dir", "cache", "--depfile", "out.d"], proj)
    assert r.returncode == 0, r.stderr
    text = (proj / "out.d").read_text()
    target, deps = text.split(": ", 1)
    assert target == str((proj / "out" / "manifest.json").resolve())
    for name in ("spec.toml", "kernels.py", "helper_user.py", "helpers.py"):
        assert str((proj / name).resolve()) in deps


@pytest.fixture
def small(kdir):
    write_spec(kdir, SMALL_SPEC)
    return kdir


def test_compile_cache_dir_variable(small):
    """TRITONPACK_COMPILE_CACHE_DIR places the cache; the run time's TRITONPACK_CACHE_DIR does not."""
    def jobs_in(d):
        return list((small / d).rglob("result.json"))
    args = ["spec.toml", "-o", "out"]
    # TRITONPACK_CACHE_DIR alone: the default ($XDG_CACHE_HOME/tritonpack/compile), not the JIT cache
    r, _ = cli(args, small, env={"TRITONPACK_CACHE_DIR": str(small / "jit"), "TRITONPACK_COMPILE_CACHE_DIR": None,
                                 "XDG_CACHE_HOME": str(small / "xdg")})
    assert r.returncode == 0, r.stderr
    assert "1 compiled, 0 cached" in summary(r)
    assert not (small / "jit").exists()
    assert len(jobs_in("xdg/tritonpack/compile")) == 1
    assert "TRITONPACK_CACHE_DIR" not in r.stdout + r.stderr  # ignored quietly (docs/spec.md)
    # the new variable wins over XDG_CACHE_HOME and over TRITONPACK_CACHE_DIR
    env = {"TRITONPACK_CACHE_DIR": str(small / "jit"), "TRITONPACK_COMPILE_CACHE_DIR": str(small / "cc"),
           "XDG_CACHE_HOME": str(small / "xdg")}
    r, _ = cli(args, small, env=env)
    assert "1 compiled, 0 cached" in summary(r)
    assert len(jobs_in("cc")) == 1 and not (small / "jit").exists()
    r, _ = cli(args, small, env=env)
    assert "0 compiled, 1 cached" in summary(r)
    # --cache-dir wins over both
    r, _ = cli(args + ["--cache-dir", "explicit"], small, env=env)
    assert "1 compiled, 0 cached" in summary(r)
    assert len(jobs_in("explicit")) == 1


def test_triton_knobs_are_in_the_key(small):
    """A variable that changes Triton's output misses the cache; an unrelated one hits it."""
    args = ["spec.toml", "-o", "out", "--cache-dir", "cache"]
    base = {"TRITON_DEFAULT_FP_FUSION": None, "TRITON_DISABLE_LINE_INFO": None}
    r, _ = cli(args, small, env=base)
    assert "1 compiled, 0 cached" in summary(r), r.stdout + r.stderr
    r, _ = cli(args, small, env=dict(base, TRITON_DEFAULT_FP_FUSION="0"))
    assert "1 compiled, 0 cached" in summary(r), r.stdout + r.stderr
    r, _ = cli(args, small, env=dict(base, TRITON_DEFAULT_FP_FUSION="0"))
    assert "0 compiled, 1 cached" in summary(r)
    # unrelated variables, and Triton variables that do not change the output, hit the cache
    r, _ = cli(args, small, env=dict(base, TP_UNRELATED_VARIABLE="1", TRITON_DEBUG="1", TRITON_KERNEL_DUMP="0"))
    assert "0 compiled, 1 cached" in summary(r), r.stdout + r.stderr
    r, _ = cli(args, small, env=dict(base, TRITON_DISABLE_LINE_INFO="1"))
    assert "1 compiled, 0 cached" in summary(r)


def test_a_cache_entry_that_is_not_what_was_stored_is_compiled_again(small):
    """The compile cache is checked as the run time checks its JIT cache (cachetrust.py): an entry
    whose file changed, names a file outside itself, or that others may write is a miss, never
    packed."""
    args = ["spec.toml", "-o", "out", "--cache-dir", "cache"]
    r, _ = cli(args, small)
    assert r.returncode == 0, r.stderr
    assert "1 compiled, 0 cached" in summary(r)
    good = {p.relative_to(small / "out"): p.read_bytes() for p in (small / "out").rglob("*") if p.is_file()}
    results = list((small / "cache" / "jobs").glob("*/*/result.json"))
    assert len(results) == 1
    entry = results[0].parent
    res = json.loads(results[0].read_text())
    image = entry / next(f for k, f in res["files"].items() if k != "metadata")

    def rerun_compiles_and_restores():
        r, _ = cli(args, small)
        assert r.returncode == 0, r.stderr
        assert "1 compiled, 0 cached" in summary(r), r.stdout
        now = {p.relative_to(small / "out"): p.read_bytes() for p in (small / "out").rglob("*") if p.is_file()}
        assert now == good

    # A changed byte in a cached image.
    data = bytearray(image.read_bytes())
    data[len(data) // 2] ^= 0x01
    image.write_bytes(bytes(data))
    rerun_compiles_and_restores()
    # An entry naming a file outside itself, with that file's hash recorded as a forger would.
    outside = small / "outside.bin"
    outside.write_bytes(b"not a kernel")
    res = json.loads(results[0].read_text())
    kind = next(k for k in res["files"] if k != "metadata")
    res["files"][kind] = "../../../../outside.bin"
    res["sha256"]["../../../../outside.bin"] = hashlib.sha256(b"not a kernel").hexdigest()
    results[0].write_text(json.dumps(res))
    rerun_compiles_and_restores()
    # A file others may write.
    res = json.loads(results[0].read_text())
    os.chmod(entry / res["files"][kind], 0o666)
    rerun_compiles_and_restores()
    r, _ = cli(args, small)
    assert "0 compiled, 1 cached" in summary(r)  # and the rewritten entry is used again
