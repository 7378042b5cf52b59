// Driver loading and the errors before any kernel runs: no driver, a driver without a GPU, a
// driver too old or missing entry points, backend forcing, contexts and devices.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "test_util.hpp"

#if TPTEST_ASAN && defined(__GLIBC__)
#include <link.h>
#endif

using namespace tritonpack;
using tptest::contains;

using tptest::env_guard;

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
    // A CUDA GPU is there, but HIP is forced (test_main points TRITONPACK_HIP_LIBRARY nowhere).
    env_guard g("TRITONPACK_BACKEND", "hip");
    tritonpack::testing::reset_backend();
    auto e = tptest::expect_error([] { get_backend(); });
    CHECK(e.code() == errc::no_driver);
    CHECK(contains(e.what(), "no AMD HIP runtime: /nonexistent/libamdhip64.so"));
    CHECK(contains(e.what(), "TRITONPACK_HIP_LIBRARY names this path"));
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

#if TPTEST_ASAN && defined(__GLIBC__)
// The LeakSanitizer crash that test_main.cpp's __asan_default_options avoids, set up on purpose: the
// child places the fake driver's dynamic TLS block 16 bytes into a page (where GCC <= 13's
// __tls_get_addr interceptor takes the bytes before it for a glibc 2.19 header), uses the driver,
// and exits through the leak check. Without intercept_tls_get_addr=0 the check's tracer crashes.
namespace {
struct tls_index_t {  // glibc's tls_index: module id and offset in its block
  unsigned long module;
  unsigned long offset;
};
struct fake_tls {
  std::size_t module = 0;
  std::size_t size = 0;          // PT_TLS p_memsz: what glibc mallocs for each thread's block
  std::uintptr_t block = 0;      // this thread's block, 0 until first used
};
fake_tls find_fake_tls() {
  fake_tls t;
  dl_iterate_phdr(
      [](dl_phdr_info* i, std::size_t, void* out) {
        if (!i->dlpi_name || std::strcmp(i->dlpi_name, TP_FAKE_CUDA_PATH) != 0) return 0;
        auto* r = static_cast<fake_tls*>(out);
        r->module = i->dlpi_tls_modid;
        for (int k = 0; k < i->dlpi_phnum; ++k)
          if (i->dlpi_phdr[k].p_type == PT_TLS) r->size = i->dlpi_phdr[k].p_memsz;
        r->block = reinterpret_cast<std::uintptr_t>(i->dlpi_tls_data);
        return 1;
      },
      &t);
  return t;
}
}  // namespace
extern "C" void* __tls_get_addr(tls_index_t*);  // ld.so's (no public header declares it)

TEST_CASE("LeakSanitizer: a dynamic TLS block 16 bytes into a page does not crash the leak check (child process)") {
  if (std::getenv("TP_DTLS_CHILD")) {
    tptest::fake_driver::get();  // dlopen'd; its thread_local variables not used yet in this thread
    const fake_tls before = find_fake_tls();
    REQUIRE(before.module != 0);
    REQUIRE(before.size != 0);
    REQUIRE(before.block == 0);
    // Allocate blocks of that size until the next one (same step as the last two) starts 16 bytes
    // into a page; they stay reachable from `keep` (no leak), then glibc allocates the TLS block.
    static auto* keep = new std::vector<void*>();
    keep->reserve(1 << 16);
    std::uintptr_t prev = 0;
    bool armed = false;
    while (!armed && keep->size() < keep->capacity()) {
      void* p = std::malloc(before.size);
      keep->push_back(p);
      const auto a = reinterpret_cast<std::uintptr_t>(p);
      armed = prev != 0 && (a + (a - prev)) % 4096 == 16;
      prev = a;
    }
    tls_index_t ti{before.module, 0};
    __tls_get_addr(&ti);  // as the fake's first thread_local access does, through ASan's interceptor
    std::printf("fake driver's TLS block at page offset %u\n", static_cast<unsigned>(find_fake_tls().block % 4096));
    // The driver's thread_local state now lives there (current context, context stack).
    auto& f = tptest::setup("sm_90");
    const auto& bytes = tptest::fixture_container();
    library lib(bytes.data(), bytes.size());
    lib.current_device();
    CHECK(f.calls("cuDevicePrimaryCtxRetain") == 1);
    return;  // the leak check runs at exit
  }
  const char* asan = std::getenv("ASAN_OPTIONS");
  const std::string opts = std::string(asan && *asan ? asan : "") + (asan && *asan ? ":" : "") + "detect_leaks=1";
  const auto child = tptest::run_self("TP_DTLS_CHILD=1 ASAN_OPTIONS='" + opts + "'", "*dynamic TLS block*");
  CAPTURE(child.output);
  CHECK(contains(child.output, "fake driver's TLS block at page offset 16\n"));  // the trap was set
  CHECK(!contains(child.output, "LeakSanitizer"));
  CHECK(child.status == 0);
}
#endif

TEST_CASE("the backend's start readies the starting thread's decoder (its first kernel load does not pay for it)") {
  tptest::setup();
  bool before = true, after = false;
  std::thread([&] {
    tritonpack::testing::reset_backend();
    before = codec::thread_decoder_ready();
    get_backend();
    after = codec::thread_decoder_ready();
  }).join();
  CHECK_FALSE(before);
  CHECK(after);
}
