// ao2mo.hpp — the AO->MO integral transformation's host side: the problem (random two-electron
// integrals with the 8-fold permutational symmetry of real orbitals, random MO coefficients), the
// four quarter steps as contractions (contraction.hpp), the FP64 CPU reference, and the FLOP and
// HBM-byte models the program and apps/ao2mo/bench report.
//
//   (pq|rs) = sum_{mu nu lam sig} C[mu,p] C[nu,q] C[lam,r] C[sig,s] (mu nu|lam sig)
//
// Layouts (row-major): I[mu][nu][lam][sig] (N^4), C[mu][p] (AO rows, MO columns), result
// (pq|rs) as MO[p][q][r][s].
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "contraction.hpp"

namespace ao2mo {

inline std::size_t pow4(std::int64_t n) { return static_cast<std::size_t>(n) * n * n * n; }

// A uniform value in [-1, 1) that depends only on (seed, key): splitmix64's finaliser.
inline double hashed_uniform(std::uint64_t seed, std::uint64_t key) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ull * (key + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

// Random (mu nu|lam sig) with (mu nu|lam sig) = (nu mu|lam sig) = (mu nu|sig lam) = (lam sig|mu nu)
// (and so all 8 permutations), as integrals over real orbitals have: each element is a hash of
// its canonical index (the pairs ordered within and between), so the tensor is written in order
// (N = 160, 655 M elements, in seconds), times a decay with |mu - nu| and |lam - sig| like
// overlap-dominated integrals.
template <class T>
std::vector<T> random_integrals(std::int64_t n, std::uint64_t seed) {
  std::vector<T> eri(pow4(n));
  auto pair = [](std::int64_t a, std::int64_t b) { return a >= b ? a * (a + 1) / 2 + b : b * (b + 1) / 2 + a; };
  std::size_t i = 0;
  for (std::int64_t mu = 0; mu < n; ++mu)
    for (std::int64_t nu = 0; nu < n; ++nu) {
      const std::int64_t bra = pair(mu, nu);
      for (std::int64_t lam = 0; lam < n; ++lam)
        for (std::int64_t sig = 0; sig < n; ++sig, ++i) {
          const std::int64_t ket = pair(lam, sig);
          const auto key = static_cast<std::uint64_t>(bra >= ket ? bra * (bra + 1) / 2 + ket : ket * (ket + 1) / 2 + bra);
          const double decay = 1.0 / (1.0 + 0.1 * static_cast<double>(std::abs(mu - nu) + std::abs(lam - sig)));
          eri[i] = static_cast<T>(hashed_uniform(seed, key) * decay);
        }
    }
  return eri;
}

// Random MO coefficients C[mu][p] in [-1, 1) / sqrt(N) (columns of about unit norm, like an
// orthonormal basis's, so the transformed integrals stay of the input's order).
template <class T>
std::vector<T> random_coefficients(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<T> c(static_cast<std::size_t>(n * n));
  const double scale = 1.0 / std::sqrt(static_cast<double>(n));
  for (auto& x : c) x = static_cast<T>(uniform(gen) * scale);
  return c;
}

// x rounded to the nearest TF32 value (10-bit mantissa, ties away from zero: cvt.rna.tf32.f32, what
// cuBLAS does to its TF32 inputs), kept as a float. Triton's TF32 dot truncates its fp32 operands
// instead (the tensor cores read their top 19 bits); inputs rounded first are exact in TF32, so the
// truncation never happens and the result carries no bias (kernels.py rounds the intermediates).
inline float round_to_tf32(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  if ((bits & 0x7f800000u) != 0x7f800000u) bits = (bits + 0x1000u) & 0xffffe000u;  // Inf and NaN as they are
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

inline std::vector<float> rounded_to_tf32(std::vector<float> v) {
  for (float& x : v) x = round_to_tf32(x);
  return v;
}

// C^T of an N x N matrix (row-major in, row-major out): the GPU kernels read C along the index
// they contract, which for the r (and p, q) steps is C's row index (triton_ao2mo.hpp).
template <class T>
std::vector<T> transposed(const std::vector<T>& c, std::int64_t n) {
  if (c.size() != static_cast<std::size_t>(n * n)) throw std::invalid_argument("transposed: N = " + std::to_string(n) + " needs N^2 elements");
  std::vector<T> t(c.size());
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) t[static_cast<std::size_t>(j * n + i)] = c[static_cast<std::size_t>(i * n + j)];
  return t;
}

// Quarter step `step` (1..4) as a contraction: out = transform of `in` over one AO index with C.
//   1: T1[mu nu lam, s] = sum_sig I[mu nu lam, sig] C[sig, s]           one GEMM, M = N^3
//   2: T2[mu nu][r, s]  = sum_lam C[lam, r] T1[mu nu][lam, s]           batch mu nu folded into columns
//   3: T3[mu][q, rs]    = sum_nu C[nu, q] T2[mu][nu, rs]                batch mu folded into columns
//   4: MO[p, qrs]       = sum_mu C[mu, p] T3[mu, qrs]                   one GEMM, N = N^3
// Steps 1 has a = the tensor, b = C; steps 2-4 have a = C (read transposed: stride 1 along r),
// b = the tensor. Every step writes its result in the row-major layout of the next one's input.
inline contraction quarter_step(int step, std::int64_t n) {
  const std::int64_t n2 = n * n, n3 = n2 * n;
  contraction c;
  switch (step) {
    case 1:
      c = {{1, n3}, {1, n}, {1, n}, {0, n, 0, 1}, {0, n, 0, 1}, {0, n, 0, 1}};
      break;
    case 2:
      c = {{1, n}, {n2, n}, {1, n}, {0, 1, 0, n}, {0, n, n2, 1}, {0, n, n2, 1}};
      break;
    case 3:
      c = {{1, n}, {n, n2}, {1, n}, {0, 1, 0, n}, {0, n2, n3, 1}, {0, n2, n3, 1}};
      break;
    case 4:
      c = {{1, n}, {1, n3}, {1, n}, {0, 1, 0, n}, {0, n3, 0, 1}, {0, n3, 0, 1}};
      break;
    default:
      throw std::invalid_argument("quarter_step: step " + std::to_string(step) + " (the steps are 1 to 4)");
  }
  c.check_fits_int32("quarter step " + std::to_string(step) + " at N = " + std::to_string(n));
  return c;
}

// The quarter step of the cyclic layout: every step the same GEMM with both operands K-major,
//
//   out[x, rest] = sum_k C^T[x, k] in[rest, k]     M = N, N = N^3, K = N (one batch),
//
// contracting the input's last (contiguous) index and putting the new MO index first, so that the
// next AO index to contract is now the last one:
//   I[mu nu lam, sig] -> T1[s, mu nu lam] -> T2[r, s mu nu] -> T3[q, r s mu] -> MO[p, q r s],
// four rotations that end in the row-major (pq|rs) with no symmetry of the integrals used. a = C^T
// (coef_t) and the tensor are both read along k: what TF32 wgmma needs of fp32 operands, and what
// the batched steps above cannot give (their tensor operand runs along n).
inline batched_gemm cyclic_quarter_step(std::int64_t n) {
  // The last output element's offset, N^4 - 1, must fit 32 bits: 215^4 - 1 does, 216^4 - 1 does not.
  if (n < 1 || n > 215)
    throw std::invalid_argument("cyclic_quarter_step: N = " + std::to_string(n) + " does not fit the kernel's 32-bit indexing; use a smaller problem");
  const std::int64_t n3 = n * n * n;
  batched_gemm g;
  g.batches = 1, g.m = n, g.n = n3, g.k = n;
  const std::int64_t sa[3] = {0, n, 1}, sb[3] = {0, 1, n}, so[3] = {0, n3, 1};
  std::copy(sa, sa + 3, g.sa), std::copy(sb, sb + 3, g.sb), std::copy(so, so + 3, g.so);
  return g;
}

// The cyclic step with rows and columns swapped: out^T[rest, x] = sum_k in[rest, k] C^T[x, k], M = N^3,
// N = N, K = N, out written along m (its layout unchanged: out[x, rest]). a = the tensor, b = C^T, both
// still along k. The MO index is now the GEMM's column, tiled by 32 with no idle rows where N = 96 or
// 160, which the M = N orientation pads to 64- or 128-row tiles (apps/ao2mo/bench: gemm_tf32_tuned's
// out-along-m signature; the example's kernels.toml does not compile it).
inline batched_gemm cyclic_quarter_step_transposed(std::int64_t n) {
  batched_gemm g = cyclic_quarter_step(n);
  std::swap(g.m, g.n);
  const std::int64_t sa[3] = {0, n, 1}, sb[3] = {0, 1, n}, so[3] = {0, 1, g.m};  // a[rest, k], b[k, x] = C^T[x, k], out[rest, x]
  std::copy(sa, sa + 3, g.sa), std::copy(sb, sb + 3, g.sb), std::copy(so, so + 3, g.so);
  return g;
}

// The four quarter steps on the CPU in FP64 through the descriptors above (contract_reference):
// what the GPU kernels are given, run on the CPU. Slow (strided); the tests use it at small N to
// pin the descriptors and reference_transform.
template <class T>
std::vector<double> transform_by_descriptors(std::int64_t n, const std::vector<T>& eri, const std::vector<T>& coef) {
  std::vector<double> c(coef.begin(), coef.end()), cur(eri.begin(), eri.end()), next(pow4(n));
  for (int step = 1; step <= 4; ++step) {
    const contraction q = quarter_step(step, n);
    if (step == 1)
      contract_reference(q, cur.data(), c.data(), next.data());
    else
      contract_reference(q, c.data(), cur.data(), next.data());
    cur.swap(next);
  }
  return cur;
}

// The FP64 reference the programs check against: the same four quarter steps with loops ordered
// for the cache (unit-stride inner loops, column tiles that stay in cache): N = 64 in a few seconds.
template <class T>
std::vector<double> reference_transform(std::int64_t n, const std::vector<T>& eri, const std::vector<T>& coef) {
  const std::size_t N = static_cast<std::size_t>(n), total = pow4(n);
  if (eri.size() != total || coef.size() != N * N)
    throw std::invalid_argument("reference_transform: N = " + std::to_string(n) + " needs N^4 integrals and N^2 coefficients");
  std::vector<double> c(coef.begin(), coef.end()), a(total, 0.0), b(total);
  // Step 1: T1[row, s] = sum_sig I[row, sig] C[sig, s] for the N^3 rows (mu nu lam).
  for (std::size_t row = 0; row < N * N * N; ++row) {
    double* out = &a[row * N];
    for (std::size_t sig = 0; sig < N; ++sig) {
      const double v = static_cast<double>(eri[row * N + sig]);
      for (std::size_t s = 0; s < N; ++s) out[s] += v * c[sig * N + s];
    }
  }
  // Steps 2-4: out[batch][r][x] = sum_k C[k, r] in[batch][k][x], x over `width` columns.
  auto step = [&](const std::vector<double>& in, std::vector<double>& out, std::size_t batches, std::size_t width) {
    const std::size_t tile = 512;
    for (std::size_t bt = 0; bt < batches; ++bt)
      for (std::size_t x0 = 0; x0 < width; x0 += tile) {
        const std::size_t len = std::min(tile, width - x0);
        for (std::size_t r = 0; r < N; ++r) {
          double* o = &out[(bt * N + r) * width + x0];
          std::fill(o, o + len, 0.0);
          for (std::size_t k = 0; k < N; ++k) {
            const double ck = c[k * N + r];
            const double* i = &in[(bt * N + k) * width + x0];
            for (std::size_t j = 0; j < len; ++j) o[j] += ck * i[j];
          }
        }
      }
  };
  step(a, b, N * N, N);
  step(b, a, N, N * N);
  step(a, b, 1, N * N * N);
  return b;
}

// Useful floating-point operations of the whole transformation: four quarter steps of 2 N^5.
inline double transform_flops(std::int64_t n) { return 4.0 * 2.0 * static_cast<double>(pow4(n)) * static_cast<double>(n); }

// Modelled HBM traffic (bytes) with each N^4 tensor read or written once per pass (C and the
// tiles re-read through L2 not counted): unfused, four passes each reading and writing one N^4
// tensor (8 N^4 elements); fused, two passes (4 N^4): the quarter-transformed tensors T1 and T3
// never leave the chip.
inline double unfused_bytes(std::int64_t n, std::size_t elem) { return 8.0 * static_cast<double>(pow4(n)) * static_cast<double>(elem); }
inline double fused_bytes(std::int64_t n, std::size_t elem) { return 4.0 * static_cast<double>(pow4(n)) * static_cast<double>(elem); }

}  // namespace ao2mo
