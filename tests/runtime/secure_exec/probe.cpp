// A program a test installs set-user-ID (test_secure_execution.cpp): it reports whether it runs
// with secure execution, the run time's JIT cache directory, and what loading a backend did. The
// run time must take neither its driver libraries nor its cache directory from the caller's
// environment here.
#include <sys/auxv.h>
#include <unistd.h>

#include <cstdio>

#include <tritonpack/runtime/jit_cache.hpp>
#include <tritonpack/tritonpack.hpp>

int main() {
  std::printf("AT_SECURE %lu euid %u\n", ::getauxval(AT_SECURE), static_cast<unsigned>(::geteuid()));
  const auto dir = tritonpack::jit_cache::directory();
  std::printf("cache dir %s\n", dir ? dir->c_str() : "(none)");
  try {
    tritonpack::get_backend();
    std::printf("backend loaded\n");
  } catch (const tritonpack::error& e) {
    std::printf("error: %s\n", e.what());
  }
  return 0;
}
