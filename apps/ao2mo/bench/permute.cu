// permute.cu — the vendor path's transposes (TTGT: transpose, GEMM, transpose): a 4-D FP32 tensor
// copied into a new index order. CUDA C++ compiled by nvcc, one thread per output element,
// coalesced writes (the output's last index is the thread's fastest).
#include <cuda_runtime_api.h>

#include <cstdint>

#include "permute.hpp"

namespace tensor4 {

__global__ void permute4_kernel(const float* __restrict__ in, float* __restrict__ out, permute4_shape s) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= s.count()) return;
  std::int64_t rest = i, offset = 0;
  for (int d = 3; d >= 0; --d) {
    const std::int64_t idx = rest % s.out_extent[d];
    rest /= s.out_extent[d];
    offset += idx * s.in_stride[d];
  }
  out[i] = in[offset];
}

void permute4(const float* in, float* out, const permute4_shape& shape, cudaStream_t stream) {
  const std::int64_t n = shape.count();
  const int threads = 256;
  permute4_kernel<<<static_cast<unsigned>((n + threads - 1) / threads), threads, 0, stream>>>(in, out, shape);
}

}  // namespace tensor4
