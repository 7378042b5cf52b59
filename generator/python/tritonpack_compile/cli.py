"""Command lines: the compile, `python -m tritonpack_compile` (from a checkout or an installed tree, with
the package on PYTHONPATH; `tritonpack-compile` after `pip install`), and `tritonpack-build` (compile,
then pack; a console script of `pip install` only)."""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

from . import GENERATOR, names
from .errors import TritonpackError
from .fileio import check_output_dir, check_output_file, describe_os_error
from .interrupt import Interrupted

# Where each command exists: the usage and --help name only commands that work as written.
WHERE = ("From a checkout: PYTHONPATH=<tritonpack>/generator/python python -m tritonpack_compile ...; from an "
         "installed tree: PYTHONPATH=<prefix>/share/tritonpack/python. After `pip install "
         "<tritonpack>/generator/python` also the console scripts tritonpack-compile and tritonpack-build.")


def _split_targets(values):
    if not values:
        return None
    out = []
    for v in values:
        out.extend(t for t in (s.strip() for s in v.split(",")) if t)
    return out


def _common(p: argparse.ArgumentParser):
    p.add_argument("spec", help="kernel spec (TOML; see docs/spec.md)")
    p.add_argument("-j", "--jobs", type=int, default=None,
                   help="parallel compile processes (default: one per core, fewer when memory is short: "
                        "about 1 GB each)")
    p.add_argument("--targets", nargs="+", metavar="TARGET",
                   help="replace every kernel's targets, e.g. --targets sm_80 sm_90 gfx942 (or comma-separated)")
    p.add_argument("--targets-from", metavar="TEXT", default="--targets",
                   help="where the --targets value came from, named in its error messages (tritonpack_add_kernels "
                        "passes 'TARGETS of tritonpack_add_kernels(TARGET)')")
    p.add_argument("--mode", choices=("binary", "ir", "both"), help="replace every kernel's mode")
    p.add_argument("--cache-dir", help="compile cache (default $TRITONPACK_COMPILE_CACHE_DIR, else "
                                       "$XDG_CACHE_HOME/tritonpack/compile or ~/.cache/tritonpack/compile)")
    p.add_argument("--no-cache", action="store_true", help="compile everything, and do not keep the results")
    p.add_argument("--depfile", metavar="FILE",
                   help="also write a make-style depfile: the manifest depends on the spec, the kernel files and "
                        "the local modules they import")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="print only failures, compilations still running after 30 s, and the summary")
    p.add_argument("--time-limit", type=float, metavar="SECONDS",
                   help="stop a compilation (one kernel image) that runs longer (default "
                        "$TRITONPACK_COMPILE_TIME_LIMIT, else 600; 0: no limit)")
    p.add_argument("--version", action="version", version=GENERATOR)


def _run_compile(ns, out_dir):
    from .frontend import compile_spec, default_cache_dir
    if ns.jobs is not None and ns.jobs < 1:
        raise TritonpackError("-j must be at least 1")
    if ns.time_limit is not None and not ns.time_limit >= 0:
        raise TritonpackError("--time-limit must be a number of seconds, 0 for no limit")
    # Paths that cannot be written fail now, not after the compile.
    check_output_dir(out_dir, "-o")
    if ns.depfile:
        check_output_file(ns.depfile, "--depfile")
    if not ns.no_cache:
        check_output_dir(ns.cache_dir or default_cache_dir(),
                         "--cache-dir" if ns.cache_dir else
                         "the compile cache: choose another with --cache-dir or TRITONPACK_COMPILE_CACHE_DIR, or "
                         "use --no-cache")
    outcome = compile_spec(ns.spec, out_dir, jobs=ns.jobs, targets=_split_targets(ns.targets), mode=ns.mode,
                           targets_from=ns.targets_from,
                           cache_dir=ns.cache_dir, use_cache=not ns.no_cache, quiet=ns.quiet,
                           depfile=ns.depfile, time_limit=ns.time_limit)
    for w in outcome.warnings:
        print(f"warning: {w}", file=sys.stderr)
    total = outcome.compiled + outcome.cached
    if outcome.failures:
        print(f"\n{len(outcome.failures)} of {total} compilations failed:", file=sys.stderr)
        for f in outcome.failures:
            # Triton's messages span lines (source excerpt, caret); indent them under their error
            print("  error: " + f.replace("\n", "\n      "), file=sys.stderr)
        print(f"no manifest written to {out_dir}", file=sys.stderr)
        return 1
    nimg = sum(len(v["images"]) for k in outcome.manifest["kernels"] for v in k["variants"])
    print(f"{len(outcome.manifest['kernels'])} kernels, {nimg} images -> {Path(out_dir) / 'manifest.json'} "
          f"({outcome.compiled} compiled, {outcome.cached} cached, {outcome.seconds:.2f}s)")
    return 0


def _guard(fn):
    try:
        return fn()
    except TritonpackError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except Interrupted as e:
        # the compile workers are gone and nothing half-done was kept (interrupt.py)
        print(f"stopped by {e.name}: compilations killed, no manifest written", file=sys.stderr)
        return e.exit_status
    except OSError as e:  # a write that failed mid-run (a full disk, say): why and what to do, no traceback
        print(f"error: {describe_os_error(e)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # outside the compile (stop_on_signals not active)
        print("interrupted", file=sys.stderr)
        return 130


def compile_main(argv=None, prog="tritonpack-compile") -> int:
    p = argparse.ArgumentParser(prog=prog,
                                description="Compile the Triton kernels of a spec for many GPU targets (no GPU "
                                            "needed) into an artifact directory with manifest.json, for "
                                            "`tritonpack pack ARTIFACT_DIR/manifest.json -o OUTDIR`.",
                                epilog=WHERE)
    _common(p)
    p.add_argument("-o", "--output", required=True, metavar="ARTIFACT_DIR", help="artifact directory")
    ns = p.parse_args(argv)
    return _guard(lambda: _run_compile(ns, ns.output))


def find_packer(explicit=None) -> str:
    cand = explicit or os.environ.get("TRITONPACK_PACKER")
    if cand:
        p = shutil.which(cand) or (cand if Path(cand).is_file() else None)
        if not p:
            src = "--packer" if explicit else "$TRITONPACK_PACKER"
            raise TritonpackError(f"the packer given by {src} ({cand}) does not exist or is not executable")
        return p
    p = shutil.which("tritonpack")
    if not p:
        raise TritonpackError("the tritonpack packer was not found: pass --packer PATH, set TRITONPACK_PACKER, or "
                              "put `tritonpack` (built from generator/cli) on PATH")
    return p


def build_main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="tritonpack-build",
                                description="Compile a spec into OUTDIR/artifacts, then pack it with the C++ "
                                            "packer into OUTDIR/NAME.tpk and OUTDIR/NAME.hpp.",
                                epilog=WHERE)
    _common(p)
    p.add_argument("-o", "--output", required=True, metavar="OUTDIR")
    p.add_argument("--name", help="library name (header namespace); default: the spec's `name`")
    p.add_argument("--packer", help="path of the `tritonpack` packer (default $TRITONPACK_PACKER, then PATH)")
    ns = p.parse_args(argv)

    def run():
        import json
        packer = find_packer(ns.packer)  # before compiling: fail fast
        if ns.name is not None and names.problem(ns.name):  # the packer's rule, checked before compiling
            raise TritonpackError(f"--name: the library name {names.problem(ns.name)}; pass e.g. "
                                  f"--name {names.suggestion(ns.name, 'library')}")
        out = Path(ns.output)
        rc = _run_compile(ns, out / "artifacts")
        if rc:
            return rc
        manifest_path = out / "artifacts" / "manifest.json"
        m = json.loads(manifest_path.read_text())
        name = ns.name or m["name"]
        cmd = [packer, "pack", str(manifest_path), "-o", str(out), "--name", name, "--mode", ns.mode or m["mode"]]
        if not ns.quiet:
            print("+ " + " ".join(cmd))
        try:
            r = subprocess.run(cmd)
        except OSError as e:
            raise TritonpackError(f"could not run the packer {packer}: {e.strerror}") from None
        if r.returncode:
            print(f"error: the packer failed (exit {r.returncode})", file=sys.stderr)
        return r.returncode
    return _guard(run)
