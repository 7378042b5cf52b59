// fake_cuda.cpp — a test-double CUDA driver, loaded by the run time through the same dlopen path as
// libcuda (TRITONPACK_CUDA_LIBRARY). It simulates devices of chosen compute capabilities and a
// chosen driver version, and behaves like the driver where the run time's correctness depends on
// it:
//   * a cubin loads only on a device its ELF arch fits (same major, minor <= device; "a" exact);
//   * PTX loads only if its .version is one the driver version accepts (else
//     CUDA_ERROR_UNSUPPORTED_PTX_VERSION) and its .target fits the device;
//   * launches are validated (context, block = .reqntid, shared memory vs the opt-in attribute,
//     grid limits, cluster attribute vs .reqnctapercluster, parameter count) and recorded with
//     every parameter's bytes; captured launches go into a graph instead;
//   * a cubin's static shared memory (.nv.shared.<name>) is the function's SHARED_SIZE_BYTES and
//     reduces what MAX_DYNAMIC_SHARED_SIZE_BYTES may be set to (opt-in limit − static), as the
//     driver does; a cluster of more than 8 CTAs needs NON_PORTABLE_CLUSTER_SIZE_ALLOWED, more
//     than 16 is never launched (CUDA_ERROR_INVALID_CLUSTER_SIZE);
//   * memory is host memory (so tests can read what was "copied"), counted for leak checks, per
//     device against a capacity (out of memory when full); copies and memsets check device ranges
//     against their allocation (CUDA_ERROR_INVALID_VALUE past its end); cuPointerGetAttribute
//     describes allocations; streams are tracked (an unknown stream is CUDA_ERROR_INVALID_HANDLE);
//   * cuMemAlloc during a non-relaxed stream capture fails as the driver does;
//   * any entry can be made to fail or to be missing (TRITONPACK_FAKE_FAIL / _MISSING);
//   * TRITONPACK_FAKE_LAUNCH_LOG=<file>: every launch is also appended to <file> as a line, for
//     tests of whole programs (examples/c, examples/fortran) that cannot call the control interface;
//   * TRITONPACK_FAKE_STREAM_LOG=<file>: every call that takes or makes a stream (stream creation,
//     async copies and memsets, synchronisation, launches, graph launches) appended as a line naming the stream
//     and its flags (log_stream_call), for the same programs' tests of where work was queued.
// Configuration and inspection: fake_cuda_control.h.
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "../fake_common.hpp"
#include "fake_cuda_control.h"
#include "fake_elf.hpp"

#define TP_EXPORT extern "C" __attribute__((visibility("default")))

using CUresult = int;
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st {
  int dummy = 0;
};
struct CUgraph_st {
  std::vector<tpfake_launch_record> nodes;
};
struct CUgraphExec_st {
  std::vector<tpfake_launch_record> nodes;
};
struct CUlinkState_st;

namespace {

enum : int {
  OK = 0,
  INVALID_VALUE = 1,
  OUT_OF_MEMORY = 2,
  NOT_INITIALIZED = 3,
  NO_DEVICE = 100,
  INVALID_DEVICE = 101,
  INVALID_IMAGE = 200,
  INVALID_CONTEXT = 201,
  NO_BINARY_FOR_GPU = 209,
  INVALID_PTX = 218,
  UNSUPPORTED_PTX_VERSION = 222,
  INVALID_HANDLE = 400,
  NOT_FOUND = 500,
  NOT_READY = 600,
  NOT_SUPPORTED = 801,
  STREAM_CAPTURE_UNSUPPORTED = 900,
  INVALID_CLUSTER_SIZE = 912,
};

// CUfunction_attribute values the fake models.
enum : int {
  FUNC_SHARED_SIZE_BYTES = 1,
  FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
  FUNC_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14,
};
constexpr unsigned portable_cluster_size = 8;      // CTAs per cluster any cluster-capable GPU runs
constexpr unsigned non_portable_cluster_size = 16;  // with the opt-in attribute (sm_90, sm_100)

struct device {
  unsigned major = 9, minor = 0;
  int smem_optin = 232448;
  bool cluster = true, coop = true;
  std::string name;
  std::size_t memory = std::size_t{16} << 30;  // capacity for cuMemAlloc / cuMemGetInfo
  std::size_t used = 0;
  CUctx_st* primary = nullptr;
  int primary_refs = 0;
};

}  // namespace

struct CUctx_st {
  int device = 0;
  bool alive = true;
};
struct CUfunc_st {
  std::string name;
  std::vector<unsigned> param_sizes;
  bool params_known = false;
  unsigned reqntid = 0;
  unsigned reqncta = 0;
  unsigned static_shared = 0;  // bytes, from the cubin's .nv.shared.<name>
  CUmod_st* module = nullptr;
  std::map<int, int> attrs;
  int cache_config = -1;
};
struct CUmod_st {
  CUctx_st* ctx = nullptr;
  std::vector<std::unique_ptr<CUfunc_st>> funcs;
};
struct CUstream_st {
  unsigned long long id = 0;
  CUctx_st* ctx = nullptr;
  unsigned flags = 0;
  bool capturing = false;
  int mode = 0;
  std::vector<tpfake_launch_record> captured;
};
struct CUlinkState_st {
  char* info_log = nullptr;
  std::size_t info_size = 0;
  char* error_log = nullptr;
  std::size_t error_size = 0;
  std::vector<tpfake::elf_kernel> kernels;
  unsigned sm = 0;
  bool arch_specific = false;
  std::vector<std::uint8_t> output;
};

namespace {

struct fake_state {
  std::mutex mutex;
  // TRITONPACK_FAKE_MS_BY_THREADS "32=2.5,64=1.0": what cuEventElapsedTime reports after a launch
  // of that many threads per block (the tuning tests' stand-in for kernels of different speed).
  std::map<unsigned, float> ms_by_threads;
  unsigned last_threads = 0;
  bool configured = false;
  bool initialized = false;
  std::vector<device> devices;
  unsigned driver_version = 13000;
  tpfake_common::failure_plan fail;
  std::set<std::string> missing;
  std::map<std::string, std::size_t> calls;
  std::vector<tpfake_launch_record> launches;
  struct allocation {
    std::size_t size;
    int device;
  };
  std::map<std::uintptr_t, allocation> allocations;
  std::size_t last_alloc = 0;
  std::set<CUstream_st*> streams;                 // created and not destroyed
  std::map<std::string, CUstream_st*> last_stream;  // per entry taking a stream: the latest one
  std::set<CUmod_st*> modules;
  std::map<std::string, std::map<int, int>> func_attrs;  // by function name, for tests
  std::map<std::string, int> func_cache;
  unsigned long long next_stream_id = 100;
  int capturing_streams = 0;
};

fake_state& S() {
  static fake_state* s = new fake_state();  // leaked: usable during exit
  return *s;
}

thread_local CUctx_st* t_current = nullptr;
thread_local std::vector<CUctx_st*> t_stack;
thread_local int t_capture_mode = 0;  // CU_STREAM_CAPTURE_MODE_GLOBAL

using tpfake_common::range_kind;
using tpfake_common::split;

void configure_locked(const char* devices, unsigned version, const char* fail, const char* missing) {
  fake_state& s = S();
  auto env = [](const char* n, const char* dflt) {
    const char* v = std::getenv(n);
    return std::string(v ? v : dflt);
  };
  const std::string dev = devices ? devices : env("TRITONPACK_FAKE_DEVICES", "sm_90");
  const std::string ver = version ? std::to_string(version) : env("TRITONPACK_FAKE_DRIVER_VERSION", "13000");
  const std::string fl = fail ? fail : env("TRITONPACK_FAKE_FAIL", "");
  const std::string ms = missing ? missing : env("TRITONPACK_FAKE_MISSING", "");
  s.ms_by_threads.clear();
  s.last_threads = 0;
  for (const std::string& item : split(env("TRITONPACK_FAKE_MS_BY_THREADS", ""), ',')) {
    const std::size_t eq = item.find('=');
    if (eq != std::string::npos) s.ms_by_threads[static_cast<unsigned>(std::stoul(item.substr(0, eq)))] = std::stof(item.substr(eq + 1));
  }
  for (auto& m : s.modules) delete m;
  s.modules.clear();
  for (auto& d : s.devices) delete d.primary;
  s.devices.clear();
  s.fail.clear();
  s.missing.clear();
  s.calls.clear();
  s.launches.clear();
  for (auto& a : s.allocations) std::free(reinterpret_cast<void*>(a.first));
  s.allocations.clear();
  for (auto* st : s.streams) delete st;
  s.streams.clear();
  s.last_stream.clear();
  s.func_attrs.clear();
  s.func_cache.clear();
  s.capturing_streams = 0;
  s.initialized = false;
  s.driver_version = static_cast<unsigned>(std::strtoul(ver.c_str(), nullptr, 10));
  if (!dev.empty() && dev != "none") {
    for (const auto& spec : split(dev, ',')) {
      auto parts = split(spec, '/');
      std::string arch = parts[0];
      if (arch.rfind("sm_", 0) == 0) arch = arch.substr(3);
      const unsigned n = static_cast<unsigned>(std::strtoul(arch.c_str(), nullptr, 10));
      device d;
      d.major = n / 10;
      d.minor = n % 10;
      // The driver's MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: 227 KB on sm_90/sm_100/sm_103, 163 KB on
      // sm_80/sm_87, 99 KB on sm_86/sm_89/sm_120/sm_121 (and below sm_80, a safe 99 KB).
      d.smem_optin = (n >= 90 && n < 120) ? 232448 : (n == 80 || n == 87) ? 166912 : 101376;
      d.cluster = n >= 90;
      d.coop = true;
      d.name = "Fake GPU sm_" + std::to_string(n);
      for (std::size_t i = 1; i < parts.size(); ++i) {
        auto kv = split(parts[i], '=');
        if (kv.size() != 2) continue;
        if (kv[0] == "smem") d.smem_optin = std::atoi(kv[1].c_str());
        if (kv[0] == "cluster") d.cluster = kv[1] == "1";
        if (kv[0] == "coop") d.coop = kv[1] == "1";
        if (kv[0] == "name") d.name = kv[1];
        if (kv[0] == "mem") d.memory = static_cast<std::size_t>(std::strtoull(kv[1].c_str(), nullptr, 10));
      }
      s.devices.push_back(d);
    }
  }
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

#define ENTER(name)                               \
  std::lock_guard<std::mutex> lock_(S().mutex);   \
  if (int injected_ = enter(#name)) return injected_;
#define NEED_INIT() \
  if (!S().initialized) return NOT_INITIALIZED;
#define NEED_CTX()                                                \
  if (!t_current || !t_current->alive) return INVALID_CONTEXT;

unsigned max_ptx_isa(unsigned v) {
  const unsigned major = v / 1000, minor = (v % 1000) / 10;
  if (major == 11) return 70 + minor;
  if (major == 12) {
    if (minor <= 5) return 80 + minor;
    if (minor == 6) return 85;
    if (minor == 7) return 86;
    if (minor == 8) return 87;
    return 88;
  }
  if (major >= 13) return 90 + minor + (major - 13) * 100;
  return 0;
}

const device& dev_of(const CUctx_st* c) { return S().devices[static_cast<std::size_t>(c->device)]; }

void write_log(char* buf, std::size_t size, const std::string& text) {
  if (!buf || size == 0) return;
  std::snprintf(buf, size, "%s", text.c_str());
}

// PTX: ".version", ".target", entries with parameter sizes, .reqntid, .reqnctapercluster.
struct ptx_info {
  unsigned isa = 0;
  unsigned target = 0;
  bool target_a = false;
  std::vector<tpfake::elf_kernel> kernels;
  std::vector<unsigned> reqncta;
};

bool parse_ptx(const char* text, ptx_info& out, std::string& why) {
  std::string s(text);
  auto v = s.find(".version");
  auto t = s.find(".target");
  if (v == std::string::npos || t == std::string::npos) {
    why = "no .version/.target directive";
    return false;
  }
  unsigned ma = 0, mi = 0;
  if (std::sscanf(s.c_str() + v, ".version %u.%u", &ma, &mi) != 2) {
    why = "bad .version";
    return false;
  }
  out.isa = ma * 10 + mi;
  char tgt[32] = {};
  if (std::sscanf(s.c_str() + t, ".target %31s", tgt) != 1 || std::strncmp(tgt, "sm_", 3) != 0) {
    why = "bad .target";
    return false;
  }
  std::string ts = tgt + 3;
  while (!ts.empty() && (ts.back() == ',' || ts.back() == ';')) ts.pop_back();
  if (!ts.empty() && (ts.back() == 'a' || ts.back() == 'f')) {
    out.target_a = ts.back() == 'a';
    ts.pop_back();
  }
  out.target = static_cast<unsigned>(std::strtoul(ts.c_str(), nullptr, 10));
  std::size_t pos = 0;
  while ((pos = s.find(".entry ", pos)) != std::string::npos) {
    pos += 7;
    const auto lp = s.find('(', pos);
    const auto rp = s.find(')', lp);
    const auto brace = s.find('{', rp);
    if (lp == std::string::npos || rp == std::string::npos || brace == std::string::npos) break;
    tpfake::elf_kernel k;
    std::string name = s.substr(pos, lp - pos);
    while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.pop_back();
    k.name = name;
    for (const auto& raw : split(s.substr(lp + 1, rp - lp - 1), ',')) {
      if (raw.find(".param") == std::string::npos) continue;
      unsigned size = 0;
      auto br = raw.find('[');
      if (br != std::string::npos) {
        size = static_cast<unsigned>(std::strtoul(raw.c_str() + br + 1, nullptr, 10));
      } else if (raw.find("64") != std::string::npos && (raw.find(".u64") != std::string::npos || raw.find(".s64") != std::string::npos ||
                                                          raw.find(".b64") != std::string::npos || raw.find(".f64") != std::string::npos)) {
        size = 8;
      } else if (raw.find(".u32") != std::string::npos || raw.find(".s32") != std::string::npos ||
                 raw.find(".b32") != std::string::npos || raw.find(".f32") != std::string::npos) {
        size = 4;
      } else if (raw.find(".u16") != std::string::npos || raw.find(".s16") != std::string::npos ||
                 raw.find(".b16") != std::string::npos || raw.find(".f16") != std::string::npos) {
        size = 2;
      } else if (raw.find(".u8") != std::string::npos || raw.find(".s8") != std::string::npos || raw.find(".b8") != std::string::npos) {
        size = 1;
      }
      k.param_sizes.push_back(size);
    }
    const std::string dirs = s.substr(rp + 1, brace - rp - 1);
    unsigned n = 0;
    auto r = dirs.find(".reqntid");
    if (r != std::string::npos && std::sscanf(dirs.c_str() + r, ".reqntid %u", &n) == 1) k.reqntid = n;
    unsigned c = 0;
    r = dirs.find(".reqnctapercluster");
    if (r != std::string::npos) std::sscanf(dirs.c_str() + r, ".reqnctapercluster %u", &c);
    out.kernels.push_back(k);
    out.reqncta.push_back(c);
    pos = brace;
  }
  return true;
}

struct jit_logs {
  char* info = nullptr;
  std::size_t info_size = 0;
  char* error = nullptr;
  std::size_t error_size = 0;
};

jit_logs read_options(unsigned n, const int* opts, void* const* vals) {
  jit_logs l;
  for (unsigned i = 0; i < n; ++i) {
    switch (opts[i]) {
      case 3: l.info = static_cast<char*>(vals[i]); break;
      case 4: l.info_size = reinterpret_cast<std::uintptr_t>(vals[i]); break;
      case 5: l.error = static_cast<char*>(vals[i]); break;
      case 6: l.error_size = reinterpret_cast<std::uintptr_t>(vals[i]); break;
      default: break;
    }
  }
  return l;
}

// Checks PTX against the current device and driver; fills kernels.
int check_ptx(const char* text, const jit_logs& logs, ptx_info& p) {
  std::string why;
  if (!parse_ptx(text, p, why)) {
    write_log(logs.error, logs.error_size, "ptxas fatal: " + why);
    return INVALID_PTX;
  }
  const unsigned max_isa = max_ptx_isa(S().driver_version);
  if (p.isa > max_isa) {
    write_log(logs.error, logs.error_size,
              "ptxas application ptx input, line 1; fatal: Unsupported .version " + std::to_string(p.isa / 10) + "." +
                  std::to_string(p.isa % 10) + "; current version is '" + std::to_string(max_isa / 10) + "." +
                  std::to_string(max_isa % 10) + "'");
    return UNSUPPORTED_PTX_VERSION;
  }
  const device& d = dev_of(t_current);
  const unsigned cc = d.major * 10 + d.minor;
  if ((p.target_a && p.target != cc) || p.target > cc) {
    write_log(logs.error, logs.error_size,
              "ptxas fatal: SM version specified by .target (sm_" + std::to_string(p.target) + (p.target_a ? "a" : "") +
                  ") is not supported on sm_" + std::to_string(cc));
    return INVALID_PTX;
  }
  write_log(logs.info, logs.info_size, "fake ptxas: compiled for sm_" + std::to_string(cc));
  return OK;
}

int load_image(CUmod_st** out, const void* image, const jit_logs& logs) {
  if (!image) return INVALID_VALUE;
  const auto* b = static_cast<const std::uint8_t*>(image);
  auto mod = std::make_unique<CUmod_st>();
  mod->ctx = t_current;
  const device& d = dev_of(t_current);
  const unsigned cc = d.major * 10 + d.minor;
  if (std::memcmp(b, "\x7f" "ELF", 4) == 0) {
    // The size of an ELF image is not passed: the driver reads headers; read sections up to the
    // section table's end (computed from the header).
    // The size of an ELF image is not passed: like the driver, find its extent from the headers
    // (the section table and the furthest section).
    const std::uint64_t shoff = tpfake::detail::get64(b + 0x28);
    const unsigned shnum = tpfake::detail::get16(b + 0x3c);
    std::size_t n = static_cast<std::size_t>(shoff + 64ull * shnum);
    for (unsigned i = 0; i < shnum; ++i) {
      const std::uint8_t* h = b + shoff + 64ull * i;
      if (tpfake::detail::get32(h + 4) == 8) continue;  // SHT_NOBITS
      const std::uint64_t end = tpfake::detail::get64(h + 24) + tpfake::detail::get64(h + 32);
      if (end > n) n = static_cast<std::size_t>(end);
    }
    tpfake::elf_info e = tpfake::read_cubin(b, n);
    if (!e.ok || e.machine != 190) return INVALID_IMAGE;
    const bool fits = e.sm / 10 == cc / 10 && e.sm % 10 <= cc % 10 && (!e.arch_specific || e.sm == cc);
    if (!fits) return NO_BINARY_FOR_GPU;
    for (auto& k : e.kernels) {
      auto f = std::make_unique<CUfunc_st>();
      f->name = k.name;
      f->param_sizes = k.param_sizes;
      f->params_known = true;
      f->reqntid = k.reqntid;
      f->static_shared = k.static_shared;
      f->module = mod.get();
      mod->funcs.push_back(std::move(f));
    }
  } else {
    ptx_info p;
    if (int r = check_ptx(reinterpret_cast<const char*>(image), logs, p)) return r;
    for (std::size_t i = 0; i < p.kernels.size(); ++i) {
      auto f = std::make_unique<CUfunc_st>();
      f->name = p.kernels[i].name;
      f->param_sizes = p.kernels[i].param_sizes;
      f->params_known = true;
      f->reqntid = p.kernels[i].reqntid;
      f->reqncta = p.reqncta[i];
      f->module = mod.get();
      mod->funcs.push_back(std::move(f));
    }
  }
  *out = mod.get();
  S().modules.insert(mod.release());
  return OK;
}

// One line per launch in TRITONPACK_FAKE_LAUNCH_LOG: "NAME grid=X,Y,Z block=X,Y,Z params=HEX,HEX,..."
// with each parameter's bytes in memory order (a little-endian i32 7 is 07000000).
void log_launch(const tpfake_launch_record& r) {
  const char* path = std::getenv("TRITONPACK_FAKE_LAUNCH_LOG");
  if (!path || !*path) return;
  std::FILE* f = std::fopen(path, "a");
  if (!f) return;
  std::fprintf(f, "%s grid=%u,%u,%u block=%u,%u,%u params=", r.name, r.grid[0], r.grid[1], r.grid[2], r.block[0], r.block[1],
               r.block[2]);
  for (unsigned i = 0; i < r.num_params; ++i) {
    if (i) std::fputc(',', f);
    for (unsigned b = 0; b < r.param_size[i]; ++b) std::fprintf(f, "%02x", r.params[r.param_offset[i] + b]);
  }
  std::fputc('\n', f);
  std::fclose(f);
}

bool is_special_stream(CUstream_st* s);

// One line per call in TRITONPACK_FAKE_STREAM_LOG: "ENTRY[ NAME] stream=WHICH", WHICH being
// "legacy" (NULL or CU_STREAM_LEGACY), "per-thread" (CU_STREAM_PER_THREAD) or "#N flags=F" for
// the N-th stream created since the process started (1-based: stable across runs, unlike an
// address) with its cuStreamCreate flags.
void log_stream_call(const char* entry, const char* name, CUstream_st* stream) {
  const char* path = std::getenv("TRITONPACK_FAKE_STREAM_LOG");
  if (!path || !*path) return;
  std::FILE* f = std::fopen(path, "a");
  if (!f) return;
  std::fprintf(f, "%s%s%s stream=", entry, name ? " " : "", name ? name : "");
  const std::uintptr_t p = reinterpret_cast<std::uintptr_t>(stream);
  if (p == 0 || p == 1) std::fprintf(f, "legacy\n");
  else if (p == 2) std::fprintf(f, "per-thread\n");
  else std::fprintf(f, "#%llu flags=%u\n", stream->id - 99, stream->flags);  // ids start at 100
  std::fclose(f);
}

int do_launch(CUfunc_st* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shared,
              CUstream_st* stream, void** params, bool ex, const tpfake_launch_record& attrs) {
  fake_state& s = S();
  if (!f || !s.modules.count(f->module)) return INVALID_HANDLE;
  if (!t_current || f->module->ctx != t_current) return INVALID_CONTEXT;
  const device& d = dev_of(t_current);
  if (gx == 0 || gy == 0 || gz == 0 || gx > 0x7fffffffu || gy > 65535 || gz > 65535) return INVALID_VALUE;
  if (bx * by * bz > 1024 || (f->reqntid && (bx != f->reqntid || by != 1 || bz != 1))) return INVALID_VALUE;
  auto it = f->attrs.find(8);
  const int max_dyn = it != f->attrs.end() ? it->second : 49152;
  if (shared > static_cast<unsigned>(max_dyn)) return INVALID_VALUE;
  if (shared + f->static_shared > static_cast<unsigned>(d.smem_optin)) return INVALID_VALUE;
  if (f->reqncta > 1 && attrs.cluster[0] != f->reqncta) return INVALID_VALUE;
  const unsigned cluster_ctas = attrs.cluster[0] * (attrs.cluster[1] ? attrs.cluster[1] : 1) * (attrs.cluster[2] ? attrs.cluster[2] : 1);
  const auto np = f->attrs.find(FUNC_NON_PORTABLE_CLUSTER_SIZE_ALLOWED);
  const bool non_portable = np != f->attrs.end() && np->second == 1;
  if (cluster_ctas > (non_portable ? non_portable_cluster_size : portable_cluster_size)) return INVALID_CLUSTER_SIZE;
  if (attrs.cluster[0] > 1 && (!d.cluster || gx % attrs.cluster[0] != 0)) return INVALID_VALUE;
  if (attrs.cooperative == 1 && !d.coop) return NOT_SUPPORTED;
  tpfake_launch_record r = attrs;
  std::snprintf(r.name, sizeof r.name, "%s", f->name.c_str());
  r.device = t_current->device;
  r.grid[0] = gx;
  r.grid[1] = gy;
  r.grid[2] = gz;
  r.block[0] = bx;
  s.last_threads = bx;
  r.block[1] = by;
  r.block[2] = bz;
  r.shared = shared;
  r.stream = stream;
  r.via_ex = ex ? 1 : 0;
  if (f->params_known) {
    if (f->param_sizes.size() > 64) return INVALID_VALUE;
    if (!f->param_sizes.empty() && !params) return INVALID_VALUE;
    unsigned off = 0;
    r.num_params = static_cast<unsigned>(f->param_sizes.size());
    for (std::size_t i = 0; i < f->param_sizes.size(); ++i) {
      const unsigned size = f->param_sizes[i];
      if (!params[i] || off + size > sizeof r.params) return INVALID_VALUE;
      if (params[i] == reinterpret_cast<void*>(std::uintptr_t{TPFAKE_POISON_PARAM})) return INVALID_VALUE;  // never assembled
      r.param_size[i] = size;
      r.param_offset[i] = off;
      std::memcpy(r.params + off, params[i], size);
      off += size;
    }
  }
  if (stream && reinterpret_cast<std::uintptr_t>(stream) > 2 && stream->capturing) {
    r.captured = 1;
    stream->captured.push_back(r);
  }
  s.launches.push_back(r);
  log_launch(r);
  log_stream_call(ex ? "cuLaunchKernelEx" : "cuLaunchKernel", r.name, stream);
  return OK;
}

bool is_special_stream(CUstream_st* s) { return reinterpret_cast<std::uintptr_t>(s) <= 2; }

// A stream handle the driver would accept: the legacy/per-thread default ones, or a live stream.
bool known_stream(CUstream_st* s) { return is_special_stream(s) || S().streams.count(s) != 0; }

// Where [p, p + n) lies: host memory (outside every allocation), within one device allocation, or
// starting in one and running past its end (what the driver refuses with INVALID_VALUE).
range_kind classify(std::uint64_t p, std::size_t n) { return tpfake_common::classify(S().allocations, p, n); }

}  // namespace

// ---------------------------------------------------------------------------------------------
// Control interface

TP_EXPORT void tpfake_configure(const char* devices, unsigned driver_version, const char* fail, const char* missing) {
  std::lock_guard<std::mutex> lock(S().mutex);
  configure_locked(devices, driver_version, fail, missing);
  t_current = nullptr;
  t_stack.clear();
}
TP_EXPORT size_t tpfake_launch_count(void) {
  std::lock_guard<std::mutex> lock(S().mutex);
  return S().launches.size();
}
TP_EXPORT int tpfake_get_launch(size_t i, tpfake_launch_record* out) {
  std::lock_guard<std::mutex> lock(S().mutex);
  if (i >= S().launches.size() || !out) return 1;
  *out = S().launches[i];
  return 0;
}
// TRITONPACK_FAKE_REPORT=<path>: at exit, the accepted launches per kernel, for tests that run a
// whole program (examples/quickstart) on the double.
__attribute__((destructor)) static void write_exit_report() {
  std::lock_guard<std::mutex> lock(S().mutex);
  tpfake_common::write_report("TRITONPACK_FAKE_REPORT", tpfake_common::launch_report(S().launches));
}
TP_EXPORT void tpfake_clear_launches(void) {
  std::lock_guard<std::mutex> lock(S().mutex);
  S().launches.clear();
}
TP_EXPORT size_t tpfake_calls(const char* entry) {
  std::lock_guard<std::mutex> lock(S().mutex);
  auto it = S().calls.find(entry);
  return it == S().calls.end() ? 0 : it->second;
}
TP_EXPORT size_t tpfake_live_allocations(void) {
  std::lock_guard<std::mutex> lock(S().mutex);
  return S().allocations.size();
}
TP_EXPORT size_t tpfake_live_modules(void) {
  std::lock_guard<std::mutex> lock(S().mutex);
  return S().modules.size();
}
TP_EXPORT size_t tpfake_last_alloc_size(void) {
  std::lock_guard<std::mutex> lock(S().mutex);
  return S().last_alloc;
}
TP_EXPORT int tpfake_func_attribute(const char* name, int attribute) {
  std::lock_guard<std::mutex> lock(S().mutex);
  auto it = S().func_attrs.find(name);
  if (it == S().func_attrs.end()) return -1;
  auto a = it->second.find(attribute);
  return a == it->second.end() ? -1 : a->second;
}
TP_EXPORT int tpfake_current_device(void) {
  std::lock_guard<std::mutex> lock(S().mutex);
  return t_current ? t_current->device : -1;
}
TP_EXPORT void* tpfake_current_context(void) {
  std::lock_guard<std::mutex> lock(S().mutex);
  return t_current;
}
TP_EXPORT void* tpfake_primary_context(int device) {
  std::lock_guard<std::mutex> lock(S().mutex);
  if (device < 0 || static_cast<std::size_t>(device) >= S().devices.size()) return nullptr;
  return S().devices[static_cast<std::size_t>(device)].primary;
}
TP_EXPORT int tpfake_allocation_device(const void* p) {
  std::lock_guard<std::mutex> lock(S().mutex);
  const auto addr = reinterpret_cast<std::uintptr_t>(p);
  if (classify(addr, 1) == range_kind::host) return -1;
  return std::prev(S().allocations.upper_bound(addr))->second.device;
}
TP_EXPORT size_t tpfake_live_streams(void) {
  std::lock_guard<std::mutex> lock(S().mutex);
  return S().streams.size();
}
TP_EXPORT int tpfake_stream_device(void* s) {
  std::lock_guard<std::mutex> lock(S().mutex);
  auto* st = static_cast<CUstream_st*>(s);
  return S().streams.count(st) ? st->ctx->device : -1;
}
TP_EXPORT int tpfake_stream_flags(void* s) {
  std::lock_guard<std::mutex> lock(S().mutex);
  auto* st = static_cast<CUstream_st*>(s);
  return S().streams.count(st) ? static_cast<int>(st->flags) : -1;
}
TP_EXPORT void* tpfake_last_stream(const char* entry) {
  std::lock_guard<std::mutex> lock(S().mutex);
  auto it = S().last_stream.find(entry);
  return it == S().last_stream.end() ? reinterpret_cast<void*>(~std::uintptr_t{0}) : it->second;
}
TP_EXPORT int tpfake_func_cache_config(const char* name) {
  std::lock_guard<std::mutex> lock(S().mutex);
  auto it = S().func_cache.find(name);
  return it == S().func_cache.end() ? -1 : it->second;
}

// ---------------------------------------------------------------------------------------------
// Driver API

TP_EXPORT CUresult cuGetErrorName(CUresult r, const char** s) {
  static const std::map<int, const char*> names = {
      {0, "CUDA_SUCCESS"}, {1, "CUDA_ERROR_INVALID_VALUE"}, {2, "CUDA_ERROR_OUT_OF_MEMORY"},
      {3, "CUDA_ERROR_NOT_INITIALIZED"}, {100, "CUDA_ERROR_NO_DEVICE"}, {101, "CUDA_ERROR_INVALID_DEVICE"},
      {200, "CUDA_ERROR_INVALID_IMAGE"}, {201, "CUDA_ERROR_INVALID_CONTEXT"}, {209, "CUDA_ERROR_NO_BINARY_FOR_GPU"},
      {218, "CUDA_ERROR_INVALID_PTX"}, {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"}, {400, "CUDA_ERROR_INVALID_HANDLE"},
      {500, "CUDA_ERROR_NOT_FOUND"}, {600, "CUDA_ERROR_NOT_READY"}, {700, "CUDA_ERROR_ILLEGAL_ADDRESS"},
      {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"}, {719, "CUDA_ERROR_LAUNCH_FAILED"}, {801, "CUDA_ERROR_NOT_SUPPORTED"},
      {900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"}, {912, "CUDA_ERROR_INVALID_CLUSTER_SIZE"}};
  auto it = names.find(r);
  if (!s) return INVALID_VALUE;
  *s = it == names.end() ? nullptr : it->second;
  return it == names.end() ? INVALID_VALUE : OK;
}
TP_EXPORT CUresult cuGetErrorString(CUresult r, const char** s) {
  if (!s) return INVALID_VALUE;
  *s = r == 0 ? "no error" : "fake driver error";
  return OK;
}
TP_EXPORT CUresult cuDriverGetVersion(int* v) {
  std::lock_guard<std::mutex> lock(S().mutex);
  if (!S().configured) configure_locked(nullptr, 0, nullptr, nullptr);
  ++S().calls["cuDriverGetVersion"];
  if (!v) return INVALID_VALUE;
  *v = static_cast<int>(S().driver_version);
  return OK;
}
TP_EXPORT CUresult cuInit(unsigned flags) {
  ENTER(cuInit);
  if (flags != 0) return INVALID_VALUE;
  if (S().devices.empty()) return NO_DEVICE;
  S().initialized = true;
  return OK;
}
TP_EXPORT CUresult cuDeviceGetCount(int* n) {
  ENTER(cuDeviceGetCount);
  NEED_INIT();
  *n = static_cast<int>(S().devices.size());
  return OK;
}
TP_EXPORT CUresult cuDeviceGet(int* d, int ordinal) {
  ENTER(cuDeviceGet);
  NEED_INIT();
  if (ordinal < 0 || static_cast<std::size_t>(ordinal) >= S().devices.size()) return INVALID_DEVICE;
  *d = ordinal;
  return OK;
}
TP_EXPORT CUresult cuDeviceGetAttribute(int* v, int attr, int dev) {
  ENTER(cuDeviceGetAttribute);
  NEED_INIT();
  if (dev < 0 || static_cast<std::size_t>(dev) >= S().devices.size()) return INVALID_DEVICE;
  const device& d = S().devices[static_cast<std::size_t>(dev)];
  switch (attr) {
    case 75: *v = static_cast<int>(d.major); break;
    case 76: *v = static_cast<int>(d.minor); break;
    case 8: *v = 49152; break;
    case 97: *v = d.smem_optin; break;
    case 16: *v = 132; break;
    case 95: *v = d.coop ? 1 : 0; break;
    case 120: *v = d.cluster ? 1 : 0; break;
    default: *v = 0; break;
  }
  return OK;
}
TP_EXPORT CUresult cuDeviceGetName(char* name, int len, int dev) {
  ENTER(cuDeviceGetName);
  NEED_INIT();
  if (dev < 0 || static_cast<std::size_t>(dev) >= S().devices.size()) return INVALID_DEVICE;
  std::snprintf(name, static_cast<std::size_t>(len), "%s", S().devices[static_cast<std::size_t>(dev)].name.c_str());
  return OK;
}
TP_EXPORT CUresult cuDevicePrimaryCtxRetain(CUctx_st** c, int dev) {
  ENTER(cuDevicePrimaryCtxRetain);
  NEED_INIT();
  if (dev < 0 || static_cast<std::size_t>(dev) >= S().devices.size()) return INVALID_DEVICE;
  device& d = S().devices[static_cast<std::size_t>(dev)];
  if (!d.primary) {
    d.primary = new CUctx_st();
    d.primary->device = dev;
  }
  ++d.primary_refs;
  *c = d.primary;
  return OK;
}
TP_EXPORT CUresult cuDevicePrimaryCtxRelease(int dev) {
  ENTER(cuDevicePrimaryCtxRelease);
  NEED_INIT();
  if (dev < 0 || static_cast<std::size_t>(dev) >= S().devices.size()) return INVALID_DEVICE;
  device& d = S().devices[static_cast<std::size_t>(dev)];
  if (d.primary_refs <= 0) return INVALID_CONTEXT;
  --d.primary_refs;
  return OK;
}
TP_EXPORT CUresult cuCtxGetCurrent(CUctx_st** c) {
  ENTER(cuCtxGetCurrent);
  NEED_INIT();
  *c = t_current;
  return OK;
}
TP_EXPORT CUresult cuCtxSetCurrent(CUctx_st* c) {
  ENTER(cuCtxSetCurrent);
  NEED_INIT();
  t_current = c;
  return OK;
}
TP_EXPORT CUresult cuCtxGetDevice(int* d) {
  ENTER(cuCtxGetDevice);
  NEED_INIT();
  NEED_CTX();
  *d = t_current->device;
  return OK;
}
TP_EXPORT CUresult cuCtxPushCurrent(CUctx_st* c) {
  ENTER(cuCtxPushCurrent);
  NEED_INIT();
  t_stack.push_back(t_current);
  t_current = c;
  return OK;
}
TP_EXPORT CUresult cuCtxPopCurrent(CUctx_st** c) {
  ENTER(cuCtxPopCurrent);
  NEED_INIT();
  if (t_stack.empty()) return INVALID_CONTEXT;
  if (c) *c = t_current;
  t_current = t_stack.back();
  t_stack.pop_back();
  return OK;
}
TP_EXPORT CUresult cuCtxSynchronize() {
  ENTER(cuCtxSynchronize);
  NEED_INIT();
  NEED_CTX();
  return OK;
}
TP_EXPORT CUresult cuModuleLoadData(CUmod_st** m, const void* image) {
  ENTER(cuModuleLoadData);
  NEED_INIT();
  NEED_CTX();
  return load_image(m, image, jit_logs{});
}
TP_EXPORT CUresult cuModuleLoadDataEx(CUmod_st** m, const void* image, unsigned n, int* opts, void** vals) {
  ENTER(cuModuleLoadDataEx);
  NEED_INIT();
  NEED_CTX();
  return load_image(m, image, read_options(n, opts, vals));
}
TP_EXPORT CUresult cuModuleUnload(CUmod_st* m) {
  ENTER(cuModuleUnload);
  NEED_INIT();
  if (!S().modules.erase(m)) return INVALID_HANDLE;
  delete m;
  return OK;
}
TP_EXPORT CUresult cuModuleGetFunction(CUfunc_st** f, CUmod_st* m, const char* name) {
  ENTER(cuModuleGetFunction);
  NEED_INIT();
  if (!S().modules.count(m)) return INVALID_HANDLE;
  for (auto& fn : m->funcs)
    if (fn->name == name) {
      *f = fn.get();
      return OK;
    }
  return NOT_FOUND;
}
TP_EXPORT CUresult cuFuncGetAttribute(int* v, int attr, CUfunc_st* f) {
  ENTER(cuFuncGetAttribute);
  NEED_INIT();
  if (!f || !S().modules.count(f->module)) return INVALID_HANDLE;
  switch (attr) {
    case 0: *v = f->reqntid ? static_cast<int>(f->reqntid) : 1024; break;
    case FUNC_SHARED_SIZE_BYTES: *v = static_cast<int>(f->static_shared); break;
    case 4: *v = 32; break;
    case 8: *v = f->attrs.count(8) ? f->attrs[8] : 49152; break;
    default: *v = f->attrs.count(attr) ? f->attrs[attr] : 0; break;
  }
  return OK;
}
TP_EXPORT CUresult cuFuncSetAttribute(CUfunc_st* f, int attr, int v) {
  ENTER(cuFuncSetAttribute);
  NEED_INIT();
  if (!f || !S().modules.count(f->module)) return INVALID_HANDLE;
  // Dynamic shared memory may be raised to the opt-in limit less the function's static shared memory.
  if (attr == FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES &&
      (v < 0 || v > dev_of(f->module->ctx).smem_optin - static_cast<int>(f->static_shared)))
    return INVALID_VALUE;
  if (attr == FUNC_NON_PORTABLE_CLUSTER_SIZE_ALLOWED && (v < 0 || v > 1 || !dev_of(f->module->ctx).cluster)) return INVALID_VALUE;
  f->attrs[attr] = v;
  S().func_attrs[f->name][attr] = v;
  return OK;
}
TP_EXPORT CUresult cuFuncSetCacheConfig(CUfunc_st* f, int c) {
  ENTER(cuFuncSetCacheConfig);
  NEED_INIT();
  if (!f || !S().modules.count(f->module)) return INVALID_HANDLE;
  f->cache_config = c;
  S().func_cache[f->name] = c;
  return OK;
}
TP_EXPORT CUresult cuFuncGetParamInfo(CUfunc_st* f, size_t i, size_t* off, size_t* size) {
  ENTER(cuFuncGetParamInfo);
  NEED_INIT();
  if (!f || !S().modules.count(f->module)) return INVALID_HANDLE;
  if (!f->params_known) return NOT_SUPPORTED;
  if (i >= f->param_sizes.size()) return INVALID_VALUE;
  std::size_t o = 0;
  for (std::size_t k = 0; k <= i; ++k) {
    const std::size_t s = f->param_sizes[k];
    const std::size_t a = s >= 128 ? 64 : (s >= 8 ? 8 : (s ? s : 1));
    o = (o + a - 1) / a * a;
    if (k == i) break;
    o += s;
  }
  *off = o;
  *size = f->param_sizes[i];
  return OK;
}
TP_EXPORT CUresult cuLaunchKernel(CUfunc_st* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                                  unsigned shared, CUstream_st* stream, void** params, void** extra) {
  ENTER(cuLaunchKernel);
  NEED_INIT();
  if (extra) return INVALID_VALUE;
  tpfake_launch_record attrs{};
  attrs.cluster_policy = -1;
  attrs.cooperative = -1;
  attrs.pdl = -1;
  return do_launch(f, gx, gy, gz, bx, by, bz, shared, stream, params, false, attrs);
}

struct fake_launch_config {
  unsigned gx, gy, gz, bx, by, bz, shared;
  CUstream_st* stream;
  struct attr {
    int id;
    char pad[4];
    union {
      char pad[64];
      int i;
      struct {
        unsigned x, y, z;
      } dim;
    } v;
  } * attrs;
  unsigned num_attrs;
};

TP_EXPORT CUresult cuLaunchKernelEx(const fake_launch_config* c, CUfunc_st* f, void** params, void** extra) {
  ENTER(cuLaunchKernelEx);
  NEED_INIT();
  if (!c || extra) return INVALID_VALUE;
  tpfake_launch_record attrs{};
  attrs.cluster_policy = -1;
  attrs.cooperative = -1;
  attrs.pdl = -1;
  for (unsigned i = 0; i < c->num_attrs; ++i) {
    const auto& a = c->attrs[i];
    switch (a.id) {
      case 2: attrs.cooperative = a.v.i; break;
      case 4:
        attrs.cluster[0] = a.v.dim.x;
        attrs.cluster[1] = a.v.dim.y;
        attrs.cluster[2] = a.v.dim.z;
        break;
      case 5: attrs.cluster_policy = a.v.i; break;
      case 6: attrs.pdl = a.v.i; break;
      default: return INVALID_VALUE;
    }
  }
  return do_launch(f, c->gx, c->gy, c->gz, c->bx, c->by, c->bz, c->shared, c->stream, params, true, attrs);
}
TP_EXPORT CUresult cuMemAlloc(std::uint64_t* p, size_t size) {
  ENTER(cuMemAlloc);
  NEED_INIT();
  NEED_CTX();
  if (size == 0) return INVALID_VALUE;
  // A potentially unsafe call during a stream capture in global mode is refused.
  if (S().capturing_streams > 0 && t_capture_mode != 2) return STREAM_CAPTURE_UNSUPPORTED;
  device& d = S().devices[static_cast<std::size_t>(t_current->device)];
  if (size > d.memory - d.used) return OUT_OF_MEMORY;
  void* m = std::aligned_alloc(256, (size + 255) / 256 * 256);
  if (!m) return OUT_OF_MEMORY;
  *p = reinterpret_cast<std::uintptr_t>(m);
  S().allocations[*p] = {size, t_current->device};
  S().last_alloc = size;
  d.used += size;
  return OK;
}
TP_EXPORT CUresult cuMemFree(std::uint64_t p) {
  ENTER(cuMemFree);
  NEED_INIT();
  NEED_CTX();
  if (p == 0) return OK;
  auto it = S().allocations.find(p);
  if (it == S().allocations.end()) return INVALID_VALUE;
  std::free(reinterpret_cast<void*>(p));
  S().devices[static_cast<std::size_t>(it->second.device)].used -= it->second.size;
  S().allocations.erase(it);
  return OK;
}
TP_EXPORT CUresult cuMemGetInfo(size_t* free_bytes, size_t* total) {
  ENTER(cuMemGetInfo);
  NEED_INIT();
  NEED_CTX();
  const device& d = dev_of(t_current);
  *free_bytes = d.memory - d.used;
  *total = d.memory;
  return OK;
}
// Unified addressing: the direction is read from the pointers.
TP_EXPORT CUresult cuMemcpy(std::uint64_t dst, std::uint64_t src, size_t n) {
  ENTER(cuMemcpy);
  NEED_INIT();
  NEED_CTX();
  if (classify(dst, n) == range_kind::past_end || classify(src, n) == range_kind::past_end) return INVALID_VALUE;
  std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), n);
  return OK;
}
TP_EXPORT CUresult cuMemcpyAsync(std::uint64_t dst, std::uint64_t src, size_t n, CUstream_st* stream) {
  ENTER(cuMemcpyAsync);
  NEED_INIT();
  NEED_CTX();
  if (!known_stream(stream)) return INVALID_HANDLE;
  if (classify(dst, n) == range_kind::past_end || classify(src, n) == range_kind::past_end) return INVALID_VALUE;
  S().last_stream["cuMemcpyAsync"] = stream;
  log_stream_call("cuMemcpyAsync", nullptr, stream);
  std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), n);
  return OK;
}
TP_EXPORT CUresult cuMemsetD8Async(std::uint64_t dst, unsigned char v, size_t n, CUstream_st* stream) {
  ENTER(cuMemsetD8Async);
  NEED_INIT();
  NEED_CTX();
  if (!known_stream(stream)) return INVALID_HANDLE;
  if (classify(dst, n) != range_kind::device) return INVALID_VALUE;
  S().last_stream["cuMemsetD8Async"] = stream;
  log_stream_call("cuMemsetD8Async", nullptr, stream);
  std::memset(reinterpret_cast<void*>(dst), v, n);
  return OK;
}
TP_EXPORT CUresult cuPointerGetAttribute(void* data, int attribute, std::uint64_t p) {
  ENTER(cuPointerGetAttribute);
  NEED_INIT();
  if (!data) return INVALID_VALUE;
  const auto& a = S().allocations;
  auto it = a.upper_bound(static_cast<std::uintptr_t>(p));
  if (it == a.begin() || p >= std::prev(it)->first + std::prev(it)->second.size) return INVALID_VALUE;  // not CUDA memory
  --it;
  switch (attribute) {
    case 2: *static_cast<unsigned*>(data) = 2; break;  // CU_MEMORYTYPE_DEVICE
    case 9: *static_cast<int*>(data) = it->second.device; break;
    case 11: *static_cast<std::uint64_t*>(data) = it->first; break;
    case 12: *static_cast<size_t*>(data) = it->second.size; break;
    default: return INVALID_VALUE;
  }
  return OK;
}
TP_EXPORT CUresult cuMemcpyHtoD(std::uint64_t dst, const void* src, size_t n) {
  ENTER(cuMemcpyHtoD);
  NEED_INIT();
  std::memcpy(reinterpret_cast<void*>(dst), src, n);
  return OK;
}
TP_EXPORT CUresult cuMemcpyDtoH(void* dst, std::uint64_t src, size_t n) {
  ENTER(cuMemcpyDtoH);
  NEED_INIT();
  std::memcpy(dst, reinterpret_cast<const void*>(src), n);
  return OK;
}
TP_EXPORT CUresult cuMemsetD8(std::uint64_t dst, unsigned char v, size_t n) {
  ENTER(cuMemsetD8);
  NEED_INIT();
  if (classify(dst, n) != range_kind::device) return INVALID_VALUE;
  std::memset(reinterpret_cast<void*>(dst), v, n);
  return OK;
}
TP_EXPORT CUresult cuStreamCreate(CUstream_st** s, unsigned flags) {
  ENTER(cuStreamCreate);
  NEED_INIT();
  NEED_CTX();
  if (flags > 1) return INVALID_VALUE;
  *s = new CUstream_st();
  (*s)->id = S().next_stream_id++;
  (*s)->ctx = t_current;
  (*s)->flags = flags;
  S().streams.insert(*s);
  log_stream_call("cuStreamCreate", nullptr, *s);
  return OK;
}
TP_EXPORT CUresult cuStreamDestroy(CUstream_st* s) {
  ENTER(cuStreamDestroy);
  NEED_INIT();
  if (is_special_stream(s) || !S().streams.erase(s)) return INVALID_HANDLE;
  if (s->capturing) --S().capturing_streams;
  delete s;
  return OK;
}
TP_EXPORT CUresult cuStreamSynchronize(CUstream_st* s) {
  ENTER(cuStreamSynchronize);
  NEED_INIT();
  if (!known_stream(s)) return INVALID_HANDLE;
  if (is_special_stream(s) && (!t_current || !t_current->alive)) return INVALID_CONTEXT;
  S().last_stream["cuStreamSynchronize"] = s;
  log_stream_call("cuStreamSynchronize", nullptr, s);
  return OK;
}
TP_EXPORT CUresult cuStreamGetId(CUstream_st* s, unsigned long long* id) {
  ENTER(cuStreamGetId);
  NEED_INIT();
  *id = is_special_stream(s) ? reinterpret_cast<std::uintptr_t>(s) + 1 : s->id;
  return OK;
}
TP_EXPORT CUresult cuStreamIsCapturing(CUstream_st* s, int* status) {
  ENTER(cuStreamIsCapturing);
  NEED_INIT();
  *status = !is_special_stream(s) && s->capturing ? 1 : 0;
  return OK;
}
TP_EXPORT CUresult cuThreadExchangeStreamCaptureMode(int* mode) {
  ENTER(cuThreadExchangeStreamCaptureMode);
  const int old = t_capture_mode;
  t_capture_mode = *mode;
  *mode = old;
  return OK;
}
TP_EXPORT CUresult cuStreamBeginCapture(CUstream_st* s, int mode) {
  ENTER(cuStreamBeginCapture);
  NEED_INIT();
  if (is_special_stream(s) || s->capturing) return INVALID_VALUE;
  s->capturing = true;
  s->mode = mode;
  s->captured.clear();
  ++S().capturing_streams;
  return OK;
}
TP_EXPORT CUresult cuStreamEndCapture(CUstream_st* s, CUgraph_st** g) {
  ENTER(cuStreamEndCapture);
  NEED_INIT();
  if (is_special_stream(s) || !s->capturing) return INVALID_VALUE;
  s->capturing = false;
  --S().capturing_streams;
  *g = new CUgraph_st();
  (*g)->nodes = s->captured;
  s->captured.clear();
  return OK;
}
TP_EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec_st** e, CUgraph_st* g, unsigned long long) {
  ENTER(cuGraphInstantiateWithFlags);
  NEED_INIT();
  *e = new CUgraphExec_st();
  (*e)->nodes = g->nodes;
  return OK;
}
TP_EXPORT CUresult cuGraphLaunch(CUgraphExec_st* e, CUstream_st* s) {
  ENTER(cuGraphLaunch);
  NEED_INIT();
  log_stream_call("cuGraphLaunch", nullptr, s);
  for (auto r : e->nodes) {
    r.captured = 2;
    r.stream = s;
    S().launches.push_back(r);
  }
  return OK;
}
TP_EXPORT CUresult cuGraphExecDestroy(CUgraphExec_st* e) {
  ENTER(cuGraphExecDestroy);
  delete e;
  return OK;
}
TP_EXPORT CUresult cuGraphDestroy(CUgraph_st* g) {
  ENTER(cuGraphDestroy);
  delete g;
  return OK;
}
TP_EXPORT CUresult cuEventCreate(CUevent_st** e, unsigned) {
  ENTER(cuEventCreate);
  NEED_INIT();
  *e = new CUevent_st();
  return OK;
}
TP_EXPORT CUresult cuEventRecord(CUevent_st* e, CUstream_st*) {
  ENTER(cuEventRecord);
  NEED_INIT();
  return e ? OK : INVALID_HANDLE;
}
TP_EXPORT CUresult cuEventQuery(CUevent_st* e) {
  ENTER(cuEventQuery);
  NEED_INIT();
  return e ? OK : INVALID_HANDLE;
}
TP_EXPORT CUresult cuEventSynchronize(CUevent_st* e) {
  ENTER(cuEventSynchronize);
  NEED_INIT();
  return e ? OK : INVALID_HANDLE;
}
TP_EXPORT CUresult cuEventDestroy(CUevent_st* e) {
  ENTER(cuEventDestroy);
  delete e;
  return OK;
}
TP_EXPORT CUresult cuEventElapsedTime(float* ms, CUevent_st*, CUevent_st*) {
  ENTER(cuEventElapsedTime);
  const auto it = S().ms_by_threads.find(S().last_threads);
  *ms = it == S().ms_by_threads.end() ? 0.0f : it->second;
  return OK;
}
TP_EXPORT CUresult cuTensorMapEncodeTiled(void* map, int type, unsigned rank, void* addr, const std::uint64_t* dims,
                                          const std::uint64_t* strides, const unsigned* box, const unsigned* estrides,
                                          int interleave, int swizzle, int l2, int oob) {
  ENTER(cuTensorMapEncodeTiled);
  if (!map || reinterpret_cast<std::uintptr_t>(map) % 64 != 0) return INVALID_VALUE;
  if (rank < 1 || rank > 5 || type < 0 || type > 15 || swizzle < 0 || swizzle > 3) return INVALID_VALUE;
  if (reinterpret_cast<std::uintptr_t>(addr) % 16 != 0) return INVALID_VALUE;
  for (unsigned i = 0; i < rank; ++i) {
    if (dims[i] == 0 || dims[i] > (1ull << 32)) return INVALID_VALUE;
    if (box[i] == 0 || box[i] > 256 || estrides[i] == 0 || estrides[i] > 8) return INVALID_VALUE;
  }
  for (unsigned i = 0; i + 1 < rank; ++i)
    if (strides[i] % 16 != 0 || strides[i] >= (1ull << 40)) return INVALID_VALUE;
  tpfake_tensor_map m{};
  m.magic = 0x50414d54;
  m.data_type = type;
  m.rank = rank;
  m.interleave = interleave;
  m.swizzle = swizzle;
  m.l2_promotion = l2;
  m.oob_fill = oob;
  m.global_address = reinterpret_cast<std::uintptr_t>(addr);
  for (unsigned i = 0; i < rank; ++i) {
    m.global_dim[i] = dims[i];
    m.box_dim[i] = box[i];
  }
  for (unsigned i = 0; i + 1 < rank; ++i) m.global_strides[i] = strides[i];
  static_assert(sizeof(tpfake_tensor_map) <= 128, "fits a CUtensorMap");
  std::memset(map, 0, 128);
  std::memcpy(map, &m, sizeof m);
  return OK;
}
TP_EXPORT CUresult cuLinkCreate(unsigned n, int* opts, void** vals, CUlinkState_st** out) {
  ENTER(cuLinkCreate);
  NEED_INIT();
  NEED_CTX();
  auto* l = new CUlinkState_st();
  const jit_logs logs = read_options(n, opts, vals);
  l->info_log = logs.info;
  l->info_size = logs.info_size;
  l->error_log = logs.error;
  l->error_size = logs.error_size;
  *out = l;
  return OK;
}
TP_EXPORT CUresult cuLinkAddData(CUlinkState_st* l, int type, void* data, size_t, const char*, unsigned, int*, void**) {
  ENTER(cuLinkAddData);
  NEED_INIT();
  NEED_CTX();
  if (type != 1) return INVALID_VALUE;
  ptx_info p;
  jit_logs logs{l->info_log, l->info_size, l->error_log, l->error_size};
  if (int r = check_ptx(static_cast<const char*>(data), logs, p)) return r;
  for (auto& k : p.kernels) l->kernels.push_back(k);
  const device& d = dev_of(t_current);
  l->sm = d.major * 10 + d.minor;
  l->arch_specific = d.major >= 9;
  return OK;
}
TP_EXPORT CUresult cuLinkComplete(CUlinkState_st* l, void** cubin, size_t* size) {
  ENTER(cuLinkComplete);
  NEED_INIT();
  if (l->kernels.empty()) return INVALID_VALUE;
  l->output = tpfake::make_cubin(l->sm, l->arch_specific, l->kernels);
  *cubin = l->output.data();
  *size = l->output.size();
  return OK;
}
TP_EXPORT CUresult cuLinkDestroy(CUlinkState_st* l) {
  ENTER(cuLinkDestroy);
  delete l;
  return OK;
}

// ---------------------------------------------------------------------------------------------
// cuGetProcAddress: the run time resolves everything through it.

namespace {
void* lookup(const char* name) {
#define E(n) {#n, reinterpret_cast<void*>(&n)}
  static const std::map<std::string, void*> table = {
      E(cuGetErrorName), E(cuGetErrorString), E(cuInit), E(cuDriverGetVersion), E(cuDeviceGetCount), E(cuDeviceGet),
      E(cuDeviceGetAttribute), E(cuDeviceGetName), E(cuDevicePrimaryCtxRetain), E(cuDevicePrimaryCtxRelease),
      E(cuCtxGetCurrent), E(cuCtxSetCurrent), E(cuCtxGetDevice), E(cuCtxPushCurrent), E(cuCtxPopCurrent),
      E(cuCtxSynchronize), E(cuModuleLoadData), E(cuModuleLoadDataEx), E(cuModuleUnload), E(cuModuleGetFunction),
      E(cuFuncGetAttribute), E(cuFuncSetAttribute), E(cuFuncSetCacheConfig), E(cuFuncGetParamInfo), E(cuLaunchKernel),
      E(cuLaunchKernelEx), E(cuMemAlloc), E(cuMemFree), E(cuMemcpyHtoD), E(cuMemcpyDtoH), E(cuMemsetD8),
      E(cuStreamCreate), E(cuStreamDestroy), E(cuStreamSynchronize), E(cuStreamGetId), E(cuStreamIsCapturing),
      E(cuThreadExchangeStreamCaptureMode), E(cuStreamBeginCapture), E(cuStreamEndCapture), E(cuGraphInstantiateWithFlags),
      E(cuGraphLaunch), E(cuGraphExecDestroy), E(cuGraphDestroy), E(cuEventCreate), E(cuEventRecord), E(cuEventQuery),
      E(cuEventSynchronize), E(cuEventDestroy), E(cuEventElapsedTime), E(cuTensorMapEncodeTiled), E(cuLinkCreate),
      E(cuLinkAddData), E(cuLinkComplete), E(cuLinkDestroy), E(cuMemcpy), E(cuMemcpyAsync), E(cuMemsetD8Async),
      E(cuMemGetInfo), E(cuPointerGetAttribute)};
#undef E
  {
    std::lock_guard<std::mutex> lock(S().mutex);
    if (!S().configured) configure_locked(nullptr, 0, nullptr, nullptr);
    ++S().calls["cuGetProcAddress"];
    if (S().missing.count(name)) return nullptr;
  }
  auto it = table.find(name);
  return it == table.end() ? nullptr : it->second;
}
}  // namespace

TP_EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int version, std::uint64_t, int* status) {
  if (!symbol || !pfn) return INVALID_VALUE;
  (void)version;
  *pfn = lookup(symbol);
  if (status) *status = *pfn ? 0 : 1;  // CU_GET_PROC_ADDRESS_SUCCESS / SYMBOL_NOT_FOUND
  return *pfn ? OK : NOT_FOUND;
}
TP_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int version, std::uint64_t flags) {
  return cuGetProcAddress_v2(symbol, pfn, version, flags, nullptr);
}
