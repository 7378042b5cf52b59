// tritonpack/backend_choice.hpp — which vendor runs this process when TRITONPACK_BACKEND is unset:
// the one whose driver is present with a device that some image of the program fits.
//
// Order: NVIDIA first. The CUDA driver is taken when it loads, reports a GPU, and one of its GPUs
// runs some image of the libraries open so far; otherwise the HIP runtime on the same terms.
// "Runs some image" is the selection rules of select/image.hpp (the same function a launch calls),
// applied to every variant of every kernel, so the choice agrees with what launches will do.
// When neither vendor's devices fit an image, the first vendor with a device is taken (NVIDIA
// first) and its first launch reports every image with the reason it was refused: that report
// says more than "no backend". When neither has a device, the error gives both diagnoses.
//
// "The libraries open so far": every tritonpack::library registers its container here while it
// lives. The choice is made once per process, on the first call that needs a driver; a program
// whose first call is a memory allocation (before any generated function or NAME::library() was
// called) has no library open yet, and the choice then rests on drivers and devices alone (logged
// as such). Such a program can call NAME::library() first to have its images considered.
//
// TRITONPACK_LOG=1 logs each vendor's verdict and the decision.
#pragma once

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tritonpack/runtime/backend.hpp"
#include "tritonpack/container/reader.hpp"
#include "tritonpack/cuda/backend.hpp"
#include "tritonpack/core/env.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/hip/backend.hpp"
#include "tritonpack/core/log.hpp"
#include "tritonpack/select/image.hpp"

namespace tritonpack {
namespace detail {

// The containers of the libraries alive in this process (runtime/library.hpp registers them).
struct open_container_list {
  std::mutex mutex;
  std::vector<const container*> items;
};
inline open_container_list& open_containers() {
  static open_container_list* l = new open_container_list();  // leaked: libraries die in static destruction
  return *l;
}
inline void register_open_container(const container* c) {
  auto& l = open_containers();
  std::lock_guard<std::mutex> lock(l.mutex);
  l.items.push_back(c);
}
inline void unregister_open_container(const container* c) noexcept {
  auto& l = open_containers();
  std::lock_guard<std::mutex> lock(l.mutex);
  l.items.erase(std::remove(l.items.begin(), l.items.end(), c), l.items.end());
}

// One vendor's devices as selection sees them.
struct vendor_devices {
  backend_kind kind = backend_kind::cuda;
  std::vector<std::string> archs;  // per ordinal: "sm_90", "gfx942:sramecc+:xnack-"
  std::uint32_t driver_version = 0;
};

// Whether some image of `c` runs on some device of `v`: "" when one does, else why none does
// ("library NAME: none of its images (images for ...) runs on sm_70"). `fits` names the first
// device and library that fit, for the log.
inline std::string image_fit(const container& c, const vendor_devices& v, std::string& fits) {
  device_target t;
  t.backend = v.kind;
  t.driver_version = v.driver_version;
  t.force_ir = env::flag(env::force_ir);
  t.force_image = parse_forced_image(env::get(env::force_image));
  for (std::size_t dev = 0; dev < v.archs.size(); ++dev) {
    t.arch = v.archs[dev];
    for (std::size_t k = 0; k < c.kernel_count(); ++k) {
      const kernel_info& ki = c.kernel(k);
      for (const variant_info& var : ki.variants)
        if (select_image(c.partial_info(), var, t, /*explain=*/false).image) {
          fits = "device " + std::to_string(dev) + " (" + t.arch + ") runs kernel " + ki.name + " of library " +
                 c.partial_info().name;
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
    fits = "no library open yet, so images were not considered (call NAME::library() before the first allocation to "
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

inline std::string without_prefix(const error& e) { return std::string(e.what()).substr(std::string("tritonpack: ").size()); }

// TRITONPACK_BACKEND unset: see the top of this file.
inline backend* choose_backend_automatically() {
  parse_forced_image(env::get(env::force_image));  // a typo there is the user's error, not a vendor's
  std::unique_ptr<cuda::driver> nvidia;
  std::string nvidia_why, fits;
  errc nvidia_code = errc::no_driver;
  int nvidia_status = 0;
  try {
    nvidia = cuda::driver::load();
    nvidia_why = images_fit(cuda_devices(*nvidia), fits);
  } catch (const error& e) {
    nvidia_why = without_prefix(e);
    nvidia_code = e.code();
    nvidia_status = e.driver_status();
  }
  if (nvidia && nvidia_why.empty()) {
    backend* b = new cuda::cuda_backend(std::move(nvidia));
    log::line("backend: CUDA (" + b->describe() + "), TRITONPACK_BACKEND unset and NVIDIA first: " + fits);
    return b;
  }
  log::line("backend: CUDA unusable (" + nvidia_why + "); trying HIP");
  std::unique_ptr<hip::driver> amd;
  std::string amd_why;
  try {
    amd = hip::driver::load();
    amd_why = images_fit(hip_devices(*amd), fits);
  } catch (const error& e) {
    amd_why = without_prefix(e);
    log::line("backend: HIP unusable too (" + amd_why + ")");
    if (nvidia) {
      // An NVIDIA GPU that no image fits: its launches say which images were refused and why.
      log::line("backend: CUDA, the only vendor with a GPU, though no image fits it: launches will say why");
      return new cuda::cuda_backend(std::move(nvidia));
    }
    throw error(nvidia_code, nvidia_why + "\n  AMD: " + amd_why, nvidia_status);
  }
  if (!amd_why.empty()) {
    log::line("backend: HIP no better (" + amd_why + ")");
    if (nvidia) {
      log::line("backend: CUDA, NVIDIA first, though no vendor's GPU fits an image: launches will say why");
      return new cuda::cuda_backend(std::move(nvidia));
    }
    backend* b = new hip::hip_backend(std::move(amd));
    log::line("backend: HIP (" + b->describe() + "), the only vendor with a GPU, though no image fits it: launches will say why");
    return b;
  }
  backend* b = new hip::hip_backend(std::move(amd));
  log::line("backend: HIP (" + b->describe() + "), " + (nvidia ? "no NVIDIA GPU fits an image" : "no usable NVIDIA GPU") +
            ": " + fits);
  return b;
}

}  // namespace detail
}  // namespace tritonpack
