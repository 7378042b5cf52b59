// tritonpack/cuda/api.hpp — the CUDA driver entry points the run time uses, as one X-macro table.
//
// Why our own typedefs: an application must compile without cuda.h and link without libcuda (the
// driver is dlopen'd at run time, so one binary runs on NVIDIA, AMD and GPU-less nodes). Only the
// handful of types and constants used here are declared; values are from CUDA 13's cuda.h and are
// ABI-stable (CUDA never renumbers enumerators).
//
// Why cuGetProcAddress with a pinned API version: libcuda exports several ABI versions of many
// functions (cuMemAlloc vs cuMemAlloc_v2, cuStreamBeginCapture vs _v2, per-thread-stream `_ptsz`
// variants). Asking the driver for "cuMemAlloc" at API version 12000 returns exactly the variant
// whose signature these typedefs describe, on this and every later driver. dlsym by plain name
// would return the CUDA 3.x-era ABI for some of them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = std::uint64_t;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;
using CUgraph = struct CUgraph_st*;
using CUgraphExec = struct CUgraphExec_st*;
using CUlinkState = struct CUlinkState_st*;

// CUresult values the run time distinguishes.
enum : int {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_DEINITIALIZED = 4,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
  CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  CUDA_ERROR_NOT_SUPPORTED = 801,
  CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900,
};

// Device attributes (CUdevice_attribute).
enum : int {
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH = 95,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
  CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH = 120,
};

// Function attributes (CUfunction_attribute).
enum : int {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
  CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14,
};
enum : int { CU_FUNC_CACHE_PREFER_SHARED = 1 };

// JIT options (CUjit_option) and link input types (CUjitInputType).
enum : int {
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CU_JIT_LOG_VERBOSE = 12,
};
enum : int { CU_JIT_INPUT_PTX = 1 };

// Launch attributes (CUlaunchAttributeID) and values.
enum : int {
  CU_LAUNCH_ATTRIBUTE_COOPERATIVE = 2,
  CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4,
  CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE = 5,
  CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6,
};
enum : int { CU_CLUSTER_SCHEDULING_POLICY_SPREAD = 1 };

// Stream capture (CUstreamCaptureStatus, CUstreamCaptureMode).
enum : int {
  CU_STREAM_CAPTURE_STATUS_NONE = 0,
  CU_STREAM_CAPTURE_STATUS_ACTIVE = 1,
  CU_STREAM_CAPTURE_STATUS_INVALIDATED = 2
};
enum : int {
  CU_STREAM_CAPTURE_MODE_GLOBAL = 0,
  CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,
  CU_STREAM_CAPTURE_MODE_RELAXED = 2
};
enum : unsigned { CU_STREAM_NON_BLOCKING = 1 };
enum : unsigned { CU_EVENT_DISABLE_TIMING = 2 };

// Pointer attributes (CUpointer_attribute) and memory types (CUmemorytype), for error messages.
enum : int {
  CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
  CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
  CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11,
  CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12,
};
enum : unsigned {
  CU_MEMORYTYPE_HOST = 1,
  CU_MEMORYTYPE_DEVICE = 2,
  CU_MEMORYTYPE_ARRAY = 3,
  CU_MEMORYTYPE_UNIFIED = 4
};

// Tensor maps (CUtensorMapInterleave, CUtensorMapL2promotion, CUtensorMapFloatOOBfill).
enum : int { CU_TENSOR_MAP_INTERLEAVE_NONE = 0 };
enum : int { CU_TENSOR_MAP_L2_PROMOTION_L2_128B = 2 };
enum : int {
  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0,
  CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA = 1
};

// Layouts identical to cuda.h (checked by static_asserts in tests/runtime against the toolkit's
// header where one is installed).
union CUlaunchAttributeValue {
  char pad[64];
  int cooperative;
  struct {
    unsigned x, y, z;
  } clusterDim;
  int clusterSchedulingPolicyPreference;
  int programmaticStreamSerializationAllowed;
};
struct CUlaunchAttribute {
  int id;
  char pad[8 - sizeof(int)];
  CUlaunchAttributeValue value;
};
struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute* attrs;
  unsigned numAttrs;
};
struct alignas(64) CUtensorMap {
  std::uint64_t opaque[16];
};
static_assert(sizeof(CUlaunchAttribute) == 72, "CUlaunchAttribute layout");
static_assert(sizeof(CUtensorMap) == 128, "CUtensorMap is 128 bytes");

// The table. X(name, api_version, parameter list). All entries return CUresult.
//   REQUIRED: loading fails (error no_driver, naming the entry) if the driver lacks one.
//   OPTIONAL: may be null; callers check before use and explain what is unavailable.
// api_version is what cuGetProcAddress is asked for: 12000 pins the CUDA 12.0 ABI of every
// entry (the _v2 variants); newer entries ask for the version that introduced them. Where cuda.h
// renames a function to a *different* name (cuGraphInstantiate → cuGraphInstantiateWithFlags),
// the new name is used: asking for the old one returns its old, 5-argument ABI.
#define TRITONPACK_CUDA_REQUIRED(X)                                                              \
  X(cuGetErrorName, 12000, (CUresult, const char**))                                             \
  X(cuGetErrorString, 12000, (CUresult, const char**))                                           \
  X(cuInit, 12000, (unsigned))                                                                   \
  X(cuDriverGetVersion, 12000, (int*))                                                           \
  X(cuDeviceGetCount, 12000, (int*))                                                             \
  X(cuDeviceGet, 12000, (CUdevice*, int))                                                        \
  X(cuDeviceGetAttribute, 12000, (int*, int, CUdevice))                                          \
  X(cuDeviceGetName, 12000, (char*, int, CUdevice))                                              \
  X(cuDevicePrimaryCtxRetain, 12000, (CUcontext*, CUdevice))                                     \
  X(cuDevicePrimaryCtxRelease, 12000, (CUdevice))                                                \
  X(cuCtxGetCurrent, 12000, (CUcontext*))                                                        \
  X(cuCtxSetCurrent, 12000, (CUcontext))                                                         \
  X(cuCtxGetDevice, 12000, (CUdevice*))                                                          \
  X(cuCtxPushCurrent, 12000, (CUcontext))                                                        \
  X(cuCtxPopCurrent, 12000, (CUcontext*))                                                        \
  X(cuModuleLoadData, 12000, (CUmodule*, const void*))                                           \
  X(cuModuleLoadDataEx, 12000, (CUmodule*, const void*, unsigned, int*, void**))                 \
  X(cuModuleUnload, 12000, (CUmodule))                                                           \
  X(cuModuleGetFunction, 12000, (CUfunction*, CUmodule, const char*))                            \
  X(cuFuncGetAttribute, 12000, (int*, int, CUfunction))                                          \
  X(cuFuncSetAttribute, 12000, (CUfunction, int, int))                                           \
  X(cuFuncSetCacheConfig, 12000, (CUfunction, int))                                              \
  X(cuLaunchKernel, 12000,                                                                       \
    (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, \
     void**, void**))                                                                            \
  X(cuMemAlloc, 12000, (CUdeviceptr*, std::size_t))                                              \
  X(cuMemFree, 12000, (CUdeviceptr))                                                             \
  X(cuStreamIsCapturing, 12000, (CUstream, int*))                                                \
  X(cuThreadExchangeStreamCaptureMode, 12000, (int*))                                            \
  X(cuEventCreate, 12000, (CUevent*, unsigned))                                                  \
  X(cuEventRecord, 12000, (CUevent, CUstream))                                                   \
  X(cuEventQuery, 12000, (CUevent))                                                              \
  X(cuEventSynchronize, 12000, (CUevent))                                                        \
  X(cuEventDestroy, 12000, (CUevent))

#define TRITONPACK_CUDA_OPTIONAL(X)                                                       \
  /* launch attributes (clusters, cooperative, PDL) */                                    \
  X(cuLaunchKernelEx, 12000, (const CUlaunchConfig*, CUfunction, void**, void**))         \
  /* host-side TMA descriptors */                                                         \
  X(cuTensorMapEncodeTiled, 12000,                                                        \
    (CUtensorMap*, int, std::uint32_t, void*, const std::uint64_t*, const std::uint64_t*, \
     const std::uint32_t*, const std::uint32_t*, int, int, int, int))                     \
  /* ABI check of the parameter list at load time (CUDA 12.4) */                          \
  X(cuFuncGetParamInfo, 12040, (CUfunction, std::size_t, std::size_t*, std::size_t*))     \
  /* stream identity for scratch reuse (CUDA 12.0) */                                     \
  X(cuStreamGetId, 12000, (CUstream, unsigned long long*))                                \
  /* JIT through the linker, which hands back the cubin for the disk cache */             \
  X(cuLinkCreate, 12000, (unsigned, int*, void**, CUlinkState*))                          \
  X(cuLinkAddData, 12000,                                                                 \
    (CUlinkState, int, void*, std::size_t, const char*, unsigned, int*, void**))          \
  X(cuLinkComplete, 12000, (CUlinkState, void**, std::size_t*))                           \
  X(cuLinkDestroy, 12000, (CUlinkState))                                                  \
  /* used by tests, benchmarks and applications without the CUDA runtime */               \
  X(cuCtxSynchronize, 12000, ())                                                          \
  X(cuMemcpyHtoD, 12000, (CUdeviceptr, const void*, std::size_t))                         \
  X(cuMemcpyDtoH, 12000, (void*, CUdeviceptr, std::size_t))                               \
  X(cuMemsetD8, 12000, (CUdeviceptr, unsigned char, std::size_t))                         \
  X(cuStreamCreate, 12000, (CUstream*, unsigned))                                         \
  X(cuStreamDestroy, 12000, (CUstream))                                                   \
  X(cuStreamSynchronize, 12000, (CUstream))                                               \
  X(cuStreamBeginCapture, 12000, (CUstream, int))                                         \
  X(cuStreamEndCapture, 12000, (CUstream, CUgraph*))                                      \
  X(cuGraphInstantiateWithFlags, 12000, (CUgraphExec*, CUgraph, unsigned long long))      \
  X(cuGraphLaunch, 12000, (CUgraphExec, CUstream))                                        \
  X(cuGraphExecDestroy, 12000, (CUgraphExec))                                             \
  X(cuGraphDestroy, 12000, (CUgraph))                                                     \
  X(cuEventElapsedTime, 12000, (float*, CUevent, CUevent))                                \
  /* the memory and device API (runtime/memory.hpp, cuda/memory.hpp) */                   \
  X(cuMemcpy, 12000, (CUdeviceptr, CUdeviceptr, std::size_t))                             \
  X(cuMemcpyAsync, 12000, (CUdeviceptr, CUdeviceptr, std::size_t, CUstream))              \
  X(cuMemsetD8Async, 12000, (CUdeviceptr, unsigned char, std::size_t, CUstream))          \
  X(cuMemGetInfo, 12000, (std::size_t*, std::size_t*))                                    \
  X(cuPointerGetAttribute, 12000, (void*, int, CUdeviceptr))

// Resolved entry points. Plain function pointers: a call through the table costs what a call
// through the PLT costs.
struct api {
#define TRITONPACK_CUDA_FIELD(name, version, params) CUresult(*name) params = nullptr;
  TRITONPACK_CUDA_REQUIRED(TRITONPACK_CUDA_FIELD)
  TRITONPACK_CUDA_OPTIONAL(TRITONPACK_CUDA_FIELD)
#undef TRITONPACK_CUDA_FIELD
};

// cuGetProcAddress_v2 (CUDA 12.0+) and the CUDA 11.3 form without the status out-parameter.
using get_proc_address_v2_fn = CUresult (*)(const char*, void**, int, std::uint64_t, int*);
using get_proc_address_v1_fn = CUresult (*)(const char*, void**, int, std::uint64_t);

}  // namespace cuda
TRITONPACK_END_NAMESPACE
