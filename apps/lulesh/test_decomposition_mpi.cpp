// CPU test of the multi-domain set-up across real MPI ranks (ctest example.lulesh.mpi.np8 and
// .np27, under mpirun; host side only, no GPU): every rank builds its own domain and halo plans,
// the lists go over MPI through the program's own exchange (mpi_exchange.hpp), and each side
// checks what arrived against what it expects, by the reference's rules (test_reference_rules.hpp)
// and against the one-domain mesh of the same global size. Exit status 0 only if every rank passed.
//
//   mpirun -np 8 lulesh_decomposition_mpi_test [-s 3]
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <set>
#include <string>
#include <vector>

#include "decomposition.hpp"
#include "halo.hpp"
#include "mesh.hpp"
#include "mpi_exchange.hpp"
#include "problem.hpp"
#include "test_reference_rules.hpp"

using namespace lulesh;
namespace ref = lulesh::reference_rules;

namespace {

int rank_id = 0;
long failures = 0;

void check(bool ok, const std::string& what) {
  if (ok) return;
  if (++failures <= 10) std::fprintf(stderr, "rank %d: FAILED %s\n", rank_id, what.c_str());
}

// Field values of the global node ids of a domain's nodes (exact in a double for these sizes).
std::vector<double> node_ids(const mesh& m) {
  std::vector<double> ids(static_cast<std::size_t>(m.num_node));
  for (std::int32_t n = 0; n < m.num_node; ++n)
    ids[static_cast<std::size_t>(n)] = double(global_node_id(m, n));
  return ids;
}

// Sends the global ids and coordinates of every send list; the receiver compares them, value by
// value in order, with its own receive list's.
void check_node_lists(const mesh& m, exchange_kind kind) {
  const halo_plan plan = make_halo_plan(m, kind, 4);
  const std::vector<double> ids = node_ids(m);
  std::vector<double> send, recv(plan.receive_values, std::nan(""));
  pack_host(plan, {ids.data(), m.x.data(), m.y.data(), m.z.data()}, send);
  exchange_buffers(plan, send.data(), recv.data(), MPI_COMM_WORLD);
  for (const halo_message& in : plan.receives) {
    const std::size_t n = in.items.size();
    bool same = true;
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t node = static_cast<std::size_t>(in.items[k]);
      same = same && recv[in.offset + k] == ids[node] && recv[in.offset + n + k] == m.x[node] &&
             recv[in.offset + 2 * n + k] == m.y[node] && recv[in.offset + 3 * n + k] == m.z[node];
    }
    check(same, std::string(exchange_name(kind)) + ": the list from rank " +
                    std::to_string(in.neighbour) +
                    " is not this rank's list of the same global nodes in the same order");
  }
  // Who talks to whom: the reference's doSend / doRecv.
  for (const halo_message& out : plan.sends) {
    check(out.neighbour == ref::neighbour(rank_id, m.place.side, out.towards),
          "neighbour rank of a send");
    check(out.items == ref::message_items(m.edge_nodes, out.towards),
          "send list vs the reference's CommSend formula");
    if (kind == exchange_kind::pos_vel)
      check(out.neighbour < rank_id, "pos_vel sends only to lower ranks");
  }
  if (kind == exchange_kind::pos_vel)
    for (const halo_message& in : plan.receives)
      check(in.neighbour > rank_id, "pos_vel receives only from higher ranks");
}

void check_ghosts(const mesh& m) {
  const std::int32_t s = m.edge_elems;
  const halo_plan plan = make_halo_plan(m, exchange_kind::monoq, 1);
  std::vector<double> field(static_cast<std::size_t>(m.num_elem + m.num_ghost), std::nan(""));
  auto global = [&](std::int32_t i) {
    return ref::global_element(m.place, s, m.place.col * s + i % s, m.place.row * s + (i / s) % s,
                               m.place.plane * s + i / (s * s));
  };
  for (std::int32_t i = 0; i < m.num_elem; ++i) field[static_cast<std::size_t>(i)] = global(i);
  exchange_host(plan, {field.data()}, MPI_COMM_WORLD);
  const struct {
    const std::vector<std::int32_t>* link;
    std::int32_t comm;
    int dc, dr, dp;
  } faces[] = {{&m.lxim, XI_M_COMM, -1, 0, 0},     {&m.lxip, XI_P_COMM, 1, 0, 0},
               {&m.letam, ETA_M_COMM, 0, -1, 0},   {&m.letap, ETA_P_COMM, 0, 1, 0},
               {&m.lzetam, ZETA_M_COMM, 0, 0, -1}, {&m.lzetap, ZETA_P_COMM, 0, 0, 1}};
  for (std::int32_t i = 0; i < m.num_elem; ++i) {
    const std::int32_t col = i % s, row = (i / s) % s, plane = i / (s * s);
    check(m.elem_bc[static_cast<std::size_t>(i)] == ref::boundary_bits(m.place, s, col, row, plane),
          "boundary bits of element " + std::to_string(i));
    for (const auto& f : faces) {
      if (!(m.elem_bc[static_cast<std::size_t>(i)] & f.comm)) continue;
      const std::int32_t ghost = (*f.link)[static_cast<std::size_t>(i)];
      const double want =
          ref::global_element(m.place, s, m.place.col * s + col + f.dc,
                              m.place.row * s + row + f.dr, m.place.plane * s + plane + f.dp);
      check(ghost >= m.num_elem && ghost < m.num_elem + m.num_ghost &&
                field[static_cast<std::size_t>(ghost)] == want,
            "ghost of element " + std::to_string(i) + " is not the neighbouring domain's element");
    }
  }
}

void check_nodal_mass(const mesh& m) {
  initial_state init = make_initial_state(m);
  exchange_host(make_halo_plan(m, exchange_kind::node_sum, 1), {init.nodal_mass.data()},
                MPI_COMM_WORLD);
  const mesh global = make_mesh(m.edge_elems * m.place.side);
  const initial_state global_init = make_initial_state(global);
  for (std::int32_t n = 0; n < m.num_node; ++n) {
    const double want = global_init.nodal_mass[static_cast<std::size_t>(global_node_id(m, n))];
    const double got = init.nodal_mass[static_cast<std::size_t>(n)];
    check(std::fabs(got - want) <= 1e-13 * want,
          "nodal mass of node " + std::to_string(n) + " after the sum");
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int ranks = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_id);
  std::int32_t s = 3;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "-s") == 0) s = std::atoi(argv[i + 1]);
  try {
    const placement p = place_rank(ranks, rank_id), q = ref::place(ranks, rank_id);
    check(p.side == q.side && p.col == q.col && p.row == q.row && p.plane == q.plane,
          "placement vs InitMeshDecomp");
    // Every place of the cube taken exactly once.
    int mine[3] = {p.col, p.row, p.plane};
    std::vector<int> all(static_cast<std::size_t>(3 * ranks));
    MPI_Allgather(mine, 3, MPI_INT, all.data(), 3, MPI_INT, MPI_COMM_WORLD);
    std::set<std::vector<int>> places;
    for (int r = 0; r < ranks; ++r) places.insert({all[3 * r], all[3 * r + 1], all[3 * r + 2]});
    check(places.size() == static_cast<std::size_t>(ranks), "the ranks' places are distinct");

    const mesh m = make_mesh(s, p);
    long long elems = m.num_elem, total = 0;
    MPI_Allreduce(&elems, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    const long long global_edge = static_cast<long long>(s) * p.side;
    check(total == global_edge * global_edge * global_edge, "global element count");
    check(m.symm_x.empty() == (p.col != 0) && m.symm_y.empty() == (p.row != 0) &&
              m.symm_z.empty() == (p.plane != 0),
          "symmetry planes only on the global cube's x = 0, y = 0, z = 0");

    check_node_lists(m, exchange_kind::node_sum);
    check_node_lists(m, exchange_kind::pos_vel);
    check_ghosts(m);
    check_nodal_mass(m);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s\n", rank_id, e.what());
    ++failures;
  }
  long total_failures = 0;
  MPI_Allreduce(&failures, &total_failures, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank_id == 0)
    std::printf(
        "lulesh decomposition over %d MPI ranks, s = %d per domain: %s (%ld failed checks)\n",
        ranks, s, total_failures == 0 ? "PASS" : "FAIL", total_failures);
  MPI_Finalize();
  return total_failures == 0 ? 0 : 1;
}
