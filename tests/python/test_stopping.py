"""Stopping compilations: signals to the front end, its death, the time limit per image, a
crashing worker, the "still compiling" notice and the default -j.

The runaway kernel (a block of 2^20 elements) keeps LLVM and ptxas busy for minutes, so every
test here stops it; none waits for it to finish.
"""
import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Set

import pytest

from conftest import env_with_pkg, write_spec
from tritonpack_compile import resources
from tritonpack_compile.frontend import compile_spec

RUNAWAY = """
    name = "runaway"
    targets = ["sm_80"]
    mode = "binary"
    [[kernel]]
    source = "kernels.py:vector_add"
    signatures = ["*fp32, *fp32, *fp32, i32, fp32, 1048576"]
"""


# ---------------------------------------------------------------------------------------- processes

def _stat(pid):
    """(state, ppid, pgid) of a process, None when it is gone. A zombie counts as gone: it runs
    nothing and holds no memory (a container's init may be slow to reap orphans)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    f = text[text.rfind(")") + 2:].split()
    return None if f[0] in ("Z", "X") else (f[0], int(f[1]), int(f[2]))


def _all_pids():
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def _descendants(root):
    kids, todo = set(), [root]
    parents = {}
    for pid in _all_pids():
        st = _stat(pid)
        if st:
            parents.setdefault(st[1], []).append(pid)
    while todo:
        for k in parents.get(todo.pop(), []):
            if k not in kids:
                kids.add(k)
                todo.append(k)
    return kids


def _cmdline(pid):
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _workers_of(root):
    return [p for p in _descendants(root) if "tritonpack_compile.worker" in _cmdline(p)]


def _survivors(pids, pgids):
    """The processes still running among `pids` or in the process groups `pgids`."""
    alive = {p for p in pids if _stat(p)}
    alive |= {p for p in _all_pids() if (_stat(p) or (None, None, None))[2] in pgids}
    return alive


def _rss(pid):
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return 0


def _wait_until_compiling(front_end_pid, timeout=120):
    """Until a process under the front end has loaded Triton (over 100 MB: a compile worker at
    work), then 3 s more, so that LLVM or ptxas is busy."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if any(_rss(p) > 100 << 20 for p in _descendants(front_end_pid)):
            time.sleep(3)
            return
        time.sleep(0.2)
    pytest.fail("no compile worker started")


def _groups_of(pids, front_end_pid):
    """The process groups of `pids` other than the front end's own."""
    own = (_stat(front_end_pid) or (None, None, None))[2]
    return {st[2] for st in map(_stat, pids) if st and st[2] != own}


@dataclass
class FrontEnd:
    proc: subprocess.Popen
    tmp: Path                       # its TMPDIR
    pids: Set[int] = field(default_factory=set)    # its processes while it compiled
    pgids: Set[int] = field(default_factory=set)   # their process groups, its own excepted


@contextlib.contextmanager
def front_end_at_work(kdir, tmp_path):
    """A front end (a child process) compiling the runaway kernel; on the way out, whatever of
    it is left is killed (a failing test must not leave compilations running)."""
    spec = write_spec(kdir, RUNAWAY)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(env_with_pkg(), TMPDIR=str(tmp))
    cmd = [sys.executable, "-m", "tritonpack_compile", str(spec), "-o", str(kdir / "out"),
           "--cache-dir", str(tmp_path / "cache"), "-j", "2"]
    fe = FrontEnd(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True), tmp)
    try:
        _wait_until_compiling(fe.proc.pid)
        fe.pids = _descendants(fe.proc.pid)
        fe.pgids = _groups_of(fe.pids, fe.proc.pid)
        yield fe
    finally:
        if fe.proc.poll() is None:
            fe.proc.kill()
            fe.proc.wait()
        for p in _survivors(fe.pids, fe.pgids):
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass


# ---------------------------------------------------------------------------------------- signals

@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_stop_signal_kills_every_worker_and_writes_nothing(kdir, tmp_path, sig):
    with front_end_at_work(kdir, tmp_path) as fe:
        t0 = time.time()
        os.kill(fe.proc.pid, sig)  # the front end only, as `timeout` or a scheduler does
        _, err = fe.proc.communicate(timeout=30)
        seconds = time.time() - t0
        survivors = _survivors(fe.pids, fe.pgids)
    assert seconds < 10, "the front end waited for the compilation"
    assert not survivors
    assert fe.proc.returncode == 128 + sig
    assert f"stopped by {signal.Signals(sig).name}: compilations killed, no manifest written" in err
    assert "Traceback" not in err
    assert not (kdir / "out" / "manifest.json").exists()
    assert list(fe.tmp.iterdir()) == []                                # Triton's and ptxas's files
    assert list((tmp_path / "cache" / "staging").iterdir()) == []     # half-made cache entries
    assert fe.pgids  # the workers ran in process groups of their own (so that one kill takes all)


@pytest.mark.slow
def test_a_killed_front_end_takes_its_workers_with_it(kdir, tmp_path):
    """SIGKILL cannot be caught: the workers' watchdogs see the lifeline close."""
    with front_end_at_work(kdir, tmp_path) as fe:
        fe.proc.kill()
        fe.proc.communicate(timeout=30)
        deadline = time.time() + 10
        while _survivors(fe.pids, fe.pgids) and time.time() < deadline:
            time.sleep(0.2)
        assert not _survivors(fe.pids, fe.pgids)
    # what it could not remove is swept by the next run
    left = list(fe.tmp.glob("tritonpack-compile-*"))
    assert left
    from tritonpack_compile.pool import RUN_DIR_PREFIX, sweep_orphans
    sweep_orphans(fe.tmp, RUN_DIR_PREFIX)
    assert not any(p.exists() for p in left)


# ---------------------------------------------------------------------------------------- time limit

@pytest.mark.slow
def test_time_limit_stops_the_image_and_says_how_to_raise_it(kdir, tmp_path, monkeypatch):
    """The limit from the environment; the "still compiling" notice is printed under -q too."""
    spec = write_spec(kdir, RUNAWAY)
    monkeypatch.setenv("TRITONPACK_COMPILE_TIME_LIMIT", "4")
    buf = io.StringIO()
    t0 = time.time()
    outcome = compile_spec(spec, kdir / "out", jobs=1, cache_dir=tmp_path / "cache", quiet=True, stream=buf,
                           notice_after=1.5)
    assert time.time() - t0 < 30
    log = buf.getvalue()
    assert "still compiling vector_add v0 for sm_80 (" in log and "GB; stopped at 4 s)" in log
    (failure,) = outcome.failures
    assert "target cuda:sm_80: stopped after 4 s (" in failure
    assert ("the time limit per image is 4 s; raise it with --time-limit SECONDS or "
            "$TRITONPACK_COMPILE_TIME_LIMIT (0: no limit)") in failure
    log_file = kdir / "out" / "compile-logs" / "vector_add.v0.cuda_sm_80.log"
    assert f"full log: {log_file}" in failure and log_file.is_file()
    assert outcome.manifest is None and not (kdir / "out" / "manifest.json").exists()
    assert _workers_of(os.getpid()) == []


@pytest.mark.slow
def test_time_limit_option(kdir, tmp_path, capsys):
    from tritonpack_compile.cli import compile_main
    spec = write_spec(kdir, RUNAWAY)
    rc = compile_main([str(spec), "-o", str(kdir / "out"), "--cache-dir", str(tmp_path / "c"), "-q",
                       "--time-limit", "2.5"])
    err = capsys.readouterr().err
    assert rc == 1
    assert "stopped after 2 s" in err or "stopped after 3 s" in err
    assert "the time limit per image is 2.5 s" in err


def test_time_limit_values_are_checked(kdir, monkeypatch, capsys):
    from tritonpack_compile.cli import compile_main
    spec = write_spec(kdir, RUNAWAY)
    assert compile_main([str(spec), "-o", str(kdir / "o"), "--time-limit", "-1"]) == 2
    assert "--time-limit must be a number of seconds, 0 for no limit" in capsys.readouterr().err
    monkeypatch.setenv("TRITONPACK_COMPILE_TIME_LIMIT", "ten minutes")
    assert compile_main([str(spec), "-o", str(kdir / "o")]) == 2
    assert ("$TRITONPACK_COMPILE_TIME_LIMIT must be a number of seconds (0: no limit), not 'ten minutes'"
            in capsys.readouterr().err)


@pytest.mark.slow
def test_a_crashed_worker_fails_its_job_only(kdir, tmp_path, monkeypatch):
    """A worker killed under the front end (an LLVM abort, the OOM killer): its job fails with
    what happened, a new worker compiles the next job, and the run ends normally."""
    spec = write_spec(kdir, RUNAWAY + """
    [[kernel]]
    source = "kernels.py:vector_add"
    name = "small"
    signatures = ["*fp32, *fp32, *fp32, i32, fp32, 64"]
    """)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    killed = []

    def kill_the_first_worker_at_work():
        deadline = time.time() + 120
        while time.time() < deadline:
            workers = _workers_of(os.getpid())
            if workers and list(tmp_path.glob("tritonpack-compile-*/logs/*.log")):
                time.sleep(1)
                os.kill(workers[0], signal.SIGKILL)
                killed.append(workers[0])
                return
            time.sleep(0.2)

    t = threading.Thread(target=kill_the_first_worker_at_work)
    t.start()
    buf = io.StringIO()
    outcome = compile_spec(spec, kdir / "out", jobs=1, cache_dir=tmp_path / "cache", stream=buf, time_limit=120)
    t.join()
    assert killed
    (failure,) = outcome.failures
    assert failure.startswith("kernel 'vector_add'")
    assert "the compiler process died (killed by SIGKILL; often an LLVM or ptxas crash inside Triton" in failure
    assert "ok   small v0 cuda sm_80" in buf.getvalue()
    assert not _survivors(set(killed), set(killed))


# ---------------------------------------------------------------------------------------- -j

def test_default_jobs_follow_memory(monkeypatch):
    gib = 1 << 30
    monkeypatch.setattr(resources, "core_count", lambda: 8)
    monkeypatch.setattr(resources, "available_memory", lambda: int(2.5 * gib))
    c = resources.default_jobs()
    assert (c.jobs, c.lowered) == (2, True)
    assert c.note() == ("using 2 compile worker(s), not 8 (one per core): 2.5 GB of memory available, "
                        "about 1.0 GB per worker; -j N sets the number")
    monkeypatch.setattr(resources, "available_memory", lambda: 100 << 20)
    assert resources.default_jobs().jobs == 1      # at least one
    monkeypatch.setattr(resources, "available_memory", lambda: 64 * gib)
    assert (resources.default_jobs().jobs, resources.default_jobs().lowered) == (8, False)
    monkeypatch.setattr(resources, "available_memory", lambda: None)  # unknown: one per core
    assert resources.default_jobs().jobs == 8


@pytest.mark.parametrize("layout", ["v2", "v1"])
def test_cgroup_limit_counts(tmp_path, layout):
    """A batch job's or container's memory limit, less what is used (page cache excluded)."""
    gib = 1 << 30
    if layout == "v2":
        (tmp_path / "proc").write_text("0::/job.slice/step\n")
        d = tmp_path / "cg" / "job.slice" / "step"
        d.mkdir(parents=True)
        (d / "memory.max").write_text(f"{4 * gib}\n")
        (d / "memory.current").write_text(f"{2 * gib}\n")
        (d / "memory.stat").write_text(f"anon 1\ninactive_file {gib}\n")
    else:
        (tmp_path / "proc").write_text("5:cpu:/\n4:memory:/slurm/job1\n")
        d = tmp_path / "cg" / "memory"  # the container's own cgroup is the mount's root
        d.mkdir(parents=True)
        (d / "memory.limit_in_bytes").write_text(f"{4 * gib}\n")
        (d / "memory.usage_in_bytes").write_text(f"{2 * gib}\n")
        (d / "memory.stat").write_text(f"total_inactive_file {gib}\n")
    assert resources.cgroup_available(tmp_path / "proc", tmp_path / "cg") == 3 * gib
    (d / ("memory.max" if layout == "v2" else "memory.limit_in_bytes")).write_text(
        "max\n" if layout == "v2" else "9223372036854771712\n")
    assert resources.cgroup_available(tmp_path / "proc", tmp_path / "cg") is None


def test_group_usage_sees_a_whole_process_group():
    # A leader that has written 64 MiB and started a child in its group. The leader must have
    # touched its memory: a freshly exec'd `sleep` may still show 0 resident pages in
    # /proc/PID/stat (Linux updates those counters lazily), which made a bare `sleep` flaky.
    leader = ("import subprocess, time\n"
              "block = bytes(range(256)) * (1 << 18)\n"
              "child = subprocess.Popen(['sleep', '30'])\n"
              "print('ready', flush=True)\n"
              "time.sleep(30)\n")
    p = subprocess.Popen([sys.executable, "-c", leader], start_new_session=True,
                         stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "ready"
        rss, names = resources.group_usage(p.pid)
        assert names.pop("sleep", 0) == 1, names
        assert sum(names.values()) == 1, names  # the leader, whatever its command name
        assert rss >= 64 << 20
    finally:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()


@pytest.mark.slow
def test_lowered_jobs_are_announced(kdir, tmp_path, monkeypatch):
    from tritonpack_compile import frontend
    spec = write_spec(kdir, """
        targets = ["sm_80", "gfx942"]
        mode = "binary"
        [[kernel]]
        source = "kernels.py:vector_add"
        signatures = ["*fp32, *fp32, *fp32, i32, fp32, 64"]
    """)
    monkeypatch.setattr(frontend, "default_jobs", lambda: resources.JobsChoice(jobs=1, cores=4, memory=1 << 30))
    buf = io.StringIO()
    outcome = compile_spec(spec, kdir / "out", cache_dir=tmp_path / "cache", stream=buf)
    assert not outcome.failures
    assert "note: using 1 compile worker(s), not 4 (one per core): 1.0 GB of memory available" in buf.getvalue()
    assert "with 1 worker(s)" in buf.getvalue()
    assert json.loads((kdir / "out" / "manifest.json").read_text())["name"] == "spec"
