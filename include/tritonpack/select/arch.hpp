// tritonpack/select/arch.hpp — GPU architecture names, compatibility rules, and the driver → PTX
// ISA table.
//
// Pure functions with no driver dependency: the run time, `tritonpack inspect --device` and the
// no-GPU quickstart all decide with the same code. The rules (docs/runtime.md "Selection"):
//   cubin  sm_XY   runs on compute capability X.Y' with the same major X and Y' >= Y;
//          sm_XYa  runs only on exactly X.Y (architecture-specific features, e.g. wgmma on sm_90a);
//          sm_XYf  runs on the same family: same major, Y' >= Y (CUDA 12.9+ family targets).
//   PTX    compute_XY   is JIT-compiled for any device >= X.Y (any later major too);
//          compute_XYa  only for exactly X.Y; compute_XYf for the same major, Y' >= Y;
//          and only by a driver that knows the PTX ISA version in its `.version` directive.
//   hsaco  gfxNNN[:feature±...] runs on the same gfx processor; each feature the image pins
//          (xnack-, sramecc+) must have the same setting on the device; an unpinned feature
//          ("any") runs either way. gfx1250-strict (gfx1250's A0 stepping, Triton 3.9) is a
//          processor of its own: only where the runtime reports that name (see hsaco_runs_on).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

// ---------------------------------------------------------------------------------------------
// NVIDIA

struct cuda_arch {
  std::uint32_t major = 0;
  std::uint32_t minor = 0;
  char suffix = 0;  // 0, 'a' (architecture-specific) or 'f' (family-specific)

  std::uint32_t number() const noexcept { return major * 10 + minor; }
  std::string str() const {  // canonical "sm_90a"
    std::string s = "sm_" + std::to_string(major) + std::to_string(minor);
    if (suffix) s += suffix;
    return s;
  }
  friend bool operator==(const cuda_arch& a, const cuda_arch& b) noexcept {
    return a.major == b.major && a.minor == b.minor && a.suffix == b.suffix;
  }
};

namespace detail {
inline bool consume_prefix(std::string_view& s, std::string_view p) noexcept {
  if (s.substr(0, p.size()) != p) return false;
  s.remove_prefix(p.size());
  return true;
}
inline bool all_digits(std::string_view s) noexcept {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}
inline std::uint32_t to_u32(std::string_view s) noexcept {
  std::uint32_t v = 0;
  for (char c : s) v = v * 10 + static_cast<std::uint32_t>(c - '0');
  return v;
}
}  // namespace detail

// Accepts the ways users and tools spell an NVIDIA target: "sm_90a", "sm90" (Triton's metadata),
// "compute_90", "90", "9.0", "cuda:90", "cuda:sm_90a". The last digit is the minor version
// ("100" is 10.0, "120" is 12.0), as in every CUDA tool. Returns nullopt for anything else.
inline std::optional<cuda_arch> parse_cuda_arch(std::string_view s) {
  detail::consume_prefix(s, "cuda:");
  if (!detail::consume_prefix(s, "sm_") && !detail::consume_prefix(s, "compute_"))
    detail::consume_prefix(s, "sm");
  cuda_arch a;
  auto dot = s.find('.');
  if (dot != std::string_view::npos) {  // "9.0"
    std::string_view ma = s.substr(0, dot), mi = s.substr(dot + 1);
    if (!detail::all_digits(ma) || !detail::all_digits(mi) || mi.size() != 1 || ma.size() > 2)
      return std::nullopt;
    a.major = detail::to_u32(ma);
    a.minor = detail::to_u32(mi);
    return a.major == 0 ? std::nullopt : std::optional<cuda_arch>(a);
  }
  if (!s.empty() && (s.back() == 'a' || s.back() == 'f')) {
    a.suffix = s.back();
    s.remove_suffix(1);
  }
  if (!detail::all_digits(s) || s.size() < 2 || s.size() > 3) return std::nullopt;
  std::uint32_t n = detail::to_u32(s);
  a.major = n / 10;
  a.minor = n % 10;
  if (a.major == 0) return std::nullopt;
  return a;
}

// Can a cubin built for `image` run on a device of compute capability `device` (suffix ignored)?
// On refusal, `why` (when given) says which rule refused it; no string is built otherwise, as the
// run time selects without explanations.
inline bool cubin_runs_on(const cuda_arch& image, const cuda_arch& device,
                          std::string* why = nullptr) {
  const bool other_major = image.major != device.major;
  const bool newer = !other_major && image.minor > device.minor;
  const bool specific = image.suffix == 'a' && image.minor != device.minor;
  if (!other_major && !newer && !specific) return true;
  if (why) {
    const std::string dev = "sm_" + std::to_string(device.number());
    *why = other_major ? "cubin for " + image.str() + " cannot run on " + dev +
                             " (a cubin runs only on its own major version)"
           : newer ? "cubin for " + image.str() + " needs a newer GPU than " + dev
                   : "cubin for " + image.str() +
                         " uses architecture-specific features and runs only on exactly sm_" +
                         std::to_string(image.number());
  }
  return false;
}

// Can PTX whose `.target` is `image` be JIT-compiled for `device` (ignoring the ISA version)?
inline bool ptx_targets(const cuda_arch& image, const cuda_arch& device,
                        std::string* why = nullptr) {
  const bool specific = image.suffix == 'a' && image.number() != device.number();
  const bool family = !specific && image.suffix == 'f' &&
                      (image.major != device.major || image.minor > device.minor);
  const bool newer = !specific && !family && image.number() > device.number();
  if (!specific && !family && !newer) return true;
  if (why) {
    *why = specific
               ? "PTX for " + image.str() +
                     " uses architecture-specific features and JIT-compiles only for exactly sm_" +
                     std::to_string(image.number())
           : family ? "PTX for " + image.str() + " is family-specific and needs sm_" +
                          std::to_string(image.major) + "x with x >= " + std::to_string(image.minor)
                    : "PTX for " + image.str() + " needs a newer GPU than sm_" +
                          std::to_string(device.number());
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Driver version → PTX ISA. cuDriverGetVersion() reports the newest CUDA version the driver
// supports as 1000*major + 10*minor (12080 for 12.8); the driver's PTX JIT accepts ISA versions up
// to the one that CUDA release introduced (no minor-version compatibility for PTX). ISA versions
// are major*10+minor (8.7 → 87), as in image_info::ptx_version.

namespace detail {
struct cuda_release {
  std::uint32_t cuda;        // 12080
  std::uint32_t ptx_isa;     // 87
  const char* linux_driver;  // minimum Linux driver of the GA toolkit, "" when not recorded
};
// From the CUDA toolkit release notes and the PTX ISA document's release history.
inline const std::vector<cuda_release>& cuda_releases() {
  static const std::vector<cuda_release> table = {
      {10000, 63, "410.48"}, {10010, 64, "418.39"}, {10020, 65, "440.33"}, {11000, 70, "450.36"},
      {11010, 71, "455.23"}, {11020, 72, "460.27"}, {11030, 73, "465.19"}, {11040, 74, "470.42"},
      {11050, 75, "495.29"}, {11060, 76, "510.39"}, {11070, 77, "515.43"}, {11080, 78, "520.61"},
      {12000, 80, "525.60"}, {12010, 81, "530.30"}, {12020, 82, "535.54"}, {12030, 83, "545.23"},
      {12040, 84, "550.54"}, {12050, 85, "555.42"}, {12060, 85, "560.28"}, {12070, 86, "565.57"},
      {12080, 87, "570.26"}, {12090, 88, "575.51"}, {13000, 90, "580.65"}, {13010, 91, ""},
  };
  return table;
}
}  // namespace detail

// Newest PTX ISA version the driver's JIT accepts. 0 = unknown driver version (0 passed), and
// for drivers newer than the table the answer is extrapolated (13.x → 9.x) or, for an unknown
// major, "anything" (0xffffffff) so that the driver itself decides.
inline std::uint32_t max_ptx_isa_for_driver(std::uint32_t driver_version) noexcept {
  if (driver_version == 0) return 0;
  std::uint32_t best = 0;
  const auto& t = detail::cuda_releases();
  for (const auto& r : t)
    if (r.cuda <= driver_version) best = r.ptx_isa;
  if (driver_version > t.back().cuda) {
    const std::uint32_t major = driver_version / 1000, minor = (driver_version % 1000) / 10;
    if (major == 13) return 90 + minor;
    return 0xffffffffu;
  }
  return best;
}

// The first CUDA version whose driver accepts PTX ISA `isa` (12080 for 87); 0 when unknown.
inline std::uint32_t min_cuda_for_ptx_isa(std::uint32_t isa) noexcept {
  for (const auto& r : detail::cuda_releases())
    if (r.ptx_isa >= isa) return r.cuda;
  if (isa / 10 == 9) return 13000 + (isa % 10) * 10;  // same extrapolation as above
  return 0;
}

// "12.8" for 12080.
inline std::string cuda_version_string(std::uint32_t v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}
// "6.2.41133" for a HIP_VERSION-form number (major * 10000000 + minor * 100000 + patch).
inline std::string hip_version_string(std::uint32_t v) {
  return std::to_string(v / 10000000) + "." + std::to_string((v / 100000) % 100) + "." +
         std::to_string(v % 100000);
}
// "8.7" for 87.
inline std::string ptx_isa_string(std::uint32_t isa) {
  return std::to_string(isa / 10) + "." + std::to_string(isa % 10);
}

// "CUDA 12.8 (Linux driver >= 570.26)" — what a user must install to JIT PTX ISA `isa`.
inline std::string driver_needed_for_ptx_isa(std::uint32_t isa) {
  const std::uint32_t cuda = min_cuda_for_ptx_isa(isa);
  if (cuda == 0) return "a driver newer than any tritonpack knows";
  std::string s = "a driver supporting CUDA " + cuda_version_string(cuda);
  for (const auto& r : detail::cuda_releases())
    if (r.cuda == cuda && r.linux_driver[0])
      s += std::string(" (Linux driver >= ") + r.linux_driver + ")";
  return s;
}

// ---------------------------------------------------------------------------------------------
// AMD

struct amd_arch {
  std::string processor;                               // "gfx942", "gfx1250-strict"
  std::vector<std::pair<std::string, bool>> features;  // {"sramecc", true}, {"xnack", false}

  // "-strict" names a stricter variant of a processor: LLVM's gfx1250-strict, the code object
  // target of gfx1250's A0 stepping, which lacks some of the B0's instructions (ROCm's device
  // libraries build it apart: no fp4/fp6 block16 converts, no wide fp4 WMMA, no TDM multicast).
  static constexpr std::string_view strict_suffix = "-strict";
  bool strict() const noexcept {
    return processor.size() > strict_suffix.size() &&
           std::string_view(processor).substr(processor.size() - strict_suffix.size()) ==
               strict_suffix;
  }
  // The processor without "-strict" (Triton's `base_arch`): "gfx1250" for "gfx1250-strict".
  std::string base_processor() const {
    return strict() ? processor.substr(0, processor.size() - strict_suffix.size()) : processor;
  }

  // Canonical "gfx90a:sramecc+:xnack-" (features in the order given, as ROCm prints them).
  std::string str() const {
    std::string s = processor;
    for (const auto& f : features) s += ":" + f.first + (f.second ? "+" : "-");
    return s;
  }
  const std::pair<std::string, bool>* feature(std::string_view name) const noexcept {
    for (const auto& f : features)
      if (f.first == name) return &f;
    return nullptr;
  }
};

// Accepts "gfx942", "hip:gfx90a", "gfx90a:sramecc+:xnack-" (a device's gcnArchName too).
inline std::optional<amd_arch> parse_amd_arch(std::string_view s) {
  detail::consume_prefix(s, "hip:");
  detail::consume_prefix(s, "amdgcn-amd-amdhsa--");  // full target triple form of a code object
  if (s.substr(0, 3) != "gfx" || s.size() < 4) return std::nullopt;
  amd_arch a;
  auto colon = s.find(':');
  a.processor = std::string(s.substr(0, colon));
  const std::string base = a.base_processor();
  if (base.size() < 4) return std::nullopt;
  for (char c : base.substr(3))
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return std::nullopt;
  while (colon != std::string_view::npos) {
    s.remove_prefix(colon + 1);
    colon = s.find(':');
    std::string_view f = s.substr(0, colon);
    if (f.size() < 2 || (f.back() != '+' && f.back() != '-')) return std::nullopt;
    a.features.emplace_back(std::string(f.substr(0, f.size() - 1)), f.back() == '+');
  }
  return a;
}

// Can a code object for `image` run on `device`? The device's name comes from gcnArchName, which
// lists the features actually in effect.
//
// The processor must be the same, "-strict" included, both ways. ROCr reports a gfx1250 A0 part
// as gfx1250-strict only when HSA_DISABLE_GFX12_STRICT=0, and then loads only gfx1250-strict code
// objects; otherwise (the default) it reports gfx1250 and loads only gfx1250 ones (ROCm's runtime
// documentation of that variable; hipBLASLt and Tensile key their A0 kernels the same way). So a
// strict image runs only where the device reports gfx1250-strict, and a gfx1250 image (which may
// use B0-only instructions) never does.
inline bool hsaco_runs_on(const amd_arch& image, const amd_arch& device,
                          std::string* why = nullptr) {
  if (image.processor != device.processor) {
    if (why) {
      *why = "code object for " + image.str() + " cannot run on " + device.str() +
             " (different gfx processor)";
      if (image.base_processor() == device.base_processor())
        *why += image.strict()
                    ? "; the HIP runtime reports " + image.processor + " only for " +
                          image.base_processor() + " A0 parts with HSA_DISABLE_GFX12_STRICT=0"
                    : "; the device runs only " + device.processor + " code objects";
    }
    return false;
  }
  for (const auto& f : image.features) {
    const auto* d = device.feature(f.first);
    if (!d || d->second != f.second) {
      if (why)
        *why = "code object for " + image.str() + " requires " + f.first + (f.second ? "+" : "-") +
               " but the device has " +
               (d ? f.first + (d->second ? "+" : "-") : f.first + " unsupported/unreported");
      return false;
    }
  }
  return true;
}

TRITONPACK_END_NAMESPACE
