// A tuned kernel whose configs differ in their tensor descriptors' block shapes, on the GPU (ctest
// `gpu_autotune_tma`, label gpu; part of every `ctest -L gpu`). matmul_tma (tune_kernels.py) is
// Triton's tutorial matmul_kernel_tma: c = a @ b^T through three host-side descriptors, whose block
// shapes the @triton.autotune pre_hook sets from each config; the spec says pre_hook =
// "block_shapes", so each config is compiled with its own (docs/spec.md "Tuning"). On sm_90 the run
// time builds each TMA map from the launched image's own metadata; on sm_80 the descriptors are
// passed decomposed. Checked against a CPU reference on random inputs (fp16 values, products
// summed in double), c poisoned with NaN before every call:
//   tuned call   from an empty cache, the first call tunes on the device (every config timed on the
//                caller's descriptors); its result, whichever config won, is c = a @ b^T;
//   each config  every variant launched directly (kernel::launch_variant, with its config's grid):
//                each one is right, so none is right only by losing the tuning.
// Config 1 is the trap: the signature's [64, 64] blocks for a and b but BLOCK_K = 32. Compiled with
// the signature's blocks, as before configs were tied to their block shapes, it added every K tile
// twice, and tuning kept it when it was the fastest (max error 91 on the H200, nothing raised).
#include <ftw.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <tritonpack/tritonpack.hpp>

#include "gpu_tune_kernels.hpp"

namespace {

namespace tp = tritonpack;

// No size is a multiple of any block (out-of-bounds tiles are exercised); the row strides, K * 2
// and N * 4 bytes, are multiples of 16 as TMA requires.
constexpr int M = 777, N = 520, K = 1000;

int failures = 0;
void check(bool ok, const std::string& what) {
  if (!ok) ++failures;
  std::printf("  %s: %s\n", ok ? "ok" : "FAILED", what.c_str());
}

std::vector<tp::half> random_half(std::size_t n, std::mt19937& g) {
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<tp::half> v(n);
  for (auto& x : v) x = tp::half(d(g));
  return v;
}

std::int64_t constexpr_of(const tp::kernel_config& c, const std::string& name) {
  for (const auto& [n, v] : c.constexprs)
    if (n == name) return std::stoll(v);
  throw std::runtime_error("config has no constexpr " + name);
}

struct tma_case {
  std::vector<tp::half> a, b;  // a[M, K], b[N, K]
  std::vector<double> ref;     // a @ b^T
  tp::device_array<tp::half> da, db;
  tp::device_array<float> dc{std::size_t(M) * N};
  tp::device_array<std::int32_t> tag{1};
  tp::tensor_descriptor<tp::half, 2> ad, bd;
  tp::tensor_descriptor<float, 2> cd;

  explicit tma_case(std::mt19937& g)
      : a(random_half(std::size_t(M) * K, g)), b(random_half(std::size_t(N) * K, g)), ref(std::size_t(M) * N), da(a), db(b) {
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double s = 0;
        for (int k = 0; k < K; ++k) s += double(float(a[std::size_t(i) * K + k])) * float(b[std::size_t(j) * K + k]);
        ref[std::size_t(i) * N + j] = s;
      }
    ad.base = da.data(), ad.shape = {M, K}, ad.strides = {K, 1};
    bd.base = db.data(), bd.shape = {N, K}, bd.strides = {K, 1};
    cd.base = dc.data(), cd.shape = {M, N}, cd.strides = {N, 1};
  }

  // Poisons c and the tag, runs `call`, checks c; returns the config that ran (its TAG).
  template <class F>
  int run_and_check(const std::string& what, F&& call) {
    dc.fill_bytes(0xFF);  // NaN: a tile no program writes stays NaN
    tag.fill_bytes(0xFF);
    call();
    tp::synchronize();
    std::vector<float> c(dc.size());
    dc.download(c.data(), c.size());
    double worst = 0;
    for (std::size_t i = 0; i < c.size(); ++i)
      worst = std::max(worst, std::isfinite(c[i]) ? std::fabs(c[i] - ref[i]) / (1 + std::fabs(ref[i])) : 1e30);
    std::int32_t t = -1;
    tag.download(&t, 1);
    check(worst < 1e-3, what + " (config " + std::to_string(t) + "): c = a @ b^T (max relative error " + std::to_string(worst) + ")");
    return t;
  }
};

int run() {
  std::mt19937 g(2026);
  tma_case tc(g);
  tp::kernel& kernel = gpu_tune_kernels::library().get("matmul_tma");
  const tp::kernel_info& info = kernel.info();
  check(info.variants.size() == 4 && info.tuning.config_count == 4, "matmul_tma: 4 configs, one signature");

  const std::uint64_t trials_before = tp::autotune::stats().trial_launches.load();
  const int ran = tc.run_and_check("tuned call from an empty cache", [&] {
    gpu_tune_kernels::matmul_tma(tc.ad, tc.bd, tc.cd, tc.tag.data(), M, N, K);
  });
  const std::uint64_t trials = tp::autotune::stats().trial_launches.load() - trials_before;
  check(tp::autotune::stats().tunings.load() == 1 && trials >= 4,
        "the first call tuned on the device: " + std::to_string(trials) + " trial launches over the 4 configs");
  check(ran >= 0 && ran < 4, "the tuned call ran one of the configs (" + std::to_string(ran) + ")");

  for (std::size_t v = 0; v < info.variants.size(); ++v) {
    const tp::kernel_config& cfg = info.variants[v].config;
    const std::int64_t bm = constexpr_of(cfg, "BLOCK_M"), bn = constexpr_of(cfg, "BLOCK_N"), bk = constexpr_of(cfg, "BLOCK_K");
    const tp::grid3 grid{static_cast<std::uint32_t>(((M + bm - 1) / bm) * ((N + bn - 1) / bn)), 1, 1};
    std::int32_t m = M, n = N, k = K;
    void* tag = tc.tag.data();
    const void* args[] = {&tc.ad, &tc.bd, &tc.cd, &tag, &m, &n, &k};
    const int t = tc.run_and_check(
        "variant " + std::to_string(v) + " (blocks " + std::to_string(bm) + "x" + std::to_string(bn) + "x" + std::to_string(bk) + ")",
        [&] { kernel.launch_variant(v, grid, nullptr, args); });
    check(t == static_cast<int>(constexpr_of(cfg, "TAG")), "variant " + std::to_string(v) + " is the config it says");
  }
  return failures;
}

}  // namespace

int main() {
  char tmpl[] = "/tmp/tp-gpu-autotune-tma.XXXXXX";
  if (!mkdtemp(tmpl)) {
    std::perror("mkdtemp");
    return 1;
  }
  const std::string dir = tmpl;
  setenv("TRITONPACK_CACHE", "1", 1);
  setenv("TRITONPACK_CACHE_DIR", dir.c_str(), 1);  // empty: the first call tunes
  unsetenv("TRITONPACK_AUTOTUNE");
  int rc = 1;
  try {
    rc = run() == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::printf("  FAILED: %s\n", e.what());
  }
  nftw(dir.c_str(), [](const char* path, const struct stat*, int, struct FTW*) { return ::remove(path); }, 16, FTW_DEPTH | FTW_PHYS);
  std::printf("gpu_autotune_tma: %s\n", rc == 0 ? "passed" : "FAILED");
  return rc;
}
