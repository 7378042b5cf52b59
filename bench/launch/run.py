#!/usr/bin/env python3
"""Runs the launch benchmarks side by side on one GPU and prints one table (markdown), also
written to --out (default bench/launch/RESULTS.md).

  python3 bench/launch/run.py --build <build dir>        # binaries from bench/launch's CMake targets
  python3 bench/launch/run.py --bench-bin B --first-bin F  # or explicit paths

Measures:
  steady launch cost   bench_launch (Google Benchmark): raw cuLaunchKernel, typed, dynamic; and
                       Triton's Python launcher (triton_launch.py, needs torch + triton)
  first launch         first_launch in fresh processes (median of --runs): tritonpack (decompress +
                       load) vs raw cuModuleLoadData of the uncompressed cubin
  PTX path             first_launch tritonpack with TRITONPACK_FORCE_IR=1: cold (no tritonpack
                       cache, driver compute cache disabled), driver compute cache warm, tritonpack
                       JIT cache warm
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run_json(cmd, env=None):
    e = dict(os.environ)
    e.update(env or {})
    out = subprocess.run(cmd, env=e, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def google_benchmark_medians(binary, extra_args):
    """{benchmark name: median real time in µs} of one bench_launch process."""
    out = subprocess.run([binary, "--benchmark_format=json", "--benchmark_enable_random_interleaving=true"] + extra_args,
                         check=True, capture_output=True, text=True).stdout
    res = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("aggregate_name") == "median":
            res[b["run_name"].split("/")[0]] = b["real_time"] / 1000.0 if b["time_unit"] == "ns" else b["real_time"]
    return res


def first_launch(binary, mode, runs, env=None, warm=0):
    for _ in range(warm):
        run_json([binary, mode], env)
    return statistics.median(run_json([binary, mode], env)["us"] for _ in range(runs))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", help="build directory holding bench/launch/{tritonpack_bench_launch,tritonpack_first_launch}")
    ap.add_argument("--bench-bin")
    ap.add_argument("--first-bin")
    ap.add_argument("--separate-bin", help="bench_launch built in separate mode (default: <bench-bin>_separate, if present)")
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--rounds", type=int, default=3,
                    help="processes of each steady-launch binary, alternating header-only and separate mode")
    ap.add_argument("--no-triton", action="store_true", help="skip Triton's Python launcher")
    ap.add_argument("--first-alt", action="append", default=[], metavar="LABEL=PATH",
                    help="another first_launch build (e.g. packed with `tritonpack pack --frames binaries-alone`) "
                         "measured in the tritonpack mode as an extra first-launch row")
    ap.add_argument("--first-only", action="store_true", help="only the cubin first-launch rows and the step tables")
    ap.add_argument("--out", default=os.path.join(HERE, "RESULTS.md"))
    a = ap.parse_args()
    bench = a.bench_bin or os.path.join(a.build, "bench", "launch", "tritonpack_bench_launch")
    first = a.first_bin or os.path.join(a.build, "bench", "launch", "tritonpack_first_launch")

    rows = []
    tmp = tempfile.mkdtemp(prefix="tp-bench-")
    # Steady state.
    if a.first_only:
        a.no_triton = True
    # Steady state: --rounds processes of each binary, alternating header-only and separate mode so
    # that drift (clocks, other tenants) affects both alike. Within a process Google Benchmark
    # interleaves the repetitions of its benchmarks; each row is the median over the rounds of the
    # per-process medians, and each ratio the median over the rounds of the ratio taken inside one
    # process (typed and raw in the same process, the same moment).
    separate = a.separate_bin or bench + "_separate"
    have_separate = os.path.exists(separate)
    rounds = {"header": [], "separate": []}
    for r in range(0 if a.first_only else a.rounds):
        order = [("header", bench, [])]
        if have_separate:
            order.append(("separate", separate, ["--benchmark_filter=BM_raw|BM_typed_separate"]))
        for mode, binary, extra in (order if r % 2 == 0 else order[::-1]):
            rounds[mode].append(google_benchmark_medians(binary, extra))

    def med(mode, name):
        return statistics.median(x[name] for x in rounds[mode])

    def ratio(mode, name, base):
        return statistics.median(x[name] / x[base] for x in rounds[mode])

    if rounds["header"]:
        raw = med("header", "BM_raw")
        rows.append(("steady launch", "raw cuLaunchKernel (same cubin)", raw, 1.0))
        rows.append(("steady launch", "tritonpack typed call", med("header", "BM_typed"), ratio("header", "BM_typed", "BM_raw")))
        rows.append(("steady launch", "tritonpack dynamic call", med("header", "BM_dynamic"), ratio("header", "BM_dynamic", "BM_raw")))
    # The typed call in separate mode (its own binary: one mode per program), against that
    # process's own raw launch.
    if rounds["separate"]:
        rows.append(("steady launch", "raw cuLaunchKernel (separate-mode binary)", med("separate", "BM_raw"),
                     med("separate", "BM_raw") / raw))
        rows.append(("steady launch", "tritonpack typed call, separate mode (vs its raw)", med("separate", "BM_typed_separate"),
                     ratio("separate", "BM_typed_separate", "BM_raw")))
    if not a.no_triton:
        t = run_json([sys.executable, os.path.join(HERE, "triton_launch.py")])
        rows.append(("steady launch", "Triton Python launcher (%s)" % t["triton"], t["triton_python_us"], t["triton_python_us"] / raw))

    # First launch, fresh processes, cubin: every binary and mode once per round, round after round
    # (interleaved, so that drift on the machine affects every row alike), medians over the rounds.
    # "first kernel of a process" is vector_add's first launch; "each further kernel" is softmax's
    # after vector_add's (its own model, selection, decode and load: what every further kernel of a
    # program pays).
    nocache = {"TRITONPACK_CACHE": "0"}
    stored = first + "_stored"  # the same program, container packed with --store-binaries
    alts = list(a.first_alt)
    if os.path.exists(stored) and not any(x.startswith("binaries stored") for x in alts):
        alts.append("binaries stored (pack --store-binaries)=" + stored)
    # Also, once per process: the backend's start (driver, cuInit, context), which includes the
    # decoder's warm-up, and that warm-up alone in a cold process (the one-time costs moved out of
    # the first kernel's load).
    firsts = [("raw", first, "raw"), ("tp", first, "tritonpack"), ("raw2", first, "raw-second"),
              ("tp2", first, "second"), ("backend", first, "backend-start"), ("warm", first, "decoder-warm-up")]
    for alt in alts:
        label, path = alt.split("=", 1)
        firsts += [("alt:" + label, path, "tritonpack"), ("alt2:" + label, path, "second")]
    samples = {key: [] for key, _, _ in firsts}
    for _ in range(a.runs):
        for key, binary, mode in firsts:
            try:
                samples[key].append(run_json([binary, mode], nocache)["us"])
            except subprocess.CalledProcessError as e:  # said here; its row shows nan when no run worked
                print("first_launch %s (%s) failed: %s" % (mode, binary, e.stderr.strip()), file=sys.stderr)
    m = {key: statistics.median(v) if v else float("nan") for key, v in samples.items()}
    rows.append(("first kernel of a process", "raw cuModuleLoadData (uncompressed cubin)", m["raw"], 1.0))
    rows.append(("first kernel of a process", "tritonpack (decompress + load)", m["tp"], m["tp"] / m["raw"]))
    for alt in alts:
        label = alt.split("=", 1)[0]
        rows.append(("first kernel of a process", "tritonpack, " + label, m["alt:" + label], m["alt:" + label] / m["raw"]))
    rows.append(("each further kernel", "raw cuModuleLoadData (softmax after vector_add)", m["raw2"], 1.0))
    rows.append(("each further kernel", "tritonpack", m["tp2"], m["tp2"] / m["raw2"]))
    for alt in alts:
        label = alt.split("=", 1)[0]
        rows.append(("each further kernel", "tritonpack, " + label, m["alt2:" + label], m["alt2:" + label] / m["raw2"]))
    raw_first = m["raw"]
    rows.append(("once per process", "backend start (driver, cuInit, context, decoder warm-up)", m["backend"], 1.0))
    rows.append(("once per process", "of which the decoder's warm-up (alone, cold process)", m["warm"], m["warm"] / m["backend"]))

    # PTX path.
    if not a.first_only:
        ir = {"TRITONPACK_FORCE_IR": "1"}
        cold = first_launch(first, "tritonpack", max(3, a.runs // 3), {**ir, **nocache, "CUDA_CACHE_DISABLE": "1"})
        drv_cache = {**ir, **nocache, "CUDA_CACHE_PATH": os.path.join(tmp, "nv"), "CUDA_CACHE_DISABLE": "0"}
        drv_warm = first_launch(first, "tritonpack", a.runs, drv_cache, warm=1)
        tp_cache = {**ir, "TRITONPACK_CACHE": "1", "TRITONPACK_CACHE_DIR": os.path.join(tmp, "tp"), "CUDA_CACHE_DISABLE": "1"}
        tp_warm = first_launch(first, "tritonpack", a.runs, tp_cache, warm=1)
        rows.append(("first kernel of a process", "PTX JIT, cold (no caches)", cold, cold / raw_first))
        rows.append(("first kernel of a process", "PTX, driver compute cache warm", drv_warm, drv_warm / raw_first))
        rows.append(("first kernel of a process", "PTX, tritonpack JIT cache warm", tp_warm, tp_warm / raw_first))

    # Step by step (median of each step over fresh processes).
    step_tables = []
    step_runs = [("library-steps", first, "library-steps"), ("steps", first, "steps"),
                 ("steps-warm-zstd", first, "steps-warm-zstd")]
    if os.path.exists(stored):
        step_runs += [("library-steps, binaries stored", stored, "library-steps"), ("steps, binaries stored", stored, "steps")]
    for mode, binary, arg in step_runs:
        runs = [run_json([binary, arg], nocache) for _ in range(a.runs)]
        keys = [k for k in runs[0] if k != "mode"]
        step_tables.append((mode, [(k, statistics.median(r[k] for r in runs)) for k in keys]))

    try:
        dev = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True).stdout.strip()
    except FileNotFoundError:  # e.g. a dry run against the test-double driver
        dev = ""
    lines = ["# Launch benchmarks (bench/launch)", "",
             "GPU: %s. Kernel: vector_add of tests/gpu/kernels.py, n = 4096 (4 programs of 128 threads), "
             "legacy default stream, synchronised every 100 launches (all rows alike). Steady rows: "
             "median over %d processes (alternating header-only and separate mode) of the median of 10 interleaved "
             "Google Benchmark repetitions, ratios taken within each process; first-launch rows: median of fresh processes, "
             "after driver and context initialisation." % (dev or "unknown", a.rounds), "",
             "| measure | path | µs | × baseline |", "|---|---|---:|---:|"]
    for kind, name, us, ratio in rows:
        lines.append("| %s | %s | %.2f | %.3f |" % (kind, name, us, ratio))
    lines += ["", "Goals: steady typed call ≤ 1.03 × raw; first launch (cubin) ≤ 1.5 × raw (issue 28)."]
    for mode, steps in step_tables:
        lines += ["", "First launch step by step (`first_launch %s`, median µs of %d fresh processes):" % (mode, a.runs), "",
                  "| " + " | ".join(k for k, _ in steps) + " |", "|" + "---:|" * len(steps),
                  "| " + " | ".join("%.1f" % v for _, v in steps) + " |"]
    text = "\n".join(lines) + "\n"
    print(text)
    with open(a.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
