// Separate mode without <tritonpack/tritonpack.hpp>: library()'s members are out of reach
// (tritonpack::library is incomplete), and the compiler's note shows the declaration's comment,
// which says what to include. Built only by generated_header_separate_incomplete_library, which
// expects the compile to fail with that hint.
#include "fixtures.hpp"

std::size_t kernel_count() { return fixtures::library().size(); }
