// Must NOT compile: vector_add takes `const float*`, not `double*` (ctest
// generated_header_rejects_wrong_types builds this and expects failure).
#include "fixtures.hpp"

void call(double* x, float* out, int n) { fixtures::vector_add(x, x, out, n, 1.0f); }
