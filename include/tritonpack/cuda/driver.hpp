// tritonpack/cuda/driver.hpp — the CUDA driver, loaded once per process (dlopen + cuGetProcAddress,
// cuda/api.hpp's table), and its devices' primary contexts.
//
// Shared by the launch path (cuda/backend.hpp) and the memory and device API (cuda/memory.hpp), so
// that both see the same driver, the same status texts and the same contexts.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tritonpack/core/dynlib.hpp"
#include "tritonpack/core/env.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/core/log.hpp"
#include "tritonpack/cuda/api.hpp"
#include "tritonpack/runtime/backend.hpp"
#include "tritonpack/select/arch.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace cuda {

// ---------------------------------------------------------------------------------------------
// The driver: loaded once per process.

class driver {
 public:
  api fn;
  std::string library;        // what dlopen opened
  std::uint32_t version = 0;  // cuDriverGetVersion
  int device_count = 0;

  // "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory"
  std::string status(CUresult r) const {
    const char* name = nullptr;
    const char* text = nullptr;
    if (fn.cuGetErrorName) fn.cuGetErrorName(r, &name);
    if (fn.cuGetErrorString) fn.cuGetErrorString(r, &text);
    std::string s = name ? name : "CUDA error";
    s += " (" + std::to_string(r) + ")";
    if (text) s += std::string(": ") + text;
    return s;
  }

  // Throws error for a failed call: out_of_memory for CUDA_ERROR_OUT_OF_MEMORY, else `code`.
  void check(CUresult r, const std::string& what, errc code = errc::driver_error) const {
    if (r == CUDA_SUCCESS) return;
    if (r == CUDA_ERROR_OUT_OF_MEMORY) code = errc::out_of_memory;
    throw error(code, what + " failed: " + status(r), r);
  }

  // check() with the description built only on failure (for the launch path).
  template <class What>
  void check_lazy(CUresult r, What&& what, errc code = errc::driver_error) const {
    if (r != CUDA_SUCCESS) check(r, what(), code);
  }

  std::string version_string() const { return "CUDA " + cuda_version_string(version); }

  // A device attribute (CUdevice_attribute `a`, named `what` in the error).
  int attribute(CUdevice dev, int a, const char* what) const {
    int v = 0;
    check(fn.cuDeviceGetAttribute(&v, a, dev), std::string("cuDeviceGetAttribute(") + what + ")");
    return v;
  }

  // "sm_90": the device's compute capability, as selection names it.
  std::string arch(CUdevice dev) const {
    const int major =
        attribute(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "COMPUTE_CAPABILITY_MAJOR");
    const int minor =
        attribute(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "COMPUTE_CAPABILITY_MINOR");
    return "sm_" + std::to_string(major * 10 + minor);
  }

  // "NVIDIA H200"
  std::string device_name(CUdevice dev) const {
    char name[256] = {};
    check(fn.cuDeviceGetName(name, sizeof name - 1, dev), "cuDeviceGetName");
    return name;
  }

  // Loads the driver named by TRITONPACK_CUDA_LIBRARY (not in a secure-execution process:
  // core/env.hpp), else libcuda.so.1, else libcuda.so.
  // Throws no_driver / no_device / driver_error with the full story.
  static std::unique_ptr<driver> load() {
    auto d = std::make_unique<driver>();
    const std::string forced = env::get(env::cuda_library);
    const bool ignored = env::ignored(env::cuda_library);
    if (ignored) log::line(env::ignored_text(env::cuda_library) + "; opening the system's driver");
    const std::vector<std::string> names =
        forced.empty() ? std::vector<std::string>{"libcuda.so.1", "libcuda.so"}
                       : std::vector<std::string>{forced};
    std::string tried;
    dynlib lib = dynlib::open_first(names, tried);
    if (!lib)
      throw error(errc::no_driver,
                  "no NVIDIA driver: " + tried +
                      (ignored ? ". " + env::ignored_text(env::cuda_library) +
                                     "; install the NVIDIA driver where the system finds it"
                       : forced.empty() ? ". Install the NVIDIA driver, or set "
                                          "TRITONPACK_CUDA_LIBRARY to the path of libcuda.so.1"
                                        : std::string(". TRITONPACK_CUDA_LIBRARY names this path; "
                                                      "unset it to use the system driver")));
    d->library = lib.name();

    // cuDriverGetVersion has had one ABI since CUDA 2.2, so plain dlsym is safe for it and lets
    // a too-old driver be reported by version rather than by a missing entry.
    using version_fn = CUresult (*)(int*);
    if (auto v = reinterpret_cast<version_fn>(lib.symbol("cuDriverGetVersion"))) {
      int ver = 0;
      if (v(&ver) == CUDA_SUCCESS) d->version = static_cast<std::uint32_t>(ver);
    }
    if (d->version != 0 && d->version < 12000)
      throw error(
          errc::no_driver,
          "the NVIDIA driver at " + d->library + " supports " + d->version_string() +
              "; tritonpack needs a driver for CUDA 12.0 or newer (Linux driver >= 525.60)");

    auto gpa2 = reinterpret_cast<get_proc_address_v2_fn>(lib.symbol("cuGetProcAddress_v2"));
    auto gpa1 = reinterpret_cast<get_proc_address_v1_fn>(lib.symbol("cuGetProcAddress"));
    if (!gpa2 && !gpa1)
      throw error(errc::no_driver,
                  d->library + " exports no cuGetProcAddress: it is not a CUDA 12 driver");
    auto resolve = [&](const char* name, int version) -> void* {
      void* p = nullptr;
      CUresult r;
      if (gpa2) {
        int status = 0;
        r = gpa2(name, &p, version, 0 /* CU_GET_PROC_ADDRESS_DEFAULT */, &status);
      } else {
        r = gpa1(name, &p, version, 0);
      }
      return r == CUDA_SUCCESS ? p : nullptr;
    };
    std::string missing;
#define TRITONPACK_CUDA_RESOLVE_REQUIRED(name, version, params)                 \
  d->fn.name = reinterpret_cast<decltype(d->fn.name)>(resolve(#name, version)); \
  if (!d->fn.name) missing += std::string(missing.empty() ? "" : ", ") + #name;
#define TRITONPACK_CUDA_RESOLVE_OPTIONAL(name, version, params) \
  d->fn.name = reinterpret_cast<decltype(d->fn.name)>(resolve(#name, version));
    TRITONPACK_CUDA_REQUIRED(TRITONPACK_CUDA_RESOLVE_REQUIRED)
    TRITONPACK_CUDA_OPTIONAL(TRITONPACK_CUDA_RESOLVE_OPTIONAL)
#undef TRITONPACK_CUDA_RESOLVE_REQUIRED
#undef TRITONPACK_CUDA_RESOLVE_OPTIONAL
    if (!missing.empty())
      throw error(errc::no_driver, "the NVIDIA driver at " + d->library + " (" +
                                       d->version_string() +
                                       ") lacks required entry points: " + missing);

    const CUresult r = d->fn.cuInit(0);
    if (r == CUDA_ERROR_NO_DEVICE)
      throw error(errc::no_device,
                  "the NVIDIA driver is installed (" + d->library + ", " + d->version_string() +
                      ") but reports no GPU (cuInit: " + d->status(r) +
                      "). Check that this node has a GPU (nvidia-smi) and that "
                      "CUDA_VISIBLE_DEVICES does not hide it",
                  r);
    d->check(r, "cuInit (" + d->library + ", " + d->version_string() + ")", errc::no_device);
    int count = 0;
    d->check(d->fn.cuDeviceGetCount(&count), "cuDeviceGetCount");
    if (count <= 0)
      throw error(errc::no_device,
                  "the NVIDIA driver is installed (" + d->library + ", " + d->version_string() +
                      ") but reports no GPU. Check nvidia-smi and CUDA_VISIBLE_DEVICES");
    d->device_count = count;
    int ver = 0;
    d->check(d->fn.cuDriverGetVersion(&ver), "cuDriverGetVersion");
    d->version = static_cast<std::uint32_t>(ver);
    detail::register_exit_handler();
    if (log::enabled())
      log::line("CUDA driver " + d->library + " (" + d->version_string() + "), " +
                std::to_string(count) + " device(s)");
    return d;
  }
};

// ---------------------------------------------------------------------------------------------
// Primary contexts: one per device, the contexts the CUDA runtime uses (cudaSetDevice makes one
// current). Using them, and only making one current when the thread has none or set_device()
// asks, is what lets tritonpack's memory, launches and an application's own CUDA runtime calls
// meet in one context per device.
//
// Each is retained on first use and never released: other libraries and the application share
// it, and releasing it at exit could destroy it under their feet.

class primary_contexts {
 public:
  explicit primary_contexts(const driver& d)
      : d_(d),
        table_(
            new std::atomic<CUcontext>[d.device_count > 0 ? static_cast<std::size_t>(d.device_count)
                                                          : 1]) {
    for (int i = 0; i < d.device_count; ++i)
      table_[static_cast<std::size_t>(i)].store(nullptr, std::memory_order_relaxed);
  }

  // Device `ordinal`'s primary context (0 <= ordinal < device_count, checked by the caller),
  // retained on first use. `why` starts the log line of that first use.
  CUcontext get(int ordinal, const char* why) {
    std::atomic<CUcontext>& slot = table_[static_cast<std::size_t>(ordinal)];
    if (CUcontext c = slot.load(std::memory_order_acquire)) return c;
    std::lock_guard<std::mutex> lock(mutex_);
    if (CUcontext c = slot.load(std::memory_order_relaxed)) return c;
    const std::string n = std::to_string(ordinal);
    CUdevice dev = 0;
    d_.check(d_.fn.cuDeviceGet(&dev, ordinal), "cuDeviceGet(" + n + ")", errc::no_device);
    CUcontext c = nullptr;
    d_.check(d_.fn.cuDevicePrimaryCtxRetain(&c, dev), "cuDevicePrimaryCtxRetain(device " + n + ")");
    slot.store(c, std::memory_order_release);
    log::line(std::string(why) + "retained device " + n + "'s primary context");
    return c;
  }

  // Makes device `ordinal`'s primary context current on the calling thread (cudaSetDevice).
  CUcontext make_current(int ordinal, const char* why) {
    CUcontext c = get(ordinal, why);
    d_.check(d_.fn.cuCtxSetCurrent(c),
             "cuCtxSetCurrent(device " + std::to_string(ordinal) + " primary context)");
    return c;
  }

  // The calling thread's current context; when there is none, device 0's primary context is made
  // current, as the CUDA runtime and Triton's launcher do. Hot: one driver call.
  CUcontext current() {
    CUcontext c = nullptr;
    const CUresult r = d_.fn.cuCtxGetCurrent(&c);
    if (r != CUDA_SUCCESS) d_.check(r, "cuCtxGetCurrent");  // literal: no allocation on success
    if (c) return c;
    return make_current(0, "no current context: ");
  }

 private:
  const driver& d_;
  std::unique_ptr<std::atomic<CUcontext>[]> table_;
  std::mutex mutex_;
};

}  // namespace cuda
TRITONPACK_END_NAMESPACE
