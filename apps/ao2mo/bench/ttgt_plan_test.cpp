// ttgt_plan_test.cpp — the Triton TTGT's host-side plans (permute_plan.hpp) on the CPU, no GPU: for
// the three TCCG cases at small, distinct extents (tccg_cases.hpp), random operands go through the
// plan exactly as the GPU runs it — each permute as `permute4` indexes it (the call permute4_call_for
// makes, 8-aligned values scaled back), the GEMM by its batched_gemm, the output permute — and must
// equal the direct descriptor's FP64 reference bit for bit (same summation order). Also pinned: which
// tensors each plan permutes, which permute4 kernel the full-size cases get (8-aligned for extent 72,
// the :16 signatures for 96/64), that their GEMMs take the K-major fast signature, and the errors.
//
//   tensor4_plan_test        (exit 0: all pass; built with the bench, -DTRITONPACK_BENCH_TENSOR4=ON)
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "permute_plan.hpp"
#include "tccg_cases.hpp"

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  failures += !ok;
}

// out = the permute of in, computed the way kernels.py's permute4 indexes the call.
std::vector<double> run_permute(const tensor4::permute4_shape& s, const std::vector<double>& in) {
  const tensor4::permute4_call c = tensor4::permute4_call_for(s);
  const std::int64_t a = c.align();
  const bool unit_r = c.which == tensor4::permute4_call::kernel::a8_unit_r, unit_c = c.which == tensor4::permute4_call::kernel::a8_unit_c;
  const std::int64_t R = c.R * a, C = c.C * a, si_r = unit_r ? 1 : c.si_r * a, si_c = unit_c ? 1 : c.si_c * a;
  std::vector<double> out(static_cast<std::size_t>(s.count()), -1e300);
  for (std::int64_t p = 0; p < c.P; ++p)
    for (std::int64_t q = 0; q < c.Q; ++q)
      for (std::int64_t r = 0; r < R; ++r)
        for (std::int64_t col = 0; col < C; ++col)
          out.at(static_cast<std::size_t>(p * c.so_p * a + q * c.so_q * a + r * c.so_r * a + col)) =
              in.at(static_cast<std::size_t>(p * c.si_p * a + q * c.si_q * a + r * si_r + col * si_c));
  return out;
}

std::vector<double> random_vector(std::size_t n, std::mt19937_64& gen) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(n);
  for (auto& x : v) x = u(gen);
  return v;
}

const char* name_of(tensor4::b_layout l) {
  return l == tensor4::b_layout::k_major ? " (both K-major)" : l == tensor4::b_layout::n_major ? " (b N-major)" : " (b in place along n)";
}

void check_chain(const tensor4::tccg_case& c, tensor4::b_layout layout, std::mt19937_64& gen) {
  const auto a = random_vector(c.a.count(), gen), b = random_vector(c.b.count(), gen);
  std::vector<double> want(c.out.count(), 0.0), got(c.out.count(), -1e300);
  ao2mo::contract_reference(c.direct, a.data(), b.data(), want.data());
  const tensor4::ttgt_plan t = tensor4::plan_ttgt(c.direct, layout);
  const auto a2 = t.permute_a ? run_permute(t.pa, a) : a;
  const auto b2 = t.permute_b ? run_permute(t.pb, b) : b;
  std::vector<double> c2(static_cast<std::size_t>(t.gemm.m * t.gemm.n), -1e300);
  ao2mo::gemm_reference(t.gemm, a2.data(), b2.data(), t.permute_out ? c2.data() : got.data());
  if (t.permute_out) got = run_permute(t.pout, c2);
  expect(got == want, c.name + name_of(layout) + ": permutes + GEMM + permute equal the descriptor's reference");
  const bool b_as_asked = layout == tensor4::b_layout::k_major ? t.gemm.sb[1] == 1
                          : layout == tensor4::b_layout::n_major ? t.gemm.sb[2] == 1
                                                                 : t.gemm.sb[1] == 1 || (t.gemm.sb[2] == 1 && !t.permute_b);
  expect(t.gemm.sa[2] == 1 && b_as_asked, c.name + name_of(layout) + ": the GEMM reads a along k and b as the layout asks");
}

}  // namespace

int main() try {
  std::mt19937_64 gen(13);
  const auto small = tensor4::tccg_cases(true);
  for (const auto& c : small)
    for (auto layout : {tensor4::b_layout::k_major, tensor4::b_layout::k_major_or_n_in_place, tensor4::b_layout::n_major})
      check_chain(c, layout, gen);
  // ijkl-imjn-lnkm at multiples of 8 (not all of 16): its permutes take the 8-aligned kernel.
  const auto ijkl8 = tensor4::permuted_case("ijkl-imjn-lnkm_8", {{8, 16, 8, 24}}, {{8, 24, 16, 16}}, {{8, 8, 16, 8}}, {0, 2, 1, 3},
                                            {3, 1, 2, 0}, {0, 1, 2, 3});
  check_chain(ijkl8, tensor4::b_layout::k_major, gen);
  check_chain(ijkl8, tensor4::b_layout::n_major, gen);
  expect(tensor4::permute4_call_for(tensor4::plan_ttgt(ijkl8.direct, tensor4::b_layout::k_major).pa).which != tensor4::permute4_call::kernel::tuned,
         "ijkl-imjn-lnkm_8: the chain above ran an 8-aligned permute4");

  // Which tensors each plan permutes (the bytes model and the GPU's work depend on it).
  const auto full = tensor4::tccg_cases();
  auto plan_is = [](const tensor4::ttgt_plan& t, bool a, bool b, bool out) { return t.permute_a == a && t.permute_b == b && t.permute_out == out; };
  expect(plan_is(tensor4::plan_ttgt(full[0].direct, tensor4::b_layout::k_major), true, true, false), "ijkl-imjn-lnkm: A and B permuted, C written in place");
  expect(plan_is(tensor4::plan_ttgt(full[1].direct, tensor4::b_layout::k_major), true, true, false), "abcd-ea-ebcd K-major: A (72 x 72) and B permuted");
  expect(plan_is(tensor4::plan_ttgt(full[1].direct, tensor4::b_layout::k_major_or_n_in_place), true, false, false), "abcd-ea-ebcd, b in place along n: only A permuted");
  expect(plan_is(tensor4::plan_ttgt(full[2].direct, tensor4::b_layout::k_major), true, true, true), "munv-mhkn-ukvh: A, B and C permuted");
  // N-major b (the FP32 plan): B'[k, n] as cuBLAS's TTGT; abcd's b is already so and stays in place.
  const auto n_major = [&](int i) { return tensor4::plan_ttgt(full[i].direct, tensor4::b_layout::n_major); };
  expect(plan_is(n_major(0), true, true, false) && n_major(0).gemm.sb[2] == 1 && n_major(0).gemm.fast_layout(),
         "ijkl-imjn-lnkm, b N-major: A and B permuted, the GEMM takes the b-along-n :16 signature");
  expect(plan_is(n_major(1), true, false, false) && n_major(1).gemm.sb[2] == 1, "abcd-ea-ebcd, b N-major: b read in place, only A permuted");
  expect(plan_is(n_major(2), true, true, true) && n_major(2).gemm.fast_layout(), "munv-mhkn-ukvh, b N-major: A, B and C permuted, fast signature");
  for (int i : {0, 2}) {
    const auto t = tensor4::plan_ttgt(full[i].direct, tensor4::b_layout::k_major);
    expect(t.gemm.k_major() && t.gemm.fast_layout(), full[i].name + ": the GEMM takes gemm's K-major :16 signature");
  }
  // Which permute4 kernel: extent 72 -> the 8-aligned one; 96/64 -> permute4_tuned (its :16 signatures).
  using kernel = tensor4::permute4_call::kernel;
  const auto ijkl = tensor4::plan_ttgt(full[0].direct, tensor4::b_layout::k_major);
  const auto pa = tensor4::permute4_call_for(ijkl.pa);
  expect(pa.which == kernel::a8_unit_c && pa.R == 9 && pa.C == 9 && pa.si_c == 1, "ijkl-imjn-lnkm's A permute: permute4_a8_unit_c, values / 8");
  const auto munv = tensor4::plan_ttgt(full[2].direct, tensor4::b_layout::k_major);
  for (const auto* s : {&munv.pa, &munv.pb, &munv.pout}) {
    const auto call = tensor4::permute4_call_for(*s);
    expect(call.which == kernel::tuned && (call.si_r == 1 || call.si_c == 1) && call.R % 16 == 0 && call.C % 16 == 0,
           "munv-mhkn-ukvh's permutes: permute4_tuned with a unit stride and :16 extents");
  }
  const auto odd = tensor4::permute4_call_for({{3, 5, 7, 9}, {315, 1, 5, 35}});
  expect(odd.which == kernel::tuned && odd.si_r == 1 && odd.R == 5, "odd extents: the general permute4_tuned, rows along the input's unit stride");

  // Errors: a bad shape or a non-dense output is refused with a message, never planned.
  auto throws = [](auto&& f) {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      std::printf("     (%s)\n", e.what());
      return true;
    }
    return false;
  };
  expect(throws([] { tensor4::permute4_call_for({{3, 0, 7, 9}, {63, 1, 9, 1}}); }), "permute4_call_for refuses an extent of 0");
  expect(throws([] { tensor4::permute4_call_for({{2048, 2048, 2048, 2}, {1, 2048, 4194304, 1}}); }), "permute4_call_for refuses a tensor past 32-bit offsets");
  ao2mo::contraction gap = small[2].direct;
  gap.so[0] *= 2;  // out's outermost dimension with a gap: not dense
  expect(throws([&] { tensor4::plan_ttgt(gap, tensor4::b_layout::k_major); }), "plan_ttgt refuses an output that is not dense");

  std::printf("tensor4_plan_test: %s\n", failures ? (std::to_string(failures) + " failure(s)").c_str() : "all pass");
  return failures ? 1 : 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "tensor4_plan_test: %s\n", e.what());
  return 1;
}
