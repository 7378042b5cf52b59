// The C API against the test-double driver: the generated C functions of capi_types (called from
// the C99 callers in calls.c) launch with every argument's bytes in order, the right variant and
// grid; bad input gets its stable code and a message; the memory API in C works and refuses NULLs,
// bad ordinals and bad byte values with a message naming what was wrong.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>

#include <tritonpack/c/c_bridge.hpp>
#include <tritonpack/c/tritonpack.h>

#include "calls.h"
#include "test_util.hpp"

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The generated library keeps the driver it first loaded with (libraries outlive
// testing::reset_backend), so each test case that calls it runs in a process of its own: true in
// that child, false in the parent, which checks the child passed.
bool in_child(const char* filter) {
  if (std::getenv("TP_CAPI_CHILD")) return true;
  const tptest::child_result child = tptest::run_self("TP_CAPI_CHILD=1", filter);
  INFO(child.output);
  CHECK(child.status == 0);
  std::string summary = child.output;
  summary.erase(std::remove(summary.begin(), summary.end(), ' '), summary.end());
  CHECK(summary.find("testcases:1|1passed") != std::string::npos);
  return false;
}

template <class T>
void check_param(const tpfake_launch_record& r, unsigned i, T want) {
  INFO("parameter ", i);
  REQUIRE(i < r.num_params);
  REQUIRE(r.param_size[i] == sizeof(T));
  CHECK(std::memcmp(r.params + r.param_offset[i], &want, sizeof(T)) == 0);
}

// Device memory through the C API, freed at the end of the scope.
struct device_buffer {
  void* p = nullptr;
  explicit device_buffer(std::size_t bytes) { REQUIRE(tritonpack_malloc(&p, bytes) == TRITONPACK_SUCCESS); }
  ~device_buffer() { CHECK(tritonpack_free(p) == TRITONPACK_SUCCESS); }
  float* f() const { return static_cast<float*>(p); }
};

}  // namespace

TEST_CASE("C API: every scalar type reaches the kernel as its own bytes, in order") {
  if (!in_child("*every scalar type reaches*")) return;
  auto& fake = tptest::setup();
  device_buffer out(64);
  REQUIRE(call_scalars(out.f()) == TRITONPACK_SUCCESS);
  const auto launches = fake.launches();
  REQUIRE(launches.size() == 1);
  const tpfake_launch_record& r = launches[0];
  CHECK(std::string(r.name) == "scalars");
  CHECK(r.grid[0] == 1);
  REQUIRE(r.num_params == 16);  // 14 arguments + the two scratch pointers
  check_param(r, 0, out.p);
  check_param(r, 1, true);
  check_param(r, 2, std::int8_t{-2});
  check_param(r, 3, std::int16_t{-300});
  check_param(r, 4, std::int32_t{-70000});
  check_param(r, 5, std::int64_t{-5000000000LL});
  check_param(r, 6, std::uint8_t{200});
  check_param(r, 7, std::uint16_t{60000});
  check_param(r, 8, std::uint32_t{4000000000u});
  check_param(r, 9, std::uint64_t{18000000000000000000ull});
  check_param(r, 10, std::uint16_t{0x3e00});  // fp16 1.5
  check_param(r, 11, std::uint16_t{0xc000});  // bf16 -2.0
  check_param(r, 12, 0.25f);
  check_param(r, 13, -0.125);
}

TEST_CASE("C API: pointers of every element type, const or not, pass unchanged; the grid and the stream too") {
  if (!in_child("*pointers of every element type*")) return;
  auto& fake = tptest::setup();
  device_buffer x(256);
  tritonpack_stream_t stream = nullptr;
  REQUIRE(tritonpack_stream_create(&stream, 1) == TRITONPACK_SUCCESS);
  REQUIRE(call_pointers(x.f(), stream) == TRITONPACK_SUCCESS);
  const auto launches = fake.launches();
  REQUIRE(launches.size() == 1);
  const tpfake_launch_record& r = launches[0];
  CHECK(r.grid[0] == 16);  // cdiv(1000, 64)
  CHECK(r.stream == stream);
  const std::uint8_t* base = static_cast<const std::uint8_t*>(x.p);
  check_param(r, 0, x.p);
  check_param(r, 1, x.p);
  check_param(r, 2, static_cast<const void*>(base + 4));
  check_param(r, 3, static_cast<const void*>(base + 8));
  check_param(r, 4, static_cast<const void*>(base + 12));
  check_param(r, 5, static_cast<const void*>(base + 16));
  check_param(r, 6, static_cast<const void*>(base + 24));
  check_param(r, 7, std::int32_t{1000});
  CHECK(tritonpack_stream_destroy(stream) == TRITONPACK_SUCCESS);
  CHECK(fake.live_streams() == 0);
}

TEST_CASE("C API: a kernel without a grid expression takes tritonpack_grid3 first") {
  if (!in_child("*takes tritonpack_grid3 first*")) return;
  auto& fake = tptest::setup();
  device_buffer x(64);
  REQUIRE(call_explicit_grid(x.f(), 3, 2, 5, 9) == TRITONPACK_SUCCESS);
  const auto r = fake.launches().at(0);
  CHECK(r.grid[0] == 3);
  CHECK(r.grid[1] == 2);
  CHECK(r.grid[2] == 5);
  check_param(r, 1, std::int32_t{9});
}

// C zero-fills what an initializer leaves out: `tritonpack_grid3 g = {n};` is {n, 0, 0}, a grid of
// no programs. It used to return success and launch nothing; it is refused naming the axis.
TEST_CASE("C API: a grid with x > 0 and y or z 0 is refused naming the axis, never a silent success") {
  if (!in_child("*y or z 0 is refused*")) return;
  auto& fake = tptest::setup();
  device_buffer x(64);
  CHECK(call_explicit_grid(x.f(), 3, 0, 0, 9) == TRITONPACK_ERROR_BAD_ARGUMENT);
  CHECK(contains(library_last_error(),
                 "kernel explicit_grid: grid y is 0 while x is 3: nothing would run. C sets the members an "
                 "initializer leaves out to 0; write {x, 1, 1} for a 1-D grid (tritonpack_grid3 g = {3, 1, 1};)"));
  CHECK(call_explicit_grid(x.f(), 3, 2, 0, 9) == TRITONPACK_ERROR_BAD_ARGUMENT);
  CHECK(contains(library_last_error(), "grid z is 0 while x is 3"));
  CHECK(fake.launch_count() == 0);
  CHECK(call_explicit_grid(x.f(), 0, 0, 0, 9) == TRITONPACK_SUCCESS);  // no work on purpose: nothing runs
  CHECK(fake.launch_count() == 0);
  CHECK(call_explicit_grid(x.f(), 3, 1, 1, 9) == TRITONPACK_SUCCESS);
  CHECK(fake.launch_count() == 1);
}

TEST_CASE("C API: arguments renamed for C keep their order and values") {
  if (!in_child("*arguments renamed for C*")) return;
  auto& fake = tptest::setup();
  INFO(std::string(library_last_error()));
  REQUIRE(call_renamed() == TRITONPACK_SUCCESS);
  const auto r = fake.launches().at(0);
  for (unsigned i = 0; i < 7; ++i) check_param(r, i, static_cast<std::int32_t>(i + 1));
}

TEST_CASE("C API: no variant accepts the call: BAD_ARGUMENT and the library's message, per thread") {
  if (!in_child("*no variant accepts the call*")) return;
  auto& fake = tptest::setup();
  device_buffer x(64);
  CHECK(call_aligned_only(x.f(), 3) == TRITONPACK_ERROR_BAD_ARGUMENT);
  const std::string message = library_last_error();
  CHECK(contains(message, "aligned_only"));
  CHECK(contains(message, "n = 3"));
  CHECK(fake.launch_count() == 0);
  // A success leaves the message (as errno); another thread has its own (none).
  CHECK(call_aligned_only(x.f(), 16) == TRITONPACK_SUCCESS);
  CHECK(std::string(library_last_error()) == message);
  std::string other = "unset";
  std::thread([&] { other = library_last_error(); }).join();
  CHECK(other.empty());
}

TEST_CASE("C API: tritonpack_last_error() is the last failure of the thread, of a kernel or of the memory API") {
  if (!in_child("*is the last failure of the thread*")) return;
  tptest::setup();
  device_buffer x(64);
  // An older failure of the memory API first, then a kernel's: the kernel's is the last error.
  CHECK(tritonpack_memset(x.p, 256, 8) == TRITONPACK_ERROR_BAD_ARGUMENT);
  CHECK(call_aligned_only(x.f(), 3) == TRITONPACK_ERROR_BAD_ARGUMENT);
  const std::string kernel_message = tritonpack_last_error();
  INFO(kernel_message);
  CHECK(contains(kernel_message, "aligned_only"));
  CHECK(std::string(library_last_error()) == kernel_message);
  // And the other way round: the library's function reads the same slot.
  CHECK(tritonpack_memset(x.p, -1, 8) == TRITONPACK_ERROR_BAD_ARGUMENT);
  CHECK(contains(library_last_error(), "the value -1 is not a byte"));
  CHECK(std::string(tritonpack_last_error()) == library_last_error());
}

TEST_CASE("C API: no GPU: NO_DEVICE from every kernel and allocation; device count 0 is no error") {
  if (!in_child("*no GPU: NO_DEVICE*")) return;
  tptest::setup("none");
  int count = -1;
  CHECK(tritonpack_device_count(&count) == TRITONPACK_SUCCESS);
  CHECK(count == 0);
  // The MPI idiom: the run time's diagnosis, not local_rank % 0.
  int ordinal = -1;
  CHECK(tritonpack_set_device_for_local_rank(3, &ordinal) == TRITONPACK_ERROR_NO_DEVICE);
  CHECK(contains(tritonpack_last_error(), "no GPU"));
  CHECK(ordinal == -1);
  CHECK(call_scalars(nullptr) == TRITONPACK_ERROR_NO_DEVICE);
  CHECK(contains(library_last_error(), "no GPU"));
  void* p = reinterpret_cast<void*>(1);
  CHECK(tritonpack_malloc(&p, 16) == TRITONPACK_ERROR_NO_DEVICE);
  CHECK(p == nullptr);
  CHECK(contains(tritonpack_last_error(), "no GPU"));
}

TEST_CASE("C API: no driver: NO_DRIVER naming the library it tried") {
  if (!in_child("*no driver: NO_DRIVER*")) return;
  setenv("TRITONPACK_CUDA_LIBRARY", "/nonexistent/libcuda.so.1", 1);
  tritonpack::testing::reset_backend();
  CHECK(call_scalars(nullptr) == TRITONPACK_ERROR_NO_DRIVER);
  CHECK(contains(library_last_error(), "/nonexistent/libcuda.so.1"));
}

TEST_CASE("C memory API: copies, memsets, devices, streams and memory info work through the driver") {
  if (!in_child("*copies*memsets*devices*streams*memory info*")) return;
  auto& fake = tptest::setup("sm_90,sm_80/name=Second");
  int count = 0, device = -1;
  REQUIRE(tritonpack_device_count(&count) == TRITONPACK_SUCCESS);
  CHECK(count == 2);
  int ordinal = -1;
  REQUIRE(tritonpack_set_device_for_local_rank(3, &ordinal) == TRITONPACK_SUCCESS);  // 3 % 2
  CHECK(ordinal == 1);
  REQUIRE(tritonpack_set_device_for_local_rank(2, nullptr) == TRITONPACK_SUCCESS);
  REQUIRE(tritonpack_get_device(&device) == TRITONPACK_SUCCESS);
  CHECK(device == 0);
  CHECK(tritonpack_set_device_for_local_rank(-1, &ordinal) == TRITONPACK_ERROR_BAD_ARGUMENT);
  REQUIRE(tritonpack_set_device(1) == TRITONPACK_SUCCESS);
  REQUIRE(tritonpack_get_device(&device) == TRITONPACK_SUCCESS);
  CHECK(device == 1);
  char name[64], arch[16];
  REQUIRE(tritonpack_device_name(-1, name, sizeof name) == TRITONPACK_SUCCESS);
  CHECK(std::string(name) == "Second");
  REQUIRE(tritonpack_device_arch(0, arch, sizeof arch) == TRITONPACK_SUCCESS);
  CHECK(std::string(arch) == "sm_90");
  std::size_t free_bytes = 0, total_bytes = 0;
  REQUIRE(tritonpack_memory_info(&free_bytes, &total_bytes) == TRITONPACK_SUCCESS);
  CHECK(total_bytes > 0);
  CHECK(free_bytes <= total_bytes);

  const float host[4] = {1, 2, 3, 4};
  float back[4] = {};
  void *a = nullptr, *b = nullptr;
  REQUIRE(tritonpack_malloc(&a, sizeof host) == TRITONPACK_SUCCESS);
  REQUIRE(tritonpack_malloc(&b, sizeof host) == TRITONPACK_SUCCESS);
  CHECK(fake.allocation_device(a) == 1);
  CHECK(tritonpack_copy(a, host, sizeof host) == TRITONPACK_SUCCESS);  // host to device
  CHECK(tritonpack_copy(b, a, sizeof host) == TRITONPACK_SUCCESS);     // device to device
  tritonpack_stream_t s = nullptr;
  REQUIRE(tritonpack_stream_create(&s, 0) == TRITONPACK_SUCCESS);
  CHECK(tritonpack_copy_async(back, b, sizeof back, s) == TRITONPACK_SUCCESS);  // device to host
  CHECK(tritonpack_stream_synchronize(s) == TRITONPACK_SUCCESS);
  CHECK(std::memcmp(back, host, sizeof host) == 0);
  CHECK(tritonpack_memset_async(a, 0, sizeof host, s) == TRITONPACK_SUCCESS);
  CHECK(tritonpack_memset(b, 0x3f, sizeof host) == TRITONPACK_SUCCESS);
  CHECK(tritonpack_synchronize() == TRITONPACK_SUCCESS);
  CHECK(tritonpack_copy(back, b, sizeof back) == TRITONPACK_SUCCESS);
  CHECK(reinterpret_cast<const std::uint8_t*>(back)[15] == 0x3f);
  CHECK(tritonpack_stream_destroy(s) == TRITONPACK_SUCCESS);
  CHECK(tritonpack_free(a) == TRITONPACK_SUCCESS);
  CHECK(tritonpack_free(b) == TRITONPACK_SUCCESS);
  CHECK(tritonpack_free(nullptr) == TRITONPACK_SUCCESS);
  CHECK(tritonpack_stream_destroy(nullptr) == TRITONPACK_SUCCESS);
  CHECK(fake.live_allocations() == 0);
  CHECK(fake.live_streams() == 0);
  CHECK(tritonpack_half_to_float(tritonpack_half_from_float(1.5f)) == 1.5f);
  CHECK(tritonpack_bfloat16_to_float(tritonpack_bfloat16_from_float(-2.0f)) == -2.0f);
  CHECK(tritonpack_half_from_float(1.0f + 1.0f / 4096) == 0x3c00);  // half-way rounds to even
  CHECK(tritonpack_set_device(0) == TRITONPACK_SUCCESS);
}

// Work queued on a stream reaches the driver on that stream, and a stream asked for as
// non-blocking is created so: a C API queueing everything on the legacy default stream would
// still copy the right bytes (the double runs each call at once), so the stream is checked itself.
TEST_CASE("C API: copy_async and memset_async go to the stream given; non_blocking reaches cuStreamCreate") {
  if (!in_child("*go to the stream given*")) return;
  auto& fake = tptest::setup();
  tritonpack_stream_t blocking = nullptr, non_blocking = nullptr;
  REQUIRE(tritonpack_stream_create(&blocking, 0) == TRITONPACK_SUCCESS);
  REQUIRE(tritonpack_stream_create(&non_blocking, 1) == TRITONPACK_SUCCESS);
  CHECK(fake.stream_flags(blocking) == 0);
  CHECK(fake.stream_flags(non_blocking) == 1);  // CU_STREAM_NON_BLOCKING
  const float host[4] = {1, 2, 3, 4};
  float back[4] = {};
  device_buffer a(sizeof host);
  CHECK(tritonpack_copy_async(a.p, host, sizeof host, non_blocking) == TRITONPACK_SUCCESS);
  CHECK(fake.last_stream("cuMemcpyAsync") == non_blocking);
  CHECK(tritonpack_copy_async(back, a.p, sizeof back, blocking) == TRITONPACK_SUCCESS);
  CHECK(fake.last_stream("cuMemcpyAsync") == blocking);
  CHECK(std::memcmp(back, host, sizeof host) == 0);
  CHECK(tritonpack_memset_async(a.p, 0, sizeof host, non_blocking) == TRITONPACK_SUCCESS);
  CHECK(fake.last_stream("cuMemsetD8Async") == non_blocking);
  CHECK(tritonpack_memset_async(a.p, 0, sizeof host, nullptr) == TRITONPACK_SUCCESS);
  CHECK(fake.last_stream("cuMemsetD8Async") == nullptr);
  CHECK(tritonpack_stream_synchronize(non_blocking) == TRITONPACK_SUCCESS);
  CHECK(fake.last_stream("cuStreamSynchronize") == non_blocking);
  CHECK(tritonpack_stream_destroy(blocking) == TRITONPACK_SUCCESS);
  CHECK(tritonpack_stream_destroy(non_blocking) == TRITONPACK_SUCCESS);
  CHECK(fake.live_streams() == 0);
}

TEST_CASE("C memory API: NULL where a result goes, bad ordinals, bad bytes and small buffers are refused with a message") {
  if (!in_child("*NULL where a result goes*")) return;
  tptest::setup();
  const auto refused = [](int status, int want, const char* part) {
    CHECK(status == want);
    const std::string message = tritonpack_last_error();
    INFO(message);
    CHECK(contains(message, part));
  };
  float host[2] = {};
  void* p = nullptr;
  refused(tritonpack_malloc(nullptr, 16), TRITONPACK_ERROR_BAD_ARGUMENT, "tritonpack_malloc: `ptr` is NULL");
  refused(tritonpack_device_count(nullptr), TRITONPACK_ERROR_BAD_ARGUMENT, "tritonpack_device_count: `count` is NULL");
  refused(tritonpack_get_device(nullptr), TRITONPACK_ERROR_BAD_ARGUMENT, "`ordinal` is NULL");
  refused(tritonpack_memory_info(nullptr, nullptr), TRITONPACK_ERROR_BAD_ARGUMENT, "`free_bytes` is NULL");
  refused(tritonpack_stream_create(nullptr, 0), TRITONPACK_ERROR_BAD_ARGUMENT, "`stream` is NULL");
  refused(tritonpack_copy(nullptr, host, sizeof host), TRITONPACK_ERROR_BAD_ARGUMENT, "the destination pointer is null");
  REQUIRE(tritonpack_malloc(&p, 8) == TRITONPACK_SUCCESS);
  refused(tritonpack_copy(p, nullptr, 8), TRITONPACK_ERROR_BAD_ARGUMENT, "the source pointer is null");
  refused(tritonpack_memset(p, 256, 8), TRITONPACK_ERROR_BAD_ARGUMENT, "the value 256 is not a byte (0..255)");
  CHECK(tritonpack_memset(p, 255, 8) == TRITONPACK_SUCCESS);  // the largest byte is one
  refused(tritonpack_memset_async(p, -1, 8, nullptr), TRITONPACK_ERROR_BAD_ARGUMENT, "the value -1 is not a byte");
  refused(tritonpack_set_device(7), TRITONPACK_ERROR_NO_DEVICE, "set_device(7): no such device");
  refused(tritonpack_set_device(-2), TRITONPACK_ERROR_NO_DEVICE, "set_device(-2): no such device");
  char small[4];
  refused(tritonpack_device_arch(0, small, sizeof small), TRITONPACK_ERROR_BAD_ARGUMENT, "\"sm_90\" needs a buffer of 6 bytes, got 4");
  char exact[5], enough[6];  // the boundary: the text fits, its NUL does not; then both fit
  refused(tritonpack_device_arch(0, exact, sizeof exact), TRITONPACK_ERROR_BAD_ARGUMENT, "\"sm_90\" needs a buffer of 6 bytes, got 5");
  CHECK(tritonpack_device_arch(0, enough, sizeof enough) == TRITONPACK_SUCCESS);
  CHECK(std::string(enough) == "sm_90");
  refused(tritonpack_device_name(0, nullptr, 0), TRITONPACK_ERROR_BAD_ARGUMENT, "`buffer` is NULL");
  refused(tritonpack_device_name(3, small, sizeof small), TRITONPACK_ERROR_NO_DEVICE, "device_name(3): no such device");
  CHECK(tritonpack_free(p) == TRITONPACK_SUCCESS);
}

TEST_CASE("C API: every exception becomes a code and a message, never an exception into C") {
  std::string last;
  CHECK(tritonpack::c_bridge::guard(last, "f", [] { throw tritonpack::error(tritonpack::errc::no_image, "none fits"); }) ==
        TRITONPACK_ERROR_NO_IMAGE);
  CHECK(last == "tritonpack: none fits");
  CHECK(tritonpack::c_bridge::guard(last, "f", [] { throw std::bad_alloc(); }) == TRITONPACK_ERROR_OUT_OF_MEMORY);
  CHECK(tritonpack::c_bridge::guard(last, "f", [] { throw std::runtime_error("boom"); }) == TRITONPACK_ERROR_INTERNAL);
  CHECK(last == "tritonpack: f: boom");
  CHECK(tritonpack::c_bridge::guard(last, "f", [] { throw 42; }) == TRITONPACK_ERROR_INTERNAL);
}
