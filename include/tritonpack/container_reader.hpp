// tritonpack/container_reader.hpp — parses and validates a container (docs/format.md) once, up
// front, into the model of model.hpp, and decodes one image on demand.
//
// Why validate everything at parse time: the run time trusts the model afterwards (indices,
// sizes, strings) without re-checking on the launch path, and a damaged or hostile container is
// refused in one place with a message that names the offending field ("images[3].frame_offset:
// ..."). Every offset/length pair goes through byte_io::range_within, so no arithmetic can wrap.
//
// The container does not own the bytes: they are usually the generated header's static array.
// Keep them alive (and unchanged) as long as the container object is used.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "byte_io.hpp"
#include "checksum.hpp"
#include "codec.hpp"
#include "container_format.hpp"
#include "error.hpp"
#include "model.hpp"

namespace tritonpack {

// Where one frame's bytes are, and which images it holds (a contiguous run of image indices).
struct frame_view {
  std::uint64_t offset = 0;       // from the start of the container
  std::uint64_t stored_size = 0;  // bytes in the container
  std::uint64_t raw_size = 0;     // bytes once decoded
  std::uint32_t codec = format::codec_stored;
  bool uses_dictionary = false;
  std::uint32_t first_image = 0;
  std::uint32_t image_count = 0;
};

class container {
 public:
  // Validates `size` bytes at `data` as a complete container: no byte may be left over. Throws
  // error(errc::bad_container) naming the first field found wrong.
  static container parse(const std::uint8_t* data, std::size_t size);

  // True when `size` bytes at `data` begin with the magic; then `total_size` is what the header
  // says the container's length is (unchecked). Used to find containers inside other files.
  static bool probe(const std::uint8_t* data, std::size_t size, std::uint64_t& total_size) noexcept {
    if (size < format::header::size || std::memcmp(data, format::magic, format::magic_size) != 0) return false;
    total_size = byte_io::load_u64(data + format::header::total_size);
    return true;
  }

  const container_info& info() const noexcept { return info_; }
  const std::vector<frame_view>& frames() const noexcept { return frames_; }
  // Offset of image `i` inside its decoded frame.
  std::uint64_t frame_offset(std::uint32_t i) const { return image_offsets_.at(i); }
  std::uint32_t frame_of(std::uint32_t i) const { return image_frames_.at(i); }
  const std::uint8_t* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }

  // Index of the kernel called `name`, or -1.
  long find_kernel(std::string_view name) const noexcept {
    for (std::size_t i = 0; i < info_.kernels.size(); ++i)
      if (info_.kernels[i].name == name) return static_cast<long>(i);
    return -1;
  }

  // The raw bytes of image `image_index`: decodes its frame only as far as the image's end (never
  // more than the recorded raw size) and checks the XXH64 recorded for it. Thread-safe.
  std::vector<std::uint8_t> decode_image(std::uint32_t image_index) const {
    if (image_index >= info_.images.size())
      throw error(errc::bad_argument, "container: image index " + std::to_string(image_index) +
                                          " out of range (" + std::to_string(info_.images.size()) + " images)");
    const image_info& im = info_.images[image_index];
    const frame_view& f = frames_[image_frames_[image_index]];
    const std::uint64_t begin = image_offsets_[image_index];
    const std::uint64_t end = begin + im.raw_size;  // validated: end <= f.raw_size
    const std::string what = "images[" + std::to_string(image_index) + "] (frames[" +
                             std::to_string(image_frames_[image_index]) + "])";
    std::vector<std::uint8_t> out;
    if (f.codec == format::codec_stored) {
      out.assign(data_ + f.offset + begin, data_ + f.offset + end);
    } else if (end == 0) {
      // A zero-byte image first in its frame: nothing to decode.
    } else {
      out.resize(static_cast<std::size_t>(end));
      codec::decode_zstd_prefix(data_ + f.offset, f.stored_size, f.raw_size, f.uses_dictionary ? ddict_.get() : nullptr,
                                out.data(), out.size(), what);
      out.erase(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(begin));
    }
    const std::uint64_t sum = xxh64(out.data(), out.size());
    if (sum != im.checksum)
      throw error(errc::bad_container, what + ": checksum of the decoded bytes is " + hex(sum) + ", the container records " +
                                           hex(im.checksum) + " (the container is damaged)");
    return out;
  }

  static std::string hex(std::uint64_t v) {
    static const char digits[] = "0123456789abcdef";
    std::string s = "0x0000000000000000";
    for (int i = 0; i < 16; ++i) s[17 - i] = digits[(v >> (4 * i)) & 0xF];
    return s;
  }

 private:
  class parser;
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  container_info info_;
  std::vector<frame_view> frames_;
  std::vector<std::uint32_t> image_frames_;
  std::vector<std::uint64_t> image_offsets_;
  codec::ddict_ptr ddict_;
};

class container::parser {
 public:
  parser(const std::uint8_t* data, std::size_t size) : d_(data), n_(size) {}

  container run() {
    container c;
    c.data_ = d_;
    c.size_ = n_;
    read_header(c);
    read_tables(c);
    read_frames(c);
    return c;
  }

 private:
  struct section_range {
    std::uint64_t offset = 0, size = 0, count = 0;
  };

  const std::uint8_t* d_;
  std::size_t n_;
  section_range sec_[format::section_count];

  [[noreturn]] static void fail(const std::string& field, const std::string& msg) {
    throw error(errc::bad_container, "container: " + field + ": " + msg);
  }
  static std::string idx(const char* table, std::uint64_t i) { return std::string(table) + "[" + std::to_string(i) + "]"; }
  static std::string num(std::uint64_t v) { return std::to_string(v); }

  const std::uint8_t* rec(std::uint32_t s, std::uint64_t i) const {
    return d_ + sec_[s].offset + i * format::record_size[s];
  }

  std::string str(const std::uint8_t* at, const std::string& field) const {
    const std::uint32_t off = byte_io::load_u32(at), len = byte_io::load_u32(at + 4);
    const section_range& s = sec_[format::sec_strings];
    if (!byte_io::range_within(off, len, s.size))
      fail(field, "string at offset " + num(off) + " with length " + num(len) + " runs past the string table (" +
                      num(s.size) + " bytes)");
    return std::string(reinterpret_cast<const char*>(d_ + s.offset + off), len);
  }

  static void zero(const std::uint8_t* p, std::size_t n, const std::string& field) {
    for (std::size_t i = 0; i < n; ++i)
      if (p[i] != 0) fail(field, "reserved byte " + num(i) + " is " + num(p[i]) + ", must be 0");
  }

  // A child range [first, first+count) of `child` that must start where the previous parent's
  // ended (`next`): runs tile the child table in order, so none overlap and none are orphaned.
  void run_range(std::uint32_t first, std::uint32_t count, std::uint64_t& next, std::uint32_t child,
                 const std::string& field_first, const std::string& field_count) const {
    if (first != next)
      fail(field_first, "is " + num(first) + ", expected " + num(next) + " (runs of " +
                            format::section_name(child) + " must follow each other in order)");
    if (!byte_io::range_within(first, count, sec_[child].count))
      fail(field_count, "is " + num(count) + ": " + num(first) + " + " + num(count) + " exceeds the " +
                            num(sec_[child].count) + " records of " + format::section_name(child));
    next = std::uint64_t{first} + count;
  }

  void run_end(std::uint64_t next, std::uint32_t child, const char* parent) const {
    if (next != sec_[child].count)
      fail(std::string("sections.") + format::section_name(child),
           "holds " + num(sec_[child].count) + " records but the " + parent + " use " + num(next));
  }

  void read_header(container& c) {
    if (n_ < format::magic_size || std::memcmp(d_, format::magic, format::magic_size) != 0)
      fail("header.magic", "not a tritonpack container (expected \\x89TPK\\r\\n\\x1a\\n)");
    if (n_ < 12) fail("header.version", "truncated: the container is " + num(n_) + " bytes");
    const std::uint32_t version = byte_io::load_u32(d_ + format::header::version);
    if (version != format::format_version)
      fail("header.version", "format version " + num(version) + " is not supported (this reader reads version " +
                                 num(format::format_version) + ")");
    if (n_ < format::header::size)
      fail("header", "truncated: the container is " + num(n_) + " bytes, the v1 header alone is " +
                         num(format::header::size));
    const std::uint32_t hsize = byte_io::load_u32(d_ + format::header::header_size);
    if (hsize != format::header::size) fail("header.header_size", "is " + num(hsize) + ", v1 requires " + num(format::header::size));
    const std::uint64_t total = byte_io::load_u64(d_ + format::header::total_size);
    if (total != n_)
      fail("header.total_size", "is " + num(total) + " but " + num(n_) + " bytes were given" +
                                    (total < n_ ? " (trailing bytes)" : " (truncated)"));
    const std::uint32_t flags = byte_io::load_u32(d_ + format::header::flags);
    if (flags != 0) fail("header.flags", "is " + num(flags) + ", must be 0 in v1");
    const std::uint32_t nsec = byte_io::load_u32(d_ + format::header::section_count);
    if (nsec != format::section_count)
      fail("header.section_count", "is " + num(nsec) + ", v1 has " + num(format::section_count));
    zero(d_ + format::header::reserved, 8, "header.reserved");

    // Sections: in order, 8-aligned, separated only by minimal zero padding, ending exactly at
    // the end of the container.
    std::uint64_t pos = format::header::size;
    for (std::uint32_t s = 0; s < format::section_count; ++s) {
      const std::uint8_t* e = d_ + format::header::sections + s * format::header::section_entry_size;
      const std::uint64_t off = byte_io::load_u64(e), size = byte_io::load_u64(e + 8);
      const std::string field = std::string("sections.") + format::section_name(s);
      const std::uint64_t aligned = (pos + format::section_align - 1) / format::section_align * format::section_align;
      if (off != aligned)
        fail(field + ".offset", "is " + num(off) + ", expected " + num(aligned) +
                                    " (sections follow each other in order, 8-byte aligned)");
      if (!byte_io::range_within(off, size, n_))
        fail(field + ".size", "is " + num(size) + ": the section would end at " + (size > n_ ? std::string("beyond 2^64") : num(off + size)) +
                                  ", past the container's " + num(n_) + " bytes");
      zero(d_ + pos, static_cast<std::size_t>(off - pos), field + " padding");
      if (size % format::record_size[s] != 0)
        fail(field + ".size", "is " + num(size) + ", not a multiple of the " + num(format::record_size[s]) + "-byte record");
      sec_[s] = {off, size, size / format::record_size[s]};
      if (sec_[s].count > 0xFFFFFFFFull) fail(field + ".size", "holds more than 2^32-1 records");
      pos = off + size;
    }
    if (pos != n_) fail("sections.data.size", "the data section ends at " + num(pos) + ", the container at " + num(n_));

    // Tables checksum: everything before the frame data, with the checksum field itself zero.
    const std::uint64_t recorded = byte_io::load_u64(d_ + format::header::tables_checksum);
    const std::uint64_t covered = sec_[format::sec_data].offset;
    std::vector<std::uint8_t> copy(d_, d_ + covered);
    byte_io::store_u64(copy.data() + format::header::tables_checksum, 0);
    const std::uint64_t actual = xxh64(copy.data(), copy.size());
    if (actual != recorded)
      fail("header.tables_checksum", "is " + container::hex(recorded) + " but the header and tables hash to " +
                                         container::hex(actual) + " (the container is damaged)");

    c.info_.format_version = version;
    c.info_.name = str(d_ + format::header::name, "header.name");
    c.info_.triton_version = str(d_ + format::header::triton_version, "header.triton_version");
  }

  void read_tables(container& c) {
    using namespace format;
    container_info& info = c.info_;
    const std::uint64_t nimages = sec_[sec_images].count;

    // Images first: variants refer to them.
    info.images.resize(static_cast<std::size_t>(nimages));
    c.image_frames_.resize(static_cast<std::size_t>(nimages));
    c.image_offsets_.resize(static_cast<std::size_t>(nimages));
    std::uint64_t next_td = 0;
    for (std::uint64_t i = 0; i < nimages; ++i) {
      const std::uint8_t* r = rec(sec_images, i);
      const std::string f = idx("images", i);
      image_info& im = info.images[static_cast<std::size_t>(i)];
      const std::uint8_t b = r[image_rec::backend], k = r[image_rec::kind], lf = r[image_rec::launch_flags];
      if (b != 1 && b != 2) fail(f + ".backend", "is " + num(b) + ", must be 1 (cuda) or 2 (hip)");
      if (k < 1 || k > 4) fail(f + ".kind", "is " + num(k) + ", must be 1 (cubin), 2 (ptx), 3 (hsaco) or 4 (llir)");
      im.backend = static_cast<backend_kind>(b);
      im.kind = static_cast<image_kind>(k);
      const bool cuda_kind = im.kind == image_kind::cubin || im.kind == image_kind::ptx;
      if (cuda_kind != (im.backend == backend_kind::cuda))
        fail(f + ".kind", std::string(image_kind_name(im.kind)) + " does not belong to backend " + backend_name(im.backend));
      if (lf & ~(image_rec::flag_cooperative | image_rec::flag_pdl))
        fail(f + ".launch_flags", "is " + num(lf) + ", only bits 0 (cooperative) and 1 (pdl) are defined");
      if ((lf & image_rec::flag_pdl) && im.backend != backend_kind::cuda)
        fail(f + ".launch_flags", "PDL is set on a hip image (HIP has no PDL)");
      im.launch.launch_cooperative_grid = (lf & image_rec::flag_cooperative) != 0;
      im.launch.launch_pdl = (lf & image_rec::flag_pdl) != 0;
      zero(r + image_rec::reserved0, 1, f + ".reserved0");
      im.ptx_version = byte_io::load_u32(r + image_rec::ptx_version);
      if (im.kind == image_kind::ptx && (im.ptx_version < 10 || im.ptx_version > 999))
        fail(f + ".ptx_version", "is " + num(im.ptx_version) + ", a PTX image needs its ISA as major*10+minor (8.7 -> 87)");
      if (im.kind != image_kind::ptx && im.ptx_version != 0)
        fail(f + ".ptx_version", "is " + num(im.ptx_version) + " on a " + image_kind_name(im.kind) + " image, must be 0");
      im.arch = str(r + image_rec::arch, f + ".arch");
      if (im.arch.empty()) fail(f + ".arch", "is empty");
      im.launch.entry = str(r + image_rec::entry, f + ".entry");
      if (im.launch.entry.empty()) fail(f + ".entry", "is empty");
      im.launch.triton_version = str(r + image_rec::triton_version, f + ".triton_version");
      im.raw_size = byte_io::load_u64(r + image_rec::raw_size);
      im.checksum = byte_io::load_u64(r + image_rec::checksum);
      const std::uint32_t frame = byte_io::load_u32(r + image_rec::frame);
      if (frame >= sec_[sec_frames].count)
        fail(f + ".frame", "is " + num(frame) + ", the container has " + num(sec_[sec_frames].count) + " frames");
      zero(r + image_rec::reserved1, 4, f + ".reserved1");
      c.image_frames_[static_cast<std::size_t>(i)] = frame;
      c.image_offsets_[static_cast<std::size_t>(i)] = byte_io::load_u64(r + image_rec::frame_offset);
      launch_info& L = im.launch;
      L.num_warps = byte_io::load_u32(r + image_rec::num_warps);
      if (L.num_warps == 0 || L.num_warps > 64) fail(f + ".num_warps", "is " + num(L.num_warps) + ", must be 1..64");
      L.warp_size = byte_io::load_u32(r + image_rec::warp_size);
      if (L.warp_size != 32 && L.warp_size != 64) fail(f + ".warp_size", "is " + num(L.warp_size) + ", must be 32 or 64");
      L.shared = byte_io::load_u32(r + image_rec::shared);
      L.num_ctas = byte_io::load_u32(r + image_rec::num_ctas);
      if (L.num_ctas == 0 || L.num_ctas > 16) fail(f + ".num_ctas", "is " + num(L.num_ctas) + ", must be 1..16");
      L.tmem_size = byte_io::load_u32(r + image_rec::tmem_size);
      L.global_scratch_align = byte_io::load_u32(r + image_rec::global_scratch_align);
      if (!pow2(L.global_scratch_align))
        fail(f + ".global_scratch_align", "is " + num(L.global_scratch_align) + ", must be a power of two");
      L.global_scratch_size = byte_io::load_u64(r + image_rec::global_scratch_size);
      L.profile_scratch_size = byte_io::load_u64(r + image_rec::profile_scratch_size);
      L.profile_scratch_align = byte_io::load_u32(r + image_rec::profile_scratch_align);
      if (!pow2(L.profile_scratch_align))
        fail(f + ".profile_scratch_align", "is " + num(L.profile_scratch_align) + ", must be a power of two");
      const std::uint32_t td_first = byte_io::load_u32(r + image_rec::first_tensordesc);
      const std::uint32_t td_count = byte_io::load_u32(r + image_rec::tensordesc_count);
      run_range(td_first, td_count, next_td, sec_tensordescs, f + ".first_tensordesc", f + ".tensordesc_count");
      zero(r + image_rec::reserved2, 4, f + ".reserved2");
      L.tensordesc.resize(td_count);
      for (std::uint32_t t = 0; t < td_count; ++t) read_tensordesc(td_first + t, L.tensordesc[t]);
    }
    run_end(next_td, sec_tensordescs, "images");
    run_end(next_dim_, sec_dims, "tensordescs");

    // Kernels, their args and variants, the variants' specs, constexprs and image refs.
    const std::uint64_t nkernels = sec_[sec_kernels].count;
    info.kernels.resize(static_cast<std::size_t>(nkernels));
    std::uint64_t next_arg = 0, next_var = 0, next_spec = 0, next_cx = 0, next_ref = 0;
    std::set<std::string> names;
    for (std::uint64_t i = 0; i < nkernels; ++i) {
      const std::uint8_t* r = rec(sec_kernels, i);
      const std::string f = idx("kernels", i);
      kernel_info& k = info.kernels[static_cast<std::size_t>(i)];
      k.name = str(r + kernel_rec::name, f + ".name");
      if (k.name.empty()) fail(f + ".name", "is empty");
      if (!names.insert(k.name).second) fail(f + ".name", "\"" + k.name + "\" is also the name of an earlier kernel");
      k.source = str(r + kernel_rec::source, f + ".source");
      static const char* axis[3] = {"grid.x", "grid.y", "grid.z"};
      int empty_axes = 0;
      for (int a = 0; a < 3; ++a) {
        k.grid[a] = str(r + kernel_rec::grid + a * str_size, f + "." + axis[a]);
        empty_axes += k.grid[a].empty();
      }
      if (empty_axes != 0 && empty_axes != 3)
        fail(f + ".grid", "has " + num(3 - empty_axes) + " of 3 expressions; give all three or none");
      const std::uint32_t a0 = byte_io::load_u32(r + kernel_rec::first_arg), an = byte_io::load_u32(r + kernel_rec::arg_count);
      run_range(a0, an, next_arg, sec_args, f + ".first_arg", f + ".arg_count");
      k.args.resize(an);
      for (std::uint32_t a = 0; a < an; ++a) {
        const std::uint8_t* ar = rec(sec_args, a0 + a);
        const std::string af = idx("args", a0 + a);
        kernel_arg& arg = k.args[a];
        arg.name = str(ar + arg_rec::name, af + ".name");
        if (arg.name.empty()) fail(af + ".name", "is empty");
        arg.type = str(ar + arg_rec::type, af + ".type");
        if (arg.type.empty()) fail(af + ".type", "is empty");
        const std::uint8_t fl = ar[arg_rec::flags];
        if (fl & ~arg_rec::flag_const) fail(af + ".flags", "is " + num(fl) + ", only bit 0 (const) is defined");
        arg.is_const = (fl & arg_rec::flag_const) != 0;
        if (arg.is_const && arg.type[0] != '*' && arg.type.compare(0, 10, "tensordesc") != 0)
          fail(af + ".flags", "const is set on \"" + arg.type + "\", which is not a pointer or tensor descriptor");
        zero(ar + arg_rec::reserved, 7, af + ".reserved");
      }
      const std::uint32_t v0 = byte_io::load_u32(r + kernel_rec::first_variant);
      const std::uint32_t vn = byte_io::load_u32(r + kernel_rec::variant_count);
      run_range(v0, vn, next_var, sec_variants, f + ".first_variant", f + ".variant_count");
      if (vn == 0) fail(f + ".variant_count", "is 0; a kernel needs at least one variant");
      k.variants.resize(vn);
      for (std::uint32_t v = 0; v < vn; ++v) {
        const std::uint8_t* vr = rec(sec_variants, v0 + v);
        const std::string vf = idx("variants", v0 + v);
        variant_info& var = k.variants[v];
        const std::uint32_t s0 = byte_io::load_u32(vr + variant_rec::first_spec);
        const std::uint32_t sn = byte_io::load_u32(vr + variant_rec::spec_count);
        run_range(s0, sn, next_spec, sec_specs, vf + ".first_spec", vf + ".spec_count");
        if (sn != an) fail(vf + ".spec_count", "is " + num(sn) + ", the kernel has " + num(an) + " args");
        var.specs.resize(sn);
        for (std::uint32_t s = 0; s < sn; ++s) {
          const std::uint8_t* sr = rec(sec_specs, s0 + s);
          const std::string sf = idx("specs", s0 + s);
          const std::uint8_t kind = sr[spec_rec::kind];
          if (kind > 3) fail(sf + ".kind", "is " + num(kind) + ", must be 0..3 (none, div16, equal1, constexpr)");
          zero(sr + spec_rec::reserved, 3, sf + ".reserved");
          var.specs[s].kind = static_cast<spec_kind>(kind);
          var.specs[s].value = str(sr + spec_rec::value, sf + ".value");
          if ((kind == 3) == var.specs[s].value.empty())
            fail(sf + ".value", kind == 3 ? "is empty for a constexpr spec" : "must be empty unless the spec is a constexpr");
        }
        kernel_config& cfg = var.config;
        cfg.num_warps = byte_io::load_u32(vr + variant_rec::num_warps);
        if (cfg.num_warps == 0 || cfg.num_warps > 64) fail(vf + ".num_warps", "is " + num(cfg.num_warps) + ", must be 1..64");
        cfg.num_stages = byte_io::load_u32(vr + variant_rec::num_stages);
        cfg.num_ctas = byte_io::load_u32(vr + variant_rec::num_ctas);
        if (cfg.num_ctas == 0 || cfg.num_ctas > 16) fail(vf + ".num_ctas", "is " + num(cfg.num_ctas) + ", must be 1..16");
        const std::uint32_t c0 = byte_io::load_u32(vr + variant_rec::first_constexpr);
        const std::uint32_t cn = byte_io::load_u32(vr + variant_rec::constexpr_count);
        run_range(c0, cn, next_cx, sec_constexprs, vf + ".first_constexpr", vf + ".constexpr_count");
        cfg.constexprs.resize(cn);
        for (std::uint32_t x = 0; x < cn; ++x) {
          const std::uint8_t* cr = rec(sec_constexprs, c0 + x);
          const std::string cf = idx("constexprs", c0 + x);
          cfg.constexprs[x].first = str(cr + constexpr_rec::name, cf + ".name");
          if (cfg.constexprs[x].first.empty()) fail(cf + ".name", "is empty");
          cfg.constexprs[x].second = str(cr + constexpr_rec::value, cf + ".value");
        }
        const std::uint32_t r0 = byte_io::load_u32(vr + variant_rec::first_image_ref);
        const std::uint32_t rn = byte_io::load_u32(vr + variant_rec::image_ref_count);
        run_range(r0, rn, next_ref, sec_image_refs, vf + ".first_image_ref", vf + ".image_ref_count");
        zero(vr + variant_rec::reserved, 4, vf + ".reserved");
        var.images.resize(rn);
        for (std::uint32_t x = 0; x < rn; ++x) {
          const std::uint32_t im = byte_io::load_u32(rec(sec_image_refs, r0 + x));
          if (im >= nimages)
            fail(idx("image_refs", r0 + x), "is " + num(im) + ", the container has " + num(nimages) + " images");
          var.images[x] = im;
        }
      }
    }
    run_end(next_arg, sec_args, "kernels");
    run_end(next_var, sec_variants, "kernels");
    run_end(next_spec, sec_specs, "variants");
    run_end(next_cx, sec_constexprs, "variants");
    run_end(next_ref, sec_image_refs, "variants");
  }

  void read_tensordesc(std::uint64_t i, tensordesc_meta& t) {
    using namespace format;
    const std::uint8_t* r = rec(sec_tensordescs, i);
    const std::string f = idx("tensordescs", i);
    t.swizzle = byte_io::load_u32(r + tensordesc_rec::swizzle);
    t.elem_size = byte_io::load_u32(r + tensordesc_rec::elem_size);
    t.elem_type = byte_io::load_u32(r + tensordesc_rec::elem_type);
    const std::uint8_t fp4 = r[tensordesc_rec::fp4_padded];
    if (fp4 > 1) fail(f + ".fp4_padded", "is " + num(fp4) + ", must be 0 or 1");
    t.fp4_padded = fp4 == 1;
    zero(r + tensordesc_rec::reserved, 3, f + ".reserved");
    const std::uint32_t d0 = byte_io::load_u32(r + tensordesc_rec::first_dim);
    const std::uint32_t dn = byte_io::load_u32(r + tensordesc_rec::dim_count);
    run_range(d0, dn, next_dim_, sec_dims, f + ".first_dim", f + ".dim_count");
    if (dn == 0 || dn > 5) fail(f + ".dim_count", "is " + num(dn) + ", a tensor descriptor has 1..5 dimensions");
    t.block_size.resize(dn);
    for (std::uint32_t d = 0; d < dn; ++d) t.block_size[d] = byte_io::load_u32(rec(sec_dims, d0 + d));
  }

  void read_frames(container& c) {
    using namespace format;
    const section_range& data = sec_[sec_data];
    const section_range& dict = sec_[sec_dictionary];
    c.ddict_ = codec::make_ddict(d_ + dict.offset, static_cast<std::size_t>(dict.size));
    const unsigned dict_id = codec::dictionary_id(d_ + dict.offset, static_cast<std::size_t>(dict.size));
    const std::uint64_t nframes = sec_[sec_frames].count;
    c.frames_.resize(static_cast<std::size_t>(nframes));
    std::uint64_t next_offset = 0;
    for (std::uint64_t i = 0; i < nframes; ++i) {
      const std::uint8_t* r = rec(sec_frames, i);
      const std::string f = idx("frames", i);
      frame_view& fv = c.frames_[static_cast<std::size_t>(i)];
      const std::uint64_t off = byte_io::load_u64(r + frame_rec::offset);
      if (off != next_offset)
        fail(f + ".offset", "is " + num(off) + ", expected " + num(next_offset) + " (frames follow each other in the data section)");
      fv.stored_size = byte_io::load_u64(r + frame_rec::stored_size);
      if (!byte_io::range_within(off, fv.stored_size, data.size))
        fail(f + ".stored_size", "is " + num(fv.stored_size) + ": the frame would run past the data section (" + num(data.size) + " bytes)");
      next_offset = off + fv.stored_size;
      fv.offset = data.offset + off;
      fv.raw_size = byte_io::load_u64(r + frame_rec::raw_size);
      fv.codec = byte_io::load_u32(r + frame_rec::codec);
      const std::uint32_t flags = byte_io::load_u32(r + frame_rec::flags);
      if (flags & ~frame_rec::flag_dictionary) fail(f + ".flags", "is " + num(flags) + ", only bit 0 (dictionary) is defined");
      fv.uses_dictionary = (flags & frame_rec::flag_dictionary) != 0;
      if (fv.raw_size > max_frame_raw_size) fail(f + ".raw_size", "is " + num(fv.raw_size) + ", above the 4 GiB limit");
      if (fv.codec == codec_stored) {
        if (fv.stored_size != fv.raw_size)
          fail(f + ".raw_size", "is " + num(fv.raw_size) + " but a stored frame's raw_size must equal its stored_size (" +
                                    num(fv.stored_size) + ")");
        if (fv.uses_dictionary) fail(f + ".flags", "a stored frame cannot use the dictionary");
      } else if (fv.codec == codec_zstd) {
        if (fv.uses_dictionary && dict.size == 0) fail(f + ".flags", "the frame uses the dictionary but the container has none");
        if (fv.raw_size / max_expansion > fv.stored_size)
          fail(f + ".raw_size", "is " + num(fv.raw_size) + ", more than zstd can encode in " + num(fv.stored_size) + " bytes");
        const std::string why = codec::check_zstd_frame(d_ + fv.offset, fv.stored_size, fv.raw_size, dict_id, fv.uses_dictionary);
        if (!why.empty()) fail(f, why);
      } else {
        fail(f + ".codec", "is " + num(fv.codec) + ", must be 0 (stored) or 1 (zstd)");
      }
    }
    if (next_offset != data.size)
      fail("sections.data.size", "is " + num(data.size) + " but the frames account for " + num(next_offset) + " bytes");

    // Images tile the frames in order: each frame holds a contiguous, non-empty run of images
    // laid end to end from offset 0 to its raw_size.
    std::uint64_t pos = 0;
    std::uint32_t cur = 0;
    const std::size_t nimages = c.info_.images.size();
    if (nframes == 0 && nimages != 0) fail("sections.frames", "is empty but the container has images");
    for (std::size_t i = 0; i < nimages; ++i) {
      const std::string f = idx("images", i);
      const std::uint32_t fr = c.image_frames_[i];
      if (fr != cur) {
        if (fr != cur + 1 || c.frames_[cur].image_count == 0)
          fail(f + ".frame", "is " + num(fr) + ", expected " + num(c.frames_[cur].image_count == 0 ? cur : cur + 1) +
                                 " (images are stored in frame order and every frame holds at least one)");
        if (pos != c.frames_[cur].raw_size)
          fail(idx("frames", cur) + ".raw_size", "is " + num(c.frames_[cur].raw_size) + " but its images add up to " + num(pos));
        cur = fr;
        pos = 0;
      }
      if (c.frames_[cur].image_count == 0) c.frames_[cur].first_image = static_cast<std::uint32_t>(i);
      ++c.frames_[cur].image_count;
      const std::uint64_t off = c.image_offsets_[i];
      if (off != pos) fail(f + ".frame_offset", "is " + num(off) + ", expected " + num(pos) + " (images follow each other in their frame)");
      const image_info& im = c.info_.images[i];
      if (!byte_io::range_within(off, im.raw_size, c.frames_[cur].raw_size))
        fail(f + ".raw_size", "is " + num(im.raw_size) + ": the image would run past the end of frame " + num(cur) + " (" +
                                  num(c.frames_[cur].raw_size) + " bytes)");
      pos = off + im.raw_size;
    }
    if (nframes != 0) {
      if (nimages == 0 || cur + 1 != nframes)
        fail(idx("frames", nimages == 0 ? 0 : cur + 1), "holds no image (every frame holds at least one)");
      if (pos != c.frames_[cur].raw_size)
        fail(idx("frames", cur) + ".raw_size", "is " + num(c.frames_[cur].raw_size) + " but its images add up to " + num(pos));
    }

    // Each image's share of its frame's stored bytes, proportional to its raw size; the last image
    // of a frame takes the remainder so the shares add up to the frame's stored size exactly.
    for (const frame_view& fv : c.frames_) {
      std::uint64_t given = 0;
      for (std::uint32_t k = 0; k < fv.image_count; ++k) {
        image_info& im = c.info_.images[fv.first_image + k];
        std::uint64_t share;
        if (k + 1 == fv.image_count) {
          share = fv.stored_size - given;
        } else if (fv.raw_size == 0) {
          share = 0;
        } else {
          // 128-bit-free proportion: raw_size and stored_size are both below 2^32 * 32768 here,
          // so use long double to avoid overflow of the product.
          share = static_cast<std::uint64_t>(static_cast<long double>(fv.stored_size) * im.raw_size / fv.raw_size);
          if (share > fv.stored_size - given) share = fv.stored_size - given;
        }
        im.stored_size = share;
        given += share;
      }
    }
  }

  static bool pow2(std::uint32_t v) noexcept { return v != 0 && (v & (v - 1)) == 0; }

  std::uint64_t next_dim_ = 0;
};

inline container container::parse(const std::uint8_t* data, std::size_t size) {
  if (data == nullptr && size != 0) throw error(errc::bad_container, "container: null data with non-zero size");
  static const std::uint8_t empty = 0;
  return parser(data ? data : &empty, size).run();
}

}  // namespace tritonpack
