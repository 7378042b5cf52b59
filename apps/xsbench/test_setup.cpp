// CPU tests of apps/xsbench's host side: the random-number generator and its skip-ahead, the
// materials, the cross-section grids and their acceleration structures, and the CPU lookup (against
// a brute-force lookup written here). Tiny problems only (the real ones are gigabytes).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <set>
#include <vector>

#include "cpu_lookup.hpp"
#include "materials.hpp"
#include "options.hpp"
#include "problem.hpp"
#include "rng.hpp"

using namespace xsbench;

namespace {

problem_size tiny(std::int64_t isotopes, std::int64_t points = 40, std::int64_t bins = 25) {
  return {"tiny", isotopes, points, bins};
}

// The interval of nuclide `nuc` holding e by a linear scan: the last point whose energy is <= e,
// clamped to [0, n_gridpoints - 2].
std::int64_t interval_by_scan(const problem &p, std::int64_t nuc, double e) {
  std::int64_t lower = 0;
  for (std::int64_t k = 0; k < p.size.n_gridpoints; ++k)
    if (p.energy(nuc, k) <= e) lower = k;
  return std::min(lower, p.size.n_gridpoints - 2);
}

int brute_force_lookup(const problem &p, double e, int mat) {
  std::array<double, 5> macro{};
  const material_table &m = p.materials;
  for (int j = 0; j < m.num_nucs[mat]; ++j) {
    const std::int64_t nuc = m.mats[mat * m.max_num_nucs + j];
    const double *low = &p.nuclide_grid[(nuc * p.size.n_gridpoints + interval_by_scan(p, nuc, e)) * point_doubles];
    const double *high = low + point_doubles;
    const double f = (high[0] - e) / (high[0] - low[0]);
    for (int k = 0; k < 5; ++k) macro[k] += (high[k + 1] - f * (high[k + 1] - low[k + 1])) * m.concs[mat * m.max_num_nucs + j];
  }
  return verification_value(macro);
}

}  // namespace

TEST_CASE("the LCG's skip-ahead lands where stepping one draw at a time does") {
  for (std::uint64_t start : {std::uint64_t(1070), std::uint64_t(42), (std::uint64_t(1) << 62) + 12345}) {
    std::uint64_t stepped = start;
    for (std::uint64_t n = 0; n <= 2100; ++n) {
      if (n == 0 || n == 1 || n == 2 || n == 31 || n == 32 || n == 33 || n == 1024 || n == 2100)
        CHECK(lcg_skip_ahead(start, n) == stepped);
      lcg_random_double(stepped);
    }
  }
  // Composition for distances far beyond stepping: skip(a + b) == skip(b) after skip(a).
  const std::uint64_t a = 33999998, b = 123456789012345ULL;
  CHECK(lcg_skip_ahead(lcg_skip_ahead(1070, a), b) == lcg_skip_ahead(1070, a + b));
  CHECK(lcg_skip_ahead(1070, 0) == 1070);
}

TEST_CASE("LCG draws are in [0, 1), below 2^63 as seeds, and not constant") {
  std::uint64_t seed = nuclide_grid_seed;
  std::set<double> seen;
  double sum = 0;
  for (int i = 0; i < 10000; ++i) {
    const double r = lcg_random_double(seed);
    CHECK(r >= 0.0);
    CHECK(r < 1.0);
    CHECK(seed < (std::uint64_t(1) << 63));
    seen.insert(r);
    sum += r;
  }
  CHECK(seen.size() == 10000);
  CHECK(sum / 10000 == doctest::Approx(0.5).epsilon(0.02));
  // The first draw from seed 42 by hand: (a * 42 + 1) mod 2^63.
  std::uint64_t s = 42;
  lcg_random_double(s);
  CHECK(s == ((lcg_multiplier * 42 + 1) & lcg_modulus_mask));
}

TEST_CASE("materials: the reference's nuclide counts, valid nuclide ids, random concentrations") {
  const material_table small = make_materials(68);
  const material_table large = make_materials(355);
  const std::array<std::int32_t, 12> counts_small = {34, 5, 4, 4, 27, 21, 21, 21, 21, 21, 9, 9};
  for (int m = 0; m < num_materials; ++m) {
    CHECK(small.num_nucs[m] == counts_small[m]);
    CHECK(large.num_nucs[m] == (m == fuel ? 321 : counts_small[m]));
  }
  CHECK(small.max_num_nucs == 34);
  CHECK(large.max_num_nucs == 321);
  for (const auto *t : {&small, &large})
    for (int m = 0; m < num_materials; ++m)
      for (int j = 0; j < t->max_num_nucs; ++j) {
        const std::size_t at = static_cast<std::size_t>(m * t->max_num_nucs + j);
        if (j < t->num_nucs[m]) {
          CHECK(t->mats[at] >= 0);
          CHECK(t->mats[at] < (t == &small ? 68 : 355));
          CHECK(t->concs[at] > 0.0);
          CHECK(t->concs[at] < 1.0);
        } else {
          CHECK(t->concs[at] == 0.0);  // the square table's padding
        }
      }
  // The large fuel is the small fuel plus nuclides 68..354; a material lists a nuclide once.
  CHECK(std::equal(small.mats.begin(), small.mats.begin() + 34, large.mats.begin()));
  CHECK(large.mats[34] == 68);
  CHECK(large.mats[320] == 354);
  std::set<int> fuel_set(large.mats.begin(), large.mats.begin() + 321);
  CHECK(fuel_set.size() == 321);
  CHECK_THROWS_WITH_AS(make_materials(100), doctest::Contains("355"), std::invalid_argument);
}

TEST_CASE("material picking: thresholds summed as the reference sums them, fractions as published") {
  const auto t = material_thresholds();
  CHECK(t[0] == 0.0);
  for (int m = 1; m < num_materials; ++m) CHECK(t[m] > t[m - 1]);
  CHECK(t[11] == doctest::Approx(0.861));  // the published fractions sum to 1.001: fuel gets 0.139
  CHECK(pick_material(0.0, t) == 1);
  CHECK(pick_material(t[1], t) == 2);  // on a boundary: the next material, as `roll < running`
  CHECK(pick_material(0.861 + 1e-9, t) == fuel);
  CHECK(pick_material(0.999999, t) == fuel);
  std::array<int, num_materials> hits{};
  std::uint64_t seed = 7;
  const int n = 200000;
  for (int i = 0; i < n; ++i) ++hits[pick_material(lcg_random_double(seed), t)];
  for (int m = 0; m < num_materials; ++m)
    CHECK(double(hits[m]) / n == doctest::Approx(material_volume_fraction[m]).epsilon(0.1));
}

TEST_CASE("nuclide grids: ascending energies, all values random in [0, 1)") {
  const problem p = make_problem(tiny(68), grid_type::unionized);
  REQUIRE(p.nuclide_grid.size() == std::size_t(68 * 40 * 6));
  for (std::int64_t n = 0; n < 68; ++n)
    for (std::int64_t k = 1; k < 40; ++k) CHECK(p.energy(n, k) > p.energy(n, k - 1));
  for (double v : p.nuclide_grid) {
    CHECK(v >= 0.0);
    CHECK(v < 1.0);
  }
  // The grid is the reference's generator's stream, point by point, then sorted per nuclide: the
  // multiset of nuclide 0's energies is the first 40 draws' every 6th value.
  std::uint64_t seed = nuclide_grid_seed;
  std::vector<double> energies;
  for (int k = 0; k < 40 * 6; ++k) {
    const double r = lcg_random_double(seed);
    if (k % 6 == 0) energies.push_back(r);
  }
  std::sort(energies.begin(), energies.end());
  for (std::int64_t k = 0; k < 40; ++k) CHECK(p.energy(0, k) == energies[k]);
}

TEST_CASE("unionized grid: every nuclide's interval brackets every unionized energy") {
  const problem p = make_problem(tiny(68), grid_type::unionized);
  REQUIRE(p.unionized_energy.size() == std::size_t(68 * 40));
  CHECK(std::is_sorted(p.unionized_energy.begin(), p.unionized_energy.end()));
  REQUIRE(p.index_grid.size() == std::size_t(68 * 40 * 68));
  for (std::int64_t e = 0; e < p.points(); ++e)
    for (std::int64_t n = 0; n < 68; ++n) {
      const std::int32_t idx = p.index_grid[e * 68 + n];
      CHECK(idx == interval_by_scan(p, n, p.unionized_energy[e]));
    }
}

TEST_CASE("hash grid: each bin's entry is the interval at the bin's lower edge") {
  const problem p = make_problem(tiny(68, 40, 25), grid_type::hash);
  REQUIRE(p.index_grid.size() == std::size_t(25 * 68));
  CHECK(p.unionized_energy.empty());
  for (std::int64_t b = 0; b < 25; ++b)
    for (std::int64_t n = 0; n < 68; ++n) {
      const double edge = b * (1.0 / 25);
      const std::int32_t idx = p.index_grid[b * 68 + n];
      // the bisection's answer: the last point <= edge, or 0 below the grid's second point
      if (edge >= p.energy(n, 1)) {
        CHECK(p.energy(n, idx) <= edge);
        CHECK((idx == 38 || p.energy(n, idx + 1) > edge));
      } else {
        CHECK(idx == 0);
      }
    }
}

TEST_CASE("fixed loop lengths cover the longest bisection and the largest skip-ahead distance") {
  CHECK(bisection_steps(2) == 0);
  CHECK(bisection_steps(3) == 1);
  CHECK(bisection_steps(768604) == 20);     // the small problem's unionized grid (68 x 11303)
  CHECK(bisection_steps(4012565) == 22);    // the large one's (355 x 11303)
  // Against the bisection itself: every query into 1000 points finishes within the bound.
  std::vector<double> a(1000);
  for (int i = 0; i < 1000; ++i) a[i] = i;
  for (int q = 0; q < 1000; ++q) {
    std::int64_t low = 0, high = 999, steps = 0;
    while (high - low > 1) {
      const std::int64_t mid = low + (high - low) / 2;
      (a[mid] > q + 0.5 ? high : low) = mid;
      ++steps;
    }
    CHECK(steps <= bisection_steps(1000));
  }
  CHECK(skip_bits_for(1) == 0);
  CHECK(skip_bits_for(2) == 2);  // distance 2 = 0b10
  CHECK(skip_bits_for(17000000) == 26);  // 33999998 < 2^26
  const problem h = make_problem(tiny(68, 40, 25), grid_type::hash);
  CHECK(hash_search_steps(h) >= 1);
  CHECK(hash_search_steps(h) <= bisection_steps(40));
}

TEST_CASE("CPU lookups: unionized and hash grids agree with a brute-force lookup, lookup for lookup") {
  for (std::int64_t isotopes : {68, 355}) {
    const problem u = make_problem(tiny(isotopes, 30, 20), grid_type::unionized);
    const problem h = make_problem(tiny(isotopes, 30, 20), grid_type::hash);
    const std::int64_t n = 3000;
    const std::vector<std::uint8_t> vu = cpu_lookups(u, n, 3);
    const std::vector<std::uint8_t> vh = cpu_lookups(h, n, 1);
    const auto t = material_thresholds();
    std::array<int, 6> seen{};
    for (std::int64_t i = 0; i < n; ++i) {
      const lookup_sample s = sample_lookup(i, t);
      const int expected = brute_force_lookup(u, s.energy, s.material);
      CHECK(int(vu[i]) == expected);
      CHECK(int(vh[i]) == expected);
      ++seen[vu[i]];
    }
    CHECK(seen[0] == 0);
    for (int k = 1; k <= 5; ++k) CHECK(seen[k] > 0);  // every channel wins somewhere: the data vary
    CHECK(checksum_of(vu) == checksum_of(vh));
  }
}

TEST_CASE("samples: lookup i's stream starts at draw 2i of the lookups' seed") {
  const auto t = material_thresholds();
  std::uint64_t seed = lookup_starting_seed;
  for (std::int64_t i = 0; i < 50; ++i) {
    const double e = lcg_random_double(seed);
    const int m = pick_material(lcg_random_double(seed), t);
    const lookup_sample s = sample_lookup(i, t);
    CHECK(s.energy == e);
    CHECK(s.material == m);
  }
}

TEST_CASE("problem set-up: bad sizes are refused with what to change") {
  CHECK_THROWS_WITH_AS(make_problem(tiny(68, 1), grid_type::unionized), doctest::Contains("points per nuclide"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(make_problem(tiny(68, 40, 0), grid_type::hash), doctest::Contains("at least 1 bin"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(size_named("medium"), doctest::Contains("small or large"), std::invalid_argument);
}

TEST_CASE("checksums: the reference's published values only for its default settings") {
  CHECK(published_checksum(size_named("small"), 17000000, grid_type::unionized) == 945990);
  CHECK(published_checksum(size_named("large"), 17000000, grid_type::unionized) == 952131);
  CHECK(published_checksum(size_named("large"), 1000000, grid_type::unionized) == 0);
  CHECK(published_checksum(size_named("large"), 17000000, grid_type::hash) == 0);
  CHECK(checksum_of(std::vector<int>{999983, 5}) == 5);
}

TEST_CASE("command line: sizes, grids, variants and bad input") {
  auto parse = [](std::vector<const char *> args) {
    args.insert(args.begin(), "xsbench");
    return parse_options(static_cast<int>(args.size()), const_cast<char **>(args.data()));
  };
  const options d = parse({});
  CHECK(d.size == "large");
  CHECK(d.lookups == 17000000);
  CHECK(d.variants.size() == 1);
  const options o = parse({"-s", "small", "-G", "hash", "-l", "1000", "--variant", "all", "-g", "100"});
  CHECK(o.size == "small");
  CHECK(o.grid == grid_type::hash);
  CHECK(o.lookups == 1000);
  CHECK(o.variants.size() == 4);
  CHECK(size_of(o).n_gridpoints == 100);
  CHECK(size_of(o).n_isotopes == 68);
  CHECK_THROWS_WITH_AS(parse({"-s", "medium"}), doctest::Contains("small or large"), usage_error);
  CHECK_THROWS_WITH_AS(parse({"-G", "nuclide"}), doctest::Contains("unionized or hash"), usage_error);
  CHECK_THROWS_WITH_AS(parse({"-l", "0"}), doctest::Contains("-l needs an integer"), usage_error);
  CHECK_THROWS_WITH_AS(parse({"-l", "12x"}), doctest::Contains("'12x'"), usage_error);
  CHECK_THROWS_WITH_AS(parse({"--variant", "fast"}), doctest::Contains("fused, split, sorted, energy or all"), usage_error);
  CHECK_THROWS_WITH_AS(parse({"--frobnicate"}), doctest::Contains("unknown option"), usage_error);
}
