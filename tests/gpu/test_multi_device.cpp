// Per-device state in one process (issue 29; ctest `gpu_multi_device`, label gpu): one process
// launches on every GPU of the machine, two threads per device, each thread selecting its device
// with tritonpack::set_device and launching three kernels (vector_add, softmax, add2d) on its own
// stream, three rounds on random inputs with outputs poisoned (0xFF bytes: NaN) before each launch,
// every result checked against the CPU. Passes when every result is right and every kernel's image
// was loaded exactly once per device: tritonpack::image_loads() grew by kernels x devices, and the
// run time's load log (TRITONPACK_LOG=1, one line per module: "kernel K variant V on device D
// (...)") names each kernel once on each device, whichever of its threads got there first.
//
// With fewer than 2 devices there is nothing to show: it says so and exits 77 (ctest: skipped).
//
// The same program runs on the test-double driver (tests/runtime/fake_cuda, ctest
// `gpu_multi_device.fake`, not label gpu, with TRITONPACK_FAKE_DEVICES=sm_90,sm_80): that driver
// runs no kernel, so results are not compared there (the program says so); instead every launch it
// recorded must have run in the context of the device whose memory its pointer arguments are in,
// and each device must have received its threads' launches. The load checks are the same.
//
//   tritonpack_gpu_multi_device [--threads-per-device N] [--rounds R]   (defaults 2 and 3)
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <tritonpack/core/load_stats.hpp>
#include <tritonpack/tritonpack.hpp>

#include "fake_cuda/fake_cuda_control.h"  // the test double's launch record (inspected only there)
#include "gpu_kernels.hpp"

namespace gpu_multi_device {
namespace {

namespace tp = tritonpack;

constexpr int kernels_per_device = 3;  // vector_add (its aligned variant), softmax, add2d
constexpr int skip_exit = 77;

struct thread_result {
  int device = -1;
  std::string error;  // "" when every check passed
  // The device addresses this thread allocated (for the test-double check of launches).
  std::vector<std::uintptr_t> buffers;
};

std::string mismatch(const char* what, std::size_t bad, std::size_t n, std::size_t first,
                     double got, double want) {
  std::ostringstream s;
  s << what << ": " << bad << " of " << n << " values wrong (first [" << first << "] = " << got
    << ", CPU " << want << ")";
  return s.str();
}

// Compares `got` with `want` within |got - want| <= abs + rel * |want| (NaN fails: a poisoned
// element the kernel did not write). "" when all agree.
std::string compare(const char* what, const std::vector<float>& got,
                    const std::vector<double>& want, double abs_tol, double rel_tol) {
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= abs_tol + rel_tol * std::fabs(want[i])) && bad++ == 0)
      first = i;
  return bad ? mismatch(what, bad, got.size(), first, got[first], want[first]) : std::string();
}

// The test-double driver, when it is the one loaded: its launch records. nullptr on a real driver.
using get_launch_fn = int (*)(std::size_t, tpfake_launch_record*);
using allocation_device_fn = int (*)(const void*);
struct test_double {
  get_launch_fn get_launch = nullptr;
  allocation_device_fn allocation_device = nullptr;
};
test_double find_test_double() {
  test_double t;
  const char* lib = std::getenv("TRITONPACK_CUDA_LIBRARY");
  void* h = lib && *lib ? dlopen(lib, RTLD_NOW | RTLD_NOLOAD) : nullptr;  // only if already loaded
  if (!h) return t;
  t.get_launch = reinterpret_cast<get_launch_fn>(dlsym(h, "tpfake_get_launch"));
  t.allocation_device =
      reinterpret_cast<allocation_device_fn>(dlsym(h, "tpfake_allocation_device"));
  if (!t.get_launch || !t.allocation_device) t = test_double{};
  return t;
}

// One thread: its device, its stream, `rounds` rounds of the three kernels on fresh random data.
void run_thread(int device, int index, int rounds, const test_double& fake, std::atomic<int>& ready,
                int total, thread_result& r) {
  const bool verify = fake.get_launch == nullptr;
  tp::set_device(device);
  r.device = tp::get_device();
  if (r.device != device)
    throw std::runtime_error("set_device(" + std::to_string(device) + ") left get_device() at " +
                             std::to_string(r.device));
  const tp::stream_t stream = tp::create_stream(/*non_blocking=*/true);
  struct stream_guard {
    tp::stream_t s;
    ~stream_guard() { tp::destroy_stream(s); }
  } guard{stream};

  const std::int32_t n = (1 << 20) + 37 * index + 5;                    // not a multiple of BLOCK
  const int rows = 257, cols = 781, in_stride = 800, out_stride = 784;  // softmax
  const int M = 100, N = 200, stride = 208;                             // add2d
  tp::device_array<float> x(static_cast<std::size_t>(n)), y(x.size()), out(x.size());
  tp::device_array<float> sm_in(static_cast<std::size_t>(rows) * in_stride);
  tp::device_array<float> sm_out(static_cast<std::size_t>(rows) * out_stride);
  tp::device_array<float> a_in(static_cast<std::size_t>(M) * stride), a_out(a_in.size());
  for (const auto* p : {&x, &y, &out, &sm_in, &sm_out, &a_in, &a_out})
    r.buffers.push_back(reinterpret_cast<std::uintptr_t>(p->data()));

  // Every thread starts launching at once: the first launches on a device race for its module.
  ready.fetch_add(1);
  while (ready.load() < total) std::this_thread::yield();

  std::mt19937 rng(1000u * static_cast<unsigned>(device) + 17u * static_cast<unsigned>(index));
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  auto random = [&](std::size_t count) {
    std::vector<float> v(count);
    for (auto& e : v) e = dist(rng);
    return v;
  };
  for (int round = 0; round < rounds; ++round) {
    const std::vector<float> hx = random(x.size()), hy = random(y.size());
    const std::vector<float> hs = random(sm_in.size()), ha = random(a_in.size());
    const float alpha = 0.5f + static_cast<float>(round) + 0.25f * static_cast<float>(device);
    // Everything on this thread's stream, in order: its uploads, the poison, the three kernels
    // and the downloads (a non-blocking stream is not ordered with the legacy default stream,
    // where the synchronous copies and memsets go).
    x.upload_async(hx.data(), hx.size(), stream);
    y.upload_async(hy.data(), hy.size(), stream);
    sm_in.upload_async(hs.data(), hs.size(), stream);
    a_in.upload_async(ha.data(), ha.size(), stream);
    for (auto* o : {&out, &sm_out, &a_out})
      tp::memset_device_async(o->data(), 0xFF, o->bytes(), stream);
    gpu_kernels::vector_add(x.data(), y.data(), out.data(), n, alpha, stream);
    gpu_kernels::softmax({static_cast<std::uint32_t>(rows), 1, 1}, sm_out.data(), sm_in.data(),
                         in_stride, out_stride, cols, stream);
    gpu_kernels::add2d(a_in.data(), a_out.data(), M, N, stride, stream);
    std::vector<float> got_v(out.size()), got_s(sm_out.size()), got_a(a_out.size());
    out.download_async(got_v.data(), got_v.size(), stream);
    sm_out.download_async(got_s.data(), got_s.size(), stream);
    a_out.download_async(got_a.data(), got_a.size(), stream);
    tp::synchronize(stream);
    if (!verify) continue;

    const std::string where = "device " + std::to_string(device) + " thread " +
                              std::to_string(index) + " round " + std::to_string(round) + ": ";
    std::vector<double> want(x.size());
    for (std::size_t i = 0; i < want.size(); ++i)
      want[i] = double(hx[i]) + double(alpha) * double(hy[i]);
    std::string e = compare("vector_add", got_v, want, 1e-5, 1e-5);

    std::vector<float> g(static_cast<std::size_t>(rows) * cols);
    want.assign(g.size(), 0.0);
    for (int i = 0; i < rows; ++i) {
      double m = -1e30, s = 0;
      for (int j = 0; j < cols; ++j) m = std::max(m, double(hs[i * in_stride + j]));
      for (int j = 0; j < cols; ++j) s += std::exp(hs[i * in_stride + j] - m);
      for (int j = 0; j < cols; ++j) {
        want[i * cols + j] = std::exp(hs[i * in_stride + j] - m) / s;
        g[i * cols + j] = got_s[i * out_stride + j];
      }
    }
    if (e.empty()) e = compare("softmax", g, want, 1e-7, 1e-5);

    g.clear();
    want.clear();
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        g.push_back(got_a[i * stride + j]);
        want.push_back(ha[i * stride + j] + i * 1000.0 + j);
      }
    if (e.empty()) e = compare("add2d", g, want, 1e-3, 1e-6);
    for (int i = 0; i < M && e.empty(); ++i)  // the padding columns stay poisoned
      for (int j = N; j < stride; ++j)
        if (!std::isnan(got_a[i * stride + j])) {
          e = "add2d wrote the padding column " + std::to_string(j) + " of row " +
              std::to_string(i);
          break;
        }
    if (!e.empty()) throw std::runtime_error(where + e);
  }
  // The test double says where it allocated each buffer (asked while they are alive).
  if (fake.allocation_device)
    for (std::uintptr_t p : r.buffers) {
      const int home = fake.allocation_device(reinterpret_cast<const void*>(p));
      if (home != device)
        throw std::runtime_error("a buffer allocated after set_device(" + std::to_string(device) +
                                 ") is on device " + std::to_string(home));
    }
}

// Reads stderr of the threads (the run time's load log) from a file while they run.
class stderr_capture {
 public:
  stderr_capture() {
    char path[] = "/tmp/tp-multi-device.XXXXXX";
    fd_ = mkstemp(path);
    path_ = path;
    std::fflush(stderr);
    saved_ = fd_ >= 0 ? dup(2) : -1;
    if (saved_ >= 0) dup2(fd_, 2);
  }
  // Restores stderr; returns what was written meanwhile.
  std::string finish() {
    std::fflush(stderr);
    if (saved_ >= 0) {
      dup2(saved_, 2);
      close(saved_);
      saved_ = -1;
    }
    std::ifstream in(path_);
    std::stringstream s;
    s << in.rdbuf();
    if (fd_ >= 0) close(fd_);
    unlink(path_.c_str());
    return s.str();
  }

 private:
  int fd_ = -1, saved_ = -1;
  std::string path_;
};

// Load-log lines per (kernel, device): "tritonpack: kernel K variant V on device D (".
std::map<std::pair<std::string, int>, int> loads_in_log(const std::string& log) {
  std::map<std::pair<std::string, int>, int> count;
  std::istringstream in(log);
  std::string line;
  const std::string head = "tritonpack: kernel ";
  while (std::getline(in, line)) {
    if (line.compare(0, head.size(), head) != 0) continue;
    const std::size_t v = line.find(" variant ", head.size());
    const std::size_t on = line.find(" on device ", v == std::string::npos ? 0 : v);
    if (v == std::string::npos || on == std::string::npos ||
        line.find(": image [") == std::string::npos)
      continue;
    ++count[{line.substr(head.size(), v - head.size()), std::atoi(line.c_str() + on + 11)}];
  }
  return count;
}

// On the test double: every launch in the context of the device that holds its pointer arguments
// (the threads' buffers, each checked to be on its thread's device while alive), `want` launches
// per device. Returns the problems found ("" when none).
std::string check_launches(const test_double& t, const std::vector<thread_result>& threads,
                           int devices, int want) {
  std::map<std::uintptr_t, int> home;  // buffer address -> device of the thread that allocated it
  for (const auto& r : threads)
    for (std::uintptr_t p : r.buffers) home[p] = r.device;
  std::vector<int> per_device(static_cast<std::size_t>(devices), 0);
  std::string problems;
  tpfake_launch_record r;
  for (std::size_t i = 0; t.get_launch(i, &r) == 0; ++i) {
    if (r.device < 0 || r.device >= devices) {
      problems +=
          "launch " + std::to_string(i) + " on unknown device " + std::to_string(r.device) + "\n";
      continue;
    }
    ++per_device[static_cast<std::size_t>(r.device)];
    int pointers = 0;
    for (unsigned p = 0; p < r.num_params; ++p) {
      if (r.param_size[p] != sizeof(void*)) continue;
      std::uintptr_t v = 0;
      std::memcpy(&v, r.params + r.param_offset[p], sizeof v);
      const auto it = home.find(v);
      if (it == home.end()) continue;  // not a thread's buffer (a null scratch pointer)
      ++pointers;
      if (it->second != r.device)
        problems += std::string("launch ") + std::to_string(i) + " (" + r.name + ") on device " +
                    std::to_string(r.device) + " was passed memory of device " +
                    std::to_string(it->second) + "\n";
    }
    if (pointers < 2)
      problems += "launch " + std::to_string(i) + " (" + r.name + "): " + std::to_string(pointers) +
                  " device pointers among its arguments, expected 2 or more\n";
  }
  for (int d = 0; d < devices; ++d)
    if (per_device[static_cast<std::size_t>(d)] != want)
      problems += "device " + std::to_string(d) + " received " +
                  std::to_string(per_device[static_cast<std::size_t>(d)]) + " launches, expected " +
                  std::to_string(want) + "\n";
  return problems;
}

int parse_count(const char* flag, const char* v, int lo, int hi) {
  char* end = nullptr;
  const long n = v ? std::strtol(v, &end, 10) : 0;
  if (!v || *v == '\0' || *end != '\0' || n < lo || n > hi) {
    std::fprintf(stderr, "tritonpack_gpu_multi_device: %s takes an integer in [%d, %d], got `%s`\n",
                 flag, lo, hi, v ? v : "");
    std::exit(2);
  }
  return static_cast<int>(n);
}

}  // namespace
}  // namespace gpu_multi_device

int main(int argc, char** argv) {
  using namespace gpu_multi_device;
  int per_device = 2, rounds = 3;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--threads-per-device")
      per_device = parse_count(a.c_str(), i + 1 < argc ? argv[++i] : nullptr, 1, 64);
    else if (a == "--rounds")
      rounds = parse_count(a.c_str(), i + 1 < argc ? argv[++i] : nullptr, 1, 1000);
    else {
      std::fprintf(
          stderr,
          "tritonpack_gpu_multi_device: unknown option %s (--threads-per-device N, --rounds R)\n",
          argv[i]);
      return 2;
    }
  }
  // The load log is the per-device observable: one line per module loaded (read once per process).
  setenv("TRITONPACK_LOG", "1", 1);

  int devices = 0;
  try {
    devices = tp::device_count();
  } catch (const std::exception& e) {
    std::printf("multi-device: SKIPPED: the driver failed to count devices: %s\n", e.what());
    return skip_exit;
  }
  if (devices < 2) {
    std::printf(
        "multi-device: SKIPPED: %d device(s) here; this test needs 2 or more GPUs in one process "
        "(run it on a multi-GPU machine)\n",
        devices);
    return skip_exit;
  }

  const int total = devices * per_device;
  std::vector<thread_result> results(static_cast<std::size_t>(total));
  std::atomic<int> ready{0};
  const tp::image_load_counts before = tp::image_loads();
  // The test double runs no kernel: results are checked only on a real driver. It is known only
  // once the run time has loaded the driver (device_count above did).
  const test_double fake = find_test_double();
  const bool verify = fake.get_launch == nullptr;
  stderr_capture capture;
  {
    std::vector<std::thread> threads;
    for (int t = 0; t < total; ++t)
      threads.emplace_back([&, t] {
        thread_result& r = results[static_cast<std::size_t>(t)];
        try {
          run_thread(t % devices, t / devices, rounds, fake, ready, total, r);
        } catch (const std::exception& e) {
          r.error = e.what();
          if (ready.load() < total) ready.fetch_add(1);  // never leave the others waiting
        }
      });
    for (auto& th : threads) th.join();
  }
  const std::string log = capture.finish();
  const tp::image_load_counts after = tp::image_loads();

  int failures = 0;
  std::printf(
      "multi-device: %d devices, %d threads each (set_device per thread), %d kernels x %d rounds "
      "per thread\n",
      devices, per_device, kernels_per_device, rounds);
  for (const auto& r : results)
    if (!r.error.empty()) {
      ++failures;
      std::printf("  FAILED: device %d: %s\n", r.device, r.error.c_str());
    }
  const auto logged = loads_in_log(log);
  for (int d = 0; d < devices; ++d) {
    std::string kernels;
    int loads = 0;
    for (const auto& [key, count] : logged)
      if (key.second == d) {
        loads += count;
        kernels += " " + key.first + (count == 1 ? "" : " x" + std::to_string(count));
        if (count != 1) ++failures;
      }
    if (loads != kernels_per_device) ++failures;
    std::printf("  device %d (%s, %s): %d modules loaded (log:%s)%s\n", d,
                tp::device_name(d).c_str(), tp::device_arch(d).c_str(), loads,
                kernels.empty() ? " none" : kernels.c_str(),
                loads == kernels_per_device ? "" : " — expected one per kernel");
  }
  const std::uint64_t loads = after.total() - before.total();
  const std::uint64_t want_loads = static_cast<std::uint64_t>(kernels_per_device) * devices;
  if (loads != want_loads) ++failures;
  std::printf(
      "  image_loads(): %llu modules (%llu cubin, %llu JIT-compiled, %llu JIT cache hits); "
      "expected "
      "%llu = %d kernels x %d devices\n",
      static_cast<unsigned long long>(loads),
      static_cast<unsigned long long>(after.binaries - before.binaries),
      static_cast<unsigned long long>(after.jit_compiled - before.jit_compiled),
      static_cast<unsigned long long>(after.jit_cache_hits - before.jit_cache_hits),
      static_cast<unsigned long long>(want_loads), kernels_per_device, devices);
  if (verify) {
    std::printf(
        "  results: every launch checked against the CPU (random inputs, outputs poisoned)\n");
  } else {
    const std::string problems =
        check_launches(fake, results, devices, per_device * rounds * kernels_per_device);
    if (!problems.empty()) ++failures;
    std::printf(
        "  results: not checked (the test-double driver runs no kernel); launches checked "
        "instead: %s",
        problems.empty() ? "each on the device holding its memory, all received\n"
                         : ("\n" + problems).c_str());
  }
  if (failures) std::printf("---- load log ----\n%s", log.c_str());
  std::printf(
      "summary: devices=%d threads=%d loads=%llu expected_loads=%llu results=%s failures=%d\n",
      devices, total, static_cast<unsigned long long>(loads),
      static_cast<unsigned long long>(want_loads), verify ? "checked" : "not-run", failures);
  std::printf("multi-device: %s\n", failures ? "FAILED" : "PASS");
  return failures ? 1 : 0;
}
