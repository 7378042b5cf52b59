// A minimal test-double libamdhip64 for the HIP backend's own tests (loaded through
// TRITONPACK_HIP_LIBRARY, like fake_cuda/). It implements the entry points of shared/hip-abi.md
// §2.1 that the run time resolves, plus the memory API's, with the exact signatures; it simulates
// devices of one configured gfx name, checks code objects' ELF headers (magic, EM_AMDGPU, HSA
// OS/ABI, the gfx processor in e_flags) and records launches, copying each kernel parameter into
// a kernarg buffer at its natural alignment, with the sizes the test declares for the kernel.
//
// The full double (tests/runtime/fake_hip/, another engineer's) checks launches against the
// code object's own .amdhsa.kernels metadata; this one exists so the backend's tests do not
// wait for it. Control functions: tpfakehipmin_* below (named apart from the full double's tpfakehip_*).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#define API extern "C" __attribute__((visibility("default")))

namespace {

struct launch_record {
  std::string kernel;
  unsigned grid[3];
  unsigned block[3];
  unsigned shared;
  void* stream;
  int device;
  bool cooperative;
  std::vector<unsigned char> kernargs;
};

struct function;
struct module {
  std::vector<unsigned char> image;
  int device;
  std::vector<std::unique_ptr<function>> functions;  // freed with the module, as in HIP
};

struct state {
  std::mutex mutex;
  std::string arch = "gfx942:sramecc+:xnack-";
  int version = 70125424;
  int devices = 1;
  std::string fail;          // "hipModuleLoadData=200,hipModuleLaunchKernel=719"
  std::string layout = "r0600";  // which props layout carries a valid name: r0600, r0000, none
  int max_threads = 1024;
  std::map<std::string, std::vector<std::uint32_t>> arg_sizes;
  std::vector<launch_record> launches;
  std::map<std::string, int> calls;
  int live_modules = 0;
  int live_allocations = 0;
};
state& S() {
  static state s;
  return s;
}
thread_local int t_device = 0;

int failure(const char* call) {
  auto& s = S();
  ++s.calls[call];
  const std::string key = std::string(call) + "=";
  const auto at = s.fail.find(key);
  return at == std::string::npos ? 0 : std::atoi(s.fail.c_str() + at + key.size());
}

// gfx942 -> (9, 4); gfx90a -> (9, 0); gfx1100 -> (11, 0).
void cc(int& major, int& minor) {
  const std::string p = S().arch.substr(3, S().arch.find(':') == std::string::npos ? std::string::npos : S().arch.find(':') - 3);
  major = std::atoi(p.substr(0, p.size() - 2).c_str());
  minor = p[p.size() - 2] - '0';
}

// EF_AMDGPU_MACH of the processors the tests use.
unsigned mach(const std::string& processor) {
  if (processor == "gfx90a") return 0x3f;
  if (processor == "gfx942") return 0x4c;
  if (processor == "gfx1100") return 0x41;
  return 0;
}

struct function {
  module* mod;
  std::string name;
};

}  // namespace

// ---- control ----
API void tpfakehipmin_configure(const char* arch, int version, int devices, const char* fail, const char* layout) {
  auto& s = S();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.arch = arch;
  s.version = version;
  s.devices = devices;
  s.fail = fail;
  s.layout = layout;
  s.max_threads = 1024;
  s.launches.clear();
  s.calls.clear();
  t_device = 0;
}
API void tpfakehipmin_set_max_threads(int n) { S().max_threads = n; }
API void tpfakehipmin_declare_kernel(const char* name, const std::uint32_t* sizes, unsigned n) {
  S().arg_sizes[name] = std::vector<std::uint32_t>(sizes, sizes + n);
}
API std::size_t tpfakehipmin_launch_count() { return S().launches.size(); }
// Copies launch `i`'s fields; kernargs up to `cap` bytes. Returns the kernarg byte count.
API std::size_t tpfakehipmin_get_launch(std::size_t i, char* kernel, std::size_t kernel_cap, unsigned* grid, unsigned* block,
                                     unsigned* shared, int* device, int* cooperative, unsigned char* kernargs, std::size_t cap) {
  const launch_record& r = S().launches.at(i);
  std::snprintf(kernel, kernel_cap, "%s", r.kernel.c_str());
  std::memcpy(grid, r.grid, sizeof r.grid);
  std::memcpy(block, r.block, sizeof r.block);
  *shared = r.shared;
  *device = r.device;
  *cooperative = r.cooperative;
  std::memcpy(kernargs, r.kernargs.data(), r.kernargs.size() < cap ? r.kernargs.size() : cap);
  return r.kernargs.size();
}
API int tpfakehipmin_calls(const char* name) { return S().calls[name]; }
API int tpfakehipmin_live_modules() { return S().live_modules; }
API int tpfakehipmin_live_allocations() { return S().live_allocations; }

// ---- HIP ----
API const char* hipGetErrorName(int e) {
  switch (e) {
    case 0: return "hipSuccess";
    case 100: return "hipErrorNoDevice";
    case 101: return "hipErrorInvalidDevice";
    case 200: return "hipErrorInvalidImage";
    case 209: return "hipErrorNoBinaryForGpu";
    case 500: return "hipErrorNotFound";
    case 719: return "hipErrorLaunchFailure";
    default: return "hipErrorUnknown";
  }
}
API const char* hipGetErrorString(int e) { return e == 100 ? "no ROCm-capable device is detected" : hipGetErrorName(e); }
API int hipDriverGetVersion(int* v) { return *v = S().version, 0; }
API int hipRuntimeGetVersion(int* v) { return *v = S().version, 0; }
API int hipInit(unsigned flags) {
  if (int f = failure("hipInit")) return f;
  return flags ? 1 : S().devices > 0 ? 0 : 100;
}
API int hipGetDeviceCount(int* n) {
  *n = S().devices;
  return S().devices > 0 ? 0 : 100;
}
API int hipDeviceGet(int* d, int ordinal) { return ordinal < S().devices ? (*d = ordinal, 0) : 101; }
API int hipSetDevice(int d) {
  ++S().calls["hipSetDevice"];
  return d >= 0 && d < S().devices ? (t_device = d, 0) : 101;
}
API int hipGetDevice(int* d) { return *d = t_device, 0; }
API int hipDeviceGetAttribute(int* v, int attr, int dev) {
  if (dev < 0 || dev >= S().devices) return 101;
  int major = 0, minor = 0;
  cc(major, minor);
  switch (attr) {
    case 10: *v = 1; return 0;
    case 23: *v = major; return 0;
    case 61: *v = minor; return 0;
    case 56: *v = 1024; return 0;
    case 74: *v = 65536; return 0;
    case 87: *v = major >= 10 ? 32 : 64; return 0;
    default: return 1;
  }
}
API int hipDeviceGetName(char* name, int len, int dev) {
  if (dev < 0 || dev >= S().devices) return 101;
  std::snprintf(name, static_cast<std::size_t>(len), "Fake AMD GPU %d", dev);
  return 0;
}
static int fill_props(void* p, std::size_t name_offset, const char* layout) {
  if (S().devices <= 0) return 101;
  char* name = static_cast<char*>(p) + name_offset;
  if (S().layout == layout)
    std::snprintf(name, 256, "%s", S().arch.c_str());
  else
    std::memset(name, 0x5a, 256);  // what another layout's bytes look like there: not a name
  return 0;
}
API int hipGetDevicePropertiesR0600(void* p, int) { return fill_props(p, 1160, "r0600"); }
API int hipGetDeviceProperties(void* p, int) { return fill_props(p, 396, "r0000"); }

API int hipModuleLoadData(module** m, const void* image) {
  if (int f = failure("hipModuleLoadData")) return f;
  const auto* b = static_cast<const unsigned char*>(image);
  if (std::memcmp(b, "\x7f" "ELF", 4) != 0 || b[7] != 64) return 209;  // not an AMDGPU HSA code object
  std::uint16_t machine;
  std::uint32_t flags;
  std::memcpy(&machine, b + 18, 2);
  std::memcpy(&flags, b + 48, 4);
  const std::string processor = S().arch.substr(0, S().arch.find(':'));
  if (machine != 224 || (flags & 0xff) != mach(processor)) return 209;
  std::uint64_t shoff;
  std::uint16_t shentsize, shnum;
  std::memcpy(&shoff, b + 40, 8);
  std::memcpy(&shentsize, b + 58, 2);
  std::memcpy(&shnum, b + 60, 2);
  const std::size_t size = shoff + std::size_t{shentsize} * shnum;  // section headers end the file
  *m = new module{std::vector<unsigned char>(b, b + size), t_device, {}};
  ++S().live_modules;
  return 0;
}
API int hipModuleUnload(module* m) {
  if (!m) return 400;
  delete m;
  --S().live_modules;
  return 0;
}
API int hipModuleGetFunction(function** f, module* m, const char* name) {
  if (int e = failure("hipModuleGetFunction")) return e;
  const std::string sym = std::string(name) + ".kd";  // the kernel descriptor symbol
  const auto& im = m->image;
  const char* want = sym.c_str();  // with its NUL: a whole symbol name
  if (std::search(im.begin(), im.end(), want, want + sym.size() + 1) == im.end()) return 500;
  m->functions.push_back(std::make_unique<function>(function{m, name}));
  *f = m->functions.back().get();
  return 0;
}
API int hipFuncGetAttribute(int* v, int attr, function*) {
  if (attr != 0) return 1;
  *v = S().max_threads;
  return 0;
}
static int launch(function* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shared,
                  void* stream, void** params, bool cooperative) {
  auto& s = S();
  std::lock_guard<std::mutex> lock(s.mutex);
  launch_record r{f->name, {gx, gy, gz}, {bx, by, bz}, shared, stream, t_device, cooperative, {}};
  auto it = s.arg_sizes.find(f->name);
  if (it != s.arg_sizes.end()) {
    for (std::size_t i = 0; i < it->second.size(); ++i) {
      const std::uint32_t n = it->second[i];
      const std::size_t at = (r.kernargs.size() + n - 1) / n * n;
      r.kernargs.resize(at + n);
      std::memcpy(r.kernargs.data() + at, params[i], n);
    }
  }
  s.launches.push_back(r);
  return 0;
}
#ifndef TPFAKEHIP_WITHOUT_LAUNCH  // the "old runtime lacking an entry point" variant
API int hipModuleLaunchKernel(function* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                              unsigned shared, void* stream, void** params, void** extra) {
  if (int e = failure("hipModuleLaunchKernel")) return e;
  if (extra) return 1;
  if (f->mod->device != t_device) return 400;  // ROCm 7: module and stream on the current device
  return launch(f, gx, gy, gz, bx, by, bz, shared, stream, params, false);
}
#endif
API int hipModuleLaunchCooperativeKernel(function* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                         unsigned bz, unsigned shared, void* stream, void** params) {
  if (int e = failure("hipModuleLaunchCooperativeKernel")) return e;
  return launch(f, gx, gy, gz, bx, by, bz, shared, stream, params, true);
}
API int hipStreamSynchronize(void*) { return failure("hipStreamSynchronize"); }
API int hipDeviceSynchronize() { return failure("hipDeviceSynchronize"); }

// Memory: host memory stands in for the device's.
API int hipMalloc(void** p, std::size_t n) {
  if (int e = failure("hipMalloc")) return e;
  *p = std::malloc(n);
  ++S().live_allocations;
  return 0;
}
API int hipFree(void* p) {
  std::free(p);
  --S().live_allocations;
  return 0;
}
API int hipMemcpy(void* d, const void* s, std::size_t n, int kind) {
  if (int e = failure("hipMemcpy")) return e;
  if (kind != 4) return 1;
  std::memmove(d, s, n);
  return 0;
}
API int hipMemset(void* d, int v, std::size_t n) {
  std::memset(d, v, n);
  return failure("hipMemset");
}
API int hipMemGetInfo(std::size_t* free, std::size_t* total) {
  *free = std::size_t{1} << 30;
  *total = std::size_t{1} << 34;
  return 0;
}
