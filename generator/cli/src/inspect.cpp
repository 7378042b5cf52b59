#include "tritonpack/pack/inspect.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "tritonpack/container/reader.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/select/image.hpp"

namespace tritonpack::pack {
namespace {

using json = nlohmann::ordered_json;

// `s` as it may be printed on a terminal: control bytes (escape sequences, carriage returns,
// backspaces; newlines when `keep_newlines` is false) become \xNN, so a name in a container cannot
// rewrite what the report shows. The container's strings are not trusted to be text.
std::string printable(std::string_view s, bool keep_newlines = false) {
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && !(keep_newlines && c == '\n')) || c == 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else out += ch;
  }
  return out;
}

const char* spec_name(spec_kind k) {
  switch (k) {
    case spec_kind::none: return "none";
    case spec_kind::divisible_16: return "div16";
    case spec_kind::equal_1: return "equal1";
    case spec_kind::constexpr_value: return "constexpr";
  }
  return "?";
}

std::string spec_text(const kernel_info& k, const variant_info& v) {
  std::string s;
  for (std::size_t a = 0; a < k.args.size(); ++a) {
    if (a) s += ", ";
    switch (v.specs[a].kind) {
      case spec_kind::none: s += k.args[a].type; break;
      case spec_kind::divisible_16: s += k.args[a].type + ":16"; break;
      case spec_kind::equal_1: s += k.args[a].type + ":1"; break;
      case spec_kind::constexpr_value: s += v.specs[a].value; break;
    }
  }
  return s;
}

double ratio(std::uint64_t raw, std::uint64_t stored) {
  return stored == 0 ? 0.0 : static_cast<double>(raw) / static_cast<double>(stored);
}

json image_json(const container& c, std::uint32_t i) {
  const image_info& im = c.info().images[i];
  json j;
  j["index"] = i;
  j["backend"] = backend_name(im.backend);
  j["kind"] = image_kind_name(im.kind);
  j["arch"] = im.arch;
  if (im.kind == image_kind::ptx) {
    j["ptx_version"] = fmt::format("{}.{}", im.ptx_version / 10, im.ptx_version % 10);
    // The oldest driver that JIT-compiles it (a newer Triton writes a newer ISA: 3.9's sm_90a PTX
    // is 9.4, which a CUDA 13.0 driver refuses); null when tritonpack does not know the ISA.
    const std::uint32_t cuda = min_cuda_for_ptx_isa(im.ptx_version);
    j["min_cuda_driver"] = cuda ? json(cuda_version_string(cuda)) : json(nullptr);
  }
  // What produced a binary's code; null when not recorded (containers before format v3, or a
  // front end that could not tell).
  if (im.kind == image_kind::cubin || im.kind == image_kind::hsaco)
    j[im.kind == image_kind::cubin ? "ptxas_version" : "llvm_version"] =
        im.tool_version.empty() ? json(nullptr) : json(im.tool_version);
  j["raw_bytes"] = im.raw_size;
  j["stored_bytes"] = im.stored_size;
  j["checksum"] = container::hex(im.checksum);
  j["frame"] = c.frame_of(i);
  const launch_info& L = im.launch;
  j["launch"] = {{"entry", L.entry},
                 {"num_warps", L.num_warps},
                 {"warp_size", L.warp_size},
                 {"shared", L.shared},
                 {"num_ctas", L.num_ctas},
                 {"tmem_size", L.tmem_size},
                 {"global_scratch_size", L.global_scratch_size},
                 {"global_scratch_align", L.global_scratch_align},
                 {"profile_scratch_size", L.profile_scratch_size},
                 {"profile_scratch_align", L.profile_scratch_align},
                 {"launch_cooperative_grid", L.launch_cooperative_grid},
                 {"launch_pdl", L.launch_pdl},
                 {"triton_version", L.triton_version}};
  json td = json::array();
  for (const tensordesc_meta& t : L.tensordesc)
    td.push_back({{"swizzle", t.swizzle},
                  {"elem_size", t.elem_size},
                  {"elem_type", t.elem_type},
                  {"block_size", t.block_size},
                  {"fp4_padded", t.fp4_padded}});
  j["launch"]["tensordesc_meta"] = td;
  return j;
}

// What the deep check found: in the JSON, whether it ran and the damaged images with their
// kernels; in the text, a block under the container's line that cannot be missed.
// A kernel's tuning (docs/format.md "tunings"): configs per specialisation, key and protected
// args, packed table rows (times in ns, null when not measured).
json tuning_json(const kernel_info& k) {
  const kernel_tuning& t = k.tuning;
  json args = json::array(), table = json::array();
  for (const tune_arg& a : t.args) {
    json aj = {{"arg", k.args.at(a.arg).name}};
    aj["role"] = a.role == tune_role::key       ? "key"
                 : a.role == tune_role::restore ? "restore"
                                                : "reset_to_zero";
    if (a.role == tune_role::key) aj["bucket"] = a.bucket == bucket_rule::pow2 ? "pow2" : "exact";
    else aj["bytes"] = a.bytes;
    args.push_back(aj);
  }
  for (const tune_entry& e : t.table) {
    json times = json::array();
    for (std::uint64_t ns : e.times_ns)
      times.push_back(ns == ~std::uint64_t{0} ? json(nullptr) : json(ns));
    table.push_back(
        {{"device", e.device}, {"config", e.config}, {"bucket", e.bucket}, {"times_ns", times}});
  }
  return {{"config_count", t.config_count},
          {"on_first_use", t.on_first_use},
          {"args", args},
          {"table", table}};
}

std::string tuning_text(const kernel_info& k) {
  const kernel_tuning& t = k.tuning;
  if (t.config_count <= 1 && t.args.empty()) return "";
  std::string keys, prot;
  for (const tune_arg& a : t.args) {
    const std::string& n = k.args.at(a.arg).name;
    if (a.role == tune_role::key)
      keys += fmt::format("{}{} ({})", keys.empty() ? "" : ", ", n,
                          a.bucket == bucket_rule::pow2 ? "pow2" : "exact");
    else
      prot += fmt::format("{}{} {} ({} bytes)", prot.empty() ? "" : ", ",
                          a.role == tune_role::restore ? "restore" : "reset_to_zero", n, a.bytes);
  }
  std::string s = fmt::format(
      "  tuning: {} configs per specialisation, chosen per call by key {}{}{}; {} table row{}\n",
      t.config_count, keys.empty() ? "(none)" : keys,
      prot.empty() ? "" : "; trials protect " + prot, t.on_first_use ? "; tuned on first use" : "",
      t.table.size(), t.table.size() == 1 ? "" : "s");
  for (const tune_entry& e : t.table) {
    std::string b;
    for (std::int64_t v : e.bucket) b += (b.empty() ? "" : "x") + std::to_string(v);
    s += fmt::format("    {} bucket {}: config {}\n", e.device, b.empty() ? "-" : b, e.config);
  }
  return s;
}

// Who built the library: its Triton (and git commit), and per arch the ptxas of its cubins and the
// LLVM of its code objects, "not recorded" where the container does not say
// (generator/cli/README.md, "inspect").
std::string provenance_text(const container_info& info) {
  std::string s = fmt::format("built by: Triton {}, git commit {}\n",
                              info.triton_version.empty() ? "(not recorded)" : info.triton_version,
                              info.triton_commit.empty() ? "not recorded" : info.triton_commit);
  // (kind, arch) -> the tool versions of its images, in first-seen order.
  std::map<std::pair<image_kind, std::string>, std::vector<std::string>> tools;
  for (const image_info& im : info.images) {
    if (!is_binary(im.kind)) continue;
    std::vector<std::string>& v = tools[{im.kind, im.arch}];
    const std::string t = im.tool_version.empty() ? "not recorded" : im.tool_version;
    if (std::find(v.begin(), v.end(), t) == v.end()) v.push_back(t);
  }
  for (const auto& [key, versions] : tools) {
    std::string joined;
    for (const std::string& v : versions) joined += (joined.empty() ? "" : ", ") + v;
    s += fmt::format("  {} {}: {} {}\n", key.second, image_kind_name(key.first),
                     key.first == image_kind::cubin ? "ptxas" : "LLVM", joined);
  }
  return s;
}

json integrity_json(const container& c, bool quick,
                    const std::map<std::uint32_t, std::string>& damaged) {
  json j;
  j["verified"] = !quick;
  json list = json::array();
  for (const auto& [i, why] : damaged) {
    const image_info& im = c.info().images[i];
    const std::string_view kernel = c.kernel_of_image(i);
    list.push_back({{"image", i},
                    {"kernel", kernel.empty() ? json(nullptr) : json(std::string(kernel))},
                    {"backend", backend_name(im.backend)},
                    {"kind", image_kind_name(im.kind)},
                    {"arch", im.arch},
                    {"frame", c.frame_of(i)},
                    {"reason", why}});
  }
  j["damaged"] = quick ? json(nullptr) : list;
  return j;
}

std::string integrity_text(const container& c, bool quick,
                           const std::map<std::uint32_t, std::string>& damaged,
                           const std::map<std::uint32_t, std::string>& unchecked) {
  const std::size_t n = c.info().images.size();
  if (quick)
    return "integrity: not checked (--quick: the header and tables were validated against their "
           "checksum; the frames were not decoded)\n";
  std::string not_checked;
  if (!unchecked.empty()) {
    not_checked = fmt::format(
        "NOT CHECKED: {} of {} image{} {} in frames above the --max-image-size limit, so {} not "
        "decoded; pass a larger --max-image-size to check {}:\n",
        unchecked.size(), n, n == 1 ? "" : "s", unchecked.size() == 1 ? "is" : "are",
        unchecked.size() == 1 ? "it was" : "they were", unchecked.size() == 1 ? "it" : "them");
    for (const auto& [i, why] : unchecked)
      not_checked += fmt::format("  {} {}\n", printable(c.describe_image(i)), why);
    if (damaged.empty()) return not_checked;
  }
  if (damaged.empty())
    return fmt::format("integrity: ok: {} frame{} decoded, {} image checksum{} verified\n",
                       c.frames().size(), c.frames().size() == 1 ? "" : "s", n, n == 1 ? "" : "s");
  std::string t =
      fmt::format("DAMAGED: {} of {} image{} {} not the bytes that were packed:\n", damaged.size(),
                  n, n == 1 ? "" : "s", damaged.size() == 1 ? "is" : "are");
  for (const auto& [i, why] : damaged)
    t += fmt::format("  {} {}\n", printable(c.describe_image(i)), printable(why));
  t += "  the container's bytes changed after `tritonpack pack` wrote them; rebuild it (pack the "
       "kernels again and recompile\n"
       "  the program that embeds it)\n";
  return not_checked + t;
}

// Where a binary holds the container, and whether the program uses that copy: only a copy in a
// loaded section is; one in debug information is a compiler's record of a constant's value.
std::string location_text(const elf_location& where) {
  if (where.section.empty()) return {};
  std::string t = "  in " + (where.member.empty() ? std::string() : where.member + ", ") +
                  where.section +
                  (where.symbol.empty() ? std::string() : " (" + where.symbol + ")") + ": ";
  if (where.loaded) return t + "loaded with the program: the copy it uses\n";
  if (where.section.rfind(".debug", 0) == 0 || where.section.rfind(".zdebug", 0) == 0)
    return t + "debug information only, never loaded: not a copy the program uses (a compiler "
               "wrote a constant's value there; a header generated by this tritonpack avoids it)\n";
  return t + "a section that is not loaded: not a copy the program uses\n";
}

}  // namespace

inspect_result inspect_report(const search_result& found, const inspect_options& opt) {
  std::optional<device_target> device;
  if (!opt.device.empty())
    device = parse_device_target(opt.device);  // bad_argument names the forms
  json all = json::array();
  std::string text;
  std::size_t damaged_total = 0, unchecked_total = 0;
  for (std::size_t ci = 0; ci < found.containers.size(); ++ci) {
    const found_container& fc = found.containers[ci];
    const container c = container::parse(fc.bytes.data(), fc.bytes.size());
    const container_info& info = c.info();
    std::map<std::uint32_t, std::string> damaged, unchecked;  // image → why
    if (!opt.quick)
      for (const image_damage& d : c.find_damage(opt.max_image_size))
        (d.checked ? damaged : unchecked).emplace(d.image, d.reason);
    damaged_total += damaged.size();
    unchecked_total += unchecked.size();
    std::uint64_t raw = 0;
    for (const image_info& im : info.images) raw += im.raw_size;
    std::uint64_t stored = 0;
    for (const frame_view& f : c.frames()) stored += f.stored_size;

    json cj;
    cj["offset"] = fc.offset;
    cj["bytes"] = fc.bytes.size();
    cj["format_version"] = info.format_version;
    cj["name"] = info.name;
    cj["triton_version"] = info.triton_version;
    cj["triton_commit"] = info.triton_commit.empty() ? json(nullptr) : json(info.triton_commit);
    cj["frames"] = c.frames().size();
    cj["images_raw_bytes"] = raw;
    cj["images_stored_bytes"] = stored;
    cj["dictionary_bytes"] = c.dictionary_size();

    text += fmt::format(
        "{} ({}){}: tritonpack container v{}, library \"{}\", Triton {}\n", opt.file, found.source,
        found.containers.size() > 1 || fc.offset ? fmt::format(" at offset {}", fc.offset)
                                                 : std::string(),
        info.format_version, printable(info.name),
        info.triton_version.empty() ? "?" : printable(info.triton_version));
    text += location_text(fc.location);
    if (!fc.location.section.empty()) {
      cj["section"] = fc.location.section;
      cj["loaded"] = fc.location.loaded;
      cj["symbol"] = fc.location.symbol.empty() ? json(nullptr) : json(fc.location.symbol);
      if (!fc.location.member.empty()) cj["archive_member"] = fc.location.member;
    }
    text += provenance_text(info);
    cj["integrity"] = integrity_json(c, opt.quick, damaged);
    cj["integrity"]["not_checked"] =
        opt.quick ? json(nullptr) : integrity_json(c, false, unchecked)["damaged"];
    text += integrity_text(c, opt.quick, damaged, unchecked);
    json kernels = json::array();
    for (std::size_t ki = 0; ki < info.kernels.size(); ++ki) {
      const kernel_info& k = info.kernels[ki];
      json kj;
      kj["name"] = k.name;
      kj["source"] = k.source;
      kj["grid"] =
          k.grid[0].empty() ? json(nullptr) : json::array({k.grid[0], k.grid[1], k.grid[2]});
      json args = json::array();
      std::string arg_text;  // "name: type" for reading
      for (const kernel_arg& a : k.args)
        args.push_back({{"name", a.name}, {"type", a.type}, {"const", a.is_const}});
      for (const kernel_arg& a : k.args)
        arg_text += fmt::format("{}{}: {}{}", arg_text.empty() ? "" : ", ", a.name,
                                a.is_const ? "const " : "", a.type);
      kj["args"] = args;
      text += fmt::format("\nkernel {} ({})\n  args: {}\n  grid: {}\n", printable(k.name),
                          k.source.empty() ? "no source" : printable(k.source),
                          arg_text.empty() ? "none" : printable(arg_text),
                          k.grid[0].empty() ? "passed by the caller"
                                            : printable(fmt::format("({}, {}, {})", k.grid[0],
                                                                    k.grid[1], k.grid[2])));
      json variants = json::array();
      for (std::size_t vi = 0; vi < k.variants.size(); ++vi) {
        const variant_info& v = k.variants[vi];
        json vj;
        json specs = json::array();
        for (const arg_spec& s : v.specs) {
          json sj = {{"kind", spec_name(s.kind)}};
          if (s.kind == spec_kind::constexpr_value) sj["value"] = s.value;
          specs.push_back(sj);
        }
        vj["index"] = vi;
        vj["signature"] = spec_text(k, v);
        vj["specs"] = specs;
        json cx = json::object();
        std::string cx_text;
        for (const auto& [n, val] : v.config.constexprs) {
          cx[n] = val;
          cx_text += fmt::format(" {}={}", n, val);
        }
        vj["config"] = {{"num_warps", v.config.num_warps},
                        {"num_stages", v.config.num_stages},
                        {"num_ctas", v.config.num_ctas},
                        {"constexprs", cx}};
        text += fmt::format(
            "  variant {}: {}\n    config: num_warps={} num_stages={} num_ctas={}{}\n", vi,
            spec_text(k, v), v.config.num_warps, v.config.num_stages, v.config.num_ctas, cx_text);
        text += fmt::format("    {:>5}  {:<4}  {:<5}  {:<26} {:>10} {:>10} {:>7}  {}\n", "image",
                            "back", "kind", "arch", "raw", "stored", "ratio", "frame");
        json ims = json::array();
        for (std::uint32_t im : v.images) {
          const image_info& i = info.images[im];
          std::string arch = i.arch;
          if (i.kind == image_kind::ptx) {
            // The PTX ISA and the oldest CUDA driver that JIT-compiles it.
            const std::uint32_t cuda = min_cuda_for_ptx_isa(i.ptx_version);
            arch += fmt::format(" ({}.{}{})", i.ptx_version / 10, i.ptx_version % 10,
                                cuda ? ", CUDA " + cuda_version_string(cuda) + "+" : "");
          }
          text += fmt::format("    {:>5}  {:<4}  {:<5}  {:<26} {:>10} {:>10} {:>6.2f}x  {}{}\n", im,
                              backend_name(i.backend), image_kind_name(i.kind), arch, i.raw_size,
                              i.stored_size, ratio(i.raw_size, i.stored_size), c.frame_of(im),
                              damaged.count(im) ? "  DAMAGED" : "");
          ims.push_back(im);
        }
        vj["images"] = ims;
        if (device) {
          // The run time's own selection, so what is printed here is what a launch would do.
          const image_choice ch = select_image(info, v, *device);
          json sel;
          sel["image"] = ch.image ? json(*ch.image) : json(nullptr);
          sel["jit"] = ch.jit;
          sel["reason"] = ch.reason;
          json refused = json::array();
          for (const image_verdict& r : ch.refused)
            refused.push_back({{"image", r.image}, {"reason", r.reason}});
          sel["refused"] = refused;
          vj["selection"] = sel;
          if (ch.image) {
            const image_info& im = info.images[*ch.image];
            text += fmt::format("    on {}: image {} ({} {} {}{}) — {}\n", device->arch, *ch.image,
                                backend_name(im.backend), image_kind_name(im.kind), im.arch,
                                ch.jit ? ", JIT" : "", ch.reason);
          } else {
            text += fmt::format("    on {}: no image — {}\n", device->arch, ch.reason);
          }
          for (const image_verdict& r : ch.refused)
            text += fmt::format("      not {:>3}: {}\n", r.image, r.reason);
        }
        variants.push_back(vj);
      }
      kj["variants"] = variants;
      kj["tuning"] = tuning_json(k);
      text += tuning_text(k);
      kernels.push_back(kj);
    }
    cj["kernels"] = kernels;
    if (device) cj["device"] = {{"backend", backend_name(device->backend)}, {"arch", device->arch}};
    json images = json::array();
    for (std::uint32_t i = 0; i < info.images.size(); ++i) images.push_back(image_json(c, i));
    cj["images"] = images;

    // Totals per backend and kind.
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> per;
    std::map<std::string, std::size_t> count;
    for (const image_info& im : info.images) {
      const std::string key =
          fmt::format("{} {}", backend_name(im.backend), image_kind_name(im.kind));
      per[key].first += im.raw_size;
      per[key].second += im.stored_size;
      ++count[key];
    }
    text += fmt::format(
        "\ntotals: {} kernel{}, {} image{} in {} frame{}{}\n", info.kernels.size(),
        info.kernels.size() == 1 ? "" : "s", info.images.size(), info.images.size() == 1 ? "" : "s",
        c.frames().size(), c.frames().size() == 1 ? "" : "s",
        c.dictionary_size() == 0 ? std::string()
                                 : fmt::format(", zstd dictionary {} bytes", c.dictionary_size()));
    for (const auto& [key, v] : per)
      text += fmt::format("  {:<12} {:>4} image{} {:>10} raw {:>10} stored {:>6.2f}x\n", key,
                          count[key], count[key] == 1 ? " " : "s", v.first, v.second,
                          ratio(v.first, v.second));
    text += fmt::format(
        "  {:<12} {:>4} images {:>10} raw {:>10} stored {:>6.2f}x; container {} bytes\n", "all",
        info.images.size(), raw, stored, ratio(raw, stored), fc.bytes.size());
    // Per architecture, in the order the image table first names each (the packer's: NVIDIA by
    // number, then AMD): what `strip --keep-targets ARCH` would keep of it, binaries and IR.
    std::vector<std::pair<backend_kind, std::string>> archs;
    std::map<std::pair<backend_kind, std::string>, std::array<std::uint64_t, 3>> by_arch;
    for (const image_info& im : info.images) {
      const auto key = std::make_pair(im.backend, im.arch);
      if (!by_arch.count(key)) archs.push_back(key);
      auto& sums = by_arch[key];
      sums[0] += 1;
      sums[1] += im.raw_size;
      sums[2] += im.stored_size;
    }
    json per_arch = json::array();
    if (!archs.empty()) text += "  per arch:\n";
    for (const auto& key : archs) {
      const auto& [n, a_raw, a_stored] = by_arch[key];
      per_arch.push_back({{"backend", backend_name(key.first)},
                          {"arch", key.second},
                          {"images", n},
                          {"raw_bytes", a_raw},
                          {"stored_bytes", a_stored}});
      text += fmt::format("    {:<4} {:<20} {:>4} image{} {:>10} raw {:>10} stored {:>6.2f}x\n",
                          backend_name(key.first), key.second, n, n == 1 ? " " : "s", a_raw,
                          a_stored, ratio(a_raw, a_stored));
    }
    cj["per_arch"] = per_arch;
    // What an AMD GPU can run of this container: its code objects, in practice (docs/runtime.md).
    std::size_t amd_ir_only = 0;
    bool has_amd_ir = false;
    for (const kernel_info& k : info.kernels)
      for (const variant_info& v : k.variants) {
        bool ir = false, hsaco = false;
        for (std::uint32_t im : v.images) {
          ir |= info.images[im].backend == backend_kind::hip &&
                info.images[im].kind == image_kind::llir;
          hsaco |= info.images[im].backend == backend_kind::hip &&
                   info.images[im].kind == image_kind::hsaco;
        }
        has_amd_ir |= ir;
        amd_ir_only += ir && !hsaco;
      }
    if (has_amd_ir) {
      const std::string amd_note = fmt::format(
          "AMD LLVM IR is JIT-compiled through comgr only where no code object runs and only by a "
          "comgr as new as the "
          "LLVM 22 Triton 3.6 wrote it with (no released ROCm's is known to be; Debian's comgr 2.4 "
          "fails, saying so): in "
          "practice an AMD GPU runs the code object built for its exact gfx; {} variant{} here {} "
          "AMD IR only and run{} on "
          "AMD only with such a comgr",
          amd_ir_only, amd_ir_only == 1 ? "" : "s", amd_ir_only == 1 ? "has" : "have",
          amd_ir_only == 1 ? "s" : "");
      text += "  note: " + amd_note + "\n";
      cj["amd_note"] = amd_note;
    }
    all.push_back(cj);
  }
  if (opt.json) {
    json top;
    top["file"] = opt.file;
    top["source"] = found.source;
    top["containers"] = all;
    // Invalid UTF-8 in a name is replaced (U+FFFD) rather than failing the report.
    return {top.dump(2, ' ', false, json::error_handler_t::replace) + "\n", damaged_total,
            unchecked_total};
  }
  // Whatever else came from the container (archs, selection reasons, tuning rows): no control
  // byte reaches the terminal.
  return {printable(text, true), damaged_total, unchecked_total};
}

}  // namespace tritonpack::pack
