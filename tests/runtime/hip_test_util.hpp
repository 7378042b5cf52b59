// hip_test_util.hpp — the HIP backend's tests on the test-double libamdhip64 (fake_hip/): the
// double's control API, dlopened from the same file the run time loads through
// TRITONPACK_HIP_LIBRARY, and a scope that points the run time at it. The double checks every
// code object against the device and every launch against the kernel's own .amdhsa.kernels
// metadata (fake_hip/launch_check.hpp): a launch these tests see recorded passed those checks.
#pragma once

#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <map>
#include <stdexcept>
#include <string>

#include <doctest/doctest.h>

#include "fake_hip/fake_hip_control.h"
#include "test_util.hpp"

namespace tphip {

// The control functions of one build of the double (the full one, the ROCm 5 one, ...).
struct fake_hip {
  void (*configure)(const char*, int, const char*, const char*);
  size_t (*launch_count)();
  int (*get_launch)(size_t, tpfakehip_launch_record*);
  size_t (*rejected_launch_count)();
  size_t (*last_error)(char*, size_t);
  size_t (*live_modules)();
  size_t (*live_allocations)();
  int (*stream_flags)(void*);
  void* (*last_stream)(const char*);
  size_t (*allocation_bytes_from)(const void*);
  size_t (*calls)(const char*);
  void (*set_capturing)(void*, int);

  static fake_hip& at(const char* path) {
    static std::map<std::string, fake_hip> opened;
    auto it = opened.find(path);
    if (it != opened.end()) return it->second;
    void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) throw std::runtime_error(std::string("cannot open the fake HIP: ") + dlerror());
    auto sym = [h, path](const char* n) {
      void* p = dlsym(h, n);
      if (!p) throw std::runtime_error(std::string(path) + " lacks " + n);
      return p;
    };
    fake_hip d;
    d.configure = reinterpret_cast<decltype(d.configure)>(sym("tpfakehip_configure"));
    d.launch_count = reinterpret_cast<decltype(d.launch_count)>(sym("tpfakehip_launch_count"));
    d.get_launch = reinterpret_cast<decltype(d.get_launch)>(sym("tpfakehip_get_launch"));
    d.rejected_launch_count = reinterpret_cast<decltype(d.rejected_launch_count)>(sym("tpfakehip_rejected_launch_count"));
    d.last_error = reinterpret_cast<decltype(d.last_error)>(sym("tpfakehip_last_error"));
    d.live_modules = reinterpret_cast<decltype(d.live_modules)>(sym("tpfakehip_live_modules"));
    d.live_allocations = reinterpret_cast<decltype(d.live_allocations)>(sym("tpfakehip_live_allocations"));
    d.stream_flags = reinterpret_cast<decltype(d.stream_flags)>(sym("tpfakehip_stream_flags"));
    d.last_stream = reinterpret_cast<decltype(d.last_stream)>(sym("tpfakehip_last_stream"));
    d.allocation_bytes_from = reinterpret_cast<decltype(d.allocation_bytes_from)>(sym("tpfakehip_allocation_bytes_from"));
    d.calls = reinterpret_cast<decltype(d.calls)>(sym("tpfakehip_calls"));
    d.set_capturing = reinterpret_cast<decltype(d.set_capturing)>(sym("tpfakehip_set_capturing"));
    return opened.emplace(path, d).first->second;
  }
  static fake_hip& get() { return at(TP_FAKE_HIP_PATH); }

  std::string reason() const {
    char buf[1024];
    last_error(buf, sizeof buf);
    return buf;
  }
  tpfakehip_launch_record launch(size_t i) const {
    static tpfakehip_launch_record r;  // 4 KiB of kernarg: not on the stack of every test
    if (get_launch(i, &r) != 0) throw std::runtime_error("the fake HIP has no launch " + std::to_string(i));
    return r;
  }
  tpfakehip_launch_record last_launch() const {
    if (launch_count() == 0) throw std::runtime_error("the fake HIP recorded no launch (last refusal: " + reason() + ")");
    return launch(launch_count() - 1);
  }
};

// The explicit argument of a recorded launch at `offset`, as the kernel would read it.
template <class T>
T kernarg_at(const tpfakehip_launch_record& r, unsigned offset) {
  T v{};
  if (offset + sizeof(T) > r.kernarg_size) throw std::runtime_error("kernarg offset beyond the explicit arguments");
  std::memcpy(&v, r.kernarg + offset, sizeof(T));
  return v;
}

// Triton's global scratch pointer in a recorded launch (the second-last explicit argument).
inline void* global_scratch_of(const tpfakehip_launch_record& r) {
  if (r.num_args < 2) throw std::runtime_error("the recorded launch has no scratch arguments");
  return kernarg_at<void*>(r, r.arg_offset[r.num_args - 2]);
}

// The run time on a build of the double (TRITONPACK_HIP_LIBRARY), configured with `devices` (the
// double's TRITONPACK_FAKE_HIP_DEVICES syntax), the HIP version and the failures to inject;
// TRITONPACK_BACKEND is `backend` (nullptr: unset, the run time chooses).
struct hip_setup {
  tptest::env_guard lib;
  tptest::env_guard forced;
  explicit hip_setup(const char* devices = "gfx942:sramecc+:xnack-", int version = 70125424, const char* fail = "",
                     const char* backend = "hip", const char* library = TP_FAKE_HIP_PATH)
      : lib("TRITONPACK_HIP_LIBRARY", library), forced("TRITONPACK_BACKEND", backend) {
    fake_hip::at(library).configure(devices, version, fail, "");
    tritonpack::testing::reset_backend();
  }
  ~hip_setup() { tritonpack::testing::reset_backend(); }
};

// tests/data's vector_add(x, y, out, n, alpha) over n elements, BLOCK 1024.
inline void launch_vector_add(tritonpack::library& lib, float* x, float* y, float* out, std::int32_t n, float alpha) {
  lib.get("vector_add").launch(nullptr, {static_cast<std::uint32_t>((n + 1023) / 1024), 1, 1}, static_cast<const float*>(x),
                               static_cast<const float*>(y), out, n, alpha);
}

// vector_add's three arrays in device memory: the double refuses a launch whose pointer argument
// is host memory, as a GPU would fault on it. Allocate inside the hip_setup scope.
struct vector_add_arrays {
  tritonpack::device_array<float> x, y, out;
  explicit vector_add_arrays(std::size_t n = 16) : x(n), y(n), out(n) {}
  void launch(tritonpack::library& lib, std::int32_t n, float alpha) { launch_vector_add(lib, x.data(), y.data(), out.data(), n, alpha); }
};

// Runs `body` in a forked child and returns what it returned (or "child failed: ..."). For what
// must not touch this process: a real ROCm library (libamdhip64, comgr) maps never-freed state
// that is not the tests' to judge (LeakSanitizer), and comgr is loaded once per process.
inline std::string in_child(const std::function<std::string()>& body) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    std::string out;
    try {
      out = body();
    } catch (const std::exception& e) {
      out = std::string("exception: ") + e.what();
    }
    const ssize_t w = write(fds[1], out.data(), out.size());
    _exit(w == static_cast<ssize_t>(out.size()) ? 0 : 1);
  }
  close(fds[1]);
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "child failed: " + got;
  return got;
}

}  // namespace tphip
