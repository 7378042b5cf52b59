// tritonpack/codec.hpp — the zstd side of the container: checking a frame's header against the
// sizes the container records, and decoding a frame with the output capped at the recorded size.
//
// Why streaming decompression: an image sits at an offset inside a frame that may hold several
// images of one kernel; decoding stops as soon as the image's last byte is out, so the cubin
// placed first in a kernel's frame is loaded without decompressing the PTX behind it, and a
// hostile frame can never write more than the buffer sized from the recorded raw size.
#pragma once

#include <zstd.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "error.hpp"

namespace tritonpack {
namespace codec {

struct dctx_deleter {
  void operator()(ZSTD_DCtx* c) const noexcept { ZSTD_freeDCtx(c); }
};
struct ddict_deleter {
  void operator()(ZSTD_DDict* d) const noexcept { ZSTD_freeDDict(d); }
};
using dctx_ptr = std::unique_ptr<ZSTD_DCtx, dctx_deleter>;
// Shared: a parsed container and its copies use one digested dictionary (read-only, thread-safe).
using ddict_ptr = std::shared_ptr<const ZSTD_DDict>;

// Digests a dictionary once (ZSTD_createDDict copies the bytes). Empty input: no dictionary.
inline ddict_ptr make_ddict(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return {};
  ZSTD_DDict* d = ZSTD_createDDict(data, size);
  if (!d) throw error(errc::bad_container, "container: dictionary: zstd could not load the dictionary section");
  return ddict_ptr(d, [](const ZSTD_DDict* p) { ZSTD_freeDDict(const_cast<ZSTD_DDict*>(p)); });
}

// Dictionary id as zstd records it (0 for a raw-content dictionary).
inline unsigned dictionary_id(const std::uint8_t* data, std::size_t size) noexcept {
  return size == 0 ? 0u : ZSTD_getDictID_fromDict(data, size);
}

// Checks, without decoding, that `stored` bytes at `p` are exactly one zstd frame whose header
// declares `raw` bytes of content and, when `dict_id` is non-zero, that dictionary. Returns an
// empty string when they are, otherwise what is wrong (the caller prefixes the field name).
inline std::string check_zstd_frame(const std::uint8_t* p, std::uint64_t stored, std::uint64_t raw,
                                    unsigned dict_id, bool uses_dictionary) {
  const std::size_t n = static_cast<std::size_t>(stored);
  const unsigned long long content = ZSTD_getFrameContentSize(p, n);
  if (content == ZSTD_CONTENTSIZE_ERROR) return "stored bytes do not start with a zstd frame header";
  if (content == ZSTD_CONTENTSIZE_UNKNOWN) return "zstd frame header does not record its content size";
  if (content != raw)
    return "zstd frame header says " + std::to_string(content) + " content bytes, raw_size says " +
           std::to_string(raw);
  const std::size_t compressed = ZSTD_findFrameCompressedSize(p, n);
  if (ZSTD_isError(compressed))
    return std::string("zstd frame is malformed or truncated (") + ZSTD_getErrorName(compressed) + ")";
  if (compressed != n)
    return "zstd frame is " + std::to_string(compressed) + " bytes, stored_size says " + std::to_string(stored);
  const unsigned frame_dict = ZSTD_getDictID_fromFrame(p, n);
  if (!uses_dictionary && frame_dict != 0)
    return "zstd frame needs dictionary " + std::to_string(frame_dict) + " but the frame's dictionary flag is clear";
  if (uses_dictionary && frame_dict != 0 && frame_dict != dict_id)
    return "zstd frame needs dictionary " + std::to_string(frame_dict) + ", the container's is " +
           std::to_string(dict_id);
  return {};
}

// Decodes the first `out_size` bytes of the zstd frame (`stored` bytes at `p`, `raw` bytes of
// content) into `out`. When the whole frame is asked for, also runs it to its end so zstd checks
// its content checksum and so a frame longer than recorded is refused. `what` names the frame in
// messages. Never writes past `out_size` bytes.
inline void decode_zstd_prefix(const std::uint8_t* p, std::uint64_t stored, std::uint64_t raw,
                               const ZSTD_DDict* ddict, std::uint8_t* out, std::size_t out_size,
                               const std::string& what) {
  dctx_ptr dctx(ZSTD_createDCtx());
  if (!dctx) throw error(errc::out_of_memory, what + ": could not allocate a zstd decompression context");
  if (ddict) {
    const std::size_t r = ZSTD_DCtx_refDDict(dctx.get(), ddict);
    if (ZSTD_isError(r)) throw error(errc::bad_container, what + ": " + ZSTD_getErrorName(r));
  }
  ZSTD_inBuffer in{p, static_cast<std::size_t>(stored), 0};
  ZSTD_outBuffer ob{out, out_size, 0};
  std::size_t ret = 1;
  while (ob.pos < ob.size) {
    const std::size_t before_in = in.pos, before_out = ob.pos;
    ret = ZSTD_decompressStream(dctx.get(), &ob, &in);
    if (ZSTD_isError(ret)) throw error(errc::bad_container, what + ": zstd: " + ZSTD_getErrorName(ret));
    if (ret == 0 && ob.pos < ob.size)
      throw error(errc::bad_container, what + ": zstd frame ended after " + std::to_string(ob.pos) +
                                           " bytes, raw_size says " + std::to_string(raw));
    if (in.pos == before_in && ob.pos == before_out)
      throw error(errc::bad_container, what + ": zstd frame is truncated");
  }
  if (out_size == raw) {
    // Drain the rest of the frame (block end, checksum) into a one-byte sink: any byte that comes
    // out means the frame holds more than raw_size.
    std::uint8_t sink = 0;
    while (ret != 0) {
      ZSTD_outBuffer extra{&sink, 1, 0};
      const std::size_t before_in = in.pos;
      ret = ZSTD_decompressStream(dctx.get(), &extra, &in);
      if (ZSTD_isError(ret)) throw error(errc::bad_container, what + ": zstd: " + ZSTD_getErrorName(ret));
      if (extra.pos != 0)
        throw error(errc::bad_container, what + ": zstd frame holds more than raw_size (" + std::to_string(raw) + ") bytes");
      if (ret != 0 && in.pos == before_in) throw error(errc::bad_container, what + ": zstd frame is truncated");
    }
  }
}

}  // namespace codec
}  // namespace tritonpack
