// cutensor_abi_check.cpp — compiled only with -DTENSOR4_CUTENSOR_INCLUDE=<cuTENSOR's include
// folder> (the header is not in the repository): cutensor_loader.hpp's own declarations of
// cuTENSOR 2.x against cutensor.h — every enum value it uses, and every entry point's pointer type
// (cutensor_api::fn, the types of the loader's own pointers) against the header's declaration: the
// same parameter count and sizes (handles as void*, enums as int: the same C calling convention).
#include <cutensor.h>

#include <type_traits>

#include "cutensor_loader.hpp"

namespace cutensor_abi_check {
namespace api = tensor4::cutensor_api;
static_assert(CUTENSOR_MAJOR == 2, "cutensor_loader.hpp declares the cuTENSOR 2.x API");
static_assert(api::cuda_r_32f == CUTENSOR_R_32F && api::cuda_r_64f == CUTENSOR_R_64F, "data types");
static_assert(api::op_identity == CUTENSOR_OP_IDENTITY, "cutensorOperator_t");
static_assert(api::algo_default == CUTENSOR_ALGO_DEFAULT &&
                  api::algo_default_patient == CUTENSOR_ALGO_DEFAULT_PATIENT,
              "cutensorAlgo_t");
static_assert(api::jit_none == CUTENSOR_JIT_MODE_NONE &&
                  api::jit_default == CUTENSOR_JIT_MODE_DEFAULT,
              "cutensorJitMode_t");
static_assert(api::workspace_default == CUTENSOR_WORKSPACE_DEFAULT, "cutensorWorksizePreference_t");
static_assert(api::pref_autotune_mode == CUTENSOR_PLAN_PREFERENCE_AUTOTUNE_MODE &&
                  api::pref_cache_mode == CUTENSOR_PLAN_PREFERENCE_CACHE_MODE &&
                  api::pref_incremental_count == CUTENSOR_PLAN_PREFERENCE_INCREMENTAL_COUNT,
              "cutensorPlanPreferenceAttribute_t");
static_assert(api::autotune_incremental == CUTENSOR_AUTOTUNE_MODE_INCREMENTAL &&
                  api::cache_pedantic == CUTENSOR_CACHE_MODE_PEDANTIC &&
                  api::cache_none == CUTENSOR_CACHE_MODE_NONE,
              "modes");
static_assert(api::plan_required_workspace == CUTENSOR_PLAN_REQUIRED_WORKSPACE,
              "cutensorPlanAttribute_t");
static_assert(sizeof(cutensorAutotuneMode_t) == sizeof(int) &&
                  sizeof(cutensorCacheMode_t) == sizeof(int) &&
                  sizeof(cutensorAlgo_t) == sizeof(int) && sizeof(cudaDataType_t) == sizeof(int) &&
                  sizeof(cutensorStatus_t) == sizeof(int),
              "enums passed as int");
static_assert(std::is_pointer<cutensorHandle_t>::value && std::is_pointer<cutensorPlan_t>::value &&
                  std::is_pointer<cutensorComputeDescriptor_t>::value,
              "handles are pointers");
// Each loader prototype has the header's parameter count and sizes (a wrong one fails here).
template <class R1, class... A1, class R2, class... A2>
constexpr bool same_shape(R1 (*)(A1...), R2 (*)(A2...)) {
  return sizeof...(A1) == sizeof...(A2) && sizeof(R1) == sizeof(R2) &&
         ((sizeof(A1) == sizeof(A2)) && ...);
}
static_assert(same_shape(api::fn::create{}, &cutensorCreate), "cutensorCreate");
static_assert(same_shape(api::fn::destroy{}, &cutensorDestroy), "cutensorDestroy");
static_assert(same_shape(api::fn::create_tensor{}, &cutensorCreateTensorDescriptor),
              "cutensorCreateTensorDescriptor");
static_assert(same_shape(api::fn::destroy_tensor{}, &cutensorDestroyTensorDescriptor),
              "cutensorDestroyTensorDescriptor");
static_assert(same_shape(api::fn::create_contraction{}, &cutensorCreateContraction),
              "cutensorCreateContraction");
static_assert(same_shape(api::fn::destroy_op{}, &cutensorDestroyOperationDescriptor),
              "cutensorDestroyOperationDescriptor");
static_assert(same_shape(api::fn::create_pref{}, &cutensorCreatePlanPreference),
              "cutensorCreatePlanPreference");
static_assert(same_shape(api::fn::destroy_pref{}, &cutensorDestroyPlanPreference),
              "cutensorDestroyPlanPreference");
static_assert(same_shape(api::fn::pref_set{}, &cutensorPlanPreferenceSetAttribute),
              "cutensorPlanPreferenceSetAttribute");
static_assert(same_shape(api::fn::estimate{}, &cutensorEstimateWorkspaceSize),
              "cutensorEstimateWorkspaceSize");
static_assert(same_shape(api::fn::create_plan{}, &cutensorCreatePlan), "cutensorCreatePlan");
static_assert(same_shape(api::fn::destroy_plan{}, &cutensorDestroyPlan), "cutensorDestroyPlan");
static_assert(same_shape(api::fn::plan_attr{}, &cutensorPlanGetAttribute),
              "cutensorPlanGetAttribute");
static_assert(same_shape(api::fn::contract{}, &cutensorContract), "cutensorContract");
static_assert(same_shape(api::fn::error_string{}, &cutensorGetErrorString),
              "cutensorGetErrorString");
static_assert(same_shape(api::fn::get_version{}, &cutensorGetVersion), "cutensorGetVersion");
}  // namespace cutensor_abi_check
