// The memory and device API (runtime/memory.hpp) against the test-double driver: every call, device_array,
// the errors (out of memory, bad ordinals, no driver, failing and refused copies, missing entry
// points, failures reported from destructors), and device selection with two devices: allocations,
// streams and launches go to the device set_device() chose, in its primary context.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "test_util.hpp"

using namespace tritonpack;
using tptest::contains;
using tptest::env_guard;
using tptest::param;

namespace runtime_memory_tests {  // this file's own names (the test binary is a unity build)
namespace {

// What `f` printed on stderr.
template <class F>
std::string capture_stderr(F&& f) {
  std::fflush(stderr);
  FILE* tmp = std::tmpfile();
  REQUIRE(tmp != nullptr);
  const int saved = dup(fileno(stderr));
  dup2(fileno(tmp), fileno(stderr));
  f();
  std::fflush(stderr);
  dup2(saved, fileno(stderr));
  close(saved);
  std::string out;
  std::rewind(tmp);
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, tmp)) out.append(buf, n);
  std::fclose(tmp);
  return out;
}

std::string hex(const void* p) { return detail::address_text(p); }

}  // namespace

TEST_CASE("memory API: devices, allocation, every copy direction, memset, streams, synchronisation") {
  auto& f = tptest::setup("sm_90/name=Fake H200");
  CHECK(device_count() == 1);
  CHECK(get_device() == 0);
  CHECK(f.current_device() == -1);  // asking makes no context current
  CHECK(device_name() == "Fake H200");
  CHECK(device_name(0) == "Fake H200");
  CHECK(device_arch() == "sm_90");
  CHECK(device_arch(0) == "sm_90");

  // Allocation makes device 0's primary context current, as a first launch does.
  void* d = device_malloc(1000);
  REQUIRE(d != nullptr);
  CHECK(reinterpret_cast<std::uintptr_t>(d) % 256 == 0);
  CHECK(f.current_context() == f.primary_context(0));
  CHECK(f.allocation_device(d) == 0);
  CHECK(f.live_allocations() == 1);
  const memory_info mi = device_memory_info();
  CHECK(mi.total == (std::size_t{16} << 30));
  CHECK(mi.free == mi.total - 1000);

  // Host → device, device → device, device → host, host → host.
  std::vector<std::uint8_t> h(1000), back(1000), hh(1000);
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = static_cast<std::uint8_t>(i * 7 + 1);
  copy(d, h.data(), h.size());
  CHECK(std::memcmp(d, h.data(), h.size()) == 0);  // the fake's device memory is host memory
  void* d2 = device_malloc(1000);
  copy(d2, d, 1000);
  copy(back.data(), d2, 1000);
  CHECK(back == h);
  copy(hh.data(), h.data(), 1000);
  CHECK(hh == h);
  CHECK(f.calls("cuMemcpy") == 4);

  memset_device(d2, 0xAB, 999);
  copy(back.data(), d2, 1000);
  CHECK(back[0] == 0xAB);
  CHECK(back[998] == 0xAB);
  CHECK(back[999] == h[999]);

  // Zero bytes: nothing to do, no driver call (and no pointer checks).
  copy(nullptr, nullptr, 0);
  copy_async(nullptr, nullptr, 0, nullptr);
  memset_device(nullptr, 0, 0);
  memset_device_async(nullptr, 0, 0, nullptr);
  CHECK(f.calls("cuMemcpy") == 5);
  CHECK(f.calls("cuMemsetD8") == 1);
  CHECK(f.calls("cuMemcpyAsync") == 0);
  CHECK(f.calls("cuMemsetD8Async") == 0);
  CHECK(device_malloc(0) == nullptr);
  CHECK(f.calls("cuMemAlloc") == 2);

  // Streams: created on this device, blocking by default; async copies and memsets on them.
  stream_t s = create_stream();
  stream_t nb = create_stream(true);
  CHECK(f.live_streams() == 2);
  CHECK(f.stream_device(s) == 0);
  CHECK(f.stream_flags(s) == 0);
  CHECK(f.stream_flags(nb) == 1);
  memset_device_async(d, 0, 1000, s);
  CHECK(f.last_stream("cuMemsetD8Async") == s);
  copy_async(d, h.data(), 500, nb);
  CHECK(f.last_stream("cuMemcpyAsync") == nb);
  copy_async(back.data(), d, 1000, s);
  CHECK(f.last_stream("cuMemcpyAsync") == s);
  synchronize(s);
  CHECK(f.last_stream("cuStreamSynchronize") == s);
  CHECK(std::equal(back.begin(), back.begin() + 500, h.begin()));
  CHECK(back[500] == 0);
  synchronize(nullptr);  // the legacy default stream
  CHECK(f.last_stream("cuStreamSynchronize") == nullptr);
  synchronize();
  CHECK(f.calls("cuCtxSynchronize") == 1);
  destroy_stream(s);
  destroy_stream(nb);
  destroy_stream(nullptr);
  CHECK(f.live_streams() == 0);
  CHECK(f.calls("cuStreamDestroy") == 2);

  device_free(d);
  device_free(d2);
  device_free(nullptr);
  CHECK(f.live_allocations() == 0);
  CHECK(f.calls("cuMemFree") == 2);
  CHECK(device_memory_info().free == mi.total);
}

TEST_CASE("device_array: allocate, upload, download, fill, moves, errors") {
  auto& f = tptest::setup("sm_90");
  {
    const std::vector<float> v = {1.5f, -2.0f, 3.25f, 0.0f, 7.0f};
    device_array<float> a(v);
    CHECK(a.size() == 5);
    CHECK(a.bytes() == 20);
    CHECK(!a.empty());
    CHECK(f.allocation_device(a.data()) == 0);
    CHECK(a.to_host() == v);

    std::vector<float> two(2);
    a.download(two.data(), 2);  // a prefix
    CHECK(two == std::vector<float>{1.5f, -2.0f});
    a.upload(std::vector<float>{9.0f, 8.0f});  // a prefix too
    CHECK(a.to_host() == std::vector<float>{9.0f, 8.0f, 3.25f, 0.0f, 7.0f});

    a.fill_bytes(0xFF);
    for (float x : a.to_host()) CHECK(std::isnan(x));
    a.fill_bytes(0);
    for (float x : a.to_host()) CHECK(x == 0.0f);

    stream_t s = create_stream();
    a.upload_async(v.data(), v.size(), s);
    std::vector<float> got(5);
    a.download_async(got.data(), got.size(), s);
    synchronize(s);
    CHECK(got == v);
    destroy_stream(s);

    // Too many elements: refused before any copy, naming both counts.
    const std::size_t copies = f.calls("cuMemcpy");
    std::vector<float> six(6);
    auto e = tptest::expect_error([&] { a.upload(six); });
    CHECK(e.code() == errc::bad_argument);
    CHECK(contains(e.what(), "device_array::upload of 6 elements (4 bytes each) but the array holds 5"));
    e = tptest::expect_error([&] { a.download(six.data(), 6); });
    CHECK(contains(e.what(), "device_array::download of 6 elements"));
    CHECK(f.calls("cuMemcpy") == copies);

    // Moves: the memory follows, the source is left empty, nothing is freed twice.
    float* p = a.data();
    device_array<float> b(std::move(a));
    CHECK(b.data() == p);
    CHECK(b.size() == 5);
    CHECK(a.data() == nullptr);  // NOLINT(bugprone-use-after-move): the moved-from state is specified
    CHECK(a.size() == 0);
    CHECK(f.live_allocations() == 1);
    device_array<float> c(3);
    CHECK(f.live_allocations() == 2);
    c = std::move(b);  // c's own 3 floats are freed
    CHECK(f.live_allocations() == 1);
    CHECK(c.data() == p);
    CHECK(b.data() == nullptr);  // NOLINT(bugprone-use-after-move)
    device_array<float>& alias = c;
    c = std::move(alias);  // self-move keeps the memory
    CHECK(c.data() == p);
    CHECK(f.live_allocations() == 1);
    c.reset();
    CHECK(c.empty());
    CHECK(f.live_allocations() == 0);

    // Empty arrays: no driver calls at all.
    const std::size_t allocs = f.calls("cuMemAlloc");
    device_array<double> none;
    device_array<double> zero(std::size_t{0});
    device_array<double> from_empty(std::vector<double>{});
    CHECK(none.data() == nullptr);
    CHECK(zero.to_host().empty());
    zero.fill_bytes(1);
    CHECK(from_empty.empty());
    CHECK(f.calls("cuMemAlloc") == allocs);

    e = tptest::expect_error([] { device_array<double> huge(std::numeric_limits<std::size_t>::max() / 4); });
    CHECK(e.code() == errc::bad_argument);
    CHECK(contains(e.what(), "the size overflows"));
  }
  CHECK(f.live_allocations() == 0);  // destructors freed everything
  CHECK(f.live_streams() == 0);
}

TEST_CASE("out of memory: the error names the size, the device and its free memory") {
  auto& f = tptest::setup("sm_90/mem=1048576");
  void* big = device_malloc(1000000);
  auto e = tptest::expect_error([] { device_malloc(200000); });
  CHECK(e.code() == errc::out_of_memory);
  CHECK(e.driver_status() == 2);
  CAPTURE(e.what());
  CHECK(contains(e.what(), "device_malloc of 200000 bytes (195.3 KiB) on device 0 (Fake GPU sm_90) failed: "
                           "CUDA_ERROR_OUT_OF_MEMORY (2)"));
  CHECK(contains(e.what(), "the device has 47.4 KiB free of 1.0 MiB"));
  e = tptest::expect_error([] { device_array<double> a(std::size_t{1} << 20); });
  CHECK(e.code() == errc::out_of_memory);
  CHECK(contains(e.what(), "device_malloc of 8388608 bytes (8.0 MiB)"));
  device_free(big);
  CHECK(f.live_allocations() == 0);

  // Any other allocation failure keeps the driver's status and is not called out of memory.
  tptest::setup("sm_90", 13000, "cuMemAlloc=999");
  e = tptest::expect_error([] { device_malloc(64); });
  CHECK(e.code() == errc::driver_error);
  CHECK(e.driver_status() == 999);
  CHECK(contains(e.what(), "device_malloc of 64 bytes on device 0 (Fake GPU sm_90) failed"));
}

TEST_CASE("an ordinal out of range names the ordinal and the devices there are") {
  tptest::setup("sm_90,sm_80");
  for (int bad : {2, -1, 17}) {
    CAPTURE(bad);
    auto e = tptest::expect_error([&] { set_device(bad); });
    CHECK(e.code() == errc::no_device);
    CHECK(contains(e.what(), "set_device(" + std::to_string(bad) + "): no such device; the CUDA driver "));
    CHECK(contains(e.what(), " sees 2 GPUs (ordinals 0 to 1)"));
  }
  auto e = tptest::expect_error([] { device_name(2); });
  CHECK(contains(e.what(), "device_name(2): no such device"));
  e = tptest::expect_error([] { device_arch(-2); });
  CHECK(contains(e.what(), "device_arch(-2): no such device"));
  CHECK(get_device() == 0);  // nothing changed

  env_guard visible("CUDA_VISIBLE_DEVICES", "0");
  tptest::setup("sm_90");
  e = tptest::expect_error([] { set_device(1); });
  CHECK(contains(e.what(), "sees 1 GPU (ordinal 0); CUDA_VISIBLE_DEVICES is \"0\""));
}

TEST_CASE("no driver or no GPU: device_count() is 0, every other call gives the run time's diagnosis") {
  {
    tptest::setup();
    env_guard g("TRITONPACK_CUDA_LIBRARY", "/nonexistent/libcuda.so.1");
    tritonpack::testing::reset_backend();
    CHECK(device_count() == 0);
    const std::string diagnosis = tptest::expect_error([] { get_backend(); }).what();
    CHECK(contains(diagnosis, "/nonexistent/libcuda.so.1"));
    std::vector<float> h(4);
    for (auto call : std::vector<std::function<void()>>{
             [] { device_malloc(16); }, [] { set_device(0); }, [] { get_device(); }, [] { device_name(); },
             [] { device_arch(0); }, [&] { copy(h.data(), h.data(), 16); }, [] { synchronize(); },
             [] { create_stream(); }, [] { device_array<float> a(4); }, [] { device_memory_info(); }}) {
      auto e = tptest::expect_error(call);
      CHECK(e.code() == errc::no_driver);
      CHECK(std::string(e.what()) == diagnosis);
    }
  }
  tptest::setup("none");
  CHECK(device_count() == 0);
  auto e = tptest::expect_error([] { device_malloc(16); });
  CHECK(e.code() == errc::no_device);
  CHECK(contains(e.what(), "reports no GPU"));
  // The MPI idiom of README: the diagnosis, where set_device(local_rank % device_count()) divides by 0.
  e = tptest::expect_error([] { set_device_for_local_rank(5); });
  CHECK(e.code() == errc::no_device);
  CHECK(contains(e.what(), "reports no GPU"));

  // A backend that cannot be used for another reason than "no driver / no GPU" is not "no GPU":
  // device_count() says why.
  tptest::setup();
  env_guard g("TRITONPACK_BACKEND", "metal");
  tritonpack::testing::reset_backend();
  CHECK(tptest::expect_error([] { device_count(); }).code() == errc::bad_argument);
}

TEST_CASE("failing copies, memsets and synchronisations name the call, sizes, addresses and status") {
  auto& f = tptest::setup("sm_90", 13000, "cuMemcpy=1");
  std::vector<std::uint8_t> h(4096, 1);
  {
    // The driver refuses a copy (injected): what was attempted, with each pointer described.
    device_array<std::uint8_t> d(4096);
    auto e = tptest::expect_error([&] { copy(d.data(), h.data(), 4096); });
    CHECK(e.code() == errc::driver_error);
    CHECK(e.driver_status() == 1);
    CAPTURE(e.what());
    CHECK(contains(e.what(), "copy of 4096 bytes (4.0 KiB) from " + hex(h.data()) +
                                 " (host memory unknown to CUDA (pageable, or not allocated at all)) to " + hex(d.data()) +
                                 " (device 0 memory, 0 bytes into an allocation of 4096 bytes (4.0 KiB) at " +
                                 hex(d.data()) + ") failed: CUDA_ERROR_INVALID_VALUE (1)"));
  }
  tptest::setup("sm_90");
  {
    // A range past the end of its allocation: the driver refuses, the message says by how much.
    device_array<std::uint8_t> small(1024);
    auto e = tptest::expect_error([&] { copy(small.data() + 16, h.data(), 4096); });
    CAPTURE(e.what());
    CHECK(contains(e.what(), "(device 0 memory, 16 bytes into an allocation of 1024 bytes (1.0 KiB) at " + hex(small.data()) +
                                 ": the range runs 3088 bytes past its end) failed: CUDA_ERROR_INVALID_VALUE"));
    e = tptest::expect_error([&] { copy(h.data(), small.data(), 2048); });
    CHECK(contains(e.what(), "copy of 2048 bytes (2.0 KiB) from " + hex(small.data()) + " (device 0 memory, 0 bytes into"));
    CHECK(contains(e.what(), "the range runs 1024 bytes past its end) to " + hex(h.data())));

    // memset on host memory.
    e = tptest::expect_error([&] { memset_device(h.data(), 0xAB, 16); });
    CHECK(e.code() == errc::driver_error);
    CHECK(contains(e.what(), "memset_device of 16 bytes to 0xab at " + hex(h.data()) + " (host memory unknown to CUDA"));

    // A stream the driver does not know (destroyed).
    stream_t s = create_stream();
    destroy_stream(s);
    e = tptest::expect_error([&] { copy_async(small.data(), h.data(), 16, s); });
    CHECK(e.driver_status() == 400);
    CHECK(contains(e.what(), "copy_async of 16 bytes from " + hex(h.data())));
    CHECK(contains(e.what(), "on stream " + hex(s) + " failed: CUDA_ERROR_INVALID_HANDLE (400)"));
    e = tptest::expect_error([&] { memset_device_async(small.data(), 0, 16, s); });
    CHECK(contains(e.what(), "memset_device_async of 16 bytes to 0x00 at " + hex(small.data())));
    CHECK(contains(e.what(), "on stream " + hex(s) + " failed"));

    // Null pointers: refused before the driver is asked.
    const std::size_t copies = f.calls("cuMemcpy");
    e = tptest::expect_error([&] { copy(nullptr, h.data(), 16); });
    CHECK(e.code() == errc::bad_argument);
    CHECK(contains(e.what(), "copy of 16 bytes: the destination pointer is null"));
    e = tptest::expect_error([&] { copy_async(small.data(), nullptr, 8, nullptr); });
    CHECK(contains(e.what(), "copy_async of 8 bytes: the source pointer is null"));
    e = tptest::expect_error([&] { memset_device(nullptr, 0, 8); });
    CHECK(contains(e.what(), "memset_device of 8 bytes: the destination pointer is null"));
    CHECK(f.calls("cuMemcpy") == copies);
  }

  // Synchronisation reports what failed earlier (a kernel's illegal address, a failed launch).
  tptest::setup("sm_90", 13000, "cuCtxSynchronize=700,cuStreamSynchronize=719");
  auto e = tptest::expect_error([] { synchronize(); });
  CHECK(e.code() == errc::launch_failed);
  CHECK(e.driver_status() == 700);
  CHECK(contains(e.what(), "synchronize() on device 0 (Fake GPU sm_90) failed: CUDA_ERROR_ILLEGAL_ADDRESS (700)"));
  CHECK(contains(e.what(), "work queued earlier: a kernel or an asynchronous copy"));
  e = tptest::expect_error([] { synchronize(nullptr); });
  CHECK(e.driver_status() == 719);
  CHECK(contains(e.what(), "synchronize(stream 0x0) on device 0 (Fake GPU sm_90) failed: CUDA_ERROR_LAUNCH_FAILED (719)"));

  tptest::setup("sm_90", 13000, "cuStreamCreate=1,cuMemGetInfo=3");
  e = tptest::expect_error([] { create_stream(); });
  CHECK(e.code() == errc::driver_error);
  CHECK(contains(e.what(), "create_stream on device 0 (Fake GPU sm_90) failed: CUDA_ERROR_INVALID_VALUE (1)"));
  e = tptest::expect_error([] { device_memory_info(); });
  CHECK(contains(e.what(), "device_memory_info on device 0 (Fake GPU sm_90) failed: CUDA_ERROR_NOT_INITIALIZED (3)"));
}

TEST_CASE("a driver without an entry point the API needs: the call says which") {
  tptest::setup("sm_90", 13000, "", "cuMemcpyAsync,cuMemsetD8Async,cuMemcpy");
  std::vector<float> h(4);
  device_array<float> a(4);  // cuMemAlloc is required: allocation works
  auto e = tptest::expect_error([&] { a.upload(h); });
  CHECK(e.code() == errc::unsupported);
  CHECK(contains(e.what(), "copy needs cuMemcpy, which the CUDA driver at "));
  CHECK(contains(e.what(), "(CUDA 13.0) lacks"));
  e = tptest::expect_error([&] { copy_async(a.data(), h.data(), 16, nullptr); });
  CHECK(contains(e.what(), "copy_async needs cuMemcpyAsync"));
  e = tptest::expect_error([&] { memset_device_async(a.data(), 0, 16, nullptr); });
  CHECK(contains(e.what(), "memset_device_async needs cuMemsetD8Async"));
}

TEST_CASE("device_free and destroy_stream report failures on stderr instead of throwing") {
  auto& f = tptest::setup("sm_90");
  std::vector<float> h(4);
  void* bogus_stream = reinterpret_cast<void*>(std::uintptr_t{0x1000});
  const std::string out = capture_stderr([&] {
    device_free(h.data());            // not device memory
    destroy_stream(bogus_stream);     // not a stream
  });
  CAPTURE(out);
  CHECK(contains(out, "tritonpack: device_free(" + hex(h.data()) + ") failed: CUDA_ERROR_INVALID_VALUE (1)"));
  CHECK(contains(out, "that address is host memory unknown to CUDA"));
  CHECK(contains(out, "[not thrown: device_free runs in destructors]\n"));
  CHECK(contains(out, "tritonpack: destroy_stream(0x1000) failed: CUDA_ERROR_INVALID_HANDLE (400)"));
  CHECK(contains(out, "[not thrown: destroy_stream runs in destructors]\n"));
  CHECK(f.calls("cuMemFree") == 1);

  // Freeing inside an allocation, not at its start.
  device_array<float> a(16);
  const std::string inside = capture_stderr([&] { device_free(a.data() + 4); });
  CHECK(contains(inside, "that address is device 0 memory, 16 bytes into an allocation of 64 bytes at " + hex(a.data())));
}

TEST_CASE("at process exit device_free leaves memory to the exit (child process)") {
  // A static device_array constructed before the driver was loaded is destroyed after the run
  // time's exit handler: by then the CUDA runtime may have torn the driver down, so no call.
  if (std::getenv("TP_MEMORY_EXIT_CHILD")) {
    static device_array<float> kept;  // constructed first: destroyed after the exit handler runs
    const bool at_exit = std::string(std::getenv("TP_MEMORY_EXIT_CHILD")) == "exit";
    tptest::setup("sm_90", 13000, "cuMemFree=1");  // a free that reaches the driver is reported
    kept = device_array<float>(16);
    if (!at_exit) kept.reset();
    return;
  }
  const auto before = tptest::run_self("TP_MEMORY_EXIT_CHILD=now", "*device_free leaves memory*");
  CAPTURE(before.output);
  CHECK(before.status == 0);
  CHECK(contains(before.output, "device_free("));  // the control: a free before exit reaches the driver
  const auto at_exit = tptest::run_self("TP_MEMORY_EXIT_CHILD=exit", "*device_free leaves memory*");
  CAPTURE(at_exit.output);
  CHECK(at_exit.status == 0);
  CHECK(!contains(at_exit.output, "device_free("));
}

TEST_CASE("two devices: set_device picks the device of allocations, streams and launches, in its primary context") {
  auto& f = tptest::setup("sm_90,sm_80");
  const auto& bytes = tptest::fixture_container();
  library lib(bytes.data(), bytes.size());
  auto launch_on = [&](stream_t s, const device_array<float>& x, device_array<float>& out) {
    lib.get("vector_add").launch(s, {1, 1, 1}, static_cast<const float*>(x.data()), static_cast<const float*>(x.data()),
                                 out.data(), std::int32_t{16}, 1.0f);
  };
  CHECK(device_count() == 2);
  CHECK(set_device_for_local_rank(5) == 1);  // ranks spread over the node's GPUs: 5 % 2
  CHECK(get_device() == 1);
  CHECK(set_device_for_local_rank(0) == 0);
  CHECK(tptest::expect_error([] { set_device_for_local_rank(-1); }).code() == errc::bad_argument);
  CHECK(device_arch(0) == "sm_90");
  CHECK(device_arch(1) == "sm_80");
  CHECK(device_name(1) == "Fake GPU sm_80");

  set_device(1);
  CHECK(get_device() == 1);
  CHECK(f.current_context() == f.primary_context(1));
  CHECK(device_name() == "Fake GPU sm_80");
  CHECK(device_arch() == "sm_80");
  device_array<float> x1(16), out1(16);
  CHECK(f.allocation_device(x1.data()) == 1);
  stream_t s1 = create_stream();
  CHECK(f.stream_device(s1) == 1);
  launch_on(s1, x1, out1);

  set_device(0);
  CHECK(get_device() == 0);
  CHECK(f.current_context() == f.primary_context(0));
  device_array<float> x0(16), out0(16);
  CHECK(f.allocation_device(x0.data()) == 0);
  launch_on(nullptr, x0, out0);

  set_device(1);
  set_device(1);
  launch_on(s1, x1, out1);
  auto ls = f.launches();
  REQUIRE(ls.size() == 3);
  CHECK(ls[0].device == 1);
  CHECK(ls[0].stream == s1);
  CHECK(param<float*>(ls[0], 2) == out1.data());
  CHECK(ls[1].device == 0);
  CHECK(param<float*>(ls[1], 2) == out0.data());
  CHECK(ls[2].device == 1);
  CHECK(lib.current_device().ordinal == 1);
  CHECK(lib.current_device().arch == "sm_80");
  CHECK(f.calls("cuDevicePrimaryCtxRetain") == 2);  // once per device, however often selected

  // Copies between devices' memory (unified addressing), from either device.
  x0.upload(std::vector<float>(16, 2.5f));
  copy(x1.data(), x0.data(), x0.bytes());
  CHECK(x1.to_host() == std::vector<float>(16, 2.5f));

  // An application's cudaSetDevice (the primary context made current directly) is seen too.
  tptest::set_device(0);
  CHECK(get_device() == 0);
  device_array<float> y0(4);
  CHECK(f.allocation_device(y0.data()) == 0);

  // The device is per thread: a new thread starts with none (device 0), and its choice stays there.
  int in_thread = -1, in_thread_after = -1, alloc_device = -1;
  CHECK(tptest::run_threads(1, [&](int) {
          in_thread = get_device();
          set_device(1);
          in_thread_after = get_device();
          device_array<float> z(4);
          alloc_device = f.allocation_device(z.data());
        }) == "");
  CHECK(in_thread == 0);
  CHECK(in_thread_after == 1);
  CHECK(alloc_device == 1);
  CHECK(get_device() == 0);

  destroy_stream(s1);  // created on device 1, destroyed from device 0's context
  CHECK(f.live_streams() == 0);
}

}  // namespace runtime_memory_tests
