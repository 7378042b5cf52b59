// Compiles the whole run time with no CUDA header anywhere and links it without libcuda; run with
// TRITONPACK_CUDA_LIBRARY naming a missing file, it must report "no driver" by exception — never
// crash, exit or abort — and say what the program carries.
#include <tritonpack/tritonpack.hpp>

#include <cstdio>
#include <cstring>

#ifdef CUDA_VERSION
#error "cuda.h must not be reachable from the run time"
#endif

int main() {
  // An empty but valid container is enough to exercise the driver path.
  try {
    tritonpack::parse_device_target("sm_90");
    tritonpack::get_backend();
    std::puts("unexpected: a backend loaded");
    return 1;
  } catch (const tritonpack::error& e) {
    std::printf("%s: %s\n", tritonpack::errc_name(e.code()), e.what());
    return e.code() == tritonpack::errc::no_driver && std::strstr(e.what(), "/nonexistent/libcuda.so.1") ? 0 : 1;
  }
}
