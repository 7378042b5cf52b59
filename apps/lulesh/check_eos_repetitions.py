"""Checks that material_eos still repeats the EOS: every compiled PTX of material_eos and
monotonic_q_material_eos (and their *_fma twins) must hold a loop, i.e. a branch back to a label defined above it.

The repetitions recompute the same values, so a compiler may fold them into one evaluation (the
results stay exact, only the reference's work is gone, and every timing of the kernel is wrong).
kernels.py keeps them live with a select on a condition that is never true but that the compiler
cannot decide; a condition it can decide inside the loop (`rep < 0` in `for _ in range(rep)`) let
LLVM fold all repetitions into a loop-free kernel. This check fails on such a kernel.

  python apps/lulesh/check_eos_repetitions.py <artifacts dir>...   # exit 1 if a loop is missing
"""
import pathlib
import re
import sys

# The kernels that run the EOS repetitions (and their *_fma twins): --fused-q-eos' kernel must keep them too.
EOS_KERNELS = ("material_eos", "monotonic_q_material_eos")
LABEL = re.compile(r"^(\$L__BB\d+_\d+):", re.M)
BRANCH = re.compile(r"\bbra(?:\.uni)?\s+(\$L__BB\d+_\d+);")


def has_loop(ptx):
    defined_at = {m.group(1): m.start() for m in LABEL.finditer(ptx)}
    return any(m.group(1) in defined_at and defined_at[m.group(1)] < m.start() for m in BRANCH.finditer(ptx))


def main(args):
    files = []
    for a in args:
        p = pathlib.Path(a)
        files += [f for f in sorted(p.rglob("*.ptx")) if f.parent.parent.name.startswith(EOS_KERNELS)] \
            if p.is_dir() else [p]
    if not files:
        print(f"no material_eos PTX in {' '.join(args)}: nothing was checked (compile with mode ir or both)")
        return 1
    folded = [f for f in files if not has_loop(f.read_text())]
    for f in folded:
        print(f"{f}: no loop: the EOS repetitions were folded into one evaluation (see kernels.py, `never`)")
    print(f"{len(files)} PTX files of {', '.join(EOS_KERNELS)}, {len(folded)} without the repetition loop")
    return 1 if folded else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
