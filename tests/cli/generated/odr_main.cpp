// Two different libraries with one name in one program (docs/spec.md, "One library per name in
// a program"), linked with the link check off (TRITONPACK_NO_LINK_CHECK): whichever definitions the
// linker keeps, the first use fails with an error that says so, and nothing is launched.
//   tritonpack_odr_typed typed      a typed function of the second library meets the first one's
//                                   library()
//   tritonpack_odr_library library  the second library's library() meets the first one's container
//                                   data
#include <cstdio>
#include <cstdlib>
#include <string>

#include <tritonpack/tritonpack.hpp>

std::size_t use_first_library();  // odr_a_library.cpp (library()) or odr_a_data.cpp (the data only)
std::size_t b_kernel_count();     // odr_b.cpp
void b_vector_add();              // odr_b.cpp

int main(int argc, char** argv) {
  const std::string scenario = argc > 1 ? argv[1] : "";
  // Forced, so that a launch would fail differently (no_driver) on a machine with a GPU too.
  setenv("TRITONPACK_CUDA_LIBRARY", "/nonexistent/libcuda.so.1", 1);
  try {
    std::printf("used the first library (%zu)\n", use_first_library());
    if (scenario == "typed") {
      b_vector_add();
    } else if (scenario == "library") {
      std::printf("the second library() holds %zu kernels\n", b_kernel_count());
    } else {
      std::printf("usage: %s typed|library\n", argv[0]);
      return 2;
    }
    std::printf("FAILED: no error\n");
    return 1;
  } catch (const tritonpack::error& e) {
    std::printf("%s\n", e.what());
    const bool ok = e.code() == tritonpack::errc::bad_container &&
                    std::string(e.what()).find("two different libraries named \"odr\" are linked into this program") !=
                        std::string::npos;
    std::printf("%s\n", ok ? "ok: the expected error" : "FAILED: another error");
    return ok ? 0 : 1;
  }
}
