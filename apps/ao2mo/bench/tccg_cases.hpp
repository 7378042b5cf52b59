// tccg_cases.hpp — apps/ao2mo/bench's TCCG contractions (HPAC/tccg's benchmark cases): each as the direct
// descriptor `contract` reads (strides, no copies) and the cuBLAS TTGT's plan (permute.cu
// transposes + one GEMM). Host-only, shared by bench.cpp and ttgt_plan_test.cpp; `small` gives the
// same index structures at small, distinct extents for the CPU test.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "contraction.hpp"
#include "permute_shape.hpp"

namespace tensor4 {

struct tensor4d {
  std::int64_t extent[4];
  std::int64_t stride(int d) const {
    std::int64_t s = 1;
    for (int i = 3; i > d; --i) s *= extent[i];
    return s;
  }
  std::size_t count() const { return static_cast<std::size_t>(extent[0] * extent[1] * extent[2] * extent[3]); }
};

// A TCCG case: out = a . b as `contract` reads it (strides), plus the vendor path's TTGT plan:
// permute a (if a_perm), permute b (if b_perm), one GEMM, permute the result (if out_perm).
struct tccg_case {
  std::string name;
  tensor4d a, b, out;
  ao2mo::contraction direct;
  bool a_perm, b_perm, out_perm;
  permute4_shape pa, pb, pout;  // a -> a', b -> b', c' -> out
  int gm, gn, gk;                          // the GEMM c'[gm, gn] = a'[gm, gk] . b'[gk, gn]
  bool gemm_trans_a = false;               // a' read transposed (stored gk x gm)
};

// A case whose operands are 4-D tensors with one index of each pair per dimension: `*_order` lists
// the dimension of A holding (m1, m2, k1, k2), of B holding (k1, k2, n1, n2) and of C holding (m1,
// m2, n1, n2). The direct descriptor reads them in place; TTGT permutes A to A'[m1,m2,k1,k2] and B
// to B'[k1,k2,n1,n2] (the same strides, as copies), multiplies into C'[m1,m2,n1,n2] and, unless C
// is already in that order, permutes C' into C.
inline tccg_case permuted_case(const std::string& name, tensor4d A, tensor4d B, tensor4d C, const int (&a_order)[4],
                        const int (&b_order)[4], const int (&c_order)[4]) {
  tccg_case c{name, A, B, C, {}, true, true, false, {}, {}, {}, 0, 0, 0};
  auto ext = [](const tensor4d& t, const int (&o)[4], int i) { return t.extent[o[i]]; };
  c.direct.m = {ext(A, a_order, 0), ext(A, a_order, 1)};
  c.direct.k = {ext(A, a_order, 2), ext(A, a_order, 3)};
  c.direct.n = {ext(B, b_order, 2), ext(B, b_order, 3)};
  for (int i = 0; i < 4; ++i) {
    c.direct.sa[i] = c.pa.in_stride[i] = A.stride(a_order[i]);
    c.direct.sb[i] = c.pb.in_stride[i] = B.stride(b_order[i]);
    c.direct.so[i] = C.stride(c_order[i]);
    c.pa.out_extent[i] = ext(A, a_order, i);
    c.pb.out_extent[i] = ext(B, b_order, i);
    c.out_perm = c.out_perm || c_order[i] != i;
  }
  // C'[m1,m2,n1,n2] is row-major: C's dimension c_order[i] has C''s i-th stride.
  const std::int64_t cp_extent[4] = {c.direct.m.outer, c.direct.m.inner, c.direct.n.outer, c.direct.n.inner};
  for (int i = 0, stride = 1; i < 4; ++i) {
    const int d = 3 - i;
    c.pout.in_stride[c_order[d]] = stride;
    stride *= static_cast<int>(cp_extent[d]);
  }
  for (int i = 0; i < 4; ++i) c.pout.out_extent[i] = C.extent[i];
  c.gm = static_cast<int>(c.direct.m.extent()), c.gn = static_cast<int>(c.direct.n.extent()), c.gk = static_cast<int>(c.direct.k.extent());
  return c;
}

// The benchmark's cases (small = false: TCCG's and cuTENSOR's sample extents) or the same index
// structures at small, distinct extents (small = true: the CPU test, every index told apart).
inline std::vector<tccg_case> tccg_cases(bool small = false) {
  std::vector<tccg_case> cases;
  {
    // ijkl-imjn-lnkm (CCSD), all extents 72: C[i,j,k,l] = A[i,m,j,n] B[l,n,k,m].
    const std::int64_t i = small ? 3 : 72, j = small ? 5 : 72, k = small ? 8 : 72, l = small ? 7 : 72, m = small ? 4 : 72, n = small ? 6 : 72;
    cases.push_back(permuted_case("ijkl-imjn-lnkm_72", {{i, m, j, n}}, {{l, n, k, m}}, {{i, j, k, l}}, {0, 2, 1, 3}, {3, 1, 2, 0},
                                  {0, 1, 2, 3}));
  }
  {
    // abcd-ea-ebcd, extents 72: C[a,bcd] = A[e,a]^T B[e,bcd]: one GEMM for cuBLAS, no transposes.
    const std::int64_t a = small ? 6 : 72, b = small ? 7 : 72, cd = small ? 4 * 5 : 72 * 72, e = small ? 9 : 72;
    tccg_case c{"abcd-ea-ebcd_72", {{1, 1, e, a}}, {{e, b, cd, 1}}, {{a, b, cd, 1}}, {}, false, false, false, {}, {}, {}, 0, 0, 0};
    c.direct = {{1, a}, {b, cd}, {1, e}, {0, 1, 0, a}, {0, b * cd, cd, 1}, {0, b * cd, cd, 1}};
    c.gm = static_cast<int>(a), c.gn = static_cast<int>(b * cd), c.gk = static_cast<int>(e);
    c.gemm_trans_a = true;
    cases.push_back(c);
  }
  // munv-mhkn-ukvh (cuTENSOR's contraction.cu): C[m,u,n,v] = A[m,h,k,n] B[u,k,v,h], m = n = u = 96,
  // v = h = k = 64; rows (m, n), columns (u, v), contracted (h, k).
  const std::int64_t m = small ? 6 : 96, n = small ? 9 : 96, u = small ? 10 : 96, v = small ? 3 : 64, h = small ? 5 : 64, k = small ? 7 : 64;
  cases.push_back(permuted_case("munv-mhkn-ukvh", {{m, h, k, n}}, {{u, k, v, h}}, {{m, u, n, v}}, {0, 3, 1, 2}, {3, 1, 0, 2},
                                {0, 2, 1, 3}));
  return cases;
}

}  // namespace tensor4
