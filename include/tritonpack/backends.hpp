// tritonpack/backends.hpp — the composition root: the only header that knows the vendors. It
// chooses the process's backend, creates and holds it, and gives the memory API each backend's
// implementation; everything under core/ container/ select/ launch/ runtime/ sees the neutral
// interface of runtime/backend.hpp only, and reaches this file through the two functions declared
// there and in runtime/memory.hpp (get_backend, detail::device_api).
//
// TRITONPACK_BACKEND=cuda|hip forces one backend. Unset, the vendor whose driver is present with a
// device that some image of the open libraries fits, NVIDIA first (below); when neither has a GPU,
// the error says why neither can run (the NVIDIA diagnosis first, with its code, then the AMD one).
// TRITONPACK_LOG=1 logs each attempt and the decision. The outcome — a backend, or the error
// explaining why there is none — is kept for the life of the process: every launch on a GPU-less
// node reports the same diagnosis without retrying dlopen. The backend object is intentionally
// never destroyed (see runtime/backend.hpp).
//
// The automatic choice: the CUDA driver is taken when it loads, reports a GPU, and one of its GPUs
// runs some image of the libraries open so far; otherwise the HIP runtime on the same terms.
// "Runs some image" is the selection rules of select/image.hpp (the same function a launch calls),
// applied to every variant of every kernel, so the choice agrees with what launches will do.
// When neither vendor's devices fit an image, the first vendor with a device is taken (NVIDIA
// first) and its first launch reports every image with the reason it was refused: that report
// says more than "no backend". When neither has a device, the error gives both diagnoses.
//
// "The libraries open so far": every tritonpack::library lists its container in
// detail::open_containers() (runtime/library.hpp) while it lives. The choice is made once per
// process, on the first call that needs a driver; a program whose first call is a memory allocation
// (before any generated function or NAME::library() was called) has no library open yet, and the
// choice then rests on drivers and devices alone (logged as such). Such a program can call
// NAME::library() first to have its images considered.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tritonpack/container/codec.hpp"
#include "tritonpack/container/reader.hpp"
#include "tritonpack/core/env.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/core/log.hpp"
#include "tritonpack/cuda/backend.hpp"
#include "tritonpack/cuda/memory.hpp"
#include "tritonpack/hip/backend.hpp"
#include "tritonpack/hip/memory.hpp"
#include "tritonpack/runtime/backend.hpp"
#include "tritonpack/runtime/device_ops.hpp"
#include "tritonpack/runtime/library.hpp"
#include "tritonpack/runtime/load_plan.hpp"
#include "tritonpack/runtime/memory.hpp"
#include "tritonpack/select/image.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace detail {

// One vendor's devices as selection sees them.
struct vendor_devices {
  backend_kind kind = backend_kind::cuda;
  std::vector<std::string> archs;  // per ordinal: "sm_90", "gfx942:sramecc+:xnack-"
  std::uint32_t driver_version = 0;
};

// Whether a choice counts towards a vendor's fit. AMD LLVM IR does not: comgr compiles it only
// where its LLVM reads the IR's (hip/ir_jit.hpp), which no released comgr does for Triton 3.6, so a
// vendor whose devices have only IR would be chosen over one whose first launch explains the
// failure.
inline bool fits_without_amd_ir(const image_choice& choice, backend_kind kind) {
  return choice.image && !(kind == backend_kind::hip && choice.jit);
}

// Whether some image of `c` runs on some device of `v`: "" when one does, else why none does
// ("library NAME: none of its images (images for ...) runs on sm_70"). `fits` names the first
// device and library that fit, for the log.
inline std::string image_fit(const container& c, const vendor_devices& v, std::string& fits) {
  device_target t = load_target(v.kind, std::string(), v.driver_version);  // arch set per device
  for (std::size_t dev = 0; dev < v.archs.size(); ++dev) {
    t.arch = v.archs[dev];
    for (std::size_t k = 0; k < c.kernel_count(); ++k) {
      // A kernel whose records are damaged cannot run anywhere: its own first launch says so
      // (container::kernel), not the choice of a vendor for the others.
      const kernel_info* built = nullptr;
      try {
        built = &c.kernel(k);
      } catch (const error& e) {
        if (e.code() != errc::bad_container) throw;
        continue;
      }
      const kernel_info& ki = *built;
      for (const variant_info& var : ki.variants)
        if (fits_without_amd_ir(select_image(c.partial_info(), var, t, /*explain=*/false),
                                v.kind)) {
          fits = "device " + std::to_string(dev) + " (" + t.arch + ") runs kernel " + ki.name +
                 " of library " + c.partial_info().name;
          return "";
        }
    }
  }
  std::string archs;
  for (const auto& a : v.archs) archs += (archs.empty() ? "" : ", ") + a;
  return "no image of library " + c.partial_info().name + " runs on its device(s) " + archs;
}

// Verdict over every open library: "" when some image of some library fits a device of `v`.
inline std::string images_fit(const vendor_devices& v, std::string& fits) {
  auto& l = open_containers();
  std::lock_guard<std::mutex> lock(l.mutex);
  if (l.items.empty()) {
    fits =
        "no library open yet, so images were not considered (call NAME::library() before the first "
        "allocation to "
        "have them considered)";
    return "";
  }
  std::string why;
  for (const container* c : l.items) {
    std::string w = image_fit(*c, v, fits);
    if (w.empty()) return "";
    why += (why.empty() ? "" : "; ") + w;
  }
  return why;
}

inline vendor_devices cuda_devices(const cuda::driver& d) {
  vendor_devices v;
  v.kind = backend_kind::cuda;
  v.driver_version = d.version;
  for (int i = 0; i < d.device_count; ++i) {
    cuda::CUdevice dev = 0;
    d.check(d.fn.cuDeviceGet(&dev, i), "cuDeviceGet(" + std::to_string(i) + ")");
    v.archs.push_back(d.arch(dev));
  }
  return v;
}

inline vendor_devices hip_devices(const hip::driver& d) {
  vendor_devices v;
  v.kind = backend_kind::hip;
  v.driver_version = d.version;
  for (int i = 0; i < d.device_count; ++i) v.archs.push_back(d.arch(i));
  return v;
}

// TRITONPACK_BACKEND unset: see the top of this file.
inline backend* choose_backend_automatically() {
  parse_forced_image(
      env::get(env::force_image));  // a typo there is the user's error, not a vendor's
  std::unique_ptr<cuda::driver> nvidia;
  std::string nvidia_why, fits;
  errc nvidia_code = errc::no_driver;
  int nvidia_status = 0;
  try {
    nvidia = cuda::driver::load();
    nvidia_why = images_fit(cuda_devices(*nvidia), fits);
  } catch (const error& e) {
    nvidia_why = e.message();
    nvidia_code = e.code();
    nvidia_status = e.driver_status();
  }
  if (nvidia && nvidia_why.empty()) {
    backend* b = new cuda::cuda_backend(std::move(nvidia));
    log::line("backend: CUDA (" + b->describe() +
              "), TRITONPACK_BACKEND unset and NVIDIA first: " + fits);
    return b;
  }
  log::line("backend: CUDA unusable (" + nvidia_why + "); trying HIP");
  std::unique_ptr<hip::driver> amd;
  std::string amd_why;
  try {
    amd = hip::driver::load();
    amd_why = images_fit(hip_devices(*amd), fits);
  } catch (const error& e) {
    amd_why = e.message();
    log::line("backend: HIP unusable too (" + amd_why + ")");
    if (nvidia) {
      // An NVIDIA GPU that no image fits: its launches say which images were refused and why.
      log::line(
          "backend: CUDA, the only vendor with a GPU, though no image fits it: launches will say "
          "why");
      return new cuda::cuda_backend(std::move(nvidia));
    }
    throw error(nvidia_code, nvidia_why + "\n  AMD: " + amd_why, nvidia_status);
  }
  if (!amd_why.empty()) {
    log::line("backend: HIP no better (" + amd_why + ")");
    if (nvidia) {
      log::line(
          "backend: CUDA, NVIDIA first, though no vendor's GPU fits an image: launches will say "
          "why");
      return new cuda::cuda_backend(std::move(nvidia));
    }
    backend* b = new hip::hip_backend(std::move(amd));
    log::line("backend: HIP (" + b->describe() +
              "), the only vendor with a GPU, though no image fits it: launches will say why");
    return b;
  }
  backend* b = new hip::hip_backend(std::move(amd));
  log::line("backend: HIP (" + b->describe() + "), " +
            (nvidia ? "no NVIDIA GPU fits an image" : "no usable NVIDIA GPU") + ": " + fits);
  return b;
}

struct backend_state {
  std::mutex mutex;
  backend* instance = nullptr;  // leaked on purpose
  std::vector<backend*>
      retired;  // testing::reset_backend(): still reachable (libraries may use them)
  bool failed = false;
  errc code = errc::no_driver;
  std::string message;
  int status = 0;
};

inline backend_state& backend_registry() {
  static backend_state* s = new backend_state();  // leaked: usable from static destructors
  return *s;
}

inline backend* create_backend() {
  const std::string forced = env::lower(env::get(env::backend));
  if (!forced.empty() && forced != "cuda" && forced != "hip")
    throw error(errc::bad_argument, "TRITONPACK_BACKEND=\"" + env::get(env::backend) +
                                        "\" is not a backend (accepted: cuda or hip, in any case; "
                                        "leave it unset to choose automatically)");
  if (forced == "cuda") return new cuda::cuda_backend(cuda::driver::load());
  if (forced == "hip") return new hip::hip_backend(hip::driver::load());
  return choose_backend_automatically();
}

}  // namespace detail

// The process's backend (declared in runtime/backend.hpp); throws the cached no_driver /
// no_device / ... error when there is none.
inline backend& get_backend() {
  auto& s = detail::backend_registry();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.instance) return *s.instance;
  if (s.failed) throw error(s.code, s.message, s.status);
  try {
    s.instance = detail::create_backend();
    // The decoder's one-time costs (its context, the first run of its code) are paid here, where
    // the driver has just spent milliseconds starting, rather than in the first kernel's load.
    codec::warm_up();
  } catch (const error& e) {
    s.failed = true;
    s.code = e.code();
    s.message = e.message();
    s.status = e.driver_status();
    throw;
  }
  return *s.instance;
}

namespace detail {

// Each backend's implementation of device_ops (runtime/backend.hpp's backend::devices() says why it
// is made on first use, not by a virtual).
inline std::unique_ptr<device_ops> make_device_ops(backend& b) {
  if (b.kind() == backend_kind::cuda) {
    auto& cuda = static_cast<cuda::cuda_backend&>(b);
    return std::make_unique<cuda::cuda_device_ops>(cuda.drv(), cuda.contexts());
  }
  if (b.kind() == backend_kind::hip)
    return std::make_unique<hip::hip_device_ops>(static_cast<hip::hip_backend&>(b).drv());
  throw error(errc::unsupported,
              "the memory and device API has no implementation for " + b.describe());
}

// Declared in runtime/memory.hpp.
inline device_ops& device_api() { return get_backend().devices(&make_device_ops); }

}  // namespace detail

namespace testing {
// Forgets the process's backend so the next get_backend() reads the environment again. For tests
// that switch test-double configurations in one process; the old backend is leaked (libraries
// still holding it keep working against it). Never needed by applications.
inline void reset_backend() {
  auto& s = detail::backend_registry();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.instance) s.retired.push_back(s.instance);
  s.instance = nullptr;
  s.failed = false;
  s.message.clear();
  s.status = 0;
}
}  // namespace testing

TRITONPACK_END_NAMESPACE
