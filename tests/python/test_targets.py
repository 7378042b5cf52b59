import pytest

from tritonpack_compile.errors import SyntaxProblem
from tritonpack_compile.targets import generic_ptx_capability, parse_target, parse_targets


@pytest.mark.parametrize("text,backend,arch,image_arch", [
    ("sm_80", "cuda", 80, "sm_80"),
    ("SM_86", "cuda", 86, "sm_86"),
    ("sm80", "cuda", 80, "sm_80"),
    ("80", "cuda", 80, "sm_80"),
    ("cuda:80", "cuda", 80, "sm_80"),
    ("cuda:sm_89", "cuda", 89, "sm_89"),
    ("sm_90", "cuda", 90, "sm_90a"),     # Triton 3.6 compiles cc >= 90 arch-specific
    ("sm_90a", "cuda", 90, "sm_90a"),
    ("90a", "cuda", 90, "sm_90a"),
    ("cuda:90", "cuda", 90, "sm_90a"),
    ("sm_100", "cuda", 100, "sm_100a"),
    ("sm_120a", "cuda", 120, "sm_120a"),
    ("  sm_75 ", "cuda", 75, "sm_75"),
    ("gfx942", "hip", "gfx942", "gfx942"),
    ("hip:gfx90a", "hip", "gfx90a", "gfx90a"),
    ("gfx90a:xnack-", "hip", "gfx90a", "gfx90a"),
    ("hip:gfx90a:sramecc+:xnack-", "hip", "gfx90a", "gfx90a"),
    ("gfx1100", "hip", "gfx1100", "gfx1100"),
    ("GFX950", "hip", "gfx950", "gfx950"),
])
def test_accepted_spellings(text, backend, arch, image_arch):
    t = parse_target(text)
    assert (t.backend, t.arch, t.image_arch) == (backend, arch, image_arch)


def test_warp_sizes():
    assert parse_target("sm_80").warp_size == 32
    assert parse_target("gfx942").warp_size == 64     # CDNA: wave64
    assert parse_target("gfx90a").warp_size == 64
    assert parse_target("gfx1100").warp_size == 32    # RDNA: wave32
    assert parse_target("gfx1201").warp_size == 32


def test_features_are_kept_for_the_note():
    assert parse_target("gfx90a:xnack-:sramecc+").features == ("xnack-", "sramecc+")


@pytest.mark.parametrize("text,fragment", [
    ("sm_80a", "no arch-specific 'a' variant below sm_90"),
    ("sm_100f", "suffix 'f' is not supported"),
    ("sm_70", "compute capability >= 7.5"),
    ("volta", "unknown target"),
    ("cuda:gfx942", "unknown target"),
    ("gfx90a:xnack", "unknown target"),            # a feature needs + or -
    ("gfx90a:foo+", "unknown feature 'foo+'"),
    ("gfx90a:xnack+:xnack-", "given twice"),
    ("", "unknown target"),
])
def test_rejected(text, fragment):
    with pytest.raises(SyntaxProblem) as e:
        parse_target(text)
    assert fragment in str(e.value)


def test_non_string_rejected():
    with pytest.raises(SyntaxProblem, match="must be a string"):
        parse_target(True)


def test_integer_target_is_a_capability():
    assert parse_target(90).image_arch == "sm_90a"


def test_dedup_keeps_first_order():
    ts = parse_targets(["sm_90", "gfx942", "sm_90a", "90", "gfx942:xnack-", "sm_80"])
    assert [str(t) for t in ts] == ["cuda:sm_90a", "hip:gfx942", "cuda:sm_80"]


def test_generic_capability_is_lowest_nvidia():
    assert generic_ptx_capability(parse_targets(["sm_100", "gfx942", "sm_90"])) == 90
    assert generic_ptx_capability(parse_targets(["gfx942"])) is None
