"""Compiling the jobs the cache does not have: the target check, the workers, the cache entries
and the logs of failed compilations (frontend.py plans the jobs and writes the output)."""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

from .cachetrust import MAX_RESULT_JSON, entry_file, plain_name, read_trusted, sha256, untrusted_dir
from .errors import SpecError, TritonpackError
from .pool import Limits, Task, WorkerPool, orphan_prefix, sweep_orphans
from .progress import Progress
from .targets import unbuildable
from .toolchain import toolchain_facts

if TYPE_CHECKING:
    from .frontend import Job
    from .spec import Spec

# The time one image may take to compile (seconds; 0: no limit). A big ordinary kernel takes a
# minute; a runaway one (a block of 2^20 elements) keeps ptxas busy for many minutes and GBs.
DEFAULT_TIME_LIMIT = 600.0
TIME_LIMIT_ENV = "TRITONPACK_COMPILE_TIME_LIMIT"
LOG_DIR = "compile-logs"   # in the artifact directory: the full log of each failed compilation


def time_limit_from_env() -> float:
    text = os.environ.get(TIME_LIMIT_ENV)
    if text is None or not text.strip():
        return DEFAULT_TIME_LIMIT
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if value < 0 or value != value:
        raise TritonpackError(f"${TIME_LIMIT_ENV} must be a number of seconds (0: no limit), not {text!r}")
    return value


# ---------------------------------------------------------------------------------------- cache

def entry_dir(cache_dir: Path, key: str) -> Path:
    return cache_dir / "jobs" / key[:2] / key


def cache_lookup(cache_dir: Path, job: Job) -> Optional[dict]:
    """The stored result of `job`, or None: absent, damaged, or not trusted (cachetrust.py): a
    folder or file another user owns or may write, a file named outside the entry, not a regular
    file, or not the bytes stored."""
    d = entry_dir(cache_dir, job.key)
    if untrusted_dir(d) or untrusted_dir(d.parent):
        return None
    raw = read_trusted(d / "result.json", MAX_RESULT_JSON)
    if raw is None:
        return None
    try:
        res = json.loads(raw)
    except ValueError:
        return None
    files = res.get("files") if isinstance(res, dict) else None
    if not res.get("ok") or not isinstance(files, dict):
        return None
    if not all(entry_file(d, res, f) is not None for f in files.values()):
        return None
    return res


def read_result_file(cache_dir: Path, job: Job, name) -> bytes:
    """File `name` of `job`'s entry, checked again as it is read (cache_lookup checked it before
    the run): what is packed is what was compiled."""
    entry = entry_dir(cache_dir, job.key)
    data = entry_file(entry, job.result, name)
    if data is None:
        raise TritonpackError(f"the compile cache entry {entry} changed while this run used it ({name} is not the "
                           f"file stored); run again, or use --no-cache")
    return data


def _cache_store(cache_dir: Path, staging: Path, job: Job, res: dict) -> Path:
    final = entry_dir(cache_dir, job.key)
    # The bytes each file had when compiled: a later lookup uses the entry only if they still are.
    res["sha256"] = {name: sha256((staging / name).read_bytes()) for name in res.get("files", {}).values()
                     if plain_name(name)}
    (staging / "result.json").write_text(json.dumps(res, indent=1))
    final.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.replace(staging, final)
    except OSError:
        theirs = cache_lookup(cache_dir, job)
        if theirs is not None:  # another process stored the same entry first: theirs is as good
            shutil.rmtree(staging, ignore_errors=True)
            res.clear()
            res.update(theirs)
        else:  # an entry that cannot be used (damaged, tampered with) stands there: this one replaces it
            shutil.rmtree(final, ignore_errors=True)
            try:
                os.replace(staging, final)
            except OSError:
                shutil.rmtree(staging, ignore_errors=True)
    return final


# ---------------------------------------------------------------------------------------- compiling

STAGING_PREFIX = "run-"


def run_jobs(jobs: List[Job], nproc: int, cache_dir: Path, progress: Progress, limits: Limits,
             log_dir: Path) -> None:
    """Compile `jobs` in worker processes (pool.py); fills job.result. A failed job's full log is
    kept as `log_dir/<kernel>.v<variant>.<target>.log`, and its error says where."""
    staging_root = cache_dir / "staging"
    staging_root.mkdir(parents=True, exist_ok=True)
    sweep_orphans(staging_root, STAGING_PREFIX)
    # One staging folder per run: what a stopped run leaves there goes with it.
    run_staging = Path(tempfile.mkdtemp(prefix=orphan_prefix(STAGING_PREFIX), dir=staging_root))
    tasks = {}
    for j in jobs:
        t = Task(payload=dict(j.payload, key=j.key, out_dir=str(run_staging / j.key)), what=j.what)
        tasks[id(t)] = (t, j)

    def finish(task, res):
        job = tasks[id(task)][1]
        if res.get("ok"):
            _cache_store(cache_dir, Path(task.payload["out_dir"]), job, res)
        else:
            shutil.rmtree(task.payload["out_dir"], ignore_errors=True)
            kept = _keep_log(Path(task.payload["log"]), log_dir / job.log_name)
            res["error"] = res.get("error", "failed") + (f"\nfull log: {kept}" if kept else "")
        job.result = res
        note = "; ".join(res.get("warnings", []))
        # a missing generic PTX is a warning: the arch-specific images are what must exist
        state = "ok" if res.get("ok") else ("warn" if job.generic else "FAIL")
        progress.finished(job.label, res.get("seconds", 0.0), state, note)

    try:
        with WorkerPool(size=min(nproc, len(jobs)), limits=limits, notice=progress.message,
                        status=progress.status) as pool:
            pool.run([t for t, _ in tasks.values()], finish)
    finally:
        shutil.rmtree(run_staging, ignore_errors=True)


def _keep_log(src: Path, dst: Path) -> Optional[Path]:
    try:
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
        return dst
    except OSError:
        return None


def clear_logs(log_dir: Path) -> None:
    """Logs of an earlier run describe failures that may be fixed: a run that compiles starts
    without them (only the files this front end names; the folder goes when empty)."""
    if not log_dir.is_dir():
        return
    for p in log_dir.glob("*.log"):
        try:
            p.unlink()
        except OSError:
            pass
    try:
        log_dir.rmdir()
    except OSError:
        pass


def check_buildable(spec: Spec, jobs: List[Job], tver: str, cache_dir: Optional[Path],
                    overridden: Optional[str]) -> None:
    """Every target about to be compiled must be one this Triton can compile (targets.py):
    otherwise a spec error, before anything compiles. (Generic PTX is optional: not checked.)
    `overridden`: where targets replacing the spec's came from ("--targets"), named in the error."""
    todo = {}
    for j in jobs:
        if not j.generic:
            todo.setdefault(j.target.key, (j.target, j.kernel.spec))
    if not todo:
        return
    facts = toolchain_facts({t.backend for t, _ in todo.values()}, tver, cache_dir)
    for target, ks in todo.values():
        why = unbuildable(target, facts, tver)
        if why:
            if overridden:
                raise SpecError(spec.path, why, key=overridden)
            if ks.targets is spec.targets:
                raise SpecError(spec.path, why, key="targets")
            raise SpecError(spec.path, why, ks.label, "targets")


