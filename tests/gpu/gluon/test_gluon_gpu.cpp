// GPU test of a Gluon kernel (tests/gpu/gluon/kernels.py, @gluon.jit): compiled by the front end
// from a GluonASTSource, packed, and launched by the typed API like any kernel. Two ctest entries:
// as is (the sm_90a cubin on the H200) and with TRITONPACK_FORCE_IR=1 (the PTX through the JIT).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "gpu_gluon.hpp"
#include "gpu_util.hpp"

TEST_CASE("Gluon axpb: y = a x + b on random inputs, the tail masked, nothing written past n") {
  tpgpu::rng r(7);
  const int n = 100003;  // not a multiple of BLOCK (512)
  const int pad = 512;   // poisoned elements after n: a store past the mask shows as a number
  tpgpu::buffer<float> x(n + pad), y(n + pad);
  const std::vector<float> hx = r.vec(n + pad);
  x.upload(hx);
  y.poison();
  const float a = 1.75f, b = -0.5f;
  gpu_gluon::axpb(x.get(), y.get(), n, a, b);
  tpgpu::sync();
  const std::vector<float> got = y.download();
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    const float want = hx[i] * a + b;  // one multiply-add, as the kernel: within 1 ulp of either rounding
    if (!(std::fabs(got[i] - want) <= 2e-7f * std::fabs(want) + 1e-7f)) ++wrong;
  }
  CHECK(wrong == 0);
  int written_past = 0;
  for (int i = n; i < n + pad; ++i) written_past += std::isnan(got[i]) ? 0 : 1;
  CHECK(written_past == 0);
  // The library says it was built from a Gluon kernel's images like any other.
  const auto& info = gpu_gluon::library().info();
  REQUIRE(info.kernels.size() == 1);
  CHECK(info.kernels[0].name == "axpb");
}

int main(int argc, char** argv) {
  doctest::Context ctx(argc, argv);
  try {
    gpu_gluon::library().current_device();
  } catch (const tritonpack::error& e) {
    std::fprintf(stderr, "GPU tests need a GPU: %s\n", e.what());
    return 1;
  }
  return ctx.run();
}
