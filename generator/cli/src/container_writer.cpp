// Container writer: lays out format v4 exactly as container/reader.hpp expects it (one valid byte
// layout per content), then parses its own output as a self-check.
#include "tritonpack/pack/container_writer.hpp"

#include <zdict.h>
#include <zstd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "tritonpack/container/byte_io.hpp"
#include "tritonpack/container/checksum.hpp"
#include "tritonpack/container/format.hpp"
#include "tritonpack/container/ptx_lines.hpp"
#include "tritonpack/container/reader.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/core/identify.hpp"
#include "tritonpack/select/arch.hpp"

namespace tritonpack::pack {
namespace {

namespace F = tritonpack::format;
using byte_io::store_u32;
using byte_io::store_u64;

[[noreturn]] void bad(const std::string& msg) {
  throw error(errc::bad_argument, "write_container: " + msg);
}

// Interns strings: identical strings (arch names, "3.6.0", type names) are stored once.
class string_table {
 public:
  std::pair<std::uint32_t, std::uint32_t> add(const std::string& s) {
    if (s.size() > 0xFFFFFFFFu) bad("string longer than 4 GiB");
    auto it = index_.find(s);
    if (it != index_.end()) return {it->second, static_cast<std::uint32_t>(s.size())};
    if (bytes_.size() + s.size() > 0xFFFFFFFFu) bad("string table larger than 4 GiB");
    const auto off = static_cast<std::uint32_t>(bytes_.size());
    bytes_.insert(bytes_.end(), s.begin(), s.end());
    index_.emplace(s, off);
    return {off, static_cast<std::uint32_t>(s.size())};
  }
  const std::vector<std::uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<std::uint8_t> bytes_;
  std::unordered_map<std::string, std::uint32_t> index_;
};

// A growing table of fixed-size records.
struct table {
  std::uint32_t record_size;
  std::vector<std::uint8_t> bytes;
  std::uint8_t* add() {
    bytes.resize(bytes.size() + record_size, 0);
    return bytes.data() + bytes.size() - record_size;
  }
  std::uint32_t count() const { return static_cast<std::uint32_t>(bytes.size() / record_size); }
};

std::uint32_t u32(std::size_t v, const char* what) {
  if (v > 0xFFFFFFFFu) bad(fmt::format("{} ({}) does not fit in 32 bits", what, v));
  return static_cast<std::uint32_t>(v);
}

struct cctx_deleter {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
struct cdict_deleter {
  void operator()(ZSTD_CDict* c) const { ZSTD_freeCDict(c); }
};

struct frame_out {
  std::vector<std::uint8_t> stored;
  std::uint64_t raw_size = 0;
  std::uint32_t codec = F::codec_stored;
  bool dictionary = false;
};

// Compresses the images of one frame into one zstd frame. Each image but the last ends with a
// flush, which closes the zstd block there: the reader's prefix decode of image k then decodes
// the blocks up to the end of image k and no further (a block is zstd's unit of decoding, up to
// 128 KiB). The window carries over the flush, so later images still match earlier ones.
frame_out compress_frame(const std::vector<std::uint8_t>& raw,
                         const std::vector<std::size_t>& image_ends, int level,
                         const ZSTD_CDict* cdict) {
  frame_out f;
  f.raw_size = raw.size();
  if (raw.empty()) return f;  // nothing to gain: a zstd frame of nothing is still ~9 bytes
  std::unique_ptr<ZSTD_CCtx, cctx_deleter> cctx(ZSTD_createCCtx());
  if (!cctx) throw error(errc::out_of_memory, "write_container: ZSTD_createCCtx failed");
  auto check = [](std::size_t r, const char* what) {
    if (ZSTD_isError(r)) bad(fmt::format("zstd {}: {}", what, ZSTD_getErrorName(r)));
  };
  check(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, level), "level");
  check(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 1),
        "checksum flag");  // verified on a full decode
  check(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_contentSizeFlag, 1),
        "content size flag");  // checked against raw_size
  check(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_dictIDFlag, 1), "dictionary id flag");
  // The reader's decoder keeps zstd's default window limit (2^27). No level exceeds it without
  // long-distance mode, which stays off, so every frame written here decodes.
  check(ZSTD_CCtx_setPledgedSrcSize(cctx.get(), raw.size()), "pledged size");
  if (cdict) check(ZSTD_CCtx_refCDict(cctx.get(), cdict), "dictionary");
  std::vector<std::uint8_t> out(ZSTD_compressBound(raw.size()) + 64 * (image_ends.size() + 1));
  ZSTD_outBuffer ob{out.data(), out.size(), 0};
  std::size_t begin = 0;
  for (std::size_t k = 0; k < image_ends.size(); ++k) {
    const bool last = k + 1 == image_ends.size();
    ZSTD_inBuffer in{raw.data() + begin, image_ends[k] - begin, 0};
    const ZSTD_EndDirective mode = last ? ZSTD_e_end : ZSTD_e_flush;
    std::size_t remaining;
    do {
      remaining = ZSTD_compressStream2(cctx.get(), &ob, &in, mode);
      check(remaining, "compression");
      if (remaining != 0 && ob.pos == ob.size) bad("zstd output buffer too small");
    } while (remaining != 0 || in.pos < in.size);
    begin = image_ends[k];
  }
  if (ob.pos >= raw.size()) {
    // Incompressible (tiny images): store as is.
    f.stored = raw;
    return f;
  }
  out.resize(ob.pos);
  f.stored = std::move(out);
  f.codec = F::codec_zstd;
  f.dictionary = cdict != nullptr;
  return f;
}

// Where a cubin holds the PTX text ptxas wrote for line info (.nv_debug_ptx_txt: each PTX line
// without indentation and comments, NUL-terminated): {offset, size} in the cubin, or {0, 0} when
// it holds none (no line info, or not a 64-bit little-endian ELF this reads).
std::pair<std::uint32_t, std::uint32_t> ptx_text_of(const std::vector<std::uint8_t>& elf) {
  const std::size_t n = elf.size();
  const std::uint8_t* d = elf.data();
  if (n < 64 || d[0] != 0x7F || d[1] != 'E' || d[2] != 'L' || d[3] != 'F' || d[4] != 2 || d[5] != 1)
    return {0, 0};
  const std::uint64_t shoff = byte_io::load_u64(d + 0x28);
  const std::uint16_t shentsize = byte_io::load_u16(d + 0x3A), shnum = byte_io::load_u16(d + 0x3C),
                      shstrndx = byte_io::load_u16(d + 0x3E);
  if (shentsize < 64 || shstrndx >= shnum ||
      !byte_io::range_within(shoff, std::uint64_t{shentsize} * shnum, n))
    return {0, 0};
  auto section = [&](std::uint32_t i) { return d + shoff + std::uint64_t{shentsize} * i; };
  const std::uint8_t* names = section(shstrndx);
  const std::uint64_t names_off = byte_io::load_u64(names + 0x18),
                      names_size = byte_io::load_u64(names + 0x20);
  if (!byte_io::range_within(names_off, names_size, n)) return {0, 0};
  static const char wanted[] = ".nv_debug_ptx_txt";
  for (std::uint32_t i = 0; i < shnum; ++i) {
    const std::uint8_t* sh = section(i);
    const std::uint32_t name = byte_io::load_u32(sh), type = byte_io::load_u32(sh + 4);
    const std::uint64_t off = byte_io::load_u64(sh + 0x18), size = byte_io::load_u64(sh + 0x20);
    if (type != 1 /* PROGBITS */ || !byte_io::range_within(name, sizeof wanted, names_size) ||
        std::memcmp(d + names_off + name, wanted, sizeof wanted) != 0)
      continue;
    if (!byte_io::range_within(off, size, n) || size == 0 || off + size > 0xFFFFFFFFu)
      return {0, 0};
    return {static_cast<std::uint32_t>(off), static_cast<std::uint32_t>(size)};
  }
  return {0, 0};
}

// `ptx` held as coding_ptx_lines against the text at `text` in `cubin` (ptx_lines.hpp): line k
// of the PTX, when it contains entry k of the text, keeps what surrounds the entry with a NUL in
// its place; other lines stay whole. Empty when that does not pay or does not give `ptx` back.
std::vector<std::uint8_t> ptx_lines_of(const std::vector<std::uint8_t>& ptx,
                                       const std::vector<std::uint8_t>& cubin,
                                       std::pair<std::uint32_t, std::uint32_t> text) {
  if (ptx.empty() || std::memchr(ptx.data(), ptx_lines::placeholder, ptx.size())) return {};
  std::vector<std::uint8_t> out(ptx_lines::header_size);
  store_u32(out.data(), text.first);
  store_u32(out.data() + 4, text.second);
  const std::string_view all(reinterpret_cast<const char*>(ptx.data()), ptx.size());
  std::string_view entries(reinterpret_cast<const char*>(cubin.data()) + text.first, text.second);
  std::size_t pos = 0;
  for (;;) {
    const std::size_t nl = all.find('\n', pos);
    const std::string_view line = all.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
    const std::size_t nul = entries.find('\0');
    const std::string_view entry = entries.substr(0, nul);
    entries.remove_prefix(nul == std::string_view::npos ? entries.size() : nul + 1);
    const std::size_t at = entry.empty() ? std::string_view::npos : line.find(entry);
    if (at == std::string_view::npos) {
      out.insert(out.end(), line.begin(), line.end());
    } else {
      out.insert(out.end(), line.begin(), line.begin() + static_cast<std::ptrdiff_t>(at));
      out.push_back(ptx_lines::placeholder);
      out.insert(out.end(), line.begin() + static_cast<std::ptrdiff_t>(at + entry.size()),
                 line.end());
    }
    if (nl == std::string_view::npos) break;
    out.push_back('\n');
    pos = nl + 1;
  }
  if (out.size() >= ptx.size() || out.size() > 0xFFFFFFFFu) return {};
  std::vector<std::uint8_t> back;
  char why[256];
  if (ptx_lines::restore(out.data(), out.size(), cubin.data(), cubin.size(), ptx.size(), back,
                         why) ||
      back != ptx)
    return {};
  return out;
}

std::vector<std::uint8_t> train_dictionary(const std::vector<std::vector<std::uint8_t>>& images,
                                           std::uint32_t size) {
  std::vector<std::uint8_t> samples;
  std::vector<std::size_t> sizes;
  for (const auto& im : images) {
    if (im.empty()) continue;
    samples.insert(samples.end(), im.begin(), im.end());
    sizes.push_back(im.size());
  }
  // zstd needs a handful of samples to learn anything; with fewer, a dictionary only costs bytes.
  if (sizes.size() < 8) return {};
  std::vector<std::uint8_t> dict(size);
  const std::size_t n = ZDICT_trainFromBuffer(dict.data(), dict.size(), samples.data(),
                                              sizes.data(), static_cast<unsigned>(sizes.size()));
  if (ZDICT_isError(n)) return {};  // training can fail on too little data; pack without one
  dict.resize(n);
  return dict;
}

// For each image, the first kernel whose variants refer to it, or with `per_variant` the first
// variant (numbered across kernels in order); no_referrer for an image no variant refers to.
constexpr std::uint64_t no_referrer = ~std::uint64_t{0};
std::vector<std::uint64_t> first_referrer(const container_info& info, bool per_variant) {
  std::vector<std::uint64_t> owner(info.images.size(), no_referrer);
  std::uint64_t variant = 0;
  for (std::size_t k = 0; k < info.kernels.size(); ++k)
    for (const variant_info& v : info.kernels[k].variants) {
      for (std::uint32_t im : v.images)
        if (im < owner.size() && owner[im] == no_referrer) owner[im] = per_variant ? variant : k;
      ++variant;
    }
  return owner;
}

// The indices 0..n-1 sorted by `key(i)`, ties kept in index order: an image order (old indices
// in new order).
template <class Key>
std::vector<std::uint32_t> stable_order(std::size_t n, Key&& key) {
  std::vector<std::uint32_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<std::uint32_t>(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return key(a) < key(b); });
  return order;
}

// frame_grouping::per_target's image order: each variant's images (for the variant that first
// refers to them) by backend, then by target in the order the variant names them, each binary
// before the IR of its target. An sm_90a cubin and the sm_90a PTX built from the same
// source are thus neighbours, and share a frame in which the PTX is held as lines of the cubin's
// text. Images no kernel refers to keep their order, at the end. Returns old indices in new order.
std::vector<std::uint32_t> per_target_order(const container_info& info) {
  const std::size_t n = info.images.size();
  const std::vector<std::uint64_t> owner = first_referrer(info, /*per_variant=*/true);
  std::vector<std::uint64_t> target(n, 0);
  std::uint64_t variant = 0;
  for (const kernel_info& k : info.kernels)
    for (const variant_info& v : k.variants) {
      std::map<std::string, std::uint64_t> rank;  // this variant's targets, by first appearance
      for (std::uint32_t im : v.images)
        if (im < n && owner[im] == variant)
          target[im] = rank.emplace(info.images[im].arch, rank.size()).first->second;
      ++variant;
    }
  return stable_order(n, [&](std::uint32_t i) {
    return std::make_tuple(owner[i], static_cast<int>(info.images[i].backend), target[i],
                           is_binary(info.images[i].kind) ? 0 : 1);
  });
}

// How new an image's target is, for load_order (larger: newer). NVIDIA: the compute capability,
// an arch-specific (`a`) or family (`f`) build just above the plain one; AMD: the gfx number read
// as major (decimal), minor and stepping (a hex digit each), so gfx90a (9.0.10) < gfx942 < gfx950 <
// gfx1100. A name neither reads: 0, the oldest.
std::uint64_t target_newness(const image_info& im) {
  if (im.backend == backend_kind::cuda) {
    const auto a = parse_cuda_arch(im.arch);
    return a ? std::uint64_t{a->number()} * 4 + (a->suffix == 'a' ? 2 : a->suffix == 'f' ? 1 : 0)
             : 0;
  }
  const auto a = parse_amd_arch(im.arch);
  if (!a) return 0;
  const std::string p = a->base_processor();
  if (p.size() < 6 || p.compare(0, 3, "gfx") != 0) return 0;
  auto hex = [](char c) -> int {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
  };
  const int minor = hex(p[p.size() - 2]), stepping = hex(p[p.size() - 1]);
  std::uint64_t major = 0;
  for (std::size_t i = 3; i + 2 < p.size(); ++i) {
    if (p[i] < '0' || p[i] > '9') return 0;
    major = major * 10 + static_cast<std::uint64_t>(p[i] - '0');
  }
  if (minor < 0 || stepping < 0) return 0;
  return (major << 8) + static_cast<std::uint64_t>(minor << 4) +
         static_cast<std::uint64_t>(stepping);
}

// write_options::newest_first's image order (every grouping but per_target): a kernel's images
// (for the kernel that first refers to them) by backend, binaries before IR (a PTX is held as
// lines of a cubin before it), then by variant, and within a variant the newest target first.
// Why: a load decodes its frame only up to the image it needs, so the image first in its frame
// costs least — the first variant (the one a call takes when its pointers are aligned) on the
// newest GPU the kernels were built for, which is where a container built today mostly runs;
// older targets decode what lies before them, as the newest did when the images kept the
// manifest's order (oldest first). The frames' stored size moves by under 1 % with the order
// (bench/size). Images no kernel refers to stay at the end, in their order. Returns old indices
// in new order.
std::vector<std::uint32_t> load_order(const container_info& info) {
  const std::vector<std::uint64_t> kernel = first_referrer(info, /*per_variant=*/false);
  const std::vector<std::uint64_t> variant = first_referrer(info, /*per_variant=*/true);
  return stable_order(info.images.size(), [&](std::uint32_t i) {
    const image_info& im = info.images[i];
    return std::make_tuple(kernel[i], static_cast<int>(im.backend), is_binary(im.kind) ? 0 : 1,
                           variant[i], ~target_newness(im));
  });
}

// The container of `info`, its images laid into frames in index order (write_container).
std::vector<std::uint8_t> write_in_order(const container_info& info,
                                         const std::vector<std::vector<std::uint8_t>>& image_bytes,
                                         const write_options& options) {
  if (options.level < 1 || options.level > ZSTD_maxCLevel())
    bad(fmt::format("zstd level {} is outside 1..{}", options.level, ZSTD_maxCLevel()));
  if (info.format_version != F::format_version)
    bad(fmt::format("this writer writes format version {}, the model asks for {}",
                    F::format_version, info.format_version));

  string_table strings;
  auto put_str = [&](std::uint8_t* at, const std::string& s) {
    const auto [off, len] = strings.add(s);
    store_u32(at, off);
    store_u32(at + 4, len);
  };
  table kernels{F::record_size[F::sec_kernels], {}}, args{F::record_size[F::sec_args], {}},
      variants{F::record_size[F::sec_variants], {}}, specs{F::record_size[F::sec_specs], {}},
      constexprs{F::record_size[F::sec_constexprs], {}},
      image_refs{F::record_size[F::sec_image_refs], {}}, images{F::record_size[F::sec_images], {}},
      tensordescs{F::record_size[F::sec_tensordescs], {}}, dims{F::record_size[F::sec_dims], {}},
      frames{F::record_size[F::sec_frames], {}}, tunings{F::record_size[F::sec_tunings], {}},
      tune_args{F::record_size[F::sec_tune_args], {}},
      tune_entries{F::record_size[F::sec_tune_entries], {}},
      tune_values{F::record_size[F::sec_tune_values], {}},
      image_tools{F::record_size[F::sec_image_tools], {}};

  std::uint8_t header[F::header::size] = {};
  put_str(header + F::header::name, info.name);
  put_str(header + F::header::triton_version, info.triton_version);
  put_str(header + F::header::triton_commit, info.triton_commit);

  for (const kernel_info& k : info.kernels) {
    std::uint8_t* r = kernels.add();
    put_str(r + F::kernel_rec::name, k.name);
    put_str(r + F::kernel_rec::source, k.source);
    for (int a = 0; a < 3; ++a) put_str(r + F::kernel_rec::grid + a * F::str_size, k.grid[a]);
    store_u32(r + F::kernel_rec::first_arg, args.count());
    store_u32(r + F::kernel_rec::arg_count, u32(k.args.size(), "arg count"));
    for (const kernel_arg& a : k.args) {
      std::uint8_t* ar = args.add();
      put_str(ar + F::arg_rec::name, a.name);
      put_str(ar + F::arg_rec::type, a.type);
      ar[F::arg_rec::flags] = a.is_const ? F::arg_rec::flag_const : 0;
    }
    store_u32(r + F::kernel_rec::first_variant, variants.count());
    store_u32(r + F::kernel_rec::variant_count, u32(k.variants.size(), "variant count"));
    for (const variant_info& v : k.variants) {
      std::uint8_t* vr = variants.add();
      store_u32(vr + F::variant_rec::first_spec, specs.count());
      store_u32(vr + F::variant_rec::spec_count, u32(v.specs.size(), "spec count"));
      store_u32(vr + F::variant_rec::num_warps, v.config.num_warps);
      store_u32(vr + F::variant_rec::num_stages, v.config.num_stages);
      store_u32(vr + F::variant_rec::num_ctas, v.config.num_ctas);
      store_u32(vr + F::variant_rec::first_constexpr, constexprs.count());
      store_u32(vr + F::variant_rec::constexpr_count,
                u32(v.config.constexprs.size(), "constexpr count"));
      store_u32(vr + F::variant_rec::first_image_ref, image_refs.count());
      store_u32(vr + F::variant_rec::image_ref_count, u32(v.images.size(), "image count"));
      for (const arg_spec& s : v.specs) {
        std::uint8_t* sr = specs.add();
        sr[F::spec_rec::kind] = static_cast<std::uint8_t>(s.kind);
        put_str(sr + F::spec_rec::value, s.value);
      }
      for (const auto& [name, value] : v.config.constexprs) {
        std::uint8_t* cr = constexprs.add();
        put_str(cr + F::constexpr_rec::name, name);
        put_str(cr + F::constexpr_rec::value, value);
      }
      for (std::uint32_t im : v.images) store_u32(image_refs.add(), im);
    }
    // v2: the kernel's tuning record, its key and protected args, and its table rows.
    const kernel_tuning& t = k.tuning;
    std::uint8_t* tr = tunings.add();
    store_u32(tr + F::tuning_rec::first_arg, tune_args.count());
    store_u32(tr + F::tuning_rec::arg_count, u32(t.args.size(), "tuning arg count"));
    store_u32(tr + F::tuning_rec::first_entry, tune_entries.count());
    store_u32(tr + F::tuning_rec::entry_count, u32(t.table.size(), "tuning table size"));
    store_u32(tr + F::tuning_rec::config_count, t.config_count);
    store_u32(tr + F::tuning_rec::flags, t.on_first_use ? F::tuning_rec::flag_on_first_use : 0);
    for (const tune_arg& a : t.args) {
      std::uint8_t* ar = tune_args.add();
      store_u32(ar + F::tune_arg_rec::arg, a.arg);
      ar[F::tune_arg_rec::role] = static_cast<std::uint8_t>(a.role);
      ar[F::tune_arg_rec::bucket] =
          a.role == tune_role::key ? static_cast<std::uint8_t>(a.bucket) : 0;
      put_str(ar + F::tune_arg_rec::bytes, a.bytes);
    }
    for (const tune_entry& e : t.table) {
      if (e.bucket.size() != t.key_count() || e.times_ns.size() != t.config_count)
        bad(
            fmt::format("{}: a tuning table row for {} has {} key values and {} times, the kernel "
                        "has {} keys and {} configs",
                        identify(k), e.device, e.bucket.size(), e.times_ns.size(), t.key_count(),
                        t.config_count));
      std::uint8_t* er = tune_entries.add();
      put_str(er + F::tune_entry_rec::device, e.device);
      store_u32(er + F::tune_entry_rec::config, e.config);
      store_u32(er + F::tune_entry_rec::first_value, tune_values.count());
      for (std::int64_t b : e.bucket) store_u64(tune_values.add(), static_cast<std::uint64_t>(b));
      for (std::uint64_t ns : e.times_ns) store_u64(tune_values.add(), ns);
    }
  }

  // Frames: consecutive images with the same grouping key share one.
  const std::size_t nimages = info.images.size();
  const std::vector<std::uint64_t> owner = first_referrer(info, /*per_variant=*/false);
  // per_target: the first variant that refers to each image, and an id per target.
  const std::vector<std::uint64_t> owner_variant = first_referrer(info, /*per_variant=*/true);
  std::map<std::string, std::uint64_t> arch_id;
  for (const image_info& im : info.images) arch_id.emplace(im.arch, arch_id.size());
  auto stored_alone = [&](std::size_t i) {
    return options.store_binaries && is_binary(info.images[i].kind);
  };
  auto key = [&](std::size_t i) -> std::uint64_t {
    if (stored_alone(i)) return (std::uint64_t{1} << 62) + i;  // a frame of its own
    switch (options.grouping) {
      case frame_grouping::per_image: return i;
      case frame_grouping::per_kernel: return owner[i];
      case frame_grouping::per_kernel_backend:
        return owner[i] * 4 + static_cast<std::uint64_t>(info.images[i].backend);
      case frame_grouping::per_target:  // images in per_target_order: consecutive
        return ((owner_variant[i] * 4 + static_cast<std::uint64_t>(info.images[i].backend)) << 20) +
               (arch_id.at(info.images[i].arch) & 0xFFFFF);
      case frame_grouping::per_kernel_backend_kind:
        return owner[i] * 8 + static_cast<std::uint64_t>(info.images[i].backend) * 2 +
               (is_binary(info.images[i].kind) ? 1 : 0);
      case frame_grouping::binaries_alone:
        // Binaries get keys of their own (above every shared key), IR shares per kernel × backend.
        return is_binary(info.images[i].kind)
                   ? (std::uint64_t{1} << 62) + i
                   : owner[i] * 4 + static_cast<std::uint64_t>(info.images[i].backend);
    }
    return i;
  };

  std::vector<std::uint8_t> dictionary;
  std::unique_ptr<ZSTD_CDict, cdict_deleter> cdict;
  if (options.dictionary_size > 0) {
    dictionary = train_dictionary(image_bytes, options.dictionary_size);
    if (!dictionary.empty()) {
      cdict.reset(ZSTD_createCDict(dictionary.data(), dictionary.size(), options.level));
      if (!cdict) bad("zstd could not digest the trained dictionary");
    }
  }

  std::vector<std::uint8_t> data;
  std::size_t first = 0;
  std::uint32_t frame_index = 0;
  bool dictionary_used = false;
  while (first < nimages) {
    std::size_t last = first + 1;
    while (last < nimages && key(last) == key(first)) ++last;
    std::vector<std::uint8_t> raw;
    std::vector<std::size_t> image_ends;
    std::uint64_t offset = 0;
    for (std::size_t i = first; i < last; ++i) {
      const image_info& im = info.images[i];
      const auto& bytes = image_bytes[i];
      // A PTX after a cubin with line info in this frame is held as the lines that cubin's text
      // lacks. Of the frame's cubins (several variants, several archs) the one whose text leaves
      // the fewest bytes is taken: the PTX's own cubin, or where a stripped container kept the
      // PTX alone (generic sm_80 PTX beside sm_90a cubins), the closest other one.
      std::vector<std::uint8_t> lines;
      std::size_t base = i;
      if (options.ptx_lines && im.kind == image_kind::ptx && !stored_alone(first))
        for (std::size_t b = first; b < i; ++b)
          if (info.images[b].kind == image_kind::cubin) {
            const auto text = ptx_text_of(image_bytes[b]);
            if (text.second == 0) continue;
            std::vector<std::uint8_t> candidate = ptx_lines_of(bytes, image_bytes[b], text);
            if (!candidate.empty() && (lines.empty() || candidate.size() < lines.size()))
              lines = std::move(candidate), base = b;
          }
      const auto& held = lines.empty() ? bytes : lines;
      std::uint8_t* r = images.add();
      if (!lines.empty()) {
        r[F::image_rec::coding] = F::coding_ptx_lines;
        store_u32(r + F::image_rec::base_image, static_cast<std::uint32_t>(base));
        store_u32(r + F::image_rec::frame_size, static_cast<std::uint32_t>(lines.size()));
      }
      r[F::image_rec::backend] = static_cast<std::uint8_t>(im.backend);
      r[F::image_rec::kind] = static_cast<std::uint8_t>(im.kind);
      r[F::image_rec::launch_flags] = static_cast<std::uint8_t>(
          (im.launch.launch_cooperative_grid ? F::image_rec::flag_cooperative : 0) |
          (im.launch.launch_pdl ? F::image_rec::flag_pdl : 0));
      store_u32(r + F::image_rec::ptx_version, im.ptx_version);
      store_u64(r + F::image_rec::raw_size, bytes.size());
      store_u64(r + F::image_rec::checksum, xxh64(bytes.data(), bytes.size()));
      store_u32(r + F::image_rec::frame, frame_index);
      store_u64(r + F::image_rec::frame_offset, offset);
      const launch_info& L = im.launch;
      store_u32(r + F::image_rec::num_warps, L.num_warps);
      store_u32(r + F::image_rec::warp_size, L.warp_size);
      store_u32(r + F::image_rec::shared, L.shared);
      store_u32(r + F::image_rec::num_ctas, L.num_ctas);
      store_u32(r + F::image_rec::tmem_size, L.tmem_size);
      store_u32(r + F::image_rec::global_scratch_align, L.global_scratch_align);
      store_u64(r + F::image_rec::global_scratch_size, L.global_scratch_size);
      store_u64(r + F::image_rec::profile_scratch_size, L.profile_scratch_size);
      store_u32(r + F::image_rec::profile_scratch_align, L.profile_scratch_align);
      store_u32(r + F::image_rec::first_tensordesc, tensordescs.count());
      store_u32(r + F::image_rec::tensordesc_count, u32(L.tensordesc.size(), "tensordesc count"));
      put_str(r + F::image_rec::arch, im.arch);
      put_str(r + F::image_rec::entry, L.entry);
      put_str(r + F::image_rec::triton_version, L.triton_version);
      put_str(image_tools.add() + F::image_tool_rec::version, im.tool_version);
      for (const tensordesc_meta& t : L.tensordesc) {
        std::uint8_t* tr = tensordescs.add();
        store_u32(tr + F::tensordesc_rec::swizzle, t.swizzle);
        store_u32(tr + F::tensordesc_rec::elem_size, t.elem_size);
        store_u32(tr + F::tensordesc_rec::elem_type, t.elem_type);
        tr[F::tensordesc_rec::fp4_padded] = t.fp4_padded ? 1 : 0;
        store_u32(tr + F::tensordesc_rec::first_dim, dims.count());
        store_u32(tr + F::tensordesc_rec::dim_count, u32(t.block_size.size(), "tensordesc rank"));
        for (std::uint32_t d : t.block_size) store_u32(dims.add(), d);
      }
      raw.insert(raw.end(), held.begin(), held.end());
      offset += held.size();
      image_ends.push_back(raw.size());
    }
    frame_out f;
    if (stored_alone(first)) {
      f.raw_size = raw.size();
      f.stored = std::move(raw);
    } else {
      f = compress_frame(raw, image_ends, options.level, cdict.get());
    }
    dictionary_used |= f.dictionary;
    std::uint8_t* fr = frames.add();
    store_u64(fr + F::frame_rec::offset, data.size());
    store_u64(fr + F::frame_rec::stored_size, f.stored.size());
    store_u64(fr + F::frame_rec::raw_size, f.raw_size);
    store_u32(fr + F::frame_rec::codec, f.codec);
    store_u32(fr + F::frame_rec::flags, f.dictionary ? F::frame_rec::flag_dictionary : 0);
    data.insert(data.end(), f.stored.begin(), f.stored.end());
    ++frame_index;
    first = last;
  }
  if (!dictionary_used) dictionary.clear();  // every frame fell back to stored: drop it

  // Lay the sections out after the header.
  const std::vector<std::uint8_t>* sections[F::section_count] = {&strings.bytes(),
                                                                 &kernels.bytes,
                                                                 &args.bytes,
                                                                 &variants.bytes,
                                                                 &specs.bytes,
                                                                 &constexprs.bytes,
                                                                 &image_refs.bytes,
                                                                 &images.bytes,
                                                                 &tensordescs.bytes,
                                                                 &dims.bytes,
                                                                 &tunings.bytes,
                                                                 &tune_args.bytes,
                                                                 &tune_entries.bytes,
                                                                 &tune_values.bytes,
                                                                 &image_tools.bytes,
                                                                 &frames.bytes,
                                                                 &dictionary,
                                                                 &data};
  std::vector<std::uint8_t> out(header, header + F::header::size);
  for (std::uint32_t s = 0; s < F::section_count; ++s) {
    while (out.size() % F::section_align != 0) out.push_back(0);
    std::uint8_t* e = out.data() + F::header::sections + s * F::header::section_entry_size;
    store_u64(e, out.size());
    store_u64(e + 8, sections[s]->size());
    out.insert(out.end(), sections[s]->begin(), sections[s]->end());
  }
  std::copy(F::magic, F::magic + F::magic_size, out.begin());
  store_u32(out.data() + F::header::version, F::format_version);
  store_u32(out.data() + F::header::header_size, static_cast<std::uint32_t>(F::header::size));
  store_u64(out.data() + F::header::total_size, out.size());
  store_u32(out.data() + F::header::section_count, F::section_count);
  const std::uint64_t data_offset = byte_io::load_u64(out.data() + F::header::sections +
                                                      F::sec_data * F::header::section_entry_size);
  store_u64(out.data() + F::header::tables_checksum,
            xxh64(out.data(), static_cast<std::size_t>(data_offset)));

  // Self-check: what we write, the run time must accept, and every image must decode to its bytes.
  std::string not_decoding;
  try {
    const container c = container::parse(out.data(), out.size());
    (void)c.info();  // every record, as the run time checks it when its kernel is first used
    const std::vector<image_damage> damage = c.find_damage();
    if (!damage.empty()) not_decoding = c.describe_image(damage[0].image) + " " + damage[0].reason;
  } catch (const error& e) {
    bad(fmt::format("the model does not make a valid container: {}", e.what()));
  }
  if (!not_decoding.empty()) bad("the container written does not decode: " + not_decoding);
  return out;
}

}  // namespace

std::vector<std::uint8_t> write_container(const container_info& info,
                                          const std::vector<std::vector<std::uint8_t>>& image_bytes,
                                          const write_options& options) {
  if (image_bytes.size() != info.images.size())
    bad(fmt::format("{} images described but {} byte buffers given", info.images.size(),
                    image_bytes.size()));
  if (options.dictionary_size > F::max_dictionary_size)
    bad(fmt::format("a dictionary of {} bytes is above the reader's {}-byte limit",
                    options.dictionary_size, F::max_dictionary_size));
  const bool per_target = options.grouping == frame_grouping::per_target;
  if (!per_target && !options.newest_first) return write_in_order(info, image_bytes, options);
  // Reorder the images (per_target_order or load_order), and the variants' references to them
  // with them.
  const std::vector<std::uint32_t> order = per_target ? per_target_order(info) : load_order(info);
  std::vector<std::uint32_t> new_index(order.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    new_index[order[i]] = static_cast<std::uint32_t>(i);
  container_info ordered = info;
  std::vector<std::vector<std::uint8_t>> bytes(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    ordered.images[i] = info.images[order[i]];
    bytes[i] = image_bytes[order[i]];
  }
  for (kernel_info& k : ordered.kernels)
    for (variant_info& v : k.variants)
      for (std::uint32_t& im : v.images)
        if (im < new_index.size()) im = new_index[im];
  return write_in_order(ordered, bytes, options);
}

}  // namespace tritonpack::pack
