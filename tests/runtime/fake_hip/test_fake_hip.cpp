// The test-double HIP runtime through dlopen, as a run time would use it: its code-object reader
// (the fixtures' hsacos, hidden arguments, damage of every kind, every truncation and byte flip),
// module loading (gfx and xnack/sramecc compatibility, corrupt objects, unknown kernels), devices and
// properties in both struct layouts, an old (ROCm 5) runtime's missing entry points, no GPU, and the
// memory and stream entry points (host-backed: copies round-trip).
#include <doctest/doctest.h>

#include <cstring>
#include <random>

#include "fake_hip/test_util.hpp"

using namespace tphiptest;

namespace {

// Offset of the first occurrence of `what` in `b` (REQUIREs it is there).
std::size_t find_bytes(const std::vector<std::uint8_t>& b, const std::string& what) {
  for (std::size_t i = 0; i + what.size() <= b.size(); ++i)
    if (std::memcmp(b.data() + i, what.data(), what.size()) == 0) return i;
  FAIL("bytes not found: " << what);
  return 0;
}
// Offset of the msgpack value that follows the key `key` (a fixstr) in the metadata note.
std::size_t value_after_key(const std::vector<std::uint8_t>& b, const std::string& key) {
  return find_bytes(b, key) + key.size();
}
std::string read_why(const std::vector<std::uint8_t>& b, int* kernels = nullptr) {
  char why[512] = {};
  const int n = fake().tpfakehip_read_code_object(b.data(), b.size(), why, sizeof why);
  if (kernels) *kernels = n;
  return why;
}
void set_e_flags(std::vector<std::uint8_t>& b, std::uint32_t flags) { std::memcpy(b.data() + 48, &flags, 4); }

}  // namespace

TEST_CASE("fake HIP: the code-object reader reads every fixture hsaco and the probes") {
  const char* const files[] = {"vector_add/v0", "vector_add/v1", "row_softmax/v0", "matmul_f16/v0",
                               "matmul_f16/v1", "matmul_f16/v2", "matmul_f16/v3"};
  for (const char* f : files)
    for (const char* arch : {"gfx90a", "gfx942"}) {
      const auto b = artifact(std::string(f) + "/hip_" + arch + ".hsaco");
      int n = -1;
      const std::string why = read_why(b, &n);
      INFO(f << " " << arch << ": " << why);
      CHECK(n == 1);
      CHECK(why.empty());
    }
  int n = -1;
  CHECK(read_why(probe("mixed_scalars_gfx942.hsaco"), &n).empty());
  CHECK(n == 1);
  CHECK(read_why(probe("grid_size_gfx90a.hsaco"), &n).empty());
  CHECK(n == 1);
}

TEST_CASE("fake HIP: damaged code objects are refused with what is wrong") {
  const auto good = artifact("vector_add/v0/hip_gfx942.hsaco");
  int n = 0;
  auto b = good;
  b[18] = 190;  // e_machine EM_CUDA
  CHECK(contains(read_why(b, &n), "e_machine 190 is not EM_AMDGPU (224)"));
  CHECK(n == -1);
  b = good;
  b[7] = 0;
  CHECK(contains(read_why(b), "EI_OSABI 0 is not ELFOSABI_AMDGPU_HSA (64)"));
  b = good;
  b[8] = 1;
  CHECK(contains(read_why(b), "EI_ABIVERSION 1 is not a code-object version 4, 5 or 6"));
  b = good;
  b[0] = 'X';
  CHECK(contains(read_why(b), "no ELF header"));
  b = good;
  set_e_flags(b, 0x53f);  // says gfx90a, the metadata says gfx942
  CHECK(contains(read_why(b), "amdhsa.target \"amdgcn-amd-amdhsa--gfx942\" disagrees with e_flags (gfx90a)"));
  b = good;
  b[value_after_key(b, ".wavefront_size")] = 48;
  CHECK(contains(read_why(b), "(vector_add): .wavefront_size 48 is neither 32 nor 64"));
  b = good;
  b[value_after_key(b, ".wavefront_size")] = 0xc1;
  CHECK(contains(read_why(b), "corrupt code object: NT_AMDGPU_METADATA: reserved msgpack byte 0xc1 at byte"));
  b = good;
  std::memcpy(b.data() + find_bytes(b, "global_buffer"), "global_buffeX", 13);
  CHECK(contains(read_why(b), "unknown .value_kind \"global_buffeX\""));
  b = good;
  std::memcpy(b.data() + find_bytes(b, "vector_add.kd"), "vector_add.kX", 13);
  CHECK(contains(read_why(b), "its descriptor symbol"));
  b = good;
  std::memcpy(b.data() + find_bytes(b, "AMDGPU"), "AMDGPX", 6);  // the note is no longer AMDGPU's
  CHECK(contains(read_why(b), "no NT_AMDGPU_METADATA note"));
  b = good;
  b.resize(good.size() - 100);
  CHECK(contains(read_why(b), "lies outside the file"));
  CHECK(contains(read_why({}), "no ELF header"));
}

TEST_CASE("fake HIP: the reader survives every truncation, every byte flip and random bytes") {
  for (const char* f : {"vector_add/v0/hip_gfx942.hsaco", "row_softmax/v0/hip_gfx90a.hsaco"}) {
    const auto good = artifact(f);
    // Every proper prefix is refused (each lacks the section table or a section's bytes).
    std::size_t accepted = 0;
    for (std::size_t len = 0; len < good.size(); ++len) {
      std::vector<std::uint8_t> b(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(len));
      accepted += read_why(b).empty() ? 1 : 0;
    }
    CHECK(accepted == 0);
    // Every byte inverted: never a crash (ASan/UBSan builds check the reads); a flip that lands in
    // the metadata's numbers may still parse, in which case the kernel is still there.
    for (std::size_t i = 0; i < good.size(); ++i) {
      auto b = good;
      b[i] ^= 0xff;
      int n = -2;
      const std::string why = read_why(b, &n);
      CHECK((n == 1 || (n == -1 && contains(why, "corrupt code object: "))));
    }
  }
  std::mt19937 rng(12345);
  for (int round = 0; round < 2000; ++round) {
    auto b = artifact("matmul_f16/v0/hip_gfx942.hsaco");
    for (int k = 0; k < 8; ++k) b[rng() % b.size()] = static_cast<std::uint8_t>(rng());
    int n = -2;
    read_why(b, &n);
    CHECK((n == 1 || n == -1));
  }
}

TEST_CASE("fake HIP: hipModuleLoadData loads for the device's gfx and features and refuses the rest") {
  hip& h = fake();
  h.tpfakehip_configure("gfx942:sramecc+:xnack-,gfx90a:sramecc-:xnack+", 0, "", "");
  const auto g942 = artifact("vector_add/v0/hip_gfx942.hsaco");
  const auto g90a = artifact("vector_add/v0/hip_gfx90a.hsaco");
  hipModule_t m = nullptr;
  REQUIRE(h.hipModuleLoadData(&m, g942.data()) == 0);
  CHECK(h.tpfakehip_live_modules() == 1);
  CHECK(h.last_error().empty());

  // Another gfx: hipErrorNoBinaryForGpu, and the record says which.
  hipModule_t other = nullptr;
  CHECK(h.hipModuleLoadData(&other, g90a.data()) == 209);
  CHECK(other == nullptr);
  CHECK(h.last_error() ==
        "hipModuleLoadData: the code object is for gfx90a (e_flags 0x53f: xnack any, sramecc any); device 0 is "
        "gfx942:sramecc+:xnack-");
  REQUIRE(h.tpfakehip_load_count() == 2);
  tpfakehip_load_record rec{};
  REQUIRE(h.tpfakehip_get_load(1, &rec) == 0);
  CHECK(rec.result == 209);
  CHECK(std::string(rec.gfx) == "gfx90a");
  CHECK(rec.e_flags == 0x53f);
  CHECK(rec.abi_version == 3);  // code object v5
  CHECK(contains(rec.reason, "device 0 is gfx942"));

  // Modules bind to the current device: on device 1 (gfx90a) the gfx90a object loads.
  REQUIRE(h.hipSetDevice(1) == 0);
  CHECK(h.hipModuleLoadDataEx(&other, g90a.data(), 0, nullptr, nullptr) == 0);
  // Feature settings: "any" loads everywhere; "on"/"off" must match the device.
  auto b = g90a;
  set_e_flags(b, 0x73f);  // xnack on, sramecc any
  hipModule_t m2 = nullptr;
  CHECK(h.hipModuleLoadData(&m2, b.data()) == 0);  // device 1 is xnack+
  set_e_flags(b, 0xc3f);                             // sramecc on, xnack unsupported-by-object
  CHECK(h.hipModuleLoadData(&m2, b.data()) == 209);
  CHECK(contains(h.last_error(), "(e_flags 0xc3f: xnack unsupported, sramecc on); device 1 is gfx90a:sramecc-:xnack+"));
  REQUIRE(h.hipSetDevice(0) == 0);
  b = g942;
  set_e_flags(b, 0x74c);  // xnack on, sramecc any; device 0 is xnack-
  CHECK(h.hipModuleLoadData(&m2, b.data()) == 209);
  CHECK(contains(h.last_error(), "xnack on, sramecc any"));

  // Corrupt: hipErrorInvalidKernelFile with the reader's reason.
  b = g942;
  b[18] = 190;
  CHECK(h.hipModuleLoadData(&m2, b.data()) == 218);
  CHECK(h.last_error() == "hipModuleLoadData: corrupt code object: e_machine 190 is not EM_AMDGPU (224)");
  const char junk[64] = "this is not a code object";
  CHECK(h.hipModuleLoadData(&m2, junk) == 218);
  CHECK(contains(h.last_error(), "corrupt code object"));
  CHECK(h.hipModuleLoadData(&m2, nullptr) == 1);
  CHECK(h.hipGetLastError() == 1);
  CHECK(h.hipGetLastError() == 0);

  // Functions: by plain name (not name.kd); an unknown one lists what the module has.
  hipFunction_t f = nullptr;
  CHECK(h.hipModuleGetFunction(&f, m, "vector_add") == 0);
  CHECK(f != nullptr);
  CHECK(h.hipModuleGetFunction(&f, m, "vector_add.kd") == 500);
  CHECK(h.last_error() == "hipModuleGetFunction: no kernel named \"vector_add.kd\" in the module (it has: vector_add)");
  h.hipModuleGetFunction(&f, m, "vector_add");
  int v = 0;
  CHECK((h.hipFuncGetAttribute(&v, 0, f) == 0 && v == 256));  // MAX_THREADS_PER_BLOCK = .max_flat_workgroup_size
  CHECK((h.hipFuncGetAttribute(&v, 1, f) == 0 && v == 0));    // SHARED_SIZE_BYTES: no static LDS
  CHECK((h.hipFuncGetAttribute(&v, 3, f) == 0 && v == 0));    // LOCAL_SIZE_BYTES: no spills
  CHECK((h.hipFuncGetAttribute(&v, 4, f) == 0 && v > 0));     // NUM_REGS: .vgpr_count
  CHECK(h.hipFuncGetAttribute(&v, 10, f) == 1);

  CHECK(h.hipModuleUnload(m) == 0);
  CHECK(h.hipModuleUnload(m) == 400);
  CHECK(h.hipModuleGetFunction(&f, m, "vector_add") == 400);
  CHECK(h.tpfakehip_live_modules() == 2);
  h.tpfakehip_configure(nullptr, 0, nullptr, nullptr);
  CHECK(h.tpfakehip_live_modules() == 0);
}

TEST_CASE("fake HIP: devices, attributes and both hipDeviceProp_t layouts") {
  hip& h = fake();
  h.tpfakehip_configure("gfx942:sramecc+:xnack-/cu=228/name=MI300A,gfx1100/lds=32768", 0, "", "");
  int n = 0;
  REQUIRE(h.hipGetDeviceCount(&n) == 0);
  CHECK(n == 2);
  int v = 0;
  CHECK((h.hipDriverGetVersion(&v) == 0 && v == 70125424));
  CHECK((h.hipRuntimeGetVersion(&v) == 0 && v == 70125424));
  CHECK(h.hipInit(0) == 0);
  CHECK(h.hipInit(1) == 1);
  CHECK((h.hipDeviceGetAttribute(&v, 23, 0) == 0 && v == 9));  // ComputeCapabilityMajor
  CHECK((h.hipDeviceGetAttribute(&v, 61, 0) == 0 && v == 4));  // ComputeCapabilityMinor
  CHECK((h.hipDeviceGetAttribute(&v, 87, 0) == 0 && v == 64));  // WarpSize
  CHECK((h.hipDeviceGetAttribute(&v, 87, 1) == 0 && v == 32));  // RDNA: wave32
  CHECK((h.hipDeviceGetAttribute(&v, 23, 1) == 0 && v == 11));
  CHECK((h.hipDeviceGetAttribute(&v, 74, 0) == 0 && v == 65536));  // MaxSharedMemoryPerBlock
  CHECK((h.hipDeviceGetAttribute(&v, 74, 1) == 0 && v == 32768));
  CHECK((h.hipDeviceGetAttribute(&v, 63, 0) == 0 && v == 228));  // MultiprocessorCount
  CHECK(h.hipDeviceGetAttribute(&v, 4242, 0) == 1);
  CHECK(h.last_error() == "hipDeviceGetAttribute: attribute 4242 is not modelled by the double");
  CHECK(h.hipDeviceGetAttribute(&v, 23, 2) == 101);
  int major = 0, minor = 0;
  CHECK((h.hipDeviceComputeCapability(&major, &minor, 0) == 0 && major == 9 && minor == 4));
  char name[64];
  CHECK(h.hipDeviceGetName(name, sizeof name, 0) == 0);
  CHECK(std::string(name) == "MI300A");  // the marketing name, not the gfx name

  // dlsym("hipGetDeviceProperties") is the 792-byte ROCm 5 layout; R0600 the 1472-byte one.
  std::vector<char> p(4096, 'x');
  REQUIRE(h.hipGetDeviceProperties(p.data(), 0) == 0);
  CHECK(std::string(p.data() + 396) == "gfx942:sramecc+:xnack-");
  CHECK(std::string(p.data()) == "MI300A");
  int warp = 0, cus = 0;
  std::size_t shared = 0;
  std::memcpy(&warp, p.data() + 276, 4);
  std::memcpy(&shared, p.data() + 264, 8);
  std::memcpy(&cus, p.data() + 336, 4);
  CHECK((warp == 64 && shared == 65536 && cus == 228));
  CHECK(p[792] == 'x');  // nothing written past the struct
  std::fill(p.begin(), p.end(), 'x');
  REQUIRE(addr(h.hipGetDevicePropertiesR0600) != nullptr);
  REQUIRE(h.hipGetDevicePropertiesR0600(p.data(), 1) == 0);
  CHECK(std::string(p.data() + 1160) == "gfx1100");
  std::memcpy(&warp, p.data() + 308, 4);
  std::memcpy(&shared, p.data() + 296, 8);
  CHECK((warp == 32 && shared == 32768));
  CHECK(p[1472] == 'x');

  // The current device is per thread and defaults to 0.
  int d = -1;
  CHECK((h.hipGetDevice(&d) == 0 && d == 0));
  CHECK(h.hipSetDevice(1) == 0);
  CHECK(h.tpfakehip_current_device() == 1);
  CHECK(h.hipSetDevice(2) == 101);
  CHECK(h.tpfakehip_current_device() == 1);
}

TEST_CASE("fake HIP: hipGetProcAddress, injected failures, no GPU, and an old ROCm 5 runtime") {
  hip& h = fake();
  h.tpfakehip_configure(nullptr, 0, "hipModuleLoadData=209@2", "hipDrvLaunchKernelEx");
  REQUIRE(addr(h.hipGetProcAddress) != nullptr);
  void* fn = nullptr;
  int status = -1;
  CHECK(h.hipGetProcAddress("hipModuleLaunchKernel", &fn, 70125424, 0, &status) == 0);
  CHECK(fn == addr(h.hipModuleLaunchKernel));
  CHECK(status == 0);
  CHECK(h.hipGetProcAddress("hipGetDeviceProperties", &fn, 600, 0, &status) == 0);
  CHECK(fn == addr(h.hipGetDevicePropertiesR0600));  // mapped for hipVersion >= 600
  CHECK(h.hipGetProcAddress("hipDrvLaunchKernelEx", &fn, 70125424, 0, &status) == 500);  // configured missing
  CHECK((fn == nullptr && status == 1));
  CHECK(h.hipGetProcAddress("hipNoSuchThing", &fn, 70125424, 0, &status) == 500);
  // The 2nd hipModuleLoadData fails as configured; the 1st and 3rd load.
  const auto b = artifact("vector_add/v0/hip_gfx942.hsaco");
  hipModule_t m = nullptr;
  CHECK(h.hipModuleLoadData(&m, b.data()) == 0);
  CHECK(h.hipModuleLoadData(&m, b.data()) == 209);
  CHECK(h.hipModuleLoadData(&m, b.data()) == 0);
  CHECK(h.tpfakehip_calls("hipModuleLoadData") == 3);
  CHECK(std::string(h.hipGetErrorName(209)) == "hipErrorNoBinaryForGpu");
  CHECK(std::string(h.hipGetErrorString(100)) == "no ROCm-capable device is detected");

  // No usable GPU (no /dev/kfd): versions answer, the count is 0 with hipErrorNoDevice, the rest
  // hipErrorInvalidDevice, as Debian's ROCm 5.2.3 does on this machine (hip-abi.md §3.3).
  h.tpfakehip_configure("none", 0, "", "");
  int v = 0;
  CHECK(h.hipDriverGetVersion(&v) == 0);
  CHECK((h.hipGetDeviceCount(&v) == 100 && v == 0));
  CHECK(h.hipInit(0) == 101);
  CHECK(h.hipModuleLoadData(&m, b.data()) == 101);
  CHECK(h.hipGetProcAddress("hipInit", &fn, 70125424, 0, &status) == 101);
  void* p = nullptr;
  CHECK(h.hipMalloc(&p, 16) == 101);

  // ROCm 5.2: the entry points it lacks are not exported at all, so dlsym finds nothing.
  hip& old = fake_rocm5();
  old.tpfakehip_configure(nullptr, 0, nullptr, nullptr);
  CHECK(addr(old.hipGetProcAddress) == nullptr);
  CHECK(addr(old.hipGetDevicePropertiesR0600) == nullptr);
  CHECK(addr(old.hipModuleLaunchCooperativeKernel) == nullptr);
  CHECK(addr(old.hipDrvLaunchKernelEx) == nullptr);
  CHECK(dlsym(old.handle, "hipDrvGetErrorString") == nullptr);
  CHECK(dlsym(old.handle, "hipModuleLaunchKernel") != nullptr);
  CHECK((old.hipRuntimeGetVersion(&v) == 0 && v == 50221153));
  CHECK(std::string(old.hipGetErrorString(100)) == "hipErrorNoDevice");  // 5.2.3 returns the name
  CHECK(old.hipModuleLoadData(&m, b.data()) == 0);
}

TEST_CASE("fake HIP: memory is host-backed, copies round-trip and are checked, streams are tracked") {
  hip& h = fake();
  h.tpfakehip_configure("gfx942:sramecc+:xnack-/mem=1048576,gfx90a:sramecc+:xnack-", 0, "", "");
  void* d = nullptr;
  REQUIRE(h.hipMalloc(&d, 1000) == 0);
  CHECK(reinterpret_cast<std::uintptr_t>(d) % 256 == 0);
  CHECK(h.tpfakehip_allocation_device(d) == 0);
  std::size_t free_b = 0, total = 0;
  CHECK(h.hipMemGetInfo(&free_b, &total) == 0);
  CHECK((total == 1048576 && free_b == 1048576 - 1000));
  void* zero = reinterpret_cast<void*>(1);
  CHECK((h.hipMalloc(&zero, 0) == 0 && zero == nullptr));  // HIP: success, NULL
  void* big = nullptr;
  CHECK(h.hipMalloc(&big, 2 << 20) == 2);
  CHECK(h.last_error() == "hipMalloc: 2097152 bytes, device 0 has 1047576 free");

  std::vector<std::uint8_t> src(1000), back(1000, 0);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::uint8_t>(i * 7 + 1);
  CHECK(h.hipMemcpy(d, src.data(), 1000, 1) == 0);  // hipMemcpyHostToDevice
  void* d2 = nullptr;
  REQUIRE(h.hipMalloc(&d2, 1000) == 0);
  CHECK(h.hipMemcpyDtoD(d2, d, 1000) == 0);
  CHECK(h.hipMemcpy(back.data(), d2, 1000, 4) == 0);  // hipMemcpyDefault
  CHECK(back == src);
  CHECK(h.hipMemsetD8(d2, 0xab, 10) == 0);
  CHECK(h.hipMemcpyDtoH(back.data(), d2, 10) == 0);
  CHECK((back[0] == 0xab && back[9] == 0xab && back[10] == src[10]));
  CHECK(h.hipMemset(d2, 0x1ff, 1) == 0);  // the value is converted to unsigned char
  CHECK(static_cast<std::uint8_t*>(d2)[0] == 0xff);
  CHECK(h.hipMemcpyHtoD(d, src.data(), 1000) == 0);

  // Wrong kinds and ranges are refused with the reason.
  CHECK(h.hipMemcpy(back.data(), src.data(), 10, 1) == 1);
  CHECK(h.last_error() == "hipMemcpy: hipMemcpyHostToDevice but the source is host memory and the destination host memory");
  CHECK(h.hipMemcpyDtoH(back.data(), src.data(), 10) == 1);
  CHECK(h.hipMemcpy(d, src.data(), 1001, 1) == 1);
  CHECK(contains(h.last_error(), "1001 bytes run past the end of the allocation"));
  CHECK(h.hipMemsetD8(static_cast<char*>(d) + 990, 0, 11) == 1);
  CHECK(h.hipMemset(back.data(), 0, 4) == 1);
  CHECK(contains(h.last_error(), "is not inside one hipMalloc allocation"));
  CHECK(h.hipMemcpy(d, src.data(), 10, 7) == 1);

  // Pointer attributes: memory type, device pointer, ordinal, range.
  unsigned type = 0;
  int ordinal = -1;
  void* start = nullptr;
  std::size_t size = 0;
  void* inside = static_cast<char*>(d) + 100;
  CHECK((h.hipPointerGetAttribute(&type, 2, inside) == 0 && type == 2));
  CHECK((h.hipPointerGetAttribute(&ordinal, 9, inside) == 0 && ordinal == 0));
  CHECK((h.hipPointerGetAttribute(&start, 11, inside) == 0 && start == d));
  CHECK((h.hipPointerGetAttribute(&size, 12, inside) == 0 && size == 1000));
  CHECK(h.hipPointerGetAttribute(&type, 2, src.data()) == 1);

  // Streams belong to the current device; async calls need a known stream.
  hipStream_t s = nullptr, s1 = nullptr;
  CHECK(h.hipStreamCreateWithFlags(&s, 1) == 0);
  CHECK(h.hipStreamCreateWithFlags(&s1, 2) == 1);
  CHECK(h.hipSetDevice(1) == 0);
  CHECK(h.hipStreamCreate(&s1) == 0);
  CHECK(h.tpfakehip_stream_device(s) == 0);
  CHECK(h.tpfakehip_stream_device(s1) == 1);
  CHECK(h.tpfakehip_live_streams() == 2);
  CHECK(h.hipMemcpyAsync(back.data(), d, 1000, 2, s) == 0);
  CHECK(h.hipMemsetAsync(d, 0, 1000, nullptr) == 0);
  CHECK(h.hipMemsetD8Async(d, 0, 1000, reinterpret_cast<hipStream_t>(2)) == 0);  // hipStreamPerThread
  CHECK(h.hipStreamSynchronize(s) == 0);
  CHECK(h.hipStreamSynchronize(nullptr) == 0);
  CHECK(h.hipStreamDestroy(s) == 0);
  CHECK(h.hipStreamSynchronize(s) == 709);  // ROCm 7: hipErrorContextIsDestroyed
  CHECK(h.hipMemcpyAsync(back.data(), d, 10, 2, s) == 709);
  CHECK(h.hipStreamDestroy(s) == 400);
  CHECK(h.hipStreamDestroy(s1) == 0);
  CHECK(h.tpfakehip_live_streams() == 0);

  CHECK(h.hipFree(d) == 0);
  CHECK(h.hipFree(d2) == 0);
  CHECK(h.hipFree(nullptr) == 0);
  CHECK(h.hipFree(src.data()) == 1);
  CHECK(h.tpfakehip_live_allocations() == 0);
}
