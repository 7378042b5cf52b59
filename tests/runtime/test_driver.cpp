// Driver loading and the errors before any kernel runs: no driver, a driver without a GPU, a
// driver too old or missing entry points, backend forcing, contexts and devices.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "test_util.hpp"

using namespace tritonpack;
using tptest::contains;

namespace {
struct env_guard {
  std::string name;
  std::string old;
  bool had;
  env_guard(const char* n, const char* v) : name(n) {
    const char* o = std::getenv(n);
    had = o != nullptr;
    if (o) old = o;
    if (v)
      setenv(n, v, 1);
    else
      unsetenv(n);
  }
  ~env_guard() {
    if (had)
      setenv(name.c_str(), old.c_str(), 1);
    else
      unsetenv(name.c_str());
    tritonpack::testing::reset_backend();
  }
};
}  // namespace

TEST_CASE("no driver: the error names every path tried and what the program carries") {
  tptest::setup();
  env_guard g("TRITONPACK_CUDA_LIBRARY", "/nonexistent/libcuda.so.1");
  tritonpack::testing::reset_backend();
  const auto& bytes = tptest::fixture_container();
  library lib(bytes.data(), bytes.size());  // constructing needs no driver
  CHECK(lib.size() >= 3);
  auto e = tptest::expect_error([&] {
    float* p = nullptr;
    lib.get("vector_add").launch(nullptr, {1, 1, 1}, p, p, p, std::int32_t{16}, 1.0f);
  });
  CHECK(e.code() == errc::no_driver);
  CHECK(contains(e.what(), "/nonexistent/libcuda.so.1"));
  CHECK(contains(e.what(), "TRITONPACK_CUDA_LIBRARY"));
  CHECK(contains(e.what(), "this program carries images for cuda sm_80"));
  CHECK(contains(e.what(), "hip gfx942"));
  // The diagnosis is cached: the same error again, without dlopen again.
  auto e2 = tptest::expect_error([&] { lib.preload(); });
  CHECK(e2.code() == errc::no_driver);
}

TEST_CASE("driver present but no GPU") {
  tptest::setup("none");
  auto e = tptest::expect_error([] { get_backend(); });
  CHECK(e.code() == errc::no_device);
  CHECK(e.driver_status() == 100);
  CHECK(contains(e.what(), "reports no GPU"));
  CHECK(contains(e.what(), "CUDA 13.0"));
  CHECK(contains(e.what(), "CUDA_VISIBLE_DEVICES"));
}

TEST_CASE("driver too old, or lacking a required entry point") {
  tptest::setup("sm_90", 11080);
  auto e = tptest::expect_error([] { get_backend(); });
  CHECK(e.code() == errc::no_driver);
  CHECK(contains(e.what(), "CUDA 11.8"));
  CHECK(contains(e.what(), "12.0"));

  tptest::setup("sm_90", 13000, "", "cuLaunchKernel,cuMemAlloc");
  e = tptest::expect_error([] { get_backend(); });
  CHECK(e.code() == errc::no_driver);
  CHECK(contains(e.what(), "cuLaunchKernel"));
  CHECK(contains(e.what(), "cuMemAlloc"));

  // An optional entry missing is fine until it is needed.
  tptest::setup("sm_90", 13000, "", "cuTensorMapEncodeTiled,cuFuncGetParamInfo");
  CHECK_NOTHROW(get_backend());
}

TEST_CASE("cuInit failing otherwise is reported with the driver's status") {
  tptest::setup("sm_90", 13000, "cuInit=999");
  auto e = tptest::expect_error([] { get_backend(); });
  CHECK(e.code() == errc::no_device);
  CHECK(e.driver_status() == 999);
  CHECK(contains(e.what(), "cuInit"));
}

TEST_CASE("TRITONPACK_BACKEND forces a backend") {
  tptest::setup();
  {
    env_guard g("TRITONPACK_BACKEND", "hip");
    tritonpack::testing::reset_backend();
    auto e = tptest::expect_error([] { get_backend(); });
    CHECK(e.code() == errc::unsupported);
    CHECK(contains(e.what(), "HIP"));
  }
  {
    env_guard g("TRITONPACK_BACKEND", "metal");
    tritonpack::testing::reset_backend();
    CHECK(tptest::expect_error([] { get_backend(); }).code() == errc::bad_argument);
  }
  {
    env_guard g("TRITONPACK_BACKEND", "cuda");
    tritonpack::testing::reset_backend();
    CHECK(get_backend().kind() == backend_kind::cuda);
    CHECK(contains(get_backend().describe(), "CUDA 13.0"));
  }
}

TEST_CASE("with no current context, device 0's primary context is retained once and made current") {
  auto& f = tptest::setup("sm_90,sm_80");
  const auto& bytes = tptest::fixture_container();
  library lib(bytes.data(), bytes.size());
  const device_props& p = lib.current_device();
  CHECK(p.ordinal == 0);
  CHECK(p.arch == "sm_90");
  CHECK(p.driver_version == 13000);
  CHECK(p.max_shared_optin == 232448);
  CHECK(contains(p.describe(), "Fake GPU sm_90"));
  CHECK(f.calls("cuDevicePrimaryCtxRetain") == 1);
  lib.current_device();
  CHECK(f.calls("cuDevicePrimaryCtxRetain") == 1);
  // An application that selected device 1 (cudaSetDevice) gets device 1.
  tptest::set_device(1);
  CHECK(lib.current_device().arch == "sm_80");
  CHECK(lib.current_device().ordinal == 1);
}
