// Runs the run-time tests against the test-double driver: TRITONPACK_CUDA_LIBRARY is set before
// any test touches the run time, and the JIT cache goes to a fresh temporary directory, removed at
// the end.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "test_util.hpp"

#if TPTEST_ASAN
// LeakSanitizer and the fake driver's thread_local variables (dynamic TLS: the fake is dlopen'd).
// The sanitizer runtime of GCC <= 13 (LLVM <= 16) intercepts __tls_get_addr and, when a dynamic TLS
// block starts 16 bytes into a page, takes the 16 bytes before it for a glibc 2.19 header (block
// start and size). glibc >= 2.25 has no such header: under ASan those bytes are the allocator's own
// chunk header, so the exit-time leak check scans a bogus range and its tracer dies ("Tracer caught
// signal 11", "LeakSanitizer has encountered a fatal error"). Where the block lands depends on
// every allocation before it, so the crash came and went with the environment: it was seen in the
// child processes of the TRITONPACK_LOG and exit-teardown tests, and any process of this binary
// can hit it (test_driver.cpp's "dynamic TLS block" test sets the trap on purpose). Without the
// interception nothing is lost: LeakSanitizer treats what ld.so allocates, dynamic TLS blocks
// included, as reachable (use_ld_allocations). ASAN_OPTIONS still overrides this default.
extern "C" __attribute__((visibility("default"), used)) const char* __asan_default_options() {
  return "intercept_tls_get_addr=0";
}
#endif

int main(int argc, char** argv) {
  setenv("TRITONPACK_CUDA_LIBRARY", TP_FAKE_CUDA_PATH, 1);
  // With TRITONPACK_BACKEND unset, a CUDA failure falls through to HIP: keep that deterministic
  // (the test_hip_*.cpp cases point it at the test-double HIP runtime where they mean to).
  setenv("TRITONPACK_HIP_LIBRARY", "/nonexistent/libamdhip64.so", 1);
  unsetenv("TRITONPACK_FORCE_IR");
  unsetenv("TRITONPACK_BACKEND");
  unsetenv("TRITONPACK_CACHE");
  // Each process gets a fresh cache directory, inside one root the first process owns and removes
  // at its end: a child that ends without returning from main (exit() in a teardown test, a
  // crash, a kill) leaves its directory inside that root, never loose in the temp folder.
  const char* inherited_root = std::getenv("TPTEST_CACHE_ROOT");
  const bool owns_root = !inherited_root || !*inherited_root;
  const std::string root = owns_root ? tptest::make_temp_dir("tp-runtime-cache") : inherited_root;
  if (owns_root) setenv("TPTEST_CACHE_ROOT", root.c_str(), 1);
  const std::string cache = owns_root ? root : tptest::make_temp_dir_in(root, "child");
  setenv("TRITONPACK_CACHE_DIR", cache.c_str(), 1);
  doctest::Context ctx(argc, argv);
  const int rc = ctx.run();
  tptest::remove_tree(cache);  // the root itself when this process owns it
  return rc;
}
