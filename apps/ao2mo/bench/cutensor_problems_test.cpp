// cutensor_problems_test.cpp — the contractions the bench hands cuTENSOR (cutensor_problems.hpp),
// on the CPU, no GPU, no cuTENSOR: every element of each chain through reference_contract (the
// modes, extents and strides exactly as cuTENSOR gets them) against the app's own references —
// both AO->MO step orders against reference_transform, the MP2 steps against mp2_reference, each
// TCCG case against its direct descriptor (small, distinct extents), the ladder against a plain
// triple loop — and the flop counts against the app's. Also what cutensor_loader.hpp does without
// the library: it reports absence (no throw, no crash) with a message naming what it tried; and
// --cutensor-tuning's parsing (bad values refused with the option's name).
//
//   tensor4_cutensor_problems_test   (exit 0: all pass)
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "ao2mo.hpp"
#include "cutensor_loader.hpp"
#include "cutensor_problems.hpp"
#include "mp2.hpp"

namespace cutensor_problems_test {

int failures = 0;

void expect(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  failures += !ok;
}

// D of p in memory order (every element), through reference_contract.
template <class TA, class TB>
std::vector<double> full(const tensor4::mode_contraction& p, const std::vector<TA>& a,
                         const std::vector<TB>& b) {
  std::vector<std::int64_t> flat(static_cast<std::size_t>(tensor4::dense_count(p.d)));
  std::iota(flat.begin(), flat.end(), 0);
  std::vector<std::int64_t> off;
  const auto v = tensor4::reference_contract(p, a, b, flat, &off);
  std::vector<double> d(static_cast<std::size_t>(p.d.elements()), std::nan(""));
  for (std::size_t i = 0; i < v.size(); ++i) d[static_cast<std::size_t>(off[i])] = v[i];
  return d;
}

double max_diff(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) return INFINITY;
  double m = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    m = std::max(m, std::isnan(x[i]) ? INFINITY : std::abs(x[i] - y[i]));
  return m;
}

void ao2mo_chains() {
  const std::int64_t n = 5;
  // Not the integrals' 8-fold symmetry (random_integrals): with it, a step that swaps two MO
  // indices of a pair gives the same result and would go unseen.
  std::vector<double> eri(ao2mo::pow4(n));
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& v : eri) v = u(gen);
  const auto coef = ao2mo::random_coefficients<double>(n, 12);
  const auto want = ao2mo::reference_transform(n, eri, coef);
  for (auto order : {tensor4::step_order::batched, tensor4::step_order::cyclic}) {
    std::vector<double> x = eri;
    double flops = 0;
    for (const auto& step : tensor4::ao2mo_steps(n, order)) {
      x = full(step, coef, x);  // every step: A = C, B = the previous tensor
      flops += step.flops();
    }
    const char* name = order == tensor4::step_order::batched ? "batched" : "cyclic";
    expect(max_diff(x, want) < 1e-12,
           std::string("AO->MO ") + name + " steps chain to reference_transform");
    expect(flops == ao2mo::transform_flops(n),
           std::string("AO->MO ") + name + " flops = transform_flops");
  }
}

void mp2_chain() {
  const std::int64_t n = 7, o = 3;
  std::vector<float> eri(ao2mo::pow4(n));  // no symmetry, as above
  std::mt19937_64 gen(21);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto& v : eri) v = u(gen);
  const auto coef = ao2mo::random_coefficients<float>(n, 22);
  const auto prob = ao2mo::make_mp2_problem(n, o, coef, 23);
  const auto steps = tensor4::mp2_steps(n, o, prob.v);
  const std::vector<float> c_occ_t = ao2mo::transposed(prob.c_occ, n, o),
                           c_vir_t = ao2mo::transposed(prob.c_vir, n, prob.v);
  auto x1 = full(steps[0], c_occ_t, eri);
  auto x2 = full(steps[1], c_vir_t, x1);
  auto x3 = full(steps[2], c_occ_t, x2);
  auto ovov = full(steps[3], x3, prob.c_vir);
  const double e = ao2mo::mp2_energy_from(ovov, prob), want = ao2mo::mp2_reference(eri, coef, prob);
  expect(std::abs(e - want) <= 1e-10 * std::abs(want), "MP2 steps + energy = mp2_reference");
}

void tccg() {
  for (const auto& c : tensor4::tccg_cases(true)) {
    const auto p = tensor4::tccg_problem(c);
    std::mt19937_64 gen(5);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> a(c.a.count()), b(c.b.count());
    for (auto& x : a) x = u(gen);
    for (auto& x : b) x = u(gen);
    const auto& d = c.direct;
    std::vector<double> want(c.out.count(), std::nan(""));
    for (std::int64_t m1 = 0; m1 < d.m.outer; ++m1)
      for (std::int64_t m2 = 0; m2 < d.m.inner; ++m2)
        for (std::int64_t n1 = 0; n1 < d.n.outer; ++n1)
          for (std::int64_t n2 = 0; n2 < d.n.inner; ++n2) {
            double s = 0;
            for (std::int64_t k1 = 0; k1 < d.k.outer; ++k1)
              for (std::int64_t k2 = 0; k2 < d.k.inner; ++k2)
                s += a[static_cast<std::size_t>(m1 * d.sa[0] + m2 * d.sa[1] + k1 * d.sa[2] +
                                                k2 * d.sa[3])] *
                     b[static_cast<std::size_t>(k1 * d.sb[0] + k2 * d.sb[1] + n1 * d.sb[2] +
                                                n2 * d.sb[3])];
            want[static_cast<std::size_t>(m1 * d.so[0] + m2 * d.so[1] + n1 * d.so[2] +
                                          n2 * d.so[3])] = s;
          }
    expect(max_diff(full(p, a, b), want) < 1e-12, c.name + ": modes = the direct descriptor");
    expect(p.flops() == d.flops(), c.name + ": flops = the direct descriptor's");
    expect(p.a.elements() == static_cast<std::int64_t>(c.a.count()) &&
               p.d.elements() == static_cast<std::int64_t>(c.out.count()),
           c.name + ": A and D span their tensors");
  }
}

void ladder() {
  const std::int64_t o = 2, v = 3, M = o * o, N = v * v;
  const auto p = tensor4::ladder_problem(o, v);
  std::vector<double> w(static_cast<std::size_t>(M * M)), t(static_cast<std::size_t>(M * N)),
      want(static_cast<std::size_t>(M * N), 0);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = 0.25 * static_cast<double>(i % 7) - 0.5;
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = 0.125 * static_cast<double>(i % 5) + 0.1;
  for (std::int64_t i = 0; i < M; ++i)
    for (std::int64_t k = 0; k < M; ++k)
      for (std::int64_t a = 0; a < N; ++a)
        want[static_cast<std::size_t>(i * N + a)] +=
            w[static_cast<std::size_t>(i * M + k)] * t[static_cast<std::size_t>(k * N + a)];
  expect(max_diff(full(p, w, t), want) < 1e-12, "ladder: X = W . T");
}

void loader_without_library() {
  tensor4::cutensor ct("/nonexistent/libcutensor.so.2");
  expect(!ct.available(), "cuTENSOR at a missing path: not available");
  const std::string why = ct.why_absent();
  expect(why.find("/nonexistent/libcutensor.so.2") != std::string::npos &&
             why.find("TENSOR4_CUTENSOR") != std::string::npos,
         "the message names the path tried and how to give another (" + why.substr(0, 60) + "...)");
  bool threw = false;
  try {
    ct.plan(tensor4::ladder_problem(2, 2), tensor4::cutensor_precision::fp32, {});
  } catch (const std::runtime_error& e) {
    threw = std::string(e.what()).find("cuTENSOR") != std::string::npos;
  }
  expect(threw, "a plan without the library: a clear error, not a crash");
}

void tunings() {
  const auto t = tensor4::parse_tunings("heuristic,patient,autotune4,heuristic+jit");
  std::string labels;
  for (const auto& x : t) labels += x.label() + " ";
  expect(labels == "heuristic patient autotune4 heuristic+jit ",
         "--cutensor-tuning parsed: " + labels);
  expect(t.size() == 4 && t[2].how == tensor4::cutensor_tuning::kind::incremental &&
             t[2].incremental_count == 4 && t[3].jit,
         "autotune4: incremental autotuning over 4 kernels; +jit sets JIT");
  for (const char* bad : {"autotune0", "autotune65", "autotune99999999999999999999", "autotune",
                          "fast", "", "heuristic+jitx"}) {
    std::string what;
    try {
      tensor4::parse_tunings(bad);
    } catch (const std::invalid_argument& e) {
      what = e.what();
    }
    expect(what.find("--cutensor-tuning") != std::string::npos,
           std::string("'") + bad + "' refused: " + what);
  }
}

}  // namespace cutensor_problems_test

int main() {
  using namespace cutensor_problems_test;
  ao2mo_chains();
  mp2_chain();
  tccg();
  ladder();
  loader_without_library();
  tunings();
  std::printf("%s\n", failures ? "FAILED" : "all passed");
  return failures ? 1 : 0;
}
