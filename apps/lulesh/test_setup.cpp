// CPU tests of the LULESH example's host set-up (no GPU, no kernels): mesh, connectivity,
// boundary conditions, regions, initial state and the time step control, each checked against
// values obtained another way: from the geometry (coordinates rather than index arithmetic), by
// hand for small meshes, from the C library's rand(), or printed by LLNL's reference lulesh2.0
// (built from github.com/LLNL/LULESH 3e01c40 with a debug print of its set-up).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "glibc_rand.hpp"
#include "mesh.hpp"
#include "options.hpp"
#include "problem.hpp"
#include "progress_check.hpp"
#include "regions.hpp"
#include "time_control.hpp"

using namespace lulesh;

namespace {

struct grid_pos {
  std::int32_t col, row, plane;
};

grid_pos node_pos(const mesh& m, std::int32_t n) {
  return {n % m.edge_nodes, (n / m.edge_nodes) % m.edge_nodes, n / (m.edge_nodes * m.edge_nodes)};
}

grid_pos elem_pos(const mesh& m, std::int32_t i) {
  return {i % m.edge_elems, (i / m.edge_elems) % m.edge_elems, i / (m.edge_elems * m.edge_elems)};
}

// The mesh spacing as the coordinates give it.
double spacing(const mesh& m) { return m.x[1] - m.x[0]; }

}  // namespace

TEST_CASE("glibc_rand reproduces glibc's rand() after srand(0)") {
  glibc_rand rng(0);
  // glibc's well-known first outputs (srand(0) is srand(1) there).
  CHECK(rng.next() == 1804289383);
  CHECK(rng.next() == 846930886);
  CHECK(rng.next() == 1681692777);
#if defined(__GLIBC__)
  // And a long stretch against the C library itself, where it is glibc.
  std::srand(0);
  glibc_rand again(0);
  for (int i = 0; i < 100000; ++i) REQUIRE(again.next() == std::rand());
  std::srand(12345);
  glibc_rand seeded(12345);
  for (int i = 0; i < 1000; ++i) REQUIRE(seeded.next() == std::rand());
#endif
}

TEST_CASE("mesh: sizes, padding and coordinates") {
  const mesh m = make_mesh(5);
  CHECK(m.num_elem == 125);
  CHECK(m.num_node == 216);
  CHECK(m.corner_stride == 128);
  CHECK(corner_stride_for(32) == 32);
  CHECK(corner_stride_for(33) == 64);
  CHECK(m.nodelist.size() == 8 * 128u);
  for (std::int32_t n = 0; n < m.num_node; ++n) {
    const grid_pos p = node_pos(m, n);
    CHECK(m.x[n] == 1.125 * p.col / 5.0);
    CHECK(m.y[n] == 1.125 * p.row / 5.0);
    CHECK(m.z[n] == 1.125 * p.plane / 5.0);
  }
  CHECK(m.x[5] == 1.125);
  CHECK(m.z[215] == 1.125);
  CHECK_THROWS_WITH_AS(make_mesh(0), "the mesh size (-s) must be between 1 and 640, got 0", std::invalid_argument);
  CHECK_THROWS_AS(make_mesh(max_edge_elems + 1), std::invalid_argument);
}

TEST_CASE("mesh: nodelist by hand for s = 1 and s = 2") {
  const mesh one = make_mesh(1);
  const std::int32_t want1[8] = {0, 1, 3, 2, 4, 5, 7, 6};
  for (int c = 0; c < 8; ++c) CHECK(one.node_of(0, c) == want1[c]);
  const mesh two = make_mesh(2);
  const std::int32_t want_first[8] = {0, 1, 4, 3, 9, 10, 13, 12};
  const std::int32_t want_last[8] = {13, 14, 17, 16, 22, 23, 26, 25};
  for (int c = 0; c < 8; ++c) {
    CHECK(two.node_of(0, c) == want_first[c]);
    CHECK(two.node_of(7, c) == want_last[c]);
  }
  // padding entries of the corner-major rows stay 0
  for (int c = 0; c < 8; ++c)
    for (std::int32_t i = two.num_elem; i < two.corner_stride; ++i) CHECK(two.nodelist[c * two.corner_stride + i] == 0);
}

TEST_CASE("mesh: every element's corners are the unit cube's corners in LULESH order, right-handed") {
  const mesh m = make_mesh(4);
  const double h = spacing(m);
  const int offset[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  for (std::int32_t i = 0; i < m.num_elem; ++i) {
    const grid_pos e = elem_pos(m, i);
    for (int c = 0; c < 8; ++c) {
      const std::int32_t n = m.node_of(i, c);
      CHECK(m.x[n] == doctest::Approx(h * (e.col + offset[c][0])));
      CHECK(m.y[n] == doctest::Approx(h * (e.row + offset[c][1])));
      CHECK(m.z[n] == doctest::Approx(h * (e.plane + offset[c][2])));
    }
    CHECK(element_volume(m, i) == doctest::Approx(h * h * h).epsilon(1e-12));
  }
}

TEST_CASE("mesh: node-element CSR lists each node's corners once, by increasing element") {
  const mesh m = make_mesh(4);
  CHECK(m.node_elem_start.front() == 0);
  CHECK(m.node_elem_start.back() == 8 * m.num_elem);
  std::vector<int> seen(static_cast<std::size_t>(8 * m.corner_stride), 0);
  for (std::int32_t n = 0; n < m.num_node; ++n) {
    const grid_pos p = node_pos(m, n);
    // 1 element at a cube corner, 2 on an edge, 4 on a face, 8 inside
    auto along = [&](std::int32_t k) { return (k == 0 || k == m.edge_elems) ? 1 : 2; };
    const std::int32_t count = m.node_elem_start[n + 1] - m.node_elem_start[n];
    CHECK(count == along(p.col) * along(p.row) * along(p.plane));
    std::int32_t previous_elem = -1;
    for (std::int32_t k = m.node_elem_start[n]; k < m.node_elem_start[n + 1]; ++k) {
      const std::int32_t slot = m.node_elem_corner[k];
      const std::int32_t corner = slot / m.corner_stride, elem = slot % m.corner_stride;
      REQUIRE(elem < m.num_elem);
      CHECK(m.node_of(elem, corner) == n);
      CHECK(elem > previous_elem);
      previous_elem = elem;
      ++seen[static_cast<std::size_t>(slot)];
    }
  }
  for (std::int32_t c = 0; c < 8; ++c)
    for (std::int32_t i = 0; i < m.corner_stride; ++i) CHECK(seen[c * m.corner_stride + i] == (i < m.num_elem ? 1 : 0));
}

TEST_CASE("mesh: boundary masks and face neighbours follow the element's position") {
  const mesh m = make_mesh(4);
  const std::int32_t s = m.edge_elems;
  for (std::int32_t i = 0; i < m.num_elem; ++i) {
    const grid_pos e = elem_pos(m, i);
    std::int32_t want = 0;
    if (e.col == 0) want |= XI_M_SYMM;
    if (e.col == s - 1) want |= XI_P_FREE;
    if (e.row == 0) want |= ETA_M_SYMM;
    if (e.row == s - 1) want |= ETA_P_FREE;
    if (e.plane == 0) want |= ZETA_M_SYMM;
    if (e.plane == s - 1) want |= ZETA_P_FREE;
    CHECK(m.elem_bc[i] == want);
    // Across an interior face the neighbour is the adjacent element (the kernels use no other).
    if (e.col > 0) CHECK(m.lxim[i] == i - 1);
    if (e.col < s - 1) CHECK(m.lxip[i] == i + 1);
    if (e.row > 0) CHECK(m.letam[i] == i - s);
    if (e.row < s - 1) CHECK(m.letap[i] == i + s);
    if (e.plane > 0) CHECK(m.lzetam[i] == i - s * s);
    if (e.plane < s - 1) CHECK(m.lzetap[i] == i + s * s);
  }
  // The reference's values at the domain's faces (its linear stepping): kept as it has them.
  CHECK(m.lxim[0] == 0);
  CHECK(m.lxim[4] == 3);
  CHECK(m.lxip[m.num_elem - 1] == m.num_elem - 1);
  CHECK(m.letam[3] == 3);
  CHECK(m.letap[m.num_elem - 1] == m.num_elem - 1);
  CHECK(m.lzetam[15] == 15);
  CHECK(m.lzetap[m.num_elem - 16] == m.num_elem - 16);
}

TEST_CASE("mesh: symmetry planes list the nodes at x = 0, y = 0, z = 0") {
  const mesh m = make_mesh(3);
  auto check_plane = [&](const std::vector<std::int32_t>& nodes, const std::vector<double>& coord) {
    CHECK(nodes.size() == 16u);
    CHECK(std::set<std::int32_t>(nodes.begin(), nodes.end()).size() == nodes.size());
    for (std::int32_t n : nodes) CHECK(coord[n] == 0.0);
    std::size_t on_plane = 0;
    for (double c : coord) on_plane += c == 0.0;
    CHECK(on_plane == nodes.size());
  };
  check_plane(m.symm_x, m.x);
  check_plane(m.symm_y, m.y);
  check_plane(m.symm_z, m.z);
  CHECK(m.symm_x[1] == 4);  // the reference's order: (row 1, plane 0) second
  CHECK(m.symm_y[1] == 1);
  CHECK(m.symm_z[4] == 4);
}

TEST_CASE("mesh: node_symmetry_bits marks each node's planes as the three lists do") {
  for (const placement where : {placement{}, placement{2, 1, 0, 0}, placement{2, 0, 1, 1}}) {
    const mesh m = make_mesh(3, where);
    const std::vector<std::int32_t> bits = node_symmetry_bits(m);
    REQUIRE(bits.size() == static_cast<std::size_t>(m.num_node));
    auto listed = [](const std::vector<std::int32_t>& nodes, std::int32_t n) {
      return std::find(nodes.begin(), nodes.end(), n) != nodes.end();
    };
    for (std::int32_t n = 0; n < m.num_node; ++n) {
      const std::int32_t want = (listed(m.symm_x, n) ? NODE_SYMM_X : 0) | (listed(m.symm_y, n) ? NODE_SYMM_Y : 0) |
                                (listed(m.symm_z, n) ? NODE_SYMM_Z : 0);
      CHECK(bits[static_cast<std::size_t>(n)] == want);
    }
  }
  const std::vector<std::int32_t> one_domain = node_symmetry_bits(make_mesh(2));
  CHECK(one_domain[0] == (NODE_SYMM_X | NODE_SYMM_Y | NODE_SYMM_Z));  // the origin: on all three
  CHECK(one_domain[1] == (NODE_SYMM_Y | NODE_SYMM_Z));                // (1, 0, 0)
  CHECK(one_domain[26] == 0);                                         // the far corner
}

TEST_CASE("regions: the reference's sets for s = 5, 10, 30") {
  // region sizes and the hash sum_i (h * 31 + region_of[i]) mod 1e9+7, printed by lulesh2.0
  struct ref_case {
    std::int32_t s;
    int regions, balance, cost;
    std::vector<std::int32_t> sizes;
    long hash;
  };
  const ref_case cases[] = {
      {5, 11, 1, 1, {0, 8, 7, 10, 31, 0, 13, 0, 19, 12, 25}, 521628578},
      {10, 11, 1, 1, {0, 14, 14, 78, 389, 55, 73, 44, 148, 85, 100}, 679164510},
      {30, 11, 1, 1, {123, 457, 493, 2733, 1004, 896, 3236, 2435, 1198, 5980, 8445}, 182465950},
      {10, 7, 2, 3, {0, 27, 100, 131, 176, 225, 341}, 975305297},
      {4, 1, 1, 1, {64}, 427431599},
  };
  for (const ref_case& rc : cases) {
    CAPTURE(rc.s);
    CAPTURE(rc.regions);
    const std::int32_t n = rc.s * rc.s * rc.s;
    const region_sets sets = make_regions(n, rc.regions, rc.balance, rc.cost);
    REQUIRE(sets.count() == rc.regions);
    long hash = 0;
    for (std::int32_t r : sets.region_of) hash = (hash * 31 + r) % 1000000007;
    CHECK(hash == rc.hash);
    std::vector<int> member(static_cast<std::size_t>(n), 0);
    for (int r = 0; r < rc.regions; ++r) {
      CHECK(sets.size(r) == rc.sizes[static_cast<std::size_t>(r)]);
      for (std::int32_t k = sets.start[r]; k < sets.start[r + 1]; ++k) {
        const std::int32_t elem = sets.elements[k];
        CHECK(sets.region_of[elem] == r + 1);
        if (k > sets.start[r]) CHECK(elem > sets.elements[k - 1]);
        ++member[static_cast<std::size_t>(elem)];
      }
    }
    CHECK(std::count(member.begin(), member.end(), 1) == n);
  }
}

TEST_CASE("regions: EOS repetitions by region (cheap half, 1 + cost, 10 (1 + cost))") {
  const region_sets eleven = make_regions(1000, 11, 1, 1);
  CHECK(eleven.repetitions == std::vector<std::int32_t>{1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 20});
  const region_sets cost3 = make_regions(1000, 11, 1, 3);
  CHECK(cost3.repetitions[5] == 4);
  CHECK(cost3.repetitions[10] == 40);
  // 25 regions: (25 + 15) / 20 = 2 very expensive ones
  CHECK(eos_repetitions(22, 25, 1) == 2);
  CHECK(eos_repetitions(23, 25, 1) == 20);
  CHECK(eos_repetitions(0, 1, 5) == 6);  // one region: the "1 + cost" band of the reference's rule
  CHECK_THROWS_WITH_AS(make_regions(10, 0, 1, 1), "the number of regions (-r) must be at least 1, got 0", std::invalid_argument);
  CHECK_THROWS_WITH_AS(make_regions(10, 11, 40, 1),
                       "the region weights (-b 40 with -r 11) overflow an int; use a smaller balance or fewer regions",
                       std::invalid_argument);
  CHECK(make_regions(1000, 11, 8, 1).count() == 11);  // 1 + 2^8 + ... + 11^8 still fits
}

TEST_CASE("regions: the EOS order (one launch) holds every element once, tiles of one region, costliest first") {
  const region_sets sets = make_regions(1000, 11, 1, 1);
  for (std::int32_t alignment : {1, 8, 128, eos_tile_alignment}) {
    CAPTURE(alignment);
    const eos_order eos = make_eos_order(sets, alignment);
    REQUIRE(eos.elements.size() == eos.repetitions.size());
    CHECK(eos.elements.size() % static_cast<std::size_t>(alignment) == 0);
    std::vector<int> seen(1000, 0);
    int previous_reps = INT_MAX;
    for (std::size_t tile = 0; tile < eos.elements.size(); tile += static_cast<std::size_t>(alignment)) {
      int region = 0;  // 1-based; 0 until the tile's first element
      for (std::size_t i = tile; i < tile + static_cast<std::size_t>(alignment); ++i) {
        const std::int32_t elem = eos.elements[i];
        if (elem < 0) {
          CHECK(eos.repetitions[i] == 0);
          continue;
        }
        ++seen[static_cast<std::size_t>(elem)];
        if (region == 0) region = sets.region_of[static_cast<std::size_t>(elem)];
        CHECK(sets.region_of[static_cast<std::size_t>(elem)] == region);  // a tile never mixes regions
        CHECK(eos.repetitions[i] == sets.repetitions[static_cast<std::size_t>(region - 1)]);
      }
      REQUIRE(region != 0);  // padding only fills up a region's last tile
      CHECK(sets.repetitions[static_cast<std::size_t>(region - 1)] <= previous_reps);
      previous_reps = sets.repetitions[static_cast<std::size_t>(region - 1)];
    }
    CHECK(std::count(seen.begin(), seen.end(), 1) == 1000);
  }
  // alignment 1: no padding, the region lists reordered only
  CHECK(make_eos_order(sets, 1).elements.size() == 1000);
  CHECK(make_eos_order(sets, eos_tile_alignment).elements.size() < 1000 + 11 * static_cast<std::size_t>(eos_tile_alignment));
  CHECK_THROWS_WITH_AS(make_eos_order(sets, 0), "the EOS tile alignment must be at least 1, got 0", std::invalid_argument);
}

TEST_CASE("initial state: volumes, masses, Sedov energy and first dt as the reference") {
  const mesh m = make_mesh(5);
  const initial_state s = make_initial_state(m);
  // lulesh2.0 -s 5 prints volo(0) 0.011390625000000001, deltatime 0.0003417997095087096 and
  // e(0) 54166.611796982157.
  CHECK(s.volo[0] == 0.011390625000000001);
  CHECK(s.e[0] == 54166.611796982157);
  CHECK(s.deltatime == doctest::Approx(0.0003417997095087096).epsilon(1e-15));
  CHECK(std::count(s.e.begin(), s.e.end(), 0.0) == m.num_elem - 1);
  const double h3 = std::pow(1.125 / 5, 3);
  double total = 0;
  for (std::int32_t i = 0; i < m.num_elem; ++i) {
    CHECK(s.volo[i] == doctest::Approx(h3).epsilon(1e-13));
    CHECK(s.elem_mass[i] == s.volo[i]);
  }
  for (std::int32_t n = 0; n < m.num_node; ++n) {
    const std::int32_t count = m.node_elem_start[n + 1] - m.node_elem_start[n];
    CHECK(s.nodal_mass[n] == doctest::Approx(count * h3 / 8).epsilon(1e-13));
    total += s.nodal_mass[n];
  }
  CHECK(total == doctest::Approx(std::pow(1.125, 3)).epsilon(1e-12));
  // s = 10 and 30 from lulesh2.0 as well
  const initial_state s10 = make_initial_state(make_mesh(10));
  CHECK(s10.volo[0] == 0.0014238281250000002);
  CHECK(s10.e[0] == 433332.89437585726);
  CHECK(s10.deltatime == doctest::Approx(6.0422223100300155e-05).epsilon(1e-15));
  CHECK(initial_energy(30) == 11699988.148148146);
  CHECK(initial_energy(45) == 3.948746e+7);
}

TEST_CASE("time control: the reference's TimeIncrement rules") {
  time_control t;
  t.deltatime = 1.0e-4;
  time_increment(t);  // cycle 0: the initial dt as it is
  CHECK(t.deltatime == 1.0e-4);
  CHECK(t.cycle == 1);
  CHECK(t.time == 1.0e-4);
  t.dtcourant = 2.1e-4;  // newdt = 1.05e-4: grew by less than 10%, kept
  time_increment(t);
  CHECK(t.deltatime == 1.0e-4);
  t.dtcourant = 1.0;  // grows by at most 20%
  time_increment(t);
  CHECK(t.deltatime == 1.0e-4 * 1.2);
  t.dthydro = 3.0e-5;  // hydro limits: 2/3 of it
  time_increment(t);
  CHECK(t.deltatime == 3.0e-5 * 2.0 / 3.0);
  // Near the end: a last step shorter than dt / 3 is avoided by taking 2/3 dt first ...
  time_control end;
  end.cycle = 5;
  end.deltatime = 3.0e-3;
  end.dtcourant = 6.0e-3;
  end.time = 1.0e-2 - 3.5e-3;
  time_increment(end);
  CHECK(end.deltatime == 2.0 * 3.0e-3 / 3.0);
  // ... and the step never passes stoptime.
  end.time = 1.0e-2 - 1.0e-3;
  time_increment(end);
  CHECK(end.deltatime == doctest::Approx(1.0e-3));
  CHECK(end.time == doctest::Approx(1.0e-2));
  CHECK(end.cycle == 7);
  CHECK(end.done(7));
}

TEST_CASE("options: the reference's flags and clear errors") {
  const char* argv[] = {"lulesh", "-s", "45", "-i", "10", "-r", "5", "-b", "2", "-c", "3", "-p", "--timing", "--fp-fusion"};
  const options o = parse_options(14, const_cast<char**>(argv));
  CHECK(o.nx == 45);
  CHECK(o.its == 10);
  CHECK(o.iterations_given);
  CHECK(o.num_reg == 5);
  CHECK(o.balance == 2);
  CHECK(o.cost == 3);
  CHECK(o.show_progress);
  CHECK(o.timing);
  CHECK(o.fp_fusion);
  CHECK_FALSE(o.quiet);
  const char* bad_int[] = {"lulesh", "-s", "4x"};
  CHECK_THROWS_WITH_AS(parse_options(3, const_cast<char**>(bad_int)), "-s needs an integer, got `4x`", usage_error);
  const char* missing[] = {"lulesh", "-i"};
  CHECK_THROWS_WITH_AS(parse_options(2, const_cast<char**>(missing)), "missing integer argument to -i", usage_error);
  const char* small[] = {"lulesh", "-s", "0"};
  CHECK_THROWS_WITH_AS(parse_options(3, const_cast<char**>(small)), "-s must be at least 1, got 0", usage_error);
  const char* unknown[] = {"lulesh", "--gpu"};
  CHECK_THROWS_WITH_AS(parse_options(2, const_cast<char**>(unknown)), "unknown command line argument: --gpu", usage_error);
}

TEST_CASE("options: the time loop's (--host-step, --status-every, --no-graph)") {
  const char* none[] = {"lulesh"};
  const options d = parse_options(1, const_cast<char**>(none));
  CHECK_FALSE(d.host_step);  // the device-resident loop by default ...
  CHECK(d.status_every == 16);
  CHECK(d.graph);  // ... replayed as a CUDA graph where the driver allows it
  const char* argv[] = {"lulesh", "--host-step", "--status-every", "64", "--no-graph"};
  const options o = parse_options(5, const_cast<char**>(argv));
  CHECK(o.host_step);
  CHECK(o.status_every == 64);
  CHECK_FALSE(o.graph);
  const char* zero[] = {"lulesh", "--status-every", "0"};
  CHECK_THROWS_WITH_AS(parse_options(3, const_cast<char**>(zero)), "--status-every must be at least 1, got 0",
                       usage_error);
  const char* huge[] = {"lulesh", "--status-every", "100000"};
  CHECK_THROWS_WITH_AS(parse_options(3, const_cast<char**>(huge)),
                       "--status-every must be at most 65536 (the GPU keeps every cycle's time and dt until the "
                       "host reads them), got 100000",
                       usage_error);
}

TEST_CASE("options: the fused kernels and FMA by default, --no-* each apart, and apart for --dump-cycle") {
  const char* none[] = {"lulesh"};
  const options d = parse_options(1, const_cast<char**>(none));
  CHECK(d.fused_nodes);
  CHECK(d.fused_q_eos);
  CHECK_FALSE(d.fused_nodes_given);
  CHECK_FALSE(d.fused_q_eos_given);
  CHECK(d.fp_fusion);  // FMA contraction by default too (verified with the fused kernels: issue 32)
  CHECK_FALSE(d.fp_fusion_given);
  const char* no_fma[] = {"lulesh", "--no-fp-fusion"};
  const options n = parse_options(2, const_cast<char**>(no_fma));
  CHECK_FALSE(n.fp_fusion);
  CHECK(n.fp_fusion_given);
  CHECK(n.fused_nodes);
  const char* argv[] = {"lulesh", "-s", "45", "--fused-nodes", "--fp-fusion"};
  const options o = parse_options(5, const_cast<char**>(argv));
  CHECK(o.fused_nodes);
  CHECK(o.fused_nodes_given);
  CHECK(o.fp_fusion);
  const char* apart[] = {"lulesh", "--no-fused-nodes"};
  const options a = parse_options(2, const_cast<char**>(apart));
  CHECK_FALSE(a.fused_nodes);
  CHECK(a.fused_q_eos);
  const char* apart_q[] = {"lulesh", "--no-fused-q-eos"};
  const options q = parse_options(2, const_cast<char**>(apart_q));
  CHECK(q.fused_nodes);
  CHECK_FALSE(q.fused_q_eos);
  // A dump compares the unfused kernels' fields: the defaults step aside, a fused kernel by name is refused.
  const char* dump_default[] = {"lulesh", "--dump-cycle", "3"};
  const options dd = parse_options(3, const_cast<char**>(dump_default));
  CHECK_FALSE(dd.fused_nodes);
  CHECK_FALSE(dd.fused_q_eos);
  CHECK_FALSE(dd.fp_fusion);  // the interpreter it is replayed in does not contract
  const char* dump_fma[] = {"lulesh", "--dump-cycle", "3", "--fp-fusion"};
  CHECK(parse_options(4, const_cast<char**>(dump_fma)).fp_fusion);
  const char* q_dump[] = {"lulesh", "--dump-cycle", "3", "--fused-q-eos"};
  CHECK_THROWS_WITH_AS(parse_options(4, const_cast<char**>(q_dump)),
                       "--fused-q-eos keeps the Q terms in registers, so a --dump-cycle state has no ql or qq for "
                       "interpret_check.py --replay to compare: leave one of them out",
                       usage_error);
  const char* dump[] = {"lulesh", "--fused-nodes", "--dump-cycle", "3"};
  CHECK_THROWS_WITH_AS(parse_options(4, const_cast<char**>(dump)),
                       "--fused-nodes keeps the node forces and accelerations in registers, so a --dump-cycle state "
                       "has no f* or *dd for interpret_check.py --replay to compare: leave one of them out",
                       usage_error);
}

TEST_CASE("progress_check: the reference's -p format, first difference, short runs, bad files") {
  // lulesh2.0 -s 5 -p, line 1: the first dt is the initial state's.
  const std::string s5 = std::string(LULESH_REFERENCE_DIR) + "/progress_s5.txt";
  const initial_state init = make_initial_state(make_mesh(5));
  std::ifstream in(s5);
  std::string first;
  REQUIRE(std::getline(in, first));
  CHECK(progress_line(1, init.deltatime, init.deltatime) == first);

  const std::string path = "lulesh_progress_test.txt";
  {
    std::ofstream out(path);
    out << "Running problem size 5^3 per domain until completion\n"  // other lines are ignored
        << progress_line(1, 1.0e-4, 1.0e-4) << "\n"
        << progress_line(2, 2.2e-4, 1.2e-4) << "\n";
  }
  progress_check same(path);
  same.observe(1, 1.0e-4, 1.0e-4);
  same.observe(2, 2.2e-4, 1.2e-4);
  CHECK(same.report(true, true));
  progress_check differs(path);
  differs.observe(1, 1.0e-4, 1.0e-4);
  differs.observe(2, 2.2e-4, 1.200001e-4);  // differs in the last digit printed
  CHECK_FALSE(differs.report(true, true));
  CHECK(differs.first_difference().find("first difference at cycle 2") == 0);
  progress_check longer(path);
  longer.observe(1, 1.0e-4, 1.0e-4);
  longer.observe(2, 2.2e-4, 1.2e-4);
  longer.observe(3, 3.4e-4, 1.2e-4);
  CHECK_FALSE(longer.report(true, true));
  CHECK(longer.first_difference().find("the reference had finished after 2 cycles") != std::string::npos);
  progress_check shorter(path);
  shorter.observe(1, 1.0e-4, 1.0e-4);
  CHECK(shorter.report(false, true));       // stopped by -i: what ran matched
  CHECK_FALSE(shorter.report(true, true));  // completed earlier than the reference
  std::remove(path.c_str());
  CHECK_THROWS_WITH_AS(progress_check("no/such/file.txt"), "cannot read the reference progress file no/such/file.txt",
                       std::runtime_error);
  { std::ofstream empty(path); }
  CHECK_THROWS_WITH_AS(progress_check{path}, "lulesh_progress_test.txt has no `cycle = ...` lines (expected the output of lulesh2.0 -p)",
                       std::runtime_error);
  std::remove(path.c_str());
}
