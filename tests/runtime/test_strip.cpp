// A stripped container (pack::strip_container, what `tritonpack strip` writes) on the test doubles:
// each GPU gets the image the kept targets give it, loaded from the same bytes as before, and a
// GPU that only a removed image served gets the no-image error naming what is left.
#include <doctest/doctest.h>

#include <tritonpack/pack/keep_targets.hpp>

#include "hip_test_util.hpp"
#include "test_util.hpp"

using namespace tritonpack;
using tptest::contains;

namespace runtime_strip_tests {  // this file's own names (the test binary is a unity build)
namespace {
std::vector<std::uint8_t> stripped_fixtures(const char* targets, const char* ir) {
  const auto& bytes = tptest::fixture_container();
  const container full = container::parse(bytes.data(), bytes.size());
  return pack::strip_container(full, pack::parse_keep_spec(targets, ir), "fixtures", {}).bytes;
}

// The checksum the full fixtures container records for its image of `kind` / `arch` in kernel
// `kernel`'s first variant.
std::uint64_t original_checksum(const std::string& kernel, image_kind kind,
                                const std::string& arch) {
  const auto& bytes = tptest::fixture_container();
  const container full = container::parse(bytes.data(), bytes.size());
  for (std::uint32_t im :
       full.info().kernels[static_cast<std::size_t>(full.find_kernel(kernel))].variants[0].images)
    if (full.info().images[im].kind == kind && full.info().images[im].arch == arch)
      return full.info().images[im].checksum;
  FAIL("no such image in the fixtures");
  return 0;
}

void launch_vector_add(library& lib) {
  alignas(16) static float a[4], b[4], c[4];
  float* out = c;
  lib.get("vector_add")
      .launch(nullptr, {4, 1, 1}, static_cast<const float*>(a), static_cast<const float*>(b), out,
              std::int32_t{4096}, 2.0f);
}
}  // namespace

TEST_CASE(
    "stripped to sm_90a cubins + generic PTX: sm_90 loads the cubin, sm_80 and sm_120 JIT the "
    "sm_80 PTX") {
  const auto bytes = stripped_fixtures("sm_90a", "generic");
  struct row {
    const char* device;
    const char* arch;
    image_kind kind;
  } rows[] = {{"sm_90", "sm_90a", image_kind::cubin},
              {"sm_80", "sm_80", image_kind::ptx},
              {"sm_120", "sm_80", image_kind::ptx}};
  for (const row& x : rows) {
    CAPTURE(x.device);
    auto& f = tptest::setup(x.device);
    library lib(bytes.data(), bytes.size());
    launch_vector_add(lib);
    const image_info& im = lib.get("vector_add").loaded_image(0);
    CHECK(im.arch == x.arch);
    CHECK(im.kind == x.kind);
    CHECK(im.checksum ==
          original_checksum("vector_add", x.kind, x.arch));  // the same bytes as packed
    CHECK(f.launches().size() == 1);
  }
  // sm_75: nothing left fits; the message lists what the stripped container still has.
  tptest::setup("sm_75", 12080);
  library lib(bytes.data(), bytes.size());
  const error e = tptest::expect_error([&] { launch_vector_add(lib); });
  CHECK(e.code() == errc::no_image);
  const std::string m = e.what();
  CHECK(contains(m, "cubin sm_90a"));
  CHECK(contains(m, "ptx sm_80"));
  CHECK_FALSE(contains(m, "cubin sm_80"));
  CHECK_FALSE(contains(m, "gfx942"));
}

TEST_CASE(
    "stripped to gfx942 code objects: the HIP double loads and launches the kept code object") {
  const auto bytes = stripped_fixtures("gfx942", "none");
  tphip::hip_setup s("gfx942:sramecc+:xnack-");
  library lib(bytes.data(), bytes.size());
  for (const image_info& im : lib.info().images) CHECK(im.arch == "gfx942");
  CHECK(lib.info().images.size() == 7);  // a code object for each of the 2 + 1 + 4 variants
  device_array<float> buf(4096);
  const float* x = buf.data();
  lib.get("vector_add").launch(nullptr, {4, 1, 1}, x, x, buf.data(), std::int32_t{4096}, 2.0f);
  const image_info& im = lib.get("vector_add").loaded_image(0);
  CHECK(im.arch == "gfx942");
  CHECK(im.kind == image_kind::hsaco);
  CHECK(im.checksum == original_checksum("vector_add", image_kind::hsaco, "gfx942"));
  CHECK(tphip::fake_hip::get().launch_count() == 1);
}

}  // namespace runtime_strip_tests
