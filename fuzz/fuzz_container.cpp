// libFuzzer target for the container reader (include/tritonpack/container/reader.hpp): any input
// must either be refused with tritonpack::error or parse into a model whose every index is in
// range and whose images decode (or are refused) without a crash, leak or UB — also when a frame
// header claims gigabytes its blocks do not hold (a decompression bomb, reached by rewriting each
// input's first frame to claim all it may: claim_large_frame).
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "tritonpack/container/reader.hpp"
#include "tritonpack/select/image.hpp"

namespace {

void check_one(const std::uint8_t* data, std::size_t size) {
  using namespace tritonpack;
  try {
    const container c = container::parse(data, size);
    const container_info& info = c.info();
    // The reader's promise: every index it hands out is valid.
    for (const kernel_info& k : info.kernels)
      for (const variant_info& v : k.variants) {
        if (v.specs.size() != k.args.size()) std::abort();
        for (std::uint32_t i : v.images)
          if (i >= info.images.size()) std::abort();
      }
    // Frames are decoded into memory that is not zero-filled, and find_damage decodes each frame
    // at most twice, so a frame whose header claims up to `frame_limit` bytes (a decompression
    // bomb within the container's own limits) is decoded here too: it must cost only what its
    // blocks really hold. Above it, only the frame header is checked (what inspect's
    // --max-image-size does).
    constexpr std::uint64_t frame_limit = std::uint64_t{1} << 30;
    const std::vector<image_damage> damage = c.find_damage(frame_limit);
    for (const image_damage& d : damage)
      if (d.checked != (c.frames()[c.frame_of(d.image)].raw_size <= frame_limit ||
                        c.frames()[c.frame_of(d.image)].codec == format::codec_stored))
        std::abort();
    // decode_image must agree with find_damage on which images are damaged. (Bounded: each call
    // decodes its frame up to the image, so this costs the sum of those prefixes.)
    std::uint64_t budget = 64u << 20;
    std::size_t next = 0;
    for (std::uint32_t i = 0; i < info.images.size(); ++i) {
      const bool listed = next < damage.size() && damage[next].image == i;
      if (listed) ++next;
      const std::uint64_t need = c.frame_offset(i) + info.images[i].raw_size;
      if (need > budget || (listed && !damage[next - 1].checked)) continue;
      budget -= need;
      bool refused = false;
      try {
        const std::vector<std::uint8_t> bytes = c.decode_image(i);
        if (bytes.size() != info.images[i].raw_size) std::abort();
      } catch (const error& e) {
        // damaged payload: refused as damage, as it must be
        if (e.code() != errc::bad_container) std::abort();
        refused = true;
      }
      if (listed != refused) std::abort();
      if (listed) (void)c.describe_image(i);
    }
    if (next != damage.size()) std::abort();
    // The run time selects from a parsed container; it must not trip over any model the reader
    // accepts.
    for (const char* dev : {"sm_90", "sm_80", "gfx942"}) {
      const device_target t = parse_device_target(dev);
      for (const kernel_info& k : info.kernels)
        for (const variant_info& v : k.variants) (void)select_image(info, v, t);
    }
  } catch (const error&) {
    // refused input: fine
  }
}

// Rewrites `b` (a container whose total_size and tables checksum agree with it) so that its first
// single-image zstd frame claims far more content than its blocks hold; false when there is none.
bool claim_large_frame(std::vector<std::uint8_t>& b) {
  using namespace tritonpack;
  namespace F = format;
  try {
    const container c = container::parse(b.data(), b.size());
    for (std::uint32_t z = 0; z < c.frames().size(); ++z) {
      const frame_view& f = c.frames()[z];
      if (f.codec != F::codec_zstd || f.image_count != 1 || f.stored_size < 6) continue;
      std::uint8_t* frame = b.data() + f.offset;
      const unsigned fhd = frame[4];
      if ((fhd >> 6) < 2) continue;  // a content size field of 4 or 8 bytes
      static const std::size_t did_size[4] = {0, 1, 2, 4};
      const std::size_t at = 5 + (((fhd >> 5) & 1) ? 0 : 1) + did_size[fhd & 3];
      if (at + 8 > f.stored_size) continue;
      std::uint64_t claim = f.stored_size * F::max_expansion;
      if (claim > F::max_frame_raw_size) claim = F::max_frame_raw_size;
      if ((fhd >> 6) == 2) {
        claim = claim > 0xFFFFFFFFu ? 0xFFFFFFFFu : claim;
        byte_io::store_u32(frame + at, static_cast<std::uint32_t>(claim));
      } else {
        byte_io::store_u64(frame + at, claim);
      }
      // Where record i of section s lies, or nullptr when the input's section table (which parse
      // need not have read as this layout: another format version) puts it outside the buffer.
      const auto record = [&](std::uint32_t s, std::uint64_t i, std::size_t field) -> std::uint8_t* {
        const std::uint64_t off =
            byte_io::load_u64(b.data() + F::header::sections + s * F::header::section_entry_size);
        if (off > b.size() || i > (b.size() - off) / F::record_size[s]) return nullptr;
        const std::uint64_t at = off + i * F::record_size[s] + field;
        return at + 8 <= b.size() ? b.data() + at : nullptr;
      };
      std::uint8_t* frame_raw = record(F::sec_frames, z, F::frame_rec::raw_size);
      std::uint8_t* image_raw = record(F::sec_images, f.first_image, F::image_rec::raw_size);
      if (!frame_raw || !image_raw) return false;
      byte_io::store_u64(frame_raw, claim);
      byte_io::store_u64(image_raw, claim);
      const std::uint64_t data_off =
          byte_io::load_u64(b.data() + F::header::sections + F::sec_data * F::header::section_entry_size);
      byte_io::store_u64(b.data() + F::header::tables_checksum, 0);
      byte_io::store_u64(b.data() + F::header::tables_checksum, xxh64(b.data(), static_cast<std::size_t>(data_off)));
      return true;
    }
  } catch (const tritonpack::error&) {
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tritonpack;
  check_one(data, size);
  // Most mutations are caught by the tables checksum before any table is looked at. To reach the
  // structural checks behind it, also try the input with total_size and the tables checksum made
  // to agree with the (mutated) bytes, as a deliberately crafted container would.
  if (size >= format::header::size) {
    std::vector<std::uint8_t> fixed(data, data + size);
    byte_io::store_u64(fixed.data() + format::header::total_size, size);
    const std::uint64_t data_off =
        byte_io::load_u64(fixed.data() + format::header::sections + format::sec_data * format::header::section_entry_size);
    if (data_off <= size) {
      byte_io::store_u64(fixed.data() + format::header::tables_checksum, 0);
      byte_io::store_u64(fixed.data() + format::header::tables_checksum, xxh64(fixed.data(), static_cast<std::size_t>(data_off)));
    }
    check_one(fixed.data(), fixed.size());
    // And a decompression bomb: the first zstd frame of one image made to claim what its stored
    // bytes may at most expand to (format::max_expansion, at most 4 GiB), in its zstd header, its
    // frame record and its image record alike, as a crafted container would.
    if (claim_large_frame(fixed)) check_one(fixed.data(), fixed.size());
  }
  return 0;
}
