// A container_info with every kind of field set to a non-default value, and image bytes of the
// sizes the format's edge cases care about. Shared by the container tests, the golden generator
// and the fuzz seed corpus so they all exercise the same shapes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tritonpack/core/model.hpp"

namespace tp_test {

inline std::vector<std::uint8_t> pattern_bytes(std::size_t n, std::uint32_t seed) {
  // Deterministic, compressible-but-not-trivial content (a repeating ELF-like header followed by
  // an LCG stream), so frames really go through zstd.
  std::vector<std::uint8_t> v(n);
  std::uint32_t x = seed * 2654435761u + 1;
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 64 < 16) {
      v[i] = static_cast<std::uint8_t>("\x7f" "ELF\x02\x01\x01\x33\x07\x00\x00\x00\x00\x00\x00\x00"[i % 16]);
    } else {
      x = x * 1664525u + 1013904223u;
      v[i] = static_cast<std::uint8_t>((x >> 24) % 8);
    }
  }
  return v;
}

inline tritonpack::launch_info launch(const std::string& entry, std::uint32_t warp_size) {
  tritonpack::launch_info L;
  L.entry = entry;
  L.num_warps = 8;
  L.warp_size = warp_size;
  L.shared = 65536;
  L.num_ctas = 1;
  L.triton_version = "3.6.0";
  return L;
}

// Two kernels: `vector_add` (two variants, cuda cubins + PTX + a hip code object) and `matmul`
// (two configs of one specialisation with a tuning table, a tensor descriptor, scratch,
// cooperative + PDL, no grid expression).
inline tritonpack::container_info sample_info() {
  using namespace tritonpack;
  container_info c;
  c.name = "sample";
  c.triton_version = "3.6.0";
  c.triton_commit = "0123456789abcdef0123456789abcdef01234567";  // format v3

  auto image = [&](backend_kind b, image_kind k, const char* arch, std::uint32_t ptx, launch_info L) {
    image_info im;
    im.backend = b;
    im.kind = k;
    im.arch = arch;
    im.ptx_version = ptx;
    im.launch = std::move(L);
    c.images.push_back(im);
    return static_cast<std::uint32_t>(c.images.size() - 1);
  };

  kernel_info va;
  va.name = "vector_add";
  va.source = "kernels.py:vector_add";
  va.args = {{"x", "*fp32", true}, {"y", "*fp32", true}, {"out", "*fp32", false}, {"n", "i32", false}, {"alpha", "fp32", false}};
  va.grid = {"cdiv(n, BLOCK)", "1", "1"};
  variant_info v0;
  v0.specs = {{spec_kind::divisible_16, ""}, {spec_kind::divisible_16, ""}, {spec_kind::divisible_16, ""},
              {spec_kind::divisible_16, ""}, {spec_kind::none, ""}};
  v0.config.num_warps = 4;
  v0.config.num_stages = 3;
  v0.config.constexprs = {{"BLOCK", "1024"}};
  v0.images.push_back(image(backend_kind::cuda, image_kind::cubin, "sm_90a", 0, launch("vector_add", 32)));
  v0.images.push_back(image(backend_kind::cuda, image_kind::cubin, "sm_80", 0, launch("vector_add", 32)));
  v0.images.push_back(image(backend_kind::cuda, image_kind::ptx, "sm_80", 87, launch("vector_add", 32)));
  v0.images.push_back(image(backend_kind::hip, image_kind::hsaco, "gfx942", 0, launch("vector_add", 64)));
  // What built the binaries (format v3): the sm_80 cubin's ptxas is not recorded.
  c.images[v0.images[0]].tool_version = "12.8.93";
  c.images[v0.images[3]].tool_version = "22.0.0 (f6ded0be897e2878612dd903f7e8bb85448269e5)";
  variant_info v1;
  v1.specs = {{spec_kind::none, ""}, {spec_kind::none, ""}, {spec_kind::none, ""}, {spec_kind::equal_1, ""}, {spec_kind::none, ""}};
  v1.config.num_warps = 2;
  v1.config.num_stages = 1;
  v1.config.constexprs = {{"BLOCK", "256"}, {"DTYPE", "tl.float16"}};
  v1.images.push_back(image(backend_kind::cuda, image_kind::ptx, "sm_80", 87, launch("vector_add_1", 32)));
  va.variants = {v0, v1};
  c.kernels.push_back(va);

  kernel_info mm;
  mm.name = "matmul";
  mm.source = "kernels.py:matmul";
  mm.args = {{"a", "tensordesc<fp16[64,64]>", true}, {"c", "*fp16", false}, {"M", "i32", false}, {"K", "i64", false}};
  variant_info m0;
  m0.specs = {{spec_kind::none, ""}, {spec_kind::divisible_16, ""}, {spec_kind::none, ""}, {spec_kind::constexpr_value, "4096"}};
  m0.config.num_warps = 8;
  m0.config.num_stages = 4;
  m0.config.num_ctas = 2;
  launch_info L = launch("matmul_kernel", 32);
  L.num_ctas = 2;
  L.tmem_size = 128;
  L.global_scratch_size = 128;
  L.global_scratch_align = 128;
  L.profile_scratch_size = 0;
  L.profile_scratch_align = 1;
  L.launch_cooperative_grid = true;
  L.launch_pdl = true;
  tensordesc_meta t;
  t.swizzle = 3;
  t.elem_size = 2;
  t.elem_type = 6;
  t.block_size = {64, 64};
  L.tensordesc = {t};
  m0.images.push_back(image(backend_kind::cuda, image_kind::cubin, "sm_100a", 0, L));
  c.images[m0.images[0]].tool_version = "12.9.86";
  launch_info H = launch("matmul_kernel", 64);
  m0.images.push_back(image(backend_kind::hip, image_kind::llir, "gfx90a:xnack-", 0, H));
  // A second config of the same specialisation, tuned (format v2): key M in power-of-two
  // buckets, `c` zeroed around trial runs, a packed table with a row per GPU name and per arch.
  variant_info m1 = m0;
  m1.config.num_warps = 4;
  mm.variants = {m0, m1};
  mm.tuning.config_count = 2;
  mm.tuning.on_first_use = true;
  mm.tuning.args = {{2, tune_role::key, bucket_rule::pow2, ""}, {1, tune_role::reset_to_zero, bucket_rule::exact, "M * 2"}};
  mm.tuning.table = {{"NVIDIA H200", {1024}, 1, {2000, 1500}}, {"sm_90", {64}, 0, {100, ~std::uint64_t{0}}}};
  c.kernels.push_back(mm);
  return c;
}

// Bytes for sample_info()'s images: sizes 0, 1, 7, 8, 9 bytes and two larger ones.
inline std::vector<std::vector<std::uint8_t>> sample_images() {
  const std::size_t sizes[] = {4096, 0, 1, 7, 8, 9, 20000};
  std::vector<std::vector<std::uint8_t>> v;
  for (std::size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) v.push_back(pattern_bytes(sizes[i], static_cast<std::uint32_t>(i)));
  return v;
}

// 40 small kernels of similar, pattern-filled images: enough like each other that a trained zstd
// dictionary is used (the round trip with a dictionary and the dictionary-flag damage test).
struct dictionary_sample {
  tritonpack::container_info info;
  std::vector<std::vector<std::uint8_t>> images;
};

inline dictionary_sample make_dictionary_sample(const std::string& name) {
  using namespace tritonpack;
  dictionary_sample out;
  out.info.name = name;
  out.info.triton_version = "3.6.0";
  for (int k = 0; k < 40; ++k) {
    kernel_info ki;
    ki.name = "k" + std::to_string(k);
    ki.args = {{"x", "*fp32", false}};
    variant_info v;
    v.specs = {{spec_kind::none, ""}};
    image_info im;
    im.arch = "sm_80";
    im.launch = launch("k", 32);
    out.info.images.push_back(im);
    v.images = {static_cast<std::uint32_t>(out.info.images.size() - 1)};
    ki.variants = {v};
    out.info.kernels.push_back(ki);
    out.images.push_back(pattern_bytes(3000 + 17 * k, 1000 + k));
  }
  return out;
}

}  // namespace tp_test
