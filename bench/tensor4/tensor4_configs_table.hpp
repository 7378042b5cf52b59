// tensor4_configs_table.hpp — the compiled configurations of `contract` (tensor4_configs.toml): one
// row per `contract` [[kernel]] there, in the same order, and the half_transform *_n16 set; keep the
// two in step when adding a configuration.
#pragma once

#include <tensor4_configs.hpp>

#include "triton_ao2mo.hpp"

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

// half_transform with N a multiple of 16 (i32:16 hints: 16-byte loads), FP32 (ieee) and TF32.
inline ao2mo::half_kernels<float> fused_n16_kernels(bool tf32) {
  namespace k = tensor4_configs;
  if (tf32) return {&k::half_transform_tf32_r64_n16, &k::half_transform_tf32_r96_n16, &k::half_transform_tf32_r128_n16, &k::half_transform_tf32_r160_n16};
  return {&k::half_transform_fp32_r64_n16, &k::half_transform_fp32_r96_n16, &k::half_transform_fp32_r128_n16, &k::half_transform_fp32_r160_n16};
}

}  // namespace tensor4
