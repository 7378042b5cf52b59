// The test-double HIP runtime's launch checker, fed right and wrong launches built by hand from the
// fixtures' hsacos (vector_add, small_matmul) and the probes (mixed_scalars: every scalar width with
// alignment padding; grid_size: hidden arguments): both argument forms, the scratch pointers,
// device pointers, block shape, LDS, devices and streams, cooperative and Ex launches, failures.
#include <doctest/doctest.h>

#include <cstring>

#include "fake_hip/test_util.hpp"

using namespace tphiptest;

namespace {

// A loaded kernel on a configured double, with three device buffers.
struct launch_fixture {
  hip& h = fake();
  hipModule_t module = nullptr;
  hipFunction_t fn = nullptr;
  void* x = nullptr;
  void* y = nullptr;
  void* out = nullptr;

  launch_fixture(const char* devices, const std::vector<std::uint8_t>& hsaco, const char* kernel) {
    h.tpfakehip_configure(devices, 0, "", "");
    REQUIRE(h.hipModuleLoadData(&module, hsaco.data()) == 0);
    REQUIRE(h.hipModuleGetFunction(&fn, module, kernel) == 0);
    REQUIRE(h.hipMalloc(&x, 4096) == 0);
    REQUIRE(h.hipMalloc(&y, 4096) == 0);
    REQUIRE(h.hipMalloc(&out, 4096) == 0);
  }
  int launch(unsigned gx, unsigned bx, unsigned shared, void** params, void** extra = nullptr, hipStream_t s = nullptr,
             unsigned gy = 1, unsigned by = 1) {
    return h.hipModuleLaunchKernel(fn, gx, gy, 1, bx, by, 1, shared, s, params, extra);
  }
  tpfakehip_launch_record last() {
    tpfakehip_launch_record r{};
    const std::size_t n = h.tpfakehip_launch_count();
    REQUIRE(n > 0);
    REQUIRE(h.tpfakehip_get_launch(n - 1, &r) == 0);
    return r;
  }
};

template <class T>
T at(const tpfakehip_launch_record& r, unsigned offset) {
  T v;
  std::memcpy(&v, r.kernarg + offset, sizeof v);
  return v;
}

// vector_add(x, y, out, n: i32, alpha: fp32) + 2 scratch pointers; 48-byte kernarg segment.
struct vector_add_args {
  void* x;
  void* y;
  void* out;
  std::int32_t n = 1000;
  float alpha = 2.5f;
  void* global_scratch = nullptr;
  void* profile_scratch = nullptr;
};
static_assert(sizeof(vector_add_args) == 48, "the kernel's own layout");

}  // namespace

TEST_CASE("fake HIP launch: a right vector_add launch, both forms, is accepted and recorded") {
  launch_fixture f("gfx942:sramecc+:xnack-", artifact("vector_add/v0/hip_gfx942.hsaco"), "vector_add");
  vector_add_args a{f.x, f.y, f.out};
  void* params[] = {&a.x, &a.y, &a.out, &a.n, &a.alpha, &a.global_scratch, &a.profile_scratch};
  CHECK(f.launch(1, 256, 0, params) == 0);  // num_warps 4 x wavefront 64
  CHECK(f.h.last_error().empty());
  tpfakehip_launch_record r = f.last();
  CHECK(std::string(r.name) == "vector_add");
  CHECK((r.block[0] == 256 && r.grid[0] == 1 && r.via_extra == 0 && r.via == TPFAKEHIP_VIA_MODULE_LAUNCH));
  CHECK(r.num_args == 7);
  CHECK((r.arg_offset[3] == 24 && r.arg_size[3] == 4 && r.arg_is_pointer[3] == 0));
  CHECK((r.arg_offset[6] == 40 && r.arg_is_pointer[6] == 1));
  CHECK((r.kernarg_size == 48 && r.kernarg_segment_size == 48));
  CHECK(at<void*>(r, 0) == f.x);
  CHECK(at<void*>(r, 16) == f.out);
  CHECK(at<std::int32_t>(r, 24) == 1000);
  CHECK(at<float>(r, 28) == 2.5f);
  CHECK(at<void*>(r, 32) == nullptr);
  // A smaller block (fewer warps) is fine; so is the extra form with the kernel's own layout.
  CHECK(f.launch(4, 128, 0, params) == 0);
  std::size_t size = sizeof a;
  void* extra[] = {reinterpret_cast<void*>(1), &a, reinterpret_cast<void*>(2), &size, reinterpret_cast<void*>(3)};
  CHECK(f.launch(2, 256, 0, nullptr, extra) == 0);
  r = f.last();
  CHECK(r.via_extra == 1);
  CHECK(std::memcmp(r.kernarg, &a, 48) == 0);
  // Profile scratch may be device memory (proton); the launch still passes.
  a.profile_scratch = f.y;
  CHECK(f.launch(1, 256, 0, params) == 0);
  CHECK(f.h.tpfakehip_launch_count() == 4);
  CHECK(f.h.tpfakehip_rejected_launch_count() == 0);
}

TEST_CASE("fake HIP launch: wrong arguments are refused with hipErrorInvalidValue and a precise reason") {
  launch_fixture f("gfx942:sramecc+:xnack-", artifact("vector_add/v0/hip_gfx942.hsaco"), "vector_add");
  vector_add_args a{f.x, f.y, f.out};
  std::uint64_t scalar = 7;  // 8-byte storage: the checker may read a pointer's 8 bytes from it
  const std::string who = "hipModuleLaunchKernel(vector_add): ";

  SUBCASE("a scalar in a pointer's place (one pointer forgotten, the rest shifted)") {
    void* params[] = {&a.y, &a.out, &scalar, &scalar, &a.global_scratch, &a.profile_scratch, &a.profile_scratch};
    CHECK(f.launch(1, 256, 0, params) == 1);
    CHECK(f.h.last_error() == who + "argument 2 (global_buffer, offset 16, size 8) holds 0x7 in the kernelParams, which is "
                                    "not memory from hipMalloc; the launch runs on device 0 (a scalar in a pointer's "
                                    "place, or arguments packed at the wrong offsets?)");
  }
  SUBCASE("the scratch pointers left out (NULL entries where they belong)") {
    void* params[] = {&a.x, &a.y, &a.out, &a.n, &a.alpha, nullptr, nullptr};
    CHECK(f.launch(1, 256, 0, params) == 1);
    CHECK(f.h.last_error() == who + "kernelParams[5] is NULL for argument 5 (global_buffer, offset 32, size 8)");
  }
  SUBCASE("a host pointer as global scratch (Triton 3.8 passes device memory there)") {
    a.global_scratch = &scalar;
    void* params[] = {&a.x, &a.y, &a.out, &a.n, &a.alpha, &a.global_scratch, &a.profile_scratch};
    CHECK(f.launch(1, 256, 0, params) == 1);
    CHECK(contains(f.h.last_error(), "argument 5 (global_buffer, offset 32, size 8) holds 0x"));
  }
  SUBCASE("a host pointer as profile scratch") {
    a.profile_scratch = &scalar;
    void* params[] = {&a.x, &a.y, &a.out, &a.n, &a.alpha, &a.global_scratch, &a.profile_scratch};
    CHECK(f.launch(1, 256, 0, params) == 1);
    CHECK(contains(f.h.last_error(), "argument 6 (global_buffer, offset 40, size 8) holds 0x"));
  }
  SUBCASE("no kernelParams and no extra") {
    CHECK(f.launch(1, 256, 0, nullptr) == 1);
    CHECK(f.h.last_error() == who + "the kernel takes 7 arguments and kernelParams is NULL");
  }
  SUBCASE("both kernelParams and extra") {
    void* params[] = {&a.x, &a.y, &a.out, &a.n, &a.alpha, &a.global_scratch, &a.profile_scratch};
    std::size_t size = 48;
    void* extra[] = {reinterpret_cast<void*>(1), &a, reinterpret_cast<void*>(2), &size, reinterpret_cast<void*>(3)};
    CHECK(f.launch(1, 256, 0, params, extra) == 1);
    CHECK(f.h.last_error() == who + "both kernelParams and extra are given");
  }
  SUBCASE("extra: a buffer too small, too large, CUDA's END tag, no size") {
    std::size_t size = 40;
    void* extra[] = {reinterpret_cast<void*>(1), &a, reinterpret_cast<void*>(2), &size, reinterpret_cast<void*>(3)};
    CHECK(f.launch(1, 256, 0, nullptr, extra) == 1);
    CHECK(f.h.last_error() == who + "extra's buffer is 40 bytes; the explicit arguments end at 48 and argument 6 "
                                    "(global_buffer, offset 40, size 8) is not covered (each argument goes at its "
                                    "natural alignment)");
    unsigned char bigger[64] = {};
    std::memcpy(bigger, &a, sizeof a);
    extra[1] = bigger;
    size = 56;
    CHECK(f.launch(1, 256, 0, nullptr, extra) == 1);
    CHECK(contains(f.h.last_error(), "extra's buffer is 56 bytes, more than the kernel's .kernarg_segment_size 48"));
    size = 48;
    extra[4] = nullptr;
    CHECK(f.launch(1, 256, 0, nullptr, extra) == 1);
    CHECK(contains(f.h.last_error(), "the END tag is (void*)3, not CUDA's 0"));
    extra[4] = reinterpret_cast<void*>(3);
    extra[3] = nullptr;
    CHECK(f.launch(1, 256, 0, nullptr, extra) == 1);
    CHECK(contains(f.h.last_error(), "BUFFER_SIZE pointer is NULL"));
  }
  CHECK(f.h.tpfakehip_launch_count() == 0);
  CHECK(f.h.tpfakehip_rejected_launch_count() >= 1);
  CHECK(f.h.hipGetLastError() == 1);
}

TEST_CASE("fake HIP launch: block shape, work-group limit, grid limits and LDS") {
  launch_fixture f("gfx942:sramecc+:xnack-", artifact("vector_add/v0/hip_gfx942.hsaco"), "vector_add");
  vector_add_args a{f.x, f.y, f.out};
  void* params[] = {&a.x, &a.y, &a.out, &a.n, &a.alpha, &a.global_scratch, &a.profile_scratch};
  const std::string who = "hipModuleLaunchKernel(vector_add): ";
  CHECK(f.launch(1, 512, 0, params) == 719);  // the real runtime: hipErrorLaunchFailure
  CHECK(f.h.last_error() == who + "grid (1, 1, 1) block (512, 1, 1): 512 threads exceed the kernel's "
                                  ".max_flat_workgroup_size 256 (compiled for fewer warps)");
  CHECK(f.launch(1, 96, 0, params) == 1);
  CHECK(f.h.last_error() == who + "grid (1, 1, 1) block (96, 1, 1) is not Triton's launch shape (num_warps x "
                                  "wavefront 64, 1, 1)");
  CHECK(f.launch(1, 64, 0, params, nullptr, nullptr, 1, 2) == 1);
  CHECK(f.launch(1, 2048, 0, params) == 1);
  CHECK(contains(f.h.last_error(), "2048 threads per block, the device allows 1024"));
  CHECK(f.launch(0, 256, 0, params) == 1);
  CHECK(contains(f.h.last_error(), "has a zero dimension"));
  CHECK(f.launch(1, 256, 0, params, nullptr, nullptr, 65537) == 9);  // hipErrorInvalidConfiguration
  CHECK(f.launch(16777216, 256, 0, params) == 9);                      // gridX * blockX > UINT32_MAX
  CHECK(f.launch(16777215, 256, 0, params) == 0);
  CHECK(f.launch(1, 256, 65536, params) == 0);  // dynamic LDS up to the device's 64 KiB
  CHECK(f.launch(1, 256, 65537, params) == 1);
  CHECK(f.h.last_error() == who + "dynamic LDS 65537 + static LDS 0 bytes exceed the device's 65536 bytes");

  launch_fixture small("gfx942:sramecc+:xnack-/lds=32768", artifact("vector_add/v0/hip_gfx942.hsaco"), "vector_add");
  vector_add_args b{small.x, small.y, small.out};
  void* p2[] = {&b.x, &b.y, &b.out, &b.n, &b.alpha, &b.global_scratch, &b.profile_scratch};
  CHECK(small.launch(1, 256, 40000, p2) == 1);
  CHECK(contains(small.h.last_error(), "exceed the device's 32768 bytes"));
}

TEST_CASE("fake HIP launch: small_matmul (1 warp, 512 B LDS, padding before the scratch pointers)") {
  launch_fixture f("gfx90a:sramecc+:xnack-", artifact("matmul_f16/v0/hip_gfx90a.hsaco"), "small_matmul");
  // 3 pointers, 5 i32 at 24..40, 4 bytes of padding, scratch pointers at 48 and 56.
  struct {
    void* a;
    void* b;
    void* c;
    std::int32_t m = 16, n = 16, k = 16, sa = 16, sc = 16;
    void* gs = nullptr;
    void* ps = nullptr;
  } a{f.x, f.y, f.out};
  static_assert(sizeof a == 64, "natural alignment");
  std::size_t size = sizeof a;
  void* extra[] = {reinterpret_cast<void*>(1), &a, reinterpret_cast<void*>(2), &size, reinterpret_cast<void*>(3)};
  CHECK(f.launch(1, 64, 512, nullptr, extra) == 0);
  CHECK(f.launch(1, 128, 512, nullptr, extra) == 719);  // compiled for 1 warp
  // Packed without the padding: 60 bytes, the pointers land 4 bytes early.
  unsigned char packed[60];
  std::memcpy(packed, &a, 44);
  std::memcpy(packed + 44, &a.gs, 8);
  std::memcpy(packed + 52, &a.ps, 8);
  extra[1] = packed;
  size = sizeof packed;
  CHECK(f.launch(1, 64, 512, nullptr, extra) == 1);
  CHECK(f.h.last_error() == "hipModuleLaunchKernel(small_matmul): extra's buffer is 60 bytes; the explicit arguments "
                            "end at 64 and argument 9 (global_buffer, offset 56, size 8) is not covered (each argument "
                            "goes at its natural alignment)");
}

TEST_CASE("fake HIP launch: every scalar width at its offset (mixed_scalars) and hidden arguments (grid_size)") {
  launch_fixture f("gfx942:sramecc+:xnack-", probe("mixed_scalars_gfx942.hsaco"), "mixed_scalars");
  std::int64_t i64 = -5;
  std::uint16_t f16 = 0x3c00, bf16 = 0x3f80;
  double f64 = 0.25;
  std::int8_t flag = 1;
  std::int32_t n = 77;
  void* gs = nullptr;
  void* ps = nullptr;
  void* params[] = {&f.out, &i64, &f16, &bf16, &f64, &flag, &n, &gs, &ps};
  CHECK(f.launch(3, 256, 0, params) == 0);
  tpfakehip_launch_record r = f.last();
  CHECK(r.num_args == 9);
  CHECK(r.kernarg_size == 56);
  const unsigned offsets[] = {0, 8, 16, 18, 24, 32, 36, 40, 48};
  const unsigned sizes[] = {8, 8, 2, 2, 8, 1, 4, 8, 8};
  for (unsigned i = 0; i < 9; ++i) {
    CHECK(r.arg_offset[i] == offsets[i]);
    CHECK(r.arg_size[i] == sizes[i]);
  }
  CHECK(at<void*>(r, 0) == f.out);
  CHECK(at<std::int64_t>(r, 8) == -5);
  CHECK(at<std::uint16_t>(r, 16) == 0x3c00);
  CHECK(at<std::uint16_t>(r, 18) == 0x3f80);
  CHECK(at<double>(r, 24) == 0.25);
  CHECK(at<std::int8_t>(r, 32) == 1);
  CHECK(at<std::int32_t>(r, 36) == 77);
  // Packed without alignment (49 bytes): refused, naming the first argument not covered.
  unsigned char packed[64] = {};
  std::size_t size = 8 + 8 + 2 + 2 + 8 + 1 + 4 + 8 + 8;
  void* extra[] = {reinterpret_cast<void*>(1), packed, reinterpret_cast<void*>(2), &size, reinterpret_cast<void*>(3)};
  CHECK(f.launch(3, 256, 0, nullptr, extra) == 1);
  CHECK(contains(f.h.last_error(), "extra's buffer is 49 bytes; the explicit arguments end at 56 and argument 8 "
                                   "(global_buffer, offset 48, size 8) is not covered"));

  // Hidden arguments: the caller passes only the explicit ones; the runtime writes the rest.
  launch_fixture g("gfx90a:sramecc-:xnack-", probe("grid_size_gfx90a.hsaco"), "grid_size");
  std::int32_t m = 3;
  void* p2[] = {&g.out, &m, &gs, &ps};
  CHECK(g.launch(5, 256, 0, p2) == 0);
  r = g.last();
  CHECK((r.num_args == 4 && r.kernarg_size == 32 && r.kernarg_segment_size == 288));
  unsigned char buf[288] = {};
  std::memcpy(buf, &g.out, 8);
  std::memcpy(buf + 8, &m, 4);
  size = 32;
  extra[1] = buf;
  CHECK(g.launch(5, 256, 0, nullptr, extra) == 0);
  size = 288;  // the whole segment, hidden part included, is fine too
  CHECK(g.launch(5, 256, 0, nullptr, extra) == 0);
}

TEST_CASE("fake HIP launch: devices, streams, cooperative and Ex launches, injected failures") {
  launch_fixture f("gfx942:sramecc+:xnack-,gfx942:sramecc+:xnack-/coop=0", artifact("vector_add/v0/hip_gfx942.hsaco"),
                   "vector_add");
  vector_add_args a{f.x, f.y, f.out};
  void* params[] = {&a.x, &a.y, &a.out, &a.n, &a.alpha, &a.global_scratch, &a.profile_scratch};
  hip& h = f.h;
  // Memory of another device, a module of another device, a stream of another device.
  REQUIRE(h.hipSetDevice(1) == 0);
  void* other = nullptr;
  hipStream_t s1 = nullptr;
  REQUIRE(h.hipMalloc(&other, 64) == 0);
  REQUIRE(h.hipStreamCreate(&s1) == 0);
  CHECK(f.launch(1, 256, 0, params) == 98);
  CHECK(h.last_error() == "hipModuleLaunchKernel(vector_add): the module was loaded on device 0, the current device "
                          "is 1 (hipSetDevice first)");
  REQUIRE(h.hipSetDevice(0) == 0);
  CHECK(f.launch(1, 256, 0, params, nullptr, s1) == 400);
  CHECK(contains(h.last_error(), "the stream belongs to device 1, the current device is 0"));
  CHECK(f.launch(1, 256, 0, params, nullptr, reinterpret_cast<hipStream_t>(0x1234)) == 709);
  a.out = other;
  CHECK(f.launch(1, 256, 0, params) == 1);
  CHECK(contains(h.last_error(), "which is memory of device 1; the launch runs on device 0"));
  a.out = f.out;
  hipStream_t s0 = nullptr;
  REQUIRE(h.hipStreamCreateWithFlags(&s0, 1) == 0);
  CHECK(f.launch(1, 256, 0, params, nullptr, s0) == 0);
  CHECK(f.last().stream == s0);

  // Cooperative: recorded as such; a grid larger than can be resident is refused (720).
  REQUIRE(addr(h.hipModuleLaunchCooperativeKernel) != nullptr);
  CHECK(h.hipModuleLaunchCooperativeKernel(f.fn, 8, 1, 1, 256, 1, 1, 0, nullptr, params) == 0);
  CHECK((f.last().cooperative == 1 && f.last().via == TPFAKEHIP_VIA_COOPERATIVE));
  CHECK(h.hipModuleLaunchCooperativeKernel(f.fn, 304 * 8 + 1, 1, 1, 256, 1, 1, 0, nullptr, params) == 720);
  CHECK(h.hipModuleLaunchCooperativeKernel(f.fn, 8, 1, 1, 512, 1, 1, 0, nullptr, params) == 719);

  // hipDrvLaunchKernelEx with Triton's attributes: cluster (1,1,1) and cooperative.
  REQUIRE(addr(h.hipDrvLaunchKernelEx) != nullptr);
  launch_attribute attrs[2] = {};
  attrs[0].id = 4;
  attrs[0].v.dim = {1, 1, 1};
  attrs[1].id = 2;
  attrs[1].v.i = 1;
  launch_config cfg = {2, 1, 1, 256, 1, 1, 0, nullptr, attrs, 2};
  CHECK(h.hipDrvLaunchKernelEx(&cfg, f.fn, params, nullptr) == 0);
  CHECK((f.last().via == TPFAKEHIP_VIA_LAUNCH_EX && f.last().cooperative == 1 && f.last().grid[0] == 2));
  attrs[0].v.dim = {2, 1, 1};
  CHECK(h.hipDrvLaunchKernelEx(&cfg, f.fn, params, nullptr) == 801);
  CHECK(contains(h.last_error(), "cluster dimensions (2, 1, 1) on gfx942, which has no multi-CTA launch"));

  // Injected failure of the 2nd launch; hipGetLastError reports and clears it.
  h.tpfakehip_configure("gfx942:sramecc+:xnack-", 0, "hipModuleLaunchKernel=719@2", "");
  hipModule_t m = nullptr;
  hipFunction_t fn = nullptr;
  const auto hsaco = artifact("vector_add/v0/hip_gfx942.hsaco");
  REQUIRE(h.hipModuleLoadData(&m, hsaco.data()) == 0);
  REQUIRE(h.hipModuleGetFunction(&fn, m, "vector_add") == 0);
  vector_add_args b{nullptr, nullptr, nullptr};
  void* p2[] = {&b.x, &b.y, &b.out, &b.n, &b.alpha, &b.global_scratch, &b.profile_scratch};
  CHECK(h.hipModuleLaunchKernel(fn, 1, 1, 1, 256, 1, 1, 0, nullptr, p2, nullptr) == 0);
  CHECK(h.hipModuleLaunchKernel(fn, 1, 1, 1, 256, 1, 1, 0, nullptr, p2, nullptr) == 719);
  CHECK(h.hipPeekAtLastError() == 719);
  CHECK(h.hipGetLastError() == 719);
  CHECK(h.hipGetLastError() == 0);
  CHECK(h.hipModuleLaunchKernel(fn, 1, 1, 1, 256, 1, 1, 0, nullptr, p2, nullptr) == 0);
  CHECK(h.tpfakehip_launch_count() == 2);
  CHECK(h.hipModuleUnload(m) == 0);
  CHECK(h.hipModuleLaunchKernel(fn, 1, 1, 1, 256, 1, 1, 0, nullptr, p2, nullptr) == 400);
}

TEST_CASE("fake HIP launch: a kernel without Triton's trailing scratch pointers is refused") {
  // The last argument's .size edited from 8 to 4 (the last ".size" key in the note is its).
  auto b = artifact("vector_add/v0/hip_gfx942.hsaco");
  const std::string key = "\xa5.size";
  std::size_t last = std::string::npos;
  for (std::size_t i = 0; i + key.size() < b.size(); ++i)
    if (std::memcmp(b.data() + i, key.data(), key.size()) == 0) last = i;
  REQUIRE(last != std::string::npos);
  REQUIRE(b[last + key.size()] == 8);
  b[last + key.size()] = 4;
  launch_fixture f("gfx942:sramecc+:xnack-", b, "vector_add");
  vector_add_args a{f.x, f.y, f.out};
  void* params[] = {&a.x, &a.y, &a.out, &a.n, &a.alpha, &a.global_scratch, &a.profile_scratch};
  CHECK(f.launch(1, 256, 0, params) == 1);
  CHECK(f.h.last_error() == "hipModuleLaunchKernel(vector_add): the kernel's last two explicit arguments are not "
                            "Triton 3.6's scratch pointers (8-byte global_buffer): not a Triton kernel, or damaged "
                            "metadata");
}
