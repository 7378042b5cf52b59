// A program in separate mode (docs/runtime-api.md, "Separate compilation"): two translation units
// call the generated fixtures.hpp's kernels seeing only declarations, the run time is the
// tritonpack::runtime library, and the test-double driver (TRITONPACK_CUDA_LIBRARY) records what
// reaches it. Checked as the header-only tests check it: one library object for the program, each
// launch's kernel, grid and parameter bytes, and the run time's errors (a grid no variant accepts,
// a grid expression that fails) unchanged through the compiled calls.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

// This translation unit uses the library object itself, so it includes the whole run time too:
// allowed in separate mode (the definitions are inline and the same everywhere).
#include <tritonpack/tritonpack.hpp>

#include "fake_cuda/fake_cuda_control.h"
#include "fixtures.hpp"

// Under AddressSanitizer (the sanitize step builds this test too): LeakSanitizer's tracer and the
// dlopen'ed fake driver's dynamic TLS, as in tests/runtime/test_main.cpp, which says why.
#if defined(__SANITIZE_ADDRESS__)
#define TP_SEPARATE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TP_SEPARATE_ASAN 1
#endif
#endif
#if defined(TP_SEPARATE_ASAN)
extern "C" __attribute__((visibility("default"), used)) const char* __asan_default_options() {
  return "intercept_tls_get_addr=0";
}
#endif

const void* a_library();
const void* b_library();
std::vector<float> a_round_trip(const std::vector<float>& host, int local_rank);
std::string a_device_arch();
void a_vector_add(const float* x, const float* y, float* out, std::int32_t n, float alpha);
void b_row_softmax(float* out, const float* in, std::int32_t rows, std::int32_t cols);
void b_matmul(const tritonpack::half* a, const tritonpack::half* b, tritonpack::half* c, std::int32_t m, std::int32_t n,
              std::int32_t k);

static int failures = 0;
#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      std::fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

template <class T>
static T param(const tpfake_launch_record& r, unsigned i) {
  T v{};
  if (i < r.num_params && r.param_size[i] == sizeof(T)) std::memcpy(&v, r.params + r.param_offset[i], sizeof(T));
  else ++failures, std::fprintf(stderr, "param %u has size %u\n", i, i < r.num_params ? r.param_size[i] : 0);
  return v;
}

template <class F>
static std::string error_of(F&& f) {
  try {
    f();
  } catch (const tritonpack::error& e) {
    return e.what();
  }
  return "(no error)";
}

int main() {
  const char* path = std::getenv("TRITONPACK_CUDA_LIBRARY");
  void* fake = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : nullptr;
  if (!fake) {
    std::fprintf(stderr, "set TRITONPACK_CUDA_LIBRARY to the test-double driver\n");
    return 2;
  }
  auto count = reinterpret_cast<size_t (*)()>(dlsym(fake, "tpfake_launch_count"));
  auto get = reinterpret_cast<int (*)(size_t, tpfake_launch_record*)>(dlsym(fake, "tpfake_get_launch"));
  auto configure = reinterpret_cast<void (*)(const char*, unsigned, const char*, const char*)>(dlsym(fake, "tpfake_configure"));
  configure("sm_90", 13000, "", "");

  EXPECT(a_library() == b_library());
  EXPECT(a_library() == &fixtures::library());
  EXPECT(fixtures::library().info().name == "fixtures");

  alignas(16) static float x[64], y[64], out[64];
  alignas(16) static tritonpack::half h[256];
  a_vector_add(x, y, out, 3000, 0.5f);      // variant 1 (3000 % 16 != 0): grid cdiv(3000, 1024)
  b_row_softmax(out, x, 7, 32);             // grid given by the caller
  b_matmul(h, h, h, 40, 20, 16);            // variant 2 (K != 1): grid cdiv(40, 16) x cdiv(20, 16)
  EXPECT(count() == 3);
  tpfake_launch_record r[3];
  for (size_t i = 0; i < 3 && i < count(); ++i) get(i, &r[i]);
  if (count() == 3) {
    EXPECT(std::string(r[0].name) == "vector_add");
    EXPECT(r[0].grid[0] == 3 && r[0].grid[1] == 1 && r[0].grid[2] == 1);
    EXPECT(r[0].block[0] == 128);  // num_warps 4
    EXPECT(r[0].num_params == 7);
    EXPECT(param<const float*>(r[0], 0) == x);
    EXPECT(param<float*>(r[0], 2) == out);
    EXPECT(param<std::int32_t>(r[0], 3) == 3000);
    EXPECT(param<float>(r[0], 4) == 0.5f);
    EXPECT(std::string(r[1].name) == "row_softmax");
    EXPECT(r[1].grid[0] == 7);
    EXPECT(param<std::int32_t>(r[1], 4) == 32);
    EXPECT(std::string(r[2].name) == "small_matmul");
    EXPECT(r[2].grid[0] == 3 && r[2].grid[1] == 2);
    EXPECT(param<std::int32_t>(r[2], 5) == 16);  // K
  }

  // The run time's errors, through the compiled calls, word for word as in header-only mode.
  const std::string misaligned = error_of([&] { b_row_softmax(out + 1, x, 1, 32); });
  std::printf("%s\n", misaligned.c_str());
  EXPECT(misaligned.find("tritonpack: kernel row_softmax: no variant accepts these arguments") == 0);
  const std::string too_large = error_of([&] { b_matmul(h, h, h, 40, 16 * 70000, 16); });
  std::printf("%s\n", too_large.c_str());
  EXPECT(too_large == "tritonpack: kernel matmul_f16: grid y = 70000 is above the CUDA limit of 65535");
  EXPECT(count() == 3);  // neither reached the driver

  // The memory API from a translation unit that sees declarations only.
  const std::vector<float> host = {1.5f, -2.0f, 3.25f};
  EXPECT(a_round_trip(host, 3) == host);
  EXPECT(count() == 4);
  EXPECT(a_device_arch() == "sm_90");

  std::printf("%s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
