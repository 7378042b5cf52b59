// Loading through the test double: which image each device gets (cubin, lower-minor cubin, PTX
// JIT), the no-image and PTX-too-new errors, force_ir, 64 threads racing the first launch (on one
// device and on four), two devices, preload and unload, ABI and limit checks at load time.
#include <doctest/doctest.h>

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

#include <tritonpack/core/load_stats.hpp>

#include "test_util.hpp"

using namespace tritonpack;
using tptest::contains;

namespace runtime_loading_tests {  // this file's own names (the test binary is a unity build)
namespace {
struct env_guard {
  std::string name;
  env_guard(const char* n, const char* v) : name(n) { setenv(n, v, 1); }
  ~env_guard() { unsetenv(name.c_str()); }
};

// vector_add of the fixtures, launched through the dynamic API with aligned pointers.
void launch_vector_add(library& lib, int n = 4096) {
  alignas(16) static float a[4], b[4], c[4];
  float *x = a, *y = b, *out = c;
  lib.get("vector_add").launch(nullptr, {grid_dim(cdiv(n, 1024)), 1, 1}, static_cast<const float*>(x),
                               static_cast<const float*>(y), out, std::int32_t{n}, 2.0f);
}
}  // namespace

TEST_CASE("each device gets the image the selection rules give it") {
  struct c {
    const char* dev;
    const char* arch;
    image_kind kind;
  } cases[] = {{"sm_90", "sm_90a", image_kind::cubin},
               {"sm_80", "sm_80", image_kind::cubin},
               {"sm_86", "sm_80", image_kind::cubin},
               {"sm_100", "sm_100a", image_kind::cubin},
               {"sm_120", "sm_80", image_kind::ptx}};
  for (const auto& x : cases) {
    CAPTURE(x.dev);
    auto& f = tptest::setup(x.dev);
    const auto& bytes = tptest::fixture_container();
    library lib(bytes.data(), bytes.size());
    launch_vector_add(lib);
    const image_info& im = lib.get("vector_add").loaded_image(0);
    CHECK(im.arch == x.arch);
    CHECK(im.kind == x.kind);
    auto ls = f.launches();
    REQUIRE(ls.size() == 1);
    CHECK(std::string(ls[0].name) == "vector_add");
    CHECK(ls[0].block[0] == 128);
  }
}

TEST_CASE("no image for this GPU: the error lists device, driver and every image with its reason") {
  tptest::setup("sm_75", 12080);
  const auto& bytes = tptest::fixture_container();
  library lib(bytes.data(), bytes.size());
  auto e = tptest::expect_error([&] { launch_vector_add(lib); });
  CHECK(e.code() == errc::no_image);
  const std::string m = e.what();
  CHECK(contains(m, "kernel vector_add"));
  CHECK(contains(m, "Fake GPU sm_75"));
  CHECK(contains(m, "sm_75"));
  CHECK(contains(m, "CUDA 12.8"));
  for (const char* im : {"cubin sm_80", "ptx sm_80", "cubin sm_90a", "ptx sm_90a", "cubin sm_100a", "hsaco gfx942", "llir gfx90a"})
    CHECK_MESSAGE(contains(m, im), im);
  CHECK(contains(m, "needs a newer GPU"));
}

TEST_CASE("PTX ISA newer than the driver accepts: says which ISA and which driver") {
  tptest::setup("sm_120", 12060);
  const auto& bytes = tptest::fixture_container();
  library lib(bytes.data(), bytes.size());
  auto e = tptest::expect_error([&] { launch_vector_add(lib); });
  CHECK(e.code() == errc::ptx_too_new);
  CHECK(contains(e.what(), "ISA 8.7"));
  CHECK(contains(e.what(), "CUDA 12.8"));
  CHECK(contains(e.what(), "CUDA 12.6"));
}

TEST_CASE("the driver refusing a PTX version the table thought fine is still ptx_too_new") {
  // A synthetic PTX claiming ISA 8.5 with the fake driver at 12.4 (max 8.4) but the selection
  // told the driver is unknown... emulate by a driver version the table maps higher than the fake:
  // the fake maps 12.7 → 8.6 exactly as the table, so use an unknown future major instead.
  tptest::setup("sm_90", 14000);  // the table lets the driver decide; the fake accepts ≤ 10.x
  tptest::synth s;
  s.arg("x", "*fp32");
  s.variant();
  s.image(0, image_kind::ptx, "sm_90", tptest::bytes_of(tptest::make_ptx("sm_90", 199, "k", {".u64", ".u64", ".u64"})), {}, 199);
  auto bytes = s.pack();
  library lib(bytes.data(), bytes.size());
  auto e = tptest::expect_error([&] {
    float* x = nullptr;
    lib.get("k").launch(nullptr, {1, 1, 1}, x);
  });
  CHECK(e.code() == errc::ptx_too_new);
  CHECK(e.driver_status() == 222);
  CHECK(contains(e.what(), "PTX ISA 19.9"));
}

TEST_CASE("TRITONPACK_FORCE_IR=1 JIT-compiles the PTX even where a cubin fits") {
  auto& f = tptest::setup("sm_90");
  env_guard g("TRITONPACK_FORCE_IR", "1");
  const auto& bytes = tptest::fixture_container();
  library lib(bytes.data(), bytes.size());
  launch_vector_add(lib);
  const image_info& im = lib.get("vector_add").loaded_image(0);
  CHECK(im.kind == image_kind::ptx);
  CHECK(im.arch == "sm_90a");
  CHECK(f.launches().size() == 1);
  CHECK(f.calls("cuLinkComplete") + f.calls("cuModuleLoadDataEx") >= 1);
}

TEST_CASE("kernel objects are made on first use, once, however many threads ask") {
  tptest::setup();
  const auto& bytes = tptest::fixture_container();
  library lib(bytes.data(), bytes.size());
  const std::size_t n = lib.size();
  REQUIRE(n == lib.info().kernels.size());
  std::vector<std::vector<tritonpack::kernel*>> seen(16, std::vector<tritonpack::kernel*>(n));
  CHECK(tptest::run_threads(16, [&](int thread) {
          const auto t = static_cast<std::size_t>(thread);
          for (std::size_t k = 0; k < n; ++k) {
            const std::size_t i = (k + t) % n;  // threads start on different kernels
            seen[t][i] = &lib.at(i);
          }
        }) == "");
  for (std::size_t i = 0; i < n; ++i) {
    CAPTURE(i);
    for (const auto& s : seen) CHECK(s[i] == seen[0][i]);
    CHECK(seen[0][i]->info().name == lib.info().kernels[i].name);
    CHECK(&lib.get(lib.info().kernels[i].name) == seen[0][i]);
  }
  CHECK(tptest::fake_driver::get().calls("cuInit") == 0);  // making kernel objects touches no driver
}

TEST_CASE("64 threads racing the first launch load the module once") {
  auto& f = tptest::setup("sm_90");
  const auto& bytes = tptest::fixture_container();
  library lib(bytes.data(), bytes.size());
  std::atomic<int> ready{0};
  CHECK(tptest::run_threads(64, [&](int) {
          ready.fetch_add(1);
          while (ready.load() < 64) std::this_thread::yield();
          launch_vector_add(lib);
        }) == "");
  CHECK(f.calls("cuModuleLoadData") == 1);
  CHECK(f.calls("cuModuleGetFunction") == 1);
  CHECK(f.calls("cuDevicePrimaryCtxRetain") == 1);
  CHECK(f.launches().size() == 64);
  CHECK(f.live_modules() == 1);
}

TEST_CASE("64 threads on four devices racing the first launch: one module per device, each its image") {
  // The 64-thread race across several contexts at once (this is what the CI's TSan step runs for
  // data races): each device's slot is created, its image chosen and loaded (sm_120's by PTX JIT,
  // through the JIT cache) while other threads do the same on the other devices.
  auto& f = tptest::setup("sm_90,sm_80,sm_120,sm_86");
  const auto& bytes = tptest::fixture_container();
  library lib(bytes.data(), bytes.size());
  constexpr int kThreads = 64, kDevices = 4;
  struct expected {
    const char* arch;
    image_kind kind;
  } const want[kDevices] = {{"sm_90a", image_kind::cubin},
                            {"sm_80", image_kind::cubin},
                            {"sm_80", image_kind::ptx},
                            {"sm_80", image_kind::cubin}};
  const image_load_counts before = image_loads();
  std::atomic<int> ready{0};
  CHECK(tptest::run_threads(kThreads, [&](int i) {
          const int device = i % kDevices;
          ready.fetch_add(1);  // counted before anything can throw: no thread waits forever
          tptest::set_device(device);
          while (ready.load() < kThreads) std::this_thread::yield();
          launch_vector_add(lib);
          const image_info& im = lib.get("vector_add").loaded_image(0);
          if (im.arch != want[device].arch || im.kind != want[device].kind)
            throw std::runtime_error("device " + std::to_string(device) + " loaded " + im.arch + ", expected " + want[device].arch);
        }) == "");
  CHECK(f.calls("cuModuleLoadData") == kDevices);
  CHECK(f.calls("cuModuleGetFunction") == kDevices);
  CHECK(f.live_modules() == kDevices);
  auto ls = f.launches();
  REQUIRE(ls.size() == kThreads);
  int per_device[kDevices] = {};
  for (const auto& l : ls) {
    REQUIRE(l.device >= 0);
    REQUIRE(l.device < kDevices);
    ++per_device[l.device];
  }
  for (int d = 0; d < kDevices; ++d) CHECK(per_device[d] == kThreads / kDevices);
  // image_loads(), counted from 64 threads at once: three cubins and sm_120's PTX, compiled or
  // read from the JIT cache (whichever an earlier test left).
  const image_load_counts after = image_loads();
  CHECK(after.binaries - before.binaries == 3);
  CHECK(after.jit_compiled - before.jit_compiled + after.jit_cache_hits - before.jit_cache_hits == 1);
}

TEST_CASE("two devices: per-device state, each with its own image") {
  auto& f = tptest::setup("sm_90,sm_80");
  const auto& bytes = tptest::fixture_container();
  library lib(bytes.data(), bytes.size());
  std::string arch0, arch1;
  CHECK(tptest::run_threads(1, [&](int) {
          tptest::set_device(0);
          launch_vector_add(lib);
          arch0 = lib.get("vector_add").loaded_image(0).arch;
        }) == "");
  CHECK(arch0 == "sm_90a");
  CHECK(tptest::run_threads(1, [&](int) {
          tptest::set_device(1);
          launch_vector_add(lib);
          launch_vector_add(lib);
          arch1 = lib.get("vector_add").loaded_image(0).arch;
        }) == "");
  CHECK(arch1 == "sm_80");
  // One thread switching between devices, as an application looping over GPUs does.
  tptest::set_device(0);
  launch_vector_add(lib);
  tptest::set_device(1);
  launch_vector_add(lib);
  auto ls = f.launches();
  REQUIRE(ls.size() == 5);
  CHECK(ls[0].device == 0);
  CHECK(ls[1].device == 1);
  CHECK(ls[2].device == 1);
  CHECK(ls[3].device == 0);
  CHECK(ls[4].device == 1);
  CHECK(f.calls("cuModuleLoadData") == 2);
  CHECK(f.live_modules() == 2);
  lib.unload();
  CHECK(f.live_modules() == 0);
  // Usable again after unload: loads again on the next launch.
  launch_vector_add(lib);
  CHECK(f.live_modules() == 1);
}

TEST_CASE("preload moves loading out of the first launch; destruction unloads everything") {
  auto& f = tptest::setup("sm_90");
  const auto& bytes = tptest::fixture_container();
  {
    library lib(bytes.data(), bytes.size());
    lib.preload();
    size_t variants = 0;
    for (const auto& k : lib.info().kernels) variants += k.variants.size();
    CHECK(f.live_modules() == variants);
    const size_t loads = f.calls("cuModuleLoadData");
    launch_vector_add(lib);
    CHECK(f.calls("cuModuleLoadData") == loads);
    lib.get("row_softmax").preload();  // again: nothing new
    CHECK(f.calls("cuModuleLoadData") == loads);
  }
  CHECK(f.live_modules() == 0);
  CHECK(f.live_allocations() == 0);
}

TEST_CASE("unknown kernel name lists the kernels present") {
  tptest::setup();
  const auto& bytes = tptest::fixture_container();
  library lib(bytes.data(), bytes.size());
  auto e = tptest::expect_error([&] { lib.get("vector_sub"); });
  CHECK(e.code() == errc::not_found);
  CHECK(contains(e.what(), "vector_add"));
  CHECK(contains(e.what(), "row_softmax"));
  CHECK(&lib.kernel("row_softmax") == &lib.get("row_softmax"));
  CHECK_THROWS_AS(lib.at(99), error);
}

TEST_CASE("load-time checks: shared memory above the device limit, block size, ABI") {
  // One `*fp32` argument, `warps` warps of `warp_size` threads, compiled with .reqntid `reqntid`.
  auto block_kernel = [](unsigned warps, unsigned warp_size, unsigned reqntid) {
    tptest::synth s;
    s.arg("x", "*fp32");
    s.variant({}, warps);
    launch_info li;
    li.num_warps = warps;
    li.warp_size = warp_size;
    s.image(0, image_kind::cubin, "sm_90a", tpfake::make_cubin(90, true, {{"k", {8, 8, 8}, reqntid}}), li);
    return s.pack();
  };
  // Preloads an sm_86 cubin needing `shared` bytes of shared memory on fake device `device`;
  // returns the error.
  auto shared_error = [](const char* device, std::uint32_t shared) {
    tptest::setup(device);
    tptest::synth s;
    s.arg("x", "*fp32");
    s.variant();
    launch_info li;
    li.shared = shared;
    s.image(0, image_kind::cubin, "sm_86", tpfake::make_cubin(86, false, {{"k", {8, 8, 8}, 128}}), li);
    auto bytes = s.pack();
    library lib(bytes.data(), bytes.size());
    return tptest::expect_error([&] { lib.get("k").preload(); });
  };
  SUBCASE("shared memory above the arch's opt-in limit: selection refuses the image and says why") {
    auto e = shared_error("sm_86/smem=101376", 131072);
    CHECK(e.code() == errc::unsupported);
    CHECK(contains(e.what(), "no image of this variant fits sm_86"));
    CHECK(contains(e.what(), "cubin sm_86 cannot run on sm_86: needs 128 KB of shared memory, the GPU allows 99 KB"));
  }
  SUBCASE("shared memory above what the driver reports (below the table's) is rejected at load") {
    auto e = shared_error("sm_86/smem=65536", 81920);
    CHECK(e.code() == errc::unsupported);
    CHECK(contains(e.what(), "81920 bytes of shared memory"));
    CHECK(contains(e.what(), "at most 65536"));
  }
  SUBCASE("a block above the compiled .reqntid: the launch fails and says why") {
    tptest::setup("sm_90");
    auto bytes = block_kernel(8, 32, 128);  // 256 threads
    library lib(bytes.data(), bytes.size());
    lib.get("k").preload();  // not queried at load: it would cost every first launch a driver call
    auto e = tptest::expect_error([&] {
      float* x = nullptr;
      lib.get("k").launch(nullptr, {1, 1, 1}, x);
    });
    CHECK(e.code() == errc::unsupported);
    CHECK(contains(e.what(), "needs 256 threads per block"));
    CHECK(contains(e.what(), "allows 128"));
    CHECK(contains(e.what(), "CUDA_ERROR_INVALID_VALUE"));
  }
  SUBCASE("a block above CUDA's 1024 threads is refused by selection") {
    tptest::setup("sm_90");
    auto bytes = block_kernel(32, 64, 2048);
    library lib(bytes.data(), bytes.size());
    auto e = tptest::expect_error([&] { lib.get("k").preload(); });
    CHECK(e.code() == errc::unsupported);
    CHECK(contains(e.what(), "cannot run on sm_90: needs 2048 threads per block (32 warps of 64), the GPU allows 1024"));
  }
  // Compiled without the two scratch pointers (an older Triton ABI).
  auto abi_mismatch = [](const char* triton_version) {
    tptest::synth s;
    s.arg("x", "*fp32");
    s.arg("n", "i32");
    s.variant();
    launch_info li;
    li.triton_version = triton_version;
    s.image(0, image_kind::cubin, "sm_90a", tpfake::make_cubin(90, true, {{"k", {8, 4}, 128}}), li);
    return s.pack();
  };
  auto check_caught = [](tptest::fake_driver& f, const std::vector<std::uint8_t>& bytes) {
    library lib(bytes.data(), bytes.size());
    auto e = tptest::expect_error([&] { lib.get("k").preload(); });
    CHECK(e.code() == errc::bad_container);
    CHECK(contains(e.what(), "[8,4]"));
    CHECK(contains(e.what(), "[8,4,8,8]"));
    CHECK(f.live_modules() == 0);  // the module was unloaded again
  };
  SUBCASE("a parameter list different from Triton's ABI is caught at load (Triton version not verified)") {
    auto& f = tptest::setup("sm_90");
    check_caught(f, abi_mismatch("3.10.0"));
  }
  SUBCASE("Triton 3.6-3.9 cubins skip the driver's parameter check unless TRITONPACK_VERIFY_ABI=1") {
    auto& f = tptest::setup("sm_90");
    const auto bytes = abi_mismatch("3.9.0");
    {
      library lib(bytes.data(), bytes.size());
      lib.get("k").preload();  // the verified ABI is trusted: no cuFuncGetParamInfo
      CHECK(f.calls("cuFuncGetParamInfo") == 0);
    }
    env_guard g("TRITONPACK_VERIFY_ABI", "1");
    check_caught(f, bytes);
  }
  SUBCASE("a JIT-compiled image is always checked") {
    auto& f = tptest::setup("sm_90");
    tptest::synth s;
    s.arg("x", "*fp32");
    s.arg("n", "i32");
    s.variant();
    s.image(0, image_kind::ptx, "sm_90", tptest::bytes_of(tptest::make_ptx("sm_90", 87, "k", {".u64", ".u32"})), {}, 87);
    auto bytes = s.pack();
    library lib(bytes.data(), bytes.size());
    auto e = tptest::expect_error([&] { lib.get("k").preload(); });
    CHECK(e.code() == errc::bad_container);
    CHECK(contains(e.what(), "[8,4]"));
    CHECK(f.live_modules() == 0);
  }
  SUBCASE("a cubin the driver refuses is reported as no_image with the driver's status") {
    tptest::setup("sm_90");
    tptest::synth s;
    s.arg("x", "*fp32");
    s.variant();
    // Labelled sm_90a but actually an sm_80a... the driver checks the ELF, not the label.
    s.image(0, image_kind::cubin, "sm_90a", tpfake::make_cubin(89, true, {{"k", {8, 8, 8}, 128}}));
    auto bytes = s.pack();
    library lib(bytes.data(), bytes.size());
    auto e = tptest::expect_error([&] { lib.get("k").preload(); });
    CHECK(e.code() == errc::no_image);
    CHECK(e.driver_status() == 209);
    CHECK(contains(e.what(), "CUDA_ERROR_NO_BINARY_FOR_GPU"));
  }
  SUBCASE("JIT failure carries the JIT log") {
    tptest::setup("sm_90");
    tptest::synth s;
    s.arg("x", "*fp32");
    s.variant();
    s.image(0, image_kind::ptx, "sm_90", tptest::bytes_of("garbage that is not PTX"), {}, 87);
    auto bytes = s.pack();
    library lib(bytes.data(), bytes.size());
    auto e = tptest::expect_error([&] { lib.get("k").preload(); });
    CHECK(e.code() == errc::jit_failed);
    CHECK(contains(e.what(), "JIT log"));
    CHECK(contains(e.what(), "ptxas fatal"));
  }
}

TEST_CASE("TRITONPACK_LOG=1 logs every decision (checked in a child process)") {
  if (std::getenv("TP_LOG_CHILD")) {
    // The child: one launch with logging on.
    tptest::setup("sm_86");
    const auto& bytes = tptest::fixture_container();
    library lib(bytes.data(), bytes.size());
    launch_vector_add(lib);
    CHECK(lib.get("vector_add").loaded_image(0).arch == "sm_80");
    return;
  }
  const auto child = tptest::run_self("TP_LOG_CHILD=1 TRITONPACK_LOG=1", "*TRITONPACK_LOG*");
  const std::string& out = child.output;
  CAPTURE(out);
  CHECK(child.status == 0);
  CHECK(contains(out, "tritonpack: CUDA driver"));
  CHECK(contains(out, "no current context: retained device 0's primary context"));
  CHECK(contains(out, "Fake GPU sm_86"));
  CHECK(contains(out, "kernel vector_add variant 0 on device 0"));
  // The fixture's manifest predates provenance: the load line says what it does not know.
  CHECK(contains(out, "cubin sm_80 (Triton 3.6.0, ptxas not recorded) — "));
  CHECK(contains(out, "cubin sm_80 runs on sm_86 (same major, lower minor)"));
  CHECK(contains(out, "decode "));
  CHECK(contains(out, "total "));
}

TEST_CASE("TRITONPACK_LOG=1: the load line names the Triton (and commit) and the ptxas that built the image") {
  if (std::getenv("TP_LOG_PROVENANCE_CHILD")) {
    tptest::setup("sm_90");
    auto m = tritonpack::pack::load_manifest(std::string(TP_ARTIFACTS_DIR) + "/manifest.json");
    m.info.triton_commit = "0123456789abcdef0123456789abcdef01234567";
    for (image_info& im : m.info.images)
      if (im.kind == image_kind::cubin) im.tool_version = "12.8.93";
    const auto bytes = tritonpack::pack::write_container(m.info, m.image_bytes);
    library lib(bytes.data(), bytes.size());
    launch_vector_add(lib);
    return;
  }
  const auto child = tptest::run_self("TP_LOG_PROVENANCE_CHILD=1 TRITONPACK_LOG=1", "*names the Triton*");
  CAPTURE(child.output);
  CHECK(child.status == 0);
  CHECK(contains(child.output,
                 "cubin sm_90a (Triton 3.6.0 commit 0123456789abcdef0123456789abcdef01234567, ptxas 12.8.93) — "
                 "exact cubin sm_90a"));
}

TEST_CASE("a static library (as in a generated header) is torn down at exit without crashing") {
  if (std::getenv("TP_EXIT_CHILD")) {
    tptest::setup("sm_90");
    static library lib(tptest::fixture_container().data(), tptest::fixture_container().size());
    launch_vector_add(lib);
    const bool launched = tptest::fake_driver::get().launches().size() == 1;
    std::fflush(nullptr);
    std::exit(launched ? 0 : 3);  // static destructors and atexit handlers run now
  }
  const auto child = tptest::run_self("TP_EXIT_CHILD=1", "*torn down at exit*");
  CAPTURE(child.output);
  CHECK(child.status == 0);
}

TEST_CASE("a test thread that throws is reported with its message; the binary goes on") {
  const std::string errors = tptest::run_threads(3, [](int i) {
    if (i == 1) throw tritonpack::error(tritonpack::errc::bad_argument, "planted in thread 1");
  });
  CHECK(errors == "thread 1: tritonpack: planted in thread 1\n");
}

TEST_CASE("TRITONPACK_FORCE_IMAGE at load: the sm_80 PTX runs on sm_90; a typo is an error naming the form") {
  {
    tptest::env_guard g("TRITONPACK_FORCE_IMAGE", "ptx:sm_80");
    tptest::env_guard cache("TRITONPACK_CACHE", "0");
    auto& f = tptest::setup("sm_90");
    const auto& bytes = tptest::fixture_container();
    library lib(bytes.data(), bytes.size());
    launch_vector_add(lib);
    const image_info& im = lib.get("vector_add").loaded_image(0);
    CHECK(im.kind == image_kind::ptx);
    CHECK(im.arch == "sm_80");
    CHECK(f.launches().size() == 1);
  }
  {
    tptest::env_guard g("TRITONPACK_FORCE_IMAGE", "sm_80");
    tptest::setup("sm_90");
    const auto& bytes = tptest::fixture_container();
    library lib(bytes.data(), bytes.size());
    const error e = tptest::expect_error([&] { launch_vector_add(lib); });
    CHECK(e.code() == errc::bad_argument);
    CHECK(contains(e.what(), "TRITONPACK_FORCE_IMAGE=\"sm_80\" is not recognised"));
  }
}

TEST_CASE("a first launch reads the device's name and limits only when the image needs them") {
  // Selecting and loading a cubin needs the arch and the driver's version, which the context
  // state reads when it is made; the name, shared-memory limits and launch capabilities cost
  // five more driver calls (7-11 us on an H200 in a fresh process) and wait for an image that
  // needs them (shared memory above 48 KB, clusters, a cooperative launch), a JIT or an error.
  auto& f = tptest::setup("sm_90");
  const auto& bytes = tptest::fixture_container();
  library lib(bytes.data(), bytes.size());
  launch_vector_add(lib);
  CHECK(f.launches().size() == 1);
  CHECK(f.calls("cuDeviceGetName") == 0);
  CHECK(lib.current_device().name == "Fake GPU sm_90");  // read when asked for
  CHECK(f.calls("cuDeviceGetName") == 1);
}

}  // namespace runtime_loading_tests
