// tritonpack/hip/api.hpp — the HIP runtime entry points the run time uses, as one X-macro table.
//
// Why our own typedefs: as for CUDA (cuda/api.hpp), an application compiles without hip headers
// and links without libamdhip64; the runtime is dlopen'ed. Types, signatures and values are from
// docs/hip-abi.md §2.1-2.2 (HIP 7.1 headers, identical in ROCm 5.2.3 and 6.2.2 unless noted).
//
// Why plain dlsym and not hipGetProcAddress: hipGetProcAddress exists only since ROCm 6.2 and
// fails without a usable GPU (it runs HIP_INIT_API), so it could not even report "no AMD GPU".
// HIP has no _v2-style ABI duplicates of the entries below (hip-abi.md §2.4); the one name with
// two layouts, hipGetDeviceProperties, is not called through this table (hip/driver.hpp reads
// the gfx name with the layout it has verified).
#pragma once

#include <cstddef>
#include <cstdint>

#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace hip {

using hipError_t = int;
using hipDevice_t = int;
using hipModule_t = struct ihipModule_t*;
using hipFunction_t = struct ihipModuleSymbol_t*;
using hipStream_t = struct ihipStream_t*;
using hipDeviceptr_t = void*;
using hipEvent_t = struct ihipEvent_t*;

// hipError_t values the run time distinguishes.
enum : int {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorOutOfMemory = 2,
  hipErrorNotInitialized = 3,
  hipErrorInvalidConfiguration = 9,
  hipErrorInsufficientDriver = 35,
  hipErrorNoDevice = 100,
  hipErrorInvalidDevice = 101,
  hipErrorInvalidImage = 200,
  hipErrorNoBinaryForGpu = 209,
  hipErrorInvalidKernelFile = 218,
  hipErrorNotFound = 500,
  hipErrorLaunchFailure = 719,
  hipErrorCooperativeLaunchTooLarge = 720,
};

// hipDeviceAttribute_t (not CUDA's numbers).
enum : int {
  hipDeviceAttributeCooperativeLaunch = 10,
  hipDeviceAttributeComputeCapabilityMajor = 23,
  hipDeviceAttributeMaxThreadsPerBlock = 56,
  hipDeviceAttributeComputeCapabilityMinor = 61,
  hipDeviceAttributeMaxSharedMemoryPerBlock = 74,
  hipDeviceAttributeWarpSize = 87,
};

// hipFunction_attribute.
enum : int { HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0 };

// hipMemcpyKind: the runtime infers the direction from the pointers (unified addressing).
enum : int { hipMemcpyDefault = 4 };
enum : unsigned { hipStreamNonBlocking = 1 };
enum : unsigned { hipEventDisableTiming = 2 };
// hipStreamCaptureStatus and hipStreamCaptureMode (the same numbers as CUDA's).
enum : int { hipStreamCaptureStatusNone = 0, hipStreamCaptureModeRelaxed = 2 };

// hipDeviceProp_t: only where the gfx name lies, per layout (hip-abi.md §2.3, measured with
// offsetof against the ROCm 5.2.3, 6.2.2 and 7.1 headers). Every other field is read through
// hipDeviceGetAttribute, which has no layout.
struct device_prop_layout {
  const char* symbol;         // the exported function that fills this layout
  std::size_t size;           // sizeof the struct
  std::size_t gcn_arch_name;  // offsetof(gcnArchName), char[256]
};
// ROCm >= 6.0: hipGetDevicePropertiesR0600. Plain "hipGetDeviceProperties" is the ROCm 5.x
// layout in every release (ROCm 6 and 7 export it as a wrapper over ...R0000).
inline constexpr device_prop_layout prop_layout_r0600{"hipGetDevicePropertiesR0600", 1472, 1160};
inline constexpr device_prop_layout prop_layout_r0000{"hipGetDeviceProperties", 792, 396};

// HIP_VERSION form: major * 10000000 + minor * 100000 + patch (50221153 is ROCm 5.2.3's HIP).
// Triton 3.6 code objects are code object v5 and its own launcher refuses HIP majors below 6
// (hip-abi.md §1.6, TRITON_HIP_DRIVER_REQ_MAJOR_VERSION): so do we.
inline constexpr int min_runtime_version = 60000000;

// The table. X(name, parameter list); every entry returns hipError_t.
//   REQUIRED: loading fails (errc::no_driver, naming the entries) if the runtime lacks one.
//   OPTIONAL: may be null; callers check before use and say what is unavailable.
// The entries of docs/hip-abi.md §2.1, plus (marked) the memory API's, which §2.1 does not list.
#define TRITONPACK_HIP_REQUIRED(X)                                                           \
  X(hipInit, (unsigned))                                                                     \
  X(hipDriverGetVersion, (int*))                                                             \
  X(hipRuntimeGetVersion, (int*))                                                            \
  X(hipGetDeviceCount, (int*))                                                               \
  X(hipDeviceGet, (hipDevice_t*, int))                                                       \
  X(hipDeviceGetAttribute, (int*, int, int))                                                 \
  X(hipDeviceGetName, (char*, int, hipDevice_t))                                             \
  X(hipSetDevice, (int))                                                                     \
  X(hipGetDevice, (int*))                                                                    \
  X(hipModuleLoadData, (hipModule_t*, const void*))                                          \
  X(hipModuleUnload, (hipModule_t))                                                          \
  X(hipModuleGetFunction, (hipFunction_t*, hipModule_t, const char*))                        \
  X(hipFuncGetAttribute, (int*, int, hipFunction_t))                                         \
  X(hipModuleLaunchKernel, (hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned, \
                            unsigned, unsigned, hipStream_t, void**, void**))                \
  X(hipStreamSynchronize, (hipStream_t))

#define TRITONPACK_HIP_OPTIONAL(X)                                                              \
  /* ROCm >= 5.5; 10 parameters, no `extra` (hip-abi.md §1.5) */                               \
  X(hipModuleLaunchCooperativeKernel, (hipFunction_t, unsigned, unsigned, unsigned, unsigned,   \
                                       unsigned, unsigned, unsigned, hipStream_t, void**))      \
  /* the memory and device API (runtime/memory.hpp, hip/memory.hpp); not in hip-abi.md §2.1 */ \
  X(hipMalloc, (void**, std::size_t))                                                           \
  X(hipFree, (void*))                                                                           \
  X(hipMemcpy, (void*, const void*, std::size_t, int))                                          \
  X(hipMemcpyAsync, (void*, const void*, std::size_t, int, hipStream_t))                        \
  X(hipMemset, (void*, int, std::size_t))                                                       \
  X(hipMemsetAsync, (void*, int, std::size_t, hipStream_t))                                     \
  X(hipMemGetInfo, (std::size_t*, std::size_t*))                                                \
  X(hipDeviceSynchronize, ())                                                                   \
  X(hipStreamCreateWithFlags, (hipStream_t*, unsigned))                                         \
  X(hipStreamDestroy, (hipStream_t))                                                            \
  /* TRITONPACK_CHECK_POINTERS (hip/backend.hpp): HIP 5.0 and newer */                          \
  X(hipPointerGetAttribute, (void*, int, void*))                                                \
  /* global scratch of Triton >= 3.8 kernels (hip/scratch.hpp); hipStreamGetId: ROCm 6.2+ */    \
  X(hipEventCreateWithFlags, (hipEvent_t*, unsigned))                                           \
  X(hipEventRecord, (hipEvent_t, hipStream_t))                                                  \
  X(hipEventQuery, (hipEvent_t))                                                                \
  X(hipEventSynchronize, (hipEvent_t))                                                          \
  X(hipEventDestroy, (hipEvent_t))                                                              \
  X(hipStreamIsCapturing, (hipStream_t, int*))                                                  \
  X(hipThreadExchangeStreamCaptureMode, (int*))                                                 \
  X(hipStreamGetId, (hipStream_t, unsigned long long*))

// Resolved entry points: plain function pointers.
struct api {
#define TRITONPACK_HIP_FIELD(name, params) hipError_t(*name) params = nullptr;
  TRITONPACK_HIP_REQUIRED(TRITONPACK_HIP_FIELD)
  TRITONPACK_HIP_OPTIONAL(TRITONPACK_HIP_FIELD)
#undef TRITONPACK_HIP_FIELD
  // Not hipError_t-returning, so outside the table.
  const char* (*hipGetErrorName)(hipError_t) = nullptr;
  const char* (*hipGetErrorString)(hipError_t) = nullptr;
};

}  // namespace hip
TRITONPACK_END_NAMESPACE
