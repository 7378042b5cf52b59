// apps/ao2mo/bench — 4-index tensor contractions on one GPU, side by side in one run:
//
//   AO->MO (apps/ao2mo) for N in --sizes: the vendor path (cuBLAS: four strided-batched GEMMs,
//   the quarter steps need no transpose), Triton unfused (four `gemm` launches: the example
//   library's one config, and `triton_unfused_tuned`: several configs tuned on first use,
//   tensor4_configs.toml) and Triton fused (two `half_transform` launches, tuned on first use; in
//   TF32 also `triton_fused_pair`: two `pair_transform` launches, and `triton_fused_pair_rs_pq`, the
//   same writing the MO integrals pair-transposed, triton_ao2mo.hpp), FP32 (ieee) and TF32; both
//   unfused paths also in the cyclic layout (`*_unfused_cyclic`: four identical GEMMs with both
//   operands read along the contracted index, ao2mo.hpp; in TF32 also `triton_unfused_cyclic_t`, the
//   MO index as the GEMM's columns);
//   TCCG contractions ijkl-imjn-lnkm, abcd-ea-ebcd and munv-mhkn-ukvh (the cuTENSOR sample): the
//   vendor path TTGT (permute.cu transposes + one cuBLAS GEMM, b as B'[k, n]) against the Triton
//   TTGT (`triton_ttgt`: kernels.py's `permute4`, tuned on first use, then the tuned `gemm` with
//   A'[m, k] and, in TF32, B'[n, k] — both K-major, TF32 wgmma's 16-byte cp.async layout on sm_90 —
//   in FP32 B'[k, n] as cuBLAS has it (the FMA kernel's fast layout), then `permute4` of the result
//   where needed; an operand already so laid out in place is not copied;
//   permute_plan.hpp plans it, tensor4_plan_test checks the plans on the CPU; for abcd-ea-ebcd also
//   `triton_ttgt_b_in_place`: b read along n where it lies, only the 72 x 72 a permuted), Triton's
//   direct `contract` (strides, no transposes) in every compiled configuration
//   (tensor4_configs_table.hpp), and the tuned `gemm` in place where the case is a batched GEMM
//   (abcd-ea-ebcd: its b-along-n signature, vector loads although M = K = 72).
//
// Times: CUDA events on one stream around each repetition, median of --reps after --warmup.
// TF32 runs give every path (cuBLAS too) the inputs rounded to TF32: Triton's tensor-core dot
// truncates fp32 operands where cuBLAS rounds them, and rounded inputs are exact in TF32, so both
// see the same values; the references keep the exact inputs (kernels.py, _round_tf32).
// Errors: max |x - ref| / max |ref| against an FP64 CPU reference (all elements for AO->MO at
// N <= --check-max, else against cuBLAS FP32; TCCG: 4096 sampled elements). CSV: one row per
// (case, implementation, precision, config).
//
//   MP2 energy (apps/ao2mo/mp2.hpp) from the same integrals (unless --no-mp2): cuBLAS quarter steps + a CUDA C++ energy
//   kernel (mp2_energy.cu), Triton unfused (tuned gemm + mp2_energy) and Triton fused (the last step
//   and the energy in one kernel, (ia|jb) never written), FP32 and TF32.
//
//   cuTENSOR (issue 31; bench_cutensor.hpp, dlopen'ed: --cutensor PATH or TENSOR4_CUTENSOR; absent:
//   its rows are skipped with the reason): `cutensor_unfused` / `cutensor_unfused_cyclic` (AO->MO's
//   four steps in either order, one contraction plan each), MP2's `cutensor_unfused` (four plans +
//   mp2_energy.cu), `cutensor` in every TCCG case (FP32, TF32, and FP64), one row per plan
//   (--cutensor-tuning heuristic,patient,autotuneN[+jit], default heuristic,autotune8); --steps
//   N,...: every quarter step alone (both orders; cuTENSOR FP32/TF32/FP64, cuBLAS, Triton);
//   --fusion o:v,...: where fusion pays (bench_fusion.hpp: contraction + epilogue + reduction).
//
//   tensor4_bench [--sizes 64,96,128,160] [--no-ao2mo] [--no-mp2] [--no-tccg] [--reps 20] [--warmup 3] [--cublas PATH] [--csv FILE]
//                 [--cutensor PATH] [--cutensor-tuning LIST] [--steps 64,128] [--fusion 8:512,8:768]
//                 [--list]   (what would run, its cuTENSOR contractions and whether cuTENSOR loads; no GPU needed)
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <tritonpack/tritonpack.hpp>
#include <vector>

#include "ao2mo.hpp"
#include "bench_cutensor.hpp"
#include "bench_fusion.hpp"
#include "bench_util.hpp"
#include "cublas_loader.hpp"
#include "mp2.hpp"
#include "mp2_energy.hpp"
#include "permute.hpp"
#include "permute_plan.hpp"
#include "tccg_cases.hpp"
#include "tensor4_configs_table.hpp"
#include "triton_ao2mo.hpp"
#include "triton_mp2.hpp"

namespace {

using tensor4::bench_util::bench_env;
using tensor4::bench_util::cuda_check;
using tensor4::bench_util::download;
using tensor4::bench_util::report;
using tensor4::bench_util::time_it;
using tensor4::bench_util::timing;

// ---- MP2 energy ---------------------------------------------------------------------------------

// cuBLAS: the four occupied/virtual quarter steps (mp2.hpp) as strided-batched GEMMs writing (ia|jb),
// then the CUDA C++ energy kernel (mp2_energy.cu).
void cublas_mp2(tensor4::cublas& blas, ao2mo::mp2_device& d, const float* eri, bool tf32, cudaStream_t stream) {
  const int N = static_cast<int>(d.n), o = static_cast<int>(d.o), v = static_cast<int>(d.v), N2 = N * N, N3 = N2 * N;
  // Steps 1-3 read C_occ^T / C_vir^T (o x N, v x N row-major), as the Triton path does.
  blas.gemm_row_major(false, false, o, N3, N, d.c_occ_t.data(), N, 0, eri, N3, 0, d.x1.data(), N3, 0, 1, tf32);
  blas.gemm_row_major(false, false, v, N2, N, d.c_vir_t.data(), N, 0, d.x1.data(), N2, N3, d.x2.data(), N2, static_cast<long long>(v) * N2, o, tf32);
  blas.gemm_row_major(false, false, o, N, N, d.c_occ_t.data(), N, 0, d.x2.data(), N, N2, d.x3.data(), N, static_cast<long long>(o) * N, o * v, tf32);
  blas.gemm_row_major(false, false, o * v * o, v, N, d.x3.data(), N, 0, d.c_vir.data(), v, 0, d.ovov.data(), v, 0, 1, tf32);
  tensor4::mp2_energy(d.ovov.data(), d.e_occ.data(), d.e_vir.data(), d.partials.data(), d.energy.data(), o, v, stream);
}

// E(2) at N with o = default_occupied(N): cuBLAS + CUDA energy kernel, Triton unfused (tuned gemm +
// mp2_energy) and Triton fused (tuned gemm for steps 1-3 + tuned mp2_fused), FP32 and TF32. Error:
// |E - E_ref| / |E_ref| against the FP64 CPU energy (N <= check_max) or cuBLAS FP32's.
// The integrals and C are AO->MO's (bench_ao2mo passes them, with its FP64 (pq|rs) where it made one).
void bench_mp2(const bench_env& env, tensor4::cublas& blas, std::int64_t n, const std::vector<float>& eri, const std::vector<float>& coef,
               tritonpack::device_array<float>& d_eri, const std::vector<double>* fp64_mo) {
  const auto prob = ao2mo::make_mp2_problem(n, ao2mo::default_occupied(n), coef, 3000 + static_cast<std::uint64_t>(n));
  d_eri.upload(eri);
  ao2mo::mp2_device d(prob);
  const std::string kase = "mp2_N" + std::to_string(n) + "_o" + std::to_string(prob.o);
  const double flops = ao2mo::mp2_flops(n, prob.o);
  auto s = reinterpret_cast<tritonpack::stream_t>(env.stream);
  auto energy = [&] {
    cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    return d.energy_on_host();
  };
  double want;
  std::string ref;
  if (fp64_mo) {
    want = ao2mo::mp2_energy_from_transformed(*fp64_mo, prob);
    ref = "fp64 cpu";
  } else {
    d.poison();
    cublas_mp2(blas, d, d_eri.data(), false, env.stream);
    want = energy();
    ref = "cublas fp32";
  }
  for (bool tf32 : {false, true}) {
    const char* prec = tf32 ? "tf32" : "fp32";
    if (tf32) {  // every path takes the inputs rounded to TF32 (ao2mo.hpp's rounded_to_tf32); `want` keeps them exact
      d_eri.upload(ao2mo::rounded_to_tf32(eri));
      d.upload_inputs(ao2mo::inputs_for(ao2mo::precision::tf32, prob));
    }
    auto gemm = [&](const ao2mo::batched_gemm& g, const float* a, const float* b, float* out) { tensor4::gemm_tuned(tf32, g, a, b, out, s); };
    auto run = [&](const char* impl, double bytes, const std::function<void()>& work, const std::string& config = "-") {
      d.poison();
      work();
      const double err = std::abs(energy() - want) / std::abs(want);  // NaN: a pair never summed
      report(env, kase, impl, prec, config, flops, bytes, time_it(env, work), std::isnan(err) ? INFINITY : err, ref);
    };
    run("cublas_unfused", ao2mo::mp2_unfused_bytes(n, prob.o, 4), [&] { cublas_mp2(blas, d, d_eri.data(), tf32, env.stream); });
    if (env.ct && env.ct->available()) {  // cuTENSOR: the four steps (one plan each, as tuned) + the CUDA energy kernel
      const std::vector<std::array<void*, 3>> ops = {{d.c_occ_t.data(), d_eri.data(), d.x1.data()}, {d.c_vir_t.data(), d.x1.data(), d.x2.data()},
                                                     {d.c_occ_t.data(), d.x2.data(), d.x3.data()}, {d.x3.data(), d.c_vir.data(), d.ovov.data()}};
      for (const auto& t : env.tunings)
        if (auto c = tensor4::bench_cutensor::make_chain(env, *env.ct, kase, tensor4::mp2_steps(n, prob.o, prob.v),
                                                          tf32 ? tensor4::cutensor_precision::tf32 : tensor4::cutensor_precision::fp32, t, ops))
          run("cutensor_unfused", ao2mo::mp2_unfused_bytes(n, prob.o, 4), [&] {
            tensor4::bench_cutensor::run_chain(*env.ct, *c, ops, env.stream);
            tensor4::mp2_energy(d.ovov.data(), d.e_occ.data(), d.e_vir.data(), d.partials.data(), d.energy.data(), static_cast<int>(prob.o),
                                static_cast<int>(prob.v), env.stream);
          }, c->label);
    }
    run("triton_unfused_tuned", ao2mo::mp2_unfused_bytes(n, prob.o, 4), [&] {
      ao2mo::mp2_steps_with(d, d_eri.data(), 4, gemm);
      ao2mo::mp2_energy_from_ovov(d, s);
    });
    const auto fused = tensor4::tuned_mp2_fused(tf32, prob.v);
    if (fused.cover(n, prob.o))
      run("triton_fused", ao2mo::mp2_fused_bytes(n, prob.o, 4), [&] { ao2mo::mp2_fused_with(fused, d, d_eri.data(), s, gemm); });
    else
      std::printf("%-22s triton_fused: not run (needs N, o multiples of 16 and v <= 128)\n", kase.c_str());
  }
}

// ---- AO->MO -------------------------------------------------------------------------------------

// cuBLAS: the four quarter steps (ao2mo.hpp) as strided-batched GEMMs, row-major.
void cublas_unfused(tensor4::cublas& blas, std::int64_t n, const float* eri, const float* c, float* ta, float* tb, float* mo, bool tf32) {
  const int N = static_cast<int>(n), N2 = N * N, N3 = N2 * N;
  blas.gemm_row_major(false, false, N3, N, N, eri, N, 0, c, N, 0, ta, N, 0, 1, tf32);            // T1 = I . C
  blas.gemm_row_major(true, false, N, N, N, c, N, 0, ta, N, N2, tb, N, N2, N2, tf32);            // T2[b] = C^T . T1[b]
  blas.gemm_row_major(true, false, N, N2, N, c, N, 0, tb, N2, N3, ta, N2, N3, N, tf32);          // T3[mu] = C^T . T2[mu]
  blas.gemm_row_major(true, false, N, N3, N, c, N, 0, ta, N3, 0, mo, N3, 0, 1, tf32);            // MO = C^T . T3
}

// cuBLAS in the cyclic layout (ao2mo.hpp's cyclic_quarter_step): one GEMM shape four times,
// out[x, rest] = C^T[x, k] . in[rest, k] (both operands transposed in cuBLAS's terms).
void cublas_unfused_cyclic(tensor4::cublas& blas, std::int64_t n, const float* eri, const float* c, float* ta, float* tb, float* mo, bool tf32) {
  const int N = static_cast<int>(n), N3 = N * N * N;
  blas.gemm_row_major(true, true, N, N3, N, c, N, 0, eri, N, 0, ta, N3, 0, 1, tf32);  // T1[s, mu nu lam]
  blas.gemm_row_major(true, true, N, N3, N, c, N, 0, ta, N, 0, tb, N3, 0, 1, tf32);   // T2[r, s mu nu]
  blas.gemm_row_major(true, true, N, N3, N, c, N, 0, tb, N, 0, ta, N3, 0, 1, tf32);   // T3[q, r s mu]
  blas.gemm_row_major(true, true, N, N3, N, c, N, 0, ta, N, 0, mo, N3, 0, 1, tf32);   // MO[p, q r s]
}

// With mp2 set, the MP2 energy from the same integrals follows (bench_mp2).
void bench_ao2mo(const bench_env& env, tensor4::cublas& blas, std::int64_t n, std::int64_t check_max, bool mp2) {
  const std::size_t count = ao2mo::pow4(n);
  const auto eri = ao2mo::random_integrals<float>(n, 1000 + static_cast<std::uint64_t>(n));
  const auto coef = ao2mo::random_coefficients<float>(n, 2000 + static_cast<std::uint64_t>(n));
  tritonpack::device_array<float> d_eri(eri), d_c(coef), d_ct(ao2mo::transposed(coef, n)), ta(count), tb(count), mo(count), ref_mo(count);
  const std::string kase = "ao2mo_N" + std::to_string(n);
  const double flops = ao2mo::transform_flops(n);
  auto s = reinterpret_cast<tritonpack::stream_t>(env.stream);

  // The reference: FP64 on the CPU where affordable, else cuBLAS in FP32 (checked itself at small N).
  std::vector<double> want;
  std::string ref;
  if (n <= check_max) {
    want = ao2mo::reference_transform(n, eri, coef);
    ref = "fp64 cpu";
  } else {
    cublas_unfused(blas, n, d_eri.data(), d_c.data(), ta.data(), tb.data(), ref_mo.data(), false);
    const auto r = download(ref_mo);
    want.assign(r.begin(), r.end());
    ref = "cublas fp32";
  }
  for (bool tf32 : {false, true}) {
    const char* prec = tf32 ? "tf32" : "fp32";
    const auto p = tf32 ? ao2mo::precision::tf32 : ao2mo::precision::fp32;
    if (tf32) {  // every path, cuBLAS's too, takes the inputs rounded to TF32 (ao2mo.hpp's rounded_to_tf32); `want` keeps them exact
      const auto c_in = ao2mo::rounded_to_tf32(coef);
      d_eri.upload(ao2mo::rounded_to_tf32(eri));
      d_c.upload(c_in);
      d_ct.upload(ao2mo::transposed(c_in, n));
    }
    // mo_rs_pq: the path writes mo[(r s), (p q)] (pair_transform's pair-transposed layout), compared as such.
    auto run = [&](const char* impl, double bytes, const std::function<void()>& work, bool mo_rs_pq = false, const std::string& config = "-") {
      mo.fill_bytes(0xFF);
      work();
      const auto got = download(mo);
      const double err = ao2mo::max_relative_error(mo_rs_pq ? ao2mo::transposed(got, n * n) : got, want);
      report(env, kase, impl, prec, config, flops, bytes, time_it(env, work), err, ref);
    };
    run("cublas_unfused", ao2mo::unfused_bytes(n, 4), [&] { cublas_unfused(blas, n, d_eri.data(), d_c.data(), ta.data(), tb.data(), mo.data(), tf32); });
    run("triton_unfused", ao2mo::unfused_bytes(n, 4),
        [&] { ao2mo::transform_unfused(p, n, d_eri.data(), d_c.data(), d_ct.data(), ta.data(), tb.data(), mo.data(), s); });
    run("triton_unfused_tuned", ao2mo::unfused_bytes(n, 4), [&] {
      ao2mo::transform_unfused_with(n, d_eri.data(), d_c.data(), tf32 ? d_ct.data() : nullptr, ta.data(), tb.data(), mo.data(),
                                    [&](const ao2mo::batched_gemm& g, const float* a, const float* b, float* out) { tensor4::gemm_tuned(tf32, g, a, b, out, s); });
    });
    run("cublas_unfused_cyclic", ao2mo::unfused_bytes(n, 4),
        [&] { cublas_unfused_cyclic(blas, n, d_eri.data(), d_c.data(), ta.data(), tb.data(), mo.data(), tf32); });
    if (env.ct && env.ct->available())  // cuTENSOR: the four quarter steps in either order, one plan each (as tuned)
      for (auto order : {tensor4::step_order::batched, tensor4::step_order::cyclic}) {
        const std::vector<std::array<void*, 3>> ops = {
            {d_c.data(), d_eri.data(), ta.data()}, {d_c.data(), ta.data(), tb.data()}, {d_c.data(), tb.data(), ta.data()}, {d_c.data(), ta.data(), mo.data()}};
        for (const auto& t : env.tunings)
          if (auto c = tensor4::bench_cutensor::make_chain(env, *env.ct, kase, tensor4::ao2mo_steps(n, order),
                                                            tf32 ? tensor4::cutensor_precision::tf32 : tensor4::cutensor_precision::fp32, t, ops))
            run(order == tensor4::step_order::batched ? "cutensor_unfused" : "cutensor_unfused_cyclic", ao2mo::unfused_bytes(n, 4),
                [&] { tensor4::bench_cutensor::run_chain(*env.ct, *c, ops, env.stream); }, false, c->label);
      }
    run("triton_unfused_cyclic", ao2mo::unfused_bytes(n, 4), [&] {
      ao2mo::transform_unfused_cyclic_with(n, d_eri.data(), d_ct.data(), ta.data(), tb.data(), mo.data(),
                                           [&](const ao2mo::batched_gemm& g, const float* a, const float* b, float* out) { tensor4::gemm_tuned(tf32, g, a, b, out, s); });
    });
    if (tf32)  // the MO index as the GEMM's columns (tiles of 32: no idle rows at N = 96, 160); its signature is TF32's only
      run("triton_unfused_cyclic_t", ao2mo::unfused_bytes(n, 4), [&] {
        ao2mo::transform_unfused_cyclic_with(
            n, d_eri.data(), d_ct.data(), ta.data(), tb.data(), mo.data(),
            [&](const ao2mo::batched_gemm& g, const float* a, const float* b, float* out) { tensor4::gemm_tuned(tf32, g, a, b, out, s); },
            ao2mo::cyclic_orientation::mo_columns);
      });
    const auto fused = tensor4::tuned_half_kernels(tf32);
    if (fused.cover(n))
      run("triton_fused", ao2mo::fused_bytes(n, 4), [&] { ao2mo::transform_fused(p, n, d_eri.data(), d_ct.data(), ta.data(), mo.data(), s, &fused); });
    const auto pair = tensor4::tuned_pair_kernels(tf32);
    if (pair.cover(n))
      for (auto layout : {ao2mo::mo_layout::pq_rs, ao2mo::mo_layout::rs_pq})
        run(layout == ao2mo::mo_layout::pq_rs ? "triton_fused_pair" : "triton_fused_pair_rs_pq", ao2mo::fused_bytes(n, 4),
            [&] { ao2mo::transform_fused_pair(pair, layout, n, d_eri.data(), d_ct.data(), ta.data(), mo.data(), s); },
            layout == ao2mo::mo_layout::rs_pq);
  }
  if (mp2) bench_mp2(env, blas, n, eri, coef, d_eri, n <= check_max ? &want : nullptr);
}

// ---- TCCG contractions --------------------------------------------------------------------------


void bench_tccg(const bench_env& env, tensor4::cublas& blas, const tensor4::tccg_case& c) {
  std::mt19937_64 gen(77);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> a(c.a.count()), b(c.b.count());
  for (auto& x : a) x = u(gen);
  for (auto& x : b) x = u(gen);
  // Workspaces for the permuted copies of any TTGT plan (cuBLAS's or Triton's).
  tritonpack::device_array<float> d_a(a), d_b(b), d_out(c.out.count()), pa(a.size()), pb(b.size()), pc(c.out.count());
  auto s = reinterpret_cast<tritonpack::stream_t>(env.stream);
  c.direct.check_fits_int32(c.name);

  // FP64 reference at 4096 sampled output elements (by the direct descriptor).
  std::vector<std::size_t> sample;
  std::vector<double> want;
  std::uniform_int_distribution<std::int64_t> pick_m(0, c.direct.m.extent() - 1), pick_n(0, c.direct.n.extent() - 1);
  const auto& d = c.direct;
  for (int i = 0; i < 4096; ++i) {
    const std::int64_t m = pick_m(gen), n = pick_n(gen);
    const std::int64_t m1 = m / d.m.inner, m2 = m % d.m.inner, n1 = n / d.n.inner, n2 = n % d.n.inner;
    double sum = 0;
    for (std::int64_t k1 = 0; k1 < d.k.outer; ++k1)
      for (std::int64_t k2 = 0; k2 < d.k.inner; ++k2)
        sum += static_cast<double>(a[m1 * d.sa[0] + m2 * d.sa[1] + k1 * d.sa[2] + k2 * d.sa[3]]) *
               static_cast<double>(b[k1 * d.sb[0] + k2 * d.sb[1] + n1 * d.sb[2] + n2 * d.sb[3]]);
    sample.push_back(static_cast<std::size_t>(m1 * d.so[0] + m2 * d.so[1] + n1 * d.so[2] + n2 * d.so[3]));
    want.push_back(sum);
  }
  auto sampled_error = [&] {
    const auto got = download(d_out);
    std::vector<float> picked;
    for (std::size_t i : sample) picked.push_back(got[i]);
    return ao2mo::max_relative_error(picked, want);
  };

  const double flops = c.direct.flops();
  const double direct_bytes = 4.0 * static_cast<double>(c.a.count() + c.b.count() + c.out.count());
  // TTGT: every transpose reads and writes its tensor once more.
  const double ttgt_bytes = direct_bytes + 8.0 * static_cast<double>((c.a_perm ? c.a.count() : 0) + (c.b_perm ? c.b.count() : 0) +
                                                                     (c.out_perm ? c.out.count() : 0));
  for (bool tf32 : {false, true}) {
    const char* prec = tf32 ? "tf32" : "fp32";
    if (tf32) {  // TF32: every path takes the inputs rounded to TF32 (ao2mo.hpp's rounded_to_tf32); the sampled reference keeps them exact
      d_a.upload(ao2mo::rounded_to_tf32(a));
      d_b.upload(ao2mo::rounded_to_tf32(b));
    }
    // Each TTGT also reports its GEMM alone (`*_gemm`: on the permuted copies the full run left,
    // timing only, no error): how much of the gap to cuBLAS is the GEMM and how much the permutes.
    const double nan = std::nan("");
    const float* ca = c.a_perm ? pa.data() : d_a.data();
    const float* cb = c.b_perm ? pb.data() : d_b.data();
    float* cc = c.out_perm ? pc.data() : d_out.data();
    auto cublas_gemm = [&] {
      blas.gemm_row_major(c.gemm_trans_a, false, c.gm, c.gn, c.gk, ca, c.gemm_trans_a ? c.gm : c.gk, 0, cb, c.gn, 0, cc, c.gn, 0, 1, tf32);
    };
    auto ttgt = [&] {
      if (c.a_perm) tensor4::permute4(d_a.data(), pa.data(), c.pa, env.stream);
      if (c.b_perm) tensor4::permute4(d_b.data(), pb.data(), c.pb, env.stream);
      cublas_gemm();
      if (c.out_perm) tensor4::permute4(pc.data(), d_out.data(), c.pout, env.stream);
    };
    d_out.fill_bytes(0xFF);
    ttgt();
    report(env, c.name, "cublas_ttgt", prec, "-", flops, ttgt_bytes, time_it(env, ttgt), sampled_error(), "fp64 cpu sample");
    report(env, c.name, "cublas_ttgt_gemm", prec, "-", flops, direct_bytes, time_it(env, cublas_gemm), nan, "timing only");
    // Triton TTGT (permute_plan.hpp): permute4 + the tuned `gemm`, b laid out for the precision —
    // K-major for TF32 (wgmma), N-major for FP32 (the FMA kernel's fast layout, as cuBLAS's TTGT) —
    // and where b is contiguous along n in place (abcd-ea-ebcd), also the plan that leaves it there.
    const auto main_layout = tf32 ? tensor4::b_layout::k_major : tensor4::b_layout::n_major;
    const tensor4::ttgt_plan main_plan = tensor4::plan_ttgt(c.direct, main_layout);
    for (bool b_in_place : {false, true}) {
      const tensor4::ttgt_plan t = b_in_place ? tensor4::plan_ttgt(c.direct, tensor4::b_layout::k_major_or_n_in_place) : main_plan;
      if (b_in_place && t.permute_b == main_plan.permute_b) continue;  // the same plan as the main one
      const float* ta = t.permute_a ? pa.data() : d_a.data();
      const float* tb = t.permute_b ? pb.data() : d_b.data();
      float* tc = t.permute_out ? pc.data() : d_out.data();
      auto triton_gemm = [&] { tensor4::gemm_tuned(tf32, t.gemm, ta, tb, tc, s); };
      auto triton_ttgt = [&] {
        if (t.permute_a) tensor4::permute4_triton(d_a.data(), pa.data(), t.pa, s);
        if (t.permute_b) tensor4::permute4_triton(d_b.data(), pb.data(), t.pb, s);
        triton_gemm();
        if (t.permute_out) tensor4::permute4_triton(pc.data(), d_out.data(), t.pout, s);
      };
      const std::string impl = b_in_place ? "triton_ttgt_b_in_place" : "triton_ttgt";
      d_out.fill_bytes(0xFF);
      triton_ttgt();
      report(env, c.name, impl, prec, "tuned", flops,
             tensor4::ttgt_bytes(t, static_cast<std::int64_t>(c.a.count()), static_cast<std::int64_t>(c.b.count()), static_cast<std::int64_t>(c.out.count())),
             time_it(env, triton_ttgt), sampled_error(), "fp64 cpu sample");
      report(env, c.name, impl + "_gemm", prec, "tuned", flops, direct_bytes, time_it(env, triton_gemm), nan, "timing only");
    }
    for (const auto& cfg : tensor4::contract_configs) {
      if (cfg.tf32 != tf32) continue;
      auto direct = [&] { cfg.fn(d_a.data(), d_b.data(), d_out.data(), c.direct, s); };
      d_out.fill_bytes(0xFF);
      direct();
      report(env, c.name, "triton_direct", prec, cfg.name, flops, direct_bytes, time_it(env, direct), sampled_error(), "fp64 cpu sample");
    }
    if (c.direct.m.outer == 1 && c.direct.k.outer == 1) {  // a batched GEMM: the tuned `gemm` reads it in place too
      const ao2mo::batched_gemm g = ao2mo::as_batched_gemm(c.direct);
      auto direct = [&] { tensor4::gemm_tuned(tf32, g, d_a.data(), d_b.data(), d_out.data(), s); };
      d_out.fill_bytes(0xFF);
      direct();
      report(env, c.name, "triton_gemm", prec, "tuned", flops, direct_bytes, time_it(env, direct), sampled_error(), "fp64 cpu sample");
    }
    if (env.ct) tensor4::bench_cutensor::bench_tccg_fp32(env, *env.ct, c, tf32, env.tunings, d_a, d_b, d_out, sampled_error);
  }
  if (env.ct) tensor4::bench_cutensor::bench_tccg_fp64(env, *env.ct, c, env.tunings);
}

std::vector<std::int64_t> parse_sizes(const std::string& s, const std::string& option = "--sizes") {
  std::vector<std::int64_t> v;
  std::size_t start = 0;
  while (start < s.size()) {
    const std::size_t comma = std::min(s.find(',', start), s.size());
    const long long n = std::atoll(s.substr(start, comma - start).c_str());
    if (n < 1 || n > 212) throw std::invalid_argument(option + ": '" + s.substr(start, comma - start) + "' is not an N in [1, 212]");
    v.push_back(n);
    start = comma + 1;
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) try {
  bench_env env;
  std::vector<std::int64_t> sizes{64, 96, 128, 160};
  bool mp2 = true;
  std::string cublas_path, csv_path, cutensor_path, tunings = "heuristic,autotune8";
  std::vector<std::int64_t> step_sizes;                 // --steps: the single quarter steps (off by default)
  std::vector<tensor4::bench_fusion::ladder_size> fusion;  // --fusion: the fusion case (off by default)
  std::int64_t check_max = 64;
  bool tccg = true, list = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    if (a == "--sizes") sizes = parse_sizes(value());
    else if (a == "--no-mp2") mp2 = false;
    else if (a == "--no-ao2mo") sizes.clear();  // TCCG only
    else if (a == "--reps") env.reps = std::max(1, std::atoi(value().c_str()));
    else if (a == "--warmup") env.warmup = std::max(0, std::atoi(value().c_str()));
    else if (a == "--cublas") cublas_path = value();
    else if (a == "--csv") csv_path = value();
    else if (a == "--check-max") check_max = std::atoll(value().c_str());
    else if (a == "--no-tccg") tccg = false;
    else if (a == "--cutensor") cutensor_path = value();
    else if (a == "--cutensor-tuning") tunings = value();
    else if (a == "--steps") step_sizes = parse_sizes(value(), a);
    else if (a == "--fusion") fusion = tensor4::bench_fusion::parse_ladder_sizes(value());
    else if (a == "--list") list = true;
    else throw std::invalid_argument("unknown option '" + a + "' (see bench.cpp's header)");
  }
  if (list) {  // what a run would do, with no GPU and no cuBLAS: the cuTENSOR status and contractions
    env.tunings = tensor4::parse_tunings(tunings);
    const tensor4::cutensor ct(cutensor_path);
    std::printf("cuTENSOR: %s\n", ct.available() ? ("loaded from " + ct.path()).c_str() : ct.why_absent().c_str());
    tensor4::bench_fusion::list_plans(sizes, mp2, tccg, step_sizes, fusion, env.tunings);
    return 0;
  }
  cudaDeviceProp prop{};
  cuda_check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  cuda_check(cudaStreamCreate(&env.stream), "cudaStreamCreate");
  tensor4::cublas blas(cublas_path);  // first: it brings in libcublasLt.so.13, which libcutensor.so.2 needs
  blas.set_stream(env.stream);
  env.tunings = tensor4::parse_tunings(tunings);
  const tensor4::cutensor ct(cutensor_path);
  env.ct = &ct;
  std::printf("tensor4_bench on %s; cuBLAS %s; %d reps (median), %d warm-up\n", prop.name, blas.path().c_str(), env.reps, env.warmup);
  if (ct.available())
    std::printf("cuTENSOR %s (version %zu); plans: %s\n", ct.path().c_str(), ct.version(), tunings.c_str());
  else
    std::printf("cuTENSOR: its rows are skipped: %s\n", ct.why_absent().c_str());
  if (!csv_path.empty()) {
    env.csv = std::fopen(csv_path.c_str(), "w");
    if (!env.csv) throw std::runtime_error("cannot write " + csv_path);
    std::fprintf(env.csv, "case,impl,precision,config,ms_median,ms_p10,ms_p90,flops,model_bytes,gflops,gbs,max_rel_err,reference\n");
  }
  for (std::int64_t n : sizes) bench_ao2mo(env, blas, n, check_max, mp2);
  if (tccg)
    for (const auto& c : tensor4::tccg_cases()) bench_tccg(env, blas, c);
  for (std::int64_t n : step_sizes) tensor4::bench_cutensor::bench_steps(env, ct, blas, n, env.tunings);
  for (const auto& f : fusion) tensor4::bench_fusion::bench_ladder(env, ct, blas, f, env.tunings);
  if (env.csv) std::fclose(env.csv);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "tensor4_bench: %s\n", e.what());
  return 1;
}
