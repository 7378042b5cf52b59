// tritonpack/cuda/memory.hpp — the memory and device API (runtime/memory.hpp,
// runtime/device_ops.hpp) on the CUDA driver the run time has loaded.
//
// The calling thread's device is its current context, as for launches: set_current() makes the
// device's primary context current (what cudaSetDevice does), and every call here first makes
// sure a context is current (device 0's primary context when none is), so an allocation, a copy
// and a launch that follow each other on one thread meet on one device, and an application's own
// cudaSetDevice / cudaMalloc interoperate with these calls.
//
// Errors say what was attempted. When a copy or memset fails, each pointer is described with
// cuPointerGetAttribute (host memory, or which device allocation, how far into it and how far past
// its end the range runs); those driver calls are made on the failure path only.
#pragma once

#include <cstdint>
#include <string>

#include "tritonpack/core/env.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/cuda/api.hpp"
#include "tritonpack/cuda/driver.hpp"
#include "tritonpack/runtime/device_ops.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace cuda {

class cuda_device_ops final : public device_ops {
 public:
  cuda_device_ops(const driver& d, primary_contexts& contexts) : d_(d), contexts_(contexts) {}

  int count() const noexcept override { return d_.device_count; }

  std::string visibility_note() const override {
    const std::string v = env::get("CUDA_VISIBLE_DEVICES");
    return v.empty() ? std::string() : "; CUDA_VISIBLE_DEVICES is \"" + v + "\"";
  }

  void set_current(int ordinal) override { contexts_.make_current(ordinal, "set_device: "); }

  int current() override {
    CUcontext c = nullptr;
    d_.check(d_.fn.cuCtxGetCurrent(&c), "get_device: cuCtxGetCurrent");
    if (!c) return 0;  // nothing chosen yet: the first allocation or launch will use device 0
    CUdevice dev = 0;
    d_.check(d_.fn.cuCtxGetDevice(&dev), "get_device: cuCtxGetDevice");
    return dev;
  }

  std::string name(int ordinal) override { return d_.device_name(device(ordinal)); }
  std::string arch(int ordinal) override { return d_.arch(device(ordinal)); }

  memory_info memory() override {
    need(d_.fn.cuMemGetInfo, "cuMemGetInfo", "device_memory_info");
    contexts_.current();
    memory_info m;
    d_.check_lazy(d_.fn.cuMemGetInfo(&m.free, &m.total),
                  [&] { return "device_memory_info on " + where(); });
    return m;
  }

  void* allocate(std::size_t bytes) override {
    contexts_.current();
    CUdeviceptr p = 0;
    const CUresult r = d_.fn.cuMemAlloc(&p, bytes);
    if (r == CUDA_SUCCESS) return address(p);
    std::string msg = "device_malloc of " + detail::bytes_text(bytes) + " on " + where() +
                      " failed: " + d_.status(r);
    if (r != CUDA_ERROR_OUT_OF_MEMORY) throw error(errc::driver_error, msg, r);
    std::size_t free = 0, total = 0;
    if (d_.fn.cuMemGetInfo && d_.fn.cuMemGetInfo(&free, &total) == CUDA_SUCCESS)
      msg += "; the device has " + detail::size_text(free) + " free of " + detail::size_text(total);
    throw error(errc::out_of_memory, msg, r);
  }

  void free(void* ptr) override {
    contexts_.current();
    const CUresult r = d_.fn.cuMemFree(device_ptr(ptr));
    if (r != CUDA_SUCCESS)
      throw error(errc::driver_error,
                  "device_free(" + detail::address_text(ptr) + ") failed: " + d_.status(r) +
                      "; that address is " + describe(ptr, 0),
                  r);
  }

  void copy(void* dst, const void* src, std::size_t bytes) override {
    need(d_.fn.cuMemcpy, "cuMemcpy", "copy");
    contexts_.current();
    const CUresult r = d_.fn.cuMemcpy(device_ptr(dst), device_ptr(src), bytes);
    if (r != CUDA_SUCCESS) throw failed(r, copy_text("copy", dst, src, bytes));
  }

  void copy_async(void* dst, const void* src, std::size_t bytes, stream_t stream) override {
    need(d_.fn.cuMemcpyAsync, "cuMemcpyAsync", "copy_async");
    contexts_.current();
    const CUresult r =
        d_.fn.cuMemcpyAsync(device_ptr(dst), device_ptr(src), bytes, static_cast<CUstream>(stream));
    if (r != CUDA_SUCCESS)
      throw failed(r, copy_text("copy_async", dst, src, bytes) + " on stream " +
                          detail::address_text(stream));
  }

  void fill(void* dst, unsigned char value, std::size_t bytes) override {
    need(d_.fn.cuMemsetD8, "cuMemsetD8", "memset_device");
    contexts_.current();
    const CUresult r = d_.fn.cuMemsetD8(device_ptr(dst), value, bytes);
    if (r != CUDA_SUCCESS) throw failed(r, fill_text("memset_device", dst, value, bytes));
  }

  void fill_async(void* dst, unsigned char value, std::size_t bytes, stream_t stream) override {
    need(d_.fn.cuMemsetD8Async, "cuMemsetD8Async", "memset_device_async");
    contexts_.current();
    const CUresult r =
        d_.fn.cuMemsetD8Async(device_ptr(dst), value, bytes, static_cast<CUstream>(stream));
    if (r != CUDA_SUCCESS)
      throw failed(r, fill_text("memset_device_async", dst, value, bytes) + " on stream " +
                          detail::address_text(stream));
  }

  // A failure here is usually not the synchronisation's own: an earlier kernel or asynchronous
  // copy failed, and the driver reports it at the next synchronising call.
  void synchronize() override {
    need(d_.fn.cuCtxSynchronize, "cuCtxSynchronize", "synchronize");
    contexts_.current();
    const CUresult r = d_.fn.cuCtxSynchronize();
    if (r != CUDA_SUCCESS) throw sync_failed(r, "synchronize() on " + where());
  }

  void synchronize(stream_t stream) override {
    need(d_.fn.cuStreamSynchronize, "cuStreamSynchronize", "synchronize(stream)");
    contexts_.current();  // the legacy default stream (nullptr) is the current context's
    const CUresult r = d_.fn.cuStreamSynchronize(static_cast<CUstream>(stream));
    if (r != CUDA_SUCCESS)
      throw sync_failed(r,
                        "synchronize(stream " + detail::address_text(stream) + ") on " + where());
  }

  stream_t create_stream(bool non_blocking) override {
    need(d_.fn.cuStreamCreate, "cuStreamCreate", "create_stream");
    contexts_.current();
    CUstream s = nullptr;
    d_.check_lazy(d_.fn.cuStreamCreate(&s, non_blocking ? CU_STREAM_NON_BLOCKING : 0u),
                  [&] { return "create_stream on " + where(); });
    return s;
  }

  void destroy_stream(stream_t stream) override {
    need(d_.fn.cuStreamDestroy, "cuStreamDestroy", "destroy_stream");
    contexts_.current();
    d_.check_lazy(d_.fn.cuStreamDestroy(static_cast<CUstream>(stream)),
                  [&] { return "destroy_stream(" + detail::address_text(stream) + ")"; });
  }

  void* create_event() override {
    contexts_.current();
    CUevent e = nullptr;
    d_.check_lazy(d_.fn.cuEventCreate(&e, 0), [&] { return "cuEventCreate on " + where(); });
    return e;
  }
  void record_event(void* event, stream_t stream) override {
    d_.check_lazy(d_.fn.cuEventRecord(static_cast<CUevent>(event), static_cast<CUstream>(stream)),
                  [&] { return "cuEventRecord on stream " + detail::address_text(stream); });
  }
  float elapsed_ms(void* start, void* end) override {
    need(d_.fn.cuEventElapsedTime, "cuEventElapsedTime", "elapsed_ms");
    d_.check_lazy(d_.fn.cuEventSynchronize(static_cast<CUevent>(end)),
                  [&] { return std::string("cuEventSynchronize"); });
    float ms = 0;
    d_.check_lazy(
        d_.fn.cuEventElapsedTime(&ms, static_cast<CUevent>(start), static_cast<CUevent>(end)),
        [&] { return std::string("cuEventElapsedTime"); });
    return ms;
  }
  void destroy_event(void* event) noexcept override {
    if (event) (void)d_.fn.cuEventDestroy(static_cast<CUevent>(event));
  }
  bool capturing(stream_t stream) override {
    int status = 0;  // CU_STREAM_CAPTURE_STATUS_NONE
    d_.check_lazy(d_.fn.cuStreamIsCapturing(static_cast<CUstream>(stream), &status),
                  [&] { return "cuStreamIsCapturing(" + detail::address_text(stream) + ")"; });
    return status != 0;
  }

 private:
  static CUdeviceptr device_ptr(const void* p) {
    return static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(p));
  }
  static void* address(CUdeviceptr p) {
    return reinterpret_cast<void*>(static_cast<std::uintptr_t>(p));
  }

  CUdevice device(int ordinal) const {
    CUdevice dev = 0;
    d_.check(d_.fn.cuDeviceGet(&dev, ordinal), "cuDeviceGet(" + std::to_string(ordinal) + ")",
             errc::no_device);
    return dev;
  }

  // The optional entries this API uses: present in every CUDA 12 driver, but a driver (or a test
  // double) without one gets an explanation instead of a null call.
  template <class F>
  void need(F* f, const char* entry, const char* call) const {
    if (!f)
      throw error(errc::unsupported, std::string(call) + " needs " + entry +
                                         ", which the CUDA driver at " + d_.library + " (" +
                                         d_.version_string() + ") lacks");
  }

  // "device 0 (NVIDIA H200)": the calling thread's device, for messages. Never throws: it is built
  // while another error is being reported.
  std::string where() noexcept {
    try {
      const int ordinal = current();
      return "device " + std::to_string(ordinal) + " (" + name(ordinal) + ")";
    } catch (...) {
      return "the current device";
    }
  }

  // What the driver knows of the `bytes` bytes at `p`: "host memory", "device 0 memory, 16 bytes
  // into an allocation of 1024 bytes at 0x..." and how far past its end the range runs.
  std::string describe(const void* p, std::size_t bytes) const {
    if (!p) return "a null pointer";
    if (!d_.fn.cuPointerGetAttribute) return "memory the driver cannot describe";
    const CUdeviceptr a = device_ptr(p);
    unsigned type = 0;
    if (d_.fn.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, a) != CUDA_SUCCESS)
      return "host memory unknown to CUDA (pageable, or not allocated at all)";
    std::string s = type == CU_MEMORYTYPE_HOST      ? "page-locked host memory"
                    : type == CU_MEMORYTYPE_UNIFIED ? "managed memory"
                                                    : "device memory";
    int ordinal = -1;
    if (type != CU_MEMORYTYPE_HOST &&
        d_.fn.cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, a) ==
            CUDA_SUCCESS)
      s = "device " + std::to_string(ordinal) + " memory";
    CUdeviceptr start = 0;
    std::size_t size = 0;
    if (d_.fn.cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, a) !=
            CUDA_SUCCESS ||
        d_.fn.cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, a) != CUDA_SUCCESS ||
        a < start)
      return s;
    const std::uint64_t offset = a - start;
    s += ", " + std::to_string(offset) + " bytes into an allocation of " +
         detail::bytes_text(size) + " at " + detail::address_text(address(start));
    if (offset + bytes > size)
      s += ": the range runs " + std::to_string(offset + bytes - size) + " bytes past its end";
    return s;
  }

  std::string copy_text(const char* call, const void* dst, const void* src,
                        std::size_t bytes) const {
    return std::string(call) + " of " + detail::bytes_text(bytes) + " from " +
           detail::address_text(src) + " (" + describe(src, bytes) + ") to " +
           detail::address_text(dst) + " (" + describe(dst, bytes) + ")";
  }

  std::string fill_text(const char* call, const void* dst, unsigned char value,
                        std::size_t bytes) const {
    char v[8];
    std::snprintf(v, sizeof v, "0x%02x", value);
    return std::string(call) + " of " + detail::bytes_text(bytes) + " to " + v + " at " +
           detail::address_text(dst) + " (" + describe(dst, bytes) + ")";
  }

  error failed(CUresult r, const std::string& what) const {
    return error(r == CUDA_ERROR_OUT_OF_MEMORY ? errc::out_of_memory : errc::driver_error,
                 what + " failed: " + d_.status(r), r);
  }

  error sync_failed(CUresult r, const std::string& what) const {
    return error(r == CUDA_ERROR_OUT_OF_MEMORY ? errc::out_of_memory : errc::launch_failed,
                 what + " failed: " + d_.status(r) +
                     " (the driver reports here what failed in work queued earlier: a kernel or an "
                     "asynchronous copy)",
                 r);
  }

  const driver& d_;
  primary_contexts& contexts_;
};

}  // namespace cuda
TRITONPACK_END_NAMESPACE
