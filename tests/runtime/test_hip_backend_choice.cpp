// Which backend the run time uses and what it says about it: TRITONPACK_BACKEND unset (the vendor
// whose device some image fits, NVIDIA first; both diagnoses when neither has a GPU), TRITONPACK_LOG=1's account of the
// choice, and Debian's real libamdhip64 5.2.3 (no AMD GPU here) diagnosed, never a crash.
#include <doctest/doctest.h>

#include <unistd.h>

#include "hip_test_util.hpp"

using namespace tritonpack;
using tphip::hip_setup;
using tptest::contains;

TEST_CASE("TRITONPACK_BACKEND unset: NVIDIA first, then HIP; both diagnoses when neither has a GPU") {
  tptest::setup("none");  // the CUDA fake: a driver without GPUs
  {
    hip_setup s("gfx942:sramecc+:xnack-", 70125424, "", nullptr);
    CHECK(get_backend().kind() == backend_kind::hip);
  }
  {
    hip_setup s("none", 70125424, "", nullptr);
    auto e = tptest::expect_error([] { get_backend(); });
    CHECK(e.code() == errc::no_device);  // the NVIDIA diagnosis's code
    CHECK(contains(e.what(), "the NVIDIA driver is installed"));
    CHECK(contains(e.what(), "\n  AMD: the AMD HIP runtime is installed"));
  }
  tptest::setup("sm_90");
  {
    hip_setup s("gfx942:sramecc+:xnack-", 70125424, "", nullptr);
    CHECK(get_backend().kind() == backend_kind::cuda);
  }
}

// The fixtures carry sm_80 / sm_90a / sm_100a cubins and PTX, and gfx90a / gfx942 code objects:
// an sm_70 GPU runs none of them, a gfx1100 GPU none either.
TEST_CASE("TRITONPACK_BACKEND unset: the vendor whose device some image of an open library fits") {
  const auto& bytes = tptest::fixture_container();
  SUBCASE("both fit: NVIDIA first") {
    tptest::setup("sm_90");
    hip_setup s("gfx942:sramecc+:xnack-", 70125424, "", nullptr);
    library lib(bytes.data(), bytes.size());
    CHECK(lib.get_backend_for_launch().kind() == backend_kind::cuda);
  }
  SUBCASE("an NVIDIA GPU no image fits, an AMD GPU one does: HIP, and it launches") {
    tptest::setup("sm_70");
    hip_setup s("gfx942:sramecc+:xnack-", 70125424, "", nullptr);
    library lib(bytes.data(), bytes.size());
    CHECK(lib.get_backend_for_launch().kind() == backend_kind::hip);
    const std::size_t before = tphip::fake_hip::get().launch_count();
    tphip::vector_add_arrays a;
    a.launch(lib, 16, 1.0f);
    CHECK(tphip::fake_hip::get().launch_count() == before + 1);
  }
  SUBCASE("the second NVIDIA GPU fits: CUDA") {
    tptest::setup("sm_70,sm_80");
    hip_setup s("gfx942:sramecc+:xnack-", 70125424, "", nullptr);
    library lib(bytes.data(), bytes.size());
    CHECK(lib.get_backend_for_launch().kind() == backend_kind::cuda);
  }
  SUBCASE("no vendor's GPU fits: NVIDIA first, and its launch says why each image was refused") {
    tptest::setup("sm_70");
    hip_setup s("gfx1100", 70125424, "", nullptr);
    library lib(bytes.data(), bytes.size());
    CHECK(lib.get_backend_for_launch().kind() == backend_kind::cuda);
    auto e = tptest::expect_error([&] { lib.preload(); });
    CHECK(e.code() == errc::no_image);
    CHECK(contains(e.what(), "sm_70"));
  }
  SUBCASE("an AMD GPU whose only image is LLVM IR does not fit: NVIDIA first, as when nothing fits") {
    // With the IR path forced the gfx942 code objects are skipped and selection offers the gfx942
    // IR, which comgr compiles only where its LLVM reads Triton's: that does not make AMD fit.
    tptest::setup("sm_70");
    hip_setup s("gfx942:sramecc+:xnack-", 70125424, "", nullptr);
    tptest::env_guard force("TRITONPACK_FORCE_IR", "1");
    library lib(bytes.data(), bytes.size());
    CHECK(lib.get_backend_for_launch().kind() == backend_kind::cuda);
  }
  SUBCASE("an AMD GPU no image fits and no NVIDIA GPU: HIP, the only vendor with a GPU") {
    tptest::setup("none");
    hip_setup s("gfx1100", 70125424, "", nullptr);
    library lib(bytes.data(), bytes.size());
    CHECK(lib.get_backend_for_launch().kind() == backend_kind::hip);
    CHECK(tptest::expect_error([&] { lib.preload(); }).code() == errc::no_image);
  }
  SUBCASE("a kernel whose records are refused does not decide: the next kernel's images do") {
    // vector_add (kernel 0) has a record the reader refuses when it builds the kernel: the choice
    // passes over it instead of failing (which would count as "no image fits" for every vendor and
    // fall back to NVIDIA), finds row_softmax's gfx942 code object where no image fits the sm_70,
    // and only vector_add's own use says what is wrong.
    const std::vector<std::uint8_t> bad = tptest::with_first_arg_type_emptied(bytes, "vector_add");
    tptest::setup("sm_70");
    hip_setup s("gfx942:sramecc+:xnack-", 70125424, "", nullptr);
    library lib(bad.data(), bad.size());
    CHECK(lib.get_backend_for_launch().kind() == backend_kind::hip);
    auto e = tptest::expect_error([&] { (void)lib.get("vector_add"); });
    CHECK(e.code() == errc::bad_container);
    CHECK(contains(e.what(), "kernel vector_add of container"));
  }
  SUBCASE("no library open yet: drivers and devices alone decide, NVIDIA first") {
    tptest::setup("sm_70");
    hip_setup s("gfx942:sramecc+:xnack-", 70125424, "", nullptr);
    CHECK(get_backend().kind() == backend_kind::cuda);
  }
  SUBCASE("a library closed before the choice no longer counts") {
    tptest::setup("sm_70");
    hip_setup s("gfx942:sramecc+:xnack-", 70125424, "", nullptr);
    { library gone(bytes.data(), bytes.size()); }
    CHECK(get_backend().kind() == backend_kind::cuda);
  }
  SUBCASE("TRITONPACK_BACKEND=cuda still forces CUDA on a GPU no image fits") {
    tptest::setup("sm_70");
    hip_setup s("gfx942:sramecc+:xnack-", 70125424, "", "cuda");
    library lib(bytes.data(), bytes.size());
    CHECK(lib.get_backend_for_launch().kind() == backend_kind::cuda);
  }
  SUBCASE("a bad TRITONPACK_FORCE_IMAGE is the user's error, not a vendor's") {
    tptest::setup("sm_90");
    hip_setup s("gfx942:sramecc+:xnack-", 70125424, "", nullptr);
    tptest::env_guard forced("TRITONPACK_FORCE_IMAGE", "cubin-sm_90");
    library lib(bytes.data(), bytes.size());
    auto e = tptest::expect_error([&] { lib.get_backend_for_launch(); });
    CHECK(e.code() == errc::bad_argument);
    CHECK(contains(e.what(), "TRITONPACK_FORCE_IMAGE"));
  }
  SUBCASE("TRITONPACK_FORCE_IMAGE counts: forcing an AMD image moves an NVIDIA-fitting program to HIP") {
    tptest::setup("sm_90");
    hip_setup s("gfx942:sramecc+:xnack-", 70125424, "", nullptr);
    tptest::env_guard forced("TRITONPACK_FORCE_IMAGE", "hsaco:gfx942");
    library lib(bytes.data(), bytes.size());
    CHECK(lib.get_backend_for_launch().kind() == backend_kind::hip);
  }
  tritonpack::testing::reset_backend();
}

TEST_CASE("Debian's real libamdhip64 5.2.3 (no AMD GPU here): loaded and diagnosed, never a crash") {
  const char* debian = "/usr/lib/x86_64-linux-gnu/libamdhip64.so.5";
  if (access(debian, R_OK) != 0) {
    FAIL_CHECK("libamdhip64-5 is not installed: run scripts/setup.sh (it installs the test packages)");
    return;
  }
  // In a child process: the real runtime maps libhsa-runtime64 and friends into the process.
  const std::string got = tphip::in_child([] {
    tptest::env_guard system_search("TRITONPACK_HIP_LIBRARY", nullptr);  // as in production
    tptest::env_guard forced("TRITONPACK_BACKEND", "hip");
    tritonpack::testing::reset_backend();
    try {
      get_backend();
    } catch (const error& e) {
      return std::string(errc_name(e.code())) + "|" + e.what() + "|" + std::to_string(device_count());
    }
    return std::string("no error");
  });
  CAPTURE(got);
  CHECK(got.rfind("no_device|", 0) == 0);
  CHECK(contains(got, "the AMD HIP runtime is installed (libamdhip64.so"));
  CHECK(contains(got, "HIP 5.2.21153) but reports no AMD GPU"));
  CHECK(contains(got, "hipGetDeviceCount: hipErrorNoDevice (100)"));
  CHECK(contains(got, "too old for Triton 3.6's code objects"));
  CHECK(got.substr(got.size() - 2) == "|0");  // device_count() is 0, not an exception
}

TEST_CASE("TRITONPACK_LOG=1 says which backend was chosen and why (child process)") {
  if (!std::getenv("TP_HIPLOG_CHILD")) {
    const auto child = tptest::run_self("TP_HIPLOG_CHILD=1 TRITONPACK_LOG=1", "*says which backend was chosen*");
    const std::string& out = child.output;
    CAPTURE(out);
    CHECK(child.status == 0);
    CHECK(contains(out, "tritonpack: backend: CUDA unusable (the NVIDIA driver is installed"));
    CHECK(contains(out, "); trying HIP\n"));
    CHECK(contains(out, "tritonpack: HIP runtime " TP_FAKE_HIP_PATH ", HIP 7.1.25424, 1 device(s)\n"));
    CHECK(contains(out, "tritonpack: backend: HIP (HIP runtime " TP_FAKE_HIP_PATH
                        " (HIP 7.1.25424)), no usable NVIDIA GPU: device 0 (gfx942:sramecc+:xnack-) runs kernel "));
    CHECK(contains(out, " of library fixtures\n"));
    CHECK(contains(out, "kernargs 48 bytes"));  // the load's line: block, LDS and the kernarg segment
    return;
  }
  tptest::setup("none");
  hip_setup s("gfx942:sramecc+:xnack-", 70125424, "", nullptr);
  const auto& bytes = tptest::fixture_container();
  library lib(bytes.data(), bytes.size());
  tphip::vector_add_arrays a;
  a.launch(lib, 16, 1.0f);
  CHECK(get_backend().kind() == backend_kind::hip);
}

TEST_CASE("TRITONPACK_LOG=1 says why a present NVIDIA GPU was passed over (child process)") {
  if (!std::getenv("TP_HIPFIT_CHILD")) {
    const auto child = tptest::run_self("TP_HIPFIT_CHILD=1 TRITONPACK_LOG=1", "*why a present NVIDIA GPU was passed over*");
    const std::string& out = child.output;
    CAPTURE(out);
    CHECK(child.status == 0);
    CHECK(contains(out, "tritonpack: backend: CUDA unusable (no image of library fixtures runs on its device(s) sm_70); "
                        "trying HIP\n"));
    CHECK(contains(out, "tritonpack: backend: HIP (HIP runtime " TP_FAKE_HIP_PATH
                        " (HIP 7.1.25424)), no NVIDIA GPU fits an image: device 0 (gfx942:sramecc+:xnack-) runs kernel "
                        "vector_add of library fixtures\n"));
    return;
  }
  tptest::setup("sm_70");
  hip_setup s("gfx942:sramecc+:xnack-", 70125424, "", nullptr);
  const auto& bytes = tptest::fixture_container();
  library lib(bytes.data(), bytes.size());
  CHECK(lib.get_backend_for_launch().kind() == backend_kind::hip);
}
