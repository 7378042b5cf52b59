"""Which Triton versions the front end supports, and the Triton APIs that differ between them.

The support window is SUPPORTED_MIN..SUPPORTED_MAX (minor versions, both included); nothing
compiles with a Triton outside it (`check_supported`). Within the window every difference is
detected from what the installed Triton offers, not from its version string:

- `translate_to_asm`: the parameters of `llvm.translate_to_asm`, read from its pybind signature
  (3.8 added a required `canonicalize_gep`, 3.9 named the parameters and added `sched4reg=False`);
- `amd_codegen`: whether AMD code generation runs in a separate library
  (`triton.backends.amd.compiler.compile_amdgpu`, 3.9) rather than in libtriton's LLVM;
- `ptxas_tools`: which of Triton's two ptxas knobs its NVIDIA backend runs for each capability
  (its own `get_ptxas`);
- `toolchain_inputs`: the files and variables those answers depend on.

Importing this module does not import Triton; the functions that need Triton import it when
called (in the child processes that compile or ask Triton's tools).
"""
from __future__ import annotations

import inspect
import os
import re
import sys
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Tuple

from .errors import TritonpackError

# The supported Triton minor versions, oldest and newest (both included).
SUPPORTED_MIN = (3, 6)
SUPPORTED_MAX = (3, 9)

# What the front end passes for `enable_fp_fusion` when the spec does not set it: Triton 3.6's
# default (on). From Triton 3.10 Triton's own default is off, so it is always passed explicitly.
DEFAULT_FP_FUSION = True


def _text(v: Tuple[int, int]) -> str:
    return f"{v[0]}.{v[1]}"


def pip_requirement() -> str:
    """The pip requirement for the window, `triton>=3.6,<3.10`."""
    return f"triton>={_text(SUPPORTED_MIN)},<{SUPPORTED_MAX[0]}.{SUPPORTED_MAX[1] + 1}"


def parse_version(version: str) -> Optional[Tuple[int, int]]:
    """(major, minor) of a version string ("3.7.1", "3.10.0.dev0+git1234"), or None."""
    m = re.match(r"^\s*(\d+)\.(\d+)", str(version))
    return (int(m.group(1)), int(m.group(2))) if m else None


def check_supported(version: str) -> None:
    """Raise a TritonpackError naming the installed version, the window and the fix when
    `version` is outside the window."""
    v = parse_version(version)
    if v is not None and SUPPORTED_MIN <= v <= SUPPORTED_MAX:
        return
    found = f"Triton {version}" if v is not None else f"a Triton whose version is {version!r}"
    raise TritonpackError(
        f"{found} is installed in this Python ({sys.executable}); tritonpack-compile supports Triton "
        f"{_text(SUPPORTED_MIN)} to {_text(SUPPORTED_MAX)}. Install a supported version: "
        f"pip install \"{pip_requirement()}\"")


# ---------------------------------------------------------------------------------------- llvm

def _signature_params(doc: Optional[str]) -> Optional[List[Tuple[str, str, bool]]]:
    """(name, type, has_default) for each parameter of a pybind11 signature line
    `f(a: str, b: bool = False) -> object`, or None when the text is not one."""
    m = re.match(r"^\s*\w+\((.*)\)\s*->", (doc or "").splitlines()[0] if doc else "")
    if not m:
        return None
    parts, depth, cur = [], 0, ""
    for ch in m.group(1):
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch in "[("
        depth -= ch in "])"
        cur += ch
    if cur.strip():
        parts.append(cur)
    out = []
    for p in parts:
        head, _, default = p.partition("=")
        name, _, typ = head.partition(":")
        out.append((name.strip(), typ.strip(), bool(default.strip())))
    return out


def translate_to_asm(llvm, ir: str, triple: str, proc: str, features: str, flags: List[str],
                     enable_fp_fusion: bool, is_object: bool):
    """`llvm.translate_to_asm` with the seven arguments every supported Triton takes; each further
    required parameter (a bool: 3.8's `canonicalize_gep`) is passed as False. The parameters are
    read from the pybind signature; when it cannot be read, the call is retried with one more
    False after a TypeError (pybind raises it before LLVM runs)."""
    fn = llvm.translate_to_asm
    args: List[object] = [ir, triple, proc, features, flags, enable_fp_fusion, is_object]
    params = _signature_params(getattr(fn, "__doc__", None))
    if params is not None:
        extra = [p for p in params[len(args):] if not p[2]]
        if any(typ != "bool" for _, typ, _ in extra):
            raise TritonpackError(f"this Triton's llvm.translate_to_asm takes parameters the front end does not know: "
                                  f"{fn.__doc__.splitlines()[0]}")
        return fn(*args, *([False] * len(extra)))
    try:
        return fn(*args)
    except TypeError as e:
        if "incompatible function arguments" not in str(e):
            raise
        return fn(*args, False)


def amd_codegen() -> Optional[Callable[[str, str, str], object]]:
    """When the installed Triton generates AMD code with its separate code-generation library
    (`compile_amdgpu`, Triton 3.9): a function (ir, triple, processor) that compiles with it, all
    switches off. None when AMD code generation runs in libtriton's LLVM."""
    try:
        from triton.backends.amd import compiler as amdc
    except ImportError:
        return None
    fn = getattr(amdc, "compile_amdgpu", None)
    if fn is None:
        return None
    values = {"flags": [], "enable_fp_fusion": False, "disable_optimization": False, "canonicalize_gep": False,
              "disabled_passes": "", "dump_ir": False, "enable_timing": False}
    params = inspect.signature(fn).parameters
    kwargs = {k: v for k, v in values.items() if k in params}
    return lambda ir, triple, processor: fn(ir, triple, processor, "", **kwargs)


# ---------------------------------------------------------------------------------------- ptxas

PTXAS_TOOLS = ("ptxas", "ptxas_blackwell")   # the knobs.nvidia attributes naming Triton's ptxas binaries


def ptxas_tools(caps: Iterable[int]) -> Dict[int, str]:
    """For each capability, the knob (an item of PTXAS_TOOLS) of the ptxas that Triton's NVIDIA
    backend runs for it, as its `get_ptxas` decides. When one binary is missing, `get_ptxas` raises
    for the capabilities that need it, which are then that one's; with both missing the answer is
    empty."""
    from triton import knobs
    import triton.backends.nvidia.compiler as nvc
    paths, missing = {}, []
    for name in PTXAS_TOOLS:
        try:
            paths.setdefault(getattr(knobs.nvidia, name).path, name)
        except (RuntimeError, OSError):
            missing.append(name)
    out = {}
    for cap in caps:
        try:
            path = nvc.get_ptxas(cap).path
        except (RuntimeError, OSError):
            if len(missing) == 1:
                out[cap] = missing[0]
            continue
        if path in paths:
            out[cap] = paths[path]
    return out


# ---------------------------------------------------------------------------------------- inputs

AMD_CODEGEN_ENV = "TRITON_AMD_CODEGEN_PATH"
_PTXAS_ENV = ("TRITON_PTXAS_PATH", "TRITON_PTXAS_BLACKWELL_PATH")


def toolchain_inputs(triton_dir: Optional[Path], backend: str) -> Tuple[List[Path], Dict[str, Optional[str]]]:
    """The files (those that exist or not) and environment variables that decide what the
    installed Triton's tools answer for `backend`: libtriton, the backend's compiler module, the
    ptxas binaries (cuda) and the AMD code-generation library (hip, Triton 3.9)."""
    files: List[Path] = []
    names = _PTXAS_ENV if backend == "cuda" else (AMD_CODEGEN_ENV,)
    env = {n: os.environ.get(n) for n in names}
    if triton_dir:
        files.append(triton_dir / "_C" / "libtriton.so")
        sub = "nvidia" if backend == "cuda" else "amd"
        files.append(triton_dir / "backends" / sub / "compiler.py")
        if backend == "cuda":
            files += [triton_dir / "backends" / "nvidia" / "bin" / n for n in ("ptxas", "ptxas-blackwell")]
        else:
            files.append(triton_dir / "backends" / "amd" / "lib" / "libtriton_amd_codegen.so")
    files += [Path(v) for v in env.values() if v]
    return files, env
