"""What built an image: the Triton commit, the ptxas of a cubin, the LLVM of an AMD code object.

Each fact is read from where the installed Triton itself records it, never inferred from the
version number; a release that records nothing gets nothing (None), and the manifest then omits
the key (docs/manifest.md, "Provenance").
"""
from __future__ import annotations

import json
import re
import subprocess
from typing import Optional

_HEX_COMMIT = re.compile(r"^[0-9a-f]{7,40}$")
_LOCAL_GIT = re.compile(r"\+git([0-9a-f]{7,40})\b")
_PTXAS_BUILD = re.compile(r"\bV(\d+\.\d+\.\d+)\b")
# LLD writes its version and the llvm-project commit it was built from into `.comment`.
_LLD_COMMENT = re.compile(rb"Linker: LLD (\d+\.\d+\.\d+\w*) \(\S+ ([0-9a-f]{40})\)")


def triton_commit() -> Optional[str]:
    """The git commit of the installed Triton where its installation records one: pip's
    `direct_url.json` of a VCS install (`vcs_info.commit_id`), or a `+git<hash>` local label of
    the distribution's version (a source build). The 3.6.0-3.9.0 release wheels record neither."""
    from importlib import metadata
    try:
        dist = metadata.distribution("triton")
    except metadata.PackageNotFoundError:
        return None
    try:
        direct = json.loads(dist.read_text("direct_url.json") or "null")
    except ValueError:
        direct = None
    commit = ((direct or {}).get("vcs_info") or {}).get("commit_id") if isinstance(direct, dict) else None
    if isinstance(commit, str) and _HEX_COMMIT.match(commit):
        return commit
    m = _LOCAL_GIT.search(dist.version or "")
    return m.group(1) if m else None


def ptxas_version(capability: int) -> Optional[str]:
    """The version of the ptxas Triton's NVIDIA backend runs for `capability` (its `get_ptxas`,
    which honours TRITON_PTXAS_PATH and TRITON_PTXAS_BLACKWELL_PATH): the build number
    `ptxas --version` prints ("12.8.93"), else the release Triton read from it ("12.8")."""
    try:
        import triton.backends.nvidia.compiler as nvc
        tool = nvc.get_ptxas(capability)
    except Exception:  # no NVIDIA backend, or no ptxas: nothing to record
        return None
    try:
        out = subprocess.run([tool.path, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        out = ""
    m = _PTXAS_BUILD.search(out)
    if m:
        return m.group(1)
    release = getattr(tool, "version", None)
    return release if isinstance(release, str) and release else None


def amd_llvm_version(hsaco: bytes) -> Optional[str]:
    """The LLVM that generated an AMD code object. From Triton 3.9 that is a separate code
    generator library, which reports its pinned revision and build number
    (`get_amd_codegen_revision`, "6bc4aaf6...-1"); before, it is Triton's own LLVM, whose linker
    (LLD, the same build) names its version and commit in the code object's `.comment`
    ("22.0.0 (f6ded0be...)")."""
    try:
        import triton.backends.amd.compiler as amdc
    except Exception:
        amdc = None
    revision_of = getattr(amdc, "get_amd_codegen_revision", None)
    if revision_of is not None:
        try:
            revision = revision_of()
        except Exception:
            return None
        return revision if isinstance(revision, str) and revision and revision != "unknown" else None
    m = _LLD_COMMENT.search(hsaco)
    return f"{m.group(1).decode()} ({m.group(2).decode()})" if m else None
