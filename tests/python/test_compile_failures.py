"""What a user sees when a target or a compilation fails: a spec error for a target Triton cannot
compile (nothing compiled), and for a failed compilation the error itself in a few lines with the
full log in a file, never the PTX or a 200,000-line ptxas log on the terminal."""
import re
import textwrap

import pytest

from conftest import write_spec
from tritonpack_compile import compilelog
from tritonpack_compile.cli import compile_main
from tritonpack_compile.frontend import triton_version

TRITON = triton_version()

ONE_KERNEL = """
    name = "one"
    targets = {targets}
    mode = "binary"
    [[kernel]]
    source = "kernels.py:vector_add"
    signatures = ["*fp32, *fp32, *fp32, i32, fp32, 64"]
"""


# ---------------------------------------------------------------------------------------- targets

@pytest.mark.slow
@pytest.mark.parametrize("targets,where,message", [
    ('["sm_80", "sm_999"]', "spec.toml: targets: ",
     f"Triton {TRITON} cannot compile for sm_999: its ptxas-blackwell (CUDA "),
    ('["gfx9999"]', "spec.toml: targets: ",
     f"Triton {TRITON} cannot compile for gfx9999: its LLVM does not know the processor gfx9999; did you mean gfx950?"),
    ('["gfx909"]', "spec.toml: targets: ",
     "cannot compile for gfx909: its AMD backend does not support gfx909 (it has no ISA family for it); "
     "did you mean gfx908?"),
])
def test_targets_triton_cannot_compile_are_spec_errors(kdir, tmp_path, capfd, targets, where, message):
    spec = write_spec(kdir, ONE_KERNEL.format(targets=targets))
    cache = tmp_path / "cache"
    rc = compile_main([str(spec), "-o", str(kdir / "out"), "--cache-dir", str(cache), "-q"])
    cap = capfd.readouterr()
    assert rc == 2
    assert f"error: {spec}: targets: " in cap.err and message in cap.err
    assert "(it compiles for " in cap.err
    assert not (cache / "jobs").exists() and not (kdir / "out").exists()   # nothing compiled
    assert cap.out == ""


@pytest.mark.slow
def test_unbuildable_target_names_where_it_was_written(kdir, tmp_path, capsys):
    spec = write_spec(kdir, ONE_KERNEL.format(targets='["sm_80"]') + '    targets = ["sm_91"]\n')
    assert compile_main([str(spec), "-o", str(kdir / "o"), "--cache-dir", str(tmp_path)]) == 2
    assert f"error: {spec}: kernel 'vector_add': targets: Triton" in capsys.readouterr().err
    assert compile_main([str(spec), "-o", str(kdir / "o"), "--cache-dir", str(tmp_path),
                         "--targets", "sm_80,gfx9999"]) == 2
    assert f"error: {spec}: --targets: Triton {TRITON} cannot compile for gfx9999" in capsys.readouterr().err
    assert compile_main([str(spec), "-o", str(kdir / "o"), "--cache-dir", str(tmp_path),
                         "--targets", "sm_80,gfx9999", "--targets-from", "TARGETS of tritonpack_add_kernels(app)"]) == 2
    assert (f"error: {spec}: TARGETS of tritonpack_add_kernels(app): Triton {TRITON} cannot compile for gfx9999"
            in capsys.readouterr().err)


# ---------------------------------------------------------------------------------------- failures

@pytest.mark.slow
def test_ptxas_failure_shows_its_error_not_the_ptx(kdir, tmp_path, capfd, monkeypatch):
    """On a ptxas failure Triton prints the whole PTX; that goes to the log file only."""
    monkeypatch.setenv("PTXAS_OPTIONS", "--no-such-ptxas-option")
    spec = write_spec(kdir, ONE_KERNEL.format(targets='["sm_80"]'))
    out = kdir / "out"
    rc = compile_main([str(spec), "-o", str(out), "--cache-dir", str(tmp_path), "-q"])
    cap = capfd.readouterr()
    terminal = cap.out + cap.err
    assert rc == 1
    assert "PTXASError: PTXAS error: Internal Triton PTX codegen error" in cap.err
    assert "ptxas fatal   : Unknown option '-no-such-ptxas-option'" in cap.err
    log = out / "compile-logs" / "vector_add.v0.cuda_sm_80.log"
    assert f"full log: {log}" in cap.err
    for ptx in (".entry vector_add", "ld.global", ".version"):
        assert ptx not in terminal
    assert len(terminal.splitlines()) < 20
    text = log.read_text()
    assert ".entry vector_add" in text and "Traceback (most recent call last)" in text
    # fixed: a good run removes the stale log
    monkeypatch.delenv("PTXAS_OPTIONS")
    assert compile_main([str(spec), "-o", str(out), "--cache-dir", str(tmp_path), "-q"]) == 0
    assert not (out / "compile-logs").exists()


@pytest.mark.slow
def test_mlir_failure_shows_the_diagnostic(kdir, tmp_path, capfd, monkeypatch):
    """An MLIR pass failure raises only "PassManager::run failed"; the reason is a diagnostic
    in the output, which the summary picks out. (TRITON_OVERRIDE_ARCH makes Triton compile a
    valid target for an unknown processor.)"""
    monkeypatch.setenv("TRITON_OVERRIDE_ARCH", "gfx9999")
    spec = write_spec(kdir, ONE_KERNEL.format(targets='["gfx942"]'))
    rc = compile_main([str(spec), "-o", str(kdir / "out"), "--cache-dir", str(tmp_path), "-q"])
    err = capfd.readouterr().err
    assert rc == 1
    assert re.search(r"RuntimeError: PassManager::run failed\n\s+.*kernels\.py:\d+:\d+: error: unsupported "
                     r"target: 'gfx9999'", err), err
    assert "tt.func" not in err  # the IR dump stays in the log


# ---------------------------------------------------------------------------------------- summaries

def test_summary_is_bounded():
    errors = [f"ptxas error   : Entry function 'k{i}' uses too much data" for i in range(5000)]
    message = ["`ptxas` stderr:"] + ["ptxas info    : compiling"] * 100000 + errors
    text = compilelog.summarize("PTXASError: PTXAS error: `ptxas` failed with error code 255", message, "")
    lines = text.splitlines()
    assert lines[0] == "PTXASError: PTXAS error: `ptxas` failed with error code 255"
    assert lines[1:] == errors[:compilelog.MAX_DIAGNOSTICS] + ["... 4994 more error lines (see the log)"]


def test_summary_keeps_a_short_message_whole():
    """Triton's source excerpt with its caret is the error: shown as it is."""
    msg = textwrap.dedent("""\
        at 3:22:
        def broken(x, n, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(x + offs, undefined_name)
                               ^
        NameError('undefined_name is not defined')""").splitlines()
    text = compilelog.summarize("CompilationError: " + msg[0], msg[1:], "")
    assert text.splitlines()[1:] == msg[1:]


def test_summary_takes_the_log_when_the_message_says_nothing():
    log = "\n".join(["#blocked = #ttg.blocked<...>"] * 50 + ["/k.py:13:0: error: unsupported target: 'gfx9999'"]
                    + ["module attributes {...} {"] * 500)
    assert compilelog.summarize("RuntimeError: PassManager::run failed", [], log).splitlines() == [
        "RuntimeError: PassManager::run failed", "/k.py:13:0: error: unsupported target: 'gfx9999'"]


def test_summary_names_the_users_frame(tmp_path):
    src = tmp_path / "user_kernels.py"
    src.write_text("def pick(n):\n    raise ValueError('BLOCK must divide n')\n")
    ns = {}
    exec(compile(src.read_text(), str(src), "exec"), ns)
    try:
        ns["pick"](3)
    except ValueError as e:
        text = compilelog.summarize_exception(e, "", src)
    assert text.splitlines() == ["ValueError: BLOCK must divide n", "at user_kernels.py:2 (in pick)"]


def test_long_lines_are_clipped():
    text = compilelog.summarize("E: x", ["error: " + "y" * 10000] * 20, "")
    assert max(len(ln) for ln in text.splitlines()) <= compilelog.MAX_LINE + 10


def test_read_log_keeps_head_and_tail(tmp_path):
    p = tmp_path / "big.log"
    p.write_bytes(b"first error: here\n" + b"x" * (8 << 20) + b"\nLLVM ERROR: last words\n")
    text = compilelog.read_log(p, head=1 << 10, tail=1 << 10)
    assert text.startswith("first error: here") and text.rstrip().endswith("LLVM ERROR: last words")
    assert len(text) < 4 << 10
