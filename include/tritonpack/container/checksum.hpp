// tritonpack/container/checksum.hpp — XXH64 (seed 0), the checksum of every image and of the
// container's tables (docs/format.md "Checksums").
//
// Why XXH64 and why written out here: it is the hash zstd itself uses for frame content checksums
// (the low 32 bits of XXH64, seed 0), it runs at memory speed, and its specification is public
// (https://github.com/Cyan4973/xxHash/blob/dev/doc/xxhash_spec.md). The run time may depend on
// libzstd only, and libzstd does not export its internal copy, so this header carries the ~60
// lines of the algorithm. tests/container checks it against the published test vectors and
// against the checksum zstd writes into a frame for the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tritonpack/container/byte_io.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

namespace detail_xxh64 {
constexpr std::uint64_t prime1 = 0x9E3779B185EBCA87ULL;
constexpr std::uint64_t prime2 = 0xC2B2AE3D27D4EB4FULL;
constexpr std::uint64_t prime3 = 0x165667B19E3779F9ULL;
constexpr std::uint64_t prime4 = 0x85EBCA77C2B2AE63ULL;
constexpr std::uint64_t prime5 = 0x27D4EB2F165667C5ULL;

inline std::uint64_t rotl(std::uint64_t x, int r) noexcept { return (x << r) | (x >> (64 - r)); }

inline std::uint64_t round(std::uint64_t acc, std::uint64_t input) noexcept {
  acc += input * prime2;
  acc = rotl(acc, 31);
  return acc * prime1;
}

inline std::uint64_t merge_round(std::uint64_t acc, std::uint64_t val) noexcept {
  acc ^= round(0, val);
  return acc * prime1 + prime4;
}

// The last step shared by the one-shot and the streaming form: fold in the final < 32 bytes,
// then avalanche.
inline std::uint64_t finish(std::uint64_t h, const std::uint8_t* p,
                            const std::uint8_t* end) noexcept {
  while (end - p >= 8) {
    h ^= round(0, byte_io::load_u64(p));
    h = rotl(h, 27) * prime1 + prime4;
    p += 8;
  }
  if (end - p >= 4) {
    h ^= static_cast<std::uint64_t>(byte_io::load_u32(p)) * prime1;
    h = rotl(h, 23) * prime2 + prime3;
    p += 4;
  }
  while (p < end) {
    h ^= static_cast<std::uint64_t>(*p) * prime5;
    h = rotl(h, 11) * prime1;
    ++p;
  }
  h ^= h >> 33;
  h *= prime2;
  h ^= h >> 29;
  h *= prime3;
  h ^= h >> 32;
  return h;
}
}  // namespace detail_xxh64

// XXH64 of `size` bytes at `data` with the given seed (the container always uses seed 0).
inline std::uint64_t xxh64(const void* data, std::size_t size, std::uint64_t seed = 0) noexcept {
  using namespace detail_xxh64;
  const auto* p = static_cast<const std::uint8_t*>(data);
  const std::uint8_t* const end = p + size;
  std::uint64_t h;
  if (size >= 32) {
    std::uint64_t v1 = seed + prime1 + prime2, v2 = seed + prime2, v3 = seed, v4 = seed - prime1;
    const std::uint8_t* const limit = end - 32;
    do {
      v1 = round(v1, byte_io::load_u64(p));
      v2 = round(v2, byte_io::load_u64(p + 8));
      v3 = round(v3, byte_io::load_u64(p + 16));
      v4 = round(v4, byte_io::load_u64(p + 24));
      p += 32;
    } while (p <= limit);
    h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
    h = merge_round(h, v1);
    h = merge_round(h, v2);
    h = merge_round(h, v3);
    h = merge_round(h, v4);
  } else {
    h = seed + prime5;
  }
  h += static_cast<std::uint64_t>(size);
  return finish(h, p, end);
}

// XXH64 over data given in pieces; digest() equals xxh64() of the concatenation. The reader uses
// it to hash the container's tables with the checksum field read as zero, without copying them.
class xxh64_stream {
 public:
  explicit xxh64_stream(std::uint64_t seed = 0) noexcept : seed_(seed) {
    using namespace detail_xxh64;
    v_[0] = seed + prime1 + prime2;
    v_[1] = seed + prime2;
    v_[2] = seed;
    v_[3] = seed - prime1;
  }

  void update(const void* data, std::size_t size) noexcept {
    using namespace detail_xxh64;
    const auto* p = static_cast<const std::uint8_t*>(data);
    total_ += size;
    if (buffered_ + size < 32) {
      for (std::size_t i = 0; i < size; ++i) buf_[buffered_ + i] = p[i];
      buffered_ += size;
      return;
    }
    if (buffered_ != 0) {  // complete the pending stripe
      const std::size_t fill = 32 - buffered_;
      for (std::size_t i = 0; i < fill; ++i) buf_[buffered_ + i] = p[i];
      stripe(buf_);
      p += fill;
      size -= fill;
      buffered_ = 0;
    }
    while (size >= 32) {
      stripe(p);
      p += 32;
      size -= 32;
    }
    for (std::size_t i = 0; i < size; ++i) buf_[i] = p[i];
    buffered_ = size;
  }

  std::uint64_t digest() const noexcept {
    using namespace detail_xxh64;
    std::uint64_t h;
    if (total_ >= 32) {
      h = rotl(v_[0], 1) + rotl(v_[1], 7) + rotl(v_[2], 12) + rotl(v_[3], 18);
      for (int i = 0; i < 4; ++i) h = merge_round(h, v_[i]);
    } else {
      h = seed_ + prime5;
    }
    h += total_;
    const std::uint8_t* p = buf_;
    const std::uint8_t* const end = buf_ + buffered_;
    return detail_xxh64::finish(h, p, end);
  }

 private:
  void stripe(const std::uint8_t* p) noexcept {
    for (int i = 0; i < 4; ++i) v_[i] = detail_xxh64::round(v_[i], byte_io::load_u64(p + 8 * i));
  }

  std::uint64_t seed_;
  std::uint64_t v_[4];
  std::uint8_t buf_[32] = {};
  std::size_t buffered_ = 0;
  std::uint64_t total_ = 0;
};

TRITONPACK_END_NAMESPACE
