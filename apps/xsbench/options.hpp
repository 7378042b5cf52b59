// options.hpp — the command line: the reference's options for event mode (-s -G -l -g -h) and this
// example's own (--variant, --verify-cpu, --repeat, --require-gpu, --dump).
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "problem.hpp"
#include "variants.hpp"

namespace xsbench {

struct options {
  std::string size = "large";                // -s small | large
  grid_type grid = grid_type::unionized;     // -G unionized | hash
  std::int64_t lookups = 17000000;           // -l
  std::int64_t gridpoints = 0;               // -g: points per nuclide (0: the size's 11303)
  std::int64_t hash_bins = 0;                // -h: hash bins (0: the size's 10000)
  std::vector<variant> variants = {variant::fused};  // --variant fused|split|sorted|energy|all
  bool verify_cpu = false;                   // --verify-cpu: compare every lookup with the CPU's
  int repeat = 1;                            // --repeat: timed runs of each variant
  bool require_gpu = false;                  // --require-gpu
  bool help = false;
  std::string dump_dir;                      // --dump DIR: problem + CPU results for interpret_check.py
};

inline const char *usage_text() {
  return "Usage: xsbench [opts]  (event-based simulation, as XSBench -m event)\n"
         " -s <size>        : small (68 nuclides) or large (355, default)\n"
         " -G <grid>        : unionized (default) or hash\n"
         " -l <lookups>     : lookups (default 17000000)\n"
         " -g <gridpoints>  : points per nuclide (default 11303)\n"
         " -h <bins>        : hash bins (default 10000)\n"
         " --variant <v>    : fused (the baseline, default), split, sorted (by material), energy (by\n"
         "                    material, then energy), or all; may repeat\n"
         " --verify-cpu     : also run the lookups on the CPU and compare every lookup's result\n"
         " --repeat <n>     : timed runs of each variant (default 1; the median is reported)\n"
         " --require-gpu    : fail (exit 1) when no GPU can be used, instead of explaining why\n"
         " --dump <dir>     : write the problem and the CPU's results for interpret_check.py (no GPU)\n"
         " --help           : this message\n";
}

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline std::int64_t parse_count(const std::string &option, const char *text, std::int64_t min_value, std::int64_t max_value) {
  if (text == nullptr) throw usage_error("missing integer argument to " + option);
  errno = 0;
  char *end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < min_value || v > max_value)
    throw usage_error(option + " needs an integer from " + std::to_string(min_value) + " to " + std::to_string(max_value) +
                      ", not '" + text + "'");
  return v;
}

inline options parse_options(int argc, char **argv) {
  options o;
  bool variant_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char *next = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "-s") {
      if (!next || (std::string(next) != "small" && std::string(next) != "large"))
        throw usage_error("-s needs small or large");
      o.size = argv[++i];
    } else if (a == "-G") {
      if (next && std::string(next) == "unionized")
        o.grid = grid_type::unionized;
      else if (next && std::string(next) == "hash")
        o.grid = grid_type::hash;
      else
        throw usage_error("-G needs unionized or hash (the nuclide grid search is not ported)");
      ++i;
    } else if (a == "-l") {
      o.lookups = parse_count(a, next, 1, 0x7fffffff);
      ++i;
    } else if (a == "-g") {
      o.gridpoints = parse_count(a, next, 2, 1 << 24);
      ++i;
    } else if (a == "-h") {
      o.hash_bins = parse_count(a, next, 1, 1 << 24);
      ++i;
    } else if (a == "--variant") {
      if (!next) throw usage_error("--variant needs fused, split, sorted, energy or all");
      if (!variant_given) o.variants.clear();
      variant_given = true;
      if (std::string(next) == "all") {
        o.variants = {variant::fused, variant::split, variant::sorted, variant::energy};
      } else {
        try {
          o.variants.push_back(variant_named(next));
        } catch (const std::invalid_argument &) {
          throw usage_error(std::string("unknown variant '") + next + "' (fused, split, sorted, energy or all)");
        }
      }
      ++i;
    } else if (a == "--verify-cpu") {
      o.verify_cpu = true;
    } else if (a == "--repeat") {
      o.repeat = static_cast<int>(parse_count(a, next, 1, 1000));
      ++i;
    } else if (a == "--require-gpu") {
      o.require_gpu = true;
    } else if (a == "--dump") {
      if (!next) throw usage_error("--dump needs a directory");
      o.dump_dir = argv[++i];
    } else if (a == "--help") {
      o.help = true;
    } else {
      throw usage_error("unknown option '" + a + "'");
    }
  }
  return o;
}

inline problem_size size_of(const options &o) {
  problem_size s = size_named(o.size);
  if (o.gridpoints) s.n_gridpoints = o.gridpoints;
  if (o.hash_bins) s.hash_bins = o.hash_bins;
  return s;
}

}  // namespace xsbench
