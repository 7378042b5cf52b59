// contraction.hpp — a tensor contraction as kernels.py's `contract` sees it: two flattened GEMM
// dimensions of free indices and one of contracted indices, each a pair (outer, inner) of tensor
// indices with its own stride in every tensor,
//
//   out[(m1,m2),(n1,n2)] = sum_{(k1,k2)} a[(m1,m2),(k1,k2)] * b[(k1,k2),(n1,n2)],
//
// so a permuted operand is read in place (no transpose). A pair with one index has outer extent 1
// (its outer stride is then never used). The CPU reference here runs the same descriptor, which
// is how the tests check the index maps (ao2mo.hpp, apps/ao2mo/bench) before any GPU sees them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ao2mo {

// One flattened dimension: extents of its two indices and their strides in the tensors it spans.
struct index_pair {
  std::int64_t outer = 1, inner = 1;
  std::int64_t extent() const { return outer * inner; }
};

struct contraction {
  index_pair m, n, k;
  // Strides (elements): a by (m1, m2, k1, k2), b by (k1, k2, n1, n2), out by (m1, m2, n1, n2).
  std::int64_t sa[4] = {}, sb[4] = {}, so[4] = {};

  double flops() const { return 2.0 * static_cast<double>(m.extent()) * static_cast<double>(n.extent()) * static_cast<double>(k.extent()); }

  // The kernel takes extents and strides as 32-bit integers and offsets in 32 bits: every value
  // and every offset the descriptor can reach must fit.
  void check_fits_int32(const std::string& what) const {
    const std::int64_t limit = std::numeric_limits<std::int32_t>::max();
    auto reach = [](const index_pair& p, std::int64_t s_outer, std::int64_t s_inner) {
      return (p.outer - 1) * s_outer + (p.inner - 1) * s_inner;
    };
    const std::int64_t values[] = {m.outer, m.inner, n.outer, n.inner, k.outer, k.inner,
                                   reach(m, sa[0], sa[1]) + reach(k, sa[2], sa[3]),
                                   reach(k, sb[0], sb[1]) + reach(n, sb[2], sb[3]),
                                   reach(m, so[0], so[1]) + reach(n, so[2], so[3])};
    for (std::int64_t v : values)
      if (v < 0 || v > limit)
        throw std::invalid_argument(what + ": an extent, stride or offset (" + std::to_string(v) +
                                    ") does not fit the kernel's 32-bit indexing; use a smaller problem");
  }
};

// The common case of a contraction as a strided-batched GEMM, the form kernels.py's `gemm` takes:
//
//   out[bt, m, n] = sum_k a[bt, m, k] * b[bt, k, n]   for bt < batches,
//
// every index a real tensor index (no flattened pairs), so a tile's fast dimension is contiguous
// when its stride is 1. Strides are (batch, row, column) of each tensor, in elements.
struct batched_gemm {
  std::int64_t batches = 1, m = 1, n = 1, k = 1;
  std::int64_t sa[3] = {}, sb[3] = {}, so[3] = {};  // a: (bt, m, k), b: (bt, k, n), out: (bt, m, n)

  // Whether the kernels' fast signatures apply (kernels.toml): a contiguous along k with b along k
  // or n, or a along m with b along n; out's n stride 1; every other stride and m, n, k multiples of 16.
  bool fast_layout() const {
    auto d16 = [](std::int64_t v) { return v % 16 == 0; };
    const bool a_k = sa[2] == 1 && d16(sa[1]), a_m = sa[1] == 1 && d16(sa[2]);
    const bool b_k = sb[1] == 1 && d16(sb[2]), b_n = sb[2] == 1 && d16(sb[1]);
    return ((a_k && (b_k || b_n)) || (a_m && b_n)) && d16(sa[0]) && d16(sb[0]) && so[2] == 1 && d16(so[0]) && d16(so[1]) &&
           d16(m) && d16(n) && d16(k);
  }

  // Whether both operands are contiguous along k (kernels.toml's first signature): TF32 wgmma
  // takes fp32 operands only K-major, so this layout is the one that runs TF32 at full width.
  bool k_major() const { return sa[2] == 1 && sb[1] == 1; }
};

// c as a batched GEMM: possible when m and k are single indices (outer extent 1); the outer index
// of the n pair becomes the batch. Throws otherwise (use `contract` for those: the TCCG cases).
inline batched_gemm as_batched_gemm(const contraction& c) {
  if (c.m.outer != 1 || c.k.outer != 1)
    throw std::invalid_argument("as_batched_gemm: the row and contracted dimensions must be single indices (outer extents " +
                                std::to_string(c.m.outer) + " and " + std::to_string(c.k.outer) +
                                " given); run this contraction with `contract`");
  batched_gemm g;
  g.batches = c.n.outer, g.m = c.m.inner, g.n = c.n.inner, g.k = c.k.inner;
  const std::int64_t sa[3] = {0, c.sa[1], c.sa[3]}, sb[3] = {c.sb[2], c.sb[1], c.sb[3]}, so[3] = {c.so[2], c.so[1], c.so[3]};
  std::copy(sa, sa + 3, g.sa), std::copy(sb, sb + 3, g.sb), std::copy(so, so + 3, g.so);
  return g;
}

// A batched GEMM whose a is a square matrix read transposed (AO->MO steps 2-4: a[m, k] = C[k, m])
// rewritten to read that matrix's transpose instead (C^T, stored row-major): a is then contiguous
// along k, as TF32 wgmma wants its fp32 operands (kernels.py, half_transform).
inline batched_gemm reading_coef_t(batched_gemm g) {
  std::swap(g.sa[1], g.sa[2]);
  return g;
}

// out = a . b by the batched GEMM, in double, on the CPU.
template <class In>
void gemm_reference(const batched_gemm& g, const In* a, const In* b, double* out) {
  for (std::int64_t bt = 0; bt < g.batches; ++bt)
    for (std::int64_t m = 0; m < g.m; ++m)
      for (std::int64_t n = 0; n < g.n; ++n) {
        double sum = 0;
        for (std::int64_t k = 0; k < g.k; ++k)
          sum += static_cast<double>(a[bt * g.sa[0] + m * g.sa[1] + k * g.sa[2]]) * static_cast<double>(b[bt * g.sb[0] + k * g.sb[1] + n * g.sb[2]]);
        out[bt * g.so[0] + m * g.so[1] + n * g.so[2]] = sum;
      }
}

// out = a . b by the descriptor, in double, on the CPU (the reference for any element type).
template <class In>
void contract_reference(const contraction& c, const In* a, const In* b, double* out) {
  for (std::int64_t m1 = 0; m1 < c.m.outer; ++m1)
    for (std::int64_t m2 = 0; m2 < c.m.inner; ++m2)
      for (std::int64_t n1 = 0; n1 < c.n.outer; ++n1)
        for (std::int64_t n2 = 0; n2 < c.n.inner; ++n2) {
          double sum = 0;
          for (std::int64_t k1 = 0; k1 < c.k.outer; ++k1)
            for (std::int64_t k2 = 0; k2 < c.k.inner; ++k2)
              sum += static_cast<double>(a[m1 * c.sa[0] + m2 * c.sa[1] + k1 * c.sa[2] + k2 * c.sa[3]]) *
                     static_cast<double>(b[k1 * c.sb[0] + k2 * c.sb[1] + n1 * c.sb[2] + n2 * c.sb[3]]);
          out[m1 * c.so[0] + m2 * c.so[1] + n1 * c.so[2] + n2 * c.so[3]] = sum;
        }
}

// max |got - want| / max |want|: the error relative to the result's scale (an element-wise
// relative error is meaningless for the near-zero elements a contraction of random data has).
template <class T, class R>
double max_relative_error(const std::vector<T>& got, const std::vector<R>& want) {
  if (got.size() != want.size()) throw std::invalid_argument("max_relative_error: sizes differ");
  double err = 0, scale = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double d = static_cast<double>(got[i]) - static_cast<double>(want[i]);
    if (d != d) return std::numeric_limits<double>::infinity();  // NaN: a poisoned element never written
    err = std::max(err, d < 0 ? -d : d);
    const double w = static_cast<double>(want[i]);
    scale = std::max(scale, w < 0 ? -w : w);
  }
  return scale > 0 ? err / scale : err;
}

}  // namespace ao2mo
