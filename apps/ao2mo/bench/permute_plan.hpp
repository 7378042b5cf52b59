// permute_plan.hpp — apps/ao2mo/bench's Triton TTGT planned on the host (no GPU, no CUDA headers):
//
//   * permute4_call_for: a permute4_shape as kernels.py's `permute4` takes it — rows r the output
//     dimension along which the input is fastest, columns c the output's last — and which compiled
//     kernel runs it (tensor4_configs.toml): `permute4_tuned` (its signatures pick 16-byte
//     vectors where every value is a multiple of 16, else 4-byte accesses) or `permute4_a8_*`
//     where every value is a multiple of 8 but not all of 16 (extent 72), the values then passed
//     divided by 8. The choice checks the values: a kernel never runs on values it was not built for.
//   * plan_ttgt: a contraction (the direct descriptor) as permutes + one GEMM with a contiguous along
//     k (A'[m, k]) and b laid out as asked (b_layout): K-major (B'[n, k]: on sm_90 the only layout
//     where TF32 wgmma is fed by 16-byte cp.async), K-major unless b is contiguous along n in place
//     (abcd-ea-ebcd: permuting its 107 MB b would double the traffic of a memory-bound GEMM), or
//     N-major (B'[k, n], the FP32 plan). An operand already so laid out is not permuted. The output
//     is permuted unless C' is it already.
//
// ttgt_plan_test.cpp runs every plan on the CPU against the descriptor's reference.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "contraction.hpp"
#include "permute_shape.hpp"

namespace tensor4 {

// One `permute4` launch: out[p, q, r, c] = in[p si_p + q si_q + r si_r + c si_c], out's strides
// (so_p, so_q, so_r, 1). With align = 8 every value but the input's unit stride is divided by 8.
struct permute4_call {
  enum class kernel { tuned, a8_unit_r, a8_unit_c };
  kernel which = kernel::tuned;
  std::int64_t P = 1, Q = 1, R = 1, C = 1, si_p = 0, si_q = 0, si_r = 0, si_c = 0, so_p = 0, so_q = 0, so_r = 0;
  int align() const { return which == kernel::tuned ? 1 : 8; }
};

inline permute4_call permute4_call_for(const permute4_shape& s) {
  const std::int64_t limit = std::numeric_limits<std::int32_t>::max();
  std::int64_t in_reach = 0;
  for (int d = 0; d < 4; ++d) {
    if (s.out_extent[d] < 1)
      throw std::invalid_argument("permute4: output dimension " + std::to_string(d) + " has extent " + std::to_string(s.out_extent[d]) +
                                  "; every extent must be at least 1");
    if (s.in_stride[d] < 0)
      throw std::invalid_argument("permute4: output dimension " + std::to_string(d) + " has input stride " + std::to_string(s.in_stride[d]) +
                                  "; negative strides are not supported");
    in_reach += (s.out_extent[d] - 1) * s.in_stride[d];
  }
  if (s.count() > limit || in_reach > limit)
    throw std::invalid_argument("permute4: " + std::to_string(s.count()) + " elements (input reach " + std::to_string(in_reach) +
                                ") do not fit the kernel's 32-bit offsets; use a smaller tensor");
  std::int64_t so[4] = {0, 0, 0, 1};
  for (int d = 2; d >= 0; --d) so[d] = so[d + 1] * s.out_extent[d + 1];
  // Rows: the output dimension (of the outer three, extent > 1) with the input's smallest stride.
  int r = 2;
  bool found = false;
  for (int d = 2; d >= 0; --d)
    if (s.out_extent[d] > 1 && (!found || s.in_stride[d] < s.in_stride[r])) r = d, found = true;
  const int p = r == 0 ? 1 : 0, q = r == 2 ? 1 : 2;
  permute4_call c;
  c.P = s.out_extent[p], c.Q = s.out_extent[q], c.R = s.out_extent[r], c.C = s.out_extent[3];
  c.si_p = s.in_stride[p], c.si_q = s.in_stride[q], c.si_r = s.in_stride[r], c.si_c = s.in_stride[3];
  c.so_p = so[p], c.so_q = so[q], c.so_r = so[r];
  // The 8-aligned kernels: an input unit stride along r or c, every other value a multiple of 8,
  // and not already all multiples of 16 (then permute4_tuned's :16 signatures are as wide).
  const bool unit_r = c.si_r == 1, unit_c = c.si_c == 1 && !unit_r;
  const std::int64_t other[] = {c.R, c.C, c.si_p, c.si_q, unit_r ? c.si_c : c.si_r, c.so_p, c.so_q, c.so_r};
  const bool all8 = std::all_of(std::begin(other), std::end(other), [](std::int64_t v) { return v % 8 == 0; });
  const bool all16 = std::all_of(std::begin(other), std::end(other), [](std::int64_t v) { return v % 16 == 0; });
  if ((unit_r || unit_c) && all8 && !all16) {
    c.which = unit_r ? permute4_call::kernel::a8_unit_r : permute4_call::kernel::a8_unit_c;
    for (std::int64_t* v : {&c.R, &c.C, &c.si_p, &c.si_q, &c.si_r, &c.si_c, &c.so_p, &c.so_q, &c.so_r}) *v /= 8;
    (unit_r ? c.si_r : c.si_c) = 1;  // the kernel takes the unit stride as 1
  }
  return c;
}

// The Triton TTGT: permute a into a' (if permute_a), b into b' (if permute_b), one GEMM (`gemm`'s
// batched_gemm, batch 1) into c' (or out), then c' into out (if permute_out).
struct ttgt_plan {
  bool permute_a = false, permute_b = false, permute_out = false;
  permute4_shape pa{}, pb{}, pout{};
  ao2mo::batched_gemm gemm;
};

namespace detail {
// The single stride of an index pair (outer, inner) flattened, or -1 where it does not flatten.
inline std::int64_t flat_stride(const ao2mo::index_pair& p, std::int64_t s_outer, std::int64_t s_inner) {
  if (p.outer == 1) return s_inner;
  if (p.inner == 1) return s_outer;
  return s_outer == p.inner * s_inner ? s_inner : -1;
}
}  // namespace detail

// How a plan lays out b: K-major, B'[n1, n2, k1, k2] (TF32 wgmma takes fp32 operands only K-major);
// K-major unless b is contiguous along n where it lies (then read there, no copy); or N-major,
// B'[k1, k2, n1, n2] as cuBLAS's TTGT has it (what the FP32 FMA kernel reads fastest: the K-major
// FP32 GEMM ran at half its speed on the H200, apps/ao2mo/bench/RESULTS.md).
enum class b_layout { k_major, k_major_or_n_in_place, n_major };

inline ttgt_plan plan_ttgt(const ao2mo::contraction& d, b_layout layout) {
  using detail::flat_stride;
  const std::int64_t M = d.m.extent(), N = d.n.extent(), K = d.k.extent();
  ttgt_plan t;
  t.gemm.m = M, t.gemm.n = N, t.gemm.k = K;
  // a[m, k]: in place when contiguous along k (and m flattens), else A'[m1, m2, k1, k2].
  const std::int64_t a_m = flat_stride(d.m, d.sa[0], d.sa[1]), a_k = flat_stride(d.k, d.sa[2], d.sa[3]);
  t.permute_a = !(a_k == 1 && a_m >= 0);
  t.gemm.sa[1] = t.permute_a ? K : a_m, t.gemm.sa[2] = 1;
  t.pa = {{d.m.outer, d.m.inner, d.k.outer, d.k.inner}, {d.sa[0], d.sa[1], d.sa[2], d.sa[3]}};
  // b[k, n]: in place when already in the layout asked for (or along n where allowed), else copied
  // into B'[n1, n2, k1, k2] (K-major) or B'[k1, k2, n1, n2] (N-major).
  const std::int64_t b_k = flat_stride(d.k, d.sb[0], d.sb[1]), b_n = flat_stride(d.n, d.sb[2], d.sb[3]);
  const bool along_n = layout != b_layout::k_major && b_n == 1 && b_k >= 0;
  if (layout != b_layout::n_major && b_k == 1 && b_n >= 0) {
    t.gemm.sb[1] = 1, t.gemm.sb[2] = b_n;
  } else if (along_n) {
    t.gemm.sb[1] = b_k, t.gemm.sb[2] = 1;
  } else if (layout == b_layout::n_major) {
    t.permute_b = true;
    t.gemm.sb[1] = N, t.gemm.sb[2] = 1;
    t.pb = {{d.k.outer, d.k.inner, d.n.outer, d.n.inner}, {d.sb[0], d.sb[1], d.sb[2], d.sb[3]}};
  } else {
    t.permute_b = true;
    t.gemm.sb[1] = 1, t.gemm.sb[2] = K;
    t.pb = {{d.n.outer, d.n.inner, d.k.outer, d.k.inner}, {d.sb[2], d.sb[3], d.sb[0], d.sb[1]}};
  }
  // out[m, n]: written in place when contiguous along n (and m flattens), else C'[m1, m2, n1, n2]
  // then permuted into out, whose dimensions are the four indices by decreasing stride (extent-1
  // indices outermost); out must be dense.
  const std::int64_t o_m = flat_stride(d.m, d.so[0], d.so[1]), o_n = flat_stride(d.n, d.so[2], d.so[3]);
  t.permute_out = !(o_n == 1 && o_m >= 0);
  t.gemm.so[1] = t.permute_out ? N : o_m, t.gemm.so[2] = 1;
  if (t.permute_out) {
    const std::int64_t ext[4] = {d.m.outer, d.m.inner, d.n.outer, d.n.inner};
    const std::int64_t c_stride[4] = {d.m.inner * N, N, d.n.inner, 1};  // C'[m1, m2, n1, n2] row-major
    int idx[4] = {0, 1, 2, 3};
    std::stable_sort(idx, idx + 4, [&](int x, int y) {
      if ((ext[x] == 1) != (ext[y] == 1)) return ext[x] == 1;
      return d.so[x] > d.so[y];
    });
    std::int64_t dense = 1;
    for (int i = 3; i >= 0; --i) {
      if (ext[idx[i]] > 1 && d.so[idx[i]] != dense)
        throw std::invalid_argument("plan_ttgt: the output is not a dense tensor (stride " + std::to_string(d.so[idx[i]]) + " where " +
                                    std::to_string(dense) + " was expected); give it row-major in some index order");
      dense *= ext[idx[i]];
      t.pout.out_extent[i] = ext[idx[i]], t.pout.in_stride[i] = c_stride[idx[i]];
    }
  }
  return t;
}

// Bytes the Triton TTGT moves (modelled): a, b and out once, plus a read and a write of every
// permuted tensor (as the cuBLAS TTGT's model in bench.cpp).
inline double ttgt_bytes(const ttgt_plan& t, std::int64_t a_count, std::int64_t b_count, std::int64_t out_count, double element_bytes = 4) {
  const double once = static_cast<double>(a_count + b_count + out_count);
  const double again = static_cast<double>((t.permute_a ? a_count : 0) + (t.permute_b ? b_count : 0) + (t.permute_out ? out_count : 0));
  return element_bytes * (once + 2 * again);
}

}  // namespace tensor4
