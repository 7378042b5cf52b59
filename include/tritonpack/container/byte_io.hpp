// tritonpack/container/byte_io.hpp — little-endian fixed-width loads and stores, and overflow-safe
// range arithmetic, for the container reader (and the packer, which writes the same layout).
//
// Why byte-by-byte assembly instead of memcpy into an integer: the container is little-endian on
// every host, and the record fields are not guaranteed to be aligned in an embedded char array.
// Compilers turn these loops into a single unaligned load on little-endian targets.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace byte_io {

inline std::uint16_t load_u16(const std::uint8_t* p) noexcept {
  return static_cast<std::uint16_t>(p[0] | (p[1] << 8));
}

inline std::uint32_t load_u32(const std::uint8_t* p) noexcept {
  return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
         (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}

inline std::uint64_t load_u64(const std::uint8_t* p) noexcept {
  return static_cast<std::uint64_t>(load_u32(p)) |
         (static_cast<std::uint64_t>(load_u32(p + 4)) << 32);
}

inline void store_u16(std::uint8_t* p, std::uint16_t v) noexcept {
  p[0] = static_cast<std::uint8_t>(v);
  p[1] = static_cast<std::uint8_t>(v >> 8);
}

inline void store_u32(std::uint8_t* p, std::uint32_t v) noexcept {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

inline void store_u64(std::uint8_t* p, std::uint64_t v) noexcept {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

// `offset + length <= limit` without the addition overflowing: the check every bound in the
// reader goes through, so a hostile 0xFFFF... offset cannot wrap around into range.
inline bool range_within(std::uint64_t offset, std::uint64_t length, std::uint64_t limit) noexcept {
  return offset <= limit && length <= limit - offset;
}

}  // namespace byte_io
TRITONPACK_END_NAMESPACE
