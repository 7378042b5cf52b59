#!/usr/bin/env python3
"""Triton's own Python autotuner (@triton.autotune) on bench/autotune's kernels and shapes, for
agreement with tritonpack's on-device tuning.

    python3 triton_autotune.py --shapes autotune.csv --csv triton_autotune.csv [--table agreement.md]

The shapes are those of a bench.cpp run (its --csv: kernel, kind, m, n, k per row), so both tuners
see the same problems. For each one this calls the kernel of kernels.py the way a Python user
would (torch tensors, uniform random inputs in [-1, 1) / [-4, 4) as bench.cpp), which makes
Triton's autotuner time every config with do_bench (L2 flushed, median of ~100 ms of runs,
quantiles 0.5/0.2/0.8) and pick the lowest median. It records each config's timings and the
pick, and checks the output against torch (matmul: max relative error; softmax: also no NaN, the
row widths below the widest tile are the case fixed in kernels.py).

With --table, it then sets Triton's pick beside tritonpack's (the `tuned=N` rows of the same CSV)
and writes the agreement table (Markdown): where they differ, the time of tritonpack's choice over
Triton's, by bench.cpp's sweep (L2 flushed, interleaved rounds) and by Triton's do_bench. compare()
needs no GPU: `--compare-only` redoes the table from the two CSVs.
"""
import argparse
import csv
import os
import sys


def read_shapes(path):
    """(kernel, kind, m, n, k) in the order of bench.cpp's CSV, each once."""
    seen, out = set(), []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            key = (r["kernel"], r["kind"], int(r["m"]), int(r["n"]), int(r["k"]))
            if key not in seen:
                seen.add(key)
                out.append(key)
    return out


def measure(shapes, out_csv):
    """Runs Triton's autotuner on every shape (needs a GPU, torch and Triton 3.6)."""
    import torch
    import triton
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import kernels

    rows, worst = [], 0.0
    torch.manual_seed(42)
    for kernel, kind, m, n, k in shapes:
        if kernel == "matmul":
            fn = kernels.matmul
            a = torch.rand((m, k), device="cuda", dtype=torch.float16) * 2 - 1
            b = torch.rand((k, n), device="cuda", dtype=torch.float16) * 2 - 1
            c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
            grid = lambda meta: (triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"]),)  # noqa: E731
            fn[grid](a, b, c, m, n, k, a.stride(0), b.stride(0), c.stride(0))
            ref = (a.float() @ b.float())
            err = ((c.float() - ref).abs() / (1 + ref.abs())).max().item()
            ok = err < 1e-2
        else:
            fn = kernels.softmax
            x = torch.rand((m, n), device="cuda", dtype=torch.float32) * 8 - 4
            y = torch.full_like(x, float("nan"))
            fn[(m,)](y, x, n, n)
            ref = torch.softmax(x.double(), dim=1)
            err = ((y.double() - ref).abs() / (ref + 1e-6)).max().item()
            ok = err < 1e-3 and not torch.isnan(y).any().item()
        torch.cuda.synchronize()
        chosen = fn.configs.index(fn.best_config)
        timings = fn.configs_timings  # {config: [median, p20, p80] ms} of this key's tuning run
        worst = max(worst, err if ok else float("inf"))
        for i, cfg in enumerate(fn.configs):
            t = timings.get(cfg, [float("nan")] * 3)
            rows.append([kernel, kind, m, n, k, i, f"{t[0] * 1000:.3f}", f"{t[1] * 1000:.3f}", f"{t[2] * 1000:.3f}", int(i == chosen), f"{err:.2e}"])
        med = " ".join(f"{timings[c][0] * 1000:.1f}" for c in fn.configs if c in timings)
        print(f"{kernel:8s} {kind:11s} {m}x{n}" + (f"x{k}" if k else "") + f": Triton picks config {chosen}"
              f" (medians us: {med}); output {'ok' if ok else 'WRONG'} (max rel error {err:.1e})", flush=True)
    with open(out_csv, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["kernel", "kind", "m", "n", "k", "config", "median_us", "p20_us", "p80_us", "chosen", "max_rel_error"])
        w.writerows(rows)
    return worst != float("inf")


def compare(tritonpack_csv, triton_csv):
    """The agreement table (Markdown lines) and the number of shapes where both chose alike."""
    sweep, tuned = {}, {}
    with open(tritonpack_csv, newline="") as f:
        for r in csv.DictReader(f):
            key = (r["kernel"], r["kind"], int(r["m"]), int(r["n"]), int(r["k"]))
            if r["config"].startswith("tuned="):
                tuned[key] = int(r["config"].split("=")[1])
            elif r["config"].isdigit():
                sweep.setdefault(key, {})[int(r["config"])] = float(r["us"])
    dobench, picked = {}, {}
    with open(triton_csv, newline="") as f:
        for r in csv.DictReader(f):
            key = (r["kernel"], r["kind"], int(r["m"]), int(r["n"]), int(r["k"]))
            dobench.setdefault(key, {})[int(r["config"])] = float(r["median_us"])
            if r["chosen"] == "1":
                picked[key] = int(r["config"])
    lines = ["| kernel | shape | tritonpack (on-device, empty cache) | Triton @autotune | agree | tritonpack's / Triton's time, bench.cpp sweep | same, Triton's do_bench |",
             "|---|---|---|---|---|---|---|"]
    agree = total = 0
    for key in tuned:
        if key not in picked:
            continue
        kernel, kind, m, n, k = key
        tp, tr = tuned[key], picked[key]
        total += 1
        agree += tp == tr
        shape = f"{m}x{n}x{k}" if k else f"{m}x{n}"
        if tp == tr:
            ratios = ["", ""]
        else:
            ratios = [f"{sweep[key][tp] / sweep[key][tr]:.3f}", f"{dobench[key][tp] / dobench[key][tr]:.3f}"]
        lines.append(f"| {kernel} | {shape} | {tp} | {tr} | {'yes' if tp == tr else 'no'} | {ratios[0]} | {ratios[1]} |")
    lines.append("")
    lines.append(f"Same config on {agree} of {total} problems.")
    return lines, agree, total


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--shapes", required=True, help="bench.cpp's --csv (shapes, and tritonpack's choices for --table)")
    p.add_argument("--csv", required=True, help="where Triton's timings and picks go (read with --compare-only)")
    p.add_argument("--table", help="write the agreement table (Markdown) here")
    p.add_argument("--compare-only", action="store_true", help="no GPU: only the table, from the two CSVs")
    a = p.parse_args()
    ok = True
    if not a.compare_only:
        ok = measure(read_shapes(a.shapes), a.csv)
    if a.table:
        lines, agree, total = compare(a.shapes, a.csv)
        with open(a.table, "w") as f:
            f.write("\n".join(lines) + "\n")
        print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
