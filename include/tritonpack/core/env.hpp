// tritonpack/core/env.hpp — the environment variables the run time reads (all documented in
// docs/runtime.md "Environment").
//
// Read on demand, not cached here: the values that matter on the hot path (logging) are cached
// by their users once, and tests change variables between cases.
//
// A value the run time does not recognise is never silently ignored: a typo such as
// TRITONPACK_FORCE_IR=ture would otherwise test a path other than the one intended. The default
// applies and one warning per variable and process goes to stderr (whatever TRITONPACK_LOG says).
//
// A secure-execution process (set-user-ID, set-group-ID, or given capabilities by its file) runs
// with rights its caller lacks, so the caller's environment must not choose the libraries it
// loads or the directories it writes: there get() returns "" for every variable but the few that
// only decide what the caller's own stderr shows (read_when_secure), as glibc's secure_getenv
// does; the library loaders then open the system's libraries and log that the override was
// ignored, and the JIT cache lives in the effective user's home (runtime/jit_cache.hpp).
#pragma once

#if defined(__linux__)
#include <sys/auxv.h>
#else
#include <unistd.h>
#endif

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>

#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace env {

// Variable names, in one place so documentation and code cannot drift.
constexpr const char* cuda_library =
    "TRITONPACK_CUDA_LIBRARY";  // path of libcuda (or a test double)
constexpr const char* hip_library =
    "TRITONPACK_HIP_LIBRARY";                              // path of libamdhip64 (or a test double)
constexpr const char* backend = "TRITONPACK_BACKEND";      // "cuda" or "hip": force a backend
constexpr const char* force_ir = "TRITONPACK_FORCE_IR";    // "1": skip binaries, JIT the IR
constexpr const char* log = "TRITONPACK_LOG";              // "1": log every decision to stderr
constexpr const char* cache = "TRITONPACK_CACHE";          // "0": no JIT disk cache
constexpr const char* cache_dir = "TRITONPACK_CACHE_DIR";  // JIT cache directory
constexpr const char* verify_abi =
    "TRITONPACK_VERIFY_ABI";  // "1": check every kernel's parameters with the driver
constexpr const char* force_image =
    "TRITONPACK_FORCE_IMAGE";  // "ptx:sm_80": only that image (tests, comparisons)
constexpr const char* check_pointers =
    "TRITONPACK_CHECK_POINTERS";  // "1": ask the driver about every pointer argument of a launch
constexpr const char* comgr_library =
    "TRITONPACK_COMGR_LIBRARY";  // path of libamd_comgr (AMD LLVM IR JIT)
constexpr const char* tune_lock_wait =
    "TRITONPACK_TUNE_LOCK_WAIT_MS";  // longest wait for another process's tuning of one entry

// True in a secure-execution process: the kernel's AT_SECURE (set-user-ID, set-group-ID, file
// capabilities), the flag glibc's secure_getenv reads; issetugid() where there is no auxv.
inline bool secure_execution() {
#if defined(__linux__)
  return ::getauxval(AT_SECURE) != 0;
#elif defined(__APPLE__) || defined(__FreeBSD__) || defined(__NetBSD__) || defined(__OpenBSD__)
  return ::issetugid() != 0;
#else
  return false;
#endif
}

// The variables a secure-execution process still reads: TRITONPACK_LOG only writes to the
// caller's own stderr, and the device-visibility variables are only quoted in error messages (the
// vendor's driver reads them itself).
inline bool read_when_secure(const char* name) {
  for (const char* safe :
       {log, "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"})
    if (std::string(name) == safe) return true;
  return false;
}

namespace detail {
// get()'s rule, with the process's state as an argument (tests pin the rule with it).
inline std::string get(const char* name, bool secure) {
  if (secure && !read_when_secure(name)) return std::string();
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}
}  // namespace detail

// The value, or "" when unset or when this process runs with secure execution (see above). The
// one reader of the environment in the run time.
inline std::string get(const char* name) { return detail::get(name, secure_execution()); }

// True when `name` is set but get() ignores it (secure execution): the caller logs that.
inline bool ignored(const char* name) {
  return detail::get(name, false) != detail::get(name, secure_execution());
}

// "TRITONPACK_CUDA_LIBRARY is ignored in a set-user-ID, set-group-ID or capability-raised
// (secure-execution) process": for logs and error messages.
inline std::string ignored_text(const char* name) {
  return std::string(name) +
         " is ignored in a set-user-ID, set-group-ID or capability-raised (secure-execution) "
         "process";
}

inline std::string lower(std::string v) {
  for (char& c : v) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return v;
}

// The spellings a boolean variable accepts (docs/runtime.md "Environment").
constexpr const char* flag_spellings = "1, true, yes, on or 0, false, no, off, in any case";

// Once per variable and process: `name=value` is not recognised, `accepted` lists what is, and
// `instead` says what the run time does.
inline void warn_unrecognised(const char* name, const std::string& value, const char* accepted,
                              const char* instead) {
  static std::mutex mutex;
  static std::set<std::string> warned;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!warned.insert(name).second) return;
  }
  std::fprintf(stderr, "tritonpack: warning: %s=\"%s\" is not recognised (accepted: %s); %s\n",
               name, value.c_str(), accepted, instead);
}

// True for "1", "true", "yes", "on"; false for "0", "false", "no", "off" (any case). Unset or
// empty: `fallback`. Anything else: `fallback`, with a warning.
inline bool flag(const char* name, bool fallback = false) {
  const std::string raw = get(name);
  const std::string v = lower(raw);
  if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
  if (v == "0" || v == "false" || v == "no" || v == "off") return false;
  if (!v.empty())
    warn_unrecognised(name, raw, flag_spellings,
                      fallback ? "using the default, on" : "using the default, off");
  return fallback;
}

}  // namespace env
TRITONPACK_END_NAMESPACE
