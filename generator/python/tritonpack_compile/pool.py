"""Compile workers: processes that the front end can stop at any moment, with everything they started.

Each worker is `python -m tritonpack_compile.worker --serve`, spawned (never forked: LLVM state is
not fork-safe), the leader of its own process group, so that one `killpg` ends it together with
the ptxas, the generic-PTX child or anything else Triton started for the job. Jobs go to a worker
one JSON line at a time on its stdin; results come back one JSON line at a time on its stdout;
everything else it prints goes to the job's log file (worker.py).

A worker is killed (its group) when:
- its job runs past the time limit: the job fails with "stopped after N s", the rest go on;
- the run ends, or stops on SIGTERM/SIGINT/SIGHUP (interrupt.py): `close` kills every group;
- the front end itself dies, even by SIGKILL: the worker's watchdog (worker.py) sees the
  lifeline pipe close and kills the group.
Temporary files (Triton's per-job cache, ptxas's files: TMPDIR points into the run directory)
live in one run directory that `close` removes.
"""
from __future__ import annotations

import json
import os
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Deque, List, Optional

from .compilelog import read_log, summarize_log
from .interrupt import STOP_SIGNALS
from .resources import gib, group_usage

RUN_DIR_PREFIX = "tritonpack-compile-"


@dataclass
class Task:
    payload: dict                 # for worker.run_job; the pool adds "log" and "tmp"
    what: str                     # "vector_add v0 for sm_80", for notices and time-limit errors
    result: Optional[dict] = None


@dataclass
class _Worker:
    proc: subprocess.Popen
    lifeline: int                 # write end; closing it (or dying) makes the watchdog kill the group
    log: Path                     # the worker's own output outside jobs (start-up problems)
    buf: bytes = b""
    task: Optional[Task] = None
    started: float = 0.0
    next_notice: float = 0.0


@dataclass
class Limits:
    time_limit: Optional[float]   # seconds per image; None: no limit
    notice_after: float = 30.0    # first "still compiling" line; then every `notice_every`
    notice_every: float = 60.0
    limit_hint: str = ""          # how to raise the limit, for the error


@dataclass
class WorkerPool:
    size: int
    limits: Limits
    notice: Callable[[str], None]              # prints a line, also under -q
    status: Callable[[int], None] = lambda remaining: None
    run_dir: Path = field(default=None)
    _workers: List[_Worker] = field(default_factory=list)
    _sel: selectors.BaseSelector = field(default_factory=selectors.DefaultSelector)
    _count: int = 0

    def __post_init__(self):
        sweep_orphans(Path(tempfile.gettempdir()), RUN_DIR_PREFIX)
        self.run_dir = Path(tempfile.mkdtemp(prefix=orphan_prefix(RUN_DIR_PREFIX)))

    # ------------------------------------------------------------------------------------ lifetime

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        """Kill every worker group, reap the processes, remove the run directory."""
        for w in list(self._workers):
            self._retire(w)
        self._sel.close()
        shutil.rmtree(self.run_dir, ignore_errors=True)

    def _spawn(self) -> _Worker:
        self._count += 1
        tmp = self.run_dir / f"w{self._count}"
        tmp.mkdir()
        log = tmp / "worker.log"
        env = dict(os.environ, TMPDIR=str(tmp), PYTHONUNBUFFERED="1")
        pkg_root = str(Path(__file__).resolve().parent.parent)
        env["PYTHONPATH"] = pkg_root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        read_end, write_end = os.pipe()
        # No stop signal between the fork and our bookkeeping: a worker we would not know of
        # could not be killed.
        old = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        try:
            with open(log, "wb") as err:
                proc = subprocess.Popen([sys.executable, "-m", "tritonpack_compile.worker", "--serve", str(read_end)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, env=env,
                                        pass_fds=(read_end,), start_new_session=True)
            w = _Worker(proc=proc, lifeline=write_end, log=log)
            self._workers.append(w)
            self._sel.register(proc.stdout, selectors.EVENT_READ, w)
        finally:
            os.close(read_end)
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
        return w

    def _retire(self, w: _Worker) -> None:
        try:
            os.killpg(w.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        w.proc.wait()
        try:
            self._sel.unregister(w.proc.stdout)
        except (KeyError, ValueError):
            pass
        for f in (w.proc.stdin, w.proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        try:
            os.close(w.lifeline)
        except OSError:
            pass
        self._workers.remove(w)

    # ------------------------------------------------------------------------------------ running

    def run(self, tasks: List[Task], on_result: Callable[[Task, dict], None]) -> None:
        """Compile every task; `on_result(task, result)` is called as each one ends."""
        queue: Deque[Task] = deque(tasks)
        logs = self.run_dir / "logs"
        logs.mkdir(exist_ok=True)
        for i, t in enumerate(tasks):
            t.payload = dict(t.payload, log=str(logs / f"{i}.log"))
        while queue or any(w.task for w in self._workers):
            while queue:
                idle = next((w for w in self._workers if w.task is None), None)
                if idle is None and len(self._workers) >= self.size:
                    break
                self._assign(idle or self._spawn(), queue.popleft())
            now = time.monotonic()
            wake = [w.next_notice for w in self._workers if w.task]
            wake += [w.started + self.limits.time_limit for w in self._workers if w.task and self.limits.time_limit]
            timeout = max(0.0, min([now + 0.5] + wake) - now)
            for key, _ in self._sel.select(timeout):
                self._read(key.data, on_result)
            self._watch(on_result)
            self.status(len(queue) + sum(1 for w in self._workers if w.task))

    def _assign(self, w: _Worker, task: Task) -> None:
        w.task = task
        w.started = time.monotonic()
        w.next_notice = w.started + self.limits.notice_after
        try:
            w.proc.stdin.write((json.dumps(task.payload) + "\n").encode())
            w.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass  # it died: its stdout's end of file reports that

    def _finish(self, w: _Worker, res: dict, on_result) -> None:
        task, w.task = w.task, None
        task.result = res
        on_result(task, res)

    def _read(self, w: _Worker, on_result) -> None:
        try:
            chunk = os.read(w.proc.stdout.fileno(), 1 << 16)
        except OSError:
            chunk = b""
        if not chunk:  # the worker is gone: a crash (LLVM abort, out of memory) or a start-up failure
            self._crashed(w, on_result)
            return
        w.buf += chunk
        while b"\n" in w.buf and w.task:
            line, w.buf = w.buf.split(b"\n", 1)
            self._finish(w, json.loads(line), on_result)

    def _crashed(self, w: _Worker, on_result) -> None:
        self._retire(w)
        code = w.proc.returncode
        if w.task is None:
            return
        how = f"killed by {signal.Signals(-code).name}" if code and code < 0 else f"exit status {code}"
        log = Path(w.task.payload["log"])
        text = read_log(log) if log.is_file() else ""
        if not text.strip():  # it died before the job began: say why it could not start
            text = read_log(w.log)
            _append(log, text)
        head = f"the compiler process died ({how}; often an LLVM or ptxas crash inside Triton, or no memory left)"
        self._finish(w, {"ok": False, "error": summarize_log(head, text), "seconds": self._elapsed(w)}, on_result)

    def _watch(self, on_result) -> None:
        now = time.monotonic()
        for w in list(self._workers):
            if w.task is None:
                continue
            elapsed = now - w.started
            limit = self.limits.time_limit
            if limit and elapsed >= limit:
                rss, names = group_usage(w.proc.pid)
                self._retire(w)
                tools = sorted(n for n in names if not n.startswith("python") and n not in ("sh", "cat"))
                doing = f"running {', '.join(tools)}, " if tools else ""
                msg = (f"stopped after {elapsed:.0f} s ({doing}using {gib(rss)}): the time limit per image "
                       f"is {limit:g} s; {self.limits.limit_hint}")
                _append(Path(w.task.payload["log"]), f"\n[tritonpack] {msg}\n")
                self._finish(w, {"ok": False, "error": msg, "timed_out": True, "seconds": elapsed}, on_result)
            elif now >= w.next_notice:
                rss, _ = group_usage(w.proc.pid)
                stop = f"; stopped at {limit:g} s" if limit else ""
                self.notice(f"still compiling {w.task.what} ({elapsed:.0f} s, {gib(rss)}{stop})")
                w.next_notice = now + self.limits.notice_every

    @staticmethod
    def _elapsed(w: _Worker) -> float:
        return round(time.monotonic() - w.started, 3)


def _append(path: Path, text: str) -> None:
    try:
        with open(path, "a") as f:
            f.write(text)
    except OSError:
        pass


def orphan_prefix(prefix: str) -> str:
    """`prefix` + this process's id and host: what `sweep_orphans` recognises."""
    return f"{prefix}{os.getpid()}@{socket.gethostname()}-"


def sweep_orphans(parent: Path, prefix: str) -> None:
    """Remove the `orphan_prefix(prefix)*` entries of `parent` left by a front end that was killed
    outright (SIGKILL: nothing of it could clean up): made on this host by a pid that no longer
    runs. (Another host's entries, on a shared file system, are left alone.)"""
    try:
        entries = list(parent.iterdir())
    except OSError:
        return
    host = socket.gethostname()
    for p in entries:
        if not p.name.startswith(prefix):
            continue
        pid, _, rest = p.name[len(prefix):].partition("@")
        if not pid.isdigit() or int(pid) == os.getpid() or not rest.startswith(host + "-"):
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(p, ignore_errors=True)
        except PermissionError:
            pass  # alive, another user's
