"""kernels.py's advance_time (the device-resident step's TimeIncrement) in Triton's interpreter
against the host's own code, bit for bit, on many random cases: time_control.hpp's done() and
time_increment() compiled into time_increment_oracle (CMake target lulesh_time_increment_oracle,
-ffp-contract=off as the program).

    python apps/lulesh/check_advance_time.py ORACLE [--cases N] [--seed S]

The cases aim at every branch: the first cycle, a fixed dt, each side of the growth limits (ratio
below 1, at and around 1.1 and 1.2), dtmax, no constraint (1e20), the last steps before the stop
time (the 4/3 rule), the loop's end by time or by cycle count, a fatal condition of the last step,
and a run already stopped (nothing may change). Exit status 0 all equal, 1 a difference (the first
ones printed), 77 no numpy 1.x (skipped).
"""
import argparse
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]
from interpreter_host import HostArray, np  # noqa: E402  (before triton: turns the interpreter on)

import triton.language as tl  # noqa: E402
from triton.runtime.interpreter import TensorHandle  # noqa: E402

import kernels  # noqa: E402

STOPTIME, DTFIXED, MULTLB, MULTUB, DTMAX = 1.0e-2, -1.0e-6, 1.1, 1.2, 1.0e-2
HISTORY = 4


def f64(x):
    return tl.tensor(TensorHandle(np.array([x], dtype=np.float64), tl.float64), tl.float64)


def make_case(rng):
    """(time, deltatime, cycle, dtcourant, dthydro, stoptime, dtfixed, multlb, multub, dtmax,
    max_cycles, failed, stopped_before)."""
    olddt = 10.0 ** rng.uniform(-9, -1.5)
    kind = rng.random()
    # The constraints: around each rule's edges, or anywhere.
    ratio_target = rng.choice([rng.uniform(0.2, 1.0), 1.0, rng.uniform(1.0, 1.1), 1.1, rng.uniform(1.1, 1.2), 1.2,
                               rng.uniform(1.2, 3.0), 10.0 ** rng.uniform(-3, 3)])
    newdt = olddt * ratio_target
    if rng.random() < 0.5:
        newdt = newdt * (1.0 + rng.choice([-1, 1]) * 2.0 ** -52 * rng.randint(0, 4))  # an ulp or so either side
    which = rng.random()
    if which < 0.4:
        dtcourant, dthydro = newdt * 2.0, newdt * 3.0 / 2.0 * rng.uniform(1.0, 3.0)
    elif which < 0.8:
        dtcourant, dthydro = newdt * 2.0 * rng.uniform(1.0, 3.0), newdt * 3.0 / 2.0
    elif which < 0.9:
        dtcourant, dthydro = 1.0e20, 1.0e20  # no element constrains dt
    else:
        dtcourant, dthydro = 1.0e20, newdt * 1.5
    if rng.random() < 0.05:
        dtcourant = 1.0e20 * rng.choice([0.5, 1.0, 2.0])
    # Time: anywhere, or within a few steps of the stop time (the last-step rules), or past it.
    if kind < 0.5:
        time = rng.uniform(0.0, STOPTIME)
    elif kind < 0.9:
        time = STOPTIME - olddt * rng.choice([rng.uniform(0.0, 3.0), 4.0 / 3.0, 1.0, 2.0 / 3.0, rng.uniform(1.0, 1.5)])
    else:
        time = STOPTIME + rng.choice([0.0, olddt])
    cycle = rng.choice([0, 1, rng.randint(1, 5000)])
    max_cycles = 9999999 if rng.random() < 0.85 else rng.choice([cycle, cycle + 1, max(0, cycle - 1)])
    dtfixed = DTFIXED if rng.random() < 0.9 else rng.choice([1.0e-6, 0.0])
    dtmax = DTMAX if rng.random() < 0.8 else olddt * rng.uniform(0.5, 2.0)
    failed = rng.random() < 0.03
    stopped_before = rng.random() < 0.03
    return (time, olddt, float(cycle), dtcourant, dthydro, STOPTIME, dtfixed, MULTLB, MULTUB, dtmax, max_cycles,
            failed, stopped_before)


def run_kernel(case):
    time, dt, cycle, dtcourant, dthydro, stoptime, dtfixed, lb, ub, dtmax, max_cycles, failed, stopped_before = case
    status = np.zeros(8 + 2 * HISTORY)
    status[0], status[1] = dtcourant, dthydro
    status[2] = 1.0 if failed else 0.0
    status[4] = 1.0 if stopped_before else 0.0
    status[5], status[6], status[7] = time, dt, cycle
    before = status.copy()
    host = HostArray(status)
    kernels.advance_time[(1,)](host, f64(stoptime), max_cycles, f64(dtfixed), f64(lb), f64(ub), f64(dtmax), HISTORY)
    s = host.a
    if stopped_before and not np.array_equal(s.view(np.int64), before.view(np.int64)):
        return "changed status[] although the run was stopped"
    if not stopped_before and s[4] == 0.0:
        k = 8 + 2 * ((int(s[7]) - 1) % HISTORY)
        if s[k] != s[5] or s[k + 1] != s[6]:
            return f"history slot {k} holds ({s[k]!r}, {s[k + 1]!r}), not the cycle's time and dt"
    return s


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("oracle", help="the lulesh_time_increment_oracle program")
    ap.add_argument("--cases", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=20261205)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    cases = [make_case(rng) for _ in range(args.cases)]
    lines = "".join(" ".join(float(v).hex() for v in c[:11]) + f" {1.0 if c[11] else 0.0}\n" for c in cases)
    done = subprocess.run([args.oracle], input=lines, capture_output=True, text=True, check=True).stdout.split("\n")
    failures = 0
    counts = dict(stopped=0, first_cycle=0, grown=0, kept=0, capped=0, shrunk=0, last_step=0)
    for case, want in zip(cases, done):
        stopped, time, dt, cycle = want.split()
        got = run_kernel(case)
        if isinstance(got, str):
            problem = got
        elif case[12]:
            problem = None
        else:
            problem = None
            wanted = (float(stopped), float.fromhex(time), float.fromhex(dt), float(cycle))
            gotten = (got[4], got[5], got[6], got[7])
            if any(np.float64(a).view(np.int64) != np.float64(b).view(np.int64) for a, b in zip(wanted, gotten)):
                problem = f"kernel (stopped, time, dt, cycle) = {gotten!r}, host {wanted!r}"
            if wanted[0]:
                counts["stopped"] += 1
            elif case[2] == 0:
                counts["first_cycle"] += 1
            else:
                r = wanted[2] / case[1]
                counts["kept" if r == 1.0 else "grown" if r > 1.0 else "shrunk"] += 1
                counts["capped"] += wanted[2] == case[9]
                counts["last_step"] += wanted[1] == case[5]
        if problem:
            failures += 1
            if failures <= 5:
                print(f"DIFFERS: case {case!r}: {problem}")
    print(f"advance_time vs time_control.hpp: {len(cases) - failures} of {len(cases)} cases bit for bit "
          f"({', '.join(f'{k} {v}' for k, v in counts.items())})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
