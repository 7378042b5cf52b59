// `tritonpack tune` on the GPU (tune_run.hpp).
#include "tritonpack/pack/tune_run.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "tritonpack/core/error.hpp"
#include "tritonpack/core/identify.hpp"
#include "tritonpack/pack/file_io.hpp"
#include "tritonpack/pack/grid_eval.hpp"
#include "tritonpack/pack/tuning_table.hpp"
#include "tritonpack/tritonpack.hpp"
#include "tritonpack/tune/autotune.hpp"
#include "tritonpack/tune/tuning.hpp"

namespace tritonpack::pack {
namespace {

// Ordered: rows keep the field order they are written in (device, bucket, config, times_ns, ...).
using json = nlohmann::ordered_json;

constexpr const char* table_remedy = "choose another file with -o";

std::string read_text(const std::filesystem::path& path) {
  const std::vector<std::uint8_t> raw = read_file(path, "a tuning table (JSON) to resume");
  return std::string(raw.begin(), raw.end());
}

// The table being written: the file's rows (kept as they are, other devices' and kernels' too)
// plus this run's.
struct table_file {
  json doc;

  static table_file open(const std::filesystem::path& path, bool exists) {
    table_file t;
    t.doc =
        exists ? json::parse(read_text(path))
               : json{{"schema", "tritonpack-tuning"}, {"version", 1}, {"kernels", json::object()}};
    return t;
  }
  json& rows(const std::string& kernel) {
    json& k = doc["kernels"][kernel];
    if (!k.is_array()) k = json::array();
    return k;
  }
  const json* find(const std::string& kernel, const std::string& device,
                   const std::vector<std::int64_t>& bucket) {
    for (const json& r : rows(kernel))
      if (r["device"] == device && r["bucket"] == json(bucket)) return &r;
    return nullptr;
  }
  // Replaces the row of the same device and bucket, or appends.
  void put(const std::string& kernel, json row) {
    json& rs = rows(kernel);
    for (json& r : rs)
      if (r["device"] == row["device"] && r["bucket"] == row["bucket"]) {
        r = std::move(row);
        return;
      }
    rs.push_back(std::move(row));
  }
  // One row per line: a person reads it, and a version-controlled table diffs by row.
  void save(const std::filesystem::path& path) const {
    std::string text = "{\n";
    for (const auto& [key, value] : doc.items()) {
      if (key == "kernels") continue;
      text += "  " + json(key).dump() + ": " + value.dump() + ",\n";
    }
    text += "  \"kernels\": {";
    bool first_kernel = true;
    for (const auto& [name, rows] : doc["kernels"].items()) {
      text += (first_kernel ? "\n    " : ",\n    ") + json(name).dump() + ": [";
      first_kernel = false;
      for (std::size_t i = 0; i < rows.size(); ++i)
        text += (i ? ",\n      " : "\n      ") + rows[i].dump();
      text += rows.empty() ? "]" : "\n    ]";
    }
    text += first_kernel ? "}\n}\n" : "\n  }\n}\n";
    write_file_atomically(path, text.data(), text.size(), table_remedy);
  }
};

// Random values of a buffer's element type, never zero: fp16 / bf16 in their own encoding, floats
// in [-1, 1), integers in 1..15 (small, so a buffer read as sizes or indices stays modest). A
// buffer above 16 MiB repeats a random block of that size: the values are as good for timing, and
// an 8192^3 matmul's inputs are not generated element by element on the host.
std::vector<std::uint8_t> random_fill(const std::string& elem, std::size_t total,
                                      std::mt19937_64& g) {
  constexpr std::size_t block = std::size_t{16} << 20;
  const std::size_t bytes = std::min(total, block);
  std::vector<std::uint8_t> out(bytes);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> small(1, 15);
  auto nonzero = [&] {
    float v = 0;
    while (v == 0) v = real(g);
    return v;
  };
  auto put = [&](std::size_t& i, const void* v, std::size_t n) {
    std::memcpy(out.data() + i, v, std::min(n, bytes - i));
    i += n;
  };
  for (std::size_t i = 0; i < bytes;) {
    if (elem == "fp32") {
      const float v = nonzero();
      put(i, &v, 4);
    } else if (elem == "fp64") {
      const double v = nonzero();
      put(i, &v, 8);
    } else if (elem == "fp16") {
      const half v(nonzero());
      put(i, &v, 2);
    } else if (elem == "bf16") {
      const bfloat16 v(nonzero());
      put(i, &v, 2);
    } else {
      // Integers (and element types without a C++ type, fp8): small positive values of the
      // element's width, little-endian.
      const std::uint32_t w = std::max<std::uint32_t>(1, detail::triton_scalar_size(elem));
      const std::uint64_t v = static_cast<std::uint64_t>(small(g));
      put(i, &v, w);
    }
  }
  out.resize(total);
  for (std::size_t i = bytes; i < total; i += bytes)
    std::memcpy(out.data() + i, out.data(), std::min(bytes, total - i));
  return out;
}

// "[#####-----] 3/18 ": the live bar drawn while a problem is timed (stderr a terminal).
std::string bar(std::size_t done, std::size_t total) {
  constexpr std::size_t width = 20;
  const std::size_t filled = total ? done * width / total : width;
  return "[" + std::string(filled, '#') + std::string(width - filled, '-') + "] ";
}

// Device memory freed on every path.
struct device_buffers {
  std::vector<void*> ptrs;
  ~device_buffers() {
    for (void* p : ptrs) device_free(p);
  }
};

// One argument as the kernel is passed it: the value's bytes, in a slot one pointer of
// launch_variant's array points to.
struct arg_slot {
  alignas(8) unsigned char bytes[8] = {};
};

void store_scalar(arg_slot& s, const arg_type& t, std::int64_t iv, double fv, void* ptr) {
  switch (t.cls) {
    case arg_class::pointer: std::memcpy(s.bytes, &ptr, sizeof ptr); break;
    case arg_class::boolean: {
      const bool b = iv != 0;
      std::memcpy(s.bytes, &b, sizeof b);
      break;
    }
    case arg_class::sint:
    case arg_class::uint: std::memcpy(s.bytes, &iv, t.size); break;  // little-endian: the low bytes
    case arg_class::fp16: {
      const half h(static_cast<float>(fv));
      std::memcpy(s.bytes, &h, 2);
      break;
    }
    case arg_class::bf16: {
      const bfloat16 h(static_cast<float>(fv));
      std::memcpy(s.bytes, &h, 2);
      break;
    }
    case arg_class::fp32: {
      const float f = static_cast<float>(fv);
      std::memcpy(s.bytes, &f, 4);
      break;
    }
    case arg_class::fp64: std::memcpy(s.bytes, &fv, 8); break;
    default:
      throw error(errc::bad_argument, "tritonpack tune cannot pass an argument of this type");
  }
}

std::string ms_text(std::uint64_t ns) {
  return ns == tuning::not_measured ? std::string("-") : fmt::format("{:.3g} ms", ns / 1e6);
}

// "config 3 (0.41 ms; config 0 0.62 ms)": the winner, and config 0 (what an untuned call runs)
// or, when config 0 won, the runner-up.
std::string choice_text(const std::vector<std::uint64_t>& t, std::uint32_t c) {
  std::string s = fmt::format("config {} ({}", c, ms_text(t[c]));
  if (c != 0) {
    s += fmt::format("; config 0 {}", ms_text(t[0]));
  } else {
    std::size_t second = t.size();
    for (std::size_t i = 1; i < t.size(); ++i)
      if (t[i] != tuning::not_measured && (second == t.size() || t[i] < t[second])) second = i;
    if (second < t.size()) s += fmt::format("; next config {} {}", second, ms_text(t[second]));
  }
  std::string failed;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t[i] == tuning::not_measured) failed += (failed.empty() ? "" : ", ") + std::to_string(i);
  if (!failed.empty())
    s += "; cannot run here: config" +
         std::string(failed.find(',') == std::string::npos ? " " : "s ") + failed;
  return s + ")";
}

// Times every config of the group the generated code would launch for problem `p`, on buffers of
// random values: the per-config medians in ns (tuning::not_measured: cannot run here).
std::vector<std::uint64_t> time_problem(kernel& kn, const tune_problem& p,
                                        const autotune::trial_plan& plan, std::mt19937_64& rng) {
  const kernel_info& k = kn.info();
  const std::uint32_t configs = k.tuning.config_count;
  // The arguments: buffers of random values, the problem's scalars.
  device_buffers mem;
  std::vector<arg_slot> slots(k.args.size());
  std::vector<const void*> args(k.args.size());
  std::vector<host_arg> descs(k.args.size());
  for (std::size_t i = 0; i < k.args.size(); ++i) {
    const arg_type t = parse_arg_type(k.args[i].type);
    void* ptr = nullptr;
    if (t.cls == arg_class::pointer) {
      ptr = device_malloc(p.bytes[i]);
      mem.ptrs.push_back(ptr);
      const std::vector<std::uint8_t> host = random_fill(t.elem, p.bytes[i], rng);
      copy(ptr, host.data(), host.size());
    }
    store_scalar(slots[i], t, p.ints[i], p.floats[i], ptr);
    args[i] = slots[i].bytes;
    descs[i] = read_host_arg(t, slots[i].bytes);
  }
  // The specialisation group the generated function would launch for these values.
  const std::size_t first = kn.pick_variant(descs.data(), descs.size());
  if (first + configs > k.variants.size())
    throw error(errc::bad_container, fmt::format("{}: variant {} starts no group of {} configs",
                                                 identify(k), first, configs));
  std::vector<grid3> grids;
  for (std::uint32_t c = 0; c < configs; ++c) grids.push_back(problem_grid(k, first + c, p));
  // What trial runs must protect: the spec's reset_to_zero / restore buffers, with their sizes.
  std::vector<autotune::detail::protected_buffer> bufs;
  for (const tune_arg& a : k.tuning.args) {
    if (a.role == tune_role::key) continue;
    const grid_int b =
        evaluate_grid_expr(a.bytes, [&](const std::string& name) -> std::optional<grid_int> {
          if (auto v = p.values.find(name); v != p.values.end()) return grid_int(v->second);
          return std::nullopt;
        });
    if (b.failed() || b.value() < 0 || static_cast<std::uint64_t>(b.value()) > p.bytes[a.arg])
      throw error(errc::bad_argument,
                  fmt::format("the spec's byte size of {} (\"{}\") is {}, beyond its {} bytes",
                              k.args[a.arg].name, a.bytes,
                              b.failed() ? b.failure_text() : std::to_string(b.value()),
                              p.bytes[a.arg]));  // load_tune_sizes checked it
    void* ptr = nullptr;
    std::memcpy(&ptr, slots[a.arg].bytes, sizeof ptr);
    bufs.push_back({a.role, ptr, static_cast<std::size_t>(b.value())});
  }
  auto run = [&](std::size_t c, stream_t stream) {
    kn.launch_variant(first + c, grids[c], stream, args.data());
  };
  return autotune::detail::time_configs(k, first, configs, bufs, nullptr, config_launcher::of(run),
                                        plan);
}

}  // namespace

void check_resumable_table(const container_info& info, const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return;
  container_info copy = info;
  for (kernel_info& k : copy.kernels)
    k.tuning.table.clear();  // the container's own rows are not the file's
  try {
    apply_tuning_table_text(copy, read_text(path), path.string());
  } catch (const error& e) {
    throw e.with_note(
        "\n  tritonpack tune resumes the table it writes to and does not overwrite one it cannot "
        "read: "
        "repair or remove it, or write to another file with -o");
  }
}

tune_summary run_tune(const std::vector<std::uint8_t>& bytes,
                      const std::vector<tune_request>& requests, const tune_options& opt,
                      std::ostream& progress, bool live) {
  library lib(bytes.data(), bytes.size());
  check_resumable_table(lib.info(), opt.table);
  try {
    (void)detail::device_api();  // loads the driver: its diagnosis when there is no GPU
  } catch (const error& e) {
    if (e.code() != errc::no_driver && e.code() != errc::no_device) throw;
    throw e.with_context("tune needs a GPU to time kernels on");
  }
  set_device(opt.device);  // an ordinal out of range says which exist
  const std::string gpu = device_name(), arch = device_arch();
  // Its folder now, not after the first problem has been timed.
  if (opt.table.has_parent_path()) create_directories(opt.table.parent_path(), table_remedy);
  std::error_code ec;
  table_file table = table_file::open(opt.table, std::filesystem::exists(opt.table, ec));

  autotune::trial_plan plan;
  plan.budget_ms = opt.budget_ms;
  plan.min_rounds = opt.min_rounds;
  plan.max_rounds = opt.max_rounds;
  std::mt19937_64 rng(opt.seed);

  tune_summary sum;
  for (const tune_request& r : requests) sum.problems += r.problems.size();
  progress << fmt::format("tritonpack tune: {} problem{} on {} ({}, device {}), writing {}\n",
                          sum.problems, sum.problems == 1 ? "" : "s", gpu, arch, opt.device,
                          opt.table.string());
  const int width = static_cast<int>(std::to_string(sum.problems).size());
  std::size_t n = 0;
  const auto t_start = std::chrono::steady_clock::now();
  for (const tune_request& req : requests) {
    kernel& kn = lib.at(req.kernel);
    const kernel_info& k = kn.info();
    const std::uint32_t configs = k.tuning.config_count;
    std::set<std::vector<std::int64_t>> done_now;  // buckets timed in this run
    for (const tune_problem& p : req.problems) {
      ++n;
      const std::string head =
          fmt::format("[{:>{}}/{}] {} {}: ", n, width, sum.problems, k.name, p.label);
      const std::vector<std::int64_t> bucket = problem_bucket(k, p);
      if (done_now.count(bucket)) {
        progress << head
                 << fmt::format("bucket {} timed above, skipped\n", tuning::bucket_text(bucket));
        ++sum.skipped;
        continue;
      }
      if (!opt.fresh)
        if (const json* row = table.find(k.name, gpu, bucket)) {
          progress
              << head
              << fmt::format(
                     "config {} already in the table for bucket {}, skipped (--fresh re-times)\n",
                     (*row)["config"].get<std::uint64_t>(), tuning::bucket_text(bucket));
          ++sum.skipped;
          continue;
        }
      if (live)
        progress << "\r\033[K" << bar(n - 1, sum.problems) << head
                 << fmt::format("timing {} configs...", configs) << std::flush;
      try {
        const std::vector<std::uint64_t> times = time_problem(kn, p, plan, rng);
        done_now.insert(bucket);
        if (live) progress << "\r\033[K";
        bool any = false;
        for (std::uint64_t t : times) any = any || t != tuning::not_measured;
        if (!any) {
          progress << head
                   << "no config could run here (TRITONPACK_LOG=1 says why); no row written\n";
          ++sum.failed;
          continue;
        }
        const std::uint32_t chosen = tuning::fastest(times);
        json ts = json::array();
        for (std::uint64_t t : times)
          ts.push_back(t == tuning::not_measured ? json(nullptr) : json(t));
        json problem = json::object();
        for (const tune_arg& a : k.tuning.args)
          if (a.role == tune_role::key) problem[k.args[a.arg].name] = p.ints[a.arg];
        json row = {{"device", gpu},
                    {"bucket", bucket},
                    {"config", chosen},
                    {"times_ns", ts},
                    {"problem", problem}};
        table.put(k.name, row);
        if (opt.arch_rows && !arch.empty()) {
          const json* other = table.find(k.name, arch, bucket);
          if (!other || opt.fresh || (*other)["tuned_on"] == gpu) {
            row["device"] = arch;
            row["tuned_on"] = gpu;
            table.put(k.name, row);
          }
        }
        table.save(opt.table);
        ++sum.tuned;
        progress << head << choice_text(times, chosen) << "\n";
      } catch (const error& e) {
        if (live) progress << "\r\033[K";
        throw e.with_context(fmt::format("{}, problem {} ({})", identify(k), p.index, p.label))
            .with_note(fmt::format(
                "\n  {} has the {} problem{} timed before it; a rerun resumes from there",
                opt.table.string(), sum.tuned, sum.tuned == 1 ? "" : "s"));
      }
    }
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  progress << fmt::format(
      "tritonpack tune: {} timed, {} skipped{}, in {:.1f} s; table {}\n", sum.tuned, sum.skipped,
      sum.failed ? fmt::format(", {} with no runnable config", sum.failed) : std::string(), secs,
      opt.table.string());
  return sum;
}

}  // namespace tritonpack::pack
