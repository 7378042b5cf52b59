"""The lulesh program's time loops on the test-double CUDA driver (tests/runtime/fake_cuda: launches
checked and recorded, not run): what each loop queues, on which stream, how often it reads the
status, and the CUDA graph with its fallbacks.

    python apps/lulesh/check_fake_driver_run.py LULESH FAKE_CUDA_LIBRARY

The fake runs no kernel, so status[] never moves: the device-resident loop must stop at its first
status read with an error saying so (no hang), after queueing exactly one batch; the host-stepped
loop (--host-step) reads the status after every cycle and runs -i cycles. Exit status 0 when every
run is as expected, 1 otherwise (each difference printed). By default lulesh runs both fused
kernels: advance_nodes in place of the four node kernels and monotonic_q_material_eos in place of
monotonic_q and material_eos (8 launches a cycle); --no-fused-q-eos leaves the first (9, 8
host-stepped), --no-fused-nodes the second (13), both options the reference's 14 kernels (13
host-stepped); the graph machinery is checked on the 14-kernel cycle, captured and replayed alike.
"""
import os
import struct
import subprocess
import sys
import tempfile

# One cycle of the device-resident loop with every kernel apart (--no-fused-nodes --no-fused-q-eos),
# in launch order (triton_kernels.hpp; acceleration_bc once per symmetry plane).
CYCLE = ["advance_time", "volume_force", "gather_node_forces", "acceleration", "acceleration_bc", "acceleration_bc",
         "acceleration_bc", "position_velocity", "kinematics_q_gradient", "monotonic_q", "material_eos",
         "update_volume", "time_constraints", "reduce_time_constraints"]
HOST_CYCLE = CYCLE[1:]
# The fused node kernel alone (--no-fused-q-eos): advance_nodes in place of the four node kernels (9
# launches, 8 host-stepped).
FUSED_CYCLE = CYCLE[:2] + ["advance_nodes"] + CYCLE[8:]
# The fused Q and EOS alone (--no-fused-nodes): monotonic_q_material_eos in place of monotonic_q and
# material_eos (13 launches); both (the default) 8.
Q_EOS_CYCLE = CYCLE[:9] + ["monotonic_q_material_eos"] + CYCLE[11:]
BOTH_CYCLE = FUSED_CYCLE[:4] + ["monotonic_q_material_eos"] + FUSED_CYCLE[6:]
# Where each kernel that moves by dt takes it (its parameter index) and the value meaning "the
# cycle's dt from status[]" (kernels.py's DT_FROM_STATUS = -1.0, little-endian fp64).
DT_PARAM = {"position_velocity": 11, "kinematics_q_gradient": 22, "advance_nodes": 15}
DT_FROM_STATUS = struct.pack("<d", -1.0).hex()
# The reference's kernels, every one apart. The runs below name --no-fp-fusion (NO_FMA), but for two
# that check which builds load: an FMA build (`volume_force_fma` in kernels.toml) has its plain
# twin's entry point, so the fake's logs cannot tell them apart; the run time's log (TRITONPACK_LOG)
# names the kernel it loads.
APART = ["--no-fused-nodes", "--no-fused-q-eos"]
NO_FMA = ["--no-fp-fusion"]
# The kernels with an FMA build (kernels.toml: the three heavy kernels and the fused Q + EOS).
FMA_BUILDS = {"volume_force", "kinematics_q_gradient", "material_eos", "monotonic_q_material_eos"}


def fma_names(cycle):
    return [k + "_fma" if k in FMA_BUILDS else k for k in cycle]


ALL_KERNELS = set(CYCLE + FUSED_CYCLE + Q_EOS_CYCLE)

failures = []


def expect(what, ok):
    if not ok:
        failures.append(what)
        print(f"FAIL: {what}")


def run(lulesh, fake, args, fail=None, fma=False, log=False):
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, TRITONPACK_CUDA_LIBRARY=fake, TRITONPACK_FAKE_DEVICES="sm_90",
                   TRITONPACK_FAKE_STREAM_LOG=os.path.join(tmp, "streams"),
                   TRITONPACK_FAKE_LAUNCH_LOG=os.path.join(tmp, "launches"),
                   TRITONPACK_FAKE_REPORT=os.path.join(tmp, "report"))
        env.pop("TRITONPACK_FAKE_FAIL", None)
        env.pop("TRITONPACK_LOG", None)
        if log:  # the run time names each kernel it loads (the FMA builds share their entry points)
            env["TRITONPACK_LOG"] = "1"
        if fail:
            env["TRITONPACK_FAKE_FAIL"] = fail
        p = subprocess.run([lulesh, "-s", "4"] + args + ([] if fma else NO_FMA), env=env, capture_output=True,
                           text=True, timeout=300)
        streams = open(env["TRITONPACK_FAKE_STREAM_LOG"]).read().splitlines() if os.path.exists(
            env["TRITONPACK_FAKE_STREAM_LOG"]) else []
        dts = []  # (kernel, dt parameter's hex) of every logged launch that takes dt
        if os.path.exists(env["TRITONPACK_FAKE_LAUNCH_LOG"]):
            for line in open(env["TRITONPACK_FAKE_LAUNCH_LOG"]):
                name = line.split()[0]
                if name in DT_PARAM:
                    dts.append((name, line.split("params=")[1].strip().split(",")[DT_PARAM[name]]))
        report = {}
        if os.path.exists(env["TRITONPACK_FAKE_REPORT"]):
            for line in open(env["TRITONPACK_FAKE_REPORT"]):
                parts = line.split()
                if parts and parts[0] == "launch":
                    report[parts[1]] = int(parts[2])
        print(f"--- lulesh -s 4 {' '.join(args + ([] if fma else NO_FMA))}{'  [' + fail + ']' if fail else ''}: exit {p.returncode}")
        return p, streams, report, dts


def launches(streams):
    """(kernel, stream) of each direct or captured launch, ("graph", stream) of each graph launch
    and ("copy", stream) of each status copy, in order."""
    out = []
    for line in streams:
        words = line.split()
        if words[0] in ("cuLaunchKernel", "cuLaunchKernelEx"):
            out.append((words[1], words[2]))
        elif words[0] == "cuMemcpyAsync":
            out.append(("copy", words[1]))
        elif words[0] == "cuGraphLaunch":
            out.append(("graph", words[1]))
    return out


def check_resident(lulesh, fake, args, batch, note, captured, graphs, direct, total, fail=None, cycle=CYCLE):
    """A device-resident run: one batch of `batch` cycles queued, one status read, then the error.
    The stream log must show `captured` cycles' launches (the captures), `graphs` graph launches,
    `direct` cycles launched one by one, then the status copy; `total`: cycles of launches the
    fake recorded in all (graph replays included)."""
    p, streams, report, dts = run(lulesh, fake, args, fail)
    expect(f"{args}: exit status 1 (the status never moves on the fake)", p.returncode == 1)
    expect(f"{args}: says the kernels did not run", f"reports 0 cycles done after {batch} were queued" in p.stderr)
    expect(f"{args}: prints how the cycle runs ({note!r})", note in p.stdout)
    seq = launches(streams)
    own = [s for _, s in seq]
    expect(f"{args}: every launch on the loop's own stream", own and all(s == own[0] and s != "stream=legacy" for s in own))
    names = [k for k, _ in seq]
    want = cycle * captured + ["graph"] * graphs + cycle * direct + ["copy"]
    expect(f"{args}: {captured} cycles captured, {graphs} graph launches, {direct} cycles launched, one status copy;"
           f" got {names}", names == want)
    expect(f"{args}: dt read from status[] by every launch that takes it, got {dts}",
           dts and all(v == DT_FROM_STATUS for _, v in dts))
    expect(f"{args}: each kernel {total} times in all, got {report}",
           all(report.get(k, 0) == cycle.count(k) * total for k in ALL_KERNELS))


def main():
    lulesh, fake = sys.argv[1], sys.argv[2]
    # Graphs of one cycle and of a batch (min(k, 32) cycles) are captured; a batch of k cycles is
    # then k / batch batch-graph launches and the rest one-cycle launches.
    check_resident(lulesh, fake, ["-i", "3", "--status-every", "2"] + APART, 2, "replayed as CUDA graphs of 2 cycles",
                   captured=1 + 2, graphs=1, direct=0, total=1 + 2 + 2)
    check_resident(lulesh, fake, ["-i", "2", "--status-every", "5"] + APART, 2, "replayed as CUDA graphs of 5 cycles",
                   captured=1 + 5, graphs=2, direct=0, total=1 + 5 + 2)  # -i cuts the batch short: 2 x 1 cycle
    check_resident(lulesh, fake, ["-i", "40", "--status-every", "40"] + APART, 40, "replayed as CUDA graphs of 32 cycles",
                   captured=1 + 32, graphs=1 + 8, direct=0, total=1 + 32 + 40)  # at most 32 a graph: 32 + 8 x 1
    check_resident(lulesh, fake, ["-i", "9", "--status-every", "1"] + APART, 1, "replayed as CUDA graphs of 1 cycle",
                   captured=1, graphs=1, direct=0, total=1 + 1)
    check_resident(lulesh, fake, ["-i", "9", "--status-every", "3", "--no-graph"] + APART, 3,
                   "kernels launched one by one (no graph: --no-graph)", captured=0, graphs=0, direct=3, total=3)
    check_resident(lulesh, fake, ["-i", "9", "--status-every", "3"] + APART, 3,
                   "kernels launched one by one (no graph: cuStreamBeginCapture failed", captured=0, graphs=0,
                   direct=3, total=3, fail="cuStreamBeginCapture=1")
    check_resident(lulesh, fake, ["-i", "9", "--status-every", "3"] + APART, 3,
                   "kernels launched one by one (no graph: cuGraphInstantiateWithFlags failed", captured=1, graphs=0,
                   direct=3, total=1 + 3, fail="cuGraphInstantiateWithFlags=1")
    # The batch graph refused, the one-cycle graph taken: three one-cycle replays.
    check_resident(lulesh, fake, ["-i", "9", "--status-every", "3"] + APART, 3, "replayed as CUDA graphs of 1 cycle",
                   captured=1 + 3, graphs=3, direct=0, total=1 + 3 + 3, fail="cuGraphInstantiateWithFlags=1@2")
    check_resident(lulesh, fake, ["-i", "9", "--status-every", "3", "--timing"] + APART, 3,
                   "kernels launched one by one (no graph: --timing", captured=0, graphs=0, direct=3, total=3)

    # The default: both fused kernels, 8 launches a cycle, captured and replayed as the unfused cycle is;
    # asked for by name, the same.
    check_resident(lulesh, fake, ["-i", "3", "--status-every", "2"], 2,
                   "replayed as CUDA graphs of 2 cycles", captured=1 + 2, graphs=1, direct=0, total=1 + 2 + 2,
                   cycle=BOTH_CYCLE)
    check_resident(lulesh, fake, ["-i", "3", "--status-every", "2", "--fused-nodes", "--fused-q-eos"], 2,
                   "replayed as CUDA graphs of 2 cycles", captured=1 + 2, graphs=1, direct=0, total=1 + 2 + 2,
                   cycle=BOTH_CYCLE)
    # The fused node kernel alone: 9 launches a cycle.
    check_resident(lulesh, fake, ["-i", "3", "--status-every", "2", "--no-fused-q-eos"], 2,
                   "replayed as CUDA graphs of 2 cycles", captured=1 + 2, graphs=1, direct=0, total=1 + 2 + 2,
                   cycle=FUSED_CYCLE)
    check_resident(lulesh, fake, ["-i", "9", "--status-every", "3", "--no-graph", "--no-fused-q-eos"], 3,
                   "kernels launched one by one (no graph: --no-graph)", captured=0, graphs=0, direct=3, total=3,
                   cycle=FUSED_CYCLE)
    # The fused Q and EOS alone: 13.
    check_resident(lulesh, fake, ["-i", "3", "--status-every", "2", "--no-fused-nodes"], 2,
                   "replayed as CUDA graphs of 2 cycles", captured=1 + 2, graphs=1, direct=0, total=1 + 2 + 2,
                   cycle=Q_EOS_CYCLE)
    p, streams, report, dts = run(lulesh, fake, ["-i", "3", "--host-step", "--no-fused-q-eos"])
    expect("--host-step --no-fused-q-eos: runs its 3 cycles, says the node loops are one kernel",
           "Iteration count     =  3" in p.stdout and "the node loops in one kernel, advance_nodes" in p.stdout
           and "monotonic Q and EOS as two kernels (--no-fused-q-eos)" in p.stdout)
    expect(f"--host-step --no-fused-q-eos: 8 launches and a status copy per cycle, got {launches(streams)}",
           [k for k, _ in launches(streams)] == (FUSED_CYCLE[1:] + ["copy"]) * 3)
    expect(f"--host-step --no-fused-q-eos: dt by value to advance_nodes and kinematics_q_gradient, got {dts}",
           len(dts) == 6 and all(v != DT_FROM_STATUS for _, v in dts) and dts[0][0] == "advance_nodes")
    p, streams, report, dts = run(lulesh, fake, ["-i", "2", "--host-step"])
    expect(f"--host-step --no-fp-fusion: both fused kernels, 7 launches and a status copy per cycle, got {launches(streams)}",
           [k for k, _ in launches(streams)] == (BOTH_CYCLE[1:] + ["copy"]) * 2)
    # The default as it comes: both fused kernels, the heavy ones and the Q + EOS as their FMA builds
    # (the fake logs entry points, which the FMA builds share: the run time's log names the kernel).
    loaded = lambda p, k: f"tritonpack: kernel {k} variant" in p.stderr
    p, streams, report, dts = run(lulesh, fake, ["-i", "2", "--host-step"], fma=True, log=True)
    expect(f"--host-step (the default): the fused cycle, got {launches(streams)}",
           [k for k, _ in launches(streams)] == (BOTH_CYCLE[1:] + ["copy"]) * 2
           and "FP contraction on in volume_force" in p.stdout)
    expect("--host-step (the default): the FMA builds loaded, and only they",
           all(loaded(p, k) for k in fma_names(sorted(FMA_BUILDS - {"material_eos"})))
           and not any(loaded(p, k) for k in FMA_BUILDS))
    p, streams, report, dts = run(lulesh, fake, ["-i", "2", "--host-step"], log=True)
    expect("--host-step --no-fp-fusion: the plain builds loaded, and only they",
           all(loaded(p, k) for k in FMA_BUILDS - {"material_eos"})
           and not any(loaded(p, k) for k in fma_names(sorted(FMA_BUILDS))))

    p, streams, report, dts = run(lulesh, fake, ["-i", "3", "--host-step"] + APART)
    expect("--host-step, kernels apart: runs its 3 cycles, says so",
           "Iteration count     =  3" in p.stdout and "Time step: host-stepped" in p.stdout
           and "the node loops as four kernels (--no-fused-nodes)" in p.stdout)
    seq = launches(streams)
    expect(f"--host-step, kernels apart: 13 launches and a status copy per cycle, on the legacy stream, got {seq}",
           [k for k, _ in seq] == (HOST_CYCLE + ["copy"]) * 3 and all(s == "stream=legacy" for _, s in seq))
    expect("--host-step: no advance_time", "advance_time" not in report)
    expect("--host-step, kernels apart: no fused kernel",
           "advance_nodes" not in report and "monotonic_q_material_eos" not in report)
    expect(f"--host-step: dt passed by value (the first cycle's > 0), got {dts}",
           len(dts) == 6 and all(v != DT_FROM_STATUS for _, v in dts)
           and struct.unpack("<d", bytes.fromhex(dts[0][1]))[0] > 0)
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all fake-driver runs as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
