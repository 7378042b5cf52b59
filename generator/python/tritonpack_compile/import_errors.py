"""How a kernel file that fails to import is reported: at the user's line, as a compiler would.

The file is executed by importlib, so the innermost frames of the traceback are Python's import
machinery (`<frozen importlib._bootstrap>`, line 241) and, for an error raised inside a decorator,
Triton's own code. Neither is where the user must look. A SyntaxError carries its own location;
any other exception is placed at the innermost frame of the user's code (the kernel file and
the local modules it imports: anything outside Python's and the installed packages' directories).

    kernels.py:12:12: SyntaxError: invalid syntax
        def broken(:
                   ^
"""
from __future__ import annotations

import linecache
import sysconfig
import traceback
from pathlib import Path
from typing import List, Optional


def display_path(path) -> str:
    """`path` relative to the working directory when it lies below it (as the user typed it, most
    likely), else absolute: either way a path an editor or terminal can open."""
    p = Path(path)
    try:
        return str(p.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(p)


def _library_dirs() -> List[Path]:
    dirs = {Path(__file__).resolve().parent}  # the front end itself
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            dirs.add(Path(sysconfig.get_path(key)).resolve())
        except (KeyError, TypeError, OSError):
            pass
    return sorted(dirs)


def _is_user_file(filename: str, library_dirs: List[Path]) -> bool:
    if not filename or filename.startswith("<"):  # <frozen importlib._bootstrap>, <string>
        return False
    p = Path(filename).resolve()
    if "site-packages" in p.parts or "dist-packages" in p.parts:  # Triton, wherever it is installed
        return False
    return not any(d == p or d in p.parents for d in library_dirs)


def _excerpt(text: Optional[str], column: Optional[int]) -> List[str]:
    """The source line, indented by four, and a caret under 1-based `column` (if known)."""
    if not text:
        return []
    line = text.rstrip("\r\n").expandtabs(1)
    stripped = line.lstrip()
    out = ["    " + stripped]
    if column:  # Python puts "unexpected indent" inside the indentation: show it at the line's start
        at = max(column - 1 - (len(line) - len(stripped)), 0)
        if at <= len(stripped):
            out.append("    " + " " * at + "^")
    return out


def describe_import_failure(exc: BaseException, path) -> str:
    """`file:line:col: Type: message`, the offending line, and where the user's own code imported
    it from when that is another file. `path` is the kernel file that was being imported."""
    if isinstance(exc, SyntaxError) and exc.filename and exc.lineno:
        # IndentationError and TabError included; `msg` is the bare message, `offset` 1-based.
        where = f"{display_path(exc.filename)}:{exc.lineno}" + (f":{exc.offset}" if exc.offset else "")
        text = exc.text if exc.text is not None else linecache.getline(exc.filename, exc.lineno)
        return "\n".join([f"{where}: {type(exc).__name__}: {exc.msg}"] + _excerpt(text, exc.offset))
    library_dirs = _library_dirs()
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if _is_user_file(f.filename, library_dirs)]
    head = f"{type(exc).__name__}: {exc}"
    if not frames:  # raised before any line of the user's code ran (unreadable file, say)
        return f"{display_path(path)}: {head}"
    last = frames[-1]
    column = last.colno + 1 if getattr(last, "colno", None) is not None else None
    lines = [f"{display_path(last.filename)}:{last.lineno}" + (f":{column}" if column else "") + f": {head}"]
    lines += _excerpt(linecache.getline(last.filename, last.lineno), column)
    for outer in reversed(frames[:-1]):
        if outer.filename != last.filename:
            lines.append(f"(imported from {display_path(outer.filename)}:{outer.lineno})")
            break
    return "\n".join(lines)

