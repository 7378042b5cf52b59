// Must NOT compile: vector_add's n is an i32, and a floating-point value for an integer argument
// is refused at compile time (tritonpack::arg_i32; ctest generated_header_rejects_float_for_int
// builds this and expects failure). right_types.cpp, the control, passes an int and a size_t.
#include "fixtures.hpp"

void call(const float* x, float* out, double n) { fixtures::vector_add(x, x, out, n, 1.0f); }
