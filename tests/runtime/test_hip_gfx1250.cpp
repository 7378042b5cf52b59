// gfx1250-strict (Triton 3.9; gfx1250's A0 stepping) on the test-double libamdhip64: tests/data's
// triton-3.9 fixture, vector_add compiled by Triton 3.9.0 for gfx1250 and gfx1250-strict, chosen
// and loaded by the name the device reports (select/arch.hpp hsaco_runs_on; docs/runtime.md
// "Selection"). The double loads a code object only on a device of its own gfx name, as ROCr does.
#include <doctest/doctest.h>

#include <algorithm>

#include "hip_test_util.hpp"

using namespace tritonpack;
using tphip::fake_hip;
using tphip::hip_setup;
using tptest::contains;

namespace runtime_hip_gfx1250_tests {  // this file's own names (the test binary is a unity build)
namespace {
const std::string triton39_manifest = std::string(TP_ARTIFACTS_DIR) + "/../triton-3.9/artifacts/manifest.json";

// The fixture as a container, keeping only the images whose arch `keep` accepts.
template <class Keep>
std::vector<std::uint8_t> triton39_container(Keep keep) {
  auto m = pack::load_manifest(triton39_manifest);
  for (kernel_info& k : m.info.kernels)
    for (variant_info& v : k.variants)
      v.images.erase(std::remove_if(v.images.begin(), v.images.end(), [&](std::uint32_t i) { return !keep(m.info.images[i]); }),
                     v.images.end());
  return pack::write_container(m.info, m.image_bytes);
}

// The gfx of the code object loaded by `devices`' launch of vector_add, or the error.
template <class Keep>
std::string loaded_on(const char* devices, Keep keep) {
  hip_setup s(devices);
  const auto bytes = triton39_container(keep);
  library lib(bytes.data(), bytes.size());
  try {
    tphip::vector_add_arrays a;
    a.launch(lib, 16, 1.0f);
  } catch (const error& e) {
    return std::string(errc_name(e.code())) + "|" + e.what();
  }
  return "launched " + std::string(fake_hip::get().last_launch().name) + " on " + devices;
}
bool everything(const image_info&) { return true; }
bool code_objects(const image_info& im) { return im.kind == image_kind::hsaco; }
}  // namespace

TEST_CASE("gfx1250-strict: each stepping gets its own code object, by the name the device reports") {
  CHECK(loaded_on("gfx1250-strict", everything) == "launched vector_add on gfx1250-strict");
  CHECK(loaded_on("gfx1250", everything) == "launched vector_add on gfx1250");
  // The double refuses a code object of another gfx name (hipErrorNoBinaryForGpu): a launch means
  // the right one was loaded. Its wavefront (32) comes from the base processor, gfx1250.
  {
    hip_setup s("gfx1250-strict");
    const auto bytes = triton39_container(everything);
    library lib(bytes.data(), bytes.size());
    tphip::vector_add_arrays a;
    a.launch(lib, 16, 1.0f);
    CHECK(fake_hip::get().last_launch().block[0] == 4 * 32);
  }
}

TEST_CASE("gfx1250-strict: a strict code object is never offered to a gfx1250, nor a gfx1250 one to a gfx1250-strict") {
  const std::string on_b0 = loaded_on("gfx1250", [](const image_info& im) { return code_objects(im) && im.arch == "gfx1250-strict"; });
  CAPTURE(on_b0);
  CHECK(on_b0.rfind("no_image|", 0) == 0);
  CHECK(contains(on_b0, "code object for gfx1250-strict cannot run on gfx1250 (different gfx processor); the HIP runtime reports "
                        "gfx1250-strict only for gfx1250 A0 parts with HSA_DISABLE_GFX12_STRICT=0"));
  const std::string on_a0 = loaded_on("gfx1250-strict", [](const image_info& im) { return code_objects(im) && im.arch == "gfx1250"; });
  CAPTURE(on_a0);
  CHECK(on_a0.rfind("no_image|", 0) == 0);
  CHECK(contains(on_a0, "the device runs only gfx1250-strict code objects"));
}

}  // namespace runtime_hip_gfx1250_tests
