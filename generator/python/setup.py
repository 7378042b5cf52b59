"""The wheel's build (pyproject.toml names the rest): the version is tritonpack's, read from
include/tritonpack/version.hpp by tritonpack_compile/_version.py, and the wheel carries a copy of
that header beside the package, so that the installed front end knows its version without the
repository. The Triton requirement is the supported window of tritonpack_compile/triton_support.py."""
import ast
import runpy
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

_version = runpy.run_path(str(Path(__file__).resolve().parent / "tritonpack_compile" / "_version.py"))
HEADER = _version["find_header"]()


def triton_requirement() -> str:
    """`triton>=MIN,<MAX+1` from SUPPORTED_MIN and SUPPORTED_MAX (read without importing the package)."""
    tree = ast.parse((Path(__file__).resolve().parent / "tritonpack_compile" / "triton_support.py").read_text())
    bounds = {t.id: ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
              for t in node.targets if isinstance(t, ast.Name) and t.id in ("SUPPORTED_MIN", "SUPPORTED_MAX")}
    lo, hi = bounds["SUPPORTED_MIN"], bounds["SUPPORTED_MAX"]
    return f"triton>={lo[0]}.{lo[1]},<{hi[0]}.{hi[1] + 1}"


class build_py_with_version_header(build_py):
    def run(self):
        super().run()
        self.copy_file(str(HEADER), str(Path(self.build_lib) / "tritonpack_compile" / _version["HEADER"]))


setup(version=_version["read_version"](HEADER), cmdclass={"build_py": build_py_with_version_header},
      install_requires=[triton_requirement(), "tomli>=1.1; python_version < '3.11'"])
