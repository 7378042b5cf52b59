// tritonpack/container/records.hpp — reads and checks the records of a container's tables
// (docs/format.md "Records"): kernels with their args, variants, specs, constexprs and image refs;
// images with their tensor descriptors and dims. container/validation.hpp checks the header, the
// sections, the tables' structure and the frames around them at parse time; container/reader.hpp
// is the public face.
//
// The readers build the model of one kernel, or one image, the first time it is asked for (or
// every one, for info()), and check each record as they read it: every enum, limit, string and
// reserved byte, with a message naming the field. The structure they rely on — each run of child
// records inside its table, the runs tiling their tables in order, the fields those runs' lengths
// follow from, the kernels' names, where each image lies — was checked at parse time
// (validation.hpp, with run_range and run_end below). Every offset/length pair goes through
// byte_io::range_within, so no arithmetic can wrap.
#pragma once

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "tritonpack/container/byte_io.hpp"
#include "tritonpack/container/codec.hpp"
#include "tritonpack/container/format.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/core/model.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace detail {

struct section_range {
  std::uint64_t offset = 0, size = 0, count = 0;
};

// What decoding needs of an image, kept for all of them at parse time (integers only).
struct image_location {
  std::uint32_t frame = 0;
  std::uint64_t offset = 0;  // in the decoded frame
  std::uint64_t raw_size = 0;
  std::uint64_t checksum = 0;
  std::uint64_t stored_size = 0;  // share of the frame's stored bytes (image_info::stored_size)
  // v4: how the image is held in its frame (format::image_coding), the cubin a coded PTX takes its
  // text from, and the bytes it takes in the decoded frame (raw_size when held as is).
  std::uint8_t coding = format::coding_raw;
  std::uint32_t base_image = 0;
  std::uint64_t frame_size = 0;
};

class record_reader {
 public:
  // The sections of a container whose structure parse has checked.
  record_reader(const std::uint8_t* data, std::size_t size,
                const section_range (&sections)[format::section_count])
      : d_(data), n_(size) {
    for (std::uint32_t s = 0; s < format::section_count; ++s) sec_[s] = sections[s];
  }

  // The model's entries for kernel `i` and image `i`, each record checked as it is
  // read: a record that breaks a rule throws error(errc::bad_container) naming the field.
  void build_kernel(std::uint64_t i, kernel_info& k) { read_kernel(i, k); }
  void build_image(std::uint64_t i, image_info& im) { read_image(i, im); }
  std::string_view kernel_name(std::uint64_t i) const {
    return view(rec(format::sec_kernels, i) + format::kernel_rec::name, {"kernels", i, "name"});
  }

  // For messages, read in place (builds nothing): "3 (cuda cubin sm_90a)" and the name of the
  // first kernel whose variants list image `i` (empty when none does).
  std::string image_label(std::uint64_t i) const {
    const std::uint8_t* r = rec(format::sec_images, i);
    const std::string_view arch = view(r + format::image_rec::arch, {"images", i, "arch"});
    return std::to_string(i) + " (" +
           backend_name(static_cast<backend_kind>(r[format::image_rec::backend])) + " " +
           image_kind_name(static_cast<image_kind>(r[format::image_rec::kind])) + " " +
           std::string(arch) + ")";
  }
  std::string_view kernel_of_image(std::uint64_t image) const {
    using namespace format;
    for (std::uint64_t k = 0; k < sec_[sec_kernels].count; ++k) {
      const std::uint8_t* kr = rec(sec_kernels, k);
      const std::uint32_t v0 = u32(kr + kernel_rec::first_variant),
                          vn = u32(kr + kernel_rec::variant_count);
      for (std::uint32_t v = v0; v < v0 + vn; ++v) {
        const std::uint8_t* vr = rec(sec_variants, v);
        const std::uint32_t r0 = u32(vr + variant_rec::first_image_ref),
                            rn = u32(vr + variant_rec::image_ref_count);
        for (std::uint32_t x = r0; x < r0 + rn; ++x)
          if (u32(rec(sec_image_refs, x)) == image) return kernel_name(k);
      }
    }
    return {};
  }

 protected:
  using u64 = unsigned long long;  // for printf
  static constexpr std::uint64_t no_index = ~std::uint64_t{0};

  // The name of a field, rendered only when something is wrong: a[index].b.c
  // ("images[3].arch", "sections.strings.offset", "header.version").
  struct field_ref {
    const char* a;
    std::uint64_t index = no_index;
    const char* b = nullptr;
    const char* c = nullptr;
  };

  // For the parse-time check (container/validation.hpp), which fills the sections from the header.
  record_reader(const std::uint8_t* data, std::size_t size) : d_(data), n_(size) {}

  const std::uint8_t* d_;
  std::size_t n_;
  section_range sec_[format::section_count];

  [[noreturn]] TRITONPACK_COLD TRITONPACK_PRINTF(2, 3) static void fail(const field_ref& f,
                                                                        const char* fmt, ...) {
    char name[128];
    if (f.index == no_index)
      std::snprintf(name, sizeof name, "%s%s%s%s%s", f.a, f.b ? "." : "", f.b ? f.b : "",
                    f.c ? "." : "", f.c ? f.c : "");
    else
      std::snprintf(name, sizeof name, "%s[%llu]%s%s%s%s", f.a, static_cast<u64>(f.index),
                    f.b ? "." : "", f.b ? f.b : "", f.c ? "." : "", f.c ? f.c : "");
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    throw error(errc::bad_container, std::string("container: ") + name + ": " + msg);
  }

  const std::uint8_t* rec(std::uint32_t s, std::uint64_t i) const {
    return d_ + sec_[s].offset + i * format::record_size[s];
  }
  static std::uint32_t u32(const std::uint8_t* p) noexcept { return byte_io::load_u32(p); }
  static std::uint64_t u64v(const std::uint8_t* p) noexcept { return byte_io::load_u64(p); }

  // A string field, in place (range-checked against the string table).
  std::string_view view(const std::uint8_t* at, const field_ref& f) const {
    const std::uint32_t off = u32(at), len = u32(at + 4);
    const section_range& s = sec_[format::sec_strings];
    if (!byte_io::range_within(off, len, s.size))
      fail(f, "string at offset %u with length %u runs past the string table (%llu bytes)", off,
           len, static_cast<u64>(s.size));
    return std::string_view(reinterpret_cast<const char*>(d_ + s.offset + off), len);
  }
  // A string field, checked and copied into `to`. Out of line: one copy of this code instead of
  // one per string field.
  TRITONPACK_NOINLINE std::string_view str(std::string& to, const std::uint8_t* at,
                                           const field_ref& f) const {
    const std::string_view v = view(at, f);
    to.assign(v);
    return v;
  }

  static void zero(const std::uint8_t* p, std::size_t n, const field_ref& f) {
    for (std::size_t i = 0; i < n; ++i)
      if (p[i] != 0) fail(f, "reserved byte %zu is %u, must be 0", i, static_cast<unsigned>(p[i]));
  }

  static bool pow2(std::uint32_t v) noexcept { return v != 0 && (v & (v - 1)) == 0; }

  // A child range [first, first+count) of `child` that must start where the previous parent's
  // ended (`next`): runs tile the child table in order, so none overlap and none are orphaned.
  void run_range(std::uint32_t first, std::uint32_t count, std::uint64_t& next, std::uint32_t child,
                 const field_ref& f_first, const field_ref& f_count) const {
    if (first != next)
      fail(f_first, "is %u, expected %llu (runs of %s must follow each other in order)", first,
           static_cast<u64>(next), format::section_name(child));
    if (!byte_io::range_within(first, count, sec_[child].count))
      fail(f_count, "is %u: %u + %u exceeds the %llu records of %s", count, first, count,
           static_cast<u64>(sec_[child].count), format::section_name(child));
    next = std::uint64_t{first} + count;
  }

  void run_end(std::uint64_t next, std::uint32_t child, const char* parent) const {
    if (next != sec_[child].count)
      fail({"sections", no_index, format::section_name(child)},
           "holds %llu records but the %s use %llu", static_cast<u64>(sec_[child].count), parent,
           static_cast<u64>(next));
  }

  // Image `i`'s record into `im`. Where it lies and how it is held (frame, offset, coding, base
  // image) and its runs of tensor descriptors and dims were checked at parse time.
  void read_image(std::uint64_t i, image_info& im) {
    using namespace format;
    const std::uint8_t* r = rec(sec_images, i);
    auto F = [i](const char* field) { return field_ref{"images", i, field}; };
    const unsigned b = r[image_rec::backend], k = r[image_rec::kind],
                   lf = r[image_rec::launch_flags];
    if (b != 1 && b != 2) fail(F("backend"), "is %u, must be 1 (cuda) or 2 (hip)", b);
    if (k < 1 || k > 4)
      fail(F("kind"), "is %u, must be 1 (cubin), 2 (ptx), 3 (hsaco) or 4 (llir)", k);
    im.backend = static_cast<backend_kind>(b);
    im.kind = static_cast<image_kind>(k);
    const bool cuda_kind = im.kind == image_kind::cubin || im.kind == image_kind::ptx;
    if (cuda_kind != (im.backend == backend_kind::cuda))
      fail(F("kind"), "%s does not belong to backend %s", image_kind_name(im.kind),
           backend_name(im.backend));
    if (lf & ~unsigned{image_rec::flag_cooperative | image_rec::flag_pdl})
      fail(F("launch_flags"), "is %u, only bits 0 (cooperative) and 1 (pdl) are defined", lf);
    if ((lf & image_rec::flag_pdl) && im.backend != backend_kind::cuda)
      fail(F("launch_flags"), "PDL is set on a hip image (HIP has no PDL)");
    im.launch.launch_cooperative_grid = (lf & image_rec::flag_cooperative) != 0;
    im.launch.launch_pdl = (lf & image_rec::flag_pdl) != 0;
    im.ptx_version = u32(r + image_rec::ptx_version);
    if (im.kind == image_kind::ptx && (im.ptx_version < 10 || im.ptx_version > 999))
      fail(F("ptx_version"), "is %u, a PTX image needs its ISA as major*10+minor (8.7 -> 87)",
           im.ptx_version);
    if (im.kind != image_kind::ptx && im.ptx_version != 0)
      fail(F("ptx_version"), "is %u on a %s image, must be 0", im.ptx_version,
           image_kind_name(im.kind));
    if (str(im.arch, r + image_rec::arch, F("arch")).empty()) fail(F("arch"), "is empty");
    if (str(im.launch.entry, r + image_rec::entry, F("entry")).empty())
      fail(F("entry"), "is empty");
    str(im.launch.triton_version, r + image_rec::triton_version, F("triton_version"));
    im.raw_size = u64v(r + image_rec::raw_size);
    im.checksum = u64v(r + image_rec::checksum);
    launch_info& L = im.launch;
    L.num_warps = u32(r + image_rec::num_warps);
    if (L.num_warps == 0 || L.num_warps > 64)
      fail(F("num_warps"), "is %u, must be 1..64", L.num_warps);
    L.warp_size = u32(r + image_rec::warp_size);
    if (L.warp_size != 32 && L.warp_size != 64)
      fail(F("warp_size"), "is %u, must be 32 or 64", L.warp_size);
    L.shared = u32(r + image_rec::shared);
    L.num_ctas = u32(r + image_rec::num_ctas);
    if (L.num_ctas == 0 || L.num_ctas > 16) fail(F("num_ctas"), "is %u, must be 1..16", L.num_ctas);
    L.tmem_size = u32(r + image_rec::tmem_size);
    L.global_scratch_align = u32(r + image_rec::global_scratch_align);
    if (!pow2(L.global_scratch_align))
      fail(F("global_scratch_align"), "is %u, must be a power of two", L.global_scratch_align);
    L.global_scratch_size = u64v(r + image_rec::global_scratch_size);
    L.profile_scratch_size = u64v(r + image_rec::profile_scratch_size);
    L.profile_scratch_align = u32(r + image_rec::profile_scratch_align);
    if (!pow2(L.profile_scratch_align))
      fail(F("profile_scratch_align"), "is %u, must be a power of two", L.profile_scratch_align);
    const std::uint32_t td_first = u32(r + image_rec::first_tensordesc),
                        td_count = u32(r + image_rec::tensordesc_count);
    // v3: what produced the image's code; v1 and v2 containers have no image_tools (not recorded).
    im.tool_version.clear();
    if (i < sec_[sec_image_tools].count) {
      auto T = [i](const char* field) { return field_ref{"image_tools", i, field}; };
      const std::string_view tool =
          str(im.tool_version, rec(sec_image_tools, i) + image_tool_rec::version, T("version"));
      if (!tool.empty() && !is_binary(im.kind))
        fail(T("version"),
             "is set on a %s image; only a cubin (its ptxas) or an hsaco (its LLVM) "
             "records one",
             image_kind_name(im.kind));
    }
    L.tensordesc.resize(td_count);
    for (std::uint32_t t = 0; t < td_count; ++t) read_tensordesc(td_first + t, L.tensordesc[t]);
  }

  // Kernel `i`'s record, its args and its variants (and their specs, constexprs and image refs),
  // and its tuning, into `k`.
  void read_kernel(std::uint64_t i, kernel_info& k) {
    using namespace format;
    const std::uint64_t nimages = sec_[sec_images].count;
    const std::uint8_t* r = rec(sec_kernels, i);
    auto F = [i](const char* field, const char* sub = nullptr) {
      return field_ref{"kernels", i, field, sub};
    };
    const std::string_view name = view(r + kernel_rec::name, F("name"));
    k.name.assign(name);  // non-empty and unique: checked at parse time
    str(k.source, r + kernel_rec::source, F("source"));
    static const char* const axis[3] = {"x", "y", "z"};
    int empty_axes = 0;
    for (int a = 0; a < 3; ++a) {
      empty_axes += str(k.grid[a], r + kernel_rec::grid + a * str_size, F("grid", axis[a])).empty();
    }
    if (empty_axes != 0 && empty_axes != 3)
      fail(F("grid"), "has %d of 3 expressions; give all three or none", 3 - empty_axes);
    // The runs of args and variants (and theirs): checked at parse time (validation.hpp), with
    // a variant at least per kernel and a spec per arg.
    const std::uint32_t a0 = u32(r + kernel_rec::first_arg), an = u32(r + kernel_rec::arg_count);
    k.args.resize(an);
    for (std::uint32_t a = 0; a < an; ++a) {
      const std::uint8_t* ar = rec(sec_args, a0 + a);
      const std::uint64_t ai = std::uint64_t{a0} + a;
      auto A = [ai](const char* field) { return field_ref{"args", ai, field}; };
      kernel_arg& arg = k.args[a];
      if (str(arg.name, ar + arg_rec::name, A("name")).empty()) fail(A("name"), "is empty");
      const std::string_view type = str(arg.type, ar + arg_rec::type, A("type"));
      if (type.empty()) fail(A("type"), "is empty");
      const unsigned fl = ar[arg_rec::flags];
      if (fl & ~unsigned{arg_rec::flag_const})
        fail(A("flags"), "is %u, only bit 0 (const) is defined", fl);
      arg.is_const = (fl & arg_rec::flag_const) != 0;
      if (arg.is_const && type[0] != '*' && type.compare(0, 10, "tensordesc") != 0)
        fail(A("flags"), "const is set on \"%.*s\", which is not a pointer or tensor descriptor",
             static_cast<int>(type.size()), type.data());
      zero(ar + arg_rec::reserved, 7, A("reserved"));
    }
    const std::uint32_t v0 = u32(r + kernel_rec::first_variant),
                        vn = u32(r + kernel_rec::variant_count);
    k.variants.resize(vn);
    for (std::uint32_t v = 0; v < vn; ++v) read_variant(v0 + v, k.variants[v], nimages);
    if (i < sec_[sec_tunings].count) read_tuning(i, k, a0, an, v0, vn);
  }

  // v2: kernel i's tuning record, its tune_args and its table rows. Defined in
  // container/tuning_records.hpp.
  void read_tuning(std::uint64_t i, kernel_info& k, std::uint32_t a0, std::uint32_t an,
                   std::uint32_t v0, std::uint32_t vn);

  void read_variant(std::uint64_t vi, variant_info& var, std::uint64_t nimages) {
    using namespace format;
    const std::uint8_t* vr = rec(sec_variants, vi);
    auto V = [vi](const char* field) { return field_ref{"variants", vi, field}; };
    const std::uint32_t s0 = u32(vr + variant_rec::first_spec),
                        sn = u32(vr + variant_rec::spec_count);
    var.specs.resize(sn);
    for (std::uint32_t s = 0; s < sn; ++s) {
      const std::uint8_t* sr = rec(sec_specs, s0 + s);
      const std::uint64_t si = std::uint64_t{s0} + s;
      const unsigned kind = sr[spec_rec::kind];
      if (kind > 3)
        fail({"specs", si, "kind"}, "is %u, must be 0..3 (none, div16, equal1, constexpr)", kind);
      zero(sr + spec_rec::reserved, 3, {"specs", si, "reserved"});
      var.specs[s].kind = static_cast<spec_kind>(kind);
      if ((kind == 3) ==
          str(var.specs[s].value, sr + spec_rec::value, {"specs", si, "value"}).empty())
        fail({"specs", si, "value"}, "%s",
             kind == 3 ? "is empty for a constexpr spec"
                       : "must be empty unless the spec is a constexpr");
    }
    kernel_config& cfg = var.config;
    cfg.num_warps = u32(vr + variant_rec::num_warps);
    if (cfg.num_warps == 0 || cfg.num_warps > 64)
      fail(V("num_warps"), "is %u, must be 1..64", cfg.num_warps);
    cfg.num_stages = u32(vr + variant_rec::num_stages);
    cfg.num_ctas = u32(vr + variant_rec::num_ctas);
    if (cfg.num_ctas == 0 || cfg.num_ctas > 16)
      fail(V("num_ctas"), "is %u, must be 1..16", cfg.num_ctas);
    const std::uint32_t c0 = u32(vr + variant_rec::first_constexpr),
                        cn = u32(vr + variant_rec::constexpr_count);
    cfg.constexprs.resize(cn);
    for (std::uint32_t x = 0; x < cn; ++x) {
      const std::uint8_t* cr = rec(sec_constexprs, c0 + x);
      const std::uint64_t ci = std::uint64_t{c0} + x;
      if (str(cfg.constexprs[x].first, cr + constexpr_rec::name, {"constexprs", ci, "name"})
              .empty())
        fail({"constexprs", ci, "name"}, "is empty");
      str(cfg.constexprs[x].second, cr + constexpr_rec::value, {"constexprs", ci, "value"});
    }
    const std::uint32_t r0 = u32(vr + variant_rec::first_image_ref),
                        rn = u32(vr + variant_rec::image_ref_count);
    zero(vr + variant_rec::reserved, 4, V("reserved"));
    var.images.resize(rn);
    for (std::uint32_t x = 0; x < rn; ++x) {
      const std::uint32_t im = u32(rec(sec_image_refs, r0 + x));
      if (im >= nimages)
        fail({"image_refs", std::uint64_t{r0} + x}, "is %u, the container has %llu images", im,
             static_cast<u64>(nimages));
      var.images[x] = im;
    }
  }

  void read_tensordesc(std::uint64_t i, tensordesc_meta& t) {
    using namespace format;
    const std::uint8_t* r = rec(sec_tensordescs, i);
    auto T = [i](const char* field) { return field_ref{"tensordescs", i, field}; };
    t.swizzle = u32(r + tensordesc_rec::swizzle);
    t.elem_size = u32(r + tensordesc_rec::elem_size);
    t.elem_type = u32(r + tensordesc_rec::elem_type);
    const unsigned fp4 = r[tensordesc_rec::fp4_padded];
    if (fp4 > 1) fail(T("fp4_padded"), "is %u, must be 0 or 1", fp4);
    t.fp4_padded = fp4 == 1;
    zero(r + tensordesc_rec::reserved, 3, T("reserved"));
    // The run of dims: checked at parse time (1..5 of them, inside the dims table).
    const std::uint32_t d0 = u32(r + tensordesc_rec::first_dim),
                        dn = u32(r + tensordesc_rec::dim_count);
    t.block_size.resize(dn);
    for (std::uint32_t d = 0; d < dn; ++d) t.block_size[d] = u32(rec(sec_dims, d0 + d));
  }
};

}  // namespace detail
TRITONPACK_END_NAMESPACE

// The tuning records' reader (read_tuning), kept apart: this header stays at the records all
// kernels have.
#include "tritonpack/container/tuning_records.hpp"
