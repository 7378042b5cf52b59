// tritonpack/core/log.hpp — TRITONPACK_LOG=1: one line on stderr per decision (driver loaded,
// device found, image chosen and why, JIT and cache, load time).
//
// Only cold paths log; the hot launch path never checks the flag. One fprintf per line keeps lines
// from concurrent threads whole (stdio locks the stream per call).
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

#include "tritonpack/core/env.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace log {

inline bool enabled() {
  // Read once per process: the log flag is for whole runs, and this is called on cold paths only.
  static const bool on = env::flag(env::log);
  return on;
}

inline void line(const std::string& text) {
  if (enabled()) std::fprintf(stderr, "tritonpack: %s\n", text.c_str());
}

// Milliseconds since `t0`, formatted "1.234 ms".
inline std::string ms_since(std::chrono::steady_clock::time_point t0) {
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", ms);
  return buf;
}

}  // namespace log
TRITONPACK_END_NAMESPACE
