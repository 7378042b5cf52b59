/* fake_cuda_control.h — the control and inspection interface of the test-double CUDA driver
 * (libtritonpack_fake_cuda.so). Tests dlopen the same library the run time loads (through
 * TRITONPACK_CUDA_LIBRARY) and dlsym these functions.
 *
 * Configuration, read at every tpfake_configure(NULL) and at the first cuInit:
 *   TRITONPACK_FAKE_DEVICES        comma-separated devices, each "sm_XY[/opt=value]...":
 *                                  smem=<opt-in shared bytes per block> (default 232448 for
 *                                  sm_90..sm_103, 166912 for sm_80/sm_87, 101376 = 99 KB otherwise,
 *                                  sm_86/sm_89/sm_120 included), cluster=0|1 (default: sm_90+),
 *                                  coop=0|1 (default 1), name=<text>, mem=<bytes of device memory>
 *                                  (default 16 GiB: cuMemAlloc beyond it is out of memory).
 *                                  "" or "none": no device.
 *                                  Default "sm_90".
 *   TRITONPACK_FAKE_DRIVER_VERSION cuDriverGetVersion value (default 13000).
 *   TRITONPACK_FAKE_FAIL           comma-separated "cuName=code" (every call fails) or
 *                                  "cuName=code@N" (only the N-th call, 1-based).
 *   TRITONPACK_FAKE_MISSING        comma-separated entry names cuGetProcAddress reports missing.
 *   TRITONPACK_FAKE_LAUNCH_LOG     a file every launch is appended to, one line each (fake_cuda.cpp).
 *   TRITONPACK_FAKE_STREAM_LOG     a file every call taking or making a stream is appended to, one line
 *                                  each: "cuMemcpyAsync stream=#1 flags=1", "cuLaunchKernel NAME
 *                                  stream=legacy", "cuGraphLaunch stream=#1 flags=1" (#N: the N-th
 *                                  stream created; fake_cuda.cpp).
 *   TRITONPACK_FAKE_REPORT         a path: at exit the double writes "launches N" and "launch <kernel> N"
 *                                  per kernel there, for tests that run a whole program.
 */
#ifndef TRITONPACK_FAKE_CUDA_CONTROL_H
#define TRITONPACK_FAKE_CUDA_CONTROL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The run-time tests build with TRITONPACK_TESTING_POISON_PARAMS=TPFAKE_POISON_PARAM: the run time
 * fills its parameter array with this value before assembling a launch, and the fake refuses a
 * launch that passes it (CUDA_ERROR_INVALID_VALUE): a parameter the run time forgot is then a
 * deterministic error, not a read of stale memory. Not dereferenceable on purpose. */
#define TPFAKE_POISON_PARAM 0x7e57f00d

typedef struct tpfake_launch_record {
  char name[128];          /* function name */
  int device;              /* ordinal of the context's device */
  unsigned grid[3];
  unsigned block[3];
  unsigned shared;
  void* stream;
  int via_ex;              /* launched with cuLaunchKernelEx */
  int captured;            /* the stream was capturing: recorded into a graph, not run */
  unsigned cluster[3];     /* CLUSTER_DIMENSION attribute, zeros when absent */
  int cluster_policy;      /* CLUSTER_SCHEDULING_POLICY_PREFERENCE, -1 when absent */
  int cooperative;         /* -1 when absent */
  int pdl;                 /* PROGRAMMATIC_STREAM_SERIALIZATION, -1 when absent */
  unsigned num_params;
  unsigned param_size[64];
  unsigned param_offset[64]; /* into params[] */
  unsigned char params[2048];
} tpfake_launch_record;

/* The fake's CUtensorMap content (what cuTensorMapEncodeTiled wrote), for tests to decode. */
typedef struct tpfake_tensor_map {
  uint32_t magic; /* 0x50414d54 "TMAP" */
  int32_t data_type;
  uint32_t rank;
  int32_t interleave, swizzle, l2_promotion, oob_fill;
  uint32_t box_dim[5];
  uint64_t global_address;
  uint64_t global_dim[5];
  uint64_t global_strides[4];
} tpfake_tensor_map;

/* Resets every state (contexts, modules, memory, records, counters) and reads the configuration:
 * from the arguments when not NULL, else from the environment. */
void tpfake_configure(const char* devices, unsigned driver_version, const char* fail, const char* missing);
size_t tpfake_launch_count(void);
int tpfake_get_launch(size_t index, tpfake_launch_record* out); /* 0 on success */
void tpfake_clear_launches(void);
size_t tpfake_calls(const char* entry);      /* how many times an entry point was called */
size_t tpfake_live_allocations(void);        /* cuMemAlloc'd blocks not yet freed */
size_t tpfake_live_modules(void);            /* loaded modules not yet unloaded */
size_t tpfake_last_alloc_size(void);         /* size of the latest cuMemAlloc */
int tpfake_func_attribute(const char* name, int attribute); /* value last set with cuFuncSetAttribute, -1 if never */
int tpfake_func_cache_config(const char* name);             /* -1 if never set */
int tpfake_current_device(void);             /* device of the calling thread's current context, -1 if none */
void* tpfake_current_context(void);          /* the calling thread's current context */
void* tpfake_primary_context(int device);    /* device's primary context, NULL until first retained */
int tpfake_allocation_device(const void* p); /* device of the allocation holding p, -1 if none does */
size_t tpfake_live_streams(void);            /* created streams not yet destroyed */
int tpfake_stream_device(void* stream);      /* device of a live stream's context, -1 if not live */
int tpfake_stream_flags(void* stream);       /* cuStreamCreate flags of a live stream, -1 if not live */
void* tpfake_last_stream(const char* entry); /* stream of the latest call of `entry` (cuMemcpyAsync,
                                                cuMemsetD8Async, cuStreamSynchronize); (void*)-1 if none */

#ifdef __cplusplus
}
#endif

#endif
