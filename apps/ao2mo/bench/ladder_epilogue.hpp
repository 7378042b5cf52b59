// ladder_epilogue.hpp — the vendor path's second pass of the fusion case (ladder_epilogue.cu, CUDA
// C++): after the library wrote X = W . T, t_new = t_old + X / (d_row[m] + d_col[n]) and the
// squared norm of the update, X read back from memory (what kernels.py's ladder_update does in
// registers).
#pragma once

#include <cuda_runtime_api.h>

namespace tensor4 {

// Blocks the epilogue launches (each writes one FP64 partial norm): `partials` needs this many.
constexpr int ladder_epilogue_blocks = 1056;  // 8 per multiprocessor of an H100/H200 (132)

// t_new[m, n] = t_old[m, n] + x[m, n] / (d_row[m] + d_col[n]) over the row-major M x N tensors, and
// norm[0] = sum of the updates squared (FP64, a fixed summation order: deterministic). Queued on
// `stream`; a launch error shows at the next CUDA runtime check.
void ladder_epilogue(const float* x, const float* t_old, const float* d_row, const float* d_col,
                     float* t_new, double* partials, double* norm, long long m, long long n,
                     cudaStream_t stream);

}  // namespace tensor4
