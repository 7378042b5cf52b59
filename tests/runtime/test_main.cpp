// Runs the run-time tests against the test-double driver: TRITONPACK_CUDA_LIBRARY is set before
// any test touches the run time, and the JIT cache goes to a fresh temporary directory.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "test_util.hpp"

int main(int argc, char** argv) {
  setenv("TRITONPACK_CUDA_LIBRARY", TP_FAKE_CUDA_PATH, 1);
  unsetenv("TRITONPACK_FORCE_IR");
  unsetenv("TRITONPACK_BACKEND");
  unsetenv("TRITONPACK_CACHE");
  const std::string cache = tptest::make_temp_dir("tp-runtime-cache");
  setenv("TRITONPACK_CACHE_DIR", cache.c_str(), 1);
  doctest::Context ctx(argc, argv);
  const int rc = ctx.run();
  tptest::remove_tree(cache);
  return rc;
}
