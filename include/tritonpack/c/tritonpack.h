/* tritonpack/c/tritonpack.h — the C API of the tritonpack run time (C99; docs/c-fortran.md).
 *
 * What every C (and Fortran) caller shares: the stable error codes, the stream and grid types,
 * the fp16/bf16 storage types with their conversions, and the memory and device API over
 * tritonpack/runtime/memory.hpp (devices, allocation, copies, memset, synchronisation, streams),
 * all through the driver the run time loads with dlopen, so a program needs no CUDA or ROCm
 * toolkit.
 *
 * Every function that can fail returns TRITONPACK_SUCCESS (0) or one of the error codes below;
 * after a failure, tritonpack_last_error() holds the calling thread's message, which says what was
 * attempted, what was found and what to do. A library's generated NAME.h adds one function per
 * kernel with the same convention; their failures land in the same per-thread message, so
 * tritonpack_last_error() is the one place to read the last error, whatever failed
 * (NAME_last_error() returns the same message).
 *
 * The definitions are in libtritonpack_c_api (CMake: tritonpack::c_api), a static library built
 * once from src/tritonpack_c_api.cpp; no exception ever crosses into C.
 */
#ifndef TRITONPACK_C_TRITONPACK_H
#define TRITONPACK_C_TRITONPACK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes: stable values (new codes are only ever added at the end). One per entry of the
 * code table TRITONPACK_ERROR_CODES (include/tritonpack/core/error_codes.hpp, which tests check
 * this enum against) plus INTERNAL; docs/c-fortran.md has the table. */
/* One code a line, each with its meaning beside it. */
/* clang-format off */
enum tritonpack_status {
  TRITONPACK_SUCCESS = 0,
  TRITONPACK_ERROR_BAD_CONTAINER = 1, /* container bytes malformed, truncated, or of an unknown format */
  TRITONPACK_ERROR_BAD_ARGUMENT = 2,  /* a bad value passed by the caller; no variant accepts the call */
  TRITONPACK_ERROR_NOT_FOUND = 3,     /* no kernel (or variant) of that name in the container */
  TRITONPACK_ERROR_NO_DRIVER = 4,     /* neither libcuda nor libamdhip64 could be loaded */
  TRITONPACK_ERROR_NO_DEVICE = 5,     /* the driver reports no GPU, or the ordinal is out of range */
  TRITONPACK_ERROR_NO_IMAGE = 6,      /* the library holds no image this GPU can run */
  TRITONPACK_ERROR_PTX_TOO_NEW = 7,   /* every PTX needs a newer ISA than the driver accepts */
  TRITONPACK_ERROR_JIT_FAILED = 8,    /* the driver refused to JIT-compile an IR image */
  TRITONPACK_ERROR_OUT_OF_MEMORY = 9, /* a device (or host) allocation failed */
  TRITONPACK_ERROR_LAUNCH_FAILED = 10, /* the launch (or the kernel, seen at a synchronisation) failed */
  TRITONPACK_ERROR_DRIVER_ERROR = 11, /* any other driver call failed */
  TRITONPACK_ERROR_IO_ERROR = 12,     /* reading or writing a file (the JIT cache) failed */
  TRITONPACK_ERROR_UNSUPPORTED = 13,  /* valid, but not supported on this backend or device */
  TRITONPACK_ERROR_INTERNAL = 14      /* an unexpected failure inside the run time (a bug: report it) */
};
/* clang-format on */

/* The calling thread's message for its last failed call ("" if none failed yet): of this API or of
 * any generated library's kernel function, whichever failed last. Valid until the thread's next
 * failing call; successful calls leave it unchanged. */
const char* tritonpack_last_error(void);

/* "TRITONPACK_ERROR_NO_DEVICE" for a code; "TRITONPACK_ERROR_UNKNOWN" for a value that is none. */
const char* tritonpack_status_name(int status);

/* A stream (CUstream / hipStream_t); NULL is the legacy default stream. */
typedef void* tritonpack_stream_t;

/* A launch grid counted in Triton programs, for kernels whose spec gives no grid expression.
 * Give all three members: a 1-D grid is {n, 1, 1}. `= {n}` leaves y and z at 0, and a grid with
 * x > 0 and y or z 0 is refused (TRITONPACK_ERROR_BAD_ARGUMENT, naming the axis) rather than
 * launching nothing; x = 0 is an empty grid and launches nothing. */
typedef struct tritonpack_grid3 {
  uint32_t x, y, z;
} tritonpack_grid3;

/* fp16, bf16 and fp8 values as their bits (C has no portable type for them). */
typedef uint16_t tritonpack_half;
typedef uint16_t tritonpack_bfloat16;
typedef uint8_t tritonpack_float8_e4m3;
typedef uint8_t tritonpack_float8_e5m2;

/* Conversions with round-half-to-even, as tritonpack::half / tritonpack::bfloat16 do. */
tritonpack_half tritonpack_half_from_float(float value);
float tritonpack_half_to_float(tritonpack_half value);
tritonpack_bfloat16 tritonpack_bfloat16_from_float(float value);
float tritonpack_bfloat16_to_float(tritonpack_bfloat16 value);

/* ---- devices ------------------------------------------------------------------------------- */

/* GPUs the backend sees; *count is 0 (and the call succeeds) when there is no driver or no GPU. */
int tritonpack_device_count(int* count);
/* Makes `ordinal` the calling thread's device, for the calls below and for kernel launches. */
int tritonpack_set_device(int ordinal);
/* One process per GPU on a node (MPI ranks): makes device local_rank % (GPUs seen) the calling
 * thread's device and stores it in *ordinal (ordinal may be NULL). On a node with no driver or no
 * GPU it returns NO_DRIVER / NO_DEVICE with the run time's diagnosis, where
 * tritonpack_set_device(local_rank % count) would divide by zero. */
int tritonpack_set_device_for_local_rank(int local_rank, int* ordinal);
/* The calling thread's device (0 if none was set). */
int tritonpack_get_device(int* ordinal);
/* The device's name ("NVIDIA H200") / architecture ("sm_90"), NUL-terminated in buffer[size];
 * ordinal -1: the calling thread's device. A buffer too small is BAD_ARGUMENT naming the size
 * needed. */
int tritonpack_device_name(int ordinal, char* buffer, size_t size);
int tritonpack_device_arch(int ordinal, char* buffer, size_t size);
/* Free and total memory of the calling thread's device, in bytes. */
int tritonpack_memory_info(size_t* free_bytes, size_t* total_bytes);

/* ---- memory -------------------------------------------------------------------------------- */

/* `bytes` of device memory on the calling thread's device (256-byte aligned); *ptr is NULL for 0.
 */
int tritonpack_malloc(void** ptr, size_t bytes);
/* Frees what tritonpack_malloc returned; NULL is fine. */
int tritonpack_free(void* ptr);
/* Copies `bytes` host to device, device to host or device to device (unified addressing: the
 * direction comes from the pointers), ordered on the legacy default stream; returns when the
 * host buffer may be reused, as cudaMemcpy does. */
int tritonpack_copy(void* dst, const void* src, size_t bytes);
/* The same, queued on `stream`; overlaps with the host only for page-locked host memory. */
int tritonpack_copy_async(void* dst, const void* src, size_t bytes, tritonpack_stream_t stream);
/* Sets `bytes` of device memory to the byte `value` (0..255). */
int tritonpack_memset(void* dst, int value, size_t bytes);
int tritonpack_memset_async(void* dst, int value, size_t bytes, tritonpack_stream_t stream);

/* ---- synchronisation and streams ----------------------------------------------------------- */

/* Waits for everything queued on the calling thread's device; a kernel that failed is reported
 * here (TRITONPACK_ERROR_LAUNCH_FAILED). */
int tritonpack_synchronize(void);
/* Waits for `stream` (NULL: the legacy default stream). */
int tritonpack_stream_synchronize(tritonpack_stream_t stream);
/* A new stream on the calling thread's device; non_blocking != 0 as cudaStreamNonBlocking. */
int tritonpack_stream_create(tritonpack_stream_t* stream, int non_blocking);
/* Destroys a stream from tritonpack_stream_create once its work is done; NULL is fine. */
int tritonpack_stream_destroy(tritonpack_stream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* TRITONPACK_C_TRITONPACK_H */
