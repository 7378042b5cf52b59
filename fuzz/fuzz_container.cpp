// libFuzzer target for the container reader (include/tritonpack/container/reader.hpp): any input
// must either be refused with tritonpack::error or parse into a model whose every index is in
// range and whose images decode (or are refused) without a crash, leak or UB.
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
    std::uint64_t budget = 8u << 20;  // decode at most 8 MiB per input to keep runs fast
    for (std::uint32_t i = 0; i < info.images.size(); ++i) {
      const std::uint64_t need = c.frame_offset(i) + info.images[i].raw_size;
      if (need > budget) continue;
      budget -= need;
      try {
        const std::vector<std::uint8_t> bytes = c.decode_image(i);
        if (bytes.size() != info.images[i].raw_size) std::abort();
      } catch (const error& e) {
        // damaged payload: refused as damage, as it must be
        if (e.code() != errc::bad_container) std::abort();
      }
    }
    // The whole-container check (`tritonpack inspect`): every frame decoded once, every image
    // checked; it must agree with decode_image on which images are damaged.
    // (Bounded: deciding which images decode_image refuses decodes each frame once per image.)
    std::uint64_t total = 0;
    for (const frame_view& f : c.frames()) total += f.raw_size;
    if (total * info.images.size() <= (32u << 20)) {
      const std::vector<image_damage> damage = c.find_damage();
      std::size_t next = 0;
      for (std::uint32_t i = 0; i < info.images.size(); ++i) {
        bool refused = false;
        try {
          (void)c.decode_image(i);
        } catch (const error&) {
          refused = true;
        }
        const bool listed = next < damage.size() && damage[next].image == i;
        if (listed != refused) std::abort();
        if (listed) {
          (void)c.describe_image(i);
          ++next;
        }
      }
      if (next != damage.size()) std::abort();
    }
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
  }
  return 0;
}
