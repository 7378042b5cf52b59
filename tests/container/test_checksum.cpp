// XXH64 (container/checksum.hpp) against the published test vectors and against zstd, which stores the low
// 32 bits of XXH64(content, seed 0) at the end of every frame written with a checksum.
#include <doctest/doctest.h>
#include <zstd.h>

#include <random>
#include <vector>

#include "tritonpack/container/checksum.hpp"

TEST_CASE("xxh64: published vectors") {
  CHECK(tritonpack::xxh64("", 0) == 0xEF46DB3751D8E999ULL);
  CHECK(tritonpack::xxh64("a", 1) == 0xD24EC4F1A98C6E5BULL);
  CHECK(tritonpack::xxh64("abc", 3) == 0x44BC2CF5AD770999ULL);
}

TEST_CASE("xxh64: agrees with zstd's frame checksums for every length 0..600 and a few large buffers") {
  std::mt19937 rng(42);
  std::vector<std::size_t> sizes;
  for (std::size_t n = 0; n <= 600; ++n) sizes.push_back(n);
  sizes.insert(sizes.end(), {4095, 4096, 65537, 1 << 20});
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  REQUIRE(cctx);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1);
  for (std::size_t n : sizes) {
    CAPTURE(n);
    std::vector<std::uint8_t> v(n);
    for (auto& b : v) b = static_cast<std::uint8_t>(rng());
    std::vector<std::uint8_t> out(ZSTD_compressBound(n));
    const std::size_t r = ZSTD_compress2(cctx, out.data(), out.size(), v.data(), v.size());
    REQUIRE(!ZSTD_isError(r));
    const std::uint32_t stored = static_cast<std::uint32_t>(out[r - 4]) | (static_cast<std::uint32_t>(out[r - 3]) << 8) |
                                 (static_cast<std::uint32_t>(out[r - 2]) << 16) | (static_cast<std::uint32_t>(out[r - 1]) << 24);
    CHECK(stored == static_cast<std::uint32_t>(tritonpack::xxh64(v.data(), v.size())));
  }
  ZSTD_freeCCtx(cctx);
}

TEST_CASE("xxh64_stream: any split of the input gives the one-shot hash") {
  std::mt19937 rng(9);
  for (std::size_t n : {0u, 1u, 31u, 32u, 33u, 63u, 64u, 100u, 1000u, 4097u}) {
    std::vector<std::uint8_t> v(n);
    for (auto& b : v) b = static_cast<std::uint8_t>(rng());
    const std::uint64_t want = tritonpack::xxh64(v.data(), v.size());
    for (int trial = 0; trial < 20; ++trial) {
      tritonpack::xxh64_stream s;
      std::size_t pos = 0;
      while (pos < n) {
        const std::size_t take = std::min<std::size_t>(n - pos, rng() % 40);
        s.update(v.data() + pos, take);
        pos += take;
      }
      CAPTURE(n);
      CHECK(s.digest() == want);
    }
  }
}
