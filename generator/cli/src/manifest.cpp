// manifest.json → container_info + image bytes, with every artifact checked against its label.
#include "tritonpack/pack/manifest.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "tritonpack/container/format.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/core/identify.hpp"
#include "tritonpack/launch/triton_abi.hpp"
#include "tritonpack/pack/artifact_check.hpp"
#include "tritonpack/pack/file_io.hpp"
#include "tritonpack/pack/limits_check.hpp"

namespace tritonpack::pack {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

[[noreturn]] void bad(const std::string& msg) { throw error(errc::bad_argument, msg); }

// Typed access to a JSON object with the JSON path in every message.
struct node {
  const json& j;
  std::string path;

  const json& need(const char* key) const {
    if (!j.is_object())
      bad(fmt::format("manifest: {} is not an object", path.empty() ? "the top level" : path));
    auto it = j.find(key);
    if (it == j.end()) bad(fmt::format("manifest: missing required key {}", sub(key)));
    return *it;
  }
  const json* maybe(const char* key) const {
    auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
  }
  std::string sub(const char* key) const {
    return path.empty() ? std::string(key) : path + "." + key;
  }
  std::string str(const char* key) const {
    const json& v = need(key);
    if (!v.is_string())
      bad(fmt::format("manifest: {} must be a string, it is {}", sub(key), v.type_name()));
    return v.get<std::string>();
  }
  std::int64_t integer(const char* key) const {
    const json& v = need(key);
    if (!v.is_number_integer())
      bad(fmt::format("manifest: {} must be an integer, it is {}", sub(key), v.dump()));
    return v.get<std::int64_t>();
  }
  const json& array(const char* key) const {
    const json& v = need(key);
    if (!v.is_array())
      bad(fmt::format("manifest: {} must be an array, it is {}", sub(key), v.type_name()));
    return v;
  }
  bool boolean(const char* key, bool dflt) const {
    const json* v = maybe(key);
    if (!v) return dflt;
    if (!v->is_boolean())
      bad(fmt::format("manifest: {} must be true or false, it is {}", sub(key), v->dump()));
    return v->get<bool>();
  }
  // An optional string: empty when the key is absent or null.
  std::string optional_str(const char* key) const {
    const json* v = maybe(key);
    if (!v) return {};
    if (!v->is_string())
      bad(fmt::format("manifest: {} must be a string, it is {}", sub(key), v->dump()));
    return v->get<std::string>();
  }
  node at(const char* key, std::size_t i) const {
    return {array(key)[i], fmt::format("{}[{}]", sub(key), i)};
  }
};

// A kernel's "tuning" (docs/spec.md "Tuning"); the container reader checks the rest (groups of
// one specialisation, integer keys, pointer buffers) when the packer parses what it wrote.
void read_tuning(const node& t, kernel_info& k) {
  const std::int64_t cc = t.integer("config_count");
  if (cc < 1 || k.variants.size() % static_cast<std::size_t>(cc) != 0)
    bad(fmt::format("manifest: {} is {}, it must divide the kernel's {} variants",
                    t.sub("config_count"), cc, k.variants.size()));
  k.tuning.config_count = static_cast<std::uint32_t>(cc);
  k.tuning.on_first_use = t.boolean("on_first_use", false);
  const json& args = t.array("args");
  for (std::size_t i = 0; i < args.size(); ++i) {
    const node a = t.at("args", i);
    const std::string name = a.str("name"), role = a.str("role");
    tune_arg ta;
    std::size_t idx = 0;
    while (idx < k.args.size() && k.args[idx].name != name) ++idx;
    if (idx == k.args.size())
      bad(fmt::format("manifest: {} \"{}\" is not an argument of {}", a.sub("name"), name,
                      identify(k)));
    ta.arg = static_cast<std::uint32_t>(idx);
    if (role == "key") {
      ta.role = tune_role::key;
      const std::string b = a.str("bucket");
      if (b != "pow2" && b != "exact")
        bad(fmt::format("manifest: {} is \"{}\", expected pow2 or exact", a.sub("bucket"), b));
      ta.bucket = b == "pow2" ? bucket_rule::pow2 : bucket_rule::exact;
    } else if (role == "reset_to_zero" || role == "restore") {
      ta.role = role == "restore" ? tune_role::restore : tune_role::reset_to_zero;
      ta.bucket = bucket_rule::exact;
      ta.bytes = a.str("bytes");
      if (ta.bytes.empty()) bad(fmt::format("manifest: {} is empty", a.sub("bytes")));
    } else {
      bad(fmt::format("manifest: {} is \"{}\", expected key, reset_to_zero or restore",
                      a.sub("role"), role));
    }
    k.tuning.args.push_back(ta);
  }
}

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// A constexpr value as the literal the model stores: JSON numbers as written, booleans as Python
// writes them (Triton's source language), strings as they are.
std::string literal(const json& v, const std::string& where) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_number()) return v.dump();
  bad(fmt::format("manifest: {} must be a number, boolean or string, it is {}", where, v.dump()));
}

// The most an image or metadata file named by a manifest may hold: what one frame of a container
// may decode to (format::max_frame_raw_size); a metadata JSON is far smaller.
constexpr std::uint64_t max_image_file_size = format::max_frame_raw_size;
constexpr std::uint64_t max_metadata_file_size = std::uint64_t{64} << 20;

// `rel` (the manifest's `where`) resolved against the manifest's directory `dir`; refused when it
// leaves that directory, unless the user allowed it.
fs::path manifest_file(const fs::path& dir, const std::string& rel, const std::string& where,
                       const load_options& options) {
  const fs::path p(rel);
  if (rel.empty()) bad(fmt::format("manifest: {} is empty; expected a file name", where));
  if (options.allow_outside_manifest_dir) return dir / p;
  const fs::path normal = p.lexically_normal();
  if (p.is_absolute() || p.has_root_name() || (!normal.empty() && *normal.begin() == ".."))
    bad(
        fmt::format("manifest: {} is \"{}\", which is not inside the manifest's directory {}; the "
                    "front end writes every file beside the manifest: pack the manifest it wrote, "
                    "or pass --allow-outside-manifest-dir if you wrote this one and trust it",
                    where, rel, dir.empty() ? std::string(".") : dir.string()));
  return dir / normal;
}

// Launch facts from Triton's metadata JSON; defaults of docs/triton-abi.md §6 for missing keys.
launch_info read_metadata(const fs::path& file, const std::string& rel, backend_kind backend) {
  const std::vector<std::uint8_t> raw =
      read_file(file, "a metadata file (Triton's JSON)", max_metadata_file_size);
  json m = json::parse(raw.begin(), raw.end(), nullptr, false);
  if (m.is_discarded() || !m.is_object()) bad(fmt::format("metadata {}: not a JSON object", rel));
  auto u32 = [&](const char* key, std::uint32_t dflt) -> std::uint32_t {
    auto it = m.find(key);
    if (it == m.end() || it->is_null()) return dflt;
    if (!it->is_number_unsigned() || it->get<std::uint64_t>() > 0xFFFFFFFFu)
      bad(fmt::format("metadata {}: \"{}\" must be a non-negative 32-bit integer, it is {}", rel,
                      key, it->dump()));
    return it->get<std::uint32_t>();
  };
  auto u64 = [&](const char* key, std::uint64_t dflt) -> std::uint64_t {
    auto it = m.find(key);
    if (it == m.end() || it->is_null()) return dflt;
    if (!it->is_number_unsigned())
      bad(fmt::format("metadata {}: \"{}\" must be a non-negative integer, it is {}", rel, key,
                      it->dump()));
    return it->get<std::uint64_t>();
  };
  auto flag = [&](const char* key) -> bool {
    auto it = m.find(key);
    if (it == m.end() || it->is_null()) return false;
    if (!it->is_boolean())
      bad(fmt::format("metadata {}: \"{}\" must be true or false, it is {}", rel, key, it->dump()));
    return it->get<bool>();
  };
  launch_info L;
  auto name = m.find("name");
  if (name == m.end() || !name->is_string() || name->get<std::string>().empty())
    bad(fmt::format("metadata {}: \"name\" (the kernel symbol) is missing", rel));
  L.entry = name->get<std::string>();
  L.num_warps = u32("num_warps", 4);
  L.warp_size = u32("warp_size", backend == backend_kind::cuda ? 32 : 64);
  L.shared = u32("shared", 0);
  L.num_ctas = u32("num_ctas", 1);
  L.tmem_size = u32("tmem_size", 0);
  L.global_scratch_size = u64("global_scratch_size", 0);
  L.global_scratch_align = u32("global_scratch_align", 1);
  L.profile_scratch_size = u64("profile_scratch_size", 0);
  L.profile_scratch_align = u32("profile_scratch_align", 1);
  L.launch_cooperative_grid = flag("launch_cooperative_grid");
  L.launch_pdl = flag("launch_pdl");
  if (auto tv = m.find("triton_version"); tv != m.end() && tv->is_string())
    L.triton_version = tv->get<std::string>();
  if (auto target = m.find("target"); target != m.end() && target->is_object()) {
    auto b = target->find("backend");
    if (b != target->end() && b->is_string() && *b != backend_name(backend))
      bad(fmt::format("metadata {}: target.backend is \"{}\", the manifest says {}", rel,
                      b->get<std::string>(), backend_name(backend)));
  }
  if (auto td = m.find("tensordesc_meta"); td != m.end() && !td->is_null()) {
    if (!td->is_array()) bad(fmt::format("metadata {}: \"tensordesc_meta\" must be an array", rel));
    for (std::size_t i = 0; i < td->size(); ++i) {
      const json& d = (*td)[i];
      const std::string where = fmt::format("metadata {}: tensordesc_meta[{}]", rel, i);
      if (!d.is_object()) bad(where + " must be an object");
      tensordesc_meta t;
      auto get = [&](const char* key) -> std::uint32_t {
        auto it = d.find(key);
        if (it == d.end() || !it->is_number_unsigned())
          bad(fmt::format("{}.{} must be a non-negative integer", where, key));
        return it->get<std::uint32_t>();
      };
      if (d.contains("elem_bits"))
        bad(where +
            ": AMD TDM descriptors (elem_bits, gfx1250) are not supported: the container has no "
            "record for them yet");
      t.swizzle = get("swizzle");
      t.elem_size = get("elem_size");
      t.elem_type = get("elem_type");
      if (auto fp4 = d.find("fp4_padded"); fp4 != d.end() && fp4->is_boolean())
        t.fp4_padded = fp4->get<bool>();
      auto bs = d.find("block_size");
      if (bs == d.end() || !bs->is_array() || bs->empty() || bs->size() > 5)
        bad(where + ".block_size must be an array of 1..5 integers");
      for (const json& x : *bs) {
        if (!x.is_number_unsigned()) bad(where + ".block_size must hold non-negative integers");
        t.block_size.push_back(x.get<std::uint32_t>());
      }
      L.tensordesc.push_back(t);
    }
  }
  return L;
}

// The order a variant's images take in the container, whatever order the manifest lists them in
// (the order carries no meaning: selection ranks images, it does not take the first): NVIDIA
// archs by number, then suffix (sm_80, sm_90a, sm_100a), AMD and other names as text. Packing the
// same images listed in another order thus gives the same bytes (docs/manifest.md, "Reproducible
// output").
std::tuple<int, unsigned long, std::string> arch_order(const std::string& arch) {
  if (arch.rfind("sm_", 0) == 0) {
    std::size_t digits = 3;
    while (digits < arch.size() && std::isdigit(static_cast<unsigned char>(arch[digits]))) ++digits;
    if (digits > 3 && digits - 3 < 9)
      return {0, std::stoul(arch.substr(3, digits - 3)), arch.substr(digits)};
  }
  return {1, 0, arch};
}

// Number of kernel parameters a type expands to (triton-abi.md §5, §7): a tensor descriptor is
// what the release that built the image passes for it (triton_abi::descriptor_params: 1 + 2·rank
// with TMA metadata; decomposed 2 + 4·rank, or 3 + 4·rank from Triton 3.7); everything else 1.
unsigned expanded_params(const std::string& type, bool tma, const triton_abi& abi) {
  if (type.rfind("tensordesc<", 0) != 0) return 1;
  const std::size_t open = type.find('['), close = type.find(']');
  unsigned rank = 1;
  if (open != std::string::npos && close != std::string::npos)
    for (std::size_t i = open; i < close; ++i) rank += type[i] == ',';
  return abi.descriptor_params(rank, tma);
}

}  // namespace

const char* pack_mode_name(pack_mode m) {
  switch (m) {
    case pack_mode::binary: return "binary";
    case pack_mode::ir: return "ir";
    case pack_mode::both: return "both";
  }
  return "?";
}

pack_mode parse_pack_mode(const std::string& s) {
  if (s == "binary") return pack_mode::binary;
  if (s == "ir") return pack_mode::ir;
  if (s == "both") return pack_mode::both;
  bad(fmt::format("mode \"{}\" is not binary, ir or both", s));
}

loaded_manifest load_manifest(const fs::path& manifest_path, const load_options& options) {
  const std::vector<std::uint8_t> raw = read_file(
      manifest_path,
      "a manifest file (manifest.json, written by `python -m tritonpack_compile SPEC -o DIR`)");
  json j = json::parse(raw.begin(), raw.end(), nullptr, false);
  if (j.is_discarded()) bad(fmt::format("{}: not valid JSON", manifest_path.string()));
  if (!j.is_object())
    bad(fmt::format("{}: the top level must be a JSON object", manifest_path.string()));
  const fs::path dir = manifest_path.parent_path();
  const node top{j, ""};

  const std::string schema = top.str("schema");
  if (schema != "tritonpack-manifest")
    bad(fmt::format("manifest: schema is \"{}\", expected \"tritonpack-manifest\"", schema));
  const std::int64_t version = top.integer("version");
  if (version != 1)
    bad(fmt::format("manifest: version {} is not supported (this packer reads version 1)",
                    version));

  loaded_manifest out;
  container_info& info = out.info;
  info.name = top.str("name");
  if (!is_identifier(info.name))
    bad(fmt::format("manifest: name \"{}\" is not a C++ identifier", info.name));
  info.triton_version = top.str("triton_version");
  info.triton_commit = top.optional_str("triton_commit");  // only where Triton records one
  if (const json* g = top.maybe("generator"); g && g->is_string())
    out.generator = g->get<std::string>();
  const pack_mode have = parse_pack_mode(top.str("mode"));
  out.mode = have;
  if (options.mode_given) {
    if (have != pack_mode::both && options.mode != have)
      bad(fmt::format(
          "--mode {} would widen the manifest's mode \"{}\" (a mode can only be narrowed)",
          pack_mode_name(options.mode), pack_mode_name(have)));
    out.mode = options.mode;
  }
  const bool keep_binary = out.mode != pack_mode::ir, keep_ir = out.mode != pack_mode::binary;

  // Per kernel: images collected per variant, then ordered (cuda binaries, cuda IR, hip
  // binaries, hip IR) and appended to the container's image table.
  std::map<std::string, std::uint32_t> image_by_file;
  std::set<std::string> kernel_names;
  const json& kernels = top.array("kernels");
  for (std::size_t ki = 0; ki < kernels.size(); ++ki) {
    const node k = top.at("kernels", ki);
    kernel_info kinfo;
    kinfo.name = k.str("name");
    if (!is_identifier(kinfo.name))
      bad(fmt::format("manifest: {} \"{}\" is not a C++ identifier", k.sub("name"), kinfo.name));
    if (!kernel_names.insert(kinfo.name).second)
      bad(fmt::format("manifest: {} \"{}\" is not unique", k.sub("name"), kinfo.name));
    kinfo.source = k.str("source");
    const json& args = k.array("args");
    for (std::size_t ai = 0; ai < args.size(); ++ai) {
      const node a = k.at("args", ai);
      kernel_arg arg;
      arg.name = a.str("name");
      if (!is_identifier(arg.name))
        bad(fmt::format("manifest: {} \"{}\" is not a C++ identifier", a.sub("name"), arg.name));
      arg.type = a.str("type");
      if (arg.type.empty()) bad(fmt::format("manifest: {} is empty", a.sub("type")));
      arg.is_const = a.boolean("const", false);
      if (arg.is_const && arg.type[0] != '*' && arg.type.rfind("tensordesc<", 0) != 0)
        bad(fmt::format("manifest: {} is const but \"{}\" is not a pointer", a.path, arg.type));
      kinfo.args.push_back(arg);
    }
    if (const json* g = k.maybe("grid")) {
      if (!g->is_array() || g->size() != 3)
        bad(fmt::format("manifest: {} must be null or an array of 3 strings", k.sub("grid")));
      for (int d = 0; d < 3; ++d) {
        if (!(*g)[d].is_string() || (*g)[d].get<std::string>().empty())
          bad(fmt::format("manifest: {}[{}] must be a non-empty string", k.sub("grid"), d));
        kinfo.grid[d] = (*g)[d].get<std::string>();
      }
    }

    struct pending {
      std::uint32_t variant;
      std::string file;
      image_info im;
      std::vector<std::uint8_t> bytes;
    };
    std::vector<pending> found;
    const json& variants = k.array("variants");
    if (variants.empty()) bad(fmt::format("manifest: {} is empty", k.sub("variants")));
    for (std::size_t vi = 0; vi < variants.size(); ++vi) {
      const node v = k.at("variants", vi);
      variant_info var;
      const json& specs = v.array("specs");
      if (specs.size() != kinfo.args.size())
        bad(fmt::format("manifest: {} has {} entries, the kernel has {} args", v.sub("specs"),
                        specs.size(), kinfo.args.size()));
      std::vector<std::string> passed;  // the args this variant passes, for kernel_params
      for (std::size_t si = 0; si < specs.size(); ++si) {
        const node s = v.at("specs", si);
        const std::string kind = s.str("kind");
        arg_spec sp;
        if (kind == "none") sp.kind = spec_kind::none;
        else if (kind == "div16") sp.kind = spec_kind::divisible_16;
        else if (kind == "equal1") sp.kind = spec_kind::equal_1;
        else if (kind == "constexpr") {
          sp.kind = spec_kind::constexpr_value;
          sp.value = literal(s.need("value"), s.sub("value"));
          if (sp.value.empty()) bad(fmt::format("manifest: {} is empty", s.sub("value")));
        } else {
          bad(fmt::format("manifest: {} is \"{}\", expected none, div16, equal1 or constexpr",
                          s.sub("kind"), kind));
        }
        if (sp.kind == spec_kind::equal_1 && kinfo.args[si].type[0] == '*')
          bad(fmt::format("manifest: {} is equal1 but arg {} is a pointer", s.sub("kind"),
                          kinfo.args[si].name));
        if (sp.kind == spec_kind::none || sp.kind == spec_kind::divisible_16)
          passed.push_back(kinfo.args[si].name);
        var.specs.push_back(sp);
      }
      const node cfg{v.need("config"), v.sub("config")};
      auto cfg_u32 = [&](const char* key, std::uint32_t dflt) -> std::uint32_t {
        const json* x = cfg.maybe(key);
        if (!x) return dflt;
        if (!x->is_number_unsigned() || x->get<std::uint64_t>() > 0xFFFFFFFFu)
          bad(fmt::format("manifest: {} must be a non-negative integer", cfg.sub(key)));
        return x->get<std::uint32_t>();
      };
      var.config.num_warps = cfg_u32("num_warps", 4);
      var.config.num_stages = cfg_u32("num_stages", 3);
      var.config.num_ctas = cfg_u32("num_ctas", 1);
      if (const json* cx = cfg.maybe("constexprs")) {
        if (!cx->is_object())
          bad(fmt::format("manifest: {} must be an object", cfg.sub("constexprs")));
        for (auto it = cx->begin(); it != cx->end(); ++it)
          var.config.constexprs.emplace_back(
              it.key(), literal(it.value(), cfg.sub("constexprs") + "." + it.key()));
      }
      // kernel_params: what the compiled kernel takes, which must be what this variant passes.
      const json& kp = v.array("kernel_params");
      std::vector<std::string> params;
      for (const json& p : kp) {
        if (!p.is_string())
          bad(fmt::format("manifest: {} must hold strings", v.sub("kernel_params")));
        params.push_back(p.get<std::string>());
      }
      if (params != passed)
        bad(fmt::format("manifest: {} is [{}] but the specs pass [{}]", v.sub("kernel_params"),
                        fmt::join(params, ", "), fmt::join(passed, ", ")));

      const json& images = v.array("images");
      for (std::size_t ii = 0; ii < images.size(); ++ii) {
        const node im = v.at("images", ii);
        image_info info_im;
        const std::string backend = im.str("backend"), kind = im.str("kind");
        if (backend == "cuda") info_im.backend = backend_kind::cuda;
        else if (backend == "hip") info_im.backend = backend_kind::hip;
        else
          bad(fmt::format("manifest: {} is \"{}\", expected cuda or hip", im.sub("backend"),
                          backend));
        if (kind == "cubin") info_im.kind = image_kind::cubin;
        else if (kind == "ptx") info_im.kind = image_kind::ptx;
        else if (kind == "hsaco") info_im.kind = image_kind::hsaco;
        else if (kind == "llir") info_im.kind = image_kind::llir;
        else
          bad(fmt::format("manifest: {} is \"{}\", expected cubin, ptx, hsaco or llir",
                          im.sub("kind"), kind));
        const bool cuda_kind = info_im.kind == image_kind::cubin || info_im.kind == image_kind::ptx;
        if (cuda_kind != (info_im.backend == backend_kind::cuda))
          bad(fmt::format("manifest: {}: kind {} does not belong to backend {}", im.path, kind,
                          backend));
        if (is_binary(info_im.kind) ? !keep_binary : !keep_ir) continue;
        info_im.arch = im.str("arch");
        // What produced the code (docs/manifest.md "Provenance"): optional, binaries only.
        info_im.tool_version = im.optional_str(info_im.kind == image_kind::cubin   ? "ptxas_version"
                                               : info_im.kind == image_kind::hsaco ? "llvm_version"
                                                                                   : "");
        const std::string file = im.str("file");
        const std::string meta_rel = im.str("metadata");
        // A file listed by several variants (or twice) is packed once and referred to twice.
        if (auto it = image_by_file.find(file); it != image_by_file.end()) {
          bad(fmt::format("manifest: {}: file {} is already used by another kernel", im.path,
                          file));
        }
        bool dup = false;
        for (const pending& p : found)
          if (p.file == file) {
            if (p.im.arch != info_im.arch || p.im.kind != info_im.kind)
              bad(fmt::format("manifest: {}: file {} is listed twice with different labels",
                              im.path, file));
            found.push_back({static_cast<std::uint32_t>(vi), file, p.im, {}});
            dup = true;
            break;
          }
        if (dup) continue;

        std::vector<std::uint8_t> bytes =
            read_file(manifest_file(dir, file, im.sub("file"), options), "an image file",
                      max_image_file_size);
        info_im.launch = read_metadata(manifest_file(dir, meta_rel, im.sub("metadata"), options),
                                       meta_rel, info_im.backend);
        const std::string& entry = info_im.launch.entry;
        auto fail = [&](const std::string& what) {
          bad(fmt::format("{} ({}): {}", file, im.path, what));
        };
        // The launch ABI is the one of the Triton release that built the image: its metadata's
        // triton_version, else the manifest's (what the run time plans by, launch/triton_abi.hpp).
        if (info_im.launch.triton_version.empty())
          info_im.launch.triton_version = info.triton_version;
        triton_abi abi;
        if (std::string why; !parse_triton_abi(info_im.launch.triton_version, abi, why))
          fail(why + "; its kernel parameters cannot be checked or planned");
        const std::string triton = info_im.launch.triton_version.empty()
                                       ? "3.6 (no triton_version recorded)"
                                       : info_im.launch.triton_version;
        // Expected kernel parameters: every passed arg (tensor descriptors expanded) + 2 scratch.
        unsigned want_params = 2, td_args = 0;
        for (std::size_t a = 0; a < kinfo.args.size(); ++a) {
          if (var.specs[a].kind == spec_kind::equal_1 ||
              var.specs[a].kind == spec_kind::constexpr_value)
            continue;
          const bool td = kinfo.args[a].type.rfind("tensordesc<", 0) == 0;
          want_params += expanded_params(kinfo.args[a].type,
                                         td && td_args < info_im.launch.tensordesc.size(), abi);
          td_args += td;
        }
        if (!info_im.launch.tensordesc.empty() && info_im.launch.tensordesc.size() != td_args)
          fail(
              fmt::format("the metadata has {} tensordesc_meta entries, the kernel passes {} "
                          "tensor descriptors",
                          info_im.launch.tensordesc.size(), td_args));
        if (info_im.kind == image_kind::cubin || info_im.kind == image_kind::hsaco) {
          elf_target t;
          try {
            t = read_elf_target(bytes);
          } catch (const error& e) {
            fail(e.message());
          }
          const std::uint16_t want = info_im.kind == image_kind::cubin ? em_cuda : em_amdgpu;
          if (t.machine != want)
            fail(fmt::format("its ELF e_machine is {} ({}), the manifest says {} ({})", t.machine,
                             t.machine == em_cuda ? "EM_CUDA" : "EM_AMDGPU", want, kind));
          if (std::string why = elf_label_mismatch(t, info_im.arch); !why.empty()) fail(why);
          const std::string sym = info_im.kind == image_kind::hsaco ? entry + ".kd" : entry;
          if (std::find(t.symbols.begin(), t.symbols.end(), sym) == t.symbols.end())
            fail(fmt::format("it has no symbol {} (the metadata's kernel name)", sym));
        } else if (info_im.kind == image_kind::ptx) {
          ptx_module p;
          try {
            p = read_ptx(
                std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
          } catch (const error& e) {
            fail(e.message());
          }
          if (p.target != info_im.arch)
            fail(fmt::format("its .target is {}, the manifest's arch is {}", p.target,
                             info_im.arch));
          const std::string have_version = fmt::format("{}.{}", p.version_major, p.version_minor);
          if (const json* pv = im.maybe("ptx_version")) {
            if (!pv->is_string() || pv->get<std::string>() != have_version)
              fail(fmt::format("its .version is {}, the manifest's ptx_version is {}", have_version,
                               pv->dump()));
          }
          info_im.ptx_version = p.version_major * 10 + p.version_minor;
          auto e = std::find_if(p.entries.begin(), p.entries.end(),
                                [&](const ptx_module::entry& x) { return x.name == entry; });
          if (e == p.entries.end())
            fail(fmt::format("it has no .entry {} (the metadata's kernel name)", entry));
          if (e->params != want_params)
            fail(fmt::format(
                ".entry {} takes {} parameters; the manifest's args and specs make {} (with the 2 "
                "scratch pointers{}, as Triton {} passes them)",
                entry, e->params, want_params,
                td_args && info_im.launch.tensordesc.empty()
                    ? abi.descriptor_tf32_flag
                          ? "; a decomposed tensor descriptor is 3 + 4·rank parameters"
                          : "; a decomposed tensor descriptor is 2 + 4·rank parameters"
                    : "",
                triton));
        } else {  // llir
          llir_module l;
          try {
            l = read_llir(
                std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
          } catch (const error& e) {
            fail(e.message());
          }
          if (!abi.amd_ir_processor_triple) {
            if (l.triple.rfind("amdgcn", 0) != 0)
              fail(fmt::format("its target triple is \"{}\", expected amdgcn-* (Triton {})",
                               l.triple, triton));
          } else {  // Triton 3.9 and later name the processor in the triple
            const std::string processor = info_im.arch.substr(0, info_im.arch.find(':'));
            const std::string want = abi.amd_ir_triple(processor);
            if (l.triple != want)
              fail(fmt::format(
                  "its target triple is \"{}\", expected \"{}\" (Triton {} writes the "
                  "processor's triple, amdgpu<major>.<minor><stepping>-amd-amdhsa, for {})",
                  l.triple, want.empty() ? "amdgpu*-amd-amdhsa" : want, triton, info_im.arch));
          }
          if (std::find(l.kernels.begin(), l.kernels.end(), entry) == l.kernels.end())
            fail(
                fmt::format("it defines no amdgpu_kernel @{} (the metadata's kernel name)", entry));
        }
        found.push_back({static_cast<std::uint32_t>(vi), file, info_im, std::move(bytes)});
      }
      kinfo.variants.push_back(var);
    }
    // Order this kernel's images and attach them to their variants.
    std::stable_sort(found.begin(), found.end(), [](const pending& a, const pending& b) {
      return std::make_tuple(a.variant, arch_order(a.im.arch), a.im.kind) <
             std::make_tuple(b.variant, arch_order(b.im.arch), b.im.kind);
    });
    std::map<std::string, std::uint32_t> local;
    for (int pass = 0; pass < 4; ++pass) {
      const backend_kind b = pass < 2 ? backend_kind::cuda : backend_kind::hip;
      const bool bin = pass % 2 == 0;
      for (pending& p : found) {
        if (p.im.backend != b || is_binary(p.im.kind) != bin || local.count(p.file)) continue;
        local[p.file] = static_cast<std::uint32_t>(info.images.size());
        image_by_file[p.file] = local[p.file];
        info.images.push_back(p.im);
        out.image_bytes.push_back(std::move(p.bytes));
        out.image_files.push_back(p.file);
      }
    }
    for (int pass = 0; pass < 2; ++pass)
      for (const pending& p : found)
        if (is_binary(p.im.kind) == (pass == 0))
          kinfo.variants[p.variant].images.push_back(local.at(p.file));
    if (k.maybe("tuning")) read_tuning(node{k.need("tuning"), k.sub("tuning")}, kinfo);
    info.kernels.push_back(std::move(kinfo));
  }
  // What no GPU of the target could launch is refused now, not on the GPU node.
  limits_report limits = check_limits(info, out.image_files);
  if (!limits.errors.empty()) bad(limits_error_message(limits));
  out.warnings = std::move(limits.warnings);
  return out;
}

}  // namespace tritonpack::pack
