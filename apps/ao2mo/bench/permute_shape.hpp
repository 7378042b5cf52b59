// permute_shape.hpp — a 4-D tensor copied into another index order, as both permute paths take it
// (permute.cu, CUDA C++; kernels.py's permute4, Triton): out is row-major with extents out_extent;
// its element (i0, i1, i2, i3) is in[sum_d i_d * in_stride[d]]. Host-only (the plan and its test).
#pragma once

#include <cstdint>

namespace tensor4 {

struct permute4_shape {
  std::int64_t out_extent[4];
  std::int64_t in_stride[4];
#ifdef __CUDACC__
  __host__ __device__
#endif
  std::int64_t count() const { return out_extent[0] * out_extent[1] * out_extent[2] * out_extent[3]; }
};

}  // namespace tensor4
