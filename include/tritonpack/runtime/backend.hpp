// tritonpack/runtime/backend.hpp — the backend-neutral core: what runtime/kernel.hpp and
// runtime/library.hpp need from a GPU driver, so a HIP backend plugs in beside CUDA without
// touching them.
//
//   backend         process-wide, one per driver library; never destroyed (see core/dynlib.hpp and
//                   "exit" below). Knows the calling thread's current context.
//   context_state   per (library, context): device facts, loaded modules, scratch memory.
//                   Loads a variant (selection + decode + module load) and launches it.
//   loaded_function one variant loaded in one context: everything the launch path needs,
//                   precomputed.
//
// Exit: static destructors (a generated header's `static library`) may run after the driver's
// own atexit teardown (the CUDA runtime destroys primary contexts at exit). The first backend
// registers an atexit handler that sets `process_exiting()`; library teardown then skips every
// driver call and leaves module and memory cleanup to process exit.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>

#include "tritonpack/container/reader.hpp"
#include "tritonpack/core/env.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/core/model.hpp"
#include "tritonpack/core/types.hpp"
#include "tritonpack/launch/grid.hpp"
#include "tritonpack/launch/params.hpp"
#include "tritonpack/runtime/device_ops.hpp"
#include "tritonpack/select/arch.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

// Facts about the device of one context.
struct device_props {
  backend_kind backend = backend_kind::cuda;
  int ordinal = -1;
  std::string name;                      // "NVIDIA H200"
  std::string arch;                      // "sm_90", "gfx942:sramecc+:xnack-"
  std::uint32_t driver_version = 0;      // cuDriverGetVersion form
  std::uint32_t max_shared_optin = 0;    // bytes per block with the opt-in attribute
  std::uint32_t max_shared_default = 0;  // bytes per block without it (48 KB on NVIDIA)
  bool cluster_launch = false;
  bool cooperative_launch = false;

  // "device 0 (NVIDIA H200, sm_90, driver CUDA 13.0)", "device 0 (AMD Instinct MI300X,
  // gfx942:sramecc+:xnack-, HIP 6.2.41133)"
  std::string describe() const;
};

class loaded_function {
 public:
  virtual ~loaded_function() = default;
  const kernel_info* kernel = nullptr;
  const variant_info* variant = nullptr;
  const image_info* image = nullptr;
  std::uint32_t image_index = 0;
  bool jit = false;
  param_plan plan;
  bool needs_scratch = false;
  bool check_pointers = false;  // TRITONPACK_CHECK_POINTERS: ask the driver about every pointer
};

class context_state {
 public:
  virtual ~context_state() = default;  // must not call the driver: release() does that
  // Every fact about the device. The constructor reads only what loading needs (ordinal, arch,
  // driver version); the name and limits are read on first use here, off the first launch's
  // path. Throws what the driver reports if that read fails.
  const device_props& props() const {
    std::call_once(full_once_, [this] { fill_props(props_); });
    return props_;
  }
  // What the constructor read (backend, ordinal, arch, driver version): all that selecting and
  // loading a cubin needs. A first load reads props() only where the image asks for more (shared
  // memory above 48 KB, clusters, a cooperative launch, JIT) or to word an error: the name and
  // limits cost a handful of driver calls (7-11 us on an H200 in a fresh process).
  const device_props& basic_props() const noexcept { return props_; }
  // Selects, decodes and loads `variant` of kernel `kernel_index`. Thread-safe per call (the
  // caller serialises loads of one kernel).
  virtual std::unique_ptr<loaded_function> load(const container& c, std::uint32_t kernel_index,
                                                std::uint32_t variant) = 0;
  // The hot path. Checks the grid against the backend's max_grid() first.
  virtual void launch(loaded_function& f, grid3 grid, stream_t stream, const void* const* args) = 0;
  // TRITONPACK_CHECK_POINTERS: "" when kernels launched in this context can read memory at `p`
  // (memory of this device, managed or page-locked host memory, as the driver says); otherwise
  // what the driver says it is ("host memory unknown to CUDA", "device 1 memory").
  virtual std::string pointer_refusal(const void* p) const = 0;
  // Unloads `f`'s module (the function object is destroyed by the caller afterwards).
  virtual void unload(loaded_function& f) noexcept = 0;
  // Frees everything else this state holds (scratch memory, events). Called once, before
  // destruction, unless the process is exiting.
  virtual void release() noexcept = 0;

 protected:
  // Completes `p` (name, shared-memory limits, launch capabilities); called once, by props().
  virtual void fill_props(device_props& p) const = 0;
  // Set by the constructor: backend, ordinal, arch, driver_version. The rest waits for props().
  mutable device_props props_;

 private:
  mutable std::once_flag full_once_;
};

class backend {
 public:
  virtual ~backend() = default;
  virtual backend_kind kind() const noexcept = 0;
  // "CUDA driver libcuda.so.1 (CUDA 13.0)"
  virtual std::string describe() const = 0;
  // The calling thread's current context; when there is none, device 0's primary context is
  // retained (once per process) and made current. Hot: one driver call on CUDA.
  virtual void* current_context() = 0;
  // Creates the per-library state for `ctx` (which is current on the calling thread).
  virtual std::unique_ptr<context_state> open_context(void* ctx) = 0;
  // The largest grid this driver launches. context_state::launch checks it (check_grid_limits)
  // before anything else; errors about grids say it.
  virtual const grid_limits& max_grid() const noexcept = 0;

  // Devices, memory, copies and streams (runtime/memory.hpp), on the same driver and contexts as
  // launches: made on first use by `make` (runtime/memory.hpp's detail::make_device_ops),
  // thread-safe. Not a virtual that makes them: a virtual's body is compiled in every translation
  // unit that creates the backend (every one that launches a kernel), and with it all of
  // device_ops' code; made here, only translation units that use runtime/memory.hpp pay for it.
  device_ops& devices(std::unique_ptr<device_ops> (*make)(backend&)) {
    std::call_once(devices_once_, [&] { devices_ = make(*this); });
    return *devices_;
  }

 private:
  std::once_flag devices_once_;
  std::unique_ptr<device_ops> devices_;
};

namespace detail {
inline std::atomic<bool>& exiting_flag() {
  static std::atomic<bool> flag{false};
  return flag;
}
inline void register_exit_handler() {
  static std::once_flag once;
  std::call_once(once, [] { std::atexit([] { exiting_flag().store(true); }); });
}
}  // namespace detail

// True once exit() has started running atexit handlers registered after the driver was loaded.
inline bool process_exiting() noexcept {
  return detail::exiting_flag().load(std::memory_order_relaxed);
}

// The process's backend, chosen once and held by the composition root (the top-level backends
// header, which defines this function; tritonpack.hpp includes it). Throws the cached no_driver /
// no_device diagnosis when there is none. Declared here so that the neutral layers reach the
// backend without including a vendor's headers.
inline backend& get_backend();

inline std::string device_props::describe() const {
  std::string s = "device " + std::to_string(ordinal) + " (" +
                  (name.empty() ? std::string("unnamed") : name) + ", " + arch;
  if (driver_version) {
    if (backend == backend_kind::cuda)
      s += ", driver CUDA " + std::to_string(driver_version / 1000) + "." +
           std::to_string((driver_version % 1000) / 10);
    else s += ", HIP " + hip_version_string(driver_version);
  }
  return s + ")";
}

TRITONPACK_END_NAMESPACE
