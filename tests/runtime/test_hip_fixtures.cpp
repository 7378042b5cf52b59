// Every kernel and variant in tests/data launched through the HIP backend on the test-double
// libamdhip64, for each gfx the fixtures carry code objects for: the run time selects, loads and
// launches as generated code does (kernel::launch_variant), and the double checks each launch
// against that code object's own .amdhsa.kernels metadata (argument offsets and sizes, kernarg
// size, block against wavefront and .max_flat_workgroup_size, LDS), refusing any disagreement.
#include <doctest/doctest.h>

#include <set>

#include "hip_test_util.hpp"

using namespace tritonpack;
using tphip::fake_hip;
using tphip::hip_setup;
using tphip::kernarg_at;

namespace runtime_hip_fixtures_tests {  // this file's own names (the test binary is a unity build)
namespace {
// An argument value that satisfies `spec` (Triton's predicates), in an 8-byte slot.
std::uint64_t value_for(const kernel_arg& a, const arg_spec& spec, void* device_buffer) {
  if (a.type[0] == '*') return reinterpret_cast<std::uintptr_t>(device_buffer);  // hipMalloc'd: 16-byte aligned
  const std::int32_t i = spec.kind == spec_kind::equal_1 ? 1 : spec.kind == spec_kind::divisible_16 ? 32 : 7;
  std::uint64_t slot = 0;
  if (a.type == "fp32") {
    const float f = 2.5f;
    std::memcpy(&slot, &f, sizeof f);
  } else {
    REQUIRE_MESSAGE(a.type == "i32", "the sweep knows fp32, i32 and pointers; add " << a.type);
    std::memcpy(&slot, &i, sizeof i);
  }
  return slot;
}
}  // namespace

TEST_CASE("HIP: every kernel and variant in tests/data, on each gfx it was compiled for, passes the double's metadata checks") {
  const auto& bytes = tptest::fixture_container();
  const container c = container::parse(bytes.data(), bytes.size());
  std::set<std::string> archs;
  for (const image_info& im : c.info().images)
    if (im.kind == image_kind::hsaco) archs.insert(im.arch);
  REQUIRE(archs == std::set<std::string>{"gfx90a", "gfx942"});
  std::size_t launched = 0;
  for (const std::string& arch : archs) {
    CAPTURE(arch);
    // The fixtures' code objects leave xnack and sramecc unpinned ("any"): they load on either setting.
    hip_setup s((arch + ":sramecc+:xnack-").c_str());
    fake_hip& f = fake_hip::get();
    library lib(bytes.data(), bytes.size());
    device_array<std::uint8_t> buffer(1 << 16);
    for (std::size_t ki = 0; ki < c.info().kernels.size(); ++ki) {
      const kernel_info& k = c.kernel(ki);
      for (std::size_t vi = 0; vi < k.variants.size(); ++vi) {
        CAPTURE(k.name);
        CAPTURE(vi);
        const variant_info& v = k.variants[vi];
        std::vector<std::uint64_t> slots;
        for (std::size_t ai = 0; ai < k.args.size(); ++ai) slots.push_back(value_for(k.args[ai], v.specs.at(ai), buffer.data()));
        std::vector<const void*> args;
        for (const std::uint64_t& slot : slots) args.push_back(&slot);
        const std::size_t before = f.launch_count();
        lib.get(k.name).launch_variant(vi, {2, 1, 1}, nullptr, args.data());
        REQUIRE_MESSAGE(f.launch_count() == before + 1, "refused: " << f.reason());
        const tpfakehip_launch_record r = f.last_launch();
        CHECK(r.grid[0] == 2);
        CHECK(r.block[0] == v.config.num_warps * 64);  // CDNA: wavefront 64
        CHECK(kernarg_at<const void*>(r, 0) == buffer.data());  // every fixture starts with a pointer
        // The trailing two explicit arguments are Triton's scratch pointers, null on AMD.
        REQUIRE(r.num_args >= 2);
        CHECK(kernarg_at<const void*>(r, r.arg_offset[r.num_args - 1]) == nullptr);
        CHECK(kernarg_at<const void*>(r, r.arg_offset[r.num_args - 2]) == nullptr);
        ++launched;
      }
    }
    CHECK(f.rejected_launch_count() == 0);
  }
  CHECK(launched == 2 * 7);  // two gfx x (vector_add 2 + row_softmax 1 + matmul_f16 4 variants)
}

}  // namespace runtime_hip_fixtures_tests
