#!/usr/bin/env python3
"""Container size vs CUDA's fatbinary, for the same cubins + PTX.

For each kernel of a manifest (and for all of them together) this packs the CUDA images with
`tritonpack pack` and bundles the same files with `fatbinary --compress-mode=size`, then prints
our bytes, fatbinary's bytes and the ratio (goal: <= 0.75, issue 28). The tritonpack container stays
byte-exact (pack -> extract reproduces every file) and decodes one kernel without the others.

usage: size_bench.py --tritonpack PATH --manifest PATH [--manifest PATH ...] [--fatbinary PATH]
                     [--level N] [--frames F] [--dict-size BYTES] [--ptx-as-is]
                     [--keep-targets LIST [--keep-ir KIND]]
                     [--markdown FILE] [--csv FILE]
With --keep-targets (and --keep-ir), the container is packed with `pack --keep-targets` (what
`tritonpack strip` writes for a site's GPUs) and fatbinary bundles exactly the images it kept.
Standard library only. The manifests are artifact directories made by the front end, e.g. of
bench/size/kernels.toml (`cmake --build <build> --target bench_size` compiles it into the build
tree and runs this on it and on tests/data/artifacts).
"""
import argparse
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile


def cuda_only(manifest):
    """The manifest restricted to CUDA cubin/PTX images (fatbinary holds nothing else)."""
    m = copy.deepcopy(manifest)
    for k in m["kernels"]:
        for v in k["variants"]:
            v["images"] = [im for im in v["images"] if im["backend"] == "cuda"]
    return m


def images_of(manifest):
    out = []
    for k in manifest["kernels"]:
        for v in k["variants"]:
            for im in v["images"]:
                if im["file"] not in [o["file"] for o in out]:
                    out.append(im)
    return out


def fatbinary_bytes(fatbinary, base, images, work):
    args = [fatbinary, "--create=" + os.path.join(work, "out.fatbin"), "--compress-mode=size"]
    for im in images:
        sm = im["arch"][3:] if im["arch"].startswith("sm_") else im["arch"]
        kind = "elf" if im["kind"] == "cubin" else "ptx"
        args.append("--image3=kind=%s,sm=%s,file=%s" % (kind, sm, os.path.join(base, im["file"])))
    subprocess.run(args, check=True, capture_output=True)
    return os.path.getsize(os.path.join(work, "out.fatbin"))


def tritonpack_bytes(tritonpack, base, manifest, work, level, extra):
    """Packs `manifest`, checks extract gives back every file byte for byte; returns the size and
    the files extracted (relative to `base`: the images the container holds)."""
    path = os.path.join(base, ".size_bench_manifest.json")
    with open(path, "w") as f:
        json.dump(manifest, f)
    try:
        out = os.path.join(work, "tp")
        subprocess.run([tritonpack, "pack", path, "-o", out, "--name", "bench", "--level", str(level)] + extra,
                       check=True, capture_output=True)
        tpk = os.path.join(out, "bench.tpk")
        ex = os.path.join(work, "extracted")
        subprocess.run([tritonpack, "extract", tpk, "-o", ex], check=True, capture_output=True)
        kept = []
        for root, _, files in os.walk(ex):
            for name in files:
                rel = os.path.relpath(os.path.join(root, name), ex)
                with open(os.path.join(ex, rel), "rb") as a, open(os.path.join(base, rel), "rb") as b:
                    if a.read() != b.read():
                        raise SystemExit("size_bench: extract of %s differs from the artifact" % rel)
                kept.append(rel)
        return os.path.getsize(tpk), kept
    finally:
        os.remove(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tritonpack", required=True)
    ap.add_argument("--fatbinary", default="/usr/local/cuda/bin/fatbinary")
    ap.add_argument("--manifest", action="append", required=True,
                    help="manifest.json of an artifact directory (repeat for several)")
    ap.add_argument("--level", type=int, default=19)
    ap.add_argument("--frames", default=None, help="pass --frames to tritonpack pack")
    ap.add_argument("--dict-size", type=int, default=0,
                    help="pass --dict-size to tritonpack pack (a zstd dictionary trained on the images)")
    ap.add_argument("--ptx-as-is", action="store_true",
                    help="pass --ptx-as-is to tritonpack pack (every PTX held as is: format v3's sizes)")
    ap.add_argument("--keep-targets", help="pass --keep-targets to tritonpack pack; fatbinary gets the kept images")
    ap.add_argument("--keep-ir", help="pass --keep-ir to tritonpack pack")
    ap.add_argument("--markdown", help="also write the table as Markdown to this file")
    ap.add_argument("--csv", help="also write the rows as CSV to this file (bench/size/plot_size.py plots it)")
    a = ap.parse_args()
    if not os.path.exists(a.fatbinary):
        print("size_bench: %s not found; the fatbinary baseline needs the CUDA toolkit" % a.fatbinary, file=sys.stderr)
        return 1
    manifests = a.manifest
    extra = (["--frames", a.frames] if a.frames else []) + (["--ptx-as-is"] if a.ptx_as_is else []) + \
        (["--dict-size", str(a.dict_size)] if a.dict_size else [])
    if a.keep_targets:
        extra += ["--keep-targets", a.keep_targets] + (["--keep-ir", a.keep_ir] if a.keep_ir else [])
    rows = []
    for mpath in manifests:
        base = os.path.dirname(os.path.abspath(mpath))
        with open(mpath) as f:
            full = cuda_only(json.load(f))
        sets = [(k["name"], dict(full, kernels=[k])) for k in full["kernels"]]
        sets.append(("all of " + full["name"], full))
        for label, m in sets:
            ims = images_of(m)
            if not ims:
                continue
            work = tempfile.mkdtemp(prefix="tp_size_")
            try:
                ours, kept = tritonpack_bytes(a.tritonpack, base, m, work, a.level, extra)
                ims = [im for im in ims if os.path.normpath(im["file"]) in {os.path.normpath(k) for k in kept}]
                theirs = fatbinary_bytes(a.fatbinary, base, ims, work)
            finally:
                shutil.rmtree(work, ignore_errors=True)
            raw = sum(os.path.getsize(os.path.join(base, im["file"])) for im in ims)
            archs = sorted({"%s %s" % (im["kind"], im["arch"]) for im in ims}) if a.keep_targets else \
                sorted({im["arch"] for im in ims})
            rows.append((label, len(ims), " ".join(archs), raw, ours, theirs, ours / theirs))

    head = ("kernels", "images", "targets (cubin + PTX)", "raw bytes", "tritonpack", "fatbinary -size", "ratio")
    widths = [max(len(str(r[i])) if i != 6 else 5 for r in rows + [head]) for i in range(len(head))]
    fmt_row = lambda r: "  ".join((("%.3f" % r[i]) if i == 6 and not isinstance(r[i], str) else str(r[i])).rjust(widths[i]) if i else str(r[i]).ljust(widths[i]) for i in range(len(r)))
    print("zstd level %d, frames %s%s%s%s; goal: ratio <= 0.75" % (a.level, a.frames or "per-kernel-backend (default)",
          ", dictionary %d bytes" % a.dict_size if a.dict_size else "",
          ", PTX as is" if a.ptx_as_is else "",
          ", kept %s (IR: %s)" % (a.keep_targets, a.keep_ir or "targets") if a.keep_targets else ""))
    print(fmt_row(head))
    for r in rows:
        print(fmt_row(r))
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write("| " + " | ".join(head) + " |\n|" + "---|" * len(head) + "\n")
            for r in rows:
                f.write("| " + " | ".join(("%.3f" % x) if isinstance(x, float) else str(x) for x in r) + " |\n")
    if a.csv:
        with open(a.csv, "w") as f:
            f.write("kernels,images,targets,raw_bytes,tritonpack,fatbinary_size,ratio\n")
            for r in rows:
                f.write(",".join(("%.4f" % x) if isinstance(x, float) else str(x) for x in r) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
