"""Files written whole or not at all (a reader, or a run stopped half-way, never sees half)."""
from __future__ import annotations

import os
import secrets
from pathlib import Path

# O_NOFOLLOW where the platform has it (POSIX); O_EXCL alone already refuses an existing link.
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def atomic_write(path: Path, data: bytes) -> None:
    """Write to a new temporary file of a random name next to `path`, then rename it over `path`.
    The temporary is created with O_CREAT | O_EXCL | O_NOFOLLOW (as tempfile.mkstemp does, but with
    the umask's mode, as the file it replaces had): a name another user could predict and plant a
    symbolic link at would let them choose what the write overwrites. The temporary is removed on
    any failure, a stopping signal (interrupt.Interrupted) included."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(8):
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
        try:
            fd = os.open(tmp, _NEW_FILE, 0o666)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(f"{path.parent}: no free temporary name for {path.name}")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise
