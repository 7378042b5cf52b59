// bench/autotune — does tritonpack choose well among a kernel's configs on this GPU?
//
// For the fp16 matmul (6 configs) over 10 shapes and the row softmax (5 configs) over 8 row widths,
// each shape in the specialisation (signature, kernels.toml) the generated function dispatches to:
//   oracle   every config timed by hand (launch_variant), interleaved rounds, L2 flushed before each
//            run, one event pair per run, median of --reps rounds: the best config per shape;
//   tuned    the generated function called once from an empty cache (on-device tuning on first
//            use), then timed as a user would call it; which config it chose (its persisted entry);
//   table    the packed table's rule on rows of the other shapes (leave one out: this GPU's arch,
//            nearest bucket), as a container tuned offline on other sizes would choose;
//   first    config 0, what tritonpack launched before tuning existed.
// Prints a table and writes CSV (--csv). --verify checks every config's output against a CPU
// reference on random inputs (output poisoned first) on a small shape and exits non-zero on a
// mismatch (the ctest). --persisted-only calls every shape once and reports trial launches (a
// second process must make none).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <autotune_bench.hpp>
#include <tritonpack/tritonpack.hpp>

namespace {

using tritonpack::half;
namespace tp = tritonpack;

struct shape {
  const char* kind;  // "square", "tall-skinny", "small-K", "odd", "softmax"
  int m, n, k;       // softmax: rows m, columns n
};

const std::vector<shape> matmul_shapes = {
    {"square", 512, 512, 512},      {"square", 1024, 1024, 1024},   {"square", 2048, 2048, 2048},
    {"square", 4096, 4096, 4096},   {"large", 8192, 8192, 8192},    {"odd", 3000, 3008, 3008},
    {"tall-skinny", 16, 4096, 4096}, {"tall-skinny", 64, 4096, 4096}, {"tall-skinny", 256, 4096, 4096},
    {"small-K", 8192, 8192, 64},
};
const std::vector<shape> softmax_shapes = {
    {"softmax", 4096, 128, 0},  {"softmax", 4096, 512, 0},   {"softmax", 4096, 1000, 0},  {"softmax", 4096, 2048, 0},
    {"softmax", 4096, 4096, 0}, {"softmax", 4096, 8192, 0}, {"softmax", 4096, 16384, 0}, {"softmax", 1024, 65536, 0},
};

// The first variant of the signature (a group of config_count variants) that the generated
// function dispatches to for these argument values: the first whose `:16` integer specs they
// meet (`ints` by argument index; the benchmark's pointers are all 16-byte aligned, given as 0).
std::size_t group_for(const tp::kernel_info& k, const std::vector<std::int64_t>& ints) {
  for (std::size_t g = 0; g < k.variants.size(); g += k.tuning.config_count) {
    bool ok = true;
    for (std::size_t i = 0; i < ints.size() && ok; ++i)
      ok = k.variants[g].specs[i].kind != tp::spec_kind::divisible_16 || ints[i] % 16 == 0;
    if (ok) return g;
  }
  throw std::runtime_error(k.name + ": no signature accepts these sizes");
}
std::size_t matmul_group(const tp::kernel_info& k, int M, int N, int K) { return group_for(k, {0, 0, 0, M, N, K, K, N, N}); }
std::size_t softmax_group(const tp::kernel_info& k, int n_cols) { return group_for(k, {0, 0, n_cols, n_cols}); }

std::int64_t constexpr_of(const tp::kernel_info& k, std::size_t v, const char* name) {
  for (const auto& [n, val] : k.variants[v].config.constexprs)
    if (n == name) return std::stoll(val);
  return 0;
}

// Device-side timing of `launch` (ms) with the L2 flushed first, as the tuner does.
struct timer {
  tp::device_ops& ops = tp::detail::device_api();
  void* flush = tp::device_malloc(std::size_t{256} << 20);
  void* e0 = ops.create_event();
  void* e1 = ops.create_event();
  ~timer() {
    ops.destroy_event(e0);
    ops.destroy_event(e1);
    tp::device_free(flush);
  }
  template <class F>
  double ms(F&& launch) {
    tp::memset_device_async(flush, 0, std::size_t{256} << 20, nullptr);
    ops.record_event(e0, nullptr);
    launch();
    ops.record_event(e1, nullptr);
    return ops.elapsed_ms(e0, e1);
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::vector<half> random_half(std::size_t n, std::mt19937& g) {
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<half> v(n);
  for (auto& x : v) x = half(d(g));
  return v;
}

// The persisted choice for this kernel group and bucket (what tuning on first use wrote).
int persisted_choice(const tp::kernel& k, std::size_t group, const std::vector<std::int64_t>& bucket) {
  const tp::device_props& dev = autotune_bench::library().current_device();
  const auto dir = tp::jit_cache::directory();
  if (!dir) return -1;
  const std::string d = tp::tuning::entry_dir(*dir, dev.name, dev.arch, dev.driver_version, autotune_bench::detail::container_checksum);
  std::string why;
  const auto payload = tp::jit_cache::inspect(d + "/" + tp::tuning::entry_file(k.info().name, group, bucket), why);
  tp::tuning::record r;
  if (!payload || !tp::tuning::decode(std::string(payload->begin(), payload->end()), bucket, k.info().tuning.config_count, r, why))
    return -1;
  return static_cast<int>(r.config);
}

struct row {
  std::string kernel, kind;
  int m, n, k;
  std::vector<double> config_us;  // oracle median per config
  int best = 0, tuned = -1, table = -1;
  double tuned_call_us = 0, tune_ms = 0;
};

// Runs the oracle, the tuned call and the table rule for one problem. `launch_config(c)` launches
// config c of the shape's group (first variant `group`) by hand; `call()` is the generated function.
template <class L, class C>
row measure(const char* name, const shape& s, tp::kernel& kern, std::size_t group, const std::vector<std::int64_t>& bucket, int reps,
            L&& launch_config, C&& call) {
  row r{name, s.kind, s.m, s.n, s.k, {}, 0, -1, -1, 0, 0};
  timer t;
  const std::uint32_t configs = kern.info().tuning.config_count;
  for (std::uint32_t c = 0; c < configs; ++c) launch_config(c);  // load every module, warm up
  tp::synchronize();
  std::vector<std::vector<double>> samples(configs);
  for (int rep = 0; rep < reps; ++rep)
    for (std::uint32_t c = 0; c < configs; ++c) samples[c].push_back(t.ms([&] { launch_config(c); }));
  for (std::uint32_t c = 0; c < configs; ++c) r.config_us.push_back(1000 * median(samples[c]));
  r.best = static_cast<int>(std::min_element(r.config_us.begin(), r.config_us.end()) - r.config_us.begin());
  // The generated function from an empty cache: its first call tunes.
  const auto t0 = std::chrono::steady_clock::now();
  call();
  tp::synchronize();
  r.tune_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  r.tuned = persisted_choice(kern, group, bucket);
  std::vector<double> calls;
  for (int rep = 0; rep < reps; ++rep) calls.push_back(t.ms(call));
  r.tuned_call_us = 1000 * median(calls);
  return r;
}

// Leave-one-out table rule: rows of every other shape, as the arch's ("sm_90"), nearest bucket.
void table_choices(std::vector<row>& rows, const tp::kernel& kern, bool softmax) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    tp::kernel_tuning t = kern.info().tuning;
    t.table.clear();
    for (std::size_t j = 0; j < rows.size(); ++j) {
      if (j == i) continue;
      std::vector<std::int64_t> b = softmax ? std::vector<std::int64_t>{rows[j].n} : std::vector<std::int64_t>{rows[j].m, rows[j].n, rows[j].k};
      t.table.push_back({"sm_90", b, static_cast<std::uint32_t>(rows[j].best), std::vector<std::uint64_t>(t.config_count, 1)});
    }
    std::vector<std::int64_t> b = softmax ? std::vector<std::int64_t>{rows[i].n} : std::vector<std::int64_t>{rows[i].m, rows[i].n, rows[i].k};
    const auto pick = tp::tuning::lookup_table(t, "", "sm_90", b);
    rows[i].table = pick.found ? static_cast<int>(pick.config) : 0;
  }
}

// One shape: every config of the signature it dispatches to, against the CPU (output poisoned).
bool verify_matmul_at(tp::kernel& k, std::mt19937& g, const int M, const int N, const int K) {
  const std::size_t group = matmul_group(k.info(), M, N, K);
  auto a = random_half(std::size_t(M) * K, g), b = random_half(std::size_t(K) * N, g);
  void* da = tp::device_malloc(a.size() * 2);
  void* db = tp::device_malloc(b.size() * 2);
  void* dc = tp::device_malloc(std::size_t(M) * N * 2);
  tp::copy(da, a.data(), a.size() * 2);
  tp::copy(db, b.data(), b.size() * 2);
  bool ok = true;
  for (std::uint32_t c = 0; c < k.info().tuning.config_count; ++c) {
    tp::memset_device(dc, 0xFF, std::size_t(M) * N * 2);  // poison: NaN
    const std::int64_t bm = constexpr_of(k.info(), group + c, "BLOCK_M"), bn = constexpr_of(k.info(), group + c, "BLOCK_N");
    const void* args[] = {&da, &db, &dc, &M, &N, &K, &K, &N, &N};
    k.launch_variant(group + c, {static_cast<std::uint32_t>(((M + bm - 1) / bm) * ((N + bn - 1) / bn)), 1, 1}, nullptr, args);
    std::vector<half> out(std::size_t(M) * N);
    tp::copy(out.data(), dc, out.size() * 2);
    double worst = 0;
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double ref = 0;
        for (int x = 0; x < K; ++x) ref += float(a[std::size_t(i) * K + x]) * float(b[std::size_t(x) * N + j]);
        const double got = float(out[std::size_t(i) * N + j]);
        worst = std::max(worst, std::isfinite(got) ? std::fabs(got - ref) / (1 + std::fabs(ref)) : 1e9);
      }
    std::printf("verify matmul %dx%dx%d variant %zu (config %u): max rel error %.2e %s\n", M, N, K, group + c, c, worst,
                worst < 1e-2 ? "ok" : "FAILED");
    ok = ok && worst < 1e-2;
  }
  tp::device_free(da);
  tp::device_free(db);
  tp::device_free(dc);
  return ok;
}

// Every config of every signature: one shape per signature, none a multiple of the tiles (masks).
bool verify_matmul(tp::kernel& k, std::mt19937& g) {
  bool ok = true;
  for (const auto& [M, N, K] : {std::tuple<int, int, int>{208, 96, 80}, {200, 96, 80}, {200, 100, 72}})
    ok = verify_matmul_at(k, g, M, N, K) && ok;
  return ok;
}

// One row width: every config of the signature it dispatches to, against the CPU (output poisoned).
bool verify_softmax_at(tp::kernel& k, std::mt19937& g, const int cols) {
  const int rows = 37;
  const std::size_t group = softmax_group(k.info(), cols);
  std::uniform_real_distribution<float> d(-4.0f, 4.0f);
  std::vector<float> x(std::size_t(rows) * cols);
  for (auto& v : x) v = d(g);
  void* dx = tp::device_malloc(x.size() * 4);
  void* dy = tp::device_malloc(x.size() * 4);
  tp::copy(dx, x.data(), x.size() * 4);
  bool ok = true;
  for (std::uint32_t c = 0; c < k.info().tuning.config_count; ++c) {
    tp::memset_device(dy, 0xFF, x.size() * 4);
    const void* args[] = {&dy, &dx, &cols, &cols};
    k.launch_variant(group + c, {static_cast<std::uint32_t>(rows), 1, 1}, nullptr, args);
    std::vector<float> y(x.size());
    tp::copy(y.data(), dy, y.size() * 4);
    double worst = 0;
    for (int r = 0; r < rows; ++r) {
      double mx = -1e30, sum = 0;
      for (int j = 0; j < cols; ++j) mx = std::max(mx, double(x[std::size_t(r) * cols + j]));
      for (int j = 0; j < cols; ++j) sum += std::exp(double(x[std::size_t(r) * cols + j]) - mx);
      for (int j = 0; j < cols; ++j) {
        const double ref = std::exp(double(x[std::size_t(r) * cols + j]) - mx) / sum, got = y[std::size_t(r) * cols + j];
        worst = std::max(worst, std::isfinite(got) ? std::fabs(got - ref) / (ref + 1e-6) : 1e9);
      }
    }
    std::printf("verify softmax %dx%d variant %zu (config %u): max rel error %.2e %s\n", rows, cols, group + c, c, worst,
                worst < 1e-3 ? "ok" : "FAILED");
    ok = ok && worst < 1e-3;
  }
  tp::device_free(dx);
  tp::device_free(dy);
  return ok;
}

// Every config of both signatures: rows narrower and wider than the widest tile (4096).
bool verify_softmax(tp::kernel& k, std::mt19937& g) {
  bool ok = true;
  for (const int cols : {3001, 3008, 5000})
    ok = verify_softmax_at(k, g, cols) && ok;
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  std::string csv, only;
  int reps = 15;
  bool verify = false, persisted_only = false, quick = false, once = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--csv" && i + 1 < argc) csv = argv[++i];
    else if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (a == "--verify") verify = true;
    else if (a == "--persisted-only") persisted_only = true;
    else if (a == "--once") once = persisted_only = true;  // like --persisted-only, tuning allowed (the 8-process test)
    else if (a == "--quick") quick = true;  // two shapes per kernel (the ctest)
    else {
      std::fprintf(stderr, "usage: %s [--csv FILE] [--reps N] [--verify] [--persisted-only | --once] [--quick]\n", argv[0]);
      return 2;
    }
  }
  try {
    tp::kernel& mm = autotune_bench::library().get("matmul");
    tp::kernel& sm = autotune_bench::library().get("softmax");
    std::printf("%s, cache %s\n", autotune_bench::library().current_device().describe().c_str(),
                tp::jit_cache::directory().value_or("(none)").c_str());
    std::mt19937 g(42);
    if (verify) {  // both kernels, so that one run reports every failing config
      const bool matmul_ok = verify_matmul(mm, g), softmax_ok = verify_softmax(sm, g);
      if (!(matmul_ok && softmax_ok)) return 1;
    }
    std::vector<shape> mshapes = matmul_shapes, sshapes = softmax_shapes;
    if (quick) {
      mshapes = {matmul_shapes[1], matmul_shapes[6]};
      sshapes = {softmax_shapes[2], softmax_shapes[5]};
    }
    std::size_t max_a = 0, max_b = 0, max_c = 0, max_x = 0;
    for (const shape& s : mshapes) {
      max_a = std::max(max_a, std::size_t(s.m) * s.k);
      max_b = std::max(max_b, std::size_t(s.k) * s.n);
      max_c = std::max(max_c, std::size_t(s.m) * s.n);
    }
    for (const shape& s : sshapes) max_x = std::max(max_x, std::size_t(s.m) * s.n);
    auto ha = random_half(max_a, g), hb = random_half(max_b, g);
    half* A = static_cast<half*>(tp::device_malloc(max_a * 2));
    half* B = static_cast<half*>(tp::device_malloc(max_b * 2));
    half* C = static_cast<half*>(tp::device_malloc(max_c * 2));
    float* X = static_cast<float*>(tp::device_malloc(max_x * 4));
    float* Y = static_cast<float*>(tp::device_malloc(max_x * 4));
    tp::copy(A, ha.data(), max_a * 2);
    tp::copy(B, hb.data(), max_b * 2);
    std::vector<float> hx(max_x);
    std::uniform_real_distribution<float> d(-4.0f, 4.0f);
    for (auto& v : hx) v = d(g);
    tp::copy(X, hx.data(), max_x * 4);

    if (persisted_only) {  // a second process: every choice from the persisted entries
      for (const shape& s : mshapes) autotune_bench::matmul(A, B, C, s.m, s.n, s.k, s.k, s.n, s.n);
      for (const shape& s : sshapes) autotune_bench::softmax({std::uint32_t(s.m), 1, 1}, Y, X, s.n, s.n);
      tp::synchronize();
      std::printf("persisted-only: %llu tuning runs, %llu trial launches\n",
                  static_cast<unsigned long long>(tp::autotune::stats().tunings.load()),
                  static_cast<unsigned long long>(tp::autotune::stats().trial_launches.load()));
      return once || tp::autotune::stats().trial_launches.load() == 0 ? 0 : 1;
    }

    std::vector<row> mrows, srows;
    for (const shape& s : mshapes) {
      const int M = s.m, N = s.n, K = s.k;
      const std::size_t group = matmul_group(mm.info(), M, N, K);
      auto by_hand = [&](std::uint32_t c) {
        const std::int64_t bm = constexpr_of(mm.info(), group + c, "BLOCK_M"), bn = constexpr_of(mm.info(), group + c, "BLOCK_N");
        const void* args[] = {&A, &B, &C, &M, &N, &K, &K, &N, &N};
        mm.launch_variant(group + c, {static_cast<std::uint32_t>(((M + bm - 1) / bm) * ((N + bn - 1) / bn)), 1, 1}, nullptr, args);
      };
      mrows.push_back(
          measure("matmul", s, mm, group, {M, N, K}, reps, by_hand, [&] { autotune_bench::matmul(A, B, C, M, N, K, K, N, N); }));
    }
    for (const shape& s : sshapes) {
      const int R = s.m, N = s.n;
      const std::size_t group = softmax_group(sm.info(), N);
      auto by_hand = [&](std::uint32_t c) {
        const void* args[] = {&Y, &X, &N, &N};
        sm.launch_variant(group + c, {static_cast<std::uint32_t>(R), 1, 1}, nullptr, args);
      };
      srows.push_back(measure("softmax", s, sm, group, {N}, reps, by_hand,
                              [&] { autotune_bench::softmax({std::uint32_t(R), 1, 1}, Y, X, N, N); }));
    }
    table_choices(mrows, mm, false);
    table_choices(srows, sm, true);

    std::FILE* out = csv.empty() ? nullptr : std::fopen(csv.c_str(), "w");
    if (out) std::fprintf(out, "kernel,kind,m,n,k,config,us\n");
    std::printf("\n%-8s %-11s %-16s %5s %9s %5s %8s %9s %6s %8s %8s %9s\n", "kernel", "kind", "shape", "best", "best_us", "tuned",
                "regret", "call_us", "table", "t_regret", "first_us", "first/tuned");
    double worst = 0, worst_table = 0;
    int tuned_miss = 0;
    for (const auto* rows : {&mrows, &srows})
      for (const row& r : *rows) {
        const double best = r.config_us[r.best];
        const double tuned = r.tuned >= 0 ? r.config_us[r.tuned] : NAN, table = r.config_us[r.table];
        const double regret = tuned / best - 1, tregret = table / best - 1;
        worst = std::max(worst, std::isfinite(regret) ? regret : 1e9);
        worst_table = std::max(worst_table, tregret);
        tuned_miss += r.tuned < 0;
        char sh[32];
        std::snprintf(sh, sizeof sh, r.k ? "%dx%dx%d" : "%dx%d", r.m, r.n, r.k);
        std::printf("%-8s %-11s %-16s %5d %9.1f %5d %7.1f%% %9.1f %6d %7.1f%% %8.1f %8.2fx  (tuned in %.0f ms)\n", r.kernel.c_str(),
                    r.kind.c_str(), sh, r.best, best, r.tuned, 100 * regret, r.tuned_call_us, r.table, 100 * tregret,
                    r.config_us[0], r.config_us[0] / tuned, r.tune_ms);
        if (out) {
          for (std::size_t c = 0; c < r.config_us.size(); ++c)
            std::fprintf(out, "%s,%s,%d,%d,%d,%zu,%.3f\n", r.kernel.c_str(), r.kind.c_str(), r.m, r.n, r.k, c, r.config_us[c]);
          std::fprintf(out, "%s,%s,%d,%d,%d,tuned=%d,%.3f\n", r.kernel.c_str(), r.kind.c_str(), r.m, r.n, r.k, r.tuned, r.tuned_call_us);
          std::fprintf(out, "%s,%s,%d,%d,%d,table=%d,%.3f\n", r.kernel.c_str(), r.kind.c_str(), r.m, r.n, r.k, r.table, table);
        }
      }
    if (out) std::fclose(out);
    std::printf("\nworst regret of on-device tuning vs the exhaustive best: %.1f%% (%s 3%%); packed-table rule, leave one out: %.1f%%\n",
                100 * worst, worst <= 0.03 ? "within" : "NOT within", 100 * worst_table);
    // Host cost of a tuned call once its config is known (the last-call cache) vs launch_variant of
    // the same config: back-to-back enqueues of a tiny problem, median of 5 batches.
    {
      const int M = 64, N = 64, K = 64, calls = 20000;
      autotune_bench::matmul(A, B, C, M, N, K, K, N, N);
      tp::synchronize();
      const std::size_t group = matmul_group(mm.info(), M, N, K);
      const int persisted = persisted_choice(mm, group, {M, N, K});
      if (persisted < 0) throw std::runtime_error("the tuned 64x64x64 matmul left no persisted choice");
      const std::size_t chosen = group + static_cast<std::size_t>(persisted);
      const std::int64_t bm = constexpr_of(mm.info(), chosen, "BLOCK_M"), bn = constexpr_of(mm.info(), chosen, "BLOCK_N");
      const void* args[] = {&A, &B, &C, &M, &N, &K, &K, &N, &N};
      const tp::grid3 grid{static_cast<std::uint32_t>(((M + bm - 1) / bm) * ((N + bn - 1) / bn)), 1, 1};
      auto batch = [&](auto&& f) {
        std::vector<double> us;
        for (int b = 0; b < 5; ++b) {
          tp::synchronize();
          const auto t0 = std::chrono::steady_clock::now();
          for (int i = 0; i < calls; ++i) f();
          us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / calls);
          tp::synchronize();
        }
        return median(us);
      };
      const double raw = batch([&] { mm.launch_variant(chosen, grid, nullptr, args); });
      const double tuned = batch([&] { autotune_bench::matmul(A, B, C, M, N, K, K, N, N); });
      std::printf("host cost per launch: launch_variant %.3f us, tuned generated call %.3f us (%.3fx, +%.3f us)\n", raw, tuned,
                  tuned / raw, tuned - raw);
    }
    std::printf("tuning runs %llu, trial launches %llu\n", static_cast<unsigned long long>(tp::autotune::stats().tunings.load()),
                static_cast<unsigned long long>(tp::autotune::stats().trial_launches.load()));
    for (void* p : {static_cast<void*>(A), static_cast<void*>(B), static_cast<void*>(C), static_cast<void*>(X), static_cast<void*>(Y)})
      tp::device_free(p);
    return tuned_miss ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "autotune_bench: %s\n", e.what());
    return 1;
  }
}
