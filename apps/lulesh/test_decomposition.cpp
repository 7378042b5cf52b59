// CPU test of the multi-domain set-up without MPI: every rank of a cube of 8 and 27 domains built
// in one process, the messages delivered by hand, and all of it held against the reference's own
// rules (test_reference_rules.hpp) and against the one-domain mesh of the same global size. The
// same checks across real ranks: test_decomposition_mpi.cpp (mpirun, when MPI is found).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "decomposition.hpp"
#include "halo.hpp"
#include "mesh.hpp"
#include "problem.hpp"
#include "regions.hpp"
#include "test_reference_rules.hpp"

using namespace lulesh;
namespace ref = lulesh::reference_rules;

namespace {

struct cube {
  std::int32_t ranks, s;
  std::vector<mesh> domains;
  std::vector<initial_state> init;
};

cube make_cube(std::int32_t ranks, std::int32_t s) {
  cube c{ranks, s, {}, {}};
  for (std::int32_t r = 0; r < ranks; ++r) {
    c.domains.push_back(make_mesh(s, place_rank(ranks, r)));
    c.init.push_back(make_initial_state(c.domains.back()));
  }
  return c;
}

// The receive message of `to` that matches send message `out` of `from`: from that rank, the
// opposite direction.
const halo_message* matching_receive(const halo_plan& to_plan, std::int32_t from,
                                     const halo_message& out) {
  for (const halo_message& in : to_plan.receives)
    if (in.neighbour == from && in.towards == out.towards.opposite()) return &in;
  return nullptr;
}

// Delivers every rank's send buffer into the receive buffers, as MPI would.
std::vector<std::vector<double>> deliver(const std::vector<halo_plan>& plans,
                                         const std::vector<std::vector<double>>& sent) {
  std::vector<std::vector<double>> received(plans.size());
  for (std::size_t r = 0; r < plans.size(); ++r)
    received[r].assign(plans[r].receive_values, std::nan(""));
  for (std::size_t from = 0; from < plans.size(); ++from)
    for (const halo_message& out : plans[from].sends) {
      const halo_message* in = matching_receive(plans[static_cast<std::size_t>(out.neighbour)],
                                                static_cast<std::int32_t>(from), out);
      REQUIRE(in != nullptr);
      REQUIRE(in->items.size() == out.items.size());
      for (std::size_t v = 0; v < out.values(plans[from].fields); ++v)
        received[static_cast<std::size_t>(out.neighbour)][in->offset + v] =
            sent[from][out.offset + v];
    }
  return received;
}

}  // namespace

TEST_CASE(
    "decomposition: a cube of ranks, placed and connected as InitMeshDecomp and CommSend do") {
  CHECK(cube_side(1) == 1);
  CHECK(cube_side(8) == 2);
  CHECK(cube_side(27) == 3);
  CHECK(cube_side(64) == 4);
  CHECK_THROWS_WITH_AS(cube_side(6), doctest::Contains("run with 1 or 8"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(cube_side(9), doctest::Contains("run with 8 or 27"), std::invalid_argument);
  CHECK_THROWS_AS(cube_side(0), std::invalid_argument);
  CHECK_THROWS_AS(place_rank(8, 8), std::invalid_argument);
  CHECK_THROWS_AS(make_mesh(3, placement{2, 2, 0, 0}), std::invalid_argument);
  for (std::int32_t ranks : {1, 8, 27, 64})
    for (std::int32_t r = 0; r < ranks; ++r) {
      const placement p = place_rank(ranks, r), q = ref::place(ranks, r);
      CHECK(p.side == q.side);
      CHECK(p.col == q.col);
      CHECK(p.row == q.row);
      CHECK(p.plane == q.plane);
      CHECK(rank_of(p) == r);
      for (const direction& d : reference_directions()) {
        const bool inside = p.col + d.dcol >= 0 && p.col + d.dcol < p.side && p.row + d.drow >= 0 &&
                            p.row + d.drow < p.side && p.plane + d.dplane >= 0 &&
                            p.plane + d.dplane < p.side;
        CHECK(neighbour_rank(p, d) == (inside ? ref::neighbour(r, p.side, d) : -1));
      }
    }
}

TEST_CASE("decomposition: each domain's mesh, boundary bits, ghosts and initial state") {
  for (std::int32_t ranks : {8, 27}) {
    const std::int32_t s = 3;
    const cube c = make_cube(ranks, s);
    const mesh global = make_mesh(s * cube_side(ranks));
    const initial_state global_init = make_initial_state(global);
    double volume = 0;
    for (std::int32_t r = 0; r < ranks; ++r) {
      CAPTURE(ranks);
      CAPTURE(r);
      const mesh& m = c.domains[static_cast<std::size_t>(r)];
      const placement& p = m.place;
      // Coordinates: bitwise those of the same global node in the one-domain mesh.
      for (std::int32_t n = 0; n < m.num_node; ++n) {
        const std::size_t g = static_cast<std::size_t>(global_node_id(m, n));
        REQUIRE(m.x[static_cast<std::size_t>(n)] == global.x[g]);
        REQUIRE(m.y[static_cast<std::size_t>(n)] == global.y[g]);
        REQUIRE(m.z[static_cast<std::size_t>(n)] == global.z[g]);
      }
      // Boundary bits as SetupBoundaryConditions sets them; ghosts after the elements, s^2 per
      // face.
      std::int32_t faces = 0;
      for (bool f :
           {p.col_min(), p.col_max(), p.row_min(), p.row_max(), p.plane_min(), p.plane_max()})
        faces += f;
      CHECK(m.num_ghost == faces * s * s);
      for (std::int32_t i = 0; i < m.num_elem; ++i)
        REQUIRE(m.elem_bc[static_cast<std::size_t>(i)] ==
                ref::boundary_bits(p, s, i % s, (i / s) % s, i / (s * s)));
      // Symmetry planes only at the global cube's x = 0, y = 0, z = 0.
      CHECK(m.symm_x.size() == (p.col == 0 ? std::size_t(16) : 0));
      CHECK(m.symm_y.size() == (p.row == 0 ? std::size_t(16) : 0));
      CHECK(m.symm_z.size() == (p.plane == 0 ? std::size_t(16) : 0));
      // Sedov energy of the global size, only in the origin's domain.
      const initial_state& init = c.init[static_cast<std::size_t>(r)];
      CHECK(init.e[0] == (r == 0 ? global_init.e[0] : 0.0));
      for (double v : init.volo) volume += v;
    }
    CHECK(volume == doctest::Approx(1.125 * 1.125 * 1.125).epsilon(1e-12));
  }
}

TEST_CASE(
    "halo: every message's items are the reference's, and match the neighbour's list node for "
    "node") {
  for (std::int32_t ranks : {8, 27}) {
    const std::int32_t s = 3;
    const cube c = make_cube(ranks, s);
    for (exchange_kind kind :
         {exchange_kind::node_sum, exchange_kind::pos_vel, exchange_kind::monoq}) {
      std::vector<halo_plan> plans;
      for (const mesh& m : c.domains) plans.push_back(make_halo_plan(m, kind, 3));
      for (std::int32_t r = 0; r < ranks; ++r) {
        CAPTURE(ranks);
        CAPTURE(r);
        CAPTURE(exchange_name(kind));
        const halo_plan& plan = plans[static_cast<std::size_t>(r)];
        const mesh& m = c.domains[static_cast<std::size_t>(r)];
        std::int32_t neighbours = 0, lower = 0, faces = 0;
        for (const direction& d : reference_directions()) {
          const std::int32_t other = neighbour_rank(m.place, d);
          if (other < 0) continue;
          ++neighbours;
          lower += other < r;
          faces += d.dimensions() == 1;
        }
        // Which neighbours each exchange talks to (the reference's doSend / doRecv / planeOnly).
        if (kind == exchange_kind::node_sum) {
          CHECK(plan.sends.size() == std::size_t(neighbours));
          CHECK(plan.receives.size() == std::size_t(neighbours));
        } else if (kind == exchange_kind::pos_vel) {
          CHECK(plan.sends.size() == std::size_t(lower));
          CHECK(plan.receives.size() == std::size_t(neighbours - lower));
          for (const halo_message& out : plan.sends) CHECK(out.neighbour < r);
          for (const halo_message& in : plan.receives) CHECK(in.neighbour > r);
        } else {
          CHECK(plan.sends.size() == std::size_t(faces));
          CHECK(plan.receives.size() == std::size_t(faces));
        }
        // In the reference's direction order, each list the reference's own formulas give.
        std::size_t next = 0;
        for (const direction& d : reference_directions())
          if (next < plan.sends.size() && plan.sends[next].towards == d) {
            const halo_message& out = plan.sends[next++];
            CHECK(out.neighbour == ref::neighbour(r, m.place.side, d));
            CHECK(out.items == ref::message_items(kind == exchange_kind::monoq ? s : s + 1, d));
          }
        CHECK(next == plan.sends.size());
        // The neighbour receives the same global nodes, in the same order, at the same coordinates.
        for (const halo_message& out : plan.sends) {
          const halo_message* in =
              matching_receive(plans[static_cast<std::size_t>(out.neighbour)], r, out);
          REQUIRE(in != nullptr);
          REQUIRE(in->items.size() == out.items.size());
          if (kind == exchange_kind::monoq) continue;  // ghosts: checked by the exchange below
          const mesh& other = c.domains[static_cast<std::size_t>(out.neighbour)];
          for (std::size_t k = 0; k < out.items.size(); ++k) {
            REQUIRE(global_node_id(m, out.items[k]) == global_node_id(other, in->items[k]));
            REQUIRE(m.x[static_cast<std::size_t>(out.items[k])] ==
                    other.x[static_cast<std::size_t>(in->items[k])]);
          }
        }
      }
    }
  }
}

TEST_CASE(
    "halo: nodal mass summed over the domains is the one-domain mesh's; both unpack orders agree "
    "bitwise") {
  for (std::int32_t ranks : {8, 27}) {
    const std::int32_t s = 4;
    const cube c = make_cube(ranks, s);
    const mesh global = make_mesh(s * cube_side(ranks));
    const initial_state global_init = make_initial_state(global);
    std::vector<halo_plan> plans;
    std::vector<std::vector<double>> sent(static_cast<std::size_t>(ranks));
    for (std::int32_t r = 0; r < ranks; ++r) {
      plans.push_back(
          make_halo_plan(c.domains[static_cast<std::size_t>(r)], exchange_kind::node_sum, 1));
      pack_host(plans.back(), {c.init[static_cast<std::size_t>(r)].nodal_mass.data()},
                sent[static_cast<std::size_t>(r)]);
    }
    const std::vector<std::vector<double>> received = deliver(plans, sent);
    for (std::int32_t r = 0; r < ranks; ++r) {
      CAPTURE(r);
      const mesh& m = c.domains[static_cast<std::size_t>(r)];
      std::vector<double> by_message = c.init[static_cast<std::size_t>(r)].nodal_mass,
                          by_destination = by_message;
      unpack_host(plans[static_cast<std::size_t>(r)], received[static_cast<std::size_t>(r)],
                  {by_message.data()});
      unpack_host_by_destination(plans[static_cast<std::size_t>(r)],
                                 received[static_cast<std::size_t>(r)], {by_destination.data()});
      CHECK(plans[static_cast<std::size_t>(r)].max_sources <= 7);
      for (std::int32_t n = 0; n < m.num_node; ++n) {
        const double want = global_init.nodal_mass[static_cast<std::size_t>(global_node_id(m, n))];
        REQUIRE(by_message[static_cast<std::size_t>(n)] == doctest::Approx(want).epsilon(1e-13));
        REQUIRE(by_destination[static_cast<std::size_t>(n)] ==
                by_message[static_cast<std::size_t>(n)]);
      }
    }
  }
}

TEST_CASE(
    "halo: the monotonic-Q exchange fills each COMM face's ghosts with the neighbouring domain's "
    "elements") {
  for (std::int32_t ranks : {8, 27}) {
    const std::int32_t s = 3;
    const cube c = make_cube(ranks, s);
    // Field 0 of every element: its global element id; the ghosts start as NaN.
    std::vector<std::vector<double>> ids(static_cast<std::size_t>(ranks));
    std::vector<halo_plan> plans;
    std::vector<std::vector<double>> sent(static_cast<std::size_t>(ranks));
    for (std::int32_t r = 0; r < ranks; ++r) {
      const mesh& m = c.domains[static_cast<std::size_t>(r)];
      auto& field = ids[static_cast<std::size_t>(r)];
      field.assign(static_cast<std::size_t>(m.num_elem + m.num_ghost), std::nan(""));
      for (std::int32_t i = 0; i < m.num_elem; ++i)
        field[static_cast<std::size_t>(i)] =
            ref::global_element(m.place, s, m.place.col * s + i % s, m.place.row * s + (i / s) % s,
                                m.place.plane * s + i / (s * s));
      plans.push_back(make_halo_plan(m, exchange_kind::monoq, 1));
      pack_host(plans.back(), {field.data()}, sent[static_cast<std::size_t>(r)]);
    }
    const std::vector<std::vector<double>> received = deliver(plans, sent);
    for (std::int32_t r = 0; r < ranks; ++r) {
      CAPTURE(r);
      const mesh& m = c.domains[static_cast<std::size_t>(r)];
      auto& field = ids[static_cast<std::size_t>(r)];
      unpack_host(plans[static_cast<std::size_t>(r)], received[static_cast<std::size_t>(r)],
                  {field.data()});
      for (std::int32_t g = m.num_elem; g < m.num_elem + m.num_ghost; ++g)
        REQUIRE(!std::isnan(field[static_cast<std::size_t>(g)]));
      // Across every face of every element, the neighbour the kernels read (monotonic_q follows
      // lxim... on an interior or COMM face) is the global mesh's neighbouring element.
      for (std::int32_t i = 0; i < m.num_elem; ++i) {
        const std::int64_t gc = m.place.col * s + i % s, gr = m.place.row * s + (i / s) % s,
                           gp = m.place.plane * s + i / (s * s);
        const std::int32_t bc = m.elem_bc[static_cast<std::size_t>(i)];
        struct face {
          const std::vector<std::int32_t>& link;
          std::int32_t mask;
          int dc, dr, dp;
        };
        const face faces[] = {{m.lxim, XI_M_SYMM | XI_M_FREE | XI_M_COMM, -1, 0, 0},
                              {m.lxip, XI_P_SYMM | XI_P_FREE | XI_P_COMM, 1, 0, 0},
                              {m.letam, ETA_M_SYMM | ETA_M_FREE | ETA_M_COMM, 0, -1, 0},
                              {m.letap, ETA_P_SYMM | ETA_P_FREE | ETA_P_COMM, 0, 1, 0},
                              {m.lzetam, ZETA_M_SYMM | ZETA_M_FREE | ZETA_M_COMM, 0, 0, -1},
                              {m.lzetap, ZETA_P_SYMM | ZETA_P_FREE | ZETA_P_COMM, 0, 0, 1}};
        for (const face& f : faces) {
          const std::int32_t kind = bc & f.mask;
          const bool comm = kind != 0 && (kind & (XI_M_COMM | XI_P_COMM | ETA_M_COMM | ETA_P_COMM |
                                                  ZETA_M_COMM | ZETA_P_COMM));
          if (kind != 0 && !comm) continue;  // symmetry plane or free surface: no neighbour read
          const std::int32_t link = f.link[static_cast<std::size_t>(i)];
          CHECK(comm == (link >= m.num_elem));
          REQUIRE(field[static_cast<std::size_t>(link)] ==
                  ref::global_element(m.place, s, gc + f.dc, gr + f.dr, gp + f.dp));
        }
      }
    }
  }
}

TEST_CASE(
    "regions: rank r's sets are seeded with r and rotated by r, rank 0's are the one-domain "
    "run's") {
  const region_sets one = make_regions(1000, 11, 1, 1);
  const region_sets rank0 = make_regions(1000, 11, 1, 1, 0);
  CHECK(rank0.region_of == one.region_of);
  // glibc takes seed 0 as 1: rank 1 draws rank 0's sequence, rotated by one region.
  const region_sets rank1 = make_regions(1000, 11, 1, 1, 1);
  for (std::size_t i = 0; i < one.region_of.size(); ++i)
    REQUIRE(rank1.region_of[i] == one.region_of[i] % 11 + 1);
  const region_sets rank2 = make_regions(1000, 11, 1, 1, 2);
  CHECK(rank2.region_of != one.region_of);
  CHECK_THROWS_AS(make_regions(1000, 11, 1, 1, -1), std::invalid_argument);
}
