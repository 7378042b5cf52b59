"""The halo kernels (kernels.py halo_pack, halo_unpack) in Triton's CPU interpreter against the
reference's own message-by-message loops (lulesh-comm.cc CommSend, CommSBN, CommSyncPosVel): a node
in several messages gets its values added (or stored, the last staying) in message order, bitwise.
ctest example.lulesh.halo_kernels; exit 77 (skipped) without numpy 1.x."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interpreter_host import HostArray, np  # noqa: E402  (before triton: turns the interpreter on)

import kernels as K  # noqa: E402


def main():
    rng = np.random.default_rng(1)
    # Three messages over six nodes; node 2 is in all three (a domain corner's node is in 7).
    msgs = [[0, 2, 4], [1, 2], [2, 3, 5, 0]]
    fields = 6  # pos_vel: x, y, z then xd, yd, zd, packed three at a time
    pack_item, pack_slot, pack_stride, offsets, off = [], [], [], [], 0
    for m in msgs:
        offsets.append(off)
        for k, n in enumerate(m):
            pack_item += [n]
            pack_slot += [off + k]
            pack_stride += [len(m)]
        off += fields * len(m)
    f = [rng.standard_normal(6) for _ in range(fields)]
    i32 = lambda a: HostArray(np.array(a, dtype=np.int32))  # noqa: E731
    buf = HostArray(np.zeros(off))
    for first in (0, 3):
        K.halo_pack[(1,)](i32(pack_item), i32(pack_slot), i32(pack_stride), len(pack_item), HostArray(f[first]),
                          HostArray(f[first + 1]), HostArray(f[first + 2]), buf, first, BLOCK=128)
    want = np.concatenate([np.concatenate([f[i][m] for i in range(fields)]) for m in msgs])
    assert np.array_equal(buf.a, want), "halo_pack: the buffer is not the reference's field-major messages"

    sources = {}
    for m, o in zip(msgs, offsets):
        for k, n in enumerate(m):
            sources.setdefault(n, []).append((o + k, len(m)))
    dest = sorted(sources)
    start, slot, stride = [0], [], []
    for n in dest:
        for a, b in sources[n]:
            slot.append(a)
            stride.append(b)
        start.append(len(slot))
    for add in (True, False):
        g = [HostArray(x.copy()) for x in f]
        for first in (0, 3):
            K.halo_unpack[(1,)](i32(dest), i32(start), i32(slot), i32(stride), len(dest), buf, g[first], g[first + 1],
                                g[first + 2], first, BLOCK=128, MAX_SOURCES=8, ADD=add)
        ref = [x.copy() for x in f]
        for m, o in zip(msgs, offsets):  # the reference: message after message, field after field
            for i in range(fields):
                for k, n in enumerate(m):
                    v = buf.a[o + i * len(m) + k]
                    ref[i][n] = ref[i][n] + v if add else v
        for i in range(fields):
            assert np.array_equal(g[i].a, ref[i]), f"halo_unpack (ADD={add}) field {i}: {g[i].a} != {ref[i]}"
    print("halo kernels in the interpreter: pack and both unpacks as the reference's loops, bitwise")
    return 0


if __name__ == "__main__":
    sys.exit(main())
