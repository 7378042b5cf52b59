/* fake_hip_control.h — the control and inspection interface of the test-double HIP runtime
 * (libtritonpack_fake_hip.so, and libtritonpack_fake_hip_rocm5.so, the same built as ROCm 5.2:
 * without the entry points ROCm 5 lacks). Tests dlopen the same library the run time loads (through
 * TRITONPACK_HIP_LIBRARY) and dlsym these functions. Facts modelled: docs/hip-abi.md.
 *
 * Configuration, read at every tpfakehip_configure(NULL, ...) and at the first HIP call:
 *   TRITONPACK_FAKE_HIP_DEVICES  comma-separated devices, each "<gcnArchName>[/opt=value]...", the
 *                                gcnArchName as the runtime reports it, e.g. "gfx942:sramecc+:xnack-"
 *                                (features left out: the ISA has no such feature). Options:
 *                                lds=<bytes per workgroup> (default 65536; 163840 for gfx950),
 *                                cu=<multiprocessors> (default 304 gfx942, 104 gfx90a, 120 gfx908, 256
 *                                gfx950, 96 otherwise), wave=<warpSize> (default 64 for gfx9, else 32),
 *                                name=<marketing name>, mem=<bytes of device memory> (default 64 GiB),
 *                                coop=0|1 (cooperative launch, default 1), propsname=<string> (what the
 *                                device-properties structs carry as gcnArchName: a layout misread).
 *                                "" or "none": no usable GPU (every call but the version and device-count
 *                                ones fails with hipErrorInvalidDevice, as ROCm does without /dev/kfd).
 *                                Default "gfx942:sramecc+:xnack-".
 *   TRITONPACK_FAKE_HIP_VERSION  hipRuntimeGetVersion = hipDriverGetVersion value (default 70125424,
 *                                HIP 7.1; the rocm5 build: 50221153, Debian's 5.2.3).
 *   TRITONPACK_FAKE_HIP_FAIL     comma-separated "hipName=code" (every call fails) or "hipName=code@N"
 *                                (only the N-th call, 1-based).
 *   TRITONPACK_FAKE_HIP_MISSING  comma-separated names hipGetProcAddress reports missing (dlsym cannot be
 *                                made to miss: use the rocm5 build for entry points really absent, or a
 *                                build with TP_FAKE_HIP_WITHOUT_MODULE_LAUNCH for a required one).
 *   TRITONPACK_FAKE_HIP_REPORT   a path: at exit the double writes "launches N", "launch <kernel> N" per
 *                                kernel, "rejected N", "loads N", "refused_loads N" there (one a line),
 *                                for tests that run a whole program rather than a test binary.
 *
 * Checks (what the real runtime, or a GPU, would refuse; the reason is in tpfakehip_last_error):
 *   hipModuleLoadData(Ex): a corrupt code object (hipErrorInvalidKernelFile 218), one for another gfx
 *   or with xnack/sramecc settings the device does not have (hipErrorNoBinaryForGpu 209).
 *   hipModuleGetFunction: an unknown name (hipErrorNotFound 500).
 *   hipModuleLaunchKernel & co: every launch against the kernel's metadata (launch_check.hpp);
 *   the module's device and the stream's device must be the calling thread's current device.
 */
#ifndef TRITONPACK_FAKE_HIP_CONTROL_H
#define TRITONPACK_FAKE_HIP_CONTROL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { TPFAKEHIP_MAX_ARGS = 64, TPFAKEHIP_MAX_KERNARG = 4096 };

/* How a launch came in. */
enum { TPFAKEHIP_VIA_MODULE_LAUNCH = 0, TPFAKEHIP_VIA_COOPERATIVE = 1, TPFAKEHIP_VIA_LAUNCH_EX = 2 };

typedef struct tpfakehip_launch_record {
  char name[128]; /* kernel name (.name) */
  int device;     /* the calling thread's current device */
  unsigned grid[3];
  unsigned block[3];
  unsigned shared; /* dynamic LDS bytes */
  void* stream;
  int via;         /* TPFAKEHIP_VIA_* */
  int via_extra;   /* 1: HIP_LAUNCH_PARAM_BUFFER_* extra; 0: kernelParams */
  int cooperative; /* 1 for hipModuleLaunchCooperativeKernel or the cooperative attribute */
  unsigned num_args;                      /* explicit (non-hidden) arguments of the kernel */
  unsigned arg_offset[TPFAKEHIP_MAX_ARGS]; /* their metadata offsets and sizes */
  unsigned arg_size[TPFAKEHIP_MAX_ARGS];
  int arg_is_pointer[TPFAKEHIP_MAX_ARGS]; /* value_kind global_buffer */
  unsigned kernarg_size;                  /* bytes of kernarg[]: where the explicit arguments end */
  unsigned kernarg_segment_size;          /* .kernarg_segment_size (hidden arguments included) */
  unsigned char kernarg[TPFAKEHIP_MAX_KERNARG]; /* the explicit arguments at their offsets */
} tpfakehip_launch_record;

typedef struct tpfakehip_load_record {
  int device;        /* the device the module was loaded for (current device) */
  int result;        /* hipError_t returned */
  char gfx[32];      /* the code object's gfx from e_flags, "" if unreadable */
  unsigned e_flags;
  unsigned abi_version; /* EI_ABIVERSION: 2 = code object v4, 3 = v5, 4 = v6 */
  unsigned num_kernels;
  char reason[512]; /* why it was refused, "" if loaded */
} tpfakehip_load_record;

/* HIP_LAUNCH_CONFIG and hipLaunchAttribute as HIP 7.1 lays them out (hip_runtime_api.h:1986;
 * sizeof 56 and 72), for hipDrvLaunchKernelEx: the double reads attributes 2 (cooperative) and 4
 * (Triton's cluster dimension). */
typedef struct tpfakehip_launch_attribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    int i;
    struct {
      unsigned x, y, z;
    } dim;
  } v;
} tpfakehip_launch_attribute;
typedef struct tpfakehip_launch_config {
  unsigned gx, gy, gz, bx, by, bz, shared;
  void* stream;
  tpfakehip_launch_attribute* attrs;
  unsigned num_attrs;
} tpfakehip_launch_config;

/* Resets every state (modules, memory, streams, records, counters, current devices of this thread)
 * and reads the configuration: from the arguments when not NULL (version: when not 0), else from the
 * environment. */
void tpfakehip_configure(const char* devices, int version, const char* fail, const char* missing);
size_t tpfakehip_launch_count(void);                                /* accepted launches */
int tpfakehip_get_launch(size_t index, tpfakehip_launch_record* out); /* 0 on success */
size_t tpfakehip_rejected_launch_count(void);                       /* launches refused by the checks */
void tpfakehip_clear_launches(void);                                /* both counts */
size_t tpfakehip_load_count(void);                                  /* hipModuleLoadData(Ex) calls, refused ones too */
int tpfakehip_get_load(size_t index, tpfakehip_load_record* out);  /* 0 on success */
/* The reason of the latest refusal (load, function lookup, launch, memory call) by any thread, ""
 * if none since tpfakehip_configure; copied into buf (NUL-terminated); returns its full length. */
size_t tpfakehip_last_error(char* buf, size_t size);
size_t tpfakehip_calls(const char* entry);      /* how many times an entry point was called */
size_t tpfakehip_live_allocations(void);        /* hipMalloc'd blocks not yet freed */
size_t tpfakehip_live_modules(void);            /* loaded modules not yet unloaded */
size_t tpfakehip_live_streams(void);            /* created streams not yet destroyed */
int tpfakehip_current_device(void);             /* the calling thread's current device (default 0) */
int tpfakehip_allocation_device(const void* p); /* device of the allocation holding p, -1 if none */
size_t tpfakehip_allocation_bytes_from(const void* p); /* bytes from p to the end of its allocation, 0 if none */
int tpfakehip_stream_device(void* stream);
void tpfakehip_set_capturing(void* stream, int on); /* a live stream now (not) capturing: hipStreamIsCapturing
                                                      says so, hipMalloc outside relaxed mode is refused (900) */      /* device of a live stream, -1 if not live */
int tpfakehip_stream_flags(void* stream);       /* hipStreamCreateWithFlags flags of a live stream, -1 if not live */
void* tpfakehip_last_stream(const char* entry); /* stream of the latest accepted call of `entry` (hipMemcpyAsync,
                                                   hipMemsetAsync, hipMemsetD8Async, hipStreamSynchronize,
                                                   hipEventRecord); (void*)-1 if none */
/* The code-object reader on its own, for tests and fuzzing: the number of kernels of an hsaco of
 * `size` bytes, or -1 with the reason in why. */
int tpfakehip_read_code_object(const void* data, size_t size, char* why, size_t why_size);

#ifdef __cplusplus
}
#endif

#endif
