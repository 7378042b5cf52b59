// tritonpack/select/image.hpp — which image of a variant a given GPU runs, and why.
//
// A pure function of (container, variant, device): the run time calls it with the device it found,
// `tritonpack inspect --device sm_90` and the no-GPU quickstart call it with a parsed name. Keeping
// one implementation means what inspect prints is what the run time does.
//
// Order (docs/runtime.md "Selection"):
//   NVIDIA  1. exact cubin: sm_XYa, then sm_XY (both exact for an X.Y device; `a` is preferred
//              because Triton builds its fastest code for it)
//           2. cubin of the same major and a lower minor (never an `a` one), highest minor first
//              (an `f` family cubin also qualifies)
//           3. PTX with the highest target <= the device that the driver accepts (ISA version vs
//              driver version); `a` PTX only on its exact arch; JIT-compiled
//           4. none: the caller reports every image with the reason it was refused
//   AMD     exact gfx processor with pinned target features respected (xnack-, sramecc+); an image
//           that pins a feature beats one that leaves it "any" (more specific code). When no code
//           object runs, the LLVM IR of the device's exact processor, JIT-compiled through comgr
//           where comgr can (hip/ir_jit.hpp); `jit` says so, as for PTX.
//   force_ir skips every binary image.
//   Both: an image whose block needs more than the device allows (shared memory, threads;
//   select/arch_limits.hpp) is refused with what it needs and what the GPU allows, and the next one
//   in the order above is tried.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tritonpack/core/error.hpp"
#include "tritonpack/core/identify.hpp"
#include "tritonpack/core/log.hpp"
#include "tritonpack/core/model.hpp"
#include "tritonpack/select/cuda_order.hpp"
#include "tritonpack/select/hip_order.hpp"
#include "tritonpack/select/image_choice.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

// Checks a TRITONPACK_FORCE_IMAGE value: "" (no override) or "kind:arch" with kind cubin, ptx,
// hsaco or llir. Returns it unchanged; anything else is an error naming the accepted form, as a
// typo would otherwise test another image than the one intended.
inline std::string parse_forced_image(const std::string& value) {
  if (value.empty()) return value;
  const auto colon = value.find(':');
  const std::string kind = value.substr(0, colon);
  if (colon == std::string::npos || colon + 1 == value.size() ||
      (kind != "cubin" && kind != "ptx" && kind != "hsaco" && kind != "llir"))
    throw error(
        errc::bad_argument,
        "TRITONPACK_FORCE_IMAGE=\"" + value +
            "\" is not recognised: write KIND:ARCH with KIND cubin, ptx, hsaco or llir and the "
            "image's arch as `tritonpack inspect` lists it (ptx:sm_80, cubin:sm_90a, "
            "hsaco:gfx942)");
  return value;
}

// Chooses the image of `variant` to run on `device`. Never throws for a container that passed the
// reader's validation (an unparsable device arch in `device` throws bad_argument).
// With `explain` false only `image`, `jit`, `failure` and `needed_ptx_isa` are filled (no reason,
// no refused list): the same choice, without building a string per image.
inline image_choice select_image(const container_info& container, const variant_info& variant,
                                 const device_target& device, bool explain = true) {
  image_choice out;
  const detail::explainer x{explain, out};
  const variant_info* v = &variant;
  variant_info forced;
  if (!device.force_image.empty()) {
    // Only the named image is a candidate; every other one is refused, saying why.
    forced = variant;
    forced.images.clear();
    for (std::uint32_t idx : variant.images) {
      const bool known = idx < container.images.size();
      if (known &&
          image_kind_name(container.images[idx].kind) + (":" + container.images[idx].arch) ==
              device.force_image)
        forced.images.push_back(idx);
      else
        x.refuse(idx, [&] {
          return "skipped: TRITONPACK_FORCE_IMAGE=" + device.force_image + " selects another image";
        });
    }
    v = &forced;
  }
  if (device.backend == backend_kind::cuda) detail::select_cuda(container, *v, device, out, x);
  else detail::select_hip(container, *v, device, out, x);
  if (!out.image && !device.force_image.empty() && explain)
    out.reason += " (TRITONPACK_FORCE_IMAGE=" + device.force_image + " allows only that image)";
  return out;
}

// A multi-line report for error messages, logs and `inspect`: the device, the choice, and every
// refused image with its reason. `indent` prefixes each line.
inline std::string describe_choice(const container_info& container, const image_choice& choice,
                                   const device_target& device, std::string_view indent = "  ") {
  std::string s;
  s += std::string(indent) + "device: " + backend_name(device.backend) + " " + device.arch +
       ", driver " +
       (device.driver_version ? (device.backend == backend_kind::cuda
                                     ? "CUDA " + cuda_version_string(device.driver_version)
                                     : "HIP " + hip_version_string(device.driver_version))
                              : std::string("version unknown")) +
       (device.force_ir ? ", IR path forced" : "") +
       (device.force_image.empty() ? "" : ", image forced to " + device.force_image) + "\n";
  if (choice.image) {
    const auto& im = container.images[*choice.image];
    s += std::string(indent) + "chosen: [" + std::to_string(*choice.image) + "] " + identify(im) +
         " — " + choice.reason + "\n";
  } else {
    s += std::string(indent) + "chosen: none — " + choice.reason + "\n";
  }
  for (const auto& r : choice.refused) {
    std::string label = "?";
    if (r.image < container.images.size()) {
      const auto& im = container.images[r.image];
      label = std::string(backend_name(im.backend)) + " " + identify(im);
    }
    s += std::string(indent) + "refused: [" + std::to_string(r.image) + "] " + label + " — " +
         r.reason + "\n";
  }
  return s;
}

// The image a backend loads for variant `variant` of kernel `k` on `device` (described as
// `device_text` in messages), or the error both backends give when there is none: the reason,
// every image's verdict, logged under TRITONPACK_LOG and thrown (ptx_too_new, unsupported for an
// image beyond the GPU's limits, else no_image). Explains only on failure or when logging.
inline image_choice select_image_or_throw(const container_info& info, const kernel_info& k,
                                          std::uint32_t variant, const device_target& device,
                                          const std::string& device_text) {
  const variant_info& v = k.variants.at(variant);
  image_choice choice = select_image(info, v, device, /*explain=*/log::enabled());
  if (choice.image) return choice;
  choice = select_image(info, v, device, /*explain=*/true);
  const errc code = choice.failure == selection_failure::ptx_too_new      ? errc::ptx_too_new
                    : choice.failure == selection_failure::exceeds_limits ? errc::unsupported
                                                                          : errc::no_image;
  std::string msg = identify(k) + " (variant " + std::to_string(variant) + ") has no image for " +
                    device_text + ": " + choice.reason + "\n" +
                    describe_choice(info, choice, device);
  if (!msg.empty() && msg.back() == '\n') msg.pop_back();
  log::line(msg);
  throw error(code, msg);
}

TRITONPACK_END_NAMESPACE
