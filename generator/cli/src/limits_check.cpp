// Block limits at pack time: an image that cannot run on its own target is an error; one that a
// GPU would pick (by the run time's selection) and cannot run is a warning.
#include "tritonpack/pack/limits_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "tritonpack/core/identify.hpp"
#include "tritonpack/select/arch_limits.hpp"
#include "tritonpack/select/image.hpp"

namespace tritonpack::pack {
namespace {

// "needs 320 KB of shared memory per block", "needs 2048 threads per block (64 warps of 32)":
// each excess, joined by "and".
std::string needs_text(const std::vector<limit_excess>& ex, const image_info& im) {
  std::string s;
  for (const limit_excess& e : ex) {
    if (!s.empty()) s += " and ";
    s += "needs " + need_text(e, im.backend, im.launch);
    if (e.what == limit_kind::shared_memory)
      s += im.backend == backend_kind::hip ? " per workgroup" : " per block";
  }
  return s;
}

// "99 KB", "1024 threads", or both: what a GPU allows for each excess.
std::string allows_text(const std::vector<limit_excess>& ex) {
  std::string s;
  for (const limit_excess& e : ex) {
    if (!s.empty()) s += " and ";
    s += allowed_text(e) + (e.what == limit_kind::threads ? " threads" : "");
  }
  return s;
}

// "a", "a and b", "a, b and c".
std::string and_list(const std::vector<std::string>& items) {
  std::string s;
  for (std::size_t i = 0; i < items.size(); ++i)
    s += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return s;
}

bool over_own_limits(const image_info& im) {
  const auto own = block_limits_of(im.backend, im.arch);
  return own && !fits(im.launch, *own);
}

// Errors of one variant: images over the limits of their own arch, grouped by arch and need (a
// cubin and the PTX of one compilation share both).
void own_target_errors(const kernel_info& k, std::size_t vi, const container_info& info,
                       const std::vector<std::string>& files, std::vector<std::string>& out) {
  struct group {
    std::string arch, needs;
    std::vector<std::string> files;
  };
  std::vector<group> groups;
  for (std::uint32_t idx : k.variants[vi].images) {
    const image_info& im = info.images[idx];
    const auto own = block_limits_of(im.backend, im.arch);
    if (!own) continue;
    const auto ex = excesses(im.launch, *own);
    if (ex.empty()) continue;
    std::string needs;
    for (const limit_excess& e : ex)
      needs += fmt::format("{}{}; {} allows {}", needs.empty() ? "" : ", and ", needs_text({e}, im),
                           im.arch, allows_text({e}));
    auto g = std::find_if(groups.begin(), groups.end(),
                          [&](const group& x) { return x.arch == im.arch && x.needs == needs; });
    if (g == groups.end()) g = groups.insert(groups.end(), {im.arch, needs, {}});
    g->files.push_back(idx < files.size() ? files[idx] : fmt::format("image {}", idx));
  }
  for (const group& g : groups)
    out.push_back(fmt::format("{} variant {}, {}: {} ({})", k.name, vi, g.arch, g.needs,
                              fmt::join(g.files, ", ")));
}

// A warning before variants are merged: variants whose warning reads the same share one line.
struct fallback_warning {
  std::string image, needs, devices, consequence;
  std::vector<std::size_t> variants;
  bool same(const fallback_warning& o) const {
    return image == o.image && needs == o.needs && devices == o.devices &&
           consequence == o.consequence;
  }
};

// Warnings of one variant: for every GPU the tables know, the image selection would pick were it
// not for the GPU's limits; when that image exceeds them (and fits its own target, else it is
// already an error), the GPU is named with what it gets instead.
void fallback_warnings(const kernel_info& k, std::size_t vi, const container_info& info,
                       std::vector<fallback_warning>& out) {
  const variant_info& v = k.variants[vi];
  constexpr std::uint32_t unlimited = std::numeric_limits<std::uint32_t>::max();
  struct hit {
    std::uint32_t image;
    std::string needs, consequence;
    std::vector<std::pair<std::string, std::string>> devices;  // (device, what it allows)
  };
  std::vector<hit> hits;
  for (backend_kind b : {backend_kind::cuda, backend_kind::hip}) {
    if (std::none_of(v.images.begin(), v.images.end(),
                     [&](std::uint32_t i) { return info.images[i].backend == b; }))
      continue;
    for (const std::string& dev : known_devices(b)) {
      const device_target t = parse_device_target(dev);
      device_target unlimited_t = t;
      unlimited_t.limits = block_limits{unlimited, unlimited};
      const image_choice would = select_image(info, v, unlimited_t, /*explain=*/false);
      if (!would.image) continue;
      const image_info& im = info.images[*would.image];
      const std::vector<limit_excess> ex = excesses(im.launch, *block_limits_of(b, dev));
      if (ex.empty() || over_own_limits(im)) continue;
      const image_choice gets = select_image(info, v, t, /*explain=*/false);
      std::string consequence = "the variant has no image that fits them";
      if (gets.image) {
        const image_info& alt = info.images[*gets.image];
        consequence =
            fmt::format("they run {}{} instead", identify(alt), gets.jit ? " (JIT-compiled)" : "");
      }
      const std::string needs = needs_text(ex, im);
      auto h = std::find_if(hits.begin(), hits.end(), [&](const hit& x) {
        return x.image == *would.image && x.needs == needs && x.consequence == consequence;
      });
      if (h == hits.end()) h = hits.insert(hits.end(), {*would.image, needs, consequence, {}});
      h->devices.emplace_back(dev, allows_text(ex));
    }
  }
  for (const hit& h : hits) {
    const image_info& im = info.images[h.image];
    // "sm_86 and sm_89, which allow 99 KB"; with different limits "sm_86 (99 KB) and sm_75 (64
    // KB)".
    std::vector<std::string> names, labelled;
    bool one_limit = true;
    for (const auto& [dev, allows] : h.devices) {
      names.push_back(dev);
      labelled.push_back(fmt::format("{} ({})", dev, allows));
      one_limit = one_limit && allows == h.devices.front().second;
    }
    const std::string devices =
        one_limit ? fmt::format("{}, which allow{} {}", and_list(names),
                                names.size() == 1 ? "s" : "", h.devices.front().second)
                  : and_list(labelled);
    fallback_warning w{identify(im), h.needs, devices, h.consequence, {vi}};
    auto same =
        std::find_if(out.begin(), out.end(), [&](const fallback_warning& x) { return x.same(w); });
    if (same != out.end()) same->variants.push_back(vi);
    else out.push_back(std::move(w));
  }
}

}  // namespace

limits_report check_limits(const container_info& info,
                           const std::vector<std::string>& image_files) {
  limits_report r;
  for (const kernel_info& k : info.kernels) {
    std::vector<fallback_warning> warnings;
    for (std::size_t vi = 0; vi < k.variants.size(); ++vi) {
      own_target_errors(k, vi, info, image_files, r.errors);
      fallback_warnings(k, vi, info, warnings);
    }
    for (const fallback_warning& w : warnings)
      r.warnings.push_back(fmt::format("{} variant{} {}, {}: {}; it is also the image for {}: {}",
                                       k.name, w.variants.size() == 1 ? "" : "s",
                                       fmt::join(w.variants, ", "), w.image, w.needs, w.devices,
                                       w.consequence));
  }
  return r;
}

std::string limits_error_message(const limits_report& r) {
  if (r.errors.empty()) return {};
  const char* advice =
      "Lower num_stages, the block sizes or num_warps of that config, or leave the target out of "
      "the kernel's targets.";
  if (r.errors.size() == 1)
    return fmt::format("{}: it cannot run there. {}", r.errors.front(), advice);
  return fmt::format("{} images cannot run on the GPU they were compiled for:\n  {}\n{}",
                     r.errors.size(), fmt::join(r.errors, "\n  "), advice);
}

}  // namespace tritonpack::pack
