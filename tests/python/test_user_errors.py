"""What the front end says about a user's mistakes outside the spec itself: a kernel file that does
not import (reported at the user's line, not importlib's), a directory where a file belongs (or the
reverse), outputs it cannot write, and its own usage text."""
import errno
import subprocess
import sys

import pytest

from conftest import SMALL_SPEC as SMALL, env_with_pkg, write_spec
from tritonpack_compile import cli, fileio
from tritonpack_compile.cli import compile_main


def compile_err(capsys, *args):
    rc = compile_main([str(a) for a in args])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return rc, err


# --- a kernel file that does not import ----------------------------------------------------------

def compile_with_kernels_py_ending(kdir, monkeypatch, capsys, text):
    """Appends `text` to kdir/kernels.py and compiles a spec naming it, from kdir (so paths print
    as the user typed them). Returns (the line number of text's first line, exit status, stderr)."""
    kernels = kdir / "kernels.py"
    before = kernels.read_text()
    kernels.write_text(before + text)
    spec = write_spec(kdir, SMALL)
    monkeypatch.chdir(kdir)
    return (before.count("\n") + 1, *compile_err(capsys, spec.name, "-o", "out", "--no-cache"))


def test_syntax_error_is_reported_at_the_users_line(kdir, monkeypatch, capsys):
    line, rc, err = compile_with_kernels_py_ending(kdir, monkeypatch, capsys, "\n\ndef broken(:\n    pass\n")
    assert rc == 2
    assert err == ("error: spec.toml: kernel 'vector_add': source: cannot import kernels.py:\n"
                   f"kernels.py:{line + 2}:12: SyntaxError: invalid syntax\n"
                   "    def broken(:\n"
                   "               ^\n")


def test_indentation_error_too(kdir, monkeypatch, capsys):
    line, rc, err = compile_with_kernels_py_ending(kdir, monkeypatch, capsys, "if True:\n    a = 1\n        b = 2\n")
    assert rc == 2
    assert f"\nkernels.py:{line + 2}:8: IndentationError: unexpected indent\n    b = 2\n    ^\n" in err


def test_exception_at_import_is_reported_in_the_users_module_with_the_import_chain(kdir, monkeypatch, capsys):
    (kdir / "broken_helpers_1.py").write_text("a = 1\n\ny = undefined_name + 1\n")
    line, rc, err = compile_with_kernels_py_ending(kdir, monkeypatch, capsys, "from broken_helpers_1 import y\n")
    assert rc == 2
    assert err.endswith("cannot import kernels.py:\n"
                        "broken_helpers_1.py:3:5: NameError: name 'undefined_name' is not defined\n"
                        "    y = undefined_name + 1\n"
                        "        ^\n"
                        f"(imported from kernels.py:{line})\n")


def test_exception_inside_triton_is_placed_at_the_users_decorator(kdir, monkeypatch, capsys):
    # @triton.jit on a class fails inside Triton's jit.py; the user's line is the decorator.
    line, rc, err = compile_with_kernels_py_ending(kdir, monkeypatch, capsys,
                                                   "\n@triton.jit\nclass NotAFunction:\n    pass\n")
    assert rc == 2
    assert f"cannot import kernels.py:\nkernels.py:{line + 1}:2: AttributeError: " in err
    assert "jit.py" not in err and "frozen" not in err


# --- paths: a directory where a file belongs, or the reverse -------------------------------------

def test_spec_that_is_a_directory(tmp_path, capsys):
    rc, err = compile_err(capsys, tmp_path, "-o", tmp_path / "out")
    assert rc == 2
    assert err == f"error: {tmp_path} is a directory; expected a kernel spec file (TOML, docs/spec.md)\n"


def test_kernel_source_that_is_a_directory(kdir, capsys):
    (kdir / "kernels_dir.py").mkdir()
    spec = write_spec(kdir, SMALL.replace("kernels.py:", "kernels_dir.py:"))
    rc, err = compile_err(capsys, spec, "-o", kdir / "out")
    assert rc == 2
    assert err == (f"error: {spec}: kernel 'vector_add': source: {kdir}/kernels_dir.py is a directory; expected a "
                   f"Python file with the kernel\n")


def test_outputs_that_cannot_be_written_fail_before_compiling(kdir, capsys):
    spec = write_spec(kdir, SMALL)
    (kdir / "a_file").write_text("x")
    (kdir / "a_dir").mkdir()
    cases = [
        (["-o", kdir / "a_file"], f"{kdir}/a_file is a file; expected a directory (-o)"),
        (["-o", kdir / "a_file" / "sub"], f"cannot create the directory {kdir}/a_file/sub: {kdir}/a_file is a file (-o)"),
        (["-o", kdir / "out", "--depfile", kdir / "a_dir"],
         f"{kdir}/a_dir is a directory; expected a file to write (--depfile)"),
        (["-o", kdir / "out", "--cache-dir", kdir / "a_file"], f"{kdir}/a_file is a file; expected a directory (--cache-dir)"),
    ]
    for args, message in cases:
        rc, err = compile_err(capsys, spec, *args)
        assert (rc, err) == (2, f"error: {message}\n")
    assert not (kdir / "out").exists()


def test_default_cache_below_a_file_names_the_ways_out(kdir, monkeypatch, capsys):
    spec = write_spec(kdir, SMALL)
    (kdir / "a_file").write_text("x")
    monkeypatch.setenv("TRITONPACK_COMPILE_CACHE_DIR", str(kdir / "a_file" / "cache"))
    rc, err = compile_err(capsys, spec, "-o", kdir / "out")
    assert rc == 2
    assert err == (f"error: cannot create the directory {kdir}/a_file/cache: {kdir}/a_file is a file (the compile "
                   f"cache: choose another with --cache-dir or TRITONPACK_COMPILE_CACHE_DIR, or use --no-cache)\n")


def test_an_output_directory_without_write_permission(kdir, monkeypatch, capsys):
    # As root every directory is writable; the check asks os.access, so ask it to say no.
    spec = write_spec(kdir, SMALL)
    monkeypatch.setattr(fileio.os, "access", lambda path, mode: False)
    rc, err = compile_err(capsys, spec, "-o", kdir / "out" / "artifacts")
    assert rc == 2
    assert err == (f"error: cannot write to {kdir}/out/artifacts: {kdir}: Permission denied (-o: choose another "
                   f"directory, or make this one writable)\n")


@pytest.mark.parametrize("exc, message", [
    (PermissionError(errno.EACCES, "Permission denied", "out/.manifest.json.7.tmp"),
     "out/.manifest.json.7.tmp: Permission denied (choose a directory you may write to (-o, --cache-dir, "
     "--depfile), or fix its permissions)"),
    (OSError(errno.ENOSPC, "No space left on device", "cache/jobs/ab/x"),
     "cache/jobs/ab/x: No space left on device (free some space, or choose another file system (-o, --cache-dir))"),
    (OSError(errno.EXDEV, "Invalid cross-device link", "a.tmp", None, "b"),
     "a.tmp -> b: Invalid cross-device link"),
])
def test_a_write_that_fails_mid_run_says_why_and_what_to_do(kdir, monkeypatch, capsys, exc, message):
    spec = write_spec(kdir, SMALL)

    def fail(*args, **kwargs):
        raise exc
    monkeypatch.setattr("tritonpack_compile.frontend.compile_spec", fail)
    rc, err = compile_err(capsys, spec, "-o", kdir / "out", "--no-cache")
    assert (rc, err) == (1, f"error: {message}\n")


@pytest.mark.slow
def test_a_directory_where_the_manifest_goes(kdir, shared_cache, capsys):
    spec = write_spec(kdir, SMALL)
    (kdir / "out" / "manifest.json").mkdir(parents=True)
    rc, err = compile_err(capsys, spec, "-o", kdir / "out", "--cache-dir", shared_cache, "-q")
    assert rc == 1
    assert err.startswith(f"error: {kdir}/out/.manifest.json.")
    assert err.endswith(f".tmp -> {kdir}/out/manifest.json: Is a directory (a directory stands where a file "
                        f"should be written; remove it or choose another path)\n")


# --- usage and help ------------------------------------------------------------------------------

def run_module(*args):
    return subprocess.run([sys.executable, "-m", "tritonpack_compile", *args], env=env_with_pkg(),
                          capture_output=True, text=True)


def test_help_names_commands_that_exist_and_goes_to_stdout():
    r = run_module("--help")
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout.startswith("usage: python -m tritonpack_compile ")
    text = " ".join(r.stdout.split())
    assert "tritonpack pack ARTIFACT_DIR/manifest.json -o OUTDIR" in text
    assert "From a checkout: PYTHONPATH=<tritonpack>/generator/python python -m tritonpack_compile" in text
    assert "from an installed tree: PYTHONPATH=<prefix>/share/tritonpack/python" in text
    assert ("After `pip install <tritonpack>/generator/python` also the console scripts tritonpack-compile and "
            "tritonpack-build") in text
    assert "tritonpack compile" not in text


def test_usage_error_goes_to_stderr_with_exit_2():
    r = run_module()
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith("usage: python -m tritonpack_compile ")
    assert "the following arguments are required: spec, -o/--output" in r.stderr


def test_build_help_says_it_is_a_pip_console_script(capsys):
    with pytest.raises(SystemExit) as e:
        cli.build_main(["--help"])
    out = capsys.readouterr().out
    assert e.value.code == 0
    assert out.startswith("usage: tritonpack-build ")
    assert "console scripts tritonpack-compile and tritonpack-build" in " ".join(out.split())
