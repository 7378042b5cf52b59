"""Progress display: one line per finished compilation; on a terminal also a live status line."""
from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, total: int, stream=None, quiet: bool = False):
        self.total = total
        self.done = 0
        self.stream = stream or sys.stdout
        self.quiet = quiet
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.start = time.time()
        self._status_shown = False

    def _clear_status(self):
        if self.tty and self._status_shown:
            self.stream.write("\r\x1b[K")
            self._status_shown = False

    def status(self, remaining: int):
        """Redraw the live status line (terminals only; pipes and CI logs get plain lines)."""
        if not self.tty or self.quiet:
            return
        self._clear_status()
        self.stream.write(f"[{self.done}/{self.total}] {remaining} to go, {time.time() - self.start:.1f}s elapsed")
        self.stream.flush()
        self._status_shown = True

    def finished(self, what: str, seconds: float, state: str, note: str = ""):
        """state: "ok", "warn" (optional output missing) or "FAIL"."""
        self.done += 1
        if self.quiet and state == "ok":
            return
        self._clear_status()
        width = len(str(self.total))
        state = f"{state:<4}"
        extra = f"  ({note})" if note else ""
        self.stream.write(f"[{self.done:>{width}}/{self.total}] {state} {what}  {seconds:.1f}s{extra}\n")
        self.stream.flush()

    def message(self, text: str):
        self._clear_status()
        self.stream.write(text + "\n")
        self.stream.flush()

    def close(self):
        self._clear_status()
        self.stream.flush()
