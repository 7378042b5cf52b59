// The rule for library and kernel names, packer half: every case of tests/data/names.json (the
// table tests/python/test_names.py reads too, so the packer and the front end cannot drift apart),
// and where the packer applies it (pack --name, the manifest's names, write_header).
#include <doctest/doctest.h>

#include <algorithm>

#include "test_util.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/pack/container_writer.hpp"
#include "tritonpack/pack/header_writer.hpp"
#include "tritonpack/pack/manifest.hpp"
#include "tritonpack/pack/names.hpp"

using namespace tritonpack;
using namespace tritonpack::pack;

namespace cli_names_tests {  // this file's own names (the test binary is a unity build)
namespace {
const nlohmann::json& table() {
  static const nlohmann::json t = tp_test::load_json(tp_test::fs::path(TP_ARTIFACTS).parent_path() / "names.json");
  return t;
}
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("the reserved table is the shared one (tests/data/names.json), each name refused with why") {
  std::vector<std::string> ours, shared;
  for (const auto& [name, why] : reserved_names()) ours.push_back(name);
  for (const auto& [name, why] : table()["reserved"].items()) {
    shared.push_back(name);
    CAPTURE(name);
    CHECK(contains(name_problem(name), why.get<std::string>()));
  }
  std::sort(shared.begin(), shared.end());
  CHECK(ours == shared);
}

TEST_CASE("Fortran module names are refused in any case") {
  for (const char* m : {"MPI", "Iso_C_Binding", "OMP_LIB", "Mpi_F08", "OPENACC"}) {
    CAPTURE(m);
    CHECK(contains(name_problem(m), "Fortran module"));
  }
}

TEST_CASE("every name of names.json is accepted or refused as the table says") {
  for (const auto& [name, fragment] : table()["names"].items()) {
    CAPTURE(name);
    if (fragment.is_null()) CHECK(name_problem(name) == "");
    else CHECK(contains(name_problem(name), fragment.get<std::string>()));
  }
}

TEST_CASE("suggestions are the shared ones, and valid") {
  for (const auto& [kind, cases] : table()["suggestions"].items())
    for (const auto& [name, expected] : cases.items()) {
      CAPTURE(kind);
      CAPTURE(name);
      const std::string s = suggest_name(name, kind == "library" ? name_kind::library : name_kind::kernel);
      CHECK(s == expected.get<std::string>());
      CHECK(name_problem(s) == "");
    }
}

TEST_CASE("kernel names that cannot live together in one library") {
  for (const auto& c : table()["libraries"]) {
    CAPTURE(c.dump());
    const auto clash = kernel_names_clash(c["library"].get<std::string>(), c["kernels"].get<std::vector<std::string>>());
    if (c["clash"].is_null()) {
      CHECK(!clash);
    } else {
      REQUIRE(clash);
      CHECK(clash->kernel == c["clash"]["kernel"].get<std::size_t>());
      CHECK(contains(clash->why, c["clash"]["why"].get<std::string>()));
    }
  }
}

TEST_CASE("arguments named like keywords or macros are renamed in C++; other reserved names are not") {
  for (const char* n : {"class", "new", "typeof", "linux", "errno", "assert"}) {
    CAPTURE(n);
    CHECK(breaks_cpp_identifier(n));
  }
  for (const char* n : {"main", "std", "mpi", "x", "last_error", "restrict"}) {
    CAPTURE(n);
    CHECK(!breaks_cpp_identifier(n));
  }
}

TEST_CASE("write_header refuses a library or kernel name the rule refuses, with a valid suggestion") {
  const loaded_manifest m = load_manifest(std::string(TP_ARTIFACTS) + "/manifest.json");
  const auto blob = write_container(m.info, m.image_bytes);
  header_options o;
  o.namespace_name = "main";
  CHECK_THROWS_WITH_AS(write_header(m.info, blob, o),
                       doctest::Contains("the library name 'main' is reserved: the program's entry point, int main(); "
                                         "pack with --name main_kernels"),
                       error);
  o.namespace_name = "_fixtures";
  CHECK_THROWS_WITH_AS(write_header(m.info, blob, o), doctest::Contains("'_fixtures' must start with a letter"), error);
  o.namespace_name = "fixtures";
  container_info info = m.info;
  info.kernels[1].name = "library";
  CHECK_THROWS_WITH_AS(write_header(info, blob, o),
                       doctest::Contains("kernel library: the kernel name 'library' is reserved: used by every generated "
                                         "header (NAME::library()); set `name = \"library_kernel\"`"),
                       error);
  info.kernels[1].name = "Vector_Add";
  CHECK_THROWS_WITH_AS(write_header(info, blob, o),
                       doctest::Contains("kernel Vector_Add: 'Vector_Add' and 'vector_add' (kernel [0]) differ only in case"),
                       error);
  info.kernels[1].name = "Fixtures";
  CHECK_THROWS_WITH_AS(write_header(info, blob, o), doctest::Contains("'Fixtures' is also the library's name"), error);
}

TEST_CASE("pack --name is checked by the rule before the manifest is read; the manifest's names too") {
  const tp_test::fs::path out = tp_test::fs::path(TP_WORK) / "names_out";
  for (const auto& [name, message] :
       {std::pair<std::string, std::string>{"std", "--name: the library name 'std' is reserved: the C++ standard library's "
                                                   "namespace; pass e.g. --name std_kernels"},
        {"9lib", "--name: the library name '9lib' must start with a letter"},
        {"tritonpack", "'tritonpack' is reserved: the run time's namespace"},
        {"my-lib", "pass e.g. --name my_lib"}}) {
    CAPTURE(name);
    // A manifest that does not exist: the name is refused first (exit 2, a usage error).
    const auto r = tp_test::run_cli("pack /nonexistent/manifest.json -o \"" + out.string() + "\" --name " + name);
    CHECK(r.code == 2);
    CHECK(contains(r.out, message));
  }
  const tp_test::fs::path dir = tp_test::copy_artifacts("names_manifest");
  auto m = tp_test::load_json(dir / "manifest.json");
  m["name"] = "detail";
  tp_test::spit(dir / "manifest.json", m.dump());
  const auto r = tp_test::run_cli("pack \"" + (dir / "manifest.json").string() + "\" -o \"" + out.string() + "\"");
  CHECK(r.code == 1);
  CHECK(contains(r.out, "the library name 'detail' is reserved: used by every generated header (NAME::detail); pack with "
                        "--name detail_kernels"));
  CHECK(!tp_test::fs::exists(out / "detail.hpp"));
  // The same manifest under a valid --name packs.
  CHECK(tp_test::run_cli("pack \"" + (dir / "manifest.json").string() + "\" -o \"" + out.string() + "\" --name physics").code == 0);
  CHECK(tp_test::fs::exists(out / "physics.hpp"));
}

TEST_CASE("Fortran intrinsic procedures: the list is Fortran 2018's (names.json); a kernel so named gets NAME_kernel in Fortran, in any case") {
  std::vector<std::string> shared = table()["fortran_intrinsics"].get<std::vector<std::string>>();
  std::sort(shared.begin(), shared.end());
  const std::vector<std::string> ours(fortran_intrinsics().begin(), fortran_intrinsics().end());
  CHECK(ours == shared);
  for (const std::string& n : shared) {
    CAPTURE(n);
    CHECK(fortran_procedure_name(n) == n + "_kernel");
  }
  CHECK(fortran_procedure_name("SUM") == "SUM_kernel");
  CHECK(fortran_procedure_name("MatMul") == "MatMul_kernel");
  for (const char* n : {"softmax", "vector_add", "sum_rows", "maxval2"}) {
    CAPTURE(n);
    CHECK(fortran_procedure_name(n) == n);
    CHECK(fortran_library_problem(n) == "");
  }
  CHECK(contains(fortran_library_problem("Sum"),
                 "the library name 'Sum' is a Fortran intrinsic procedure (SUM): module Sum would hide the intrinsic in "
                 "every program unit that uses it; pack with --name Sum_kernels"));
}

}  // namespace cli_names_tests
