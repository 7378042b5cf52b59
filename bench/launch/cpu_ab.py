#!/usr/bin/env python3
"""Two builds' first_launch on the fake CUDA driver, fresh processes alternating between them
(so that the shared host's drift hits both alike); prints the median of each key per build.

  python3 bench/launch/cpu_ab.py --before <build A> --after <build B> [--runs 201] MODE KEY,KEY...
  e.g. MODE tritonpack KEYS us; MODE cpu-steps KEYS parse,plan,decode,decode_faults,us
"""
import argparse
import json
import os
import statistics
import subprocess


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--runs", type=int, default=201)
    ap.add_argument("mode")
    ap.add_argument("keys")
    a = ap.parse_args()
    builds = [("before", a.before), ("after", a.after)]
    res = {name: [] for name, _ in builds}
    for i in range(a.runs):
        for name, b in (builds if i % 2 == 0 else builds[::-1]):
            env = dict(os.environ, TRITONPACK_CUDA_LIBRARY=os.path.join(b, "tests", "runtime", "libtritonpack_fake_cuda.so"),
                       TRITONPACK_CACHE="0")
            out = subprocess.run([os.path.join(b, "bench", "launch", "tritonpack_first_launch"), a.mode], env=env,
                                 capture_output=True, text=True, check=True).stdout
            res[name].append(json.loads(out.strip().splitlines()[-1]))
    for name, _ in builds:
        print(name, a.mode, " ".join("%s=%.1f" % (k, statistics.median(r[k] for r in res[name])) for k in a.keys.split(",")))


if __name__ == "__main__":
    main()
