"""The front end in a fresh virtual environment that has Triton and nothing else (no torch, no
pytest...), both from a source checkout (PYTHONPATH) and pip-installed with its console scripts.

Works offline: instead of downloading Triton again (~300 MB), the venv sees the already-installed
Triton through a .pth file pointing at a folder that links *only* triton and its dist-info. The
package itself is installed with --no-index --no-build-isolation, so pip must find its `triton`
dependency already satisfied.
"""
import importlib.metadata
import importlib.util
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import DATA, PKG, REPO
from tritonpack_compile import __version__

pytestmark = pytest.mark.slow


def _run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    return r


@pytest.fixture(scope="module")
def triton_only_venv(tmp_path_factory):
    root = tmp_path_factory.mktemp("venv")
    venv = root / "venv"
    r = _run([sys.executable, "-m", "venv", str(venv)])
    if r.returncode:
        pytest.skip(f"cannot create a venv here: {r.stderr.strip()}")
    py = venv / "bin" / "python"
    site = Path(_run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    # only Triton: link its package and its dist-info into a folder of their own
    only = root / "triton-only"
    only.mkdir()
    pkg_dir = Path(importlib.util.find_spec("triton").origin).parent
    dist = importlib.metadata.distribution("triton")
    dist_dir = Path(dist._path)  # the .dist-info folder
    (only / "triton").symlink_to(pkg_dir)
    (only / dist_dir.name).symlink_to(dist_dir)
    (site / "zz-triton-only.pth").write_text(str(only) + "\n")
    # Triton's own requirements for this Python (none for 3.6 on Python >= 3.10): if a later
    # Triton needs more, this venv would be incomplete and the test must be taught about it
    from packaging.requirements import Requirement  # a dependency of pytest itself
    needed = [r for r in (dist.requires or []) if Requirement(r).marker is None
              or Requirement(r).marker.evaluate({"extra": ""})]
    assert not needed, needed
    return venv


def _env():
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    return env


SPEC = """
    targets = ["sm_80", "gfx942"]
    [[kernel]]
    source = "kernels.py:vector_add"
    signatures = ["*fp32:16, *fp32:16, *fp32:16, i32, fp32, 256"]
    grid = ["cdiv(n, 256)"]
"""


def test_venv_has_triton_and_nothing_else(triton_only_venv):
    py = str(triton_only_venv / "bin" / "python")
    assert _run([py, "-c", "import triton; print(triton.__version__)"], env=_env()).returncode == 0
    for mod in ("torch", "pytest", "tomli", "tritonpack_compile"):
        r = _run([py, "-c", f"import {mod}"], env=_env())
        assert r.returncode != 0 and "ModuleNotFoundError" in r.stderr, mod


def test_from_a_checkout_with_pythonpath(triton_only_venv, tmp_path):
    shutil.copy(DATA / "kernels.py", tmp_path / "kernels.py")
    (tmp_path / "k.toml").write_text(textwrap.dedent(SPEC))
    env = dict(_env(), PYTHONPATH=str(PKG))
    r = _run([str(triton_only_venv / "bin" / "python"), "-m", "tritonpack_compile", "k.toml", "-o", "out",
              "--cache-dir", "cache", "-j", "2"], cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 kernels, 4 images" in r.stdout
    r = _run([str(triton_only_venv / "bin" / "python"), "-c", "import torch"], env=env)
    assert r.returncode != 0


def test_pip_install_and_console_scripts(triton_only_venv, tmp_path):
    # Build the wheel with the test runner's Python (offline: no build isolation), then install it
    # into the Triton-only venv *with* dependency resolution and no index: pip must find the
    # `triton` requirement already satisfied.
    # The package as laid out in the repository: its build reads include/tritonpack/version.hpp.
    src = tmp_path / "repo" / "generator" / "python"
    shutil.copytree(PKG, src, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
    header = Path("include", "tritonpack", "version.hpp")
    (tmp_path / "repo" / header).parent.mkdir(parents=True)
    shutil.copy(REPO / header, tmp_path / "repo" / header)
    wheels = tmp_path / "wheels"
    r = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-index", "--no-build-isolation",
              "--disable-pip-version-check", "-w", str(wheels), str(src)])
    if r.returncode and "bdist_wheel" in (r.stdout + r.stderr):
        pytest.skip("building a wheel offline needs the `wheel` package or setuptools >= 70.1 in the test "
                    "environment")
    assert r.returncode == 0, r.stdout + r.stderr
    (whl,) = wheels.glob(f"tritonpack_compile-{__version__}-*.whl")
    py = str(triton_only_venv / "bin" / "python")
    r = _run([py, "-m", "pip", "install", "--no-index", "--disable-pip-version-check", str(whl)], env=_env())
    assert r.returncode == 0, r.stdout + r.stderr
    bindir = triton_only_venv / "bin"
    r = _run([str(bindir / "tritonpack-compile"), "--version"], env=_env())
    assert r.returncode == 0 and f"tritonpack-compile {__version__}" in r.stdout
    r = _run([str(bindir / "tritonpack-build"), "--help"], env=_env())
    assert r.returncode == 0 and "--packer" in r.stdout
    shutil.copy(DATA / "kernels.py", tmp_path / "kernels.py")
    (tmp_path / "k.toml").write_text(textwrap.dedent(SPEC))
    r = _run([str(bindir / "tritonpack-compile"), "k.toml", "-o", "out", "--cache-dir", "cache", "-j", "2",
              "--mode", "binary"], cwd=tmp_path, env=_env())
    assert r.returncode == 0, r.stdout + r.stderr
    assert (tmp_path / "out" / "manifest.json").is_file()
    r = _run([py, "-c", "import torch"], env=_env())
    assert r.returncode != 0
