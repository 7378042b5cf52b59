// tritonpack/hip/launch_abi.hpp — Triton's AMD launch ABI as pure functions (docs/hip-abi.md §1,
// §4), so the block size and the kernarg layout are unit-tested without a GPU or a runtime.
//
// The parameter list itself is backend neutral (launch/params.hpp's param_plan: run-time args with
// constexpr and ==1 args dropped, then the global and profile scratch pointers), and what differs
// between Triton releases (descriptor parameters, AMD global scratch from 3.8) is
// launch/triton_abi.hpp's. What is AMD's and the same in every release:
//   * block = num_warps x wavefront size, and Triton picks the wavefront size from the gfx major
//     (64 below gfx10, i.e. CDNA and GCN; 32 on RDNA, gfx10/11/12);
//   * the runtime copies each kernelParams[i] into kernarg memory at the argument's natural
//     alignment (size = alignment: 1/2/4/8), which is what the code object's metadata records.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tritonpack/launch/params.hpp"
#include "tritonpack/select/arch.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace hip {

// Triton's HIPOptions: gfx_major = int(base_arch[3:-2]), base_arch being the arch without
// "-strict" (3.9); warp_size = 32 if gfx_major >= 10 else 64. 0 when `a` is not a gfx name of
// that shape.
inline std::uint32_t triton_wavefront_size(const amd_arch& a) {
  const std::string p = a.base_processor();
  if (p.size() < 6) return 0;
  unsigned major = 0;
  for (std::size_t i = 3; i + 2 < p.size(); ++i) {
    if (p[i] < '0' || p[i] > '9') return 0;
    major = major * 10 + static_cast<unsigned>(p[i] - '0');
  }
  return major >= 10 ? 32 : 64;
}

// Threads per block, or 0 with `why` set when the image's metadata and its target disagree on the
// wavefront size (a launch would then run the wrong number of threads).
inline std::uint32_t block_size(const launch_info& li, const amd_arch& target, std::string& why) {
  const std::uint32_t wave = triton_wavefront_size(target);
  if (wave == 0) {
    why = "'" + target.str() + "' is not a gfx name Triton compiles for";
    return 0;
  }
  if (li.warp_size != wave) {
    why = "its metadata says warp_size " + std::to_string(li.warp_size) + " but Triton compiles " +
          target.processor + " with wavefront size " + std::to_string(wave);
    return 0;
  }
  return (li.num_warps ? li.num_warps : 1) * wave;
}

// Where each kernel parameter lands in the kernarg segment, and the explicit segment's size (the
// code object's .kernarg_segment_size when the kernel uses no hidden arguments).
struct kernarg_layout {
  std::vector<std::uint32_t> offsets;
  std::uint32_t size = 0;
};

inline kernarg_layout layout_kernargs(const std::vector<std::uint32_t>& param_sizes) {
  kernarg_layout k;
  std::uint32_t at = 0;
  for (std::uint32_t s : param_sizes) {
    const std::uint32_t align = s == 1 || s == 2 || s == 4 ? s : 8;
    at = (at + align - 1) / align * align;
    k.offsets.push_back(at);
    at += s;
  }
  k.size = at;
  return k;
}

}  // namespace hip
TRITONPACK_END_NAMESPACE
