"""What a failed compilation says: a few relevant lines for the terminal, everything in a log file.

A compile worker sends all its output (Triton's prints, MLIR diagnostics, ptxas's log, LLVM's
messages) to a per-job log file. On a ptxas failure Triton prints the whole PTX (hundreds of
thousands of lines for a big kernel) and puts ptxas's complete log into the exception; on an MLIR
failure the exception says only "PassManager::run failed" and the reason is a diagnostic in the
output. The summary is therefore: the exception's first line, then the lines that state an error
(from the exception, else from the log), a bounded number of them, each of bounded length.
"""
from __future__ import annotations

import re
import traceback
from pathlib import Path
from typing import Iterable, List, Optional

MAX_DIAGNOSTICS = 6       # error lines shown per failure
MAX_LINE = 300            # characters per shown line
MAX_MESSAGE_LINES = 16    # a short message (Triton's source excerpt with its caret) is shown whole

# ptxas: "ptxas error   : ...", "ptxas fatal   : ..."; MLIR: "file.py:13:0: error: ...";
# LLVM: "LLVM ERROR: ..."; Python and assertion failures inside the C++ code.
_DIAGNOSTIC_RE = re.compile(r"\b(error|fatal)\b\s*:|LLVM ERROR|Assertion .* failed|Cannot select", re.I)
# Lines that repeat what the headline says or point at temporary files that no longer exist.
_NOISE_RE = re.compile(r"^(Repro command:|please share the reproducer)", re.I)


def _clip(line: str) -> str:
    line = line.rstrip()
    return line if len(line) <= MAX_LINE else line[:MAX_LINE] + " [...]"


def diagnostic_lines(lines: Iterable[str], skip: Iterable[str] = ()) -> List[str]:
    """The lines that state an error, in order, without repeats (nor the `skip` ones)."""
    seen = {s.strip() for s in skip}
    out = []
    for ln in lines:
        s = ln.strip()
        if s and s not in seen and _DIAGNOSTIC_RE.search(s) and not _NOISE_RE.match(s):
            seen.add(s)
            out.append(s)
    return out


def _bounded(lines: List[str], what: str) -> List[str]:
    if len(lines) <= MAX_DIAGNOSTICS:
        return [_clip(s) for s in lines]
    return [_clip(s) for s in lines[:MAX_DIAGNOSTICS]] + [f"... {len(lines) - MAX_DIAGNOSTICS} more {what}"]


def user_frame(exc: BaseException, source_path: Optional[Path]) -> Optional[str]:
    """`file.py:LINE` of the last traceback frame in the kernel's own file, if any (an exception
    raised by the user's code, e.g. a heuristics function, rather than by Triton)."""
    if source_path is None:
        return None
    want = Path(source_path).resolve()
    hit = None
    for fr in traceback.extract_tb(exc.__traceback__):
        try:
            if Path(fr.filename).resolve() == want:
                hit = fr
        except OSError:
            continue
    return f"{want.name}:{hit.lineno} (in {hit.name})" if hit else None


def summarize(headline: str, message_rest: List[str], log_text: str, where: Optional[str] = None) -> str:
    """The terminal text of one failure: `headline` (exception type and first message line), the
    rest of the message when short, else its error lines, else the log's error lines."""
    out = [_clip(headline)]
    if where and where not in headline:
        out.append(f"at {where}")
    rest = [ln.rstrip() for ln in message_rest if not _NOISE_RE.match(ln.strip())]
    while rest and not rest[-1].strip():
        rest.pop()
    if rest and len(rest) + 1 <= MAX_MESSAGE_LINES:
        out.extend(_clip(ln) for ln in rest)
        return "\n".join(out)
    diags = diagnostic_lines(rest, skip=[headline])
    if diags:
        out.extend(_bounded(diags, "error lines (see the log)"))
    else:
        logged = diagnostic_lines(log_text.splitlines(), skip=[headline])
        out.extend(_bounded(logged, "error lines (see the log)"))
    return "\n".join(out)


def summarize_exception(exc: BaseException, log_text: str, source_path: Optional[Path] = None) -> str:
    msg = str(exc).strip()
    name = type(exc).__name__
    if not msg:
        # An assertion inside Triton has no message; the last frame says where it came from.
        tb = traceback.extract_tb(exc.__traceback__)
        where = f" at {Path(tb[-1].filename).name}:{tb[-1].lineno}" if tb else ""
        return summarize(f"{name}{where}", [], log_text, user_frame(exc, source_path))
    first, *rest = msg.splitlines()
    return summarize(f"{name}: {first}", rest, log_text, user_frame(exc, source_path))


def summarize_log(headline: str, log_text: str) -> str:
    """For a compilation that ended without an exception to report (killed, crashed)."""
    return summarize(headline, [], log_text)


def read_log(path: Path, head: int = 4 << 20, tail: int = 1 << 20) -> str:
    """A log's beginning (the first errors) and end (a crash's last words), not all of it: a
    runaway compilation may write gigabytes."""
    try:
        with open(path, "rb") as f:
            size = f.seek(0, 2)
            f.seek(0)
            if size <= head + tail:
                return f.read().decode("utf-8", "replace")
            first = f.read(head)
            f.seek(size - tail)
            last = f.read()
    except OSError:
        return ""
    return (first.decode("utf-8", "replace") + f"\n[... {size - head - tail} bytes ...]\n"
            + last.decode("utf-8", "replace"))
