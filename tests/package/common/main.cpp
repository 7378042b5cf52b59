// The package tests' program: what a user's program does with a generated header, checked.
//   - the typed function has the kernel's C++ signature (a wrong call would not compile);
//   - the embedded container parses and holds what the spec asked for (sm_80 + gfx942, mode both);
//   - without a GPU driver a call fails with tritonpack::errc::no_driver and a message, no crash.
//   - built three times: in separate mode by tritonpack_add_kernels' default (pkgtest_app) and by
//     linking tritonpack::runtime (pkgtest_separate), where this file includes the whole run time
//     itself to use library(), and header-only (pkgtest_header_only, HEADER_ONLY).
#include <pkgtest.hpp>
#include <tritonpack/tritonpack.hpp>  // library().info() and friends: needed in separate mode

#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

static_assert(std::is_same_v<decltype(&pkgtest::scale),
                             void (*)(const float*, float*, tritonpack::arg_i32, float, tritonpack::stream_t)>,
              "scale(x, out, n, alpha) should take (const float*, float*, arg_i32, float, stream)");

static int failures = 0;
#define EXPECT(cond)                                                        \
  do {                                                                      \
    if (!(cond)) {                                                          \
      std::fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                           \
    }                                                                       \
  } while (0)

int main() {
#if defined(PKGTEST_SEPARATE) && !defined(TRITONPACK_SEPARATE)
  EXPECT(!"linking tritonpack::runtime should define TRITONPACK_SEPARATE");
#endif
#if defined(PKGTEST_HEADER_ONLY) && defined(TRITONPACK_SEPARATE)
  EXPECT(!"tritonpack_add_kernels(... HEADER_ONLY) should not define TRITONPACK_SEPARATE");
#endif
  const tritonpack::container_info& c = pkgtest::library().info();
  EXPECT(c.name == "pkgtest");
  EXPECT(c.kernels.size() == 1);
  if (c.kernels.size() == 1) {
    const auto& k = c.kernels[0];
    EXPECT(k.name == "scale");
    EXPECT(k.args.size() == 4);
    EXPECT(k.variants.size() == 1);
  }
  bool cubin = false, ptx = false, hsaco = false;
  for (const auto& im : c.images) {
    cubin |= im.kind == tritonpack::image_kind::cubin && im.arch == "sm_80";
    ptx |= im.kind == tritonpack::image_kind::ptx;
    hsaco |= im.kind == tritonpack::image_kind::hsaco && im.arch == "gfx942";
  }
  EXPECT(cubin);
  EXPECT(ptx);
  EXPECT(hsaco);
  EXPECT(&pkgtest::library().get("scale") == &pkgtest::library().at(0));

  // No driver (forced, so that this holds on GPU machines too): a clear error, not a crash.
  setenv("TRITONPACK_CUDA_LIBRARY", "/nonexistent/libcuda.so.1", 1);
  try {
    pkgtest::scale(nullptr, nullptr, 1024, 2.0f);
    EXPECT(!"a launch without a driver should throw");
  } catch (const tritonpack::error& e) {
    EXPECT(e.code() == tritonpack::errc::no_driver);
    EXPECT(std::string(e.what()).find("/nonexistent/libcuda.so.1") != std::string::npos);
    std::printf("as expected without a driver: %s\n", e.what());
  }
  std::printf("%s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
