// bench_cutensor.hpp — apps/ao2mo/bench's vendor tensor library path (issue 31): cuTENSOR 2.x
// (cutensor_loader.hpp, dlopen'ed) on the contractions of cutensor_problems.hpp.
//
//   * plans: cuTENSOR's heuristic, its patient model or incremental autotuning (--cutensor-tuning),
//     each a row of its own ("config" = the tuning); incremental autotuning runs its trial plans on
//     the operands before the timed runs, as cuTENSOR's autotuning sample does;
//   * chains: the four AO->MO quarter steps (both orders) and the four MP2 steps, one plan per
//     step, run back to back (bench.cpp's `cutensor_*` rows next to cuBLAS and Triton);
//   * single contractions (--steps): every AO->MO quarter step of both orders at each N on random
//     inputs, FP32, TF32 and FP64, with cuBLAS's and the tuned Triton `gemm`'s same step beside it
//     (FP32, TF32), each checked against the FP64 CPU reference at 4096 sampled outputs, outputs
//     poisoned first; and the TCCG cases in FP64 (FP32 and TF32 are in bench.cpp's TCCG section).
#pragma once

#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ao2mo.hpp"
#include "bench_util.hpp"
#include "cublas_loader.hpp"
#include "cutensor_loader.hpp"
#include "cutensor_problems.hpp"
#include "tccg_cases.hpp"
#include "tensor4_configs_table.hpp"

namespace tensor4::bench_cutensor {

using bench_util::bench_env;
using bench_util::cuda_check;
using bench_util::report;
using bench_util::time_it;

// Device bytes for a plan's workspace (grown on demand, never shrunk).
struct workspace {
  tritonpack::device_array<double> mem;
  void reserve(std::uint64_t bytes) {
    const std::size_t words = static_cast<std::size_t>((bytes + 7) / 8);
    if (words > mem.size()) mem = tritonpack::device_array<double>(words);
  }
  void* data() const { return mem.data(); }
  std::uint64_t bytes() const { return 8ull * mem.size(); }
};

// The plan for p as `tuning` says. Incremental autotuning: `count` trial plans, each run once on
// (a, b, d) and waited for (cuTENSOR times each and caches the fastest), then the plan that the
// cache now gives. Throws (naming the step) where cuTENSOR refuses.
inline std::unique_ptr<cutensor_plan> make_plan(const bench_env& env, const cutensor& ct,
                                                const mode_contraction& p, cutensor_precision prec,
                                                const cutensor_tuning& tuning, const void* a,
                                                const void* b, void* d, workspace& ws) {
  if (tuning.how == cutensor_tuning::kind::incremental)
    for (std::uint32_t i = 0; i < tuning.incremental_count; ++i) {
      auto trial = ct.plan(p, prec, tuning);
      ws.reserve(trial->workspace_bytes);
      ct.contract(*trial, a, b, d, ws.data(), ws.bytes(), env.stream);
      cuda_check(cudaStreamSynchronize(env.stream), "cudaStreamSynchronize (cuTENSOR autotuning)");
    }
  auto plan = ct.plan(p, prec, tuning);
  ws.reserve(plan->workspace_bytes);
  return plan;
}

// FP64 reference values of D at 4096 sampled outputs (exact inputs), and the check of a device D.
struct sampled_check {
  std::vector<std::int64_t> offsets;
  std::vector<double> want;
  template <class TA, class TB>
  sampled_check(const mode_contraction& p, const std::vector<TA>& a, const std::vector<TB>& b,
                std::uint64_t seed) {
    want = reference_contract(p, a, b, sample_outputs(p, 4096, seed), &offsets);
  }
  // max |x - ref| / max |ref| over the samples; a NaN (an output never written) counts as infinite.
  // Reads only the sampled elements (the tensors reach 2.6 GB in FP32 at N = 160).
  template <class T>
  double error(const tritonpack::device_array<T>& d) const {
    cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    double worst = 0, scale = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
      T got{};
      cuda_check(cudaMemcpy(&got, d.data() + offsets[i], sizeof(T), cudaMemcpyDeviceToHost),
                 "cudaMemcpy (sampled check)");
      const double x = static_cast<double>(got);
      worst = std::max(worst, std::isnan(x) ? INFINITY : std::abs(x - want[i]));
      scale = std::max(scale, std::abs(want[i]));
    }
    return worst / scale;
  }
};

// One cuTENSOR row: plan, poisoned D, one run, the sampled check, the timed runs. A refused plan
// prints why and is skipped.
template <class T>
void run_one(const bench_env& env, const cutensor& ct, const std::string& kase,
             const mode_contraction& p, cutensor_precision prec, const cutensor_tuning& tuning,
             const tritonpack::device_array<T>& a, const tritonpack::device_array<T>& b,
             tritonpack::device_array<T>& d, const sampled_check& check, workspace& ws) {
  std::unique_ptr<cutensor_plan> plan;
  try {
    plan = make_plan(env, ct, p, prec, tuning, a.data(), b.data(), d.data(), ws);
  } catch (const std::exception& e) {
    std::printf("%-22s cutensor        %-4s %-22s skipped: %s\n", kase.c_str(), name_of(prec),
                tuning.label().c_str(), e.what());
    return;
  }
  auto work = [&] {
    ct.contract(*plan, a.data(), b.data(), d.data(), ws.data(), ws.bytes(), env.stream);
  };
  d.fill_bytes(0xFF);
  work();
  const double err = check.error(d);
  report(env, kase, "cutensor", name_of(prec), tuning.label(), p.flops(), p.min_bytes(sizeof(T)),
         time_it(env, work), err, "fp64 cpu sample");
}

// The four plans of a chain (AO->MO or MP2 steps), for bench.cpp's full-transformation rows.
struct chain {
  std::vector<std::unique_ptr<cutensor_plan>> plans;
  workspace ws;
  std::string label;
};

// Plans for `steps` in this precision; `operands[i]` = {a, b, d} of step i (the buffers the chain
// runs on: incremental autotuning tries its kernels there). Empty (with the reason printed under
// `kase`) where cuTENSOR is absent or refuses a step.
inline std::unique_ptr<chain> make_chain(const bench_env& env, const cutensor& ct,
                                         const std::string& kase,
                                         const std::vector<mode_contraction>& steps,
                                         cutensor_precision prec, const cutensor_tuning& tuning,
                                         const std::vector<std::array<void*, 3>>& operands) {
  if (!ct.available()) return nullptr;
  std::unique_ptr<chain> c(new chain);
  c->label = tuning.label();
  try {
    for (std::size_t i = 0; i < steps.size(); ++i)
      c->plans.push_back(make_plan(env, ct, steps[i], prec, tuning, operands[i][0], operands[i][1],
                                   operands[i][2], c->ws));
  } catch (const std::exception& e) {
    std::printf("%-22s cutensor        %-4s %-22s skipped: %s\n", kase.c_str(), name_of(prec),
                tuning.label().c_str(), e.what());
    return nullptr;
  }
  return c;
}

inline void run_chain(const cutensor& ct, const chain& c,
                      const std::vector<std::array<void*, 3>>& operands, cudaStream_t stream) {
  for (std::size_t i = 0; i < c.plans.size(); ++i)
    ct.contract(*c.plans[i], operands[i][0], operands[i][1], operands[i][2], c.ws.data(),
                c.ws.bytes(), stream);
}

// --steps: every AO->MO quarter step of both orders at N, alone, on random inputs (C and a random
// N^4 tensor, uploaded once per precision), cuTENSOR in every tuning and precision, cuBLAS and the
// tuned Triton gemm (FP32, TF32).
inline void bench_steps(const bench_env& env, const cutensor& ct, cublas& blas, std::int64_t n,
                        const std::vector<cutensor_tuning>& tunings) {
  const std::size_t count = ao2mo::pow4(n);
  const auto x = ao2mo::random_integrals<float>(n, 5000 + static_cast<std::uint64_t>(n));
  const auto coef = ao2mo::random_coefficients<float>(n, 6000 + static_cast<std::uint64_t>(n));
  auto s = reinterpret_cast<tritonpack::stream_t>(env.stream);
  const int N = static_cast<int>(n), N2 = N * N, N3 = N2 * N;
  struct step {
    step_order order;
    int i;
    mode_contraction p;
    sampled_check check;
    std::string kase;
  };
  std::vector<step> steps;
  for (auto order : {step_order::batched, step_order::cyclic}) {
    const auto ps = ao2mo_steps(n, order);
    for (int i = 0; i < 4; ++i)
      steps.push_back({order, i, ps[static_cast<std::size_t>(i)],
                       sampled_check(ps[static_cast<std::size_t>(i)], coef, x,
                                     7000 + static_cast<std::uint64_t>(i)),
                       "step_N" + std::to_string(n) + "_" + ps[static_cast<std::size_t>(i)].name});
  }
  workspace ws;
  {  // FP32 and TF32: cuTENSOR, cuBLAS, Triton
    tritonpack::device_array<float> d_c(coef), d_ct(ao2mo::transposed(coef, n)), d_x(x),
        d_out(count);
    for (bool tf32 : {false, true}) {
      const char* prec = tf32 ? "tf32" : "fp32";
      if (tf32) {  // every path takes the inputs rounded to TF32; the reference keeps them exact
        const auto c_in = ao2mo::rounded_to_tf32(coef);
        d_c.upload(c_in);
        d_ct.upload(ao2mo::transposed(c_in, n));
        d_x.upload(ao2mo::rounded_to_tf32(x));
      }
      for (const step& st : steps) {
        if (ct.available())
          for (const auto& t : tunings)
            run_one(env, ct, st.kase, st.p,
                    tf32 ? cutensor_precision::tf32 : cutensor_precision::fp32, t, d_c, d_x, d_out,
                    st.check, ws);
        const int i = st.i;
        const bool cyclic = st.order == step_order::cyclic;
        // cuBLAS: bench.cpp's cublas_unfused / cublas_unfused_cyclic, this step alone.
        auto cublas_step = [&] {
          const float *c = d_c.data(), *in = d_x.data();
          float* out = d_out.data();
          if (cyclic)
            blas.gemm_row_major(true, true, N, N3, N, c, N, 0, in, N, 0, out, N3, 0, 1, tf32);
          else if (i == 0)
            blas.gemm_row_major(false, false, N3, N, N, in, N, 0, c, N, 0, out, N, 0, 1, tf32);
          else if (i == 1)
            blas.gemm_row_major(true, false, N, N, N, c, N, 0, in, N, N2, out, N, N2, N2, tf32);
          else if (i == 2)
            blas.gemm_row_major(true, false, N, N2, N, c, N, 0, in, N2, N3, out, N2, N3, N, tf32);
          else blas.gemm_row_major(true, false, N, N3, N, c, N, 0, in, N3, 0, out, N3, 0, 1, tf32);
        };
        // Triton: the tuned gemm with triton_ao2mo.hpp's descriptors for this step.
        auto triton_step = [&] {
          if (cyclic) {
            gemm_tuned(tf32, ao2mo::cyclic_quarter_step(n), d_ct.data(), d_x.data(), d_out.data(),
                       s);
          } else if (i == 0) {
            gemm_tuned(tf32, ao2mo::as_batched_gemm(ao2mo::quarter_step(1, n)), d_x.data(),
                       d_c.data(), d_out.data(), s);
          } else {
            const ao2mo::batched_gemm g = ao2mo::as_batched_gemm(ao2mo::quarter_step(i + 1, n));
            if (tf32)
              gemm_tuned(tf32, ao2mo::reading_coef_t(g), d_ct.data(), d_x.data(), d_out.data(), s);
            else gemm_tuned(tf32, g, d_c.data(), d_x.data(), d_out.data(), s);
          }
        };
        const std::pair<const char*, std::function<void()>> others[] = {
            {"cublas", cublas_step}, {"triton_gemm", triton_step}};
        for (const auto& [impl, work] : others) {
          d_out.fill_bytes(0xFF);
          work();
          const double err = st.check.error(d_out);
          report(env, st.kase, impl, prec, impl[0] == 't' ? "tuned" : "-", st.p.flops(),
                 st.p.min_bytes(4), time_it(env, work), err, "fp64 cpu sample");
        }
      }
    }
  }
  if (ct.available()) {  // FP64: cuTENSOR only (the bench's cuBLAS and Triton paths are FP32)
    tritonpack::device_array<double> d_c(std::vector<double>(coef.begin(), coef.end())),
        d_x(std::vector<double>(x.begin(), x.end())), d_out(count);
    for (const step& st : steps)
      for (const auto& t : tunings)
        run_one(env, ct, st.kase, st.p, cutensor_precision::fp64, t, d_c, d_x, d_out, st.check, ws);
  }
}

// The TCCG cases in FP64 through cuTENSOR (bench.cpp's TCCG section has FP32 and TF32 for every
// path).
inline void bench_tccg_fp64(const bench_env& env, const cutensor& ct, const tccg_case& c,
                            const std::vector<cutensor_tuning>& tunings) {
  if (!ct.available()) return;
  const mode_contraction p = tccg_problem(c);
  std::mt19937_64 gen(77);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> a(c.a.count()), b(c.b.count());
  for (auto& v : a) v = u(gen);
  for (auto& v : b) v = u(gen);
  const sampled_check check(p, a, b, 78);
  tritonpack::device_array<double> d_a(a), d_b(b), d_out(c.out.count());
  workspace ws;
  for (const auto& t : tunings)
    run_one(env, ct, c.name, p, cutensor_precision::fp64, t, d_a, d_b, d_out, check, ws);
}

// FP32 / TF32 TCCG rows for bench.cpp's section (its inputs, its sampled check as `error`).
inline void bench_tccg_fp32(const bench_env& env, const cutensor& ct, const tccg_case& c, bool tf32,
                            const std::vector<cutensor_tuning>& tunings,
                            const tritonpack::device_array<float>& d_a,
                            const tritonpack::device_array<float>& d_b,
                            tritonpack::device_array<float>& d_out,
                            const std::function<double()>& error) {
  if (!ct.available()) return;
  const mode_contraction p = tccg_problem(c);
  const auto prec = tf32 ? cutensor_precision::tf32 : cutensor_precision::fp32;
  workspace ws;
  for (const auto& t : tunings) {
    std::unique_ptr<cutensor_plan> plan;
    try {
      plan = make_plan(env, ct, p, prec, t, d_a.data(), d_b.data(), d_out.data(), ws);
    } catch (const std::exception& e) {
      std::printf("%-22s cutensor        %-4s %-22s skipped: %s\n", c.name.c_str(), name_of(prec),
                  t.label().c_str(), e.what());
      continue;
    }
    auto work = [&] {
      ct.contract(*plan, d_a.data(), d_b.data(), d_out.data(), ws.data(), ws.bytes(), env.stream);
    };
    d_out.fill_bytes(0xFF);
    work();
    const double err = error();
    report(env, c.name, "cutensor", name_of(prec), t.label(), p.flops(), p.min_bytes(4),
           time_it(env, work), err, "fp64 cpu sample");
  }
}

}  // namespace tensor4::bench_cutensor
