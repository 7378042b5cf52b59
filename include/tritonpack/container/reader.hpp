// tritonpack/container/reader.hpp — a container (docs/format.md) as the run time and the CLI use
// it: parsed and validated once, up front (container/validation.hpp); the model of core/model.hpp
// built kernel by kernel on demand; one image decoded on demand, and any damage to its bytes
// reported as damage, naming the image and its kernel.
//
// The model (strings, vectors) is built on demand, per kernel: parse checks the tables' structure
// and keeps only integers (container/validation.hpp), and kernel(i) builds kernel i and its images
// the first time it is asked for, checking each of their records as it reads it (info() builds,
// and so checks, everything). A first launch thus reads and checks the records of its own kernel
// only, in a library of 3 kernels as in one of 3,000.
//
// Damage: the tables checksum covers everything but the frames' bytes, which parse never reads.
// Those are checked where they are used: decode_image checks its frame's zstd header, decodes,
// and compares the image's XXH64 with the recorded one; find_damage() does the same for every
// image (`tritonpack inspect`). Whatever a damaged byte makes zstd say ("Data corruption
// detected", "Destination buffer is too small", ...), the error says that the container is
// damaged, which image of which kernel, and what to do, with zstd's words as the detail.
//
// The container does not own the bytes: they are usually the generated header's static array.
// Keep them alive (and unchanged) as long as the container object is used.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tritonpack/container/byte_io.hpp"
#include "tritonpack/container/checksum.hpp"
#include "tritonpack/container/codec.hpp"
#include "tritonpack/container/format.hpp"
#include "tritonpack/container/image_view.hpp"
#include "tritonpack/container/ptx_lines.hpp"
#include "tritonpack/container/records.hpp"
#include "tritonpack/container/validation.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/core/load_stats.hpp"
#include "tritonpack/core/model.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

// An image whose bytes are not what was packed, as find_damage() reports it.
struct image_damage {
  std::uint32_t image = 0;
  std::string reason;   // "does not decode (frames[1]: zstd: Data corruption detected)"
  bool checked = true;  // false: not decoded (its frame is above find_damage's limit), so unknown
};

class container {
 public:
  // Validates `size` bytes at `data` as a complete container: no byte may be left over. Throws
  // error(errc::bad_container) naming the first field found wrong.
  static container parse(const std::uint8_t* data, std::size_t size) {
    if (data == nullptr && size != 0)
      throw error(errc::bad_container, "container: null data with non-zero size");
    static const std::uint8_t empty = 0;
    return container(detail::container_validator(data ? data : &empty, size).run());
  }

  // True when `size` bytes at `data` begin with the magic; then `total_size` is what the header
  // says the container's length is (unchecked). Used to find containers inside other files.
  static bool probe(const std::uint8_t* data, std::size_t size,
                    std::uint64_t& total_size) noexcept {
    if (size < format::header::size_v1 || std::memcmp(data, format::magic, format::magic_size) != 0)
      return false;
    total_size = byte_io::load_u64(data + format::header::total_size);
    return true;
  }

  // The whole model: every kernel and image, built (and each record checked) on the first call
  // (thread-safe). A record that breaks a rule of docs/format.md throws error(bad_container)
  // naming its field, as kernel() does.
  const container_info& info() const {
    if (!lazy_->all_built.load(std::memory_order_acquire)) build_all();
    return info_;
  }
  // Kernel `i` (< kernel_count()) and the images its variants use, built on first use
  // (thread-safe). A first launch builds only its own kernel: what this costs does not grow with
  // the number of kernels in the library. A record of the kernel or of its images that breaks a
  // rule (a hostile container whose tables checksum was made to match) throws
  // error(bad_container) naming the field, on every call, and leaves the other kernels usable.
  const kernel_info& kernel(std::size_t i) const {
    if (i >= info_.kernels.size())
      codec::fail(errc::bad_argument, "", "kernel index %zu out of range (%zu kernels)", i,
                  info_.kernels.size());
    if (!lazy_->kernel_built[i].load(std::memory_order_acquire)) build_kernel(i);
    return info_.kernels[i];
  }
  // The model as built so far: complete for every kernel returned by kernel() (and its images);
  // other entries may still be empty. info() is the complete one.
  const container_info& partial_info() const noexcept { return info_; }
  std::size_t kernel_count() const noexcept { return info_.kernels.size(); }
  // Bytes of the zstd dictionary the frames that say so were compressed with (0: none).
  std::size_t dictionary_size() const noexcept { return layout_.ddict ? layout_.ddict->size() : 0; }
  const std::vector<frame_view>& frames() const noexcept { return layout_.frames; }
  // Offset of image `i` inside its decoded frame.
  std::uint64_t frame_offset(std::uint32_t i) const { return layout_.images.at(i).offset; }
  std::uint32_t frame_of(std::uint32_t i) const { return layout_.images.at(i).frame; }
  const std::uint8_t* data() const noexcept { return layout_.data; }
  std::size_t size() const noexcept { return layout_.size; }
  // The header's tables_checksum, verified at parse time: the container's identity (it covers every
  // table, so every name, argument and image checksum), which generated headers check.
  std::uint64_t tables_checksum() const noexcept {
    return byte_io::load_u64(layout_.data + format::header::tables_checksum);
  }

  // Index of the kernel called `name`, or -1. Reads the names in place: builds nothing.
  long find_kernel(std::string_view name) const noexcept {
    const detail::record_reader r = records();  // the names were validated at parse time
    for (std::size_t i = 0; i < info_.kernels.size(); ++i)
      if (r.kernel_name(i) == name) return static_cast<long>(i);
    return -1;
  }

  // The raw bytes of image `image_index`: decodes its frame only as far as the image's end (never
  // more than the recorded raw size) and checks the XXH64 recorded for it. Thread-safe. Bytes
  // that do not decode, or decode to something else, throw error(errc::bad_container) saying the
  // container is damaged, naming the image and its kernel (describe_image) and what to do.
  std::vector<std::uint8_t> decode_image(std::uint32_t image_index) const {
    return decode_view(image_index).take();
  }
  // The same bytes, checked the same way, as a view for a load (image_view): no copy. Thread-safe.
  image_view decode_view(std::uint32_t image_index) const {
    if (image_index >= layout_.images.size())
      codec::fail(errc::bad_argument, "", "image index %u out of range (%zu images)", image_index,
                  layout_.images.size());
    image_view v;
    std::string reason;
    detail::count_load(&detail::image_load_counters::decoded);
    try {
      if (!view_into(image_index, v, reason)) damaged(image_index, reason);
    } catch (const std::bad_alloc&) {
      out_of_memory(image_index);
    }
    return v;
  }

  // What decoding image `i` is a function of, as bytes: its place in its frame and how it is held
  // (offset, sizes, coding, its base image's place), its XXH64, and the frame's codec, sizes and
  // stored bytes. Images with equal identities decode to equal bytes, so a JIT cache entry can be
  // matched to an IR without decoding it (cuda/loading.hpp). Empty where that does not hold as
  // stated or costs more than it saves: a frame that uses the dictionary, or one of more than
  // `max_stored` stored bytes.
  std::vector<std::uint8_t> decode_identity(std::uint32_t i, std::uint64_t max_stored) const {
    const detail::image_location& im = layout_.images.at(i);
    const frame_view& f = layout_.frames[im.frame];
    if (f.uses_dictionary || f.stored_size > max_stored) return {};
    const detail::image_location& base = layout_.images[im.base_image];
    const bool coded = im.coding != format::coding_raw;
    const std::uint64_t fields[] = {f.codec,       f.raw_size,        f.stored_size,
                                    im.coding,     im.offset,         im.frame_size,
                                    im.raw_size,   im.checksum,       coded ? base.offset : 0,
                                    coded ? base.raw_size : 0};
    std::vector<std::uint8_t> id(sizeof fields + static_cast<std::size_t>(f.stored_size));
    for (std::size_t k = 0; k < sizeof fields / 8; ++k) byte_io::store_u64(&id[k * 8], fields[k]);
    std::memcpy(id.data() + sizeof fields, layout_.data + f.offset,
                static_cast<std::size_t>(f.stored_size));
    return id;
  }

  // "image 3 (cuda cubin sm_90a) of kernel vector_add": how messages name image `i`. Reads the
  // records in place: builds nothing.
  std::string describe_image(std::uint32_t i) const {
    if (i >= layout_.images.size()) return "image " + std::to_string(i) + " (out of range)";
    const std::string_view k = kernel_of_image(i);
    return "image " + records().image_label(i) +
           (k.empty() ? std::string(", used by no kernel") : " of kernel " + std::string(k));
  }
  // The name of the first kernel whose variants list image `i`; empty when none does. Reads the
  // records in place.
  std::string_view kernel_of_image(std::uint32_t i) const { return records().kernel_of_image(i); }

  // Checks every zstd frame's header against the frame table (what decode_image checks of the one
  // frame it decodes), without decoding; a mismatch throws the damaged error for the frame's first
  // image.
  void verify_frames() const {
    char why[256];
    for (std::uint32_t i = 0; i < layout_.frames.size(); ++i)
      if (frame_problem(i, why)) damaged(layout_.frames[i].first_image, decode_reason(i, why));
  }

  // Everything decode_image checks, for every image: each frame is decoded once, whole, and each
  // image's XXH64 compared with the recorded one; a frame that does not decode whole is streamed
  // once more as far as it decodes, so the images before the damage are reported intact (and a
  // damaged frame of many images costs two decodes, not one per image). Frames whose raw_size is
  // above `max_frame_size` are not decoded: their images are reported as not checked. Returns
  // the damaged images in index order (none: the container is exactly what was packed). Memory
  // that cannot be had throws error(errc::out_of_memory).
  std::vector<image_damage> find_damage(std::uint64_t max_frame_size = ~std::uint64_t{0}) const;

  static std::string hex(std::uint64_t v) {
    static const char digits[] = "0123456789abcdef";
    std::string s = "0x0000000000000000";
    for (int i = 0; i < 16; ++i) s[17 - i] = digits[(v >> (4 * i)) & 0xF];
    return s;
  }

 private:
  // Which parts of info_ are built. Behind a pointer so the container stays movable.
  struct lazy_state {
    std::mutex mutex;
    std::unique_ptr<std::atomic<bool>[]> kernel_built;
    std::vector<bool> image_built;  // under `mutex`
    std::atomic<bool> all_built{false};
  };

  detail::container_layout layout_;
  // Header fields at parse time; kernels and images sized at parse time and filled on demand
  // (mutable: filling them is not an observable change, and it happens under lazy_->mutex).
  mutable container_info info_;
  std::unique_ptr<lazy_state> lazy_;

  explicit container(detail::container_layout layout)
      : layout_(std::move(layout)), lazy_(std::make_unique<lazy_state>()) {
    info_.format_version = layout_.format_version;
    info_.name = layout_.name;
    info_.triton_version = layout_.triton_version;
    info_.triton_commit = layout_.triton_commit;
    info_.kernels.resize(static_cast<std::size_t>(layout_.sections[format::sec_kernels].count));
    info_.images.resize(layout_.images.size());
    lazy_->kernel_built.reset(new std::atomic<bool>[info_.kernels.size() + 1]);
    for (std::size_t i = 0; i < info_.kernels.size(); ++i)
      lazy_->kernel_built[i].store(false, std::memory_order_relaxed);
    lazy_->image_built.assign(info_.images.size(), false);
  }

  detail::record_reader records() const {
    return detail::record_reader(layout_.data, layout_.size, layout_.sections);
  }

  void build_kernel(std::size_t i) const;
  void build_all() const;
  // A record refused while building `what` ("kernel matmul", "image 6"): the reader's words, with
  // the container's name and what to do. Its tables checksum matched, so the container was written
  // so (crafted, or by a writer that broke docs/format.md's rules): no later use can succeed.
  [[noreturn]] void refused_record(const error& e, const std::string& what) const;
  void build_image(detail::record_reader& r, std::size_t i) const;  // under lazy_->mutex

  // A zstd frame's own header must agree with the frame table (one frame, exactly stored_size
  // bytes, content size = raw_size, the container's dictionary). Checked when the frame is
  // decoded rather than at parse time: walking every frame's block headers would touch the whole
  // data section — every page of a large container — before the first launch.
  const char* frame_problem(std::uint32_t i, char (&why)[256]) const {
    const frame_view& f = layout_.frames[i];
    if (f.codec != format::codec_zstd) return nullptr;
    return codec::check_zstd_frame(layout_.data + f.offset, f.stored_size, f.raw_size,
                                   layout_.dict_id, f.uses_dictionary, why);
  }

  // Image `i` checked, as a view (image_view): false, with `reason`, when it does not decode to
  // the recorded bytes.
  bool view_into(std::uint32_t i, image_view& v, std::string& reason) const;
  // Image `i`'s raw bytes into `out` from its decoded frame (at least up to the image's end):
  // copied, or put back together from their coding (v4); false, with `reason`, when they cannot be.
  bool restore(std::uint32_t i, const std::uint8_t* frame_bytes, std::vector<std::uint8_t>& out,
               std::string& reason) const;
  bool checksum_matches(std::uint32_t i, const std::uint8_t* bytes, std::string& reason) const {
    const detail::image_location& im = layout_.images[i];
    const std::uint64_t sum = xxh64(bytes, static_cast<std::size_t>(im.raw_size));
    if (sum == im.checksum) return true;
    reason = "decodes to bytes whose XXH64 is " + hex(sum) + ", not the " + hex(im.checksum) +
             " recorded for it (frames[" + std::to_string(im.frame) + "])";
    return false;
  }
  // Why a frame that uses the dictionary cannot be decoded when zstd refuses the dictionary.
  const char* dictionary_problem(char (&why)[256]) const {
    std::snprintf(why, sizeof why,
                  "the dictionary section (%zu bytes) is not a dictionary zstd can load",
                  layout_.ddict->size());
    return why;
  }
  static std::string decode_reason(std::uint32_t frame, const char* why) {
    return "does not decode (frames[" + std::to_string(frame) + "]: " + why + ")";
  }
  [[noreturn]] TRITONPACK_COLD void out_of_memory(std::uint32_t i) const {
    const frame_view& f = layout_.frames[layout_.images[i].frame];
    throw error(errc::out_of_memory, "not enough host memory to decode " + describe_image(i) +
                                         " (its frame holds " + std::to_string(f.raw_size) +
                                         " bytes once decoded); free memory or raise the "
                                         "process's memory limit");
  }
  [[noreturn]] TRITONPACK_COLD void damaged(std::uint32_t i, const std::string& reason) const {
    const std::string which =
        layout_.name.empty() ? std::string("the container") : "container \"" + layout_.name + "\"";
    throw error(errc::bad_container, which + " is damaged: " + describe_image(i) + " " + reason +
                                         "; " + detail::damage_advice);
  }
};

inline bool container::view_into(std::uint32_t i, image_view& v, std::string& reason) const {
  const detail::image_location& im = layout_.images[i];
  const frame_view& f = layout_.frames[im.frame];
  const std::uint8_t* const stored = layout_.data + f.offset;
  const std::uint64_t begin = im.offset;
  const std::uint64_t end = begin + im.frame_size;  // validated: end <= f.raw_size
  const std::uint8_t* frame_bytes = stored;         // the decoded frame, at least up to `end`
  std::unique_ptr<std::uint8_t[]>& buf = v.frame_;
  if (f.codec != format::codec_stored && end != 0) {
    // (a zero-byte image first in its frame has nothing to decode)
    char why[256];
    if (frame_problem(im.frame, why)) return reason = decode_reason(im.frame, why), false;
    const ZSTD_DDict* dict = nullptr;
    if (f.uses_dictionary && !(dict = layout_.ddict->get()))
      return reason = decode_reason(im.frame, dictionary_problem(why)), false;
    if (end == f.raw_size && begin == 0) {  // the whole frame: one shot
      // Into memory that is not zero-filled: a frame header that claims gigabytes it does not
      // hold costs an allocation whose pages are never touched, not a fill of all of them.
      const std::size_t n = static_cast<std::size_t>(end);
      buf.reset(new (std::nothrow) std::uint8_t[n]);
      if (!buf) throw std::bad_alloc();
      if (codec::decode_zstd_prefix(stored, f.stored_size, f.raw_size, dict, buf.get(), n, n, why))
        return reason = decode_reason(im.frame, why), false;
    } else {
      // Room for the whole frame lets zstd decode in place (decode_zstd_prefix); the buffer is
      // not zero-filled, so only the pages of the decoded prefix are ever touched. Frames above
      // 64 MiB decode through zstd's own window instead of reserving that much.
      const bool whole = f.raw_size <= (std::uint64_t{64} << 20);
      const std::size_t capacity = static_cast<std::size_t>(whole ? f.raw_size : end);
      buf.reset(new (std::nothrow) std::uint8_t[capacity]);
      if (!buf) throw std::bad_alloc();
      if (codec::decode_zstd_prefix(stored, f.stored_size, f.raw_size, dict, buf.get(),
                                    static_cast<std::size_t>(end), capacity, why))
        return reason = decode_reason(im.frame, why), false;
    }
    frame_bytes = buf.get();
  }
  const std::uint8_t* const held = frame_bytes + im.offset;
  // An image held as is is viewed where it lies, if 8-aligned: the driver's and comgr's ELF
  // readers may read its 8-byte fields in place. (A frame decoded here starts aligned, and the
  // packer puts the binary a GPU most likely loads first in it.) Else it is copied, or put back
  // together.
  if (im.coding == format::coding_raw && reinterpret_cast<std::uintptr_t>(held) % 8 == 0) {
    v.data_ = held;
  } else {
    v.restored_.reserve(static_cast<std::size_t>(im.raw_size) + 1);  // + 1: image_view::take
    if (!restore(i, frame_bytes, v.restored_, reason)) return false;
    v.data_ = v.restored_.data();
  }
  v.size_ = static_cast<std::size_t>(im.raw_size);
  return checksum_matches(i, v.data_, reason);
}

inline bool container::restore(std::uint32_t i, const std::uint8_t* frame_bytes,
                               std::vector<std::uint8_t>& out, std::string& reason) const {
  const detail::image_location& im = layout_.images[i];
  const std::uint8_t* const held = frame_bytes + im.offset;
  if (im.coding == format::coding_raw) {
    out.assign(held, held + im.raw_size);
    return true;
  }
  // coding_ptx_lines; validated: its base is a cubin held as is, earlier in the same frame.
  const detail::image_location& base = layout_.images[im.base_image];
  char why[256];
  if (ptx_lines::restore(held, static_cast<std::size_t>(im.frame_size), frame_bytes + base.offset,
                         static_cast<std::size_t>(base.raw_size), im.raw_size, out, why)) {
    reason = "does not decode (images[" + std::to_string(i) + "] from the text of image " +
             std::to_string(im.base_image) + ": " + why + ")";
    return false;
  }
  return true;
}

inline std::vector<image_damage> container::find_damage(std::uint64_t max_frame_size) const {
  std::vector<image_damage> found;
  std::uint32_t current = 0;  // the image being checked, for the out-of-memory message
  try {
    std::unique_ptr<std::uint8_t[]> buf;  // not zero-filled (view_into says why)
    std::size_t buf_size = 0;
    std::string reason;
    std::vector<std::uint8_t> image;  // one image's bytes (put back together when coded)
    for (std::uint32_t fi = 0; fi < layout_.frames.size(); ++fi) {
      const frame_view& f = layout_.frames[fi];
      current = f.first_image;
      // What view_into would conclude, worked out once per frame: the decoded bytes (whole, or
      // the first `produced` of them), or why the frame cannot be decoded at all.
      const std::uint8_t* decoded = nullptr;
      std::size_t produced = 0;
      std::string frame_reason, whole_reason, stream_reason;
      const bool over_limit = f.codec != format::codec_stored && f.raw_size > max_frame_size;
      if (f.codec == format::codec_stored) {
        decoded = layout_.data + f.offset;
        produced = static_cast<std::size_t>(f.raw_size);
      } else if (over_limit) {
        frame_reason = "was not checked: its frame (frames[" + std::to_string(fi) + "]) holds " +
                       std::to_string(f.raw_size) + " bytes once decoded, above the " +
                       std::to_string(max_frame_size) + "-byte limit on what is decoded";
      } else {
        char why[256];
        const ZSTD_DDict* dict = nullptr;
        const std::size_t n = static_cast<std::size_t>(f.raw_size);
        if (frame_problem(fi, why)) {
          frame_reason = decode_reason(fi, why);
        } else if (f.uses_dictionary && !(dict = layout_.ddict->get())) {
          frame_reason = decode_reason(fi, dictionary_problem(why));
        } else {
          if (buf_size < n + 1) {  // + 1: a valid pointer for an empty frame
            buf.reset();
            buf.reset(new (std::nothrow) std::uint8_t[n + 1]);
            if (!buf) throw std::bad_alloc();
            buf_size = n + 1;
          }
          decoded = buf.get();
          if (!codec::decode_zstd_prefix(layout_.data + f.offset, f.stored_size, f.raw_size, dict,
                                         buf.get(), n, buf_size, why)) {
            produced = n;
          } else {
            whole_reason = decode_reason(fi, why);
            const char* stream_why =
                codec::decode_zstd_stream(layout_.data + f.offset, f.stored_size, f.raw_size, dict,
                                          buf.get(), n, buf_size, why, produced);
            if (stream_why) stream_reason = decode_reason(fi, stream_why);
          }
        }
      }
      for (std::uint32_t i = f.first_image; i < f.first_image + f.image_count; ++i) {
        current = i;
        const detail::image_location& im = layout_.images[i];
        const std::uint64_t end = im.offset + im.frame_size;
        bool intact = false;
        if (end == 0)  // nothing to decode (view_into): only its checksum to compare
          intact = checksum_matches(i, layout_.data, reason);
        else if (!frame_reason.empty()) reason = frame_reason;
        else if (!whole_reason.empty() && end == f.raw_size)
          reason = whole_reason;  // an image ending the frame is decoded in one shot, as above
        else if (end <= produced)
          intact = restore(i, decoded, image, reason) && checksum_matches(i, image.data(), reason);
        else reason = stream_reason;
        if (!intact) found.push_back({i, reason, !over_limit});
      }
    }
  } catch (const std::bad_alloc&) {
    out_of_memory(current);
  }
  return found;
}

inline void container::build_image(detail::record_reader& r, std::size_t i) const {
  if (lazy_->image_built[i]) return;
  r.build_image(i, info_.images[i]);
  info_.images[i].stored_size = layout_.images[i].stored_size;
  lazy_->image_built[i] = true;
}

inline void container::build_kernel(std::size_t i) const {
  std::lock_guard<std::mutex> lock(lazy_->mutex);
  if (lazy_->kernel_built[i].load(std::memory_order_relaxed)) return;  // another thread built it
  detail::record_reader r = records();
  kernel_info& k = info_.kernels[i];
  try {
    r.build_kernel(i, k);
    for (const variant_info& v : k.variants)
      for (std::uint32_t im : v.images) build_image(r, im);
  } catch (const error& e) {
    if (e.code() != errc::bad_container) throw;
    refused_record(e, "kernel " + std::string(r.kernel_name(i)));
  }
  lazy_->kernel_built[i].store(true, std::memory_order_release);
}

inline void container::build_all() const {
  for (std::size_t i = 0; i < info_.kernels.size(); ++i) kernel(i);
  std::lock_guard<std::mutex> lock(lazy_->mutex);
  if (lazy_->all_built.load(std::memory_order_relaxed)) return;
  detail::record_reader r = records();
  for (std::size_t im = 0; im < info_.images.size(); ++im) {
    try {
      build_image(r, im);  // images no variant refers to
    } catch (const error& e) {
      if (e.code() != errc::bad_container) throw;
      refused_record(e, "image " + std::to_string(im));
    }
  }
  lazy_->all_built.store(true, std::memory_order_release);
}

inline void container::refused_record(const error& e, const std::string& what) const {
  std::string_view m = e.message();
  const std::string_view lead = "container: ";  // record_reader::fail's
  if (m.substr(0, lead.size()) == lead) m.remove_prefix(lead.size());
  throw error(errc::bad_container,
              what + " of container \"" + info_.name + "\": " + std::string(m) +
                  "; the container breaks the format's rules (its tables checksum matches, so it "
                  "was written so): pack the kernels again with this tritonpack, and run "
                  "`tritonpack inspect` on it to check every record");
}

TRITONPACK_END_NAMESPACE
