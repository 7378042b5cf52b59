"""Command lines: tritonpack-build (packer discovery and invocation), options, and fixtures."""
import json
import os
import shutil
import stat
import subprocess
import sys

import pytest

from conftest import DATA, SMALL_SPEC as SMALL, env_with_pkg, write_spec
from tritonpack_compile import __version__
from tritonpack_compile.cli import build_main, compile_main, find_packer
from tritonpack_compile.errors import TritonpackError


def fake_packer(folder, rc=0):
    """A stand-in for the C++ packer that records its arguments."""
    p = folder / "tritonpack"
    p.write_text(f"#!/bin/sh\necho \"$@\" > \"{folder}/packer-args\"\nexit {rc}\n")
    p.chmod(p.stat().st_mode | stat.S_IXUSR)
    return p


def test_find_packer_order(tmp_path, monkeypatch):
    a = fake_packer(tmp_path)
    monkeypatch.setenv("TRITONPACK_PACKER", str(a))
    assert find_packer() == str(a)
    assert find_packer(str(a)) == str(a)
    monkeypatch.delenv("TRITONPACK_PACKER")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_packer() == str(a)


def test_missing_packer_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.delenv("TRITONPACK_PACKER", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(TritonpackError, match="pass --packer PATH, set TRITONPACK_PACKER, or put `tritonpack`"):
        find_packer()
    with pytest.raises(TritonpackError, match=r"given by --packer \(/nope/tritonpack\) does not exist"):
        find_packer("/nope/tritonpack")
    monkeypatch.setenv("TRITONPACK_PACKER", "/nope/tp")
    with pytest.raises(TritonpackError, match=r"\$TRITONPACK_PACKER"):
        find_packer()


def test_build_without_packer_fails_before_compiling(kdir, monkeypatch, capsys):
    monkeypatch.delenv("TRITONPACK_PACKER", raising=False)
    monkeypatch.setenv("PATH", str(kdir))
    spec = write_spec(kdir, SMALL)
    rc = build_main([str(spec), "-o", str(kdir / "build")])
    err = capsys.readouterr().err
    assert rc == 2 and "packer was not found" in err and "Traceback" not in err
    assert not (kdir / "build").exists()


@pytest.mark.slow
def test_build_runs_compile_then_packer(kdir, shared_cache, capsys):
    packer = fake_packer(kdir)
    spec = write_spec(kdir, SMALL)
    out = kdir / "build"
    rc = build_main([str(spec), "-o", str(out), "--packer", str(packer), "--cache-dir", str(shared_cache)])
    assert rc == 0, capsys.readouterr()
    assert (out / "artifacts" / "manifest.json").is_file()
    args = (kdir / "packer-args").read_text().split()
    assert args == ["pack", str(out / "artifacts" / "manifest.json"), "-o", str(out), "--name", "small",
                    "--mode", "binary"]
    # --name and --mode go to both halves
    rc = build_main([str(spec), "-o", str(out), "--packer", str(packer), "--cache-dir", str(shared_cache),
                     "--name", "other", "--mode", "both", "-q"])
    assert rc == 0
    args = (kdir / "packer-args").read_text().split()
    assert args[-4:] == ["--name", "other", "--mode", "both"]
    assert json.loads((out / "artifacts" / "manifest.json").read_text())["mode"] == "both"


@pytest.mark.slow
def test_build_reports_packer_failure(kdir, shared_cache, capsys):
    packer = fake_packer(kdir, rc=3)
    spec = write_spec(kdir, SMALL)
    rc = build_main([str(spec), "-o", str(kdir / "b"), "--packer", str(packer), "--cache-dir", str(shared_cache)])
    assert rc == 3
    assert "the packer failed (exit 3)" in capsys.readouterr().err


@pytest.mark.slow
def test_targets_option_accepts_lists_and_commas(kdir, shared_cache, capsys):
    spec = write_spec(kdir, SMALL)
    rc = compile_main([str(spec), "-o", str(kdir / "o"), "--cache-dir", str(shared_cache),
                       "--targets", "sm_80,gfx942", "gfx90a", "--mode", "binary"])
    assert rc == 0, capsys.readouterr()
    m = json.loads((kdir / "o" / "manifest.json").read_text())
    assert [i["arch"] for i in m["kernels"][0]["variants"][0]["images"]] == ["sm_80", "gfx942", "gfx90a"]


def test_bad_arguments(kdir, capsys):
    spec = write_spec(kdir, SMALL)
    assert compile_main([str(spec), "-o", str(kdir / "o"), "-j", "0"]) == 2
    assert "-j must be at least 1" in capsys.readouterr().err
    assert compile_main([str(spec), "-o", str(kdir / "o"), "--targets", "volta"]) == 2
    assert "--targets: unknown target 'volta'" in capsys.readouterr().err
    # A value tritonpack_add_kernels passed is named as the CMake argument it came from.
    assert compile_main([str(spec), "-o", str(kdir / "o"), "--targets", "volta",
                         "--targets-from", "TARGETS of tritonpack_add_kernels(app)"]) == 2
    err = capsys.readouterr().err
    assert "TARGETS of tritonpack_add_kernels(app): unknown target 'volta'" in err and "--targets" not in err
    with pytest.raises(SystemExit):
        compile_main([str(spec)])  # -o is required (argparse prints usage)


def test_python_dash_m_and_version():
    r = subprocess.run([sys.executable, "-m", "tritonpack_compile", "--version"], env=env_with_pkg(),
                       capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == f"tritonpack-compile {__version__}"


def _without_provenance(manifest):
    m = {key: value for key, value in manifest.items() if key != "triton_commit"}
    m["kernels"] = [dict(k, variants=[dict(v, images=[{key: value for key, value in i.items()
                                                       if key not in ("ptxas_version", "llvm_version")}
                                                      for i in v["images"]])
                                      for v in k["variants"]])
                    for k in manifest["kernels"]]
    return m


def _without_triton_facts(manifest):
    m = dict(manifest, triton_version=None)
    m["kernels"] = [dict(k, variants=[dict(v, images=[dict(i, ptx_version=None) if "ptx_version" in i else i
                                                     for i in v["images"]])
                                      for v in k["variants"]])
                    for k in manifest["kernels"]]
    return m


@pytest.mark.slow
def test_committed_fixtures_are_what_the_front_end_makes(tmp_path, shared_cache):
    """tests/data/artifacts must be regenerated (scripts/regen-artifacts.sh test-data) when the front end, the
    kernels or fixtures.toml change: the manifest made now must equal the committed one."""
    d = tmp_path / "data"
    d.mkdir()
    for f in ("kernels.py", "fixtures.toml"):
        shutil.copy(DATA / f, d / f)
    rc = compile_main([str(d / "fixtures.toml"), "-o", str(d / "artifacts"), "--cache-dir", str(shared_cache),
                       "-q", "-j", "2"])
    assert rc == 0
    fresh = json.loads((d / "artifacts" / "manifest.json").read_text())
    committed = json.loads((DATA / "artifacts" / "manifest.json").read_text())
    # Provenance (which ptxas, which LLVM, which commit) is a fact of the installed toolchain, which
    # TRITON_PTXAS_PATH can change under one Triton: the committed fixtures do not pin it (they
    # predate it, and the run time's tests use them as a container that records none).
    fresh, committed = _without_provenance(fresh), _without_provenance(committed)
    if fresh["triton_version"] != committed["triton_version"]:
        # Made with another Triton: what that Triton reports (its version, the PTX ISA of its
        # ptxas) differs; everything the front end decides must not.
        fresh, committed = _without_triton_facts(fresh), _without_triton_facts(committed)
    assert fresh == committed, "run scripts/regen-artifacts.sh test-data and commit tests/data/artifacts"
    # the binaries themselves: same sizes (contents embed the source path, which differs here)
    for k in committed["kernels"]:
        for v in k["variants"]:
            for img in v["images"]:
                if img["kind"] in ("cubin", "hsaco"):
                    assert (d / "artifacts" / img["file"]).is_file()
