"""Runs the XSBench kernels of kernels.py on the CPU, in Triton's interpreter, on tiny problems, and
compares every lookup's verification value with the C++ CPU lookup's (cpu_lookup.hpp): a check
of the kernels themselves (sampling, bisections, masks, the counting sort and the launch
sequences of all three variants) on a machine without a GPU.

    python apps/xsbench/interpret_check.py build/apps/xsbench/xsbench /tmp/xsbench-interpret

The program writes each problem with `xsbench --dump` (its arrays, the kernels' scalar arguments
and the CPU's results); the kernels' tile sizes are kernels.toml's. Exit status: 0 all matched,
1 a mismatch, 77 numpy (1.x) is missing (ctest reports the test as skipped).
"""
import os
import subprocess
import sys
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.dirname(HERE))  # apps/: what the interpreter checks share
# Before triton: turns the interpreter on; exits 77 (skipped) without numpy 1.x.
from interpreter_host import HostArray, np  # noqa: E402

np.seterr(all="ignore")  # masked-off lanes divide by zero and 64-bit products wrap, as on the GPU

import kernels  # noqa: E402

# (program options, what it exercises): both sizes' material tables, both grids.
# Sizes: a few tiles each (the interpreter's cost is tiles x loop trips). The large problems (a
# 321-iteration fuel loop per tile) run the three basic variants only, to keep the check near a
# minute; the packed and energy-sorted kernels are the same code on either size.
PROBLEMS = [
    (["-s", "small", "-g", "60", "-l", "512"], "small, unionized", True),
    (["-s", "small", "-g", "60", "-h", "40", "-l", "512", "-G", "hash"], "small, hash", True),
    (["-s", "large", "-g", "16", "-l", "256"], "large, unionized", False),
    (["-s", "large", "-g", "16", "-h", "12", "-l", "256", "-G", "hash"], "large, hash", False),
]


# apps/xsbench/bench's experiments (packed reads) on the same kernels.py, checked here too when present.
EXPERIMENTS = os.path.join(HERE, "bench", "experiments.toml")


def compiled_constexprs():
    """Each C++ kernel name's constexprs (GRID, BLOCK, PACKED) as kernels.toml (and the bench's
    experiments.toml) compile it."""
    kernels = {}
    for path in (os.path.join(HERE, "kernels.toml"), EXPERIMENTS):
        if os.path.exists(path):
            with open(path, "rb") as f:
                kernels.update({k["name"]: (k["source"].split(":")[1], k.get("constexprs", {}))
                                for k in tomllib.load(f)["kernel"]})
    return kernels


KERNELS = compiled_constexprs()


def launch(name, count, *args):
    if count == 0:
        return
    source, consts = KERNELS[name]
    consts = {k: v for k, v in consts.items() if k != "PACKED" or v}
    getattr(kernels, source)[(-(-count // consts["BLOCK"]),)](*args, **consts)


def load(directory):
    meta = dict(line.split() for line in open(os.path.join(directory, "meta.txt")))
    meta = {k: int(v) for k, v in meta.items()}
    arr = {}
    for name in ("nuclide_grid.f64", "unionized_energy.f64", "concs.f64", "thresholds.f64"):
        arr[name.split(".")[0]] = np.fromfile(os.path.join(directory, name), dtype=np.float64)
    for name in ("index_grid.i32", "num_nucs.i32", "mats.i32"):
        arr[name.split(".")[0]] = np.fromfile(os.path.join(directory, name), dtype=np.int32)
    arr["cpu"] = np.fromfile(os.path.join(directory, "cpu_verification.u8"), dtype=np.uint8).astype(np.int32)
    if arr["unionized_energy"].size == 0:
        arr["unionized_energy"] = np.zeros(1)  # as device_problem: one unused element
    return meta, arr


def run_variants(meta, arr, experiments):
    """Every variant's verification values, as triton_lookups.hpp launches them (experiments: also
    the packed kernels and the sort by material, then energy)."""
    grid = "unionized" if meta["grid"] == 0 else "hash"
    n = meta["lookups"]
    h = {k: HostArray(v) for k, v in arr.items() if k != "cpu"}
    table = (h["nuclide_grid"], h["unionized_energy"], h["index_grid"], h["num_nucs"], h["mats"], h["concs"])
    scalars = (meta["n_isotopes"], meta["n_gridpoints"], meta["search_steps"], meta["hash_bins"], meta["hash_steps"],
               meta["max_num_nucs"])
    results = {}

    for variant, kernel in (("fused", f"lookup_fused_{grid}"), ("fused, packed", f"lookup_fused_{grid}_packed"))[:1 + experiments]:
        if kernel not in KERNELS:
            continue
        out = HostArray(np.full(n, -1, np.int32))
        launch(kernel, n, *table, h["thresholds"], out, n, meta["skip_bits"], *scalars)
        results[variant] = out.a

    energies, materials = HostArray(np.full(n, np.nan)), HostArray(np.full(n, -1, np.int32))
    launch("sample_lookups", n, energies, materials, h["thresholds"], n, meta["skip_bits"])
    out = HostArray(np.full(n, -1, np.int32))
    launch(f"lookup_split_{grid}", n, energies, materials, *table, out, n, *scalars)
    results["split"] = out.a

    counts = HostArray(np.zeros(12, np.int32))
    launch("material_histogram", n, materials, counts, n)
    if counts.a.sum() != n or np.any(counts.a != np.bincount(materials.a, minlength=12)):
        raise SystemExit(f"material_histogram: counts {counts.a.tolist()}, expected {np.bincount(materials.a).tolist()}")
    first = np.concatenate([[0], np.cumsum(counts.a)[:-1]]).astype(np.int32)
    cursor = HostArray(first.copy())
    sorted_energies, sorted_lookups = HostArray(np.full(n, np.nan)), HostArray(np.full(n, -1, np.int32))
    launch("material_scatter", n, energies, materials, cursor, sorted_energies, sorted_lookups, n)
    if sorted(sorted_lookups.a.tolist()) != list(range(n)):
        raise SystemExit("material_scatter: the sorted order is not a permutation of the lookups")
    if np.any(materials.a[sorted_lookups.a] != np.repeat(np.arange(12), counts.a)):
        raise SystemExit("material_scatter: a lookup landed in another material's range")
    per_material(results, "sorted", grid, counts.a, first, sorted_energies, sorted_lookups, table, scalars, n, experiments)
    if not experiments:
        return results

    # by material, then energy bucket (triton_lookups.hpp: energy_bins = 1024)
    bins = 1024
    buckets = HostArray(np.zeros(12 * bins, np.int32))
    launch("bucket_histogram", n, energies, materials, buckets, n, bins)
    key = materials.a * bins + np.minimum((energies.a * bins).astype(np.int32), bins - 1)
    if np.any(buckets.a != np.bincount(key, minlength=12 * bins)):
        raise SystemExit("bucket_histogram: counts differ from numpy's")
    starts = np.concatenate([[0], np.cumsum(buckets.a)[:-1]]).astype(np.int32)
    cursor = HostArray(starts.copy())
    sorted_energies, sorted_lookups = HostArray(np.full(n, np.nan)), HostArray(np.full(n, -1, np.int32))
    launch("bucket_scatter", n, energies, materials, cursor, sorted_energies, sorted_lookups, n, bins)
    if np.any(np.diff(key[sorted_lookups.a]) < 0) or sorted(sorted_lookups.a.tolist()) != list(range(n)):
        raise SystemExit("bucket_scatter: not a permutation sorted by material, then energy bucket")
    per_material(results, "energy", grid, counts.a, first, sorted_energies, sorted_lookups, table, scalars, n, True)
    return results


def per_material(results, label, grid, counts, first, sorted_energies, sorted_lookups, table, scalars, n, packed):
    """One launch per material of lookup_material (and of its packed twin)."""
    for variant, kernel in ((label, f"lookup_material_{grid}"), (label + ", packed", f"lookup_material_{grid}_packed"))[:1 + packed]:
        if kernel not in KERNELS:
            continue
        out = HostArray(np.full(n, -1, np.int32))
        for m in range(12):
            launch(kernel, int(counts[m]), sorted_energies, sorted_lookups, int(first[m]), int(counts[m]), m, *table,
                   out, *scalars)
        results[variant] = out.a


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: interpret_check.py XSBENCH_PROGRAM WORK_DIR")
    program, work = sys.argv[1], sys.argv[2]
    failed = 0
    for i, (args, label, experiments) in enumerate(PROBLEMS):
        directory = os.path.join(work, f"problem{i}")
        subprocess.run([program, *args, "--dump", directory], check=True, stdout=subprocess.DEVNULL)
        meta, arr = load(directory)
        for variant, values in run_variants(meta, arr, experiments).items():
            differ = int(np.count_nonzero(values != arr["cpu"]))
            print(f"{label:18s} {variant:14s}: {differ} of {meta['lookups']} lookups differ from the CPU's"
                  f" (checksum {int(values.astype(np.int64).sum()) % 999983}, CPU {int(arr['cpu'].sum()) % 999983})")
            failed += differ != 0
    print("interpret_check:", "FAILED" if failed else "all variants match the CPU lookup for lookup")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
