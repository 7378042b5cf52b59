// launch_check.hpp — the test-double HIP runtime's launch checker: what a GPU would make of a
// hipModuleLaunchKernel, decided from the kernel's own code-object metadata (code_object.hpp)
// rather than from what the caller believes. Facts: docs/hip-abi.md §1.1-1.5, §2.5, §4.
//
// Checked, in this order (the first failure decides the code; the reason names the argument):
//   grid and block dimensions (zero, the runtime's grid limits, 1024 threads);
//   Triton's launch shape: block = (num_warps x .wavefront_size, 1, 1);
//   block <= .max_flat_workgroup_size (the real runtime: hipErrorLaunchFailure);
//   dynamic LDS + .group_segment_fixed_size <= the device's LDS;
//   the argument protocol: kernelParams XOR extra; extra exactly {BUFFER_POINTER, buf,
//   BUFFER_SIZE, &size, END} with size covering every explicit argument and at most
//   .kernarg_segment_size; kernelParams[i] non-NULL for each explicit argument;
//   the kernel ends in Triton's two scratch pointers (8-byte global_buffer), each NULL or device
//   memory (Triton 3.6 and 3.7 pass NULL global scratch on AMD, 3.8 and later a buffer when the
//   kernel needs one: which is right is the caller's to check, from the recorded kernarg bytes);
//   every global_buffer argument NULL or inside a live hipMalloc allocation of the launching
//   device (a misplaced scalar or a mis-packed buffer shows up here).
// The accepted launch's explicit kernarg bytes are laid out at the metadata's offsets, as the
// runtime copies them (sizes 4 and 8 as integers, others byte-wise: the same bytes on x86-64).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "code_object.hpp"

namespace tpfakehip {

enum : int {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorInvalidConfiguration = 9,
  hipErrorLaunchFailure = 719,
};

struct launch_request {
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned shared = 0;
  void** params = nullptr;
  void** extra = nullptr;
};

struct launch_verdict {
  int code = hipSuccess;
  std::string reason;                 // empty when accepted
  std::vector<std::uint8_t> kernarg;  // explicit_end() bytes, when accepted
  bool via_extra = false;
};

// `device_of(p)`: the device ordinal of the hipMalloc allocation holding address p, -1 if none.
inline launch_verdict check_launch(const kernel_meta& k, const launch_request& r, int device, unsigned device_lds,
                                   const std::function<int(std::uint64_t)>& device_of) {
  launch_verdict v;
  auto refuse = [&v](int code, const std::string& why) {
    v.code = code;
    v.reason = why;
    v.kernarg.clear();
    return v;
  };
  auto arg_text = [](std::size_t i, const kernel_arg& a) {
    return "argument " + std::to_string(i) + " (" + a.value_kind + ", offset " + std::to_string(a.offset) + ", size " +
           std::to_string(a.size) + ")";
  };
  auto hex = [](std::uint64_t x) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(x));
    return std::string(b);
  };
  const unsigned* g = r.grid;
  const unsigned* b = r.block;
  const std::string dims = "grid (" + std::to_string(g[0]) + ", " + std::to_string(g[1]) + ", " + std::to_string(g[2]) +
                           ") block (" + std::to_string(b[0]) + ", " + std::to_string(b[1]) + ", " +
                           std::to_string(b[2]) + ")";
  if (!g[0] || !g[1] || !g[2] || !b[0] || !b[1] || !b[2]) return refuse(hipErrorInvalidValue, dims + " has a zero dimension");
  if (g[0] > 0x7fffffffu || g[1] > 65536 || g[2] > 65536 || std::uint64_t{g[0]} * b[0] > 0xffffffffull)
    return refuse(hipErrorInvalidConfiguration,
                  dims + " exceeds the runtime's limits (gridX <= INT32_MAX, gridY/Z <= 65536, gridX*blockX <= UINT32_MAX)");
  const std::uint64_t threads = std::uint64_t{b[0]} * b[1] * b[2];
  if (threads > 1024) return refuse(hipErrorInvalidValue, dims + ": " + std::to_string(threads) + " threads per block, the device allows 1024");
  if (b[1] != 1 || b[2] != 1 || b[0] % k.wavefront_size != 0)
    return refuse(hipErrorInvalidValue, dims + " is not Triton's launch shape (num_warps x wavefront " +
                                            std::to_string(k.wavefront_size) + ", 1, 1)");
  if (threads > k.max_flat_workgroup_size)
    return refuse(hipErrorLaunchFailure, dims + ": " + std::to_string(threads) + " threads exceed the kernel's .max_flat_workgroup_size " +
                                             std::to_string(k.max_flat_workgroup_size) + " (compiled for fewer warps)");
  if (std::uint64_t{r.shared} + k.group_segment_fixed_size > device_lds)
    return refuse(hipErrorInvalidValue, "dynamic LDS " + std::to_string(r.shared) + " + static LDS " +
                                            std::to_string(k.group_segment_fixed_size) + " bytes exceed the device's " +
                                            std::to_string(device_lds) + " bytes");

  const std::vector<const kernel_arg*> args = k.explicit_args();
  const std::uint64_t end = k.explicit_end();
  v.kernarg.assign(static_cast<std::size_t>(end), 0);
  if (r.params && r.extra) return refuse(hipErrorInvalidValue, "both kernelParams and extra are given");
  if (r.extra) {
    void** e = r.extra;
    // HIP_LAUNCH_PARAM_BUFFER_POINTER 1, BUFFER_SIZE 2, END 3 (not CUDA's 0).
    auto tag = [](void* p) { return reinterpret_cast<std::uintptr_t>(p); };
    if (tag(e[0]) != 1 || tag(e[2]) != 2 || tag(e[4]) != 3)
      return refuse(hipErrorInvalidValue,
                    "extra is not {HIP_LAUNCH_PARAM_BUFFER_POINTER, buf, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, "
                    "HIP_LAUNCH_PARAM_END} (the END tag is (void*)3, not CUDA's 0)");
    const auto* buf = static_cast<const std::uint8_t*>(e[1]);
    const auto* sizep = static_cast<const std::size_t*>(e[3]);
    if (!sizep) return refuse(hipErrorInvalidValue, "extra's BUFFER_SIZE pointer is NULL");
    const std::size_t size = *sizep;
    if (!args.empty() && !buf) return refuse(hipErrorInvalidValue, "extra's argument buffer is NULL");
    if (size < end) {
      std::size_t i = 0;
      while (i < args.size() && args[i]->offset + args[i]->size <= size) ++i;
      return refuse(hipErrorInvalidValue, "extra's buffer is " + std::to_string(size) + " bytes; the explicit arguments end at " +
                                              std::to_string(end) + " and " + arg_text(i, *args[i]) +
                                              " is not covered (each argument goes at its natural alignment)");
    }
    if (size > k.kernarg_segment_size)
      return refuse(hipErrorInvalidValue, "extra's buffer is " + std::to_string(size) + " bytes, more than the kernel's .kernarg_segment_size " +
                                              std::to_string(k.kernarg_segment_size) + " (arguments that the kernel does not take?)");
    if (end) std::memcpy(v.kernarg.data(), buf, static_cast<std::size_t>(end));
    v.via_extra = true;
  } else {
    if (!args.empty() && !r.params)
      return refuse(hipErrorInvalidValue, "the kernel takes " + std::to_string(args.size()) + " arguments and kernelParams is NULL");
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (!r.params[i]) return refuse(hipErrorInvalidValue, "kernelParams[" + std::to_string(i) + "] is NULL for " + arg_text(i, *args[i]));
      std::memcpy(v.kernarg.data() + args[i]->offset, r.params[i], static_cast<std::size_t>(args[i]->size));
    }
  }

  const std::string form = v.via_extra ? "extra buffer" : "kernelParams";
  const std::size_t n = args.size();
  if (n < 2 || args[n - 2]->value_kind != "global_buffer" || args[n - 2]->size != 8 ||
      args[n - 1]->value_kind != "global_buffer" || args[n - 1]->size != 8)
    return refuse(hipErrorInvalidValue, "the kernel's last two explicit arguments are not Triton 3.6's scratch pointers "
                                        "(8-byte global_buffer): not a Triton kernel, or damaged metadata");
  for (std::size_t i = 0; i < n; ++i) {
    const kernel_arg& a = *args[i];
    if (a.value_kind != "global_buffer") continue;
    if (a.size != 8) return refuse(hipErrorInvalidValue, arg_text(i, a) + " is a pointer that is not 8 bytes");
    std::uint64_t p = 0;
    std::memcpy(&p, v.kernarg.data() + a.offset, 8);
    if (p == 0) continue;
    const int owner = device_of(p);
    if (owner != device)
      return refuse(hipErrorInvalidValue,
                    arg_text(i, a) + " holds " + hex(p) + " in the " + form + ", which is " +
                        (owner < 0 ? std::string("not memory from hipMalloc") : "memory of device " + std::to_string(owner)) +
                        "; the launch runs on device " + std::to_string(device) +
                        (owner < 0 ? " (a scalar in a pointer's place, or arguments packed at the wrong offsets?)" : ""));
  }
  return v;
}

}  // namespace tpfakehip
