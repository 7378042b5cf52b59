// block_sum.cuh — the vendor paths' block reduction (mp2_energy.cu, ladder_epilogue.cu): one double
// per thread summed over a block of tensor4::block_threads threads in a fixed tree order, so that
// a run's energy or norm is the same bit for bit from run to run.
#pragma once

namespace tensor4 {

constexpr int block_threads = 256;

// The result is in thread 0 (the others hold partial sums). Every thread of the block must call it.
__device__ inline double block_sum(double x) {
  __shared__ double part[block_threads];
  part[threadIdx.x] = x;
  __syncthreads();
  for (int half = block_threads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) part[threadIdx.x] += part[threadIdx.x + half];
    __syncthreads();
  }
  return part[0];
}

}  // namespace tensor4
