// mp2_energy.hpp — the vendor path's MP2 energy kernel (mp2_energy.cu, CUDA C++): E(2) from the
// transformed integrals ovov[i][a][j][b] = (ia|jb) that the cuBLAS quarter steps wrote.
#pragma once

#include <cuda_runtime_api.h>

namespace tensor4 {

// energy[0] = sum_{ijab} (ia|jb) [2 (ia|jb) - (ib|ja)] / (e_i + e_j - e_a - e_b): one block per
// pair (i, j) writes its FP64 partial, then one block adds the o^2 partials in a fixed order
// (deterministic). Queued on `stream`; a launch error shows at the next CUDA runtime check.
void mp2_energy(const float* ovov, const float* e_occ, const float* e_vir, double* partials, double* energy, int o, int v,
                cudaStream_t stream);

}  // namespace tensor4
