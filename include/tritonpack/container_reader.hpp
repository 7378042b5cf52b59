// tritonpack/container_reader.hpp — parses and validates a container (docs/format.md) once, up
// front, builds the model of model.hpp kernel by kernel on demand, and decodes one image on demand.
//
// Why validate everything at parse time: the run time trusts the model afterwards (indices,
// sizes, strings) without re-checking on the launch path, and a damaged or hostile container is
// refused in one place with a message that names the offending field ("images[3].frame_offset:
// ..."). Every offset/length pair goes through byte_io::range_within, so no arithmetic can wrap.
// The one thing left for later is each zstd frame's own header (content size, length,
// dictionary), checked when that frame is decoded (check_frame) or for all by verify_frames():
// parse touches the tables, never the data section.
//
// The model (strings, vectors) is built on demand, per kernel: parse validates every record but
// keeps only integers, and kernel(i) builds kernel i and its images the first time it is asked
// for (info() builds everything). A first launch thus costs the same in a library of 3 kernels
// and in one of 300.
//
// The container does not own the bytes: they are usually the generated header's static array.
// Keep them alive (and unchanged) as long as the container object is used.
#pragma once

#include <cstddef>
#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
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

  // The whole model: every kernel and image, built on the first call (thread-safe).
  const container_info& info() const {
    if (!lazy_->all_built.load(std::memory_order_acquire)) build_all();
    return info_;
  }
  // Kernel `i` (< kernel_count()) and the images its variants use, built on first use
  // (thread-safe). A first launch builds only its own kernel: the cost of parsing does not grow
  // with the number of kernels in the library.
  const kernel_info& kernel(std::size_t i) const {
    if (i >= info_.kernels.size())
      codec::fail(errc::bad_argument, "", "kernel index %zu out of range (%zu kernels)", i, info_.kernels.size());
    if (!lazy_->kernel_built[i].load(std::memory_order_acquire)) build_kernel(i);
    return info_.kernels[i];
  }
  // The model as built so far: complete for every kernel returned by kernel() (and its images);
  // other entries may still be empty. info() is the complete one.
  const container_info& partial_info() const noexcept { return info_; }
  std::size_t kernel_count() const noexcept { return info_.kernels.size(); }
  const std::vector<frame_view>& frames() const noexcept { return frames_; }
  // Offset of image `i` inside its decoded frame.
  std::uint64_t frame_offset(std::uint32_t i) const { return images_.at(i).offset; }
  std::uint32_t frame_of(std::uint32_t i) const { return images_.at(i).frame; }
  const std::uint8_t* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  // The header's tables_checksum, verified at parse time: the container's identity (it covers every
  // table, so every name, argument and image checksum), which generated headers check.
  std::uint64_t tables_checksum() const noexcept { return byte_io::load_u64(data_ + format::header::tables_checksum); }

  // Index of the kernel called `name`, or -1. Reads the names in place: builds nothing.
  long find_kernel(std::string_view name) const noexcept;

  // The raw bytes of image `image_index`: decodes its frame only as far as the image's end (never
  // more than the recorded raw size) and checks the XXH64 recorded for it. Thread-safe.
  std::vector<std::uint8_t> decode_image(std::uint32_t image_index) const {
    if (image_index >= images_.size())
      codec::fail(errc::bad_argument, "", "image index %u out of range (%zu images)", image_index, images_.size());
    const image_location& im = images_[image_index];
    const frame_view& f = frames_[im.frame];
    const std::uint64_t begin = im.offset;
    const std::uint64_t end = begin + im.raw_size;  // validated: end <= f.raw_size
    std::vector<std::uint8_t> out;
    if (f.codec == format::codec_stored) {
      out.assign(data_ + f.offset + begin, data_ + f.offset + end);
    } else if (end == 0) {
      // A zero-byte image first in its frame: nothing to decode.
    } else {
      check_frame(im.frame);
      const ZSTD_DDict* dict = f.uses_dictionary ? ddict_.get() : nullptr;
      if (end == f.raw_size && begin == 0) {  // the whole frame: one shot, straight into the result
        out.resize(static_cast<std::size_t>(end));
        codec::decode_zstd_prefix(data_ + f.offset, f.stored_size, f.raw_size, dict, out.data(), out.size(), out.size(),
                                  image_index, im.frame);
      } else {
        // Room for the whole frame lets zstd decode in place (decode_zstd_prefix); the buffer is
        // not zero-filled, so only the pages of the decoded prefix are ever touched. Frames above
        // 64 MiB decode through zstd's own window instead of reserving that much.
        const bool whole = f.raw_size <= (std::uint64_t{64} << 20);
        const std::size_t capacity = static_cast<std::size_t>(whole ? f.raw_size : end);
        std::unique_ptr<std::uint8_t[]> buf(new (std::nothrow) std::uint8_t[capacity]);
        if (!buf)
          codec::fail(errc::out_of_memory, "", "images[%u] (frames[%u]): cannot allocate %zu bytes to decode into", image_index,
                      im.frame, capacity);
        codec::decode_zstd_prefix(data_ + f.offset, f.stored_size, f.raw_size, dict, buf.get(), static_cast<std::size_t>(end),
                                  capacity, image_index, im.frame);
        out.assign(buf.get() + begin, buf.get() + end);
      }
    }
    const std::uint64_t sum = xxh64(out.data(), out.size());
    if (sum != im.checksum)
      codec::fail(errc::bad_container, "", "images[%u] (frames[%u]): checksum of the decoded bytes is 0x%016llx, the container records 0x%016llx (the container is damaged)",
                  image_index, im.frame, static_cast<unsigned long long>(sum),
                  static_cast<unsigned long long>(im.checksum));
    return out;
  }

  // Checks every zstd frame's header against the frame table (what decode_image checks of the one
  // frame it decodes): `tritonpack inspect` and tests call it to vet a whole container.
  void verify_frames() const {
    for (std::uint32_t i = 0; i < frames_.size(); ++i) check_frame(i);
  }

  static std::string hex(std::uint64_t v) {
    static const char digits[] = "0123456789abcdef";
    std::string s = "0x0000000000000000";
    for (int i = 0; i < 16; ++i) s[17 - i] = digits[(v >> (4 * i)) & 0xF];
    return s;
  }

 private:
  class parser;
  // What decoding needs of an image, kept for all of them at parse time (integers only).
  struct image_location {
    std::uint32_t frame = 0;
    std::uint64_t offset = 0;       // in the decoded frame
    std::uint64_t raw_size = 0;
    std::uint64_t checksum = 0;
    std::uint64_t stored_size = 0;  // share of the frame's stored bytes (image_info::stored_size)
  };
  struct section_range {
    std::uint64_t offset = 0, size = 0, count = 0;
  };
  // Which parts of info_ are built. Behind a pointer so the container stays movable.
  struct lazy_state {
    std::mutex mutex;
    std::unique_ptr<std::atomic<bool>[]> kernel_built;
    std::vector<bool> image_built;  // under `mutex`
    std::atomic<bool> all_built{false};
  };

  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  // Header fields at parse time; kernels and images sized at parse time and filled on demand
  // (mutable: filling them is not an observable change, and it happens under lazy_->mutex).
  mutable container_info info_;
  std::vector<image_location> images_;
  std::vector<frame_view> frames_;
  section_range sections_[format::section_count];
  std::unique_ptr<lazy_state> lazy_;
  codec::ddict_ptr ddict_;
  unsigned dict_id_ = 0;

  void build_kernel(std::size_t i) const;
  void build_all() const;
  void build_image(parser& p, std::size_t i) const;  // under lazy_->mutex

  // A zstd frame's own header must agree with the frame table (one frame, exactly stored_size
  // bytes, content size = raw_size, the container's dictionary). Checked when the frame is
  // decoded rather than at parse time: walking every frame's block headers would touch the whole
  // data section — every page of a large container — before the first launch.
  void check_frame(std::uint32_t i) const {
    const frame_view& f = frames_[i];
    if (f.codec != format::codec_zstd) return;
    char why[256];
    if (codec::check_zstd_frame(data_ + f.offset, f.stored_size, f.raw_size, dict_id_, f.uses_dictionary, why))
      codec::fail(errc::bad_container, "", "frames[%u]: %s", i, why);
  }
};

// One set of record readers serves two purposes:
//  * validate (parse time): every record is read and checked into a scratch object that is reused
//    from record to record (strings are checked in place, vectors keep their capacity, so there is
//    no allocation per record) and thrown away — only the header fields and the images' locations
//    are kept;
//  * build (first use of a kernel, or info()): the records of one kernel, or one image, are read
//    again into the model; they were all checked at parse time, so nothing can fail here.
class container::parser {
 public:
  parser(const std::uint8_t* data, std::size_t size) : d_(data), n_(size) {}
  // For building: the sections of an already validated container.
  explicit parser(const container& c) : d_(c.data_), n_(c.size_), build_(true) {
    for (std::uint32_t s = 0; s < format::section_count; ++s) sec_[s] = c.sections_[s];
  }

  container run() {
    container c;
    c.data_ = d_;
    c.size_ = n_;
    read_header(c);
    validate_tables(c);
    read_frames(c);
    for (std::uint32_t s = 0; s < format::section_count; ++s) c.sections_[s] = sec_[s];
    c.info_.kernels.resize(static_cast<std::size_t>(sec_[format::sec_kernels].count));
    c.info_.images.resize(static_cast<std::size_t>(sec_[format::sec_images].count));
    c.lazy_ = std::make_unique<lazy_state>();
    c.lazy_->kernel_built.reset(new std::atomic<bool>[c.info_.kernels.size() + 1]);
    for (std::size_t i = 0; i < c.info_.kernels.size(); ++i) c.lazy_->kernel_built[i].store(false, std::memory_order_relaxed);
    c.lazy_->image_built.assign(c.info_.images.size(), false);
    return c;
  }

  // Build mode: the model's entries for kernel `i` and image `i`.
  void build_kernel(std::uint64_t i, kernel_info& k) {
    std::uint64_t next[5] = {};
    read_kernel(i, k, next, nullptr);
  }
  void build_image(std::uint64_t i, image_info& im) {
    std::uint64_t next_td = 0;
    read_image(i, im, next_td, nullptr);
  }
  std::string_view kernel_name(std::uint64_t i) const {
    return view(rec(format::sec_kernels, i) + format::kernel_rec::name, {"kernels", i, "name"});
  }

 private:
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

  const std::uint8_t* d_;
  std::size_t n_;
  bool build_ = false;  // building from validated records: the tiling checks are skipped
  section_range sec_[format::section_count];
  std::uint64_t next_dim_ = 0;

  [[noreturn]] TRITONPACK_COLD TRITONPACK_PRINTF(2, 3) static void fail(const field_ref& f, const char* fmt, ...) {
    char name[128];
    if (f.index == no_index)
      std::snprintf(name, sizeof name, "%s%s%s%s%s", f.a, f.b ? "." : "", f.b ? f.b : "", f.c ? "." : "", f.c ? f.c : "");
    else
      std::snprintf(name, sizeof name, "%s[%llu]%s%s%s%s", f.a, static_cast<u64>(f.index), f.b ? "." : "", f.b ? f.b : "",
                    f.c ? "." : "", f.c ? f.c : "");
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    throw error(errc::bad_container, std::string("container: ") + name + ": " + msg);
  }

  const std::uint8_t* rec(std::uint32_t s, std::uint64_t i) const { return d_ + sec_[s].offset + i * format::record_size[s]; }
  static std::uint32_t u32(const std::uint8_t* p) noexcept { return byte_io::load_u32(p); }
  static std::uint64_t u64v(const std::uint8_t* p) noexcept { return byte_io::load_u64(p); }

  // A string field, in place (range-checked against the string table).
  std::string_view view(const std::uint8_t* at, const field_ref& f) const {
    const std::uint32_t off = u32(at), len = u32(at + 4);
    const section_range& s = sec_[format::sec_strings];
    if (!byte_io::range_within(off, len, s.size))
      fail(f, "string at offset %u with length %u runs past the string table (%llu bytes)", off, len, static_cast<u64>(s.size));
    return std::string_view(reinterpret_cast<const char*>(d_ + s.offset + off), len);
  }
  // A string field: checked always, copied into `to` only when building (validation reads it in
  // place). Out of line: one copy of this code instead of one per string field.
  TRITONPACK_NOINLINE std::string_view str(std::string& to, const std::uint8_t* at, const field_ref& f) const {
    const std::string_view v = view(at, f);
    if (build_) to.assign(v);
    return v;
  }

  static void zero(const std::uint8_t* p, std::size_t n, const field_ref& f) {
    for (std::size_t i = 0; i < n; ++i)
      if (p[i] != 0) fail(f, "reserved byte %zu is %u, must be 0", i, static_cast<unsigned>(p[i]));
  }

  static bool pow2(std::uint32_t v) noexcept { return v != 0 && (v & (v - 1)) == 0; }

  // A child range [first, first+count) of `child` that must start where the previous parent's
  // ended (`next`): runs tile the child table in order, so none overlap and none are orphaned.
  void run_range(std::uint32_t first, std::uint32_t count, std::uint64_t& next, std::uint32_t child, const field_ref& f_first,
                 const field_ref& f_count) const {
    if (!build_ && first != next)
      fail(f_first, "is %u, expected %llu (runs of %s must follow each other in order)", first, static_cast<u64>(next),
           format::section_name(child));
    if (!byte_io::range_within(first, count, sec_[child].count))
      fail(f_count, "is %u: %u + %u exceeds the %llu records of %s", count, first, count, static_cast<u64>(sec_[child].count),
           format::section_name(child));
    next = std::uint64_t{first} + count;
  }

  void run_end(std::uint64_t next, std::uint32_t child, const char* parent) const {
    if (next != sec_[child].count)
      fail({"sections", no_index, format::section_name(child)}, "holds %llu records but the %s use %llu",
           static_cast<u64>(sec_[child].count), parent, static_cast<u64>(next));
  }

  void read_header(container& c) {
    namespace H = format::header;
    if (n_ < format::magic_size || std::memcmp(d_, format::magic, format::magic_size) != 0)
      fail({"header", no_index, "magic"}, "not a tritonpack container (expected \\x89TPK\\r\\n\\x1a\\n)");
    if (n_ < 12) fail({"header", no_index, "version"}, "truncated: the container is %zu bytes", n_);
    const std::uint32_t version = u32(d_ + H::version);
    if (version != format::format_version)
      fail({"header", no_index, "version"}, "format version %u is not supported (this reader reads version %u)", version,
           format::format_version);
    if (n_ < H::size) fail({"header"}, "truncated: the container is %zu bytes, the v1 header alone is %zu", n_, H::size);
    const std::uint32_t hsize = u32(d_ + H::header_size);
    if (hsize != H::size) fail({"header", no_index, "header_size"}, "is %u, v1 requires %zu", hsize, H::size);
    const std::uint64_t total = u64v(d_ + H::total_size);
    if (total != n_)
      fail({"header", no_index, "total_size"}, "is %llu but %zu bytes were given (%s)", static_cast<u64>(total), n_,
           total < n_ ? "trailing bytes" : "truncated");
    const std::uint32_t flags = u32(d_ + H::flags);
    if (flags != 0) fail({"header", no_index, "flags"}, "is %u, must be 0 in v1", flags);
    const std::uint32_t nsec = u32(d_ + H::section_count);
    if (nsec != format::section_count)
      fail({"header", no_index, "section_count"}, "is %u, v1 has %u", nsec, static_cast<unsigned>(format::section_count));
    zero(d_ + H::reserved, 8, {"header", no_index, "reserved"});

    // Sections: in order, 8-aligned, separated only by minimal zero padding, ending exactly at
    // the end of the container.
    std::uint64_t pos = H::size;
    for (std::uint32_t s = 0; s < format::section_count; ++s) {
      const std::uint8_t* e = d_ + H::sections + s * H::section_entry_size;
      const std::uint64_t off = u64v(e), size = u64v(e + 8);
      const char* sn = format::section_name(s);
      const std::uint64_t aligned = (pos + format::section_align - 1) / format::section_align * format::section_align;
      if (off != aligned)
        fail({"sections", no_index, sn, "offset"}, "is %llu, expected %llu (sections follow each other in order, 8-byte aligned)",
             static_cast<u64>(off), static_cast<u64>(aligned));
      if (!byte_io::range_within(off, size, n_))
        fail({"sections", no_index, sn, "size"}, "is %llu: the section would run past the container's %zu bytes", static_cast<u64>(size), n_);
      zero(d_ + pos, static_cast<std::size_t>(off - pos), {"sections", no_index, sn, "padding"});
      if (size % format::record_size[s] != 0)
        fail({"sections", no_index, sn, "size"}, "is %llu, not a multiple of the %u-byte record", static_cast<u64>(size),
             format::record_size[s]);
      sec_[s] = {off, size, size / format::record_size[s]};
      if (sec_[s].count > 0xFFFFFFFFull) fail({"sections", no_index, sn, "size"}, "holds more than 2^32-1 records");
      pos = off + size;
    }
    if (pos != n_) fail({"sections", no_index, "data", "size"}, "the data section ends at %llu, the container at %zu", static_cast<u64>(pos), n_);

    // Tables checksum: everything before the frame data, with the checksum field itself zero.
    const std::uint64_t recorded = u64v(d_ + H::tables_checksum);
    const std::size_t covered = static_cast<std::size_t>(sec_[format::sec_data].offset);
    static const std::uint8_t zeros[8] = {};
    xxh64_stream hash;
    hash.update(d_, H::tables_checksum);
    hash.update(zeros, 8);
    hash.update(d_ + H::tables_checksum + 8, covered - (H::tables_checksum + 8));
    const std::uint64_t actual = hash.digest();
    if (actual != recorded)
      fail({"header", no_index, "tables_checksum"}, "is 0x%016llx but the header and tables hash to 0x%016llx (the container is damaged)",
           static_cast<u64>(recorded), static_cast<u64>(actual));

    c.info_.format_version = version;
    c.info_.name.assign(view(d_ + H::name, {"header", no_index, "name"}));
    c.info_.triton_version.assign(view(d_ + H::triton_version, {"header", no_index, "triton_version"}));
  }

  // Every image and kernel record, checked into scratch objects; what decoding needs of each
  // image is kept in c.images_.
  void validate_tables(container& c) {
    using namespace format;
    const std::uint64_t nimages = sec_[sec_images].count;
    c.images_.resize(static_cast<std::size_t>(nimages));
    image_info im;
    std::uint64_t next_td = 0;
    for (std::uint64_t i = 0; i < nimages; ++i) read_image(i, im, next_td, &c.images_[static_cast<std::size_t>(i)]);
    run_end(next_td, sec_tensordescs, "images");
    run_end(next_dim_, sec_dims, "tensordescs");

    const std::uint64_t nkernels = sec_[sec_kernels].count;
    kernel_info k;
    std::uint64_t next[5] = {};  // args, variants, specs, constexprs, image refs
    std::set<std::string_view> names;
    for (std::uint64_t i = 0; i < nkernels; ++i) read_kernel(i, k, next, &names);
    run_end(next[0], sec_args, "kernels");
    run_end(next[1], sec_variants, "kernels");
    run_end(next[2], sec_specs, "variants");
    run_end(next[3], sec_constexprs, "variants");
    run_end(next[4], sec_image_refs, "variants");
  }

  void read_image(std::uint64_t i, image_info& im, std::uint64_t& next_td, image_location* loc) {
    using namespace format;
    const std::uint8_t* r = rec(sec_images, i);
    auto F = [i](const char* field) { return field_ref{"images", i, field}; };
    const unsigned b = r[image_rec::backend], k = r[image_rec::kind], lf = r[image_rec::launch_flags];
    if (b != 1 && b != 2) fail(F("backend"), "is %u, must be 1 (cuda) or 2 (hip)", b);
    if (k < 1 || k > 4) fail(F("kind"), "is %u, must be 1 (cubin), 2 (ptx), 3 (hsaco) or 4 (llir)", k);
    im.backend = static_cast<backend_kind>(b);
    im.kind = static_cast<image_kind>(k);
    const bool cuda_kind = im.kind == image_kind::cubin || im.kind == image_kind::ptx;
    if (cuda_kind != (im.backend == backend_kind::cuda))
      fail(F("kind"), "%s does not belong to backend %s", image_kind_name(im.kind), backend_name(im.backend));
    if (lf & ~unsigned{image_rec::flag_cooperative | image_rec::flag_pdl})
      fail(F("launch_flags"), "is %u, only bits 0 (cooperative) and 1 (pdl) are defined", lf);
    if ((lf & image_rec::flag_pdl) && im.backend != backend_kind::cuda) fail(F("launch_flags"), "PDL is set on a hip image (HIP has no PDL)");
    im.launch.launch_cooperative_grid = (lf & image_rec::flag_cooperative) != 0;
    im.launch.launch_pdl = (lf & image_rec::flag_pdl) != 0;
    zero(r + image_rec::reserved0, 1, F("reserved0"));
    im.ptx_version = u32(r + image_rec::ptx_version);
    if (im.kind == image_kind::ptx && (im.ptx_version < 10 || im.ptx_version > 999))
      fail(F("ptx_version"), "is %u, a PTX image needs its ISA as major*10+minor (8.7 -> 87)", im.ptx_version);
    if (im.kind != image_kind::ptx && im.ptx_version != 0)
      fail(F("ptx_version"), "is %u on a %s image, must be 0", im.ptx_version, image_kind_name(im.kind));
    if (str(im.arch, r + image_rec::arch, F("arch")).empty()) fail(F("arch"), "is empty");
    if (str(im.launch.entry, r + image_rec::entry, F("entry")).empty()) fail(F("entry"), "is empty");
    str(im.launch.triton_version, r + image_rec::triton_version, F("triton_version"));
    im.raw_size = u64v(r + image_rec::raw_size);
    im.checksum = u64v(r + image_rec::checksum);
    const std::uint32_t frame = u32(r + image_rec::frame);
    if (frame >= sec_[sec_frames].count)
      fail(F("frame"), "is %u, the container has %llu frames", frame, static_cast<u64>(sec_[sec_frames].count));
    zero(r + image_rec::reserved1, 4, F("reserved1"));
    if (loc) {
      loc->frame = frame;
      loc->offset = u64v(r + image_rec::frame_offset);
      loc->raw_size = im.raw_size;
      loc->checksum = im.checksum;
    }
    launch_info& L = im.launch;
    L.num_warps = u32(r + image_rec::num_warps);
    if (L.num_warps == 0 || L.num_warps > 64) fail(F("num_warps"), "is %u, must be 1..64", L.num_warps);
    L.warp_size = u32(r + image_rec::warp_size);
    if (L.warp_size != 32 && L.warp_size != 64) fail(F("warp_size"), "is %u, must be 32 or 64", L.warp_size);
    L.shared = u32(r + image_rec::shared);
    L.num_ctas = u32(r + image_rec::num_ctas);
    if (L.num_ctas == 0 || L.num_ctas > 16) fail(F("num_ctas"), "is %u, must be 1..16", L.num_ctas);
    L.tmem_size = u32(r + image_rec::tmem_size);
    L.global_scratch_align = u32(r + image_rec::global_scratch_align);
    if (!pow2(L.global_scratch_align)) fail(F("global_scratch_align"), "is %u, must be a power of two", L.global_scratch_align);
    L.global_scratch_size = u64v(r + image_rec::global_scratch_size);
    L.profile_scratch_size = u64v(r + image_rec::profile_scratch_size);
    L.profile_scratch_align = u32(r + image_rec::profile_scratch_align);
    if (!pow2(L.profile_scratch_align)) fail(F("profile_scratch_align"), "is %u, must be a power of two", L.profile_scratch_align);
    const std::uint32_t td_first = u32(r + image_rec::first_tensordesc), td_count = u32(r + image_rec::tensordesc_count);
    run_range(td_first, td_count, next_td, sec_tensordescs, F("first_tensordesc"), F("tensordesc_count"));
    zero(r + image_rec::reserved2, 4, F("reserved2"));
    L.tensordesc.resize(td_count);
    for (std::uint32_t t = 0; t < td_count; ++t) read_tensordesc(td_first + t, L.tensordesc[t]);
  }

  // `next`: where the runs of args, variants, specs, constexprs and image refs must continue.
  void read_kernel(std::uint64_t i, kernel_info& k, std::uint64_t (&next)[5], std::set<std::string_view>* names) {
    using namespace format;
    const std::uint64_t nimages = sec_[sec_images].count;
    const std::uint8_t* r = rec(sec_kernels, i);
    auto F = [i](const char* field, const char* sub = nullptr) { return field_ref{"kernels", i, field, sub}; };
    const std::string_view name = view(r + kernel_rec::name, F("name"));
    if (name.empty()) fail(F("name"), "is empty");
    if (names && !names->insert(name).second)
      fail(F("name"), "\"%.*s\" is also the name of an earlier kernel", static_cast<int>(name.size()), name.data());
    if (build_) k.name.assign(name);
    str(k.source, r + kernel_rec::source, F("source"));
    static const char* const axis[3] = {"x", "y", "z"};
    int empty_axes = 0;
    for (int a = 0; a < 3; ++a) {
      empty_axes += str(k.grid[a], r + kernel_rec::grid + a * str_size, F("grid", axis[a])).empty();
    }
    if (empty_axes != 0 && empty_axes != 3) fail(F("grid"), "has %d of 3 expressions; give all three or none", 3 - empty_axes);
    const std::uint32_t a0 = u32(r + kernel_rec::first_arg), an = u32(r + kernel_rec::arg_count);
    run_range(a0, an, next[0], sec_args, F("first_arg"), F("arg_count"));
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
      if (fl & ~unsigned{arg_rec::flag_const}) fail(A("flags"), "is %u, only bit 0 (const) is defined", fl);
      arg.is_const = (fl & arg_rec::flag_const) != 0;
      if (arg.is_const && type[0] != '*' && type.compare(0, 10, "tensordesc") != 0)
        fail(A("flags"), "const is set on \"%.*s\", which is not a pointer or tensor descriptor", static_cast<int>(type.size()),
             type.data());
      zero(ar + arg_rec::reserved, 7, A("reserved"));
    }
    const std::uint32_t v0 = u32(r + kernel_rec::first_variant), vn = u32(r + kernel_rec::variant_count);
    run_range(v0, vn, next[1], sec_variants, F("first_variant"), F("variant_count"));
    if (vn == 0) fail(F("variant_count"), "is 0; a kernel needs at least one variant");
    k.variants.resize(vn);
    for (std::uint32_t v = 0; v < vn; ++v) read_variant(v0 + v, an, k.variants[v], nimages, next[2], next[3], next[4]);
  }

  void read_variant(std::uint64_t vi, std::uint32_t nargs, variant_info& var, std::uint64_t nimages, std::uint64_t& next_spec,
                    std::uint64_t& next_cx, std::uint64_t& next_ref) {
    using namespace format;
    const std::uint8_t* vr = rec(sec_variants, vi);
    auto V = [vi](const char* field) { return field_ref{"variants", vi, field}; };
    const std::uint32_t s0 = u32(vr + variant_rec::first_spec), sn = u32(vr + variant_rec::spec_count);
    run_range(s0, sn, next_spec, sec_specs, V("first_spec"), V("spec_count"));
    if (sn != nargs) fail(V("spec_count"), "is %u, the kernel has %u args", sn, nargs);
    var.specs.resize(sn);
    for (std::uint32_t s = 0; s < sn; ++s) {
      const std::uint8_t* sr = rec(sec_specs, s0 + s);
      const std::uint64_t si = std::uint64_t{s0} + s;
      const unsigned kind = sr[spec_rec::kind];
      if (kind > 3) fail({"specs", si, "kind"}, "is %u, must be 0..3 (none, div16, equal1, constexpr)", kind);
      zero(sr + spec_rec::reserved, 3, {"specs", si, "reserved"});
      var.specs[s].kind = static_cast<spec_kind>(kind);
      if ((kind == 3) == str(var.specs[s].value, sr + spec_rec::value, {"specs", si, "value"}).empty())
        fail({"specs", si, "value"}, "%s", kind == 3 ? "is empty for a constexpr spec" : "must be empty unless the spec is a constexpr");
    }
    kernel_config& cfg = var.config;
    cfg.num_warps = u32(vr + variant_rec::num_warps);
    if (cfg.num_warps == 0 || cfg.num_warps > 64) fail(V("num_warps"), "is %u, must be 1..64", cfg.num_warps);
    cfg.num_stages = u32(vr + variant_rec::num_stages);
    cfg.num_ctas = u32(vr + variant_rec::num_ctas);
    if (cfg.num_ctas == 0 || cfg.num_ctas > 16) fail(V("num_ctas"), "is %u, must be 1..16", cfg.num_ctas);
    const std::uint32_t c0 = u32(vr + variant_rec::first_constexpr), cn = u32(vr + variant_rec::constexpr_count);
    run_range(c0, cn, next_cx, sec_constexprs, V("first_constexpr"), V("constexpr_count"));
    cfg.constexprs.resize(cn);
    for (std::uint32_t x = 0; x < cn; ++x) {
      const std::uint8_t* cr = rec(sec_constexprs, c0 + x);
      const std::uint64_t ci = std::uint64_t{c0} + x;
      if (str(cfg.constexprs[x].first, cr + constexpr_rec::name, {"constexprs", ci, "name"}).empty())
        fail({"constexprs", ci, "name"}, "is empty");
      str(cfg.constexprs[x].second, cr + constexpr_rec::value, {"constexprs", ci, "value"});
    }
    const std::uint32_t r0 = u32(vr + variant_rec::first_image_ref), rn = u32(vr + variant_rec::image_ref_count);
    run_range(r0, rn, next_ref, sec_image_refs, V("first_image_ref"), V("image_ref_count"));
    zero(vr + variant_rec::reserved, 4, V("reserved"));
    var.images.resize(rn);
    for (std::uint32_t x = 0; x < rn; ++x) {
      const std::uint32_t im = u32(rec(sec_image_refs, r0 + x));
      if (im >= nimages) fail({"image_refs", std::uint64_t{r0} + x}, "is %u, the container has %llu images", im, static_cast<u64>(nimages));
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
    const std::uint32_t d0 = u32(r + tensordesc_rec::first_dim), dn = u32(r + tensordesc_rec::dim_count);
    run_range(d0, dn, next_dim_, sec_dims, T("first_dim"), T("dim_count"));
    if (dn == 0 || dn > 5) fail(T("dim_count"), "is %u, a tensor descriptor has 1..5 dimensions", dn);
    t.block_size.resize(dn);
    for (std::uint32_t d = 0; d < dn; ++d) t.block_size[d] = u32(rec(sec_dims, d0 + d));
  }

  void read_frames(container& c) {
    using namespace format;
    const section_range& data = sec_[sec_data];
    const section_range& dict = sec_[sec_dictionary];
    c.ddict_ = codec::make_ddict(d_ + dict.offset, static_cast<std::size_t>(dict.size));
    c.dict_id_ = codec::dictionary_id(d_ + dict.offset, static_cast<std::size_t>(dict.size));
    const std::uint64_t nframes = sec_[sec_frames].count;
    c.frames_.resize(static_cast<std::size_t>(nframes));
    std::uint64_t next_offset = 0;
    for (std::uint64_t i = 0; i < nframes; ++i) {
      const std::uint8_t* r = rec(sec_frames, i);
      auto F = [i](const char* field) { return field_ref{"frames", i, field}; };
      frame_view& fv = c.frames_[static_cast<std::size_t>(i)];
      const std::uint64_t off = u64v(r + frame_rec::offset);
      if (off != next_offset)
        fail(F("offset"), "is %llu, expected %llu (frames follow each other in the data section)", static_cast<u64>(off),
             static_cast<u64>(next_offset));
      fv.stored_size = u64v(r + frame_rec::stored_size);
      if (!byte_io::range_within(off, fv.stored_size, data.size))
        fail(F("stored_size"), "is %llu: the frame would run past the data section (%llu bytes)", static_cast<u64>(fv.stored_size),
             static_cast<u64>(data.size));
      next_offset = off + fv.stored_size;
      fv.offset = data.offset + off;
      fv.raw_size = u64v(r + frame_rec::raw_size);
      fv.codec = u32(r + frame_rec::codec);
      const std::uint32_t flags = u32(r + frame_rec::flags);
      if (flags & ~frame_rec::flag_dictionary) fail(F("flags"), "is %u, only bit 0 (dictionary) is defined", flags);
      fv.uses_dictionary = (flags & frame_rec::flag_dictionary) != 0;
      if (fv.raw_size > max_frame_raw_size) fail(F("raw_size"), "is %llu, above the 4 GiB limit", static_cast<u64>(fv.raw_size));
      if (fv.codec == codec_stored) {
        if (fv.stored_size != fv.raw_size)
          fail(F("raw_size"), "is %llu but a stored frame's raw_size must equal its stored_size (%llu)", static_cast<u64>(fv.raw_size),
               static_cast<u64>(fv.stored_size));
        if (fv.uses_dictionary) fail(F("flags"), "a stored frame cannot use the dictionary");
      } else if (fv.codec == codec_zstd) {
        if (fv.uses_dictionary && dict.size == 0) fail(F("flags"), "the frame uses the dictionary but the container has none");
        if (fv.raw_size / max_expansion > fv.stored_size)
          fail(F("raw_size"), "is %llu, more than zstd can encode in %llu bytes", static_cast<u64>(fv.raw_size),
               static_cast<u64>(fv.stored_size));
      } else {
        fail(F("codec"), "is %u, must be 0 (stored) or 1 (zstd)", fv.codec);
      }
    }
    if (next_offset != data.size)
      fail({"sections", no_index, "data", "size"}, "is %llu but the frames account for %llu bytes", static_cast<u64>(data.size),
           static_cast<u64>(next_offset));

    // Images tile the frames in order: each frame holds a contiguous, non-empty run of images
    // laid end to end from offset 0 to its raw_size.
    std::uint64_t pos = 0;
    std::uint32_t cur = 0;
    const std::size_t nimages = c.images_.size();
    if (nframes == 0 && nimages != 0) fail({"sections", no_index, "frames"}, "is empty but the container has images");
    for (std::size_t i = 0; i < nimages; ++i) {
      const std::uint32_t fr = c.images_[i].frame;
      if (fr != cur) {
        if (fr != cur + 1 || c.frames_[cur].image_count == 0)
          fail({"images", i, "frame"}, "is %u, expected %u (images are stored in frame order and every frame holds at least one)", fr,
               c.frames_[cur].image_count == 0 ? cur : cur + 1);
        if (pos != c.frames_[cur].raw_size)
          fail({"frames", cur, "raw_size"}, "is %llu but its images add up to %llu", static_cast<u64>(c.frames_[cur].raw_size),
               static_cast<u64>(pos));
        cur = fr;
        pos = 0;
      }
      if (c.frames_[cur].image_count == 0) c.frames_[cur].first_image = static_cast<std::uint32_t>(i);
      ++c.frames_[cur].image_count;
      const std::uint64_t off = c.images_[i].offset;
      if (off != pos)
        fail({"images", i, "frame_offset"}, "is %llu, expected %llu (images follow each other in their frame)", static_cast<u64>(off),
             static_cast<u64>(pos));
      const image_location& im = c.images_[i];
      if (!byte_io::range_within(off, im.raw_size, c.frames_[cur].raw_size))
        fail({"images", i, "raw_size"}, "is %llu: the image would run past the end of frame %u (%llu bytes)", static_cast<u64>(im.raw_size),
             cur, static_cast<u64>(c.frames_[cur].raw_size));
      pos = off + im.raw_size;
    }
    if (nframes != 0) {
      if (nimages == 0 || cur + 1 != nframes) fail({"frames", nimages == 0 ? 0 : cur + 1u}, "holds no image (every frame holds at least one)");
      if (pos != c.frames_[cur].raw_size)
        fail({"frames", cur, "raw_size"}, "is %llu but its images add up to %llu", static_cast<u64>(c.frames_[cur].raw_size),
             static_cast<u64>(pos));
    }

    // Each image's share of its frame's stored bytes, proportional to its raw size; the last image
    // of a frame takes the remainder so the shares add up to the frame's stored size exactly.
    for (const frame_view& fv : c.frames_) {
      std::uint64_t given = 0;
      for (std::uint32_t k = 0; k < fv.image_count; ++k) {
        image_location& im = c.images_[fv.first_image + k];
        std::uint64_t share;
        if (k + 1 == fv.image_count) {
          share = fv.stored_size - given;
        } else if (fv.raw_size == 0) {
          share = 0;
        } else {
          // Both sizes can exceed 2^32, so the product is taken in long double, not uint64.
          share = static_cast<std::uint64_t>(static_cast<long double>(fv.stored_size) * im.raw_size / fv.raw_size);
          if (share > fv.stored_size - given) share = fv.stored_size - given;
        }
        im.stored_size = share;
        given += share;
      }
    }
  }
};

inline long container::find_kernel(std::string_view name) const noexcept {
  const parser p(*this);  // the names were validated at parse time: viewing them cannot fail
  for (std::size_t i = 0; i < info_.kernels.size(); ++i)
    if (p.kernel_name(i) == name) return static_cast<long>(i);
  return -1;
}

inline void container::build_image(parser& p, std::size_t i) const {
  if (lazy_->image_built[i]) return;
  p.build_image(i, info_.images[i]);
  info_.images[i].stored_size = images_[i].stored_size;
  lazy_->image_built[i] = true;
}

inline void container::build_kernel(std::size_t i) const {
  std::lock_guard<std::mutex> lock(lazy_->mutex);
  if (lazy_->kernel_built[i].load(std::memory_order_relaxed)) return;  // another thread built it
  parser p(*this);
  kernel_info& k = info_.kernels[i];
  p.build_kernel(i, k);
  for (const variant_info& v : k.variants)
    for (std::uint32_t im : v.images) build_image(p, im);
  lazy_->kernel_built[i].store(true, std::memory_order_release);
}

inline void container::build_all() const {
  for (std::size_t i = 0; i < info_.kernels.size(); ++i) kernel(i);
  std::lock_guard<std::mutex> lock(lazy_->mutex);
  if (lazy_->all_built.load(std::memory_order_relaxed)) return;
  parser p(*this);
  for (std::size_t im = 0; im < info_.images.size(); ++im) build_image(p, im);  // images no variant refers to
  lazy_->all_built.store(true, std::memory_order_release);
}

inline container container::parse(const std::uint8_t* data, std::size_t size) {
  if (data == nullptr && size != 0) throw error(errc::bad_container, "container: null data with non-zero size");
  static const std::uint8_t empty = 0;
  return parser(data ? data : &empty, size).run();
}

}  // namespace tritonpack
