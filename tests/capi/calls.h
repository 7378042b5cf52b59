/* The C99 callers in calls.c, for test_capi.cpp. */
#ifndef TRITONPACK_TESTS_CAPI_CALLS_H
#define TRITONPACK_TESTS_CAPI_CALLS_H

#include <stdint.h>

#include <tritonpack/c/tritonpack.h>

#ifdef __cplusplus
extern "C" {
#endif

/* scalars(out, true, -2, -300, -70000, -5e9, 200, 60000, 4e9, 1.8e19, half 1.5, bf16 -2, 0.25f, -0.125) */
int call_scalars(float* out);
/* pointers(x, x as fp16, x + 1 as bf16, x + 2 as fp8e4nv, x + 3 as fp8e5, x + 4 as i1, x + 6 as i64, 1000, stream) */
int call_pointers(const float* x, tritonpack_stream_t stream);
int call_explicit_grid(float* x, uint32_t gx, uint32_t gy, uint32_t gz, int32_t n);
int call_aligned_only(float* x, int32_t n);
/* renamed(1, 2, 3, 4, 5, 6, 7) */
int call_renamed(void);
const char* library_last_error(void);

#ifdef __cplusplus
}
#endif

#endif
