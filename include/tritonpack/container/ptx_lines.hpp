// tritonpack/container/ptx_lines.hpp — puts back a PTX stored as coding_ptx_lines (format v4,
// docs/format.md "Image codings"): the PTX's lines with the text each shares with its cubin's
// .nv_debug_ptx_txt replaced by a NUL byte.
//
// Why: a cubin that ptxas built with line info carries the PTX it came from, each line without its
// indentation and comments and ended by a NUL — about half of a Triton cubin. The PTX beside it in
// the container is the same text once more; zstd finds little of it to share, because every line
// of one copy is cut at a different place from the other (a tab and a `.loc` line in one, a NUL in
// the other). Storing the PTX as what it adds to the cubin's copy (indentation, comments, `.loc`
// lines) makes a kernel's images 20-25 % smaller once compressed, and the PTX comes back byte for
// byte. The cubin is stored as it is, so loading it costs what it did; the PTX sits behind its
// cubin in the frame, so the prefix decode that reaches the PTX has decoded the cubin already.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "tritonpack/container/byte_io.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace ptx_lines {

// The stored bytes start with the text's place in the base image: u32 offset, u32 size.
constexpr std::size_t header_size = 8;
// In a stored line, this byte stands for the line's entry of the text (a PTX holds no NUL).
constexpr std::uint8_t placeholder = 0;

// Puts the PTX back together into `out` from its `stored` bytes (`stored_size` of them) and the
// bytes of its base image (`base`, `base_size`), producing at most `raw_size` bytes. Returns
// nullptr when it did and the result is exactly `raw_size` bytes long (the caller then checks its
// XXH64), otherwise writes into `why` what does not fit and returns it.
inline const char* restore(const std::uint8_t* stored, std::size_t stored_size,
                           const std::uint8_t* base, std::size_t base_size, std::uint64_t raw_size,
                           std::vector<std::uint8_t>& out, char (&why)[256]) {
  out.clear();
  if (stored_size < header_size)
    return std::snprintf(why, sizeof why, "its stored lines (%zu bytes) lack their %zu-byte header",
                         stored_size, header_size),
           why;
  const std::uint32_t text_offset = byte_io::load_u32(stored);
  const std::uint32_t text_size = byte_io::load_u32(stored + 4);
  if (!byte_io::range_within(text_offset, text_size, base_size))
    return std::snprintf(why, sizeof why,
                         "its PTX text at bytes %u..+%u lies outside its base image (%zu bytes)",
                         text_offset, text_size, base_size),
           why;
  // Every line uses its entry of the text at most once, so the PTX is never longer than its lines
  // and the text together: a raw_size above that is damage, refused before it is allocated.
  const std::uint64_t most = std::uint64_t{stored_size} - header_size + text_size;
  if (raw_size > most)
    return std::snprintf(why, sizeof why,
                         "raw_size says %llu bytes, more than its lines and text make (%llu)",
                         static_cast<unsigned long long>(raw_size),
                         static_cast<unsigned long long>(most)),
           why;
  out.reserve(static_cast<std::size_t>(raw_size));
  const std::uint8_t* text = base + text_offset;
  const std::uint8_t* const text_end = text + text_size;
  const std::uint8_t* line = stored + header_size;
  const std::uint8_t* const end = stored + stored_size;
  for (;;) {
    const auto* nl = static_cast<const std::uint8_t*>(std::memchr(line, '\n', end - line));
    const std::uint8_t* const line_end = nl ? nl : end;
    // This line's entry of the text: up to its NUL (or the text's end).
    const auto* nul = static_cast<const std::uint8_t*>(std::memchr(text, 0, text_end - text));
    const std::uint8_t* const entry_end = nul ? nul : text_end;
    const auto* mark =
        static_cast<const std::uint8_t*>(std::memchr(line, placeholder, line_end - line));
    std::size_t grows = static_cast<std::size_t>(line_end - line) + (nl ? 1 : 0);
    if (mark) grows += static_cast<std::size_t>(entry_end - text) - 1;
    if (grows > raw_size - out.size())
      return std::snprintf(why, sizeof why,
                           "its lines put back together run past its raw_size (%llu bytes)",
                           static_cast<unsigned long long>(raw_size)),
             why;
    if (mark) {
      out.insert(out.end(), line, mark);
      out.insert(out.end(), text, entry_end);
      out.insert(out.end(), mark + 1, line_end);
    } else {
      out.insert(out.end(), line, line_end);
    }
    text = nul ? nul + 1 : text_end;
    if (!nl) break;
    out.push_back('\n');
    line = nl + 1;
  }
  if (out.size() != raw_size)
    return std::snprintf(why, sizeof why,
                         "its lines put back together are %zu bytes, raw_size says %llu",
                         out.size(), static_cast<unsigned long long>(raw_size)),
           why;
  return nullptr;
}

}  // namespace ptx_lines
TRITONPACK_END_NAMESPACE
