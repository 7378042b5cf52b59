// fake_common.hpp — what the test-double drivers (fake_cuda/ and fake_hip/) share: the comma lists
// of their configuration variables, the failure plan of TRITONPACK_FAKE_FAIL /
// TRITONPACK_FAKE_HIP_FAIL ("entry=code" fails every call, "entry=code@N" only the N-th), and where
// an address range falls among host-backed device allocations, and the report a double writes at
// exit for tests that run a whole program against it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace tpfake_common {

inline std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

struct failure {
  int code;
  std::size_t nth;  // 0: every call, else only the nth (1-based)
};
using failure_plan = std::map<std::string, failure>;

// "cuLaunchKernel=719,cuMemAlloc=2@3" -> {cuLaunchKernel: 719 always, cuMemAlloc: 2 on call 3}.
inline failure_plan parse_failures(const std::string& spec) {
  failure_plan plan;
  if (spec.empty()) return plan;
  for (const auto& f : split(spec, ',')) {
    const auto kv = split(f, '=');
    if (kv.size() != 2) continue;
    const auto at = split(kv[1], '@');
    plan[kv[0]] = {std::atoi(at[0].c_str()), at.size() > 1 ? std::strtoul(at[1].c_str(), nullptr, 10) : 0};
  }
  return plan;
}

// The injected code for the `call`-th call (1-based) of `entry`, 0 if none.
inline int injected(const failure_plan& plan, const std::string& entry, std::size_t call) {
  auto it = plan.find(entry);
  return it != plan.end() && (it->second.nth == 0 || it->second.nth == call) ? it->second.code : 0;
}

// Where [p, p + n) lies: host memory (outside every allocation), within one device allocation, or
// starting in one and running past its end (what drivers refuse). `allocations` maps each block's
// start to a record with a `size`.
enum class range_kind { host, device, past_end };
template <class Allocation>
range_kind classify(const std::map<std::uintptr_t, Allocation>& allocations, std::uint64_t p, std::size_t n) {
  auto it = allocations.upper_bound(static_cast<std::uintptr_t>(p));
  if (it == allocations.begin()) return range_kind::host;
  --it;
  const std::uint64_t end = it->first + it->second.size;
  if (p >= end) return range_kind::host;
  return p + n <= end ? range_kind::device : range_kind::past_end;
}

// Launches per kernel name, one "launch <name> <count>" line each (sorted by name), after a
// "launches <total>" line: what a whole-program test compares with the launches it expects.
template <class Record>
std::string launch_report(const std::vector<Record>& launches) {
  std::map<std::string, std::size_t> per_kernel;
  for (const Record& r : launches) ++per_kernel[r.name];
  std::string text = "launches " + std::to_string(launches.size()) + "\n";
  for (const auto& [name, n] : per_kernel) text += "launch " + name + " " + std::to_string(n) + "\n";
  return text;
}

// A test that runs a program (not a test binary) against a double cannot call its control API, so
// the double writes what it saw to the file named by `env_name` when the process exits, if set.
inline void write_report(const char* env_name, const std::string& text) {
  const char* path = std::getenv(env_name);
  if (!path || !*path) return;
  if (std::FILE* f = std::fopen(path, "w")) {
    std::fputs(text.c_str(), f);
    std::fclose(f);
  }
}

}  // namespace tpfake_common
