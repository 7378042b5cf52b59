// Separate mode: the second translation unit calling fixtures.hpp's kernels (see kernels_a.cpp).
#include "fixtures.hpp"

const void* b_library() { return &fixtures::library(); }

void b_row_softmax(float* out, const float* in, std::int32_t rows, std::int32_t cols) {
  fixtures::row_softmax({static_cast<std::uint32_t>(rows), 1, 1}, out, in, cols, cols, cols);
}

void b_matmul(const tritonpack::half* a, const tritonpack::half* b, tritonpack::half* c, std::int32_t m, std::int32_t n,
              std::int32_t k) {
  fixtures::matmul_f16(a, b, c, m, n, k, k, n, n);
}
