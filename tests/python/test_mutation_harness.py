"""scripts/mutation_test.py reads test output to name the tests that killed a mutant: doctest
blocks, pytest FAILED and ERROR lines (a fixture error is a kill too, and must be named), ctest's
list of failed tests; in a ctest suite a Fortran source that no longer compiles is a kill."""
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def script(name):
    """scripts/NAME.py, imported as a module."""
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / (name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def harness():
    return script("mutation_test")


def test_every_kind_of_failure_is_named():
    out = "\n".join([
        "TEST CASE:  C API: copy_async and memset_async go to the stream given",
        "tests/capi/test_capi.cpp:231: ERROR: CHECK( fake.last_stream(\"cuMemcpyAsync\") == non_blocking ) is NOT correct!",
        "===============================================================================",
        "TEST CASE:  only a message",
        "tests/x.cpp:1: MESSAGE: fine",
        "===============================================================================",
        "FAILED tests/python/test_a.py::test_x - assert 1 == 2",
        "ERROR tests/python/test_b.py::test_y - FileNotFoundError: tritonpack",
        "ERROR STOP copy_async to the device failed",
        "ERROR tests/python/test_c.py - ImportError: no module",
        "The following tests FAILED:",
        "\t 27 - capi.fortran.streams (Failed)                    cpu",
        "\t 31 - example.c.fake_driver (SEGFAULT)",
        "Errors while running CTest",
    ])
    assert harness().failing_tests(out) == [
        "C API: copy_async and memset_async go to the stream given",
        "tests/python/test_a.py::test_x",
        "tests/python/test_b.py::test_y (error)",
        "tests/python/test_c.py (error)",
        "capi.fortran.streams",
        "example.c.fake_driver",
    ]


def test_a_fortran_compile_failure_is_found_and_nothing_else():
    h = harness()
    assert h.fortran_compile_failure(
        "[3/9] Building Fortran object tests/capi/x.f90.o\n"
        "FAILED: tests/capi/CMakeFiles/tritonpack_fortran_calls.dir/fortran_calls.f90.o \n"
        "Error: Type mismatch in argument 'free_bytes'\n") == \
        "tests/capi/CMakeFiles/tritonpack_fortran_calls.dir/fortran_calls.f90.o"
    assert h.fortran_compile_failure("FAILED: src/CMakeFiles/tritonpack_c_api.dir/tritonpack_c_api.cpp.o\n") is None


def test_the_mutants_file_reads_and_every_suite_is_known(tmp_path):
    h = harness()
    mutants = h.read_mutants(str(REPO / "tests" / "mutants.txt"))
    ctest = [m for m in mutants if m.suite == "ctest"]
    assert ctest, "no ctest:REGEX mutant: the ctest-only checks would pin nothing"
    assert all(m.filter for m in ctest), "a ctest mutant without a regex would run every ctest test"


def test_a_filter_that_selects_no_test_is_noticed():
    h = harness()
    assert h.selected_nothing("[doctest] test cases: 0 | 0 passed | 0 failed | 150 skipped\n")
    assert h.selected_nothing("No tests were found!!!\n")
    assert not h.selected_nothing("[doctest] test cases: 1 | 1 passed | 0 failed | 149 skipped\n")


def test_ctest_targets_reads_every_cmake_s_add_test_line():
    """A fresh build tree's commands come from CTestTestfile.cmake, whose add_test() names the test
    as CMake 3 does ([=[gpu]=]), as CMake 4 does ("gpu": the H200's cmake 4.4, where gpu-check's
    quick build found 3 of 15 programs) or bare; the command follows, paths and all."""
    ct = script("ctest_targets")
    assert ct.parse_add_test('add_test([=[gpu]=] "/b/tests/gpu/t" "--x")') == ("gpu", '"/b/tests/gpu/t" "--x"')
    assert ct.parse_add_test('add_test("gpu_force_ir" "/b/tests/gpu/t")') == ("gpu_force_ir", '"/b/tests/gpu/t"')
    assert ct.parse_add_test('add_test("a \\"q\\" b" "/b/t")')[0] == 'a \\"q\\" b'
    assert ct.parse_add_test("add_test(plain /b/t)") == ("plain", "/b/t")
    assert ct.parse_add_test('set_tests_properties("gpu" PROPERTIES LABELS "gpu")') == (None, None)


def test_ctest_targets_are_what_the_selected_tests_run(tmp_path):
    """scripts/ctest_targets.py (the `ctest:REGEX` suites' build, and gpu-check.sh's quick build):
    the programs a label's tests run, whether named as the command, as an argument or in the
    environment; nothing of another label's tests; and a selection of no test refused."""
    if not (shutil.which("cmake") and shutil.which("ninja") and shutil.which("ctest")):
        pytest.skip("cmake, ninja and ctest are needed to configure a project")
    src = tmp_path / "src"
    src.mkdir()
    (src / "main.c").write_text("int main(void) { return 0; }\n")
    (src / "CMakeLists.txt").write_text("""cmake_minimum_required(VERSION 3.25)
project(t C)
foreach(p direct argument library other)
  add_executable(${p} main.c)
endforeach()
enable_testing()
add_test(NAME [[gpu.direct test]] COMMAND direct)
add_test(NAME g2 COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:argument> -P nothing.cmake)
set_tests_properties([[gpu.direct test]] g2 PROPERTIES LABELS gpu)
set_tests_properties(g2 PROPERTIES ENVIRONMENT "DRIVER_LIBRARY=$<TARGET_FILE:library>")
add_test(NAME c1 COMMAND other)
set_tests_properties(c1 PROPERTIES LABELS cpu)
""")
    build = tmp_path / "build"
    subprocess.run(["cmake", "-S", str(src), "-B", str(build), "-G", "Ninja"], check=True, capture_output=True)
    script = REPO / "scripts" / "ctest_targets.py"
    run = lambda *a: subprocess.run([sys.executable, str(script), str(build), *a], capture_output=True, text=True)
    gpu = run("--label", "gpu")
    assert gpu.returncode == 0, gpu.stderr
    assert sorted(gpu.stdout.split()) == ["argument", "direct", "library"]
    assert run("--regex", "^c1$").stdout.split() == ["other"]
    none = run("--label", "nothing")
    assert none.returncode == 1 and "selects no test" in none.stderr and none.stdout == ""
    assert harness().ctest_targets(str(build), "^gpu.direct test$") == ["direct"]


def test_a_python_suite_kill_names_its_test(tmp_path):
    """The python suite's own pytest arguments, run on a failing test and on one whose fixture
    errors: the harness must name both (a kill recorded with no test cannot be traced)."""
    h = harness()
    (tmp_path / "test_planted.py").write_text(
        "import pytest\n"
        "@pytest.fixture\n"
        "def broken():\n"
        "    raise RuntimeError('fixture broke')\n"
        "def test_fails():\n"
        "    assert 1 == 2\n"
        "def test_errors(broken):\n"
        "    pass\n")
    _, command = h.SUITES["python"]
    for test, named in [("test_fails", "::test_fails"), ("test_errors", "::test_errors (error)")]:
        cmd = [sys.executable if part == "{python}" else part for part in command if part != "{pytest_filter}"]
        out = subprocess.run(cmd + [f"test_planted.py::{test}"], cwd=tmp_path, capture_output=True, text=True)
        assert out.returncode == 1, out.stdout
        assert [n for n in h.failing_tests(out.stdout) if n.endswith(named)], out.stdout
