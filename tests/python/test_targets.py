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
    ("gfx1250-strict", "hip", "gfx1250-strict", "gfx1250-strict"),   # Triton 3.9: gfx1250's A0 stepping
    ("hip:gfx1250-strict", "hip", "gfx1250-strict", "gfx1250-strict"),
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
    assert parse_target("gfx1250-strict").warp_size == 32    # its base_arch's, as Triton 3.9's HIPOptions


def test_strict_is_its_own_compilation():
    # gfx1250 and gfx1250-strict are two code objects (own ELF machine), not one target spelled twice
    assert [t.arch for t in parse_targets(["gfx1250", "gfx1250-strict", "gfx1250"])] == ["gfx1250", "gfx1250-strict"]


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
    ("gfx1250-lenient", "unknown target"),          # "-strict" is the only processor suffix
    ("gfx1250strict", "unknown target"),
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


# ---------------------------------------------------------------------------------------- buildable
# What Triton can compile for, from its tools (toolchain.py), checked before compiling.

from tritonpack_compile.targets import buildable_targets, unbuildable  # noqa: E402
from tritonpack_compile.toolchain import parse_llvm_cpus, parse_ptxas_gpu_names  # noqa: E402

FACTS = {
    "cuda": {
        "llvm_cpus": ["sm_75", "sm_80", "sm_86", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_110a"],
        "ptxas": {"path": "/t/ptxas", "version": "12.8", "gpu_names": ["sm_75", "sm_80", "sm_86", "sm_90a"]},
        "ptxas_blackwell": {"path": "/t/ptxas-blackwell", "version": "12.9", "gpu_names": ["sm_100a"]},
        "ptxas_from": [[10, "ptxas"], [100, "ptxas_blackwell"]],
    },
    "hip": {"llvm_cpus": ["gfx906", "gfx908", "gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100", "gfx1251",
                          "gfx9-generic", "tahiti"],
            "amd_probe": {"gfx906": "unsupported target: 'gfx906'", "gfx908": None, "gfx90a": None, "gfx942": None,
                          "gfx950": None, "gfx1030": None, "gfx1100": None,
                          "gfx1251": "unsupported target: 'gfx1251'"}},
}


def test_buildable_lists():
    assert buildable_targets("cuda", FACTS["cuda"]) == ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100"]
    assert buildable_targets("hip", FACTS["hip"]) == ["gfx908", "gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100"]


@pytest.mark.parametrize("text,message", [
    ("sm_999", "Triton 3.6.0 cannot compile for sm_999: its ptxas-blackwell (CUDA 12.9, /t/ptxas-blackwell) "
               "does not know sm_999a; did you mean sm_90? (it compiles for sm_75, sm_80, sm_86, sm_90, sm_100)"),
    ("sm_110", "cannot compile for sm_110: its ptxas-blackwell (CUDA 12.9, /t/ptxas-blackwell) does not know "
               "sm_110a; did you mean sm_100?"),
    ("sm_87", "its ptxas (CUDA 12.8, /t/ptxas) does not know sm_87; did you mean sm_86?"),
    ("gfx9999", "cannot compile for gfx9999: its LLVM does not know the processor gfx9999; did you mean gfx950?"),
    ("gfx906", "cannot compile for gfx906: its AMD backend does not support gfx906 (it has no ISA family for it); "
               "did you mean gfx908? (it compiles for gfx908, gfx90a, gfx942, gfx950, gfx1030, gfx1100)"),
    ("gfx1251", "its AMD backend does not support gfx1251"),
])
def test_unbuildable_says_why_and_what_instead(text, message):
    assert message in unbuildable(parse_target(text), FACTS, "3.6.0")


def test_ptxas_is_the_one_triton_runs():
    """The ptxas named is the one the facts say Triton runs for the capability (3.9: the newer
    one from capability 90 on)."""
    facts = {"cuda": dict(FACTS["cuda"], ptxas_from=[[10, "ptxas"], [90, "ptxas_blackwell"]])}
    assert "its ptxas-blackwell (CUDA 12.9, /t/ptxas-blackwell) does not know sm_90a" in \
        unbuildable(parse_target("sm_90"), facts, "3.9.0")
    assert unbuildable(parse_target("sm_100"), facts, "3.9.0") is None
    assert unbuildable(parse_target("sm_80"), facts, "3.9.0") is None


def test_amd_processor_that_crashes_the_compiler():
    facts = {"hip": dict(FACTS["hip"], amd_probe=dict(FACTS["hip"]["amd_probe"],
                                                      gfx1100="the compiler process died (killed by SIGABRT)"))}
    assert ("cannot compile for gfx1100: its AMD backend cannot compile a test kernel for gfx1100 (the compiler "
            "process died (killed by SIGABRT))") in unbuildable(parse_target("gfx1100"), facts, "3.8.0")


def test_amd_probe_goes_on_after_a_dead_child(monkeypatch):
    """A probe child that dies (LLVM aborts) fails the processor it was compiling; a new child
    goes on with the next ones."""
    import subprocess
    from tritonpack_compile import toolchain
    calls = []

    def fake_run(cmd, **kw):
        names = cmd[cmd.index("hip-probe") + 1:]
        calls.append(names)
        out = []
        for n in names:
            out.append(f"try {n}")
            if n == "gfx1154":
                return subprocess.CompletedProcess(cmd, -6, "\n".join(out) + "\n", "LLVM ERROR: Cannot select: store\n")
            out.append(f"ok {n}" if n != "gfx906" else f"fail {n} unsupported target: 'gfx906'")
        return subprocess.CompletedProcess(cmd, 0, "\n".join(out) + "\n", "")
    monkeypatch.setattr(toolchain.subprocess, "run", fake_run)
    got = toolchain._probe_amd(["gfx906", "gfx942", "gfx1154", "gfx1200"])
    assert calls == [["gfx906", "gfx942", "gfx1154", "gfx1200"], ["gfx1200"]]
    assert got == {"gfx906": "unsupported target: 'gfx906'", "gfx942": None, "gfx1200": None,
                   "gfx1154": "the compiler process died (killed by SIGABRT: LLVM ERROR: Cannot select: store)"}


@pytest.mark.parametrize("text", ["sm_80", "90", "sm_100a", "gfx942", "gfx90a:xnack-", "gfx1100"])
def test_buildable_targets_pass(text):
    assert unbuildable(parse_target(text), FACTS, "3.6.0") is None


def test_missing_ptxas_is_named():
    facts = {"cuda": dict(FACTS["cuda"], ptxas={"error": "Cannot find ptxas"})}
    assert "Triton cannot run its ptxas (Cannot find ptxas)" in unbuildable(parse_target("sm_80"), facts, "3.6.0")


def test_tool_output_parsers():
    help_text = """--gpu-name <gpu name>                               (-arch)
        Specify name of NVIDIA GPU to generate code for.
        Allowed values for this option:  'compute_90','lto_90','sm_100','sm_100a',
        'sm_75','sm_90a'.
        Default value:  'sm_52'.

--maxrregcount <N>
        Allowed values for this option:  64.
"""
    assert parse_ptxas_gpu_names(help_text) == ["sm_100", "sm_100a", "sm_75", "sm_90a"]
    llvm = ("Available CPUs for this target:\n\n  gfx942          - Select the gfx942 processor.\n"
            "  sm_90a          - Select the sm_90a processor.\n\nAvailable features for this target:\n\n"
            "  wavefrontsize64 - The number of threads per wavefront.\n")
    assert parse_llvm_cpus(llvm) == ["gfx942", "sm_90a"]


@pytest.mark.slow
def test_the_installed_tritons_tools(tmp_path):
    from tritonpack_compile.frontend import triton_version
    from tritonpack_compile.toolchain import toolchain_facts
    facts = toolchain_facts(["cuda", "hip"], triton_version(), tmp_path)
    cuda = buildable_targets("cuda", facts["cuda"])
    assert {"sm_75", "sm_80", "sm_90", "sm_100", "sm_120"} <= set(cuda)
    assert {"gfx90a", "gfx942", "gfx950", "gfx1100"} <= set(buildable_targets("hip", facts["hip"]))
    assert "cannot compile for sm_999" in unbuildable(parse_target("sm_999"), facts, triton_version())
    # cached: the second call asks no tool
    assert toolchain_facts(["cuda", "hip"], triton_version(), tmp_path) == facts
    assert len(list((tmp_path / "toolchain").glob("*.json"))) == 2


AMD_PROBE = """
import os, sys, tempfile
os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
import triton, triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

@triton.jit
def k(x, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    tl.store(x + o, tl.load(x + o) + 1)

for n in sys.argv[1:]:
    try:
        triton.compile(ASTSource(fn=k, signature={"x": "*fp32", "BLOCK": "constexpr"}, constexprs={"BLOCK": 64}),
                       target=GPUTarget("hip", n, 32 if int(n[3:-2]) >= 10 else 64))
        print("ok", n, flush=True)
    except Exception:
        print("fail", n, flush=True)
"""


@pytest.mark.slow
def test_amd_family_rule_matches_the_installed_triton(tmp_path):
    """toolchain.py asks Triton's AMD backend which gfx names it compiles for (the rule is inside
    libtriton and differs between versions): an independent compile at the boundaries of the
    supported versions' rules agrees."""
    from tritonpack_compile.frontend import triton_version
    from tritonpack_compile.toolchain import toolchain_facts
    import subprocess
    import sys
    names = ["gfx906", "gfx908", "gfx909", "gfx90a", "gfx90c", "gfx942", "gfx950", "gfx1010", "gfx1013", "gfx1030",
             "gfx1036", "gfx1100", "gfx1103", "gfx1150", "gfx1153", "gfx1170", "gfx1171", "gfx1200", "gfx1201",
             "gfx1250", "gfx1251"]
    facts = toolchain_facts(["hip"], triton_version(), tmp_path)
    probe = tmp_path / "probe.py"  # @triton.jit needs its source in a file
    probe.write_text(AMD_PROBE)
    r = subprocess.run([sys.executable, str(probe), *names], capture_output=True, text=True)
    compiled = dict(ln.split()[::-1] for ln in r.stdout.splitlines() if ln.split()[0] in ("ok", "fail"))
    assert len(compiled) == len(names), r.stderr[-2000:]
    for n in names:
        assert (compiled[n] == "ok") == (unbuildable(parse_target(n), facts, triton_version()) is None), n
