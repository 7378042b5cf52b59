// mp2.hpp — the closed-shell MP2 correlation energy from the AO integrals, host side: the problem
// (occupied and virtual blocks of C, orbital energies), the four quarter steps that produce the
// transformed integrals (ia|jb) as batched GEMMs, the FP64 CPU reference, and the FLOP and HBM-byte
// models of the unfused and fused paths (main.cpp --mp2, apps/ao2mo/bench).
//
//   E(2) = sum_{ij in occ, ab in vir} (ia|jb) [2 (ia|jb) - (ib|ja)] / (e_i + e_j - e_a - e_b)
//
// Layouts (row-major): C_occ[mu][i] (N x o), C_vir[mu][a] (N x v), o + v = N; the steps
//   1: X1[i, nu lam sig] = sum_mu  C_occ[mu, i] I[mu, nu lam sig]       M = o, N = N^3, K = N
//   2: X2[i][a, lam sig] = sum_nu  C_vir[nu, a] X1[i][nu, lam sig]      o batches, M = v, N = N^2
//   3: X3[ia][j, sig]    = sum_lam C_occ[lam, j] X2[ia][lam, sig]       o v batches, M = o, N = N
//   4: K[iaj, b]         = sum_sig X3[iaj, sig] C_vir[sig, b]           M = o v o, N = v
// so K[i, a, j, b] = (ia|jb). Steps 1-3 read C_occ^T and C_vir^T (contiguous along the contracted
// index: the kernels' fast signatures, kernels.toml), step 4 reads C_vir.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "ao2mo.hpp"
#include "contraction.hpp"

namespace ao2mo {

// The occupied count for N basis functions: about N/4 (a closed-shell molecule in a modest basis),
// a multiple of 16 where N is one and N >= 32 so that o and v = N - o keep the fast gemm signatures
// and the fused kernel applies (N = 32, 48, 64, 96, 128, 160 -> o = 16, 16, 16, 32, 32, 48).
inline std::int64_t default_occupied(std::int64_t n) {
  if (n < 2) throw std::invalid_argument("MP2: N = " + std::to_string(n) + " has no occupied and virtual orbitals; use N >= 2");
  if (n % 16 == 0 && n >= 32) return 16 * std::max<std::int64_t>(1, (n + 32) / 64);
  return n / 4 > 0 ? n / 4 : 1;
}

struct mp2_problem {
  std::int64_t n = 0, o = 0, v = 0;
  std::vector<float> c_occ, c_vir;  // N x o, N x v: the first o and the last v columns of C
  std::vector<float> e_occ, e_vir;  // sorted, e_i < 0 < e_a (hartree-like: -2..-0.3, 0.2..3)
};

// C's columns split into C_occ (the first o) and C_vir, with random orbital energies.
inline mp2_problem make_mp2_problem(std::int64_t n, std::int64_t o, const std::vector<float>& coef, std::uint64_t seed) {
  if (o < 1 || o >= n)
    throw std::invalid_argument("MP2: o = " + std::to_string(o) + " occupied orbitals of N = " + std::to_string(n) + "; need 1 <= o < N");
  if (coef.size() != static_cast<std::size_t>(n * n)) throw std::invalid_argument("MP2: C needs N^2 elements");
  mp2_problem p{n, o, n - o, {}, {}, {}, {}};
  for (std::int64_t mu = 0; mu < n; ++mu)
    for (std::int64_t q = 0; q < n; ++q) (q < o ? p.c_occ : p.c_vir).push_back(coef[static_cast<std::size_t>(mu * n + q)]);
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> occ(-2.0, -0.3), vir(0.2, 3.0);
  for (std::int64_t i = 0; i < o; ++i) p.e_occ.push_back(static_cast<float>(occ(gen)));
  for (std::int64_t a = 0; a < p.v; ++a) p.e_vir.push_back(static_cast<float>(vir(gen)));
  std::sort(p.e_occ.begin(), p.e_occ.end());
  std::sort(p.e_vir.begin(), p.e_vir.end());
  return p;
}

// Row-major transpose of a rows x cols matrix.
template <class T>
std::vector<T> transposed(const std::vector<T>& m, std::int64_t rows, std::int64_t cols) {
  if (m.size() != static_cast<std::size_t>(rows * cols)) throw std::invalid_argument("transposed: size is not rows x cols");
  std::vector<T> t(m.size());
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) t[static_cast<std::size_t>(c * rows + r)] = m[static_cast<std::size_t>(r * cols + c)];
  return t;
}

// Step `step` (1..4, the header's table) as a batched GEMM: a = C_occ^T / C_vir^T (o x N, v x N)
// for steps 1-3, a = X3 and b = C_vir for step 4.
inline batched_gemm mp2_step(int step, std::int64_t n, std::int64_t o) {
  const std::int64_t v = n - o, n2 = n * n, n3 = n2 * n;
  batched_gemm g;
  switch (step) {
    case 1: g = {1, o, n3, n, {0, n, 1}, {0, n3, 1}, {0, n3, 1}}; break;
    case 2: g = {o, v, n2, n, {0, n, 1}, {n3, n2, 1}, {v * n2, n2, 1}}; break;
    case 3: g = {o * v, o, n, n, {0, n, 1}, {n2, n, 1}, {o * n, n, 1}}; break;
    case 4: g = {1, o * v * o, v, n, {0, n, 1}, {0, v, 1}, {0, v, 1}}; break;
    default: throw std::invalid_argument("mp2_step: step " + std::to_string(step) + " (the steps are 1 to 4)");
  }
  return g;
}

// E(2) from K[i, a, j, b] = (ia|jb) in FP64 (the CPU side of every path's check).
template <class K>
double mp2_energy_from(const K& ovov, const mp2_problem& p) {
  const std::int64_t o = p.o, v = p.v;
  double e = 0;
  for (std::int64_t i = 0; i < o; ++i)
    for (std::int64_t j = 0; j < o; ++j)
      for (std::int64_t a = 0; a < v; ++a)
        for (std::int64_t b = 0; b < v; ++b) {
          const double k = ovov[static_cast<std::size_t>(((i * v + a) * o + j) * v + b)];
          const double x = ovov[static_cast<std::size_t>(((i * v + b) * o + j) * v + a)];
          const double d = double(p.e_occ[i]) + p.e_occ[j] - p.e_vir[a] - p.e_vir[b];
          e += k * (2 * k - x) / d;
        }
  return e;
}

// The FP64 reference: the whole (pq|rs) by reference_transform with C = [C_occ | C_vir], (ia|jb)
// picked from it (mp2_energy_from_transformed, for a caller that has (pq|rs)), then the energy.
// O(N^5): small N only.
inline double mp2_energy_from_transformed(const std::vector<double>& mo, const mp2_problem& p) {
  const std::int64_t n = p.n, o = p.o, v = p.v;
  std::vector<double> ovov(static_cast<std::size_t>(o * v * o * v));
  for (std::int64_t i = 0; i < o; ++i)
    for (std::int64_t a = 0; a < v; ++a)
      for (std::int64_t j = 0; j < o; ++j)
        for (std::int64_t b = 0; b < v; ++b)
          ovov[static_cast<std::size_t>(((i * v + a) * o + j) * v + b)] = mo[static_cast<std::size_t>(((i * n + o + a) * n + j) * n + o + b)];
  return mp2_energy_from(ovov, p);
}
inline double mp2_reference(const std::vector<float>& eri, const std::vector<float>& coef, const mp2_problem& p) {
  return mp2_energy_from_transformed(reference_transform(p.n, eri, coef), p);
}

// Useful flops: the four steps (2 N^4 o + 2 N^3 o v + 2 N^2 o^2 v + 2 N o^2 v^2) and the energy
// (about 5 per (ia|jb): the exchange term, the denominator, the division, the sum).
inline double mp2_flops(std::int64_t n, std::int64_t o) {
  const double N = static_cast<double>(n), O = static_cast<double>(o), V = static_cast<double>(n - o);
  return 2 * N * N * N * N * O + 2 * N * N * N * O * V + 2 * N * N * O * O * V + 2 * N * O * O * V * V + 5 * O * O * V * V;
}

// Modelled HBM bytes, each tensor written once and read once per pass (C, orbital energies and
// re-reads through L2 not counted): I, X1, X2, X3 written and read; unfused also writes (ia|jb)
// and reads it back (the exchange term's transposed read hits the same pair block in L2); fused
// never writes it: 2 o^2 v^2 elements less.
inline double mp2_unfused_bytes(std::int64_t n, std::int64_t o, std::size_t elem) {
  const double N = static_cast<double>(n), O = static_cast<double>(o), V = static_cast<double>(n - o);
  return static_cast<double>(elem) * (N * N * N * N + 2 * (O * N * N * N + O * V * N * N + O * V * O * N + O * V * O * V));
}
inline double mp2_fused_bytes(std::int64_t n, std::int64_t o, std::size_t elem) {
  const double O = static_cast<double>(o), V = static_cast<double>(n - o);
  return mp2_unfused_bytes(n, o, elem) - 2.0 * static_cast<double>(elem) * O * V * O * V;
}

// The check on one MP2 line of the example (main.cpp): against the FP64 CPU energy where there is
// one (N <= --check-max), else the fused energy against the unfused one, where the fused kernel
// ran. Where neither comparison ran, the line says so and its status is "not checked", never "ok"
// (a NaN unfused energy still fails). `reference` / `fused`: nullptr where absent.
struct mp2_verdict {
  std::string text;    // what was compared, with the errors and the limit
  std::string status;  // "ok", "FAILED" or "not checked"
  bool pass;           // false only where a comparison that ran failed (or the energy is NaN)
};

inline mp2_verdict mp2_check(const double* reference, double unfused, const double* fused, double limit) {
  char buf[200];
  if (!std::isfinite(unfused)) return {"unfused energy is not finite", "FAILED", false};
  if (!reference && !fused)
    return {"not compared (no FP64 reference above --check-max, and the fused kernel did not run)", "not checked", true};
  const double ref = reference ? *reference : unfused;
  auto rel = [&](double e) { return std::abs(e - ref) / std::abs(ref); };  // NaN fails below
  bool pass = true;
  std::string text;
  if (reference) {
    std::snprintf(buf, sizeof buf, "vs FP64 CPU (%.10e): unfused %.1e", *reference, rel(unfused));
    text = buf;
    pass = rel(unfused) <= limit;
  } else {
    text = "vs unfused:";
  }
  if (fused) {
    std::snprintf(buf, sizeof buf, "%s fused %.1e", reference ? "," : "", rel(*fused));
    text += buf;
    pass = pass && rel(*fused) <= limit;
  }
  std::snprintf(buf, sizeof buf, " (limit %.0e)", limit);
  return {text + buf, pass ? "ok" : "FAILED", pass};
}

}  // namespace ao2mo
