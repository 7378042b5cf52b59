// permute.hpp — the vendor path's transposes (permute.cu, CUDA C++) of a permute4_shape
// (permute_shape.hpp).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "permute_shape.hpp"

namespace tensor4 {

// Queued on `stream`; a launch error is reported by the next CUDA runtime check.
void permute4(const float* in, float* out, const permute4_shape& shape, cudaStream_t stream);

}  // namespace tensor4
