"""GPU target names, as users write them, to canonical compile targets.

Accepted spellings (case-insensitive, surrounding whitespace ignored):

  NVIDIA: sm_80, sm80, 80, cuda:80, cuda:sm_80, sm_90a, 90a, cuda:90a, sm_100, sm_120a
  AMD:    gfx942, hip:gfx942, gfx90a:xnack-, gfx90a:sramecc+:xnack-

Triton 3.6 compiles compute capability >= 90 to arch-specific code (`sm_90a`, `sm_100a`; NVC
`sm_arch_from_capability`), whatever the user wrote, so `sm_90` and `sm_90a` name the same
compilation and images are recorded with the `a` arch they really are. Below 90 there is no `a`
variant, so `sm_80a` is an error.

Triton 3.6 emits AMD code objects with feature-neutral ("xnack any, sramecc any") ELF flags and has
no option to change that; such a code object runs with the feature on or off. A feature suffix is
therefore accepted and validated, but the image is recorded under the plain gfx name, which the run
time matches against any feature setting of that gfx. `gfx90a` and `gfx90a:xnack-` are one target.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, List, Optional, Tuple

from .errors import SyntaxProblem

_CUDA_RE = re.compile(r"^(?:cuda:)?(?:sm_?)?(\d{2,3})([a-z]?)$")
_HIP_RE = re.compile(r"^(?:hip:|rocm:)?(gfx[0-9]{1,2}[0-9a-f]{2})((?::[a-z0-9]+[+-])*)$")
_HIP_FEATURES = ("xnack", "sramecc")

# Oldest compute capability Triton 3.6's NVIDIA backend generates code for (sm_75 is accepted by
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
                f"target '{raw}': suffix '{suffix}' is not supported (Triton 3.6 compiles sm_XY or, "
                f"for capability >= 90, sm_XYa)")
        if cap < MIN_CUDA_CAPABILITY:
            raise SyntaxProblem(f"target '{raw}': Triton 3.6 needs compute capability >= "
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
        major = int(gfx[3:-2])  # HIPOptions: drop "gfx" and the two minor/stepping digits
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


def generic_ptx_capability(targets: Iterable[Target]) -> Optional[int]:
    """The compute capability for the forward-compatible PTX: the lowest requested NVIDIA one."""
    caps = [t.arch for t in targets if t.backend == "cuda"]
    return min(caps) if caps else None
