// tritonpack/select/arch_limits.hpp — what one block (AMD: workgroup) may use on each GPU
// architecture, and whether an image's launch stays within it.
//
// Pure and driver-free, like select/arch.hpp: the packer refuses an image that cannot run on its
// own target and warns about the GPUs it would be the fallback for, selection refuses it on a GPU
// that cannot run it (and moves on to the next image), and `tritonpack inspect --device` says the
// same. Without this, such an image packs silently and fails only at launch, on the GPU node.
//
// Checked, from each image's Triton metadata (launch_info):
//   shared memory per block   `shared` (Triton allocates all of it dynamically) against the
//                             opt-in maximum per block (CUDA) / the LDS of a workgroup (AMD);
//   threads per block         num_warps × warp_size, the block the launcher uses, against the
//                             maximum threads per block / workgroup.
// Registers are not checked: Triton's metadata carries no register count (its n_regs comes from
// the driver at load time), and both compilers fit the registers to the block size Triton declares
// (`.reqntid` for ptxas, `amdgpu-flat-work-group-size` for LLVM) within a register file that is
// the same on every architecture below (CUDA: 255 per thread and 64 K per block on 7.5 .. 12.x),
// so a register limit cannot be exceeded where the thread limit is not.
//
// An architecture missing from the tables has no known limits: nothing is refused for it (the
// run time's load still compares the driver's own numbers, cuda/backend.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tritonpack/core/model.hpp"
#include "tritonpack/select/arch.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

struct block_limits {
  std::uint32_t shared_bytes = 0;  // per block: CUDA's opt-in maximum, AMD's LDS per workgroup
  std::uint32_t threads = 0;       // per block / workgroup
};

namespace detail {

struct cuda_limits_row {
  std::uint32_t cc;  // major*10 + minor
  block_limits limits;
};

// NVIDIA, from the CUDA Programming Guide, "Compute Capabilities" appendix, technical
// specifications per compute capability (docs.nvidia.com/cuda/cuda-programming-guide/
// 05-appendices/compute-capabilities.html): maximum shared memory per thread block (with the
// opt-in; the 1 KB the SM reserves per block is already excluded) and 1024 threads per block on
// every compute capability. The byte values are those cuDeviceGetAttribute(
// MAX_SHARED_MEMORY_PER_BLOCK_OPTIN) reports, as CUTLASS's cutlass/arch/arch.h also records
// them (sm90/sm100: 232448, sm120: 101376).
inline const std::vector<cuda_limits_row>& cuda_limits_table() {
  constexpr std::uint32_t KB = 1024;
  static const std::vector<cuda_limits_row> table = {
      {75, {64 * KB, 1024}},    // Turing
      {80, {163 * KB, 1024}},   // A100
      {86, {99 * KB, 1024}},    // Ampere GeForce / RTX A-series
      {87, {163 * KB, 1024}},   // Jetson Orin
      {89, {99 * KB, 1024}},    // Ada
      {90, {227 * KB, 1024}},   // Hopper
      {100, {227 * KB, 1024}},  // B200
      {103, {227 * KB, 1024}},  // B300
      {110, {227 * KB, 1024}},  // Thor (11.0, CUDA 12.x called it 10.1)
      {120, {99 * KB, 1024}},   // Blackwell GeForce / RTX PRO
      {121, {99 * KB, 1024}},   // DGX Spark
  };
  return table;
}

struct amd_limits_row {
  const char* processor;
  block_limits limits;
};

// AMD: LDS per workgroup, 64 KB on every CDNA and RDNA generation but CDNA4 (gfx950), which has
// 160 KB — AMD's GPU hardware specifications (rocm.docs.amd.com, reference/gpu-arch-specs: "LDS"
// per CU, MI100..MI300 64 KiB, MI350 160 KiB) and Triton's own AMD backend, which plans shared
// memory with the same numbers (TargetInfo::getSharedMemorySize: CDNA4 160 KB, else 64 KB).
// A workgroup has at most 1024 work-items on all of them (HIP's maxThreadsPerBlock). The
// wavefront (64 on CDNA, 32 on RDNA) is not needed here: the image's metadata records the
// warp_size Triton compiled for, and the launcher uses it.
inline const std::vector<amd_limits_row>& amd_limits_table() {
  constexpr std::uint32_t KB = 1024;
  static const std::vector<amd_limits_row> table = {
      {"gfx908", {64 * KB, 1024}},  // CDNA1 (MI100)
      {"gfx90a", {64 * KB, 1024}},  // CDNA2 (MI200)
      {"gfx940", {64 * KB, 1024}},  // CDNA3 (MI300)
      {"gfx941", {64 * KB, 1024}},  {"gfx942", {64 * KB, 1024}},
      {"gfx950", {160 * KB, 1024}},  // CDNA4 (MI350)
      {"gfx1030", {64 * KB, 1024}},  // RDNA2
      {"gfx1100", {64 * KB, 1024}},  // RDNA3
      {"gfx1101", {64 * KB, 1024}}, {"gfx1102", {64 * KB, 1024}},
      {"gfx1103", {64 * KB, 1024}}, {"gfx1150", {64 * KB, 1024}},  // RDNA3.5
      {"gfx1151", {64 * KB, 1024}}, {"gfx1200", {64 * KB, 1024}},  // RDNA4
      {"gfx1201", {64 * KB, 1024}},
  };
  return table;
}

}  // namespace detail

// Limits of a GPU of compute capability `a` (the suffix does not matter); nullopt when unknown.
inline std::optional<block_limits> cuda_block_limits(const cuda_arch& a) {
  for (const auto& r : detail::cuda_limits_table())
    if (r.cc == a.number()) return r.limits;
  return std::nullopt;
}

// Limits of a GPU with gfx processor `a.processor` (features do not matter); nullopt when unknown.
inline std::optional<block_limits> amd_block_limits(const amd_arch& a) {
  for (const auto& r : detail::amd_limits_table())
    if (a.processor == r.processor) return r.limits;
  return std::nullopt;
}

// Limits of the GPU an image's `arch` label names ("sm_90a", "gfx942:xnack-"); nullopt when the
// label does not parse or the architecture is not in the tables.
inline std::optional<block_limits> block_limits_of(backend_kind backend, std::string_view arch) {
  if (backend == backend_kind::cuda) {
    auto a = parse_cuda_arch(arch);
    return a ? cuda_block_limits(*a) : std::nullopt;
  }
  auto a = parse_amd_arch(arch);
  return a ? amd_block_limits(*a) : std::nullopt;
}

// The GPUs the tables know, by canonical device name ("sm_86", "gfx942"), oldest first: the
// packer asks selection, for each of them, which image it would run.
inline std::vector<std::string> known_devices(backend_kind backend) {
  std::vector<std::string> out;
  if (backend == backend_kind::cuda)
    for (const auto& r : detail::cuda_limits_table()) out.push_back("sm_" + std::to_string(r.cc));
  else
    for (const auto& r : detail::amd_limits_table()) out.push_back(r.processor);
  return out;
}

// Threads of one block as the launcher makes it: num_warps × warp_size from the metadata.
inline std::uint64_t block_threads(const launch_info& L) noexcept {
  return std::uint64_t{L.num_warps ? L.num_warps : 1} * (L.warp_size ? L.warp_size : 32);
}

// Does a block of `L` fit within `lim`? A few integer compares: selection without explanations
// calls it once per candidate image.
inline bool fits(const launch_info& L, const block_limits& lim) noexcept {
  return L.shared <= lim.shared_bytes && block_threads(L) <= lim.threads;
}

enum class limit_kind : std::uint8_t { shared_memory, threads };

struct limit_excess {
  limit_kind what;
  std::uint64_t need;
  std::uint64_t allowed;
};

// Every limit `L` exceeds, shared memory first; empty when it fits.
inline std::vector<limit_excess> excesses(const launch_info& L, const block_limits& lim) {
  std::vector<limit_excess> out;
  if (L.shared > lim.shared_bytes)
    out.push_back({limit_kind::shared_memory, L.shared, lim.shared_bytes});
  if (block_threads(L) > lim.threads)
    out.push_back({limit_kind::threads, block_threads(L), lim.threads});
  return out;
}

namespace detail {
// "160 KB" for whole kilobytes (every table value), else "163841 bytes".
inline std::string byte_amount(std::uint64_t bytes) {
  return bytes % 1024 == 0 ? std::to_string(bytes / 1024) + " KB"
                           : std::to_string(bytes) + " bytes";
}
}  // namespace detail

// What an image needs, for messages: "160 KB of shared memory" ("... (LDS)" on AMD) or
// "2048 threads per block (64 warps of 32)" ("per workgroup", "wavefronts" on AMD).
inline std::string need_text(const limit_excess& e, backend_kind backend, const launch_info& L) {
  const bool hip = backend == backend_kind::hip;
  if (e.what == limit_kind::shared_memory)
    return detail::byte_amount(e.need) + (hip ? " of shared memory (LDS)" : " of shared memory");
  return std::to_string(e.need) + (hip ? " threads per workgroup (" : " threads per block (") +
         std::to_string(L.num_warps) + (hip ? " wavefronts of " : " warps of ") +
         std::to_string(L.warp_size) + ")";
}

// What the GPU allows, in the unit of need_text: "99 KB", "1024". When the need is not whole
// kilobytes the limit is given in bytes too, so the two compare at a glance.
inline std::string allowed_text(const limit_excess& e) {
  if (e.what == limit_kind::threads) return std::to_string(e.allowed);
  std::string s = detail::byte_amount(e.allowed);
  if (e.need % 1024 != 0 && e.allowed % 1024 == 0)
    s += " (" + std::to_string(e.allowed) + " bytes)";
  return s;
}

// "needs 160 KB of shared memory, the GPU allows 99 KB" (every excess, joined by "; "), the
// reason selection gives for refusing an image.
inline std::string excess_reason(const std::vector<limit_excess>& ex, backend_kind backend,
                                 const launch_info& L) {
  std::string s;
  for (const auto& e : ex) {
    if (!s.empty()) s += "; ";
    s += "needs " + need_text(e, backend, L) + ", the GPU allows " + allowed_text(e);
  }
  return s;
}

TRITONPACK_END_NAMESPACE
