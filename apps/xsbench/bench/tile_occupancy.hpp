// tile_occupancy.hpp — why a tile-uniform nuclide loop wastes lanes, counted from the sampled
// materials: a tile of `tile` consecutive lookups runs the loop to its largest nuclide count, so a
// lane of material m does num_nucs[m] useful iterations of the tile's max. useful_fraction is the
// sum of the lanes' counts over the sum of the tiles' lane-iterations (lanes past the end count as
// idle). Tile 32 is a CUDA warp; Triton's tiles are BLOCK lanes. sorted_tile_stats is the same
// for lookups grouped by material (tiles never mix materials: only each material's last tile is
// partly idle).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace xsbench {

struct tile_stats {
  double mean_trips = 0;    // nuclide-loop iterations per tile, averaged over the tiles
  int max_trips = 0;
  double useful_fraction = 0;
};

template <std::size_t N>
tile_stats fused_tile_stats(const std::vector<std::int32_t> &materials, const std::array<std::int32_t, N> &num_nucs,
                            int tile) {
  tile_stats s;
  double useful = 0, issued = 0, trips = 0;
  std::int64_t tiles = 0;
  for (std::size_t first = 0; first < materials.size(); first += tile, ++tiles) {
    const std::size_t last = std::min(materials.size(), first + tile);
    int most = 0;
    for (std::size_t i = first; i < last; ++i) {
      most = std::max(most, num_nucs[materials[i]]);
      useful += num_nucs[materials[i]];
    }
    issued += double(most) * tile;
    trips += most;
    s.max_trips = std::max(s.max_trips, most);
  }
  s.mean_trips = tiles ? trips / double(tiles) : 0;
  s.useful_fraction = issued > 0 ? useful / issued : 0;
  return s;
}

template <std::size_t N>
tile_stats sorted_tile_stats(const std::vector<std::int32_t> &materials, const std::array<std::int32_t, N> &num_nucs,
                             int tile) {
  std::array<std::int64_t, N> count{};
  for (std::int32_t m : materials) ++count[m];
  tile_stats s;
  double useful = 0, issued = 0, trips = 0;
  std::int64_t tiles = 0;
  for (std::size_t m = 0; m < N; ++m) {
    const std::int64_t t = (count[m] + tile - 1) / tile;
    tiles += t;
    useful += double(count[m]) * num_nucs[m];
    issued += double(t) * tile * num_nucs[m];
    trips += double(t) * num_nucs[m];
    if (count[m]) s.max_trips = std::max(s.max_trips, int(num_nucs[m]));
  }
  s.mean_trips = tiles ? trips / double(tiles) : 0;
  s.useful_fraction = issued > 0 ? useful / issued : 0;
  return s;
}

}  // namespace xsbench
