#include "tritonpack/pack/keep_targets.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

#include "tritonpack/container/format.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/core/identify.hpp"
#include "tritonpack/select/arch.hpp"

namespace tritonpack::pack {
namespace {

[[noreturn]] void bad(const std::string& msg) { throw error(errc::bad_argument, msg); }

// One --keep-targets entry, parsed: an NVIDIA arch (suffix kept: sm_90a names only sm_90a) or an
// AMD processor with the features given.
struct wanted {
  std::string text;
  std::optional<cuda_arch> cuda;
  std::optional<amd_arch> amd;
};

wanted parse_wanted(const std::string& text) {
  wanted w{text, {}, {}};
  const bool hip_prefix = text.rfind("hip:", 0) == 0, cuda_prefix = text.rfind("cuda:", 0) == 0;
  if (!cuda_prefix) w.amd = parse_amd_arch(text);
  if (!w.amd && !hip_prefix) w.cuda = parse_cuda_arch(text);
  if (!w.amd && !w.cuda)
    bad(
        fmt::format("--keep-targets: \"{}\" is not a target: expected an NVIDIA arch (sm_90a, "
                    "sm_80, 90, cuda:90) or an AMD gfx target (gfx942, hip:gfx90a:xnack-)",
                    text));
  return w;
}

bool matches(const wanted& w, const image_info& im) {
  if (im.backend == backend_kind::cuda) {
    if (!w.cuda) return false;
    const std::optional<cuda_arch> a = parse_cuda_arch(im.arch);
    if (!a || a->number() != w.cuda->number()) return false;
    return w.cuda->suffix == 0 || a->suffix == w.cuda->suffix;
  }
  if (!w.amd) return false;
  const std::optional<amd_arch> a = parse_amd_arch(im.arch);
  if (!a || a->processor != w.amd->processor) return false;
  return w.amd->features.empty() || a->features == w.amd->features;
}

// PTX that any newer GPU can JIT: its arch carries no `a` / `f` suffix.
bool generic_ptx(const image_info& im) {
  if (im.kind != image_kind::ptx) return false;
  const std::optional<cuda_arch> a = parse_cuda_arch(im.arch);
  return a && a->suffix == 0;
}

// "cubin sm_80, sm_90a; ptx sm_80, sm_90a; hsaco gfx942": what the model holds, for messages.
std::string present(const container_info& info) {
  std::string out;
  for (image_kind k : {image_kind::cubin, image_kind::ptx, image_kind::hsaco, image_kind::llir}) {
    std::set<std::string> archs;
    for (const image_info& im : info.images)
      if (im.kind == k) archs.insert(im.arch);
    if (archs.empty()) continue;
    out +=
        fmt::format("{}{} {}", out.empty() ? "" : "; ", image_kind_name(k), fmt::join(archs, ", "));
  }
  return out.empty() ? "no images" : out;
}

}  // namespace

keep_spec parse_keep_spec(const std::string& targets, const std::string& ir) {
  keep_spec spec;
  std::size_t begin = 0;
  while (begin <= targets.size()) {
    const std::size_t comma = std::min(targets.find(',', begin), targets.size());
    std::string t = targets.substr(begin, comma - begin);
    t.erase(0, t.find_first_not_of(' '));
    t.erase(t.find_last_not_of(' ') + 1);
    if (t.empty())
      bad(
          fmt::format("--keep-targets \"{}\" has an empty entry; list targets separated by commas, "
                      "e.g. --keep-targets sm_90a,gfx942",
                      targets));
    (void)parse_wanted(t);  // refuses what is not a target, before any work
    spec.targets.push_back(t);
    begin = comma + 1;
  }
  if (ir == "targets") spec.ir = keep_ir::targets;
  else if (ir == "generic") spec.ir = keep_ir::generic;
  else if (ir == "none") spec.ir = keep_ir::none;
  else if (ir == "all") spec.ir = keep_ir::all;
  else bad(fmt::format("--keep-ir must be targets, generic, none or all, got \"{}\"", ir));
  return spec;
}

std::string describe(const keep_spec& spec) {
  const std::string t = fmt::format("{}", fmt::join(spec.targets, ", "));
  switch (spec.ir) {
    case keep_ir::targets: return t + " (binaries and IR)";
    case keep_ir::generic: return t + " binaries + generic PTX";
    case keep_ir::none: return t + " binaries only";
    case keep_ir::all: return t + " binaries + all IR";
  }
  return t;
}

keep_summary keep_targets(container_info& info, std::vector<std::vector<std::uint8_t>>& image_bytes,
                          const keep_spec& spec, const std::string& what) {
  if (image_bytes.size() != info.images.size())
    bad(fmt::format("keep_targets: {} images described but {} byte buffers given",
                    info.images.size(), image_bytes.size()));
  std::vector<wanted> want;
  for (const std::string& t : spec.targets) want.push_back(parse_wanted(t));

  std::vector<bool> keep(info.images.size(), false);
  for (const wanted& w : want) {
    bool any = false;
    for (std::size_t i = 0; i < info.images.size(); ++i) {
      const image_info& im = info.images[i];
      if (!matches(w, im)) continue;
      any = true;
      if (is_binary(im.kind) || spec.ir == keep_ir::targets) keep[i] = true;
    }
    if (!any)
      bad(fmt::format("--keep-targets {}: {} has no image for it; it holds {}", w.text, what,
                      present(info)));
  }
  bool any_generic = false;
  for (std::size_t i = 0; i < info.images.size(); ++i) {
    const image_info& im = info.images[i];
    if (spec.ir == keep_ir::all && !is_binary(im.kind)) keep[i] = true;
    if (spec.ir == keep_ir::generic && generic_ptx(im)) keep[i] = any_generic = true;
  }
  if (spec.ir == keep_ir::generic && !any_generic)
    bad(
        fmt::format("--keep-ir generic: {} has no generic PTX (one whose arch has no a/f suffix); "
                    "it holds {}",
                    what, present(info)));

  // Every variant must keep an image: one without any would fail on every GPU at its first call.
  std::vector<std::string> emptied;
  for (const kernel_info& k : info.kernels)
    for (std::size_t v = 0; v < k.variants.size(); ++v) {
      bool kept = false;
      std::set<std::string> had;
      for (std::uint32_t im : k.variants[v].images) {
        kept = kept || keep.at(im);
        had.insert(
            fmt::format("{} {}", image_kind_name(info.images[im].kind), info.images[im].arch));
      }
      if (!kept)
        emptied.push_back(
            fmt::format("{} variant {} (it has {})", identify(k), v, fmt::join(had, ", ")));
    }
  if (!emptied.empty())
    bad(
        fmt::format("keeping {} would leave {} without any image, so {} could run on no GPU: {}; "
                    "keep one of {} target{} too",
                    describe(spec), emptied.size() == 1 ? "one kernel variant" : "kernel variants",
                    emptied.size() == 1 ? "it" : "they", fmt::join(emptied, "; "),
                    emptied.size() == 1 ? "its" : "their", emptied.size() == 1 ? "'s" : "s'"));

  // Renumber: the kept images in their order, the variants' references to them.
  std::vector<std::uint32_t> new_index(info.images.size(), ~std::uint32_t{0});
  std::vector<image_info> images;
  std::vector<std::vector<std::uint8_t>> bytes;
  for (std::size_t i = 0; i < info.images.size(); ++i) {
    if (!keep[i]) continue;
    new_index[i] = static_cast<std::uint32_t>(images.size());
    images.push_back(std::move(info.images[i]));
    bytes.push_back(std::move(image_bytes[i]));
  }
  keep_summary s;
  s.kept = images.size();
  s.removed = info.images.size() - images.size();
  for (kernel_info& k : info.kernels)
    for (variant_info& v : k.variants) {
      std::vector<std::uint32_t> refs;
      for (std::uint32_t im : v.images)
        if (keep[im]) refs.push_back(new_index[im]);
      v.images = std::move(refs);
    }
  info.images = std::move(images);
  image_bytes = std::move(bytes);
  return s;
}

bool binaries_stored(const container& c) {
  bool any = false;
  for (std::uint32_t i = 0; i < c.info().images.size(); ++i) {
    if (!is_binary(c.info().images[i].kind)) continue;
    const frame_view& f = c.frames()[c.frame_of(i)];
    if (f.codec != format::codec_stored || f.raw_size != c.info().images[i].raw_size) return false;
    any = true;
  }
  return any;
}

stripped strip_container(const container& c, const keep_spec& spec, const std::string& what,
                         const write_options& options, const std::string& name) {
  stripped out;
  out.info = c.info();
  std::vector<std::vector<std::uint8_t>> images;
  images.reserve(out.info.images.size());
  for (std::uint32_t i = 0; i < out.info.images.size(); ++i) images.push_back(c.decode_image(i));
  out.summary = keep_targets(out.info, images, spec, what);
  out.info.format_version = format::format_version;  // an older container is rewritten as today's
  if (!name.empty()) out.info.name = name;
  out.bytes = write_container(out.info, images, options);
  return out;
}

}  // namespace tritonpack::pack
