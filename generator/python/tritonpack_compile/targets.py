"""GPU target names, as users write them, to canonical compile targets.

Accepted spellings (case-insensitive, surrounding whitespace ignored):

  NVIDIA: sm_80, sm80, 80, cuda:80, cuda:sm_80, sm_90a, 90a, cuda:90a, sm_100, sm_120a
  AMD:    gfx942, hip:gfx942, gfx90a:xnack-, gfx90a:sramecc+:xnack-, gfx1250-strict

Triton compiles compute capability >= 90 to arch-specific code (`sm_90a`, `sm_100a`; NVC
`sm_arch_from_capability`), whatever the user wrote, so `sm_90` and `sm_90a` name the same
compilation and images are recorded with the `a` arch they really are. Below 90 there is no `a`
variant, so `sm_80a` is an error.

Triton emits AMD code objects with feature-neutral ("xnack any, sramecc any") ELF flags and has
no option to change that; such a code object runs with the feature on or off. A feature suffix is
therefore accepted and validated, but the image is recorded under the plain gfx name, which the run
time matches against any feature setting of that gfx. `gfx90a` and `gfx90a:xnack-` are one target.

`gfx1250-strict` (Triton 3.9; gfx1250's A0 stepping) is a processor of its own, not a feature: its
code objects carry their own ELF machine and run only where the HIP runtime reports gfx1250-strict
(docs/runtime.md, "Selection"). Its wavefront size is its base processor's (Triton's `base_arch`).

A well-formed name is not yet a target Triton can compile: `unbuildable` checks it against what
the installed Triton's tools accept (toolchain.py asks them), before anything compiles.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Tuple

from .errors import SyntaxProblem

_CUDA_RE = re.compile(r"^(?:cuda:)?(?:sm_?)?(\d{2,3})([a-z]?)$")
_HIP_RE = re.compile(r"^(?:hip:|rocm:)?(gfx[0-9]{1,2}[0-9a-f]{2}(?:-strict)?)((?::[a-z0-9]+[+-])*)$")
_HIP_FEATURES = ("xnack", "sramecc")

# Oldest compute capability Triton's NVIDIA backend generates code for (sm_75 is accepted by
# the backend; older ones fail deep inside LLVM with an unhelpful message).
MIN_CUDA_CAPABILITY = 75


@dataclass(frozen=True)
class Target:
    backend: str              # "cuda" or "hip"
    arch: object              # int compute capability (cuda) or "gfx942" (hip): GPUTarget.arch
    warp_size: int
    features: Tuple[str, ...] = ()   # hip only, as written and validated ("xnack-",)

    @property
    def image_arch(self) -> str:
        """The arch the compiled images really are (manifest `arch`)."""
        if self.backend == "cuda":
            return f"sm_{self.arch}a" if self.arch >= 90 else f"sm_{self.arch}"
        return self.arch

    @property
    def key(self) -> str:
        """Identity of the compilation: targets with the same key compile identically."""
        return f"{self.backend}:{self.arch}"

    def __str__(self) -> str:
        return f"{self.backend}:{self.image_arch}"


def parse_target(text: str) -> Target:
    if not isinstance(text, (str, int)) or isinstance(text, bool):
        raise SyntaxProblem(f"a target must be a string such as \"sm_90\" or \"gfx942\", not {text!r}")
    raw = str(text)
    t = raw.strip().lower()
    m = _CUDA_RE.match(t)
    if m:
        cap, suffix = int(m.group(1)), m.group(2)
        if suffix not in ("", "a"):
            raise SyntaxProblem(
                f"target '{raw}': suffix '{suffix}' is not supported (Triton compiles sm_XY or, "
                f"for capability >= 90, sm_XYa)")
        if cap < MIN_CUDA_CAPABILITY:
            raise SyntaxProblem(f"target '{raw}': Triton needs compute capability >= "
                                f"{MIN_CUDA_CAPABILITY // 10}.{MIN_CUDA_CAPABILITY % 10}")
        if suffix == "a" and cap < 90:
            raise SyntaxProblem(f"target '{raw}': there is no arch-specific 'a' variant below sm_90; write sm_{cap}")
        return Target("cuda", cap, 32)
    m = _HIP_RE.match(t)
    if m:
        gfx, feats = m.group(1), m.group(2)
        features = tuple(f for f in feats.split(":") if f)
        seen = set()
        for f in features:
            name = f[:-1]
            if name not in _HIP_FEATURES:
                raise SyntaxProblem(f"target '{raw}': unknown feature '{f}' (known: xnack+/-, sramecc+/-)")
            if name in seen:
                raise SyntaxProblem(f"target '{raw}': feature '{name}' given twice")
            seen.add(name)
        base = gfx.removesuffix("-strict")  # HIPOptions' base_arch (Triton 3.9)
        major = int(base[3:-2])  # HIPOptions: drop "gfx" and the two minor/stepping digits
        return Target("hip", gfx, 32 if major >= 10 else 64, features)
    raise SyntaxProblem(
        f"unknown target '{raw}': write NVIDIA targets as sm_80, sm_90a, 90 or cuda:90 and AMD targets "
        f"as gfx942, hip:gfx90a or gfx90a:xnack-")


def parse_targets(items: Iterable) -> List[Target]:
    """Parse and de-duplicate (by compilation identity), keeping the first-written order."""
    out: List[Target] = []
    seen = set()
    for item in items:
        t = parse_target(item)
        if t.key not in seen:
            seen.add(t.key)
            out.append(t)
    return out


def is_gfx_name(name: str) -> bool:
    """Whether `name` (an LLVM processor) is an AMD target name this module accepts."""
    return bool(_HIP_RE.match(name))


def generic_ptx_capability(targets: Iterable[Target]) -> Optional[int]:
    """The compute capability for the forward-compatible PTX: the lowest requested NVIDIA one."""
    caps = [t.arch for t in targets if t.backend == "cuda"]
    return min(caps) if caps else None


# ---------------------------------------------------------------------------------------- buildable

def _cuda_cpu(cap: int) -> str:
    """The processor name Triton gives LLVM and ptxas for a capability (NVIDIA backend,
    `sm_arch_from_capability`: `a` from 90 on)."""
    return f"sm_{cap}a" if cap >= 90 else f"sm_{cap}"


def _ptxas_for(cap: int, facts: dict) -> Tuple[str, dict]:
    """The ptxas Triton runs for `cap` (its `get_ptxas`, recorded by toolchain.py as the
    capabilities where the tool changes) and its facts."""
    name = None
    for start, tool in facts.get("ptxas_from", ()):
        if cap >= start:
            name = tool
    if name is None:  # no ptxas runs at all: say why the first one does not
        return "ptxas", facts.get("ptxas") or {"error": f"Triton's NVIDIA backend names no ptxas for capability {cap}"}
    return name.replace("_", "-"), facts.get(name) or {"error": "not found"}


def _cuda_reason(cap: int, facts: dict) -> Optional[str]:
    cpu = _cuda_cpu(cap)
    tool, ptxas = _ptxas_for(cap, facts)
    if "error" in ptxas:
        return f"Triton cannot run its {tool} ({ptxas['error']})"
    if cpu not in ptxas.get("gpu_names", ()):
        return f"its {tool} (CUDA {ptxas.get('version')}, {ptxas.get('path')}) does not know {cpu}"
    if cpu not in facts.get("llvm_cpus", ()):
        return f"its LLVM does not know the processor {cpu}"
    return None


def _hip_reason(gfx: str, facts: dict) -> Optional[str]:
    if gfx not in facts.get("llvm_cpus", ()):
        return f"its LLVM does not know the processor {gfx}"
    probe = facts.get("amd_probe", {})
    if gfx not in probe:
        return f"its AMD backend was not asked about {gfx}"
    why = probe[gfx]
    if why is None:
        return None
    if why.startswith("unsupported target"):
        return f"its AMD backend does not support {gfx} (it has no ISA family for it)"
    return f"its AMD backend cannot compile a test kernel for {gfx} ({why})"


def buildable_targets(backend: str, facts: dict) -> List[str]:
    """The targets of `backend` that pass `unbuildable`, as users write them."""
    if backend == "cuda":
        names = set(facts.get("llvm_cpus", ()))
        for tool in ("ptxas", "ptxas_blackwell"):
            names |= set((facts.get(tool) or {}).get("gpu_names", ()))
        caps = sorted({int(m.group(1)) for m in map(re.compile(r"^sm_(\d+)a?$").match, names) if m})
        return [f"sm_{c}" for c in caps if c >= MIN_CUDA_CAPABILITY and _cuda_reason(c, facts) is None]
    gfx = sorted((n for n in facts.get("llvm_cpus", ()) if is_gfx_name(n)), key=lambda n: (len(n), n))
    return [n for n in gfx if _hip_reason(n, facts) is None]


def _closest(name: str, names: List[str]) -> Optional[str]:
    """The most similar spelling; among equally similar ones the nearest number (sm_906 is
    closer to sm_908 than to sm_950)."""
    def number(n):
        digits = re.sub(r"^(sm_|gfx)", "", n).rstrip("a")
        try:
            return int(digits, 16 if n.startswith("gfx") else 10)
        except ValueError:
            return 0
    scored = [(difflib.SequenceMatcher(None, name, n).ratio(), -abs(number(n) - number(name)), n) for n in names]
    best = max((s for s in scored if s[0] >= 0.6), default=None)
    return best[2] if best else None


def unbuildable(target: Target, facts: Dict[str, dict], triton_version: str) -> Optional[str]:
    """None when the installed Triton can compile `target`; else why not, what it can compile
    instead and, for a near miss, "did you mean". `facts` is toolchain.toolchain_facts()."""
    f = facts[target.backend]
    if target.backend == "cuda":
        why, shown = _cuda_reason(target.arch, f), f"sm_{target.arch}"
    else:
        why, shown = _hip_reason(target.arch, f), target.arch
    if why is None:
        return None
    ok = buildable_targets(target.backend, f)
    close = _closest(shown, ok)
    hint = f"; did you mean {close}?" if close else ""
    return f"Triton {triton_version} cannot compile for {shown}: {why}{hint} (it compiles for {', '.join(ok)})"
