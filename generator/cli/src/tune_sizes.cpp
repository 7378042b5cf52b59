// Reading SIZES.json for `tritonpack tune` (tune_sizes.hpp).
//
//   {"schema": "tritonpack-tune-sizes", "version": 1,
//    "kernels": {"matmul": {"defaults": {"stride_am": "K", "bytes": {"a": "M * K * 2"}},
//                           "problems": [{"M": 4096, "N": 4096, "K": 64}, ...]}}}
//
// A problem (merged over "defaults") names every integer argument (an integer, or an expression of
// the grid grammar over the problem's other integers and its "let" names), every float scalar (a
// number), every pointer's buffer size in "bytes" (a declared reset_to_zero / restore buffer's
// `tune.bytes` is the default), and "grid" when the kernel has no grid expression.
#include "tritonpack/pack/tune_sizes.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tritonpack/core/error.hpp"
#include "tritonpack/core/identify.hpp"
#include "tritonpack/launch/params.hpp"
#include "tritonpack/pack/file_io.hpp"
#include "tritonpack/pack/grid_eval.hpp"
#include "tritonpack/tune/tuning.hpp"

namespace tritonpack::pack {
namespace {

using json = nlohmann::json;

constexpr const char* integer_hint =
    "write a non-negative integer, or an expression of the problem's other integers (\"N\", \"M * "
    "2\")";

// An error already located in the sizes file (its prefix and JSON path said): passed on as it is
// when it surfaces inside the evaluation of another entry's expression.
struct sizes_file_error : error {
  using error::error;
};

[[noreturn]] void bad(const std::string& file, const std::string& where, const std::string& what) {
  throw sizes_file_error(errc::bad_argument,
                         fmt::format("sizes file {}: {}: {}", file, where, what));
}

enum class arg_kind { integer, floating, pointer, unsupported };

arg_kind kind_of(const kernel_arg& a) {
  arg_type t;
  try {
    t = parse_arg_type(a.type);
  } catch (const error&) {
    return arg_kind::unsupported;
  }
  switch (t.cls) {
    case arg_class::sint:
    case arg_class::uint:
    case arg_class::boolean: return arg_kind::integer;
    case arg_class::fp16:
    case arg_class::bf16:
    case arg_class::fp32:
    case arg_class::fp64: return arg_kind::floating;
    case arg_class::pointer: return arg_kind::pointer;
    default: return arg_kind::unsupported;
  }
}

// The largest value an integer argument of this type holds ("i32": 2^31-1, "u1": 1).
std::int64_t max_of(const std::string& type) {
  if (type == "i1" || type == "u1") return 1;
  if (type == "i8") return INT8_MAX;
  if (type == "u8") return UINT8_MAX;
  if (type == "i16") return INT16_MAX;
  if (type == "u16") return UINT16_MAX;
  if (type == "i32") return INT32_MAX;
  if (type == "u32") return UINT32_MAX;
  return INT64_MAX;
}

// One problem being resolved: its raw entries (each with the JSON path it came from) and the
// integers known so far.
class problem_resolver {
 public:
  problem_resolver(const std::string& file, const kernel_info& k) : file_(file), k_(k) {}

  std::map<std::string, std::pair<json, std::string>> ints;  // integer arguments and "let" names
  std::map<std::string, std::int64_t> values;

  std::int64_t resolve(const std::string& name) {
    if (auto v = values.find(name); v != values.end()) return v->second;
    const auto& [raw, path] = ints.at(name);
    if (!resolving_.insert(name).second)
      bad(file_, path, "its expression depends on itself (a cycle through " + name + ")");
    std::int64_t v = 0;
    if (raw.is_number_integer()) {
      v = raw.is_number_unsigned() &&
                  raw.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)
              ? -1
              : raw.get<std::int64_t>();
      if (v < 0)
        bad(file_, path,
            fmt::format("{} is negative (or beyond 2^63-1); {}", raw.dump(), integer_hint));
    } else if (raw.is_string()) {
      v = evaluate(raw.get<std::string>(), path, "");
    } else if (raw.is_boolean()) {
      v = raw.get<bool>() ? 1 : 0;
    } else {
      bad(file_, path, fmt::format("{} is not an integer; {}", raw.dump(), integer_hint));
    }
    resolving_.erase(name);
    values[name] = v;
    return v;
  }

  // An expression over the problem's integers; `what` names the quantity in messages.
  std::int64_t evaluate(const std::string& expr, const std::string& path, const std::string& what) {
    grid_int g = 0;
    try {
      g = evaluate_grid_expr(expr, [&](const std::string& n) -> std::optional<grid_int> {
        if (!ints.count(n)) return std::nullopt;
        return grid_int(resolve(n));
      });
    } catch (const sizes_file_error&) {
      throw;  // a name this expression uses is itself wrong: that entry's own message and path
    } catch (const error& e) {
      const std::string msg = e.message();
      if (msg.find("unknown name") == std::string::npos) bad(file_, path, msg);
      bad(file_, path,
          msg + "; the names an expression may use are the kernel's integer arguments (" +
              int_args() + ") and the problem's \"let\" names");
    }
    if (g.failed()) bad(file_, path, fmt::format("\"{}\"{}: {}", expr, what, g.failure_text()));
    if (g.value() < 0)
      bad(file_, path,
          fmt::format("\"{}\"{} is {}, negative; {}", expr, what, g.value(), integer_hint));
    return g.value();
  }

 private:
  std::string int_args() const {
    std::string s;
    for (const kernel_arg& a : k_.args)
      if (kind_of(a) == arg_kind::integer) s += (s.empty() ? "" : ", ") + a.name;
    return s.empty() ? "none" : s;
  }
  const std::string& file_;
  const kernel_info& k_;
  std::set<std::string> resolving_;
};

// `defaults` then `problem`, per top-level key; "bytes" and "let" merged per entry. Each value is
// kept with the JSON path it came from, for messages.
using sourced = std::map<std::string, std::pair<json, std::string>>;
void merge_into(sourced& out, std::map<std::string, sourced>& nested, const json& obj,
                const std::string& path, const std::string& file) {
  if (!obj.is_object()) bad(file, path, "not an object of argument name -> value");
  for (const auto& [key, value] : obj.items()) {
    if (key == "bytes" || key == "let") {
      if (!value.is_object())
        bad(file, path + "." + key, "not an object of name -> integer or expression");
      for (const auto& [n, v] : value.items()) nested[key][n] = {v, path + "." + key + "." + n};
    } else {
      out[key] = {value, path + "." + key};
    }
  }
}

tune_problem resolve_problem(const std::string& file, const kernel_info& k, const json* defaults,
                             const json& problem, const std::string& kpath, std::size_t index) {
  const std::string ppath = fmt::format("{}.problems[{}]", kpath, index);
  sourced top;
  std::map<std::string, sourced> nested;
  if (defaults) merge_into(top, nested, *defaults, kpath + ".defaults", file);
  merge_into(top, nested, problem, ppath, file);

  problem_resolver r(file, k);
  std::map<std::string, std::size_t> arg_index;
  for (std::size_t i = 0; i < k.args.size(); ++i) arg_index[k.args[i].name] = i;
  std::string all_args;
  for (const kernel_arg& a : k.args) all_args += (all_args.empty() ? "" : ", ") + a.name;

  std::optional<std::pair<json, std::string>> grid;
  for (const auto& [key, v] : top) {
    if (key == "grid") {
      grid = v;
      continue;
    }
    const auto it = arg_index.find(key);
    if (it == arg_index.end())
      bad(file, v.second,
          fmt::format(
              "{} has no argument '{}' (its arguments: {}); other named values go in \"let\", "
              "buffer sizes in \"bytes\", the grid in \"grid\"",
              identify(k), key, all_args));
    const kernel_arg& a = k.args[it->second];
    const arg_kind kind = kind_of(a);
    if (kind == arg_kind::pointer)
      bad(file, v.second,
          fmt::format("'{}' is a pointer ({}): give the size in bytes of its buffer in \"bytes\": "
                      "{{\"{}\": ...}}",
                      key, a.type, key));
    if (kind == arg_kind::integer) r.ints[key] = v;
  }
  for (const auto& [name, v] : nested["let"]) {
    if (arg_index.count(name))
      bad(file, v.second,
          fmt::format("'{}' is an argument of {}: give it outside \"let\"", name, k.name));
    r.ints[name] = v;
  }

  // Every integer argument first: a missing one is named as missing, not as an unknown name in
  // the first bytes expression that uses it.
  for (const kernel_arg& a : k.args)
    if (kind_of(a) == arg_kind::integer && !r.ints.count(a.name))
      bad(file, ppath + "." + a.name,
          fmt::format("missing: integer argument '{}' ({}) needs a value; {}", a.name, a.type,
                      integer_hint));

  tune_problem p;
  p.index = index;
  p.ints.assign(k.args.size(), 0);
  p.floats.assign(k.args.size(), 0.0);
  p.bytes.assign(k.args.size(), 0);
  for (std::size_t i = 0; i < k.args.size(); ++i) {
    const kernel_arg& a = k.args[i];
    const std::string apath = ppath + "." + a.name;
    switch (kind_of(a)) {
      case arg_kind::unsupported:
        bad(file, apath,
            fmt::format("argument '{}' of type {} cannot be made up by tritonpack tune (tensor "
                        "descriptors and fp8 "
                        "scalars): tune this kernel from a program of your own",
                        a.name, a.type));
      case arg_kind::integer: {
        const std::int64_t v = r.resolve(a.name);
        if (v > max_of(a.type))
          bad(file, r.ints.at(a.name).second,
              fmt::format("{} does not fit argument '{}' of type {} (at most {})", v, a.name,
                          a.type, max_of(a.type)));
        p.ints[i] = v;
        break;
      }
      case arg_kind::floating: {
        const auto it = top.find(a.name);
        if (it == top.end())
          bad(file, apath,
              fmt::format("missing: float argument '{}' ({}) needs a value (a JSON number)", a.name,
                          a.type));
        if (!it->second.first.is_number())
          bad(file, it->second.second,
              fmt::format("{} is not a number; write a JSON number such as 1.0",
                          it->second.first.dump()));
        p.floats[i] = it->second.first.get<double>();
        break;
      }
      case arg_kind::pointer: {
        const auto it = nested["bytes"].find(a.name);
        std::string expr, where;
        if (it != nested["bytes"].end()) {
          where = it->second.second;
          if (it->second.first.is_number_integer()) {
            const std::int64_t b = it->second.first.get<std::int64_t>();
            if (b <= 0)
              bad(file, where,
                  fmt::format("{} bytes: a buffer needs at least one byte",
                              it->second.first.dump()));
            p.bytes[i] = static_cast<std::uint64_t>(b);
            break;
          }
          if (!it->second.first.is_string())
            bad(file, where,
                fmt::format("{} is not a byte size; write an integer or an expression such as \"M "
                            "* K * 2\"",
                            it->second.first.dump()));
          expr = it->second.first.get<std::string>();
        } else {
          for (const tune_arg& t : k.tuning.args)
            if (t.arg == i && t.role != tune_role::key) expr = t.bytes;  // the spec's tune.bytes
          where = ppath + ".bytes." + a.name;
          if (expr.empty())
            bad(file, where,
                fmt::format("missing: the size in bytes of the buffer '{}' ({}) points to; write "
                            "e.g. \"bytes\": {{\"{}\": \"M * K * {}\"}}",
                            a.name, a.type, a.name,
                            std::max<std::uint32_t>(1, parse_arg_type(a.type).elem_size)));
        }
        const std::int64_t b = r.evaluate(expr, where, " (bytes of " + a.name + ")");
        if (b <= 0)
          bad(file, where,
              fmt::format("\"{}\" is {} bytes: a buffer needs at least one byte", expr, b));
        p.bytes[i] = static_cast<std::uint64_t>(b);
        break;
      }
    }
  }
  for (const auto& [name, v] : nested["bytes"])
    if (!arg_index.count(name) || kind_of(k.args[arg_index[name]]) != arg_kind::pointer)
      bad(file, v.second,
          fmt::format(
              "'{}' is not a pointer argument of {}; \"bytes\" gives buffer sizes of pointers",
              name, k.name));
  // A reset_to_zero / restore buffer is zeroed or copied over the spec's byte size between trial
  // runs: the buffer must hold that many bytes.
  for (const tune_arg& t : k.tuning.args) {
    if (t.role == tune_role::key || t.arg >= k.args.size()) continue;
    const std::string where = ppath + ".bytes." + k.args[t.arg].name;
    const std::int64_t b =
        r.evaluate(t.bytes, where, " (the spec's tune.bytes of " + k.args[t.arg].name + ")");
    if (static_cast<std::uint64_t>(b) > p.bytes[t.arg])
      bad(file, where,
          fmt::format("{} bytes, but the spec's tune.bytes (\"{}\") zeroes or restores {} bytes of "
                      "it between trial runs; "
                      "give at least that",
                      p.bytes[t.arg], t.bytes, b));
  }
  for (const auto& [name, v] : r.ints) (void)r.resolve(name);  // "let" names too: every value valid
  p.values = r.values;

  const bool own_grid = !k.grid[0].empty();
  if (own_grid) {
    if (grid)
      bad(file, grid->second,
          fmt::format("{} has its own grid ({}, {}, {}): remove \"grid\"", identify(k), k.grid[0],
                      k.grid[1], k.grid[2]));
    p.grid = k.grid;
  } else {
    if (!grid)
      bad(file, ppath + ".grid",
          fmt::format(
              "missing: {} has no grid expression, so each problem gives its grid in programs, "
              "e.g. \"grid\": [\"rows\", 1, 1] with \"let\": {{\"rows\": 4096}}",
              identify(k)));
    const json& g = grid->first;
    if (!g.is_array() || g.empty() || g.size() > 3)
      bad(file, grid->second,
          "must be an array of 1 to 3 integers or expressions (missing dimensions are 1)");
    p.grid = {"1", "1", "1"};
    for (std::size_t d = 0; d < g.size(); ++d) {
      if (g[d].is_number_integer()) p.grid[d] = g[d].dump();
      else if (g[d].is_string()) p.grid[d] = g[d].get<std::string>();
      else
        bad(file, fmt::format("{}[{}]", grid->second, d),
            fmt::format("{} is not an integer or an expression", g[d].dump()));
    }
  }
  // Every config's grid, now: a zero divisor or a negative dimension is the sizes file's error.
  // An empty grid launches nothing: every config would "run" in no time.
  for (std::uint32_t c = 0; c < k.tuning.config_count && c < k.variants.size(); ++c) {
    grid3 g;
    try {
      g = problem_grid(k, c, p);
    } catch (const error& e) {
      bad(file, own_grid ? ppath : grid->second, e.message());
    }
    const std::uint32_t dims[3] = {g.x, g.y, g.z};
    for (int d = 0; d < 3; ++d)
      if (dims[d] == 0)
        bad(file, own_grid ? ppath : fmt::format("{}[{}]", grid->second, d),
            fmt::format("config {} ({}): grid[{}] = {} is 0 programs: the launch would run "
                        "nothing, so there is nothing to time; give sizes that make work",
                        c, tuning::config_text(k.variants[c].config), d, p.grid[d]));
  }
  std::string label;
  for (const tune_arg& t : k.tuning.args)
    if (t.role == tune_role::key)
      label += (label.empty() ? "" : " ") + k.args.at(t.arg).name + "=" +
               std::to_string(p.ints.at(t.arg));
  p.label = label.empty() ? fmt::format("problem {}", index) : label;
  return p;
}

}  // namespace

grid3 problem_grid(const kernel_info& k, std::size_t variant, const tune_problem& p) {
  const kernel_config& cfg = k.variants.at(variant).config;
  std::uint32_t dims[3] = {1, 1, 1};
  for (int d = 0; d < 3; ++d) {
    const std::string& expr = p.grid[d].empty() ? std::string("1") : p.grid[d];
    const grid_int g =
        evaluate_grid_expr(expr, [&](const std::string& n) -> std::optional<grid_int> {
          if (auto v = p.values.find(n); v != p.values.end()) return grid_int(v->second);
          for (const auto& [name, value] : cfg.constexprs) {
            std::int64_t x = 0;
            const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), x);
            if (name == n && ec == std::errc() && end == value.data() + value.size())
              return grid_int(x);
          }
          return std::nullopt;
        });
    const std::string head =
        fmt::format("{}, config {} ({}): grid[{}] = {}", identify(k),
                    variant % std::max<std::uint32_t>(1, k.tuning.config_count),
                    tuning::config_text(cfg), d, expr);
    if (g.failed()) throw error(errc::bad_argument, head + ": " + g.failure_text());
    if (!is_grid_dim(g))
      throw error(errc::bad_argument,
                  fmt::format("{} = {}, not a grid dimension (0 to 4294967295)", head, g.value()));
    dims[d] = static_cast<std::uint32_t>(g.value());
  }
  return {dims[0], dims[1], dims[2]};
}

std::vector<std::int64_t> problem_bucket(const kernel_info& k, const tune_problem& p) {
  std::vector<std::int64_t> b;
  for (const tune_arg& t : k.tuning.args)
    if (t.role == tune_role::key) b.push_back(tuning::bucket_of(p.ints.at(t.arg), t.bucket));
  return b;
}

std::vector<tune_request> parse_tune_sizes(const std::string& text, const std::string& file,
                                           const container_info& info,
                                           const std::string& only_kernel) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    bad(file, "top level", fmt::format("not valid JSON ({})", e.what()));
  }
  if (!j.is_object()) bad(file, "top level", "not a JSON object");
  if (j.value("schema", "") != "tritonpack-tune-sizes" || !j.contains("version") ||
      j["version"] != 1)
    bad(file, "schema/version", "expected \"schema\": \"tritonpack-tune-sizes\", \"version\": 1");
  for (const auto& [key, v] : j.items())
    if (key != "schema" && key != "version" && key != "kernels")
      bad(file, key, "unknown field (expected schema, version, kernels)");
  const auto kernels = j.find("kernels");
  if (kernels == j.end() || !kernels->is_object() || kernels->empty())
    bad(file, "kernels",
        "missing, empty, or not an object of kernel name -> {\"problems\": [...]}");
  std::vector<tune_request> out;
  for (const auto& [name, kj] : kernels->items()) {
    if (!only_kernel.empty() && name != only_kernel) continue;
    const std::string kpath = "kernels." + name;
    std::size_t ki = info.kernels.size();
    std::string names;
    for (std::size_t i = 0; i < info.kernels.size(); ++i) {
      if (info.kernels[i].name == name) ki = i;
      names += (names.empty() ? "" : ", ") + info.kernels[i].name;
    }
    if (ki == info.kernels.size())
      bad(file, kpath, fmt::format("the container has no kernel of that name (it has: {})", names));
    const kernel_info& k = info.kernels[ki];
    if (k.tuning.config_count <= 1)
      bad(file, kpath,
          "the kernel has one config per specialisation: there is nothing to tune (give it several "
          "configs in the spec)");
    for (std::size_t v = 0; v < k.variants.size(); ++v)
      if (k.variants[v].images.empty())
        bad(file, kpath,
            fmt::format("config {} ({}, variant {}) has no image in the container: tune cannot "
                        "time it on any GPU; pack the kernel with every config compiled (the "
                        "front end's summary names what failed)",
                        v % k.tuning.config_count, tuning::config_text(k.variants[v].config), v));
    if (!kj.is_object())
      bad(file, kpath, "not an object with \"problems\" (and optional \"defaults\")");
    for (const auto& [key, v] : kj.items())
      if (key != "problems" && key != "defaults")
        bad(file, kpath + "." + key,
            "unknown field (expected \"problems\" and optional \"defaults\")");
    const auto problems = kj.find("problems");
    if (problems == kj.end() || !problems->is_array() || problems->empty())
      bad(file, kpath + ".problems",
          "missing, empty, or not an array of problems ({\"M\": 4096, ...})");
    const json* defaults = kj.contains("defaults") ? &kj["defaults"] : nullptr;
    tune_request req;
    req.kernel = ki;
    for (std::size_t i = 0; i < problems->size(); ++i)
      req.problems.push_back(resolve_problem(file, k, defaults, (*problems)[i], kpath, i));
    out.push_back(std::move(req));
  }
  if (out.empty()) bad(file, "kernels", fmt::format("has no entry for kernel {}", only_kernel));
  return out;
}

std::vector<tune_request> load_tune_sizes(const std::filesystem::path& file,
                                          const container_info& info,
                                          const std::string& only_kernel) {
  const std::vector<std::uint8_t> raw =
      read_file(file, "a sizes file (JSON, generator/cli/README.md \"tune\")");
  return parse_tune_sizes(std::string(raw.begin(), raw.end()), file.string(), info, only_kernel);
}

}  // namespace tritonpack::pack
