"""The rule for library and kernel names, front end half: every case of tests/data/names.json (the
table the packer's doctest reads too, so the two implementations cannot drift apart), and the
places the front end applies it: before compiling, naming where the name came from, never
renaming silently."""
import json
import subprocess
import sys

import pytest

from conftest import DATA, REPO, env_with_pkg, write_spec
from tritonpack_compile import names
from tritonpack_compile.errors import SpecError
from tritonpack_compile.spec import load_spec

TABLE = json.loads((DATA / "names.json").read_text())


def test_the_reserved_table_is_the_shared_one():
    assert sorted(names.reserved_names()) == sorted(TABLE["reserved"])


@pytest.mark.parametrize("name,why", sorted(TABLE["reserved"].items()))
def test_reserved_names_are_rejected_with_why(name, why):
    assert why in names.problem(name)


@pytest.mark.parametrize("name", sorted(names.FORTRAN_MODULES))
def test_fortran_module_names_are_rejected_in_any_case(name):
    assert "Fortran module" in names.problem(name.upper())


@pytest.mark.parametrize("name,fragment", sorted(TABLE["names"].items()))
def test_names(name, fragment):
    if fragment is None:
        assert names.problem(name) is None
    else:
        assert fragment in names.problem(name)


@pytest.mark.parametrize("kind,name,expected",
                         [(kind, n, s) for kind, table in TABLE["suggestions"].items() for n, s in table.items()])
def test_suggestions_are_the_shared_ones_and_valid(kind, name, expected):
    assert names.suggestion(name, kind) == expected
    assert names.problem(expected) is None


@pytest.mark.parametrize("case", TABLE["libraries"], ids=lambda c: f"{c['library']}:{','.join(c['kernels'])}")
def test_kernel_names_of_one_library(case):
    got = names.kernels_problem(case["library"], case["kernels"])
    if case["clash"] is None:
        assert got is None
    else:
        assert got[0] == case["clash"]["kernel"] and case["clash"]["why"] in got[1]


# --- where the front end applies the rule: load_spec, before anything is imported or compiled ------

KERNEL = """
    [[kernel]]
    source = "kernels.py:{function}"
    {name}
    signatures = ["*fp32, *fp32, *fp32, i32, fp32"]
"""


def kernel(function="vector_add", name=None):
    return KERNEL.format(function=function, name=f'name = "{name}"' if name else "")


def load_error(path):
    with pytest.raises(SpecError) as e:
        load_spec(path)
    return str(e.value)


def test_a_file_name_that_is_not_a_valid_name_is_an_error_not_a_rename(kdir):
    p = write_spec(kdir, kernel(), name="9lib.toml")
    msg = load_error(p)
    assert "the library name '9lib' must start with a letter" in msg
    assert "it comes from the spec's file name 9lib.toml: set `name = \"lib_9lib\"`" in msg


def test_the_file_name_default_replaces_only_characters_a_name_cannot_hold(kdir):
    assert load_spec(write_spec(kdir, kernel(), name="my-kernels.toml")).name == "my_kernels"


@pytest.mark.parametrize("name,fragment", [
    ("std", "'std' is reserved: the C++ standard library's namespace; use e.g. name = \"std_kernels\""),
    ("tritonpack", "'tritonpack' is reserved: the run time's namespace"),
    ("detail", "'detail' is reserved"),
    ("library", "'library' is reserved"),
    ("main", "'main' is reserved: the program's entry point, int main()"),
    ("linux", "'linux' is reserved: a macro GCC and Clang predefine"),
    ("mpi", "'mpi' is reserved: a Fortran module programs use"),
    ("_lib", "'_lib' must start with a letter"),
])
def test_library_names_the_packer_would_refuse_are_refused_before_compiling(kdir, name, fragment):
    msg = load_error(write_spec(kdir, f'name = "{name}"\n' + kernel()))
    assert ": name: the library name " + fragment in msg


@pytest.mark.parametrize("function,name,label,fragment", [
    ("vector_add", "library", "library", "'library' is reserved: used by every generated header (NAME::library()); "
                                         "use e.g. `name = \"library_kernel\"`"),
    ("vector_add", "std", "std", "'std' is reserved"),
    ("vector_add", "last_error", "last_error", "'last_error' is reserved: used by the generated C API"),
    ("vector_add", "errno", "errno", "'errno' is reserved: a macro of the C and C++ standard libraries"),
    ("_vector_add", None, "_vector_add", "the function name '_vector_add' must start with a letter (a leading _ is "
                                         "reserved in C and C++, and Fortran names start with a letter); give the "
                                         "kernel a C++ name with `name = \"vector_add\"`"),
])
def test_kernel_names_are_checked_when_the_spec_is_read(kdir, function, name, label, fragment):
    msg = load_error(write_spec(kdir, 'name = "lib"\n' + kernel(function, name)))
    assert f"kernel '{label}': name: {fragment}" in msg


def test_kernel_names_that_clash_in_fortran_are_refused(kdir):
    msg = load_error(write_spec(kdir, 'name = "lib"\n' + kernel() + kernel(name="Vector_add")))
    assert ("kernel 'Vector_add': name: 'Vector_add' and 'vector_add' (kernel [0]) differ only in case, and Fortran "
            "ignores case; give this kernel another `name`") in msg
    msg = load_error(write_spec(kdir, 'name = "vector_add"\n' + kernel()))
    assert "kernel 'vector_add': name: 'vector_add' is also the library's name" in msg


# --- CMake's configure step applies the same rule (cmake/tritonpack_spec_info.py) ----------------

def spec_info(*args):
    return subprocess.run([sys.executable, str(REPO / "cmake" / "tritonpack_spec_info.py"), *map(str, args)],
                          capture_output=True, text=True, env=env_with_pkg())


def test_cmake_gets_the_effective_library_name(kdir):
    p = write_spec(kdir, kernel(), name="my-kernels.toml")
    assert "name=my_kernels\n" in spec_info(p).stdout
    assert "name=physics\n" in spec_info(p, "physics").stdout
    q = write_spec(kdir, 'name = "phys"\n' + kernel())
    assert "name=phys\n" in spec_info(q).stdout


@pytest.mark.parametrize("spec_name,override,fragments", [
    ("9lib.toml", None, ["the library name '9lib' must start with a letter",
                         "; it comes from the spec's file name 9lib.toml: pass NAME lib_9lib (or set "
                         "`name = \"lib_9lib\"` in the spec)"]),
    ("spec.toml", "std", ["NAME std: the library name 'std' is reserved: the C++ standard library's namespace; "
                          "pass e.g. NAME std_kernels"]),
])
def test_cmake_refuses_a_bad_name_at_configure_time(kdir, spec_name, override, fragments):
    p = write_spec(kdir, kernel(), name=spec_name)
    r = spec_info(p, *([override] if override else []))
    assert r.returncode == 1 and r.stdout == "", r
    for f in fragments:
        assert f in r.stderr, r.stderr


def test_build_refuses_a_bad_name_before_compiling(tmp_path, capsys):
    """tritonpack-build --name is checked by the same rule before anything compiles (exit 2)."""
    from tritonpack_compile import cli
    spec = tmp_path / "k.toml"
    spec.write_text('name = "k"\ntargets = ["sm_80"]\n[[kernel]]\nsource = "missing.py:f"\nsignatures = ["i32"]\n')
    packer = tmp_path / "tritonpack"
    packer.write_text("#!/bin/sh\nexit 0\n")
    packer.chmod(0o755)
    rc = cli.build_main([str(spec), "-o", str(tmp_path / "out"), "--name", "main", "--packer", str(packer)])
    err = capsys.readouterr().err
    assert rc == 2
    assert "--name: the library name 'main' is reserved" in err and "--name main_kernels" in err
    assert not (tmp_path / "out" / "artifacts").exists()
