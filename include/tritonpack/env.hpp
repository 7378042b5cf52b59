// tritonpack/env.hpp — the environment variables the run time reads (all documented in
// docs/runtime.md "Environment").
//
// Read on demand, not cached here: the values that matter on the hot path (logging) are cached
// by their users once, and tests change variables between cases.
#pragma once

#include <cstdlib>
#include <string>

namespace tritonpack {
namespace env {

// Variable names, in one place so documentation and code cannot drift.
constexpr const char* cuda_library = "TRITONPACK_CUDA_LIBRARY";  // path of libcuda (or a test double)
constexpr const char* backend = "TRITONPACK_BACKEND";            // "cuda" or "hip": force a backend
constexpr const char* force_ir = "TRITONPACK_FORCE_IR";          // "1": skip binaries, JIT the IR
constexpr const char* log = "TRITONPACK_LOG";                    // "1": log every decision to stderr
constexpr const char* cache = "TRITONPACK_CACHE";                // "0": no JIT disk cache
constexpr const char* cache_dir = "TRITONPACK_CACHE_DIR";        // JIT cache directory
constexpr const char* verify_abi = "TRITONPACK_VERIFY_ABI";      // "1": check every kernel's parameters with the driver

// The value, or "" when unset.
inline std::string get(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

// "1", "true", "yes", "on" (any case) are true; "0", "false", "no", "off" and "" are false;
// anything else is `fallback`.
inline bool flag(const char* name, bool fallback = false) {
  std::string v = get(name);
  for (char& c : v) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
  if (v.empty() || v == "0" || v == "false" || v == "no" || v == "off") return v.empty() ? fallback : false;
  return fallback;
}

}  // namespace env
}  // namespace tritonpack
