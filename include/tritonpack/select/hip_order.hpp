// tritonpack/select/hip_order.hpp — AMD's order of images for one device (select/image.hpp's header
// comment gives the rules): the exact gfx processor's code object with its pinned features
// respected, then its LLVM IR.
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

TRITONPACK_END_NAMESPACE
