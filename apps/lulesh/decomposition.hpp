// decomposition.hpp — LULESH 2.0's decomposition of the problem over MPI ranks (the reference's
// InitMeshDecomp): the ranks form a cube of side^3 domains, each of s^3 elements (-s is per
// domain), rank r at column r % side, row (r / side) % side, plane r / side^2. No MPI here: the
// program and its tests compute every rank's place, and its neighbours', from (ranks, rank).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "mesh.hpp"

namespace lulesh {

// The side of the cube of `ranks` domains; an error naming the nearest cubes when it is not one
// (the reference aborts with "Num processors must be a cube of an integer").
inline std::int32_t cube_side(std::int32_t ranks) {
  if (ranks < 1)
    throw std::invalid_argument("the number of MPI ranks must be at least 1, got " +
                                std::to_string(ranks));
  std::int32_t side = static_cast<std::int32_t>(std::cbrt(double(ranks)) + 0.5);
  if (side * side * side != ranks) {
    const std::int32_t below = side * side * side < ranks ? side : side - 1;
    const std::int32_t above = below + 1;
    throw std::invalid_argument(
        "the number of MPI ranks must be a cube (1, 8, 27, 64, ...): LULESH puts one domain "
        "per rank in a cube of domains; got " +
        std::to_string(ranks) + ", run with " + std::to_string(below * below * below) + " or " +
        std::to_string(above * above * above));
  }
  return side;
}

// Where rank `rank` of `ranks` sits.
inline placement place_rank(std::int32_t ranks, std::int32_t rank) {
  const std::int32_t side = cube_side(ranks);
  if (rank < 0 || rank >= ranks)
    throw std::invalid_argument("MPI rank " + std::to_string(rank) + " is not one of 0 .. " +
                                std::to_string(ranks - 1));
  placement p;
  p.side = side;
  p.col = rank % side;
  p.row = (rank / side) % side;
  p.plane = rank / (side * side);
  return p;
}

inline std::int32_t rank_of(const placement& p) {
  return p.col + p.side * (p.row + p.side * p.plane);
}

// A direction towards a neighbouring domain: each of dcol, drow, dplane is -1, 0 or +1, not all 0.
struct direction {
  std::int32_t dcol = 0, drow = 0, dplane = 0;
  int dimensions() const {
    return (dcol != 0) + (drow != 0) + (dplane != 0);
  }  // 1 face, 2 edge, 3 corner
  direction opposite() const { return {-dcol, -drow, -dplane}; }
  bool operator==(const direction& o) const {
    return dcol == o.dcol && drow == o.drow && dplane == o.dplane;
  }
};

// The 26 directions in the order the reference posts, packs and unpacks its messages
// (lulesh-comm.cc: CommRecv, CommSend, CommSBN, CommSyncPosVel): the six faces (plane-, plane+,
// row-, row+, col-, col+), the twelve edges, the eight corners. The order of the unpacks is the
// order of the additions on a node shared by several domains, so it is part of the result.
inline const std::array<direction, 26>& reference_directions() {
  static const std::array<direction, 26> order = {{
      // faces
      {0, 0, -1},
      {0, 0, 1},
      {0, -1, 0},
      {0, 1, 0},
      {-1, 0, 0},
      {1, 0, 0},
      // edges: row-col-, row-plane-, col-plane-, row+col+, row+plane+, col+plane+,
      //        row+col-, row-plane+, col-plane+, row-col+, row+plane-, col+plane-
      {-1, -1, 0},
      {0, -1, -1},
      {-1, 0, -1},
      {1, 1, 0},
      {0, 1, 1},
      {1, 0, 1},
      {-1, 1, 0},
      {0, -1, 1},
      {-1, 0, 1},
      {1, -1, 0},
      {0, 1, -1},
      {1, 0, -1},
      // corners, (col, row, plane) = (0,0,0), (0,0,1), (1,0,0), (1,0,1), (0,1,0), (0,1,1), (1,1,0),
      // (1,1,1)
      {-1, -1, -1},
      {-1, -1, 1},
      {1, -1, -1},
      {1, -1, 1},
      {-1, 1, -1},
      {-1, 1, 1},
      {1, 1, -1},
      {1, 1, 1},
  }};
  return order;
}

// The neighbour's rank in direction d, or -1 where the domain is at the cube's side.
inline std::int32_t neighbour_rank(const placement& p, direction d) {
  const std::int32_t col = p.col + d.dcol, row = p.row + d.drow, plane = p.plane + d.dplane;
  if (col < 0 || row < 0 || plane < 0 || col >= p.side || row >= p.side || plane >= p.side)
    return -1;
  return col + p.side * (row + p.side * plane);
}

// The global id (col + (side s + 1) (row + (side s + 1) plane), the one-domain mesh's numbering of
// the whole problem) of local node `local` of domain m: what the tests compare across ranks.
inline std::int64_t global_node_id(const mesh& m, std::int32_t local) {
  const std::int64_t e = m.edge_nodes, s = m.edge_elems;
  const std::int64_t global_e = std::int64_t(m.place.side) * s + 1;
  const std::int64_t col = m.place.col * s + local % e, row = m.place.row * s + (local / e) % e,
                     plane = m.place.plane * s + local / (e * e);
  return col + global_e * (row + global_e * plane);
}

}  // namespace lulesh
