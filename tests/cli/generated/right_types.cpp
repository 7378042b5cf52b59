// The same calls with the right types compile (the control for wrong_types.cpp and
// float_for_int.cpp): any integer type for an integer argument, range-checked at run time.
#include <cstddef>

#include "fixtures.hpp"

void call(const float* x, float* out, int n) { fixtures::vector_add(x, x, out, n, 1.0f); }
void call_size(const float* x, float* out, std::size_t n) { fixtures::vector_add(x, x, out, n, 1.0f); }
