"""Triton's own Python launcher on the same kernel and grid as bench_launch (vector_add of
tests/gpu/kernels.py, n = 4096, 4 programs), same synchronisation pattern (every 100 launches).
Prints {"triton_python_us": <mean microseconds per launch>, ...} as JSON."""
import json
import os
import sys
import time

import torch
import triton

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "gpu"))
from kernels import vector_add  # noqa: E402

N, SYNC_EVERY = 4096, 100


def main():
    x = torch.randn(N, device="cuda")
    y = torch.randn(N, device="cuda")
    out = torch.empty(N, device="cuda")
    grid = (triton.cdiv(N, 1024),)
    for _ in range(200):  # compile + warm up
        vector_add[grid](x, y, out, N, 2.0, BLOCK=1024)
    torch.cuda.synchronize()
    assert torch.allclose(out, x + 2.0 * y)
    results = []
    for _ in range(5):
        iters = 20000
        t0 = time.perf_counter()
        for i in range(iters):
            vector_add[grid](x, y, out, N, 2.0, BLOCK=1024)
            if (i + 1) % SYNC_EVERY == 0:
                torch.cuda.synchronize()
        torch.cuda.synchronize()
        results.append((time.perf_counter() - t0) / iters * 1e6)
    results.sort()
    print(json.dumps({"triton_python_us": results[len(results) // 2], "all_us": results,
                      "triton": triton.__version__, "torch": torch.__version__}))


if __name__ == "__main__":
    main()
