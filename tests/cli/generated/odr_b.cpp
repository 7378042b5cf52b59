// The second library named `odr` in the program (see odr_main.cpp): the same kernels packed another
// way (mode binary), so another container.
#include <tritonpack/tritonpack.hpp>  // library::size(), in separate mode too

#include "odr_binary/odr.hpp"

std::size_t b_kernel_count() { return odr::library().size(); }

void b_vector_add() {
  // Values every variant accepts: were the call to get past the check, it would launch (and, with
  // no driver, fail with no_driver).
  odr::vector_add(nullptr, nullptr, nullptr, 1024, 1.0f);
}
