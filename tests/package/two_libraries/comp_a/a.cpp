// Component A calls its kernel, kernels::scale.
#include <kernels.hpp>

void component_a(const float* x, float* out, int n) { kernels::scale(x, out, n, 2.0f); }
