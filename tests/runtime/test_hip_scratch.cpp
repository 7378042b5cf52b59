// The global scratch buffer Triton 3.8 and later pass AMD kernels (docs/hip-abi.md §1.2,
// launch/triton_abi.hpp hip_global_scratch), on the test-double libamdhip64: tests/data's
// vector_add code object relabelled as built by a given Triton release and asking for global
// scratch. What the kernel would read is the recorded launch's second-last explicit argument.
#include <doctest/doctest.h>

#include <cstdint>

#include "hip_test_util.hpp"

using namespace tritonpack;
using tphip::fake_hip;
using tphip::global_scratch_of;
using tphip::hip_setup;
using tptest::contains;

namespace runtime_hip_scratch_tests {  // this file's own names (the test binary is a unity build)
namespace {
// The fixtures with the gfx942 code object relabelled: built by `version`, asking for `size`
// bytes of global scratch per program aligned to `align` (and `num_ctas` CTAs per program).
std::vector<std::uint8_t> relabelled(const char* version, std::uint64_t size, std::uint32_t align,
                                     std::uint32_t num_ctas = 1) {
  auto m = pack::load_manifest(std::string(TP_ARTIFACTS_DIR) + "/manifest.json");
  for (image_info& im : m.info.images)
    if (im.kind == image_kind::hsaco && im.arch == "gfx942") {
      im.launch.triton_version = version;
      im.launch.global_scratch_size = size;
      im.launch.global_scratch_align = align;
      im.launch.num_ctas = num_ctas;
    }
  return pack::write_container(m.info, m.image_bytes);
}

void launch_grid(library& lib, tphip::vector_add_arrays& a, grid3 g) {
  lib.get("vector_add").launch(nullptr, g, static_cast<const float*>(a.x.data()), static_cast<const float*>(a.y.data()),
                               a.out.data(), 16, 1.0f);
}
}  // namespace

TEST_CASE("HIP global scratch, Triton 3.8 and later: gridX*gridY*gridZ*size bytes of device memory, aligned, reused and grown") {
  for (const char* version : {"3.8.0", "3.9.0"}) {
    CAPTURE(version);
    hip_setup s;
    fake_hip& h = fake_hip::get();
    {
      tphip::vector_add_arrays a;
      const auto bytes = relabelled(version, 256, 16);
      library lib(bytes.data(), bytes.size());
      const std::size_t arrays = h.live_allocations();

      launch_grid(lib, a, {3, 2, 2});  // 12 programs x 256 bytes
      void* p = global_scratch_of(h.last_launch());
      REQUIRE(p != nullptr);
      CHECK(h.allocation_bytes_from(p) >= 12 * 256);
      CHECK(h.allocation_bytes_from(p) < 13 * 256);  // no num_ctas or other factor
      CHECK(reinterpret_cast<std::uintptr_t>(p) % 16 == 0);
      CHECK(h.live_allocations() == arrays + 1);

      // The same grid on the same stream: the same buffer, no new allocation.
      launch_grid(lib, a, {2, 1, 1});
      CHECK(global_scratch_of(h.last_launch()) == p);
      CHECK(h.live_allocations() == arrays + 1);

      // A larger grid: a larger buffer (at least twice the old one); the old one retired.
      launch_grid(lib, a, {100, 1, 1});
      void* q = global_scratch_of(h.last_launch());
      REQUIRE(q != nullptr);
      CHECK(h.allocation_bytes_from(q) >= 100 * 256);
      CHECK(h.launch_count() == 3);
    }
    // The library's teardown freed every scratch buffer (and the arrays went with their scope).
    CHECK(h.live_allocations() == 0);
  }
}

TEST_CASE("HIP global scratch under graph capture: a dedicated buffer per captured launch, allocated in relaxed mode, kept to unload") {
  hip_setup s;
  fake_hip& h = fake_hip::get();
  {
    tphip::vector_add_arrays a;
    const auto bytes = relabelled("3.8.0", 256, 16);
    library lib(bytes.data(), bytes.size());
    stream_t st = create_stream();
    auto launch_on = [&](stream_t stream) {
      lib.get("vector_add").launch(stream, {4, 1, 1}, static_cast<const float*>(a.x.data()),
                                   static_cast<const float*>(a.y.data()), a.out.data(), 16, 1.0f);
      return global_scratch_of(h.last_launch());
    };
    const std::size_t arrays = h.live_allocations();
    h.set_capturing(st, 1);
    // The double refuses hipMalloc during capture outside relaxed mode, as HIP does: these
    // launches allocate only because the run time switches the thread to relaxed mode.
    void* c1 = launch_on(st);
    void* c2 = launch_on(st);
    CHECK(c1 != nullptr);
    CHECK(c2 != nullptr);
    CHECK(c1 != c2);  // each captured launch bakes its own address into the graph
    CHECK(h.live_allocations() == arrays + 2);
    h.set_capturing(st, 0);
    void* p = launch_on(st);  // not capturing: the stream's own buffer
    CHECK(p != c1);
    CHECK(p != c2);
    CHECK(h.live_allocations() == arrays + 3);
    CHECK(launch_on(st) == p);
    destroy_stream(st);
  }
  CHECK(h.live_allocations() == 0);
}

TEST_CASE("HIP global scratch: an alignment above hipMalloc's 256 bytes is honoured") {
  hip_setup s;
  fake_hip& h = fake_hip::get();
  tphip::vector_add_arrays a;
  const auto bytes = relabelled("3.8.0", 96, 4096);
  library lib(bytes.data(), bytes.size());
  launch_grid(lib, a, {5, 1, 1});
  void* p = global_scratch_of(h.last_launch());
  REQUIRE(p != nullptr);
  CHECK(reinterpret_cast<std::uintptr_t>(p) % 4096 == 0);
  CHECK(h.allocation_bytes_from(p) >= 5 * 96);
}

TEST_CASE("HIP global scratch: null for images before Triton 3.8 and for 3.8 images that need none") {
  for (const char* version : {"3.6.0", "3.7.1", "3.8.0"}) {
    CAPTURE(version);
    hip_setup s;
    fake_hip& h = fake_hip::get();
    tphip::vector_add_arrays a;
    const auto bytes = relabelled(version, 0, 1);
    library lib(bytes.data(), bytes.size());
    const std::size_t arrays = h.live_allocations();
    launch_grid(lib, a, {4, 1, 1});
    CHECK(global_scratch_of(h.last_launch()) == nullptr);
    CHECK(h.live_allocations() == arrays);
  }
}

TEST_CASE("HIP global scratch: a pre-3.8 image asking for some is refused (its launcher passed null)") {
  hip_setup s;
  tphip::vector_add_arrays a;
  const auto bytes = relabelled("3.7.1", 256, 16);
  library lib(bytes.data(), bytes.size());
  auto e = tptest::expect_error([&] { launch_grid(lib, a, {1, 1, 1}); });
  CHECK(e.code() == errc::bad_container);
  CHECK(contains(e.what(), "kernel vector_add (gfx942 hsaco) asks for 256 bytes of global scratch per program, but it was built "
                           "by Triton 3.7.1, whose AMD launcher passes no global scratch (only 3.8 and later do)"));
  CHECK(fake_hip::get().launch_count() == 0);
}

TEST_CASE("HIP global scratch: a grid x size beyond 2^62 bytes, or beyond the device's memory, is an error, never a launch") {
  hip_setup s;
  fake_hip& h = fake_hip::get();
  tphip::vector_add_arrays a;
  {
    const auto bytes = relabelled("3.8.0", std::uint64_t{1} << 40, 16);
    library lib(bytes.data(), bytes.size());
    const std::size_t mallocs = h.calls("hipMalloc");
    auto e = tptest::expect_error([&] { launch_grid(lib, a, {1u << 23, 1, 1}); });
    CHECK(e.code() == errc::out_of_memory);
    CHECK(contains(e.what(), "kernel vector_add: scratch memory for grid 8388608x1x1 (1099511627776 bytes of global and 0 bytes "
                             "of profile scratch per program) exceeds 2^62 bytes; launch a smaller grid"));
    CHECK(h.calls("hipMalloc") == mallocs);  // nothing allocated
  }
  {
    // 2^30 bytes x 128 programs = 128 GiB: more than the double's 64 GiB device.
    const auto bytes = relabelled("3.8.0", std::uint64_t{1} << 30, 16);
    library lib(bytes.data(), bytes.size());
    auto e = tptest::expect_error([&] { launch_grid(lib, a, {128, 1, 1}); });
    CHECK(e.code() == errc::out_of_memory);
    CHECK(contains(e.what(), "kernel vector_add: hipMalloc of 137438953472 bytes of global scratch failed: hipErrorOutOfMemory (2)"));
  }
  CHECK(h.launch_count() == 0);
}

TEST_CASE("HIP global scratch: profile scratch (proton instrumentation) is still refused") {
  hip_setup s;
  tphip::vector_add_arrays a;
  auto m = pack::load_manifest(std::string(TP_ARTIFACTS_DIR) + "/manifest.json");
  for (image_info& im : m.info.images)
    if (im.kind == image_kind::hsaco && im.arch == "gfx942") {
      im.launch.triton_version = "3.9.0";
      im.launch.profile_scratch_size = 64;
    }
  const auto bytes = pack::write_container(m.info, m.image_bytes);
  library lib(bytes.data(), bytes.size());
  auto e = tptest::expect_error([&] { launch_grid(lib, a, {1, 1, 1}); });
  CHECK(e.code() == errc::unsupported);
  CHECK(contains(e.what(), "kernel vector_add (gfx942 hsaco) asks for 64 bytes of profile scratch per program (proton "
                           "instrumentation); the HIP backend passes the profile scratch pointer as null"));
  CHECK(fake_hip::get().launch_count() == 0);
}

}  // namespace runtime_hip_scratch_tests
