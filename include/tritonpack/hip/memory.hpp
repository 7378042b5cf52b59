// tritonpack/hip/memory.hpp — the memory and device API (runtime/memory.hpp,
// runtime/device_ops.hpp) on the HIP runtime the run time has loaded.
//
// The calling thread's device is HIP's current device (hipSetDevice / hipGetDevice), the one the
// HIP backend's launches use, so an application's own hipSetDevice / hipMalloc interoperate with
// these calls. Copies use hipMemcpyDefault: the runtime infers the direction (unified addressing).
// Unlike the CUDA implementation, failing copies do not describe their pointers (the HIP backend
// does not resolve hipPointerGetAttributes): the message names the call, sizes, addresses, device.
#pragma once

#include <cstdio>
#include <string>

#include "tritonpack/core/env.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/hip/api.hpp"
#include "tritonpack/hip/driver.hpp"
#include "tritonpack/runtime/device_ops.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace hip {

class hip_device_ops final : public device_ops {
 public:
  explicit hip_device_ops(const driver& d) : d_(d) {}

  int count() const noexcept override { return d_.device_count; }

  std::string visibility_note() const override {
    std::string s;
    for (const char* v : {"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"}) {
      const std::string val = env::get(v);
      if (!val.empty()) s += std::string("; ") + v + " is \"" + val + "\"";
    }
    return s;
  }

  void set_current(int ordinal) override {
    d_.check(d_.fn.hipSetDevice(ordinal),
             "set_device: hipSetDevice(" + std::to_string(ordinal) + ")");
  }

  int current() override {
    int dev = 0;
    d_.check(d_.fn.hipGetDevice(&dev), "get_device: hipGetDevice");
    return dev;
  }

  std::string name(int ordinal) override { return d_.device_name(ordinal); }
  std::string arch(int ordinal) override { return d_.arch(ordinal); }

  memory_info memory() override {
    memory_info m;
    call(
        d_.fn.hipMemGetInfo, "hipMemGetInfo", "device_memory_info",
        [&] { return "device_memory_info on " + where(); }, &m.free, &m.total);
    return m;
  }

  void* allocate(std::size_t bytes) override {
    need(d_.fn.hipMalloc, "hipMalloc", "device_malloc");
    void* p = nullptr;
    const hipError_t r = d_.fn.hipMalloc(&p, bytes);
    if (r == hipSuccess) return p;
    std::string msg = "device_malloc of " + detail::bytes_text(bytes) + " on " + where() +
                      " failed: " + d_.status(r);
    if (r != hipErrorOutOfMemory) throw error(errc::driver_error, msg, r);
    std::size_t free = 0, total = 0;
    if (d_.fn.hipMemGetInfo && d_.fn.hipMemGetInfo(&free, &total) == hipSuccess)
      msg += "; the device has " + detail::size_text(free) + " free of " + detail::size_text(total);
    throw error(errc::out_of_memory, msg, r);
  }

  void free(void* ptr) override {
    call(
        d_.fn.hipFree, "hipFree", "device_free",
        [&] { return "device_free(" + detail::address_text(ptr) + ")"; }, ptr);
  }

  void copy(void* dst, const void* src, std::size_t bytes) override {
    call(
        d_.fn.hipMemcpy, "hipMemcpy", "copy", [&] { return copy_text("copy", dst, src, bytes); },
        dst, src, bytes, int{hipMemcpyDefault});
  }

  void copy_async(void* dst, const void* src, std::size_t bytes, stream_t stream) override {
    call(
        d_.fn.hipMemcpyAsync, "hipMemcpyAsync", "copy_async",
        [&] {
          return copy_text("copy_async", dst, src, bytes) + " on stream " +
                 detail::address_text(stream);
        },
        dst, src, bytes, int{hipMemcpyDefault}, static_cast<hipStream_t>(stream));
  }

  void fill(void* dst, unsigned char value, std::size_t bytes) override {
    call(
        d_.fn.hipMemset, "hipMemset", "memset_device",
        [&] { return fill_text("memset_device", dst, value, bytes); }, dst, int{value}, bytes);
  }

  void fill_async(void* dst, unsigned char value, std::size_t bytes, stream_t stream) override {
    call(
        d_.fn.hipMemsetAsync, "hipMemsetAsync", "memset_device_async",
        [&] {
          return fill_text("memset_device_async", dst, value, bytes) + " on stream " +
                 detail::address_text(stream);
        },
        dst, int{value}, bytes, static_cast<hipStream_t>(stream));
  }

  // A failure here is usually an earlier kernel's or asynchronous copy's, reported late.
  void synchronize() override {
    need(d_.fn.hipDeviceSynchronize, "hipDeviceSynchronize", "synchronize");
    const hipError_t r = d_.fn.hipDeviceSynchronize();
    if (r != hipSuccess) throw sync_failed(r, "synchronize() on " + where());
  }

  void synchronize(stream_t stream) override {
    const hipError_t r = d_.fn.hipStreamSynchronize(static_cast<hipStream_t>(stream));
    if (r != hipSuccess)
      throw sync_failed(r,
                        "synchronize(stream " + detail::address_text(stream) + ") on " + where());
  }

  stream_t create_stream(bool non_blocking) override {
    hipStream_t s = nullptr;
    call(
        d_.fn.hipStreamCreateWithFlags, "hipStreamCreateWithFlags", "create_stream",
        [&] { return "create_stream on " + where(); }, &s,
        non_blocking ? unsigned{hipStreamNonBlocking} : 0u);
    return s;
  }

  void destroy_stream(stream_t stream) override {
    call(
        d_.fn.hipStreamDestroy, "hipStreamDestroy", "destroy_stream",
        [&] { return "destroy_stream(" + detail::address_text(stream) + ")"; },
        static_cast<hipStream_t>(stream));
  }

 private:
  // The optional entries this API uses: a runtime (or a test double) without one gets an
  // explanation instead of a null call.
  template <class F>
  void need(F* f, const char* entry, const char* call) const {
    if (!f)
      throw error(errc::unsupported, std::string(call) + " needs " + entry +
                                         ", which the HIP runtime at " + d_.library + " (" +
                                         d_.version_string() + ") lacks");
  }

  // Calls `f(args...)`; on failure throws with `what()` + the runtime's status.
  template <class F, class What, class... Args>
  void call(F* f, const char* entry, const char* api_call, What&& what, Args... args) const {
    need(f, entry, api_call);
    const hipError_t r = f(args...);
    if (r != hipSuccess)
      throw error(r == hipErrorOutOfMemory ? errc::out_of_memory : errc::driver_error,
                  what() + " failed: " + d_.status(r), r);
  }

  // "device 0 (AMD Instinct MI300X)"; never throws (built while another error is reported).
  std::string where() noexcept {
    try {
      const int ordinal = current();
      return "device " + std::to_string(ordinal) + " (" + name(ordinal) + ")";
    } catch (...) {
      return "the current device";
    }
  }

  static std::string copy_text(const char* call, const void* dst, const void* src,
                               std::size_t bytes) {
    return std::string(call) + " of " + detail::bytes_text(bytes) + " from " +
           detail::address_text(src) + " to " + detail::address_text(dst);
  }

  static std::string fill_text(const char* call, const void* dst, unsigned char value,
                               std::size_t bytes) {
    char v[8];
    std::snprintf(v, sizeof v, "0x%02x", value);
    return std::string(call) + " of " + detail::bytes_text(bytes) + " to " + v + " at " +
           detail::address_text(dst);
  }

  error sync_failed(hipError_t r, const std::string& what) const {
    return error(r == hipErrorOutOfMemory ? errc::out_of_memory : errc::launch_failed,
                 what + " failed: " + d_.status(r) +
                     " (the runtime reports here what failed in work queued earlier: a kernel or "
                     "an asynchronous copy)",
                 r);
  }

  const driver& d_;
};

}  // namespace hip
TRITONPACK_END_NAMESPACE
