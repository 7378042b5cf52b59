// Reproducible output: the same artifacts packed from two folders (other absolute paths, other
// modification times, the manifest rewritten with its keys and each variant's images in another
// order) give byte-identical containers, headers, C headers, C sources and Fortran modules.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "test_util.hpp"

using tp_test::run_cli;
using tp_test::fs::path;

namespace cli_reproducible_tests {  // this file's own names (the test binary is a unity build)
namespace {

// Every regular file under `dir` by its path relative to `dir`, with its bytes.
std::map<std::string, std::vector<std::uint8_t>> tree(const path& dir) {
  std::map<std::string, std::vector<std::uint8_t>> files;
  for (const auto& e : tp_test::fs::recursive_directory_iterator(dir))
    if (e.is_regular_file())
      files[tp_test::fs::relative(e.path(), dir).generic_string()] = tp_test::slurp(e.path());
  return files;
}

path pack_into(const path& manifest, const path& out) {
  tp_test::fs::remove_all(out);
  const auto r = run_cli("pack \"" + manifest.string() + "\" -o \"" + out.string() +
                         "\" --languages c,fortran");
  REQUIRE_MESSAGE(r.code == 0, r.out);
  return out;
}

}  // namespace

TEST_CASE(
    "packing the same artifacts from two folders, listed in another order, gives identical bytes") {
  const path a = tp_test::copy_artifacts("repro_a");
  const path b = tp_test::copy_artifacts("repro_b/a/longer/path/elsewhere");
  // The second copy: each variant's images listed backwards, keys in another order and layout
  // (nlohmann::json sorts them), every file with another modification time.
  nlohmann::json m = tp_test::load_json(b / "manifest.json");
  std::size_t reordered = 0;
  for (auto& k : m["kernels"])
    for (auto& v : k["variants"]) {
      auto& images = v["images"];
      std::reverse(images.begin(), images.end());
      reordered += images.size() > 1;
    }
  REQUIRE(reordered > 0);
  tp_test::spit(b / "manifest.json", m.dump(1));
  const auto when = tp_test::fs::file_time_type::clock::now() - std::chrono::hours(24 * 365 * 3);
  for (const auto& e : tp_test::fs::recursive_directory_iterator(b))
    tp_test::fs::last_write_time(e.path(), when);

  const auto first = tree(pack_into(a / "manifest.json", a / "out"));
  const auto second =
      tree(pack_into(b / "manifest.json", tp_test::fs::path(TP_WORK) / "repro_b_out"));
  REQUIRE(first.size() == 5);  // .tpk, .hpp, .h, _c.cpp and .f90
  for (const auto& [name, bytes] : first) {
    CAPTURE(name);
    REQUIRE(second.count(name) == 1);
    CHECK(bytes == second.at(name));
    // No build-machine path reaches the output.
    const std::string text(bytes.begin(), bytes.end());
    CHECK(text.find(a.string()) == std::string::npos);
    CHECK(text.find(TP_WORK) == std::string::npos);
  }
}

}  // namespace cli_reproducible_tests
