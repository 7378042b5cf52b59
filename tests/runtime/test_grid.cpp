// launch/grid.hpp: grid_int's checked arithmetic (values as C++ computes them; a zero divisor, an
// overflow or an unsigned value past 2^63-1 sticks to every later result with what failed), and
// check_grid_limits with CUDA's limits and HIP's blocks-times-threads cap.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>

#include <tritonpack/launch/grid.hpp>

using namespace tritonpack;

namespace runtime_grid_tests {  // this file's own names (the test binary is a unity build)
namespace {
constexpr std::int64_t big = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t small = std::numeric_limits<std::int64_t>::min();

std::string limit_error(const grid_limits& lim, grid3 g, std::uint32_t num_ctas = 1, std::uint32_t block = 128) {
  kernel_info k;
  k.name = std::string("k");  // not `= "k"`: GCC 12 warns falsely (-Wrestrict) on that assignment
  try {
    check_grid_limits(lim, k, g, num_ctas, block);
  } catch (const error& e) {
    CHECK(e.code() == errc::bad_argument);
    return e.what();
  }
  return "(accepted)";
}
}  // namespace

TEST_CASE("grid_int computes as C++ does when nothing fails") {
  const grid_int n{1000};
  CHECK((n + 24).value() == 1024);
  CHECK((n - 1001).value() == -1);
  CHECK((n * 3).value() == 3000);
  CHECK((n / 7).value() == 142);
  CHECK((grid_int{-7} / 2).value() == -3);  // truncates toward zero
  CHECK((grid_int{-7} % 2).value() == -1);
  CHECK((-n).value() == -1000);
  CHECK(cdiv(n, grid_int{128}).value() == 8);
  CHECK(cdiv(n, 1000).value() == 1);
  CHECK(cdiv(grid_int{0}, 128).value() == 0);
  CHECK(cdiv(grid_int{big}, 2).value() == big / 2 + 1);  // no intermediate a + b - 1 to overflow
  CHECK(cdiv(grid_int{-7}, 2).value() == ::tritonpack::cdiv(-7, 2));  // the plain cdiv's value off the fast path
  CHECK(cdiv(grid_int{7}, -2).value() == ::tritonpack::cdiv(7, -2));
  CHECK(min(n, 64).value() == 64);
  CHECK(max(n, 64).value() == 1000);
  CHECK(grid_int{std::uint64_t{big}}.value() == big);
  CHECK_FALSE((n * n * n).failed());
  CHECK(is_grid_dim(grid_int{0xffffffffLL}));
  CHECK_FALSE(is_grid_dim(grid_int{0x100000000LL}));
  CHECK_FALSE(is_grid_dim(grid_int{-1}));
}

TEST_CASE("grid_int: the first failure sticks and says what failed, with the operands") {
  const grid_int n{1000}, zero{0};
  CHECK((n / zero).failure_text() == "1000 / 0 divides by zero");
  CHECK((n % zero).failure_text() == "1000 % 0 divides by zero");
  CHECK(cdiv(n, zero).failure_text() == "cdiv(1000, 0) divides by zero");
  CHECK((grid_int{big} + 1).failure_text() == "9223372036854775807 + 1 overflows 64-bit integers");
  CHECK((grid_int{small} - 1).failure_text() == "-9223372036854775808 - 1 overflows 64-bit integers");
  CHECK((grid_int{std::int64_t{1} << 62} * 4).failure_text() == "4611686018427387904 * 4 overflows 64-bit integers");
  CHECK((grid_int{small} / -1).failure_text() == "-9223372036854775808 / -1 overflows 64-bit integers");  // x86 traps on it
  CHECK((grid_int{small} % -1).failure_text() == "-9223372036854775808 % -1 overflows 64-bit integers");
  CHECK((-grid_int{small}).failure_text() == "-(-9223372036854775808) overflows 64-bit integers");
  CHECK(cdiv(grid_int{small}, -1).failure_text() == "cdiv(-9223372036854775808, -1) overflows 64-bit integers");
  CHECK(grid_int{~std::uint64_t{0}}.failure_text() == "the unsigned value 18446744073709551615 is above 2^63-1");
  // Later operations keep the first failure, whatever they would give on its -1.
  const grid_int failed = n / zero;
  CHECK(failed.value() == -1);
  for (const grid_int g : {failed * -1, -failed, failed + 2, min(failed, 5), max(5, failed), cdiv(7, failed), 3 % failed})
    CHECK(g.failure_text() == "1000 / 0 divides by zero");
  CHECK((cdiv(n, zero) + (n / zero)).failure_text() == "cdiv(1000, 0) divides by zero");  // the left one first
  CHECK_FALSE(is_grid_dim(failed));
  CHECK(n.failure_text().empty());
}

TEST_CASE("check_grid_limits names the kernel, the dimension and its value") {
  const grid_limits cuda{"CUDA", 0x7fffffffu, 65535, 65535, 0};
  CHECK(limit_error(cuda, {0x7fffffffu, 65535, 65535}) == "(accepted)");
  CHECK(limit_error(cuda, {0x80000000u, 1, 1}) == "tritonpack: kernel k: grid x = 2147483648 is above the CUDA limit of 2147483647");
  CHECK(limit_error(cuda, {1, 65536, 1}) == "tritonpack: kernel k: grid y = 65536 is above the CUDA limit of 65535");
  CHECK(limit_error(cuda, {1, 1, 65536}) == "tritonpack: kernel k: grid z = 65536 is above the CUDA limit of 65535");
  CHECK(limit_error(cuda, {0x40000000u, 1, 1}, 2) ==
        "tritonpack: kernel k: grid x = 1073741824 programs x 2 CTAs = 2147483648 blocks is above the CUDA limit of "
        "2147483647");
  // HIP caps blocks x threads per block in x (docs/hip-abi.md): 2^24 blocks of 256 threads is over.
  const grid_limits hip{"HIP", 0x7fffffffu, 65536, 65536, 0xffffffffu};
  CHECK(limit_error(hip, {16777215, 65536, 1}, 1, 256) == "(accepted)");
  CHECK(limit_error(hip, {16777216, 1, 1}, 1, 256) ==
        "tritonpack: kernel k: grid x = 16777216 of 256 threads = 4294967296 threads is above the HIP limit of "
        "4294967295 threads in x");
}

}  // namespace runtime_grid_tests
