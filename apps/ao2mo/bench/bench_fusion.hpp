// bench_fusion.hpp — "where fusion pays" (issue 31): a contraction followed by an elementwise
// epilogue and a reduction, which a vendor library runs as separate passes. The case: a coupled-
// cluster-style amplitude update with the hole-hole ladder term,
//
//   X[ij, ab] = sum_kl W[ij, kl] T[kl, ab],   t_new = t_old + X / (e_i + e_j - e_a - e_b),   norm =
//   sum (X / D)^2,
//
// o^2 occupied pairs (M = K = o^2), v^2 virtual pairs (N = v^2): with K = 64 (o = 8) the products
// are cheap next to the traffic, so every path is memory-bound. Paths, timed interleaved:
//   cutensor+epilogue  cuTENSOR writes X, then ladder_epilogue.cu reads X and t_old, writes t_new
//   cublas+epilogue    the same with one cuBLAS GEMM writing X
//   triton_unfused     the tuned Triton gemm writing X, then the same epilogue
//   triton_fused       kernels.py's ladder_update (each config): X stays in registers
// Bytes each must move (FP32, analytic): unfused 4 (MK + KN + MN) for the product + 4 (3 MN) for
// the epilogue (X, t_old read, t_new written); fused 4 (MK + KN + 2 MN); both + the denominators.
// Checked: t_new at 4096 sampled elements and the norm against FP64 on the CPU (exact inputs; TF32
// paths take them rounded), outputs poisoned first.
#pragma once

#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "ao2mo.hpp"
#include "bench_cutensor.hpp"
#include "bench_util.hpp"
#include "cublas_loader.hpp"
#include "ladder_epilogue.hpp"
#include "tensor4_configs_table.hpp"

namespace tensor4::bench_fusion {

using bench_util::bench_env;
using bench_util::cuda_check;

struct ladder_size {
  std::int64_t o, v;
};

// "8:512,8:768" -> {(8, 512), (8, 768)}; o^2 and v^2 must be multiples of 16 (the kernels' i32:16).
inline std::vector<ladder_size> parse_ladder_sizes(const std::string& list) {
  std::vector<ladder_size> out;
  std::size_t start = 0;
  while (start < list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string item = list.substr(start, comma - start);
    start = comma + 1;
    const std::size_t colon = item.find(':');
    const long long o = colon == std::string::npos ? 0 : std::atoll(item.substr(0, colon).c_str());
    const long long v = colon == std::string::npos ? 0 : std::atoll(item.substr(colon + 1).c_str());
    if (o < 4 || v < 4 || (o * o) % 16 || (v * v) % 16 || o * o * v * v >= (1ll << 31))
      throw std::invalid_argument(
          "--fusion: '" + item +
          "' is not o:v with o, v >= 4, o^2 and v^2 multiples of 16 and o^2 v^2 < 2^31");
    out.push_back({o, v});
  }
  return out;
}

inline double unfused_bytes(std::int64_t m, std::int64_t n, std::int64_t k) {
  return 4.0 * static_cast<double>(m * k + k * n + m * n) + 4.0 * 3.0 * static_cast<double>(m * n) +
         4.0 * static_cast<double>(m + n);
}
inline double fused_bytes(std::int64_t m, std::int64_t n, std::int64_t k) {
  return 4.0 * static_cast<double>(m * k + k * n + 2 * m * n) + 4.0 * static_cast<double>(m + n);
}

inline void bench_ladder(const bench_env& env, const cutensor& ct, cublas& blas,
                         const ladder_size& size, const std::vector<cutensor_tuning>& tunings) {
  const std::int64_t m = size.o * size.o, k = m, n = size.v * size.v;
  const auto p = ladder_problem(size.o, size.v);
  const std::string kase = p.name;
  std::mt19937_64 gen(4242 + static_cast<std::uint64_t>(n));
  std::uniform_real_distribution<float> u(-1.0f, 1.0f), occ(-2.0f, -0.3f), vir(0.2f, 3.0f);
  std::vector<float> w(static_cast<std::size_t>(m * k)), t(static_cast<std::size_t>(k * n)),
      t_old(static_cast<std::size_t>(m * n)), e_occ, e_vir;
  for (auto& x : w) x = u(gen);
  for (auto& x : t) x = u(gen);
  for (auto& x : t_old) x = u(gen);
  for (std::int64_t i = 0; i < size.o; ++i) e_occ.push_back(occ(gen));
  for (std::int64_t a = 0; a < size.v; ++a) e_vir.push_back(vir(gen));
  std::vector<float> d_row, d_col;
  for (float ei : e_occ)
    for (float ej : e_occ) d_row.push_back(ei + ej);
  for (float ea : e_vir)
    for (float eb : e_vir) d_col.push_back(-(ea + eb));
  // FP64 reference: the whole update (its norm) and t_new at 4096 sampled elements.
  std::vector<double> x_ref(static_cast<std::size_t>(m * n), 0.0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t kk = 0; kk < k; ++kk) {
      const double wik = w[static_cast<std::size_t>(i * k + kk)];
      const float* trow = &t[static_cast<std::size_t>(kk * n)];
      double* xrow = &x_ref[static_cast<std::size_t>(i * n)];
      for (std::int64_t j = 0; j < n; ++j) xrow[j] += wik * trow[j];
    }
  double norm_ref = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const double up =
          x_ref[static_cast<std::size_t>(i * n + j)] /
          (double(d_row[static_cast<std::size_t>(i)]) + d_col[static_cast<std::size_t>(j)]);
      norm_ref += up * up;
      x_ref[static_cast<std::size_t>(i * n + j)] =
          t_old[static_cast<std::size_t>(i * n + j)] + up;  // now t_new
    }
  std::vector<std::size_t> sample;
  std::uniform_int_distribution<std::int64_t> pick(0, m * n - 1);
  for (int i = 0; i < 4096; ++i) sample.push_back(static_cast<std::size_t>(pick(gen)));

  tritonpack::device_array<float> d_w(w), d_t(t), d_told(t_old), d_drow(d_row), d_dcol(d_col),
      d_x(static_cast<std::size_t>(m * n)), d_tnew(static_cast<std::size_t>(m * n));
  std::int64_t most_programs = ladder_epilogue_blocks;
  for (const auto& c : ladder_configs) most_programs = std::max(most_programs, c.programs(m, n));
  tritonpack::device_array<double> partials(static_cast<std::size_t>(most_programs)), norm(1);
  auto s = reinterpret_cast<tritonpack::stream_t>(env.stream);
  using ao2mo::i32;
  const double flops =
      p.flops() + 5.0 * static_cast<double>(m * n);  // the update: add, divide, add, square, sum

  for (bool tf32 : {false, true}) {
    const char* prec = tf32 ? "tf32" : "fp32";
    if (tf32) {  // every path takes W and T rounded to TF32; the reference keeps them exact
      d_w.upload(ao2mo::rounded_to_tf32(w));
      d_t.upload(ao2mo::rounded_to_tf32(t));
    }
    struct path {
      std::string impl, config;
      double bytes;
      std::function<void()> work;
    };
    std::vector<path> paths;
    auto epilogue = [&] {
      ladder_epilogue(d_x.data(), d_told.data(), d_drow.data(), d_dcol.data(), d_tnew.data(),
                      partials.data(), norm.data(), m, n, env.stream);
    };
    // cuTENSOR: the best of the tunings asked for (each a row), X written, then the epilogue.
    std::vector<std::unique_ptr<bench_cutensor::chain>> ct_plans;
    for (const auto& tn : tunings) {
      auto c = bench_cutensor::make_chain(
          env, ct, kase, {p}, tf32 ? cutensor_precision::tf32 : cutensor_precision::fp32, tn,
          {{d_w.data(), d_t.data(), d_x.data()}});
      if (!c) continue;
      bench_cutensor::chain* raw = c.get();
      ct_plans.push_back(std::move(c));
      paths.push_back({"cutensor+epilogue", raw->label, unfused_bytes(m, n, k), [&, raw] {
                         bench_cutensor::run_chain(ct, *raw, {{d_w.data(), d_t.data(), d_x.data()}},
                                                   env.stream);
                         epilogue();
                       }});
    }
    if (!ct.available())
      std::printf("%-22s cutensor+epilogue: not run (%s)\n", kase.c_str(), ct.why_absent().c_str());
    paths.push_back({"cublas+epilogue", "-", unfused_bytes(m, n, k), [&] {
                       blas.gemm_row_major(false, false, static_cast<int>(m), static_cast<int>(n),
                                           static_cast<int>(k), d_w.data(), static_cast<int>(k), 0,
                                           d_t.data(), static_cast<int>(n), 0, d_x.data(),
                                           static_cast<int>(n), 0, 1, tf32);
                       epilogue();
                     }});
    ao2mo::batched_gemm g;
    g.batches = 1, g.m = m, g.n = n, g.k = k;
    const std::int64_t sa[3] = {0, k, 1}, sb[3] = {0, n, 1}, so[3] = {0, n, 1};
    std::copy(sa, sa + 3, g.sa), std::copy(sb, sb + 3, g.sb), std::copy(so, so + 3, g.so);
    paths.push_back({"triton_unfused", "tuned", unfused_bytes(m, n, k), [&, g] {
                       gemm_tuned(tf32, g, d_w.data(), d_t.data(), d_x.data(), s);
                       epilogue();
                     }});
    for (const auto& c : ladder_configs) {
      if (c.tf32 != tf32) continue;
      const ladder_config* cfg = &c;
      paths.push_back(
          {"triton_fused", c.name, fused_bytes(m, n, k), [&, cfg] {
             cfg->fn(d_w.data(), d_t.data(), d_told.data(), d_tnew.data(), d_drow.data(),
                     d_dcol.data(), partials.data(), i32(m), i32(n), i32(k), s);
             ao2mo_kernels::sum_partials(partials.data(), norm.data(), i32(cfg->programs(m, n)), s);
           }});
    }
    // Checks (poisoned outputs), then the interleaved timing.
    std::vector<double> errors;
    for (const auto& pa : paths) {
      d_tnew.fill_bytes(0xFF);
      d_x.fill_bytes(0xFF);
      norm.fill_bytes(0xFF);
      pa.work();
      cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
      const auto got = d_tnew.to_host();
      const double got_norm = norm.to_host()[0];
      double worst = 0, scale = 0;
      for (std::size_t i : sample) {
        worst = std::max(worst, std::isnan(got[i]) ? INFINITY : std::abs(got[i] - x_ref[i]));
        scale = std::max(scale, std::abs(x_ref[i]));
      }
      const double norm_err =
          std::isnan(got_norm) ? INFINITY : std::abs(got_norm - norm_ref) / norm_ref;
      errors.push_back(std::max(worst / scale, norm_err));
    }
    std::vector<std::function<void()>> works;
    for (const auto& pa : paths) works.push_back(pa.work);
    const auto times = bench_util::time_interleaved(env, works);
    double best_vendor = INFINITY, best_fused = INFINITY;
    std::string best_fused_cfg;
    for (std::size_t i = 0; i < paths.size(); ++i) {
      bench_util::report(env, kase, paths[i].impl, prec, paths[i].config, flops, paths[i].bytes,
                         times[i], errors[i], "fp64 cpu");
      if (paths[i].impl == "cutensor+epilogue" || paths[i].impl == "cublas+epilogue")
        best_vendor = std::min(best_vendor, times[i].median);
      if (paths[i].impl == "triton_fused" && times[i].median < best_fused)
        best_fused = times[i].median, best_fused_cfg = paths[i].config;
    }
    std::printf(
        "fusion %-15s %s: best vendor %.3f ms (%.0f MB), triton_fused %.3f ms (%s, %.0f MB): "
        "%.2fx\n",
        kase.c_str(), prec, best_vendor, unfused_bytes(m, n, k) * 1e-6, best_fused,
        best_fused_cfg.c_str(), fused_bytes(m, n, k) * 1e-6, best_vendor / best_fused);
    std::fflush(stdout);
  }
}

inline std::string describe(const mode_tensor& t) {
  std::string s;
  for (std::size_t i = 0; i < t.modes.size(); ++i)
    s += std::string(i ? "," : "") + static_cast<char>(t.modes[i]) + "=" +
         std::to_string(t.extents[i]) + "/" + std::to_string(t.strides[i]);
  return s;
}

// --list: the cuTENSOR contractions a run with these options plans (modes with extent/stride,
// flops, the bytes each must move at least) and the tunings, with no GPU.
inline void list_plans(const std::vector<std::int64_t>& sizes, bool mp2, bool tccg,
                       const std::vector<std::int64_t>& step_sizes,
                       const std::vector<ladder_size>& fusion,
                       const std::vector<cutensor_tuning>& tunings) {
  std::string labels;
  for (const auto& t : tunings) labels += " " + t.label();
  std::printf("plans per contraction:%s\n", labels.c_str());
  auto show = [](const std::string& where, const mode_contraction& p) {
    std::printf("  %-24s %-12s D[%s] = A[%s] B[%s]  %.3g GFLOP, >= %.1f MB (FP32)\n", where.c_str(),
                p.name.c_str(), describe(p.d).c_str(), describe(p.a).c_str(), describe(p.b).c_str(),
                p.flops() * 1e-9, p.min_bytes(4) * 1e-6);
  };
  for (std::int64_t n : sizes) {
    for (auto order : {step_order::batched, step_order::cyclic})
      for (const auto& p : ao2mo_steps(n, order))
        show(std::string("ao2mo_N") + std::to_string(n) +
                 (order == step_order::batched ? " chain" : " cyclic chain"),
             p);
    if (mp2)
      for (const auto& p : mp2_steps(n, ao2mo::default_occupied(n), n - ao2mo::default_occupied(n)))
        show("mp2_N" + std::to_string(n) + " chain", p);
  }
  if (tccg)
    for (const auto& c : tccg_cases()) show("tccg (fp32, tf32, fp64)", tccg_problem(c));
  for (std::int64_t n : step_sizes)
    for (auto order : {step_order::batched, step_order::cyclic})
      for (const auto& p : ao2mo_steps(n, order))
        show("step_N" + std::to_string(n) + " (3 precisions)", p);
  for (const auto& f : fusion) {
    const std::int64_t m = f.o * f.o, n = f.v * f.v;
    show("fusion + epilogue", ladder_problem(f.o, f.v));
    std::printf("  %-24s bytes to move: unfused %.1f MB, fused %.1f MB\n", "",
                unfused_bytes(m, n, m) * 1e-6, fused_bytes(m, n, m) * 1e-6);
  }
}

}  // namespace tensor4::bench_fusion
