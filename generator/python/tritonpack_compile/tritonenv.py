"""The environment variables that change what Triton compiles: part of every compile cache key.

Read without importing Triton (a no-op run must not pay for that import), so the names are listed
here: those of every supported Triton (3.6 to 3.9) together.

- TRITON_CACHE_ENV is Triton's own choice: the set that `get_cache_invalidating_env_vars()`
  (libtriton, include/triton/Tools/Sys/GetEnv.hpp) reads and `triton.compile` puts into its cache
  key, whatever they do (dumps and timings included: Triton keys them, so do we), as far as every
  supported Triton keys them. A name that only newer ones key is in EXTRA_ENV.
- EXTRA_ENV are knobs (triton/knobs.py) that change the output but reach Triton's key only through
  something this front end cannot compute without importing Triton (the option hash: PTXAS_OPTIONS,
  TRITON_LIBDEVICE_PATH; the backend hash: the ptxas version), or not at all (TRITON_MOCK_PTX_VERSION,
  TRITON_INSTRUMENTATION_MODE, ...). For paths the path is keyed, not the file it names.
- With TRITON_KERNEL_OVERRIDE on, Triton replaces IR stages by the files of its override
  directory; their names and contents are keyed too.

tests/python/test_tritonenv.py checks the lists against the installed Triton: every name of
TRITON_CACHE_ENV must be one Triton keys, every knob of triton.knobs must be listed here or in
IGNORED_KNOBS, and a new Triton version fails that test until this file is brought up to date.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Dict

TRITON_CACHE_ENV = (
    "ALLOW_LHS_TMEM_LAYOUT_CONVERSION", "AMDGCN_ENABLE_DUMP", "AMDGCN_USE_BUFFER_ATOMICS",
    "AMDGCN_USE_BUFFER_OPS", "DISABLE_LLVM_OPT", "DISABLE_MMA_V3", "DISABLE_MMA_V5",
    "DISABLE_PTXAS_OPT", "LLVM_ENABLE_TIMING", "LLVM_EXTRACT_DI_LOCAL_VARIABLES",
    "LLVM_IR_ENABLE_DUMP", "LLVM_PASS_PLUGIN_PATH", "MLIR_DISABLE_MULTITHREADING", "MLIR_DUMP_PATH",
    "MLIR_ENABLE_DIAGNOSTICS", "MLIR_ENABLE_DUMP", "MLIR_ENABLE_TIMING", "NVPTX_ENABLE_DUMP",
    "TRITON_DEFAULT_FP_FUSION", "TRITON_DISABLE_LINE_INFO", "TRITON_DUMP_MIR", "TRITON_ENABLE_ASAN",
    "TRITON_ENABLE_EXPERIMENTAL_CONSAN", "TRITON_ENABLE_LLVM_DEBUG", "TRITON_F32_DEFAULT",
    "TRITON_HIP_USE_ASYNC_COPY", "TRITON_HIP_USE_BLOCK_PINGPONG", "TRITON_HIP_USE_IN_THREAD_TRANSPOSE",
    "TRITON_LLVM_DEBUG_ONLY", "TRITON_OVERRIDE_ARCH", "USE_IR_LOC",
)

EXTRA_ENV = (
    "PTXAS_OPTIONS", "TRITON_PTXAS_PATH", "TRITON_PTXAS_BLACKWELL_PATH", "TRITON_LIBDEVICE_PATH",
    "TRITON_MOCK_PTX_VERSION", "TRITON_INSTRUMENTATION_MODE", "TRITON_ALLOW_NON_CONSTEXPR_GLOBALS",
    "AMDGCN_ANALYZE_SMALL_TENSOR_RANGE", "AMDGCN_SCALARIZE_PACKED_FOPS",
    "TRITON_KERNEL_OVERRIDE",
    # keyed by Triton from 3.8 (the two schedulers) and 3.9 (fp fusion)
    "TRITON_HIP_USE_COEXEC_SCHEDULER", "TRITON_HIP_USE_EXPERT_SCHEDULING", "TRITON_FORCE_DISABLE_FP_FUSION",
    # AMD: replace the MIR (3.7, 3.8), or the code-generation library (3.9)
    "TRITON_SWAP_MIR", "TRITON_SWAP_MIR_ENABLE_MISCHED", "TRITON_AMD_CODEGEN_PATH",
)

# Knobs of triton.knobs that do not change the images this front end keeps, and why.
IGNORED_KNOBS = {
    # where Triton keeps its own cache, dumps and hooks: each job has a private TRITON_CACHE_DIR
    "TRITON_CACHE_DIR": "cache location", "TRITON_DUMP_DIR": "dump location",
    "TRITON_HOME": "locates caches and override files (their contents are keyed)",
    "TRITON_OVERRIDE_DIR": "locates the override files (their contents are keyed)",
    "TRITON_CACHE_MANAGER": "cache backend", "TRITON_REMOTE_CACHE_BACKEND": "cache backend",
    "TRITON_ALWAYS_COMPILE": "Triton's cache only", "TRITON_STORE_BINARY_ONLY": "Triton's cache only",
    "TRITON_KERNEL_DUMP": "writes IR dumps",
    "TRITON_DUMP_PTXAS_LOG": "prints", "TRITON_FRONT_END_DEBUGGING": "error messages only",
    "TRITON_CACHE_AUTOTUNING": "autotuning at run time", "TRITON_PRINT_AUTOTUNING": "autotuning at run time",
    "TRITON_REDIS_KEY_FORMAT": "cache backend", "TRITON_REDIS_HOST": "cache backend",
    "TRITON_REDIS_PORT": "cache backend",
    # launching, not compiling (the front end calls triton.compile with explicit options)
    "TRITON_INTERPRET": "JIT launches only", "TRITON_DEBUG": "JIT launches only (the option comes from the spec)",
    "TRITON_LIBCUDA_PATH": "launching", "TRITON_LIBHIP_PATH": "launching",
    "CC": "builds Triton's launcher", "TRITON_CUDACRT_PATH": "builds Triton's launcher",
    "TRITON_CUDART_PATH": "builds Triton's launcher",
    "TRITON_CUOBJDUMP_PATH": "disassembly only", "TRITON_NVDISASM_PATH": "disassembly only",
    "TRITON_PROTON_DISABLE": "profiler", "TRITON_CUPTI_LIB_PATH": "profiler", "TRITON_ENABLE_NVTX": "profiler",
    "TRITON_CUPTI_LIB_BLACKWELL_PATH": "profiler", "TRITON_ENABLE_HW_TRACE": "profiler",
    "TRITON_PROFILE_BUFFER_SIZE": "profiler", "TRITON_PROFILE_METRIC_BUFFER_SIZE": "profiler",
    "TRITON_ROCPROFILER_SDK_INCLUDE_PATH": "profiler", "TRITON_ROCPROFILER_SDK_LIB_PATH": "profiler",
    "TRITON_ROCPROFILER_SDK_LIBRARY": "profiler", "TRITON_ROCTRACER_LIBRARY": "profiler",
    "TRITON_ROCTRACER_LIB_PATH": "profiler", "TRITON_ROCTX_LIBRARY": "profiler", "TRITON_ROCTX_LIB_PATH": "profiler",
    "TRITON_HSA_RUNTIME_LIBRARY": "profiler", "TRITON_HSA_RUNTIME_PATH": "profiler",
    "TRITON_FPSAN_HOMOMORPHIC_CASTS": "JIT launches only (read by the JIT into its options)",
}

KEYED_ENV = TRITON_CACHE_ENV + EXTRA_ENV


def _override_dir() -> Path:
    d = os.environ.get("TRITON_OVERRIDE_DIR")
    if d:
        return Path(d)
    return Path(os.environ.get("TRITON_HOME") or os.path.expanduser("~/")) / ".triton" / "override"


def _tree_hash(root: Path) -> str:
    h = hashlib.sha256()
    if root.is_dir():
        for p in sorted(root.rglob("*")):
            if p.is_file():
                h.update(str(p.relative_to(root)).encode() + b"\0")
                h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def compile_env() -> Dict[str, str]:
    """The keyed variables that are set, with their values (plus the override files' hash when
    TRITON_KERNEL_OVERRIDE is set). Empty in the usual case."""
    env = {k: os.environ[k] for k in KEYED_ENV if k in os.environ}
    if "TRITON_KERNEL_OVERRIDE" in env:  # any value: "0" costs only a hash
        env["<override files>"] = _tree_hash(_override_dir())
    return env
