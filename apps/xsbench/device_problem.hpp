// device_problem.hpp — the problem's arrays in GPU memory (tritonpack's memory API), the launch
// parameters every lookup kernel takes, and the work arrays of the split and sorted variants.
// Shared by the Triton launches (triton_lookups.hpp) and apps/xsbench/bench's CUDA twin.
#pragma once

#include <tritonpack/tritonpack.hpp>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "materials.hpp"
#include "problem.hpp"

namespace xsbench {

// The scalar arguments of the lookup kernels (kernels.py's names).
struct lookup_parameters {
  std::int32_t n_isotopes, n_gridpoints, search_steps, hash_bins, hash_steps, max_num_nucs;
};

inline std::int32_t narrow_to_int32(std::int64_t v, const char *what) {
  if (v < 0 || v > 0x7fffffff) throw std::invalid_argument(std::string("xsbench: ") + what + " " + std::to_string(v) + " does not fit a 32-bit kernel argument");
  return static_cast<std::int32_t>(v);
}

struct device_problem {
  grid_type grid;
  lookup_parameters params;
  std::array<std::int32_t, num_materials> num_nucs;
  tritonpack::device_array<double> nuclide_grid;
  tritonpack::device_array<double> unionized_energy;  // one unused element for the hash grid
  tritonpack::device_array<std::int32_t> index_grid, num_nucs_d, mats;
  tritonpack::device_array<double> concs, thresholds;

  explicit device_problem(const problem &p)
      : grid(p.grid),
        params{narrow_to_int32(p.size.n_isotopes, "n_isotopes"), narrow_to_int32(p.size.n_gridpoints, "n_gridpoints"),
               bisection_steps(p.points()), narrow_to_int32(p.size.hash_bins, "hash_bins"), hash_search_steps(p),
               p.materials.max_num_nucs},
        num_nucs(p.materials.num_nucs),
        nuclide_grid(p.nuclide_grid),
        unionized_energy(p.unionized_energy.empty() ? std::vector<double>{0.0} : p.unionized_energy),
        index_grid(p.index_grid),
        num_nucs_d(std::vector<std::int32_t>(p.materials.num_nucs.begin(), p.materials.num_nucs.end())),
        mats(p.materials.mats),
        concs(p.materials.concs),
        thresholds([] {
          const auto t = material_thresholds();
          return std::vector<double>(t.begin(), t.end());
        }()) {}
};

// Energy buckets per material of the sort by material, then energy (kernels.py bucket_histogram).
inline constexpr std::int32_t energy_bins = 1024;

// Per-lookup arrays: the samples of the split and sorted variants, the sorted order, the
// verification values; counts/cursor: the counting sorts' counters (12 materials, or 12 x
// energy_bins buckets).
struct lookup_buffers {
  std::int32_t lookups;
  tritonpack::device_array<double> energies, sorted_energies;
  tritonpack::device_array<std::int32_t> materials, sorted_lookups, verification, counts, cursor;

  explicit lookup_buffers(std::int64_t n)
      : lookups(narrow_to_int32(n, "lookups")),
        energies(n),
        sorted_energies(n),
        materials(n),
        sorted_lookups(n),
        verification(n),
        counts(num_materials * energy_bins),
        cursor(num_materials * energy_bins) {}
};

}  // namespace xsbench
