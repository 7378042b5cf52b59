"""Whether a compile-cache entry may be used: the checks the run time makes of its JIT cache
(include/tritonpack/runtime/jit_cache.hpp), for the front end's cache of compile results.

A cache directory may sit where others can write (a shared scratch, a home another user can
reach). An entry is used only when its folder and files are ours and no one else may change them,
every file it names lies inside it (a plain name: no '/', not '.' or '..') and is a regular file
(opened without following a symbolic link) of bounded size, and every file's SHA-256 is the one
result.json recorded when the entry was stored. Anything else is a miss: compiled again, never
packed. The checks are made on the opened descriptors (fstat), so the file checked is the file
read."""

import hashlib
import os
import stat
from pathlib import Path
from typing import Optional

# No cubin, PTX or IR is near this; a file above it is not a compile result.
MAX_ENTRY_FILE = 4 << 30
MAX_RESULT_JSON = 16 << 20


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def plain_name(name) -> bool:
    """A file name inside an entry: not a path, not '.' or '..'."""
    return isinstance(name, str) and name not in ("", ".", "..") and "/" not in name and "\0" not in name


def untrusted_dir(path: Path) -> str:
    """Why the folder `path` cannot hold trusted entries, or ""."""
    try:
        st = os.lstat(path)
    except OSError as e:
        return f"cannot stat {path}: {e.strerror}"
    if not stat.S_ISDIR(st.st_mode):
        return f"{path} is not a directory (a symbolic link?)"
    if st.st_uid != os.geteuid():
        return f"{path} is owned by uid {st.st_uid}, not by this user (uid {os.geteuid()})"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not st.st_mode & stat.S_ISVTX:
        return f"{path} is writable by its group or others (mode {stat.S_IMODE(st.st_mode):04o})"
    return ""


def read_trusted(path: Path, max_size: int) -> Optional[bytes]:
    """The bytes of `path` when it is a regular file of ours that no one else may write, at most
    `max_size` bytes; None otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if (not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid()
                or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) or st.st_size > max_size):
            return None
        chunks, left = [], max_size + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        return data if len(data) <= max_size else None
    except OSError:
        return None
    finally:
        os.close(fd)


def entry_file(entry: Path, res: dict, name) -> Optional[bytes]:
    """File `name` of the entry at `entry` whose result is `res`, when it is what was stored."""
    hashes = res.get("sha256")
    if not plain_name(name) or not isinstance(hashes, dict) or not isinstance(hashes.get(name), str):
        return None
    data = read_trusted(entry / name, MAX_ENTRY_FILE)
    if data is None or sha256(data) != hashes[name]:
        return None
    return data
