"""Stopping on a signal: SIGTERM (`timeout`, CI cancellation, batch schedulers), SIGINT (Ctrl-C)
and SIGHUP (a closed terminal) raise `Interrupted` in the main thread, so that every `finally`
runs: compile workers and their children are killed, temporary files removed, and no manifest
is written. The command line then exits with 128 + the signal number, as a shell does.
"""
from __future__ import annotations

import contextlib
import signal
import threading

STOP_SIGNALS = tuple(s for s in (getattr(signal, n, None) for n in ("SIGINT", "SIGTERM", "SIGHUP")) if s)


class Interrupted(BaseException):
    """Not an Exception: no `except Exception` on the way may swallow it."""

    def __init__(self, signum: int):
        self.signum = signum
        super().__init__(signal.Signals(signum).name)

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name

    @property
    def exit_status(self) -> int:
        return 128 + self.signum


@contextlib.contextmanager
def stop_on_signals():
    """Turn the stop signals into `Interrupted` for the duration (main thread only: Python runs
    signal handlers there; elsewhere this does nothing). Once one has arrived, further ones are
    ignored until the context ends, so the clean-up is not cut short."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    stopping = []

    def handler(signum, _frame):
        if stopping:
            return
        stopping.append(signum)
        raise Interrupted(signum)

    # A signal ignored when we started (nohup; `&` in a script ignores SIGINT) stays ignored.
    previous = {s: signal.signal(s, handler) for s in STOP_SIGNALS if signal.getsignal(s) is not signal.SIG_IGN}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
