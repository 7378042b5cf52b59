// tritonpack/container/codec.hpp — the zstd side of the container: checking a frame's header
// against the sizes the container records, and decoding a frame with the output capped at the
// recorded size.
//
// Why streaming decompression: an image sits at an offset inside a frame that may hold several
// images of one kernel; decoding stops as soon as the image's last byte is out, so the cubin
// placed first in a kernel's frame is loaded without decompressing the PTX behind it, and a
// hostile frame can never write more than the buffer sized from the recorded raw size.
//
// Bytes that do not decode are not an exception here: check_zstd_frame and decode_zstd_prefix
// write what zstd found into a small buffer and return it, and the container (which knows the
// image and its kernel) reports the damage. Other failures are thrown by one out-of-line cold
// function (printf-style) rather than by string concatenation at every check: it keeps this header
// cheap to compile and the success path free of string work.
#pragma once

#include <zstd.h>

#include <atomic>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "tritonpack/version.hpp"

#include "tritonpack/core/error.hpp"  // also TRITONPACK_COLD, TRITONPACK_PRINTF

TRITONPACK_BEGIN_NAMESPACE
namespace codec {

// Throws error(code, "container: " + prefix + formatted message).
[[noreturn]] TRITONPACK_COLD TRITONPACK_PRINTF(3, 4) inline void fail(errc code, const char* prefix,
                                                                      const char* fmt, ...) {
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
// The container's zstd dictionary, digested (ZSTD_createDDict) the first time a frame that uses
// it is decoded, once per container, whichever thread gets there first. Why not at parse time:
// digesting a trained dictionary (its Huffman and FSE tables) costs about as much as decoding a
// small cubin, and a program that parses a container and loads one image, or none, should not pay
// it before it needs it. The bytes are the container's own (bounded at parse time by
// format::max_dictionary_size) and must outlive this object, as the container's do.
class lazy_ddict {
 public:
  lazy_ddict(const std::uint8_t* data, std::size_t size) noexcept : data_(data), size_(size) {}
  lazy_ddict(const lazy_ddict&) = delete;
  lazy_ddict& operator=(const lazy_ddict&) = delete;
  ~lazy_ddict() { ZSTD_freeDDict(ddict_.load(std::memory_order_relaxed)); }

  std::size_t size() const noexcept { return size_; }
  // The digested dictionary; nullptr when the container has none, and when zstd cannot load
  // the bytes (a damaged dictionary section; the caller reports it as damage, naming the image
  // it was decoding). A failure is not remembered: the next decode tries again and fails the
  // same way, so nothing is cached that a retry could contradict.
  const ZSTD_DDict* get() const {
    if (size_ == 0) return nullptr;
    ZSTD_DDict* d = ddict_.load(std::memory_order_acquire);
    if (d) return d;
    std::lock_guard<std::mutex> lock(mutex_);
    d = ddict_.load(std::memory_order_relaxed);
    if (!d) {
      d = ZSTD_createDDict(data_, size_);
      ddict_.store(d, std::memory_order_release);
    }
    return d;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  mutable std::mutex mutex_;
  mutable std::atomic<ZSTD_DDict*> ddict_{nullptr};
};
// Shared, so that the layout that holds it stays movable (the container is moved out of parse).
using ddict_ptr = std::shared_ptr<const lazy_ddict>;

// Dictionary id as zstd records it (0 for a raw-content dictionary).
inline unsigned dictionary_id(const std::uint8_t* data, std::size_t size) noexcept {
  return size == 0 ? 0u : ZSTD_getDictID_fromDict(data, size);
}

// Checks, without decoding, that `stored` bytes at `p` are exactly one zstd frame whose header
// declares `raw` bytes of content and, when it names a dictionary, the container's `dict_id`.
// Returns nullptr when they are, otherwise writes what is wrong into `why` and returns it.
inline const char* check_zstd_frame(const std::uint8_t* p, std::uint64_t stored, std::uint64_t raw,
                                    unsigned dict_id, bool uses_dictionary, char (&why)[256]) {
  const std::size_t n = static_cast<std::size_t>(stored);
  const unsigned long long content = ZSTD_getFrameContentSize(p, n);
  if (content == ZSTD_CONTENTSIZE_ERROR)
    return std::snprintf(why, sizeof why, "stored bytes do not start with a zstd frame header"),
           why;
  if (content == ZSTD_CONTENTSIZE_UNKNOWN)
    return std::snprintf(why, sizeof why, "zstd frame header does not record its content size"),
           why;
  if (content != raw)
    return std::snprintf(why, sizeof why,
                         "zstd frame header says %llu content bytes, raw_size says %llu", content,
                         static_cast<unsigned long long>(raw)),
           why;
  const std::size_t compressed = ZSTD_findFrameCompressedSize(p, n);
  if (ZSTD_isError(compressed))
    return std::snprintf(why, sizeof why, "zstd frame is malformed or truncated (%s)",
                         ZSTD_getErrorName(compressed)),
           why;
  if (compressed != n)
    return std::snprintf(why, sizeof why, "zstd frame is %zu bytes, stored_size says %zu",
                         compressed, n),
           why;
  const unsigned frame_dict = ZSTD_getDictID_fromFrame(p, n);
  if (!uses_dictionary && frame_dict != 0)
    return std::snprintf(why, sizeof why,
                         "zstd frame needs dictionary %u but the frame's dictionary flag is clear",
                         frame_dict),
           why;
  if (uses_dictionary && frame_dict != 0 && frame_dict != dict_id)
    return std::snprintf(why, sizeof why, "zstd frame needs dictionary %u, the container's is %u",
                         frame_dict, dict_id),
           why;
  return nullptr;
}

// One decompression context per thread, reused: creating one (and its window buffers) costs
// more than decoding a small cubin, and the run time decodes on the thread that first launches.
inline dctx_ptr& thread_dctx_slot() noexcept {
  thread_local dctx_ptr ctx;
  return ctx;
}
inline ZSTD_DCtx* thread_dctx() {
  dctx_ptr& ctx = thread_dctx_slot();
  if (!ctx) ctx.reset(ZSTD_createDCtx());
  return ctx.get();
}
// Whether this thread has its decompression context (warm_up below, or a decode, made it).
inline bool thread_decoder_ready() noexcept { return thread_dctx_slot() != nullptr; }

// Readies the calling thread's context for one decode: a previous, possibly failed, decode must not
// leak state into this one. zstd's own frame checksum (XXH64 of the whole frame's content, hashed
// as it decodes) is not verified: the container checks every image it hands out against the XXH64
// recorded for that image, which covers the same bytes — hashing them twice bought nothing (about
// one instruction per decoded byte, 7 % of a cubin's decode), and a prefix decode never reaches
// the trailer anyway. ZSTD_d_forceIgnoreChecksum (experimental since zstd 1.4.7, the same value
// since; passed by number so that zstd.h need not be included in its static-linking mode): a
// libzstd that refuses it verifies the checksum as before. Null when no context can be had.
inline ZSTD_DCtx* fresh_dctx() {
  ZSTD_DCtx* dctx = thread_dctx();
  if (!dctx) return nullptr;
  ZSTD_DCtx_reset(dctx, ZSTD_reset_session_and_parameters);
  ZSTD_DCtx_setParameter(dctx, static_cast<ZSTD_dParameter>(1002), 1);
  return dctx;
}

// Size of a zstd frame header (magic, descriptor, window, dictionary id, content size), from the
// frame format (RFC 8878 §3.1.1.1); 0 when it does not fit in `n` bytes. The stable zstd API has
// no call for it.
inline std::size_t frame_header_size(const std::uint8_t* p, std::size_t n) noexcept {
  if (n < 5) return 0;
  const unsigned fhd = p[4];
  const bool single_segment = (fhd >> 5) & 1;
  static const std::size_t did_size[4] = {0, 1, 2, 4};
  static const std::size_t fcs_size[4] = {0, 2, 4, 8};
  const unsigned fcs_flag = fhd >> 6;
  const std::size_t size = 5 + (single_segment ? 0 : 1) + did_size[fhd & 3] +
                           (fcs_flag == 0 && single_segment ? 1 : fcs_size[fcs_flag]);
  return size <= n ? size : 0;
}

// The streaming half of decode_zstd_prefix: decodes block by block until `out_size` bytes are
// out, and says in `produced` how many were (on failure: the bytes before the damaged block). One
// pass tells which images of a damaged frame decode (container::find_damage), instead of one
// decode per image.
inline const char* decode_zstd_stream(const std::uint8_t* p, std::uint64_t stored,
                                      std::uint64_t raw, const ZSTD_DDict* ddict, std::uint8_t* out,
                                      std::size_t out_size, std::size_t out_capacity,
                                      char (&why)[256], std::size_t& produced) {
  produced = 0;
  ZSTD_DCtx* dctx = fresh_dctx();
  if (!dctx) fail(errc::out_of_memory, "", "could not allocate a zstd decompression context");
  if (ddict) {
    const std::size_t r = ZSTD_DCtx_refDDict(dctx, ddict);
    if (ZSTD_isError(r))
      return std::snprintf(why, sizeof why, "zstd: %s", ZSTD_getErrorName(r)), why;
  }
  // Feed the decoder one block at a time (3-byte block headers, RFC 8878 §3.1.1.2): it can only
  // decode what it has been given, so decoding stops with the block that completes the prefix —
  // the packer ends a block at every image boundary — instead of running on into the next one.
  // ZSTD_d_stableOutBuffer (experimental since zstd 1.4.4, the same value in every release since;
  // passed by number so that zstd.h need not be included in its static-linking mode): `out` must
  // then hold the whole frame, and stays put between calls. A libzstd that refuses the parameter
  // decodes through its own buffers instead.
  const bool stable = out_capacity >= raw && !ZSTD_isError(ZSTD_DCtx_setParameter(
                                                 dctx, static_cast<ZSTD_dParameter>(1001), 1));
  const std::size_t n = static_cast<std::size_t>(stored);
  std::size_t limit = frame_header_size(p, n);
  if (limit == 0) return std::snprintf(why, sizeof why, "zstd frame header is truncated"), why;
  ZSTD_inBuffer in{p, limit, 0};
  ZSTD_outBuffer ob{out, stable ? static_cast<std::size_t>(raw) : out_size, 0};
  auto ended_early = [&] {
    std::snprintf(why, sizeof why, "zstd frame ended after %zu bytes, raw_size says %llu", ob.pos,
                  static_cast<unsigned long long>(raw));
    return why;
  };
  while (ob.pos < out_size) {
    if (in.pos == in.size) {
      if (limit + 3 > n) return ended_early();
      const std::uint32_t bh = static_cast<std::uint32_t>(p[limit]) |
                               (static_cast<std::uint32_t>(p[limit + 1]) << 8) |
                               (static_cast<std::uint32_t>(p[limit + 2]) << 16);
      const unsigned type = (bh >> 1) & 3;
      const std::size_t body = type == 1 ? 1 : (bh >> 3);  // RLE blocks store one byte
      if (type == 3 || body > n - limit - 3)
        return std::snprintf(why, sizeof why, "zstd block at byte %zu is malformed", limit), why;
      limit += 3 + body;
      in.size = limit;
    }
    const std::size_t before_in = in.pos, before_out = ob.pos;
    const std::size_t ret = ZSTD_decompressStream(dctx, &ob, &in);
    if (ZSTD_isError(ret))
      return std::snprintf(why, sizeof why, "zstd: %s", ZSTD_getErrorName(ret)), why;
    produced = ob.pos;
    if (ret == 0 && ob.pos < out_size) return ended_early();
    if (in.pos == before_in && ob.pos == before_out && in.pos < in.size)
      return std::snprintf(why, sizeof why, "zstd decoder made no progress"), why;
  }
  return nullptr;
}

// Decodes the first `out_size` bytes of the zstd frame (`stored` bytes at `p`, `raw` bytes of
// content) into `out`. When the whole frame is asked for it is decoded in one shot (zstd then
// refuses a frame holding more than `raw` bytes; its content checksum is left to the caller's
// per-image XXH64, fresh_dctx); otherwise it is
// streamed only as far as `out_size` (a few bytes more at most: to the end of the zstd block
// holding byte `out_size`). Never writes past `out_capacity` bytes; with `out_capacity` >= `raw`,
// zstd decodes straight into `out` instead of through window buffers of its own (fewer
// allocations, pages and copies on a first launch).
//
// Returns nullptr when the bytes decoded; otherwise writes into `why` what zstd (or the block
// walk) found wrong and returns it. Once check_zstd_frame has accepted the frame header, any such
// failure means the payload is damaged — zstd's own words for it depend on where the damage
// fell: a corrupted literal or match length makes the output overrun the recorded size, which
// zstd reports as "Destination buffer is too small" — so the caller, which knows the image,
// reports them all as damage and keeps zstd's words as the detail. Throws only when memory for
// the decoder cannot be had (errc::out_of_memory).
inline const char* decode_zstd_prefix(const std::uint8_t* p, std::uint64_t stored,
                                      std::uint64_t raw, const ZSTD_DDict* ddict, std::uint8_t* out,
                                      std::size_t out_size, std::size_t out_capacity,
                                      char (&why)[256]) {
  ZSTD_DCtx* dctx = fresh_dctx();
  if (!dctx) fail(errc::out_of_memory, "", "could not allocate a zstd decompression context");
  if (out_size == raw) {
    const std::size_t r =
        ddict ? ZSTD_decompress_usingDDict(dctx, out, out_size, p, static_cast<std::size_t>(stored),
                                           ddict)
              : ZSTD_decompressDCtx(dctx, out, out_size, p, static_cast<std::size_t>(stored));
    if (ZSTD_isError(r))
      return std::snprintf(why, sizeof why, "zstd: %s", ZSTD_getErrorName(r)), why;
    if (r != out_size)
      return std::snprintf(why, sizeof why, "zstd frame holds %zu bytes, raw_size says %llu", r,
                           static_cast<unsigned long long>(raw)),
             why;
    return nullptr;
  }
  std::size_t produced = 0;
  return decode_zstd_stream(p, stored, raw, ddict, out, out_size, out_capacity, why, produced);
}

// A zstd frame of 987 bytes of PTX-like text (32 lines; `python3 scripts/make-warm-up-frame.py`
// writes this array, tests/container/test_roundtrip.cpp checks that it decodes to that text):
// literals in four Huffman streams and FSE-coded sequences, the paths a cubin's or a PTX's
// decode takes.
inline constexpr std::uint8_t warm_up_frame[] = {
    0x28, 0xb5, 0x2f, 0xfd, 0x60, 0xdb, 0x02, 0xc5, 0x0a, 0x00, 0x66, 0xd2, 0x31, 0x19, 0x60, 0x4d,
    0xf2, 0x2f, 0x21, 0x1e, 0x50, 0x2f, 0x1d, 0x63, 0x00, 0x00, 0x50, 0x9c, 0x48, 0xb9, 0x92, 0xb1,
    0xed, 0x60, 0x31, 0x08, 0x94, 0xcc, 0x09, 0x32, 0x00, 0x2c, 0x00, 0x25, 0x00, 0x47, 0xf5, 0x83,
    0x88, 0xa5, 0x21, 0x14, 0x1c, 0x4d, 0x62, 0x91, 0xec, 0xf2, 0xa9, 0xd2, 0x3a, 0xb2, 0x48, 0x9a,
    0xe5, 0x21, 0x39, 0x70, 0x33, 0xd5, 0xcf, 0x29, 0x2c, 0x8d, 0x22, 0x02, 0x08, 0x0c, 0x9e, 0x7a,
    0x2a, 0x5c, 0x88, 0x80, 0x2a, 0x21, 0x02, 0x00, 0x1d, 0x27, 0x0b, 0xc5, 0xc1, 0x00, 0x04, 0x54,
    0xba, 0xcc, 0xf8, 0xdb, 0x44, 0x3b, 0xd5, 0x5d, 0xb6, 0xf1, 0xea, 0xf6, 0x51, 0x19, 0x37, 0x20,
    0x0b, 0x81, 0x81, 0x38, 0x7b, 0x54, 0x6c, 0x68, 0x30, 0xcd, 0x1b, 0xa9, 0xf4, 0x7b, 0x60, 0x16,
    0x95, 0xa5, 0x99, 0x30, 0xee, 0xbc, 0x95, 0x61, 0x08, 0x9d, 0x27, 0x6a, 0x89, 0xa8, 0x6d, 0x49,
    0xd5, 0xbf, 0x5c, 0xb5, 0xc3, 0xeb, 0xa5, 0xba, 0x26, 0xdb, 0x29, 0x9e, 0xe3, 0x33, 0xd5, 0xf3,
    0x6c, 0x33, 0x62, 0xe7, 0x52, 0xf1, 0x39, 0xa7, 0xf8, 0x33, 0xf2, 0xa1, 0xda, 0x63, 0x3e, 0x3f,
    0x81, 0x81, 0x9e, 0xa5, 0x3a, 0x5e, 0x51, 0xa9, 0xae, 0x7b, 0xf4, 0x76, 0x43, 0x3e, 0x95, 0xf1,
    0xb5, 0x61, 0x3f, 0x33, 0x2f, 0x93, 0xf9, 0x76, 0xa4, 0x5a, 0xcc, 0xbe, 0x1d, 0xb6, 0xed, 0x69,
    0x3d, 0x4c, 0xc5, 0xcd, 0x4f, 0xa8, 0x41, 0x38, 0x15, 0xaa, 0x99, 0x6c, 0xd8, 0xdf, 0xf0, 0x2e,
    0x09, 0xad, 0x03, 0x81, 0x54, 0x86, 0x88, 0x33, 0x81, 0x44, 0x36, 0x61, 0xb6, 0x85, 0x56, 0x03,
    0x18, 0x26, 0x4f, 0x1c, 0x96, 0x06, 0x2b, 0xbe, 0x77, 0x90, 0x7e, 0x0e, 0x60, 0xc0, 0x85, 0x06,
    0x2c, 0xa0, 0x9c, 0x84, 0xcf, 0x3e, 0x38, 0x75, 0xc0, 0x1b, 0xee, 0xf1, 0xc5, 0x1e, 0xe5, 0xb3,
    0x28, 0xbf, 0x70, 0x74, 0x88, 0x47, 0xf3, 0x48, 0xb2, 0xd2, 0xff, 0xeb, 0x3e, 0x7a, 0xe8, 0x56,
    0xea, 0xbd, 0x94, 0x41, 0x0c, 0x94, 0x1f, 0x44, 0xdf, 0x64, 0xe6, 0x0c, 0x13, 0x26, 0xe5, 0x9e,
    0x92, 0x9a, 0xb0, 0xd7, 0xdf, 0x1b, 0x2b, 0xf8, 0x4c, 0xa2, 0x29, 0x8f, 0xd6, 0xda, 0xdb, 0xbd,
    0xa0, 0x37, 0x69, 0x6f, 0x1f, 0x0f, 0xc8, 0x59, 0xac, 0xd0, 0xfd, 0x72, 0x28, 0x23, 0xf0, 0x78,
    0x0a, 0x80, 0x5e, 0x51, 0x81, 0x1a, 0x64, 0xad, 0x56, 0x10, 0xeb, 0xe0, 0x3d, 0x2b, 0xb2, 0x78,
    0xc8, 0xaa};
inline constexpr std::size_t warm_up_frame_raw_size = 987;

// Pays the decoder's one-time costs in this process and thread before a first launch needs it:
// the thread's decompression context (its allocation and the first touch of its tables) and the
// first execution of libzstd's decoding code (its pages mapped, its branches learnt). Measured on
// the first launch of a kernel, those cost more than decoding the cubin itself (bench/launch
// RESULTS.md: decode 156 us cold, 53 us after a decode of another image, on the H200). The
// backend calls it once, when it starts (backends.hpp get_backend): 73 us there, beside the
// driver's ~200 ms start, for 39 us less on the first kernel's load (H200, pinned medians).
// Never throws: a failure here is left for the real decode to report.
inline void warm_up() noexcept {
  try {
    std::uint8_t out[warm_up_frame_raw_size];
    char why[256];
    // A prefix (the streaming path a cubin placed first in its kernel's frame takes), then the
    // whole frame (the one-shot path).
    decode_zstd_prefix(warm_up_frame, sizeof warm_up_frame, warm_up_frame_raw_size, nullptr, out,
                       warm_up_frame_raw_size / 2, sizeof out, why);
    decode_zstd_prefix(warm_up_frame, sizeof warm_up_frame, warm_up_frame_raw_size, nullptr, out,
                       sizeof out, sizeof out, why);
  } catch (...) {
  }
}

}  // namespace codec
TRITONPACK_END_NAMESPACE
