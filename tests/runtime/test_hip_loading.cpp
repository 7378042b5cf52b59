// The HIP backend loading and launching tests/data's kernels on the test-double libamdhip64
// (fake_hip/, loaded through TRITONPACK_HIP_LIBRARY): the launch as Triton 3.6's AMD launcher
// makes it, the code object chosen per gfx, the gfx name read from either device-properties
// layout, the errors (each naming the kernel), the runtime versions accepted, the memory and
// device API. Every launch recorded here passed the double's checks against the code object's
// own metadata (kernarg offsets and sizes, block, LDS, device).
#include <doctest/doctest.h>

#include <tritonpack/hip/launch_abi.hpp>

#include "hip_test_util.hpp"

using namespace tritonpack;
using tphip::fake_hip;
using tphip::hip_setup;
using tphip::kernarg_at;
using tphip::launch_vector_add;
using tptest::contains;

namespace runtime_hip_loading_tests {  // this file's own names (the test binary is a unity build)
namespace {
// The fixtures with every `arch` code object's launch metadata changed by `edit`.
template <class F>
std::vector<std::uint8_t> fixtures_with_launch(const std::string& arch, F edit) {
  auto m = pack::load_manifest(std::string(TP_ARTIFACTS_DIR) + "/manifest.json");
  for (image_info& im : m.info.images)
    if (im.kind == image_kind::hsaco && im.arch == arch) edit(im.launch);
  return pack::write_container(m.info, m.image_bytes);
}

// The fixtures with every `arch` code object's launch metadata saying `num_warps` warps.
std::vector<std::uint8_t> fixtures_with_num_warps(const std::string& arch, std::uint32_t num_warps) {
  auto m = pack::load_manifest(std::string(TP_ARTIFACTS_DIR) + "/manifest.json");
  for (image_info& im : m.info.images)
    if (im.kind == image_kind::hsaco && im.arch == arch) im.launch.num_warps = num_warps;
  return pack::write_container(m.info, m.image_bytes);
}
}  // namespace

TEST_CASE("HIP: vector_add from tests/data is loaded for the device's gfx and launched with Triton 3.6's AMD ABI") {
  hip_setup s;
  const auto& bytes = tptest::fixture_container();
  library lib(bytes.data(), bytes.size());
  CHECK(get_backend().kind() == backend_kind::hip);
  CHECK(contains(get_backend().describe(), "HIP 7.1.25424"));
  tphip::vector_add_arrays a(3000);
  float* x = a.x.data();
  float* y = a.y.data();
  float* out = a.out.data();
  launch_vector_add(lib, x, y, out, 3000, 2.5f);
  const auto r = fake_hip::get().last_launch();
  CHECK(std::string(r.name) == "vector_add");
  CHECK(r.grid[0] == 3);
  CHECK(r.grid[1] == 1);
  CHECK(r.grid[2] == 1);
  CHECK(r.block[0] == 256);  // num_warps 4 x wavefront 64 (gfx942)
  CHECK(r.block[1] == 1);
  CHECK(r.block[2] == 1);
  CHECK(r.shared == 0);
  CHECK(r.cooperative == 0);
  CHECK(r.via == TPFAKEHIP_VIA_MODULE_LAUNCH);
  CHECK(r.via_extra == 0);               // kernelParams, as Triton's launcher
  REQUIRE(r.kernarg_size == 48);         // where the code object's explicit arguments end
  CHECK(r.num_args == 7);                // 5 parameters and the two scratch pointers
  CHECK(kernarg_at<const void*>(r, 0) == x);
  CHECK(kernarg_at<const void*>(r, 8) == y);
  CHECK(kernarg_at<const void*>(r, 16) == out);
  CHECK(kernarg_at<std::int32_t>(r, 24) == 3000);
  CHECK(kernarg_at<float>(r, 28) == 2.5f);
  CHECK(kernarg_at<const void*>(r, 32) == nullptr);  // global scratch: always null on AMD
  CHECK(kernarg_at<const void*>(r, 40) == nullptr);  // profile scratch: null without instrumentation
  CHECK(fake_hip::get().rejected_launch_count() == 0);
  CHECK(lib.current_device().arch == "gfx942:sramecc+:xnack-");
  // A zero-size grid launches nothing, as Triton's launcher.
  const std::size_t before = fake_hip::get().launch_count();
  lib.get("vector_add").launch(nullptr, {0, 1, 1}, static_cast<const float*>(x), static_cast<const float*>(y), static_cast<float*>(out), 0, 1.0f);
  CHECK(fake_hip::get().launch_count() == before);
}

TEST_CASE("HIP: image_loads() counts each code object loaded (one per kernel, variant and device), as on CUDA") {
  hip_setup s;
  const auto& bytes = tptest::fixture_container();
  const image_load_counts before = image_loads();
  {
    library lib(bytes.data(), bytes.size());
    tphip::vector_add_arrays a;
    a.launch(lib, 16, 1.0f);  // variant 0 (aligned, n % 16 == 0): one code object
    a.launch(lib, 16, 1.0f);  // loaded already: no count
    const image_load_counts after = image_loads();
    CHECK(after.binaries - before.binaries == 1);
    CHECK(after.jit_compiled == before.jit_compiled);  // AMD IR is never JIT-compiled
    CHECK(after.jit_cache_hits == before.jit_cache_hits);
    lib.unload();
    a.launch(lib, 16, 1.0f);  // loaded again after unload(): counted again
  }
  CHECK(image_loads().binaries - before.binaries == 2);
  {
    hip_setup refused("gfx942:sramecc+:xnack-", 70125424, "hipModuleLoadData=200");
    library lib(bytes.data(), bytes.size());
    float x[1], y[1], out[1];
    CHECK_THROWS_AS(launch_vector_add(lib, x, y, out, 16, 1.0f), error);
  }
  CHECK(image_loads().binaries - before.binaries == 2);  // a refused code object is not a load
}

TEST_CASE("HIP: the gfx90a code object is chosen on a gfx90a with pinned features; the gfx name is read from either props layout") {
  // ROCm 6+ exports hipGetDevicePropertiesR0600 (the new layout); the ROCm 5 build of the double
  // has only hipGetDeviceProperties (the R0000 layout), here as a ROCm 6.2 runtime.
  for (const char* library_path : {TP_FAKE_HIP_PATH, TP_FAKE_HIP_ROCM5_PATH}) {
    CAPTURE(library_path);
    hip_setup s("gfx90a:sramecc-:xnack+", 60241133, "", "hip", library_path);
    const auto& bytes = tptest::fixture_container();
    library lib(bytes.data(), bytes.size());
    tphip::vector_add_arrays a;
    a.launch(lib, 16, 1.0f);  // the double refuses a code object of another gfx (209)
    const fake_hip& f = fake_hip::at(library_path);
    CHECK(f.last_launch().block[0] == 256);
    CHECK(f.rejected_launch_count() == 0);
    CHECK(lib.current_device().arch == "gfx90a:sramecc-:xnack+");
  }
}

TEST_CASE("HIP: a gfx name no layout verifies is an error, not a guess") {
  // The structs carry a string the attributes (major 9, minor 4) do not confirm as a gfx94x name.
  hip_setup s("gfx942:sramecc+:xnack-/propsname=AMD Instinct MI300X");
  const auto& bytes = tptest::fixture_container();
  library lib(bytes.data(), bytes.size());
  float x[1], y[1], out[1];
  auto e = tptest::expect_error([&] { launch_vector_add(lib, x, y, out, 16, 1.0f); });
  CHECK(e.code() == errc::driver_error);
  CHECK(contains(e.what(), "cannot read the gfx name of AMD device 0"));
  CHECK(contains(e.what(), "hipGetDevicePropertiesR0600: no gfx94x name at offset 1160"));
  CHECK(contains(e.what(), "hipGetDeviceProperties: no gfx94x name at offset 396"));
}

TEST_CASE("HIP errors name the kernel: no code object for this gfx, a damaged one, a missing symbol, a failed launch") {
  const auto& bytes = tptest::fixture_container();
  float x[1], y[1], out[1];
  {
    hip_setup s("gfx1100/name=Radeon RX 7900 XTX");
    library lib(bytes.data(), bytes.size());
    // n = 17: variant 1 (the general one) whatever the stack arrays' alignment (ASan moves them).
    auto e = tptest::expect_error([&] { launch_vector_add(lib, x, y, out, 17, 1.0f); });
    CHECK(e.code() == errc::no_image);
    CHECK(contains(e.what(), "kernel vector_add (variant 1) has no image for device 0 (Radeon RX 7900 XTX, gfx1100, HIP 7.1.25424)"));
    CHECK(contains(e.what(), "device: hip gfx1100, driver HIP 7.1.25424"));
    CHECK(contains(e.what(), "llir gfx942: LLVM IR for another gfx processor"));
    CHECK(contains(e.what(), "hsaco gfx942"));
    CHECK(contains(e.what(), "different gfx processor"));
  }
  {
    hip_setup s("gfx942:sramecc+:xnack-", 70125424, "hipModuleLoadData=200");
    library lib(bytes.data(), bytes.size());
    auto e = tptest::expect_error([&] { launch_vector_add(lib, x, y, out, 16, 1.0f); });
    CHECK(e.code() == errc::no_image);
    CHECK(e.driver_status() == 200);
    CHECK(contains(e.what(), "kernel vector_add (gfx942 hsaco): hipModuleLoadData of the code object on device 0"));
    CHECK(contains(e.what(), "hipErrorInvalidImage (200)"));
    CHECK(contains(e.what(), "damaged or not for this GPU"));
  }
  {
    hip_setup s("gfx942:sramecc+:xnack-", 70125424, "hipModuleGetFunction=500");
    library lib(bytes.data(), bytes.size());
    auto e = tptest::expect_error([&] { launch_vector_add(lib, x, y, out, 16, 1.0f); });
    CHECK(e.code() == errc::bad_container);
    CHECK(contains(e.what(), "kernel vector_add (gfx942 hsaco): the code object has no kernel \"vector_add\""));
    CHECK(fake_hip::get().live_modules() == 0);  // the module was unloaded again
  }
  {
    hip_setup s("gfx942:sramecc+:xnack-", 70125424, "hipModuleLaunchKernel=719");
    library lib(bytes.data(), bytes.size());
    auto e = tptest::expect_error([&] { launch_vector_add(lib, x, y, out, 16, 1.0f); });
    CHECK(e.code() == errc::launch_failed);
    CHECK(contains(e.what(), "launch of kernel vector_add (gfx942 hsaco) with grid 1x1x1 programs, block 256, 0 bytes LDS"));
    CHECK(contains(e.what(), "hipErrorLaunchFailure (719)"));
  }
  {
    // Container metadata saying 8 warps for code objects compiled for 4 (.max_flat_workgroup_size 256).
    hip_setup s;
    const auto wrong = fixtures_with_num_warps("gfx942", 8);
    library lib(wrong.data(), wrong.size());
    auto e = tptest::expect_error([&] { launch_vector_add(lib, x, y, out, 16, 1.0f); });
    CHECK(e.code() == errc::bad_container);
    CHECK(contains(e.what(), "kernel vector_add (gfx942 hsaco) is launched with 512 threads per block (num_warps 8 x wavefront 64) "
                             "but the compiled kernel allows 256"));
    CHECK(fake_hip::get().launch_count() == 0);
  }
  {
    hip_setup s;
    library lib(bytes.data(), bytes.size());
    auto e = tptest::expect_error([&] {
      lib.get("vector_add").launch(nullptr, {1, 65537, 1}, static_cast<const float*>(x), static_cast<const float*>(y), static_cast<float*>(out), 16, 1.0f);
    });
    CHECK(e.code() == errc::bad_argument);
    CHECK(contains(e.what(), "kernel vector_add: grid y = 65537 is above the HIP limit of 65536"));
  }
}

TEST_CASE("HIP runtime versions: older than 6.0 refused for Triton 3.6's code objects; missing entry points named") {
  {
    hip_setup s("gfx90a", 50221153);
    auto e = tptest::expect_error([] { get_backend(); });
    CHECK(e.code() == errc::no_driver);
    CHECK(contains(e.what(), "HIP 5.2.21153 is too old for Triton 3.6's code objects"));
    CHECK(contains(e.what(), "Install ROCm 6 or newer"));
  }
  {
    hip_setup s("none", 50221153);
    auto e = tptest::expect_error([] { get_backend(); });
    CHECK(e.code() == errc::no_device);
    CHECK(contains(e.what(), "reports no AMD GPU"));
    CHECK(contains(e.what(), "too old"));
  }
  {
    hip_setup s("gfx942:sramecc+:xnack-", 70125424, "", "hip", TP_FAKE_HIP_NOLAUNCH_PATH);
    auto e = tptest::expect_error([] { get_backend(); });
    CHECK(e.code() == errc::no_driver);
    CHECK(contains(e.what(), "HIP 7.1.25424 lacks required entry points: hipModuleLaunchKernel"));
  }
}

TEST_CASE("HIP: the memory and device API, and launches on the thread's device") {
  hip_setup s("gfx942:sramecc+:xnack-/name=Fake AMD GPU 0,gfx942:sramecc+:xnack-/name=Fake AMD GPU 1");
  CHECK(device_count() == 2);
  CHECK(device_arch(1) == "gfx942:sramecc+:xnack-");
  CHECK(device_name(1) == "Fake AMD GPU 1");
  set_device(1);
  CHECK(get_device() == 1);
  std::vector<float> h = {1, 2, 3, 4}, back(4);
  {
    device_array<float> d(4);
    CHECK(fake_hip::get().live_allocations() == 1);
    copy(d.data(), h.data(), 16);
    copy(back.data(), d.data(), 16);
    CHECK(back == h);
    const auto& bytes = tptest::fixture_container();
    library lib(bytes.data(), bytes.size());
    launch_vector_add(lib, d.data(), d.data(), d.data(), 4, 1.0f);
    CHECK(fake_hip::get().last_launch().device == 1);  // the double refuses a module of another device
  }
  CHECK(fake_hip::get().live_allocations() == 0);
  set_device(0);
}

// What the code object's launch metadata asks for reaches the runtime: its dynamic LDS bytes, and
// a cooperative launch (hipModuleLaunchCooperativeKernel) where launch_cooperative_grid is set.
TEST_CASE("HIP: a launch passes the image's dynamic LDS and takes the cooperative path its metadata asks for") {
  hip_setup s;
  fake_hip& f = fake_hip::get();
  {
    const auto lds = fixtures_with_launch("gfx942", [](launch_info& li) { li.shared = 4096; });
    library lib(lds.data(), lds.size());
    tphip::vector_add_arrays a;
    a.launch(lib, 16, 1.0f);
    const auto r = f.last_launch();
    CHECK(r.shared == 4096);
    CHECK(r.cooperative == 0);
    CHECK(r.via == TPFAKEHIP_VIA_MODULE_LAUNCH);
  }
  {
    const auto coop = fixtures_with_launch("gfx942", [](launch_info& li) {
      li.shared = 512;
      li.launch_cooperative_grid = true;
    });
    library lib(coop.data(), coop.size());
    tphip::vector_add_arrays a;
    a.launch(lib, 16, 1.0f);
    const auto r = f.last_launch();
    CHECK(r.shared == 512);
    CHECK(r.cooperative == 1);
    CHECK(r.via == TPFAKEHIP_VIA_COOPERATIVE);
  }
  CHECK(f.rejected_launch_count() == 0);
}

// Work queued on a stream reaches the runtime on that stream, and a non-blocking stream is
// created with hipStreamNonBlocking: a backend queueing everything on the default (blocking)
// stream would copy the same bytes, so the streams themselves are checked. hipMemset takes
// (destination, value, bytes): the bytes it filled are checked.
TEST_CASE("HIP: copies, memsets, synchronisation and launches go to the stream given; non-blocking streams are created so") {
  hip_setup s;
  fake_hip& f = fake_hip::get();
  stream_t blocking = create_stream(false), non_blocking = create_stream(true);
  CHECK(f.stream_flags(blocking) == 0);
  CHECK(f.stream_flags(non_blocking) == 1);  // hipStreamNonBlocking
  {
    device_array<float> d(4);
    const std::vector<float> h = {1, 2, 3, 4};
    std::vector<float> back(4);
    copy_async(d.data(), h.data(), 16, non_blocking);
    CHECK(f.last_stream("hipMemcpyAsync") == non_blocking);
    copy_async(back.data(), d.data(), 16, blocking);
    CHECK(f.last_stream("hipMemcpyAsync") == blocking);
    CHECK(back == h);
    memset_device_async(d.data(), 0, 16, non_blocking);
    CHECK(f.last_stream("hipMemsetAsync") == non_blocking);
    synchronize(non_blocking);
    CHECK(f.last_stream("hipStreamSynchronize") == non_blocking);
    memset_device(d.data(), 0x5a, 12);
    unsigned char bytes[16];
    copy(bytes, d.data(), 16);
    for (int i = 0; i < 16; ++i) {
      CAPTURE(i);
      CHECK(bytes[i] == (i < 12 ? 0x5a : 0));
    }
    const auto& fixtures = tptest::fixture_container();
    library lib(fixtures.data(), fixtures.size());
    tphip::vector_add_arrays a;
    lib.get("vector_add").launch(non_blocking, {1, 1, 1}, static_cast<const float*>(a.x.data()),
                                 static_cast<const float*>(a.y.data()), a.out.data(), 16, 1.0f);
    CHECK(f.last_launch().stream == non_blocking);
  }
  destroy_stream(blocking);
  destroy_stream(non_blocking);
  CHECK(f.rejected_launch_count() == 0);
}

}  // namespace runtime_hip_loading_tests
