// GPU test of the launch ABI of another Triton release: desc_scale as Triton 3.7.1 compiled it
// (tests/data/triton-3.7: PTX for sm_80 and sm_90a, docs/triton-abi.md §7). Two ctest entries run
// it: as is (the sm_90a PTX, the descriptor as a TMA map, whose data type round_f32_to_tf32 makes
// TF32) and with TRITONPACK_FORCE_IMAGE=ptx:sm_80 (the decomposed descriptor, round_f32_to_tf32 a
// kernel parameter after padding). Both with TRITONPACK_VERIFY_ABI=1.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "gpu_util.hpp"
#include "triton37.hpp"

namespace {
std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
}  // namespace

TEST_CASE("desc_scale from Triton 3.7: out = alpha * src; with round_f32_to_tf32 src is read as TF32") {
  tpgpu::rng r(37);
  const int M = 130, N = 96;
  tpgpu::buffer<float> src(M * N), out(M * N);
  const auto hs = r.vec(M * N);
  src.upload(hs);
  tritonpack::tensor_descriptor<float, 2> d;
  d.base = src.get();
  d.shape = {M, N};
  d.strides = {N, 1};
  for (const bool tf32 : {false, true}) {
    CAPTURE(tf32);
    d.round_f32_to_tf32 = tf32;
    out.poison();
    triton37::desc_scale(d, out.get(), M, N, 0.5f);
    tpgpu::sync();
    const auto got = out.download();
    std::size_t wrong = 0, low_bits = 0, first = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      const float want = 0.5f * hs[i];  // exact: a power of two
      // TF32 keeps 10 of fp32's 23 mantissa bits: the low 13 are zero, within 2^-10 relative.
      const bool ok = tf32 ? (bits_of(got[i]) & 0x1FFFu) == 0 && std::fabs(got[i] - want) <= std::fabs(want) * 0x1p-10f
                           : got[i] == want;
      low_bits += (bits_of(got[i]) & 0x1FFFu) != 0;
      if (!ok && wrong++ == 0) first = i;
    }
    CHECK_MESSAGE(wrong == 0, wrong << " of " << got.size() << " wrong, first at " << first << ": " << got[first] << " for "
                                    << 0.5f * hs[first]);
    if (!tf32) CHECK(low_bits > got.size() / 2);  // the input is not TF32 already
  }
  const auto& im = triton37::library().get("desc_scale").loaded_image(0);
  const std::string forced = tritonpack::env::get("TRITONPACK_FORCE_IMAGE");
  const std::string ran = std::string(tritonpack::image_kind_name(im.kind)) + ":" + im.arch;
  MESSAGE(("desc_scale ran " + ran + ", Triton " + im.launch.triton_version));
  CHECK(im.launch.triton_version == "3.7.1");
  CHECK(ran == (forced.empty() ? std::string("ptx:sm_90a") : forced));
  CHECK(im.launch.tensordesc.empty() == (ran == "ptx:sm_80"));
}

int main(int argc, char** argv) {
  doctest::Context ctx(argc, argv);
  try {
    triton37::library().current_device();
  } catch (const tritonpack::error& e) {
    std::fprintf(stderr, "GPU tests need a GPU: %s\n", e.what());
    return 1;
  }
  return ctx.run();
}
