"""apps/lulesh/check_fp64_constants.py: which PTX fp64 immediates it reports as widened fp32
values (the mistake it guards against: a Python float Triton made fp32 inside an fp64 kernel)."""
import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("check_fp64_constants", ROOT / "apps" / "lulesh" / "check_fp64_constants.py")
check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check)


def test_widened_fp32_values_are_reported():
    assert check.widened_fp32(0x3FB5555560000000)  # 1/12 rounded to fp32
    assert check.widened_fp32(0x4415AF1D80000000)  # 1e20 rounded to fp32
    assert check.widened_fp32(0x3842E79220000000)  # 0.1111111e-36 rounded to fp32


def test_fp64_values_and_short_fractions_are_not():
    assert not check.widened_fp32(0x3FB5555555555555)  # 1/12 in fp64
    assert not check.widened_fp32(0x3F847AE147AE147B)  # 0.01 in fp64
    for exact in (0x3FD0000000000000, 0xC010000000000000, 0x0000000000000000, 0x3FF8000000000000):
        assert not check.widened_fp32(exact)  # 0.25, -4, 0, 1.5: the same in fp32 and fp64


def test_main_names_the_constant_and_fails(tmp_path, capsys):
    (tmp_path / "k.ptx").write_text("mul.f64 %fd2, %fd1, 0d3FB5555560000000;\nadd.f64 %fd3, %fd2, 0d3FE0000000000000;\n")
    assert check.main([str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "0d3FB5555560000000 = 0.0833333358168602" in out and "1 widened fp32 constants" in out


def test_main_passes_clean_ptx(tmp_path):
    (tmp_path / "k.ptx").write_text("mul.f64 %fd2, %fd1, 0d3FB5555555555555;\n")
    assert check.main([str(tmp_path)]) == 0


def test_main_refuses_to_check_nothing(tmp_path, capsys):
    assert check.main([str(tmp_path)]) == 1
    assert "no PTX files" in capsys.readouterr().out
