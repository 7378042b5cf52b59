// The error codes are listed once (TRITONPACK_ERROR_CODES, core/error_codes.hpp) and written out
// for readers in the C header (c/tritonpack.h) and the Fortran module (fortran/tritonpack.f90):
// these cases read both files as text and fail when a name, a value or the count disagrees.
#include <doctest/doctest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <tritonpack/c/c_bridge.hpp>
#include <tritonpack/c/tritonpack.h>
#include <tritonpack/core/error.hpp>
#include <tritonpack/core/error_codes.hpp>

namespace {

using constants = std::vector<std::pair<std::string, int>>;

// What both public headers must declare, in this order: SUCCESS, one constant per code, INTERNAL.
constants from_table() {
  constants c{{"TRITONPACK_SUCCESS", 0}};
#define TP_TEST_CONSTANT(name, NAME, value, description) c.emplace_back("TRITONPACK_ERROR_" #NAME, value);
  TRITONPACK_ERROR_CODES(TP_TEST_CONSTANT)
#undef TP_TEST_CONSTANT
  c.emplace_back("TRITONPACK_ERROR_INTERNAL", static_cast<int>(c.size()));
  return c;
}

std::string read_source(const std::string& path) {
  std::ifstream f(std::string(TP_SOURCE_DIR) + "/" + path);
  REQUIRE_MESSAGE(f, "cannot read " << path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Every `NAME = value` that `pattern` (one capture for each) finds in `text`, in order.
constants scan(const std::string& text, const std::regex& pattern) {
  constants c;
  for (auto m = std::sregex_iterator(text.begin(), text.end(), pattern); m != std::sregex_iterator(); ++m)
    c.emplace_back((*m)[1].str(), std::stoi((*m)[2].str()));
  return c;
}

std::string listed(const constants& c) {
  std::string s;
  for (const auto& [name, value] : c) s += name + " = " + std::to_string(value) + "\n";
  return s;
}

}  // namespace

TEST_CASE("error codes: the C header's enum is the code table") {
  const std::string h = read_source("include/tritonpack/c/tritonpack.h");
  const std::size_t b = h.find("enum tritonpack_status {"), e = h.find("};", b);
  REQUIRE(b != std::string::npos);
  const constants c = scan(h.substr(b, e - b), std::regex(R"((TRITONPACK_\w+)\s*=\s*(\d+))"));
  CHECK(listed(c) == listed(from_table()));
}

TEST_CASE("error codes: the Fortran module's parameters are the code table") {
  const std::string f = read_source("include/tritonpack/fortran/tritonpack.f90");
  const constants c = scan(f, std::regex(R"(integer\(c_int\), parameter, public :: (TRITONPACK_\w+) = (\d+))"));
  CHECK(listed(c) == listed(from_table()));
}

TEST_CASE("error codes: the C API maps each errc to its code and name") {
  int codes = 0;
#define TP_TEST_MAPPING(name, NAME, value, description)                                           \
  CHECK(tritonpack::c_bridge::status_of(tritonpack::errc::name) == (value));                     \
  CHECK(std::string(tritonpack_status_name(value)) == "TRITONPACK_ERROR_" #NAME);                \
  CHECK(std::string(tritonpack::errc_name(tritonpack::errc::name)) == #name);                    \
  ++codes;
  TRITONPACK_ERROR_CODES(TP_TEST_MAPPING)
#undef TP_TEST_MAPPING
  CHECK(codes == TRITONPACK_ERROR_INTERNAL - 1);
  CHECK(std::string(tritonpack_status_name(TRITONPACK_SUCCESS)) == "TRITONPACK_SUCCESS");
  CHECK(std::string(tritonpack_status_name(TRITONPACK_ERROR_INTERNAL)) == "TRITONPACK_ERROR_INTERNAL");
  CHECK(std::string(tritonpack_status_name(TRITONPACK_ERROR_INTERNAL + 1)) == "TRITONPACK_ERROR_UNKNOWN");
  CHECK(tritonpack::c_bridge::status_of(static_cast<tritonpack::errc>(999)) == TRITONPACK_ERROR_INTERNAL);
}
