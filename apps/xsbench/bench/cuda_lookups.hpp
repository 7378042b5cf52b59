// cuda_lookups.hpp — apps/xsbench/bench's CUDA C++ twin of the Triton lookups (cuda_lookups.cu): the
// reference's baseline (one lookup per thread, 256 threads a block, sampling fused) and the
// material-sorted variants (sampling kernel, the same counting sorts by material or by material and
// energy, one lookup kernel per material), each for the unionized and the hash grid. Same arrays,
// same results.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace xsbench_cuda {

// The device arrays and scalars of one problem (device_problem.hpp's, by pointer).
struct problem_view {
  const double *nuclide_grid, *unionized_energy, *concs, *thresholds;
  const std::int32_t *index_grid, *num_nucs, *mats;
  std::int32_t n_isotopes, n_gridpoints, search_steps, hash_bins, hash_steps, max_num_nucs;
  bool hash;  // false: unionized grid
};

// The per-lookup work arrays (lookup_buffers' by pointer).
struct buffers_view {
  std::int32_t lookups;
  double *energies, *sorted_energies;
  std::int32_t *materials, *sorted_lookups, *verification, *counts, *cursor;
};

// verification[i] for every lookup; threads_per_block: 256 is the reference's; packed: the grid
// points read with 16-byte loads (the reference's structure reads compile to 8-byte ones).
void run_baseline(const problem_view &p, const buffers_view &b, cudaStream_t stream, int threads_per_block = 256,
                  bool packed = false);

// Sampling, counting sort (the counts copied to the host for the launch sizes), one launch per
// material. energy_bins 0: by material; > 0: by material, then energy bucket (counts and cursor
// must hold 12 x energy_bins). packed: as run_baseline's.
void run_sorted(const problem_view &p, const buffers_view &b, cudaStream_t stream, int energy_bins = 0,
                bool packed = false);

// Registers per thread and local-memory (spill) bytes of the two lookup kernels, from the runtime.
struct kernel_resources {
  int registers, local_bytes;
};
kernel_resources baseline_resources();
kernel_resources material_kernel_resources();

}  // namespace xsbench_cuda
