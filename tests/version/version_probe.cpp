// Prints what the compiler reads in tritonpack/version.hpp, for check_version.cmake, and compiles
// its namespace macros once (the run-time headers do not use them yet).
#include <cstdio>
#include <type_traits>

#include "tritonpack/version.hpp"

static_assert(TRITONPACK_VERSION ==
                  TRITONPACK_VERSION_MAJOR * 10000 + TRITONPACK_VERSION_MINOR * 100 + TRITONPACK_VERSION_PATCH,
              "TRITONPACK_VERSION is major * 10000 + minor * 100 + patch");
static_assert(TRITONPACK_VERSION_MINOR < 100 && TRITONPACK_VERSION_PATCH < 100,
              "TRITONPACK_VERSION holds minor and patch in two digits each");

TRITONPACK_BEGIN_NAMESPACE
struct probe {};
TRITONPACK_END_NAMESPACE

// The versioned namespace is inline: its names are reached without naming it.
static_assert(std::is_same_v<tritonpack::probe,
                             tritonpack::TRITONPACK_VERSION_NS(TRITONPACK_VERSION_MAJOR, TRITONPACK_VERSION_MINOR)::probe>,
              "TRITONPACK_BEGIN_NAMESPACE opens an inline namespace inside tritonpack");

int main() {
  std::printf("string=%s\ninteger=%d\nnamespace=%s\n", TRITONPACK_VERSION_STRING, TRITONPACK_VERSION,
              TRITONPACK_VERSION_STR(TRITONPACK_VERSION_NS(TRITONPACK_VERSION_MAJOR, TRITONPACK_VERSION_MINOR)));
}
