// The limits a real driver enforces, as the test double now models them, and the run time's
// answers to them (issue 16): the dynamic shared-memory opt-in reduced by the function's static
// shared memory, clusters beyond the portable 8 CTAs, sm_120's 99 KB opt-in limit, and a parameter
// array with a slot the run time never assembled.
#include <doctest/doctest.h>

#include "test_util.hpp"

using namespace tritonpack;
using tptest::contains;

namespace runtime_strict_driver_tests {  // this file's own names (the test binary is a unity build)
namespace {
// CUfunction_attribute values the run time sets.
constexpr int max_dynamic_shared_attr = 8;
constexpr int non_portable_cluster_attr = 14;

// k(x: *fp32, n: i32) as an sm_90 cubin whose function has `static_shared` bytes of `.shared`
// variables, launched with `li.shared` bytes of dynamic shared memory.
std::vector<std::uint8_t> cubin_kernel(launch_info li, unsigned static_shared, unsigned sm = 90) {
  tptest::synth s;
  s.arg("x", "*fp32");
  s.arg("n", "i32");
  s.variant();
  li.warp_size = 32;
  tpfake::elf_kernel k{"k", {8, 4, 8, 8}, li.num_warps * 32};
  k.static_shared = static_shared;
  s.image(0, image_kind::cubin, "sm_" + std::to_string(sm), tpfake::make_cubin(sm, false, {k}), li);
  return s.pack();
}
}  // namespace

TEST_CASE("strict driver: the shared-memory opt-in is the device's limit less the function's static shared memory") {
  auto& f = tptest::setup("sm_90");
  launch_info li;
  li.shared = 200000;
  const auto bytes = cubin_kernel(li, 4096);
  library lib(bytes.data(), bytes.size());
  float* x = nullptr;
  lib.get("k").launch(nullptr, {1, 1, 1}, x, std::int32_t{1});
  CHECK(f.func_attribute("k", max_dynamic_shared_attr) == 232448 - 4096);
  REQUIRE(f.launch_count() == 1);
  CHECK(f.launches()[0].shared == 200000);

  // Dynamic + static above the opt-in limit: the driver refuses the launch, the error says so.
  tptest::setup("sm_90");
  li.shared = 230000;
  const auto too_big = cubin_kernel(li, 4096);
  library lib2(too_big.data(), too_big.size());
  const error e = tptest::expect_error([&] { lib2.get("k").launch(nullptr, {1, 1, 1}, x, std::int32_t{1}); });
  CHECK(contains(e.what(), "kernel k"));
  CHECK(e.driver_status() == 1);  // CUDA_ERROR_INVALID_VALUE, from cuFuncSetAttribute or the launch
}

TEST_CASE("strict driver: sm_120's opt-in limit is 99 KB, not sm_90's 227 KB") {
  auto& f = tptest::setup("sm_120");
  launch_info li;
  li.shared = 100000;  // above 48 KB, below 99 KB
  const auto bytes = cubin_kernel(li, 0, 120);
  library lib(bytes.data(), bytes.size());
  float* x = nullptr;
  lib.get("k").launch(nullptr, {1, 1, 1}, x, std::int32_t{1});
  CHECK(f.func_attribute("k", max_dynamic_shared_attr) == 99 * 1024);
  // 160 KB fits sm_90 but not sm_120: refused before the driver, naming both numbers.
  tptest::setup("sm_120");
  li.shared = 160 * 1024;
  const auto big = cubin_kernel(li, 0, 120);
  library lib2(big.data(), big.size());
  const error e = tptest::expect_error([&] { lib2.get("k").launch(nullptr, {1, 1, 1}, x, std::int32_t{1}); });
  CHECK(contains(e.what(), "160 KB"));
  CHECK(contains(e.what(), "99 KB"));
}

TEST_CASE("strict driver: clusters above 8 CTAs need the non-portable attribute, which the run time sets") {
  for (unsigned ctas : {2u, 8u, 16u}) {
    CAPTURE(ctas);
    auto& f = tptest::setup("sm_90");
    launch_info li;
    li.num_ctas = ctas;
    const auto bytes = cubin_kernel(li, 0);
    library lib(bytes.data(), bytes.size());
    float* x = nullptr;
    lib.get("k").launch(nullptr, {3, 1, 1}, x, std::int32_t{1});
    REQUIRE(f.launch_count() == 1);
    CHECK(f.launches()[0].cluster[0] == ctas);
    CHECK(f.launches()[0].grid[0] == 3 * ctas);
    CHECK(f.func_attribute("k", non_portable_cluster_attr) == (ctas > 8 ? 1 : -1));
  }
}

TEST_CASE("strict driver: every argument reaches the driver in order, scratch pointers last") {
  // The run time's parameter array starts poisoned in test builds; a dropped or misplaced slot is
  // refused by the fake, so the exact bytes checked here are what the run time assembled.
  auto& f = tptest::setup("sm_90");
  tptest::synth s;
  s.arg("x", "*fp32", true);
  s.arg("y", "*fp32");
  s.arg("n", "i32");
  s.arg("m", "i64");
  s.arg("flag", "i1");
  s.arg("alpha", "fp32");
  s.variant();
  launch_info li;
  li.warp_size = 32;
  li.global_scratch_size = 16;
  li.global_scratch_align = 16;
  s.image(0, image_kind::cubin, "sm_90", tpfake::make_cubin(90, false, {{"k", {8, 8, 4, 8, 1, 4, 8, 8}, 128}}), li);
  const auto bytes = s.pack();
  library lib(bytes.data(), bytes.size());
  alignas(16) float a[4], b[4];
  const float* x = a;
  float* y = b;
  lib.get("k").launch(nullptr, {2, 1, 1}, x, y, std::int32_t{-7}, std::int64_t{1} << 40, true, 2.5f);
  REQUIRE(f.launch_count() == 1);
  const auto r = f.launches()[0];
  REQUIRE(r.num_params == 8);
  CHECK(tptest::param<const float*>(r, 0) == x);
  CHECK(tptest::param<float*>(r, 1) == y);
  CHECK(tptest::param<std::int32_t>(r, 2) == -7);
  CHECK(tptest::param<std::int64_t>(r, 3) == std::int64_t{1} << 40);
  CHECK(tptest::param<bool>(r, 4) == true);
  CHECK(tptest::param<float>(r, 5) == 2.5f);
  void* scratch = tptest::param<void*>(r, 6);
  CHECK(scratch != nullptr);
  CHECK(f.allocation_device(scratch) == 0);  // a real allocation of this device
  CHECK(tptest::param<void*>(r, 7) == nullptr);  // no profile scratch
}

}  // namespace runtime_strict_driver_tests
