// tritonpack — the packer CLI: pack (manifest → NAME.tpk + NAME.hpp), inspect, extract, strip,
// tune.
//
// Exit codes: 0 success; 1 bad input (a message on stderr says what and where); 2 usage error.
// Every failure is an exception caught here, so bad input never crashes the tool.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tritonpack/container/format.hpp"
#include "tritonpack/container/reader.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/pack/container_finder.hpp"
#include "tritonpack/pack/container_writer.hpp"
#include "tritonpack/pack/file_io.hpp"
#include "tritonpack/pack/foreign_writer.hpp"
#include "tritonpack/pack/header_writer.hpp"
#include "tritonpack/pack/inspect.hpp"
#include "tritonpack/pack/keep_targets.hpp"
#include "tritonpack/pack/manifest.hpp"
#include "tritonpack/pack/names.hpp"
#include "tritonpack/pack/tune_run.hpp"
#include "tritonpack/pack/tune_sizes.hpp"
#include "tritonpack/pack/tuning_table.hpp"
#include "tritonpack/select/image.hpp"
#include "tritonpack/version.hpp"

namespace fs = std::filesystem;
using namespace tritonpack;

namespace {

constexpr const char* usage_text =
    "usage:\n"
    "  tritonpack pack MANIFEST -o OUTDIR [--name NAME] [--mode binary|ir|both] [--level N]\n"
    "                 [--frames per-kernel-backend|per-kernel-backend-kind|per-kernel|\n"
    "                           per-target|binaries-alone|per-image]\n"
    "                 [--dict-size BYTES] [--store-binaries] [--ptx-as-is]\n"
    "                 [--image-order newest-first|manifest]\n"
    "                 [--languages c,fortran] [--tuning TABLE.json]\n"
    "                 [--allow-outside-manifest-dir]\n"
    "                 [--keep-targets T1,T2,... [--keep-ir targets|generic|none|all]]\n"
    "      Pack the artifacts of MANIFEST into OUTDIR/NAME.tpk and the generated header\n"
    "      OUTDIR/NAME.hpp. MANIFEST comes from the front end, `python -m tritonpack_compile\n"
    "      SPEC -o DIR`, with PYTHONPATH=<tritonpack>/generator/python (a checkout) or\n"
    "      <prefix>/share/tritonpack/python (an installed tree); after `pip install\n"
    "      <tritonpack>/generator/python` also `tritonpack-compile SPEC -o DIR`.\n"
    "      NAME defaults to the manifest's name; --mode narrows what is packed; --level is the\n"
    "      zstd level (1..22, default 19).\n"
    "      --store-binaries keeps cubins / code objects uncompressed (a bigger file, a first\n"
    "      launch without decompression). A PTX is held as what it adds to the PTX text its\n"
    "      cubin carries (the same bytes once decoded, a smaller container); --ptx-as-is holds\n"
    "      every PTX as it is. --image-order newest-first (the default) lays each kernel's\n"
    "      frame out binaries first, by variant, the newest target first (a load decodes its\n"
    "      frame up to the image it needs); manifest keeps the manifest's order.\n"
    "      The files MANIFEST names must lie under its directory and be regular files;\n"
    "      --allow-outside-manifest-dir lets a manifest you trust name files elsewhere.\n"
    "      --tuning embeds a tuning table measured on GPUs (rows of GPU or arch, key bucket,\n"
    "      config, times): docs/runtime.md \"Choosing a config\".\n"
    "      --languages c also writes the C API NAME.h and its definitions NAME_c.cpp; fortran\n"
    "      also writes module NAME in NAME.f90 (and the C files it binds to). docs/c-fortran.md.\n"
    "      --keep-targets / --keep-ir pack only the images of those targets, as strip does.\n"
    "  tritonpack inspect FILE [--device ARCH] [--json] [--quick] [--max-image-size BYTES]\n"
    "      List the kernels, variants and images in FILE (a .tpk, a generated .hpp, or a\n"
    "      program that embeds a container). --device sm_90 / gfx942 shows which image each\n"
    "      kernel variant would get on that GPU, and why. Every frame is decoded and every\n"
    "      image checked against its checksum (exit 1 if any is damaged); --quick skips that.\n"
    "      Frames that decode to more than --max-image-size bytes (default 1 GiB) are not\n"
    "      decoded: their images are reported as not checked (exit 1).\n"
    "  tritonpack tune FILE --sizes SIZES.json -o TABLE.json [--kernel NAME] [--device N]\n"
    "                 [--budget-ms MS] [--rounds N] [--fresh] [--arch-rows]\n"
    "      On a GPU: time every config of the tuned kernels of FILE (as inspect finds it) on\n"
    "      the problems of SIZES.json (interleaved rounds, L2 flushed, CUDA events, medians)\n"
    "      and write the fastest per GPU and key bucket to TABLE.json, for `pack --tuning`.\n"
    "      The table is written after every problem; a rerun skips the rows it has (--fresh\n"
    "      re-times them). --budget-ms: time per problem (default 200); --rounds N: exactly N\n"
    "      rounds; --arch-rows: also rows for the GPU's arch (used by other GPUs of it).\n"
    "  tritonpack strip FILE --keep-targets T1,T2,... -o OUTDIR\n"
    "                  [--keep-ir targets|generic|none|all] [--name NAME] [--level N]\n"
    "                  [--frames ...] [--store-binaries] [--ptx-as-is] [--image-order ...]\n"
    "                  [--languages c,fortran]\n"
    "      A smaller container for a site's GPUs: FILE's container (a .tpk, a generated .hpp or a\n"
    "      program) with only the images of the targets listed (sm_90a; sm_90 = sm_90 and sm_90a;\n"
    "      gfx942), written to OUTDIR/NAME.tpk and OUTDIR/NAME.hpp; the kept images are the same\n"
    "      bytes. --keep-ir says which IR stays: the kept targets' (targets, the default), only\n"
    "      PTX a newer GPU can JIT (generic: \"sm_90a cubins + generic PTX\"), none, or all. A\n"
    "      target FILE has no image for, or a kernel variant left without any image, is an error.\n"
    "      --level, --frames, --store-binaries and --ptx-as-is as for pack (default: binaries\n"
    "      stay stored uncompressed when FILE stores them so). --languages as for pack.\n"
    "  tritonpack extract FILE -o DIR [--max-image-size BYTES]\n"
    "      Write every image of FILE to DIR/<kernel>/v<variant>/<backend>_<arch>.<kind>\n"
    "      (names reduced to [A-Za-z0-9_.-], never . or ..: nothing is written outside DIR).\n"
    "      An image whose frame decodes to more than --max-image-size bytes (default 1 GiB)\n"
    "      is refused.\n"
    "  tritonpack [COMMAND] --help | tritonpack --version\n"
    "exit codes: 0 success, 1 bad input, 2 usage error\n";

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Minimal option parsing: positional arguments and `--opt value` / `-o value` pairs, each option
// at most once; unknown options are usage errors.
struct args {
  std::vector<std::string> positional;
  std::map<std::string, std::string> options;
  std::set<std::string> flags;

  args(int argc, char** argv, int first, const std::set<std::string>& with_value,
       const std::set<std::string>& bare) {
    for (int i = first; i < argc; ++i) {
      std::string a = argv[i];
      if (a.size() > 1 && a[0] == '-') {
        std::string value;
        bool has_inline = false;
        if (auto eq = a.find('='); eq != std::string::npos && a.rfind("--", 0) == 0) {
          value = a.substr(eq + 1);
          a = a.substr(0, eq);
          has_inline = true;
        }
        if (with_value.count(a)) {
          if (!has_inline) {
            if (i + 1 >= argc) throw usage_error(fmt::format("option {} needs a value", a));
            value = argv[++i];
          }
          if (!options.emplace(a, value).second)
            throw usage_error(fmt::format("option {} given twice", a));
        } else if (bare.count(a) && !has_inline) {
          flags.insert(a);
        } else {
          throw usage_error(fmt::format("unknown option {}", a));
        }
      } else {
        positional.push_back(a);
      }
    }
  }
  std::optional<std::string> get(const std::string& k) const {
    auto it = options.find(k);
    if (it == options.end()) return std::nullopt;
    return it->second;
  }
};

int parse_int(const std::string& s, const char* what, int lo, int hi) {
  std::size_t used = 0;
  int v = 0;
  try {
    v = std::stoi(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != s.size() || s.empty() || v < lo || v > hi)
    throw usage_error(fmt::format("{} must be an integer in {}..{}, got \"{}\"", what, lo, hi, s));
  return v;
}

// --max-image-size: a byte count, at least 1.
std::uint64_t parse_size(const std::string& s, const char* what) {
  std::size_t used = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != s.size() || s.empty() || s[0] == '-' || v == 0)
    throw usage_error(fmt::format("{} must be a byte count of at least 1, got \"{}\"", what, s));
  return v;
}

// What to do when an output cannot be written.
constexpr const char* output_remedy = "choose another output directory with -o";

// --level, --frames, --dict-size, --store-binaries, --ptx-as-is and --image-order, as pack and
// strip take them.
pack::write_options write_options_of(const args& a) {
  pack::write_options wo;
  if (auto l = a.get("--level")) wo.level = parse_int(*l, "--level", 1, 22);
  if (auto f = a.get("--frames")) {
    if (*f == "per-kernel-backend") wo.grouping = pack::frame_grouping::per_kernel_backend;
    else if (*f == "per-kernel") wo.grouping = pack::frame_grouping::per_kernel;
    else if (*f == "per-image") wo.grouping = pack::frame_grouping::per_image;
    else if (*f == "binaries-alone") wo.grouping = pack::frame_grouping::binaries_alone;
    else if (*f == "per-kernel-backend-kind")
      wo.grouping = pack::frame_grouping::per_kernel_backend_kind;
    else if (*f == "per-target") wo.grouping = pack::frame_grouping::per_target;
    else
      throw usage_error(
          fmt::format("--frames must be per-kernel-backend, per-kernel-backend-kind, per-kernel, "
                      "per-target, binaries-alone or per-image, got \"{}\"",
                      *f));
  }
  if (auto d = a.get("--dict-size"))
    wo.dictionary_size = static_cast<std::uint32_t>(
        parse_int(*d, "--dict-size", 0, static_cast<int>(format::max_dictionary_size)));
  wo.store_binaries = a.flags.count("--store-binaries") != 0;
  wo.ptx_lines = a.flags.count("--ptx-as-is") == 0;
  const std::string order = a.get("--image-order").value_or("newest-first");
  if (order != "newest-first" && order != "manifest")
    throw usage_error(
        fmt::format("--image-order must be newest-first or manifest, got \"{}\"", order));
  wo.newest_first = order == "newest-first";
  return wo;
}

// --keep-targets and --keep-ir; nullopt when --keep-targets is not given (--keep-ir alone is a
// usage error: it narrows the IR of targets that were not named).
std::optional<pack::keep_spec> keep_spec_of(const args& a) {
  const auto targets = a.get("--keep-targets");
  const auto ir = a.get("--keep-ir");
  if (!targets) {
    if (ir) throw usage_error("--keep-ir needs --keep-targets (the targets whose IR it narrows)");
    return std::nullopt;
  }
  try {
    return pack::parse_keep_spec(*targets, ir.value_or("targets"));
  } catch (const error& e) {
    throw usage_error(e.message());
  }
}

// Writes NAME.tpk and NAME.hpp into `out_dir`; returns the .tpk's path.
fs::path write_container_and_header(const std::string& out_dir, const std::string& name,
                                    const std::vector<std::uint8_t>& blob,
                                    const std::string& header) {
  pack::create_directories(out_dir, output_remedy);
  const fs::path tpk = fs::path(out_dir) / (name + ".tpk");
  const fs::path hpp = fs::path(out_dir) / (name + ".hpp");
  pack::write_file_atomically(tpk, blob.data(), blob.size(), output_remedy);
  pack::write_file_atomically(hpp, header.data(), header.size(), output_remedy);
  return tpk;
}

// --languages c,fortran.
pack::languages languages_of(const args& a) {
  pack::languages langs;
  if (auto l = a.get("--languages")) {
    try {
      langs = pack::parse_languages(*l);
    } catch (const error& e) {
      throw usage_error(e.message());
    }
  }
  return langs;
}

// The C header and source, the Fortran module, as `langs` asks; returns the files written.
std::vector<fs::path> write_foreign(const std::string& out_dir, const container_info& info,
                                    const pack::header_options& ho, const pack::languages& langs) {
  std::vector<fs::path> written;
  auto write_text = [&](const std::string& file, const std::string& text) {
    written.push_back(fs::path(out_dir) / file);
    pack::write_file_atomically(written.back(), text.data(), text.size(), output_remedy);
  };
  if (langs.c) {
    write_text(info.name + ".h", pack::write_c_header(info, ho));
    write_text(info.name + "_c.cpp", pack::write_c_source(info, ho));
  }
  if (langs.fortran) write_text(info.name + ".f90", pack::write_fortran_module(info, ho));
  return written;
}

int cmd_pack(int argc, char** argv) {
  const args a(argc, argv, 2,
               {"-o", "--output", "--name", "--mode", "--level", "--frames", "--dict-size",
                "--languages", "--tuning", "--keep-targets", "--keep-ir", "--image-order"},
               {"--store-binaries", "--ptx-as-is", "--allow-outside-manifest-dir"});
  if (a.positional.size() != 1) throw usage_error("pack takes one MANIFEST");
  auto out_dir = a.get("-o");
  if (!out_dir) out_dir = a.get("--output");
  if (!out_dir) throw usage_error("pack needs -o OUTDIR");
  pack::load_options lo;
  lo.allow_outside_manifest_dir = a.flags.count("--allow-outside-manifest-dir") != 0;
  if (auto m = a.get("--mode")) {
    if (*m != "binary" && *m != "ir" && *m != "both")
      throw usage_error(fmt::format("--mode must be binary, ir or both, got \"{}\"", *m));
    lo.mode_given = true;
    lo.mode = pack::parse_pack_mode(*m);
  }
  const pack::write_options wo = write_options_of(a);
  const std::optional<pack::keep_spec> keep = keep_spec_of(a);

  if (auto n = a.get("--name")) {
    if (const std::string why = pack::name_problem(*n); !why.empty())
      throw usage_error(fmt::format("--name: the library name {}; pass e.g. --name {}", why,
                                    pack::suggest_name(*n, pack::name_kind::library)));
  }

  const pack::languages langs = languages_of(a);

  pack::loaded_manifest m = pack::load_manifest(a.positional[0], lo);
  for (const std::string& w : m.warnings) std::cerr << "tritonpack: warning: " << w << "\n";
  if (auto n = a.get("--name")) m.info.name = *n;
  if (auto t = a.get("--tuning")) pack::apply_tuning_table(m.info, *t);
  // The name rule for the library and its kernels (write_header applies it too), before any work.
  pack::check_names(m.info.name, m.info);
  for (const std::string& w : pack::check_foreign_names(m.info.name, m.info, langs))
    std::cerr << "tritonpack: warning: " << w << "\n";
  if (keep) pack::keep_targets(m.info, m.image_bytes, *keep, a.positional[0]);
  const std::vector<std::uint8_t> blob = pack::write_container(m.info, m.image_bytes, wo);
  pack::header_options ho;
  ho.namespace_name = m.info.name;
  ho.generator =
      fmt::format("`tritonpack pack` (mode {}, zstd level {}{}{})", pack::pack_mode_name(m.mode),
                  wo.level, wo.store_binaries ? ", binaries stored uncompressed" : "",
                  keep ? "; kept " + pack::describe(*keep) : "");
  const std::string header = pack::write_header(m.info, blob, ho);

  const fs::path tpk = write_container_and_header(*out_dir, m.info.name, blob, header);
  const fs::path hpp = fs::path(*out_dir) / (m.info.name + ".hpp");
  const std::vector<fs::path> foreign = write_foreign(*out_dir, m.info, ho, langs);
  std::uint64_t raw = 0;
  for (const auto& b : m.image_bytes) raw += b.size();
  fmt::print(
      "tritonpack: packed {} kernel{}, {} image{} ({} bytes raw) into {} ({} bytes, {:.2f}x) and "
      "{}\n",
      m.info.kernels.size(), m.info.kernels.size() == 1 ? "" : "s", m.info.images.size(),
      m.info.images.size() == 1 ? "" : "s", raw, tpk.string(), blob.size(),
      blob.empty() ? 0.0 : static_cast<double>(raw) / static_cast<double>(blob.size()),
      hpp.string());
  for (const fs::path& f : foreign) fmt::print("tritonpack: wrote {}\n", f.string());
  return 0;
}

pack::search_result load_containers(const std::string& file) {
  const std::vector<std::uint8_t> bytes =
      pack::read_file(file, "a .tpk, a generated .hpp or a program that embeds a container");
  pack::search_result r = pack::find_containers(bytes);
  if (r.containers.empty()) {
    std::string why =
        r.rejected.empty()
            ? "no tritonpack container magic (\\x89TPK\\r\\n\\x1a\\n) in it"
            : fmt::format("no valid container; candidates: {}", fmt::join(r.rejected, "; "));
    throw error(errc::bad_container, fmt::format("{} ({}): {}", file, r.source, why));
  }
  return r;
}

int cmd_inspect(int argc, char** argv) {
  const args a(argc, argv, 2, {"--device", "--max-image-size"}, {"--json", "--quick"});
  if (a.positional.size() != 1) throw usage_error("inspect takes one FILE");
  if (auto d = a.get("--device")) {
    try {
      (void)parse_device_target(*d);
    } catch (const error& e) {
      throw usage_error(std::string("--device: ") + e.message());
    }
  }
  const pack::search_result r = load_containers(a.positional[0]);
  pack::inspect_options io;
  io.file = a.positional[0];
  io.source = r.source;
  if (auto d = a.get("--device")) io.device = *d;
  io.json = a.flags.count("--json") != 0;
  io.quick = a.flags.count("--quick") != 0;
  if (auto m = a.get("--max-image-size")) io.max_image_size = parse_size(*m, "--max-image-size");
  const pack::inspect_result report = pack::inspect_report(r, io);
  std::cout << report.report;
  if (report.damaged_images == 0 && report.unchecked_images == 0) return 0;
  std::cout.flush();
  if (report.damaged_images == 0) {
    std::cerr << fmt::format(
        "tritonpack: {}: {} image{} not checked: {} frame{} decode{} to more than "
        "--max-image-size ({} bytes); pass a larger --max-image-size to check {}\n",
        a.positional[0], report.unchecked_images, report.unchecked_images == 1 ? " was" : "s were",
        report.unchecked_images == 1 ? "its" : "their", report.unchecked_images == 1 ? "" : "s",
        report.unchecked_images == 1 ? "s" : "", io.max_image_size,
        report.unchecked_images == 1 ? "it" : "them");
    return 1;
  }
  std::cerr << fmt::format(
      "tritonpack: {} is damaged: {} image{} not the bytes that were packed (listed in the "
      "report); rebuild it\n",
      a.positional[0], report.damaged_images, report.damaged_images == 1 ? " is" : "s are");
  return 1;
}

// One path component made from a name in the container: [A-Za-z0-9_.-] only, and never "", "."
// or ".." (a kernel named ".." would otherwise write beside DIR), nor a hidden file.
std::string safe(std::string s) {
  for (char& c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) c = '_';
  // "_" + s rather than s.insert(0, "_"): g++ 12 at -O3 warns (-Wrestrict) about the in-place insert.
  if (s.empty() || s[0] == '.') return "_" + s;
  return s;
}

// `relative` under `root`, refused unless it stays there: the last guard of extract's writes.
fs::path confined(const fs::path& root, const std::string& relative) {
  const fs::path rel = fs::path(relative).lexically_normal();
  if (rel.empty() || rel.is_absolute() || *rel.begin() == "..")
    throw error(errc::bad_container,
                fmt::format("refusing to write {}: it is not inside the output directory {}",
                            relative, root.string()));
  return root / rel;
}

int cmd_extract(int argc, char** argv) {
  const args a(argc, argv, 2, {"-o", "--output", "--max-image-size"}, {});
  if (a.positional.size() != 1) throw usage_error("extract takes one FILE");
  std::uint64_t max_image_size = pack::default_max_image_size;
  if (auto m = a.get("--max-image-size")) max_image_size = parse_size(*m, "--max-image-size");
  auto out_dir = a.get("-o");
  if (!out_dir) out_dir = a.get("--output");
  if (!out_dir) throw usage_error("extract needs -o DIR");
  const pack::search_result r = load_containers(a.positional[0]);
  for (std::size_t ci = 0; ci < r.containers.size(); ++ci) {
    const auto& found = r.containers[ci];
    const container c = container::parse(found.bytes.data(), found.bytes.size());
    fs::path root = *out_dir;
    if (r.containers.size() > 1)
      root /= fmt::format("{}_{}", ci, safe(c.info().name.empty() ? "container" : c.info().name));
    // Name each image after the first variant that uses it, as the front end lays artifacts out.
    std::vector<std::string> names(c.info().images.size());
    std::set<std::string> used;
    for (const kernel_info& k : c.info().kernels)
      for (std::size_t v = 0; v < k.variants.size(); ++v)
        for (std::uint32_t im : k.variants[v].images) {
          if (!names[im].empty()) continue;
          const image_info& i = c.info().images[im];
          names[im] = fmt::format("{}/v{}/{}_{}.{}", safe(k.name), v, backend_name(i.backend),
                                  safe(i.arch), image_kind_name(i.kind));
        }
    for (std::size_t im = 0; im < names.size(); ++im) {
      const image_info& i = c.info().images[im];
      if (names[im].empty())
        names[im] = fmt::format("unreferenced/image{}_{}_{}.{}", im, backend_name(i.backend),
                                safe(i.arch), image_kind_name(i.kind));
      std::string n = names[im];
      for (int dup = 1; !used.insert(n).second; ++dup) n = fmt::format("{}.{}", names[im], dup);
      const frame_view& frame = c.frames()[c.frame_of(static_cast<std::uint32_t>(im))];
      if (frame.codec != format::codec_stored && frame.raw_size > max_image_size)
        throw error(
            errc::bad_container,
            fmt::format("{}: {} is in a frame that decodes to {} bytes, more than "
                        "--max-image-size ({}); pass a larger --max-image-size to extract it",
                        a.positional[0], c.describe_image(static_cast<std::uint32_t>(im)),
                        frame.raw_size, max_image_size));
      const std::vector<std::uint8_t> bytes = c.decode_image(static_cast<std::uint32_t>(im));
      const fs::path path = confined(root, n);
      pack::create_directories(path.parent_path(), output_remedy);
      pack::write_file_atomically(path, bytes.data(), bytes.size(), output_remedy);
      fmt::print("{}  {} bytes\n", path.string(), bytes.size());
    }
  }
  return 0;
}

int cmd_strip(int argc, char** argv) {
  const args a(argc, argv, 2,
               {"-o", "--output", "--name", "--level", "--frames", "--keep-targets", "--keep-ir",
                "--languages", "--image-order"},
               {"--store-binaries", "--ptx-as-is"});
  if (a.positional.size() != 1)
    throw usage_error("strip takes one FILE (a .tpk, a generated .hpp or a program)");
  auto out_dir = a.get("-o");
  if (!out_dir) out_dir = a.get("--output");
  if (!out_dir) throw usage_error("strip needs -o OUTDIR");
  const std::optional<pack::keep_spec> keep = keep_spec_of(a);
  if (!keep)
    throw usage_error("strip needs --keep-targets T1,T2,... (e.g. --keep-targets sm_90a,gfx942)");
  if (auto n = a.get("--name")) {
    if (const std::string why = pack::name_problem(*n); !why.empty())
      throw usage_error(fmt::format("--name: the library name {}; pass e.g. --name {}", why,
                                    pack::suggest_name(*n, pack::name_kind::library)));
  }
  pack::write_options wo = write_options_of(a);
  const pack::languages langs = languages_of(a);

  const pack::search_result r = load_containers(a.positional[0]);
  if (r.containers.size() != 1)
    throw error(
        errc::bad_argument,
        fmt::format("{} holds {} containers; strip takes one: pass its .tpk or generated header",
                    a.positional[0], r.containers.size()));
  const std::vector<std::uint8_t>& in = r.containers[0].bytes;
  const container c = container::parse(in.data(), in.size());
  if (!a.flags.count("--store-binaries")) wo.store_binaries = pack::binaries_stored(c);
  const pack::stripped out =
      pack::strip_container(c, *keep, a.positional[0], wo, a.get("--name").value_or(""));
  const container_info& info = out.info;
  const std::vector<std::uint8_t>& blob = out.bytes;
  const pack::keep_summary& kept = out.summary;
  pack::header_options ho;
  ho.namespace_name = info.name;
  ho.generator = fmt::format("`tritonpack strip` (kept {}; zstd level {}{})", pack::describe(*keep),
                             wo.level, wo.store_binaries ? ", binaries stored uncompressed" : "");
  const std::string header = pack::write_header(info, blob, ho);
  const fs::path tpk = write_container_and_header(*out_dir, info.name, blob, header);
  const std::vector<fs::path> foreign = write_foreign(*out_dir, info, ho, langs);
  fmt::print("tritonpack: kept {} of {} images ({}) in {} ({} bytes, was {}) and {}\n", kept.kept,
             kept.kept + kept.removed, pack::describe(*keep), tpk.string(), blob.size(), in.size(),
             (fs::path(*out_dir) / (info.name + ".hpp")).string());
  for (const fs::path& f : foreign) fmt::print("tritonpack: wrote {}\n", f.string());
  return 0;
}

int cmd_tune(int argc, char** argv) {
  const args a(argc, argv, 2,
               {"-o", "--output", "--sizes", "--kernel", "--device", "--budget-ms", "--rounds"},
               {"--fresh", "--arch-rows"});
  if (a.positional.size() != 1)
    throw usage_error("tune takes one FILE (a .tpk, a generated .hpp or a program)");
  auto table = a.get("-o");
  if (!table) table = a.get("--output");
  if (!table) throw usage_error("tune needs -o TABLE.json (created, or resumed when it exists)");
  if (!fs::path(*table).has_filename() || fs::is_directory(*table))
    throw usage_error(fmt::format(
        "-o \"{}\" names no file (the table would be written into a folder); give the table's "
        "file, e.g. -o tuning.json",
        *table));
  const auto sizes = a.get("--sizes");
  if (!sizes)
    throw usage_error(
        "tune needs --sizes SIZES.json (the problems to time; generator/cli/README.md)");
  pack::tune_options opt;
  opt.table = *table;
  opt.fresh = a.flags.count("--fresh") != 0;
  opt.arch_rows = a.flags.count("--arch-rows") != 0;
  if (auto d = a.get("--device")) opt.device = parse_int(*d, "--device", 0, 1023);
  if (auto b = a.get("--budget-ms")) opt.budget_ms = parse_int(*b, "--budget-ms", 1, 3600 * 1000);
  if (auto r = a.get("--rounds"))
    opt.min_rounds = opt.max_rounds = parse_int(*r, "--rounds", 1, 10000);

  const pack::search_result r = load_containers(a.positional[0]);
  if (r.containers.size() != 1)
    throw error(
        errc::bad_argument,
        fmt::format("{} holds {} containers; tune takes one: pass its .tpk or generated header",
                    a.positional[0], r.containers.size()));
  const std::vector<std::uint8_t>& bytes = r.containers[0].bytes;
  const container c = container::parse(bytes.data(), bytes.size());
  // Everything that can be checked without a GPU, first: the sizes and the table to resume.
  const std::vector<pack::tune_request> requests =
      pack::load_tune_sizes(*sizes, c.info(), a.get("--kernel").value_or(""));
  pack::check_resumable_table(c.info(), opt.table);
  const pack::tune_summary s =
      pack::run_tune(bytes, requests, opt, std::cerr, isatty(STDERR_FILENO) != 0);
  return s.failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 2) throw usage_error("no command");
    const std::string cmd = argv[1];
    // Asking for help, also after a command (`tritonpack pack --help`), is not a usage error:
    // the text goes to stdout and the exit status is 0.
    bool help = cmd == "help";
    for (int i = 1; i < argc; ++i)
      help = help || std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h";
    if (help) {
      std::cout << usage_text;
      return 0;
    }
    if (cmd == "--version") {
      std::cout << fmt::format("tritonpack {} (container format v{})\n", TRITONPACK_VERSION_STRING,
                               tritonpack::format::format_version);
      return 0;
    }
    if (cmd == "pack") return cmd_pack(argc, argv);
    if (cmd == "inspect") return cmd_inspect(argc, argv);
    if (cmd == "extract") return cmd_extract(argc, argv);
    if (cmd == "strip") return cmd_strip(argc, argv);
    if (cmd == "tune") return cmd_tune(argc, argv);
    throw usage_error(fmt::format("unknown command \"{}\"", cmd));
  } catch (const usage_error& e) {
    std::cerr << "tritonpack: " << e.what() << "\n" << usage_text;
    return 2;
  } catch (const tritonpack::error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    // Filesystem errors, allocation failures on absurd input: still bad input, not a crash.
    std::cerr << "tritonpack: " << e.what() << "\n";
    return 1;
  }
}
