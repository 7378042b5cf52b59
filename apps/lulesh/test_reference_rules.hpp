// test_reference_rules.hpp — the reference's own rules for the multi-domain set-up, written out
// the way lulesh-comm.cc and lulesh-init.cc state them (index formula by index formula), for the
// tests to hold decomposition.hpp, mesh.hpp and halo.hpp against. Test code only: the program
// computes the same things by general rules (halo.hpp's shared_nodes), which these check.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "decomposition.hpp"
#include "halo.hpp"
#include "mesh.hpp"

namespace lulesh::reference_rules {

// InitMeshDecomp for a cube of ranks (remainder 0): myDom = rank.
inline placement place(std::int32_t ranks, std::int32_t rank) {
  const std::int32_t tp = static_cast<std::int32_t>(std::cbrt(double(ranks)) + 0.5);
  placement p;
  p.side = tp;
  p.col = rank % tp;
  p.row = (rank / tp) % tp;
  p.plane = rank / (tp * tp);
  return p;
}

// The rank CommSend sends to in direction d: myRank plus the offset it writes out per message.
inline std::int32_t neighbour(std::int32_t my_rank, std::int32_t tp, direction d) {
  return my_rank + d.dcol + tp * d.drow + tp * tp * d.dplane;
}

// CommSend's index of item i of the message in direction d, with dx = dy = dz = n (nodes: s + 1;
// MSG_MONOQ elements: s), copied formula by formula from the reference's loops (faces: i runs
// over the outer loop times the inner extent plus the inner index j).
inline std::vector<std::int32_t> message_items(std::int32_t n, direction d) {
  const std::int32_t dx = n, dy = n, dz = n;
  std::vector<std::int32_t> out;
  const int c = d.dcol, r = d.drow, p = d.dplane;
  if (d.dimensions() == 1) {
    if (p == -1)
      for (std::int32_t i = 0; i < dx * dy; ++i) out.push_back(i);
    if (p == 1)
      for (std::int32_t i = 0; i < dx * dy; ++i) out.push_back(dx * dy * (dz - 1) + i);
    if (r == -1)
      for (std::int32_t i = 0; i < dz; ++i)
        for (std::int32_t j = 0; j < dx; ++j) out.push_back(i * dx * dy + j);
    if (r == 1)
      for (std::int32_t i = 0; i < dz; ++i)
        for (std::int32_t j = 0; j < dx; ++j) out.push_back(dx * (dy - 1) + i * dx * dy + j);
    if (c == -1)
      for (std::int32_t i = 0; i < dz; ++i)
        for (std::int32_t j = 0; j < dy; ++j) out.push_back(i * dx * dy + j * dx);
    if (c == 1)
      for (std::int32_t i = 0; i < dz; ++i)
        for (std::int32_t j = 0; j < dy; ++j) out.push_back(dx - 1 + i * dx * dy + j * dx);
    return out;
  }
  if (d.dimensions() == 2) {
    if (r == -1 && c == -1)
      for (std::int32_t i = 0; i < dz; ++i) out.push_back(i * dx * dy);
    if (r == -1 && p == -1)
      for (std::int32_t i = 0; i < dx; ++i) out.push_back(i);
    if (c == -1 && p == -1)
      for (std::int32_t i = 0; i < dy; ++i) out.push_back(i * dx);
    if (r == 1 && c == 1)
      for (std::int32_t i = 0; i < dz; ++i) out.push_back(dx * dy - 1 + i * dx * dy);
    if (r == 1 && p == 1)
      for (std::int32_t i = 0; i < dx; ++i) out.push_back(dx * (dy - 1) + dx * dy * (dz - 1) + i);
    if (c == 1 && p == 1)
      for (std::int32_t i = 0; i < dy; ++i) out.push_back(dx * dy * (dz - 1) + dx - 1 + i * dx);
    if (r == 1 && c == -1)
      for (std::int32_t i = 0; i < dz; ++i) out.push_back(dx * (dy - 1) + i * dx * dy);
    if (r == -1 && p == 1)
      for (std::int32_t i = 0; i < dx; ++i) out.push_back(dx * dy * (dz - 1) + i);
    if (c == -1 && p == 1)
      for (std::int32_t i = 0; i < dy; ++i) out.push_back(dx * dy * (dz - 1) + i * dx);
    if (r == -1 && c == 1)
      for (std::int32_t i = 0; i < dz; ++i) out.push_back(dx - 1 + i * dx * dy);
    if (r == 1 && p == -1)
      for (std::int32_t i = 0; i < dx; ++i) out.push_back(dx * (dy - 1) + i);
    if (c == 1 && p == -1)
      for (std::int32_t i = 0; i < dy; ++i) out.push_back(dx - 1 + i * dx);
    return out;
  }
  const std::int32_t idx =
      (c == 1 ? dx - 1 : 0) + (r == 1 ? dx * (dy - 1) : 0) + (p == 1 ? dx * dy * (dz - 1) : 0);
  return {idx};
}

// SetupBoundaryConditions' bits of element (col, row, plane) of a domain at p.
inline std::int32_t boundary_bits(const placement& p, std::int32_t s, std::int32_t col,
                                  std::int32_t row, std::int32_t plane) {
  std::int32_t bits = 0;
  if (plane == 0) bits |= p.plane == 0 ? ZETA_M_SYMM : ZETA_M_COMM;
  if (plane == s - 1) bits |= p.plane == p.side - 1 ? ZETA_P_FREE : ZETA_P_COMM;
  if (row == 0) bits |= p.row == 0 ? ETA_M_SYMM : ETA_M_COMM;
  if (row == s - 1) bits |= p.row == p.side - 1 ? ETA_P_FREE : ETA_P_COMM;
  if (col == 0) bits |= p.col == 0 ? XI_M_SYMM : XI_M_COMM;
  if (col == s - 1) bits |= p.col == p.side - 1 ? XI_P_FREE : XI_P_COMM;
  return bits;
}

// The global id of the element (gcol, grow, gplane) of the whole cube of side s elements a side.
inline double global_element(const placement& p, std::int32_t s, std::int64_t gcol,
                             std::int64_t grow, std::int64_t gplane) {
  const std::int64_t ge = std::int64_t(p.side) * s;
  return double(gcol + ge * (grow + ge * gplane));
}

}  // namespace lulesh::reference_rules
