// tensor4_configs_table.hpp — the compiled configurations of tensor4_configs.toml: one row per
// `contract` [[kernel]] there, in the same order (keep the two in step when adding one), and the
// tuned `gemm`, `half_transform` and `permute4` functions.
#pragma once

#include <tensor4_configs.hpp>

#include "permute_plan.hpp"
#include "triton_ao2mo.hpp"
#include "triton_mp2.hpp"

namespace tensor4 {

struct contract_config {
  const char* name;  // tile m x n x k, warps, stages
  bool tf32;         // dot precision: TF32 tensor cores, else FP32 (ieee)
  void (*fn)(const float*, const float*, float*, const ao2mo::contraction&, tritonpack::stream_t);
};

inline const contract_config contract_configs[] = {
    {"m64n64k32w4s3", false, [](const float* a, const float* b, float* out, const ao2mo::contraction& c, tritonpack::stream_t s) { ao2mo::launch_contract(&tensor4_configs::contract_fp32_m64n64k32w4s3, c, a, b, out, s); }},
    {"m128n64k16w8s3", false, [](const float* a, const float* b, float* out, const ao2mo::contraction& c, tritonpack::stream_t s) { ao2mo::launch_contract(&tensor4_configs::contract_fp32_m128n64k16w8s3, c, a, b, out, s); }},
    {"m128n128k16w8s2", false, [](const float* a, const float* b, float* out, const ao2mo::contraction& c, tritonpack::stream_t s) { ao2mo::launch_contract(&tensor4_configs::contract_fp32_m128n128k16w8s2, c, a, b, out, s); }},
    {"m64n128k32w4s3", false, [](const float* a, const float* b, float* out, const ao2mo::contraction& c, tritonpack::stream_t s) { ao2mo::launch_contract(&tensor4_configs::contract_fp32_m64n128k32w4s3, c, a, b, out, s); }},
    {"m128n128k32w8s3", true, [](const float* a, const float* b, float* out, const ao2mo::contraction& c, tritonpack::stream_t s) { ao2mo::launch_contract(&tensor4_configs::contract_tf32_m128n128k32w8s3, c, a, b, out, s); }},
    {"m128n64k32w4s4", true, [](const float* a, const float* b, float* out, const ao2mo::contraction& c, tritonpack::stream_t s) { ao2mo::launch_contract(&tensor4_configs::contract_tf32_m128n64k32w4s4, c, a, b, out, s); }},
    {"m64n128k32w4s4", true, [](const float* a, const float* b, float* out, const ao2mo::contraction& c, tritonpack::stream_t s) { ao2mo::launch_contract(&tensor4_configs::contract_tf32_m64n128k32w4s4, c, a, b, out, s); }},
    {"m128n256k32w8s3", true, [](const float* a, const float* b, float* out, const ao2mo::contraction& c, tritonpack::stream_t s) { ao2mo::launch_contract(&tensor4_configs::contract_tf32_m128n256k32w8s3, c, a, b, out, s); }},
};

// `gemm` with several configs, tuned on the GPU at the first call of each (M, N, K) bucket.
inline void gemm_tuned(bool tf32, const ao2mo::batched_gemm& g, const float* a, const float* b, float* out, tritonpack::stream_t s) {
  ao2mo::launch_gemm(tf32 ? &tensor4_configs::gemm_tf32_tuned : &tensor4_configs::gemm_fp32_tuned, g, a, b, out, s, "tensor4 gemm");
}

// A 4-D permute in Triton (the Triton TTGT's transposes), tuned at the first call of each shape
// bucket: permute_plan.hpp's call, on the kernel it chose (the 8-aligned ones only for values it
// checked are multiples of 8).
inline void permute4_triton(const float* in, float* out, const permute4_shape& shape, tritonpack::stream_t s) {
  namespace k = tensor4_configs;
  const permute4_call c = permute4_call_for(shape);
  auto fn = c.which == permute4_call::kernel::tuned       ? &k::permute4_tuned
            : c.which == permute4_call::kernel::a8_unit_r ? &k::permute4_a8_unit_r_tuned
                                                          : &k::permute4_a8_unit_c_tuned;
  using ao2mo::i32;  // permute4_call_for checked that every offset fits 32 bits
  fn(in, out, i32(c.P), i32(c.Q), i32(c.R), i32(c.C), i32(c.si_p), i32(c.si_q), i32(c.si_r), i32(c.si_c), i32(c.so_p), i32(c.so_q),
     i32(c.so_r), s);
}

// half_transform for N = 64, 96, 128, 160 (N a multiple of 16), two configs each, tuned at the first call.
inline ao2mo::half_kernels<float> tuned_half_kernels(bool tf32) {
  namespace k = tensor4_configs;
  if (tf32) return {&k::half_transform_tf32_r64_tuned, &k::half_transform_tf32_r96_tuned, &k::half_transform_tf32_r128_tuned, &k::half_transform_tf32_r160_tuned};
  return {&k::half_transform_fp32_r64_tuned, &k::half_transform_fp32_r96_tuned, &k::half_transform_fp32_r128_tuned, &k::half_transform_fp32_r160_tuned};
}

// pair_transform (the fused transformation's second design) for N = 64, 96, 128, 160, TF32 only
// (FP32 has no `pair*` kernels: an empty set, which covers no N).
inline ao2mo::pair_kernels<float> tuned_pair_kernels(bool tf32) {
  namespace k = tensor4_configs;
  if (!tf32) return {};
  return {{{64, &k::pair1_tf32_r64, &k::pair2_tf32_r64},
           {96, &k::pair1_tf32_r96, &k::pair2_tf32_r96},
           {128, &k::pair1_tf32_r128, &k::pair2_tf32_r128},
           {160, &k::pair1_tf32_r160, &k::pair2_tf32_r160}}};
}

// mp2_fused covering v virtual orbitals (64 or 128 kept on chip), tuned at the first call; f is
// nullptr (cover() false) where v > 128.
inline ao2mo::mp2_fused_kernel tuned_mp2_fused(bool tf32, std::int64_t v) {
  namespace k = tensor4_configs;
  if (v <= 64) return {tf32 ? &k::mp2_fused_tf32_v64_tuned : &k::mp2_fused_fp32_v64_tuned, 64};
  return {v <= 128 ? (tf32 ? &k::mp2_fused_tf32_v128_tuned : &k::mp2_fused_fp32_v128_tuned) : nullptr, 128};
}

// ladder_update's configs (tensor4_configs.toml, the fusion case): the tile decides how many FP64
// partial norms the launch writes (programs = cdiv(M, block_m) * cdiv(N, block_n)).
using ladder_fn = void (*)(const float*, const float*, const float*, float*, const float*, const float*, double*, tritonpack::arg_i32,
                          tritonpack::arg_i32, tritonpack::arg_i32, tritonpack::stream_t);
struct ladder_config {
  const char* name;
  bool tf32;
  std::int64_t block_m, block_n;
  ladder_fn fn;
  std::int64_t programs(std::int64_t m, std::int64_t n) const { return ((m + block_m - 1) / block_m) * ((n + block_n - 1) / block_n); }
};

inline const ladder_config ladder_configs[] = {
    {"m64n128k32w4s3", false, 64, 128, &tensor4_configs::ladder_update_fp32_m64n128k32w4s3},
    {"m64n64k32w4s3", false, 64, 64, &tensor4_configs::ladder_update_fp32_m64n64k32w4s3},
    {"m64n256k16w8s3", false, 64, 256, &tensor4_configs::ladder_update_fp32_m64n256k16w8s3},
    {"m64n128k32w4s3", true, 64, 128, &tensor4_configs::ladder_update_tf32_m64n128k32w4s3},
    {"m64n256k32w8s3", true, 64, 256, &tensor4_configs::ladder_update_tf32_m64n256k32w8s3},
    {"m64n128k32w4s4", true, 64, 128, &tensor4_configs::ladder_update_tf32_m64n128k32w4s4},
    // Session 13's H200 run: FP32's best tile (m64n64) was missing in TF32, whose configs ran at 1.5 TB/s
    // against FP32's 2.7; and K = o^2 = 16 at o = 4 leaves half of a k32 step empty.
    {"m64n64k16w4s3", false, 64, 64, &tensor4_configs::ladder_update_fp32_m64n64k16w4s3},
    {"m64n64k32w4s3", true, 64, 64, &tensor4_configs::ladder_update_tf32_m64n64k32w4s3},
    {"m64n64k16w4s3", true, 64, 64, &tensor4_configs::ladder_update_tf32_m64n64k16w4s3},
};

}  // namespace tensor4
