// tritonpack/select/image_choice.hpp — what a selection is made for (the GPU, parsed from a name or
// found by the run time) and what it answers (the image, or why none; every image refused and why),
// with the ranking and explanation helpers both vendors' orders use (cuda_order.hpp,
// hip_order.hpp). select/image.hpp is the entry point.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tritonpack/core/error.hpp"
#include "tritonpack/core/identify.hpp"
#include "tritonpack/core/model.hpp"
#include "tritonpack/select/arch.hpp"
#include "tritonpack/select/arch_limits.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

// The GPU a selection is made for.
struct device_target {
  backend_kind backend = backend_kind::cuda;
  std::string arch;  // "sm_90", "gfx942:sramecc+:xnack-"
  std::uint32_t driver_version =
      0;                  // cuDriverGetVersion() form (12080); 0 = unknown: PTX not filtered
  bool force_ir = false;  // skip binaries (TRITONPACK_FORCE_IR=1)
  // "kind:arch" ("ptx:sm_80", "cubin:sm_90a", "hsaco:gfx942"): only images of exactly that kind
  // and arch are considered (TRITONPACK_FORCE_IMAGE, see parse_forced_image); the usual rules
  // still decide whether it can run, so a forced image is never one the GPU cannot run.
  std::string force_image;
  // What one block may use on this GPU. Unset: the limits of `arch` from select/arch_limits.hpp
  // (none for an arch the tables do not know). The packer sets them to the maximum to ask which
  // image a GPU would pick were it not for its limits.
  std::optional<block_limits> limits;
};

// Parses what a user types for a device: "sm_90", "90", "9.0", "cuda:90", "sm_90a" (a device has no
// `a`; the suffix is dropped), "gfx942", "hip:gfx90a:xnack-". Throws error(bad_argument) naming
// the accepted forms for anything else.
inline device_target parse_device_target(std::string_view text) {
  device_target t;
  std::string_view s = text;
  const bool want_hip = s.substr(0, 4) == "hip:";
  const bool want_cuda = s.substr(0, 5) == "cuda:";
  if (!want_cuda) {
    if (auto a = parse_amd_arch(s)) {
      t.backend = backend_kind::hip;
      t.arch = a->str();
      return t;
    }
  }
  if (!want_hip) {
    if (auto c = parse_cuda_arch(s)) {
      if (c->suffix != 'f') {  // a family name is not a device
        t.backend = backend_kind::cuda;
        t.arch = "sm_" + std::to_string(c->number());
        return t;
      }
    }
  }
  throw error(
      errc::bad_argument,
      "unrecognised device '" + std::string(text) +
          "': expected an NVIDIA compute capability (sm_90, 90, 9.0, cuda:90) or an AMD gfx target "
          "(gfx942, hip:gfx90a:xnack-)");
}

// One image of the variant that was not chosen, and why.
struct image_verdict {
  std::uint32_t image = 0;  // index into container_info::images
  std::string reason;
};

enum class selection_failure : std::uint8_t {
  none = 0,            // an image was chosen
  no_image = 1,        // nothing fits this device
  ptx_too_new = 2,     // only PTX fits the device, and every such PTX needs a newer driver
  exceeds_limits = 3,  // images target the device, but each needs more than it allows (shared
                       // memory, threads per block): a smaller config is needed, not a new target
};

struct image_choice {
  std::optional<std::uint32_t> image;  // index into container_info::images; nullopt: none fits
  bool jit = false;                    // the chosen image is IR (PTX, AMD LLVM IR): JIT-compiled
  std::string reason;                  // why this one (or, when none, a one-line summary); empty
                                       // for a choice made without `explain`
  std::vector<image_verdict> refused;  // every other image of the variant (with `explain`)
  selection_failure failure = selection_failure::none;
  std::uint32_t needed_ptx_isa =
      0;  // ptx_too_new: the lowest ISA among the PTX that fit the device
};

namespace detail {

// Candidate ranking: lower tier wins, then higher score within the tier.
struct candidate {
  std::uint32_t image;
  int tier;
  std::uint32_t score;
  std::string reason;
};

// Records why images were refused (or chosen) only when an explanation was asked for: the run
// time's first launch selects without one (no strings: a selection is then a few integer
// compares per image) and asks again, explaining, only to log or to report a failure.
struct explainer {
  bool on;
  image_choice& out;
  template <class Why>
  void refuse(std::uint32_t image, Why&& why) const {
    if (on) out.refused.push_back({image, why()});
  }
  template <class Why>
  std::string reason(Why&& why) const {
    return on ? why() : std::string();
  }
};

// Refuses image `idx` when a block of it needs more than `lim` allows, saying what it needs and
// what the GPU (`dev_name()`) allows; remembers the first such image for the failure summary.
// No known limits (`lim` unset): nothing is refused.
template <class DevName>
bool refuse_over_limits(const image_info& im, std::uint32_t idx,
                        const std::optional<block_limits>& lim, const explainer& x,
                        std::optional<std::uint32_t>& first_over, DevName&& dev_name) {
  if (!lim || fits(im.launch, *lim)) return false;
  if (!first_over) first_over = idx;
  x.refuse(idx, [&] {
    return identify(im) + " cannot run on " + dev_name() + ": " +
           excess_reason(excesses(im.launch, *lim), im.backend, im.launch);
  });
  return true;
}

// Why nothing was chosen when an image was refused only for the device's limits.
inline std::string over_limits_summary(const image_info& im, const block_limits& lim,
                                       const std::string& dev) {
  return "no image of this variant fits " + dev + ": " + identify(im) + " " +
         excess_reason(excesses(im.launch, lim), im.backend, im.launch) +
         "; pack a config that needs less for this GPU (fewer stages, smaller blocks or fewer "
         "warps)";
}

}  // namespace detail

TRITONPACK_END_NAMESPACE
