// triton_lookups.hpp — the three ways of running the lookups with the Triton kernels (kernels.py),
// through the typed functions tritonpack generates from kernels.toml (xsbench_kernels.hpp):
//   fused   one kernel: sample and look up (the reference's baseline);
//   split   sample_lookups, then lookup_split;
//   sorted  sample_lookups, a counting sort by material (material_histogram, the 12 counts to the
//           host for the launch sizes, material_scatter), then lookup_material once per material;
//   energy  as sorted, the counting sort by material and then energy bucket (bucket_histogram,
//           bucket_scatter): the reference's best variant.
// Each writes every lookup's verification value (1..5) to buffers.verification, by lookup index.
#pragma once

#ifdef XSBENCH_KERNELS_HEADER
#include XSBENCH_KERNELS_HEADER
#else
#include <xsbench_kernels.hpp>
#endif

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "device_problem.hpp"
#include "variants.hpp"
#include "materials.hpp"

namespace xsbench {

// The fused kernel's launch function: the library's default tile, or one of the tile-size
// experiment's (apps/xsbench/bench) — same arguments.
using fused_function = decltype(&xsbench_kernels::lookup_fused_unionized);

inline fused_function fused_kernel_for(grid_type g) {
  return g == grid_type::unionized ? &xsbench_kernels::lookup_fused_unionized : &xsbench_kernels::lookup_fused_hash;
}

inline void run_fused(const device_problem &d, lookup_buffers &b, tritonpack::stream_t stream = nullptr,
                      fused_function fn = nullptr) {
  if (!fn) fn = fused_kernel_for(d.grid);
  const lookup_parameters &p = d.params;
  fn(d.nuclide_grid.data(), d.unionized_energy.data(), d.index_grid.data(), d.num_nucs_d.data(), d.mats.data(),
     d.concs.data(), d.thresholds.data(), b.verification.data(), b.lookups, skip_bits_for(b.lookups), p.n_isotopes,
     p.n_gridpoints, p.search_steps, p.hash_bins, p.hash_steps, p.max_num_nucs, stream);
}

inline void run_sampling(const device_problem &d, lookup_buffers &b, tritonpack::stream_t stream) {
  xsbench_kernels::sample_lookups(b.energies.data(), b.materials.data(), d.thresholds.data(), b.lookups,
                                  skip_bits_for(b.lookups), stream);
}

inline void run_split(const device_problem &d, lookup_buffers &b, tritonpack::stream_t stream = nullptr) {
  run_sampling(d, b, stream);
  const lookup_parameters &p = d.params;
  auto fn = d.grid == grid_type::unionized ? &xsbench_kernels::lookup_split_unionized : &xsbench_kernels::lookup_split_hash;
  fn(b.energies.data(), b.materials.data(), d.nuclide_grid.data(), d.unionized_energy.data(), d.index_grid.data(),
     d.num_nucs_d.data(), d.mats.data(), d.concs.data(), b.verification.data(), b.lookups, p.n_isotopes,
     p.n_gridpoints, p.search_steps, p.hash_bins, p.hash_steps, p.max_num_nucs, stream);
}

// Material m's slots are [first[m], first[m] + count[m]) of the sorted arrays.
struct material_ranges {
  std::array<std::int32_t, num_materials> count{}, first{};
};

inline material_ranges ranges_from_counts(const std::vector<std::int32_t> &counts, std::int64_t lookups) {
  material_ranges r;
  std::int64_t next = 0;
  for (int m = 0; m < num_materials; ++m) {
    r.count[m] = counts[m];
    r.first[m] = static_cast<std::int32_t>(next);
    next += counts[m];
  }
  if (next != lookups)
    throw std::runtime_error("xsbench: the material histogram counted " + std::to_string(next) + " lookups of " +
                             std::to_string(lookups));
  return r;
}

// Counts per material on the device, then the ranges on the host (a synchronising copy of 12
// counts: the launch sizes of the per-material kernels), then the scatter into them.
inline material_ranges sort_by_material(lookup_buffers &b, tritonpack::stream_t stream) {
  tritonpack::memset_device_async(b.counts.data(), 0, b.counts.bytes(), stream);
  xsbench_kernels::material_histogram(b.materials.data(), b.counts.data(), b.lookups, stream);
  std::vector<std::int32_t> counts(num_materials);
  b.counts.download_async(counts.data(), num_materials, stream);
  tritonpack::synchronize(stream);
  const material_ranges r = ranges_from_counts(counts, b.lookups);
  b.cursor.upload_async(r.first.data(), num_materials, stream);
  xsbench_kernels::material_scatter(b.energies.data(), b.materials.data(), b.cursor.data(), b.sorted_energies.data(),
                                    b.sorted_lookups.data(), b.lookups, stream);
  return r;
}

// The per-material kernel's launch function: the library's default, or an experiment's (the packed
// reads of apps/xsbench/bench) — same arguments.
using material_function = decltype(&xsbench_kernels::lookup_material_unionized);

inline void launch_per_material(const device_problem &d, lookup_buffers &b, const material_ranges &r,
                                tritonpack::stream_t stream, material_function fn) {
  const lookup_parameters &p = d.params;
  if (!fn)
    fn = d.grid == grid_type::unionized ? &xsbench_kernels::lookup_material_unionized
                                        : &xsbench_kernels::lookup_material_hash;
  for (int m = 0; m < num_materials; ++m) {
    if (r.count[m] == 0) continue;
    fn(b.sorted_energies.data(), b.sorted_lookups.data(), r.first[m], r.count[m], m, d.nuclide_grid.data(),
       d.unionized_energy.data(), d.index_grid.data(), d.num_nucs_d.data(), d.mats.data(), d.concs.data(),
       b.verification.data(), p.n_isotopes, p.n_gridpoints, p.search_steps, p.hash_bins, p.hash_steps,
       p.max_num_nucs, stream);
  }
}

inline void run_sorted(const device_problem &d, lookup_buffers &b, tritonpack::stream_t stream = nullptr,
                       material_function fn = nullptr) {
  run_sampling(d, b, stream);
  launch_per_material(d, b, sort_by_material(b, stream), stream, fn);
}

// The buckets' counts to the host (12 x energy_bins: the launch sizes and every bucket's first
// slot), then the scatter; material m's range is its buckets'.
inline material_ranges sort_by_material_and_energy(lookup_buffers &b, tritonpack::stream_t stream) {
  const std::size_t buckets = b.counts.size();
  tritonpack::memset_device_async(b.counts.data(), 0, b.counts.bytes(), stream);
  xsbench_kernels::bucket_histogram(b.energies.data(), b.materials.data(), b.counts.data(), b.lookups, energy_bins,
                                    stream);
  std::vector<std::int32_t> counts(buckets), first(buckets);
  b.counts.download_async(counts.data(), buckets, stream);
  tritonpack::synchronize(stream);
  std::vector<std::int32_t> per_material(num_materials, 0);
  std::int64_t next = 0;
  for (std::size_t k = 0; k < buckets; ++k) {
    first[k] = static_cast<std::int32_t>(next);
    next += counts[k];
    per_material[k / energy_bins] += counts[k];
  }
  const material_ranges r = ranges_from_counts(per_material, b.lookups);
  b.cursor.upload_async(first.data(), buckets, stream);
  xsbench_kernels::bucket_scatter(b.energies.data(), b.materials.data(), b.cursor.data(), b.sorted_energies.data(),
                                  b.sorted_lookups.data(), b.lookups, energy_bins, stream);
  return r;
}

inline void run_sorted_by_energy(const device_problem &d, lookup_buffers &b, tritonpack::stream_t stream = nullptr,
                                 material_function fn = nullptr) {
  run_sampling(d, b, stream);
  launch_per_material(d, b, sort_by_material_and_energy(b, stream), stream, fn);
}

inline void run_variant(variant v, const device_problem &d, lookup_buffers &b, tritonpack::stream_t stream = nullptr) {
  switch (v) {
    case variant::fused: return run_fused(d, b, stream);
    case variant::split: return run_split(d, b, stream);
    case variant::sorted: return run_sorted(d, b, stream);
    case variant::energy: return run_sorted_by_energy(d, b, stream);
  }
}

}  // namespace xsbench
