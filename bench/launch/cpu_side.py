#!/usr/bin/env python3
"""The run time's own first-load CPU work, on the test-double CUDA driver (no GPU): fresh
processes of first_launch with TRITONPACK_CUDA_LIBRARY set to the fake driver, medians of --runs.
Prints markdown tables (nothing is written). bench/launch/RESULTS.md, "CPU side on the fake driver".

  python3 bench/launch/cpu_side.py --build <build dir> [--runs 101]

Rows: raw (cuModuleLoadData of the same cubin, already decoded), tritonpack (first launch of the
first kernel of a process: library construction, context, selection, decode, load, launch),
the same with binaries stored (pack --store-binaries), each further kernel's first launch
(`second`, against `raw-second`), the PTX path through a warm tritonpack JIT cache, and the
run time's steps (`cpu-steps`: µs and minor page faults per step).
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile


def run_json(cmd, env):
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--runs", type=int, default=101)
    a = ap.parse_args()
    first = os.path.join(a.build, "bench", "launch", "tritonpack_first_launch")
    stored = first + "_stored"
    env = dict(os.environ)
    env["TRITONPACK_CUDA_LIBRARY"] = os.path.join(a.build, "tests", "runtime", "libtritonpack_fake_cuda.so")
    env["TRITONPACK_CACHE"] = "0"
    tmp = tempfile.mkdtemp(prefix="tp-cpu-side-")
    jit = dict(env, TRITONPACK_FORCE_IR="1", TRITONPACK_CACHE="1", TRITONPACK_CACHE_DIR=os.path.join(tmp, "jit"))
    run_json([first, "tritonpack"], jit)  # fills the JIT cache

    def med(binary, mode, e=env):
        rs = [run_json([binary, mode], e) for _ in range(a.runs)]
        return {k: statistics.median(r[k] for r in rs) for k in rs[0] if k != "mode"}

    # Other layouts of the same kernels, where built (bench/launch/CMakeLists.txt): each binary
    # alone in its frame (pack --frames per-target), and the same with a trained dictionary.
    layouts = [(label, suffix) for label, suffix in
               (("frames per-target", "_per_target"), ("frames per-target + 16 KiB dictionary", "_dict"))
               if os.path.exists(first + suffix)]
    raw = med(first, "raw")["us"]
    rows = [("first kernel of a process", "raw cuModuleLoadData + launch (same cubin)", raw, raw),
            ("first kernel of a process", "tritonpack", med(first, "tritonpack")["us"], raw),
            ("first kernel of a process", "tritonpack, binaries stored", med(stored, "tritonpack")["us"], raw),
            ] + [("first kernel of a process", "tritonpack, " + label, med(first + suffix, "tritonpack")["us"], raw)
                 for label, suffix in layouts] + [
            ("first kernel of a process", "tritonpack, PTX from the warm JIT cache", med(first, "tritonpack", jit)["us"], raw)]
    raw2 = med(first, "raw-second")["us"]
    rows += [("each further kernel", "raw (softmax after vector_add)", raw2, raw2),
             ("each further kernel", "tritonpack (softmax after vector_add)", med(first, "second")["us"], raw2)]
    rows += [("each further kernel", "tritonpack, " + label, med(first + suffix, "second")["us"], raw2)
             for label, suffix in layouts]
    print("| measure | path | µs | µs over raw |\n|---|---|---:|---:|")
    for kind, name, us, base in rows:
        print("| %s | %s | %.1f | %.1f |" % (kind, name, us, us - base))
    for label, binary in (("", first), (", binaries stored", stored)):
        steps = med(binary, "cpu-steps")
        names = [k for k in steps if not k.endswith("faults") and k != "us"]
        print("\n`first_launch cpu-steps`%s, median of %d fresh processes (µs; minor page faults):\n" % (label, a.runs))
        print("| " + " | ".join(names) + " | total |\n|" + "---:|" * (len(names) + 1))
        print("| " + " | ".join("%.1f (%d)" % (steps[n], steps[n + "_faults"]) for n in names) +
              " | %.1f (%d) |" % (steps["us"], steps["faults"]))


if __name__ == "__main__":
    main()
