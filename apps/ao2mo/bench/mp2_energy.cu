// mp2_energy.cu — the vendor path's MP2 energy (mp2_energy.hpp), CUDA C++ compiled by nvcc.
#include <cuda_runtime_api.h>

#include "block_sum.cuh"
#include "mp2_energy.hpp"

namespace tensor4 {

namespace {

constexpr int threads = block_threads;

// Block (i, j): the v x v block K[a, b] = ovov[i, a, j, b], read along b (coalesced); the exchange
// element K[b, a] comes from the same block (L2). FP32 per thread, as the Triton kernels sum.
__global__ void pair_energy(const float* __restrict__ ovov, const float* __restrict__ e_occ, const float* __restrict__ e_vir,
                            double* __restrict__ partials, int o, int v) {
  const int i = blockIdx.x / o, j = blockIdx.x % o;
  const float* block = ovov + (static_cast<long long>(i) * v * o + j) * v;  // K[a, b] at block + a * o v + b
  const long long row = static_cast<long long>(o) * v;
  const float e_ij = e_occ[i] + e_occ[j];
  float sum = 0.0f;
  for (int ab = threadIdx.x; ab < v * v; ab += threads) {
    const int a = ab / v, b = ab % v;
    const float k = block[a * row + b], kt = block[b * row + a];
    sum += k * (2.0f * k - kt) / (e_ij - e_vir[a] - e_vir[b]);
  }
  const double total = block_sum(sum);
  if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

__global__ void sum_partials(const double* __restrict__ partials, double* __restrict__ energy, int count) {
  double sum = 0.0;
  for (int p = threadIdx.x; p < count; p += threads) sum += partials[p];
  const double total = block_sum(sum);
  if (threadIdx.x == 0) energy[0] = total;
}

}  // namespace

void mp2_energy(const float* ovov, const float* e_occ, const float* e_vir, double* partials, double* energy, int o, int v,
                cudaStream_t stream) {
  pair_energy<<<o * o, threads, 0, stream>>>(ovov, e_occ, e_vir, partials, o, v);
  sum_partials<<<1, threads, 0, stream>>>(partials, energy, o * o);
}

}  // namespace tensor4
