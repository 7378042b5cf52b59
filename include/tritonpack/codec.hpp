// tritonpack/codec.hpp — the zstd side of the container: checking a frame's header against the
// sizes the container records, and decoding a frame with the output capped at the recorded size.
//
// Why streaming decompression: an image sits at an offset inside a frame that may hold several
// images of one kernel; decoding stops as soon as the image's last byte is out, so the cubin
// placed first in a kernel's frame is loaded without decompressing the PTX behind it, and a
// hostile frame can never write more than the buffer sized from the recorded raw size.
//
// Messages are formatted by one out-of-line cold function (printf-style) rather than by string
// concatenation at every check: it keeps this header cheap to compile and the success path free
// of string work.
#pragma once

#include <zstd.h>

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "error.hpp"

#if defined(__GNUC__) || defined(__clang__)
#define TRITONPACK_COLD __attribute__((cold, noinline))
#define TRITONPACK_NOINLINE __attribute__((noinline))
#define TRITONPACK_PRINTF(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#else
#define TRITONPACK_COLD
#define TRITONPACK_NOINLINE
#define TRITONPACK_PRINTF(fmt_index, first_arg)
#endif

namespace tritonpack {
namespace codec {

// Throws error(code, "container: " + prefix + formatted message).
[[noreturn]] TRITONPACK_COLD TRITONPACK_PRINTF(3, 4) inline void fail(errc code, const char* prefix, const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  throw error(code, std::string("container: ") + prefix + buf);
}

struct dctx_deleter {
  void operator()(ZSTD_DCtx* c) const noexcept { ZSTD_freeDCtx(c); }
};
using dctx_ptr = std::unique_ptr<ZSTD_DCtx, dctx_deleter>;
// Shared: a parsed container and its copies use one digested dictionary (read-only, thread-safe).
using ddict_ptr = std::shared_ptr<const ZSTD_DDict>;

// Digests a dictionary once (ZSTD_createDDict copies the bytes). Empty input: no dictionary.
inline ddict_ptr make_ddict(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return {};
  ZSTD_DDict* d = ZSTD_createDDict(data, size);
  if (!d) fail(errc::bad_container, "dictionary: ", "zstd could not load the dictionary section (%zu bytes)", size);
  return ddict_ptr(d, [](const ZSTD_DDict* p) { ZSTD_freeDDict(const_cast<ZSTD_DDict*>(p)); });
}

// Dictionary id as zstd records it (0 for a raw-content dictionary).
inline unsigned dictionary_id(const std::uint8_t* data, std::size_t size) noexcept {
  return size == 0 ? 0u : ZSTD_getDictID_fromDict(data, size);
}

// Checks, without decoding, that `stored` bytes at `p` are exactly one zstd frame whose header
// declares `raw` bytes of content and, when it names a dictionary, the container's `dict_id`.
// Returns nullptr when they are, otherwise writes what is wrong into `why` and returns it.
inline const char* check_zstd_frame(const std::uint8_t* p, std::uint64_t stored, std::uint64_t raw, unsigned dict_id,
                                    bool uses_dictionary, char (&why)[256]) {
  const std::size_t n = static_cast<std::size_t>(stored);
  const unsigned long long content = ZSTD_getFrameContentSize(p, n);
  if (content == ZSTD_CONTENTSIZE_ERROR) return std::snprintf(why, sizeof why, "stored bytes do not start with a zstd frame header"), why;
  if (content == ZSTD_CONTENTSIZE_UNKNOWN) return std::snprintf(why, sizeof why, "zstd frame header does not record its content size"), why;
  if (content != raw)
    return std::snprintf(why, sizeof why, "zstd frame header says %llu content bytes, raw_size says %llu", content,
                         static_cast<unsigned long long>(raw)),
           why;
  const std::size_t compressed = ZSTD_findFrameCompressedSize(p, n);
  if (ZSTD_isError(compressed))
    return std::snprintf(why, sizeof why, "zstd frame is malformed or truncated (%s)", ZSTD_getErrorName(compressed)), why;
  if (compressed != n)
    return std::snprintf(why, sizeof why, "zstd frame is %zu bytes, stored_size says %zu", compressed, n), why;
  const unsigned frame_dict = ZSTD_getDictID_fromFrame(p, n);
  if (!uses_dictionary && frame_dict != 0)
    return std::snprintf(why, sizeof why, "zstd frame needs dictionary %u but the frame's dictionary flag is clear", frame_dict), why;
  if (uses_dictionary && frame_dict != 0 && frame_dict != dict_id)
    return std::snprintf(why, sizeof why, "zstd frame needs dictionary %u, the container's is %u", frame_dict, dict_id), why;
  return nullptr;
}

// Decodes the first `out_size` bytes of the zstd frame (`stored` bytes at `p`, `raw` bytes of
// content) into `out`. When the whole frame is asked for, also runs it to its end so zstd checks
// its content checksum and so a frame longer than recorded is refused. `image` and `frame` name
// the request in messages. Never writes past `out_size` bytes.
inline void decode_zstd_prefix(const std::uint8_t* p, std::uint64_t stored, std::uint64_t raw, const ZSTD_DDict* ddict,
                               std::uint8_t* out, std::size_t out_size, std::uint32_t image, std::uint32_t frame) {
  char where[64];
  std::snprintf(where, sizeof where, "images[%u] (frames[%u]): ", image, frame);
  dctx_ptr dctx(ZSTD_createDCtx());
  if (!dctx) fail(errc::out_of_memory, where, "could not allocate a zstd decompression context");
  if (ddict) {
    const std::size_t r = ZSTD_DCtx_refDDict(dctx.get(), ddict);
    if (ZSTD_isError(r)) fail(errc::bad_container, where, "%s", ZSTD_getErrorName(r));
  }
  ZSTD_inBuffer in{p, static_cast<std::size_t>(stored), 0};
  ZSTD_outBuffer ob{out, out_size, 0};
  std::size_t ret = 1;
  while (ob.pos < ob.size) {
    const std::size_t before_in = in.pos, before_out = ob.pos;
    ret = ZSTD_decompressStream(dctx.get(), &ob, &in);
    if (ZSTD_isError(ret)) fail(errc::bad_container, where, "zstd: %s", ZSTD_getErrorName(ret));
    if (ret == 0 && ob.pos < ob.size)
      fail(errc::bad_container, where, "zstd frame ended after %zu bytes, raw_size says %llu", ob.pos,
           static_cast<unsigned long long>(raw));
    if (in.pos == before_in && ob.pos == before_out) fail(errc::bad_container, where, "zstd frame is truncated");
  }
  if (out_size == raw) {
    // Drain the rest of the frame (block end, checksum) into a one-byte sink: any byte that comes
    // out means the frame holds more than raw_size.
    std::uint8_t sink = 0;
    while (ret != 0) {
      ZSTD_outBuffer extra{&sink, 1, 0};
      const std::size_t before_in = in.pos;
      ret = ZSTD_decompressStream(dctx.get(), &extra, &in);
      if (ZSTD_isError(ret)) fail(errc::bad_container, where, "zstd: %s", ZSTD_getErrorName(ret));
      if (extra.pos != 0)
        fail(errc::bad_container, where, "zstd frame holds more than raw_size (%llu) bytes", static_cast<unsigned long long>(raw));
      if (ret != 0 && in.pos == before_in) fail(errc::bad_container, where, "zstd frame is truncated");
    }
  }
}

}  // namespace codec
}  // namespace tritonpack
