// materials.hpp — the Hoogenboom-Martin reactor's 12 materials as XSBench defines them: which
// nuclides each holds (fuel: 34 in the small problem, 321 in the large one, whose extra 287 are
// nuclides 68..354), their concentrations (random, from the reference's generator), and the
// volume fractions that decide which material a lookup lands in.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "rng.hpp"

namespace xsbench {

inline constexpr int num_materials = 12;
inline constexpr int fuel = 0;  // material 0: the only one whose nuclide count depends on the size

// Material m's nuclides are mats[m * max_num_nucs + j] for j < num_nucs[m], with concentrations
// concs[m * max_num_nucs + j] (a full square table, as the GPU kernels index it).
struct material_table {
  std::array<std::int32_t, num_materials> num_nucs{};
  std::int32_t max_num_nucs = 0;
  std::vector<std::int32_t> mats;
  std::vector<double> concs;
};

// n_isotopes: 68 (small) gives the 34-nuclide fuel; any larger count the 321-nuclide fuel, which
// needs nuclides up to 354.
inline material_table make_materials(std::int64_t n_isotopes) {
  static const std::vector<std::int32_t> fuel_small = {58, 59, 60, 61, 40, 42, 43, 44, 45, 46, 1,  2,  3,  7,  8,  9, 10,
                                                       29, 57, 47, 48, 0,  62, 15, 33, 34, 52, 53, 54, 55, 56, 18, 23, 41};
  static const std::vector<std::int32_t> cladding = {63, 64, 65, 66, 67};
  static const std::vector<std::int32_t> borated_water = {24, 41, 4, 5};
  static const std::vector<std::int32_t> vessel = {19, 20, 21, 22, 35, 36, 37, 38, 39, 25, 27, 28, 29, 30,
                                                   31, 32, 26, 49, 50, 51, 11, 12, 13, 14, 6,  16, 17};
  static const std::vector<std::int32_t> reflector = {24, 41, 4,  5,  19, 20, 21, 22, 35, 36, 37,
                                                      38, 39, 25, 49, 50, 51, 11, 12, 13, 14};
  static const std::vector<std::int32_t> assembly_ends = {24, 41, 4, 5, 63, 64, 65, 66, 67};

  std::vector<std::int32_t> fuel_nuclides = fuel_small;
  if (n_isotopes != 68) {
    if (n_isotopes < 355)
      throw std::invalid_argument("xsbench: " + std::to_string(n_isotopes) +
                                  " isotopes: the large problem's fuel needs 355 (the small one has exactly 68)");
    for (std::int32_t nuc = 68; nuc < 68 + 287; ++nuc) fuel_nuclides.push_back(nuc);
  }
  // Material order: fuel, cladding, cold and hot borated water, reactor pressure vessel, lower
  // radial reflector, top reflector, bottom plate, bottom nozzle, top nozzle, top and bottom of
  // the fuel assemblies.
  const std::array<const std::vector<std::int32_t> *, num_materials> lists = {
      &fuel_nuclides, &cladding,  &borated_water, &borated_water, &vessel,        &reflector,
      &reflector,     &reflector, &reflector,     &reflector,     &assembly_ends, &assembly_ends};

  material_table t;
  for (int m = 0; m < num_materials; ++m) t.num_nucs[m] = static_cast<std::int32_t>(lists[m]->size());
  t.max_num_nucs = *std::max_element(t.num_nucs.begin(), t.num_nucs.end());
  const std::size_t width = static_cast<std::size_t>(t.max_num_nucs);
  t.mats.assign(num_materials * width, 0);
  t.concs.assign(num_materials * width, 0.0);
  std::uint64_t seed = concentration_seed;
  for (int m = 0; m < num_materials; ++m)
    for (std::size_t j = 0; j < lists[m]->size(); ++j) {
      t.mats[m * width + j] = (*lists[m])[j];
      t.concs[m * width + j] = lcg_random_double(seed);
    }
  return t;
}

// Volume fractions of the 12 materials (fuel first); they sum to 1.001 (as published).
inline constexpr std::array<double, num_materials> material_volume_fraction = {
    0.140, 0.052, 0.275, 0.134, 0.154, 0.064, 0.066, 0.055, 0.008, 0.015, 0.025, 0.013};

// The thresholds a roll r in [0, 1) is compared with: material m (1..11) is picked when r is below
// threshold[m] and not below any earlier one; fuel when r is above them all (r >= 0.861). Each
// threshold is summed as the reference sums it — fraction[m] + fraction[m-1] + ... + fraction[1],
// in that order — so a roll on a boundary picks the reference's material. threshold[0] is 0.
inline std::array<double, num_materials> material_thresholds() {
  std::array<double, num_materials> threshold{};
  for (int m = 1; m < num_materials; ++m) {
    double running = 0;
    for (int j = m; j > 0; --j) running += material_volume_fraction[j];
    threshold[m] = running;
  }
  return threshold;
}

inline int pick_material(double roll, const std::array<double, num_materials> &threshold) {
  for (int m = 1; m < num_materials; ++m)
    if (roll < threshold[m]) return m;
  return fuel;
}

}  // namespace xsbench
