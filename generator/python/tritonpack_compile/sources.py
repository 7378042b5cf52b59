"""Hashes of kernel source files and of the local modules they import.

The incremental build keys every compilation on the source it came from. A kernel file often
imports helpers (`from common import load_tile`) whose @triton.jit functions are inlined into the
kernel, so the key also covers local modules: any `import X` / `from X import ...` that resolves to
X.py or X/__init__.py next to the importing file (recursively). Imports of installed packages
(triton itself, numpy...) are not followed: the Triton version is part of the key separately.
"""
from __future__ import annotations

import ast
import hashlib
from pathlib import Path
from typing import Dict, List


def file_sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _local_imports(path: Path) -> List[Path]:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (SyntaxError, UnicodeDecodeError, OSError):
        return []  # the import of the kernel file reports the real problem later
    base = path.parent
    found = []
    for node in ast.walk(tree):
        mods = []
        if isinstance(node, ast.Import):
            mods = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            mods = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        for mod in mods:
            rel = Path(*mod.split("."))
            for cand in (base / rel.with_suffix(".py"), base / rel / "__init__.py"):
                if cand.is_file():
                    found.append(cand.resolve())
    return found


def _closure(path: Path) -> Dict[Path, str]:
    seen: Dict[Path, str] = {}
    todo = [path]
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen[p] = file_sha256(p)
        todo.extend(_local_imports(p))
    return seen


def source_closure_files(path: Path) -> List[Path]:
    """The file and the local modules it imports, transitively (for depfiles)."""
    path = Path(path).resolve()
    return [path] + sorted(p for p in _closure(path) if p != path)


def source_closure_hash(path: Path) -> str:
    """sha256 over the file and, in a stable order, every local module it imports (transitively)."""
    path = Path(path).resolve()
    seen = _closure(path)
    h = hashlib.sha256()
    h.update(seen[path].encode())
    for p in sorted(k for k in seen if k != path):
        h.update(f"\n{p}:{seen[p]}".encode())
    return h.hexdigest()
