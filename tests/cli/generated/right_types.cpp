// The same call with the right types compiles (the control for wrong_types.cpp).
#include "fixtures.hpp"

void call(const float* x, float* out, int n) { fixtures::vector_add(x, x, out, n, 1.0f); }
