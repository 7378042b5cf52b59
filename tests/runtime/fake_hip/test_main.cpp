// Runs the test-double HIP runtime's own tests (test_fake_hip*.cpp).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "fake_hip/test_util.hpp"

#if TPHIPTEST_ASAN
// The double's thread_local state lives in dynamic TLS (it is dlopen'd): see test_main.cpp for why
// LeakSanitizer must not intercept __tls_get_addr with GCC <= 13's runtime.
extern "C" __attribute__((visibility("default"), used)) const char* __asan_default_options() {
  return "intercept_tls_get_addr=0";
}
#endif
