// GPU tests of the memory and device API (tritonpack/runtime/memory.hpp) on the real driver: device
// queries, random data round-tripped through every copy direction (aligned and not, small and
// large), memsets, async copies and memsets on created streams, kernels launched on memory the API
// allocated (on every device when there are several), and the errors the driver can give without
// poisoning the context. Self-checking: every result is compared on the host.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <tritonpack/tritonpack.hpp>

#include "gpu_kernels.hpp"

namespace tp = tritonpack;

namespace {

std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(rng() >> 24);
  return v;
}

std::vector<float> random_floats(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

// out = x + alpha * y on the calling thread's device, on `stream`, from memory the API allocated.
void check_vector_add(tp::stream_t stream, int n, std::uint32_t seed) {
  const float alpha = 1.75f;
  const auto hx = random_floats(n, seed), hy = random_floats(n, seed + 1);
  tp::device_array<float> x(n), y(n), out(n);
  x.upload_async(hx.data(), hx.size(), stream);
  y.upload_async(hy.data(), hy.size(), stream);
  tp::memset_device_async(out.data(), 0xFF, out.bytes(), stream);  // NaN: a missed element fails
  gpu_kernels::vector_add(x.data(), y.data(), out.data(), n, alpha, stream);
  std::vector<float> got(n);
  out.download_async(got.data(), got.size(), stream);
  tp::synchronize(stream);
  std::size_t bad = 0;
  for (int i = 0; i < n; ++i)
    if (!(std::fabs(got[i] - (hx[i] + alpha * hy[i])) <= 1e-6f)) ++bad;
  CHECK_MESSAGE(bad == 0, bad << " of " << n << " wrong on device " << tp::get_device());
}

}  // namespace

TEST_CASE("memory API: devices as the run time sees them") {
  REQUIRE(tp::device_count() >= 1);
  const int dev = tp::get_device();
  CHECK(dev >= 0);
  CHECK(dev < tp::device_count());
  const auto& props = gpu_kernels::library().current_device();
  CHECK(tp::device_name() == props.name);
  CHECK(tp::device_arch() == props.arch);
  CHECK(tp::device_arch(dev) == props.arch);
  const tp::memory_info m = tp::device_memory_info();
  CHECK(m.total > 0);
  CHECK(m.free <= m.total);
  MESSAGE(("device " + std::to_string(dev) + " of " + std::to_string(tp::device_count()) + ": " + tp::device_name() + ", " +
           tp::device_arch() + ", " + tp::detail::size_text(m.free) + " free of " + tp::detail::size_text(m.total)));
}

TEST_CASE("memory API: random data through host->device, device->device, device->host, host->host") {
  std::uint32_t seed = 11;
  for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{4097}, (std::size_t{1} << 20) + 13, std::size_t{64} << 20}) {
    CAPTURE(n);
    const auto h = random_bytes(n, seed++);
    void* a = tp::device_malloc(n + 1);
    void* b = tp::device_malloc(n + 1);
    REQUIRE(a != nullptr);
    REQUIRE(b != nullptr);
    CHECK(reinterpret_cast<std::uintptr_t>(a) % 256 == 0);
    tp::copy(a, h.data(), n);                                         // host -> device
    tp::copy(static_cast<char*>(b) + 1, a, n);                        // device -> device, unaligned
    std::vector<std::uint8_t> back(n), hh(n);
    tp::copy(back.data(), static_cast<const char*>(b) + 1, n);        // device -> host
    CHECK(back == h);
    tp::copy(hh.data(), h.data(), n);                                 // host -> host
    CHECK(hh == h);
    // memset a middle range: the bytes around it keep their values.
    if (n >= 3) {
      tp::memset_device(static_cast<char*>(a) + 1, 0xA5, n - 2);
      tp::copy(back.data(), a, n);
      CHECK(back.front() == h.front());
      CHECK(back.back() == h.back());
      CHECK(std::all_of(back.begin() + 1, back.end() - 1, [](std::uint8_t x) { return x == 0xA5; }));
    }
    tp::device_free(a);
    tp::device_free(b);
  }
}

TEST_CASE("memory API: async copies and memsets on created streams, device_array") {
  tp::stream_t s = tp::create_stream();
  tp::stream_t nb = tp::create_stream(true);
  const std::size_t n = (std::size_t{8} << 20) + 5;
  const auto h = random_bytes(n, 21);
  tp::device_array<std::uint8_t> d1(n), d2(n), d3(n);
  std::vector<std::uint8_t> back(n), zeros(n);
  for (tp::stream_t stream : {s, nb}) {
    tp::memset_device_async(d1.data(), 0x5A, n, stream);
    tp::copy_async(d2.data(), h.data(), n, stream);
    tp::copy_async(d3.data(), d2.data(), n, stream);
    tp::copy_async(back.data(), d3.data(), n, stream);
    tp::copy_async(zeros.data(), d1.data(), n, stream);
    tp::synchronize(stream);
    CHECK(back == h);
    CHECK(std::all_of(zeros.begin(), zeros.end(), [](std::uint8_t x) { return x == 0x5A; }));
    std::fill(back.begin(), back.end(), 0);
    std::fill(zeros.begin(), zeros.end(), 0);
  }
  // device_array: the whole cycle, and moves keep the memory.
  const auto f = random_floats(100003, 22);
  tp::device_array<float> fa(f);
  CHECK(fa.to_host() == f);
  tp::device_array<float> moved(std::move(fa));
  CHECK(moved.to_host() == f);
  moved.fill_bytes(0);
  tp::synchronize();
  for (float x : moved.to_host()) REQUIRE(x == 0.0f);
  tp::destroy_stream(s);
  tp::destroy_stream(nb);
}

TEST_CASE("memory API: kernels on memory the API allocated, on streams it created, on every device") {
  const int original = tp::get_device();
  for (int dev = 0; dev < tp::device_count(); ++dev) {
    CAPTURE(dev);
    tp::set_device(dev);
    CHECK(tp::get_device() == dev);
    CHECK(gpu_kernels::library().current_device().ordinal == dev);
    tp::stream_t s = tp::create_stream();
    check_vector_add(s, 1 << 22, 31 + dev);
    check_vector_add(nullptr, 1000, 41 + dev);  // the legacy default stream
    tp::destroy_stream(s);
    tp::synchronize();
  }
  tp::set_device(original);
}

TEST_CASE("memory API: errors from the real driver") {
  const tp::memory_info m = tp::device_memory_info();
  try {
    void* p = tp::device_malloc(m.total + (std::size_t{1} << 30));
    tp::device_free(p);
    FAIL("an allocation larger than the device succeeded");
  } catch (const tp::error& e) {
    CHECK(e.code() == tp::errc::out_of_memory);
    CHECK(std::string(e.what()).find("free of") != std::string::npos);
    MESSAGE(std::string(e.what()));
  }
  try {
    tp::set_device(tp::device_count());
    FAIL("set_device accepted an ordinal out of range");
  } catch (const tp::error& e) {
    CHECK(e.code() == tp::errc::no_device);
    CHECK(std::string(e.what()).find("no such device") != std::string::npos);
  }
  std::vector<std::uint8_t> h(64);
  try {
    tp::memset_device(h.data(), 0, h.size());  // pageable host memory is not device memory
    MESSAGE("the driver accepted a memset of pageable host memory");
  } catch (const tp::error& e) {
    CHECK(e.code() == tp::errc::driver_error);
    CHECK(std::string(e.what()).find("host memory") != std::string::npos);  // how the driver sees the pointer
    MESSAGE(std::string(e.what()));
  }
  // After the refused calls the device still works.
  check_vector_add(nullptr, 4096, 51);
}
