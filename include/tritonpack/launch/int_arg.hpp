// tritonpack/launch/int_arg.hpp — the integer parameters of generated typed functions.
//
// A kernel argument declared `i32` is an int32_t in the kernel. Were the generated function to
// take `std::int32_t n`, a `std::size_t` of 5,000,000,016 would convert silently to 705,032,720
// (no warning under -Wall -Wextra) and the kernel would cover 14 % of the data. Instead it takes
// `tritonpack::arg_i32 n`, which accepts any integer type and records whether the value fits:
//   - a source type whose every value fits (int for i32, uint32_t for i64) costs nothing;
//   - another one costs one compare when the argument is built, and the generated function checks
//     the flag (typed::check_range, one compare) and throws error(bad_argument) naming the kernel,
//     the argument and the value, before anything is launched;
//   - a floating-point value does not compile (convert it explicitly where that is meant).
// The value is the object's first member, so `&n` is the address of the int32_t the kernel reads
// (the launch's argument array points there), and it converts back to int32_t wherever the
// generated code computes with it (grids, specialisation predicates).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

namespace detail {
// Integers a kernel's integer argument accepts: integral types other than bool, and unscoped
// enumerations (which C++ converts to integers implicitly, as it did for the plain parameter).
template <class V, class = void>
struct int_like : std::false_type {};
template <class V>
struct int_like<V, std::enable_if_t<std::is_integral<V>::value && !std::is_same<V, bool>::value>>
    : std::true_type {};
template <class V>
struct int_like<V, std::enable_if_t<std::is_enum<V>::value &&
                                    std::is_convertible<V, std::underlying_type_t<V>>::value>>
    : std::true_type {};

template <class V, bool = std::is_enum<V>::value>
struct int_of {
  using type = V;
};
template <class V>
struct int_of<V, true> {
  using type = std::underlying_type_t<V>;
};

// True when every value of V is a value of T (no check needed).
template <class V, class T>
constexpr bool always_fits() {
  using VL = std::numeric_limits<V>;
  using TL = std::numeric_limits<T>;
  if (VL::is_signed && !TL::is_signed) return false;
  return VL::digits <= TL::digits;
}

// v is a value of T.
template <class T, class V>
constexpr bool fits_in(V v) noexcept {
  if constexpr (always_fits<V, T>()) {
    return true;
  } else if constexpr (std::is_signed<V>::value && std::is_signed<T>::value) {
    return v >= V{std::numeric_limits<T>::min()} && v <= V{std::numeric_limits<T>::max()};
  } else if constexpr (std::is_signed<V>::value) {  // into unsigned
    return v >= 0 && static_cast<std::make_unsigned_t<V>>(v) <= std::numeric_limits<T>::max();
  } else {  // unsigned into a narrower type
    return v <= static_cast<std::make_unsigned_t<T>>(std::numeric_limits<T>::max());
  }
}

// Triton's name of T ("i32", "u64").
template <class T>
constexpr const char* triton_int_name() {
  constexpr bool s = std::is_signed<T>::value;
  switch (sizeof(T)) {
    case 1: return s ? "i8" : "u8";
    case 2: return s ? "i16" : "u16";
    case 4: return s ? "i32" : "u32";
    default: return s ? "i64" : "u64";
  }
}
}  // namespace detail

template <class T>
class int_arg {
  static_assert(std::is_integral<T>::value && !std::is_same<T, bool>::value,
                "int_arg holds the value of an integer kernel argument");

 public:
  template <class V, std::enable_if_t<detail::int_like<V>::value, int> = 0>
  constexpr int_arg(V given) noexcept : value_(static_cast<T>(given)) {
    using I = typename detail::int_of<V>::type;
    const I v = static_cast<I>(given);
    if constexpr (!detail::always_fits<I, T>()) {
      if (!detail::fits_in<T>(v)) {
        given_negative_ = v < 0;
        given_ = static_cast<std::uint64_t>(v);
        fits_ = false;
      }
    }
  }
  // A floating-point value for an integer argument: convert it explicitly where that is meant.
  template <class V, std::enable_if_t<std::is_floating_point<V>::value, int> = 0>
  int_arg(V) = delete;

  constexpr operator T() const noexcept { return value_; }
  constexpr bool fits() const noexcept { return fits_; }

  // For a value that does not fit: "= 5000000016 does not fit in i32 (-2147483648 to 2147483647):
  // the kernel would read 705032720".
  std::string refusal() const {
    const std::string given = given_negative_ ? std::to_string(static_cast<std::int64_t>(given_))
                                              : std::to_string(given_);
    return "= " + given + " does not fit in " + detail::triton_int_name<T>() + " (" +
           std::to_string(std::numeric_limits<T>::min()) + " to " +
           std::to_string(std::numeric_limits<T>::max()) + "): the kernel would read " +
           std::to_string(value_);
  }

 private:
  T value_;  // first: the address of an int_arg is the address of the value the kernel reads
  bool fits_ = true;
  bool given_negative_ = false;
  std::uint64_t given_ = 0;  // what was passed, when it does not fit (two's complement if negative)
};

using arg_i8 = int_arg<std::int8_t>;
using arg_i16 = int_arg<std::int16_t>;
using arg_i32 = int_arg<std::int32_t>;
using arg_i64 = int_arg<std::int64_t>;
using arg_u8 = int_arg<std::uint8_t>;
using arg_u16 = int_arg<std::uint16_t>;
using arg_u32 = int_arg<std::uint32_t>;
using arg_u64 = int_arg<std::uint64_t>;

static_assert(std::is_standard_layout<arg_i32>::value && std::is_standard_layout<arg_u8>::value,
              "an int_arg's address must be its value's");

TRITONPACK_END_NAMESPACE
