"""Which GPUs the installed Triton can compile for, asked of its own tools (targets.py decides).

- LLVM: the processors of Triton's bundled LLVM for a triple, as LLVM itself lists them for
  `-mcpu=help` (MCSubtargetInfo prints "Available CPUs for this target" to stderr, once per
  process; Triton's `llvm.translate_to_asm` takes the CPU name, so an empty module compiled
  for CPU "help" prints the list).
- ptxas: the `--gpu-name` values that the ptxas Triton runs accepts, from `ptxas --help`
  ("Allowed values for this option"). Triton picks the binaries through its knobs
  (TRITON_PTXAS_PATH, TRITON_PTXAS_BLACKWELL_PATH, else the bundled ones), so the query asks
  the knobs rather than guessing the paths.

- ptxas per capability: which of the two ptxas binaries Triton's NVIDIA backend runs for each
  capability, from its own `get_ptxas` (triton_support.ptxas_tools).
- AMD: whether the AMD backend compiles for each gfx processor of the LLVM list. The rule
  (libtriton's ISA families) is not exposed to Python and differs between Triton versions, and
  for some processors LLVM aborts the process, so a small kernel is compiled for each processor
  in child processes (`hip-probe`); a child that dies marks the processor it was compiling as
  failed, and a new child goes on with the rest.

Each query runs in a child process (the LLVM list is printed only once per process, and the
parent need not import Triton). The answers are cached in the compile cache, keyed by Triton's
version, the files and variables that decide them (triton_support.toolchain_inputs) and the code
of this module and of triton_support.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional

from .atomicfile import atomic_write
from .errors import TritonpackError
from .targets import is_gfx_name
from .triton_support import toolchain_inputs
from .tritonenv import KEYED_ENV

TRIPLES = {"cuda": "nvptx64-nvidia-cuda", "hip": "amdgcn-amd-amdhsa"}
_CPU_LINE_RE = re.compile(r"^\s+(\S+)\s+- Select the (\S+) processor\.$")


def parse_llvm_cpus(text: str) -> List[str]:
    return sorted({m.group(1) for m in map(_CPU_LINE_RE.match, text.splitlines()) if m and m.group(1) == m.group(2)})


def parse_ptxas_gpu_names(help_text: str) -> List[str]:
    """The sm_* values of `--gpu-name` in `ptxas --help`."""
    at = help_text.find("--gpu-name")
    m = re.search(r"Allowed values for this option:\s*(.*?)\.\s*$", help_text[at:], re.S | re.M) if at >= 0 else None
    return sorted(v for v in re.findall(r"'([^']+)'", m.group(1)) if v.startswith("sm_")) if m else []


# ---------------------------------------------------------------------------------------- the child

_EMPTY_MODULE = "define void @f() {\n  ret void\n}\n"


def _child_main(backend: str) -> None:
    from triton._C.libtriton import llvm

    from . import triton_support
    llvm.init_targets()
    sys.stderr.flush()
    codegen = triton_support.amd_codegen() if backend == "hip" else None
    if codegen is not None:
        # AMD code generation runs in its own library (its LLVM lists its own processors)
        try:
            codegen(_EMPTY_MODULE, TRIPLES[backend], "help")
        except RuntimeError:
            pass  # the list is printed; the empty module need not compile
    else:
        triton_support.translate_to_asm(llvm, _EMPTY_MODULE, TRIPLES[backend], "help", "", [], False, False)
    info: Dict[str, object] = {}
    if backend == "cuda":
        from triton import knobs
        for name in triton_support.PTXAS_TOOLS:
            try:
                tool = getattr(knobs.nvidia, name)
                text = subprocess.run([tool.path, "--help"], capture_output=True, text=True).stdout
                info[name] = {"path": tool.path, "version": tool.version, "gpu_names": parse_ptxas_gpu_names(text)}
            except (RuntimeError, OSError) as e:  # Triton's "Cannot find ptxas"
                info[name] = {"error": str(e)}
        tools = triton_support.ptxas_tools(range(_MIN_CAP, _MAX_CAP + 1))
        # where the tool changes, as [[from capability, tool], ...]
        info["ptxas_from"] = [[c, t] for c, t in sorted(tools.items()) if tools.get(c - 1) != t]
    sys.stdout.write(json.dumps(info) + "\n")


_MIN_CAP, _MAX_CAP = 10, 999   # the capabilities a target name can spell (targets.py: two or three digits)


def _probe_main(names: List[str]) -> None:
    """For each gfx name: "try NAME", then "ok NAME" or "fail NAME WHY" on stdout, compiling
    `_probe_kernel.store_one` for it. What the compilation prints goes to a file per name, read
    back for WHY."""
    import tempfile
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="tritonpack-triton-cache-")
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from ._probe_kernel import store_one
    from .targets import parse_target
    from .triton_support import DEFAULT_FP_FUSION
    for name in names:
        sys.stdout.write(f"try {name}\n")
        sys.stdout.flush()
        with tempfile.TemporaryFile(mode="w+") as log:
            sys.stderr.flush()
            saved = os.dup(2)
            os.dup2(log.fileno(), 2)
            try:
                src = ASTSource(fn=store_one, signature={"x": "*fp32", "BLOCK": "constexpr"}, constexprs={"BLOCK": 64})
                triton.compile(src, target=GPUTarget("hip", name, parse_target(name).warp_size),
                               options={"enable_fp_fusion": DEFAULT_FP_FUSION})
                why = None
            except Exception as e:
                why = f"{type(e).__name__}: {e}"
            finally:
                sys.stderr.flush()
                os.dup2(saved, 2)
                os.close(saved)
            if why is not None:
                log.seek(0)
                errors = re.findall(r"error: (.*)", log.read())
                why = errors[0].strip() if errors else why.splitlines()[0]
        sys.stdout.write(f"ok {name}\n" if why is None else f"fail {name} {why}\n")
        sys.stdout.flush()


# ---------------------------------------------------------------------------------------- the parent

def _triton_dir() -> Optional[Path]:
    spec = importlib.util.find_spec("triton")
    locs = list(spec.submodule_search_locations or []) if spec else []
    return Path(locs[0]) if locs else None


def _cache_key(backend: str, triton_version: str) -> str:
    h = hashlib.sha256(f"{backend}:{triton_version}".encode())
    here = Path(__file__).resolve().parent
    for module in ("toolchain.py", "triton_support.py", "_probe_kernel.py"):
        h.update((here / module).read_bytes())
    files, env = toolchain_inputs(_triton_dir(), backend)
    for var, value in sorted(env.items()):
        h.update(f"{var}={value}".encode())
    for f in files:
        try:
            st = f.stat()
            h.update(f"{f}:{st.st_size}:{st.st_mtime_ns}".encode())
        except OSError:
            h.update(f"{f}:missing".encode())
    return h.hexdigest()


def _child_env(probe: bool = False) -> Dict[str, str]:
    """The environment of a child: this package on PYTHONPATH; for `hip-probe`, without the
    variables that change what Triton compiles (TRITON_OVERRIDE_ARCH, dumps, ...) other than
    those naming the tools (toolchain_inputs), so that it asks what Triton itself supports."""
    env = dict(os.environ)
    if probe:
        keep = set(toolchain_inputs(None, "hip")[1])
        for name in KEYED_ENV:
            if name not in keep:
                env.pop(name, None)
    pkg_root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = pkg_root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _start(backend: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tritonpack_compile.toolchain", backend], env=_child_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _failure(what: str, command: str, proc_out: str, proc_err: str, rc: int) -> TritonpackError:
    tail = "\n  ".join((proc_err or proc_out or f"exit status {rc}").strip().splitlines()[-5:])
    return TritonpackError(f"could not ask Triton {what} ({sys.executable} -m tritonpack_compile.toolchain "
                           f"{command}):\n  {tail}")


def _finish(backend: str, proc: subprocess.Popen) -> dict:
    out, err = proc.communicate()
    cpus = parse_llvm_cpus(err)
    try:
        info = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        info = None
    if proc.returncode or info is None or not cpus:
        raise _failure(f"which {backend} targets it can compile", backend, out, err, proc.returncode)
    info["llvm_cpus"] = cpus
    if backend == "hip":
        info["amd_probe"] = _probe_amd([c for c in cpus if is_gfx_name(c)])
    return info


def _probe_amd(names: List[str]) -> Dict[str, Optional[str]]:
    """{gfx: None when Triton's AMD backend compiles for it, else why not}, from `hip-probe`
    children: one runs until it has answered for every name or dies; a death fails the name
    it was compiling, and the next child starts after it."""
    result: Dict[str, Optional[str]] = {}
    todo = list(names)
    while todo:
        proc = subprocess.run([sys.executable, "-m", "tritonpack_compile.toolchain", "hip-probe", *todo],
                              env=_child_env(probe=True), capture_output=True, text=True)
        trying = None
        for line in proc.stdout.splitlines():
            word, _, rest = line.partition(" ")
            name, _, why = rest.partition(" ")
            if word == "try":
                trying = name
            elif word in ("ok", "fail") and name == trying:
                result[name] = None if word == "ok" else (why or "failed")
                trying = None
        if trying is not None and proc.returncode:
            lines = [ln.strip() for ln in proc.stderr.splitlines() if ln.strip()]
            errs = [ln for ln in lines if "error" in ln.lower() or "Cannot select" in ln]
            why = (errs or lines or [""])[-1][:200]
            result[trying] = f"the compiler process died ({_exit_text(proc.returncode)}{': ' + why if why else ''})"
        done = [n for n in todo if n in result]
        if not done:  # the child answered nothing: it cannot start
            raise _failure("which AMD processors its backend compiles for", "hip-probe ...", proc.stdout,
                           proc.stderr, proc.returncode)
        todo = [n for n in todo if n not in result]
    return result


def _exit_text(rc: int) -> str:
    if rc < 0:
        try:
            return f"killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"killed by signal {-rc}"
    return f"exit status {rc}"


def toolchain_facts(backends, triton_version: str, cache_dir: Optional[Path]) -> Dict[str, dict]:
    """Per backend ("cuda", "hip"): {"llvm_cpus": [...]}; for cuda also "ptxas" and
    "ptxas_blackwell", each {"path", "version" (CUDA's), "gpu_names": [sm_...]} or {"error"}, and
    "ptxas_from": [[capability, "ptxas" or "ptxas_blackwell"], ...], the tool Triton runs from that
    capability on; for hip also "amd_probe": {gfx: None or why the AMD backend cannot compile
    for it}. The backends not in the cache are asked at the same time."""
    facts: Dict[str, dict] = {}
    paths = {}
    for b in sorted(set(backends)):
        paths[b] = cache_dir / "toolchain" / f"{b}-{_cache_key(b, triton_version)}.json" if cache_dir else None
        try:
            facts[b] = json.loads(paths[b].read_text())
        except (AttributeError, OSError, ValueError):
            pass  # not cached (or no cache)
    running = {b: _start(b) for b in paths if b not in facts}
    try:
        for b, proc in running.items():
            facts[b] = _finish(b, proc)
            if paths[b]:
                atomic_write(paths[b], json.dumps(facts[b]).encode())
    finally:
        for proc in running.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return facts


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] in TRIPLES:
        _child_main(sys.argv[1])
    elif len(sys.argv) >= 2 and sys.argv[1] == "hip-probe":
        _probe_main(sys.argv[2:])
