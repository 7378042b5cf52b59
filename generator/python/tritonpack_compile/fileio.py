"""Paths the user names, checked before anything compiles, and file-system failures in words.

A directory given where a file belongs (or the reverse) would otherwise surface after the
compile, as a Python traceback; a failed write would say "[Errno 13]". The checks here run first
and name the path, what was expected and the option it came from; `describe_os_error` turns a
failure that still happens later (a full disk, a race) into one line that says why and what to do.
"""
from __future__ import annotations

import errno
import os
from pathlib import Path

from .errors import TritonpackError


def is_a_directory(path, expected: str) -> str:
    return f"{path} is a directory; expected {expected}"


def _nearest_existing(path: Path) -> Path:
    for p in [path, *path.parents]:
        if os.path.lexists(p):
            return p
    return Path(".")


def check_output_dir(path, what: str) -> None:
    """`path` is, or can be created as, a directory the user may write to. `what` says where the
    path came from ("-o ARTIFACT_DIR", "--cache-dir"). Creates nothing."""
    path = Path(path)
    at = _nearest_existing(path)
    if not at.is_dir():
        if at == path:
            raise TritonpackError(f"{path} is a file; expected a directory ({what})")
        raise TritonpackError(f"cannot create the directory {path}: {at} is a file ({what})")
    if not os.access(at, os.W_OK | os.X_OK):
        raise TritonpackError(f"cannot write to {path}: {at}: {os.strerror(errno.EACCES)} ({what}: choose another "
                              f"directory, or make this one writable)")


def check_output_file(path, what: str) -> None:
    """`path` can be written as a file: not a directory, and its directory exists or can be made."""
    path = Path(path)
    if path.is_dir():
        raise TritonpackError(is_a_directory(path, f"a file to write ({what})"))
    check_output_dir(path.parent, what)


_REMEDY = {
    errno.EACCES: "choose a directory you may write to (-o, --cache-dir, --depfile), or fix its permissions",
    errno.EPERM: "choose a directory you may write to (-o, --cache-dir, --depfile), or fix its permissions",
    errno.EROFS: "choose a directory on a writable file system (-o, --cache-dir, --depfile)",
    errno.ENOSPC: "free some space, or choose another file system (-o, --cache-dir)",
    errno.EDQUOT: "free some space, or choose another file system (-o, --cache-dir)",
    errno.ENOTDIR: "a part of the path is a file, not a directory",
    errno.EISDIR: "a directory stands where a file should be written; remove it or choose another path",
}


def describe_os_error(e: OSError) -> str:
    """One line for a file-system failure: the path(s), the reason, and what to do."""
    where = str(e.filename) if e.filename is not None else "a file"
    if e.filename2 is not None:
        where = f"{where} -> {e.filename2}"
    why = e.strerror or str(e)
    remedy = _REMEDY.get(e.errno)
    return f"{where}: {why}" + (f" ({remedy})" if remedy else "")
