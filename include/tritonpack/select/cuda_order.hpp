// tritonpack/select/cuda_order.hpp — NVIDIA's order of images for one device (select/image.hpp's
// header comment gives the rules): exact cubin, a lower minor's cubin, then the highest PTX the
// driver accepts.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tritonpack/core/identify.hpp"
#include "tritonpack/core/model.hpp"
#include "tritonpack/select/arch.hpp"
#include "tritonpack/select/arch_limits.hpp"
#include "tritonpack/select/image_choice.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

namespace detail {

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

}  // namespace detail

TRITONPACK_END_NAMESPACE
