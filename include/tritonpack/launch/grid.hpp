// tritonpack/launch/grid.hpp — grids at run time: checked arithmetic for grid expressions, and the
// driver's grid limits (docs/runtime.md "Grids").
//
// A generated function computes its grid from the spec's expression over the caller's integer
// arguments (`cdiv(n, chunk)`). Those are the caller's data: a zero divisor, a product beyond
// 2^63, a negative or too large dimension must be an error naming the kernel, never SIGFPE,
// undefined behaviour or a wrapped grid. `grid_int` is an int64 whose + - * / % cdiv min max check
// for that; the first failure sticks to every result computed from it (as a NaN does) and
// `kernel::grid` reports it with the kernel, the axis and the expression. On success each
// operation costs one compare and branch; messages are built only on failure, out of line.
#pragma once

#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <type_traits>

#include "tritonpack/core/error.hpp"
#include "tritonpack/core/identify.hpp"
#include "tritonpack/core/model.hpp"
#include "tritonpack/core/types.hpp"
#include "tritonpack/launch/int_arg.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

namespace detail {
// a op b in int64; false when the exact result does not fit.
inline bool add_fits(std::int64_t a, std::int64_t b, std::int64_t& r) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  return !__builtin_add_overflow(a, b, &r);
#else
  if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return false;
  r = a + b;
  return true;
#endif
}
inline bool sub_fits(std::int64_t a, std::int64_t b, std::int64_t& r) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  return !__builtin_sub_overflow(a, b, &r);
#else
  if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b)) return false;
  r = a - b;
  return true;
#endif
}
inline bool mul_fits(std::int64_t a, std::int64_t b, std::int64_t& r) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  return !__builtin_mul_overflow(a, b, &r);
#else
  if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a)
            : (b > 0 ? a < INT64_MIN / b : a != 0 && b < INT64_MAX / a))
    return false;
  r = a * b;
  return true;
#endif
}
}  // namespace detail

// A value of a grid expression: an int64, or the operation that failed to give one.
class grid_int {
 public:
  // Any integer argument. A 64-bit unsigned value above 2^63-1 is a failure, not a wrap.
  template <class I,
            class = std::enable_if_t<std::is_integral<I>::value && !std::is_same<I, bool>::value>>
  constexpr grid_int(I v) noexcept : value_(static_cast<std::int64_t>(v)) {
    if constexpr (std::is_unsigned<I>::value && sizeof(I) == 8) {
      if (v > std::uint64_t{INT64_MAX}) *this = failure('u', static_cast<std::int64_t>(v), 0);
    }
  }

  // A generated function's integer argument (launch/int_arg.hpp), as the integer it holds.
  template <class T>
  constexpr grid_int(int_arg<T> v) noexcept : grid_int(static_cast<T>(v)) {}

  constexpr std::int64_t value() const noexcept { return value_; }
  constexpr bool failed() const noexcept { return op_ != 0; }
  // What failed, as "cdiv(1000, 0) divides by zero" (empty when nothing did).
  inline std::string failure_text() const;

  friend grid_int operator+(grid_int a, grid_int b) noexcept {
    std::int64_t r = 0;
    if (a.failed() || b.failed()) return a.failed() ? a : b;
    return detail::add_fits(a.value_, b.value_, r) ? grid_int(r) : failure('+', a.value_, b.value_);
  }
  friend grid_int operator-(grid_int a, grid_int b) noexcept {
    std::int64_t r = 0;
    if (a.failed() || b.failed()) return a.failed() ? a : b;
    return detail::sub_fits(a.value_, b.value_, r) ? grid_int(r) : failure('-', a.value_, b.value_);
  }
  friend grid_int operator*(grid_int a, grid_int b) noexcept {
    std::int64_t r = 0;
    if (a.failed() || b.failed()) return a.failed() ? a : b;
    return detail::mul_fits(a.value_, b.value_, r) ? grid_int(r) : failure('*', a.value_, b.value_);
  }
  // Integer division truncating toward zero, as in C++ (and as the spec documents).
  friend grid_int operator/(grid_int a, grid_int b) noexcept {
    if (a.failed() || b.failed()) return a.failed() ? a : b;
    if (!divisible(a.value_, b.value_)) return failure('/', a.value_, b.value_);
    return grid_int(a.value_ / b.value_);
  }
  friend grid_int operator%(grid_int a, grid_int b) noexcept {
    if (a.failed() || b.failed()) return a.failed() ? a : b;
    if (!divisible(a.value_, b.value_)) return failure('%', a.value_, b.value_);
    return grid_int(a.value_ % b.value_);
  }
  friend grid_int operator-(grid_int a) noexcept {
    if (a.failed()) return a;
    return a.value_ == INT64_MIN ? failure('n', a.value_, 0) : grid_int(-a.value_);
  }
  friend grid_int operator+(grid_int a) noexcept { return a; }

  // (a + b - 1) / b, as tritonpack::cdiv(a, b) computes it for plain integers.
  friend grid_int cdiv(grid_int a, grid_int b) noexcept {
    if (a.failed() || b.failed()) return a.failed() ? a : b;
    const std::int64_t x = a.value_, y = b.value_;
    if (y == 0) return failure('c', x, y);
    if (x >= 0 && y > 0)
      return grid_int(x / y + (x % y != 0));  // the usual case, and no intermediate to overflow
    std::int64_t t = 0;                       // x + y - 1
    const bool fits = y > 0 ? detail::add_fits(x, y - 1, t)
                            : detail::add_fits(x, y, t) && detail::sub_fits(t, 1, t);
    if (!fits || !divisible(t, y)) return failure('c', x, y);
    return grid_int(t / y);
  }
  friend grid_int min(grid_int a, grid_int b) noexcept {
    if (a.failed() || b.failed()) return a.failed() ? a : b;
    return a.value_ < b.value_ ? a : b;
  }
  friend grid_int max(grid_int a, grid_int b) noexcept {
    if (a.failed() || b.failed()) return a.failed() ? a : b;
    return a.value_ < b.value_ ? b : a;
  }

 private:
  constexpr grid_int() noexcept = default;
  static constexpr bool divisible(std::int64_t a, std::int64_t b) noexcept {
    return b != 0 && !(b == -1 && a == INT64_MIN);
  }
  // A failed value reads as -1, so that one range compare in kernel::grid catches it.
  static constexpr grid_int failure(char op, std::int64_t lhs, std::int64_t rhs) noexcept {
    grid_int g;
    g.value_ = -1;
    g.lhs_ = lhs;
    g.rhs_ = rhs;
    g.op_ = op;
    return g;
  }

  std::int64_t value_ = 0;
  std::int64_t lhs_ = 0, rhs_ = 0;  // the failed operation's operands
  char op_ =
      0;  // the failed operation: + - * / % c (cdiv) n (negation) u (unsigned conversion); 0: none
};

// cdiv, min and max are hidden friends (found through grid_int); these make `::tritonpack::cdiv(
// grid_int{n}, BLOCK)` and `::tritonpack::min(...)`, as generated code spells them, reach them.
inline grid_int cdiv(grid_int a, grid_int b) noexcept;
inline grid_int min(grid_int a, grid_int b) noexcept;
inline grid_int max(grid_int a, grid_int b) noexcept;

// Whether `v` can be a dimension of a grid3 (0 to 2^32-1); a failed value cannot (it reads -1).
constexpr bool is_grid_dim(grid_int v) noexcept {
  return static_cast<std::uint64_t>(v.value()) <= 0xffffffffu;
}

inline std::string grid_int::failure_text() const {
  const std::string l = std::to_string(lhs_), r = std::to_string(rhs_);
  switch (op_) {
    case 0: return {};
    case 'u':
      return "the unsigned value " + std::to_string(static_cast<std::uint64_t>(lhs_)) +
             " is above 2^63-1";
    case 'n': return "-(" + l + ") overflows 64-bit integers";
    case 'c':
      return "cdiv(" + l + ", " + r +
             (rhs_ == 0 ? ") divides by zero" : ") overflows 64-bit integers");
    case '/':
    case '%':
      return l + " " + op_ + " " + r +
             (rhs_ == 0 ? " divides by zero" : " overflows 64-bit integers");
    default: return l + " " + op_ + " " + r + " overflows 64-bit integers";
  }
}

// The largest grid a driver launches, per backend: CUDA's cuLaunchKernel documents x <= 2^31-1
// and y, z <= 65535 blocks; HIP's are in docs/hip-abi.md (§ launch), including a cap on
// blocks x threads in x. The x limits count launched blocks: programs x num_ctas.
struct grid_limits {
  const char* driver = "";  // "CUDA", for messages
  std::uint64_t x = 0, y = 0, z = 0;
  std::uint64_t x_threads = 0;  // blocks in x times threads per block; 0: no such limit
};

namespace detail {
[[noreturn]] TRITONPACK_COLD inline void grid_limit_failure(const grid_limits& lim,
                                                            const kernel_info& k, grid3 g,
                                                            std::uint32_t num_ctas,
                                                            std::uint32_t block) {
  const std::uint64_t x = std::uint64_t{g.x} * num_ctas;
  const std::string head = identify(k) + ": grid ";
  const std::string above = " is above the " + std::string(lim.driver) + " limit of ";
  std::string msg;
  if (g.y > lim.y) {
    msg = head + "y = " + std::to_string(g.y) + above + std::to_string(lim.y);
  } else if (g.z > lim.z) {
    msg = head + "z = " + std::to_string(g.z) + above + std::to_string(lim.z);
  } else {
    const std::string blocks = num_ctas == 1 ? std::to_string(x)
                                             : std::to_string(g.x) + " programs x " +
                                                   std::to_string(num_ctas) +
                                                   " CTAs = " + std::to_string(x) + " blocks";
    if (x > lim.x) msg = head + "x = " + blocks + above + std::to_string(lim.x);
    else
      msg = head + "x = " + blocks + " of " + std::to_string(block) +
            " threads = " + std::to_string(x * block) + " threads" + above +
            std::to_string(lim.x_threads) + " threads in x";
  }
  throw error(errc::bad_argument, msg);
}
}  // namespace detail

// Throws error(bad_argument) naming the kernel, the dimension and its value when `g`, launched as
// `num_ctas` blocks per program of `block` threads, is beyond `lim`. Each backend calls it first
// thing in its launch, with its own limits; it costs a few compares.
inline void check_grid_limits(const grid_limits& lim, const kernel_info& k, grid3 g,
                              std::uint32_t num_ctas, std::uint32_t block) {
  const std::uint64_t x = std::uint64_t{g.x} * num_ctas;
  if (x > lim.x || g.y > lim.y || g.z > lim.z || (lim.x_threads != 0 && x * block > lim.x_threads))
    detail::grid_limit_failure(lim, k, g, num_ctas, block);
}

TRITONPACK_END_NAMESPACE
