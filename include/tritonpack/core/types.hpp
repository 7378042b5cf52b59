// tritonpack/core/types.hpp — the value types of the run-time API (docs/runtime-api.md "Types").
//
// Everything here is plain data with no driver dependency, so generated headers and applications
// can use it on a machine with no GPU software at all. The small-float types are storage types:
// they hold the exact bits Triton's kernels read (docs/triton-abi.md §1 "Bytes passed") and
// convert from/to float on the host with round-to-nearest-even.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "tritonpack/core/error.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

// A CUstream / cudaStream_t / hipStream_t: all are opaque pointers, so any of them converts to
// void* and the run time never needs the vendor headers. nullptr is the legacy default stream.
using stream_t = void*;

// A grid counted in Triton programs (the run time multiplies x by num_ctas for clusters).
struct grid3 {
  std::uint32_t x = 1, y = 1, z = 1;
};

namespace detail {

// Generic IEEE-style binary float codec for the narrow formats. Written with exact float
// arithmetic (power-of-two scaling and an explicit round-half-even) instead of bit tricks per
// format so one piece of code covers fp16, bf16 and both fp8 formats, independent of the FPU's
// rounding mode.
//   E, M: exponent and mantissa bits. kInf: the format has infinities (IEEE); otherwise the
//   all-ones pattern is NaN only (e4m3fn) and overflow saturates to the largest finite value,
//   matching PTX cvt.rn.satfinite which Triton uses for fp8e4nv.
template <int E, int M, bool kInf>
struct small_float {
  static constexpr int bias = (1 << (E - 1)) - 1;
  static constexpr std::uint32_t exp_mask = (1u << E) - 1;
  static constexpr std::uint32_t sign_bit = 1u << (E + M);

  static float max_finite() {
    // IEEE: top exponent is inf/NaN, so max = (2 - 2^-M) * 2^(emax). e4m3fn: top exponent is valid
    // except mantissa all ones (NaN): max = (2 - 2^(1-M)) * 2^(exp_mask - bias).
    if (kInf) return std::ldexp(2.0f - std::ldexp(1.0f, -M), static_cast<int>(exp_mask) - 1 - bias);
    return std::ldexp(2.0f - std::ldexp(1.0f, 1 - M), static_cast<int>(exp_mask) - bias);
  }
  static std::uint32_t nan_bits() {
    return kInf ? (exp_mask << M) | (1u << (M - 1)) : (exp_mask << M) | ((1u << M) - 1);
  }

  static std::uint32_t encode(float f) {
    std::uint32_t sign = std::signbit(f) ? sign_bit : 0u;
    if (std::isnan(f)) return sign | nan_bits();
    float a = std::fabs(f);
    if (std::isinf(a)) return kInf ? sign | (exp_mask << M) : sign | encode_finite(max_finite());
    if (a == 0.0f) return sign;
    std::uint32_t bits = encode_finite(a);
    return sign | bits;
  }

  static std::uint32_t encode_finite(float a) {
    int e = 0;
    std::frexp(a, &e);             // a = fr * 2^e, fr in [0.5, 1): unbiased exponent e-1
    const int min_exp = 1 - bias;  // exponent of the smallest normal
    int exp = e - 1 < min_exp ? min_exp : e - 1;
    float q = std::ldexp(a, M - exp);  // mantissa with implicit bit, as an exact float
    float r = std::floor(q);
    float frac = q - r;  // exact: q has at most 24 significant bits
    if (frac > 0.5f || (frac == 0.5f && std::fmod(r, 2.0f) != 0.0f)) r += 1.0f;
    auto m = static_cast<std::uint32_t>(r);
    if (m >= (2u << M)) {  // rounding carried into the next binade
      m >>= 1;
      ++exp;
    }
    float value = std::ldexp(static_cast<float>(m), exp - M);
    if (value > max_finite()) return kInf ? (exp_mask << M) : encode_finite(max_finite());
    if (m < (1u << M)) return m;  // subnormal: exponent field 0
    return (static_cast<std::uint32_t>(exp + bias) << M) | (m - (1u << M));
  }

  static float decode(std::uint32_t bits) {
    const bool neg = (bits & sign_bit) != 0;
    const std::uint32_t ef = (bits >> M) & exp_mask;
    const std::uint32_t mf = bits & ((1u << M) - 1);
    float v;
    if (ef == exp_mask && (kInf || mf == (1u << M) - 1)) {
      v = (kInf && mf == 0) ? std::numeric_limits<float>::infinity()
                            : std::numeric_limits<float>::quiet_NaN();
    } else if (ef == 0) {
      v = std::ldexp(static_cast<float>(mf), 1 - bias - M);
    } else {
      v = std::ldexp(static_cast<float>(mf | (1u << M)), static_cast<int>(ef) - bias - M);
    }
    return neg ? -v : v;
  }
};

}  // namespace detail

// IEEE binary16 storage. Construct from float (round to nearest even) or from raw bits.
struct half {
  std::uint16_t bits = 0;
  half() = default;
  explicit half(float f)
      : bits(static_cast<std::uint16_t>(detail::small_float<5, 10, true>::encode(f))) {}
  static half from_bits(std::uint16_t b) {
    half h;
    h.bits = b;
    return h;
  }
  explicit operator float() const { return detail::small_float<5, 10, true>::decode(bits); }
  friend bool operator==(half a, half b) { return a.bits == b.bits; }
  friend bool operator!=(half a, half b) { return a.bits != b.bits; }
};

// bfloat16 storage (upper half of an fp32). Construct from float with round to nearest even.
// Note: Triton's *Python* launcher truncates fp32 → bf16 for scalar arguments; a C++ caller
// chooses the value explicitly by constructing a bfloat16, and that value is passed bit-exact.
struct bfloat16 {
  std::uint16_t bits = 0;
  bfloat16() = default;
  explicit bfloat16(float f)
      : bits(static_cast<std::uint16_t>(detail::small_float<8, 7, true>::encode(f))) {}
  static bfloat16 from_bits(std::uint16_t b) {
    bfloat16 h;
    h.bits = b;
    return h;
  }
  explicit operator float() const {
    std::uint32_t u = static_cast<std::uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
  }
  friend bool operator==(bfloat16 a, bfloat16 b) { return a.bits == b.bits; }
  friend bool operator!=(bfloat16 a, bfloat16 b) { return a.bits != b.bits; }
};

// Triton fp8e4nv (OCP E4M3FN: no infinities, saturating conversion like cvt.rn.satfinite).
struct float8_e4m3 {
  std::uint8_t bits = 0;
  float8_e4m3() = default;
  explicit float8_e4m3(float f)
      : bits(static_cast<std::uint8_t>(detail::small_float<4, 3, false>::encode(f))) {}
  static float8_e4m3 from_bits(std::uint8_t b) {
    float8_e4m3 h;
    h.bits = b;
    return h;
  }
  explicit operator float() const { return detail::small_float<4, 3, false>::decode(bits); }
  friend bool operator==(float8_e4m3 a, float8_e4m3 b) { return a.bits == b.bits; }
  friend bool operator!=(float8_e4m3 a, float8_e4m3 b) { return a.bits != b.bits; }
};

// Triton fp8e5 (OCP E5M2, IEEE-like with infinities).
struct float8_e5m2 {
  std::uint8_t bits = 0;
  float8_e5m2() = default;
  explicit float8_e5m2(float f)
      : bits(static_cast<std::uint8_t>(detail::small_float<5, 2, true>::encode(f))) {}
  static float8_e5m2 from_bits(std::uint8_t b) {
    float8_e5m2 h;
    h.bits = b;
    return h;
  }
  explicit operator float() const { return detail::small_float<5, 2, true>::decode(bits); }
  friend bool operator==(float8_e5m2 a, float8_e5m2 b) { return a.bits == b.bits; }
  friend bool operator!=(float8_e5m2 a, float8_e5m2 b) { return a.bits != b.bits; }
};

static_assert(sizeof(half) == 2 && sizeof(bfloat16) == 2, "fp16/bf16 are passed as 2 raw bytes");
static_assert(sizeof(float8_e4m3) == 1 && sizeof(float8_e5m2) == 1, "fp8 storage is one byte");

// A host-side tensor descriptor argument (`tensordesc<...>` in the signature). The run time turns
// it into a CUtensorMap + shape + strides, or Triton's decomposed form, depending on the selected
// image (docs/triton-abi.md §5). `T` may be const.
template <class T, std::size_t Rank>
struct tensor_descriptor {
  static_assert(Rank >= 1 && Rank <= 5, "TMA supports ranks 1..5");
  T* base = nullptr;
  std::array<std::int64_t, Rank> shape{};
  std::array<std::int64_t, Rank> strides{};  // in elements; the innermost must be 1
  bool padding_nan = false;                  // out-of-bounds reads give NaN instead of 0
  // fp32 only, images of Triton 3.7 and later (Triton's TensorDescriptor.round_f32_to_tf32): the
  // kernel reads the data rounded to TF32 (docs/triton-abi.md §7; launch/triton_abi.hpp).
  bool round_f32_to_tf32 = false;
};

namespace detail {
// The run time reads a descriptor through `const void*` without knowing T, so the layout must be
// the same for every T and predictable from Rank alone.
template <std::size_t Rank>
struct tensor_descriptor_layout {
  static constexpr std::size_t base_offset = 0;
  static constexpr std::size_t shape_offset = sizeof(void*);
  static constexpr std::size_t strides_offset = shape_offset + 8 * Rank;
  static constexpr std::size_t padding_offset = strides_offset + 8 * Rank;
  static constexpr std::size_t tf32_offset = padding_offset + 1;
  static constexpr std::size_t size = padding_offset + 8;  // two bools padded to 8-byte alignment
};
static_assert(std::is_standard_layout<tensor_descriptor<float, 2>>::value,
              "read through raw offsets");
using td_f2 = tensor_descriptor<float, 2>;  // aliases: offsetof is a macro and cannot take "<a, b>"
using td_f3 = tensor_descriptor<float, 3>;
using td_f4 = tensor_descriptor<float, 4>;
static_assert(offsetof(td_f2, shape) == tensor_descriptor_layout<2>::shape_offset, "layout");
static_assert(offsetof(td_f3, strides) == tensor_descriptor_layout<3>::strides_offset, "layout");
static_assert(offsetof(td_f4, padding_nan) == tensor_descriptor_layout<4>::padding_offset,
              "layout");
static_assert(offsetof(td_f2, round_f32_to_tf32) == tensor_descriptor_layout<2>::tf32_offset,
              "layout");
static_assert(sizeof(tensor_descriptor<float, 2>) == tensor_descriptor_layout<2>::size, "layout");
static_assert(sizeof(tensor_descriptor<const half, 5>) == tensor_descriptor_layout<5>::size,
              "layout");
}  // namespace detail

template <class T>
struct is_tensor_descriptor : std::false_type {};
template <class T, std::size_t R>
struct is_tensor_descriptor<tensor_descriptor<T, R>> : std::true_type {};

// Triton's pointer specialization predicate (`:16`): the address is a multiple of 16.
inline bool aligned_16(const void* p) noexcept {
  return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0;
}
template <class T, std::size_t R>
bool aligned_16(const tensor_descriptor<T, R>& d) noexcept {
  return aligned_16(d.base);
}

// Triton's integer specialization predicates (`:16`, `:1`).
template <class I, class = std::enable_if_t<std::is_integral<I>::value>>
constexpr bool divisible_16(I v) noexcept {
  return v % 16 == 0;
}
template <class I, class = std::enable_if_t<std::is_integral<I>::value>>
constexpr bool equal_1(I v) noexcept {
  return v == 1;
}

// Ceiling division as in Triton's `triton.cdiv` (grid expressions use it).
template <class A, class B,
          class = std::enable_if_t<std::is_integral<A>::value && std::is_integral<B>::value>>
constexpr std::common_type_t<A, B, std::int64_t> cdiv(A a, B b) noexcept {
  using C = std::common_type_t<A, B, std::int64_t>;
  return (static_cast<C>(a) + static_cast<C>(b) - 1) / static_cast<C>(b);
}

// A grid expression's value as a grid dimension. Negative values come from a caller's bug (a
// negative size), so they are reported rather than wrapped into a huge grid.
template <class I, class = std::enable_if_t<std::is_integral<I>::value>>
std::uint32_t grid_dim(I v) {
  if constexpr (std::is_signed<I>::value) {
    if (v < I(0))
      throw error(errc::bad_argument, "grid dimension " + std::to_string(v) + " is negative");
  }
  if (static_cast<std::uint64_t>(v) > 0xffffffffull) {
    throw error(errc::bad_argument,
                "grid dimension " + std::to_string(v) + " does not fit in 32 bits");
  }
  return static_cast<std::uint32_t>(v);
}

TRITONPACK_END_NAMESPACE
