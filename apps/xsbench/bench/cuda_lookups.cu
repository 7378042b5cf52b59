// cuda_lookups.cu — the CUDA C++ twin of apps/xsbench/kernels.py (see cuda_lookups.hpp): per
// thread, the same sampling, bisections and interpolation as the reference's CUDA port, with
// per-thread loops that end when the thread is done (a warp runs to its own slowest lane).
#include "cuda_lookups.hpp"

#include "rng.hpp"  // apps/xsbench: the same generator on the device

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace xsbench_cuda {
namespace {

constexpr int num_materials = 12;
constexpr int point = 6;  // doubles per grid point

void check(cudaError_t r, const char *what) {
  if (r != cudaSuccess) throw std::runtime_error(std::string("xsbench CUDA: ") + what + ": " + cudaGetErrorString(r));
}

__device__ void sample(std::int64_t i, const double *__restrict__ thresholds, double &energy, int &material) {
  std::uint64_t seed = xsbench::lcg_skip_ahead(xsbench::lookup_starting_seed, 2 * static_cast<std::uint64_t>(i));
  energy = xsbench::lcg_random_double(seed);
  const double roll = xsbench::lcg_random_double(seed);
  material = 0;
  for (int m = 1; m < num_materials; ++m)
    if (roll < thresholds[m]) {
      material = m;
      break;
    }
}

__device__ std::int64_t grid_row(const problem_view &p, double e) {
  if (p.hash) return static_cast<std::int64_t>(e / (1.0 / p.hash_bins));
  std::int64_t low = 0, high = static_cast<std::int64_t>(p.n_isotopes) * p.n_gridpoints - 1;
  while (high - low > 1) {
    const std::int64_t mid = low + (high - low) / 2;
    if (p.unionized_energy[mid] > e)
      high = mid;
    else
      low = mid;
  }
  return low;
}

__device__ std::int64_t interval(const problem_view &p, int nuc, std::int64_t row, double e) {
  const std::int64_t n_grid = p.n_gridpoints;
  const double *grid = p.nuclide_grid + nuc * n_grid * point;
  std::int64_t lower;
  if (!p.hash) {
    lower = p.index_grid[row * p.n_isotopes + nuc];
  } else {
    std::int64_t low = p.index_grid[row * p.n_isotopes + nuc];
    std::int64_t high = row == p.hash_bins - 1 ? n_grid - 1 : p.index_grid[(row + 1) * p.n_isotopes + nuc] + 1;
    if (e <= grid[low * point]) {
      lower = 0;
    } else if (e >= grid[high * point]) {
      lower = n_grid - 1;
    } else {
      while (high - low > 1) {
        const std::int64_t mid = low + (high - low) / 2;
        if (grid[mid * point] > e)
          high = mid;
        else
          low = mid;
      }
      lower = low;
    }
  }
  return lower == n_grid - 1 ? lower - 1 : lower;
}

// PACKED: the two points' 12 doubles read as 6 16-byte loads (a point starts 48-byte, hence
// 16-byte, aligned), instead of 12 8-byte loads as the reference's structure reads compile to.
template <bool PACKED>
__device__ void add_nuclide(const problem_view &p, int nuc, double conc, std::int64_t row, double e, double acc[5]) {
  const double *low = p.nuclide_grid + (nuc * static_cast<std::int64_t>(p.n_gridpoints) + interval(p, nuc, row, e)) * point;
  double v[2 * point];
  if (PACKED) {
    const double2 *pair = reinterpret_cast<const double2 *>(low);
    for (int k = 0; k < point; ++k) {
      const double2 x = __ldg(pair + k);
      v[2 * k] = x.x;
      v[2 * k + 1] = x.y;
    }
  } else {
    for (int k = 0; k < 2 * point; ++k) v[k] = low[k];
  }
  const double *lo = v, *hi = v + point;
  const double f = (hi[0] - e) / (hi[0] - lo[0]);
  for (int k = 0; k < 5; ++k) acc[k] += (hi[k + 1] - f * (hi[k + 1] - lo[k + 1])) * conc;
}

__device__ int largest_channel(const double acc[5]) {
  double best = -1.0;
  int at = 0;
  for (int k = 0; k < 5; ++k)
    if (acc[k] > best) {
      best = acc[k];
      at = k;
    }
  return at + 1;
}

template <bool PACKED>
__global__ void baseline_kernel(problem_view p, std::int32_t *verification, std::int32_t lookups) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= lookups) return;
  double e;
  int mat;
  sample(i, p.thresholds, e, mat);
  const std::int64_t row = grid_row(p, e);
  double acc[5] = {0, 0, 0, 0, 0};
  const int count = p.num_nucs[mat];
  for (int j = 0; j < count; ++j)
    add_nuclide<PACKED>(p, p.mats[mat * p.max_num_nucs + j], p.concs[mat * p.max_num_nucs + j], row, e, acc);
  verification[i] = largest_channel(acc);
}

__global__ void sample_kernel(const double *thresholds, double *energies, std::int32_t *materials, std::int32_t lookups) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= lookups) return;
  double e;
  int mat;
  sample(i, thresholds, e, mat);
  energies[i] = e;
  materials[i] = mat;
}

__global__ void histogram_kernel(const std::int32_t *materials, std::int32_t *counts, std::int32_t lookups) {
  __shared__ int local[num_materials];
  if (threadIdx.x < num_materials) local[threadIdx.x] = 0;
  __syncthreads();
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < lookups) atomicAdd(&local[materials[i]], 1);
  __syncthreads();
  if (threadIdx.x < num_materials && local[threadIdx.x]) atomicAdd(&counts[threadIdx.x], local[threadIdx.x]);
}

// Each block ranks its lookups per material in shared memory, takes its slots with one global
// atomic per material, and writes energy and lookup index there (order within a block's share is
// the shared atomics' order: the checksum does not depend on it).
__global__ void scatter_kernel(const double *energies, const std::int32_t *materials, std::int32_t *cursor,
                               double *sorted_energies, std::int32_t *sorted_lookups, std::int32_t lookups) {
  __shared__ int local[num_materials], base[num_materials];
  if (threadIdx.x < num_materials) local[threadIdx.x] = 0;
  __syncthreads();
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  int mat = 0, rank = 0;
  if (i < lookups) {
    mat = materials[i];
    rank = atomicAdd(&local[mat], 1);
  }
  __syncthreads();
  if (threadIdx.x < num_materials) base[threadIdx.x] = local[threadIdx.x] ? atomicAdd(&cursor[threadIdx.x], local[threadIdx.x]) : 0;
  __syncthreads();
  if (i < lookups) {
    const int slot = base[mat] + rank;
    sorted_energies[slot] = energies[i];
    sorted_lookups[slot] = static_cast<std::int32_t>(i);
  }
}

__device__ int energy_bucket(double e, int mat, int bins) { return mat * bins + min(static_cast<int>(e * bins), bins - 1); }

__global__ void bucket_histogram_kernel(const double *energies, const std::int32_t *materials, std::int32_t *counts,
                                        std::int32_t lookups, int bins) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < lookups) atomicAdd(&counts[energy_bucket(energies[i], materials[i], bins)], 1);
}

__global__ void bucket_scatter_kernel(const double *energies, const std::int32_t *materials, std::int32_t *cursor,
                                      double *sorted_energies, std::int32_t *sorted_lookups, std::int32_t lookups,
                                      int bins) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= lookups) return;
  const double e = energies[i];
  const int slot = atomicAdd(&cursor[energy_bucket(e, materials[i], bins)], 1);
  sorted_energies[slot] = e;
  sorted_lookups[slot] = static_cast<std::int32_t>(i);
}

template <bool PACKED>
__global__ void material_kernel(problem_view p, int mat, const double *sorted_energies, const std::int32_t *sorted_lookups,
                                std::int32_t first, std::int32_t count, std::int32_t *verification) {
  const std::int64_t s = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= count) return;
  const double e = sorted_energies[first + s];
  const std::int64_t row = grid_row(p, e);
  double acc[5] = {0, 0, 0, 0, 0};
  const int n = p.num_nucs[mat];
  for (int j = 0; j < n; ++j)
    add_nuclide<PACKED>(p, p.mats[mat * p.max_num_nucs + j], p.concs[mat * p.max_num_nucs + j], row, e, acc);
  verification[sorted_lookups[first + s]] = largest_channel(acc);
}

unsigned blocks_for(std::int64_t n, int threads) { return static_cast<unsigned>((n + threads - 1) / threads); }

kernel_resources resources_of(const void *kernel) {
  cudaFuncAttributes a{};
  check(cudaFuncGetAttributes(&a, kernel), "cudaFuncGetAttributes");
  return {a.numRegs, static_cast<int>(a.localSizeBytes)};
}

}  // namespace

void run_baseline(const problem_view &p, const buffers_view &b, cudaStream_t stream, int threads_per_block, bool packed) {
  const unsigned blocks = blocks_for(b.lookups, threads_per_block);
  if (packed)
    baseline_kernel<true><<<blocks, threads_per_block, 0, stream>>>(p, b.verification, b.lookups);
  else
    baseline_kernel<false><<<blocks, threads_per_block, 0, stream>>>(p, b.verification, b.lookups);
  check(cudaGetLastError(), "baseline_kernel launch");
}

void run_sorted(const problem_view &p, const buffers_view &b, cudaStream_t stream, int energy_bins, bool packed) {
  const int t = 256;
  const int buckets = num_materials * std::max(energy_bins, 1);
  sample_kernel<<<blocks_for(b.lookups, t), t, 0, stream>>>(p.thresholds, b.energies, b.materials, b.lookups);
  check(cudaGetLastError(), "sample_kernel launch");
  check(cudaMemsetAsync(b.counts, 0, buckets * sizeof(std::int32_t), stream), "cudaMemsetAsync");
  if (energy_bins > 0)
    bucket_histogram_kernel<<<blocks_for(b.lookups, t), t, 0, stream>>>(b.energies, b.materials, b.counts, b.lookups,
                                                                        energy_bins);
  else
    histogram_kernel<<<blocks_for(b.lookups, t), t, 0, stream>>>(b.materials, b.counts, b.lookups);
  check(cudaGetLastError(), "histogram launch");
  std::vector<std::int32_t> counts(buckets), first(buckets), per_material(num_materials, 0);
  check(cudaMemcpyAsync(counts.data(), b.counts, buckets * sizeof(std::int32_t), cudaMemcpyDeviceToHost, stream),
        "cudaMemcpyAsync counts");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  std::int64_t next = 0;
  for (int k = 0; k < buckets; ++k) {
    first[k] = static_cast<std::int32_t>(next);
    next += counts[k];
    per_material[k / std::max(energy_bins, 1)] += counts[k];
  }
  if (next != b.lookups) throw std::runtime_error("xsbench CUDA: the histogram counted " + std::to_string(next) + " lookups");
  check(cudaMemcpyAsync(b.cursor, first.data(), buckets * sizeof(std::int32_t), cudaMemcpyHostToDevice, stream),
        "cudaMemcpyAsync cursor");
  if (energy_bins > 0)
    bucket_scatter_kernel<<<blocks_for(b.lookups, t), t, 0, stream>>>(b.energies, b.materials, b.cursor, b.sorted_energies,
                                                                      b.sorted_lookups, b.lookups, energy_bins);
  else
    scatter_kernel<<<blocks_for(b.lookups, t), t, 0, stream>>>(b.energies, b.materials, b.cursor, b.sorted_energies,
                                                               b.sorted_lookups, b.lookups);
  check(cudaGetLastError(), "scatter launch");
  std::vector<std::int32_t> material_first(num_materials, 0);
  for (int m = 1; m < num_materials; ++m) material_first[m] = material_first[m - 1] + per_material[m - 1];
  for (int m = 0; m < num_materials; ++m) {
    if (per_material[m] == 0) continue;
    auto kernel = packed ? &material_kernel<true> : &material_kernel<false>;
    kernel<<<blocks_for(per_material[m], t), t, 0, stream>>>(p, m, b.sorted_energies, b.sorted_lookups, material_first[m],
                                                             per_material[m], b.verification);
    check(cudaGetLastError(), "material_kernel launch");
  }
}

kernel_resources baseline_resources() { return resources_of(reinterpret_cast<const void *>(&baseline_kernel<false>)); }
kernel_resources material_kernel_resources() {
  return resources_of(reinterpret_cast<const void *>(&material_kernel<false>));
}

}  // namespace xsbench_cuda
