// fake_hip.cpp — a test-double HIP runtime (libamdhip64), loaded by the run time through the same
// dlopen path as the real one (TRITONPACK_HIP_LIBRARY). It exports HIP's C entry points with their
// exact signatures and enum values (docs/hip-abi.md §2.1, §2.2) and behaves like the runtime, and
// like a GPU, where a loader's correctness depends on it:
//   * code objects are read as the runtime reads them (code_object.hpp): a corrupt one is refused,
//     one for another gfx or with xnack/sramecc settings the device lacks does not load;
//   * modules bind to the calling thread's current device (hipSetDevice; default 0), as in ROCm;
//   * every launch is checked against the kernel's own metadata (launch_check.hpp) and recorded
//     with its kernarg bytes; a refused launch fails with the runtime's code and a precise reason;
//   * memory is host memory (copies round-trip; tests read what a kernel "got"), counted per device
//     against a capacity; copies check their kind and device ranges; streams are tracked;
//   * any entry can be made to fail (TRITONPACK_FAKE_HIP_FAIL); built with TP_FAKE_HIP_ROCM5 it
//     lacks the entry points ROCm 5.2 lacks (hipGetProcAddress, hipGetDevicePropertiesR0600,
//     hipModuleLaunchCooperativeKernel, hipDrvLaunchKernelEx, hipDrvGetErrorName/String).
// Configuration and inspection: fake_hip_control.h.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "../fake_common.hpp"
#include "code_object.hpp"
#include "fake_hip_control.h"
#include "launch_check.hpp"

#define TP_EXPORT extern "C" __attribute__((visibility("default")))

using hipError_t = int;
struct ihipModule_t;
struct ihipModuleSymbol_t;
struct ihipStream_t;
struct ihipEvent_t {
  int device = 0;
};
struct ihipCtx_t;

namespace {

// hipError_t (docs/hip-abi.md §2.2).
enum : int {
  OK = 0,
  INVALID_VALUE = 1,
  OUT_OF_MEMORY = 2,
  INVALID_CONFIGURATION = 9,
  INVALID_DEVICE_FUNCTION = 98,
  NO_DEVICE = 100,
  INVALID_DEVICE = 101,
  NO_BINARY_FOR_GPU = 209,
  INVALID_KERNEL_FILE = 218,
  INVALID_HANDLE = 400,
  NOT_FOUND = 500,
  CONTEXT_IS_DESTROYED = 709,
  LAUNCH_FAILURE = 719,
  COOPERATIVE_LAUNCH_TOO_LARGE = 720,
  NOT_SUPPORTED = 801,
};

#ifdef TP_FAKE_HIP_ROCM5
constexpr int default_version = 50221153;
#else
constexpr int default_version = 70125424;
#endif

struct device {
  std::string arch_name;  // gcnArchName, e.g. "gfx942:sramecc+:xnack-"
  // What the device-properties structs carry at gcnArchName (default arch_name): another string
  // models a runtime whose struct layout a loader misreads (the attributes still say the gfx).
  std::string props_arch_name;
  std::string gfx;        // "gfx942"
  tpfakehip::feature xnack = tpfakehip::feature::unsupported, sramecc = tpfakehip::feature::unsupported;
  unsigned lds = 65536, cu = 96, wave = 64;
  bool coop = true;
  std::string name;
  std::size_t memory = std::size_t{64} << 30;
  std::size_t used = 0;
  int major = 0, minor = 0, stepping = 0;
};

}  // namespace

struct ihipModule_t {
  int device = 0;
  tpfakehip::code_object co;
  std::vector<std::unique_ptr<ihipModuleSymbol_t>> funcs;
};
struct ihipModuleSymbol_t {
  const tpfakehip::kernel_meta* meta = nullptr;
  ihipModule_t* module = nullptr;
};
struct ihipStream_t {
  int device = 0;
  unsigned flags = 0;
  int capturing = 0;  // tpfakehip_set_capturing: hipStreamIsCapturing reports Active (1)
};

namespace {

struct fake_state {
  std::mutex mutex;
  bool configured = false;
  std::vector<device> devices;
  int version = default_version;
  tpfake_common::failure_plan fail;
  std::set<std::string> missing;
  std::map<std::string, std::size_t> calls;
  std::vector<tpfakehip_launch_record> launches;
  std::size_t rejected = 0;
  std::vector<tpfakehip_load_record> loads;
  std::string last_error;
  struct allocation {
    std::size_t size;
    int device;
  };
  std::map<std::uintptr_t, allocation> allocations;
  std::set<ihipStream_t*> streams;
  std::map<std::string, ihipStream_t*> last_stream;  // per entry taking a stream: the latest accepted one
  std::set<ihipModule_t*> modules;
};

fake_state& S() {
  static fake_state* s = new fake_state();  // leaked: usable during exit
  return *s;
}

thread_local int t_device = 0;
thread_local int t_capture_mode = 0;  // hipStreamCaptureMode: 0 global (the default), 2 relaxed
thread_local int t_last_error = OK;

using tpfake_common::range_kind;
using tpfake_common::split;

// "gfx942:sramecc+:xnack-" -> gfx, features, major/minor/stepping (gfx942: 9.4.2, gfx90a: 9.0.a,
// gfx1100: 11.0.0), defaults by family.
device parse_device(const std::string& spec) {
  const auto parts = split(spec, '/');
  device d;
  d.arch_name = parts[0];
  const auto feats = split(parts[0], ':');
  d.gfx = feats[0];
  for (std::size_t i = 1; i < feats.size(); ++i) {
    const std::string& f = feats[i];
    if (f.size() < 2) continue;
    const auto setting = f.back() == '+' ? tpfakehip::feature::on : tpfakehip::feature::off;
    if (f.compare(0, f.size() - 1, "xnack") == 0) d.xnack = setting;
    if (f.compare(0, f.size() - 1, "sramecc") == 0) d.sramecc = setting;
  }
  // "gfx1250-strict" (ROCr's name for a gfx1250 A0 with HSA_DISABLE_GFX12_STRICT=0): gfx1250's
  // numbers; the code objects it loads are gfx1250-strict ones only (the gfx name compares whole).
  std::string base = d.gfx;
  if (base.size() > 7 && base.compare(base.size() - 7, 7, "-strict") == 0) base.resize(base.size() - 7);
  const std::string digits = base.size() > 3 ? base.substr(3) : "";
  if (digits.size() == 3) {
    d.major = digits[0] - '0';
    d.minor = digits[1] - '0';
    d.stepping = static_cast<int>(std::strtol(digits.substr(2).c_str(), nullptr, 16));
  } else if (digits.size() == 4) {
    d.major = std::atoi(digits.substr(0, 2).c_str());
    d.minor = digits[2] - '0';
    d.stepping = static_cast<int>(std::strtol(digits.substr(3).c_str(), nullptr, 16));
  }
  d.wave = d.major == 9 ? 64 : 32;
  if (d.gfx == "gfx942") d.cu = 304, d.name = "AMD Instinct MI300X";
  if (d.gfx == "gfx90a") d.cu = 104, d.name = "AMD Instinct MI250X";
  if (d.gfx == "gfx908") d.cu = 120, d.name = "AMD Instinct MI100";
  if (d.gfx == "gfx950") d.cu = 256, d.lds = 163840, d.name = "AMD Instinct MI355X";
  if (d.name.empty()) d.name = "Fake AMD GPU " + d.gfx;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const auto kv = split(parts[i], '=');
    if (kv.size() != 2) continue;
    if (kv[0] == "lds") d.lds = static_cast<unsigned>(std::strtoul(kv[1].c_str(), nullptr, 10));
    if (kv[0] == "cu") d.cu = static_cast<unsigned>(std::strtoul(kv[1].c_str(), nullptr, 10));
    if (kv[0] == "wave") d.wave = static_cast<unsigned>(std::strtoul(kv[1].c_str(), nullptr, 10));
    if (kv[0] == "name") d.name = kv[1];
    if (kv[0] == "propsname") d.props_arch_name = kv[1];
    if (kv[0] == "mem") d.memory = static_cast<std::size_t>(std::strtoull(kv[1].c_str(), nullptr, 10));
    if (kv[0] == "coop") d.coop = kv[1] == "1";
  }
  return d;
}

void configure_locked(const char* devices, int version, const char* fail, const char* missing) {
  fake_state& s = S();
  auto env = [](const char* n, const char* dflt) {
    const char* v = std::getenv(n);
    return std::string(v ? v : dflt);
  };
  const std::string dev = devices ? devices : env("TRITONPACK_FAKE_HIP_DEVICES", "gfx942:sramecc+:xnack-");
  const std::string ver = version ? std::to_string(version) : env("TRITONPACK_FAKE_HIP_VERSION", std::to_string(default_version).c_str());
  const std::string fl = fail ? fail : env("TRITONPACK_FAKE_HIP_FAIL", "");
  const std::string ms = missing ? missing : env("TRITONPACK_FAKE_HIP_MISSING", "");
  for (auto* m : s.modules) delete m;
  s.modules.clear();
  for (auto* st : s.streams) delete st;
  s.streams.clear();
  s.last_stream.clear();
  for (auto& a : s.allocations) std::free(reinterpret_cast<void*>(a.first));
  s.allocations.clear();
  s.devices.clear();
  s.missing.clear();
  s.calls.clear();
  s.launches.clear();
  s.rejected = 0;
  s.loads.clear();
  s.last_error.clear();
  s.version = std::atoi(ver.c_str());
  if (!dev.empty() && dev != "none")
    for (const auto& spec : split(dev, ',')) s.devices.push_back(parse_device(spec));
  s.fail = tpfake_common::parse_failures(fl);
  if (!ms.empty())
    for (const auto& m : split(ms, ',')) s.missing.insert(m);
  s.configured = true;
}

// Counts the call and returns an injected failure, if any. Caller holds the lock.
int enter(const char* name) {
  fake_state& s = S();
  if (!s.configured) configure_locked(nullptr, 0, nullptr, nullptr);
  return tpfake_common::injected(s.fail, name, ++s.calls[name]);
}

// HIP keeps the last error per thread (hipGetLastError); every failing call sets it.
int ret(int code) {
  if (code != OK) t_last_error = code;
  return code;
}
int refuse(int code, const std::string& why) {
  S().last_error = why;
  return ret(code);
}

#define ENTER(name)                             \
  std::lock_guard<std::mutex> lock_(S().mutex); \
  if (int injected_ = enter(#name)) return ret(injected_);
// Without a usable GPU, ROCm's init fails and every API returns hipErrorInvalidDevice (§3.3).
#define NEED_GPU() \
  if (S().devices.empty()) return ret(INVALID_DEVICE);

bool valid_device(int d) { return d >= 0 && static_cast<std::size_t>(d) < S().devices.size(); }
device& current() { return S().devices[static_cast<std::size_t>(t_device)]; }

bool is_special_stream(ihipStream_t* s) { return reinterpret_cast<std::uintptr_t>(s) <= 2; }  // NULL, hipStreamPerThread
// An unknown stream: hipErrorContextIsDestroyed in ROCm 7, hipErrorInvalidValue before (§2.5).
int bad_stream() { return S().version >= 70000000 ? CONTEXT_IS_DESTROYED : INVALID_VALUE; }
bool known_stream(ihipStream_t* s) { return is_special_stream(s) || S().streams.count(s) != 0; }

// The device of the allocation holding address p, -1 if none.
int device_of(std::uint64_t p) {
  if (tpfake_common::classify(S().allocations, p, 1) != range_kind::device) return -1;
  return std::prev(S().allocations.upper_bound(static_cast<std::uintptr_t>(p)))->second.device;
}
range_kind classify(const void* ptr, std::size_t n) {
  return tpfake_common::classify(S().allocations, reinterpret_cast<std::uintptr_t>(ptr), n);
}

std::string hex(const void* p) {
  char b[24];
  std::snprintf(b, sizeof b, "%p", p);
  return b;
}

// A code object's xnack / sramecc setting against the device's: "any" loads everywhere; "on"/"off"
// need the device to have the feature in that state; "unsupported" needs an ISA without it.
bool feature_fits(tpfakehip::feature object, tpfakehip::feature dev) {
  using tpfakehip::feature;
  if (object == feature::any) return true;
  if (object == feature::unsupported) return dev == feature::unsupported;
  return object == dev;
}

int load_module(ihipModule_t** out, const void* image) {
  fake_state& s = S();
  tpfakehip_load_record rec{};
  rec.device = t_device;
  auto finish = [&](int code, const std::string& why) {
    rec.result = code;
    std::snprintf(rec.reason, sizeof rec.reason, "%s", why.c_str());
    s.loads.push_back(rec);
    return code ? refuse(code, "hipModuleLoadData: " + why) : OK;
  };
  if (!out || !image) return finish(INVALID_VALUE, "NULL module or image pointer");
  const auto* b = static_cast<const std::uint8_t*>(image);
  if (std::memcmp(b, "__CLANG_OFFLOAD_BUNDLE__", 24) == 0)
    return finish(INVALID_KERNEL_FILE, "a clang offload bundle: the double reads plain code objects only");
  // Like the runtime, find the image's extent from its own headers (no size is passed).
  const std::size_t extent = tpfakehip::elf_extent(b, std::size_t{1} << 28);
  if (!extent) return finish(INVALID_KERNEL_FILE, "corrupt code object: no usable ELF64 header and section table");
  auto mod = std::make_unique<ihipModule_t>();
  mod->device = t_device;
  std::string why;
  const bool ok = tpfakehip::read_code_object(b, extent, mod->co, why);
  std::snprintf(rec.gfx, sizeof rec.gfx, "%s", mod->co.gfx.c_str());
  rec.e_flags = mod->co.e_flags;
  rec.abi_version = mod->co.abi_version;
  if (!ok) return finish(INVALID_KERNEL_FILE, why);
  rec.num_kernels = static_cast<unsigned>(mod->co.kernels.size());
  const device& d = current();
  if (mod->co.gfx != d.gfx || !feature_fits(mod->co.xnack, d.xnack) || !feature_fits(mod->co.sramecc, d.sramecc))
    return finish(NO_BINARY_FOR_GPU, "the code object is for " + mod->co.describe() + "; device " +
                                         std::to_string(t_device) + " is " + d.arch_name);
  for (const auto& k : mod->co.kernels) {
    auto f = std::make_unique<ihipModuleSymbol_t>();
    f->meta = &k;
    f->module = mod.get();
    mod->funcs.push_back(std::move(f));
  }
  *out = mod.get();
  s.modules.insert(mod.release());
  return finish(OK, "");
}

bool live_function(ihipModuleSymbol_t* f) { return f && S().modules.count(f->module) != 0; }

int do_launch(ihipModuleSymbol_t* f, const tpfakehip::launch_request& r, ihipStream_t* stream, int via, bool coop,
              const char* entry) {
  fake_state& s = S();
  const std::string who = std::string(entry) + "(" + (live_function(f) ? f->meta->name : std::string("?")) + "): ";
  auto reject = [&](int code, const std::string& why) {
    ++s.rejected;
    return refuse(code, who + why);
  };
  if (!live_function(f)) return reject(INVALID_HANDLE, "not a function of a loaded module");
  if (f->module->device != t_device)
    return reject(INVALID_DEVICE_FUNCTION, "the module was loaded on device " + std::to_string(f->module->device) +
                                               ", the current device is " + std::to_string(t_device) + " (hipSetDevice first)");
  if (!known_stream(stream)) return reject(bad_stream(), "unknown stream " + hex(stream));
  if (!is_special_stream(stream) && stream->device != t_device)
    return reject(INVALID_HANDLE, "the stream belongs to device " + std::to_string(stream->device) +
                                      ", the current device is " + std::to_string(t_device));
  const device& d = current();
  const tpfakehip::kernel_meta& k = *f->meta;
  const tpfakehip::launch_verdict v = tpfakehip::check_launch(k, r, t_device, d.lds, device_of);
  if (v.code) return reject(v.code, v.reason);
  if (coop) {
    if (!d.coop) return reject(NOT_SUPPORTED, "the device has no cooperative launch");
    const std::uint64_t per_cu = 2048 / (std::uint64_t{r.block[0]} * r.block[1] * r.block[2]);
    const std::uint64_t blocks = std::uint64_t{r.grid[0]} * r.grid[1] * r.grid[2];
    if (blocks > per_cu * d.cu)
      return reject(COOPERATIVE_LAUNCH_TOO_LARGE, std::to_string(blocks) + " blocks cannot all be resident (at most " +
                                                      std::to_string(per_cu * d.cu) + ")");
  }
  const auto args = k.explicit_args();
  if (args.size() > TPFAKEHIP_MAX_ARGS || v.kernarg.size() > TPFAKEHIP_MAX_KERNARG)
    return reject(INVALID_VALUE, "more arguments than the double records");
  tpfakehip_launch_record rec{};
  std::snprintf(rec.name, sizeof rec.name, "%s", k.name.c_str());
  rec.device = t_device;
  std::copy(r.grid, r.grid + 3, rec.grid);
  std::copy(r.block, r.block + 3, rec.block);
  rec.shared = r.shared;
  rec.stream = stream;
  rec.via = via;
  rec.via_extra = v.via_extra ? 1 : 0;
  rec.cooperative = coop ? 1 : 0;
  rec.num_args = static_cast<unsigned>(args.size());
  for (std::size_t i = 0; i < args.size(); ++i) {
    rec.arg_offset[i] = static_cast<unsigned>(args[i]->offset);
    rec.arg_size[i] = static_cast<unsigned>(args[i]->size);
    rec.arg_is_pointer[i] = args[i]->value_kind == "global_buffer" ? 1 : 0;
  }
  rec.kernarg_size = static_cast<unsigned>(v.kernarg.size());
  rec.kernarg_segment_size = static_cast<unsigned>(k.kernarg_segment_size);
  if (!v.kernarg.empty()) std::memcpy(rec.kernarg, v.kernarg.data(), v.kernarg.size());
  s.launches.push_back(rec);
  return OK;
}

tpfakehip::launch_request request(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                                  unsigned shared, void** params, void** extra) {
  tpfakehip::launch_request r;
  r.grid[0] = gx, r.grid[1] = gy, r.grid[2] = gz;
  r.block[0] = bx, r.block[1] = by, r.block[2] = bz;
  r.shared = shared;
  r.params = params;
  r.extra = extra;
  return r;
}

const char* error_name(int e) {
  switch (e) {
    case 0: return "hipSuccess";
    case 1: return "hipErrorInvalidValue";
    case 2: return "hipErrorOutOfMemory";
    case 3: return "hipErrorNotInitialized";
    case 9: return "hipErrorInvalidConfiguration";
    case 13: return "hipErrorInvalidSymbol";
    case 35: return "hipErrorInsufficientDriver";
    case 98: return "hipErrorInvalidDeviceFunction";
    case 100: return "hipErrorNoDevice";
    case 101: return "hipErrorInvalidDevice";
    case 200: return "hipErrorInvalidImage";
    case 201: return "hipErrorInvalidContext";
    case 209: return "hipErrorNoBinaryForGpu";
    case 218: return "hipErrorInvalidKernelFile";
    case 302: return "hipErrorSharedObjectSymbolNotFound";
    case 400: return "hipErrorInvalidHandle";
    case 500: return "hipErrorNotFound";
    case 600: return "hipErrorNotReady";
    case 700: return "hipErrorIllegalAddress";
    case 701: return "hipErrorLaunchOutOfResources";
    case 709: return "hipErrorContextIsDestroyed";
    case 719: return "hipErrorLaunchFailure";
    case 720: return "hipErrorCooperativeLaunchTooLarge";
    case 801: return "hipErrorNotSupported";
    case 900: return "hipErrorStreamCaptureUnsupported";
    default: return "hipErrorUnknown";
  }
}
// ROCm >= 6 returns prose (clr hip_error.cpp); ROCm 5.2.3 returns the enum name (measured, §2.5).
const char* error_string(int e) {
#ifndef TP_FAKE_HIP_ROCM5
  switch (e) {
    case 0: return "no error";
    case 1: return "invalid argument";
    case 2: return "out of memory";
    case 98: return "invalid device function";
    case 100: return "no ROCm-capable device is detected";
    case 101: return "invalid device ordinal";
    case 209: return "no kernel image is available for execution on the device";
    case 218: return "invalid kernel file";
    case 400: return "invalid resource handle";
    case 500: return "named symbol not found";
    case 719: return "unspecified launch failure";
    default: break;
  }
#endif
  return error_name(e);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Control interface

TP_EXPORT void tpfakehip_configure(const char* devices, int version, const char* fail, const char* missing) {
  std::lock_guard<std::mutex> lock(S().mutex);
  configure_locked(devices, version, fail, missing);
  t_device = 0;
  t_last_error = OK;
}
TP_EXPORT size_t tpfakehip_launch_count(void) {
  std::lock_guard<std::mutex> lock(S().mutex);
  return S().launches.size();
}
TP_EXPORT int tpfakehip_get_launch(size_t i, tpfakehip_launch_record* out) {
  std::lock_guard<std::mutex> lock(S().mutex);
  if (i >= S().launches.size() || !out) return 1;
  *out = S().launches[i];
  return 0;
}
TP_EXPORT size_t tpfakehip_rejected_launch_count(void) {
  std::lock_guard<std::mutex> lock(S().mutex);
  return S().rejected;
}
TP_EXPORT void tpfakehip_clear_launches(void) {
  std::lock_guard<std::mutex> lock(S().mutex);
  S().launches.clear();
  S().rejected = 0;
}
// TRITONPACK_FAKE_HIP_REPORT=<path>: at exit, the accepted launches (per kernel), the refused ones
// and the code-object loads, for tests that run a whole program (examples/quickstart) on the double.
__attribute__((destructor)) static void write_exit_report() {
  std::lock_guard<std::mutex> lock(S().mutex);
  std::size_t refused_loads = 0;
  for (const auto& l : S().loads) refused_loads += l.result != OK;
  tpfake_common::write_report("TRITONPACK_FAKE_HIP_REPORT",
                              tpfake_common::launch_report(S().launches) + "rejected " + std::to_string(S().rejected) +
                                  "\nloads " + std::to_string(S().loads.size()) + "\nrefused_loads " +
                                  std::to_string(refused_loads) + "\n");
}
TP_EXPORT size_t tpfakehip_load_count(void) {
  std::lock_guard<std::mutex> lock(S().mutex);
  return S().loads.size();
}
TP_EXPORT int tpfakehip_get_load(size_t i, tpfakehip_load_record* out) {
  std::lock_guard<std::mutex> lock(S().mutex);
  if (i >= S().loads.size() || !out) return 1;
  *out = S().loads[i];
  return 0;
}
TP_EXPORT size_t tpfakehip_last_error(char* buf, size_t size) {
  std::lock_guard<std::mutex> lock(S().mutex);
  const std::string& e = S().last_error;
  if (buf && size) std::snprintf(buf, size, "%s", e.c_str());
  return e.size();
}
TP_EXPORT size_t tpfakehip_calls(const char* entry) {
  std::lock_guard<std::mutex> lock(S().mutex);
  auto it = S().calls.find(entry);
  return it == S().calls.end() ? 0 : it->second;
}
TP_EXPORT size_t tpfakehip_live_allocations(void) {
  std::lock_guard<std::mutex> lock(S().mutex);
  return S().allocations.size();
}
TP_EXPORT size_t tpfakehip_live_modules(void) {
  std::lock_guard<std::mutex> lock(S().mutex);
  return S().modules.size();
}
TP_EXPORT size_t tpfakehip_live_streams(void) {
  std::lock_guard<std::mutex> lock(S().mutex);
  return S().streams.size();
}
TP_EXPORT int tpfakehip_current_device(void) { return t_device; }
TP_EXPORT int tpfakehip_allocation_device(const void* p) {
  std::lock_guard<std::mutex> lock(S().mutex);
  return device_of(reinterpret_cast<std::uintptr_t>(p));
}
TP_EXPORT size_t tpfakehip_allocation_bytes_from(const void* p) {
  std::lock_guard<std::mutex> lock(S().mutex);
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  if (device_of(a) < 0) return 0;
  const auto it = std::prev(S().allocations.upper_bound(a));
  return it->first + it->second.size - a;
}
TP_EXPORT int tpfakehip_stream_device(void* s) {
  std::lock_guard<std::mutex> lock(S().mutex);
  auto* st = static_cast<ihipStream_t*>(s);
  return S().streams.count(st) ? st->device : -1;
}
TP_EXPORT int tpfakehip_stream_flags(void* s) {
  std::lock_guard<std::mutex> lock(S().mutex);
  auto* st = static_cast<ihipStream_t*>(s);
  return S().streams.count(st) ? static_cast<int>(st->flags) : -1;
}
TP_EXPORT void* tpfakehip_last_stream(const char* entry) {
  std::lock_guard<std::mutex> lock(S().mutex);
  auto it = S().last_stream.find(entry);
  return it == S().last_stream.end() ? reinterpret_cast<void*>(~std::uintptr_t{0}) : it->second;
}
TP_EXPORT int tpfakehip_read_code_object(const void* data, size_t size, char* why, size_t why_size) {
  tpfakehip::code_object co;
  std::string w;
  const bool ok = tpfakehip::read_code_object(static_cast<const std::uint8_t*>(data), size, co, w);
  if (why && why_size) std::snprintf(why, why_size, "%s", w.c_str());
  return ok ? static_cast<int>(co.kernels.size()) : -1;
}

// ---------------------------------------------------------------------------------------------
// Versions, errors, devices

TP_EXPORT hipError_t hipDriverGetVersion(int* v) {
  ENTER(hipDriverGetVersion);  // succeeds without a GPU (HIP_INIT_API_NO_RETURN)
  if (!v) return ret(INVALID_VALUE);
  *v = S().version;
  return OK;
}
TP_EXPORT hipError_t hipRuntimeGetVersion(int* v) {
  ENTER(hipRuntimeGetVersion);
  if (!v) return ret(INVALID_VALUE);
  *v = S().version;
  return OK;
}
TP_EXPORT hipError_t hipInit(unsigned int flags) {
  ENTER(hipInit);
  NEED_GPU();
  return ret(flags != 0 ? INVALID_VALUE : OK);
}
TP_EXPORT const char* hipGetErrorName(hipError_t e) { return error_name(e); }
TP_EXPORT const char* hipGetErrorString(hipError_t e) { return error_string(e); }
#ifndef TP_FAKE_HIP_ROCM5
TP_EXPORT hipError_t hipDrvGetErrorName(hipError_t e, const char** s) {
  if (!s) return INVALID_VALUE;
  *s = error_name(e);
  return OK;
}
TP_EXPORT hipError_t hipDrvGetErrorString(hipError_t e, const char** s) {
  if (!s) return INVALID_VALUE;
  *s = error_string(e);
  return OK;
}
#endif
TP_EXPORT hipError_t hipGetLastError(void) {
  const int e = t_last_error;
  t_last_error = OK;
  return e;
}
TP_EXPORT hipError_t hipPeekAtLastError(void) { return t_last_error; }
TP_EXPORT hipError_t hipGetDeviceCount(int* n) {
  ENTER(hipGetDeviceCount);
  if (!n) return ret(INVALID_VALUE);
  *n = static_cast<int>(S().devices.size());
  return S().devices.empty() ? ret(NO_DEVICE) : OK;
}
TP_EXPORT hipError_t hipDeviceGet(int* d, int ordinal) {
  ENTER(hipDeviceGet);
  NEED_GPU();
  if (!d) return ret(INVALID_VALUE);
  if (!valid_device(ordinal)) return ret(INVALID_DEVICE);
  *d = ordinal;
  return OK;
}
TP_EXPORT hipError_t hipSetDevice(int d) {
  ENTER(hipSetDevice);
  NEED_GPU();
  if (!valid_device(d)) return ret(INVALID_DEVICE);
  t_device = d;
  return OK;
}
TP_EXPORT hipError_t hipGetDevice(int* d) {
  ENTER(hipGetDevice);
  NEED_GPU();
  if (!d) return ret(INVALID_VALUE);
  *d = t_device;
  return OK;
}
TP_EXPORT hipError_t hipDeviceComputeCapability(int* major, int* minor, int dev) {
  ENTER(hipDeviceComputeCapability);
  NEED_GPU();
  if (!valid_device(dev)) return ret(INVALID_DEVICE);
  if (!major || !minor) return ret(INVALID_VALUE);
  *major = S().devices[static_cast<std::size_t>(dev)].major;
  *minor = S().devices[static_cast<std::size_t>(dev)].minor;
  return OK;
}
// The marketing name (boardName), not the gfx name (§2.3).
TP_EXPORT hipError_t hipDeviceGetName(char* name, int len, int dev) {
  ENTER(hipDeviceGetName);
  NEED_GPU();
  if (!valid_device(dev)) return ret(INVALID_DEVICE);
  if (!name || len <= 0) return ret(INVALID_VALUE);
  std::snprintf(name, static_cast<std::size_t>(len), "%s", S().devices[static_cast<std::size_t>(dev)].name.c_str());
  return OK;
}
// hipDeviceAttribute_t values (§2.2). An attribute the double does not model is refused with a
// reason rather than answered with a made-up 0.
TP_EXPORT hipError_t hipDeviceGetAttribute(int* v, int attr, int dev) {
  ENTER(hipDeviceGetAttribute);
  NEED_GPU();
  if (!valid_device(dev)) return ret(INVALID_DEVICE);
  if (!v) return ret(INVALID_VALUE);
  const device& d = S().devices[static_cast<std::size_t>(dev)];
  switch (attr) {
    case 5: *v = 2100000; break;                       // ClockRate (kHz)
    case 10: *v = d.coop ? 1 : 0; break;               // CooperativeLaunch
    case 23: *v = d.major; break;                      // ComputeCapabilityMajor
    case 26: case 27: case 28: *v = 1024; break;       // MaxBlockDimX/Y/Z
    case 29: *v = 0x7fffffff; break;                   // MaxGridDimX
    case 30: case 31: *v = 65536; break;               // MaxGridDimY/Z
    case 56: *v = 1024; break;                         // MaxThreadsPerBlock
    case 57: *v = 2048; break;                         // MaxThreadsPerMultiProcessor
    case 61: *v = d.minor; break;                      // ComputeCapabilityMinor
    case 63: case 10015: *v = static_cast<int>(d.cu); break;  // MultiprocessorCount, Physical...
    case 71: *v = 65536; break;                        // MaxRegistersPerBlock
    case 74: case 75: case 10002: *v = static_cast<int>(d.lds); break;  // shared memory per block / optin / per CU
    case 87: *v = static_cast<int>(d.wave); break;     // WarpSize
    case 10016: *v = 1; break;                         // FineGrainSupport
    default:
      return refuse(INVALID_VALUE, "hipDeviceGetAttribute: attribute " + std::to_string(attr) + " is not modelled by the double");
  }
  return OK;
}

namespace {
// Fills a hipDeviceProp_t of either layout (offsets measured with gcc against HIP 7.1's headers,
// hip_runtime_api.h R0600 and hip_deprecated.h R0000; §2.3).
struct prop_layout {
  std::size_t size, totalGlobalMem, sharedMemPerBlock, regsPerBlock, warpSize, maxThreadsPerBlock, maxThreadsDim,
      maxGridSize, clockRate, memoryClockRate, memoryBusWidth, totalConstMem, major, minor, multiProcessorCount,
      l2CacheSize, maxThreadsPerMultiProcessor, cooperativeLaunch, maxSharedMemoryPerMultiProcessor, gcnArchName;
};
constexpr prop_layout layout_r0000 = {792, 256, 264, 272, 276, 280, 284, 296, 308, 312, 316, 320, 328, 332, 336, 340, 344, 656, 376, 396};
constexpr prop_layout layout_r0600 = {1472, 288, 296, 304, 308, 320, 324, 336, 348, 608, 612, 352, 360, 364, 388, 616, 624, 688, 1416, 1160};

template <class T>
void put(void* base, std::size_t off, T v) {
  std::memcpy(static_cast<char*>(base) + off, &v, sizeof v);
}

hipError_t fill_properties(void* p, int dev, const prop_layout& l) {
  NEED_GPU();
  if (!valid_device(dev)) return ret(INVALID_DEVICE);
  if (!p) return ret(INVALID_VALUE);
  const device& d = S().devices[static_cast<std::size_t>(dev)];
  std::memset(p, 0, l.size);
  std::snprintf(static_cast<char*>(p), 256, "%s", d.name.c_str());
  put<std::size_t>(p, l.totalGlobalMem, d.memory);
  put<std::size_t>(p, l.sharedMemPerBlock, d.lds);
  put<int>(p, l.regsPerBlock, 65536);
  put<int>(p, l.warpSize, static_cast<int>(d.wave));
  put<int>(p, l.maxThreadsPerBlock, 1024);
  for (int i = 0; i < 3; ++i) {
    put<int>(p, l.maxThreadsDim + 4 * i, 1024);
    put<int>(p, l.maxGridSize + 4 * i, i == 0 ? 0x7fffffff : 65536);
  }
  put<int>(p, l.clockRate, 2100000);
  put<int>(p, l.memoryClockRate, 1300000);
  put<int>(p, l.memoryBusWidth, 8192);
  put<std::size_t>(p, l.totalConstMem, std::size_t{2} << 30);
  put<int>(p, l.major, d.major);
  put<int>(p, l.minor, d.minor);
  put<int>(p, l.multiProcessorCount, static_cast<int>(d.cu));
  put<int>(p, l.l2CacheSize, 4 << 20);
  put<int>(p, l.maxThreadsPerMultiProcessor, 2048);
  put<int>(p, l.cooperativeLaunch, d.coop ? 1 : 0);
  put<std::size_t>(p, l.maxSharedMemoryPerMultiProcessor, d.lds);
  if (&l == &layout_r0000) put<int>(p, 392, d.major * 100 + d.minor * 10 + d.stepping);  // gcnArch (5.x only)
  const std::string& arch_name = d.props_arch_name.empty() ? d.arch_name : d.props_arch_name;
  std::snprintf(static_cast<char*>(p) + l.gcnArchName, 256, "%s", arch_name.c_str());
  return OK;
}
}  // namespace

// dlsym("hipGetDeviceProperties") is the 792-byte R0000 layout in every ROCm (§2.3).
TP_EXPORT hipError_t hipGetDeviceProperties(void* p, int dev) {
  ENTER(hipGetDeviceProperties);
  return fill_properties(p, dev, layout_r0000);
}
#ifndef TP_FAKE_HIP_ROCM5
TP_EXPORT hipError_t hipGetDevicePropertiesR0000(void* p, int dev) {
  ENTER(hipGetDevicePropertiesR0000);
  return fill_properties(p, dev, layout_r0000);
}
TP_EXPORT hipError_t hipGetDevicePropertiesR0600(void* p, int dev) {
  ENTER(hipGetDevicePropertiesR0600);
  return fill_properties(p, dev, layout_r0600);
}
#endif

// Contexts are the devices (clr: hipDevicePrimaryCtxRetain returns the device; §2.5).
TP_EXPORT hipError_t hipDevicePrimaryCtxRetain(ihipCtx_t** c, int dev) {
  ENTER(hipDevicePrimaryCtxRetain);
  NEED_GPU();
  if (!valid_device(dev)) return ret(INVALID_DEVICE);
  if (!c) return ret(INVALID_VALUE);
  *c = reinterpret_cast<ihipCtx_t*>(&S().devices[static_cast<std::size_t>(dev)]);
  return OK;
}
TP_EXPORT hipError_t hipDevicePrimaryCtxRelease(int dev) {
  ENTER(hipDevicePrimaryCtxRelease);
  NEED_GPU();
  return ret(valid_device(dev) ? OK : INVALID_DEVICE);
}
TP_EXPORT hipError_t hipCtxGetCurrent(ihipCtx_t** c) {
  ENTER(hipCtxGetCurrent);
  NEED_GPU();
  if (!c) return ret(INVALID_VALUE);
  *c = reinterpret_cast<ihipCtx_t*>(&current());
  return OK;
}
TP_EXPORT hipError_t hipCtxSetCurrent(ihipCtx_t* c) {
  ENTER(hipCtxSetCurrent);
  NEED_GPU();
  for (std::size_t i = 0; i < S().devices.size(); ++i)
    if (reinterpret_cast<ihipCtx_t*>(&S().devices[i]) == c) {
      t_device = static_cast<int>(i);
      return OK;
    }
  return ret(INVALID_VALUE);
}
TP_EXPORT hipError_t hipDeviceSynchronize(void) {
  ENTER(hipDeviceSynchronize);
  NEED_GPU();
  return OK;
}

// ---------------------------------------------------------------------------------------------
// Modules and functions

TP_EXPORT hipError_t hipModuleLoadData(ihipModule_t** m, const void* image) {
  ENTER(hipModuleLoadData);
  NEED_GPU();
  return load_module(m, image);
}
// clr ignores the JIT options ("TODO: Pass options to Program"; §1.6), so does the double.
TP_EXPORT hipError_t hipModuleLoadDataEx(ihipModule_t** m, const void* image, unsigned int, int*, void**) {
  ENTER(hipModuleLoadDataEx);
  NEED_GPU();
  return load_module(m, image);
}
TP_EXPORT hipError_t hipModuleUnload(ihipModule_t* m) {
  ENTER(hipModuleUnload);
  NEED_GPU();
  if (!S().modules.erase(m)) return refuse(INVALID_HANDLE, "hipModuleUnload: " + hex(m) + " is not a loaded module");
  delete m;
  return OK;
}
TP_EXPORT hipError_t hipModuleGetFunction(ihipModuleSymbol_t** f, ihipModule_t* m, const char* name) {
  ENTER(hipModuleGetFunction);
  NEED_GPU();
  if (!f || !name) return ret(INVALID_VALUE);
  if (!S().modules.count(m)) return refuse(INVALID_HANDLE, "hipModuleGetFunction: " + hex(m) + " is not a loaded module");
  std::string names;
  for (auto& fn : m->funcs) {
    if (fn->meta->name == name) {
      *f = fn.get();
      return OK;
    }
    names += (names.empty() ? "" : ", ") + fn->meta->name;
  }
  return refuse(NOT_FOUND, std::string("hipModuleGetFunction: no kernel named \"") + name + "\" in the module (it has: " + names + ")");
}
// hipFunction_attribute values (§2.2), answered from the metadata like clr does.
TP_EXPORT hipError_t hipFuncGetAttribute(int* v, int attr, ihipModuleSymbol_t* f) {
  ENTER(hipFuncGetAttribute);
  NEED_GPU();
  if (!v) return ret(INVALID_VALUE);
  if (!live_function(f)) return ret(INVALID_HANDLE);
  const tpfakehip::kernel_meta& k = *f->meta;
  switch (attr) {
    case 0: *v = static_cast<int>(k.max_flat_workgroup_size); break;     // MAX_THREADS_PER_BLOCK
    case 1: *v = static_cast<int>(k.group_segment_fixed_size); break;    // SHARED_SIZE_BYTES
    case 2: *v = 0; break;                                              // CONST_SIZE_BYTES
    case 3: *v = static_cast<int>(k.private_segment_fixed_size); break;  // LOCAL_SIZE_BYTES
    case 4: *v = static_cast<int>(k.vgpr_count); break;                  // NUM_REGS
    case 5: case 6: *v = current().major * 10 + current().minor; break;  // PTX / BINARY_VERSION
    case 7: *v = 0; break;                                              // CACHE_MODE_CA
    case 8: *v = static_cast<int>(current().lds - k.group_segment_fixed_size); break;  // MAX_DYNAMIC_SHARED
    case 9: *v = 0; break;                                              // PREFERRED_SHARED_MEMORY_CARVEOUT
    default: return ret(INVALID_VALUE);
  }
  return OK;
}

// ---------------------------------------------------------------------------------------------
// Launches

// TP_FAKE_HIP_WITHOUT_MODULE_LAUNCH: a runtime lacking a required entry point (loaders must name it).
#ifndef TP_FAKE_HIP_WITHOUT_MODULE_LAUNCH
TP_EXPORT hipError_t hipModuleLaunchKernel(ihipModuleSymbol_t* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                           unsigned by, unsigned bz, unsigned shared, ihipStream_t* stream,
                                           void** params, void** extra) {
  ENTER(hipModuleLaunchKernel);
  NEED_GPU();
  return do_launch(f, request(gx, gy, gz, bx, by, bz, shared, params, extra), stream, TPFAKEHIP_VIA_MODULE_LAUNCH, false,
                   "hipModuleLaunchKernel");
}
#endif
#ifndef TP_FAKE_HIP_ROCM5
// 10 parameters, no `extra` (H71:6645; Triton's table declares 11, harmlessly under SysV).
TP_EXPORT hipError_t hipModuleLaunchCooperativeKernel(ihipModuleSymbol_t* f, unsigned gx, unsigned gy, unsigned gz,
                                                      unsigned bx, unsigned by, unsigned bz, unsigned shared,
                                                      ihipStream_t* stream, void** params) {
  ENTER(hipModuleLaunchCooperativeKernel);
  NEED_GPU();
  return do_launch(f, request(gx, gy, gz, bx, by, bz, shared, params, nullptr), stream, TPFAKEHIP_VIA_COOPERATIVE, true,
                   "hipModuleLaunchCooperativeKernel");
}

using launch_attribute = tpfakehip_launch_attribute;
using launch_config = tpfakehip_launch_config;
static_assert(sizeof(launch_config) == 56 && sizeof(launch_attribute) == 72, "HIP 7.1 layouts");

// Attributes: hipLaunchAttributeCooperative (2) and Triton's cluster dimension (4), which must be
// (1,1,1) where multi-CTA launch is not supported (gfx9).
TP_EXPORT hipError_t hipDrvLaunchKernelEx(const launch_config* c, ihipModuleSymbol_t* f, void** params, void** extra) {
  ENTER(hipDrvLaunchKernelEx);
  NEED_GPU();
  if (!c) return ret(INVALID_VALUE);
  bool coop = false;
  for (unsigned i = 0; i < c->num_attrs; ++i) {
    const launch_attribute& a = c->attrs[i];
    if (a.id == 2) {
      coop = a.v.i != 0;
    } else if (a.id == 4) {
      if (a.v.dim.x != 1 || a.v.dim.y != 1 || a.v.dim.z != 1)
        return refuse(NOT_SUPPORTED, "hipDrvLaunchKernelEx: cluster dimensions (" + std::to_string(a.v.dim.x) + ", " +
                                         std::to_string(a.v.dim.y) + ", " + std::to_string(a.v.dim.z) + ") on " +
                                         current().gfx + ", which has no multi-CTA launch");
    } else {
      return refuse(INVALID_VALUE, "hipDrvLaunchKernelEx: launch attribute " + std::to_string(a.id) + " is not modelled");
    }
  }
  return do_launch(f, request(c->gx, c->gy, c->gz, c->bx, c->by, c->bz, c->shared, params, extra),
                   static_cast<ihipStream_t*>(c->stream),
                   TPFAKEHIP_VIA_LAUNCH_EX, coop, "hipDrvLaunchKernelEx");
}
#endif

// ---------------------------------------------------------------------------------------------
// Memory (host-backed: tests read what was copied) and streams

TP_EXPORT hipError_t hipMalloc(void** p, size_t size) {
  ENTER(hipMalloc);
  NEED_GPU();
  if (!p) return ret(INVALID_VALUE);
  // HIP (clr): an allocation while a stream captures is refused unless the thread is in relaxed
  // capture mode (hipErrorStreamCaptureUnsupported).
  if (t_capture_mode != 2)
    for (ihipStream_t* st : S().streams)
      if (st->capturing) return refuse(900, "hipMalloc while a stream is capturing, outside relaxed capture mode");
  if (size == 0) {  // HIP: success and a NULL pointer
    *p = nullptr;
    return OK;
  }
  device& d = current();
  if (size > d.memory - d.used)
    return refuse(OUT_OF_MEMORY, "hipMalloc: " + std::to_string(size) + " bytes, device " + std::to_string(t_device) + " has " +
                                     std::to_string(d.memory - d.used) + " free");
  void* m = std::aligned_alloc(256, (size + 255) / 256 * 256);
  if (!m) return ret(OUT_OF_MEMORY);
  *p = m;
  S().allocations[reinterpret_cast<std::uintptr_t>(m)] = {size, t_device};
  d.used += size;
  return OK;
}
TP_EXPORT hipError_t hipFree(void* p) {
  ENTER(hipFree);
  NEED_GPU();
  if (!p) return OK;
  auto it = S().allocations.find(reinterpret_cast<std::uintptr_t>(p));
  if (it == S().allocations.end()) return refuse(INVALID_VALUE, "hipFree: " + hex(p) + " is not the start of a hipMalloc allocation");
  S().devices[static_cast<std::size_t>(it->second.device)].used -= it->second.size;
  S().allocations.erase(it);
  std::free(p);
  return OK;
}
TP_EXPORT hipError_t hipMemGetInfo(size_t* free_bytes, size_t* total) {
  ENTER(hipMemGetInfo);
  NEED_GPU();
  if (!free_bytes || !total) return ret(INVALID_VALUE);
  *free_bytes = current().memory - current().used;
  *total = current().memory;
  return OK;
}

namespace {
// hipMemcpyKind: HostToHost 0, HostToDevice 1, DeviceToHost 2, DeviceToDevice 3, Default 4. A
// device range must lie inside one allocation; an explicit kind must match where the pointers are.
int copy(const char* entry, void* dst, const void* src, std::size_t n, int kind) {
  if (n == 0) return OK;
  if (!dst || !src) return refuse(INVALID_VALUE, std::string(entry) + ": NULL pointer");
  if (kind < 0 || kind > 4) return refuse(INVALID_VALUE, std::string(entry) + ": hipMemcpyKind " + std::to_string(kind));
  const range_kind d = classify(dst, n), s = classify(src, n);
  if (d == range_kind::past_end || s == range_kind::past_end)
    return refuse(INVALID_VALUE, std::string(entry) + ": " + std::to_string(n) + " bytes run past the end of the allocation at " +
                                     hex(d == range_kind::past_end ? dst : src));
  static const char* const kinds[] = {"hipMemcpyHostToHost", "hipMemcpyHostToDevice", "hipMemcpyDeviceToHost",
                                      "hipMemcpyDeviceToDevice"};
  if (kind != 4) {
    const bool want_src_dev = kind == 2 || kind == 3, want_dst_dev = kind == 1 || kind == 3;
    if ((s == range_kind::device) != want_src_dev || (d == range_kind::device) != want_dst_dev)
      return refuse(INVALID_VALUE, std::string(entry) + ": " + kinds[kind] + " but the source is " +
                                       (s == range_kind::device ? "device" : "host") + " memory and the destination " +
                                       (d == range_kind::device ? "device" : "host") + " memory");
  }
  std::memmove(dst, src, n);
  return OK;
}
int fill(const char* entry, void* dst, unsigned char v, std::size_t n) {
  if (n == 0) return OK;
  if (classify(dst, n) != range_kind::device)
    return refuse(INVALID_VALUE, std::string(entry) + ": [" + hex(dst) + ", +" + std::to_string(n) + ") is not inside one hipMalloc allocation");
  std::memset(dst, v, n);
  return OK;
}
int check_stream(const char* entry, ihipStream_t* s) {
  if (!known_stream(s)) return refuse(bad_stream(), std::string(entry) + ": unknown stream " + hex(s));
  S().last_stream[entry] = s;  // for tests: where the work went (tpfakehip_last_stream)
  return OK;
}
}  // namespace

TP_EXPORT hipError_t hipMemcpy(void* dst, const void* src, size_t n, int kind) {
  ENTER(hipMemcpy);
  NEED_GPU();
  return ret(copy("hipMemcpy", dst, src, n, kind));
}
TP_EXPORT hipError_t hipMemcpyAsync(void* dst, const void* src, size_t n, int kind, ihipStream_t* stream) {
  ENTER(hipMemcpyAsync);
  NEED_GPU();
  if (int e = check_stream("hipMemcpyAsync", stream)) return e;
  return ret(copy("hipMemcpyAsync", dst, src, n, kind));
}
TP_EXPORT hipError_t hipMemcpyHtoD(void* dst, const void* src, size_t n) {
  ENTER(hipMemcpyHtoD);
  NEED_GPU();
  return ret(copy("hipMemcpyHtoD", dst, src, n, 1));
}
TP_EXPORT hipError_t hipMemcpyDtoH(void* dst, void* src, size_t n) {
  ENTER(hipMemcpyDtoH);
  NEED_GPU();
  return ret(copy("hipMemcpyDtoH", dst, src, n, 2));
}
TP_EXPORT hipError_t hipMemcpyDtoD(void* dst, void* src, size_t n) {
  ENTER(hipMemcpyDtoD);
  NEED_GPU();
  return ret(copy("hipMemcpyDtoD", dst, src, n, 3));
}
TP_EXPORT hipError_t hipMemset(void* dst, int v, size_t n) {
  ENTER(hipMemset);
  NEED_GPU();
  return ret(fill("hipMemset", dst, static_cast<unsigned char>(v), n));
}
TP_EXPORT hipError_t hipMemsetAsync(void* dst, int v, size_t n, ihipStream_t* stream) {
  ENTER(hipMemsetAsync);
  NEED_GPU();
  if (int e = check_stream("hipMemsetAsync", stream)) return e;
  return ret(fill("hipMemsetAsync", dst, static_cast<unsigned char>(v), n));
}
TP_EXPORT hipError_t hipMemsetD8(void* dst, unsigned char v, size_t n) {
  ENTER(hipMemsetD8);
  NEED_GPU();
  return ret(fill("hipMemsetD8", dst, v, n));
}
TP_EXPORT hipError_t hipMemsetD8Async(void* dst, unsigned char v, size_t n, ihipStream_t* stream) {
  ENTER(hipMemsetD8Async);
  NEED_GPU();
  if (int e = check_stream("hipMemsetD8Async", stream)) return e;
  return ret(fill("hipMemsetD8Async", dst, v, n));
}
// hipPointer_attribute: MEMORY_TYPE 2 (hipMemoryTypeDevice = 2), DEVICE_POINTER 3, DEVICE_ORDINAL 9,
// RANGE_START_ADDR 11, RANGE_SIZE 12. Memory the runtime did not allocate: hipErrorInvalidValue.
TP_EXPORT hipError_t hipPointerGetAttribute(void* data, int attribute, void* ptr) {
  ENTER(hipPointerGetAttribute);
  NEED_GPU();
  if (!data) return ret(INVALID_VALUE);
  const auto p = reinterpret_cast<std::uintptr_t>(ptr);
  if (device_of(p) < 0) return refuse(INVALID_VALUE, "hipPointerGetAttribute: " + hex(ptr) + " is not hipMalloc memory");
  const auto it = std::prev(S().allocations.upper_bound(p));
  switch (attribute) {
    case 2: *static_cast<unsigned*>(data) = 2; break;
    case 3: *static_cast<void**>(data) = ptr; break;
    case 9: *static_cast<int*>(data) = it->second.device; break;
    case 11: *static_cast<void**>(data) = reinterpret_cast<void*>(it->first); break;
    case 12: *static_cast<size_t*>(data) = it->second.size; break;
    default: return refuse(INVALID_VALUE, "hipPointerGetAttribute: attribute " + std::to_string(attribute) + " is not modelled");
  }
  return OK;
}
TP_EXPORT hipError_t hipStreamCreateWithFlags(ihipStream_t** s, unsigned flags) {
  ENTER(hipStreamCreateWithFlags);
  NEED_GPU();
  if (!s || flags > 1) return ret(INVALID_VALUE);  // hipStreamDefault 0, hipStreamNonBlocking 1
  *s = new ihipStream_t{t_device, flags};
  S().streams.insert(*s);
  return OK;
}
TP_EXPORT hipError_t hipStreamIsCapturing(ihipStream_t* s, int* status) {
  ENTER(hipStreamIsCapturing);
  NEED_GPU();
  if (!status) return ret(INVALID_VALUE);
  if (!known_stream(s)) return ret(bad_stream());
  *status = is_special_stream(s) ? 0 : s->capturing;
  return OK;
}
TP_EXPORT hipError_t hipThreadExchangeStreamCaptureMode(int* mode) {
  ENTER(hipThreadExchangeStreamCaptureMode);
  if (!mode) return ret(INVALID_VALUE);
  std::swap(*mode, t_capture_mode);
  return OK;
}
TP_EXPORT void tpfakehip_set_capturing(void* stream, int on) {
  std::lock_guard<std::mutex> lock(S().mutex);
  auto* st = static_cast<ihipStream_t*>(stream);
  if (S().streams.count(st)) st->capturing = on;
}
TP_EXPORT hipError_t hipStreamCreate(ihipStream_t** s) {
  ENTER(hipStreamCreate);
  NEED_GPU();
  if (!s) return ret(INVALID_VALUE);
  *s = new ihipStream_t{t_device, 0};
  S().streams.insert(*s);
  return OK;
}
TP_EXPORT hipError_t hipStreamDestroy(ihipStream_t* s) {
  ENTER(hipStreamDestroy);
  NEED_GPU();
  if (is_special_stream(s) || !S().streams.erase(s)) return refuse(INVALID_HANDLE, "hipStreamDestroy: unknown stream " + hex(s));
  delete s;
  return OK;
}
TP_EXPORT hipError_t hipStreamSynchronize(ihipStream_t* s) {
  ENTER(hipStreamSynchronize);
  NEED_GPU();
  return ret(check_stream("hipStreamSynchronize", s));
}
TP_EXPORT hipError_t hipEventCreateWithFlags(ihipEvent_t** e, unsigned) {
  ENTER(hipEventCreateWithFlags);
  NEED_GPU();
  if (!e) return ret(INVALID_VALUE);
  *e = new ihipEvent_t{t_device};
  return OK;
}
TP_EXPORT hipError_t hipEventCreate(ihipEvent_t** e) {
  ENTER(hipEventCreate);
  NEED_GPU();
  if (!e) return ret(INVALID_VALUE);
  *e = new ihipEvent_t{t_device};
  return OK;
}
TP_EXPORT hipError_t hipEventRecord(ihipEvent_t* e, ihipStream_t* s) {
  ENTER(hipEventRecord);
  NEED_GPU();
  if (!e) return ret(INVALID_HANDLE);
  return ret(check_stream("hipEventRecord", s));
}
TP_EXPORT hipError_t hipEventQuery(ihipEvent_t* e) {
  ENTER(hipEventQuery);
  NEED_GPU();
  return ret(e ? OK : INVALID_HANDLE);
}
TP_EXPORT hipError_t hipEventSynchronize(ihipEvent_t* e) {
  ENTER(hipEventSynchronize);
  NEED_GPU();
  return ret(e ? OK : INVALID_HANDLE);
}
TP_EXPORT hipError_t hipEventElapsedTime(float* ms, ihipEvent_t* a, ihipEvent_t* b) {
  ENTER(hipEventElapsedTime);
  NEED_GPU();
  if (!ms || !a || !b) return ret(INVALID_VALUE);
  *ms = 0.0f;
  return OK;
}
TP_EXPORT hipError_t hipEventDestroy(ihipEvent_t* e) {
  ENTER(hipEventDestroy);
  NEED_GPU();
  if (!e) return ret(INVALID_HANDLE);
  delete e;
  return OK;
}

// ---------------------------------------------------------------------------------------------
// hipGetProcAddress (ROCm >= 6.2): dlsym on the library's own entry points, "hipGetDeviceProperties"
// mapped to the R0600 variant for hipVersion >= 600 (§2.4), TRITONPACK_FAKE_HIP_MISSING honoured.
#ifndef TP_FAKE_HIP_ROCM5
namespace {
void* lookup(const char* name, int hip_version) {
#define E(n) {#n, reinterpret_cast<void*>(&n)}
  static const std::map<std::string, void*> table = {
      E(hipDriverGetVersion), E(hipRuntimeGetVersion), E(hipInit), E(hipGetErrorName), E(hipGetErrorString),
      E(hipDrvGetErrorName), E(hipDrvGetErrorString), E(hipGetLastError), E(hipPeekAtLastError), E(hipGetDeviceCount),
      E(hipDeviceGet), E(hipSetDevice), E(hipGetDevice), E(hipDeviceComputeCapability), E(hipDeviceGetName),
      E(hipDeviceGetAttribute), E(hipGetDevicePropertiesR0000), E(hipGetDevicePropertiesR0600),
      E(hipDevicePrimaryCtxRetain), E(hipDevicePrimaryCtxRelease), E(hipCtxGetCurrent), E(hipCtxSetCurrent),
      E(hipDeviceSynchronize), E(hipModuleLoadData), E(hipModuleLoadDataEx), E(hipModuleUnload),
      E(hipModuleGetFunction), E(hipFuncGetAttribute), E(hipModuleLaunchKernel), E(hipModuleLaunchCooperativeKernel),
      E(hipDrvLaunchKernelEx), E(hipMalloc), E(hipFree), E(hipMemGetInfo), E(hipMemcpy), E(hipMemcpyAsync),
      E(hipMemcpyHtoD), E(hipMemcpyDtoH), E(hipMemcpyDtoD), E(hipMemset), E(hipMemsetAsync), E(hipMemsetD8),
      E(hipMemsetD8Async), E(hipPointerGetAttribute), E(hipStreamCreate), E(hipStreamCreateWithFlags),
      E(hipStreamDestroy), E(hipStreamSynchronize), E(hipEventCreate), E(hipEventCreateWithFlags), E(hipEventRecord),
      E(hipEventQuery), E(hipEventSynchronize), E(hipEventElapsedTime), E(hipEventDestroy),
      E(hipStreamIsCapturing), E(hipThreadExchangeStreamCaptureMode)};
#undef E
  std::string n = name;
  if (n == "hipGetDeviceProperties") n = hip_version >= 600 ? "hipGetDevicePropertiesR0600" : "hipGetDevicePropertiesR0000";
  if (S().missing.count(name) || S().missing.count(n)) return nullptr;
  auto it = table.find(n);
  return it == table.end() ? nullptr : it->second;
}
}  // namespace

TP_EXPORT hipError_t hipGetProcAddress(const char* symbol, void** pfn, int hip_version, std::uint64_t flags, int* status) {
  ENTER(hipGetProcAddress);
  NEED_GPU();  // HIP_INIT_API: fails without a usable GPU (§2.4)
  if (!symbol || !pfn || flags > 2) return ret(INVALID_VALUE);
  *pfn = lookup(symbol, hip_version);
  if (status) *status = *pfn ? 0 : 1;  // HIP_GET_PROC_ADDRESS_SUCCESS / SYMBOL_NOT_FOUND
  return *pfn ? OK : ret(NOT_FOUND);
}
#endif
