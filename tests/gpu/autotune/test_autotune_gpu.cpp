// On-device tuning from an empty cache, on the GPU (ctest `gpu_autotune`, label gpu; part of every
// `ctest -L gpu`). The kernels (tune_kernels.py) take configs, key, reset_to_zero and
// restore_value from @triton.autotune, and each config writes its TAG, so every check below sees
// which config really ran:
//   matmul_splitk        split-K fp16 matmul adding into c with atomics: reset_to_zero c;
//   scale_shift_inplace  x = alpha * x + beta in place: restore x.
// Three processes, one after the other (forked before any CUDA call: the parent never touches the
// GPU), each checked against a CPU reference on random inputs:
//   tune       empty cache: the first call of each kernel tunes (autotune::stats), its result equals
//              one correct call (c poisoned with NaN before it: the zeroing before the real launch
//              must clear it; x changed exactly once), the config that ran is the one persisted, and
//              the persisted entry reads back whole (a record of this bucket, every config timed,
//              the fastest chosen, no temporary file left); a second call makes no trial launch;
//   second     the same cache in a new process: no trial launch, the persisted config runs;
//   read-only  TRITONPACK_AUTOTUNE=0 on another empty cache: no trial launch, config 0 runs (no
//              table is packed), nothing is written.
// The CPU twins of these rules (test-double driver) are in tests/runtime/test_autotune.cpp.
#include <dirent.h>
#include <ftw.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <tritonpack/tritonpack.hpp>

#include "gpu_tune_kernels.hpp"

namespace {

namespace tp = tritonpack;

constexpr unsigned child_deadline_s = 300;
// Shapes: long K and few output tiles, where the configs' speeds differ by several times.
constexpr int M = 256, N = 256, K = 4096;
constexpr int n_elems = (1 << 22) + 37;  // not a multiple of any BLOCK: the masks are exercised

int failures = 0;
void check(bool ok, const std::string& what) {
  if (!ok) ++failures;
  std::printf("  %s: %s\n", ok ? "ok" : "FAILED", what.c_str());
}

std::uint64_t tunings() { return tp::autotune::stats().tunings.load(); }
std::uint64_t trials() { return tp::autotune::stats().trial_launches.load(); }

// The persisted entry of `kernel` for `bucket` in this process's cache directory, read back as the
// run time reads it (header, checksum, payload); nullopt with the reason printed when it does not.
std::optional<tp::tuning::record> persisted(const std::string& kernel, const std::vector<std::int64_t>& bucket, std::string* dir_out = nullptr) {
  const tp::device_props& dev = gpu_tune_kernels::library().current_device();
  const std::string dir = tp::tuning::entry_dir(tp::jit_cache::directory().value_or(""), dev.name, dev.arch, dev.driver_version,
                                                gpu_tune_kernels::detail::container_checksum);
  if (dir_out) *dir_out = dir;
  const std::string path = dir + "/" + tp::tuning::entry_file(kernel, 0, bucket);
  std::string why;
  const auto payload = tp::jit_cache::inspect(path, why);
  tp::tuning::record r;
  const std::uint32_t configs = gpu_tune_kernels::library().get(kernel).info().tuning.config_count;
  if (!payload || !tp::tuning::decode(std::string(payload->begin(), payload->end()), bucket, configs, r, why)) {
    std::printf("  %s: %s\n", path.c_str(), why.empty() ? "absent" : why.c_str());
    return std::nullopt;
  }
  return r;
}

std::vector<std::string> files_under(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string n = e->d_name;
      if (n == "." || n == "..") continue;
      const std::vector<std::string> sub = files_under(dir + "/" + n);
      if (sub.empty() && e->d_type != DT_DIR) out.push_back(n);
      for (const auto& s : sub) out.push_back(n + "/" + s);
    }
    closedir(d);
  }
  return out;
}

// The split-K matmul's inputs and its CPU reference (double accumulation of the fp16 values).
struct matmul_case {
  std::vector<tp::half> a, b;
  std::vector<double> ref;
  tp::device_array<tp::half> da, db;
  tp::device_array<float> dc{std::size_t(M) * N};
  tp::device_array<std::int32_t> tag{1};

  explicit matmul_case(std::mt19937& g) : a(random_half(std::size_t(M) * K, g)), b(random_half(std::size_t(K) * N, g)), ref(std::size_t(M) * N, 0.0), da(a), db(b) {
    for (int i = 0; i < M; ++i)
      for (int k = 0; k < K; ++k) {
        const double aik = float(a[std::size_t(i) * K + k]);
        for (int j = 0; j < N; ++j) ref[std::size_t(i) * N + j] += aik * float(b[std::size_t(k) * N + j]);
      }
  }
  static std::vector<tp::half> random_half(std::size_t n, std::mt19937& g) {
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    std::vector<tp::half> v(n);
    for (auto& x : v) x = tp::half(d(g));
    return v;
  }
  // Calls the generated function on c as given (the caller zeroes or poisons it first); returns
  // the config that ran and checks c.
  int run_and_check(const std::string& what) {
    tag.fill_bytes(0xFF);
    gpu_tune_kernels::matmul_splitk(da.data(), db.data(), dc.data(), tag.data(), M, N, K);
    std::vector<float> c(dc.size());
    dc.download(c.data(), c.size());
    double worst = 0;
    for (std::size_t i = 0; i < c.size(); ++i)
      worst = std::max(worst, std::isfinite(c[i]) ? std::fabs(c[i] - ref[i]) / (1 + std::fabs(ref[i])) : 1e30);
    check(worst < 2e-3, what + ": c = a @ b (max relative error " + std::to_string(worst) + ")");
    std::int32_t t = -1;
    tag.download(&t, 1);
    return t;
  }
  void zero_c() { dc.fill_bytes(0); }
};

// The in-place kernel's input and reference alpha * x + beta.
struct inplace_case {
  std::vector<float> x;
  float alpha, beta;
  tp::device_array<float> dx;
  tp::device_array<std::int32_t> tag{1};
  explicit inplace_case(std::mt19937& g) : x(n_elems), dx(std::size_t(n_elems)) {
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    for (auto& v : x) v = d(g);
    alpha = 1.5f + d(g) * 0.25f;
    beta = d(g);
  }
  int run_and_check(const std::string& what) {
    dx.upload(x);
    tag.fill_bytes(0xFF);
    gpu_tune_kernels::scale_shift_inplace(dx.data(), tag.data(), n_elems, alpha, beta);
    std::vector<float> y(x.size());
    dx.download(y.data(), y.size());
    double worst = 0;
    for (std::size_t i = 0; i < y.size(); ++i) {
      const double ref = double(alpha) * x[i] + beta;
      worst = std::max(worst, std::isfinite(y[i]) ? std::fabs(y[i] - ref) / (1 + std::fabs(ref)) : 1e30);
    }
    check(worst < 1e-6, what + ": x = alpha * x + beta, applied once (max relative error " + std::to_string(worst) + ")");
    std::int32_t t = -1;
    tag.download(&t, 1);
    return t;
  }
};

// A persisted record that is whole and is the outcome of a real tuning run.
void check_record(const char* kernel, const std::optional<tp::tuning::record>& r, int ran) {
  check(r.has_value(), std::string(kernel) + ": the persisted entry reads back whole");
  if (!r) return;
  const auto [lo, hi] = std::minmax_element(r->times_ns.begin(), r->times_ns.end());
  std::string times;
  for (std::uint64_t t : r->times_ns) times += " " + (t == tp::tuning::not_measured ? std::string("-") : std::to_string(t / 1000) + " us");
  check(*hi != tp::tuning::not_measured, std::string(kernel) + ": every config was timed (" + times.substr(1) + ")");
  check(r->config == tp::tuning::fastest(r->times_ns), std::string(kernel) + ": the record's config " + std::to_string(r->config) +
                                                            " is the fastest of its times");
  check(ran == static_cast<int>(r->config), std::string(kernel) + ": the config that ran (" + std::to_string(ran) +
                                                ") is the one persisted (" + std::to_string(r->config) + ")");
  if (std::string(kernel) == "matmul_splitk")  // tiles from 16x16 to 64x128: the speeds differ
    check(*hi > 1.5 * double(*lo), "matmul_splitk: the configs' speeds differ (slowest / fastest " +
                                        std::to_string(double(*hi) / double(*lo)) + ")");
}

int phase_tune() {
  std::mt19937 g(1234);
  matmul_case mm(g);
  inplace_case ip(g);
  check(tunings() == 0 && trials() == 0, "nothing tuned before the first call");

  mm.dc.fill_bytes(0xFF);  // NaN: only the zeroing before the real launch (reset_to_zero) clears it
  const int mm_ran = mm.run_and_check("matmul_splitk, first call (tunes; c poisoned before it)");
  check(tunings() == 1 && trials() >= 3 * 4, "matmul_splitk: one tuning run, " + std::to_string(trials()) +
                                                 " trial launches (at least a first run and 3 rounds of 3 configs)");
  std::string dir;
  check_record("matmul_splitk", persisted("matmul_splitk", {M, N, K}, &dir), mm_ran);

  const std::uint64_t before = trials();
  const int ip_ran = ip.run_and_check("scale_shift_inplace, first call (tunes)");
  check(tunings() == 2 && trials() >= before + 12, "scale_shift_inplace: one tuning run, " + std::to_string(trials() - before) + " trial launches");
  check_record("scale_shift_inplace", persisted("scale_shift_inplace", {n_elems}), ip_ran);

  std::string stray;
  for (const auto& f : files_under(dir))
    if (!(f.size() > 5 && (f.compare(f.size() - 5, 5, ".tune") == 0 || f.compare(f.size() - 5, 5, ".lock") == 0))) stray += " " + f;
  check(stray.empty(), "no temporary or unexpected file in " + dir + (stray.empty() ? "" : ":" + stray));

  // Same process, new data, same buckets: the choice is known; nothing is timed or zeroed.
  const std::uint64_t trials_now = trials();
  matmul_case mm2(g);
  mm2.zero_c();
  check(mm2.run_and_check("matmul_splitk, second call") == mm_ran, "matmul_splitk, second call: the same config ran");
  inplace_case ip2(g);
  check(ip2.run_and_check("scale_shift_inplace, second call") == ip_ran, "scale_shift_inplace, second call: the same config ran");
  check(trials() == trials_now && tunings() == 2, "second calls: no trial launch");
  return failures;
}

int phase_second_process() {
  std::mt19937 g(99);
  matmul_case mm(g);
  inplace_case ip(g);
  mm.zero_c();
  const int mm_ran = mm.run_and_check("matmul_splitk");
  const int ip_ran = ip.run_and_check("scale_shift_inplace");
  check(tunings() == 0 && trials() == 0, "no tuning run, no trial launch (" + std::to_string(trials()) + ")");
  const auto rm = persisted("matmul_splitk", {M, N, K}), ri = persisted("scale_shift_inplace", {n_elems});
  check(rm && int(rm->config) == mm_ran, "matmul_splitk: the persisted config ran (" + std::to_string(mm_ran) + ")");
  check(ri && int(ri->config) == ip_ran, "scale_shift_inplace: the persisted config ran (" + std::to_string(ip_ran) + ")");
  return failures;
}

int phase_read_only() {
  std::mt19937 g(7);
  matmul_case mm(g);
  inplace_case ip(g);
  mm.zero_c();  // no tuning, so no zeroing by the run time: the caller's zeros are the start
  check(mm.run_and_check("matmul_splitk") == 0, "matmul_splitk: config 0 ran");
  check(ip.run_and_check("scale_shift_inplace") == 0, "scale_shift_inplace: config 0 ran");
  check(tunings() == 0 && trials() == 0, "no tuning run, no trial launch (" + std::to_string(trials()) + ")");
  const std::vector<std::string> files = files_under(tp::jit_cache::directory().value_or(""));
  check(std::none_of(files.begin(), files.end(), [](const std::string& f) { return f.find(".tune") != std::string::npos; }),
        "no tuning result written");
  return failures;
}

// Runs `body` in a child process with `env` set (name=value, value "" unsets); true when it passed.
bool in_child(const std::string& name, const std::vector<std::pair<const char*, std::string>>& env, const std::function<int()>& body) {
  std::printf("%s\n", name.c_str());
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("fork");
    return false;
  }
  if (pid == 0) {
    alarm(child_deadline_s);  // a stuck driver fails the test (SIGALRM), it does not hang it
    for (const auto& [k, v] : env) v.empty() ? unsetenv(k) : setenv(k, v.c_str(), 1);
    int rc = 1;
    try {
      rc = body() == 0 ? 0 : 1;
    } catch (const std::exception& e) {
      std::printf("  FAILED: %s\n", e.what());
    }
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(rc);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) {
    std::perror("waitpid");
    return false;
  }
  if (WIFSIGNALED(status)) std::printf("  FAILED: killed by signal %d\n", WTERMSIG(status));
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

int main() {
  char tmpl[] = "/tmp/tp-gpu-autotune.XXXXXX";
  if (!mkdtemp(tmpl)) {
    std::perror("mkdtemp");
    return 1;
  }
  const std::string dir = tmpl;
  setenv("TRITONPACK_CACHE", "1", 1);
  const bool ok = in_child("tune (empty cache " + dir + "/cache)", {{"TRITONPACK_CACHE_DIR", dir + "/cache"}, {"TRITONPACK_AUTOTUNE", ""}}, phase_tune) &&
                  in_child("second process (same cache)", {{"TRITONPACK_CACHE_DIR", dir + "/cache"}, {"TRITONPACK_AUTOTUNE", ""}}, phase_second_process) &&
                  in_child("read-only, TRITONPACK_AUTOTUNE=0 (empty cache " + dir + "/empty)",
                           {{"TRITONPACK_CACHE_DIR", dir + "/empty"}, {"TRITONPACK_AUTOTUNE", "0"}}, phase_read_only);
  std::printf("gpu_autotune: %s\n", ok ? "passed" : "FAILED");
  if (ok) {
    nftw(dir.c_str(), [](const char* path, const struct stat*, int, struct FTW*) { return ::remove(path); }, 16, FTW_DEPTH | FTW_PHYS);
  } else {
    std::printf("cache kept in %s\n", dir.c_str());
  }
  return ok ? 0 : 1;
}
