"""Markdown tables from lulesh_bench's CSV (bench.cpp describes the rows).

  python apps/lulesh/bench/summarize.py lulesh_bench.csv [--kernel-sizes 45,150]

Ratios are time(Triton) / time(CUDA twin): above 1, Triton is slower. Speed relative to CUDA, as
the goals are stated (Triton >= 0.95x CUDA), is the inverse.
"""
import argparse
import collections
import csv

KERNELS = ["volume_force", "gather_node_forces", "acceleration", "acceleration_bc", "position_velocity",
           "kinematics_q_gradient", "monotonic_q", "material_eos", "update_volume", "time_constraints",
           "reduce_time_constraints", "time constraints (both)", "sum of kernels", "status copy"]
FMA = {"volume_force_fma": "volume_force", "kinematics_q_gradient_fma": "kinematics_q_gradient",
       "material_eos_fma": "material_eos"}


def load(path):
    rows = list(csv.DictReader(open(path)))
    for r in rows:
        r["s"] = int(r["s"])
        for k in ("median_us", "p10_us", "p90_us", "value"):
            r[k] = float(r[k])
        r["name"] = FMA.get(r["name"], r["name"])
    return rows


def index(rows, kind):
    out = {}
    for r in rows:
        if r["kind"] == kind:
            out[(r["s"], r["backend"], r["name"])] = r
    return out


def fmt(x, digits=1):
    return "—" if x is None else f"{x:.{digits}f}"


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--kernel-sizes", default="")
    a = ap.parse_args()
    rows = load(a.csv)
    sizes = sorted({r["s"] for r in rows if r["kind"] == "step"})
    backends = [b for b in ["triton", "triton_tuned", "cuda_tree", "cuda_cub", "triton_fma", "cuda_fma"]
                if any(r["backend"] == b for r in rows)]

    print("## Verification (runs to completion)\n")
    print("| s | back end | iterations | final origin energy | published result |")
    print("|---|---|---|---|---|")
    ver = index(rows, "verify")
    cyc = index(rows, "verify_cycles")
    for (s, b, name), r in sorted(ver.items()):
        c = cyc.get((s, b, name))
        print(f"| {s} | {b} | {int(c['value']) if c else '?'} | {r['value']:.6e} | {name.upper()} |")

    step = index(rows, "step")
    state = index(rows, "state")
    print("\n## Whole step (the real loop: dt control, one status read-back per cycle; wall clock)\n")
    print("| s | " + " | ".join(f"{b} µs" for b in backends) + " | FOM triton | FOM cuda_tree | "
          "Triton speed vs CUDA (tree) | tuned vs CUDA | origin energies equal |")
    print("|---" * (len(backends) + 6) + "|")
    for s in sizes:
        t = {b: step.get((s, b, "whole step (loop; wall)")) for b in backends}
        us = {b: (t[b]["median_us"] if t[b] else None) for b in backends}
        fom = {b: (t[b]["value"] if t[b] else None) for b in backends}
        energies = {state[(s, b, n)]["value"] for (ss, b, n) in state if ss == s and b in ("triton", "triton_tuned", "cuda_tree", "cuda_cub")}
        print(f"| {s} | " + " | ".join(fmt(us[b]) for b in backends) +
              f" | {fom.get('triton') or 0:.3e} | {fom.get('cuda_tree') or 0:.3e} | "
              f"{fmt(ratio(us.get('cuda_tree'), us.get('triton')), 3)} | {fmt(ratio(us.get('cuda_tree'), us.get('triton_tuned')), 3)} | "
              f"{'yes' if len(energies) == 1 else 'NO: ' + ', '.join(f'{e:.9e}' for e in sorted(energies))} |")

    stream = index(rows, "stream")
    graph = index(rows, "graph")
    print("\n## Step launched back to back vs captured in a CUDA graph (fixed dt, no read-back; device µs per step)\n")
    print("| s | triton stream | triton graph | cuda_tree stream | cuda_tree graph | Triton/CUDA stream | Triton/CUDA graph | graph nodes T/C |")
    print("|---|---|---|---|---|---|---|---|")
    for s in sizes:
        ts = stream.get((s, "triton", "step launches back to back (fixed dt)"))
        cs = stream.get((s, "cuda_tree", "step launches back to back (fixed dt)"))
        tg = graph.get((s, "triton", "step as a CUDA graph (fixed dt)"))
        cg = graph.get((s, "cuda_tree", "step as a CUDA graph (fixed dt)"))
        v = lambda r: r["median_us"] if r else None
        print(f"| {s} | {fmt(v(ts))} | {fmt(v(tg))} | {fmt(v(cs))} | {fmt(v(cg))} | {fmt(ratio(v(ts), v(cs)), 3)} | "
              f"{fmt(ratio(v(tg), v(cg)), 3)} | {int(tg['value']) if tg else '—'}/{int(cg['value']) if cg else '—'} |")
    failed = [(s, b) for (s, b, n) in graph if n == "capture failed"]
    if failed:
        print(f"\nGraph capture FAILED for: {failed}")

    kern = index(rows, "kernel")
    print("\n## Time constraints (both reductions; device µs per step, median [p10, p90])\n")
    print("| s | Triton | Triton tuned | CUDA legacy tree | CUB | Triton speed vs tree | vs CUB |")
    print("|---|---|---|---|---|---|---|")
    for s in sizes:
        g = lambda b: kern.get((s, b, "time constraints (both)"))
        cell = lambda r: f"{r['median_us']:.1f} [{r['p10_us']:.1f}, {r['p90_us']:.1f}]" if r else "—"
        m = lambda r: r["median_us"] if r else None
        print(f"| {s} | {cell(g('triton'))} | {cell(g('triton_tuned'))} | {cell(g('cuda_tree'))} | {cell(g('cuda_cub'))} | "
              f"{fmt(ratio(m(g('cuda_tree')), m(g('triton'))), 3)} | {fmt(ratio(m(g('cuda_cub')), m(g('triton'))), 3)} |")

    ksizes = [int(x) for x in a.kernel_sizes.split(",") if x] or sizes
    for s in ksizes:
        print(f"\n## Per kernel at s = {s} (device µs per step from CUDA events: median [p10, p90])\n")
        print("| kernel | Triton | Triton tuned | CUDA | Triton/CUDA | tuned/CUDA | Triton fma | CUDA fma |")
        print("|---|---|---|---|---|---|---|---|")
        for k in KERNELS:
            g = lambda b: kern.get((s, b, k))
            cell = lambda r: f"{r['median_us']:.1f} [{r['p10_us']:.1f}, {r['p90_us']:.1f}]" if r else "—"
            m = lambda r: r["median_us"] if r else None
            print(f"| {k} | {cell(g('triton'))} | {cell(g('triton_tuned'))} | {cell(g('cuda_tree'))} | "
                  f"{fmt(ratio(m(g('triton')), m(g('cuda_tree'))), 2)} | {fmt(ratio(m(g('triton_tuned')), m(g('cuda_tree'))), 2)} | "
                  f"{fmt(m(g('triton_fma')))} | {fmt(m(g('cuda_fma')))} |")

    sweep = [r for r in rows if r["kind"] == "sweep"]
    if sweep:
        print("\n## Sweep: the library's configuration vs the fastest tuning configuration (device µs, median)\n")
        by = collections.defaultdict(list)
        for r in sweep:
            kernel, config = r["name"].split(" ", 1)
            by[(r["s"], kernel)].append((config, r["median_us"]))
        ks = sorted({k for (_, k) in by}, key=lambda k: KERNELS.index(k) if k in KERNELS else 99)
        print("| kernel | " + " | ".join(f"s={s}" for s in sizes) + " |")
        print("|---" * (len(sizes) + 1) + "|")
        for k in ks:
            cells = []
            for s in sizes:
                v = by.get((s, k))
                if not v:
                    cells.append("—")
                    continue
                own = next(t for c, t in v if c.startswith("library"))
                best_c, best_t = min(v, key=lambda x: x[1])
                cells.append(f"{own:.1f} → {best_c.replace('library ', 'lib ')} {best_t:.1f}")
            print(f"| {k} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
