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

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tritonpack/core/error.hpp"
#include "tritonpack/core/identify.hpp"
#include "tritonpack/core/log.hpp"
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

inline void select_cuda(const container_info& c, const variant_info& v, const device_target& dev,
                        image_choice& out, const explainer& x) {
  std::vector<candidate> cands;
  auto d = parse_cuda_arch(dev.arch);
  if (!d)
    throw error(errc::bad_argument,
                "device arch '" + dev.arch + "' is not an NVIDIA compute capability");
  auto dev_name = [&] { return "sm_" + std::to_string(d->number()); };
  const std::optional<block_limits> lim = dev.limits ? dev.limits : cuda_block_limits(*d);
  std::optional<std::uint32_t> first_over;
  const std::uint32_t max_isa = max_ptx_isa_for_driver(dev.driver_version);
  std::uint32_t lowest_too_new_isa = 0;
  bool any_too_new = false;
  // The best-targeted PTX the driver cannot JIT (highest target), for the note a PTX choice below
  // it carries: a newer Triton writes a newer ISA for the exact target than for the generic one
  // (3.9: 9.4 for sm_90a, 8.8 for sm_80), and a user should learn why the generic one ran.
  std::optional<std::uint32_t> best_too_new;
  std::uint32_t best_too_new_target = 0;  // its sm number

  for (std::uint32_t idx : v.images) {
    if (idx >= c.images.size()) {
      // The reader validates indices; this keeps a hand-built container_info from crashing here.
      x.refuse(idx, [] { return std::string("image index out of range"); });
      continue;
    }
    const image_info& im = c.images[idx];
    std::string why;
    if (im.backend != backend_kind::cuda) {
      x.refuse(idx, [&] {
        return std::string(backend_name(im.backend)) + " " + identify(im) +
               ": not for an NVIDIA GPU";
      });
      continue;
    }
    auto a = parse_cuda_arch(im.arch);
    if (!a) {
      x.refuse(idx, [&] { return identify(im) + ": unrecognised arch"; });
      continue;
    }
    if (im.kind == image_kind::cubin) {
      if (dev.force_ir) {
        x.refuse(idx, [&] {
          return "cubin " + im.arch + ": skipped, the IR path is forced (TRITONPACK_FORCE_IR)";
        });
        continue;
      }
      if (!cubin_runs_on(*a, *d, x.on ? &why : nullptr)) {
        x.refuse(idx, [&] { return why; });
        continue;
      }
      if (refuse_over_limits(im, idx, lim, x, first_over, dev_name)) continue;
      const bool exact = a->minor == d->minor;
      // Exact: prefer `a` (score 2) over plain (1). Lower minor: highest minor first.
      cands.push_back({idx, exact ? 0 : 1,
                       exact ? (a->suffix == 'a'   ? 2u
                                : a->suffix == 'f' ? 0u
                                                   : 1u)
                             : a->minor,
                       x.reason([&] {
                         return exact ? "exact cubin " + im.arch + " for " + dev_name()
                                      : "cubin " + im.arch + " runs on " + dev_name() +
                                            " (same major, lower minor); no exact cubin";
                       })});
    } else if (im.kind == image_kind::ptx) {
      if (!ptx_targets(*a, *d, x.on ? &why : nullptr)) {
        x.refuse(idx, [&] { return why; });
        continue;
      }
      if (refuse_over_limits(im, idx, lim, x, first_over, dev_name)) continue;
      if (max_isa != 0 && im.ptx_version > max_isa) {
        any_too_new = true;
        if (lowest_too_new_isa == 0 || im.ptx_version < lowest_too_new_isa)
          lowest_too_new_isa = im.ptx_version;
        if (!best_too_new || best_too_new_target < a->number()) {
          best_too_new = idx;
          best_too_new_target = a->number();
        }
        x.refuse(idx, [&] {
          return "PTX " + im.arch + " has ISA " + ptx_isa_string(im.ptx_version) +
                 " but the driver (CUDA " + cuda_version_string(dev.driver_version) +
                 ") accepts at most ISA " + ptx_isa_string(max_isa) + "; it needs " +
                 driver_needed_for_ptx_isa(im.ptx_version);
        });
        continue;
      }
      // Highest target first; at equal target an `a` PTX (exact arch, more features), then the
      // higher ISA.
      const std::uint32_t score =
          a->number() * 10000 + (a->suffix == 'a' ? 2000u : 0u) + im.ptx_version;
      cands.push_back({idx, 2, score, x.reason([&] {
                         return "PTX " + im.arch + " (ISA " + ptx_isa_string(im.ptx_version) +
                                "), JIT-compiled for " + dev_name() +
                                (dev.force_ir ? " (IR path forced)"
                                              : "; no cubin runs on this GPU");
                       })});
    } else {
      x.refuse(idx, [&] { return identify(im) + ": not a CUDA image kind"; });
    }
  }

  const candidate* best = nullptr;
  for (const auto& k : cands)
    if (!best || k.tier < best->tier || (k.tier == best->tier && k.score > best->score)) best = &k;
  for (const auto& k : cands) {
    if (&k == best) continue;
    x.refuse(k.image, [&] {
      return "usable, but " + c.images[best->image].arch + " " +
             image_kind_name(c.images[best->image].kind) + " is preferred";
    });
  }
  if (best) {
    out.image = best->image;
    out.jit = c.images[best->image].kind == image_kind::ptx;
    out.reason = best->reason;
    // Only when explaining: the first launch's quick selection builds no strings.
    if (x.on && out.jit && best_too_new &&
        best_too_new_target > parse_cuda_arch(c.images[best->image].arch)->number()) {
      const image_info& skipped = c.images[*best_too_new];
      out.reason += "; PTX " + skipped.arch + " (ISA " + ptx_isa_string(skipped.ptx_version) +
                    ") passed over: this driver (CUDA " + cuda_version_string(dev.driver_version) +
                    ") accepts at most ISA " + ptx_isa_string(max_isa) + ", it needs " +
                    driver_needed_for_ptx_isa(skipped.ptx_version);
    }
    return;
  }
  if (any_too_new) {
    out.failure = selection_failure::ptx_too_new;
    out.needed_ptx_isa = lowest_too_new_isa;
    out.reason = "no cubin runs on " + dev_name() + ", and the PTX needs ISA " +
                 ptx_isa_string(lowest_too_new_isa) + " which this driver (CUDA " +
                 cuda_version_string(dev.driver_version) + ") cannot JIT-compile: install " +
                 driver_needed_for_ptx_isa(lowest_too_new_isa);
  } else if (first_over) {
    out.failure = selection_failure::exceeds_limits;
    out.reason = over_limits_summary(c.images[*first_over], *lim, dev_name());
  } else {
    out.failure = selection_failure::no_image;
    out.reason = "no image of this variant runs on " + dev_name() +
                 (dev.force_ir ? " with the IR path forced" : "") + "; repack with a target for " +
                 dev_name() + " or include PTX (mode ir or both)";
  }
}

inline void select_hip(const container_info& c, const variant_info& v, const device_target& dev,
                       image_choice& out, const explainer& x) {
  auto d = parse_amd_arch(dev.arch);
  if (!d)
    throw error(errc::bad_argument, "device arch '" + dev.arch + "' is not an AMD gfx target");
  const std::optional<block_limits> lim = dev.limits ? dev.limits : amd_block_limits(*d);
  std::optional<std::uint32_t> first_over;
  auto dev_name = [&] { return d->processor; };
  std::vector<candidate> cands;
  for (std::uint32_t idx : v.images) {
    if (idx >= c.images.size()) {
      x.refuse(idx, [] { return std::string("image index out of range"); });
      continue;
    }
    const image_info& im = c.images[idx];
    if (im.backend != backend_kind::hip) {
      x.refuse(idx, [&] {
        return std::string(backend_name(im.backend)) + " " + identify(im) + ": not for an AMD GPU";
      });
      continue;
    }
    auto a = parse_amd_arch(im.arch);
    if (!a) {
      x.refuse(idx, [&] { return identify(im) + ": unrecognised arch"; });
      continue;
    }
    if (im.kind == image_kind::llir) {
      // The HIP backend compiles it through comgr when no code object runs (hip/ir_jit.hpp).
      x.refuse(idx, [&] {
        return "llir " + im.arch +
               (a->processor == d->processor
                    ? ": not a code object; compiled through comgr only when no code object runs, "
                      "and only by a comgr as new "
                      "as the LLVM 22 Triton 3.6 wrote it with"
                    : ": LLVM IR for another gfx processor");
      });
      continue;
    }
    if (im.kind != image_kind::hsaco) {
      x.refuse(idx, [&] { return identify(im) + ": not a HIP image kind"; });
      continue;
    }
    if (dev.force_ir) {
      x.refuse(idx, [&] {
        return "hsaco " + im.arch + ": skipped, the IR path is forced (TRITONPACK_FORCE_IR)";
      });
      continue;
    }
    std::string why;
    if (!hsaco_runs_on(*a, *d, x.on ? &why : nullptr)) {
      x.refuse(idx, [&] { return why; });
      continue;
    }
    if (refuse_over_limits(im, idx, lim, x, first_over, dev_name)) continue;
    cands.push_back({idx, 0, static_cast<std::uint32_t>(a->features.size()),
                     x.reason([&] { return "code object " + im.arch + " for " + d->str(); })});
  }
  const candidate* best = nullptr;
  for (const auto& k : cands)
    if (!best || k.score > best->score) best = &k;
  for (const auto& k : cands)
    if (&k != best)
      x.refuse(k.image,
               [&] { return "usable, but " + c.images[best->image].arch + " is more specific"; });
  if (best) {
    out.image = best->image;
    out.reason = best->reason;
    return;
  }
  if (first_over) {
    out.failure = selection_failure::exceeds_limits;
    out.reason = over_limits_summary(c.images[*first_over], *lim, d->processor);
    return;
  }
  const std::string none_runs = "no code object of this variant runs on " + d->str() +
                                (dev.force_ir ? " with the IR path forced" : "");
  // No code object runs: the LLVM IR built for this exact processor, if the variant has one, is the
  // choice, JIT-compiled through comgr (hip/ir_jit.hpp), as PTX is on NVIDIA. IR is not portable
  // across gfx processors: it names its target CPU and features.
  for (std::uint32_t idx : v.images) {
    if (idx >= c.images.size()) continue;
    const image_info& im = c.images[idx];
    if (im.backend != backend_kind::hip || im.kind != image_kind::llir) continue;
    const auto a = parse_amd_arch(im.arch);
    if (!a || a->processor != d->processor) continue;
    out.image = idx;
    out.jit = true;
    if (x.on) {
      out.refused.erase(std::remove_if(out.refused.begin(), out.refused.end(),
                                       [&](const image_verdict& r) { return r.image == idx; }),
                        out.refused.end());
      out.reason =
          none_runs + ", so its LLVM IR for " + d->processor + ", JIT-compiled through comgr";
    }
    return;
  }
  out.failure = selection_failure::no_image;
  out.reason = none_runs + "; repack with a target for " + d->processor;
}

}  // namespace detail

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
