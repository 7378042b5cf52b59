// Helpers shared by the run-time tests: the fake driver's control functions, containers built from
// the real fixtures (tests/data/artifacts) or synthesised, and PTX/cubin makers.
#pragma once

#include <dlfcn.h>
#include <ftw.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <tritonpack/pack/container_writer.hpp>
#include <tritonpack/pack/manifest.hpp>
#include <tritonpack/tritonpack.hpp>

#include "fake_cuda/fake_cuda_control.h"
#include "fake_cuda/fake_elf.hpp"

// 1 in AddressSanitizer builds (TRITONPACK_SANITIZE): GCC defines __SANITIZE_ADDRESS__, Clang has
// __has_feature(address_sanitizer).
#if defined(__SANITIZE_ADDRESS__)
#define TPTEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TPTEST_ASAN 1
#endif
#endif
#ifndef TPTEST_ASAN
#define TPTEST_ASAN 0
#endif

namespace tptest {

// The fake driver's control interface, from the same library the run time dlopens.
struct fake_driver {
  void (*configure)(const char*, unsigned, const char*, const char*);
  size_t (*launch_count)();
  int (*get_launch)(size_t, tpfake_launch_record*);
  void (*clear_launches)();
  size_t (*calls)(const char*);
  size_t (*live_allocations)();
  size_t (*live_modules)();
  size_t (*last_alloc_size)();
  int (*func_attribute)(const char*, int);
  int (*func_cache_config)(const char*);
  int (*current_device)();
  void* (*current_context)();
  void* (*primary_context)(int);
  int (*allocation_device)(const void*);
  size_t (*live_streams)();
  int (*stream_device)(void*);
  int (*stream_flags)(void*);
  void* (*last_stream)(const char*);

  static fake_driver& get() {
    static fake_driver f = [] {
      void* h = dlopen(TP_FAKE_CUDA_PATH, RTLD_NOW | RTLD_LOCAL);
      if (!h) throw std::runtime_error(std::string("cannot open the fake driver: ") + dlerror());
      fake_driver d;
      auto sym = [h](const char* n) {
        void* p = dlsym(h, n);
        if (!p) throw std::runtime_error(std::string("fake driver lacks ") + n);
        return p;
      };
      d.configure = reinterpret_cast<decltype(d.configure)>(sym("tpfake_configure"));
      d.launch_count = reinterpret_cast<decltype(d.launch_count)>(sym("tpfake_launch_count"));
      d.get_launch = reinterpret_cast<decltype(d.get_launch)>(sym("tpfake_get_launch"));
      d.clear_launches = reinterpret_cast<decltype(d.clear_launches)>(sym("tpfake_clear_launches"));
      d.calls = reinterpret_cast<decltype(d.calls)>(sym("tpfake_calls"));
      d.live_allocations = reinterpret_cast<decltype(d.live_allocations)>(sym("tpfake_live_allocations"));
      d.live_modules = reinterpret_cast<decltype(d.live_modules)>(sym("tpfake_live_modules"));
      d.last_alloc_size = reinterpret_cast<decltype(d.last_alloc_size)>(sym("tpfake_last_alloc_size"));
      d.func_attribute = reinterpret_cast<decltype(d.func_attribute)>(sym("tpfake_func_attribute"));
      d.func_cache_config = reinterpret_cast<decltype(d.func_cache_config)>(sym("tpfake_func_cache_config"));
      d.current_device = reinterpret_cast<decltype(d.current_device)>(sym("tpfake_current_device"));
      d.current_context = reinterpret_cast<decltype(d.current_context)>(sym("tpfake_current_context"));
      d.primary_context = reinterpret_cast<decltype(d.primary_context)>(sym("tpfake_primary_context"));
      d.allocation_device = reinterpret_cast<decltype(d.allocation_device)>(sym("tpfake_allocation_device"));
      d.live_streams = reinterpret_cast<decltype(d.live_streams)>(sym("tpfake_live_streams"));
      d.stream_device = reinterpret_cast<decltype(d.stream_device)>(sym("tpfake_stream_device"));
      d.stream_flags = reinterpret_cast<decltype(d.stream_flags)>(sym("tpfake_stream_flags"));
      d.last_stream = reinterpret_cast<decltype(d.last_stream)>(sym("tpfake_last_stream"));
      return d;
    }();
    return f;
  }

  std::vector<tpfake_launch_record> launches() const {
    std::vector<tpfake_launch_record> out(launch_count());
    for (size_t i = 0; i < out.size(); ++i) get_launch(i, &out[i]);
    return out;
  }
};

// Resets the fake to `devices` / `version` (and failures) and makes the run time load it afresh.
inline fake_driver& setup(const char* devices = "sm_90", unsigned version = 13000, const char* fail = "",
                          const char* missing = "") {
  fake_driver& f = fake_driver::get();
  f.configure(devices, version, fail, missing);
  tritonpack::testing::reset_backend();
  return f;
}

// Reads parameter `i` of a launch record as T.
template <class T>
T param(const tpfake_launch_record& r, unsigned i) {
  T v{};
  if (i >= r.num_params || r.param_size[i] != sizeof(T)) throw std::runtime_error("param " + std::to_string(i) + " has size " +
                                                                                   std::to_string(r.param_size[i]));
  std::memcpy(&v, r.params + r.param_offset[i], sizeof(T));
  return v;
}

// The fixtures' container: every kernel of tests/data/artifacts packed with the real packer.
inline const std::vector<std::uint8_t>& fixture_container() {
  static const std::vector<std::uint8_t> bytes = [] {
    auto m = tritonpack::pack::load_manifest(std::string(TP_ARTIFACTS_DIR) + "/manifest.json");
    return tritonpack::pack::write_container(m.info, m.image_bytes);
  }();
  return bytes;
}

// `bytes` with the type of kernel `kernel`'s first argument made empty and the tables checksum
// recomputed to match: a container whose structure parses and whose one kernel breaks a rule on a
// record's contents (what a crafted container, or a writer's bug, can hold). The reader refuses it
// when that kernel is first built: "kernel NAME of container ...: args[N].type: is empty".
inline std::vector<std::uint8_t> with_first_arg_type_emptied(std::vector<std::uint8_t> bytes,
                                                            const std::string& kernel) {
  namespace F = tritonpack::format;
  using tritonpack::byte_io::load_u32;
  using tritonpack::byte_io::load_u64;
  const tritonpack::container c = tritonpack::container::parse(bytes.data(), bytes.size());
  const long k = c.find_kernel(kernel);
  if (k < 0) throw std::runtime_error("no kernel " + kernel);
  auto section = [&](std::uint32_t s) {
    return load_u64(bytes.data() + F::header::sections + s * F::header::section_entry_size);
  };
  const std::uint64_t krec = section(F::sec_kernels) + static_cast<std::uint64_t>(k) * F::record_size[F::sec_kernels];
  const std::uint32_t arg = load_u32(bytes.data() + krec + F::kernel_rec::first_arg);
  const std::uint64_t arec = section(F::sec_args) + std::uint64_t{arg} * F::record_size[F::sec_args];
  tritonpack::byte_io::store_u32(bytes.data() + arec + F::arg_rec::type + 4, 0);  // its length
  tritonpack::byte_io::store_u64(bytes.data() + F::header::tables_checksum, 0);
  tritonpack::byte_io::store_u64(bytes.data() + F::header::tables_checksum,
                                 tritonpack::xxh64(bytes.data(), static_cast<std::size_t>(section(F::sec_data))));
  return bytes;
}

inline std::string ptx_version_string(unsigned isa) { return std::to_string(isa / 10) + "." + std::to_string(isa % 10); }

// A PTX module with one entry; `params` are PTX parameter declarations without names
// (".u64 .ptr .global .align 1", ".u32", ".f32", ".align 64 .b8 [128]" → use "b8[128]" form).
inline std::string make_ptx(const std::string& target, unsigned isa, const std::string& name,
                            const std::vector<std::string>& params, const std::string& directives = "") {
  std::string s = "//\n// synthetic PTX\n//\n.version " + ptx_version_string(isa) + "\n.target " + target +
                  "\n.address_size 64\n\n.visible .entry " + name + "(\n";
  for (size_t i = 0; i < params.size(); ++i) {
    std::string p = params[i];
    const auto br = p.find('[');
    std::string decl;
    if (br != std::string::npos)
      decl = "\t.param " + p.substr(0, br) + " " + name + "_param_" + std::to_string(i) + p.substr(br);
    else
      decl = "\t.param " + p + " " + name + "_param_" + std::to_string(i);
    s += decl + (i + 1 < params.size() ? ",\n" : "\n");
  }
  s += ")\n" + directives + "\n{\n\tret;\n}\n";
  return s;
}

inline std::vector<std::uint8_t> bytes_of(const std::string& s) { return std::vector<std::uint8_t>(s.begin(), s.end()); }

// A one-kernel container assembled in code.
struct synth {
  tritonpack::container_info info;
  std::vector<std::vector<std::uint8_t>> images;

  explicit synth(const std::string& kernel_name = "k") {
    info.name = "synth";
    info.triton_version = "3.6.0";
    tritonpack::kernel_info k;
    k.name = kernel_name;
    k.source = "synthetic.py:" + kernel_name;
    info.kernels.push_back(k);
  }
  tritonpack::kernel_info& kernel() { return info.kernels[0]; }
  void arg(const std::string& name, const std::string& type, bool is_const = false) {
    kernel().args.push_back({name, type, is_const});
  }
  // Adds a variant with the given specs (default: none for every argument); returns its index.
  size_t variant(std::vector<tritonpack::arg_spec> specs = {}, unsigned num_warps = 4) {
    tritonpack::variant_info v;
    v.specs = specs.empty() ? std::vector<tritonpack::arg_spec>(kernel().args.size()) : specs;
    v.config.num_warps = num_warps;
    kernel().variants.push_back(v);
    return kernel().variants.size() - 1;
  }
  // Adds an image to variant `v`; `launch.entry` defaults to the kernel name.
  uint32_t image(size_t v, tritonpack::image_kind kind, const std::string& arch, std::vector<std::uint8_t> bytes,
                 tritonpack::launch_info launch = {}, unsigned ptx_version = 0) {
    tritonpack::image_info im;
    im.backend = kind == tritonpack::image_kind::hsaco || kind == tritonpack::image_kind::llir ? tritonpack::backend_kind::hip
                                                                                               : tritonpack::backend_kind::cuda;
    im.kind = kind;
    im.arch = arch;
    im.ptx_version = ptx_version;
    if (launch.entry.empty()) launch.entry = kernel().name;
    if (launch.triton_version.empty()) launch.triton_version = "3.6.0";
    im.launch = launch;
    info.images.push_back(im);
    images.push_back(std::move(bytes));
    const auto idx = static_cast<uint32_t>(info.images.size() - 1);
    kernel().variants[v].images.push_back(idx);
    return idx;
  }
  // Appends this kernel and its images to a library being assembled from several synths (the
  // generated-code tests), moving its image indices past the images already there.
  void append_to(tritonpack::container_info& library, std::vector<std::vector<std::uint8_t>>& library_images) const {
    tritonpack::kernel_info k = info.kernels[0];
    const auto base = static_cast<std::uint32_t>(library.images.size());
    for (auto& v : k.variants)
      for (auto& im : v.images) im += base;
    library.kernels.push_back(std::move(k));
    library.images.insert(library.images.end(), info.images.begin(), info.images.end());
    library_images.insert(library_images.end(), images.begin(), images.end());
  }
  std::vector<std::uint8_t> pack() const { return tritonpack::pack::write_container(info, images); }
};

// Runs this test binary again in a child process, with `env` ("NAME=value ...") before it and only
// the test cases that match `test_filter`; gives its exit status (as pclose returns it) and what it
// printed on stdout and stderr.
struct child_result {
  int status = -1;
  std::string output;
};
inline child_result run_self(const std::string& env, const std::string& test_filter) {
  const std::string cmd = env + " /proc/" + std::to_string(getpid()) + "/exe --test-case='" + test_filter + "' 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("popen failed: " + cmd);
  child_result r;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) r.output.append(buf, n);
  r.status = pclose(p);
  return r;
}

// True when a child of run_self exited 0 having run exactly one test case, which passed.
inline bool one_case_passed(const child_result& c) {
  std::string summary = c.output;  // "test cases: 1 | 1 passed", aligned with varying spaces
  summary.erase(std::remove(summary.begin(), summary.end(), ' '), summary.end());
  return c.status == 0 && summary.find("testcases:1|1passed") != std::string::npos;
}

inline std::string make_temp_dir(const char* stem) {
  std::string t = std::string("/tmp/") + stem + "-XXXXXX";
  if (!mkdtemp(t.data())) throw std::runtime_error("mkdtemp failed");
  return t;
}

// A fresh directory `parent`/`stem`-XXXXXX.
inline std::string make_temp_dir_in(const std::string& parent, const char* stem) {
  std::string t = parent + "/" + stem + "-XXXXXX";
  if (!mkdtemp(t.data())) throw std::runtime_error("mkdtemp failed in " + parent);
  return t;
}

inline void remove_tree(const std::string& dir) {
  nftw(dir.c_str(), [](const char* p, const struct stat*, int, struct FTW*) { return ::remove(p); }, 16, FTW_DEPTH | FTW_PHYS);
}

// Runs `f`, returns the tritonpack::error it threw (fails the test if none).
template <class F>
tritonpack::error expect_error(F&& f) {
  try {
    f();
  } catch (const tritonpack::error& e) {
    return e;
  }
  throw std::runtime_error("expected a tritonpack::error, none was thrown");
}

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Runs body(i) for i in [0, n) on n threads and joins them all. An exception escaping a thread
// would std::terminate the whole test binary and hide every later test case; here each one is
// caught and reported: the result is one line per thread that threw ("thread 3: <what()>"), empty
// when none did, so a test writes CHECK(tptest::run_threads(n, body) == "") and sees the messages.
template <class F>
std::string run_threads(int n, F&& body) {
  std::vector<std::string> errors(static_cast<std::size_t>(n));
  std::vector<std::thread> ts;
  ts.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    ts.emplace_back([&, i] {
      std::string& out = errors[static_cast<std::size_t>(i)];
      try {
        body(i);
      } catch (const std::exception& e) {
        out = "thread " + std::to_string(i) + ": " + e.what() + "\n";
      } catch (...) {
        out = "thread " + std::to_string(i) + ": an exception that is not a std::exception\n";
      }
    });
  for (auto& t : ts) t.join();
  std::string all;
  for (const auto& e : errors) all += e;
  return all;
}

// Sets (or, with nullptr, unsets) an environment variable for the scope; restores it and forgets
// the backend afterwards, so the next test reads the environment again.
struct env_guard {
  std::string name;
  std::string old;
  bool had;
  env_guard(const char* n, const char* v) : name(n) {
    const char* o = std::getenv(n);
    had = o != nullptr;
    if (o) old = o;
    if (v)
      setenv(n, v, 1);
    else
      unsetenv(n);
  }
  ~env_guard() {
    if (had)
      setenv(name.c_str(), old.c_str(), 1);
    else
      unsetenv(name.c_str());
    tritonpack::testing::reset_backend();
  }
};

// Makes device `ordinal`'s primary context current on this thread through the fake driver (as
// cudaSetDevice does in an application).
inline void set_device(int ordinal) {
  tritonpack::get_backend();  // the driver is initialised (cuInit) by the run time's first use
  void* h = dlopen(TP_FAKE_CUDA_PATH, RTLD_NOW | RTLD_LOCAL);
  using retain_fn = int (*)(void**, int);
  using set_fn = int (*)(void*);
  auto retain = reinterpret_cast<retain_fn>(dlsym(h, "cuDevicePrimaryCtxRetain"));
  auto set = reinterpret_cast<set_fn>(dlsym(h, "cuCtxSetCurrent"));
  void* ctx = nullptr;
  if (retain(&ctx, ordinal) != 0 || set(ctx) != 0) throw std::runtime_error("set_device failed");
}

}  // namespace tptest
