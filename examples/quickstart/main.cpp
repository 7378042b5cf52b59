// The tritonpack quickstart: two Triton kernels (kernels.py) called from C++ (this file).
//
//   quickstart.hpp is generated at build time (tritonpack_add_kernels in CMakeLists.txt): it embeds
//   the kernels compiled for sm_80, sm_90, sm_100, gfx90a and gfx942 (cubins, code objects and PTX)
//   and declares one typed function per kernel:
//     quickstart::vector_add(const float* x, const float* y, float* out, int32_t n, float alpha, stream)
//     quickstart::row_softmax(float* out, const float* inp, int32_t n_rows, int32_t n_cols,
//                             int32_t in_stride, int32_t out_stride, stream)
//
// On a GPU it runs both on random inputs, checks them against a CPU reference, and prints which
// image the run time chose and how long things took. Without a GPU it prints what the program
// carries, which image each GPU family would get, and why it cannot launch here — and exits 0.
// Device memory comes from the run time's memory API (tritonpack/runtime/memory.hpp): the same dlopen'd
// driver the kernels use, so the program needs no CUDA toolkit to build or run.
//
//   quickstart                 run (or explain)
//   quickstart --require-gpu   the same, but no GPU is an error (exit 1): for tests on GPU nodes
#include <quickstart.hpp>

#include <tritonpack/tritonpack.hpp>
#include <tritonpack/select/image.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace tp = tritonpack;
using clock_type = std::chrono::steady_clock;

namespace {

std::string human_bytes(std::uint64_t n) {
  char buf[32];
  if (n >= (1u << 20)) std::snprintf(buf, sizeof buf, "%.1f MiB", n / 1048576.0);
  else if (n >= 1024) std::snprintf(buf, sizeof buf, "%.1f KiB", n / 1024.0);
  else std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(n));
  return buf;
}

double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

std::string image_name(const tp::image_info& im) {
  std::string s = std::string(tp::image_kind_name(im.kind)) + " " + im.arch;
  if (im.kind == tp::image_kind::ptx)
    s += " (ISA " + std::to_string(im.ptx_version / 10) + "." + std::to_string(im.ptx_version % 10) + ")";
  return s;
}

std::string spec_text(const tp::kernel_info& k, const tp::variant_info& v) {
  std::string s;
  for (std::size_t i = 0; i < k.args.size() && i < v.specs.size(); ++i) {
    const auto& a = k.args[i];
    const auto& sp = v.specs[i];
    if (sp.kind == tp::spec_kind::none) continue;
    if (!s.empty()) s += ", ";
    switch (sp.kind) {
      case tp::spec_kind::divisible_16:
        s += a.type[0] == '*' ? a.name + " 16-byte aligned" : a.name + " % 16 == 0";
        break;
      case tp::spec_kind::equal_1: s += a.name + " == 1"; break;
      case tp::spec_kind::constexpr_value: s += a.name + " == " + sp.value; break;
      default: break;
    }
  }
  return s.empty() ? "any arguments" : s;
}

// 1. What this program carries.
void print_contents(const tp::container_info& c) {
  std::uint64_t raw = 0, stored = 0;
  for (const auto& im : c.images) raw += im.raw_size, stored += im.stored_size;
  std::printf("This program carries library `%s`: %zu kernels, %zu GPU images, %s of GPU code stored in %s "
              "(zstd, %.1fx), compiled by Triton %s.\n\n",
              c.name.c_str(), c.kernels.size(), c.images.size(), human_bytes(raw).c_str(),
              human_bytes(stored).c_str(), stored ? double(raw) / double(stored) : 0.0, c.triton_version.c_str());
  for (const auto& k : c.kernels) {
    std::printf("  %s(", k.name.c_str());
    for (std::size_t i = 0; i < k.args.size(); ++i)
      std::printf("%s%s %s", i ? ", " : "", k.args[i].type.c_str(), k.args[i].name.c_str());
    std::printf(")  from %s\n", k.source.c_str());
    for (std::size_t vi = 0; vi < k.variants.size(); ++vi) {
      const auto& v = k.variants[vi];
      std::printf("    variant %zu (%s; %u warps):\n", vi, spec_text(k, v).c_str(), v.config.num_warps);
      // Group the images by backend + kind: "cuda cubin  sm_80 sm_90a sm_100a".
      std::map<std::string, std::string> groups;
      for (std::uint32_t idx : v.images) {
        const auto& im = c.images[idx];
        std::string key = std::string(tp::backend_name(im.backend)) + " " + tp::image_kind_name(im.kind);
        std::string item = im.arch;
        if (im.kind == tp::image_kind::ptx)
          item += "/ISA" + std::to_string(im.ptx_version / 10) + "." + std::to_string(im.ptx_version % 10);
        groups[key] += (groups[key].empty() ? "" : " ") + item;
      }
      for (const auto& [key, items] : groups) std::printf("      %-11s %s\n", key.c_str(), items.c_str());
    }
  }
  std::printf("\n");
}

// 2. Which image each GPU family would run: the run time's own selection code, on device names.
void print_choices(const tp::container_info& c) {
  struct gpu { const char* target; const char* examples; };
  const gpu gpus[] = {
      {"sm_80", "A100, A30"},       {"sm_86", "A40, RTX 3090"},    {"sm_89", "L40S, RTX 4090"},
      {"sm_90", "H100, H200, GH200"}, {"sm_100", "B200, GB200"},   {"sm_120", "RTX 5090, RTX PRO 6000"},
      {"gfx90a", "MI210, MI250X"},  {"gfx942", "MI300X, MI300A"},  {"gfx1100", "Radeon RX 7900 XTX"},
  };
  std::printf("Which image each GPU would run (the run time's selection rules; drivers assumed new enough "
              "for every PTX):\n\n");
  std::printf("  %-8s %-22s", "GPU", "for example");
  for (const auto& k : c.kernels) std::printf(" %-18s", k.name.c_str());
  std::printf(" why (%s)\n", c.kernels.empty() ? "" : c.kernels[0].name.c_str());
  for (const auto& g : gpus) {
    tp::device_target dev = tp::parse_device_target(g.target);
    std::printf("  %-8s %-22s", g.target, g.examples);
    std::string why;
    for (std::size_t ki = 0; ki < c.kernels.size(); ++ki) {
      const auto& k = c.kernels[ki];
      if (k.variants.empty()) continue;
      // Variant 0 is the most specialised: what a call with aligned arguments takes.
      tp::image_choice ch = tp::select_image(c, k.variants[0], dev);
      std::string cell = ch.image ? image_name(c.images[*ch.image]) : std::string("none");
      if (ch.image && ch.jit) cell = "JIT " + cell.substr(0, cell.find(" (ISA"));
      std::printf(" %-18s", cell.c_str());
      if (ki == 0) why = ch.reason;
    }
    std::printf(" %s\n", why.c_str());
  }
  std::printf("\n  AMD rows show the code object the selection picks; the run time's HIP backend launches it\n"
              "  on an AMD GPU (tested on the CPU only: README.md, \"Honest limits\"). PTX is JIT-compiled\n"
              "  once and cached on disk.\n\n");
}

// ---- the GPU run -------------------------------------------------------------------------------

std::vector<float> random_floats(std::size_t n, std::uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

struct check_result {
  double max_err = 0;
  std::size_t bad = 0;
};

check_result compare(const std::vector<float>& got, const std::vector<float>& want, double rtol, double atol) {
  check_result r;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double e = std::fabs(double(got[i]) - double(want[i]));
    if (!(e <= atol + rtol * std::fabs(double(want[i])))) ++r.bad;  // NaN (poison left) counts as bad
    if (std::isnan(got[i])) r.max_err = std::numeric_limits<double>::infinity();
    else r.max_err = std::max(r.max_err, e);
  }
  return r;
}

// Chosen image of a variant on this device, as the run time would explain it.
std::string chosen(const tp::container_info& c, std::size_t kernel, std::size_t variant, const tp::device_target& dev) {
  tp::image_choice ch = tp::select_image(c, c.kernels[kernel].variants[variant], dev);
  if (!ch.image) return "none: " + ch.reason;
  return image_name(c.images[*ch.image]) + (ch.jit ? ", JIT-compiled" : "") + " — " + ch.reason;
}

template <class F>
double time_launches(int reps, F&& launch) {
  tp::synchronize();
  auto t0 = clock_type::now();
  for (int i = 0; i < reps; ++i) launch();
  tp::synchronize();
  return ms_since(t0) * 1000.0 / reps;  // µs per launch
}

// Every byte 0xFF: as float, a NaN. An element a kernel fails to write stays NaN.
void poison(tp::device_array<float>& a) { a.fill_bytes(0xFF); }

int run_on_gpu() {
  const tp::container_info& c = quickstart::library().info();
  const tp::device_props& props = quickstart::library().current_device();
  tp::device_target dev;
  dev.backend = props.backend;
  dev.arch = props.arch;
  dev.driver_version = props.driver_version;
  dev.force_ir = tp::env::flag(tp::env::force_ir);
  std::printf("GPU: %s\n\n", props.describe().c_str());
  bool ok = true;

  {  // vector_add: out = x + alpha * y, 16M elements (aligned, n % 16 == 0 → variant 0)
    const std::int32_t n = 1 << 24;
    const float alpha = 2.5f;
    auto x = random_floats(n, 1, -1.f, 1.f), y = random_floats(n, 2, -1.f, 1.f);
    std::vector<float> want(n), got(n);
    for (std::int32_t i = 0; i < n; ++i) want[i] = x[i] + alpha * y[i];
    tp::device_array<float> dx(x), dy(y), dout(n);
    poison(dout);  // NaN everywhere: an element the kernel misses fails the check
    auto t0 = clock_type::now();
    quickstart::vector_add(dx.data(), dy.data(), dout.data(), n, alpha);
    tp::synchronize();
    const double first_ms = ms_since(t0);
    dout.download(got.data(), got.size());
    check_result r = compare(got, want, 1e-6, 1e-6);
    const double us = time_launches(50, [&] { quickstart::vector_add(dx.data(), dy.data(), dout.data(), n, alpha); });
    // An odd size and an unaligned pointer take the general variant (1).
    const std::int32_t m = 1000003;
    tp::device_array<float> dodd(m + 4);
    poison(dodd);
    quickstart::vector_add(dx.data(), dy.data(), dodd.data() + 1, m, alpha);
    tp::synchronize();
    const std::vector<float> got_odd = dodd.to_host();
    std::vector<float> got_m(got_odd.begin() + 1, got_odd.begin() + 1 + m), want_m(want.begin(), want.begin() + m);
    check_result r2 = compare(got_m, want_m, 1e-6, 1e-6);
    const bool edges_ok = std::isnan(got_odd[0]) && std::isnan(got_odd[m + 1]);  // nothing written outside
    std::printf("vector_add   n = %d, alpha = %.1f\n", n, alpha);
    std::printf("  image      %s\n", chosen(c, 0, 0, dev).c_str());
    std::printf("  first call %.2f ms (select + decompress + load + launch)\n", first_ms);
    std::printf("  steady     %.1f us per call, %.0f GB/s\n", us, 3.0 * n * sizeof(float) / (us * 1e3));
    std::printf("  check      %s: max |error| %.2g vs CPU, %zu of %d wrong\n", r.bad ? "FAILED" : "ok", r.max_err,
                r.bad, n);
    std::printf("  general    n = %d at an unaligned pointer → variant 1 (%s): %s, max |error| %.2g\n", m,
                chosen(c, 0, 1, dev).c_str(), (r2.bad || !edges_ok) ? "FAILED" : "ok", r2.max_err);
    ok = ok && !r.bad && !r2.bad && edges_ok;
  }
  {  // row_softmax: 4096 rows of 781 columns in rows of 800 floats (a padded layout)
    const std::int32_t rows = 4096, cols = 781, in_stride = 800, out_stride = 784;
    auto in = random_floats(std::size_t(rows) * in_stride, 3, -8.f, 8.f);
    std::vector<float> want(std::size_t(rows) * out_stride, std::nanf("")), got(want.size());
    for (std::int32_t r = 0; r < rows; ++r) {
      const float* row = &in[std::size_t(r) * in_stride];
      const float mx = *std::max_element(row, row + cols);
      double sum = 0;
      for (int j = 0; j < cols; ++j) sum += std::exp(double(row[j]) - mx);
      for (int j = 0; j < cols; ++j) want[std::size_t(r) * out_stride + j] = float(std::exp(double(row[j]) - mx) / sum);
    }
    tp::device_array<float> din(in), dout(want.size());
    poison(dout);
    auto t0 = clock_type::now();
    quickstart::row_softmax(dout.data(), din.data(), rows, cols, in_stride, out_stride);
    tp::synchronize();
    const double first_ms = ms_since(t0);
    dout.download(got.data(), got.size());
    // Compare the columns the kernel owns; the padding must still hold the poison.
    std::vector<float> g, w;
    bool padding_ok = true;
    for (std::int32_t r = 0; r < rows; ++r)
      for (std::int32_t j = 0; j < out_stride; ++j) {
        const std::size_t i = std::size_t(r) * out_stride + j;
        if (j < cols) g.push_back(got[i]), w.push_back(want[i]);
        else padding_ok = padding_ok && std::isnan(got[i]);
      }
    check_result r = compare(g, w, 1e-4, 1e-6);
    const double us = time_launches(50, [&] {
      quickstart::row_softmax(dout.data(), din.data(), rows, cols, in_stride, out_stride);
    });
    std::printf("row_softmax  %d x %d (strides %d, %d)\n", rows, cols, in_stride, out_stride);
    std::printf("  image      %s\n", chosen(c, 1, 0, dev).c_str());
    std::printf("  first call %.2f ms (select + decompress + load + launch)\n", first_ms);
    std::printf("  steady     %.1f us per call, %.0f GB/s\n", us, 2.0 * rows * cols * sizeof(float) / (us * 1e3));
    std::printf("  check      %s: max |error| %.2g vs CPU, %zu of %zu wrong%s\n", (r.bad || !padding_ok) ? "FAILED" : "ok",
                r.max_err, r.bad, g.size(), padding_ok ? "" : ", padding overwritten");
    ok = ok && !r.bad && padding_ok;
  }
  std::printf("\n%s\n", ok ? "All results match the CPU reference." : "MISMATCH: see above.");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  bool require_gpu = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--require-gpu") == 0) require_gpu = true;
    else {
      std::fprintf(stderr, "usage: %s [--require-gpu]\n", argv[0]);
      return 2;
    }
  }
  try {
    std::printf("tritonpack quickstart: Triton kernels in a C++ program\n\n");
    const tp::container_info& c = quickstart::library().info();
    print_contents(c);

    // Find the GPU as the first launch would (load the driver with dlopen, find the device): no
    // driver or no GPU counts 0, anything else wrong with the driver throws. The kernels
    // themselves are loaded lazily by their first call, which run_on_gpu times.
    if (tp::device_count() == 0) {
      print_choices(c);
      // What any call of a kernel says on this machine (the run time keeps the diagnosis; the
      // arguments are never looked at because nothing is launched).
      std::string why = "no GPU";
      tp::errc code = tp::errc::no_device;
      try {
        quickstart::vector_add(nullptr, nullptr, nullptr, 16, 1.0f);
      } catch (const tp::error& launch_error) {
        why = launch_error.what();
        code = launch_error.code();
      }
      std::printf("Cannot launch here: %s\n[tritonpack::errc::%s]\n\n", why.c_str(), tp::errc_name(code));
      std::printf("Nothing is wrong with the program: copy it to a node with an NVIDIA or AMD GPU from the table\n"
                  "and run it there; it needs only the GPU driver, or ROCm 6+ on AMD (no CUDA toolkit, Python or PyTorch).\n");
      return require_gpu ? 1 : 0;
    }
    return run_on_gpu();
  } catch (const tp::error& e) {
    std::fprintf(stderr, "error: %s [%s]\n", e.what(), tp::errc_name(e.code()));
    return 1;
  }
}
