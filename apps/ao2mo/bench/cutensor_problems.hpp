// cutensor_problems.hpp — apps/ao2mo/bench's contractions as a tensor library takes them: each
// operand a list of modes (index labels) with extents and element strides, D[modes_d] =
// sum over the modes not in D of A[modes_a] B[modes_b]. The AO->MO quarter steps in both index
// orders the app uses (batched: the quarter steps of ao2mo.hpp's transform_unfused; cyclic: its
// cyclic_quarter_step), the MP2 quarter steps (mp2.hpp), the TCCG cases (tccg_cases.hpp) and the
// fusion case's contraction. Host-only (no CUDA, no cuTENSOR): the bench hands these to cuTENSOR
// (cutensor_loader.hpp); cutensor_problems_test.cpp checks them on the CPU against the app's
// references through reference_contract below.
#pragma once

#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "tccg_cases.hpp"

namespace tensor4 {

struct mode_tensor {
  std::vector<std::int32_t> modes;  // labels (characters, for reading)
  std::vector<std::int64_t> extents, strides;
  std::int64_t elements()
      const {  // the extent of memory it spans (dense tensors: the element count)
    std::int64_t span = 1;
    for (std::size_t i = 0; i < extents.size(); ++i) span += (extents[i] - 1) * strides[i];
    return span;
  }
};

// A row-major tensor with these modes and extents (the last mode contiguous).
inline mode_tensor row_major(const std::string& modes, const std::vector<std::int64_t>& extents) {
  if (modes.size() != extents.size())
    throw std::invalid_argument("row_major: " + modes + " needs one extent per mode");
  mode_tensor t;
  t.extents = extents;
  t.strides.assign(extents.size(), 1);
  for (std::size_t i = modes.size(); i-- > 1;) t.strides[i - 1] = t.strides[i] * extents[i];
  for (char c : modes) t.modes.push_back(c);
  return t;
}

struct mode_contraction {
  std::string name;
  mode_tensor a, b, d;
  // Extent of a mode, from whichever operand has it.
  std::int64_t extent_of(std::int32_t mode) const {
    for (const mode_tensor* t : {&a, &b, &d})
      for (std::size_t i = 0; i < t->modes.size(); ++i)
        if (t->modes[i] == mode) return t->extents[i];
    throw std::invalid_argument(name + ": mode '" + std::string(1, static_cast<char>(mode)) +
                                "' is in no operand");
  }
  // The modes summed over: in A and B, not in D.
  std::vector<std::int32_t> contracted() const {
    std::vector<std::int32_t> k;
    for (auto m : a.modes) {
      bool in_b = false, in_d = false;
      for (auto x : b.modes) in_b = in_b || x == m;
      for (auto x : d.modes) in_d = in_d || x == m;
      if (in_b && !in_d) k.push_back(m);
    }
    return k;
  }
  double flops() const {
    double f = 2;
    for (auto e : d.extents) f *= static_cast<double>(e);
    for (auto m : contracted()) f *= static_cast<double>(extent_of(m));
    return f;
  }
  // The bytes a contraction must move at least: A and B read once, D written once.
  double min_bytes(int element_bytes) const {
    return static_cast<double>(element_bytes) *
           static_cast<double>(a.elements() + b.elements() + d.elements());
  }
};

// The four AO->MO quarter steps on I[mu, nu, lam, sig] and C[mu, p] (row-major, N x N), each step's
// output the next one's input. batched = the order of transform_unfused (T1[mu nu lam s], T2[mu nu
// r s], T3[mu q r s], MO[p q r s]); cyclic = cyclic_quarter_step's (each step contracts the input's
// last index and puts the new MO index first: T1[s mu nu lam], T2[r s mu nu], T3[q r s mu], MO[p q
// r s]).
enum class step_order { batched, cyclic };

inline std::vector<mode_contraction> ao2mo_steps(std::int64_t n, step_order order) {
  const std::vector<std::int64_t> n4{n, n, n, n}, n2{n, n};
  auto step = [&](const char* name, const char* c_modes, const char* in, const char* out) {
    return mode_contraction{name, row_major(c_modes, n2), row_major(in, n4), row_major(out, n4)};
  };
  // Indices: m n l s (AO: mu nu lam sig), p q r t (MO: p q r s).
  if (order == step_order::batched)
    return {step("step1_sig", "st", "mnls", "mnlt"), step("step2_lam", "lr", "mnlt", "mnrt"),
            step("step3_nu", "nq", "mnrt", "mqrt"), step("step4_mu", "mp", "mqrt", "pqrt")};
  return {step("cyclic1_sig", "st", "mnls", "tmnl"), step("cyclic2_lam", "lr", "tmnl", "rtmn"),
          step("cyclic3_nu", "nq", "rtmn", "qrtm"), step("cyclic4_mu", "mp", "qrtm", "pqrt")};
}

// The MP2 quarter steps of mp2.hpp (as bench.cpp's cublas_mp2 runs them): C_occ^T (o x N), C_vir^T
// (v x N), C_vir (N x v), x1[i nu lam sig], x2[i a lam sig], x3[i a j sig], ovov[i a j b].
inline std::vector<mode_contraction> mp2_steps(std::int64_t n, std::int64_t o, std::int64_t v) {
  return {{"mp2_step1", row_major("im", {o, n}), row_major("mnls", {n, n, n, n}),
           row_major("inls", {o, n, n, n})},
          {"mp2_step2", row_major("an", {v, n}), row_major("inls", {o, n, n, n}),
           row_major("ials", {o, v, n, n})},
          {"mp2_step3", row_major("jl", {o, n}), row_major("ials", {o, v, n, n}),
           row_major("iajs", {o, v, o, n})},
          {"mp2_step4", row_major("iajs", {o, v, o, n}), row_major("sb", {n, v}),
           row_major("iajb", {o, v, o, v})}};
}

// A TCCG case by its direct descriptor (strides of every index in A, B and D, as `contract` reads
// it): modes m1 m2 (rows), k1 k2 (contracted), n1 n2 (columns); a pair's outer index of extent 1
// (abcd-ea-ebcd's) is left out.
inline mode_contraction tccg_problem(const tccg_case& c) {
  const auto& d = c.direct;
  mode_contraction p{c.name, {}, {}, {}};
  auto add = [](mode_tensor& t, char mode, std::int64_t extent, std::int64_t stride) {
    if (extent == 1) return;
    t.modes.push_back(mode), t.extents.push_back(extent), t.strides.push_back(stride);
  };
  add(p.a, 'M', d.m.outer, d.sa[0]), add(p.a, 'm', d.m.inner, d.sa[1]),
      add(p.a, 'K', d.k.outer, d.sa[2]), add(p.a, 'k', d.k.inner, d.sa[3]);
  add(p.b, 'K', d.k.outer, d.sb[0]), add(p.b, 'k', d.k.inner, d.sb[1]),
      add(p.b, 'N', d.n.outer, d.sb[2]), add(p.b, 'n', d.n.inner, d.sb[3]);
  add(p.d, 'M', d.m.outer, d.so[0]), add(p.d, 'm', d.m.inner, d.so[1]),
      add(p.d, 'N', d.n.outer, d.so[2]), add(p.d, 'n', d.n.inner, d.so[3]);
  return p;
}

// The fusion case's contraction (a coupled-cluster-style hole-hole ladder term): X[ij, ab] =
// sum_kl W[ij, kl] T[kl, ab], o^2 occupied pairs, v^2 virtual pairs, row-major.
inline mode_contraction ladder_problem(std::int64_t o, std::int64_t v) {
  return {"ladder_o" + std::to_string(o) + "_v" + std::to_string(v),
          row_major("IK", {o * o, o * o}), row_major("KA", {o * o, v * v}),
          row_major("IA", {o * o, v * v})};
}

// The offset of D's element number `flat` (D's modes in order, the last fastest) and, through
// `index`, each mode's index there.
inline std::int64_t offset_of(const mode_tensor& t, std::int64_t flat,
                              std::vector<std::int64_t>* index = nullptr) {
  std::int64_t off = 0;
  if (index) index->assign(t.modes.size(), 0);
  for (std::size_t i = t.modes.size(); i-- > 0;) {
    const std::int64_t x = flat % t.extents[i];
    flat /= t.extents[i];
    off += x * t.strides[i];
    if (index) (*index)[i] = x;
  }
  return off;
}

inline std::int64_t dense_count(const mode_tensor& t) {
  std::int64_t c = 1;
  for (auto e : t.extents) c *= e;
  return c;
}

// FP64 D at the given output elements (flat indices in D's mode order): the reference every path of
// the bench is checked against, and the CPU test's. Returns the values; `offsets` gets where each
// lies in D's memory.
template <class TA, class TB>
std::vector<double> reference_contract(const mode_contraction& p, const std::vector<TA>& a,
                                       const std::vector<TB>& b,
                                       const std::vector<std::int64_t>& flat_outputs,
                                       std::vector<std::int64_t>* offsets = nullptr) {
  const auto k_modes = p.contracted();
  std::vector<std::int64_t> k_extent;
  for (auto m : k_modes) k_extent.push_back(p.extent_of(m));
  std::int64_t k_count = 1;
  for (auto e : k_extent) k_count *= e;
  // Per operand mode: where its index comes from (a D mode, or a contracted mode).
  auto stride_in = [](const mode_tensor& t, std::int32_t mode) -> std::int64_t {
    for (std::size_t i = 0; i < t.modes.size(); ++i)
      if (t.modes[i] == mode) return t.strides[i];
    return 0;
  };
  std::vector<double> out;
  if (offsets) offsets->clear();
  std::vector<std::int64_t> d_index;
  for (std::int64_t flat : flat_outputs) {
    const std::int64_t d_off = offset_of(p.d, flat, &d_index);
    std::int64_t a0 = 0, b0 = 0;
    for (std::size_t i = 0; i < p.d.modes.size(); ++i) {
      a0 += d_index[i] * stride_in(p.a, p.d.modes[i]);
      b0 += d_index[i] * stride_in(p.b, p.d.modes[i]);
    }
    double sum = 0;
    for (std::int64_t kf = 0; kf < k_count; ++kf) {
      std::int64_t rest = kf, ao = a0, bo = b0;
      for (std::size_t i = k_modes.size(); i-- > 0;) {
        const std::int64_t x = rest % k_extent[i];
        rest /= k_extent[i];
        ao += x * stride_in(p.a, k_modes[i]);
        bo += x * stride_in(p.b, k_modes[i]);
      }
      sum += static_cast<double>(a[static_cast<std::size_t>(ao)]) *
             static_cast<double>(b[static_cast<std::size_t>(bo)]);
    }
    out.push_back(sum);
    if (offsets) offsets->push_back(d_off);
  }
  return out;
}

// `count` distinct-enough output elements of D, drawn reproducibly (the bench's sampled checks).
inline std::vector<std::int64_t> sample_outputs(const mode_contraction& p, int count,
                                                std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<std::int64_t> pick(0, dense_count(p.d) - 1);
  std::vector<std::int64_t> flat(static_cast<std::size_t>(count));
  for (auto& f : flat) f = pick(gen);
  return flat;
}

}  // namespace tensor4
