// problem.hpp — XSBench's cross-section data on the host: every nuclide's energy grid of random
// cross sections (array of structures, 6 doubles a point: energy and 5 reaction channels), and the
// acceleration structure a lookup uses to find its energy in every nuclide's grid at once:
//   unionized  all nuclides' energies sorted into one array, with, per unionized energy and per
//              nuclide, the index of that nuclide's grid interval (one binary search per lookup);
//   hash       `hash_bins` equal energy bins, per bin and nuclide the interval at the bin's lower
//              edge (per nuclide a short binary search between two neighbouring bins' entries).
// Built as the reference builds them (same generator, same order), so lookups give its results.
#pragma once

#include <algorithm>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "materials.hpp"
#include "rng.hpp"

namespace xsbench {

enum class grid_type { unionized, hash };

inline const char *grid_name(grid_type g) { return g == grid_type::unionized ? "unionized" : "hash"; }

// The reference's problem sizes: `small` and `large` (the default), both 11303 points a nuclide and
// 10000 hash bins. Tests use tiny grids of the same shape (n_isotopes 68 or 355, fewer points).
struct problem_size {
  std::string name;
  std::int64_t n_isotopes = 355;
  std::int64_t n_gridpoints = 11303;
  std::int64_t hash_bins = 10000;
};

inline problem_size size_named(const std::string &name) {
  if (name == "small") return {"small", 68, 11303, 10000};
  if (name == "large") return {"large", 355, 11303, 10000};
  throw std::invalid_argument("xsbench: unknown problem size '" + name + "' (small or large)");
}

inline constexpr int point_doubles = 6;  // energy, total, elastic, absorption, fission, nu-fission

struct problem {
  problem_size size;
  grid_type grid = grid_type::unionized;
  // nuclide n's point p: nuclide_grid[(n * n_gridpoints + p) * 6 + field], energies ascending.
  std::vector<double> nuclide_grid;
  // unionized: the sorted energies of all points (n_isotopes * n_gridpoints); empty for hash.
  std::vector<double> unionized_energy;
  // unionized: index_grid[e * n_isotopes + n] = nuclide n's interval at unionized energy e;
  // hash: index_grid[b * n_isotopes + n] = nuclide n's interval at energy b / hash_bins.
  std::vector<std::int32_t> index_grid;
  material_table materials;

  std::int64_t points() const { return size.n_isotopes * size.n_gridpoints; }
  double energy(std::int64_t nuclide, std::int64_t point) const {
    return nuclide_grid[static_cast<std::size_t>((nuclide * size.n_gridpoints + point) * point_doubles)];
  }
};

// The last index in [low, high) of nuclide's grid whose energy is <= e (low when e is below
// grid[low + 1]): the reference's bisection, which the hash grid's set-up and lookups share.
inline std::int64_t nuclide_grid_search(const double *grid, double e, std::int64_t low, std::int64_t high) {
  std::int64_t length = high - low;
  while (length > 1) {
    const std::int64_t mid = low + length / 2;
    if (grid[mid * point_doubles] > e)
      high = mid;
    else
      low = mid;
    length = high - low;
  }
  return low;
}

namespace detail {

inline std::vector<double> make_nuclide_grids(const problem_size &s) {
  std::vector<double> grid(static_cast<std::size_t>(s.n_isotopes * s.n_gridpoints * point_doubles));
  std::uint64_t seed = nuclide_grid_seed;
  for (double &v : grid) v = lcg_random_double(seed);  // point by point, field by field
  struct point {
    double v[point_doubles];
  };
  static_assert(sizeof(point) == point_doubles * sizeof(double), "a grid point is 6 packed doubles");
  auto *points = reinterpret_cast<point *>(grid.data());
  for (std::int64_t n = 0; n < s.n_isotopes; ++n)
    std::sort(points + n * s.n_gridpoints, points + (n + 1) * s.n_gridpoints,
              [](const point &a, const point &b) { return a.v[0] < b.v[0]; });
  return grid;
}

// Walks the sorted unionized energies once, advancing each nuclide's interval whenever the energy
// passes the interval's upper end (and never past its last interval), as the reference does.
inline void make_unionized_grid(problem &p) {
  const std::int64_t n_iso = p.size.n_isotopes, n_grid = p.size.n_gridpoints;
  p.unionized_energy.resize(static_cast<std::size_t>(p.points()));
  for (std::int64_t i = 0; i < p.points(); ++i) p.unionized_energy[i] = p.nuclide_grid[i * point_doubles];
  std::sort(p.unionized_energy.begin(), p.unionized_energy.end());
  p.index_grid.resize(static_cast<std::size_t>(p.points() * n_iso));
  std::vector<std::int32_t> interval(static_cast<std::size_t>(n_iso), 0);
  std::vector<double> upper(static_cast<std::size_t>(n_iso));
  for (std::int64_t n = 0; n < n_iso; ++n) upper[n] = p.energy(n, 1);
  for (std::int64_t e = 0; e < p.points(); ++e) {
    const double energy = p.unionized_energy[e];
    std::int32_t *row = &p.index_grid[static_cast<std::size_t>(e * n_iso)];
    for (std::int64_t n = 0; n < n_iso; ++n) {
      if (energy >= upper[n] && interval[n] != n_grid - 2) {
        ++interval[n];
        upper[n] = p.energy(n, interval[n] + 1);
      }
      row[n] = interval[n];
    }
  }
}

inline void make_hash_grid(problem &p) {
  const std::int64_t n_iso = p.size.n_isotopes, bins = p.size.hash_bins;
  if (bins < 1) throw std::invalid_argument("xsbench: the hash grid needs at least 1 bin");
  p.index_grid.resize(static_cast<std::size_t>(bins * n_iso));
  const double du = 1.0 / static_cast<double>(bins);
  for (std::int64_t b = 0; b < bins; ++b)
    for (std::int64_t n = 0; n < n_iso; ++n)
      p.index_grid[b * n_iso + n] = static_cast<std::int32_t>(
          nuclide_grid_search(&p.nuclide_grid[n * p.size.n_gridpoints * point_doubles], b * du, 0, p.size.n_gridpoints - 1));
}

}  // namespace detail

inline problem make_problem(const problem_size &size, grid_type grid) {
  if (size.n_gridpoints < 2 || size.n_gridpoints > 0x7fffffff)
    throw std::invalid_argument("xsbench: " + std::to_string(size.n_gridpoints) +
                                " points per nuclide: needs 2 to 2^31 - 1 (the index grid is 32-bit)");
  problem p;
  p.size = size;
  p.grid = grid;
  p.materials = make_materials(size.n_isotopes);
  try {
    p.nuclide_grid = detail::make_nuclide_grids(size);
    if (grid == grid_type::unionized)
      detail::make_unionized_grid(p);
    else
      detail::make_hash_grid(p);
  } catch (const std::bad_alloc &) {
    const double index_bytes = 4.0 * double(size.n_isotopes) *
                               (grid == grid_type::unionized ? double(p.points()) : double(size.hash_bins));
    throw std::runtime_error("xsbench: out of host memory for the " + std::string(grid_name(grid)) + " grid of " +
                             std::to_string(size.n_isotopes) + " nuclides x " + std::to_string(size.n_gridpoints) +
                             " points (its index grid alone is " + std::to_string(index_bytes / 1e9) +
                             " GB): use fewer points (-g) or the hash grid (-G hash)");
  }
  return p;
}

// Loop lengths of the GPU kernels' fixed-length loops (kernels.py has no per-lane exit).
// Iterations a fixed-length bisection of `length` points takes in the worst case (the reference's
// loop: the interval shrinks to half, rounded up, until it holds at most 2 points).
inline std::int32_t bisection_steps(std::int64_t length) {
  std::int32_t steps = 0;
  for (std::int64_t span = length - 1; span > 1; span = span - span / 2) ++steps;
  return steps;
}

// Bits of the largest skip-ahead distance, 2 (lookups - 1): the sampling loop's length.
inline std::int32_t skip_bits_for(std::int64_t lookups) {
  std::int32_t bits = 0;
  for (std::uint64_t n = 2 * static_cast<std::uint64_t>(lookups > 0 ? lookups - 1 : 0); n > 0; n >>= 1) ++bits;
  return bits;
}

// The hash grid's longest per-nuclide bisection between two neighbouring bins' entries.
inline std::int32_t hash_search_steps(const problem &p) {
  if (p.grid != grid_type::hash) return 0;
  const std::int64_t n_iso = p.size.n_isotopes, bins = p.size.hash_bins;
  std::int64_t longest = 0;
  for (std::int64_t b = 0; b < bins; ++b)
    for (std::int64_t n = 0; n < n_iso; ++n) {
      const std::int64_t low = p.index_grid[b * n_iso + n];
      const std::int64_t high = b == bins - 1 ? p.size.n_gridpoints - 1 : p.index_grid[(b + 1) * n_iso + n] + 1;
      longest = std::max(longest, high - low + 1);
    }
  return bisection_steps(longest);
}

}  // namespace xsbench
