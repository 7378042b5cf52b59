/* C99 callers of the generated C API (capi_types.h), compiled with -std=c99 -Wall -Wextra -pedantic
 * -Werror so that the generated header is checked as a C compiler sees it. test_capi.cpp runs them
 * against the test-double driver and checks every recorded launch. */
#include "calls.h"

#include <stddef.h>

#include "capi_types.h"

int call_scalars(float* out) {
  return capi_types_scalars(out, true, -2, -300, -70000, -5000000000LL, 200, 60000, 4000000000u,
                            18000000000000000000ull, tritonpack_half_from_float(1.5f),
                            tritonpack_bfloat16_from_float(-2.0f), 0.25f, -0.125, NULL);
}

int call_pointers(const float* x, tritonpack_stream_t stream) {
  const tritonpack_half* h = (const tritonpack_half*)x;
  tritonpack_bfloat16* bh = (tritonpack_bfloat16*)(x + 1);
  tritonpack_float8_e4m3* q = (tritonpack_float8_e4m3*)(x + 2);
  tritonpack_float8_e5m2* r = (tritonpack_float8_e5m2*)(x + 3);
  bool* flags = (bool*)(x + 4);
  const int64_t* idx = (const int64_t*)(x + 6);
  return capi_types_pointers(x, h, bh, q, r, flags, idx, 1000, stream);
}

int call_explicit_grid(float* x, uint32_t gx, uint32_t gy, uint32_t gz, int32_t n) {
  tritonpack_grid3 grid;
  grid.x = gx;
  grid.y = gy;
  grid.z = gz;
  return capi_types_explicit_grid(grid, x, n, NULL);
}

int call_aligned_only(float* x, int32_t n) { return capi_types_aligned_only(x, n, NULL); }

int call_renamed(void) { return capi_types_renamed(1, 2, 3, 4, 5, 6, 7, NULL); }

const char* library_last_error(void) { return capi_types_last_error(); }
