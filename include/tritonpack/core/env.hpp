// tritonpack/core/env.hpp — the environment variables the run time reads (all documented in
// docs/runtime.md "Environment").
//
// Read on demand, not cached here: the values that matter on the hot path (logging) are cached
// by their users once, and tests change variables between cases.
//
// A value the run time does not recognise is never silently ignored: a typo such as
// TRITONPACK_FORCE_IR=ture would otherwise test a path other than the one intended. The default
// applies and one warning per variable and process goes to stderr (whatever TRITONPACK_LOG says).
#pragma once

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

// The value, or "" when unset.
inline std::string get(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
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
