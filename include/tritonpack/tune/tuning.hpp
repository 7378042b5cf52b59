// tritonpack/tune/tuning.hpp — choosing among a kernel's configs, the parts that need no GPU
// (docs/runtime.md "Choosing a config"): key bucketing, the packed table's lookup order, the
// winner of a set of timings, and the record a tuning result is persisted as.
//
// tune/autotune.hpp drives these per launch; everything here is a pure function of its inputs so
// the CPU tests pin each rule directly.
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "tritonpack/core/model.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace tuning {

constexpr std::uint64_t not_measured = std::numeric_limits<std::uint64_t>::max();

// The bucket of a key value: exact, or rounded up to the next power of two (values below 1 are
// their own bucket: a size of 0 or a negative stride is not near any other).
inline std::int64_t bucket_of(std::int64_t v, bucket_rule rule) noexcept {
  if (rule == bucket_rule::exact || v <= 1) return v;
  if (v > (std::int64_t{1} << 62)) return v;  // no power of two above it fits
  std::int64_t b = 1;
  while (b < v) b <<= 1;
  return b;
}

// "BLOCK_M=128, BLOCK_N=64, num_warps 4, num_stages 3": how logs and `tritonpack tune` name a
// config.
inline std::string config_text(const kernel_config& c) {
  std::string s;
  for (const auto& [n, v] : c.constexprs) s += n + "=" + v + ", ";
  return s + "num_warps " + std::to_string(c.num_warps) + ", num_stages " +
         std::to_string(c.num_stages);
}

// "1024x1024x64": how logs and cache file names show a bucket.
inline std::string bucket_text(const std::vector<std::int64_t>& b) {
  std::string s;
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (i) s += 'x';
    s += std::to_string(b[i]);
  }
  return b.empty() ? std::string("none") : s;
}

// How far apart two buckets are: the sum over keys of |log2 a - log2 b| (a size twice as large is
// one step away whatever its magnitude); values below 1 count as 1.
inline double bucket_distance(const std::vector<std::int64_t>& a,
                              const std::vector<std::int64_t>& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const double x = static_cast<double>(a[i] < 1 ? 1 : a[i]),
                 y = static_cast<double>(b[i] < 1 ? 1 : b[i]);
    double r = x > y ? x / y : y / x;
    while (r >= 2) {
      d += 1;
      r /= 2;
    }
    d += r - 1;  // within one step: linear, so nearer sizes stay nearer
  }
  return d;
}

// What the packed table says for this GPU and bucket.
struct table_pick {
  bool found = false;
  bool exact = false;  // this GPU's name and this very bucket
  std::uint32_t config = 0;
  std::size_t row = 0;
  std::string why;  // "packed table: NVIDIA H200, bucket 1024x1024x64"
};

// The table's lookup order (docs/runtime.md): rows for this GPU's name, else rows for its arch
// ("sm_90"); among those, the row of this bucket, else the nearest bucket (bucket_distance; the
// first row on ties). Rows whose key count differs from the bucket's are never used.
inline table_pick lookup_table(const kernel_tuning& t, const std::string& gpu_name,
                               const std::string& arch, const std::vector<std::int64_t>& bucket) {
  table_pick best;
  for (int pass = 0; pass < 2 && !best.found; ++pass) {
    const std::string& device = pass == 0 ? gpu_name : arch;
    if (device.empty()) continue;
    double best_d = 0;
    for (std::size_t r = 0; r < t.table.size(); ++r) {
      const tune_entry& e = t.table[r];
      if (e.device != device || e.bucket.size() != bucket.size() || e.config >= t.config_count)
        continue;
      const double d = bucket_distance(e.bucket, bucket);
      if (!best.found || d < best_d) {
        best.found = true;
        best.exact = pass == 0 && d == 0 && e.bucket == bucket;
        best.config = e.config;
        best.row = r;
        best_d = d;
      }
    }
    if (best.found)
      best.why = "packed table: " + std::string(pass == 0 ? "this GPU (" : "same arch (") + device +
                 "), " + (best_d == 0 ? "bucket " : "nearest bucket ") +
                 bucket_text(t.table[best.row].bucket);
  }
  return best;
}

// The config with the lowest median time. Near-ties go to the lower index: a config within
// `tie` (relative) of the fastest is as good, and preferring the earlier one makes the choice
// stable between runs whose timings differ by noise. Unmeasured configs never win; all
// unmeasured: config 0.
inline std::uint32_t fastest(const std::vector<std::uint64_t>& times_ns, double tie = 0.01) {
  std::uint64_t best = not_measured;
  for (std::uint64_t t : times_ns) best = t < best ? t : best;
  if (best == not_measured) return 0;
  const double limit = static_cast<double>(best) * (1.0 + tie);
  for (std::size_t c = 0; c < times_ns.size(); ++c)
    if (times_ns[c] != not_measured && static_cast<double>(times_ns[c]) <= limit)
      return static_cast<std::uint32_t>(c);
  return 0;
}

// The median of `v` (sorted in place); not_measured for an empty set.
inline std::uint64_t median(std::vector<std::uint64_t>& v) {
  if (v.empty()) return not_measured;
  for (std::size_t i = 1; i < v.size(); ++i)
    for (std::size_t j = i; j > 0 && v[j - 1] > v[j]; --j) std::swap(v[j - 1], v[j]);
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// A persisted tuning result (the payload of its cache file, docs/runtime.md): text, one field per
// line, so a person can read it —
//   tritonpack-tune 1
//   bucket 1024 1024 64
//   config 3
//   times_ns 81234 79011 - 65536      ("-": not measured or failed)
struct record {
  std::vector<std::int64_t> bucket;
  std::uint32_t config = 0;
  std::vector<std::uint64_t> times_ns;
};

inline std::string encode(const record& r) {
  // Appended piece by piece: `" " + std::to_string(b)` makes GCC 12 warn about an impossible
  // overlapping memcpy (-Wrestrict, a known false positive of operator+(const char*, string&&)).
  std::string s = "tritonpack-tune 1\nbucket";
  for (std::int64_t b : r.bucket) s.append(" ").append(std::to_string(b));
  s.append("\nconfig ").append(std::to_string(r.config)).append("\ntimes_ns");
  for (std::uint64_t t : r.times_ns) s.append(" ").append(t == not_measured ? std::string("-") : std::to_string(t));
  return s + "\n";
}

// Parses a payload written by encode() for a kernel with `config_count` configs and the key
// bucket `bucket`. False, with `why` saying what is wrong, for anything else: the caller then
// treats the entry as absent (and a tuning run rewrites it).
inline bool decode(const std::string& text, const std::vector<std::int64_t>& bucket,
                   std::uint32_t config_count, record& out, std::string& why) {
  std::vector<std::string> lines;
  std::size_t p = 0;
  while (p < text.size()) {
    const std::size_t nl = text.find('\n', p);
    if (nl == std::string::npos) {
      why = "the last line is not terminated (truncated file)";
      return false;
    }
    lines.push_back(text.substr(p, nl - p));
    p = nl + 1;
  }
  if (lines.size() != 4 || lines[0] != "tritonpack-tune 1") {
    why = "not a tuning record of version 1 (expected 4 lines starting \"tritonpack-tune 1\")";
    return false;
  }
  auto numbers = [&](const std::string& line, const char* head, bool allow_dash,
                     std::vector<std::uint64_t>& vals) {
    const std::string h = head;
    if (line.compare(0, h.size(), h) != 0) return false;
    std::size_t i = h.size();
    while (i < line.size()) {
      if (line[i] != ' ') return false;
      ++i;
      if (allow_dash && i < line.size() && line[i] == '-' &&
          (i + 1 == line.size() || line[i + 1] == ' ')) {
        vals.push_back(not_measured);
        ++i;
        continue;
      }
      const char* start = line.c_str() + i;
      char* end = nullptr;
      errno = 0;
      const long long v = std::strtoll(start, &end, 10);
      if (end == start || errno != 0 || (v < 0 && allow_dash)) return false;
      vals.push_back(static_cast<std::uint64_t>(v));
      i += static_cast<std::size_t>(end - start);
    }
    return true;
  };
  std::vector<std::uint64_t> b, c, t;
  if (!numbers(lines[1], "bucket", false, b) || !numbers(lines[2], "config", false, c) ||
      !numbers(lines[3], "times_ns", true, t)) {
    why = "a line is not \"bucket N...\", \"config N\" or \"times_ns N|-...\"";
    return false;
  }
  out.bucket.assign(b.begin(), b.end());
  if (out.bucket != bucket) {
    why = "it is the record of bucket " + bucket_text(out.bucket) + ", not " + bucket_text(bucket);
    return false;
  }
  if (c.size() != 1 || c[0] >= config_count || t.size() != config_count) {
    why = "its config or its number of times does not fit this kernel's " +
          std::to_string(config_count) + " configs";
    return false;
  }
  out.config = static_cast<std::uint32_t>(c[0]);
  out.times_ns = t;
  return true;
}

// Characters of a name other than [A-Za-z0-9_.-] become '_' (GPU names have spaces).
inline std::string file_safe(std::string s) {
  for (char& ch : s)
    if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
          ch == '_' || ch == '.' || ch == '-'))
      ch = '_';
  return s;
}

// Where a result is persisted: per GPU name + arch + driver (another GPU or driver never reuses
// it), per container (its tables checksum: another build of the kernels never reuses it), per
// kernel, specialisation group and bucket.
//   <cache dir>/tune-v1/<GPU name>-<arch>-drv<driver>/<checksum>/<kernel>-g<first
//   variant>-<bucket>.tune
inline std::string entry_dir(const std::string& cache_dir, const std::string& gpu_name,
                             const std::string& arch, std::uint32_t driver,
                             std::uint64_t container_checksum) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(container_checksum));
  return cache_dir + "/tune-v1/" + file_safe(gpu_name) + "-" + file_safe(arch) + "-drv" +
         std::to_string(driver) + "/" + hex;
}
inline std::string entry_file(const std::string& kernel, std::size_t group_first,
                              const std::vector<std::int64_t>& bucket) {
  return file_safe(kernel) + "-g" + std::to_string(group_first) + "-" + bucket_text(bucket) +
         ".tune";
}

}  // namespace tuning
TRITONPACK_END_NAMESPACE
