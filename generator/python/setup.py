"""The wheel's build (pyproject.toml names the rest): the version is tritonpack's, read from
include/tritonpack/version.hpp by tritonpack_compile/_version.py, and the wheel carries a copy of
that header beside the package, so that the installed front end knows its version without the
repository."""
import runpy
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

_version = runpy.run_path(str(Path(__file__).resolve().parent / "tritonpack_compile" / "_version.py"))
HEADER = _version["find_header"]()


class build_py_with_version_header(build_py):
    def run(self):
        super().run()
        self.copy_file(str(HEADER), str(Path(self.build_lib) / "tritonpack_compile" / _version["HEADER"]))


setup(version=_version["read_version"](HEADER), cmdclass={"build_py": build_py_with_version_header})
