#!/usr/bin/env python3
"""Two builds' first_launch side by side: fresh processes alternating between them (so that the
host's drift hits both alike); prints the median of each key per build, with its quartiles.

  python3 bench/launch/cpu_ab.py --before <build A> --after <build B> [--runs 201] MODE KEY,KEY...
  e.g. MODE tritonpack KEYS us; MODE cpu-steps KEYS parse,plan,decode,decode_faults,us

On the build machine it runs on the test-double CUDA driver of each build
(tests/runtime/libtritonpack_fake_cuda.so); `--gpu` runs on the machine's real driver instead.
`--program NAME` picks another first_launch program (tritonpack_first_launch_stored); MODE may list
several (comma-separated: each build runs each once a round); `--pin CPU` runs every process on
that one core (taskset), the figure to quote on a GPU machine whose cores differ. `--jit-cache DIR`
measures the PTX path from a warm JIT cache (TRITONPACK_FORCE_IR=1, each build's own cache under
DIR, filled by one untimed run first).
"""
import argparse
import json
import os
import statistics
import subprocess


def quartiles(xs):
    xs = sorted(xs)
    if len(xs) < 4:
        return xs[0], xs[-1]
    q = statistics.quantiles(xs, n=4)
    return q[0], q[2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--runs", type=int, default=201)
    ap.add_argument("--gpu", action="store_true", help="the machine's CUDA driver, not the test double")
    ap.add_argument("--program", default="tritonpack_first_launch")
    ap.add_argument("--pin", help="run every process on this CPU (taskset -c)")
    ap.add_argument("--jit-cache", metavar="DIR", help="the PTX path from a warm JIT cache under DIR")
    ap.add_argument("mode")
    ap.add_argument("keys")
    a = ap.parse_args()
    builds = [("before", a.before), ("after", a.after)]
    modes = a.mode.split(",")
    res = {(name, m): [] for name, _ in builds for m in modes}

    def run(name, b, m):
        env = dict(os.environ, TRITONPACK_CACHE="0")
        if a.jit_cache:
            env.update(TRITONPACK_FORCE_IR="1", TRITONPACK_CACHE="1",
                       TRITONPACK_CACHE_DIR=os.path.join(a.jit_cache, name))
        if not a.gpu:
            env["TRITONPACK_CUDA_LIBRARY"] = os.path.join(b, "tests", "runtime", "libtritonpack_fake_cuda.so")
        cmd = [os.path.join(b, "bench", "launch", a.program), m]
        if a.pin is not None:
            cmd = ["taskset", "-c", a.pin] + cmd
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
        return json.loads(out.strip().splitlines()[-1])

    if a.jit_cache:  # fill each build's cache, untimed
        for name, b in builds:
            for m in modes:
                run(name, b, m)
    for i in range(a.runs):
        for name, b in (builds if i % 2 == 0 else builds[::-1]):
            for m in modes:
                res[(name, m)].append(run(name, b, m))
    for m in modes:
        for name, _ in builds:
            rows = res[(name, m)]
            cells = []
            for k in a.keys.split(","):
                vals = [r[k] for r in rows if k in r]
                if not vals:
                    continue
                q1, q3 = quartiles(vals)
                cells.append("%s=%.1f [%.1f, %.1f]" % (k, statistics.median(vals), q1, q3))
            print(name, m, " ".join(cells))


if __name__ == "__main__":
    main()
