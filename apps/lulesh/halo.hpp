// halo.hpp — what a LULESH domain exchanges with its neighbours each cycle (the reference's
// lulesh-comm.cc), as index lists: which local nodes (or elements) go to which neighbour in which
// order, where received values land, and whether they are added or stored. No MPI here: the
// program moves the buffers (mpi_exchange.hpp), the kernels pack and unpack them (kernels.py
// halo_pack / halo_unpack_*), and the tests check the lists against the reference's rules.
//
// The exchanges, in the reference's words:
//   node_sum  CommSend + CommSBN: every neighbour (6 faces, 12 edges, 8 corners) gets this
//             domain's partial sums on the shared nodes and adds theirs: the nodal mass once at
//             set-up, the forces every cycle.
//   pos_vel   CommSend + CommSyncPosVel (doSend/doRecv false): positions and velocities of shared
//             nodes go from the higher rank to the lower, which overwrites its own.
//   monoq     CommSend + CommMonoQ (planeOnly): delv_xi, delv_eta, delv_zeta of the elements on
//             each face with a neighbour go into the neighbour's ghost elements.
// A buffer holds the messages one after the other in the reference's direction order, each
// message field-major (all values of field 0, then field 1, ...), as the reference packs it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "decomposition.hpp"
#include "mesh.hpp"

namespace lulesh {

enum class exchange_kind { node_sum, pos_vel, monoq };

inline const char* exchange_name(exchange_kind k) {
  return k == exchange_kind::node_sum  ? "node_sum"
         : k == exchange_kind::pos_vel ? "pos_vel"
                                       : "monoq";
}

struct halo_message {
  std::int32_t neighbour = -1;      // its rank
  direction towards;                // from this domain to the neighbour
  std::vector<std::int32_t> items;  // local nodes (monoq: elements sent, ghost elements received)
  std::size_t offset = 0;           // first value of the message in its buffer
  std::size_t values(int fields) const { return items.size() * static_cast<std::size_t>(fields); }
};

// The nodes of this domain on the face, edge or corner towards d, by increasing local id. That is
// the reference's packing order for every one of the 26 pieces (plane outermost, column innermost),
// and the neighbour lists the same global nodes in the same order (its ids grow with the global
// ones): the test checks both against the reference's own index formulas.
inline std::vector<std::int32_t> shared_nodes(const mesh& m, direction d) {
  const std::int32_t e = m.edge_nodes;
  auto range = [e](std::int32_t step) {
    return step < 0   ? std::pair<std::int32_t, std::int32_t>{0, 1}
           : step > 0 ? std::pair<std::int32_t, std::int32_t>{e - 1, e}
                      : std::pair<std::int32_t, std::int32_t>{0, e};
  };
  const auto [c0, c1] = range(d.dcol);
  const auto [r0, r1] = range(d.drow);
  const auto [p0, p1] = range(d.dplane);
  std::vector<std::int32_t> nodes;
  for (std::int32_t plane = p0; plane < p1; ++plane)
    for (std::int32_t row = r0; row < r1; ++row)
      for (std::int32_t col = c0; col < c1; ++col) nodes.push_back(col + e * (row + e * plane));
  return nodes;
}

// The elements of this domain on face d (one of dcol, drow, dplane nonzero), by increasing id: the
// reference's CommSend order for MSG_MONOQ.
inline std::vector<std::int32_t> face_elements(const mesh& m, direction d) {
  if (d.dimensions() != 1) throw std::logic_error("face_elements: not a face direction");
  const std::int32_t s = m.edge_elems;
  std::vector<std::int32_t> elems;
  for (std::int32_t plane = 0; plane < s; ++plane)
    for (std::int32_t row = 0; row < s; ++row)
      for (std::int32_t col = 0; col < s; ++col) {
        const bool on = (d.dcol < 0 && col == 0) || (d.dcol > 0 && col == s - 1) ||
                        (d.drow < 0 && row == 0) || (d.drow > 0 && row == s - 1) ||
                        (d.dplane < 0 && plane == 0) || (d.dplane > 0 && plane == s - 1);
        if (on) elems.push_back(col + s * (row + s * plane));
      }
  return elems;
}

inline ghost_face ghost_face_of(direction d) {
  if (d.dplane != 0) return d.dplane < 0 ? ghost_plane_min : ghost_plane_max;
  if (d.drow != 0) return d.drow < 0 ? ghost_row_min : ghost_row_max;
  return d.dcol < 0 ? ghost_col_min : ghost_col_max;
}

struct halo_plan {
  exchange_kind kind = exchange_kind::node_sum;
  int fields = 0;
  std::vector<halo_message> sends, receives;  // in the reference's order
  std::size_t send_values = 0, receive_values = 0;

  // The packing as one flat loop (kernels.py halo_pack): item pack_item[k] of field f goes to
  // buffer position pack_slot[k] + f * pack_stride[k].
  std::vector<std::int32_t> pack_item, pack_slot, pack_stride;

  // The unpacking by destination (kernels.py halo_unpack_*): each destination once, with its
  // received values in message order (the reference's order of the additions, or of the
  // overwrites, the last of which stays): destination dest[j]'s sources are
  // source_slot[dest_start[j] .. dest_start[j + 1]), field f at source_slot + f * source_stride.
  std::vector<std::int32_t> dest, dest_start, source_slot, source_stride;
  std::int32_t max_sources =
      0;  // the most messages one destination receives (7 at a domain corner)

  bool adds() const { return kind == exchange_kind::node_sum; }
  bool empty() const { return sends.empty() && receives.empty(); }
};

// The plan of one exchange for the domain of mesh m (rank = its place's rank), moving `fields`
// values per item.
inline halo_plan make_halo_plan(const mesh& m, exchange_kind kind, int fields) {
  if (fields < 1)
    throw std::invalid_argument("a halo exchange moves at least one field, got " +
                                std::to_string(fields));
  halo_plan plan;
  plan.kind = kind;
  plan.fields = fields;
  const std::int32_t me = rank_of(m.place);
  for (const direction& d : reference_directions()) {
    const std::int32_t other = neighbour_rank(m.place, d);
    if (other < 0) continue;
    if (kind == exchange_kind::monoq) {
      if (d.dimensions() != 1) continue;  // planeOnly: the faces
      halo_message out{other, d, face_elements(m, d), plan.send_values};
      plan.send_values += out.values(fields);
      plan.sends.push_back(std::move(out));
      halo_message in{other, d, {}, plan.receive_values};
      const std::int32_t first = m.ghost_start[static_cast<std::size_t>(ghost_face_of(d))];
      for (std::int32_t k = 0; k < m.edge_elems * m.edge_elems; ++k) in.items.push_back(first + k);
      plan.receive_values += in.values(fields);
      plan.receives.push_back(std::move(in));
      continue;
    }
    // pos_vel: the lower rank of a pair takes the higher rank's values (the reference's
    // doSend = doRecv = false), so a node's value is its highest-ranked sharer's.
    const bool send = kind == exchange_kind::node_sum || other < me;
    const bool receive = kind == exchange_kind::node_sum || other > me;
    const std::vector<std::int32_t> nodes = shared_nodes(m, d);
    if (send) {
      plan.sends.push_back({other, d, nodes, plan.send_values});
      plan.send_values += plan.sends.back().values(fields);
    }
    if (receive) {
      plan.receives.push_back({other, d, nodes, plan.receive_values});
      plan.receive_values += plan.receives.back().values(fields);
    }
  }

  for (const halo_message& msg : plan.sends)
    for (std::size_t k = 0; k < msg.items.size(); ++k) {
      plan.pack_item.push_back(msg.items[k]);
      plan.pack_slot.push_back(static_cast<std::int32_t>(msg.offset + k));
      plan.pack_stride.push_back(static_cast<std::int32_t>(msg.items.size()));
    }

  // Destinations in increasing order, each with its sources in message order.
  struct source {
    std::int32_t item, order, slot, stride;
  };
  std::vector<source> all;
  std::int32_t order = 0;
  for (const halo_message& msg : plan.receives)
    for (std::size_t k = 0; k < msg.items.size(); ++k)
      all.push_back({msg.items[k], order++, static_cast<std::int32_t>(msg.offset + k),
                     static_cast<std::int32_t>(msg.items.size())});
  std::stable_sort(all.begin(), all.end(),
                   [](const source& a, const source& b) { return a.item < b.item; });
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (i == 0 || all[i].item != all[i - 1].item) {
      plan.dest.push_back(all[i].item);
      plan.dest_start.push_back(static_cast<std::int32_t>(i));
    }
    plan.source_slot.push_back(all[i].slot);
    plan.source_stride.push_back(all[i].stride);
  }
  plan.dest_start.push_back(static_cast<std::int32_t>(all.size()));
  for (std::size_t j = 0; j + 1 < plan.dest_start.size(); ++j)
    plan.max_sources = std::max(plan.max_sources, plan.dest_start[j + 1] - plan.dest_start[j]);
  return plan;
}

// The host's pack and unpack (the nodal mass at set-up; the tests' twin of the kernels).
// fields[f] points at field f's array (nodes, or elements and ghosts for monoq).
inline void pack_host(const halo_plan& plan, const std::vector<const double*>& fields,
                      std::vector<double>& buffer) {
  if (static_cast<int>(fields.size()) != plan.fields)
    throw std::logic_error("pack_host: wrong number of fields");
  buffer.assign(plan.send_values, 0.0);
  for (const halo_message& msg : plan.sends)
    for (int f = 0; f < plan.fields; ++f)
      for (std::size_t k = 0; k < msg.items.size(); ++k)
        buffer[msg.offset + static_cast<std::size_t>(f) * msg.items.size() + k] =
            fields[f][msg.items[k]];
}

// The reference's own loop: message after message, adding (node_sum) or storing.
inline void unpack_host(const halo_plan& plan, const std::vector<double>& buffer,
                        const std::vector<double*>& fields) {
  if (static_cast<int>(fields.size()) != plan.fields)
    throw std::logic_error("unpack_host: wrong number of fields");
  if (buffer.size() < plan.receive_values) throw std::logic_error("unpack_host: buffer too small");
  for (const halo_message& msg : plan.receives)
    for (int f = 0; f < plan.fields; ++f)
      for (std::size_t k = 0; k < msg.items.size(); ++k) {
        const double v = buffer[msg.offset + static_cast<std::size_t>(f) * msg.items.size() + k];
        double& target = fields[f][msg.items[k]];
        target = plan.adds() ? target + v : v;
      }
}

// The kernels' way (halo_unpack_*): destination by destination over its sources in order. Gives
// the same doubles as unpack_host (the same additions in the same order per destination).
inline void unpack_host_by_destination(const halo_plan& plan, const std::vector<double>& buffer,
                                       const std::vector<double*>& fields) {
  for (std::size_t j = 0; j < plan.dest.size(); ++j)
    for (int f = 0; f < plan.fields; ++f) {
      double value = fields[f][plan.dest[j]];
      for (std::int32_t k = plan.dest_start[j]; k < plan.dest_start[j + 1]; ++k) {
        const double v =
            buffer[static_cast<std::size_t>(plan.source_slot[k] + f * plan.source_stride[k])];
        value = plan.adds() ? value + v : v;
      }
      fields[f][plan.dest[j]] = value;
    }
}

}  // namespace lulesh
