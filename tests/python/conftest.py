"""Shared helpers for the front end's tests (run: python -m pytest tests/python)."""
import os
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PKG = REPO / "generator" / "python"
DATA = REPO / "tests" / "data"
HERE_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(PKG))


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: compiles with Triton or builds a venv (seconds to a minute)")


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory):
    """One compile cache for the tests that only need compile results, so identical compilations
    are done once per session."""
    return tmp_path_factory.mktemp("tp-cache")


@pytest.fixture
def kdir(tmp_path):
    """A folder with the fixture kernels and a helper to write a spec next to them."""
    shutil.copy(DATA / "kernels.py", tmp_path / "kernels.py")
    return tmp_path


# One kernel, one target, binary mode: one compilation.
SMALL_SPEC = """
    name = "small"
    targets = ["sm_80"]
    mode = "binary"
    [[kernel]]
    source = "kernels.py:vector_add"
    signatures = ["*fp32, *fp32, *fp32, i32, fp32, 128"]
"""


def write_spec(folder: Path, text: str, name: str = "spec.toml") -> Path:
    p = folder / name
    p.write_text(textwrap.dedent(text))
    return p


def env_with_pkg():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(PKG) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env
