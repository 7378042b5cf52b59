// Two translation units include the generated fixtures.hpp; the program must hold the container
// data once (one address, one symbol: the ctest `generated_header_symbol_once` checks `nm`) and
// one library object, and the library parses the embedded container without any GPU driver.
#include <cstdio>
#include <cstring>

#include "fixtures.hpp"

const void* tu1_data();
const void* tu2_data();
tritonpack::library* tu1_library();
tritonpack::library* tu2_library();

int main() {
  int failures = 0;
  auto check = [&](bool ok, const char* what) {
    std::printf("%s: %s\n", ok ? "ok" : "FAILED", what);
    failures += !ok;
  };
  check(tu1_data() == tu2_data(), "both translation units see one container_data object");
  check(tu1_library() == tu2_library(), "both translation units see one library");
  const tritonpack::container_info& info = fixtures::library().info();
  check(info.name == "fixtures", "the embedded container parses (library name fixtures)");
  check(info.kernels.size() == 3, "three kernels");
  check(fixtures::detail::container_size > 1000 &&
            std::memcmp(fixtures::detail::container_data, "\x89TPK\r\n\x1a\n", 8) == 0,
        "the data starts with the container magic");
  return failures == 0 ? 0 : 1;
}
