// Helpers for the test-double HIP runtime's tests: its control interface and the HIP entry points,
// both dlsym'd from the library a run time would dlopen (TP_FAKE_HIP_PATH), and the fixtures'
// code objects (tests/data/artifacts, fake_hip/data).
#pragma once

#include <dlfcn.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "fake_hip/fake_hip_control.h"

#if defined(__SANITIZE_ADDRESS__)
#define TPHIPTEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TPHIPTEST_ASAN 1
#endif
#endif
#ifndef TPHIPTEST_ASAN
#define TPHIPTEST_ASAN 0
#endif

namespace tphiptest {

using hipError_t = int;
using hipModule_t = void*;
using hipFunction_t = void*;
using hipStream_t = void*;

using launch_attribute = tpfakehip_launch_attribute;
using launch_config = tpfakehip_launch_config;

inline void* open_library(const char* path) {
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) throw std::runtime_error(std::string("cannot open the HIP double: ") + dlerror());
  return h;
}

// One library's entry points. Required ones throw if absent; optional ones are NULL.
struct hip {
  void* handle;
  template <class F>
  F sym(const char* n, bool required = true) const {
    void* p = dlsym(handle, n);
    if (!p && required) throw std::runtime_error(std::string("the HIP double lacks ") + n);
    return reinterpret_cast<F>(p);
  }
#define TPHIP_FN(name, ...) std::add_pointer_t<__VA_ARGS__> name = sym<std::add_pointer_t<__VA_ARGS__>>(#name)
#define TPHIP_OPT(name, ...) std::add_pointer_t<__VA_ARGS__> name = sym<std::add_pointer_t<__VA_ARGS__>>(#name, false)
  explicit hip(const char* path) : handle(open_library(path)) {}
  TPHIP_FN(tpfakehip_configure, void(const char*, int, const char*, const char*));
  TPHIP_FN(tpfakehip_launch_count, size_t());
  TPHIP_FN(tpfakehip_get_launch, int(size_t, tpfakehip_launch_record*));
  TPHIP_FN(tpfakehip_rejected_launch_count, size_t());
  TPHIP_FN(tpfakehip_clear_launches, void());
  TPHIP_FN(tpfakehip_load_count, size_t());
  TPHIP_FN(tpfakehip_get_load, int(size_t, tpfakehip_load_record*));
  TPHIP_FN(tpfakehip_last_error, size_t(char*, size_t));
  TPHIP_FN(tpfakehip_calls, size_t(const char*));
  TPHIP_FN(tpfakehip_live_allocations, size_t());
  TPHIP_FN(tpfakehip_live_modules, size_t());
  TPHIP_FN(tpfakehip_live_streams, size_t());
  TPHIP_FN(tpfakehip_current_device, int());
  TPHIP_FN(tpfakehip_allocation_device, int(const void*));
  TPHIP_FN(tpfakehip_stream_device, int(void*));
  TPHIP_FN(tpfakehip_read_code_object, int(const void*, size_t, char*, size_t));

  TPHIP_FN(hipDriverGetVersion, hipError_t(int*));
  TPHIP_FN(hipRuntimeGetVersion, hipError_t(int*));
  TPHIP_FN(hipInit, hipError_t(unsigned));
  TPHIP_FN(hipGetErrorName, const char*(hipError_t));
  TPHIP_FN(hipGetErrorString, const char*(hipError_t));
  TPHIP_FN(hipGetLastError, hipError_t());
  TPHIP_FN(hipPeekAtLastError, hipError_t());
  TPHIP_FN(hipGetDeviceCount, hipError_t(int*));
  TPHIP_FN(hipDeviceGet, hipError_t(int*, int));
  TPHIP_FN(hipSetDevice, hipError_t(int));
  TPHIP_FN(hipGetDevice, hipError_t(int*));
  TPHIP_FN(hipDeviceComputeCapability, hipError_t(int*, int*, int));
  TPHIP_FN(hipDeviceGetName, hipError_t(char*, int, int));
  TPHIP_FN(hipDeviceGetAttribute, hipError_t(int*, int, int));
  TPHIP_FN(hipGetDeviceProperties, hipError_t(void*, int));
  TPHIP_OPT(hipGetDevicePropertiesR0600, hipError_t(void*, int));
  TPHIP_OPT(hipGetProcAddress, hipError_t(const char*, void**, int, std::uint64_t, int*));
  TPHIP_FN(hipModuleLoadData, hipError_t(hipModule_t*, const void*));
  TPHIP_FN(hipModuleLoadDataEx, hipError_t(hipModule_t*, const void*, unsigned, int*, void**));
  TPHIP_FN(hipModuleUnload, hipError_t(hipModule_t));
  TPHIP_FN(hipModuleGetFunction, hipError_t(hipFunction_t*, hipModule_t, const char*));
  TPHIP_FN(hipFuncGetAttribute, hipError_t(int*, int, hipFunction_t));
  TPHIP_FN(hipModuleLaunchKernel, hipError_t(hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned,
                                                 unsigned, unsigned, hipStream_t, void**, void**));
  TPHIP_OPT(hipModuleLaunchCooperativeKernel, hipError_t(hipFunction_t, unsigned, unsigned, unsigned, unsigned,
                                                             unsigned, unsigned, unsigned, hipStream_t, void**));
  TPHIP_OPT(hipDrvLaunchKernelEx, hipError_t(const launch_config*, hipFunction_t, void**, void**));
  TPHIP_FN(hipMalloc, hipError_t(void**, size_t));
  TPHIP_FN(hipFree, hipError_t(void*));
  TPHIP_FN(hipMemGetInfo, hipError_t(size_t*, size_t*));
  TPHIP_FN(hipMemcpy, hipError_t(void*, const void*, size_t, int));
  TPHIP_FN(hipMemcpyAsync, hipError_t(void*, const void*, size_t, int, hipStream_t));
  TPHIP_FN(hipMemcpyHtoD, hipError_t(void*, const void*, size_t));
  TPHIP_FN(hipMemcpyDtoH, hipError_t(void*, void*, size_t));
  TPHIP_FN(hipMemcpyDtoD, hipError_t(void*, void*, size_t));
  TPHIP_FN(hipMemset, hipError_t(void*, int, size_t));
  TPHIP_FN(hipMemsetAsync, hipError_t(void*, int, size_t, hipStream_t));
  TPHIP_FN(hipMemsetD8, hipError_t(void*, unsigned char, size_t));
  TPHIP_FN(hipMemsetD8Async, hipError_t(void*, unsigned char, size_t, hipStream_t));
  TPHIP_FN(hipPointerGetAttribute, hipError_t(void*, int, void*));
  TPHIP_FN(hipStreamCreate, hipError_t(hipStream_t*));
  TPHIP_FN(hipStreamCreateWithFlags, hipError_t(hipStream_t*, unsigned));
  TPHIP_FN(hipStreamDestroy, hipError_t(hipStream_t));
  TPHIP_FN(hipStreamSynchronize, hipError_t(hipStream_t));
#undef TPHIP_FN
#undef TPHIP_OPT

  std::string last_error() const {
    char buf[1024];
    tpfakehip_last_error(buf, sizeof buf);
    return buf;
  }
};

// The double as a run time would find it, opened once (as RTLD_LOCAL, like the run time does).
inline hip& fake() {
  static hip h(TP_FAKE_HIP_PATH);
  return h;
}
inline hip& fake_rocm5() {
  static hip h(TP_FAKE_HIP_ROCM5_PATH);
  return h;
}

inline std::vector<std::uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  return std::vector<std::uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}
inline std::vector<std::uint8_t> artifact(const std::string& rel) { return read_file(std::string(TP_ARTIFACTS_DIR) + "/" + rel); }
inline std::vector<std::uint8_t> probe(const std::string& name) { return read_file(std::string(TP_FAKE_HIP_DATA) + "/" + name); }

// A function pointer as an address, for comparisons doctest can print.
template <class F>
void* addr(F f) {
  return reinterpret_cast<void*>(f);
}

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace tphiptest
