"""The gathering kernels' last tile (kernels.py gather_tile: volume_force, kinematics_q_gradient load
without masks; the lanes past the end take the last element's index) in Triton's CPU interpreter:
a launch whose last tile is mostly past the end gives bitwise the results of a launch whose tiles
are exactly full, writes nothing past the end (poisoned slots stay poisoned), and reads nothing past
it either: the nodelist's padding slots hold node ids a billion nodes away, so a lane that read one
would gather far outside the node arrays and fail. ctest example.lulesh.gather_tile; exit 77
(skipped) without numpy 1.x."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interpreter_host import HostArray, np  # noqa: E402  (before triton: turns the interpreter on)

import interpret_check  # noqa: E402,F401  (importing it puts numpy's cbrt in kernels.cbrt)
import kernels as K  # noqa: E402

np.seterr(all="ignore")  # lanes past the end may divide by zero, as they may on the GPU

NUM_ELEM = 20    # a tile of 64 is two thirds past the end; tiles of 4 are exactly full
STRIDE = 32      # corner_stride: NUM_ELEM rounded up, as main.cpp does (multiple of 16)
NUM_NODE = 48
FAR_NODE = 1 << 30


def mesh(rng):
    """Eight distinct corner nodes per element (a perturbed unit hexahedron each, so that volumes
    are positive), corner-major nodelist with its padding slots planted with FAR_NODE."""
    nodelist = np.full(8 * STRIDE, FAR_NODE, dtype=np.int32)
    ids = np.stack([rng.choice(NUM_NODE, 8, replace=False) for _ in range(NUM_ELEM)])  # [elem, corner]
    for c in range(8):
        nodelist[c * STRIDE:c * STRIDE + NUM_ELEM] = ids[:, c]
    return nodelist


def node_fields(rng):
    return [rng.standard_normal(NUM_NODE) for _ in range(6)]  # x, y, z, xd, yd, zd


def elem_field(rng, low, high):
    return rng.uniform(low, high, NUM_ELEM)


def poisoned(n):
    return HostArray(np.full(n, np.nan))


def run_volume_force(block, nodes, elems, nodelist):
    f = [poisoned(8 * STRIDE) for _ in range(3)]
    status = HostArray(np.zeros(64))
    grid = (-(-NUM_ELEM // block),)
    K.volume_force[grid](*[HostArray(a) for a in nodes], *[HostArray(a) for a in elems],
                         HostArray(nodelist), *f, status, NUM_ELEM, STRIDE, 3.0e-2, BLOCK=block)
    return [a.a for a in f], status.a


def run_kinematics(block, nodes, volo, v, nodelist):
    outs = [poisoned(STRIDE) for _ in range(10)]  # vnew delv arealg vdov delv_xi/eta/zeta delx_xi/eta/zeta
    status = HostArray(np.zeros(64))
    grid = (-(-NUM_ELEM // block),)
    K.kinematics_q_gradient[grid](*[HostArray(a) for a in nodes], HostArray(volo), HostArray(v),
                                  HostArray(nodelist), *outs, status, NUM_ELEM, STRIDE, 1.0e-3, BLOCK=block)
    return [a.a for a in outs], status.a


def main():
    rng = np.random.default_rng(32)
    nodelist = mesh(rng)
    nodes = node_fields(rng)
    # p, q, v, volo, ss, elem_mass
    elems = [elem_field(rng, 0.1, 1.0), elem_field(rng, 0.0, 0.1), elem_field(rng, 0.5, 1.5),
             elem_field(rng, 0.5, 1.5), elem_field(rng, 0.1, 2.0), elem_field(rng, 0.5, 2.0)]

    full, status_full = run_volume_force(4, nodes, elems, nodelist)
    part, status_part = run_volume_force(64, nodes, elems, nodelist)
    for name, a, b in zip(("fx", "fy", "fz"), full, part):
        for c in range(8):
            live = slice(c * STRIDE, c * STRIDE + NUM_ELEM)
            pad = slice(c * STRIDE + NUM_ELEM, (c + 1) * STRIDE)
            assert not np.isnan(a[live]).any(), f"volume_force {name}_corner corner {c}: a slot left unwritten"
            assert np.array_equal(a[live], b[live]), f"volume_force {name}_corner corner {c}: last tile differs"
            assert np.isnan(b[pad]).all(), f"volume_force {name}_corner corner {c}: written past the end"
    assert np.array_equal(status_full, status_part), "volume_force: the flags differ with the last tile"

    full, status_full = run_kinematics(4, nodes, elems[3], elems[2], nodelist)
    part, status_part = run_kinematics(64, nodes, elems[3], elems[2], nodelist)
    for i, (a, b) in enumerate(zip(full, part)):
        assert not np.isnan(a[:NUM_ELEM]).any(), f"kinematics_q_gradient output {i}: an element left unwritten"
        assert np.array_equal(a[:NUM_ELEM], b[:NUM_ELEM]), f"kinematics_q_gradient output {i}: last tile differs"
        assert np.isnan(b[NUM_ELEM:]).all(), f"kinematics_q_gradient output {i}: written past the end"
    assert np.array_equal(status_full, status_part), "kinematics_q_gradient: the flags differ with the last tile"
    print(f"gather_tile in the interpreter: {NUM_ELEM} elements in one tile of 64 as in five tiles of 4, bitwise; "
          "nothing written or read past the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
