#!/usr/bin/env python3
"""A kernel's first load from tritonpack's container against NVIDIA's fat binaries of the same images.

A program that ships one binary for several GPU generations without tritonpack gives the driver a
fat binary (what nvcc embeds, or `fatbinary`'s output) and lets it pick and decompress the image.
This times that path against tritonpack's, in fresh processes on one GPU, with the same cubins
and PTX (variant 0 of vector_add and softmax, sm_80 / sm_90a / sm_100a, decoded from the
benchmark's own container), the same launch and the same synchronisation as first_launch's `raw`
rows, which load the chosen cubin already uncompressed in memory.

  # on a machine with the CUDA toolkit (no GPU needed): the images and four fat binaries of each
  python3 bench/launch/fatbin_compare.py prepare --build <build> --out <dir>
  # on the GPU machine (no toolkit needed): fresh processes, rows interleaved round by round
  python3 bench/launch/fatbin_compare.py run --build <build> --fatbins <dir> --runs 21 [--pin 3] \\
      [--jit-cache DIR] [--csv FILE] [--markdown FILE]

The fat binaries (`fatbinary --create`, CUDA's own tool), from least to most compressed:
  none     --compress-mode=none: every image as it is
  default  fatbinary's (and nvcc's) default: PTX compressed, cubins as they are
  speed    --compress-all --compress-mode=speed: every image compressed for decompression speed
  size     --compress-mode=size: every image compressed for size (bench/size's baseline)
tritonpack's rows are first_launch's programs: the default container (zstd frames), binaries
stored (`pack --store-binaries`) and one frame per binary (`pack --frames per-target`).
Standard library only.
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys

from cpu_ab import quartiles  # this folder's: (q1, q3) of a sample, its ends below 4 values

FATBIN_MODES = [
    ("none", ["--compress-mode=none"]),
    ("default", []),
    ("speed", ["--compress-all", "--compress-mode=speed"]),
    ("size", ["--compress-mode=size"]),
]
KERNELS = ["vector_add", "softmax"]
# (row label, first_launch program): each timed in its `tritonpack` and `second` modes
TRITONPACK_ROWS = [
    ("tritonpack (default container)", "tritonpack_first_launch"),
    ("tritonpack, binaries stored", "tritonpack_first_launch_stored"),
    ("tritonpack, one frame per binary", "tritonpack_first_launch_per_target"),
]


def prepare(a):
    program = os.path.join(a.build, "bench", "launch", "tritonpack_first_launch")
    images = os.path.join(a.out, "images")
    os.makedirs(images, exist_ok=True)
    subprocess.run([program, "export-images", images], check=True, capture_output=True, text=True)
    rows = [line.split("\t") for line in open(os.path.join(images, "images.tsv")).read().splitlines()]
    if not os.path.exists(a.fatbinary):
        sys.exit("fatbin_compare: %s not found; the fat binaries need the CUDA toolkit" % a.fatbinary)
    sizes = {}
    for kernel in KERNELS:
        mine = [r for r in rows if r[0] == kernel]
        if not any(r[2] == "cubin" for r in mine):
            sys.exit("fatbin_compare: the container holds no cubin of %s's variant 0" % kernel)
        args = []
        for _, arch, kind, name in mine:
            sm = arch[3:] if arch.startswith("sm_") else arch
            args.append("--image3=kind=%s,sm=%s,file=%s" % ("elf" if kind == "cubin" else "ptx", sm,
                                                           os.path.join(images, name)))
        raw = sum(os.path.getsize(os.path.join(images, r[3])) for r in mine)
        sizes[(kernel, "images")] = raw
        for mode, flags in FATBIN_MODES:
            out = os.path.join(a.out, "%s.%s.fatbin" % (kernel, mode))
            subprocess.run([a.fatbinary, "--create=" + out] + flags + args, check=True, capture_output=True)
            sizes[(kernel, mode)] = os.path.getsize(out)
    with open(os.path.join(a.out, "sizes.json"), "w") as f:
        json.dump({"%s/%s" % k: v for k, v in sizes.items()}, f, indent=1, sort_keys=True)
    for kernel in KERNELS:
        print("%s: %d images, %d bytes; fat binaries: %s" % (
            kernel, len([r for r in rows if r[0] == kernel]), sizes[(kernel, "images")],
            ", ".join("%s %d" % (m, sizes[(kernel, m)]) for m, _ in FATBIN_MODES)))


def run(a):
    launch = os.path.join(a.build, "bench", "launch")
    fb = lambda kernel, mode: os.path.join(a.fatbins, "%s.%s.fatbin" % (kernel, mode))
    for kernel in KERNELS:
        for mode, _ in FATBIN_MODES:
            if not os.path.exists(fb(kernel, mode)):
                sys.exit("fatbin_compare: %s is missing: run `prepare` first" % fb(kernel, mode))
    # (label, first-kernel command, further-kernel command)
    rows = [("raw cubin, uncompressed in memory", ["tritonpack_first_launch", "raw"],
             ["tritonpack_first_launch", "raw-second"])]
    # The test double parses cubins only: with it, the fat binary rows are left out (this checks
    # that the script and the other modes run, nothing more).
    for mode, _ in ([] if a.fake_driver else FATBIN_MODES):
        rows.append(("fat binary, %s" % mode,
                     ["tritonpack_first_launch", "fatbin", fb("vector_add", mode)],
                     ["tritonpack_first_launch", "fatbin-second", fb("vector_add", mode), fb("softmax", mode)]))
    for label, program in TRITONPACK_ROWS:
        if os.path.exists(os.path.join(launch, program)):
            rows.append((label, [program, "tritonpack"], [program, "second"]))
    env = dict(os.environ, TRITONPACK_CACHE="0")
    if a.fake_driver:
        env["TRITONPACK_CUDA_LIBRARY"] = a.fake_driver
    # The PTX path from a warm JIT cache (TRITONPACK_FORCE_IR=1): the driver's JIT ran once,
    # untimed, and each timed process loads the cubin the cache holds.
    jit_env = dict(env, TRITONPACK_FORCE_IR="1", TRITONPACK_CACHE="1", TRITONPACK_CACHE_DIR=a.jit_cache or "")
    jit_label = "tritonpack, PTX from the warm JIT cache"
    if a.jit_cache:
        rows.append((jit_label, ["tritonpack_first_launch", "tritonpack"], ["tritonpack_first_launch", "second"]))

    def once(cmd, label=None):
        full = [os.path.join(launch, cmd[0])] + cmd[1:]
        if a.pin is not None:
            full = ["taskset", "-c", a.pin] + full
        r = subprocess.run(full, env=jit_env if label == jit_label else env, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("fatbin_compare: %s failed (%d): %s" % (" ".join(full), r.returncode, r.stderr.strip()))
        return json.loads(r.stdout.strip().splitlines()[-1])["us"]

    if a.jit_cache:  # fill the cache, untimed
        once(rows[-1][1], jit_label)
        once(rows[-1][2], jit_label)
    times = {(label, which): [] for label, _, _ in rows for which in ("first", "further")}
    for i in range(a.runs):
        order = rows if i % 2 == 0 else rows[::-1]  # the host's drift hits every row alike
        for label, first, further in order:
            times[(label, "first")].append(once(first, label))
            times[(label, "further")].append(once(further, label))
    sizes = {}
    sizes_path = os.path.join(a.fatbins, "sizes.json")
    if os.path.exists(sizes_path):
        sizes = json.load(open(sizes_path))
    raw = {w: statistics.median(times[(rows[0][0], w)]) for w in ("first", "further")}
    out = []
    for label, _, _ in rows:
        cells = {"row": label}
        for w in ("first", "further"):
            v = times[(label, w)]
            med = statistics.median(v)
            q1, q3 = quartiles(v)
            cells[w] = med
            cells[w + "_q1"], cells[w + "_q3"] = q1, q3
            cells[w + "_x_raw"] = med / raw[w]
        mode = label[len("fat binary, "):] if label.startswith("fat binary, ") else None
        cells["bytes"] = (sizes.get("vector_add/" + mode, 0) + sizes.get("softmax/" + mode, 0)) if mode else ""
        out.append(cells)
    lines = ["| first load of | first kernel of a process, µs | × raw | a further kernel, µs | × raw | fat binary bytes (both kernels) |",
             "|---|---:|---:|---:|---:|---:|"]
    for c in out:
        lines.append("| %s | %.1f [%.1f, %.1f] | %.2f | %.1f [%.1f, %.1f] | %.2f | %s |" % (
            c["row"], c["first"], c["first_q1"], c["first_q3"], c["first_x_raw"],
            c["further"], c["further_q1"], c["further_q3"], c["further_x_raw"], c["bytes"]))
    if sizes:
        lines.append("")
        lines.append("The images themselves: %d bytes (vector_add %d, softmax %d)." % (
            sizes["vector_add/images"] + sizes["softmax/images"], sizes["vector_add/images"], sizes["softmax/images"]))
    text = "\n".join(lines)
    print(text)
    if a.markdown:
        open(a.markdown, "w").write(text + "\n")
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(out[0].keys()))
            w.writeheader()
            w.writerows(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="step", required=True)
    p = sub.add_parser("prepare", help="export the images and make the fat binaries (CUDA toolkit, no GPU)")
    p.add_argument("--build", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--fatbinary", default="/usr/local/cuda/bin/fatbinary")
    r = sub.add_parser("run", help="time every row in fresh processes (GPU)")
    r.add_argument("--build", required=True)
    r.add_argument("--fatbins", required=True, help="prepare's --out")
    r.add_argument("--runs", type=int, default=21)
    r.add_argument("--pin", help="run every process on this CPU (taskset -c)")
    r.add_argument("--fake-driver", help="a test-double libcuda: checks that the script and the tritonpack and raw "
                   "modes run (the test double cannot load fat binaries, so those rows are left out)")
    r.add_argument("--jit-cache", metavar="DIR", help="add the rows of the PTX path from a warm JIT cache in DIR")
    r.add_argument("--csv")
    r.add_argument("--markdown")
    a = ap.parse_args()
    prepare(a) if a.step == "prepare" else run(a)


if __name__ == "__main__":
    main()
