// GPU tests of the run time (ctest label `gpu`; run on an NVIDIA GPU, written for the H200).
// Every kernel of kernels.py is launched through the generated typed function and through the
// dynamic API, on random inputs, with outputs poisoned first, and compared with a CPU reference.
// The same binary runs three times under ctest: as is (cubins), with TRITONPACK_FORCE_IR=1 (PTX
// JIT) and with TRITONPACK_FORCE_IMAGE=ptx:sm_80 (the generic sm_80 PTX JIT-compiled on the H200,
// with the decomposed tensor-descriptor calling convention); each test checks that the image it
// ran is the one that mode must pick.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gpu_kernels.hpp"
#include "gpu_util.hpp"

using tritonpack::half;
using tritonpack::bfloat16;
using tritonpack::image_kind;

namespace {

bool force_ir() { return tritonpack::env::flag("TRITONPACK_FORCE_IR"); }
std::string forced_image() { return tritonpack::env::get("TRITONPACK_FORCE_IMAGE"); }

// The image a kernel's variant ran must be a cubin normally, PTX when the IR path is forced, and
// exactly the forced one under TRITONPACK_FORCE_IMAGE.
void expect_path(const char* kernel, std::size_t variant = 0) {
  const auto& im = gpu_kernels::library().get(kernel).loaded_image(variant);
  CAPTURE(kernel);
  if (!forced_image().empty())
    CHECK(std::string(tritonpack::image_kind_name(im.kind)) + ":" + im.arch == forced_image());
  else
    CHECK(im.kind == (force_ir() ? image_kind::ptx : image_kind::cubin));
  MESSAGE((std::string(kernel) + " v" + std::to_string(variant) + ": " + tritonpack::image_kind_name(im.kind) + " " + im.arch));
}

// True (with a message saying so, never silently) when TRITONPACK_FORCE_IMAGE names an image this
// kernel was not compiled to (cluster_scale and tma_copy target sm_90 only).
bool lacks_forced_image(const char* kernel) {
  if (forced_image().empty()) return false;
  auto& lib = gpu_kernels::library();
  for (const auto& v : lib.get(kernel).info().variants)
    for (std::uint32_t i : v.images) {
      const auto& im = lib.info().images[i];
      if (std::string(tritonpack::image_kind_name(im.kind)) + ":" + im.arch == forced_image()) return false;
    }
  MESSAGE((std::string(kernel) + ": not run under TRITONPACK_FORCE_IMAGE=" + forced_image() + ", which it has no image for"));
  return true;
}

// True (with a message saying so) when the IR path is forced and every PTX of `kernel` has an ISA
// newer than this driver can JIT-compile: cluster_scale targets sm_90 only, and its PTX from Triton
// 3.9 (ISA 9.4) needs a newer driver than CUDA 13.0's. The run time refuses such a load with that
// reason (tests/runtime/test_selection.cpp, "PTX ISA against the driver"); here there is then
// nothing to launch. An unknown driver version filters nothing, as selection does.
bool lacks_jittable_ptx(const char* kernel) {
  if (!force_ir()) return false;
  auto& lib = gpu_kernels::library();
  const std::uint32_t max_isa = tritonpack::max_ptx_isa_for_driver(lib.current_device().driver_version);
  if (max_isa == 0) return false;
  std::uint32_t lowest = 0;
  for (const auto& v : lib.get(kernel).info().variants)
    for (std::uint32_t i : v.images) {
      const auto& im = lib.info().images[i];
      if (im.kind != image_kind::ptx) continue;
      if (im.ptx_version <= max_isa) return false;
      if (lowest == 0 || im.ptx_version < lowest) lowest = im.ptx_version;
    }
  if (lowest == 0) return false;  // no PTX at all: the test runs, and fails saying so
  MESSAGE((std::string(kernel) + ": not run with the IR path forced: its PTX needs ISA " + tritonpack::ptx_isa_string(lowest) +
           ", and this driver JIT-compiles up to ISA " + tritonpack::ptx_isa_string(max_isa)));
  return true;
}

template <class T>
void check_close(const std::vector<T>& got, const std::vector<double>& want, double rtol, double atol, const char* what) {
  REQUIRE(got.size() == want.size());
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = static_cast<double>(got[i]);
    const bool ok = std::isfinite(g) && std::fabs(g - want[i]) <= atol + rtol * std::fabs(want[i]);
    if (!ok && bad++ == 0) first = i;
  }
  CHECK_MESSAGE(bad == 0, std::string(what) << ": " << bad << " of " << got.size() << " wrong; first at " << first << ": got "
                               << static_cast<double>(got[first]) << ", want " << want[first]);
}

std::vector<float> to_float(const std::vector<half>& v) {
  std::vector<float> f(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) f[i] = static_cast<float>(v[i]);
  return f;
}

}  // namespace

TEST_CASE("device and library") {
  const auto& dev = gpu_kernels::library().current_device();
  MESSAGE(("running on " + dev.describe() + ", " + tritonpack::get_backend().describe() +
           (force_ir() ? ", IR path forced" : "")));
  CHECK(dev.arch.rfind("sm_", 0) == 0);
  CHECK(gpu_kernels::library().size() == 8);
}

TEST_CASE("vector_add with an fp32 scalar: typed (both variants) and dynamic") {
  tpgpu::rng r(1);
  const int n = 1000003;  // not a multiple of BLOCK
  tpgpu::buffer<float> x(n + 4), y(n + 4), out(n + 4);
  auto hx = r.vec(n + 4), hy = r.vec(n + 4);
  x.upload(hx);
  y.upload(hy);
  const float alpha = 0.37f;
  auto ref = [&](int off) {
    std::vector<double> w(n + 4);
    for (int i = 0; i < n + 4; ++i) w[i] = i < off || i >= off + n ? std::nan("") : hx[i] + alpha * double(hy[i]);
    return w;
  };
  auto check_range = [&](int off, const char* what) {
    auto got = out.download();
    auto want = ref(off);
    std::vector<float> g(got.begin() + off, got.begin() + off + n);
    std::vector<double> w(want.begin() + off, want.begin() + off + n);
    check_close(g, w, 1e-6, 1e-6, what);
    // Nothing written outside [off, off + n).
    for (int i = 0; i < off; ++i) CHECK(std::isnan(got[i]));
    for (int i = off + n; i < n + 4; ++i) CHECK(std::isnan(got[i]));
  };

  out.poison();
  gpu_kernels::vector_add(x.get(), y.get(), out.get(), n, alpha);
  tpgpu::sync();
  check_range(0, "typed, aligned (variant 0)");
  expect_path("vector_add", 0);

  out.poison();
  gpu_kernels::vector_add(x.get() + 1, y.get() + 1, out.get() + 1, n, alpha);  // misaligned: variant 1
  tpgpu::sync();
  check_range(1, "typed, misaligned (variant 1)");
  expect_path("vector_add", 1);

  out.poison();
  auto& k = gpu_kernels::library().get("vector_add");
  k.launch(nullptr, {static_cast<std::uint32_t>((n + 1023) / 1024), 1, 1}, static_cast<const float*>(x.get()),
           static_cast<const float*>(y.get()), out.get(), std::int32_t{n}, alpha);
  tpgpu::sync();
  check_range(0, "dynamic");

  // A zero-size launch is a no-op.
  out.poison();
  gpu_kernels::vector_add(x.get(), y.get(), out.get(), 0, alpha);
  tpgpu::sync();
  for (float v : out.download()) REQUIRE(std::isnan(v));
}

TEST_CASE("softmax: caller-given grid, strided rows") {
  tpgpu::rng r(2);
  const int rows = 513, cols = 781, in_stride = 800, out_stride = 784;
  tpgpu::buffer<float> in(rows * in_stride), out(rows * out_stride);
  auto hin = r.vec(rows * in_stride, -4, 4);
  in.upload(hin);
  std::vector<double> want(rows * cols);
  for (int i = 0; i < rows; ++i) {
    double m = -1e30, s = 0;
    for (int j = 0; j < cols; ++j) m = std::max(m, double(hin[i * in_stride + j]));
    for (int j = 0; j < cols; ++j) s += std::exp(hin[i * in_stride + j] - m);
    for (int j = 0; j < cols; ++j) want[i * cols + j] = std::exp(hin[i * in_stride + j] - m) / s;
  }
  for (int pass = 0; pass < 2; ++pass) {
    out.poison();
    if (pass == 0)
      gpu_kernels::softmax({rows, 1, 1}, out.get(), in.get(), in_stride, out_stride, cols);
    else
      gpu_kernels::library().get("softmax").launch(nullptr, {rows, 1, 1}, out.get(), static_cast<const float*>(in.get()),
                                                   std::int32_t{in_stride}, std::int32_t{out_stride}, std::int32_t{cols});
    tpgpu::sync();
    auto got = out.download();
    std::vector<float> g(rows * cols);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) g[i * cols + j] = got[i * out_stride + j];
    check_close(g, want, 1e-5, 1e-7, pass ? "dynamic" : "typed");
  }
  expect_path("softmax");
}

TEST_CASE("fp16 matmul with more than 48 KB of shared memory (256×256×64, 2 stages, 8 warps)") {
  const auto& info = gpu_kernels::library().get("matmul").info();
  tpgpu::rng r(3);
  // K = 336 is not a multiple of BLOCK_K (64): the last K block is partial. C has 16 padding
  // columns per row (ldc = N + 16) that the kernel must leave as they were.
  const int M = 640, N = 384, K = 336, ldc = N + 16;
  std::vector<half> ha(M * K), hb(K * N);
  for (auto& v : ha) v = half(r.uniform(-1, 1));
  for (auto& v : hb) v = half(r.uniform(-1, 1));
  tpgpu::buffer<half> a(M * K), b(K * N), c(M * ldc);
  a.upload(ha);
  b.upload(hb);
  const auto fa = to_float(ha), fb = to_float(hb);
  std::vector<double> want(M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0;
      for (int k = 0; k < K; ++k) s += double(fa[i * K + k]) * fb[k * N + j];
      want[i * N + j] = s;
    }
  for (int pass = 0; pass < 2; ++pass) {
    c.poison();
    if (pass == 0)
      gpu_kernels::matmul(a.get(), b.get(), c.get(), M, N, K, K, N, ldc);
    else
      gpu_kernels::library().get("matmul").launch(nullptr, {(M + 255) / 256, (N + 255) / 256, 1},
                                                  static_cast<const half*>(a.get()), static_cast<const half*>(b.get()),
                                                  c.get(), std::int32_t{M}, std::int32_t{N}, std::int32_t{K},
                                                  std::int32_t{K}, std::int32_t{N}, std::int32_t{ldc});
    tpgpu::sync();
    const std::vector<float> got = to_float(c.download());
    std::vector<float> inside(M * N);
    std::size_t padding_written = 0;
    for (int i = 0; i < M; ++i) {
      for (int j = 0; j < N; ++j) inside[i * N + j] = got[i * ldc + j];
      for (int j = N; j < ldc; ++j) padding_written += !std::isnan(got[i * ldc + j]);  // poisoned: NaN
    }
    check_close(inside, want, 1e-2, 2e-2, pass ? "dynamic" : "typed");
    CHECK_MESSAGE(padding_written == 0, (pass ? "dynamic" : "typed") << ": " << padding_written << " padding elements written");
  }
  const auto& im = gpu_kernels::library().get("matmul").loaded_image(0);
  CHECK(im.launch.shared > 49152);
  MESSAGE(("matmul shared memory: " + std::to_string(im.launch.shared) + " bytes, " + std::to_string(info.variants[0].config.num_warps) + " warps"));
  expect_path("matmul");
}

TEST_CASE("scalars: i64, fp16, bf16, fp64, i1 arrive with the right bits") {
  tpgpu::buffer<std::int64_t> o64(1);
  tpgpu::buffer<float> o32(2);
  tpgpu::buffer<double> od(1);
  tpgpu::buffer<std::int32_t> oi(1);
  for (bool e : {true, false}) {
    for (int api = 0; api < 2; ++api) {
      o64.poison();
      o32.poison();
      od.poison();
      oi.poison();
      const std::int64_t a = -5000000000123LL;
      if (api == 0)
        gpu_kernels::scalars(o64.get(), o32.get(), od.get(), oi.get(), a, half(1.5f), bfloat16(-2.25f), 3.125, e);
      else
        gpu_kernels::library().get("scalars").launch(nullptr, {1, 1, 1}, o64.get(), o32.get(), od.get(), oi.get(), a,
                                                     half(1.5f), bfloat16(-2.25f), 3.125, e);
      tpgpu::sync();
      CAPTURE(e);
      CAPTURE(api);
      CHECK(o64.download()[0] == a + 1);
      CHECK(o32.download()[0] == 1.5f);
      CHECK(o32.download()[1] == -2.25f);
      CHECK(od.download()[0] == 6.25);
      CHECK(oi.download()[0] == (e ? 7 : 3));
    }
  }
  expect_path("scalars");
}

TEST_CASE("add2d: a 2-D grid") {
  tpgpu::rng r(4);
  const int M = 100, N = 200, stride = 208;
  tpgpu::buffer<float> x(M * stride), out(M * stride);
  auto hx = r.vec(M * stride);
  x.upload(hx);
  out.poison();
  gpu_kernels::add2d(x.get(), out.get(), M, N, stride);
  tpgpu::sync();
  auto got = out.download();
  std::vector<float> g;
  std::vector<double> w;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      g.push_back(got[i * stride + j]);
      w.push_back(hx[i * stride + j] + i * 1000.0 + j);
    }
  check_close(g, w, 1e-6, 1e-3, "add2d");
  for (int i = 0; i < M; ++i)
    for (int j = N; j < stride; ++j) REQUIRE(std::isnan(got[i * stride + j]));
  expect_path("add2d");
}

TEST_CASE("cluster_scale: num_ctas = 2 launches clusters") {
  if (lacks_forced_image("cluster_scale") || lacks_jittable_ptx("cluster_scale")) return;
  tpgpu::rng r(5);
  const int n = 100000;
  tpgpu::buffer<float> x(n), out(n);
  auto hx = r.vec(n);
  x.upload(hx);
  for (int api = 0; api < 2; ++api) {
    out.poison();
    if (api == 0)
      gpu_kernels::cluster_scale(x.get(), out.get(), n, -1.5f);
    else
      gpu_kernels::library().get("cluster_scale").launch(nullptr, {(n + 2047) / 2048, 1, 1},
                                                         static_cast<const float*>(x.get()), out.get(), std::int32_t{n}, -1.5f);
    tpgpu::sync();
    std::vector<double> w(n);
    for (int i = 0; i < n; ++i) w[i] = -1.5 * hx[i];
    check_close(out.download(), w, 1e-6, 1e-7, api ? "dynamic" : "typed");
  }
  CHECK(gpu_kernels::library().get("cluster_scale").loaded_image(0).launch.num_ctas == 2);
  expect_path("cluster_scale");
}

TEST_CASE("tma_copy: device-side tensor descriptors use global scratch") {
  if (lacks_forced_image("tma_copy")) return;
  tpgpu::rng r(6);
  const int M = 200, N = 192;
  tpgpu::buffer<float> in(M * N), out(M * N);
  auto hin = r.vec(M * N);
  in.upload(hin);
  out.poison();
  gpu_kernels::tma_copy(in.get(), out.get(), M, N);
  tpgpu::sync();
  std::vector<double> w(M * N);
  for (int i = 0; i < M * N; ++i) w[i] = 2.0 * hin[i] + 1.0;
  check_close(out.download(), w, 1e-6, 1e-6, "tma_copy");
  const auto& im = gpu_kernels::library().get("tma_copy").loaded_image(0);
  MESSAGE(("tma_copy global_scratch_size " + std::to_string(im.launch.global_scratch_size)));
  if (!force_ir() && forced_image().empty()) CHECK(im.launch.global_scratch_size > 0);
  expect_path("tma_copy");
}

TEST_CASE("desc_scale: a host-side tensor descriptor (CUtensorMap on sm_90)") {
  tpgpu::rng r(7);
  const int M = 130, N = 96;
  tpgpu::buffer<float> src(M * N), out(M * N);
  auto hs = r.vec(M * N);
  src.upload(hs);
  tritonpack::tensor_descriptor<float, 2> d;
  d.base = src.get();
  d.shape = {M, N};
  d.strides = {N, 1};
  std::vector<double> w(M * N);
  for (int i = 0; i < M * N; ++i) w[i] = 0.5 * hs[i];
  for (int api = 0; api < 2; ++api) {
    out.poison();
    if (api == 0)
      gpu_kernels::desc_scale(d, out.get(), M, N, 0.5f);
    else
      gpu_kernels::library().get("desc_scale").launch(nullptr, {(M + 63) / 64, (N + 63) / 64, 1}, d, out.get(),
                                                      std::int32_t{M}, std::int32_t{N}, 0.5f);
    tpgpu::sync();
    check_close(out.download(), w, 1e-6, 1e-7, api ? "dynamic" : "typed");
  }
  const auto& im = gpu_kernels::library().get("desc_scale").loaded_image(0);
  MESSAGE(("desc_scale tensordesc_meta entries: " + std::to_string(im.launch.tensordesc.size())));
  // The sm_80 image takes the descriptor decomposed (base, shapes, strides, padding), sm_90's as a
  // CUtensorMap (tensordesc metadata present): the forced run is the one that covers the first.
  if (forced_image() == "ptx:sm_80") CHECK(im.launch.tensordesc.empty());
  expect_path("desc_scale");
}

TEST_CASE("graph capture: typed launches (one needing global scratch) captured and replayed") {
  if (lacks_forced_image("tma_copy")) return;
  tpgpu::rng r(8);
  // Load first so capture only records launches (loading during capture works too, but a module
  // load is not a stream operation and belongs outside timed/captured regions). Only the two
  // captured kernels: library().preload() would also load cluster_scale, which has no image under
  // TRITONPACK_FORCE_IMAGE=ptx:sm_80 (the gpu_sm80_ptx run), and capture must run there too.
  gpu_kernels::library().get("vector_add").preload();
  gpu_kernels::library().get("tma_copy").preload();
  const int n = 50000, M = 128, N = 128;
  tpgpu::buffer<float> x(n), y(n), out(n), in2(M * N), out2(M * N);
  tpgpu::stream s;
  tpgpu::graph g(s.get());
  gpu_kernels::vector_add(x.get(), y.get(), out.get(), n, 2.0f, s.get());
  gpu_kernels::tma_copy(in2.get(), out2.get(), M, N, s.get());
  g.end();
  for (int rep = 0; rep < 2; ++rep) {
    auto hx = r.vec(n), hy = r.vec(n), hin = r.vec(M * N);
    x.upload(hx);
    y.upload(hy);
    in2.upload(hin);
    out.poison();
    out2.poison();
    g.launch();
    s.sync();
    std::vector<double> w(n), w2(M * N);
    for (int i = 0; i < n; ++i) w[i] = hx[i] + 2.0 * hy[i];
    for (int i = 0; i < M * N; ++i) w2[i] = 2.0 * hin[i] + 1.0;
    CAPTURE(rep);
    check_close(out.download(), w, 1e-6, 1e-6, "graph vector_add");
    check_close(out2.download(), w2, 1e-6, 1e-6, "graph tma_copy");
  }
}

TEST_CASE("argument errors are reported, not launched") {
  tpgpu::buffer<float> x(16);
  auto& k = gpu_kernels::library().get("vector_add");
  CHECK_THROWS_AS(k.launch(nullptr, {1, 1, 1}, x.get(), x.get(), x.get(), std::int32_t{16}, 1.0), tritonpack::error);
  CHECK_THROWS_AS(k.launch(nullptr, {1, 1, 1}, x.get()), tritonpack::error);
  CHECK_THROWS_AS(gpu_kernels::softmax({1, 1, 1}, x.get() + 1, x.get(), 1, 1, 1), tritonpack::error);
}

int main(int argc, char** argv) {
  doctest::Context ctx(argc, argv);
  try {
    gpu_kernels::library().current_device();
  } catch (const tritonpack::error& e) {
    std::fprintf(stderr, "GPU tests need a GPU: %s\n", e.what());
    return 1;
  }
  return ctx.run();
}
