// One library per name (docs/spec.md, "One library per name in a program"): what a generated
// header checks on first use. Two different libraries with one name in a program meet when the
// linker keeps one copy of each inline definition (library(), the container data, each typed
// function) from either header; these cases build exactly those mixes from two real containers
// and expect the error, never a launch.
#include <doctest/doctest.h>

#include <algorithm>

#include "test_util.hpp"

using namespace tritonpack;
using tptest::contains;

namespace runtime_library_identity_tests {  // this file's own names (the test binary is a unity build)
namespace {
// The fixtures packed again with kernels 0 and 1 swapped: another library that could be named
// "fixtures" too, whose kernel 0 is row_softmax.
const std::vector<std::uint8_t>& swapped_container() {
  static const std::vector<std::uint8_t> bytes = [] {
    auto m = pack::load_manifest(std::string(TP_ARTIFACTS_DIR) + "/manifest.json");
    std::swap(m.info.kernels[0], m.info.kernels[1]);
    return pack::write_container(m.info, m.image_bytes);
  }();
  return bytes;
}

std::uint64_t checksum_of(const std::vector<std::uint8_t>& bytes) {
  return container::parse(bytes.data(), bytes.size()).tables_checksum();
}

const char* const vector_add = "vector_add(*fp32, *fp32, *fp32, i32, fp32)";
}  // namespace

TEST_CASE("the kernel at a generated index is the one the typed function was written for") {
  auto& f = tptest::setup();
  const auto& bytes = tptest::fixture_container();
  const std::uint64_t mine = checksum_of(bytes);
  library lib(bytes.data(), bytes.size(), mine);
  CHECK(&lib.at(0, vector_add, mine) == &lib.at(0));
  CHECK(&lib.at(1, "row_softmax(*fp32, *fp32, i32, i32, i32)", mine) == &lib.get("row_softmax"));
  CHECK(kernel_signature(lib.at(2).info()) == "matmul_f16(*fp16, *fp16, *fp16, i32, i32, i32, i32, i32, i32)");
  CHECK(f.calls("cuInit") == 0);  // checking touches no driver
}

TEST_CASE("a typed function meeting another library of its name: an error that says so, never a launch") {
  auto& f = tptest::setup();
  const auto& theirs_bytes = swapped_container();
  const std::uint64_t mine = checksum_of(tptest::fixture_container()), theirs = checksum_of(theirs_bytes);
  REQUIRE(mine != theirs);
  library lib(theirs_bytes.data(), theirs_bytes.size(), theirs);  // the library() the linker kept

  SUBCASE("another kernel at that index") {
    const error e = tptest::expect_error([&] { lib.at(0, vector_add, mine); });
    CHECK(e.code() == errc::bad_container);
    CHECK(contains(e.what(), "two different libraries named \"fixtures\" are linked into this program: "
                             "fixtures::vector_add was generated for kernel 0, vector_add(*fp32, *fp32, *fp32, i32, fp32), "
                             "of container " + container::hex(mine) + ", but fixtures::library() holds container " +
                                 container::hex(theirs) + ", whose kernel 0 is row_softmax(*fp32, *fp32, i32, i32, i32). "
                                                          "Each library in a program needs its own name: give each "
                                                          "tritonpack_add_kernels() its own NAME"));
  }
  SUBCASE("the same kernel at that index, from another container") {
    const error e = tptest::expect_error([&] { lib.at(2, "matmul_f16(*fp16, *fp16, *fp16, i32, i32, i32, i32, i32, i32)", mine); });
    CHECK(contains(e.what(), "whose kernel 2 is matmul_f16(*fp16, *fp16, *fp16, i32, i32, i32, i32, i32, i32) too, but built "
                             "differently"));
  }
  SUBCASE("an index the other library does not have") {
    const error e = tptest::expect_error([&] { lib.at(7, "extra(i32)", mine); });
    CHECK(contains(e.what(), "fixtures::extra was generated for kernel 7, extra(i32)"));
    CHECK(contains(e.what(), "which has only 3 kernels"));
  }
  SUBCASE("the right container but another signature (a header edited by hand)") {
    const error e = tptest::expect_error([&] { lib.at(0, vector_add, theirs); });
    CHECK(contains(e.what(), "whose kernel 0 is row_softmax("));
  }
  CHECK(f.launch_count() == 0);
  CHECK(f.calls("cuInit") == 0);
}

TEST_CASE("library() meeting another library's container data: an error that says so, before parsing") {
  tptest::setup();
  const auto& mine_bytes = tptest::fixture_container();
  const auto& theirs_bytes = swapped_container();
  const std::uint64_t mine = checksum_of(mine_bytes);
  // A header's library() passes its own size and checksum with whatever data the linker kept.
  const error e = tptest::expect_error([&] { library lib(theirs_bytes.data(), mine_bytes.size() + 8, mine); });
  CHECK(e.code() == errc::bad_container);
  CHECK(contains(e.what(), "two different libraries named \"fixtures\" are linked into this program: fixtures::library() was "
                           "generated for container " + container::hex(mine) +
                               ", but the container data the linker kept under that name is " +
                               container::hex(checksum_of(theirs_bytes))));
  // Data that is not a container at all is still reported by the parser.
  const std::vector<std::uint8_t> junk(400, 'x');
  CHECK(contains(tptest::expect_error([&] { library lib(junk.data(), junk.size(), mine); }).what(), "header.magic"));
}

}  // namespace runtime_library_identity_tests
