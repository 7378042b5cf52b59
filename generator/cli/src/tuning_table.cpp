// `tritonpack pack --tuning FILE`: a measured tuning table into the model (tuning_table.hpp).
#include "tritonpack/pack/tuning_table.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tritonpack/core/error.hpp"
#include "tritonpack/pack/file_io.hpp"

namespace tritonpack::pack {
namespace {

using json = nlohmann::json;

[[noreturn]] void bad(const std::string& file, const std::string& where, const std::string& what) {
  throw error(errc::bad_argument, fmt::format("tuning table {}: {}: {}", file, where, what));
}

}  // namespace

void apply_tuning_table(container_info& info, const std::filesystem::path& file) {
  const std::vector<std::uint8_t> raw =
      read_file(file, "a tuning table (JSON, docs/runtime.md \"Choosing a config\")");
  apply_tuning_table_text(info, std::string(raw.begin(), raw.end()), file.string());
}

void apply_tuning_table_text(container_info& info, const std::string& text, const std::string& f) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    // A file cut short says so, with where it stops ("unexpected end of input").
    bad(f, "top level", fmt::format("not valid JSON ({})", e.what()));
  }
  if (!j.is_object()) bad(f, "top level", "not a JSON object");
  if (j.value("schema", "") != "tritonpack-tuning" || j.value("version", 0) != 1)
    bad(f, "schema/version", "expected \"schema\": \"tritonpack-tuning\", \"version\": 1");
  const auto kernels = j.find("kernels");
  if (kernels == j.end() || !kernels->is_object())
    bad(f, "kernels", "missing, or not an object of kernel name -> rows");
  for (const auto& [name, rows] : kernels->items()) {
    kernel_info* k = nullptr;
    for (kernel_info& x : info.kernels)
      if (x.name == name) k = &x;
    const std::string kp = "kernels." + name;
    if (!k) bad(f, kp, "the container has no kernel of that name");
    kernel_tuning& t = k->tuning;
    if (t.config_count <= 1)
      bad(f, kp, "the kernel has one config per specialisation: there is nothing to choose");
    if (!rows.is_array()) bad(f, kp, "not an array of rows");
    std::set<std::pair<std::string, std::vector<std::int64_t>>> seen;
    for (const tune_entry& e : t.table) seen.insert({e.device, e.bucket});
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const json& row = rows[r];
      const std::string rp = fmt::format("{}[{}]", kp, r);
      if (!row.is_object()) bad(f, rp, "not an object");
      tune_entry e;
      if (!row.contains("device") || !row["device"].is_string() ||
          row["device"].get<std::string>().empty())
        bad(f, rp + ".device",
            "missing or empty (a GPU name such as \"NVIDIA H200\", or an arch such as \"sm_90\")");
      e.device = row["device"].get<std::string>();
      if (!row.contains("bucket") || !row["bucket"].is_array() ||
          row["bucket"].size() != t.key_count())
        bad(f, rp + ".bucket",
            fmt::format("must be an array of {} integers, one per key of the kernel",
                        t.key_count()));
      for (const json& b : row["bucket"]) {
        if (!b.is_number_integer()) bad(f, rp + ".bucket", "holds a value that is not an integer");
        e.bucket.push_back(b.get<std::int64_t>());
      }
      if (!row.contains("config") || !row["config"].is_number_unsigned() ||
          row["config"].get<std::uint64_t>() >= t.config_count)
        bad(f, rp + ".config", fmt::format("must be a config index below {}", t.config_count));
      e.config = static_cast<std::uint32_t>(row["config"].get<std::uint64_t>());
      e.times_ns.assign(t.config_count, ~std::uint64_t{0});
      if (row.contains("times_ns")) {
        const json& ts = row["times_ns"];
        if (!ts.is_array() || ts.size() != t.config_count)
          bad(f, rp + ".times_ns",
              fmt::format("must be an array of {} times (ns) or nulls, one per config",
                          t.config_count));
        for (std::size_t c = 0; c < ts.size(); ++c) {
          if (ts[c].is_null()) continue;
          if (!ts[c].is_number_unsigned())
            bad(f, rp + ".times_ns", "holds a value that is neither a time in ns nor null");
          e.times_ns[c] = ts[c].get<std::uint64_t>();
        }
      }
      if (!seen.insert({e.device, e.bucket}).second)
        bad(f, rp, "a second row for this device and bucket");
      t.table.push_back(std::move(e));
    }
  }
}

}  // namespace tritonpack::pack
