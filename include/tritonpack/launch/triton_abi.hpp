// tritonpack/launch/triton_abi.hpp — the launch-ABI facts that depend on the Triton release that
// compiled an image, in one place (docs/triton-abi.md §7, "Changes by version"). The packer checks
// each image against them (generator/cli/src/manifest.cpp) and the run time plans each image's
// launches by them (launch/params.hpp build_param_plan, cuda/loading.hpp, hip/backend.hpp).
//
// An image records the release that built it (launch_info::triton_version, the metadata's
// "triton_version"). parse_triton_abi() turns it into these facts once, when the image is checked
// or its parameters are planned; nothing here runs per launch.
//
// What a release changes is keyed on major.minor: patch releases of one minor share their ABI
// (§7: v3.7.0 and v3.7.1 differ in no launcher source). A release newer than the newest one
// listed here gets the newest facts and is not GPU-verified, so the CUDA loader checks its
// parameters (cuFuncGetParamInfo) before any launch.
#pragma once

#include <cstdint>
#include <string>

#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

struct triton_abi {
  // The release, major.minor (3.6 for an image that records none, see parse_triton_abi).
  std::uint32_t major = 3, minor = 6;

  // Triton >= 3.7 (§7 "3.7 vs 3.6", Decomposed tensor descriptor / TMA tensor descriptor / Host
  // descriptor object): a host-side descriptor carries `round_f32_to_tf32`, set per call on the
  // descriptor (TensorDescriptor.round_f32_to_tf32, fp32 only), not compiled into the kernel.
  //   decomposed form (no tensordesc_meta): a second i1 right after `padding`, so pointer,
  //     shape i64 x rank, strides i64 x rank, padding i1, round_f32_to_tf32 i1, shape i32 x rank,
  //     strides i64 x rank: 3 + 4 rank parameters (2 + 4 rank before);
  //   TMA form: parameters unchanged (map, shape i32 x rank, strides i64 x rank); the flag makes
  //     the map's data type CU_TENSOR_MAP_DATA_TYPE_TFLOAT32 (11) instead of the metadata's.
  bool descriptor_tf32_flag = false;

  // Triton >= 3.8 (§7 "3.8 vs 3.6", HIP global scratch): on AMD the launcher passes a real global
  // scratch buffer of gridX * gridY * gridZ * global_scratch_size bytes (no num_ctas factor, unlike
  // CUDA), aligned to global_scratch_align, as the first trailing pointer; the metadata has both
  // keys. Before, it passed null whatever the metadata said.
  bool hip_global_scratch = false;

  // Triton >= 3.9 (§7 "3.9 vs 3.6", AMD LLIR triple): the AMD LLVM IR's target triple names the
  // processor (amdgpu9.42-amd-amdhsa for gfx942; amd_ir_triple below). Before, amdgcn-amd-amdhsa.
  // The code object (hsaco) is unchanged.
  bool amd_ir_processor_triple = false;

  // §6: this release's launch ABI was checked on a GPU (cuFuncGetParamInfo for every kernel of the
  // GPU tests): its cubins skip the load-time parameter check (8 driver calls for a kernel of 8
  // parameters, 22-29 us of a first launch on an H200). 3.6 to 3.9: the GPU tests passed on the
  // H200 with every load checked (bench/triton-versions/RESULTS.md, 2026-12-05).
  bool gpu_verified = false;

  // Kernel parameters one host-side descriptor argument of rank `rank` expands to (§5, §7).
  std::uint32_t descriptor_params(std::uint32_t rank, bool tma) const noexcept {
    return tma ? 1 + 2 * rank : (descriptor_tf32_flag ? 3 : 2) + 4 * rank;
  }

  // The target triple of this release's AMD LLVM IR for `processor` ("gfx942", "gfx90a",
  // "gfx1250-strict"), as Triton 3.9's amd.get_target_triple gives it: "amdgpu" + the gfx major +
  // "." + minor and stepping (+ "s" for -strict). "" when `processor` is not a gfx name.
  std::string amd_ir_triple(const std::string& processor) const {
    if (!amd_ir_processor_triple) return "amdgcn-amd-amdhsa";
    std::string p = processor;
    const std::string strict = "-strict";
    const bool is_strict =
        p.size() > strict.size() && p.compare(p.size() - strict.size(), strict.size(), strict) == 0;
    if (is_strict) p.resize(p.size() - strict.size());
    if (p.size() < 6 || p.compare(0, 3, "gfx") != 0) return "";
    for (std::size_t i = 3; i < p.size(); ++i) {
      const char c = p[i];
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return "";
    }
    return "amdgpu" + p.substr(3, p.size() - 5) + "." + p.substr(p.size() - 2) +
           (is_strict ? "s" : "") + "-amd-amdhsa";
  }
};

// The facts for the release named `version` ("3.7.1", "3.8.0+git1a2b3c", "3.9"): true, or false
// with `why` set when it is not a version this run time can plan for (not major.minor..., or older
// than 3.6, whose launch ABI differs and was never described here). An empty `version` (an image
// that records none) is planned as 3.6, the release this format was first written for, and is not
// GPU-verified.
inline bool parse_triton_abi(const std::string& version, triton_abi& out, std::string& why) {
  out = triton_abi{};
  if (version.empty()) return true;
  std::size_t i = 0;
  auto number = [&](std::uint32_t& v) {
    const std::size_t start = i;
    v = 0;
    while (i < version.size() && version[i] >= '0' && version[i] <= '9' && i - start < 6)
      v = v * 10 + static_cast<std::uint32_t>(version[i++] - '0');
    return i > start;
  };
  std::uint32_t major = 0, minor = 0;
  if (!number(major) || i >= version.size() || version[i++] != '.' || !number(minor) ||
      (i < version.size() && version[i] >= '0' && version[i] <= '9')) {
    why = "Triton version \"" + version + "\" is not MAJOR.MINOR[.PATCH]";
    return false;
  }
  if (major < 3 || (major == 3 && minor < 6)) {
    why = "Triton " + version +
          " is older than 3.6, the oldest release whose launch ABI tritonpack knows "
          "(docs/triton-abi.md §7)";
    return false;
  }
  const auto at_least = [&](std::uint32_t mj, std::uint32_t mn) {
    return major > mj || (major == mj && minor >= mn);
  };
  out.major = major;
  out.minor = minor;
  out.descriptor_tf32_flag = at_least(3, 7);
  out.hip_global_scratch = at_least(3, 8);
  out.amd_ir_processor_triple = at_least(3, 9);
  out.gpu_verified = major == 3 && minor >= 6 && minor <= 9;
  return true;
}

TRITONPACK_END_NAMESPACE
