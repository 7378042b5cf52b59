"""Runs the LULESH kernels of kernels.py on the CPU, in Triton's interpreter, to completion on a
small mesh, and checks the reference's published result: a check of the kernels themselves (their
indexing, masks, formulas and launch sequence) on a machine without a GPU.

    pip install "numpy<2"    # the interpreter's only extra need (no torch, no GPU)
    python apps/lulesh/interpret_check.py                # s = 5: 72 cycles, e = 7.853665e+03
                                                         # (ctest example.lulesh.interpret)
    python apps/lulesh/interpret_check.py -s 5 -i 10 --expect-energy 3.245955e+04
                                                         # 10 cycles, a quicker look
    python apps/lulesh/interpret_check.py -s 5 --resident 16
                                                         # the device-resident loop (ctest
                                                         # example.lulesh.interpret.resident)

--resident K runs the GPU program's default loop instead of the host-stepped one: advance_time (the
time increment as a kernel) starts every cycle, cycles are queued K at a time, status[] is read
only between batches (each cycle's time and dt from its history slots), and the cycles queued
after the stop must leave the state alone.

Every cycle's time and dt are compared with the reference's (reference/progress_s*.txt, lulesh2.0
-p) as they go; a run to completion is also compared with the published result. Exit status: 0
all matched, 1 a mismatch, 77 numpy (1.x) is missing (ctest reports the test as skipped).

The interpreter evaluates each operation with numpy in IEEE double without contraction, as the
reference's x86 build does (cbrt, which the interpreter cannot call from libdevice, is the C
library's here, as in the reference), so the published numbers are expected exactly. The host side here is
a compact numpy twin of the C++ one (mesh.hpp, problem.hpp, time_control.hpp); the kernels, their
tile sizes and their launch order are the real ones (sizes read from kernels.toml). The regions
are three made-up ones with 1, 2 and 5 EOS repetitions (material_eos's padded slots as regions.hpp's
make_eos_order lays them out): regions change the work, not the result.
"""
import argparse
import math
import os
import sys
import time
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]
# Before triton: turns the interpreter on; exits 77 (skipped) without numpy 1.x.
from interpreter_host import HostArray, np  # noqa: E402

np.seterr(all="ignore")  # masked-off lanes divide by zero, as they may on the GPU
import triton.language as tl  # noqa: E402
from triton.runtime.interpreter import TensorHandle  # noqa: E402

import kernels  # noqa: E402

# regions.hpp's eos_tile_alignment: material_eos's slots pad each region to a multiple of it.
EOS_TILE_ALIGNMENT = 512
PUBLISHED = {5: (72, "7.853665e+03"), 10: (231, "2.720531e+04"), 30: (932, "2.025075e+05"), 45: (1477, "4.234875e+05")}


def interpreted_cbrt(x):
    """The interpreter cannot call the vendor's math library (extern calls): numpy's cbrt (the C
    library's, as the reference's) stands in for kernels.cbrt."""
    return tl.tensor(TensorHandle(np.cbrt(x.handle.data), x.handle.dtype), x.type)


kernels.cbrt = interpreted_cbrt


def f64(x):
    """An fp64 scalar argument (a Python float could be taken as fp32)."""
    return tl.tensor(TensorHandle(np.array([x], dtype=np.float64), tl.float64), tl.float64)


def launch_sizes():
    """BLOCK etc. of each kernel as kernels.toml compiles it (the non-FMA entries)."""
    with open(os.path.join(HERE, "kernels.toml"), "rb") as f:
        spec = tomllib.load(f)
    return {k["source"].split(":")[1]: k.get("constexprs", {}) for k in spec["kernel"] if "name" not in k}


def launch(name, count, *args):
    consts = SIZES[name]
    grid = (max(1, -(-count // consts["BLOCK"])) if name != "reduce_time_constraints" else 1,)
    if count == 0:
        return
    getattr(kernels, name)[grid](*args, **consts)


def element_volume(x, y, z):
    """hex_geometry.element_volume / problem.hpp's element_volume, in plain Python floats."""
    d = lambda a, b: (x[a] - x[b], y[a] - y[b], z[a] - z[b])  # noqa: E731
    dx61, dy61, dz61 = d(6, 1)
    dx70, dy70, dz70 = d(7, 0)
    dx63, dy63, dz63 = d(6, 3)
    dx20, dy20, dz20 = d(2, 0)
    dx50, dy50, dz50 = d(5, 0)
    dx64, dy64, dz64 = d(6, 4)
    dx31, dy31, dz31 = d(3, 1)
    dx72, dy72, dz72 = d(7, 2)
    dx43, dy43, dz43 = d(4, 3)
    dx57, dy57, dz57 = d(5, 7)
    dx14, dy14, dz14 = d(1, 4)
    dx25, dy25, dz25 = d(2, 5)

    def tp(x1, y1, z1, x2, y2, z2, x3, y3, z3):
        return x1 * (y2 * z3 - z2 * y3) + x2 * (z1 * y3 - y1 * z3) + x3 * (y1 * z2 - z1 * y2)

    v = (tp(dx31 + dx72, dx63, dx20, dy31 + dy72, dy63, dy20, dz31 + dz72, dz63, dz20)
         + tp(dx43 + dx57, dx64, dx70, dy43 + dy57, dy64, dy70, dz43 + dz57, dz64, dz70)
         + tp(dx14 + dx25, dx61, dx50, dy14 + dy25, dy61, dy50, dz14 + dz25, dz61, dz50))
    return v * (1.0 / 12.0)


def build(s, history=0):
    en = s + 1
    ne, nn = s ** 3, en ** 3
    stride = (ne + 31) // 32 * 32
    node = np.arange(nn)
    x = 1.125 * (node % en).astype(np.float64) / s
    y = 1.125 * ((node // en) % en).astype(np.float64) / s
    z = 1.125 * (node // (en * en)).astype(np.float64) / s
    elem = np.arange(ne)
    col, row, plane = elem % s, (elem // s) % s, elem // (s * s)
    base = col + en * row + en * en * plane
    P = en * en
    corners = np.stack([base, base + 1, base + en + 1, base + en, base + P, base + P + 1, base + P + en + 1, base + P + en])
    nodelist = np.zeros(8 * stride, np.int32)
    for c in range(8):
        nodelist[c * stride:c * stride + ne] = corners[c]
    slots = [[] for _ in range(nn)]
    for i in range(ne):
        for c in range(8):
            slots[corners[c, i]].append(c * stride + i)
    start = np.zeros(nn + 1, np.int32)
    start[1:] = np.cumsum([len(sl) for sl in slots])
    corner_list = np.array([sl for lst in slots for sl in lst], np.int32)
    lxim = np.where(elem == 0, 0, elem - 1)
    lxip = np.where(elem == ne - 1, ne - 1, elem + 1)
    letam = np.where(elem < s, elem, elem - s)
    letap = np.where(elem >= ne - s, elem, elem + s)
    lzetam = np.where(elem < s * s, elem, elem - s * s)
    lzetap = np.where(elem >= ne - s * s, elem, elem + s * s)
    bc = ((col == 0) * 0x1 | (col == s - 1) * 0x10 | (row == 0) * 0x40 | (row == s - 1) * 0x400
          | (plane == 0) * 0x1000 | (plane == s - 1) * 0x10000)
    volo = np.array([element_volume(x[corners[:, i]], y[corners[:, i]], z[corners[:, i]]) for i in range(ne)])
    nodal_mass = np.zeros(nn)
    for i in range(ne):
        for c in range(8):
            nodal_mass[corners[c, i]] += volo[i] / 8.0
    scale = s / 45.0
    einit = 3.948746e+7 * scale * scale * scale
    e = np.zeros(ne)
    e[0] = einit
    dt0 = (0.5 * math.cbrt(volo[0])) / math.sqrt(2.0 * einit)
    i32 = lambda a: HostArray(np.asarray(a, np.int32))  # noqa: E731
    zeros = lambda n: HostArray(np.zeros(n))  # noqa: E731
    d = dict(x=HostArray(x), y=HostArray(y), z=HostArray(z), xd=zeros(nn), yd=zeros(nn), zd=zeros(nn),
             xdd=zeros(nn), ydd=zeros(nn), zdd=zeros(nn), fx=zeros(nn), fy=zeros(nn), fz=zeros(nn),
             nodal_mass=HostArray(nodal_mass), e=HostArray(e), p=zeros(ne), q=zeros(ne), ql=zeros(ne),
             qq=zeros(ne), v=HostArray(np.ones(ne)), delv=zeros(ne), volo=HostArray(volo), vnew=zeros(ne),
             vdov=zeros(ne), arealg=zeros(ne), ss=zeros(ne), elem_mass=HostArray(volo.copy()),
             delv_xi=zeros(ne), delv_eta=zeros(ne), delv_zeta=zeros(ne), delx_xi=zeros(ne),
             delx_eta=zeros(ne), delx_zeta=zeros(ne), fx_corner=zeros(8 * stride), fy_corner=zeros(8 * stride),
             fz_corner=zeros(8 * stride), nodelist=i32(nodelist), node_elem_start=i32(start),
             node_elem_corner=i32(corner_list), lxim=i32(lxim), lxip=i32(lxip), letam=i32(letam),
             letap=i32(letap), lzetam=i32(lzetam), lzetap=i32(lzetap), elem_bc=i32(bc),
             symm_x=i32(np.flatnonzero(node % en == 0)), symm_y=i32(np.flatnonzero((node // en) % en == 0)),
             symm_z=i32(np.flatnonzero(node // (en * en) == 0)), status=zeros(8 + 2 * history))
    # advance_nodes' per-node symmetry bits (device_state.hpp's node_symmetry_bits): SYMM_X, _Y, _Z.
    d["node_symm"] = i32((node % en == 0) * 1 | ((node // en) % en == 0) * 2 | (node // (en * en) == 0) * 4)
    # three regions of interleaved runs of 7 elements, repeated 1, 2 and 5 times
    region_of = (elem // 7) % 3
    lists = [np.flatnonzero(region_of == r) for r in range(3)]
    d["region_elems"] = i32(np.concatenate(lists))
    eos_elems, eos_reps = eos_order(lists, (1, 2, 5))
    d["eos_elems"], d["eos_reps"] = i32(eos_elems), i32(eos_reps)
    partials = -(-ne // SIZES["time_constraints"]["BLOCK"])
    d["partial_courant"], d["partial_hydro"] = zeros(partials), zeros(partials)
    return d, dict(ne=ne, nn=nn, stride=stride, eos_slots=len(eos_elems), partials=partials, dt0=dt0)


def eos_order(lists, repetitions, alignment=EOS_TILE_ALIGNMENT):
    """regions.hpp's make_eos_order: the costliest regions first, each list padded with -1 to a
    multiple of `alignment` slots; returns the slots' elements and repetitions (0 on padding)."""
    elems, reps = [], []
    for r in sorted(range(len(lists)), key=lambda r: -repetitions[r]):  # stable, as std::stable_sort
        pad = -len(lists[r]) % alignment
        elems += list(lists[r]) + [-1] * pad
        reps += [repetitions[r]] * len(lists[r]) + [0] * pad
    return elems, reps


def step(d, m, dt, fused_nodes=False, fused_q_eos=False):
    """One cycle's kernels; dt = kernels.DT_FROM_STATUS: the cycle's dt from status[] (resident).
    fused_nodes: advance_nodes instead of the four node kernels (lulesh --fused-nodes); fused_q_eos:
    monotonic_q_material_eos instead of monotonic_q and material_eos (lulesh --fused-q-eos)."""
    ne, nn, stride = m["ne"], m["nn"], m["stride"]
    launch("volume_force", ne, d["x"], d["y"], d["z"], d["xd"], d["yd"], d["zd"], d["p"], d["q"], d["v"], d["volo"],
           d["ss"], d["elem_mass"], d["nodelist"], d["fx_corner"], d["fy_corner"], d["fz_corner"], d["status"], ne,
           stride, f64(3.0))
    if fused_nodes:
        launch("advance_nodes", nn, d["fx_corner"], d["fy_corner"], d["fz_corner"], d["node_elem_start"],
               d["node_elem_corner"], d["nodal_mass"], d["node_symm"], d["x"], d["y"], d["z"], d["xd"], d["yd"],
               d["zd"], d["status"], nn, f64(dt), f64(1.0e-7))
    else:
        node_kernels(d, nn, dt)
    element_kernels(d, m, dt, fused_q_eos)


def node_kernels(d, nn, dt):
    """The default path's node loops: the forces, accelerations, symmetry planes, then the move."""
    launch("gather_node_forces", nn, d["fx_corner"], d["fy_corner"], d["fz_corner"], d["node_elem_start"],
           d["node_elem_corner"], d["fx"], d["fy"], d["fz"], d["status"], nn)
    launch("acceleration", nn, d["fx"], d["fy"], d["fz"], d["nodal_mass"], d["xdd"], d["ydd"], d["zdd"], d["status"], nn)
    for acc, plane in (("xdd", "symm_x"), ("ydd", "symm_y"), ("zdd", "symm_z")):
        launch("acceleration_bc", len(d[plane].a), d[acc], d[plane], d["status"], len(d[plane].a))
    launch("position_velocity", nn, d["x"], d["y"], d["z"], d["xd"], d["yd"], d["zd"], d["xdd"], d["ydd"], d["zdd"],
           d["status"], nn, f64(dt), f64(1.0e-7))


def element_kernels(d, m, dt, fused_q_eos=False):
    ne, stride = m["ne"], m["stride"]
    launch("kinematics_q_gradient", ne, d["x"], d["y"], d["z"], d["xd"], d["yd"], d["zd"], d["volo"], d["v"],
           d["nodelist"], d["vnew"], d["delv"], d["arealg"], d["vdov"], d["delv_xi"], d["delv_eta"], d["delv_zeta"],
           d["delx_xi"], d["delx_eta"], d["delx_zeta"], d["status"], ne, stride, f64(dt))
    if fused_q_eos:
        slots = m["eos_slots"]
        launch("monotonic_q_material_eos", slots, d["eos_elems"], d["eos_reps"], slots, d["elem_bc"], d["lxim"],
               d["lxip"], d["letam"], d["letap"], d["lzetam"], d["lzetap"], d["delv_xi"], d["delv_eta"],
               d["delv_zeta"], d["delx_xi"], d["delx_eta"], d["delx_zeta"], d["vdov"], d["volo"], d["elem_mass"],
               d["e"], d["p"], d["q"], d["delv"], d["vnew"], d["v"], d["ss"], d["status"], f64(2.0), f64(1.0),
               f64(0.5), f64(2.0 / 3.0), f64(1.0e12), f64(1.0e-7), f64(1.0e-7), f64(1.0e-7), f64(1.0e-9),
               f64(1.0e9), f64(0.0), f64(-1.0e15), f64(1.0))
    else:
        q_and_eos_kernels(d, m)
    launch("update_volume", ne, d["vnew"], d["v"], d["status"], ne, f64(1.0e-10))
    launch("time_constraints", ne, d["ss"], d["vdov"], d["arealg"], ne, f64(64.0 * 2.0 * 2.0), f64(0.1),
           d["partial_courant"], d["partial_hydro"], d["status"])
    launch("reduce_time_constraints", 1, d["partial_courant"], d["partial_hydro"], m["partials"], d["status"])


def q_and_eos_kernels(d, m):
    """The default path's monotonic Q, then the EOS over all regions."""
    ne = m["ne"]
    launch("monotonic_q", ne, d["region_elems"], ne, d["elem_bc"], d["lxim"], d["lxip"], d["letam"], d["letap"],
           d["lzetam"], d["lzetap"], d["delv_xi"], d["delv_eta"], d["delv_zeta"], d["delx_xi"], d["delx_eta"],
           d["delx_zeta"], d["vdov"], d["volo"], d["vnew"], d["elem_mass"], d["q"], d["ql"], d["qq"], d["status"],
           f64(2.0), f64(1.0), f64(0.5), f64(2.0 / 3.0), f64(1.0e12))
    slots = m["eos_slots"]
    launch("material_eos", slots, d["eos_elems"], d["eos_reps"], slots, d["e"], d["p"], d["q"], d["ql"], d["qq"],
           d["delv"], d["vnew"], d["v"], d["ss"], d["status"], f64(1.0e-7), f64(1.0e-7), f64(1.0e-7),
           f64(1.0e-9), f64(1.0e9), f64(0.0), f64(-1.0e15), f64(1.0))


# Which kernel writes each field (launch order), to name the suspect when a replay differs.
WRITERS = [("volume_force", ["fx_corner", "fy_corner", "fz_corner"]), ("gather_node_forces", ["fx", "fy", "fz"]),
           ("acceleration + acceleration_bc", ["xdd", "ydd", "zdd"]),
           ("position_velocity", ["xd", "yd", "zd", "x", "y", "z"]),
           ("kinematics_q_gradient", ["vnew", "delv", "arealg", "vdov", "delv_xi", "delv_eta", "delv_zeta",
                                      "delx_xi", "delx_eta", "delx_zeta"]),
           ("monotonic_q", ["ql", "qq"]), ("material_eos", ["e", "p", "q", "ss"]), ("update_volume", ["v"]),
           ("time_constraints", ["partial_courant", "partial_hydro"]), ("reduce_time_constraints", ["status"])]
# What the fused kernels keep in registers: the fused paths neither write nor read these.
FUSED_NODES_TEMPORARIES = {"fx", "fy", "fz", "xdd", "ydd", "zdd"}  # advance_nodes
FUSED_Q_EOS_TEMPORARIES = {"ql", "qq"}  # monotonic_q_material_eos


def differing_fields(fused, unfused, temporaries):
    """The fp64 fields (all but the fused paths' temporaries) whose bits differ between the two
    states, with the count of differing values each."""
    out = []
    for name, arr in unfused.items():
        if arr.a.dtype != np.float64 or name in temporaries:
            continue
        bits = np.count_nonzero(fused[name].a.view(np.uint64) != arr.a.view(np.uint64))
        if bits:
            out.append(f"{name} ({bits} of {arr.a.size})")
    return out


def write_state(d, directory):
    """The state in the format of the GPU program's --dump-cycle (state_dump.hpp)."""
    os.makedirs(directory, exist_ok=True)
    for name, arr in d.items():
        if arr.a.dtype == np.float64:
            arr.a.tofile(os.path.join(directory, name + ".f64"))


def replay(directory):
    """Runs the cycle that the GPU program dumped (--dump-cycle) from its `before` state and
    compares every field the step writes with the GPU's `after` state."""
    meta = dict(line.split() for line in open(os.path.join(directory, "meta.txt")) if line.strip())
    s, cycle, dt = int(meta["s"]), int(meta["cycle"]), float(meta["dt"])
    d, m = build(s)
    for field in sorted(os.listdir(os.path.join(directory, "before"))):
        name = field[:-len(".f64")]
        if name not in d:
            sys.exit(f"replay: {directory}/before/{field} is not a field of this check (dumped by another version?)")
        data = np.fromfile(os.path.join(directory, "before", field), np.float64)
        if data.shape != d[name].a.shape:
            sys.exit(f"replay: {directory}/before/{field} has {data.size} values, this mesh needs {d[name].a.size}")
        d[name].a[:] = data
    step(d, m, dt)
    print(f"Cycle {cycle} of s = {s} (dt = {dt:.17g}) replayed in the interpreter; GPU vs CPU, in launch order:")
    print(f"  {'kernel':32} {'field':16} {'max |gpu - cpu|':>16} {'relative':>10}")
    suspects = []
    for kernel, names in WRITERS:
        for name in names:
            gpu = np.fromfile(os.path.join(directory, "after", name + ".f64"), np.float64)
            cpu = d[name].a
            diff = float(np.max(np.abs(gpu - cpu))) if gpu.size else 0.0
            scale = float(np.max(np.abs(cpu))) if cpu.size else 0.0
            rel = diff / scale if scale > 0 else diff
            bad = not (rel <= 1e-12)
            print(f"  {kernel:32} {name:16} {diff:16.3e} {rel:10.1e}{'  DIFFERS' if bad else ''}")
            if bad and kernel not in suspects:
                suspects.append(kernel)
    if suspects:
        print(f"Beyond rounding (> 1e-12 relative): first in launch order {suspects[0]} (all: {', '.join(suspects)})")
        return 1
    print("All fields agree to rounding (<= 1e-12 relative).")
    return 0


def time_increment(t):
    """time_control.hpp's time_increment (the reference's TimeIncrement)."""
    targetdt = t["stoptime"] - t["time"]
    if t["cycle"] != 0:
        olddt = t["dt"]
        newdt = 1.0e20
        if t["dtcourant"] < newdt:
            newdt = t["dtcourant"] / 2.0
        if t["dthydro"] < newdt:
            newdt = t["dthydro"] * 2.0 / 3.0
        ratio = newdt / olddt
        if ratio >= 1.0:
            if ratio < 1.1:
                newdt = olddt
            elif ratio > 1.2:
                newdt = olddt * 1.2
        if newdt > 1.0e-2:
            newdt = 1.0e-2
        t["dt"] = newdt
    if targetdt > t["dt"] and targetdt < 4.0 * t["dt"] / 3.0:
        targetdt = 2.0 * t["dt"] / 3.0
    if targetdt < t["dt"]:
        t["dt"] = targetdt
    t["time"] += t["dt"]
    t["cycle"] += 1


def run_resident(d, m, t, every, max_cycles, on_cycle, fused_nodes=False, fused_q_eos=False):
    """resident_loop.hpp's run_resident over the interpreter: batches of `every` cycles (advance_time,
    then the step with dt from status[]), status[] read between them. Returns the cycles queued."""
    status = d["status"].a
    status[0], status[1] = t["dtcourant"], t["dthydro"]
    status[5], status[6], status[7] = t["time"], t["dt"], t["cycle"]
    queued = reported = 0
    while t["time"] < t["stoptime"] and t["cycle"] < max_cycles and queued < max_cycles:
        n = min(every, max_cycles - queued)
        for _ in range(n):
            kernels.advance_time[(1,)](d["status"], f64(t["stoptime"]), max_cycles, f64(-1.0e-6), f64(1.1), f64(1.2),
                                       f64(1.0e-2), every)
            step(d, m, kernels.DT_FROM_STATUS.value, fused_nodes, fused_q_eos)
        queued += n
        cycle, stopped = int(status[7]), status[4] != 0
        if not stopped and cycle != queued:
            sys.exit(f"the device reports {cycle} cycles after {queued} were queued")
        for k in range(reported + 1, cycle + 1):
            at = 8 + 2 * ((k - 1) % every)
            if status[2] != 0 or status[3] != 0:
                if k == cycle:
                    break
            on_cycle(k, status[at], status[at + 1])
        reported = cycle
        t["time"], t["dt"], t["cycle"] = status[5], status[6], cycle
        if status[2] != 0 or status[3] != 0:
            sys.exit(f"cycle {cycle}: the kernels report {'a volume error' if status[2] else 'q > qstop'}")
        if stopped:
            break
    return queued


SIZES = launch_sizes()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-s", type=int, default=5)
    ap.add_argument("-i", type=int, default=10 ** 9, help="stop after this many cycles")
    ap.add_argument("-p", action="store_true", help="print every cycle")
    ap.add_argument("--replay", metavar="DIR", help="replay the cycle the GPU program dumped (--dump-cycle) and "
                    "compare its outputs field by field")
    ap.add_argument("--write-dump", metavar="DIR", help="write the state before and after cycle -i as the GPU "
                    "program's --dump-cycle does (to test --replay)")
    ap.add_argument("--resident", metavar="K", type=int, help="the device-resident loop, status[] read every K cycles")
    ap.add_argument("--fused-nodes", action="store_true", help="advance_nodes instead of the four node kernels "
                    "(lulesh --fused-nodes)")
    ap.add_argument("--fused-q-eos", action="store_true", help="monotonic_q_material_eos instead of monotonic_q "
                    "and material_eos (lulesh --fused-q-eos)")
    ap.add_argument("--against-unfused", action="store_true", help="with --fused-nodes and/or --fused-q-eos: also "
                    "run the unfused kernels beside them and require every field bitwise equal after every cycle")
    ap.add_argument("--expect-energy", metavar="E",
                    help="the final origin energy lulesh2.0 prints for the same -s and -i (%%12.6e)")
    args = ap.parse_args()
    if args.replay:
        return replay(args.replay)
    if args.resident is not None and (args.resident < 1 or args.write_dump):
        sys.exit("--resident needs K >= 1 and no --write-dump")
    fused = args.fused_nodes or args.fused_q_eos
    if args.against_unfused and (not fused or args.resident is not None):
        sys.exit("--against-unfused needs --fused-nodes or --fused-q-eos, and the host-stepped loop (no --resident)")
    if fused and args.write_dump:
        sys.exit("the fused kernels do not write f*, *dd, ql, qq, which --write-dump's replay compares: leave one out")
    temporaries = ((FUSED_NODES_TEMPORARIES if args.fused_nodes else set())
                   | (FUSED_Q_EOS_TEMPORARIES if args.fused_q_eos else set()))
    d, m = build(args.s, args.resident or 0)
    unfused = build(args.s)[0] if args.against_unfused else None
    t = dict(time=0.0, dt=m["dt0"], stoptime=1.0e-2, cycle=0, dtcourant=1.0e20, dthydro=1.0e20)
    reference_path = os.path.join(HERE, "reference", f"progress_s{args.s}.txt")
    reference = open(reference_path).read().splitlines() if os.path.exists(reference_path) else None
    if reference is None:
        print(f"(no reference trajectory {reference_path}: only the end is checked)")
    t0 = time.time()
    mismatch = []

    def on_cycle(cycle, now, dt):
        line = f"cycle = {cycle}, time = {now:e}, dt={dt:e}"
        if args.p:
            print(line, flush=True)
        if reference is not None and not mismatch:
            want = reference[cycle - 1] if cycle <= len(reference) else "(the reference had finished)"
            if line != want:
                mismatch.append(f"FAIL: first difference from the reference at cycle {cycle}\n  ours:      {line}\n"
                                f"  reference: {want}")

    if args.resident is not None:
        queued = run_resident(d, m, t, args.resident, args.i, on_cycle, args.fused_nodes, args.fused_q_eos)
        print(f"device-resident loop: {t['cycle']} cycles in batches of {args.resident}, {queued} queued "
              f"({queued - t['cycle']} after the stop, which must change nothing)")
        if mismatch:
            print(mismatch[0])
            return 1
    while args.resident is None and t["time"] < t["stoptime"] and t["cycle"] < args.i:
        time_increment(t)
        dump = args.write_dump and t["cycle"] == args.i
        if dump:
            os.makedirs(args.write_dump, exist_ok=True)
            with open(os.path.join(args.write_dump, "meta.txt"), "w") as meta:
                meta.write(f"s {args.s}\ncycle {t['cycle']}\ndt {t['dt']!r}\n")
            write_state(d, os.path.join(args.write_dump, "before"))
        step(d, m, t["dt"], args.fused_nodes, args.fused_q_eos)
        if unfused is not None:
            step(unfused, m, t["dt"])
            differ = differing_fields(d, unfused, temporaries)
            if differ:
                print(f"FAIL: cycle {t['cycle']}: the fused and the unfused kernels differ in {', '.join(differ)}")
                return 1
        if dump:
            write_state(d, os.path.join(args.write_dump, "after"))
        status = d["status"].a
        if status[2] != 0 or status[3] != 0:
            sys.exit(f"cycle {t['cycle']}: the kernels report {'a volume error' if status[2] else 'q > qstop'}")
        t["dtcourant"], t["dthydro"] = status[0], status[1]
        line = f"cycle = {t['cycle']}, time = {t['time']:e}, dt={t['dt']:e}"
        if args.p:
            print(line, flush=True)
        if reference is not None:
            want = reference[t["cycle"] - 1] if t["cycle"] <= len(reference) else "(the reference had finished)"
            if line != want:
                print(f"FAIL: first difference from the reference at cycle {t['cycle']}\n  ours:      {line}\n"
                      f"  reference: {want}")
                return 1
    e = d["e"].a
    s = args.s
    diffs = [abs(e[j * s + k] - e[k * s + j]) for j in range(s) for k in range(j + 1, s)]
    rel = [abs(e[j * s + k] - e[k * s + j]) / e[k * s + j] for j in range(s) for k in range(j + 1, s)]
    energy = f"{e[0]:12.6e}"
    print(f"s = {s}: {t['cycle']} cycles, final origin energy {energy}, MaxAbsDiff {max(diffs, default=0):.6e}, "
          f"TotalAbsDiff {sum(diffs):.6e}, MaxRelDiff {max(rel, default=0):.6e} ({time.time() - t0:.0f} s in the "
          f"interpreter)")
    if reference is not None:
        print(f"time and dt of all {t['cycle']} cycles as the reference's: PASS")
    if unfused is not None:
        which = " and ".join(f for f, on in (("--fused-nodes", args.fused_nodes), ("--fused-q-eos", args.fused_q_eos)) if on)
        print(f"{which} against the unfused kernels: every fp64 field but {', '.join(sorted(temporaries))} bitwise "
              f"equal after each of {t['cycle']} cycles: PASS")
    if args.expect_energy is not None:
        ok = energy.strip() == args.expect_energy
        print(f"final origin energy {energy.strip()}, lulesh2.0 -s {s} -i {args.i}: {args.expect_energy}: "
              f"{'PASS' if ok else 'FAIL'}")
        if not ok:
            return 1
    want = PUBLISHED.get(s)
    if want and t["time"] >= t["stoptime"]:
        ok = (t["cycle"], energy) == want
        print(f"published: {want[0]} cycles, {want[1]}: {'PASS' if ok else 'FAIL'}")
        return 0 if ok else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
