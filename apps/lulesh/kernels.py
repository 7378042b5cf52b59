"""LULESH 2.0 (Sedov blast, one domain) time step as Triton kernels, FP64.

One launch per loop of the reference's time step, in its order (main.cpp drives them):

  nodal phase      volume_force            per element: stress + hourglass force at its 8 corners
                   gather_node_forces      per node: sum of its corners' forces (CSR, no atomics)
                   acceleration            per node: a = f / m
                   acceleration_bc         per symmetry plane: a_normal = 0 (launched 3 times)
                   position_velocity       per node: v += a dt (with u_cut), x += v dt
                   (advance_nodes          the four node loops above in one kernel: --fused-nodes)
  element phase    kinematics_q_gradient   per element: new volume, strain rate, characteristic
                                           length, velocity/position gradients for the monotonic Q
                   monotonic_q             per element, through the region lists: limited Q terms
                   material_eos            all regions, each tile its region's `rep` times: energy,
                                           pressure, Q, sound speed
                   (monotonic_q_material_eos  the two above in one kernel: --fused-q-eos)
                   update_volume           per element: v = vnew
  time constraint  time_constraints        per tile: min Courant and hydro dt of its elements
                   reduce_time_constraints one program: min over the tiles -> status[0..1]
  time increment   advance_time            one program, the device-resident step only (main.cpp's
                                           default; --host-step does it on the host): the
                                           reference's TimeIncrement from status[] into status[]

The device-resident step keeps the time loop's state in status[] (STATUS_TIME ... below) and runs
cycles without the host: advance_time starts each cycle, stops the run (STATUS_STOPPED) where the
reference's loop ends or a fatal condition was raised, and every kernel of the step returns at once
once it is stopped, so cycles queued past the end change nothing. position_velocity and
kinematics_q_gradient take dt = DT_FROM_STATUS (negative, never a real dt) to read the cycle's dt
from status[STATUS_DELTATIME]; the host-stepped loop passes the dt it computed.

Layout (structure of arrays, as the CUDA ports of LULESH): node fields x[n]; element fields e[i];
the element's corner node ids and the per-corner forces corner-major, nodelist[c * corner_stride + i]
(corner_stride = numElem rounded up to a multiple of 32, so every corner row is aligned).

Floating point: each formula is evaluated in the reference's order (see hex_geometry.py) and the
kernels are compiled with enable_fp_fusion = false in kernels.toml, so a GPU step does what the
reference's x86 build does, rounding for rounding, except where noted here:
  - the corner forces: stress and hourglass parts are added per corner and then per node, where the
    reference adds all stress parts of a node, then all hourglass parts (half the corner arrays;
    the reference patched to do the same still gives the published results, README.md);
  - cbrt (hourglass coefficient) is libdevice's / ocml's (cbrt below), not glibc's (all within 1 ulp).
fp64 `/` and tl.sqrt are IEEE-rounded (div.rn.f64, sqrt.rn.f64); tl.sqrt_rn takes only fp32.
"""
import triton
import triton.language as tl
from triton.language import core

from hex_geometry import (characteristic_length, corner_normals, element_volume, jacobian_volume,
                          shape_derivatives, volume_derivatives)

# status[] slots (fp64): the reduced time constraints and the reference's two fatal conditions,
# which every kernel that detects one sets to 1 (the host reads the four values once a step).
STATUS_DTCOURANT = tl.constexpr(0)
STATUS_DTHYDRO = tl.constexpr(1)
STATUS_VOLUME_ERROR = tl.constexpr(2)
STATUS_QSTOP_ERROR = tl.constexpr(3)
# The device-resident step's time loop (device_state.hpp's status_slot; host-stepped: all zero).
STATUS_STOPPED = tl.constexpr(4)    # 1: the run has ended, every kernel returns at once
STATUS_TIME = tl.constexpr(5)
STATUS_DELTATIME = tl.constexpr(6)
STATUS_CYCLE = tl.constexpr(7)      # cycles done (fp64: exact far beyond any run)
STATUS_HISTORY = tl.constexpr(8)    # then (time, dt) of cycle c at 8 + 2 * ((c - 1) % history_length)
DT_FROM_STATUS = tl.constexpr(-1.0)  # a dt argument meaning "the cycle's dt from status[]"

# Boundary condition bits of elem_bc (lulesh.h): per face, symmetry plane, free surface or
# another domain (never set in one domain, handled as the reference does all the same).
XI_M = tl.constexpr(0x00007)
XI_M_SYMM = tl.constexpr(0x00001)
XI_M_FREE = tl.constexpr(0x00002)
XI_M_COMM = tl.constexpr(0x00004)
XI_P = tl.constexpr(0x00038)
XI_P_SYMM = tl.constexpr(0x00008)
XI_P_FREE = tl.constexpr(0x00010)
XI_P_COMM = tl.constexpr(0x00020)
ETA_M = tl.constexpr(0x001c0)
ETA_M_SYMM = tl.constexpr(0x00040)
ETA_M_FREE = tl.constexpr(0x00080)
ETA_M_COMM = tl.constexpr(0x00100)
ETA_P = tl.constexpr(0x00e00)
ETA_P_SYMM = tl.constexpr(0x00200)
ETA_P_FREE = tl.constexpr(0x00400)
ETA_P_COMM = tl.constexpr(0x00800)
ZETA_M = tl.constexpr(0x07000)
ZETA_M_SYMM = tl.constexpr(0x01000)
ZETA_M_FREE = tl.constexpr(0x02000)
ZETA_M_COMM = tl.constexpr(0x04000)
ZETA_P = tl.constexpr(0x38000)
ZETA_P_SYMM = tl.constexpr(0x08000)
ZETA_P_FREE = tl.constexpr(0x10000)
ZETA_P_COMM = tl.constexpr(0x20000)

PTINY = tl.constexpr(1.0e-36)          # keeps the Q gradients' divisions finite
NO_CONSTRAINT = tl.constexpr(1.0e+20)  # the reference's "no time step limit" value
SS_FLOOR = tl.constexpr(0.1111111e-36)  # sound speed squared at or below this ...
SS_FLOOR_VALUE = tl.constexpr(0.3333333e-18)  # ... gives this sound speed


# ---- helpers ------------------------------------------------------------------------------------

@triton.jit
def element_tile(BLOCK: tl.constexpr, count):
    idx = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    return idx, idx < count


@triton.jit
def gather_tile(BLOCK: tl.constexpr, count):
    """element_tile for the gathering kernels (volume_force, kinematics_q_gradient): the lanes past
    the end take the last element's index, so that every load is in bounds and needs no mask (a
    masked load costs a predicate and a zeroing move per value: 4 % of volume_force's instructions);
    the second value, the lanes in range, masks the stores and the flags. count >= 1 whenever a
    program runs: the grid is cdiv(count, BLOCK)."""
    idx = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    return tl.minimum(idx, count - 1), idx < count


@triton.jit
def corner_nodes(nodelist, corner_stride, elem):
    """The element's eight node ids (corner-major nodelist); elem in range (gather_tile)."""
    return (tl.load(nodelist + elem), tl.load(nodelist + corner_stride + elem),
            tl.load(nodelist + 2 * corner_stride + elem), tl.load(nodelist + 3 * corner_stride + elem),
            tl.load(nodelist + 4 * corner_stride + elem), tl.load(nodelist + 5 * corner_stride + elem),
            tl.load(nodelist + 6 * corner_stride + elem), tl.load(nodelist + 7 * corner_stride + elem))


@triton.jit
def gather(field, N):
    """field at the eight corner nodes N."""
    return (tl.load(field + N[0]), tl.load(field + N[1]), tl.load(field + N[2]), tl.load(field + N[3]),
            tl.load(field + N[4]), tl.load(field + N[5]), tl.load(field + N[6]), tl.load(field + N[7]))


@triton.jit
def raise_flag(status, slot: tl.constexpr, condition, like):
    # Every lane that meets the condition writes the same 1.0 to one address: no atomics needed.
    tl.store(status + slot + tl.zeros_like(like), tl.full(like.shape, 1.0, tl.float64), mask=condition)


@triton.jit
def stopped(status):
    """The device-resident run has ended: the step's kernels return without touching anything."""
    return tl.load(status + STATUS_STOPPED) != 0.0


@triton.jit
def step_dt(status, dt):
    """dt, or the cycle's dt from status[] when dt is DT_FROM_STATUS (the device-resident step)."""
    if dt < 0.0:
        dt = tl.load(status + STATUS_DELTATIME)
    return dt


@core.extern
def cbrt(x, _semantic=None):
    """Cube root (fp64) from the vendor's math library: CUDA's libdevice __nv_cbrt, ROCm's ocml
    __ocml_cbrt_f64. Triton 3.6's `triton.language.extra.libdevice` has cbrt for CUDA only."""
    symbol = "__ocml_cbrt_f64" if _semantic.builder.options.backend_name == "hip" else "__nv_cbrt"
    return core.extern_elementwise("", "", [x], {(core.dtype("fp64"), ): (symbol, core.dtype("fp64"))},
                                   is_pure=True, _semantic=_semantic)


@triton.jit
def dot8(A, B):
    """A[0]*B[0] + ... + A[7]*B[7], added left to right."""
    s = A[0] * B[0]
    for i in tl.static_range(1, 8):
        s = s + A[i] * B[i]
    return s


# ---- volume force (stress + Flanagan-Belytschko hourglass control) ------------------------------

@triton.jit
def hourglass_vector(g, dvdx, dvdy, dvdz, hx, hy, hz, volinv):
    return g - volinv * (dvdx * hx + dvdy * hy + dvdz * hz)


@triton.jit
def hourglass_mode(X, Y, Z, DX, DY, DZ, volinv,
                   g0: tl.constexpr, g1: tl.constexpr, g2: tl.constexpr, g3: tl.constexpr,
                   g4: tl.constexpr, g5: tl.constexpr, g6: tl.constexpr, g7: tl.constexpr):
    """One hourglass base vector gamma (entries +-1) made orthogonal to the linear velocity
    field: gamma_j - (1/V) (dV/dx_j . sum_i gamma_i x_i)."""
    G = (g0, g1, g2, g3, g4, g5, g6, g7)
    hx = dot8(X, G)
    hy = dot8(Y, G)
    hz = dot8(Z, G)
    return (hourglass_vector(g0, DX[0], DY[0], DZ[0], hx, hy, hz, volinv),
            hourglass_vector(g1, DX[1], DY[1], DZ[1], hx, hy, hz, volinv),
            hourglass_vector(g2, DX[2], DY[2], DZ[2], hx, hy, hz, volinv),
            hourglass_vector(g3, DX[3], DY[3], DZ[3], hx, hy, hz, volinv),
            hourglass_vector(g4, DX[4], DY[4], DZ[4], hx, hy, hz, volinv),
            hourglass_vector(g5, DX[5], DY[5], DZ[5], hx, hy, hz, volinv),
            hourglass_vector(g6, DX[6], DY[6], DZ[6], hx, hy, hz, volinv),
            hourglass_vector(g7, DX[7], DY[7], DZ[7], hx, hy, hz, volinv))


@triton.jit
def hourglass_force(H0, H1, H2, H3, V, coefficient):
    """Corner forces of one velocity component V (LULESH's CalcElemFBHourglassForce)."""
    m0 = dot8(H0, V)
    m1 = dot8(H1, V)
    m2 = dot8(H2, V)
    m3 = dot8(H3, V)
    return (coefficient * (H0[0] * m0 + H1[0] * m1 + H2[0] * m2 + H3[0] * m3),
            coefficient * (H0[1] * m0 + H1[1] * m1 + H2[1] * m2 + H3[1] * m3),
            coefficient * (H0[2] * m0 + H1[2] * m1 + H2[2] * m2 + H3[2] * m3),
            coefficient * (H0[3] * m0 + H1[3] * m1 + H2[3] * m2 + H3[3] * m3),
            coefficient * (H0[4] * m0 + H1[4] * m1 + H2[4] * m2 + H3[4] * m3),
            coefficient * (H0[5] * m0 + H1[5] * m1 + H2[5] * m2 + H3[5] * m3),
            coefficient * (H0[6] * m0 + H1[6] * m1 + H2[6] * m2 + H3[6] * m3),
            coefficient * (H0[7] * m0 + H1[7] * m1 + H2[7] * m2 + H3[7] * m3))


@triton.jit
def volume_force(x, y, z, xd, yd, zd, p, q, v, volo, ss, elem_mass, nodelist,
                 fx_corner, fy_corner, fz_corner, status, num_elem, corner_stride, hgcoef,
                 BLOCK: tl.constexpr):
    """Force of each element on its eight corners: the stress (-p - q on every face) integrated
    over the element, plus the hourglass control force. Writes f*_corner[c * corner_stride + i]."""
    if stopped(status):
        return
    elem, valid = gather_tile(BLOCK, num_elem)
    N = corner_nodes(nodelist, corner_stride, elem)
    X = gather(x, N)
    Y = gather(y, N)
    Z = gather(z, N)
    # The element's own values, the hourglass modes, then the nodal velocities' loads, issued
    # before the stress normals so that the normals' arithmetic hides the gathers' latency (in the
    # reference's order the loads came last, with a third less work left to hide them: 10 % slower
    # on an H100, bench/RESULTS.md "Session 15").
    # Only the order differs: every value is computed by the same operations.
    sigma = -tl.load(p + elem) - tl.load(q + elem)
    relative_volume = tl.load(v + elem)
    determ = tl.load(volo + elem) * relative_volume
    sound_speed = tl.load(ss + elem)
    mass = tl.load(elem_mass + elem)

    # Hourglass control (CalcHourglassControlForElems, CalcFBHourglassForceForElems).
    DX, DY, DZ = volume_derivatives(X, Y, Z)
    volinv = 1.0 / determ
    H0 = hourglass_mode(X, Y, Z, DX, DY, DZ, volinv, 1.0, 1.0, -1.0, -1.0, -1.0, -1.0, 1.0, 1.0)
    H1 = hourglass_mode(X, Y, Z, DX, DY, DZ, volinv, 1.0, -1.0, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0)
    H2 = hourglass_mode(X, Y, Z, DX, DY, DZ, volinv, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0)
    H3 = hourglass_mode(X, Y, Z, DX, DY, DZ, volinv, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0, 1.0, -1.0)
    XD = gather(xd, N)
    YD = gather(yd, N)
    ZD = gather(zd, N)

    # Stress integration (IntegrateStressForElems): sigma_xx = sigma_yy = sigma_zz = -p - q.
    stress_volume = jacobian_volume(X, Y, Z)
    NX, NY, NZ = corner_normals(X, Y, Z)
    raise_flag(status, STATUS_VOLUME_ERROR, valid & ((stress_volume <= 0.0) | (relative_volume <= 0.0)), elem)

    coefficient = -hgcoef * 0.01 * sound_speed * mass / cbrt(determ)
    HX = hourglass_force(H0, H1, H2, H3, XD, coefficient)
    HY = hourglass_force(H0, H1, H2, H3, YD, coefficient)
    HZ = hourglass_force(H0, H1, H2, H3, ZD, coefficient)

    for c in tl.static_range(8):
        at = c * corner_stride + elem
        tl.store(fx_corner + at, -(sigma * NX[c]) + HX[c], mask=valid)
        tl.store(fy_corner + at, -(sigma * NY[c]) + HY[c], mask=valid)
        tl.store(fz_corner + at, -(sigma * NZ[c]) + HZ[c], mask=valid)


# ---- nodal kernels ------------------------------------------------------------------------------

@triton.jit
def sum_corner_forces(fx_corner, fy_corner, fz_corner, node_elem_start, node_elem_corner, node, valid,
                      BLOCK: tl.constexpr, MAX_CORNERS: tl.constexpr):
    """The force on each node: the sum of its corners' forces in the CSR's order (gather_node_forces
    and advance_nodes, so that both add alike)."""
    start = tl.load(node_elem_start + node, mask=valid, other=0)
    count = tl.load(node_elem_start + node + 1, mask=valid, other=0) - start
    sx = tl.zeros([BLOCK], tl.float64)
    sy = tl.zeros([BLOCK], tl.float64)
    sz = tl.zeros([BLOCK], tl.float64)
    for j in tl.static_range(MAX_CORNERS):
        present = valid & (j < count)
        slot = tl.load(node_elem_corner + start + j, mask=present, other=0)
        sx = tl.where(present, sx + tl.load(fx_corner + slot, mask=present, other=0.0), sx)
        sy = tl.where(present, sy + tl.load(fy_corner + slot, mask=present, other=0.0), sy)
        sz = tl.where(present, sz + tl.load(fz_corner + slot, mask=present, other=0.0), sz)
    return sx, sy, sz


@triton.jit
def gather_node_forces(fx_corner, fy_corner, fz_corner, node_elem_start, node_elem_corner,
                       fx, fy, fz, status, num_node, BLOCK: tl.constexpr, MAX_CORNERS: tl.constexpr):
    """f[n] = sum of the corner forces of the elements around node n, in element order (the
    node-element CSR lists corner slots c * corner_stride + i by increasing element i)."""
    if stopped(status):
        return
    node, valid = element_tile(BLOCK, num_node)
    sx, sy, sz = sum_corner_forces(fx_corner, fy_corner, fz_corner, node_elem_start, node_elem_corner, node, valid,
                                   BLOCK, MAX_CORNERS)
    tl.store(fx + node, sx, mask=valid)
    tl.store(fy + node, sy, mask=valid)
    tl.store(fz + node, sz, mask=valid)


@triton.jit
def acceleration(fx, fy, fz, nodal_mass, xdd, ydd, zdd, status, num_node, BLOCK: tl.constexpr):
    if stopped(status):
        return
    node, valid = element_tile(BLOCK, num_node)
    mass = tl.load(nodal_mass + node, mask=valid, other=1.0)
    tl.store(xdd + node, tl.load(fx + node, mask=valid) / mass, mask=valid)
    tl.store(ydd + node, tl.load(fy + node, mask=valid) / mass, mask=valid)
    tl.store(zdd + node, tl.load(fz + node, mask=valid) / mass, mask=valid)


@triton.jit
def acceleration_bc(acc, nodes, status, count, BLOCK: tl.constexpr):
    """acc[nodes[i]] = 0: one symmetry plane's normal acceleration."""
    if stopped(status):
        return
    i, valid = element_tile(BLOCK, count)
    node = tl.load(nodes + i, mask=valid, other=0)
    tl.store(acc + node, tl.zeros([BLOCK], tl.float64), mask=valid)


@triton.jit
def advance_node(pos, vel, acc, node, valid, dt, u_cut):
    move_node(pos, vel, tl.load(acc + node, mask=valid), node, valid, dt, u_cut)


@triton.jit
def move_node(pos, vel, a, node, valid, dt, u_cut):
    """One component: v += a dt (|v| < u_cut -> 0), x += v dt (position_velocity, advance_nodes)."""
    v = tl.load(vel + node, mask=valid) + a * dt
    v = tl.where(tl.abs(v) < u_cut, 0.0, v)
    tl.store(vel + node, v, mask=valid)
    tl.store(pos + node, tl.load(pos + node, mask=valid) + v * dt, mask=valid)


@triton.jit
def position_velocity(x, y, z, xd, yd, zd, xdd, ydd, zdd, status, num_node, dt, u_cut, BLOCK: tl.constexpr):
    """v += a dt (|v| < u_cut -> 0), then x += v dt with the new v."""
    if stopped(status):
        return
    dt = step_dt(status, dt)
    node, valid = element_tile(BLOCK, num_node)
    advance_node(x, xd, xdd, node, valid, dt, u_cut)
    advance_node(y, yd, ydd, node, valid, dt, u_cut)
    advance_node(z, zd, zdd, node, valid, dt, u_cut)


# Bits of node_symm (advance_nodes): the symmetry planes a node lies on (device_state.hpp builds
# them from the symm_x, symm_y, symm_z lists acceleration_bc takes).
SYMM_X = tl.constexpr(1)
SYMM_Y = tl.constexpr(2)
SYMM_Z = tl.constexpr(4)


@triton.jit
def symmetric_acceleration(f, mass, symm, plane: tl.constexpr):
    """acceleration's f / m, then acceleration_bc's zero (+0.0, as its store) on the node's plane."""
    return tl.where((symm & plane) != 0, 0.0, f / mass)


@triton.jit
def advance_nodes(fx_corner, fy_corner, fz_corner, node_elem_start, node_elem_corner, nodal_mass, node_symm,
                  x, y, z, xd, yd, zd, status, num_node, dt, u_cut, BLOCK: tl.constexpr, MAX_CORNERS: tl.constexpr):
    """gather_node_forces + acceleration + acceleration_bc + position_velocity in one pass over the
    nodes (lulesh --fused-nodes): the force and acceleration stay in registers instead of going
    through f* and *dd in memory, which this path neither writes nor reads. Each value is the
    unfused kernels' operation for operation (the same helpers), so x, y, z, xd, yd, zd come out
    bitwise as theirs."""
    if stopped(status):
        return
    dt = step_dt(status, dt)
    node, valid = element_tile(BLOCK, num_node)
    sx, sy, sz = sum_corner_forces(fx_corner, fy_corner, fz_corner, node_elem_start, node_elem_corner, node, valid,
                                   BLOCK, MAX_CORNERS)
    mass = tl.load(nodal_mass + node, mask=valid, other=1.0)
    symm = tl.load(node_symm + node, mask=valid, other=0)
    move_node(x, xd, symmetric_acceleration(sx, mass, symm, SYMM_X), node, valid, dt, u_cut)
    move_node(y, yd, symmetric_acceleration(sy, mass, symm, SYMM_Y), node, valid, dt, u_cut)
    move_node(z, zd, symmetric_acceleration(sz, mass, symm, SYMM_Z), node, valid, dt, u_cut)


# ---- kinematics and monotonic Q -----------------------------------------------------------------

@triton.jit
def back_half_step(X, V, dt2):
    return (X[0] - dt2 * V[0], X[1] - dt2 * V[1], X[2] - dt2 * V[2], X[3] - dt2 * V[3],
            X[4] - dt2 * V[4], X[5] - dt2 * V[5], X[6] - dt2 * V[6], X[7] - dt2 * V[7])


@triton.jit
def strain_rate(B, V, inv_det):
    # Velocity gradient diagonal term: corners 4-7 enter through B[6,7,4,5] = -B[0..3].
    return inv_det * (B[0] * (V[0] - V[6]) + B[1] * (V[1] - V[7]) + B[2] * (V[2] - V[4]) + B[3] * (V[3] - V[5]))


@triton.jit
def face_difference(X, scale: tl.constexpr, a: tl.constexpr, b: tl.constexpr, c: tl.constexpr,
                    d: tl.constexpr, e: tl.constexpr, f: tl.constexpr, g: tl.constexpr, h: tl.constexpr):
    """scale * ((X[a] + X[b] + X[c] + X[d]) - (X[e] + X[f] + X[g] + X[h])): a difference across
    the element between two opposite faces."""
    return scale * ((X[a] + X[b] + X[c] + X[d]) - (X[e] + X[f] + X[g] + X[h]))


@triton.jit
def q_gradient(ax, ay, az, dxv, dyv, dzv, vol, norm):
    """Element thickness along one direction and the velocity difference across it."""
    delx = vol / tl.sqrt(ax * ax + ay * ay + az * az + PTINY)
    delv = (ax * norm) * dxv + (ay * norm) * dyv + (az * norm) * dzv
    return delx, delv


@triton.jit
def kinematics_q_gradient(x, y, z, xd, yd, zd, volo, v, nodelist,
                          vnew, delv, arealg, vdov,
                          delv_xi, delv_eta, delv_zeta, delx_xi, delx_eta, delx_zeta,
                          status, num_elem, corner_stride, dt, BLOCK: tl.constexpr):
    """CalcKinematicsForElems + CalcLagrangeElements' strain rate + CalcMonotonicQGradientsForElems."""
    if stopped(status):
        return
    dt = step_dt(status, dt)
    elem, valid = gather_tile(BLOCK, num_elem)
    N = corner_nodes(nodelist, corner_stride, elem)
    X = gather(x, N)
    Y = gather(y, N)
    Z = gather(z, N)
    XD = gather(xd, N)
    YD = gather(yd, N)
    ZD = gather(zd, N)

    reference_volume = tl.load(volo + elem)
    volume = element_volume(X, Y, Z)
    relative_volume = volume / reference_volume
    tl.store(vnew + elem, relative_volume, mask=valid)
    tl.store(delv + elem, relative_volume - tl.load(v + elem), mask=valid)
    tl.store(arealg + elem, characteristic_length(X, Y, Z, volume), mask=valid)
    raise_flag(status, STATUS_VOLUME_ERROR, valid & (relative_volume <= 0.0), elem)

    # Strain rate at the half step: positions moved back by dt/2.
    dt2 = 0.5 * dt
    BX, BY, BZ, det_j = shape_derivatives(back_half_step(X, XD, dt2), back_half_step(Y, YD, dt2),
                                          back_half_step(Z, ZD, dt2))
    inv_det = 1.0 / det_j
    dxx = strain_rate(BX, XD, inv_det)
    dyy = strain_rate(BY, YD, inv_det)
    dzz = strain_rate(BZ, ZD, inv_det)
    tl.store(vdov + elem, dxx + dyy + dzz, mask=valid)

    # Monotonic Q gradients, at the new positions.
    vol = reference_volume * relative_volume
    norm = 1.0 / (vol + PTINY)
    dxj = face_difference(X, -0.25, 0, 1, 5, 4, 3, 2, 6, 7)
    dyj = face_difference(Y, -0.25, 0, 1, 5, 4, 3, 2, 6, 7)
    dzj = face_difference(Z, -0.25, 0, 1, 5, 4, 3, 2, 6, 7)
    dxi = face_difference(X, 0.25, 1, 2, 6, 5, 0, 3, 7, 4)
    dyi = face_difference(Y, 0.25, 1, 2, 6, 5, 0, 3, 7, 4)
    dzi = face_difference(Z, 0.25, 1, 2, 6, 5, 0, 3, 7, 4)
    dxk = face_difference(X, 0.25, 4, 5, 6, 7, 0, 1, 2, 3)
    dyk = face_difference(Y, 0.25, 4, 5, 6, 7, 0, 1, 2, 3)
    dzk = face_difference(Z, 0.25, 4, 5, 6, 7, 0, 1, 2, 3)

    # zeta: i cross j
    dx, dv = q_gradient(dyi * dzj - dzi * dyj, dzi * dxj - dxi * dzj, dxi * dyj - dyi * dxj,
                        face_difference(XD, 0.25, 4, 5, 6, 7, 0, 1, 2, 3),
                        face_difference(YD, 0.25, 4, 5, 6, 7, 0, 1, 2, 3),
                        face_difference(ZD, 0.25, 4, 5, 6, 7, 0, 1, 2, 3), vol, norm)
    tl.store(delx_zeta + elem, dx, mask=valid)
    tl.store(delv_zeta + elem, dv, mask=valid)
    # xi: j cross k
    dx, dv = q_gradient(dyj * dzk - dzj * dyk, dzj * dxk - dxj * dzk, dxj * dyk - dyj * dxk,
                        face_difference(XD, 0.25, 1, 2, 6, 5, 0, 3, 7, 4),
                        face_difference(YD, 0.25, 1, 2, 6, 5, 0, 3, 7, 4),
                        face_difference(ZD, 0.25, 1, 2, 6, 5, 0, 3, 7, 4), vol, norm)
    tl.store(delx_xi + elem, dx, mask=valid)
    tl.store(delv_xi + elem, dv, mask=valid)
    # eta: k cross i
    dx, dv = q_gradient(dyk * dzi - dzk * dyi, dzk * dxi - dxk * dzi, dxk * dyi - dyk * dxi,
                        face_difference(XD, -0.25, 0, 1, 5, 4, 3, 2, 6, 7),
                        face_difference(YD, -0.25, 0, 1, 5, 4, 3, 2, 6, 7),
                        face_difference(ZD, -0.25, 0, 1, 5, 4, 3, 2, 6, 7), vol, norm)
    tl.store(delx_eta + elem, dx, mask=valid)
    tl.store(delv_eta + elem, dv, mask=valid)


@triton.jit
def neighbour_gradient(bc, FACE: tl.constexpr, SYMM: tl.constexpr, COMM: tl.constexpr,
                       neighbour, grad, elem, own, valid):
    """The velocity gradient across one face: the neighbour's (interior face, or another domain),
    the element's own (symmetry plane) or zero (free surface, or an invalid mask as the reference)."""
    kind = bc & FACE
    inside = valid & ((kind == 0) | (kind == COMM))
    other = tl.load(grad + tl.load(neighbour + elem, mask=inside, other=0), mask=inside, other=0.0)
    return tl.where(inside, other, tl.where(kind == SYMM, own, 0.0))


@triton.jit
def limiter(own, minus, plus, limiter_mult, max_slope):
    """Monotonic slope limiter phi in [0, max_slope] from the gradients on both sides."""
    norm = 1.0 / (own + PTINY)
    minus = minus * norm
    plus = plus * norm
    phi = 0.5 * (minus + plus)
    minus = minus * limiter_mult
    plus = plus * limiter_mult
    phi = tl.where(minus < phi, minus, phi)
    phi = tl.where(plus < phi, plus, phi)
    phi = tl.where(phi < 0.0, 0.0, phi)
    return tl.where(phi > max_slope, max_slope, phi)


@triton.jit
def compressive(delv, delx):
    d = delv * delx
    return tl.where(d > 0.0, 0.0, d)


@triton.jit
def monotonic_q(region_elems, count, elem_bc, lxim, lxip, letam, letap, lzetam, lzetap,
                delv_xi, delv_eta, delv_zeta, delx_xi, delx_eta, delx_zeta,
                vdov, volo, vnew, elem_mass, q, ql, qq, status,
                limiter_mult, max_slope, qlc_monoq, qqc_monoq, qstop, BLOCK: tl.constexpr):
    """Linear and quadratic artificial viscosity terms (CalcMonotonicQRegionForElems) of the
    elements region_elems[0..count) (all regions' lists one after the other), and the reference's
    q > qstop check."""
    if stopped(status):
        return
    i, valid = element_tile(BLOCK, count)
    elem = tl.load(region_elems + i, mask=valid, other=0)
    q_lin, q_quad = monotonic_q_terms(elem, valid, elem_bc, lxim, lxip, letam, letap, lzetam, lzetap,
                                      delv_xi, delv_eta, delv_zeta, delx_xi, delx_eta, delx_zeta, vdov, volo, vnew,
                                      elem_mass, q, status, limiter_mult, max_slope, qlc_monoq, qqc_monoq, qstop)
    tl.store(qq + elem, q_quad, mask=valid)
    tl.store(ql + elem, q_lin, mask=valid)


@triton.jit
def monotonic_q_terms(elem, valid, elem_bc, lxim, lxip, letam, letap, lzetam, lzetap,
                      delv_xi, delv_eta, delv_zeta, delx_xi, delx_eta, delx_zeta, vdov, volo, vnew, elem_mass, q,
                      status, limiter_mult, max_slope, qlc_monoq, qqc_monoq, qstop):
    """The linear and quadratic Q terms of the elements (0 where expanding), and the reference's
    q > qstop check on their q (monotonic_q, monotonic_q_material_eos)."""
    bc = tl.load(elem_bc + elem, mask=valid, other=0)
    dv_xi = tl.load(delv_xi + elem, mask=valid, other=0.0)
    dv_eta = tl.load(delv_eta + elem, mask=valid, other=0.0)
    dv_zeta = tl.load(delv_zeta + elem, mask=valid, other=0.0)
    phi_xi = limiter(dv_xi, neighbour_gradient(bc, XI_M, XI_M_SYMM, XI_M_COMM, lxim, delv_xi, elem, dv_xi, valid),
                     neighbour_gradient(bc, XI_P, XI_P_SYMM, XI_P_COMM, lxip, delv_xi, elem, dv_xi, valid),
                     limiter_mult, max_slope)
    phi_eta = limiter(dv_eta, neighbour_gradient(bc, ETA_M, ETA_M_SYMM, ETA_M_COMM, letam, delv_eta, elem, dv_eta, valid),
                      neighbour_gradient(bc, ETA_P, ETA_P_SYMM, ETA_P_COMM, letap, delv_eta, elem, dv_eta, valid),
                      limiter_mult, max_slope)
    phi_zeta = limiter(dv_zeta, neighbour_gradient(bc, ZETA_M, ZETA_M_SYMM, ZETA_M_COMM, lzetam, delv_zeta, elem, dv_zeta, valid),
                       neighbour_gradient(bc, ZETA_P, ZETA_P_SYMM, ZETA_P_COMM, lzetap, delv_zeta, elem, dv_zeta, valid),
                       limiter_mult, max_slope)

    d_xi = compressive(dv_xi, tl.load(delx_xi + elem, mask=valid, other=0.0))
    d_eta = compressive(dv_eta, tl.load(delx_eta + elem, mask=valid, other=0.0))
    d_zeta = compressive(dv_zeta, tl.load(delx_zeta + elem, mask=valid, other=0.0))
    rho = tl.load(elem_mass + elem, mask=valid, other=0.0) / (
        tl.load(volo + elem, mask=valid, other=1.0) * tl.load(vnew + elem, mask=valid, other=1.0))
    qlin = -qlc_monoq * rho * (d_xi * (1.0 - phi_xi) + d_eta * (1.0 - phi_eta) + d_zeta * (1.0 - phi_zeta))
    qquad = qqc_monoq * rho * (d_xi * d_xi * (1.0 - phi_xi * phi_xi) + d_eta * d_eta * (1.0 - phi_eta * phi_eta)
                               + d_zeta * d_zeta * (1.0 - phi_zeta * phi_zeta))
    expanding = tl.load(vdov + elem, mask=valid, other=0.0) > 0.0
    raise_flag(status, STATUS_QSTOP_ERROR, valid & (tl.load(q + elem, mask=valid, other=0.0) > qstop), elem)
    return tl.where(expanding, 0.0, qlin), tl.where(expanding, 0.0, qquad)


# ---- material properties / equation of state ----------------------------------------------------

@triton.jit
def pressure(energy, compression, vnewc, pmin, p_cut, eosvmax):
    """Ideal gas (gamma = 5/3): returns bvc and p (CalcPressureForElems; pbvc is the constant 2/3)."""
    bvc = (2.0 / 3.0) * (compression + 1.0)
    p = bvc * energy
    p = tl.where(tl.abs(p) < p_cut, 0.0, p)
    p = tl.where(vnewc >= eosvmax, 0.0, p)
    p = tl.where(p < pmin, pmin, p)
    return bvc, p


@triton.jit
def sound_speed(energy, vsq, bvc, p, rho0):
    ssc = ((2.0 / 3.0) * energy + vsq * bvc * p) / rho0
    # The threshold as an fp64 tensor: compared as a bare constexpr, Triton makes it fp32.
    return tl.where(ssc <= tl.full(ssc.shape, SS_FLOOR, tl.float64), SS_FLOOR_VALUE, tl.sqrt(ssc))


@triton.jit
def cut_energy(energy, e_cut, emin):
    energy = tl.where(tl.abs(energy) < e_cut, 0.0, energy)
    return tl.where(energy < emin, emin, energy)


@triton.jit
def clamp_volume(vol, eosvmin, eosvmax):
    # The reference applies each bound only when it is not zero.
    if eosvmin != 0.0:
        vol = tl.where(vol < eosvmin, eosvmin, vol)
    if eosvmax != 0.0:
        vol = tl.where(vol > eosvmax, eosvmax, vol)
    return vol


@triton.jit
def material_eos(eos_elems, eos_reps, count, e, p, q, ql, qq, delv, vnew, v, ss, status,
                 e_cut, p_cut, q_cut, eosvmin, eosvmax, pmin, emin, rho0, BLOCK: tl.constexpr):
    """ApplyMaterialPropertiesForElems + EvalEOSForElems for every region in one launch: slot i of
    eos_elems[0 .. count) is an element (-1: padding) whose region evaluates the EOS eos_reps[i]
    times (the reference's load imbalance: every repetition starts again from the stored state and
    computes the same result). The host pads each region's list to a multiple of the tile
    (regions.hpp, make_eos_order), so a tile holds one region and its repetition count, the
    largest of its slots', is every element's own."""
    if stopped(status):
        return
    i, in_range = element_tile(BLOCK, count)
    elem = tl.load(eos_elems + i, mask=in_range, other=-1)
    rep = tl.max(tl.load(eos_reps + i, mask=in_range, other=0), axis=0)
    valid = elem >= 0
    evaluate_eos(elem, valid, eos_state(elem, valid, e, delv, p, q), rep, count, e, p, q, ql, qq, delv, vnew, v,
                 ss, status, e_cut, p_cut, q_cut, eosvmin, eosvmax, pmin, emin, rho0, BLOCK, False)


@triton.jit
def eos_state(elem, valid, e, delv, p, q):
    """The stored state each EOS repetition starts from: e, delv, p, q of the elements."""
    return (tl.load(e + elem, mask=valid, other=0.0), tl.load(delv + elem, mask=valid, other=0.0),
            tl.load(p + elem, mask=valid, other=0.0), tl.load(q + elem, mask=valid, other=0.0))


@triton.jit
def eos_repetition(e_old, delvc, p_old, q_old, ql_old, qq_old, vnewc,
                   e_cut, p_cut, q_cut, eosvmin, eosvmax, pmin, emin, rho0, BLOCK: tl.constexpr):
    """One evaluation of the EOS (EvalEOSForElems' loop body, CalcEnergyForElems): the new energy,
    pressure and q, and bvc, from the stored state."""
    compression = 1.0 / vnewc - 1.0
    vchalf = vnewc - delvc * 0.5
    comp_half_step = 1.0 / vchalf - 1.0
    if eosvmin != 0.0:
        comp_half_step = tl.where(vnewc <= eosvmin, compression, comp_half_step)
    if eosvmax != 0.0:
        too_large = vnewc >= eosvmax
        p_old = tl.where(too_large, 0.0, p_old)
        compression = tl.where(too_large, 0.0, compression)
        comp_half_step = tl.where(too_large, 0.0, comp_half_step)
    work = tl.zeros([BLOCK], tl.float64)

    # CalcEnergyForElems: predictor at the half step, corrector, then the final pressure.
    e_new = e_old - 0.5 * delvc * (p_old + q_old) + 0.5 * work
    e_new = tl.where(e_new < emin, emin, e_new)
    bvc, p_half_step = pressure(e_new, comp_half_step, vnewc, pmin, p_cut, eosvmax)
    vhalf = 1.0 / (1.0 + comp_half_step)
    q_new = tl.where(delvc > 0.0, 0.0,
                     sound_speed(e_new, vhalf * vhalf, bvc, p_half_step, rho0) * ql_old + qq_old)
    e_new = e_new + 0.5 * delvc * (3.0 * (p_old + q_old) - 4.0 * (p_half_step + q_new))
    e_new = e_new + 0.5 * work
    e_new = cut_energy(e_new, e_cut, emin)
    bvc, p_new = pressure(e_new, compression, vnewc, pmin, p_cut, eosvmax)
    q_tilde = tl.where(delvc > 0.0, 0.0,
                       sound_speed(e_new, vnewc * vnewc, bvc, p_new, rho0) * ql_old + qq_old)
    e_new = e_new - (7.0 * (p_old + q_old) - 8.0 * (p_half_step + q_new) + (p_new + q_tilde)) * delvc * (1.0 / 6.0)
    e_new = cut_energy(e_new, e_cut, emin)
    bvc, p_new = pressure(e_new, compression, vnewc, pmin, p_cut, eosvmax)
    q_final = sound_speed(e_new, vnewc * vnewc, bvc, p_new, rho0) * ql_old + qq_old
    q_final = tl.where(tl.abs(q_final) < q_cut, 0.0, q_final)
    q_new = tl.where(delvc <= 0.0, q_final, q_new)
    return e_new, p_new, q_new, bvc


@triton.jit
def evaluate_eos(elem, valid, first_state, rep, count, e, p, q, ql, qq, delv, vnew, v, ss, status,
                 e_cut, p_cut, q_cut, eosvmin, eosvmax, pmin, emin, rho0, BLOCK: tl.constexpr,
                 Q_TERMS_GIVEN: tl.constexpr):
    """material_eos's work on one tile of its slots (valid: not padding; rep >= 1 repetitions).
    first_state: eos_state(), loaded by the caller as early as it can (monotonic_q_material_eos
    before its Q terms, so that the loads' latency hides behind them); the first repetition starts
    from it, each further one loads the state again, as the reference does.
    Q_TERMS_GIVEN: ql and qq are the Q terms themselves (monotonic_q_material_eos: in registers),
    else the arrays monotonic_q wrote, read in every repetition as the reference does."""
    vnewc = clamp_volume(tl.load(vnew + elem, mask=valid, other=1.0), eosvmin, eosvmax)
    vc = clamp_volume(tl.load(v + elem, mask=valid, other=1.0), eosvmin, eosvmax)
    raise_flag(status, STATUS_VOLUME_ERROR, valid & (vc <= 0.0), elem)

    if Q_TERMS_GIVEN:
        qq_old = qq
        ql_old = ql
    else:
        qq_old = tl.load(qq + elem, mask=valid, other=0.0)
        ql_old = tl.load(ql + elem, mask=valid, other=0.0)
    e_old, delvc, p_old, q_old = first_state
    e_new, p_new, q_new, bvc = eos_repetition(e_old, delvc, p_old, q_old, ql_old, qq_old, vnewc,
                                              e_cut, p_cut, q_cut, eosvmin, eosvmax, pmin, emin, rho0, BLOCK)
    # The repetitions recompute the same values from the same inputs, so a compiler drops all
    # but one (LLVM does). To keep the reference's work, each repetition's energy input goes
    # through a select on a condition that is never true (count < 0: there would be no slot) but
    # that the compiler cannot decide: every repetition stays live and does its arithmetic, and
    # the results are the reference's. Not `rep < 0`: inside the loop rep > 0 is known, and LLVM
    # then folds the repetitions into one again.
    never = count < 0
    for _ in range(1, rep):
        e_old, delvc, p_old, q_old = eos_state(elem, valid, e, delv, p, q)
        e_old = tl.where(never, e_new, e_old)
        if not Q_TERMS_GIVEN:
            qq_old = tl.load(qq + elem, mask=valid, other=0.0)
            ql_old = tl.load(ql + elem, mask=valid, other=0.0)
        e_new, p_new, q_new, bvc = eos_repetition(e_old, delvc, p_old, q_old, ql_old, qq_old, vnewc,
                                                  e_cut, p_cut, q_cut, eosvmin, eosvmax, pmin, emin, rho0, BLOCK)

    tl.store(p + elem, p_new, mask=valid)
    tl.store(e + elem, e_new, mask=valid)
    tl.store(q + elem, q_new, mask=valid)
    tl.store(ss + elem, sound_speed(e_new, vnewc * vnewc, bvc, p_new, rho0), mask=valid)


@triton.jit
def monotonic_q_material_eos(eos_elems, eos_reps, count, elem_bc, lxim, lxip, letam, letap, lzetam, lzetap,
                             delv_xi, delv_eta, delv_zeta, delx_xi, delx_eta, delx_zeta, vdov, volo, elem_mass,
                             e, p, q, delv, vnew, v, ss, status, limiter_mult, max_slope, qlc_monoq, qqc_monoq, qstop,
                             e_cut, p_cut, q_cut, eosvmin, eosvmax, pmin, emin, rho0, BLOCK: tl.constexpr):
    """monotonic_q + material_eos in one launch over material_eos's slots (lulesh --fused-q-eos): each
    element's Q terms are computed as monotonic_q computes them and handed to its EOS in registers,
    so ql and qq are neither written nor read. An element's Q terms need only its own and its
    neighbours' gradients (kinematics_q_gradient's, finished before this launch) and its own old q,
    which its EOS replaces only after the check: the same values as the two kernels, bit for bit."""
    if stopped(status):
        return
    i, in_range = element_tile(BLOCK, count)
    elem = tl.load(eos_elems + i, mask=in_range, other=-1)
    rep = tl.max(tl.load(eos_reps + i, mask=in_range, other=0), axis=0)
    valid = elem >= 0
    # The EOS's state loaded first: its loads' latency overlaps the Q terms' neighbour gathers.
    first_state = eos_state(elem, valid, e, delv, p, q)
    q_lin, q_quad = monotonic_q_terms(elem, valid, elem_bc, lxim, lxip, letam, letap, lzetam, lzetap,
                                      delv_xi, delv_eta, delv_zeta, delx_xi, delx_eta, delx_zeta, vdov, volo, vnew,
                                      elem_mass, q, status, limiter_mult, max_slope, qlc_monoq, qqc_monoq, qstop)
    evaluate_eos(elem, valid, first_state, rep, count, e, p, q, q_lin, q_quad, delv, vnew, v, ss, status,
                 e_cut, p_cut, q_cut, eosvmin, eosvmax, pmin, emin, rho0, BLOCK, True)


@triton.jit
def update_volume(vnew, v, status, num_elem, v_cut, BLOCK: tl.constexpr):
    """v = vnew, snapped to 1 within v_cut."""
    if stopped(status):
        return
    elem, valid = element_tile(BLOCK, num_elem)
    vol = tl.load(vnew + elem, mask=valid, other=1.0)
    tl.store(v + elem, tl.where(tl.abs(vol - 1.0) < v_cut, 1.0, vol), mask=valid)


# ---- halo exchange between MPI ranks (halo.hpp's plans; main_mpi.cpp) ---------------------------

@triton.jit
def halo_pack(item, slot, stride, count, f0, f1, f2, buf, field_offset, BLOCK: tl.constexpr):
    """Gathers three fields of the listed items (nodes, or face elements) into the send buffer:
    item[k]'s field f goes to buf[slot[k] + (field_offset + f) * stride[k]] (messages one after
    the other, each field-major, as the reference packs them)."""
    k, valid = element_tile(BLOCK, count)
    n = tl.load(item + k, mask=valid, other=0)
    at = tl.load(slot + k, mask=valid, other=0)
    step = tl.load(stride + k, mask=valid, other=0)
    tl.store(buf + at + field_offset * step, tl.load(f0 + n, mask=valid, other=0.0), mask=valid)
    tl.store(buf + at + (field_offset + 1) * step, tl.load(f1 + n, mask=valid, other=0.0), mask=valid)
    tl.store(buf + at + (field_offset + 2) * step, tl.load(f2 + n, mask=valid, other=0.0), mask=valid)


@triton.jit
def halo_unpack(dest, dest_start, source_slot, source_stride, num_dest, buf, f0, f1, f2, field_offset,
                BLOCK: tl.constexpr, MAX_SOURCES: tl.constexpr, ADD: tl.constexpr):
    """Each destination once, its received values in message order: added to the field (ADD: the
    nodal sums, CommSBN; the same additions in the same order as the reference's message-by-message
    loop) or stored, the last one staying (positions and velocities, CommSyncPosVel; the ghost
    elements' Q gradients, CommMonoQ)."""
    j, valid = element_tile(BLOCK, num_dest)
    n = tl.load(dest + j, mask=valid, other=0)
    start = tl.load(dest_start + j, mask=valid, other=0)
    count = tl.load(dest_start + j + 1, mask=valid, other=0) - start
    v0 = tl.load(f0 + n, mask=valid, other=0.0)
    v1 = tl.load(f1 + n, mask=valid, other=0.0)
    v2 = tl.load(f2 + n, mask=valid, other=0.0)
    for s in tl.static_range(MAX_SOURCES):
        present = valid & (s < count)
        at = tl.load(source_slot + start + s, mask=present, other=0)
        step = tl.load(source_stride + start + s, mask=present, other=0)
        r0 = tl.load(buf + at + field_offset * step, mask=present, other=0.0)
        r1 = tl.load(buf + at + (field_offset + 1) * step, mask=present, other=0.0)
        r2 = tl.load(buf + at + (field_offset + 2) * step, mask=present, other=0.0)
        if ADD:
            v0 = tl.where(present, v0 + r0, v0)
            v1 = tl.where(present, v1 + r1, v1)
            v2 = tl.where(present, v2 + r2, v2)
        else:
            v0 = tl.where(present, r0, v0)
            v1 = tl.where(present, r1, v1)
            v2 = tl.where(present, r2, v2)
    tl.store(f0 + n, v0, mask=valid)
    tl.store(f1 + n, v1, mask=valid)
    tl.store(f2 + n, v2, mask=valid)


# ---- time step constraints ----------------------------------------------------------------------

@triton.jit
def time_constraints(ss, vdov, arealg, num_elem, qqc2, dvovmax, partial_courant, partial_hydro, status,
                     BLOCK: tl.constexpr):
    """Per tile of elements: the smallest Courant and hydro time step (CalcCourantConstraintForElems,
    CalcHydroConstraintForElems) over elements with vdov != 0, else 1e20."""
    if stopped(status):
        return
    elem, valid = element_tile(BLOCK, num_elem)
    sound = tl.load(ss + elem, mask=valid, other=0.0)
    rate = tl.load(vdov + elem, mask=valid, other=0.0)
    length = tl.load(arealg + elem, mask=valid, other=0.0)
    dtf = sound * sound
    dtf = tl.where(rate < 0.0, dtf + qqc2 * length * length * rate * rate, dtf)
    dtf = length / tl.sqrt(dtf)
    dtdvov = dvovmax / (tl.abs(rate) + 1.0e-20)
    # The reference keeps a candidate only if it is below the running minimum (so never a NaN).
    limited = valid & (rate != 0.0)
    big = tl.full([BLOCK], NO_CONSTRAINT, tl.float64)
    # Compared with `big`, not the bare constexpr, which Triton would make fp32 (1.00000002e20).
    courant = tl.where(limited & (dtf < big), dtf, big)
    hydro = tl.where(limited & (dtdvov < big), dtdvov, big)
    tl.store(partial_courant + tl.program_id(0), tl.min(courant, axis=0))
    tl.store(partial_hydro + tl.program_id(0), tl.min(hydro, axis=0))


@triton.jit
def reduce_time_constraints(partial_courant, partial_hydro, num_partials, status, BLOCK: tl.constexpr):
    """One program: the minima over the tiles into status[STATUS_DTCOURANT], status[STATUS_DTHYDRO]."""
    if stopped(status):
        return
    courant = tl.full([BLOCK], NO_CONSTRAINT, tl.float64)
    hydro = tl.full([BLOCK], NO_CONSTRAINT, tl.float64)
    for start in range(0, num_partials, BLOCK):
        i = start + tl.arange(0, BLOCK)
        valid = i < num_partials
        courant = tl.minimum(courant, tl.load(partial_courant + i, mask=valid, other=NO_CONSTRAINT))
        hydro = tl.minimum(hydro, tl.load(partial_hydro + i, mask=valid, other=NO_CONSTRAINT))
    tl.store(status + STATUS_DTCOURANT, tl.min(courant, axis=0))
    tl.store(status + STATUS_DTHYDRO, tl.min(hydro, axis=0))


@triton.jit
def advance_time(status, stoptime, max_cycles, dtfixed, deltatimemultlb, deltatimemultub, dtmax, history_length):
    """The device-resident step's start of a cycle: the reference's loop condition and TimeIncrement
    (time_control.hpp's time_increment, operation for operation, in fp64) on status[]. Stops the
    run (STATUS_STOPPED = 1, time and cycle left as they are) when the last step raised a fatal
    condition (the host reports it with STATUS_CYCLE, the cycle that raised it) or the loop is
    over (time >= stoptime or max_cycles done); else advances time, dt and the cycle count and
    records (time, dt) in the history slot of the new cycle. One program, scalars only."""
    if stopped(status):
        return
    time = tl.load(status + STATUS_TIME)
    deltatime = tl.load(status + STATUS_DELTATIME)
    cycle = tl.load(status + STATUS_CYCLE)
    failed = (tl.load(status + STATUS_VOLUME_ERROR) != 0.0) | (tl.load(status + STATUS_QSTOP_ERROR) != 0.0)
    running = (time < stoptime) & (cycle < max_cycles.to(tl.float64))
    if failed | (not running):
        tl.store(status + STATUS_STOPPED, 1.0)
        return
    dtcourant = tl.load(status + STATUS_DTCOURANT)
    dthydro = tl.load(status + STATUS_DTHYDRO)
    # 1e20 as an fp64 value: a bare Python float here would be made fp32 (1.00000002e20).
    no_constraint = tl.full([], NO_CONSTRAINT, tl.float64)
    targetdt = stoptime - time
    if (dtfixed <= 0.0) & (cycle != 0.0):
        olddt = deltatime
        newdt = no_constraint
        newdt = tl.where(dtcourant < newdt, dtcourant / 2.0, newdt)
        newdt = tl.where(dthydro < newdt, dthydro * 2.0 / 3.0, newdt)
        ratio = newdt / olddt
        newdt = tl.where((ratio >= 1.0) & (ratio < deltatimemultlb), olddt, newdt)
        newdt = tl.where((ratio >= 1.0) & (ratio >= deltatimemultlb) & (ratio > deltatimemultub),
                         olddt * deltatimemultub, newdt)
        newdt = tl.where(newdt > dtmax, dtmax, newdt)
        deltatime = newdt
    targetdt = tl.where((targetdt > deltatime) & (targetdt < 4.0 * deltatime / 3.0), 2.0 * deltatime / 3.0, targetdt)
    deltatime = tl.where(targetdt < deltatime, targetdt, deltatime)
    time = time + deltatime
    cycle = cycle + 1.0
    tl.store(status + STATUS_TIME, time)
    tl.store(status + STATUS_DELTATIME, deltatime)
    tl.store(status + STATUS_CYCLE, cycle)
    slot = STATUS_HISTORY + 2 * ((cycle.to(tl.int32) - 1) % history_length)
    tl.store(status + slot, time)
    tl.store(status + slot + 1, deltatime)
