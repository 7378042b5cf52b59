// The HIP backend without an AMD GPU: Triton 3.6's AMD launch ABI as arithmetic (block size,
// kernarg layout) against shared/hip-abi.md's examples and the code objects' own metadata, the
// gfx name's verification, the runtime's loading and version policy, backend choice, and the
// tests/data kernels loaded and launched through a minimal test-double libamdhip64
// (fake_hip_min/) — plus Debian's real libamdhip64 5.2.3 diagnosing "no AMD GPU".
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include <tritonpack/hip_launch_abi.hpp>

#include "test_util.hpp"

using namespace tritonpack;
using tptest::contains;
using tptest::env_guard;

namespace {

struct fake_hip {
  void (*configure)(const char*, int, int, const char*, const char*);
  void (*set_max_threads)(int);
  void (*declare_kernel)(const char*, const std::uint32_t*, unsigned);
  std::size_t (*launch_count)();
  std::size_t (*get_launch)(std::size_t, char*, std::size_t, unsigned*, unsigned*, unsigned*, int*, int*, unsigned char*,
                            std::size_t);
  int (*calls)(const char*);
  int (*live_modules)();
  int (*live_allocations)();

  static fake_hip& get() {
    static fake_hip f = [] {
      void* h = dlopen(TP_FAKE_HIP_PATH, RTLD_NOW | RTLD_LOCAL);
      if (!h) throw std::runtime_error(std::string("cannot open the fake HIP: ") + dlerror());
      auto sym = [h](const char* n) {
        void* p = dlsym(h, n);
        if (!p) throw std::runtime_error(std::string("fake HIP lacks ") + n);
        return p;
      };
      fake_hip d;
      d.configure = reinterpret_cast<decltype(d.configure)>(sym("tpfakehipmin_configure"));
      d.set_max_threads = reinterpret_cast<decltype(d.set_max_threads)>(sym("tpfakehipmin_set_max_threads"));
      d.declare_kernel = reinterpret_cast<decltype(d.declare_kernel)>(sym("tpfakehipmin_declare_kernel"));
      d.launch_count = reinterpret_cast<decltype(d.launch_count)>(sym("tpfakehipmin_launch_count"));
      d.get_launch = reinterpret_cast<decltype(d.get_launch)>(sym("tpfakehipmin_get_launch"));
      d.calls = reinterpret_cast<decltype(d.calls)>(sym("tpfakehipmin_calls"));
      d.live_modules = reinterpret_cast<decltype(d.live_modules)>(sym("tpfakehipmin_live_modules"));
      d.live_allocations = reinterpret_cast<decltype(d.live_allocations)>(sym("tpfakehipmin_live_allocations"));
      return d;
    }();
    return f;
  }
};

struct launch_seen {
  std::string kernel;
  unsigned grid[3], block[3], shared;
  int device, cooperative;
  std::vector<unsigned char> kernargs;
  template <class T>
  T at(std::size_t offset) const {
    T v{};
    REQUIRE(offset + sizeof(T) <= kernargs.size());
    std::memcpy(&v, kernargs.data() + offset, sizeof(T));
    return v;
  }
};

launch_seen last_launch() {
  auto& f = fake_hip::get();
  REQUIRE(f.launch_count() > 0);
  launch_seen r;
  char name[128];
  unsigned char buf[512];
  const std::size_t n = f.get_launch(f.launch_count() - 1, name, sizeof name, r.grid, r.block, &r.shared, &r.device,
                                     &r.cooperative, buf, sizeof buf);
  r.kernel = name;
  r.kernargs.assign(buf, buf + std::min(n, sizeof buf));
  return r;
}

// The HIP backend on the fake, forced; the CUDA fake is left as the other tests configured it.
struct hip_setup {
  env_guard lib{"TRITONPACK_HIP_LIBRARY", TP_FAKE_HIP_PATH};
  env_guard forced;
  explicit hip_setup(const char* arch = "gfx942:sramecc+:xnack-", int version = 70125424, int devices = 1, const char* fail = "",
                     const char* layout = "r0600", const char* backend = "hip")
      : forced("TRITONPACK_BACKEND", backend) {
    fake_hip::get().configure(arch, version, devices, fail, layout);
    // vector_add's parameters after specialisation: x, y, out, n, alpha, then the two scratch pointers.
    const std::uint32_t sizes[] = {8, 8, 8, 4, 4, 8, 8};
    fake_hip::get().declare_kernel("vector_add", sizes, 7);
    tritonpack::testing::reset_backend();
  }
  ~hip_setup() { tritonpack::testing::reset_backend(); }
};

void launch_vector_add(library& lib, float* x, float* y, float* out, std::int32_t n, float alpha) {
  lib.get("vector_add").launch(nullptr, {static_cast<std::uint32_t>((n + 1023) / 1024), 1, 1}, static_cast<const float*>(x),
                               static_cast<const float*>(y), out, n, alpha);
}

}  // namespace

TEST_CASE("Triton's wavefront size by gfx major: 64 on CDNA/GCN, 32 on RDNA (hip-abi.md §1.3)") {
  CHECK(hip::triton_wavefront_size(*parse_amd_arch("gfx90a")) == 64);
  CHECK(hip::triton_wavefront_size(*parse_amd_arch("gfx942:sramecc+:xnack-")) == 64);
  CHECK(hip::triton_wavefront_size(*parse_amd_arch("gfx950")) == 64);
  CHECK(hip::triton_wavefront_size(*parse_amd_arch("gfx908")) == 64);
  CHECK(hip::triton_wavefront_size(*parse_amd_arch("gfx1030")) == 32);
  CHECK(hip::triton_wavefront_size(*parse_amd_arch("gfx1100")) == 32);
  CHECK(hip::triton_wavefront_size(*parse_amd_arch("gfx1201")) == 32);
}

TEST_CASE("HIP block = num_warps x wavefront size, refused when the metadata's warp_size disagrees with the target") {
  launch_info li;
  li.warp_size = 64;
  li.num_warps = 4;
  std::string why;
  CHECK(hip::block_size(li, *parse_amd_arch("gfx942"), why) == 256);
  li.num_warps = 8;
  CHECK(hip::block_size(li, *parse_amd_arch("gfx90a"), why) == 512);
  li.warp_size = 32;
  CHECK(hip::block_size(li, *parse_amd_arch("gfx1100"), why) == 256);
  CHECK(hip::block_size(li, *parse_amd_arch("gfx942"), why) == 0);
  CHECK(why == "its metadata says warp_size 32 but Triton compiles gfx942 with wavefront size 64");
}

TEST_CASE("HIP kernarg layout: natural alignment, the fact sheet's axpy, mixed_scalars and matmul_f16") {
  // axpy: *fp32 x3, fp32 alpha, i32 n, 2 scratch pointers -> 48 bytes (hip-abi.md §4.2).
  auto axpy = hip::layout_kernargs({8, 8, 8, 4, 4, 8, 8});
  CHECK(axpy.offsets == std::vector<std::uint32_t>{0, 8, 16, 24, 28, 32, 40});
  CHECK(axpy.size == 48);
  // mixed_scalars: *fp64, i64, fp16, bf16, fp64, i1, i32, scratch x2 -> 56 bytes, padding after bf16 and i1.
  auto mixed = hip::layout_kernargs({8, 8, 2, 2, 8, 1, 4, 8, 8});
  CHECK(mixed.offsets == std::vector<std::uint32_t>{0, 8, 16, 18, 24, 32, 36, 40, 48});
  CHECK(mixed.size == 56);
  // matmul_f16: 3 pointers, 9 i32 at 24..60, scratch at 64 and 72 -> 80 bytes.
  std::vector<std::uint32_t> mm = {8, 8, 8};
  mm.insert(mm.end(), 9, 4);
  mm.insert(mm.end(), {8, 8});
  auto matmul = hip::layout_kernargs(mm);
  CHECK(matmul.offsets[3] == 24);
  CHECK(matmul.offsets[11] == 56);
  CHECK(matmul.offsets[12] == 64);
  CHECK(matmul.offsets[13] == 72);
  CHECK(matmul.size == 80);
}

TEST_CASE("gfx name from a device-properties struct: used only when the attributes confirm it") {
  char field[256] = "gfx942:sramecc+:xnack-";
  auto a = hip::verified_gfx_name(field, sizeof field, 9, 4);
  REQUIRE(a);
  CHECK(a->str() == "gfx942:sramecc+:xnack-");
  CHECK(hip::verified_gfx_name(field, sizeof field, 9, 0) == std::nullopt);   // another minor: wrong layout
  CHECK(hip::verified_gfx_name(field, sizeof field, 11, 4) == std::nullopt);  // another major
  std::strcpy(field, "gfx90a:sramecc-:xnack+");
  CHECK(hip::verified_gfx_name(field, sizeof field, 9, 0)->processor == "gfx90a");
  std::strcpy(field, "gfx1100");
  CHECK(hip::verified_gfx_name(field, sizeof field, 11, 0));
  std::memset(field, 'Z', sizeof field);  // no NUL within the field
  CHECK(hip::verified_gfx_name(field, sizeof field, 9, 4) == std::nullopt);
  std::strcpy(field, "AMD Instinct MI300X");  // the marketing name is not a gfx name
  CHECK(hip::verified_gfx_name(field, sizeof field, 9, 4) == std::nullopt);
}

TEST_CASE("HIP: vector_add from tests/data is loaded for the device's gfx and launched with Triton 3.6's AMD ABI") {
  hip_setup s;
  const auto& bytes = tptest::fixture_container();
  library lib(bytes.data(), bytes.size());
  CHECK(get_backend().kind() == backend_kind::hip);
  CHECK(contains(get_backend().describe(), "HIP 7.1.25424"));
  float x[4], y[4], out[4];
  launch_vector_add(lib, x, y, out, 3000, 2.5f);
  const launch_seen r = last_launch();
  CHECK(r.kernel == "vector_add");
  CHECK(r.grid[0] == 3);
  CHECK(r.grid[1] == 1);
  CHECK(r.grid[2] == 1);
  CHECK(r.block[0] == 256);  // num_warps 4 x wavefront 64 (gfx942)
  CHECK(r.block[1] == 1);
  CHECK(r.block[2] == 1);
  CHECK(r.shared == 0);
  CHECK(r.cooperative == 0);
  REQUIRE(r.kernargs.size() == 48);  // the code object's .kernarg_segment_size
  CHECK(r.at<const void*>(0) == x);
  CHECK(r.at<const void*>(8) == y);
  CHECK(r.at<const void*>(16) == out);
  CHECK(r.at<std::int32_t>(24) == 3000);
  CHECK(r.at<float>(28) == 2.5f);
  CHECK(r.at<const void*>(32) == nullptr);  // global scratch: always null on AMD
  CHECK(r.at<const void*>(40) == nullptr);  // profile scratch: null without instrumentation
  CHECK(lib.current_device().arch == "gfx942:sramecc+:xnack-");
  // A zero-size grid launches nothing, as Triton's launcher.
  const std::size_t before = fake_hip::get().launch_count();
  lib.get("vector_add").launch(nullptr, {0, 1, 1}, static_cast<const float*>(x), static_cast<const float*>(y), static_cast<float*>(out), 0, 1.0f);
  CHECK(fake_hip::get().launch_count() == before);
}

TEST_CASE("HIP: the gfx90a code object is chosen on a gfx90a with pinned features; the gfx name is read from either props layout") {
  for (const char* layout : {"r0600", "r0000"}) {
    CAPTURE(layout);
    hip_setup s("gfx90a:sramecc-:xnack+", 60241133, 1, "", layout);
    const auto& bytes = tptest::fixture_container();
    library lib(bytes.data(), bytes.size());
    float x[1], y[1], out[1];
    launch_vector_add(lib, x, y, out, 16, 1.0f);  // the fake refuses a code object of another gfx (209)
    CHECK(last_launch().block[0] == 256);
    CHECK(lib.current_device().arch == "gfx90a:sramecc-:xnack+");
  }
}

TEST_CASE("HIP: a gfx name no layout verifies is an error, not a guess") {
  hip_setup s("gfx942:sramecc+:xnack-", 70125424, 1, "", "none");
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
    hip_setup s("gfx1100");
    library lib(bytes.data(), bytes.size());
    auto e = tptest::expect_error([&] { launch_vector_add(lib, x, y, out, 16, 1.0f); });
    CHECK(e.code() == errc::no_image);
    CHECK(contains(e.what(), "kernel vector_add (variant 1) has no image for device 0 (Fake AMD GPU 0, gfx1100, HIP 7.1.25424)"));
    CHECK(contains(e.what(), "device: hip gfx1100, driver HIP 7.1.25424"));
    CHECK(contains(e.what(), "llir gfx942: not JIT-compiled (Triton 3.6 emits LLVM 22 IR, which no released comgr reads)"));
    CHECK(contains(e.what(), "hsaco gfx942"));
    CHECK(contains(e.what(), "different gfx processor"));
  }
  {
    hip_setup s("gfx942:sramecc+:xnack-", 70125424, 1, "hipModuleLoadData=200");
    library lib(bytes.data(), bytes.size());
    auto e = tptest::expect_error([&] { launch_vector_add(lib, x, y, out, 16, 1.0f); });
    CHECK(e.code() == errc::no_image);
    CHECK(e.driver_status() == 200);
    CHECK(contains(e.what(), "kernel vector_add (gfx942 hsaco): hipModuleLoadData of the code object on device 0"));
    CHECK(contains(e.what(), "hipErrorInvalidImage (200)"));
    CHECK(contains(e.what(), "damaged or not for this GPU"));
  }
  {
    hip_setup s("gfx942:sramecc+:xnack-", 70125424, 1, "hipModuleGetFunction=500");
    library lib(bytes.data(), bytes.size());
    auto e = tptest::expect_error([&] { launch_vector_add(lib, x, y, out, 16, 1.0f); });
    CHECK(e.code() == errc::bad_container);
    CHECK(contains(e.what(), "kernel vector_add (gfx942 hsaco): the code object has no kernel \"vector_add\""));
    CHECK(fake_hip::get().live_modules() == 0);  // the module was unloaded again
  }
  {
    hip_setup s("gfx942:sramecc+:xnack-", 70125424, 1, "hipModuleLaunchKernel=719");
    library lib(bytes.data(), bytes.size());
    auto e = tptest::expect_error([&] { launch_vector_add(lib, x, y, out, 16, 1.0f); });
    CHECK(e.code() == errc::launch_failed);
    CHECK(contains(e.what(), "launch of kernel vector_add (gfx942 hsaco) with grid 1x1x1 programs, block 256, 0 bytes LDS"));
    CHECK(contains(e.what(), "hipErrorLaunchFailure (719)"));
  }
  {
    hip_setup s;
    fake_hip::get().set_max_threads(128);
    library lib(bytes.data(), bytes.size());
    auto e = tptest::expect_error([&] { launch_vector_add(lib, x, y, out, 16, 1.0f); });
    CHECK(e.code() == errc::bad_container);
    CHECK(contains(e.what(), "launched with 256 threads per block (num_warps 4 x wavefront 64) but the compiled kernel allows 128"));
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
    hip_setup s("gfx90a", 50221153, 0);
    auto e = tptest::expect_error([] { get_backend(); });
    CHECK(e.code() == errc::no_device);
    CHECK(contains(e.what(), "reports no AMD GPU"));
    CHECK(contains(e.what(), "too old"));
  }
  {
    hip_setup s;
    env_guard old("TRITONPACK_HIP_LIBRARY", TP_FAKE_HIP_OLD_PATH);
    tritonpack::testing::reset_backend();
    auto e = tptest::expect_error([] { get_backend(); });
    CHECK(e.code() == errc::no_driver);
    CHECK(contains(e.what(), "lacks required entry points: hipModuleLaunchKernel"));
  }
}

TEST_CASE("TRITONPACK_BACKEND unset: NVIDIA first, then HIP; both diagnoses when neither has a GPU") {
  tptest::setup("none");  // the CUDA fake: a driver without GPUs
  {
    hip_setup s("gfx942:sramecc+:xnack-", 70125424, 1, "", "r0600", nullptr);
    CHECK(get_backend().kind() == backend_kind::hip);
  }
  {
    hip_setup s("gfx942:sramecc+:xnack-", 70125424, 0, "", "r0600", nullptr);
    auto e = tptest::expect_error([] { get_backend(); });
    CHECK(e.code() == errc::no_device);  // the NVIDIA diagnosis's code
    CHECK(contains(e.what(), "the NVIDIA driver is installed"));
    CHECK(contains(e.what(), "\n  AMD: the AMD HIP runtime is installed"));
  }
  tptest::setup("sm_90");
  {
    hip_setup s("gfx942:sramecc+:xnack-", 70125424, 1, "", "r0600", nullptr);
    CHECK(get_backend().kind() == backend_kind::cuda);
  }
}

TEST_CASE("HIP: the memory and device API, and launches on the thread's device") {
  hip_setup s("gfx942:sramecc+:xnack-", 70125424, 2);
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
    CHECK(last_launch().device == 1);  // the module was loaded on device 1 too (the fake checks)
  }
  CHECK(fake_hip::get().live_allocations() == 0);
  set_device(0);
}

TEST_CASE("Debian's real libamdhip64 5.2.3 (no AMD GPU here): loaded and diagnosed, never a crash") {
  const char* debian = "/usr/lib/x86_64-linux-gnu/libamdhip64.so.5";
  if (access(debian, R_OK) != 0) {
    FAIL_CHECK("libamdhip64-5 is not installed: run scripts/setup.sh (it installs the test packages)");
    return;
  }
  // In a child process that ends with _exit: the real runtime maps libhsa-runtime64 and friends
  // into the process, and their never-freed init state is not this test's to judge (LeakSanitizer).
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    unsetenv("TRITONPACK_HIP_LIBRARY");  // the system search, as in production
    setenv("TRITONPACK_BACKEND", "hip", 1);
    tritonpack::testing::reset_backend();
    std::string out;
    try {
      get_backend();
      out = "no error";
    } catch (const error& e) {
      out = std::string(errc_name(e.code())) + "|" + e.what() + "|" + std::to_string(device_count());
    }
    const ssize_t w = write(fds[1], out.data(), out.size());
    _exit(w == static_cast<ssize_t>(out.size()) ? 0 : 1);
  }
  close(fds[1]);
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status));
  CAPTURE(got);
  CHECK(got.rfind("no_device|", 0) == 0);
  CHECK(contains(got, "the AMD HIP runtime is installed (libamdhip64.so"));
  CHECK(contains(got, "HIP 5.2.21153) but reports no AMD GPU"));
  CHECK(contains(got, "hipGetDeviceCount: hipErrorNoDevice (100)"));
  CHECK(contains(got, "too old for Triton 3.6's code objects"));
  CHECK(got.substr(got.size() - 2) == "|0");  // device_count() is 0, not an exception
}

namespace {
// The .amdhsa.kernels facts of one code object, read with llvm-readelf --notes (LLVM prints the
// msgpack note as YAML; the base image has llvm-14).
struct hsaco_kernel {
  std::vector<std::uint32_t> offsets, sizes;
  std::vector<std::string> kinds;
  long kernarg_size = -1, wavefront = -1, max_workgroup = -1;
  std::string name;
};

const char* readelf_tool() {
  for (const char* t : {"/usr/bin/llvm-readelf-14", "/usr/bin/llvm-readelf-19", "/usr/bin/llvm-readelf"})
    if (access(t, X_OK) == 0) return t;
  return nullptr;
}

hsaco_kernel read_hsaco_metadata(const std::vector<std::uint8_t>& image) {
  const std::string dir = tptest::make_temp_dir("tp-hsaco");
  const std::string path = dir + "/k.hsaco";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(image.data()), static_cast<std::streamsize>(image.size()));
  const std::string cmd = std::string(readelf_tool()) + " --notes " + path;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p);
  std::string yaml;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) yaml.append(buf, n);
  pclose(p);
  tptest::remove_tree(dir);
  hsaco_kernel k;
  std::istringstream in(yaml);
  std::string line;
  auto value = [](const std::string& l) { return l.substr(l.find(':') + 1); };
  while (std::getline(in, line)) {
    const auto key = line.find_first_not_of(" -");
    if (key == std::string::npos) continue;
    const std::string t = line.substr(key);
    if (t.rfind(".offset:", 0) == 0) k.offsets.push_back(static_cast<std::uint32_t>(std::stoul(value(t))));
    else if (t.rfind(".size:", 0) == 0) k.sizes.push_back(static_cast<std::uint32_t>(std::stoul(value(t))));
    else if (t.rfind(".value_kind:", 0) == 0) k.kinds.push_back(value(t).substr(value(t).find_first_not_of(' ')));
    else if (t.rfind(".kernarg_segment_size:", 0) == 0) k.kernarg_size = std::stol(value(t));
    else if (t.rfind(".wavefront_size:", 0) == 0) k.wavefront = std::stol(value(t));
    else if (t.rfind(".max_flat_workgroup_size:", 0) == 0) k.max_workgroup = std::stol(value(t));
    else if (t.rfind(".name:", 0) == 0) k.name = value(t).substr(value(t).find_first_not_of(' '));
  }
  return k;
}
}  // namespace

TEST_CASE("HIP: every code object in tests/data takes exactly the kernargs the run time passes (its .amdhsa.kernels note)") {
  if (!readelf_tool()) {
    FAIL_CHECK("no llvm-readelf (package llvm-14) to read the code objects' metadata notes");
    return;
  }
  const auto& bytes = tptest::fixture_container();
  const container c = container::parse(bytes.data(), bytes.size());
  const container_info& info = c.info();
  int checked = 0;
  for (std::size_t ki = 0; ki < info.kernels.size(); ++ki) {
    const kernel_info& k = c.kernel(ki);
    for (const variant_info& v : k.variants)
      for (std::uint32_t idx : v.images) {
        const image_info& im = info.images[idx];
        if (im.backend != backend_kind::hip || im.kind != image_kind::hsaco) continue;
        CAPTURE(k.name);
        CAPTURE(im.arch);
        const hsaco_kernel meta = read_hsaco_metadata(c.decode_image(idx));
        const param_plan plan = build_param_plan(k, v, im.launch);
        const hip::kernarg_layout layout = hip::layout_kernargs(plan.param_sizes);
        CHECK(meta.name == im.launch.entry);
        REQUIRE(meta.sizes.size() == meta.offsets.size());
        REQUIRE(meta.kinds.size() == meta.offsets.size());
        // Explicit arguments only: hidden_* ones are the runtime's to fill (hip-abi.md §4.2).
        std::vector<std::uint32_t> offsets, sizes;
        for (std::size_t i = 0; i < meta.kinds.size(); ++i)
          if (meta.kinds[i].rfind("hidden_", 0) != 0) offsets.push_back(meta.offsets[i]), sizes.push_back(meta.sizes[i]);
        CHECK(sizes == plan.param_sizes);
        CHECK(offsets == layout.offsets);
        REQUIRE(meta.kinds.size() >= 2);
        CHECK(meta.kinds[sizes.size() - 1] == "global_buffer");  // profile scratch
        CHECK(meta.kinds[sizes.size() - 2] == "global_buffer");  // global scratch
        CHECK(meta.kernarg_size >= static_cast<long>(layout.size));
        if (sizes.size() == meta.kinds.size()) CHECK(meta.kernarg_size == static_cast<long>(layout.size));
        std::string why;
        const std::uint32_t block = hip::block_size(im.launch, *parse_amd_arch(im.arch), why);
        CHECK(meta.wavefront == static_cast<long>(im.launch.warp_size));
        CHECK(meta.max_workgroup >= static_cast<long>(block));
        ++checked;
      }
  }
  CHECK(checked >= 12);
}

TEST_CASE("TRITONPACK_LOG=1 says which backend was chosen and why (child process)") {
  if (!std::getenv("TP_HIPLOG_CHILD")) {
    const auto child = tptest::run_self("TP_HIPLOG_CHILD=1 TRITONPACK_LOG=1", "*says which backend was chosen*");
    const std::string& out = child.output;
    CAPTURE(out);
    CHECK(child.status == 0);
    CHECK(contains(out, "tritonpack: backend: CUDA unusable (the NVIDIA driver is installed"));
    CHECK(contains(out, "); trying HIP\n"));
    CHECK(contains(out, "tritonpack: HIP runtime " TP_FAKE_HIP_PATH ", HIP 7.1.25424, 1 device(s)\n"));
    CHECK(contains(out, "tritonpack: backend: HIP (HIP runtime " TP_FAKE_HIP_PATH " (HIP 7.1.25424)), no usable NVIDIA GPU\n"));
    CHECK(contains(out, "kernargs 48 bytes"));  // the load's line: block, LDS and the kernarg segment
    return;
  }
  tptest::setup("none");
  hip_setup s("gfx942:sramecc+:xnack-", 70125424, 1, "", "r0600", nullptr);
  const auto& bytes = tptest::fixture_container();
  library lib(bytes.data(), bytes.size());
  alignas(16) float x[16], y[16], out[16];
  launch_vector_add(lib, x, y, out, 16, 1.0f);
  CHECK(get_backend().kind() == backend_kind::hip);
}
