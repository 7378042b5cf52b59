// core/types.hpp: small-float conversions (against exhaustive and known values), grid helpers,
// specialization predicates, the tensor_descriptor layout the run time reads.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>

#include <tritonpack/core/types.hpp>
#include <tritonpack/launch/tensor_descriptor.hpp>

using namespace tritonpack;

static float bits_to_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

TEST_CASE("half: every finite fp16 value round-trips through float") {
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const half h = half::from_bits(static_cast<std::uint16_t>(b));
    const float f = static_cast<float>(h);
    if (std::isnan(f)) {
      CHECK(((b & 0x7c00) == 0x7c00 && (b & 0x3ff) != 0));
      continue;
    }
    REQUIRE_MESSAGE(half(f).bits == b, "bits 0x" << std::hex << b);
  }
}

TEST_CASE("half: known values and round-to-nearest-even") {
  CHECK(half(1.0f).bits == 0x3c00);
  CHECK(half(-2.0f).bits == 0xc000);
  CHECK(half(65504.0f).bits == 0x7bff);                 // largest finite
  CHECK(half(65519.0f).bits == 0x7bff);                 // below the midpoint to infinity
  CHECK(half(65520.0f).bits == 0x7c00);                 // midpoint rounds to even: infinity
  CHECK(half(std::numeric_limits<float>::infinity()).bits == 0x7c00);
  CHECK(half(std::ldexp(1.0f, -24)).bits == 0x0001);    // smallest subnormal
  CHECK(half(std::ldexp(1.0f, -25)).bits == 0x0000);    // tie between 0 and 2^-24: even is 0
  CHECK(half(std::ldexp(1.5f, -25)).bits == 0x0001);    // above the tie
  CHECK(half(1.0f + std::ldexp(1.0f, -11)).bits == 0x3c00);  // tie, even mantissa stays
  CHECK(half(1.0f + 3 * std::ldexp(1.0f, -11)).bits == 0x3c02);  // tie, odd mantissa rounds up
  CHECK(half(-0.0f).bits == 0x8000);
  CHECK(std::isnan(static_cast<float>(half(std::nanf("")))));
}

TEST_CASE("bfloat16: round-to-nearest-even from float") {
  CHECK(bfloat16(1.0f).bits == 0x3f80);
  CHECK(bfloat16(bits_to_float(0x3f808000)).bits == 0x3f80);  // tie, even
  CHECK(bfloat16(bits_to_float(0x3f818000)).bits == 0x3f82);  // tie, odd → up
  CHECK(bfloat16(bits_to_float(0x3f808001)).bits == 0x3f81);
  CHECK(bfloat16(bits_to_float(0x7f7fffff)).bits == 0x7f80);  // overflows to infinity
  CHECK(static_cast<float>(bfloat16::from_bits(0x4049)) == bits_to_float(0x40490000));
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const float f = static_cast<float>(bfloat16::from_bits(static_cast<std::uint16_t>(b)));
    if (!std::isnan(f)) REQUIRE(bfloat16(f).bits == b);
  }
}

TEST_CASE("float8: e4m3 saturates, e5m2 has infinities; all values round-trip") {
  CHECK(float8_e4m3(448.0f).bits == 0x7e);
  CHECK(float8_e4m3(1000.0f).bits == 0x7e);   // satfinite
  CHECK(float8_e4m3(-1000.0f).bits == 0xfe);
  CHECK(float8_e4m3(1.0f).bits == 0x38);
  CHECK(float8_e4m3(std::ldexp(1.0f, -9)).bits == 0x01);  // smallest subnormal
  CHECK(std::isnan(static_cast<float>(float8_e4m3::from_bits(0x7f))));
  CHECK(float8_e5m2(57344.0f).bits == 0x7b);
  CHECK(float8_e5m2(1e9f).bits == 0x7c);      // infinity
  CHECK(float8_e5m2(1.0f).bits == 0x3c);
  for (unsigned b = 0; b < 256; ++b) {
    const float f4 = static_cast<float>(float8_e4m3::from_bits(static_cast<std::uint8_t>(b)));
    if (!std::isnan(f4)) CHECK(float8_e4m3(f4).bits == b);
    const float f5 = static_cast<float>(float8_e5m2::from_bits(static_cast<std::uint8_t>(b)));
    if (!std::isnan(f5)) CHECK(float8_e5m2(f5).bits == b);
  }
}

TEST_CASE("cdiv, grid_dim and the specialization predicates") {
  CHECK(cdiv(1000, 1024) == 1);
  CHECK(cdiv(1024, 1024) == 1);
  CHECK(cdiv(1025, 1024) == 2);
  CHECK(cdiv(0, 128) == 0);
  CHECK(cdiv(std::int64_t{1} << 40, 1024) == (std::int64_t{1} << 30));
  CHECK(grid_dim(7) == 7u);
  CHECK(grid_dim(0u) == 0u);
  CHECK_THROWS_AS(grid_dim(-1), error);
  CHECK_THROWS_AS(grid_dim(std::int64_t{1} << 33), error);
  alignas(16) float buf[8];
  CHECK(aligned_16(buf));
  CHECK_FALSE(aligned_16(buf + 1));
  CHECK(divisible_16(32));
  CHECK_FALSE(divisible_16(33));
  CHECK(equal_1(1));
  CHECK_FALSE(equal_1(2));
}

TEST_CASE("tensor_descriptor has the layout the run time reads through void*") {
  tensor_descriptor<const half, 3> d;
  d.base = reinterpret_cast<const half*>(std::uintptr_t{0x1000});
  d.shape = {4, 5, 6};
  d.strides = {30, 6, 1};
  d.padding_nan = true;
  const auto* b = reinterpret_cast<const unsigned char*>(&d);
  std::int64_t v;
  std::memcpy(&v, b + detail::tensor_descriptor_layout<3>::shape_offset + 8, 8);
  CHECK(v == 5);
  std::memcpy(&v, b + detail::tensor_descriptor_layout<3>::strides_offset, 8);
  CHECK(v == 30);
  CHECK(b[detail::tensor_descriptor_layout<3>::padding_offset] == 1);
  CHECK(b[detail::tensor_descriptor_layout<3>::tf32_offset] == 0);
  d.round_f32_to_tf32 = true;
  CHECK(b[detail::tensor_descriptor_layout<3>::tf32_offset] == 1);
  CHECK(read_descriptor(&d, 3).round_f32_to_tf32);
  CHECK(read_descriptor(&d, 3).padding_nan);
  CHECK(is_tensor_descriptor<tensor_descriptor<float, 2>>::value);
  CHECK_FALSE(is_tensor_descriptor<float*>::value);
}
