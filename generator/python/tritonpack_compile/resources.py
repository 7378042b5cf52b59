"""What the machine allows: cores, memory (the default `-j`), and what a compile worker uses.

Linux facts are read from /proc and the cgroup file system (a batch scheduler's or a container's
memory limit is a cgroup limit, smaller than what /proc/meminfo reports); elsewhere the functions
return None and the callers fall back to counting cores.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

# A compile worker's memory, for the default -j: an idle worker with Triton loaded holds about
# 150 MB, a typical compilation (LLVM + ptxas) peaks at a few hundred MB more, and a runaway one
# (huge blocks: several GB) is the case the time limit exists for. 1 GiB per worker keeps a
# build of ordinary kernels off swap without starving big machines.
WORKER_MEMORY_ESTIMATE = 1 << 30

_UNLIMITED = 1 << 60   # cgroup v1 writes "no limit" as a number close to 2^63


def core_count() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def _read_int(path: Path) -> Optional[int]:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _meminfo_available() -> Optional[int]:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _inactive_file(stat: Path, key: str) -> int:
    """Page cache the kernel reclaims before failing an allocation: not really in use."""
    try:
        for line in stat.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0


def cgroup_available(proc_cgroup: Path = Path("/proc/self/cgroup"),
                     root: Path = Path("/sys/fs/cgroup")) -> Optional[int]:
    """Room left under this process's cgroup memory limit (v2, then v1); None without a limit.
    A container sees its own cgroup as the root of the mount, so the path from /proc/self/cgroup
    is tried below the mount and, failing that, the mount itself."""
    try:
        lines = proc_cgroup.read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        hid, controllers, rel = parts
        if hid == "0" and controllers == "":  # v2 (unified)
            files = ("memory.max", "memory.current", "memory.stat", "inactive_file")
            bases = (root / rel.lstrip("/"), root)
        elif "memory" in controllers.split(","):  # v1
            files = ("memory.limit_in_bytes", "memory.usage_in_bytes", "memory.stat", "total_inactive_file")
            bases = (root / "memory" / rel.lstrip("/"), root / "memory")
        else:
            continue
        for base in bases:
            limit = _read_int(base / files[0])
            usage = _read_int(base / files[1])
            if limit is None or usage is None:
                continue
            if limit >= _UNLIMITED:
                break
            used = max(0, usage - _inactive_file(base / files[2], files[3]))
            return max(0, limit - used)
    return None


def available_memory() -> Optional[int]:
    """Bytes this process can still use: the smaller of MemAvailable and the cgroup's room."""
    known = [m for m in (_meminfo_available(), cgroup_available()) if m is not None]
    return min(known) if known else None


@dataclass
class JobsChoice:
    jobs: int
    cores: int
    memory: Optional[int]   # available bytes, when known

    @property
    def lowered(self) -> bool:
        return self.jobs < self.cores

    def note(self) -> str:
        return (f"using {self.jobs} compile worker(s), not {self.cores} (one per core): "
                f"{gib(self.memory)} of memory available, about {gib(WORKER_MEMORY_ESTIMATE)} per worker; "
                f"-j N sets the number")


def default_jobs() -> JobsChoice:
    """One worker per core, fewer when memory is short (at least 1)."""
    cores = core_count()
    mem = available_memory()
    jobs = cores if mem is None else max(1, min(cores, mem // WORKER_MEMORY_ESTIMATE))
    return JobsChoice(jobs=jobs, cores=cores, memory=mem)


def gib(n: Optional[int]) -> str:
    return "?" if n is None else f"{n / (1 << 30):.1f} GB"


# ---------------------------------------------------------------------------------------- process groups

def group_processes(pgid: int) -> List[Tuple[int, str, int]]:
    """(pid, command name, resident bytes) of the live processes of process group `pgid`:
    a worker and what it started (ptxas, ld.lld, the generic-PTX child). Empty where /proc is
    missing. Zombies hold no memory and are left out."""
    out = []
    page = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
    try:
        entries = os.listdir("/proc")
    except OSError:
        return out
    for e in entries:
        if not e.isdigit():
            continue
        try:
            stat = Path(f"/proc/{e}/stat").read_text()
        except OSError:
            continue  # gone meanwhile
        # "pid (comm) state ppid pgrp ..." where comm may hold spaces and parentheses
        comm = stat[stat.find("(") + 1:stat.rfind(")")]
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) < 22 or int(fields[2]) != pgid or fields[0] == "Z":
            continue
        out.append((int(e), comm, int(fields[21]) * page))
    return out


def group_usage(pgid: int) -> Tuple[int, Dict[str, int]]:
    """Resident bytes of a process group, and its processes by command name."""
    total, names = 0, {}
    for _, comm, rss in group_processes(pgid):
        total += rss
        names[comm] = names.get(comm, 0) + 1
    return total, names
