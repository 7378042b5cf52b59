// Separate mode (TRITONPACK_SEPARATE, tritonpack::runtime linked): the first of two translation
// units that call the generated fixtures.hpp's kernels. It sees only the run time's declarations
// (tritonpack/typed_api.hpp): tritonpack::library is an incomplete type here, so this file could
// not call library().info() without including <tritonpack/tritonpack.hpp>. That is the point.
#include "fixtures.hpp"

#if !defined(TRITONPACK_SEPARATE)
#error "built in separate mode: the target links tritonpack::runtime"
#endif

const void* a_library() { return &fixtures::library(); }

void a_vector_add(const float* x, const float* y, float* out, std::int32_t n, float alpha) {
  fixtures::vector_add(x, y, out, n, alpha);
}
