// tritonpack/hip/driver.hpp — the HIP runtime, loaded once per process (dlopen + dlsym,
// hip/api.hpp's table): its version, its devices, and each device's gfx name read robustly.
//
// Shared by the launch path (hip/backend.hpp) and the memory and device API (hip/memory.hpp).
// HIP has no user-visible contexts (docs/hip-abi.md §2.5): each thread has a current device
// (0 until hipSetDevice), modules bind to the device current at load, and ROCm 7 refuses a launch
// whose stream belongs to another device. So the run time's "context" for HIP is the device.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tritonpack/core/dynlib.hpp"
#include "tritonpack/core/env.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/core/log.hpp"
#include "tritonpack/hip/api.hpp"
#include "tritonpack/runtime/backend.hpp"
#include "tritonpack/select/arch.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace hip {

// The device ordinal as the backend's context handle (never null: ordinal + 1).
inline void* device_handle(int ordinal) noexcept {
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(ordinal) + 1);
}
inline int handle_device(void* h) noexcept {
  return static_cast<int>(reinterpret_cast<std::uintptr_t>(h) - 1);
}

// Checks a gcnArchName read from a device-properties struct against the layout-free attributes
// (compute capability major/minor are the ISA's major and minor: gfx942 -> 9, 4; gfx90a -> 9, 0;
// gfx1100 -> 11, 0). `field` is the 256-byte field as read. nullopt when it is not a NUL-terminated
// gfx name of that major and minor: the layout guess was wrong, and nothing of it may be used.
inline std::optional<amd_arch> verified_gfx_name(const char* field, std::size_t size, int cc_major,
                                                 int cc_minor) {
  const void* nul = std::memchr(field, 0, size);
  if (!nul) return std::nullopt;
  auto a = parse_amd_arch(std::string(field));
  if (!a || a->base_processor().size() < 6)
    return std::nullopt;  // "gfx" + major + minor + stepping (+ "-strict")
  const std::string digits = a->base_processor().substr(3);
  const std::string major = digits.substr(0, digits.size() - 2);
  const char minor = digits[digits.size() - 2];
  for (char c : major)
    if (c < '0' || c > '9') return std::nullopt;
  if (minor < '0' || minor > '9') return std::nullopt;
  if (std::stoi(major) != cc_major || minor - '0' != cc_minor) return std::nullopt;
  return a;
}

class driver {
 public:
  api fn;
  std::string library;        // what dlopen opened
  std::uint32_t version = 0;  // hipDriverGetVersion, HIP_VERSION form
  int device_count = 0;
  dynlib lib;

  // "hipErrorNoDevice (100): no ROCm-capable device is detected" (ROCm 5 returns the name for
  // both calls, so the text is added only when it says more).
  std::string status(hipError_t r) const {
    const char* name = fn.hipGetErrorName ? fn.hipGetErrorName(r) : nullptr;
    const char* text = fn.hipGetErrorString ? fn.hipGetErrorString(r) : nullptr;
    std::string s = name ? name : "HIP error";
    s += " (" + std::to_string(r) + ")";
    if (text && (!name || std::strcmp(text, name) != 0)) s += std::string(": ") + text;
    return s;
  }

  void check(hipError_t r, const std::string& what, errc code = errc::driver_error) const {
    if (r == hipSuccess) return;
    if (r == hipErrorOutOfMemory) code = errc::out_of_memory;
    throw error(code, what + " failed: " + status(r), r);
  }

  std::string version_string() const {
    return "HIP " + hip_version_string(version);
  }  // "HIP 6.2.41133"

  int attribute(int dev, int a, const char* what) const {
    int v = 0;
    check(fn.hipDeviceGetAttribute(&v, a, dev),
          std::string("hipDeviceGetAttribute(") + what + ", device " + std::to_string(dev) + ")");
    return v;
  }

  // "AMD Instinct MI300X": the marketing name (hipDeviceGetName is not the gfx name).
  std::string device_name(int dev) const {
    char name[256] = {};
    check(fn.hipDeviceGetName(name, sizeof name - 1, dev),
          "hipDeviceGetName(device " + std::to_string(dev) + ")");
    return name;
  }

  // "gfx942:sramecc+:xnack-": gcnArchName, with the features in effect. No attribute returns it,
  // and hipDeviceProp_t changed layout in ROCm 6 (hip-abi.md §2.3): each layout whose filler the
  // library exports is tried, and a name is used only once the attributes confirm it.
  std::string arch(int dev) const {
    const int cc_major =
        attribute(dev, hipDeviceAttributeComputeCapabilityMajor, "ComputeCapabilityMajor");
    const int cc_minor =
        attribute(dev, hipDeviceAttributeComputeCapabilityMinor, "ComputeCapabilityMinor");
    std::string tried;
    for (const device_prop_layout* layout : {&prop_layout_r0600, &prop_layout_r0000}) {
      using props_fn = hipError_t (*)(void*, int);
      auto get = reinterpret_cast<props_fn>(lib.symbol(layout->symbol));
      if (!get) continue;
      // Larger than any layout, zeroed: a runtime writing a bigger struct than we think stays in
      // bounds.
      std::vector<char> buf(8192, 0);
      const hipError_t r = get(buf.data(), dev);
      if (r != hipSuccess) {
        tried += std::string(tried.empty() ? "" : "; ") + layout->symbol + ": " + status(r);
        continue;
      }
      if (auto a = verified_gfx_name(buf.data() + layout->gcn_arch_name, 256, cc_major, cc_minor))
        return a->str();
      tried += std::string(tried.empty() ? "" : "; ") + layout->symbol + ": no gfx" +
               std::to_string(cc_major) + std::to_string(cc_minor) + "x name at offset " +
               std::to_string(layout->gcn_arch_name);
    }
    throw error(errc::driver_error,
                "cannot read the gfx name of AMD device " + std::to_string(dev) + " from " +
                    library + " (" + version_string() + ", compute capability " +
                    std::to_string(cc_major) + "." + std::to_string(cc_minor) +
                    "): " + (tried.empty() ? "it exports no hipGetDeviceProperties" : tried) +
                    ". This HIP runtime's device-properties layout is not one the run time knows");
  }

  // Loads the runtime named by TRITONPACK_HIP_LIBRARY (not in a secure-execution process:
  // core/env.hpp), else libamdhip64.so, .so.7, .so.6, .so.5 (ROCm 5 only to say it is too old).
  // Throws no_driver / no_device with the full story.
  static std::unique_ptr<driver> load() {
    auto d = std::make_unique<driver>();
    const std::string forced = env::get(env::hip_library);
    const bool ignored = env::ignored(env::hip_library);
    if (ignored) log::line(env::ignored_text(env::hip_library) + "; opening the system's ROCm");
    const std::vector<std::string> names =
        forced.empty() ? std::vector<std::string>{"libamdhip64.so", "libamdhip64.so.7",
                                                  "libamdhip64.so.6", "libamdhip64.so.5"}
                       : std::vector<std::string>{forced};
    std::string tried;
    d->lib = dynlib::open_first(names, tried);
    if (!d->lib)
      throw error(errc::no_driver,
                  "no AMD HIP runtime: " + tried +
                      (ignored ? ". " + env::ignored_text(env::hip_library) +
                                     "; install ROCm 6 or newer where the system finds it"
                       : forced.empty() ? ". Install ROCm 6 or newer (libamdhip64), or set "
                                          "TRITONPACK_HIP_LIBRARY to the path of libamdhip64.so"
                                        : std::string(". TRITONPACK_HIP_LIBRARY names this path; "
                                                      "unset it to use the system's ROCm")));
    d->library = d->lib.name();
    d->fn.hipGetErrorName =
        reinterpret_cast<const char* (*)(hipError_t)>(d->lib.symbol("hipGetErrorName"));
    d->fn.hipGetErrorString =
        reinterpret_cast<const char* (*)(hipError_t)>(d->lib.symbol("hipGetErrorString"));
    // hipDriverGetVersion succeeds even without a GPU (HIP_INIT_API_NO_RETURN), so the version is
    // known before anything can fail for lack of one.
    using version_fn = hipError_t (*)(int*);
    if (auto v = reinterpret_cast<version_fn>(d->lib.symbol("hipDriverGetVersion"))) {
      int ver = 0;
      if (v(&ver) == hipSuccess && ver > 0) d->version = static_cast<std::uint32_t>(ver);
    }
    const std::string who = d->library + (d->version ? ", " + d->version_string() : std::string());
    const bool too_old =
        d->version != 0 && d->version < static_cast<std::uint32_t>(min_runtime_version);
    const std::string too_old_text = "the HIP runtime at " + who +
                                     " is too old for Triton 3.6's code objects (code object v5; "
                                     "Triton itself requires HIP 6.0 or newer)."
                                     " Install ROCm 6 or newer";

    std::string missing;
#define TRITONPACK_HIP_RESOLVE_REQUIRED(name, params)                        \
  d->fn.name = reinterpret_cast<decltype(d->fn.name)>(d->lib.symbol(#name)); \
  if (!d->fn.name) missing += std::string(missing.empty() ? "" : ", ") + #name;
#define TRITONPACK_HIP_RESOLVE_OPTIONAL(name, params) \
  d->fn.name = reinterpret_cast<decltype(d->fn.name)>(d->lib.symbol(#name));
    TRITONPACK_HIP_REQUIRED(TRITONPACK_HIP_RESOLVE_REQUIRED)
    TRITONPACK_HIP_OPTIONAL(TRITONPACK_HIP_RESOLVE_OPTIONAL)
#undef TRITONPACK_HIP_RESOLVE_REQUIRED
#undef TRITONPACK_HIP_RESOLVE_OPTIONAL
    if (!missing.empty())
      throw error(errc::no_driver, (too_old ? too_old_text + "; it" : "the HIP runtime at " + who) +
                                       " lacks required entry points: " + missing);

    // Without a usable GPU, ROCm's init fails (hipErrorInvalidDevice) or finds none
    // (hipErrorNoDevice); hipGetDeviceCount then reports 0 either way.
    const hipError_t init = d->fn.hipInit(0);
    int count = 0;
    const hipError_t rc = d->fn.hipGetDeviceCount(&count);
    if (init != hipSuccess || rc != hipSuccess || count <= 0) {
      const hipError_t r = init != hipSuccess ? init : rc;
      throw error(errc::no_device,
                  "the AMD HIP runtime is installed (" + who +
                      ") but reports no AMD GPU (hipInit: " + d->status(init) +
                      ", hipGetDeviceCount: " +
                      (rc == hipSuccess ? std::to_string(count) + " devices" : d->status(rc)) +
                      "). Check that this node has an AMD GPU (rocm-smi), that this user may open "
                      "/dev/kfd and /dev/dri "
                      "(groups video, render), and that HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES "
                      "do not hide it" +
                      (too_old ? "; besides, " + too_old_text : std::string()),
                  r);
    }
    if (too_old) throw error(errc::no_driver, too_old_text);
    d->device_count = count;
    detail::register_exit_handler();
    if (log::enabled())
      log::line("HIP runtime " + who + ", " + std::to_string(count) + " device(s)");
    return d;
  }
};

// Makes `dev` the calling thread's device for the scope and restores the previous one: loads and
// unloads may run on a thread whose device is another (a library's destructor, for one).
class scoped_device {
 public:
  scoped_device(const driver& d, int dev) : d_(d) {
    if (d.fn.hipGetDevice(&previous_) == hipSuccess && previous_ != dev) {
      d.check(d.fn.hipSetDevice(dev), "hipSetDevice(" + std::to_string(dev) + ")");
      switched_ = true;
    }
  }
  ~scoped_device() {
    if (switched_) d_.fn.hipSetDevice(previous_);
  }
  scoped_device(const scoped_device&) = delete;
  scoped_device& operator=(const scoped_device&) = delete;

 private:
  const driver& d_;
  int previous_ = 0;
  bool switched_ = false;
};

}  // namespace hip
TRITONPACK_END_NAMESPACE
