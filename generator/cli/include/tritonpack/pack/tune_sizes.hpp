// tritonpack/pack/tune_sizes.hpp — the problem sizes `tritonpack tune` times a container's kernels
// on (generator/cli/README.md, "tune"): reading SIZES.json against the container's kernels.
//
// Everything here is checked on the CPU, before any GPU is touched: every integer argument of
// every problem, every float scalar, every pointer's byte size and every config's grid is known
// (and valid) when load_tune_sizes returns, so a tuning run never stops half-way for a typo.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "tritonpack/core/model.hpp"
#include "tritonpack/launch/grid.hpp"

namespace tritonpack::pack {

// One problem of one kernel, every argument resolved.
struct tune_problem {
  std::size_t index = 0;                       // in the kernel's "problems" list
  std::map<std::string, std::int64_t> values;  // every named integer: the arguments and "let" names
  std::vector<std::int64_t> ints;              // per kernel argument: integer / boolean value
  std::vector<double> floats;                  // per kernel argument: float scalar value
  std::vector<std::uint64_t> bytes;  // per kernel argument: pointer buffer size (0 otherwise)
  std::array<std::string, 3> grid;   // the kernel's grid expressions, else the problem's
  std::string label;                 // "M=4096 N=4096 K=64": the key values (or "problem 3")
};

struct tune_request {
  std::size_t kernel = 0;  // index into container_info::kernels
  std::vector<tune_problem> problems;
};

// Reads SIZES.json (schema "tritonpack-tune-sizes", version 1) for the kernels of `info`; only
// `only_kernel` when not empty. Any missing, unknown, negative, non-integer or out-of-range value
// is error(bad_argument) naming the file, the kernel, the problem and the field, and saying what
// to write.
std::vector<tune_request> load_tune_sizes(const std::filesystem::path& file,
                                          const container_info& info,
                                          const std::string& only_kernel = {});
// The same from the file's text (tests).
std::vector<tune_request> parse_tune_sizes(const std::string& text, const std::string& file,
                                           const container_info& info,
                                           const std::string& only_kernel = {});

// The grid of config `variant` of the kernel for a problem: its grid expressions over the
// problem's values and that variant's integer constexprs. error(bad_argument) naming the axis
// and why when a value fails (zero divisor, overflow, negative, beyond 2^32-1).
grid3 problem_grid(const kernel_info& k, std::size_t variant, const tune_problem& p);

// The problem's key values bucketed by the kernel's rules (tuning::bucket_of), in tune_args order.
std::vector<std::int64_t> problem_bucket(const kernel_info& k, const tune_problem& p);

}  // namespace tritonpack::pack
