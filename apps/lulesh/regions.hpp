// regions.hpp — LULESH 2.0's material regions: which elements belong to which region, and how
// many times each region evaluates its equation of state.
//
// Every region is the same ideal gas, so the regions change the work per step, never the result:
// the reference uses them to make memory access non-unit-stride (region element lists) and to
// add load imbalance (the EOS of the more expensive regions is evaluated 1 + cost or 10 (1 + cost)
// times). The assignment is the reference's, random runs of elements drawn with glibc's rand()
// after srand(0) (glibc_rand.hpp), so the lists are the reference's on every platform.
#pragma once

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "glibc_rand.hpp"

namespace lulesh {

struct region_sets {
  // region_of[i]: the region number (1-based, as the reference's regNumList) of element i
  std::vector<std::int32_t> region_of;
  // elements of region r, increasing: elements[start[r] .. start[r + 1])
  std::vector<std::int32_t> elements;
  std::vector<std::int32_t> start;
  // EOS evaluations per step of region r
  std::vector<std::int32_t> repetitions;

  int count() const { return static_cast<int>(repetitions.size()); }
  std::int32_t size(int r) const { return start[r + 1] - start[r]; }
};

// How many times region r of num_regions evaluates the EOS (ApplyMaterialPropertiesForElems):
// the cheaper half once, then 1 + cost, and the last (num_regions + 15) / 20 regions 10 (1 + cost).
inline std::int32_t eos_repetitions(int r, int num_regions, int cost) {
  if (r < num_regions / 2) return 1;
  if (r < num_regions - (num_regions + 15) / 20) return 1 + cost;
  return 10 * (1 + cost);
}

// The number of elements of the next run, drawn as the reference draws it: mostly short runs
// (1-15 elements, 77.3%), rarely up to 2048.
inline std::int32_t draw_run_length(glibc_rand& rng) {
  const int bin = rng.next() % 1000;
  if (bin < 773) return rng.next() % 15 + 1;
  if (bin < 937) return rng.next() % 16 + 16;
  if (bin < 970) return rng.next() % 32 + 32;
  if (bin < 974) return rng.next() % 64 + 64;
  if (bin < 978) return rng.next() % 128 + 128;
  if (bin < 981) return rng.next() % 256 + 256;
  return rng.next() % 1537 + 512;
}

// CreateRegionIndexSets of the reference for the domain of MPI rank `rank` (0: one domain):
// elements 0, 1, 2, ... are given to regions in runs; each run's region is drawn with probability
// proportional to (region number)^balance, rotated by the rank (so each domain has a different
// most frequent region), and is never the previous run's region. The generator is seeded with
// the rank (srand(myRank) under MPI, srand(0) without: the same for rank 0).
inline region_sets make_regions(std::int32_t num_elem, int num_regions, int balance, int cost, int rank = 0) {
  if (num_regions < 1) throw std::invalid_argument("the number of regions (-r) must be at least 1, got " + std::to_string(num_regions));
  if (num_elem < 1) throw std::invalid_argument("the mesh has no elements");
  region_sets sets;
  sets.region_of.assign(static_cast<std::size_t>(num_elem), 1);
  if (num_regions > 1) {
    if (rank < 0) throw std::invalid_argument("the MPI rank must not be negative, got " + std::to_string(rank));
    glibc_rand rng(static_cast<std::uint32_t>(rank));
    // Cumulative weights, accumulated in an int as the reference does (`int += pow(...)`).
    std::vector<int> bin_end(static_cast<std::size_t>(num_regions));
    int weight_sum = 0;
    for (int i = 0; i < num_regions; ++i) {
      const double sum = weight_sum + std::pow(double(i + 1), double(balance));
      if (!(sum <= double(INT_MAX)))  // the reference's int would overflow
        throw std::invalid_argument("the region weights (-b " + std::to_string(balance) + " with -r " +
                                    std::to_string(num_regions) + ") overflow an int; use a smaller balance or fewer regions");
      weight_sum = static_cast<int>(sum);
      bin_end[static_cast<std::size_t>(i)] = weight_sum;
    }
    auto draw_region = [&] {
      const int pick = rng.next() % weight_sum;
      int i = 0;
      while (pick >= bin_end[static_cast<std::size_t>(i)]) ++i;
      return (i + rank) % num_regions + 1;  // rotated by the MPI rank
    };
    int previous = -1;
    std::int32_t next = 0;
    while (next < num_elem) {
      int region = draw_region();
      while (region == previous) region = draw_region();
      const std::int32_t run_end = next + draw_run_length(rng);
      for (; next < run_end && next < num_elem; ++next) sets.region_of[static_cast<std::size_t>(next)] = region;
      previous = region;
    }
  }
  // Region lists: counting sort by region, elements increasing within a region.
  sets.start.assign(static_cast<std::size_t>(num_regions) + 1, 0);
  for (std::int32_t r : sets.region_of) ++sets.start[static_cast<std::size_t>(r)];
  for (int r = 0; r < num_regions; ++r) sets.start[r + 1] += sets.start[r];
  sets.elements.resize(static_cast<std::size_t>(num_elem));
  std::vector<std::int32_t> fill(sets.start.begin(), sets.start.end() - 1);
  for (std::int32_t i = 0; i < num_elem; ++i)
    sets.elements[static_cast<std::size_t>(fill[sets.region_of[i] - 1]++)] = i;
  sets.repetitions.resize(static_cast<std::size_t>(num_regions));
  for (int r = 0; r < num_regions; ++r) sets.repetitions[r] = eos_repetitions(r, num_regions, cost);
  return sets;
}

// The element order of material_eos, one launch over all regions: each region's list (the most
// repeated regions first, so that the longest tiles start first) padded with -1 to a multiple of
// `alignment` slots. A tile of any BLOCK that divides the alignment then holds elements of one
// region only, so its repetition loop is uniform and every element is evaluated exactly its
// region's number of times; repetitions[i] is slot i's count (0 on padding, whose tiles do nothing).
struct eos_order {
  std::vector<std::int32_t> elements;
  std::vector<std::int32_t> repetitions;
};

// The largest material_eos BLOCK in kernels.toml and apps/lulesh/bench's tuning sweep.
inline constexpr std::int32_t eos_tile_alignment = 512;

inline eos_order make_eos_order(const region_sets& sets, std::int32_t alignment = eos_tile_alignment) {
  if (alignment < 1) throw std::invalid_argument("the EOS tile alignment must be at least 1, got " + std::to_string(alignment));
  std::vector<int> order(static_cast<std::size_t>(sets.count()));
  for (int r = 0; r < sets.count(); ++r) order[static_cast<std::size_t>(r)] = r;
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return sets.repetitions[a] > sets.repetitions[b]; });
  eos_order eos;
  for (int r : order) {
    const std::int32_t size = sets.size(r);
    if (size == 0) continue;
    const std::size_t padded = static_cast<std::size_t>((size + alignment - 1) / alignment) * static_cast<std::size_t>(alignment);
    eos.elements.insert(eos.elements.end(), sets.elements.begin() + sets.start[r], sets.elements.begin() + sets.start[r + 1]);
    eos.elements.resize(eos.elements.size() + padded - static_cast<std::size_t>(size), -1);
    eos.repetitions.resize(eos.repetitions.size() + static_cast<std::size_t>(size), sets.repetitions[r]);
    eos.repetitions.resize(eos.repetitions.size() + padded - static_cast<std::size_t>(size), 0);
  }
  return eos;
}

}  // namespace lulesh
