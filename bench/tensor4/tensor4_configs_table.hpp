// tensor4_configs_table.hpp — the compiled configurations of `contract` (tensor4_configs.toml): one
// row per [[kernel]] there, in the same order; keep the two in step when adding a configuration.
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

}  // namespace tensor4
