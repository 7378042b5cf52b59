"""`tritonpack-compile`: spec -> compilations (parallel, cached) -> artifact directory + manifest.

Flow:
  load_spec (TOML checks)  ->  introspect each kernel (cached by source hash)  ->  bind_kernel
  -> plan jobs (variant x target, plus generic PTX)  ->  look every job up in the cache
  -> compile the misses in spawned worker processes  ->  copy artifacts  ->  manifest.json

A run with nothing changed finds every job in the cache and never imports Triton.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

from . import GENERATOR, __version__
from .atomicfile import atomic_write as _atomic_write
from .errors import SpecError, TritonpackError
from .interrupt import stop_on_signals
from .manifest import check_manifest
from .cachetrust import MAX_RESULT_JSON, read_trusted, untrusted_dir
from .compile_jobs import (LOG_DIR, TIME_LIMIT_ENV, cache_lookup, check_buildable, clear_logs, entry_dir, read_result_file,
                           run_jobs, time_limit_from_env)
from .pool import Limits, orphan_prefix, sweep_orphans
from .progress import Progress
from .provenance import triton_commit
from .resources import default_jobs
from .signature import with_block
from .sources import file_sha256, source_closure_hash
from .spec import BoundKernel, Spec, bind_kernel, load_spec
from .targets import Target
from .triton_support import DEFAULT_FP_FUSION, check_supported, pip_requirement
from .tritonenv import compile_env

# Bump when the layout or meaning of cached job results changes.
CACHE_FORMAT = 2  # 2: result.json records each file's SHA-256 (cachetrust.py)
# The modules whose code decides what a cached entry contains: their text is part of every key,
# so a changed front end never reuses results of an older one (even at the same version number).
_KEYED_MODULES = ("worker.py", "constness.py", "introspect.py", "triton_support.py", "provenance.py")
_fingerprint = None


def generator_fingerprint() -> str:
    global _fingerprint
    if _fingerprint is None:
        here = Path(__file__).resolve().parent
        h = hashlib.sha256(f"{CACHE_FORMAT}:{__version__}".encode())
        for name in _KEYED_MODULES:
            h.update((here / name).read_bytes())
        _fingerprint = h.hexdigest()
    return _fingerprint


def triton_version() -> str:
    """The version of the Triton this process has imported, else of the installed one, read
    without importing it (importing costs about a second)."""
    loaded = sys.modules.get("triton")
    if isinstance(getattr(loaded, "__version__", None), str):
        return loaded.__version__
    from importlib import metadata
    try:
        return metadata.version("triton")
    except metadata.PackageNotFoundError:
        raise TritonpackError("Triton is not installed in this Python "
                              f"({sys.executable}); install it with `pip install \"{pip_requirement()}\"`") from None


# TRITONPACK_CACHE_DIR is the run time's JIT cache (include/tritonpack/runtime/jit_cache.hpp): a different
# cache, deliberately not read here, even when this variable is unset (docs/spec.md).
COMPILE_CACHE_ENV = "TRITONPACK_COMPILE_CACHE_DIR"


NOCACHE_PREFIX = "tritonpack-nocache-"   # --no-cache: a cache for one run, removed after it


def default_cache_dir() -> Path:
    env = os.environ.get(COMPILE_CACHE_ENV)
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tritonpack" / "compile"


@dataclass
class Job:
    key: str
    kernel: BoundKernel
    variant_index: int
    target: Target
    generic: bool
    payload: dict                          # what the worker gets
    result: Optional[dict] = None
    cached: bool = False

    @property
    def label(self) -> str:
        what = f"generic PTX sm_{self.target.arch}" if self.generic else f"{self.target.backend} {self.target.image_arch}"
        return f"{self.kernel.name} v{self.variant_index} {what}"

    @property
    def what(self) -> str:
        """For sentences: "vector_add v0 for sm_90a"."""
        where = f"generic PTX sm_{self.target.arch}" if self.generic else self.target.image_arch
        return f"{self.kernel.name} v{self.variant_index} for {where}"

    @property
    def log_name(self) -> str:
        kind = f"generic_sm_{self.target.arch}" if self.generic else f"{self.target.backend}_{self.target.image_arch}"
        return f"{self.kernel.name}.v{self.variant_index}.{kind}.log"


@dataclass
class Outcome:
    manifest: Optional[dict]
    compiled: int = 0
    cached: int = 0
    failures: List[str] = field(default_factory=list)
    warnings: List[str] = field(default_factory=list)
    seconds: float = 0.0


def _sha(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()


# ---------------------------------------------------------------------------------------- introspection

def _introspect(spec: Spec, ks, closure: str, tver: str, cache_dir: Optional[Path]) -> dict:
    key = _sha({"gen": generator_fingerprint(), "triton": tver, "path": str(ks.source_path),
                "closure": closure, "function": ks.function, **({"stubs": ks.stubs} if ks.stubs else {})})
    path = cache_dir / "introspect" / f"{key}.json" if cache_dir else None
    # Used only when ours and no one else may change it (cachetrust.py); otherwise recomputed.
    raw = read_trusted(path, MAX_RESULT_JSON) if path and not untrusted_dir(path.parent) else None
    if raw is not None:
        try:
            return json.loads(raw)
        except ValueError:
            pass  # a damaged entry is recomputed
    from .introspect import KernelLoadError, describe_kernel
    try:
        info = describe_kernel(ks.source_path, ks.function, ks.stubs)
    except KernelLoadError as e:
        raise SpecError(spec.path, str(e), ks.label, "source") from None
    if path:
        _atomic_write(path, json.dumps(info, indent=1).encode())
    return info


# ---------------------------------------------------------------------------------------- planning

def _worker_payload(bk: BoundKernel, vi: int, target: Target, generic: bool) -> dict:
    v = bk.variants[vi]
    signature, constexprs, div16 = {}, {}, []
    for i, (p, e) in enumerate(zip(bk.param_names, v.entries)):
        if e is None:  # set by the config (or a Python default)
            signature[p] = "constexpr"
            constexprs[p] = v.config.constexprs[p]
        elif e.is_constexpr:
            signature[p] = "constexpr"
            constexprs[p] = e.constexpr_value()
        elif e.hint == 1:
            # `:1` folds the value 1 into the kernel, as Triton's JIT and tools/compile.py do.
            signature[p] = "constexpr"
            constexprs[p] = 1
        else:
            # A descriptor's block shape may be the config's (its pre_hook's), not the signature's.
            signature[p] = with_block(e.type, v.descriptor_blocks[p]) if p in v.descriptor_blocks else e.type
            if e.hint == 16:
                div16.append(i)
    # enable_fp_fusion is always given: Triton's own default differs between versions
    options = {"num_warps": v.config.num_warps, "num_stages": v.config.num_stages,
               "num_ctas": v.config.num_ctas, "enable_fp_fusion": DEFAULT_FP_FUSION}
    options.update(v.config.options)
    payload = {"source_path": str(bk.spec.source_path), "function": bk.spec.function,
               "signature": signature, "constexprs": constexprs, "div16": div16, "options": options,
               "target": {"backend": target.backend, "arch": target.arch, "warp_size": target.warp_size},
               "image_arch": target.image_arch, "generic": generic}
    if bk.spec.stubs:  # only then: the cache keys of specs without stubs stay as they were
        payload["stubs"] = bk.spec.stubs
    return payload


def plan_jobs(kernels: List[BoundKernel], closures: Dict[str, str], tver: str) -> List[Job]:
    jobs = []
    env = compile_env()  # the TRITON_* knobs that change the output (tritonenv.py)
    for bk in kernels:
        ks = bk.spec
        cuda = [t for t in ks.targets if t.backend == "cuda"]
        generic_cap = min((t.arch for t in cuda), default=None)
        need_generic = ks.mode in ("ir", "both") and generic_cap is not None and generic_cap >= 90
        for vi in range(len(bk.variants)):
            todo = [(t, False) for t in ks.targets]
            if need_generic:
                todo.append((Target("cuda", generic_cap, 32), True))
            for t, generic in todo:
                payload = _worker_payload(bk, vi, t, generic)
                key = _sha({"gen": generator_fingerprint(), "triton": tver, "env": env,
                            "closure": closures[str(ks.source_path)], **payload})
                jobs.append(Job(key=key, kernel=bk, variant_index=vi, target=t, generic=generic, payload=payload))
    return jobs


# ---------------------------------------------------------------------------------------- output

def _differs(dst: Path, data: bytes) -> bool:
    try:
        return not (dst.stat().st_size == len(data) and dst.read_bytes() == data)
    except OSError:
        return True


def _write_if_changed(dst: Path, data: bytes) -> bool:
    if not _differs(dst, data):
        return False  # unchanged files keep their mtime, so build systems do not re-pack
    _atomic_write(dst, data)
    return True


_EXT = {"cubin": "cubin", "ptx": "ptx", "hsaco": "hsaco", "llir": "llir"}
_KINDS_BY_MODE = {"binary": ("cubin", "hsaco"), "ir": ("ptx", "llir"), "both": ("cubin", "ptx", "hsaco", "llir")}


def assemble(spec: Spec, kernels: List[BoundKernel], jobs: List[Job], out_dir: Path, cache_dir: Path,
             tver: str, outcome: Outcome) -> dict:
    by_kernel: Dict[int, List[Job]] = {}
    for j in jobs:
        by_kernel.setdefault(id(j.kernel), []).append(j)
    files: Dict[str, bytes] = {}
    mkernels = []
    modes = set()
    for bk in kernels:
        ks = bk.spec
        modes.add(ks.mode)
        kinds = _KINDS_BY_MODE[ks.mode]
        kjobs = by_kernel.get(id(bk), [])
        ok = [j for j in kjobs if j.result and j.result.get("ok")]
        # --- const inference, over every compilation of every variant
        stored = set()
        for j in ok:
            flags = j.result.get("stored")
            params = bk.variants[j.variant_index].kernel_params
            if flags is None or len(flags) != len(params):
                stored |= set(params)  # cannot map the TTIR arguments: treat all as written
                outcome.warnings.append(f"{j.label}: could not match the TTIR arguments to the parameters; "
                                        f"pointers marked non-const")
            else:
                stored |= {p for p, w in zip(params, flags) if w}
        args = []
        for a in bk.args:
            a = dict(a)
            if "const" in a:
                a["const"] = bk.explicit_const.get(a["name"], False) or (bool(ok) and a["name"] not in stored)
            args.append(a)
        # --- variants and images
        generic_cap = min((t.arch for t in ks.targets if t.backend == "cuda"), default=None)
        mvariants = []
        for vi, v in enumerate(bk.variants):
            images = []
            vjobs = [j for j in kjobs if j.variant_index == vi]
            vjobs.sort(key=lambda j: j.generic)  # generic PTX last
            for j in vjobs:
                if not (j.result and j.result.get("ok")):
                    continue
                res = j.result
                arch = res["arch"]
                stem = f"{bk.name}/v{vi}/{j.target.backend}_{arch.replace(':', '_')}"
                meta_rel = f"{stem}.json"
                files[meta_rel] = read_result_file(cache_dir, j, res["files"]["metadata"])
                for kind in ("cubin", "ptx", "hsaco", "llir"):
                    if kind not in res["files"] or (kind not in kinds and not j.generic):
                        continue
                    rel = f"{stem}.{_EXT[kind]}"
                    files[rel] = read_result_file(cache_dir, j, res["files"][kind])
                    img = {"file": rel, "backend": j.target.backend, "kind": kind, "arch": arch}
                    if kind == "ptx":
                        img["arch"] = res.get("ptx_target") or arch
                        img["ptx_version"] = res["ptx_version"]
                    img["metadata"] = meta_rel
                    # Which ptxas assembled a cubin, which LLVM generated a code object: only
                    # where Triton says (provenance.py); the packer stores them per image.
                    tool_key = {"cubin": "ptxas_version", "hsaco": "llvm_version"}.get(kind)
                    if tool_key and res.get(tool_key):
                        img[tool_key] = res[tool_key]
                    if kind == "ptx" and (j.generic or (generic_cap is not None and generic_cap < 90
                                                        and j.target.arch == generic_cap)):
                        img["generic_ptx"] = True
                    images.append(img)
            mv = {"signature": v.signature, "specs": v.specs, "config": v.config.manifest(),
                  "kernel_params": v.kernel_params, "images": images}
            if v.descriptor_blocks:
                mv["descriptor_blocks"] = dict(v.descriptor_blocks)
            mvariants.append(mv)
        mk = {"name": bk.name, "source": ks.source, "source_hash": file_sha256(ks.source_path),
              "args": args, "grid": bk.grid, "variants": mvariants}
        if bk.tuning is not None:
            mk["tuning"] = {k: v for k, v in bk.tuning.items() if k != "warnings"}
        mkernels.append(mk)
    mode = modes.pop() if len(modes) == 1 else "both"
    manifest = {"schema": "tritonpack-manifest", "version": 1, "generator": GENERATOR, "triton_version": tver}
    commit = triton_commit()  # only where the installation records one
    if commit:
        manifest["triton_commit"] = commit
    manifest.update({"name": spec.name, "mode": mode, "kernels": mkernels})
    outcome.manifest = manifest
    return files


def _write_output(out_dir: Path, files: Dict[str, bytes], manifest: dict) -> int:
    out_dir.mkdir(parents=True, exist_ok=True)
    old = set()
    mpath = out_dir / "manifest.json"
    try:
        prev = json.loads(mpath.read_text())
        for k in prev.get("kernels", []):
            for v in k.get("variants", []):
                for img in v.get("images", []):
                    old.add(img.get("file"))
                    old.add(img.get("metadata"))
    except (OSError, ValueError, AttributeError):
        pass
    changed = [rel for rel, data in files.items() if _differs(out_dir / rel, data)]
    stale = old - set(files) - {None}
    if changed or stale:
        # The old manifest describes the old images: a run stopped half-way through replacing
        # them (a signal) must not leave it behind, pointing at a mix.
        try:
            mpath.unlink()
        except OSError:
            pass
    for rel in changed:
        _atomic_write(out_dir / rel, files[rel])
    written = len(changed)
    # Remove what an earlier run wrote and this one does not (renamed kernels, dropped targets).
    for rel in stale:
        p = (out_dir / rel)
        if out_dir.resolve() in p.resolve().parents and p.is_file():
            p.unlink()
            for parent in p.parents:
                if parent == out_dir or not parent.is_dir() or any(parent.iterdir()):
                    break
                parent.rmdir()
    _write_if_changed(mpath, (json.dumps(manifest, indent=2) + "\n").encode())
    return written


def write_depfile(depfile: Path, spec: Spec, out_dir: Path):
    """Make-style depfile (`manifest: spec sources...`) for build systems (CMake DEPFILE, Ninja):
    the kernel files and every local module they import."""
    from .sources import source_closure_files
    deps = [spec.path.resolve()]
    for ks in spec.kernels:
        for f in source_closure_files(ks.source_path):
            if f not in deps:
                deps.append(f)
    esc = lambda p: str(p).replace("\\", "\\\\").replace(" ", "\\ ").replace("#", "\\#")  # noqa: E731
    text = f"{esc((out_dir / 'manifest.json').resolve())}: " + " \\\n  ".join(esc(d) for d in deps) + "\n"
    _write_if_changed(Path(depfile), text.encode())


def compile_spec(spec_path, out_dir, jobs: Optional[int] = None, targets=None, mode=None,
                 cache_dir=None, use_cache: bool = True, quiet: bool = False, stream=None,
                 depfile=None, time_limit: Optional[float] = None, notice_after: float = 30.0,
                 targets_from: str = "--targets") -> Outcome:
    """`targets_from`: where `targets` came from, as messages about them name it.
    `time_limit`: seconds per image (None: $TRITONPACK_COMPILE_TIME_LIMIT, else 600; 0: none).
    `notice_after`: seconds before a "still compiling" line. SIGTERM, SIGINT and SIGHUP stop the
    run (interrupt.Interrupted) with every worker killed and no manifest written."""
    t0 = time.time()
    stream = stream or sys.stdout
    if time_limit is None:
        time_limit = time_limit_from_env()
    limits = Limits(time_limit=time_limit or None, notice_after=notice_after,
                    limit_hint=f"raise it with --time-limit SECONDS or ${TIME_LIMIT_ENV} (0: no limit)")
    with stop_on_signals():
        tver = triton_version()
        check_supported(tver)
        spec = load_spec(spec_path, target_override=targets, mode_override=mode, targets_from=targets_from)
        out_dir = Path(out_dir)
        tmp_cache = None
        if use_cache:
            cache_dir = Path(cache_dir) if cache_dir else default_cache_dir()
        else:
            sweep_orphans(Path(tempfile.gettempdir()), NOCACHE_PREFIX)
            tmp_cache = tempfile.mkdtemp(prefix=orphan_prefix(NOCACHE_PREFIX))
            cache_dir = Path(tmp_cache)
        try:
            outcome = _compile(spec, out_dir, jobs, cache_dir, tver, quiet, stream, t0, limits,
                               targets_from if targets else None)
            if depfile:
                write_depfile(Path(depfile), spec, out_dir)
            return outcome
        finally:
            if tmp_cache:
                shutil.rmtree(tmp_cache, ignore_errors=True)


def prepare(spec: Spec, tver: str, cache_dir: Optional[Path], stream=None):
    """Introspect (cached) and bind every kernel of `spec`: all spec checks happen here, before
    anything compiles. Returns (bound kernels, {source path: closure hash})."""
    stream = stream or sys.stdout
    closures: Dict[str, str] = {}
    kernels: List[BoundKernel] = []
    names = {}
    for ks in spec.kernels:
        sp = str(ks.source_path)
        if sp not in closures:
            closures[sp] = source_closure_hash(ks.source_path)
        info = _introspect(spec, ks, closures[sp], tver, cache_dir)
        bk = bind_kernel(spec, ks, info)
        for w in (bk.tuning or {}).get("warnings", []):
            stream.write(f"warning: {w}\n")
        if bk.name in names:
            raise SpecError(spec.path, f"C++ name '{bk.name}' is already used by kernel {names[bk.name]}; set "
                            f"`name` to make it unique", ks.label, "name")
        names[bk.name] = f"[{ks.index}]"
        kernels.append(bk)
    return kernels, closures


def _compile(spec, out_dir, jobs, cache_dir, tver, quiet, stream, t0, limits, overridden) -> Outcome:
    """`overridden`: where the targets that replace the spec's came from ("--targets"), or None."""
    kernels, closures = prepare(spec, tver, cache_dir, stream)
    feature_notes = sorted({str(t.arch) + ":" + ":".join(t.features) for bk in kernels
                            for t in bk.spec.targets if t.features})
    for n in feature_notes:
        stream.write(f"note: {n}: Triton emits feature-neutral code objects (xnack/sramecc 'any'); "
                     f"they run with any feature setting and are recorded as {n.split(':')[0]}\n")

    all_jobs = plan_jobs(kernels, closures, tver)
    outcome = Outcome(manifest=None)
    misses = []
    for j in all_jobs:
        res = cache_lookup(cache_dir, j)
        if res is not None:
            j.result, j.cached = res, True
        else:
            misses.append(j)
    outcome.cached = len(all_jobs) - len(misses)
    progress = Progress(len(misses), stream=stream, quiet=quiet)
    if misses:
        check_buildable(spec, misses, tver, cache_dir, overridden)
        clear_logs(out_dir / LOG_DIR)
        choice = None if jobs else default_jobs()
        nproc = jobs or choice.jobs
        if not quiet:
            if choice and choice.lowered and choice.jobs < len(misses):
                progress.message(f"note: {choice.note()}")
            progress.message(f"compiling {len(misses)} of {len(all_jobs)} kernel images "
                             f"({outcome.cached} cached) with {min(nproc, len(misses))} worker(s), Triton {tver}")
        try:
            run_jobs(misses, nproc, cache_dir, progress, limits, out_dir / LOG_DIR)
        finally:
            progress.close()
    outcome.compiled = len(misses)

    for j in all_jobs:
        res = j.result or {"ok": False, "error": "not compiled"}
        for w in res.get("warnings", []):
            outcome.warnings.append(f"{j.label}: {w}")
        if res.get("ok"):
            if not j.generic and j.target.backend == "cuda":
                _check_ptx_params(j, res, outcome)
            continue
        sig = j.kernel.variants[j.variant_index].signature
        tname = f"generic PTX sm_{j.target.arch}" if j.generic else str(j.target)
        msg = f"kernel '{j.kernel.name}' (variant {j.variant_index}: \"{sig}\"), target {tname}: {res.get('error')}"
        if j.generic:
            outcome.warnings.append(msg + " (the arch-specific images are still produced)")
        else:
            outcome.failures.append(msg)

    files = assemble(spec, kernels, all_jobs, out_dir, cache_dir, tver, outcome)
    if outcome.failures:
        # No manifest from a partial build: the packer must not silently ship fewer images.
        try:
            (out_dir / "manifest.json").unlink()
        except OSError:
            pass
        outcome.manifest = None
    else:
        problems = check_manifest(outcome.manifest, base_dir=None)
        if problems:  # a front-end bug, not a user error: say so plainly
            raise TritonpackError("internal error: the manifest does not follow docs/manifest.md:\n  "
                                  + "\n  ".join(problems))
        _write_output(out_dir, files, outcome.manifest)
    outcome.seconds = time.time() - t0
    return outcome


def _check_ptx_params(job: Job, res: dict, outcome: Outcome):
    """The ABI check of docs/triton-abi.md §1: the entry takes the kernel_params plus Triton's two
    scratch pointers. (Tensor descriptors expand into several parameters, so kernels with them are
    left to the packer's per-image check.)"""
    bk = job.kernel
    if any(a["type"].startswith("tensordesc") for a in bk.args):
        return
    want = len(bk.variants[job.variant_index].kernel_params) + 2
    got = res.get("entry_params")
    if got is not None and got != want:
        outcome.failures.append(f"kernel '{bk.name}' variant {job.variant_index}, target {job.target}: the PTX "
                                f"entry has {got} parameters, expected {want} (kernel_params + 2 scratch "
                                f"pointers): Triton's launch ABI differs from the one tritonpack knows")
