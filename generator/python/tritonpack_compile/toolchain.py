"""Which GPUs the installed Triton can compile for, asked of its own tools (targets.py decides).

- LLVM: the processors of Triton's bundled LLVM for a triple, as LLVM itself lists them for
  `-mcpu=help` (MCSubtargetInfo prints "Available CPUs for this target" to stderr, once per
  process; Triton's `llvm.translate_to_asm` takes the CPU name, so an empty module compiled
  for CPU "help" prints the list).
- ptxas: the `--gpu-name` values that the ptxas Triton runs accepts, from `ptxas --help`
  ("Allowed values for this option"). Triton picks the binaries through its knobs
  (TRITON_PTXAS_PATH, TRITON_PTXAS_BLACKWELL_PATH, else the bundled ones), so the query asks
  the knobs rather than guessing the paths.

Each query runs in a child process (the LLVM list is printed only once per process, and the
parent need not import Triton). The answers are cached in the compile cache, keyed by Triton's
version, the files asked (libtriton, ptxas) and this module's code.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional

from .atomicfile import atomic_write
from .errors import TritonpackError

TRIPLES = {"cuda": "nvptx64-nvidia-cuda", "hip": "amdgcn-amd-amdhsa"}
_PTXAS_ENV = ("TRITON_PTXAS_PATH", "TRITON_PTXAS_BLACKWELL_PATH")
_CPU_LINE_RE = re.compile(r"^\s+(\S+)\s+- Select the (\S+) processor\.$")


def parse_llvm_cpus(text: str) -> List[str]:
    return sorted({m.group(1) for m in map(_CPU_LINE_RE.match, text.splitlines()) if m and m.group(1) == m.group(2)})


def parse_ptxas_gpu_names(help_text: str) -> List[str]:
    """The sm_* values of `--gpu-name` in `ptxas --help`."""
    at = help_text.find("--gpu-name")
    m = re.search(r"Allowed values for this option:\s*(.*?)\.\s*$", help_text[at:], re.S | re.M) if at >= 0 else None
    return sorted(v for v in re.findall(r"'([^']+)'", m.group(1)) if v.startswith("sm_")) if m else []


# ---------------------------------------------------------------------------------------- the child

def _child_main(backend: str) -> None:
    from triton._C.libtriton import llvm
    llvm.init_targets()
    sys.stderr.flush()
    llvm.translate_to_asm("define void @f() {\n  ret void\n}\n", TRIPLES[backend], "help", "", [], False, False)
    info: Dict[str, object] = {}
    if backend == "cuda":
        from triton import knobs
        for name in ("ptxas", "ptxas_blackwell"):
            try:
                tool = getattr(knobs.nvidia, name)
                text = subprocess.run([tool.path, "--help"], capture_output=True, text=True).stdout
                info[name] = {"path": tool.path, "version": tool.version, "gpu_names": parse_ptxas_gpu_names(text)}
            except (RuntimeError, OSError) as e:  # Triton's "Cannot find ptxas"
                info[name] = {"error": str(e)}
    sys.stdout.write(json.dumps(info) + "\n")


# ---------------------------------------------------------------------------------------- the parent

def _triton_dir() -> Optional[Path]:
    spec = importlib.util.find_spec("triton")
    locs = list(spec.submodule_search_locations or []) if spec else []
    return Path(locs[0]) if locs else None


def _cache_key(backend: str, triton_version: str) -> str:
    h = hashlib.sha256(f"{backend}:{triton_version}".encode())
    h.update(Path(__file__).read_bytes())
    tdir = _triton_dir()
    files = [tdir / "_C" / "libtriton.so"] if tdir else []
    if backend == "cuda":
        if tdir:
            files += [tdir / "backends" / "nvidia" / "bin" / n for n in ("ptxas", "ptxas-blackwell")]
        for var in _PTXAS_ENV:
            h.update(f"{var}={os.environ.get(var)}".encode())
            if os.environ.get(var):
                files.append(Path(os.environ[var]))
    for f in files:
        try:
            st = f.stat()
            h.update(f"{f}:{st.st_size}:{st.st_mtime_ns}".encode())
        except OSError:
            h.update(f"{f}:missing".encode())
    return h.hexdigest()


def _start(backend: str) -> subprocess.Popen:
    env = dict(os.environ)
    pkg_root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = pkg_root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return subprocess.Popen([sys.executable, "-m", "tritonpack_compile.toolchain", backend], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finish(backend: str, proc: subprocess.Popen) -> dict:
    out, err = proc.communicate()
    cpus = parse_llvm_cpus(err)
    try:
        info = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        info = None
    if proc.returncode or info is None or not cpus:
        tail = "\n  ".join((err or out or f"exit status {proc.returncode}").strip().splitlines()[-5:])
        raise TritonpackError(f"could not ask Triton which {backend} targets it can compile "
                              f"({sys.executable} -m tritonpack_compile.toolchain {backend}):\n  {tail}")
    info["llvm_cpus"] = cpus
    return info


def toolchain_facts(backends, triton_version: str, cache_dir: Optional[Path]) -> Dict[str, dict]:
    """Per backend ("cuda", "hip"): {"llvm_cpus": [...]}, for cuda also "ptxas" and
    "ptxas_blackwell", each {"path", "version" (CUDA's), "gpu_names": [sm_...]} or {"error"}.
    The backends not in the cache are asked at the same time."""
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


if __name__ == "__main__" and len(sys.argv) == 2 and sys.argv[1] in TRIPLES:
    _child_main(sys.argv[1])
