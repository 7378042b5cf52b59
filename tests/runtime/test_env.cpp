// The run time's environment variables: the spellings a boolean accepts, and one warning per
// variable for a value it does not recognise (docs/runtime.md "Environment").
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "test_util.hpp"

using namespace tritonpack;
using tptest::contains;

namespace runtime_env_tests {  // this file's own names (the test binary is a unity build)
namespace {
std::size_t count(const std::string& s, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("a boolean variable accepts 1/true/yes/on and 0/false/no/off in any case") {
  const char* name = "TP_TEST_BOOLEAN";
  for (const char* on : {"1", "true", "TRUE", "Yes", "on", "ON"}) {
    setenv(name, on, 1);
    CHECK_MESSAGE(env::flag(name, false), on);
  }
  for (const char* off : {"0", "false", "False", "no", "NO", "off"}) {
    setenv(name, off, 1);
    CHECK_FALSE_MESSAGE(env::flag(name, true), off);
  }
  setenv(name, "", 1);
  CHECK(env::flag(name, true));
  CHECK_FALSE(env::flag(name, false));
  unsetenv(name);
  CHECK(env::flag(name, true));
}

TEST_CASE("TRITONPACK_BACKEND accepts cuda and hip in any case and names them when the value is wrong") {
  tptest::setup();
  setenv("TRITONPACK_BACKEND", "CUDA", 1);
  tritonpack::testing::reset_backend();
  CHECK(get_backend().kind() == backend_kind::cuda);
  setenv("TRITONPACK_BACKEND", "nvidia", 1);
  tritonpack::testing::reset_backend();
  auto e = tptest::expect_error([] { get_backend(); });
  CHECK(e.code() == errc::bad_argument);
  CHECK(contains(e.what(), "TRITONPACK_BACKEND=\"nvidia\" is not a backend (accepted: cuda or hip, in any case"));
  unsetenv("TRITONPACK_BACKEND");
  tritonpack::testing::reset_backend();
}

TEST_CASE("an unrecognised value is warned about once per variable, and the default applies (child process)") {
  if (std::getenv("TP_ENV_CHILD")) {
    // Set here, not by the parent: test_main.cpp clears some of them in every process.
    setenv("TRITONPACK_FORCE_IR", "ture", 1);
    setenv("TRITONPACK_LOG", "verbose", 1);
    setenv("TRITONPACK_CACHE", "disabled", 1);
    setenv("TRITONPACK_VERIFY_ABI", "2", 1);
    // Every variable is read more than once: by two libraries loading a kernel, and directly.
    tptest::setup("sm_90");
    const auto& bytes = tptest::fixture_container();
    for (int i = 0; i < 2; ++i) {
      library lib(bytes.data(), bytes.size());
      lib.get("vector_add").preload();
      CHECK(lib.get("vector_add").loaded_image(0).kind == image_kind::cubin);  // TRITONPACK_FORCE_IR: off
      CHECK_FALSE(log::enabled());                                              // TRITONPACK_LOG: off
      CHECK(jit_cache::directory());                                            // TRITONPACK_CACHE: on
    }
    return;
  }
  const auto child = tptest::run_self("TP_ENV_CHILD=1", "*unrecognised value is warned*");
  const std::string& out = child.output;
  CAPTURE(out);
  CHECK(child.status == 0);
  const char* accepted = "(accepted: 1, true, yes, on or 0, false, no, off, in any case)";
  CHECK(contains(out, std::string("tritonpack: warning: TRITONPACK_FORCE_IR=\"ture\" is not recognised ") + accepted +
                          "; using the default, off\n"));
  CHECK(contains(out, "TRITONPACK_LOG=\"verbose\" is not recognised"));
  CHECK(contains(out, "TRITONPACK_CACHE=\"disabled\" is not recognised " + std::string(accepted) + "; using the default, on\n"));
  CHECK(contains(out, "TRITONPACK_VERIFY_ABI=\"2\" is not recognised"));
  for (const char* name : {"TRITONPACK_FORCE_IR=", "TRITONPACK_LOG=", "TRITONPACK_CACHE=", "TRITONPACK_VERIFY_ABI="}) {
    CAPTURE(name);
    CHECK(count(out, std::string("warning: ") + name) == 1);
  }
}

}  // namespace runtime_env_tests
