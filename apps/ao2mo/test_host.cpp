// The AO->MO program's host logic without a GPU: the quarter steps' index maps against a direct
// four-index sum, the integrals' symmetry, the models, and the checks that refuse bad input.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "ao2mo.hpp"
#include "contraction.hpp"
#include "mp2.hpp"

using namespace ao2mo;

namespace {

// (pq|rs) by the definition, one element at a time: O(N^8), for tiny N only.
double direct_element(std::int64_t n, const std::vector<double>& eri, const std::vector<double>& c, std::int64_t p,
                      std::int64_t q, std::int64_t r, std::int64_t s) {
  double sum = 0;
  for (std::int64_t a = 0; a < n; ++a)
    for (std::int64_t b = 0; b < n; ++b)
      for (std::int64_t l = 0; l < n; ++l)
        for (std::int64_t g = 0; g < n; ++g)
          sum += c[a * n + p] * c[b * n + q] * c[l * n + r] * c[g * n + s] * eri[((a * n + b) * n + l) * n + g];
  return sum;
}

}  // namespace

TEST_CASE("the four quarter steps make the whole transformation, element by element") {
  const std::int64_t n = 5;
  const auto eri = random_integrals<double>(n, 7);
  const auto c = random_coefficients<double>(n, 8);
  const auto mo = reference_transform(n, eri, c);
  for (std::int64_t p = 0; p < n; ++p)
    for (std::int64_t q = 0; q < n; ++q)
      for (std::int64_t r = 0; r < n; ++r)
        for (std::int64_t s = 0; s < n; ++s)
          REQUIRE(mo[((p * n + q) * n + r) * n + s] == doctest::Approx(direct_element(n, eri, c, p, q, r, s)).epsilon(1e-12));
}

TEST_CASE("the fast reference and the kernels' descriptors run on the CPU agree") {
  const std::int64_t n = 7;
  const auto eri = random_integrals<float>(n, 21);
  const auto c = random_coefficients<float>(n, 22);
  const auto fast = reference_transform(n, eri, c);
  const auto by_descriptors = transform_by_descriptors(n, eri, c);
  REQUIRE(fast.size() == by_descriptors.size());
  for (std::size_t i = 0; i < fast.size(); ++i) REQUIRE(fast[i] == doctest::Approx(by_descriptors[i]).epsilon(1e-12));
  CHECK_THROWS_WITH_AS(reference_transform(n, eri, std::vector<float>(3)), doctest::Contains("N^2 coefficients"), std::invalid_argument);
}

TEST_CASE("a non-symmetric input is transformed too (the steps rely on no symmetry)") {
  const std::int64_t n = 4;
  std::vector<double> eri(pow4(n));
  for (std::size_t i = 0; i < eri.size(); ++i) eri[i] = std::sin(0.7 * static_cast<double>(i) + 0.3);
  const auto c = random_coefficients<double>(n, 3);
  const auto mo = reference_transform(n, eri, c);
  CHECK(mo[((1 * n + 2) * n + 3) * n + 0] == doctest::Approx(direct_element(n, eri, c, 1, 2, 3, 0)).epsilon(1e-12));
  CHECK(mo[((3 * n + 0) * n + 1) * n + 2] == doctest::Approx(direct_element(n, eri, c, 3, 0, 1, 2)).epsilon(1e-12));
}

TEST_CASE("random integrals have the 8-fold symmetry and are not trivial") {
  const std::int64_t n = 6;
  const auto eri = random_integrals<float>(n, 11);
  auto at = [&](std::int64_t a, std::int64_t b, std::int64_t c, std::int64_t d) { return eri[((a * n + b) * n + c) * n + d]; };
  std::size_t nonzero = 0;
  for (std::int64_t a = 0; a < n; ++a)
    for (std::int64_t b = 0; b < n; ++b)
      for (std::int64_t c = 0; c < n; ++c)
        for (std::int64_t d = 0; d < n; ++d) {
          const float v = at(a, b, c, d);
          nonzero += v != 0.0f;
          REQUIRE(v == at(b, a, c, d));
          REQUIRE(v == at(a, b, d, c));
          REQUIRE(v == at(c, d, a, b));
        }
  CHECK(nonzero > pow4(n) * 9 / 10);
  CHECK(random_integrals<float>(n, 11) == eri);  // seeded: the same problem every run
  CHECK(random_integrals<float>(n, 12) != eri);
}

TEST_CASE("contraction descriptors: flops, 32-bit limits") {
  const contraction q1 = quarter_step(1, 10);
  CHECK(q1.flops() == doctest::Approx(2.0 * 1e5));
  CHECK(transform_flops(10) == doctest::Approx(8e5));
  CHECK(unfused_bytes(10, 4) == doctest::Approx(2 * fused_bytes(10, 4)));
  CHECK_NOTHROW(quarter_step(4, 212));
  CHECK_THROWS_WITH_AS(quarter_step(4, 216), doctest::Contains("does not fit the kernel's 32-bit indexing"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(quarter_step(5, 8), doctest::Contains("the steps are 1 to 4"), std::invalid_argument);
}

TEST_CASE("max_relative_error: scale-relative, NaN (a poisoned element) is infinite") {
  const std::vector<double> want{1.0, 4.0};
  CHECK(max_relative_error(std::vector<float>{1.0f, 2.0f}, want) == doctest::Approx(0.5));
  CHECK(max_relative_error(std::vector<float>{1.0f, 2.0f}, std::vector<float>{1.0f, 4.0f}) == doctest::Approx(0.5));
  CHECK(max_relative_error(std::vector<double>{1.0, std::nan("")}, want) == std::numeric_limits<double>::infinity());
  CHECK_THROWS_AS(max_relative_error(std::vector<double>{1.0}, want), std::invalid_argument);
}

TEST_CASE("every quarter step is a batched GEMM giving the descriptor's result; the fast layouts are recognised") {
  for (std::int64_t n : {5, 16}) {
    const auto c = random_coefficients<double>(n, 31);
    const auto x = random_integrals<double>(n, 32);
    for (int step = 1; step <= 4; ++step) {
      const contraction q = quarter_step(step, n);
      const batched_gemm g = as_batched_gemm(q);
      CHECK(2.0 * static_cast<double>(g.batches * g.m * g.n * g.k) == doctest::Approx(q.flops()));
      const double* a = step == 1 ? x.data() : c.data();
      const double* b = step == 1 ? c.data() : x.data();
      std::vector<double> by_contract(pow4(n), -1.0), by_gemm(pow4(n), -2.0);
      contract_reference(q, a, b, by_contract.data());
      gemm_reference(g, a, b, by_gemm.data());
      REQUIRE(by_gemm == by_contract);  // same products in the same order: bit for bit, every element written
      // Step 1 reads a along k, steps 2-4 along m (C transposed); b and out along n.
      CHECK((step == 1 ? g.sa[2] : g.sa[1]) == 1);
      CHECK(g.fast_layout() == (n % 16 == 0));
    }
  }
  // Steps 2-4 reading C^T (the TF32 paths and the fused kernel): the same result from the transposed copy.
  const std::int64_t n = 6;
  const auto c = random_coefficients<double>(n, 33);
  const auto c_t = transposed(c, n);
  CHECK(c_t[1 * n + 4] == c[4 * n + 1]);
  CHECK_THROWS_WITH_AS(transposed(c, n + 1), doctest::Contains("needs N^2 elements"), std::invalid_argument);
  const auto x = random_integrals<double>(n, 34);
  for (int step = 2; step <= 4; ++step) {
    const batched_gemm g = as_batched_gemm(quarter_step(step, n)), gt = reading_coef_t(g);
    CHECK(gt.sa[2] == 1);
    std::vector<double> want(pow4(n), -1.0), got(pow4(n), -2.0);
    gemm_reference(g, c.data(), x.data(), want.data());
    gemm_reference(gt, c_t.data(), x.data(), got.data());
    REQUIRE(got == want);
  }
  const contraction general = {{3, 4}, {1, 5}, {1, 6}, {0, 1, 0, 1}, {0, 1, 0, 1}, {0, 1, 0, 1}};
  CHECK_THROWS_WITH_AS(as_batched_gemm(general), doctest::Contains("run this contraction with `contract`"), std::invalid_argument);
  batched_gemm odd = as_batched_gemm(quarter_step(2, 16));
  odd.sb[2] = 2;  // b not contiguous along n
  CHECK_FALSE(odd.fast_layout());
}

TEST_CASE("the cyclic layout: four identical K-major GEMMs rotate I[mu nu lam sig] into the row-major (pq|rs)") {
  // Integrals with no permutational symmetry: the rotation must not rely on any.
  for (std::int64_t n : {5, 16}) {
    std::vector<double> eri(pow4(n));
    for (std::size_t i = 0; i < eri.size(); ++i) eri[i] = hashed_uniform(41, i);
    const auto c = random_coefficients<double>(n, 42);
    const auto c_t = transposed(c, n);
    const batched_gemm g = cyclic_quarter_step(n);
    CHECK(g.k_major());
    CHECK(g.fast_layout() == (n % 16 == 0));
    std::vector<double> x = eri, y(pow4(n), -1.0);
    for (int step = 0; step < 4; ++step) {
      gemm_reference(g, c_t.data(), x.data(), y.data());
      x.swap(y);
    }
    // The descriptors' quarter steps, summed in the same order per step: equal to rounding.
    const auto want = transform_by_descriptors(n, eri, c);
    CHECK(max_relative_error(x, want) < 1e-13);
    // The transposed orientation (a = the tensor, b = C^T, out along m): the same products, bit for bit.
    const batched_gemm gt = cyclic_quarter_step_transposed(n);
    CHECK((gt.m == n * n * n && gt.n == n && gt.sa[2] == 1 && gt.sb[1] == 1 && gt.so[1] == 1 && gt.so[2] == n * n * n));
    std::vector<double> xt = eri;
    for (int step = 0; step < 4; ++step) {
      gemm_reference(gt, xt.data(), c_t.data(), y.data());
      xt.swap(y);
    }
    CHECK(xt == x);
    CHECK_FALSE(as_batched_gemm(quarter_step(2, n)).k_major());
  }
  CHECK_NOTHROW(cyclic_quarter_step(215));  // the last offset, 215^4 - 1, fits 32 bits; 216^4 - 1 does not
  CHECK_THROWS_WITH_AS(cyclic_quarter_step(216), doctest::Contains("does not fit the kernel's 32-bit indexing"), std::invalid_argument);
  CHECK_THROWS_AS(cyclic_quarter_step(0), std::invalid_argument);
  CHECK_THROWS_AS(cyclic_quarter_step(std::int64_t{1} << 40), std::invalid_argument);  // refused before N^3 is formed
}

TEST_CASE("round_to_tf32: to nearest with 10 mantissa bits, ties away from zero; Inf and NaN kept") {
  const float ulp = std::ldexp(1.0f, -10);  // TF32's spacing at 1
  CHECK(round_to_tf32(1.0f) == 1.0f);
  CHECK(round_to_tf32(1.0f + ulp / 4) == 1.0f);
  CHECK(round_to_tf32(1.0f + ulp / 2) == 1.0f + ulp);  // a tie goes away from zero (cvt.rna)
  CHECK(round_to_tf32(1.0f + 3 * ulp / 4) == 1.0f + ulp);
  CHECK(round_to_tf32(-(1.0f + 3 * ulp / 4)) == -(1.0f + ulp));
  CHECK(std::isinf(round_to_tf32(std::numeric_limits<float>::infinity())));
  CHECK(std::isnan(round_to_tf32(std::nanf(""))));
  std::uint32_t nan_bits = 0x7f800001u;  // a NaN whose payload sits in the dropped bits stays NaN
  float low_nan;
  std::memcpy(&low_nan, &nan_bits, sizeof low_nan);
  CHECK(std::isnan(round_to_tf32(low_nan)));
  const auto v = random_coefficients<float>(32, 7);
  const auto r = rounded_to_tf32(v);
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, &r[i], sizeof bits);
    REQUIRE((bits & 0x1fffu) == 0);                                       // a TF32 value
    REQUIRE(std::abs(r[i] - v[i]) <= std::ldexp(std::abs(v[i]), -11));  // within half a TF32 ulp
    REQUIRE(round_to_tf32(r[i]) == r[i]);                                 // idempotent
  }
}

TEST_CASE("MP2: the occupied/virtual steps as batched GEMMs give (ia|jb) of the full transformation; the energy by definition") {
  for (std::int64_t n : {7, 32}) {
    const std::int64_t o = default_occupied(n), v = n - o;
    CHECK(o == (n == 32 ? 16 : 1));
    const auto eri = random_integrals<float>(n, 5);
    const auto coef = random_coefficients<float>(n, 6);
    const mp2_problem p = make_mp2_problem(n, o, coef, 7);
    REQUIRE(p.v == v);
    CHECK(p.e_occ.back() < 0.0f);
    CHECK(p.e_vir.front() > 0.0f);
    CHECK(std::is_sorted(p.e_occ.begin(), p.e_occ.end()));
    // The four steps on the CPU through their descriptors (what the GPU kernels are given).
    const auto c_occ_t = transposed(p.c_occ, n, o), c_vir_t = transposed(p.c_vir, n, v);
    std::vector<double> x1(static_cast<std::size_t>(o * n * n * n)), x2(static_cast<std::size_t>(o * v * n * n)),
        x3(static_cast<std::size_t>(o * v * o * n)), ovov(static_cast<std::size_t>(o * v * o * v));
    const std::vector<double> occ_t(c_occ_t.begin(), c_occ_t.end()), vir_t(c_vir_t.begin(), c_vir_t.end()),
        vir(p.c_vir.begin(), p.c_vir.end()), ao(eri.begin(), eri.end());
    gemm_reference(mp2_step(1, n, o), occ_t.data(), ao.data(), x1.data());
    gemm_reference(mp2_step(2, n, o), vir_t.data(), x1.data(), x2.data());
    gemm_reference(mp2_step(3, n, o), occ_t.data(), x2.data(), x3.data());
    gemm_reference(mp2_step(4, n, o), x3.data(), vir.data(), ovov.data());
    const auto mo = reference_transform(n, eri, coef);
    double worst = 0, scale = 0;
    for (std::int64_t i = 0; i < o; ++i)
      for (std::int64_t a = 0; a < v; ++a)
        for (std::int64_t j = 0; j < o; ++j)
          for (std::int64_t b = 0; b < v; ++b) {
            const double want = mo[static_cast<std::size_t>(((i * n + o + a) * n + j) * n + o + b)];
            worst = std::max(worst, std::abs(ovov[static_cast<std::size_t>(((i * v + a) * o + j) * v + b)] - want));
            scale = std::max(scale, std::abs(want));
          }
    CHECK(scale > 0.01);
    CHECK(worst <= 1e-12 * scale);
    // The energy by its definition, element by element, against mp2_energy_from and mp2_reference.
    double e = 0;
    for (std::int64_t i = 0; i < o; ++i)
      for (std::int64_t j = 0; j < o; ++j)
        for (std::int64_t a = 0; a < v; ++a)
          for (std::int64_t b = 0; b < v; ++b) {
            auto at = [&](std::int64_t pp, std::int64_t q, std::int64_t r, std::int64_t s) {
              return mo[static_cast<std::size_t>(((pp * n + q) * n + r) * n + s)];
            };
            const double iajb = at(i, o + a, j, o + b), ibja = at(i, o + b, j, o + a);
            e += iajb * (2 * iajb - ibja) / (double(p.e_occ[i]) + p.e_occ[j] - p.e_vir[a] - p.e_vir[b]);
          }
    CHECK(e < 0.0);  // every denominator is negative and the direct term dominates for random data
    CHECK(mp2_energy_from(ovov, p) == doctest::Approx(e).epsilon(1e-12));
    CHECK(mp2_reference(eri, coef, p) == doctest::Approx(e).epsilon(1e-12));
    // The fast signatures apply where N and o are multiples of 16.
    for (int s = 1; s <= 4; ++s) CHECK(mp2_step(s, n, o).fast_layout() == (n == 32));
  }
  CHECK(default_occupied(64) == 16);
  CHECK(default_occupied(96) == 32);
  CHECK(default_occupied(160) == 48);
  CHECK(mp2_fused_bytes(64, 16, 4) == doctest::Approx(mp2_unfused_bytes(64, 16, 4) - 2.0 * 4 * 16 * 48 * 16 * 48));
  CHECK_THROWS_WITH_AS(make_mp2_problem(8, 8, random_coefficients<float>(8, 1), 1), doctest::Contains("need 1 <= o < N"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(default_occupied(1), doctest::Contains("use N >= 2"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(mp2_step(5, 8, 2), doctest::Contains("the steps are 1 to 4"), std::invalid_argument);
}

TEST_CASE("MP2 line check: a comparison that did not run says so, never \"ok\" (issue 31: N = 128 printed \"vs unfused: ok\")") {
  const double ref = -1.0, near = -1.0 + 1e-7, far = -1.1;
  // Neither the FP64 reference (N > --check-max) nor the fused kernel (N it does not cover): not checked.
  const mp2_verdict none = mp2_check(nullptr, near, nullptr, 1e-5);
  CHECK(none.status == "not checked");
  CHECK(none.pass);
  CHECK(none.text.find("not compared") != std::string::npos);
  CHECK(none.text.find("vs unfused") == std::string::npos);
  // A NaN unfused energy fails even with nothing to compare against.
  CHECK(mp2_check(nullptr, std::nan(""), nullptr, 1e-5).status == "FAILED");
  // Fused against unfused (no FP64 reference): compared, ok or FAILED.
  CHECK(mp2_check(nullptr, ref, &near, 1e-5).status == "ok");
  CHECK(mp2_check(nullptr, ref, &near, 1e-5).text.find("vs unfused: fused") != std::string::npos);
  CHECK(mp2_check(nullptr, ref, &far, 1e-5).status == "FAILED");
  const double nan = std::nan("");
  CHECK_FALSE(mp2_check(nullptr, ref, &nan, 1e-5).pass);
  // Against the FP64 reference: unfused, and fused where it ran.
  CHECK(mp2_check(&ref, near, nullptr, 1e-5).status == "ok");
  CHECK(mp2_check(&ref, far, nullptr, 1e-5).status == "FAILED");
  CHECK(mp2_check(&ref, near, &far, 1e-5).status == "FAILED");
  const mp2_verdict both = mp2_check(&ref, near, &near, 1e-5);
  CHECK(both.status == "ok");
  CHECK(both.text.find("unfused") != std::string::npos);
  CHECK(both.text.find("fused 1.0e-07") != std::string::npos);
}
