"""A checker for manifest.json, written from docs/manifest.md (schema "tritonpack-manifest" v1).

The front end runs it on every manifest it writes (a violation is a front-end bug) and the tests
run it on the fixtures. It returns a list of problems, each naming the JSON path, rather than
stopping at the first, so one run shows everything that is wrong.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import List, Optional

from .signature import INT_TYPES, POINTEE_TYPES, SCALAR_TYPES, is_pointer
from . import names

SCHEMA = "tritonpack-manifest"
VERSION = 1
SPEC_KINDS = ("none", "div16", "equal1", "constexpr")
BACKEND_KINDS = {"cuda": ("cubin", "ptx"), "hip": ("hsaco", "llir")}
MODE_KINDS = {"binary": {"cubin", "hsaco"}, "ir": {"ptx", "llir"}, "both": {"cubin", "ptx", "hsaco", "llir"}}
_CUDA_ARCH = re.compile(r"^sm_\d{2,3}a?$")
_HIP_ARCH = re.compile(r"^gfx[0-9]{1,2}[0-9a-f]{2}(-strict)?(:(xnack|sramecc)[+-])*$")
_PTX_VERSION = re.compile(r"^\d+\.\d+$")
_TYPE = re.compile(r"^(\*(?P<p>[a-z0-9]+)|tensordesc<(?P<d>[a-z0-9]+)\[\d+(,\d+)*\]>)$")


def _valid_type(t: str) -> bool:
    if t in SCALAR_TYPES:
        return True
    m = _TYPE.match(t)
    return bool(m) and (m.group("p") or m.group("d")) in POINTEE_TYPES


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def check_manifest(m, base_dir: Optional[Path] = None) -> List[str]:
    """Problems with manifest `m` (a parsed JSON object). With `base_dir`, also check that every
    file exists, metadata files are Triton metadata JSON, and PTX `.version`/`.target` match."""
    errs: List[str] = []

    def need(obj, key, typ, path, allow_none=False):
        if not isinstance(obj, dict) or key not in obj:
            errs.append(f"{path}.{key}: missing")
            return None
        v = obj[key]
        if v is None and allow_none:
            return None
        ok = _is_int(v) if typ is int else isinstance(v, typ)
        if not ok:
            errs.append(f"{path}.{key}: expected {getattr(typ, '__name__', typ)}, got {type(v).__name__}")
            return None
        return v

    if not isinstance(m, dict):
        return ["<root>: not a JSON object"]
    if m.get("schema") != SCHEMA:
        errs.append(f"schema: expected '{SCHEMA}', got {m.get('schema')!r}")
    if m.get("version") != VERSION:
        errs.append(f"version: expected {VERSION}, got {m.get('version')!r}")
    need(m, "generator", str, "<root>")
    need(m, "triton_version", str, "<root>")
    if "triton_commit" in m and not (isinstance(m["triton_commit"], str)
                                     and re.match(r"^[0-9a-f]{7,40}$", m["triton_commit"])):
        errs.append("triton_commit: expected a git commit (7 to 40 lowercase hex digits)")
    name = need(m, "name", str, "<root>")
    if name is not None and names.problem(name):
        errs.append(f"name: {names.problem(name)}")
    mode = need(m, "mode", str, "<root>")
    if mode is not None and mode not in MODE_KINDS:
        errs.append(f"mode: {mode!r} is not binary, ir or both")
    kernels = need(m, "kernels", list, "<root>") or []
    seen_names = []  # (index, name) of the kernels with a string name
    for ki, k in enumerate(kernels):
        kp = f"kernels[{ki}]"
        if not isinstance(k, dict):
            errs.append(f"{kp}: not an object")
            continue
        kname = need(k, "name", str, kp)
        if kname is not None:
            if names.problem(kname):
                errs.append(f"{kp}.name: {names.problem(kname)}")
            seen_names.append((ki, kname))
        src = need(k, "source", str, kp)
        if src is not None and ":" not in src:
            errs.append(f"{kp}.source: expected \"path/file.py:function\"")
        sh = need(k, "source_hash", str, kp)
        if sh is not None and not re.match(r"^[0-9a-f]{64}$", sh):
            errs.append(f"{kp}.source_hash: not a sha256 hex digest")
        args = need(k, "args", list, kp) or []
        arg_names = []
        for ai, a in enumerate(args):
            ap = f"{kp}.args[{ai}]"
            an = need(a, "name", str, ap)
            at = need(a, "type", str, ap)
            if an is not None:
                arg_names.append(an)
            if at is None:
                continue
            if not _valid_type(at):
                errs.append(f"{ap}.type: '{at}' is not a Triton type")
            if is_pointer(at):
                need(a, "const", bool, ap)
            elif "const" in a and a["const"] not in (False,):
                errs.append(f"{ap}.const: only pointers can be const")
        if len(set(arg_names)) != len(arg_names):
            errs.append(f"{kp}.args: duplicate names")
        if "grid" not in k:
            errs.append(f"{kp}.grid: missing")
        elif k["grid"] is not None:
            g = k["grid"]
            if not (isinstance(g, list) and len(g) == 3 and all(isinstance(x, str) and x for x in g)):
                errs.append(f"{kp}.grid: expected 3 non-empty strings or null")
        variants = need(k, "variants", list, kp) or []
        if not variants:
            errs.append(f"{kp}.variants: empty")
        prev_rank = None
        for vi, v in enumerate(variants):
            vp = f"{kp}.variants[{vi}]"
            need(v, "signature", str, vp)
            specs = need(v, "specs", list, vp) or []
            if len(specs) != len(args):
                errs.append(f"{vp}.specs: {len(specs)} entries for {len(args)} args")
            folded = set()
            for si, s in enumerate(specs):
                sp = f"{vp}.specs[{si}]"
                kind = need(s, "kind", str, sp)
                if kind not in SPEC_KINDS:
                    errs.append(f"{sp}.kind: {kind!r} is not one of {', '.join(SPEC_KINDS)}")
                    continue
                atype = args[si].get("type") if si < len(args) and isinstance(args[si], dict) else None
                if kind == "constexpr":
                    need(s, "value", str, sp)
                if kind in ("constexpr", "equal1") and si < len(arg_names):
                    folded.add(arg_names[si])
                if kind == "equal1" and atype is not None and atype not in INT_TYPES:
                    errs.append(f"{sp}.kind: equal1 on non-integer argument of type {atype}")
                if kind == "div16" and atype is not None and not (is_pointer(atype) or atype in INT_TYPES):
                    errs.append(f"{sp}.kind: div16 on argument of type {atype}")
            nf = sum(isinstance(s, dict) and s.get("kind") in ("equal1", "constexpr") for s in specs)
            nd = sum(isinstance(s, dict) and s.get("kind") == "div16" for s in specs)
            rank = (nf, nd)
            if prev_rank is not None and rank > prev_rank:
                errs.append(f"{vp}: more specialised than the variant before it (variants must be most "
                            f"specialised first)")
            prev_rank = rank
            cfg = need(v, "config", dict, vp)
            if cfg is not None:
                for key in ("num_warps", "num_stages", "num_ctas"):
                    x = need(cfg, key, int, f"{vp}.config")
                    if x is not None and x < 1:
                        errs.append(f"{vp}.config.{key}: must be >= 1")
                cx = need(cfg, "constexprs", dict, f"{vp}.config") or {}
                for cn, cv in cx.items():
                    if not isinstance(cv, (int, float, bool, str)):
                        errs.append(f"{vp}.config.constexprs.{cn}: must be a number, boolean or string")
            kparams = need(v, "kernel_params", list, vp)
            if kparams is not None:
                expect = [n for n in arg_names if n not in folded]
                if kparams != expect:
                    errs.append(f"{vp}.kernel_params: {kparams} but the args not folded by specs are {expect}")
            blocks = v.get("descriptor_blocks", {})
            types = {a.get("name"): a.get("type") for a in args if isinstance(a, dict)}
            for bn, dims in (blocks.items() if isinstance(blocks, dict) else [(None, None)]):
                ty = types.get(bn) or ""
                if not ty.startswith("tensordesc<"):
                    errs.append(f"{vp}.descriptor_blocks: {bn!r} is not a tensordesc argument")
                elif not (isinstance(dims, list) and len(dims) == ty.count(",") + 1
                          and all(_is_int(d) and d > 0 for d in dims)):
                    errs.append(f"{vp}.descriptor_blocks.{bn}: must be {ty.count(',') + 1} positive integers")
            images = need(v, "images", list, vp) or []
            if not images:
                errs.append(f"{vp}.images: empty")
            for ii, img in enumerate(images):
                _check_image(img, f"{vp}.images[{ii}]", mode, base_dir, errs)
        if "tuning" in k:
            _check_tuning(k["tuning"], f"{kp}.tuning", args, len(variants), errs)
    clash = names.kernels_problem(name if isinstance(name, str) else "", [n for _, n in seen_names])
    if clash:
        errs.append(f"kernels[{seen_names[clash[0]][0]}].name: {clash[1]}")
    return errs


def _check_tuning(t, tp, args, nvariants, errs):
    """A kernel's "tuning" (docs/spec.md "Tuning"): config_count configs per specialisation,
    key args (integers) with a bucket rule, protected pointer args with a byte-size expression."""
    if not isinstance(t, dict):
        errs.append(f"{tp}: expected an object")
        return
    cc = t.get("config_count")
    if not _is_int(cc) or cc < 1 or nvariants % cc != 0:
        errs.append(f"{tp}.config_count: must be a positive divisor of the {nvariants} variants")
    if not isinstance(t.get("on_first_use"), bool):
        errs.append(f"{tp}.on_first_use: expected true or false")
    types = {a.get("name"): a.get("type") for a in args if isinstance(a, dict)}
    for i, a in enumerate(t.get("args") if isinstance(t.get("args"), list) else []):
        ap = f"{tp}.args[{i}]"
        if not isinstance(a, dict) or a.get("name") not in types:
            errs.append(f"{ap}.name: not an argument of the kernel")
            continue
        role, ty = a.get("role"), types[a["name"]]
        if role == "key":
            if ty not in INT_TYPES:
                errs.append(f"{ap}: a key must be an integer argument, not {ty}")
            if a.get("bucket") not in ("pow2", "exact"):
                errs.append(f"{ap}.bucket: expected \"pow2\" or \"exact\"")
        elif role in ("reset_to_zero", "restore"):
            if not is_pointer(ty):
                errs.append(f"{ap}: only pointer arguments can be protected, not {ty}")
            if not isinstance(a.get("bytes"), str) or not a["bytes"]:
                errs.append(f"{ap}.bytes: expected a byte-size expression")
        else:
            errs.append(f"{ap}.role: expected key, reset_to_zero or restore")
    if not isinstance(t.get("args"), list):
        errs.append(f"{tp}.args: expected a list")


def _check_image(img, ip, mode, base_dir, errs):
    if not isinstance(img, dict):
        errs.append(f"{ip}: not an object")
        return
    file = img.get("file")
    if not isinstance(file, str) or not file:
        errs.append(f"{ip}.file: missing")
    backend = img.get("backend")
    kind = img.get("kind")
    arch = img.get("arch")
    if backend not in BACKEND_KINDS:
        errs.append(f"{ip}.backend: {backend!r} is not cuda or hip")
    elif kind not in BACKEND_KINDS[backend]:
        errs.append(f"{ip}.kind: {kind!r} is not valid for {backend}")
    if mode in MODE_KINDS and kind not in MODE_KINDS[mode] and not img.get("generic_ptx"):
        errs.append(f"{ip}.kind: {kind!r} is outside mode {mode!r}")
    if not isinstance(arch, str):
        errs.append(f"{ip}.arch: missing")
    elif backend == "cuda" and not _CUDA_ARCH.match(arch):
        errs.append(f"{ip}.arch: '{arch}' is not sm_XY or sm_XYa")
    elif backend == "hip" and not _HIP_ARCH.match(arch):
        errs.append(f"{ip}.arch: '{arch}' is not a gfx target")
    if kind == "ptx":
        pv = img.get("ptx_version")
        if not isinstance(pv, str) or not _PTX_VERSION.match(pv):
            errs.append(f"{ip}.ptx_version: missing or not 'X.Y'")
    elif "ptx_version" in img:
        errs.append(f"{ip}.ptx_version: only PTX images have one")
    if "generic_ptx" in img:
        if not isinstance(img["generic_ptx"], bool):
            errs.append(f"{ip}.generic_ptx: expected bool")
        elif img["generic_ptx"] and (kind != "ptx" or (isinstance(arch, str) and arch.endswith("a"))):
            errs.append(f"{ip}.generic_ptx: only a PTX for a non-'a' target can be generic")
    for tool_key, tool_kind in (("ptxas_version", "cubin"), ("llvm_version", "hsaco")):
        if tool_key not in img:
            continue
        if kind != tool_kind:
            errs.append(f"{ip}.{tool_key}: only {tool_kind} images have one")
        elif not isinstance(img[tool_key], str) or not img[tool_key].strip():
            errs.append(f"{ip}.{tool_key}: expected a non-empty string")
    meta = img.get("metadata")
    if not isinstance(meta, str) or not meta:
        errs.append(f"{ip}.metadata: missing")
    if base_dir is None:
        return
    base = Path(base_dir)
    if isinstance(file, str) and file:
        p = base / file
        if not p.is_file():
            errs.append(f"{ip}.file: {file} does not exist")
        elif kind == "ptx":
            text = p.read_text(errors="replace")
            v = re.search(r"^\s*\.version\s+(\S+)", text, re.M)
            t = re.search(r"^\s*\.target\s+(\w+)", text, re.M)
            if not v or v.group(1) != img.get("ptx_version"):
                errs.append(f"{ip}.ptx_version: file says {v.group(1) if v else 'nothing'}")
            if not t or t.group(1) != arch:
                errs.append(f"{ip}.arch: PTX .target is {t.group(1) if t else 'missing'}")
        elif kind in ("cubin", "hsaco"):
            if p.read_bytes()[:4] != b"\x7fELF":
                errs.append(f"{ip}.file: {file} is not an ELF file")
    if isinstance(meta, str) and meta:
        p = base / meta
        try:
            md = json.loads(p.read_text())
        except (OSError, ValueError) as e:
            errs.append(f"{ip}.metadata: {meta}: {e}")
            return
        for key in ("name", "num_warps", "warp_size", "shared", "num_ctas", "triton_version", "target"):
            if key not in md:
                errs.append(f"{ip}.metadata: {meta} lacks '{key}'")
        tgt = md.get("target") or {}
        if tgt.get("backend") != backend:
            errs.append(f"{ip}.metadata: {meta} is for backend {tgt.get('backend')!r}")
