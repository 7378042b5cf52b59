// tritonpack/image_decode.hpp — the run time's fast path for decoding one image at load time.
//
// Why: the container reader's decode_image() decodes a prefix of the image's frame with zstd's
// streaming API, which allocates a window buffer and decodes through it; measured on an H200 host
// that took ~115 µs for a 9 KB cubin in a 67 KB frame — more than the driver's cuModuleLoadData of
// the same cubin. For frames up to 1 MiB, decoding the whole frame in one shot with a reused
// per-thread context is about twice as fast, so the first launch of a kernel costs less.
//
// This is not a second reader: it only uses what container::parse() has validated (frame table,
// image offsets and sizes), checks the image's XXH64 like decode_image() does, and hands anything
// unusual (stored frames, dictionaries, big frames, any zstd error or checksum mismatch) to
// decode_image(), which produces the reader's own error messages.
#pragma once

#include <zstd.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "tritonpack/checksum.hpp"
#include "tritonpack/container_format.hpp"
#include "tritonpack/container_reader.hpp"

namespace tritonpack {

namespace detail {
struct dctx_holder {
  ZSTD_DCtx* ctx = ZSTD_createDCtx();
  ~dctx_holder() { ZSTD_freeDCtx(ctx); }
};
}  // namespace detail

constexpr std::uint64_t fast_decode_max_frame = std::uint64_t{1} << 20;

inline std::vector<std::uint8_t> decode_image_for_load(const container& c, std::uint32_t index) {
  const container_info& info = c.info();
  if (index >= info.images.size()) return c.decode_image(index);  // the reader's range error
  const image_info& im = info.images[index];
  const frame_view& f = c.frames()[c.frame_of(index)];
  if (f.codec != format::codec_zstd || f.uses_dictionary || f.raw_size > fast_decode_max_frame) return c.decode_image(index);
  static thread_local detail::dctx_holder holder;
  if (!holder.ctx) return c.decode_image(index);
  std::vector<std::uint8_t> frame(static_cast<std::size_t>(f.raw_size));
  const std::size_t r = ZSTD_decompressDCtx(holder.ctx, frame.data(), frame.size(), c.data() + f.offset,
                                            static_cast<std::size_t>(f.stored_size));
  if (ZSTD_isError(r) || r != frame.size()) return c.decode_image(index);
  const std::uint64_t begin = c.frame_offset(index);  // validated: begin + raw_size <= frame raw_size
  const std::uint8_t* p = frame.data() + begin;
  if (xxh64(p, static_cast<std::size_t>(im.raw_size)) != im.checksum) return c.decode_image(index);
  if (begin == 0) {
    frame.resize(static_cast<std::size_t>(im.raw_size));
    return frame;
  }
  return std::vector<std::uint8_t>(p, p + im.raw_size);
}

}  // namespace tritonpack
