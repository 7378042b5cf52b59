"""What the front end needs to know about a kernel's Python function, and how it is loaded.

Loading a kernel file imports Triton (about a second), so the result is cached by the caller
(keyed on the source closure hash) and a no-op rebuild never gets here. Worker processes use
`load_kernel` too, to get the JITFunction they compile.
"""
from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path
from typing import Optional

from .errors import TritonpackError
from .pre_hook import run_hooks


class KernelLoadError(TritonpackError):
    pass


def _module_name(path: Path) -> str:
    # Unique per file so two kernel files called kernels.py in different folders do not clash.
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:12]
    return f"_tritonpack_src_{path.stem}_{digest}"


def load_module(path: Path, stubs: Optional[dict] = None):
    """The kernel file as a module; `stubs` ({"modules": [...], "values": {...}}, the spec's
    stub_modules / stub_values) puts stand-ins in place of modules its kernels do not need."""
    path = Path(path).resolve()
    name = _module_name(path)
    mod = sys.modules.get(name)
    if mod is not None:
        return mod
    if not path.is_file():
        raise KernelLoadError(f"source file {path} does not exist")
    # Kernel files import their neighbours (helpers with more @triton.jit functions).
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # before exec: dataclasses and pickling look the module up by name
    try:
        from . import stubs as stub_modules
        with stub_modules.installed(stubs):
            spec.loader.exec_module(mod)
    except Exception as e:  # the user's file failed to import: report it at their line, not ours
        del sys.modules[name]
        from .import_errors import describe_import_failure, display_path
        raise KernelLoadError(f"cannot import {display_path(path)}:\n{describe_import_failure(e, path)}") from None
    return mod


def unwrap(obj):
    """The JITFunction inside autotune/heuristics wrappers, plus the outermost autotuner (or None)."""
    from triton.runtime.jit import JITFunction
    autotuner = None
    seen = 0
    while not isinstance(obj, JITFunction):
        if type(obj).__name__ == "Autotuner" and autotuner is None:
            autotuner = obj
        inner = getattr(obj, "fn", None)
        if inner is None or seen > 8:
            return None, autotuner
        obj, seen = inner, seen + 1
    return obj, autotuner


def load_kernel(path: Path, func: str, stubs: Optional[dict] = None):
    mod = load_module(path, stubs)
    if not hasattr(mod, func):
        raise KernelLoadError(f"{path} has no function '{func}'")
    jit, autotuner = unwrap(getattr(mod, func))
    if jit is None:
        raise KernelLoadError(f"'{func}' in {path} is not a @triton.jit function "
                              f"(nor one wrapped in @triton.autotune / @triton.heuristics)")
    return jit, autotuner


def constexpr_to_json(value):
    """A constexpr value as the manifest stores it: numbers and booleans as is, Triton dtypes as
    "tl.float16", strings as is. Anything else cannot be represented and is an error."""
    import triton.language as tl
    if isinstance(value, tl.constexpr):
        value = value.value
    if isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, tl.dtype):
        return f"tl.{value.name}"
    raise TypeError(f"constexpr value {value!r} ({type(value).__name__}) cannot be stored in the manifest")


def describe_kernel(path: Path, func: str, stubs: Optional[dict] = None) -> dict:
    """JSON-able facts about the kernel: parameters and autotune configs."""
    jit, autotuner = load_kernel(path, func, stubs)
    params = []
    for p in jit.params:
        has_default = bool(p.has_default)
        entry = {"name": p.name, "constexpr": bool(p.is_constexpr), "has_default": bool(has_default)}
        if has_default and p.is_constexpr:
            try:
                entry["default"] = constexpr_to_json(p.default)
            except TypeError:
                entry["has_default"] = False  # an unrepresentable default must be given explicitly
        params.append(entry)
    info = {"function": func, "python_name": jit.__name__, "params": params, "autotune_configs": None}
    if autotuner is not None:
        configs = []
        for i, c in enumerate(autotuner.configs):
            try:
                kw = {k: constexpr_to_json(v) for k, v in c.kwargs.items()}
            except TypeError as e:
                raise KernelLoadError(f"autotune config {i} of '{func}': {e}") from None
            cfg = {"num_warps": c.num_warps, "num_stages": c.num_stages, "num_ctas": c.num_ctas,
                   "constexprs": kw}
            if getattr(c, "maxnreg", None) is not None:
                cfg["options"] = {"maxnreg": c.maxnreg}
            # Triton runs the config's pre_hook, then the autotuner's, before each launch of the
            # config (runtime/autotuner.py); what they do ahead of time is pre_hook.py's.
            hooks = [h for h in (getattr(c, "pre_hook", None),
                                 autotuner.pre_hook if getattr(autotuner, "user_defined_pre_hook", False) else None)
                     if h is not None]
            if hooks:
                values = dict(kw, num_warps=c.num_warps, num_stages=c.num_stages, num_ctas=c.num_ctas)
                if getattr(c, "maxnreg", None) is not None:
                    values["maxnreg"] = c.maxnreg
                cfg["pre_hook"] = run_hooks(hooks, params, values)
            configs.append(cfg)
        info["autotune_configs"] = configs
        # What selects and protects a config (docs/spec.md "Tuning"): kept, not dropped. Triton
        # (every supported version) stores key as `keys`, reset_to_zero as `reset_to_zero`, restore_value as
        # `restore_value` (lists of argument names).
        info["autotune_key"] = [str(k) for k in (getattr(autotuner, "keys", None) or [])]
        info["autotune_reset_to_zero"] = [str(k) for k in (getattr(autotuner, "reset_to_zero", None) or [])]
        info["autotune_restore"] = [str(k) for k in (getattr(autotuner, "restore_value", None) or [])]
    return info
