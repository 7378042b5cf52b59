// A translation unit in header-only mode (no TRITONPACK_SEPARATE) linked into a separate-mode
// program (main.cpp's kernels_a.cpp / kernels_b.cpp, tritonpack::runtime): the modes must not mix,
// and the link says so (tritonpack/typed_api_impl.hpp). Built only by the test that expects the
// link to fail (generated_header_mixed_modes_link_fails).
#include "fixtures.hpp"

#if defined(TRITONPACK_SEPARATE)
#error "this translation unit is the header-only one"
#endif

void header_only_vector_add(const float* x, float* out) { fixtures::vector_add(x, x, out, 16, 1.0f); }
