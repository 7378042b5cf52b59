// cpu_lookup.hpp — the event-based simulation on the CPU: lookup i samples an energy and a material
// from its own random stream, sums every nuclide of the material's interpolated cross sections
// weighted by concentration (the macroscopic cross section, 5 channels), and reports the index
// (1..5) of the largest channel. The checksum is the sum of those indices mod 999983. This is what
// the GPU kernels compute, lookup for lookup: the tests compare them with it.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <thread>
#include <vector>

#include "materials.hpp"
#include "problem.hpp"
#include "rng.hpp"

namespace xsbench {

inline constexpr std::uint64_t checksum_modulus = 999983;

struct lookup_sample {
  double energy;
  int material;
};

inline lookup_sample sample_lookup(std::int64_t i, const std::array<double, num_materials> &threshold) {
  std::uint64_t seed = lcg_skip_ahead(lookup_starting_seed, 2 * static_cast<std::uint64_t>(i));
  const double energy = lcg_random_double(seed);
  return {energy, pick_material(lcg_random_double(seed), threshold)};
}

// The last unionized index whose energy is <= e (0 below the first): fixed-length bisection.
inline std::int64_t unionized_search(const std::vector<double> &energies, double e) {
  std::int64_t low = 0, high = static_cast<std::int64_t>(energies.size()) - 1;
  while (high - low > 1) {
    const std::int64_t mid = low + (high - low) / 2;
    if (energies[mid] > e)
      high = mid;
    else
      low = mid;
  }
  return low;
}

// The lower point of nuclide `nuc`'s grid interval that holds energy e, given the acceleration
// structure's row `row` (unionized index or hash bin).
inline std::int64_t interval_of(const problem &p, std::int64_t nuc, std::int64_t row, double e) {
  const std::int64_t n_iso = p.size.n_isotopes, n_grid = p.size.n_gridpoints;
  std::int64_t lower;
  if (p.grid == grid_type::unionized) {
    lower = p.index_grid[row * n_iso + nuc];
  } else {
    const std::int64_t u_low = p.index_grid[row * n_iso + nuc];
    const std::int64_t u_high = row == p.size.hash_bins - 1 ? n_grid - 1 : p.index_grid[(row + 1) * n_iso + nuc] + 1;
    if (e <= p.energy(nuc, u_low))
      lower = 0;
    else if (e >= p.energy(nuc, u_high))
      lower = n_grid - 1;
    else
      lower = nuclide_grid_search(&p.nuclide_grid[nuc * n_grid * point_doubles], e, u_low, u_high);
  }
  return lower == n_grid - 1 ? lower - 1 : lower;  // the last point starts no interval
}

inline std::array<double, 5> macro_xs(const problem &p, double e, int mat) {
  std::int64_t row;
  if (p.grid == grid_type::unionized)
    row = unionized_search(p.unionized_energy, e);
  else
    row = static_cast<std::int64_t>(e / (1.0 / static_cast<double>(p.size.hash_bins)));
  std::array<double, 5> macro{};
  const material_table &m = p.materials;
  for (std::int32_t j = 0; j < m.num_nucs[mat]; ++j) {
    const std::int64_t nuc = m.mats[mat * m.max_num_nucs + j];
    const double conc = m.concs[mat * m.max_num_nucs + j];
    const double *low = &p.nuclide_grid[(nuc * p.size.n_gridpoints + interval_of(p, nuc, row, e)) * point_doubles];
    const double *high = low + point_doubles;
    const double f = (high[0] - e) / (high[0] - low[0]);
    for (int k = 0; k < 5; ++k) macro[k] += (high[k + 1] - f * (high[k + 1] - low[k + 1])) * conc;
  }
  return macro;
}

// 1 + the index of the largest channel (the first of equal ones).
inline int verification_value(const std::array<double, 5> &macro) {
  double max = -1.0;
  int at = 0;
  for (int k = 0; k < 5; ++k)
    if (macro[k] > max) {
      max = macro[k];
      at = k;
    }
  return at + 1;
}

// Every lookup's verification value, on `threads` CPU threads (0: all the machine has).
inline std::vector<std::uint8_t> cpu_lookups(const problem &p, std::int64_t lookups, unsigned threads = 0) {
  std::vector<std::uint8_t> out(static_cast<std::size_t>(lookups));
  const auto threshold = material_thresholds();
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (std::int64_t i = t; i < lookups; i += threads) {
        const lookup_sample s = sample_lookup(i, threshold);
        out[i] = static_cast<std::uint8_t>(verification_value(macro_xs(p, s.energy, s.material)));
      }
    });
  for (auto &th : pool) th.join();
  return out;
}

template <class T>
std::uint64_t checksum_of(const std::vector<T> &values) {
  std::uint64_t sum = 0;
  for (T v : values) sum += static_cast<std::uint64_t>(v);
  return sum % checksum_modulus;
}

// The reference's checksum for its default settings (event mode, 17M lookups, unionized grid);
// 0 where it publishes none.
inline std::uint64_t published_checksum(const problem_size &s, std::int64_t lookups, grid_type g) {
  if (lookups != 17000000 || g != grid_type::unionized || s.n_gridpoints != 11303 || s.hash_bins != 10000) return 0;
  if (s.name == "small") return 945990;
  if (s.name == "large") return 952131;
  return 0;
}

}  // namespace xsbench
