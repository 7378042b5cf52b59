"""The kernel spec (TOML): parsing, checking, and binding to the kernels' Python signatures.

Two phases, so that a no-op rebuild never imports Triton:

1. `load_spec` reads the TOML and checks everything that does not need the Python function
   (keys, types, targets, signature syntax, grid syntax, config shapes).
2. `bind_kernel` checks the spec against the function's parameters (from introspect.py, usually
   cached) and expands it into variants (signature x config), the manifest's `args` and `grid`.

Every error is a SpecError naming the spec file, the kernel and the key. docs/spec.md is the
user-facing description of this format; keep the two in step.
"""
from __future__ import annotations

import difflib
import keyword
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

from . import grid as gridmod
from . import names
from .errors import SpecError, SyntaxProblem, TritonpackError
from .fileio import is_a_directory
from .signature import SigEntry, descriptor_block, is_int, is_pointer, parse_signature
from .targets import Target, parse_targets

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

MODES = ("binary", "ir", "both")
DEFAULT_TARGETS = ["sm_80", "sm_90", "gfx942"]
DEFAULT_MODE = "both"
DEFAULT_NUM_WARPS = 4
DEFAULT_NUM_STAGES = 3   # triton.Config's and the CUDA backend's default; passed as is to every backend
DEFAULT_NUM_CTAS = 1

TOP_KEYS = ("name", "targets", "mode", "kernel", "stub_modules", "stub_values")
KERNEL_KEYS = ("source", "name", "signatures", "constexprs", "configs", "num_warps", "num_stages",
               "num_ctas", "options", "grid", "targets", "mode", "tune", "pre_hook")
TUNE_KEYS = ("key", "bucket", "on_first_use", "reset_to_zero", "restore", "bytes")
BUCKETS = ("pow2", "exact")
# What an @triton.autotune pre_hook does, as the spec states it (pre_hook.py, docs/spec.md
# "Autotune pre_hooks").
PRE_HOOK_MODES = ("block_shapes", "ignore")
CONFIG_KEYS = ("num_warps", "num_stages", "num_ctas", "constexprs", "options")
# Triton compile options a spec may set (CUDAOptions / HIPOptions fields that change code
# generation, in every supported Triton). Launch-shape options have their own keys; arch/backend
# come from the target. enable_fp_fusion defaults to triton_support.DEFAULT_FP_FUSION.
OPTION_KEYS = {
    "maxnreg": int, "ptx_version": int, "enable_fp_fusion": bool, "enable_reflect_ftz": bool,
    "launch_cooperative_grid": bool, "launch_pdl": bool, "debug": bool, "sanitize_overflow": bool,
    "default_dot_input_precision": str, "max_num_imprecise_acc_default": int,
    "waves_per_eu": int, "matrix_instr_nonkdim": int, "kpack": int, "schedule_hint": str,
    "allow_flush_denorm": bool, "extern_libs": dict,
}

# A Python function name, as `source = "file.py:function"` names it (the C++ name has its own
# rule: names.py).
_IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass
class ConfigSpec:
    num_warps: int
    num_stages: int
    num_ctas: int
    constexprs: Dict[str, object]
    options: Dict[str, object] = field(default_factory=dict)
    # pre_hook = "block_shapes": the descriptor block shapes this config's hook set, {arg: [dims]}
    block_shapes: Dict[str, List[int]] = field(default_factory=dict)

    def manifest(self) -> dict:
        return {"num_warps": self.num_warps, "num_stages": self.num_stages, "num_ctas": self.num_ctas,
                "constexprs": dict(self.constexprs)}


@dataclass
class KernelSpec:
    index: int
    label: str                  # how errors name it before binding: the name or the function
    source: str                 # "path/file.py:function" as written
    source_path: Path           # resolved
    function: str
    name: Optional[str]
    signatures: List[tuple]     # (text, [SigEntry])
    constexprs: Dict[str, object]
    configs: object             # list of raw config dicts, or "autotune"
    defaults: dict              # kernel-level num_warps/num_stages/num_ctas/options
    grid: Optional[List[str]]
    targets: List[Target]
    mode: str
    tune: Optional[dict] = None  # the spec's `tune` table, syntax-checked
    pre_hook: Optional[str] = None  # what the autotune configs' pre_hook does: PRE_HOOK_MODES
    stubs: Optional[dict] = None  # {"modules": [...], "values": {...}}: the spec's stub_modules (stubs.py)


@dataclass
class Spec:
    path: Path
    name: str
    mode: str
    targets: List[Target]
    kernels: List[KernelSpec]


@dataclass
class Variant:
    signature: str
    entries: List[Optional[SigEntry]]   # per Python parameter; None where a constexpr comes from config/default
    config: ConfigSpec
    specs: List[dict] = field(default_factory=list)          # per manifest arg
    kernel_params: List[str] = field(default_factory=list)
    # Descriptor arguments compiled with a block shape other than the signature's (set by the
    # config's pre_hook): {arg: [dims]}; the manifest's variant `descriptor_blocks`.
    descriptor_blocks: Dict[str, List[int]] = field(default_factory=dict)


@dataclass
class BoundKernel:
    spec: KernelSpec
    name: str
    param_names: List[str]
    args: List[dict]            # manifest args (const filled in after compiling)
    grid: Optional[List[str]]
    variants: List[Variant]
    explicit_const: Dict[str, bool]  # pointer args written *kT in some signature
    tuning: Optional[dict] = None    # manifest "tuning" (docs/spec.md "Tuning"); None: one config


def _unknown_key(path, key, allowed, kernel=None, where=None):
    close = difflib.get_close_matches(key, allowed, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else f" (known keys: {', '.join(allowed)})"
    raise SpecError(path, f"unknown key '{key}'{hint}", kernel=kernel, key=where or key)


def _check_keys(path, table, allowed, kernel=None, prefix=""):
    for k in table:
        if k not in allowed:
            _unknown_key(path, k, allowed, kernel, prefix + k)


def _pos_int(path, value, kernel, key, power_of_two=False):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise SpecError(path, f"must be a positive integer, not {value!r}", kernel, key)
    if power_of_two and value & (value - 1):
        raise SpecError(path, f"must be a power of two, not {value}", kernel, key)
    return value


def _check_constexprs(path, table, kernel, key):
    if not isinstance(table, dict):
        raise SpecError(path, "must be a table, e.g. {BLOCK = 1024}", kernel, key)
    for k, v in table.items():
        if isinstance(v, dict) or isinstance(v, list) or not isinstance(v, (bool, int, float, str)):
            raise SpecError(path, f"value of '{k}' must be a number, a boolean or a string "
                            f"(\"tl.float16\" for a dtype), not {v!r}", kernel, f"{key}.{k}")
    return dict(table)


def _check_options(path, table, kernel, key):
    if not isinstance(table, dict):
        raise SpecError(path, "must be a table of Triton compile options", kernel, key)
    for k, v in table.items():
        if k not in OPTION_KEYS:
            if k in ("num_warps", "num_stages", "num_ctas"):
                raise SpecError(path, f"'{k}' is not an option here: set it on the kernel or in configs",
                                kernel, f"{key}.{k}")
            _unknown_key(path, k, sorted(OPTION_KEYS), kernel, f"{key}.{k}")
        want = OPTION_KEYS[k]
        if (want is int and (isinstance(v, bool) or not isinstance(v, int))) or not isinstance(v, want):
            raise SpecError(path, f"must be of type {want.__name__}, not {v!r}", kernel, f"{key}.{k}")
    out = dict(table)
    if "extern_libs" in out:  # { libdevice = "path/libdevice.10.bc" }: paths relative to the spec
        libs = {}
        for lib, file in out["extern_libs"].items():
            where = f"{key}.extern_libs.{lib}"
            if not isinstance(file, str):
                raise SpecError(path, f"must be the path of a bitcode library (a string), not {file!r}", kernel, where)
            resolved = (Path(path).parent / file).resolve()
            if not resolved.is_file():
                raise SpecError(path, f"{file} ({resolved}) is not a file; give the path of the .bc library, relative "
                                f"to the spec", kernel, where)
            libs[lib] = str(resolved)
        out["extern_libs"] = libs
    return out


def _parse_stubs(path, doc) -> Optional[dict]:
    """`stub_modules` (modules the kernel file imports but its kernels do not need, loaded as stubs:
    stubs.py) and `stub_values` (what the file computes from them at import), or None."""
    from .stubs import stub_problem
    modules = doc.get("stub_modules", [])
    if not isinstance(modules, list) or not all(isinstance(m, str) for m in modules):
        raise SpecError(path, "must be a list of module names, e.g. [\"torch\"]", key="stub_modules")
    for m in modules:
        why = stub_problem(m)
        if why:
            raise SpecError(path, why, key="stub_modules")
    values = doc.get("stub_values", {})
    if not isinstance(values, dict):
        raise SpecError(path, "must be a table of \"module.path\" = value, e.g. "
                        "{ \"torch.cuda.get_device_properties().multi_processor_count\" = 132 }", key="stub_values")
    for k, v in values.items():
        if not any(k == m or k.startswith(m + ".") for m in modules):
            raise SpecError(path, f"'{k}' is not under a module of stub_modules ({', '.join(modules) or 'none'})",
                            key=f"stub_values.{k}")
        if isinstance(v, (dict, list)) or not isinstance(v, (bool, int, float, str)):
            raise SpecError(path, f"must be a number, a boolean or a string, not {v!r}", key=f"stub_values.{k}")
    if not modules:
        return None
    return {"modules": sorted(set(modules)), "values": dict(sorted(values.items()))}


def _parse_targets(path, raw, kernel, key):
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list) or not raw:
        raise SpecError(path, "must be a non-empty list such as [\"sm_80\", \"sm_90\", \"gfx942\"]", kernel, key)
    try:
        return parse_targets(raw)
    except SyntaxProblem as e:
        raise SpecError(path, str(e), kernel, key) from None


def _parse_mode(path, raw, kernel, key):
    if raw not in MODES:
        raise SpecError(path, f"must be one of {', '.join(MODES)}, not {raw!r}", kernel, key)
    return raw


def _library_name(path: Path, doc: dict) -> str:
    """The spec's `name`, else the default from the file name; either way checked (names.py)."""
    given = "name" in doc
    name = doc["name"] if given else names.default_library_name(path)
    why = names.problem(name)
    if why:
        fix = names.suggestion(name, "library")
        if given:
            raise SpecError(path, f"the library name {why}; use e.g. name = \"{fix}\"", key="name")
        raise SpecError(path, f"the library name {why}; it comes from the spec's file name {path.name}: set "
                        f"`name = \"{fix}\"` at the top of the spec (or rename the file)")
    return name


def load_spec(path, target_override=None, mode_override=None, targets_from="--targets") -> Spec:
    """Phase 1: read and check the TOML. `target_override` (list of strings) and `mode_override`
    come from the command line and replace every kernel's targets/mode; `targets_from` names where
    the targets came from in messages ("--targets", "TARGETS of tritonpack_add_kernels(app)")."""
    path = Path(path)
    if path.is_dir():
        raise TritonpackError(is_a_directory(path, "a kernel spec file (TOML, docs/spec.md)"))
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as e:
        raise SpecError(path, f"cannot read the spec: {e.strerror}") from None
    except UnicodeDecodeError:
        raise SpecError(path, "the spec is not UTF-8 text") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SpecError(path, f"invalid TOML: {e}") from None
    _check_keys(path, doc, TOP_KEYS)

    name = _library_name(path, doc)
    file_targets = _parse_targets(path, doc["targets"], None, "targets") if "targets" in doc else \
        parse_targets(DEFAULT_TARGETS)
    file_mode = _parse_mode(path, doc.get("mode", DEFAULT_MODE), None, "mode")
    if target_override:
        file_targets = _parse_targets(path, list(target_override), None, targets_from)
    if mode_override:
        file_mode = _parse_mode(path, mode_override, None, "--mode")

    raw_kernels = doc.get("kernel")
    if raw_kernels is None:
        raise SpecError(path, "no kernels: add at least one [[kernel]] table")
    if isinstance(raw_kernels, dict):
        raise SpecError(path, "write kernels as [[kernel]] tables (an array of tables), not [kernel]",
                        key="kernel")
    if not isinstance(raw_kernels, list) or not raw_kernels:
        raise SpecError(path, "no kernels: add at least one [[kernel]] table", key="kernel")

    kernels = []
    for i, rk in enumerate(raw_kernels):
        kernels.append(_load_kernel(path, i, rk, file_targets, file_mode, target_override, mode_override))
    stubs = _parse_stubs(path, doc)
    for ks in kernels:
        ks.stubs = stubs
    clash = names.kernels_problem(name, [ks.name or ks.function for ks in kernels])
    if clash:
        i, why = clash
        raise SpecError(path, f"{why}; give this kernel another `name`", kernels[i].label, "name")
    return Spec(path=path, name=name, mode=file_mode, targets=file_targets, kernels=kernels)


def _load_kernel(path, i, rk, file_targets, file_mode, target_override, mode_override) -> KernelSpec:
    if not isinstance(rk, dict):
        raise SpecError(path, "each [[kernel]] entry must be a table", key=f"kernel[{i}]")
    label = rk.get("name") if isinstance(rk.get("name"), str) else None
    src = rk.get("source")
    if label is None and isinstance(src, str) and ":" in src:
        label = src.rsplit(":", 1)[1].strip()
    label = label or f"kernel[{i}]"
    _check_keys(path, rk, KERNEL_KEYS, label)

    if "source" not in rk:
        raise SpecError(path, "missing required key 'source' (\"path/file.py:function\")", label, "source")
    if not isinstance(src, str) or src.count(":") < 1:
        raise SpecError(path, f"must be \"path/file.py:function\", not {src!r}", label, "source")
    file_part, func = (s.strip() for s in src.rsplit(":", 1))
    if not file_part or not _IDENT_RE.match(func):
        raise SpecError(path, f"must be \"path/file.py:function\", not {src!r}", label, "source")
    source_path = (path.parent / file_part).resolve()
    if source_path.is_dir():
        raise SpecError(path, is_a_directory(source_path, "a Python file with the kernel"), label, "source")
    if not source_path.is_file():
        raise SpecError(path, f"source file '{file_part}' not found (looked for {source_path}; paths are "
                        f"relative to the spec file)", label, "source")

    name = rk.get("name")
    why = names.problem(name if name is not None else func)
    if why:
        fix = f"`name = \"{names.suggestion(name if name is not None else func, 'kernel')}\"`"
        if name is None:
            raise SpecError(path, f"the function name {why}; give the kernel a C++ name with {fix}", label, "name")
        raise SpecError(path, f"{why}; use e.g. {fix}", label, "name")

    sigs_raw = rk.get("signatures")
    if sigs_raw is None:
        raise SpecError(path, "missing required key 'signatures', e.g. [\"*fp32:16, *fp32:16, i32\"]",
                        label, "signatures")
    if isinstance(sigs_raw, str):
        sigs_raw = [sigs_raw]
    if not isinstance(sigs_raw, list) or not sigs_raw:
        raise SpecError(path, "must be a non-empty list of signature strings", label, "signatures")
    signatures = []
    seen = set()
    for j, s in enumerate(sigs_raw):
        try:
            entries = parse_signature(s)
        except SyntaxProblem as e:
            raise SpecError(path, str(e), label, f"signatures[{j}]") from None
        canon = tuple(e.text for e in entries)
        if canon in seen:
            raise SpecError(path, f"duplicate signature '{s}'", label, f"signatures[{j}]")
        seen.add(canon)
        signatures.append((s.strip(), entries))

    constexprs = _check_constexprs(path, rk.get("constexprs", {}), label, "constexprs")
    defaults = {}
    for k, p2 in (("num_warps", True), ("num_stages", False), ("num_ctas", False)):
        if k in rk:
            defaults[k] = _pos_int(path, rk[k], label, k, power_of_two=p2)
    defaults["options"] = _check_options(path, rk.get("options", {}), label, "options")

    configs = rk.get("configs")
    if configs is not None:
        if configs == "autotune":
            pass
        elif isinstance(configs, list) and configs:
            for j, c in enumerate(configs):
                key = f"configs[{j}]"
                if not isinstance(c, dict):
                    raise SpecError(path, "must be a table like {num_warps = 4, constexprs = {BLOCK = 128}}",
                                    label, key)
                _check_keys(path, c, CONFIG_KEYS, label, key + ".")
                for k, p2 in (("num_warps", True), ("num_stages", False), ("num_ctas", False)):
                    if k in c:
                        _pos_int(path, c[k], label, f"{key}.{k}", power_of_two=p2)
                _check_constexprs(path, c.get("constexprs", {}), label, f"{key}.constexprs")
                _check_options(path, c.get("options", {}), label, f"{key}.options")
        else:
            raise SpecError(path, "must be a non-empty list of config tables, or \"autotune\" to take the "
                            "configs of the function's @triton.autotune", label, "configs")

    grid = None
    if "grid" in rk:
        try:
            grid = gridmod.normalise_grid(rk["grid"])
            for g in grid:  # syntax now; names are checked against the parameters when binding
                gridmod.check_expr(g, lambda n: "")
        except SyntaxProblem as e:
            raise SpecError(path, str(e), label, "grid") from None
        for axis, g in enumerate(grid):  # what literals alone decide; constexprs when binding
            problem = gridmod.constant_problem(g, {})
            if problem:
                raise SpecError(path, problem, label, f"grid[{axis}]")

    targets = file_targets
    if "targets" in rk and not target_override:
        targets = _parse_targets(path, rk["targets"], label, "targets")
    mode = file_mode
    if "mode" in rk and not mode_override:
        mode = _parse_mode(path, rk["mode"], label, "mode")

    tune = _check_tune(path, rk["tune"], label) if "tune" in rk else None
    pre_hook = rk.get("pre_hook")
    if pre_hook is not None and pre_hook not in PRE_HOOK_MODES:
        raise SpecError(path, f"must be \"block_shapes\" (the autotune pre_hook only sets tensor descriptor block "
                        f"shapes from the config) or \"ignore\" (its work is not needed, or the caller does it), "
                        f"not {pre_hook!r}", label, "pre_hook")

    return KernelSpec(index=i, label=label, source=src.strip(), source_path=source_path, function=func,
                      name=name, signatures=signatures, constexprs=constexprs, configs=configs,
                      defaults=defaults, grid=grid, targets=targets, mode=mode, tune=tune, pre_hook=pre_hook)


def _names_list(path, value, label, key):
    if not isinstance(value, list) or not all(isinstance(x, str) and x for x in value):
        raise SpecError(path, "must be a list of argument names, e.g. [\"M\", \"N\"]", label, key)
    if len(set(value)) != len(value):
        raise SpecError(path, "names an argument twice", label, key)
    return list(value)


def _check_tune(path, t, label) -> dict:
    """The `tune` table's syntax; names are checked against the arguments when binding."""
    if not isinstance(t, dict):
        raise SpecError(path, "must be a table like {key = [\"M\", \"N\"], on_first_use = true}", label, "tune")
    _check_keys(path, t, TUNE_KEYS, label, "tune.")
    out = {}
    for k in ("key", "reset_to_zero", "restore"):
        if k in t:
            out[k] = _names_list(path, t[k], label, f"tune.{k}")
    b = t.get("bucket", "pow2")
    if isinstance(b, str):
        if b not in BUCKETS:
            raise SpecError(path, f"is {b!r}; use \"pow2\" (round up to a power of two) or \"exact\"", label, "tune.bucket")
        out["bucket"] = b
    elif isinstance(b, dict):
        for n, r in b.items():
            if r not in BUCKETS:
                raise SpecError(path, f"is {r!r}; use \"pow2\" or \"exact\"", label, f"tune.bucket.{n}")
        out["bucket"] = dict(b)
    else:
        raise SpecError(path, "must be \"pow2\", \"exact\" or a table {M = \"exact\"}", label, "tune.bucket")
    if "on_first_use" in t and not isinstance(t["on_first_use"], bool):
        raise SpecError(path, "must be true or false", label, "tune.on_first_use")
    out["on_first_use"] = t.get("on_first_use", False)
    bytes_ = t.get("bytes", {})
    if not isinstance(bytes_, dict) or not all(isinstance(v, str) and v.strip() for v in bytes_.values()):
        raise SpecError(path, "must be a table of byte-size expressions, e.g. {C = \"M * N * 4\"}", label, "tune.bytes")
    for n, e in bytes_.items():
        try:
            gridmod.check_expr(e, lambda name: "")
        except SyntaxProblem as err:
            raise SpecError(path, str(err), label, f"tune.bytes.{n}") from None
    out["bytes"] = dict(bytes_)
    return out


def bind_tuning(path, ks: KernelSpec, info: dict, args: List[dict], config_count: int) -> Optional[dict]:
    """The manifest's "tuning" of a bound kernel: which integer args select a config (`key`, from
    the spec or from @triton.autotune), how they are bucketed, which pointer args trial runs must
    zero or restore, with their byte sizes. None when there is nothing to choose or protect."""
    label = ks.label
    t = ks.tune or {}
    from_autotune = ks.configs == "autotune"
    types = {a["name"]: a["type"] for a in args}
    warnings = []
    if "key" in t:
        key = t["key"]
    elif from_autotune:
        key = []
        for n in info.get("autotune_key") or []:
            if n in types and is_int(types[n]):
                key.append(n)
            else:  # Triton skips key names that are not arguments; a constexpr or folded one selects nothing here
                warnings.append(f"kernel {label}: @triton.autotune key '{n}' is not an integer argument of the C++ "
                                f"function, so it does not select a config")
    else:
        key = []
    reset = t.get("reset_to_zero", info.get("autotune_reset_to_zero") or [] if from_autotune else [])
    restore = t.get("restore", info.get("autotune_restore") or [] if from_autotune else [])
    for k, names_ in (("key", key), ("reset_to_zero", reset), ("restore", restore)):
        for n in names_:
            if n not in types:
                raise SpecError(path, f"'{n}' is not an argument of the C++ function ({', '.join(types)})", label, f"tune.{k}")
            if k == "key" and not is_int(types[n]):
                raise SpecError(path, f"'{n}' has type {types[n]}; a tuning key must be an integer argument", label, "tune.key")
            if k != "key" and not is_pointer(types[n]):
                raise SpecError(path, f"'{n}' has type {types[n]}; only pointer arguments can be protected", label, f"tune.{k}")
    both = set(reset) & set(restore)
    if both:
        raise SpecError(path, f"'{sorted(both)[0]}' is both reset_to_zero and restore", label, "tune")
    bytes_ = t.get("bytes", {})
    for n in list(reset) + list(restore):
        if n not in bytes_:
            raise SpecError(path, f"trial runs must protect '{n}' but its size is unknown: give "
                            f"`bytes = {{{n} = \"...\"}}`, an expression over integer arguments", label, "tune.bytes")
    for n, e in bytes_.items():
        if n not in list(reset) + list(restore):
            raise SpecError(path, f"'{n}' is neither reset_to_zero nor restore", label, f"tune.bytes.{n}")

        def name_ok(x):
            if x in types and is_int(types[x]):
                return ""
            return f"'{x}' is not an integer argument (byte sizes are computed from the call's integer arguments)"
        try:
            gridmod.check_expr(e, name_ok)
        except SyntaxProblem as err:
            raise SpecError(path, str(err), label, f"tune.bytes.{n}") from None
    if config_count <= 1 and not ks.tune:
        return None
    bucket = t.get("bucket", "pow2")
    margs = []
    for n in key:
        rule = bucket.get(n, "pow2") if isinstance(bucket, dict) else bucket
        margs.append({"name": n, "role": "key", "bucket": rule})
    if isinstance(bucket, dict):
        for n in bucket:
            if n not in key:
                raise SpecError(path, f"'{n}' is not a tuning key ({', '.join(key) or 'none'})", label, f"tune.bucket.{n}")
    margs += [{"name": n, "role": "reset_to_zero", "bytes": bytes_[n]} for n in reset]
    margs += [{"name": n, "role": "restore", "bytes": bytes_[n]} for n in restore]
    return {"config_count": config_count, "on_first_use": bool(t.get("on_first_use", False)), "args": margs,
            "warnings": warnings}


def _configs_for(path, ks: KernelSpec, info: dict) -> List[ConfigSpec]:
    label = ks.label
    d = ks.defaults
    if ks.configs == "autotune":
        raw = info.get("autotune_configs")
        if raw is None:
            raise SpecError(path, f"'{ks.function}' is not wrapped in @triton.autotune, so there are no "
                            f"configs to take", label, "configs")
        if not raw:
            raise SpecError(path, f"the @triton.autotune of '{ks.function}' has no configs", label, "configs")
        where = lambda j: f"configs (autotune config {j})"  # noqa: E731
    elif ks.configs is None:
        raw = [{}]
        where = lambda j: "constexprs"  # noqa: E731
    else:
        raw = ks.configs
        where = lambda j: f"configs[{j}]"  # noqa: E731
    hooked = [j for j, c in enumerate(raw) if "pre_hook" in c]
    if hooked and ks.pre_hook is None:
        # Triton runs the hook before every launch of the config; nothing runs it at a tritonpack
        # launch, so a hook that gives descriptors the config's block shape would leave every
        # config with the signature's one: wrong results, silently.
        raise SpecError(path, f"autotune config {hooked[0]} of '{ks.function}' has a pre_hook, which Triton runs before "
                        f"each launch of the config and tritonpack cannot run at a launch; say what it does: "
                        f"pre_hook = \"block_shapes\" if it only sets tensor descriptor block shapes from the config "
                        f"(the front end runs it once per config and compiles each config with those shapes), or "
                        f"pre_hook = \"ignore\" if its work is not needed or the caller does it before each call",
                        label, "pre_hook")
    if ks.pre_hook is not None and not hooked:
        raise SpecError(path, f"no config of '{ks.function}' has a pre_hook (the key applies to configs = \"autotune\" "
                        f"with a hook in @triton.autotune); remove it", label, "pre_hook")
    out = []
    for j, c in enumerate(raw):
        hook = c.get("pre_hook")
        if hook is not None and ks.pre_hook == "block_shapes" and "error" in hook:
            raise SpecError(path, f"pre_hook = \"block_shapes\", but the pre_hook of autotune config {j} does more than "
                            f"set tensor descriptor block shapes: {hook['error']}. That work cannot be done ahead of "
                            f"time: do it in the caller and set pre_hook = \"ignore\", or change the hook",
                            label, "pre_hook")
        cx = dict(c.get("constexprs", {}))
        for k, v in ks.constexprs.items():
            if k in cx and cx[k] != v:
                raise SpecError(path, f"constexpr '{k}' is set both in the kernel's constexprs ({v!r}) and in "
                                f"the config ({cx[k]!r})", label, where(j))
            cx[k] = v
        opts = dict(d.get("options", {}))
        opts.update(c.get("options", {}))
        out.append(ConfigSpec(num_warps=c.get("num_warps", d.get("num_warps", DEFAULT_NUM_WARPS)),
                              num_stages=c.get("num_stages", d.get("num_stages", DEFAULT_NUM_STAGES)),
                              num_ctas=c.get("num_ctas", d.get("num_ctas", DEFAULT_NUM_CTAS)),
                              constexprs=cx, options=opts,
                              block_shapes=dict((hook or {}).get("block_shapes", {})
                                                if ks.pre_hook == "block_shapes" else {})))
    keys0 = set(out[0].constexprs)
    for j, c in enumerate(out[1:], 1):
        if set(c.constexprs) != keys0:
            raise SpecError(path, f"every config must set the same constexprs (config 0 sets "
                            f"{sorted(keys0)}, this one {sorted(c.constexprs)})", label, where(j))
    return out


def _same_type(a: str, b: str) -> bool:
    norm = lambda t: "*" + t[2:] if t.startswith("*k") else t  # noqa: E731
    return norm(a) == norm(b)


def _bind_descriptor_blocks(path, label, args: List[dict], pnames: List[str], variants: List[Variant]):
    """Each variant's descriptor block shapes set by its config's pre_hook (pre_hook =
    "block_shapes"), checked against the signature: only tensor descriptors have one, of its rank."""
    types = {a["name"]: a["type"] for a in args}
    for v in variants:
        for name, dims in v.config.block_shapes.items():
            e = v.entries[pnames.index(name)] if name in pnames else None
            ty = types.get(name) if e is not None and not e.is_constexpr else None
            if ty is None or not ty.startswith("tensordesc<"):
                what = f"'{name}' is {ty} there" if ty else f"'{name}' is not a run-time argument there"
                raise SpecError(path, f"the pre_hook sets {name}.block_shape, but {what} in signature '{v.signature}' "
                                f"(only a tensordesc<...> argument has a block shape)", label, "pre_hook")
            rank = ty.count(",") + 1
            if len(dims) != rank:
                raise SpecError(path, f"the pre_hook sets {name}.block_shape to {dims} ({len(dims)} dimensions), but "
                                f"'{name}' is {ty} (rank {rank}) in signature '{v.signature}'", label, "pre_hook")
            if dims != descriptor_block(ty):
                v.descriptor_blocks[name] = list(dims)


def bind_kernel(spec: Spec, ks: KernelSpec, info: dict) -> BoundKernel:
    """Phase 2: check ks against the function's parameters (`info` from introspect.describe_kernel)
    and expand it into variants."""
    path, label = spec.path, ks.label
    params = info["params"]
    pnames = [p["name"] for p in params]
    pinfo = {p["name"]: p for p in params}
    name = ks.name or info["function"]  # checked by load_spec (info["function"] is ks.function)

    configs = _configs_for(path, ks, info)
    cx_names = list(configs[0].constexprs)
    for k in cx_names:
        if k not in pinfo:
            close = difflib.get_close_matches(k, pnames, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise SpecError(path, f"constexpr '{k}' is not a parameter of {ks.function}({', '.join(pnames)}){hint}",
                            label, "configs" if ks.configs is not None else "constexprs")

    sig_params = [p for p in pnames if p not in cx_names]
    # Trailing constexpr parameters with a Python default may be left out of the signature.
    optional = 0
    for p in reversed(sig_params):
        if pinfo[p]["constexpr"] and pinfo[p]["has_default"]:
            optional += 1
        else:
            break
    n_max, n_min = len(sig_params), len(sig_params) - optional

    variants: List[Variant] = []
    for j, (sig_text, entries) in enumerate(ks.signatures):
        key = f"signatures[{j}]"
        if not n_min <= len(entries) <= n_max:
            want = f"{n_max}" if n_min == n_max else f"{n_min} to {n_max}"
            set_by = f" (not counting {', '.join(cx_names)}, set by constexprs/configs)" if cx_names else ""
            raise SpecError(path, f"has {len(entries)} entries but {ks.function} takes {want} here: "
                            f"{', '.join(sig_params)}{set_by}", label, key)
        by_param: Dict[str, Optional[SigEntry]] = {p: None for p in pnames}
        defaults_used = {}
        for k, p in enumerate(sig_params):
            if k < len(entries):
                e = entries[k]
                if pinfo[p]["constexpr"] and not e.is_constexpr:
                    raise SpecError(path, f"entry {k + 1} ('{e.text}'): parameter '{p}' is declared tl.constexpr, "
                                    f"so it needs a value (a bare number), not a type", label, key)
                by_param[p] = e
            else:
                defaults_used[p] = pinfo[p]["default"]
        for c in configs:
            cfg = ConfigSpec(c.num_warps, c.num_stages, c.num_ctas, dict(c.constexprs), dict(c.options),
                             dict(c.block_shapes))
            cfg.constexprs.update(defaults_used)
            variants.append(Variant(signature=sig_text, entries=[by_param[p] for p in pnames], config=cfg))

    # Manifest args: parameters that are not constexpr in every variant.
    args, explicit_const = [], {}
    for pi, p in enumerate(pnames):
        typed = [(v, v.entries[pi]) for v in variants if v.entries[pi] is not None and not v.entries[pi].is_constexpr]
        if not typed:
            continue
        ty = typed[0][1].type
        for v, e in typed[1:]:
            if not _same_type(e.type, ty):
                raise SpecError(path, f"signatures disagree on the type of '{p}': '{ty}' in '{typed[0][0].signature}' "
                                f"but '{e.type}' in '{v.signature}' (one C++ function has one type per argument; "
                                f"use two [[kernel]] entries with different names)", label, "signatures")
        canon = "*" + ty[2:] if ty.startswith("*k") else ty
        explicit_const[p] = any(e.type.startswith("*k") for _, e in typed)
        arg = {"name": p, "type": canon}
        if is_pointer(canon):
            arg["const"] = False  # decided after compiling (TTIR analysis)
        args.append(arg)

    arg_names = [a["name"] for a in args]
    _bind_descriptor_blocks(path, label, args, pnames, variants)
    for v in variants:
        for a in args:
            e = v.entries[pnames.index(a["name"])]
            kind = e.spec_kind if e is not None else "constexpr"
            spec = {"kind": kind}
            if kind == "constexpr":
                spec["value"] = e.constexpr
            v.specs.append(spec)
        v.kernel_params = [p for p, e in zip(pnames, v.entries) if e is not None and e.is_passed]

    # Most specialised first: folded values (equal1/constexpr) weigh more than divisibility; a
    # stable sort keeps spec order (signature, then config) among equals, so the first config of
    # a signature is its default.
    def rank(v):
        folded = sum(s["kind"] in ("equal1", "constexpr") for s in v.specs)
        div = sum(s["kind"] == "div16" for s in v.specs)
        return (-folded, -div)
    variants.sort(key=rank)

    grid = None
    if ks.grid is not None:
        types = {a["name"]: a["type"] for a in args}

        def name_ok(n):
            if n in types:
                if not is_int(types[n]):
                    return f"'{n}' has type {types[n]}; only integer arguments can be used in a grid"
                return ""
            if n in cx_names or all(n in v.config.constexprs for v in variants):
                vals = [v.config.constexprs.get(n) for v in variants]
                if any(isinstance(x, bool) or not isinstance(x, int) for x in vals):
                    return f"constexpr '{n}' is not an integer in every config"
                return ""
            if n in pnames:
                return (f"'{n}' is a constexpr fixed by the signature, so the C++ side has no value for it; "
                        f"use the number itself")
            return f"'{n}' is neither an argument ({', '.join(arg_names)}) nor a config constexpr"
        try:
            for g in ks.grid:
                gridmod.check_expr(g, name_ok)
        except SyntaxProblem as e:
            raise SpecError(path, str(e), label, "grid") from None
        # With each config's constexpr values: a zero divisor (`cdiv(n, BLOCK)` with BLOCK = 0 in
        # one config) would fail every launch of that variant, so it is refused here.
        for v in variants:
            values = {k: x for k, x in v.config.constexprs.items() if isinstance(x, int) and not isinstance(x, bool)}
            for axis, g in enumerate(ks.grid):
                problem = gridmod.constant_problem(g, values)
                if problem:
                    raise SpecError(path, problem, label, f"grid[{axis}]")
        grid = list(ks.grid)

    tuning = bind_tuning(path, ks, info, args, len(configs))
    return BoundKernel(spec=ks, name=name, param_names=pnames, args=args, grid=grid, variants=variants,
                       explicit_const=explicit_const, tuning=tuning)
