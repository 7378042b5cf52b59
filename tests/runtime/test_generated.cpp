// Generated functions (gridcheck.hpp, written at build time by generated/write_test_headers.cpp
// with the real header writer) called against the test-double driver: grids from expressions
// with a zero divisor, an overflow, a negative or too large dimension, caller-passed grids beyond
// the driver's limits, and calls no variant accepts. Each error must name the kernel and the
// culprit exactly, and nothing may reach the driver (issue 9, items 2 and 8).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "fixtures.hpp"
#include "gridcheck.hpp"
#include "test_util.hpp"

using namespace tritonpack;
using tptest::contains;

namespace runtime_generated_tests {  // this file's own names (the test binary is a unity build)
namespace {
// The message of the tritonpack::error `f` throws; fails the test when it throws none.
template <class F>
std::string message_of(F&& f) {
  const error e = tptest::expect_error(f);
  CHECK(e.code() == errc::bad_argument);
  return e.what();
}

std::string hex(const void* p) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(p)));
  return b;
}

alignas(16) float buffer[64];

// True in the child process that runs the test case's checks; in the parent, runs the test cases
// matching `filter` in a child and checks it passed. gridcheck::library() is static, as in an
// application: it must live and be torn down at exit in a process whose driver configuration
// never changes (other test cases reconfigure the fake), and whose backend is created after it,
// as an application's is (library teardown then skips the driver at exit).
bool in_child(const char* filter) {
  if (std::getenv("TP_GRIDCHECK_CHILD")) return true;
  const tptest::child_result child = tptest::run_self("TP_GRIDCHECK_CHILD=1", filter);
  INFO(child.output);
  CHECK(child.status == 0);
  std::string summary = child.output;  // "test cases: 1 | 1 passed", aligned with varying spaces
  summary.erase(std::remove(summary.begin(), summary.end(), ' '), summary.end());
  CHECK(summary.find("testcases:1|1passed") != std::string::npos);
  return false;
}
}  // namespace

TEST_CASE("generated grid: a zero divisor at run time is an error naming the kernel, axis and expression") {
  if (!in_child("*zero divisor at run time*")) return;
  auto& f = tptest::setup("sm_90");
  float* x = buffer;
  CHECK(message_of([&] { gridcheck::chunked(x, 1000, 0); }) ==
        "tritonpack: kernel chunked: grid x = cdiv(n, chunk): cdiv(1000, 0) divides by zero");
  CHECK(message_of([&] { gridcheck::rows(x, 1000, 0); }) ==
        "tritonpack: kernel rows: grid y = n / per_row: 1000 / 0 divides by zero");
  CHECK(f.launch_count() == 0);
  gridcheck::chunked(x, 1000, 128);  // the same functions launch when the values are good
  REQUIRE(f.launch_count() == 1);
  CHECK(f.launches()[0].grid[0] == 8);
}

TEST_CASE("generated grid: 64-bit overflow, negative and too large dimensions name the kernel and the value") {
  if (!in_child("*64-bit overflow*negative and too large*")) return;
  auto& f = tptest::setup("sm_90");
  float* x = buffer;
  CHECK(message_of([&] { gridcheck::area(x, std::int64_t{1} << 62, 4, 1); }) ==
        "tritonpack: kernel area: grid x = w * h: 4611686018427387904 * 4 overflows 64-bit integers");
  CHECK(message_of([&] { gridcheck::rows(x, -3000, 1000); }) == "tritonpack: kernel rows: grid y = n / per_row = -3 is negative");
  CHECK(message_of([&] { gridcheck::area(x, 100000, 100000, 1); }) ==
        "tritonpack: kernel area: grid x = w * h = 10000000000 is above the CUDA limit of 2147483647");
  CHECK(message_of([&] { gridcheck::area(x, 1, 1, ~std::uint64_t{0}); }) ==
        "tritonpack: kernel area: grid z = depth: the unsigned value 18446744073709551615 is above 2^63-1");
  // Within 32 bits but above the driver's limits: the backend's check, before the driver is called.
  CHECK(message_of([&] { gridcheck::area(x, 60000, 50000, 1); }) ==
        "tritonpack: kernel area: grid x = 3000000000 is above the CUDA limit of 2147483647");
  CHECK(message_of([&] { gridcheck::area(x, 1, 70000, 1); }) == "tritonpack: kernel area: grid y = 70000 is above the CUDA limit of 65535");
  CHECK(message_of([&] { gridcheck::area(x, 1, 1, 65536); }) == "tritonpack: kernel area: grid z = 65536 is above the CUDA limit of 65535");
  CHECK(f.launch_count() == 0);
  gridcheck::area(x, 2147483647, 1, 1);  // exactly at the limits: launched
  gridcheck::area(x, 1, 65535, 65535);
  CHECK(f.launch_count() == 2);
}

TEST_CASE("caller-passed grids, typed and dynamic: the same limit errors, naming the kernel") {
  if (!in_child("*caller-passed grids*")) return;
  auto& f = tptest::setup("sm_90");
  float* x = buffer;
  const std::string y_msg = "tritonpack: kernel explicit_grid: grid y = 70000 is above the CUDA limit of 65535";
  CHECK(message_of([&] { gridcheck::explicit_grid({1, 70000, 1}, x, 1); }) == y_msg);
  CHECK(message_of([&] { gridcheck::library().get("explicit_grid").launch(nullptr, {1, 70000, 1}, x, std::int32_t{1}); }) == y_msg);
  CHECK(message_of([&] { gridcheck::explicit_grid({4000000000u, 1, 1}, x, 1); }) ==
        "tritonpack: kernel explicit_grid: grid x = 4000000000 is above the CUDA limit of 2147483647");
  // With clusters the x limit counts CTAs: 1.5e9 programs of 2 CTAs are 3e9 blocks.
  CHECK(message_of([&] { gridcheck::clustered({1500000000u, 1, 1}, x); }) ==
        "tritonpack: kernel clustered: grid x = 1500000000 programs x 2 CTAs = 3000000000 blocks is above the CUDA "
        "limit of 2147483647");
  CHECK(f.launch_count() == 0);
  CHECK(f.live_allocations() == 0);  // nothing sized for the refused grid
}

TEST_CASE("a call no variant accepts names each failed predicate with the argument and its value") {
  if (!in_child("*no variant accepts names each failed*")) return;
  auto& f = tptest::setup("sm_90");
  float* misaligned = buffer + 1;
  const std::string aligned_msg =
      "tritonpack: kernel aligned_only: no variant accepts these arguments:\n"
      "  variant 0: x = " + hex(misaligned) + " is not 16-byte aligned; n = 1000003 is not a multiple of 16; K = 5, "
      "this variant needs 1\n"
      "  (a signature without these specialisations in the kernel's spec would accept any value)";
  CHECK(message_of([&] { gridcheck::aligned_only({1, 1, 1}, misaligned, 1000003, 5); }) == aligned_msg);
  CHECK(message_of([&] {
          gridcheck::library().get("aligned_only").launch(nullptr, {1, 1, 1}, misaligned, std::int32_t{1000003}, std::int32_t{5});
        }) == aligned_msg);
  // Constexpr specialisations; variant 2 (another config of variant 0) is not repeated.
  float* x = buffer;
  const std::string blocked_msg =
      "tritonpack: kernel blocked: no variant accepts these arguments:\n"
      "  variant 0: BLOCK_N = 3, this variant needs 4; flag = false, this variant needs true\n"
      "  variant 1: BLOCK_N = 3, this variant needs 8; alpha = 0.25, this variant needs 0.5\n"
      "  (a signature without these specialisations in the kernel's spec would accept any value)";
  CHECK(message_of([&] { gridcheck::blocked({1, 1, 1}, x, 3, false, 0.25f); }) == blocked_msg);
  CHECK(message_of([&] { gridcheck::library().get("blocked").launch(nullptr, {1, 1, 1}, x, std::int32_t{3}, false, 0.25f); }) ==
        blocked_msg);
  CHECK(f.launch_count() == 0);
  // The float constexpr selects variant 1 in both APIs (the dynamic one used to never match it).
  gridcheck::blocked({1, 1, 1}, x, 8, false, 0.5f);
  gridcheck::library().get("blocked").launch(nullptr, {1, 1, 1}, x, std::int32_t{8}, false, 0.5f);
  const auto ls = f.launches();
  REQUIRE(ls.size() == 2);
  for (const auto& r : ls) {
    CHECK(r.num_params == 4);  // x and flag passed, BLOCK_N and alpha folded, two scratch pointers
    CHECK(tptest::param<bool>(r, 1) == false);
  }
}

// The typed function executed (issue 16): every argument's bytes in the kernel's order, the
// folded `:1` argument dropped in the variant that folds it, the two scratch pointers last (the
// global one a live allocation of the device, the profile one null), the grid from its expression.
// A generated call that swapped, dropped or re-typed an argument fails here.
TEST_CASE("generated typed call: each argument as bytes in order; folded arguments dropped, scratch pointers last") {
  if (!in_child("*bytes in order; folded*")) return;
  auto& f = tptest::setup("sm_90");
  alignas(16) static float xs[4];
  alignas(16) static half ys[4];
  alignas(16) static std::int64_t zs[4];
  float* x = xs;
  half* y = ys;
  std::int64_t* z = zs;
  gridcheck::ordered(x, y, 10, 1, true, 1.5f, -2.25, 4000000000u, z);  // m == 1: variant 0 folds it
  gridcheck::ordered(x, y, 9, std::int64_t{1} << 33, false, -0.5f, 1e300, 7u, z);
  const auto ls = f.launches();
  REQUIRE(ls.size() == 2);
  const auto& a = ls[0];
  CHECK(a.grid[0] == 3);  // cdiv(10, 4)
  REQUIRE(a.num_params == 8 + 2);
  CHECK(tptest::param<float*>(a, 0) == x);
  CHECK(tptest::param<half*>(a, 1) == y);
  CHECK(tptest::param<std::int32_t>(a, 2) == 10);
  CHECK(tptest::param<bool>(a, 3) == true);
  CHECK(tptest::param<float>(a, 4) == 1.5f);
  CHECK(tptest::param<double>(a, 5) == -2.25);
  CHECK(tptest::param<std::uint32_t>(a, 6) == 4000000000u);
  CHECK(tptest::param<std::int64_t*>(a, 7) == z);
  CHECK(f.allocation_device(tptest::param<void*>(a, 8)) == 0);  // global scratch: allocated
  CHECK(tptest::param<void*>(a, 9) == nullptr);                 // profile scratch: none asked
  const auto& b = ls[1];
  CHECK(b.grid[0] == 3);  // cdiv(9, 4)
  REQUIRE(b.num_params == 9 + 2);
  CHECK(tptest::param<float*>(b, 0) == x);
  CHECK(tptest::param<half*>(b, 1) == y);
  CHECK(tptest::param<std::int32_t>(b, 2) == 9);
  CHECK(tptest::param<std::int64_t>(b, 3) == std::int64_t{1} << 33);
  CHECK(tptest::param<bool>(b, 4) == false);
  CHECK(tptest::param<float>(b, 5) == -0.5f);
  CHECK(tptest::param<double>(b, 6) == 1e300);
  CHECK(tptest::param<std::uint32_t>(b, 7) == 7u);
  CHECK(tptest::param<std::int64_t*>(b, 8) == z);
  CHECK(f.allocation_device(tptest::param<void*>(b, 9)) == 0);
  CHECK(tptest::param<void*>(b, 10) == nullptr);
  // The dynamic API makes the same launch from the same values.
  gridcheck::library().get("ordered").launch(nullptr, {3, 1, 1}, x, y, std::int32_t{9}, std::int64_t{1} << 33, false, -0.5f,
                                              1e300, std::uint32_t{7}, z);
  REQUIRE(f.launch_count() == 3);
  const auto c = f.launches()[2];
  CHECK(c.num_params == b.num_params);
  CHECK(std::memcmp(c.params, b.params, b.param_offset[9]) == 0);  // every byte before the scratch pointers
}

// The dynamic API refuses a value whose C++ type is not the argument's (a mutant once let an
// int32_t through for an i1); the typed functions make such calls fail to compile instead.
TEST_CASE("dynamic API: a value of the wrong type for i1, u32, fp64 or a pointer is refused, naming the argument") {
  if (!in_child("*wrong type for i1*")) return;
  auto& f = tptest::setup("sm_90");
  alignas(16) static float xs[4];
  alignas(16) static half ys[4];
  float* x = xs;
  half* y = ys;
  std::int64_t* z = nullptr;
  auto& k = gridcheck::library().get("ordered");
  auto refused = [&](auto&& call, const std::string& culprit) {
    const error e = tptest::expect_error(call);
    CHECK(e.code() == errc::bad_argument);
    CHECK(std::string(e.what()).find(culprit) != std::string::npos);
  };
  refused([&] { k.launch(nullptr, {1, 1, 1}, x, y, 9, std::int64_t{2}, std::int32_t{1}, 0.5f, 1.0, 7u, z); }, "'flag'");
  refused([&] { k.launch(nullptr, {1, 1, 1}, x, y, 9, std::int64_t{2}, false, 0.5f, 1.0f, 7u, z); }, "'beta'");
  refused([&] { k.launch(nullptr, {1, 1, 1}, x, y, 9, std::int64_t{2}, false, 0.5f, 1.0, std::int64_t{7}, z); }, "'u'");
  refused([&] { k.launch(nullptr, {1, 1, 1}, x, x, 9, std::int64_t{2}, false, 0.5f, 1.0, 7u, z); }, "'y'");
  CHECK(f.launch_count() == 0);
  k.launch(nullptr, {1, 1, 1}, x, y, 9, std::int64_t{2}, false, 0.5f, 1.0, 7u, z);  // the right types launch
  CHECK(f.launch_count() == 1);
}

// The real fixtures' generated header (packed by the CLI at build time from tests/data/artifacts)
// executed: each variant's dispatch, grid and arguments as the kernels' signatures say.
TEST_CASE("generated fixtures header: vector_add and matmul_f16 pass each argument in order to the variant their values select") {
  if (!in_child("*generated fixtures header*")) return;
  auto& f = tptest::setup("sm_90");
  alignas(16) static float xs[64], ys[64], os[64];
  alignas(16) static half as[64], bs[64], cs[64];
  fixtures::vector_add(xs, ys, os, 4096, 0.25f);      // aligned, n % 16 == 0: variant 0
  fixtures::vector_add(xs + 1, ys, os, 4096, 0.25f);  // misaligned x: variant 1
  // Each variant is its own image: two modules, so the misaligned call did not reach variant 0
  // (whose code assumes 16-byte alignment; the parameters alone would not tell).
  CHECK(f.live_modules() == 2);
  fixtures::matmul_f16(as, bs, cs, 32, 48, 1, 16, 48, 48);   // K == 1 (folded), strides % 16: variant 0
  fixtures::matmul_f16(as, bs, cs, 32, 48, 5, 16, 48, 48);   // K == 5: variant 2, all nine passed
  const auto ls = f.launches();
  REQUIRE(ls.size() == 4);
  for (std::size_t i = 0; i < 2; ++i) {
    CAPTURE(i);
    REQUIRE(ls[i].num_params == 5 + 2);
    CHECK(tptest::param<const float*>(ls[i], 0) == (i == 0 ? xs : xs + 1));
    CHECK(tptest::param<const float*>(ls[i], 1) == ys);
    CHECK(tptest::param<float*>(ls[i], 2) == os);
    CHECK(tptest::param<std::int32_t>(ls[i], 3) == 4096);
    CHECK(tptest::param<float>(ls[i], 4) == 0.25f);
    CHECK(tptest::param<void*>(ls[i], 5) == nullptr);
    CHECK(tptest::param<void*>(ls[i], 6) == nullptr);
    CHECK(ls[i].grid[0] == 4);  // cdiv(4096, BLOCK = 1024)
  }
  REQUIRE(ls[2].num_params == 8 + 2);  // K folded
  const std::int32_t folded[] = {32, 48, 16, 48, 48};  // M, N, stride_am, stride_bk, stride_cm
  for (unsigned p = 0; p < 5; ++p) CHECK(tptest::param<std::int32_t>(ls[2], 3 + p) == folded[p]);
  CHECK(ls[2].grid[0] == 2);  // cdiv(32, 16)
  CHECK(ls[2].grid[1] == 3);  // cdiv(48, 16)
  REQUIRE(ls[3].num_params == 9 + 2);
  CHECK(tptest::param<const half*>(ls[3], 0) == as);
  CHECK(tptest::param<const half*>(ls[3], 1) == bs);
  CHECK(tptest::param<half*>(ls[3], 2) == cs);
  const std::int32_t all[] = {32, 48, 5, 16, 48, 48};
  for (unsigned p = 0; p < 6; ++p) CHECK(tptest::param<std::int32_t>(ls[3], 3 + p) == all[p]);
  const std::size_t modules = f.live_modules();
  fixtures::vector_add(xs, ys, os, 4095, 0.25f);  // aligned but n % 16 != 0: variant 1 again, no new module
  CHECK(f.live_modules() == modules);
}

// A std::size_t above 2^31 - 1 passed for an i32 used to convert silently (5,000,000,016 became
// 705,032,720 and the kernel covered 14 % of the data). The typed functions take any integer and
// refuse, before anything is launched, a value the argument's type cannot hold.
TEST_CASE("generated integers: a value its type cannot hold is refused, naming the kernel, argument and value") {
  if (!in_child("*value its type cannot hold*")) return;
  auto& f = tptest::setup("sm_90");
  float* x = buffer;
  const std::size_t n = 5000000016;
  CHECK(message_of([&] { gridcheck::chunked(x, n, 128); }) ==
        "tritonpack: kernel chunked: argument n = 5000000016 does not fit in i32 (-2147483648 to 2147483647): the kernel "
        "would read 705032720; pass a value in range (a kernel that takes larger values needs a wider integer type in "
        "its signature)");
  CHECK(contains(message_of([&] { gridcheck::rows(x, ~std::uint64_t{0}, 1); }),
                 "kernel rows: argument n = 18446744073709551615 does not fit in i64 (-9223372036854775808 to "
                 "9223372036854775807): the kernel would read -1"));
  CHECK(contains(message_of([&] { gridcheck::area(x, 1, 1, -1); }),
                 "kernel area: argument depth = -1 does not fit in u64 (0 to 18446744073709551615)"));
  CHECK(contains(message_of([&] { gridcheck::explicit_grid({1, 1, 1}, x, std::int64_t{-2147483649}); }),
                 "kernel explicit_grid: argument n = -2147483649 does not fit in i32"));
  CHECK(f.launch_count() == 0);
  // Wide types holding values in range launch, with the value the kernel's type holds.
  gridcheck::chunked(x, std::size_t{1000}, std::uint64_t{128});
  REQUIRE(f.launch_count() == 1);
  CHECK(f.launches()[0].grid[0] == 8);
  CHECK(tptest::param<std::int32_t>(f.launches()[0], 1) == 1000);
}

// Null where the variant reads through the pointer (`:16`) is refused on every launch, typed and
// dynamic; an argument without `:16` may be null (optional buffers), and an empty grid reads
// nothing.
TEST_CASE("pointers: null where the variant reads through it is refused, naming the kernel and argument") {
  if (!in_child("*null where the variant reads*")) return;
  auto& f = tptest::setup("sm_90");
  float* null = nullptr;
  const std::string msg =
      "tritonpack: kernel aligned_only: argument x (*fp32) is a null pointer, and variant 0 reads through it (its "
      "signature says *fp32:16). Pass device memory; a kernel that may be passed null declares that argument "
      "without :16 in every signature of its spec";
  CHECK(message_of([&] { gridcheck::aligned_only({1, 1, 1}, null, 16, 1); }) == msg);
  CHECK(message_of([&] {
          gridcheck::library().get("aligned_only").launch(nullptr, {1, 1, 1}, null, std::int32_t{16}, std::int32_t{1});
        }) == msg);
  alignas(16) static float ys[16];
  CHECK(contains(message_of([&] { fixtures::vector_add(ys, null, ys, 16, 1.0f); }),
                 "kernel vector_add: argument y (*fp32) is a null pointer, and variant 0 reads through it"));
  CHECK(f.launch_count() == 0);
  CHECK(f.live_modules() == 0);  // refused before anything was loaded
  gridcheck::aligned_only({0, 1, 1}, null, 16, 1);  // an empty grid: nothing runs, nothing to refuse
  gridcheck::chunked(null, 1000, 128);              // no :16: null may be an optional buffer
  CHECK(f.launch_count() == 1);
}

// TRITONPACK_CHECK_POINTERS=1: every pointer argument is asked about (cuPointerGetAttribute): host
// memory and another device's memory are refused naming the kernel and argument.
TEST_CASE("pointers: TRITONPACK_CHECK_POINTERS refuses host memory and another device's memory") {
  if (!in_child("*TRITONPACK_CHECK_POINTERS refuses*")) return;
  auto& f = tptest::setup("sm_90,sm_90");
  tptest::env_guard checked("TRITONPACK_CHECK_POINTERS", "1");
  set_device(1);
  device_array<float> other(64);
  set_device(0);
  device_array<float> mine(64);
  const std::string host = message_of([&] { gridcheck::chunked(buffer, 64, 64); });
  CHECK(contains(host, "tritonpack: kernel chunked: argument x (*fp32) = " + hex(buffer) +
                           " is host memory unknown to CUDA (pageable, or not allocated at all)"));
  CHECK(contains(host, "TRITONPACK_CHECK_POINTERS"));
  CHECK(contains(message_of([&] { gridcheck::chunked(other.data(), 64, 64); }),
                 "kernel chunked: argument x (*fp32) = " + hex(other.data()) + " is device 1 memory"));
  CHECK(f.launch_count() == 0);
  gridcheck::chunked(mine.data(), 64, 64);
  gridcheck::chunked(mine.data() + 3, 64, 64);  // inside an allocation
  CHECK(f.launch_count() == 2);
}

// Each specialisation predicate at and around its boundary, in the generated typed dispatch and
// in the dynamic API alike: `:16` on an integer is a multiple of 16 (24 is a multiple of 8 only,
// 0 and -16 are multiples), `:1` is exactly 1 (not 0, 2 or -1), a pointer's `:16` is 16-byte
// alignment (4- and 8-aligned addresses are not). Kernel `boundary` has one variant per predicate,
// told apart by its block size (write_test_headers.cpp).
TEST_CASE("specialisation boundaries: :16, :1 and alignment pick their variant only when they hold, in both APIs") {
  if (!in_child("*specialisation boundaries*")) return;
  auto& f = tptest::setup("sm_90");
  alignas(64) static float base[64];
  float* const misaligned = base + 1;  // 4-byte aligned: no variant's alignment predicate holds
  enum : unsigned { div16_n = 32, equal1_k = 64, aligned_x = 128, fallback = 256 };
  // The block sizes of the typed call and of the dynamic call, in that order.
  auto blocks_of = [&](float* x, std::int32_t n, std::int64_t k) {
    f.clear_launches();
    gridcheck::boundary(x, n, k);
    gridcheck::library().get("boundary").launch(nullptr, {1, 1, 1}, x, n, k);
    const auto ls = f.launches();
    REQUIRE(ls.size() == 2);
    return std::make_pair(ls[0].block[0], ls[1].block[0]);
  };
  auto expect = [&](float* x, std::int32_t n, std::int64_t k, unsigned block) {
    INFO("x = ", hex(x), ", n = ", n, ", k = ", k);
    const auto [typed, dynamic] = blocks_of(x, n, k);
    CHECK(typed == block);
    CHECK(dynamic == block);
  };
  for (std::int32_t n : {0, 16, 32, -16, 1024, 2147483632})
    expect(misaligned, n, 0, div16_n);
  for (std::int32_t n : {1, 2, 8, 15, 17, 24, 40, -8, -24, 2147483647}) expect(misaligned, n, 0, fallback);
  expect(misaligned, 7, 1, equal1_k);
  for (std::int64_t k : {std::int64_t{0}, std::int64_t{2}, std::int64_t{-1}, std::int64_t{17}, std::int64_t{1} << 32 | 1})
    expect(misaligned, 7, k, fallback);
  const char* const bytes = reinterpret_cast<const char*>(base);
  for (int offset : {0, 16, 32, 48}) expect(reinterpret_cast<float*>(const_cast<char*>(bytes) + offset), 7, 0, aligned_x);
  for (int offset : {4, 8, 12, 20, 24}) expect(reinterpret_cast<float*>(const_cast<char*>(bytes) + offset), 7, 0, fallback);
}

}  // namespace runtime_generated_tests
