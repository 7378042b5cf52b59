// triton_ao2mo.hpp — the AO->MO transformation on the GPU through the typed functions tritonpack
// generates from kernels.toml (ao2mo_kernels.hpp): a quarter step (any `contraction`) and the
// fused transformation (two half_transform launches; and pair_transform's, the second design, which
// apps/ao2mo/bench compiles). apps/ao2mo/bench times these same calls.
#pragma once

#ifdef AO2MO_KERNELS_HEADER
#include AO2MO_KERNELS_HEADER
#else
#include <ao2mo_kernels.hpp>
#endif

#include <cstdint>
#include <stdexcept>
#include <string>
#include <tritonpack/tritonpack.hpp>
#include <type_traits>
#include <utility>
#include <vector>

#include "ao2mo.hpp"
#include "contraction.hpp"

namespace ao2mo {

// The dot product's arithmetic: true FP32 products (input_precision = "ieee"), TF32 tensor-core
// products with FP32 sums, or FP64.
enum class precision { fp32, tf32, fp64 };

inline const char* name_of(precision p) { return p == precision::fp32 ? "fp32" : p == precision::tf32 ? "tf32" : "fp64"; }

template <class T>
void check_element_type(precision p) {
  if ((p == precision::fp64) != std::is_same<T, double>::value)
    throw std::invalid_argument(std::string("ao2mo: precision ") + name_of(p) + " needs " +
                                (p == precision::fp64 ? "double" : "float") + " data");
}

// Input data as the precision's products take it: rounded to TF32 for TF32 (round_to_tf32: exact
// in TF32, so Triton's truncating tensor-core dot sees the values cuBLAS's rounding would give),
// as given otherwise. The reference keeps the exact inputs: the rounding is part of TF32's error.
template <class T>
std::vector<T> inputs_for(precision p, std::vector<T> v) {
  if constexpr (std::is_same<T, float>::value)
    if (p == precision::tf32) return rounded_to_tf32(std::move(v));
  return v;
}

inline std::int32_t i32(std::int64_t v) { return static_cast<std::int32_t>(v); }  // contraction::check_fits_int32 checked

// Launches a generated `contract` function (any compiled configuration: they share one
// signature) for contraction c, queued on `stream`: the general path (apps/ao2mo/bench's TCCG cases).
template <class Fn, class T>
void launch_contract(Fn fn, const contraction& c, const T* a, const T* b, T* out, tritonpack::stream_t stream) {
  c.check_fits_int32("ao2mo::contract");
  fn(a, b, out, i32(c.m.outer), i32(c.m.inner), i32(c.n.outer), i32(c.n.inner), i32(c.k.outer), i32(c.k.inner),
     i32(c.sa[0]), i32(c.sa[1]), i32(c.sa[2]), i32(c.sa[3]), i32(c.sb[0]), i32(c.sb[1]), i32(c.sb[2]), i32(c.sb[3]),
     i32(c.so[0]), i32(c.so[1]), i32(c.so[2]), i32(c.so[3]), stream);
}

// Launches a generated `gemm` function for g, queued on `stream`. The function picks its variant
// from the values (kernels.toml): contiguous and multiples of 16 (fast_layout) or the general one.
// `what` names the caller in the error of a problem too large for 32-bit indexing.
template <class Fn, class T>
void launch_gemm(Fn fn, const batched_gemm& g, const T* a, const T* b, T* out, tritonpack::stream_t stream,
                 const std::string& what = "ao2mo::gemm") {
  // The kernel's 32-bit offsets: the largest element each tensor's strides reach must fit.
  auto reach = [](const std::int64_t (&s)[3], std::int64_t e0, std::int64_t e1, std::int64_t e2) {
    return (e0 - 1) * s[0] + (e1 - 1) * s[1] + (e2 - 1) * s[2];
  };
  for (std::int64_t v : {g.batches, g.m, g.n, g.k, reach(g.sa, g.batches, g.m, g.k), reach(g.sb, g.batches, g.k, g.n),
                         reach(g.so, g.batches, g.m, g.n)})
    if (v < 0 || v > 0x7fffffff)
      throw std::invalid_argument(what + ": an extent or offset (" + std::to_string(v) +
                                  ") does not fit the kernel's 32-bit indexing; use a smaller problem");
  fn(a, b, out, i32(g.m), i32(g.n), i32(g.k), i32(g.batches), i32(g.sa[0]), i32(g.sa[1]), i32(g.sa[2]), i32(g.sb[0]),
     i32(g.sb[1]), i32(g.sb[2]), i32(g.so[0]), i32(g.so[1]), i32(g.so[2]), stream);
}

// out = a . b as a batched GEMM (kernels.py's `gemm`, the example library's configuration) in
// precision p, queued on `stream`.
template <class T>
void gemm(precision p, const batched_gemm& g, const T* a, const T* b, T* out, tritonpack::stream_t stream = nullptr) {
  check_element_type<T>(p);
  if constexpr (std::is_same<T, double>::value)
    launch_gemm(&ao2mo_kernels::gemm_fp64, g, a, b, out, stream);
  else
    launch_gemm(p == precision::tf32 ? &ao2mo_kernels::gemm_tf32 : &ao2mo_kernels::gemm_fp32, g, a, b, out, stream);
}

// The unfused transformation: four quarter steps, each a batched GEMM with no transpose (T1, T2
// and T3 in memory: t_a, t_b, N^4 each; the result ends in `mo`). `run(g, a, b, out)` launches one
// step. With coef_t (C^T) given, steps 2-4 read it (a contiguous along k) instead of C transposed:
// TF32 wgmma takes fp32 operands only K-major from shared memory (kernels.py, half_transform).
template <class T, class Run>
void transform_unfused_with(std::int64_t n, const T* eri, const T* coef, const T* coef_t, T* t_a, T* t_b, T* mo, Run run) {
  auto step = [&](int i, const T* b, T* out) {
    const batched_gemm g = as_batched_gemm(quarter_step(i, n));
    if (coef_t) run(reading_coef_t(g), coef_t, b, out);
    else run(g, coef, b, out);
  };
  run(as_batched_gemm(quarter_step(1, n)), eri, coef, t_a);
  step(2, t_a, t_b);
  step(3, t_b, t_a);
  step(4, t_a, mo);
}

// The unfused transformation with the example library's gemm in precision p (TF32 reads coef_t).
template <class T>
void transform_unfused(precision p, std::int64_t n, const T* eri, const T* coef, const T* coef_t, T* t_a, T* t_b, T* mo,
                       tritonpack::stream_t stream = nullptr) {
  transform_unfused_with(n, eri, coef, p == precision::tf32 ? coef_t : nullptr, t_a, t_b, mo,
                         [&](const batched_gemm& g, const T* a, const T* b, T* out) { gemm(p, g, a, b, out, stream); });
}

// Which GEMM dimension the new MO index is in a cyclic step: its rows (cyclic_quarter_step: a = C^T)
// or its columns (cyclic_quarter_step_transposed: a = the tensor). Same result, same layouts.
enum class cyclic_orientation { mo_rows, mo_columns };

// The unfused transformation in the cyclic layout (ao2mo.hpp's cyclic_quarter_step): four launches
// of one GEMM shape, C^T and the tensor both read along k, I -> T1 (t_a) -> T2 (t_b) -> T3 (t_a) ->
// MO. `run(g, a, b, out)` launches one step.
template <class T, class Run>
void transform_unfused_cyclic_with(std::int64_t n, const T* eri, const T* coef_t, T* t_a, T* t_b, T* mo, Run run,
                                   cyclic_orientation orientation = cyclic_orientation::mo_rows) {
  const bool rows = orientation == cyclic_orientation::mo_rows;
  const batched_gemm g = rows ? cyclic_quarter_step(n) : cyclic_quarter_step_transposed(n);
  auto step = [&](const T* in, T* out) {
    if (rows) run(g, coef_t, in, out);
    else run(g, in, coef_t, out);
  };
  step(eri, t_a);
  step(t_a, t_b);
  step(t_b, t_a);
  step(t_a, mo);
}

// The cyclic unfused transformation with the example library's gemm in precision p.
template <class T>
void transform_unfused_cyclic(precision p, std::int64_t n, const T* eri, const T* coef_t, T* t_a, T* t_b, T* mo,
                              tritonpack::stream_t stream = nullptr) {
  transform_unfused_cyclic_with(n, eri, coef_t, t_a, t_b, mo,
                                [&](const batched_gemm& g, const T* a, const T* b, T* out) { gemm(p, g, a, b, out, stream); });
}

// Whether fused kernels that keep up to max_n rows run N: a multiple of 16 (their i32:16
// signatures) within the rows kept.
inline bool fused_kernels_cover(std::int64_t n, std::int64_t max_n) { return n >= 16 && n % 16 == 0 && n <= max_n; }

// The compiled half_transform functions of one precision, by the rows they keep (R_HI + R_LO):
// 64, 96, 128, 160; nullptr where not compiled (the example's library: 128 only).
template <class T>
struct half_kernels {
  using fn = void (*)(const T*, const T*, T*, tritonpack::arg_i32, tritonpack::arg_i32, tritonpack::arg_i32, tritonpack::arg_i32, tritonpack::stream_t);
  fn r64 = nullptr, r96 = nullptr, r128 = nullptr, r160 = nullptr;

  std::int64_t max_n() const { return r160 ? 160 : r128 ? 128 : r96 ? 96 : r64 ? 64 : 0; }
  bool cover(std::int64_t n) const { return fused_kernels_cover(n, max_n()); }
  // The one with the fewest rows that covers n.
  fn covering(std::int64_t n) const {
    for (auto [rows, f] : {std::pair<std::int64_t, fn>{64, r64}, {96, r96}, {128, r128}, {160, r160}})
      if (f && n <= rows) return f;
    return nullptr;
  }
};

// The example's library's functions for precision p.
template <class T>
half_kernels<T> library_half_kernels(precision p) {
  check_element_type<T>(p);
  namespace k = ao2mo_kernels;
  if constexpr (std::is_same<T, double>::value)
    return {nullptr, nullptr, &k::half_transform_fp64_r128, nullptr};
  else if (p == precision::tf32)
    return {nullptr, nullptr, &k::half_transform_tf32_r128, nullptr};
  else
    return {nullptr, nullptr, &k::half_transform_fp32_r128, nullptr};
}

// One half transformation: y[r, s, b] = sum_{lam sig} C[lam, r] C[sig, s] x[b, lam, sig] for the
// N^2 batches b, written with b fastest (the next half's input layout), with `kernels`; the
// kernels read C as coef_t = C^T (transposed(), ao2mo.hpp).
template <class T>
void half_transform(const half_kernels<T>& kernels, std::int64_t n, const T* x, const T* coef_t, T* y, tritonpack::stream_t stream) {
  if (!kernels.cover(n))
    throw std::invalid_argument("ao2mo: no fused kernel covers N = " + std::to_string(n) +
                                " (they need N a multiple of 16 and keep up to " + std::to_string(kernels.max_n()) +
                                " rows in registers; use the unfused path)");
  const std::int32_t n1 = i32(n), n2 = i32(n * n), n3 = i32(n * n * n);
  // x[b, lam, sig]: batch stride N^2; y[r, s, b]: strides N^3, N^2, 1.
  kernels.covering(n)(x, coef_t, y, n1, n2, n3, n2, stream);
}

// The fused transformation: two launches, (mu nu|lam sig) -> J[rs, mu nu] -> (pq|rs); the
// quarter-transformed tensors stay on chip. J is N^4 (`half`); coef_t = C^T. `kernels`: the
// example's library's by default (a benchmark may pass other compiled configurations).
template <class T>
void transform_fused(precision p, std::int64_t n, const T* eri, const T* coef_t, T* half, T* mo, tritonpack::stream_t stream = nullptr,
                     const half_kernels<T>* kernels = nullptr) {
  const half_kernels<T> chosen = kernels ? *kernels : library_half_kernels<T>(p);
  half_transform(chosen, n, eri, coef_t, half, stream);
  half_transform(chosen, n, half, coef_t, mo, stream);
}

// The fused transformation's second design, kernels.py's `pair_transform` (the bench's
// `triton_fused_pair*`): two launches, each two quarter steps with the intermediate on chip, shaped
// for the tensor cores, the half-transformed tensor between them as J[r, s, (mu nu)] (the second
// launch reads each batch's N x N matrix contiguously; the layout fused_sweep.py found fastest over
// both launches — the kernel's batch blocks, IN_T / OUT_T, are not compiled for the bench). The MO
// integrals come out as `layout` asks: (pq|rs) row-major, or pair-transposed, mo[(r s), (p q)] =
// (pq|rs) — the same array for integrals with (mu nu|lam sig) = (lam sig|mu nu), as every real ERI
// tensor — which the second launch writes in runs of its s tile where row-major gets runs of its
// batches. apps/ao2mo/bench/RESULTS.md has what each costs.
enum class mo_layout { pq_rs, rs_pq };

template <class T>
struct pair_kernels {
  using fn = void (*)(const T*, const T*, T*, tritonpack::arg_i32, tritonpack::arg_i32, tritonpack::arg_i32, tritonpack::arg_i32, tritonpack::arg_i32,
                      tritonpack::arg_i32, tritonpack::arg_i32, tritonpack::arg_i32, tritonpack::stream_t);
  struct covering {
    std::int64_t rows;  // the largest N these two cover (R_HI + R_LO = K_HI + K_LO)
    fn first, second;   // I -> J, J -> MO (the second's signatures: one per mo_layout)
  };
  std::vector<covering> pairs;  // by ascending rows; empty: covers nothing

  std::int64_t max_n() const { return pairs.empty() ? 0 : pairs.back().rows; }
  bool cover(std::int64_t n) const { return fused_kernels_cover(n, max_n()); }
  const covering* covering_pair(std::int64_t n) const {
    for (const auto& p : pairs)
      if (n <= p.rows) return &p;
    return nullptr;
  }
};

// (mu nu|lam sig) -> J -> MO integrals in `layout`, with the pair of kernels covering n.
template <class T>
void transform_fused_pair(const pair_kernels<T>& k, mo_layout layout, std::int64_t n, const T* eri, const T* coef_t, T* j, T* mo,
                          tritonpack::stream_t stream = nullptr) {
  if (!k.cover(n))
    throw std::invalid_argument("ao2mo: no pair_transform kernels cover N = " + std::to_string(n) + " (they need N a multiple of 16, at most " +
                                std::to_string(k.max_n()) + "; use the unfused path)");
  const auto* p = k.covering_pair(n);
  const std::int32_t n1 = i32(n), n2 = i32(n * n), n3 = i32(n * n * n);
  // The first reads I[b, lam, sig] (b = mu nu: strides N^2, N, 1) and writes J[r, s, b] (N^3, N^2, 1);
  // the second reads J as x[b' = r s, lam = mu, sig = nu] (N^2, N, 1). Unused x sig-block and y
  // batch-block strides are passed as 1 (the signatures fold them).
  p->first(eri, coef_t, j, n1, n2, n1, 1, n3, n2, 1, 1, stream);
  if (layout == mo_layout::pq_rs)
    p->second(j, coef_t, mo, n1, n2, n1, 1, n3, n2, 1, 1, stream);  // mo[p, q, b']
  else
    p->second(j, coef_t, mo, n1, n2, n1, 1, n1, 1, n2, n2, stream);  // mo[b', p, q]
}

}  // namespace ao2mo
