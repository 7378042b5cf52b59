"""Files written whole or not at all (a reader, or a run stopped half-way, never sees half)."""
from __future__ import annotations

import os
from pathlib import Path


def atomic_write(path: Path, data: bytes) -> None:
    """Write to a temporary name next to `path`, then rename it over `path`. The temporary file
    is removed on any failure, a stopping signal (interrupt.Interrupted) included."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise
