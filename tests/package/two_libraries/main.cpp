// The program of two components (see CMakeLists.txt). Built with the link check off, it links; then
// the component whose library() the linker did not keep must fail on its first kernel call with
// the error that names the problem, before any launch. The other one's calls are its own kernels
// and go on to launch (which, with no driver, fails with no_driver): that is what it would do in a
// correct program.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <tritonpack/tritonpack.hpp>

void component_a(const float* x, float* out, int n);
void component_b(const float* x, const float* y, float* out, int n);

int main() {
  setenv("TRITONPACK_CUDA_LIBRARY", "/nonexistent/libcuda.so.1", 1);
  int refused = 0, launched = 0;
  for (int component = 0; component < 2; ++component) {
    try {
      if (component == 0) component_a(nullptr, nullptr, 1024);
      else component_b(nullptr, nullptr, nullptr, 1024);
      std::printf("component %d: FAILED: no error\n", component);
    } catch (const tritonpack::error& e) {
      const bool same_name = e.code() == tritonpack::errc::bad_container &&
                             std::string(e.what()).find("two different libraries named \"kernels\"") != std::string::npos;
      refused += same_name;
      launched += e.code() == tritonpack::errc::no_driver;
      std::printf("component %d: %s\n", component, e.what());
    }
  }
  const bool ok = refused >= 1 && refused + launched == 2;
  std::printf("%s\n", ok ? "ok" : "FAILED: expected the two-libraries error (and at most one launch)");
  return ok ? 0 : 1;
}
