"""One compilation (kernel x variant x target) in a worker process.

Runs in processes spawned by pool.py (`python -m tritonpack_compile.worker --serve`), never
forked: LLVM/MLIR state and Triton's caches must not be shared with a forked parent. Every job
gets a private, throw-away TRITON_CACHE_DIR: the front end has its own cache, and the generic-PTX
compile below patches Triton in a way its cache key does not see, so sharing Triton's cache could
hand one compile's output to the other.

The result is a JSON-able dict; the artifacts are written into `job["out_dir"]` (a staging folder
the parent moves into the cache). Failures are returned, not raised: a short summary (the error
itself, compilelog.py) in the result, and everything the compilation printed (Triton's PTX dump
on a ptxas failure, MLIR diagnostics, ptxas's log) in the job's log file, never on the terminal.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

from .compilelog import read_log, summarize_exception
from .provenance import amd_llvm_version, ptxas_version

_PTX_VERSION_RE = re.compile(r"^\s*\.version\s+(\d+\.\d+)", re.M)
_PTX_TARGET_RE = re.compile(r"^\s*\.target\s+(sm_\w+)", re.M)
_PTX_ENTRY_RE = re.compile(r"\.entry\s+([A-Za-z_$][\w$]*)\s*\(([^)]*)\)", re.S)


def ptx_facts(ptx: str) -> dict:
    """`.version`, `.target` and the entry's parameter count, read from the PTX text."""
    v = _PTX_VERSION_RE.search(ptx)
    t = _PTX_TARGET_RE.search(ptx)
    e = _PTX_ENTRY_RE.search(ptx)
    return {"ptx_version": v.group(1) if v else None,
            "ptx_target": t.group(1).split(",")[0] if t else None,
            "entry": e.group(1) if e else None,
            "entry_params": len(re.findall(r"\.param\b", e.group(2))) if e else None}


def _constexpr_value(v):
    if isinstance(v, str) and v.startswith("tl."):
        import triton.language as tl
        obj = getattr(tl, v[3:], None)
        if isinstance(obj, tl.dtype):
            return obj
    return v


@contextlib.contextmanager
def _generic_cuda_arch():
    """Make Triton's NVIDIA backend target the generic `sm_XY` instead of `sm_XYa`.

    Triton hard-codes the `a` suffix for capability >= 90 in `sm_arch_from_capability`
    (used for the LLVM processor, the PTX `.target` and ptxas `--gpu-name`); there is no option
    for it. With the patch, ptxas assembles the PTX for the generic target as part of the normal
    pipeline, and ptxas rejects any arch-specific instruction (wgmma, setmaxnreg, tcgen05...) on a
    non-`a` target: a compile that succeeds is therefore proof that the PTX is valid generic PTX.
    """
    import triton.backends.nvidia.compiler as nvc
    orig = nvc.sm_arch_from_capability
    nvc.sm_arch_from_capability = lambda capability: f"sm_{capability}"
    try:
        yield
    finally:
        nvc.sm_arch_from_capability = orig


def portable_source_name(file_name: str, roots) -> str:
    """`file_name` relative to the first of `roots` (folders, most specific first) that holds it,
    as a POSIX path; unchanged when none does (or it is not absolute)."""
    p = Path(file_name)
    if not p.is_absolute():
        return file_name
    for root in roots:
        try:
            return p.relative_to(root).as_posix()
        except ValueError:
            continue
    return file_name


@contextlib.contextmanager
def _portable_source_locations(kernel_file: Path):
    """Record source locations relative to the kernel's folder (its file and its neighbours) or to
    the import path entry that holds them (Triton's own `triton/language/standard.py`).

    Triton takes a kernel's location from its function's `co_filename`, an absolute path, and
    writes it into the debug line information of the PTX (`.file`), the cubin, the LLVM IR
    (`DIFile`) and the code object, so the same kernel compiled in two folders, or with Triton in
    two virtual environments, would give different images. Relative names keep the line information
    (profilers still map instructions to `kernels.py:12`) and make the images depend on the
    sources only (docs/manifest.md, "Reproducible output"). Triton 3.6 and 3.7 look locations up
    through `get_jit_fn_file_line`; 3.8 and later read each function's `file_name` attribute (set
    from `co_filename` when the function is decorated), which is seen through a class property
    here for the duration of the compile. A release with neither is not patched, and
    tests/python/test_reproducible.py fails with it."""
    import triton.compiler.code_generator as cg
    import triton.runtime.jit as rj
    roots = [kernel_file.resolve().parent]
    roots += sorted({Path(e).resolve() for e in sys.path if e and Path(e).is_dir()},
                    key=lambda r: len(r.parts), reverse=True)
    patched = []
    for mod in (cg, rj):
        orig = getattr(mod, "get_jit_fn_file_line", None)
        if orig is None:
            continue

        def portable(fn, _orig=orig):
            name, line = _orig(fn)
            return portable_source_name(name, roots), line

        mod.get_jit_fn_file_line = portable
        patched.append((mod, orig))
    # 3.8+: JITCallable.__init__ stores `self.file_name`. A data descriptor on the class takes
    # precedence over the instance's dict, so every function (the kernel, its callees, Triton's own
    # standard library) reads as portable while the property is installed, and as before after.
    callable_class = getattr(rj, "JITCallable", None)
    has_file_name = callable_class is not None and "file_name" not in vars(callable_class)
    if has_file_name:
        def get(self):
            name = self.__dict__.get("file_name")
            return portable_source_name(name, roots) if name else name

        def put(self, value):
            self.__dict__["file_name"] = value

        callable_class.file_name = property(get, put)
    try:
        yield
    finally:
        for mod, orig in patched:
            mod.get_jit_fn_file_line = orig
        if has_file_name:
            del callable_class.file_name


def _compile(job, cap_override=None):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from .introspect import load_kernel
    jit, _ = load_kernel(Path(job["source_path"]), job["function"], job.get("stubs"))
    constexprs = {k: _constexpr_value(v) for k, v in job["constexprs"].items()}
    attrs = {(i,): [["tt.divisibility", 16]] for i in job["div16"]}
    job["gluon"] = _is_gluon(jit)  # for _describe's hint
    source_class = _gluon_source_class() if job["gluon"] else ASTSource
    src = source_class(fn=jit, signature=dict(job["signature"]), constexprs=constexprs, attrs=attrs)
    t = job["target"]
    arch = cap_override if cap_override is not None else t["arch"]
    target = GPUTarget(t["backend"], arch, t["warp_size"])
    with _portable_source_locations(Path(job["source_path"])):
        return triton.compile(src, target=target, options=dict(job["options"]))


def _is_gluon(jit) -> bool:
    # JITFunction.is_gluon() exists in Triton 3.6-3.9; a @gluon.jit function answers True.
    is_gluon = getattr(jit, "is_gluon", None)
    return bool(is_gluon()) if callable(is_gluon) else False


def _gluon_source_class():
    """Gluon kernels (@gluon.jit) are compiled from a GluonASTSource: ASTSource would run the
    tl front end on them and fail. It lives in triton.experimental.gluon._runtime in 3.6-3.9
    (exported from triton.experimental.gluon only from 3.9)."""
    try:
        from triton.experimental.gluon._runtime import GluonASTSource
    except ImportError:
        from triton.experimental.gluon import GluonASTSource  # a later release may move it
    return GluonASTSource


def _metadata_text(k) -> str:
    # Triton's own JSON file, verbatim (the packer reads launch facts from it).
    for name, p in k.metadata_group.items():
        if name.endswith(".json") and not name.startswith("__grp__"):
            return Path(p).read_text()
    return json.dumps(k.metadata._asdict(), default=vars)


@contextlib.contextmanager
def _output_to(log_path):
    """Everything written to file descriptors 1 and 2 (Python, LLVM, MLIR, ptxas: Triton runs
    ptxas with inherited descriptors) goes to `log_path` for the duration."""
    if not log_path:
        yield
        return
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for f in (fd, *saved):
            os.close(f)


def run_job(job: dict) -> dict:
    t0 = time.time()
    with _output_to(job.get("log")):
        result = _run_job(job)
    result["seconds"] = round(time.time() - t0, 3)
    return result


def _run_job(job: dict) -> dict:
    out = Path(job["out_dir"])
    tmp_cache = tempfile.mkdtemp(prefix="tritonpack-triton-cache-")
    os.environ["TRITON_CACHE_DIR"] = tmp_cache
    result = {"key": job["key"], "ok": False, "files": {}, "warnings": []}
    try:
        out.mkdir(parents=True, exist_ok=True)
        backend = job["target"]["backend"]
        if job.get("generic"):
            result.update(_run_generic(job, out))
        else:
            k = _compile(job)
            (out / "metadata.json").write_text(_metadata_text(k))
            result["files"]["metadata"] = "metadata.json"
            if backend == "cuda":
                (out / "image.cubin").write_bytes(k.asm["cubin"])
                (out / "image.ptx").write_text(k.asm["ptx"])
                result["files"].update(cubin="image.cubin", ptx="image.ptx")
                result.update(ptx_facts(k.asm["ptx"]))
                result["ptxas_version"] = ptxas_version(job["target"]["arch"])
            else:
                (out / "image.hsaco").write_bytes(k.asm["hsaco"])
                (out / "image.llir").write_text(k.asm["llir"])
                result["files"].update(hsaco="image.hsaco", llir="image.llir")
                result["llvm_version"] = amd_llvm_version(k.asm["hsaco"])
            result["arch"] = job["image_arch"]
            result["name"] = k.metadata.name
            result["num_ttir_args"], result["stored"] = _constness(k, job)
            result["ok"] = True
    except (Exception, SystemExit) as e:  # the parent prints it with kernel and target
        result["error"] = _describe(e, job)
    finally:
        shutil.rmtree(tmp_cache, ignore_errors=True)
    return result


def _generic_attempt(job, out, cap, patch) -> dict:
    with (_generic_cuda_arch() if patch else contextlib.nullcontext()):
        k = _compile(job, cap_override=cap)
    facts = ptx_facts(k.asm["ptx"])
    if facts["ptx_target"] != f"sm_{cap}":  # the patch did not take: never ship it as generic
        raise RuntimeError(f"PTX target is {facts['ptx_target']}, not the generic sm_{cap}")
    (out / "metadata.json").write_text(_metadata_text(k))
    (out / "image.ptx").write_text(k.asm["ptx"])
    res = {"ok": True, "files": {"metadata": "metadata.json", "ptx": "image.ptx"},
           "arch": f"sm_{cap}", "name": k.metadata.name, "warnings": []}
    res.update(facts)
    res["num_ttir_args"], res["stored"] = _constness(k, job)
    return res


def _run_generic(job, out) -> dict:
    """Forward-compatible PTX for a capability >= 90: generic sm_XY (see _generic_cuda_arch).

    That attempt runs in a child process: when the kernel needs arch-specific instructions (a
    Hopper wgmma dot, say), LLVM does not raise but aborts the process ("Cannot select:
    intrinsic %llvm.nvvm.wgmma..."). If it fails, fall back to sm_80 PTX, which the driver can
    JIT for every GPU of capability 8.0 and later, when the config allows it (num_ctas == 1)."""
    cap = job["target"]["arch"]
    env = dict(os.environ)
    pkg_root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = pkg_root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    child_job = dict(job, out_dir=str(out))
    proc = subprocess.run([sys.executable, "-m", "tritonpack_compile.worker", "--generic-child"],
                          input=json.dumps(child_job), capture_output=True, text=True, env=env)
    sys.stderr.write(proc.stderr)  # into the job's log
    res = None
    if proc.returncode == 0:
        try:
            res = json.loads(proc.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            res = None
    if res and res.get("ok"):
        return res
    if res and res.get("error"):
        why = res["error"].splitlines()[0]
    else:
        lines = [ln for ln in (proc.stderr or "").splitlines() if ln.strip()]
        errs = [ln for ln in lines if "ERROR" in ln or "error" in ln]
        why = (errs or lines or [f"exit status {proc.returncode}"])[-1].strip()
    if cap > 80 and job["options"].get("num_ctas", 1) == 1:
        try:
            res = _generic_attempt(job, out, 80, patch=False)
        except Exception as e:
            return {"ok": False, "error": f"no generic PTX: sm_{cap}: {why}; sm_80: {_describe(e, job).splitlines()[0]}"}
        res["warnings"].append(f"generic sm_{cap} PTX impossible ({why}); shipped sm_80 PTX instead")
        return res
    return {"ok": False, "error": f"no generic PTX for sm_{cap}: {why}"}


def _generic_child_main():
    job = json.loads(sys.stdin.read())
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="tritonpack-triton-cache-")
    try:
        res = _generic_attempt(job, Path(job["out_dir"]), job["target"]["arch"], patch=True)
    except Exception as e:
        res = {"ok": False, "error": _describe(e, job)}
    finally:
        shutil.rmtree(os.environ["TRITON_CACHE_DIR"], ignore_errors=True)
    sys.stdout.write("\n" + json.dumps(res) + "\n")


def _constness(k, job):
    from .constness import stored_args
    # Gluon compiles have no TTIR stage: their first stage is TTGIR (same tt.func form, layouts
    # added; ops the walk does not know count as writes, so the answer stays conservative).
    ir = k.asm.get("ttir") or k.asm.get("ttgir", "")
    flags = stored_args(ir, k.metadata.name)
    return (len(flags) if flags is not None else None), flags


def _describe(e: BaseException, job: dict) -> str:
    """The error as the terminal shows it (bounded), from the exception and the job's log so far;
    the full traceback goes to the log."""
    traceback.print_exception(type(e), e, e.__traceback__, file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    log = read_log(Path(job["log"])) if job.get("log") else ""
    text = summarize_exception(e, log, Path(job["source_path"]))
    if job.get("gluon"):
        text += ("\n  (a Gluon kernel is written for one GPU family: its layouts fix the warp size "
                 "and the instructions; list in `targets` only those it was written for)")
    return text


def serve(lifeline_fd: int) -> None:
    """The worker loop: a job per line on stdin, its result per line on stdout, until stdin ends.

    First the watchdog: a process of this worker's process group that waits for the end of the
    lifeline pipe, whose write end only the front end holds. When the front end dies, even by
    SIGKILL, the pipe ends and the watchdog kills the group: this worker and the ptxas or
    generic-PTX child it runs. (A thread would not do: it cannot run while LLVM holds the GIL.)
    Between jobs, descriptors 1 and 2 stay on the worker's own log (pool.py), so nothing a
    worker prints reaches the terminal.
    """
    subprocess.Popen(["/bin/sh", "-c", "cat >/dev/null; kill -s KILL 0"], stdin=lifeline_fd,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(lifeline_fd)
    results = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    for line in sys.stdin:
        results.write(json.dumps(run_job(json.loads(line))) + "\n")
        results.flush()


if __name__ == "__main__":
    if sys.argv[1:] == ["--generic-child"]:
        _generic_child_main()
    elif len(sys.argv) == 3 and sys.argv[1] == "--serve":
        serve(int(sys.argv[2]))
