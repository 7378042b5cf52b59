// cutensor_loader.hpp — the few cuTENSOR 2.x entry points the bench's vendor tensor path needs,
// loaded at run time with dlopen, as cublas_loader.hpp loads cuBLAS: no link-time dependency, no
// cuTENSOR header at build time, and a bench that runs without it (the cuTENSOR rows are skipped
// with the reason). The prototypes, enum values and the compute descriptors' symbol names below
// are declared here from cuTENSOR 2.8.0's public headers (cutensor.h, cutensor/types.h, in the PyPI
// wheel cutensor-cu13 2.8.1); the 2.x API has kept them since 2.0. libcutensor.so.2 needs
// libcublasLt.so.13: the bench loads cuBLAS (from the same CUDA 13 pip packages) first, which
// brings it in.
//
// A contraction: D[modes_d] = alpha sum A[modes_a] B[modes_b] + beta C (C = D here, beta = 0), each
// operand by extents and element strides (cutensor_problems.hpp), planned once per precision with
// cuTENSOR's own kernel choice: its performance model (heuristic), the more patient model
// (CUTENSOR_ALGO_DEFAULT_PATIENT), or incremental autotuning (CUTENSOR_AUTOTUNE_MODE_INCREMENTAL:
// the first `count` plans of the same problem each try another kernel when run, and the next one
// is the fastest of them, from cuTENSOR's plan cache); optionally with its JIT compilation.
#pragma once

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cutensor_problems.hpp"

namespace tensor4 {

// cuTENSOR 2.8.0 (cutensor/types.h): the values used here.
namespace cutensor_api {
using status = int;                  // cutensorStatus_t, 0 = CUTENSOR_STATUS_SUCCESS
using handle = void*;                // cutensorHandle_t
using tensor_descriptor = void*;     // cutensorTensorDescriptor_t
using operation_descriptor = void*;  // cutensorOperationDescriptor_t
using plan_preference = void*;       // cutensorPlanPreference_t
using plan = void*;                  // cutensorPlan_t
using compute_descriptor = void*;    // cutensorComputeDescriptor_t (the library's own globals)
constexpr int cuda_r_32f = 0, cuda_r_64f = 1;                // cudaDataType_t (library_types.h)
constexpr int op_identity = 1;                               // CUTENSOR_OP_IDENTITY
constexpr int algo_default_patient = -6, algo_default = -1;  // cutensorAlgo_t
constexpr int jit_none = 0, jit_default = 1;                 // cutensorJitMode_t
constexpr int workspace_default = 2;                         // CUTENSOR_WORKSPACE_DEFAULT
constexpr int pref_autotune_mode = 0, pref_cache_mode = 1,
              pref_incremental_count = 2;  // cutensorPlanPreferenceAttribute_t
constexpr int autotune_incremental = 1, cache_none = 0,
              cache_pedantic = 1;           // cutensorAutotuneMode_t, cutensorCacheMode_t
constexpr int plan_required_workspace = 0;  // cutensorPlanAttribute_t
constexpr std::uint32_t alignment =
    128;  // bytes; the bench's tensors start at cudaMalloc'ed addresses
// The entry points' types (cutensor.h), one alias each: the loader's pointers have these types and
// cutensor_abi_check.cpp compares them with the header's declarations.
namespace fn {
using H = handle;
using create = status (*)(H*);  // cutensorCreate
using destroy = status (*)(H);  // cutensorDestroy
using create_tensor = status (*)(H, tensor_descriptor*, std::uint32_t, const std::int64_t*,
                                 const std::int64_t*, int,
                                 std::uint32_t);       // cutensorCreateTensorDescriptor
using destroy_tensor = status (*)(tensor_descriptor);  // cutensorDestroyTensorDescriptor
using create_contraction = status (*)(H, operation_descriptor*, tensor_descriptor,
                                      const std::int32_t*, int, tensor_descriptor,
                                      const std::int32_t*, int, tensor_descriptor,
                                      const std::int32_t*, int, tensor_descriptor,
                                      const std::int32_t*,
                                      compute_descriptor);  // cutensorCreateContraction
using destroy_op = status (*)(operation_descriptor);        // cutensorDestroyOperationDescriptor
using create_pref = status (*)(H, plan_preference*, int, int);  // cutensorCreatePlanPreference
using destroy_pref = status (*)(plan_preference);               // cutensorDestroyPlanPreference
using pref_set = status (*)(H, plan_preference, int, const void*,
                            std::size_t);  // cutensorPlanPreferenceSetAttribute
using estimate = status (*)(H, operation_descriptor, plan_preference, int,
                            std::uint64_t*);  // cutensorEstimateWorkspaceSize
using create_plan = status (*)(H, plan*, operation_descriptor, plan_preference,
                               std::uint64_t);                   // cutensorCreatePlan
using destroy_plan = status (*)(plan);                           // cutensorDestroyPlan
using plan_attr = status (*)(H, plan, int, void*, std::size_t);  // cutensorPlanGetAttribute
using contract = status (*)(H, plan, const void*, const void*, const void*, const void*,
                            const void*, void*, void*, std::uint64_t,
                            void*);            // cutensorContract
using error_string = const char* (*)(status);  // cutensorGetErrorString
using get_version = std::size_t (*)();         // cutensorGetVersion
}  // namespace fn
}  // namespace cutensor_api

enum class cutensor_precision {
  fp32,
  tf32,
  fp64
};  // data FP32/FP32/FP64; compute 32F / TF32 / 64F

inline const char* name_of(cutensor_precision p) {
  return p == cutensor_precision::fp32 ? "fp32" : p == cutensor_precision::tf32 ? "tf32" : "fp64";
}

// How cuTENSOR chooses its kernel for a plan.
struct cutensor_tuning {
  enum class kind { heuristic, patient, incremental } how = kind::heuristic;
  std::uint32_t incremental_count = 8;  // kernels tried by incremental autotuning
  bool jit = false;  // CUTENSOR_JIT_MODE_DEFAULT: a kernel compiled for the problem
  std::string label() const {
    std::string s = how == kind::heuristic ? "heuristic"
                    : how == kind::patient ? "patient"
                                           : "autotune" + std::to_string(incremental_count);
    return jit ? s + "+jit" : s;
  }
};

// "--cutensor-tuning heuristic,patient,autotune8,heuristic+jit": the plans to make for each case.
inline std::vector<cutensor_tuning> parse_tunings(const std::string& list) {
  std::vector<cutensor_tuning> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    std::string item = list.substr(start, comma - start);
    start = comma + 1;
    if (item.empty()) continue;
    cutensor_tuning t;
    const std::size_t plus = item.find("+jit");
    if (plus != std::string::npos && plus + 4 == item.size()) t.jit = true, item.resize(plus);
    if (item == "heuristic") t.how = cutensor_tuning::kind::heuristic;
    else if (item == "patient") t.how = cutensor_tuning::kind::patient;
    else if (item.rfind("autotune", 0) == 0 && item.size() > 8 && item.size() <= 10 &&
             item.find_first_not_of("0123456789", 8) == std::string::npos) {
      t.how = cutensor_tuning::kind::incremental;
      t.incremental_count = static_cast<std::uint32_t>(std::stoul(item.substr(8)));
      if (t.incremental_count < 1 || t.incremental_count > 64)
        throw std::invalid_argument("--cutensor-tuning: " + item +
                                    ": the autotuning count must be 1 to 64");
    } else {
      throw std::invalid_argument(
          "--cutensor-tuning: '" + item +
          "' is not heuristic, patient or autotuneN (N = kernels tried), each optionally +jit");
    }
    out.push_back(t);
  }
  if (out.empty())
    throw std::invalid_argument("--cutensor-tuning: no tuning given (e.g. heuristic,autotune8)");
  return out;
}

class cutensor;

// A ready plan: run it with cutensor::contract and a device workspace of workspace_bytes.
class cutensor_plan {
 public:
  ~cutensor_plan();
  cutensor_plan(const cutensor_plan&) = delete;
  cutensor_plan& operator=(const cutensor_plan&) = delete;
  std::uint64_t workspace_bytes = 0;
  cutensor_precision precision = cutensor_precision::fp32;

 private:
  friend class cutensor;
  explicit cutensor_plan(const cutensor* lib) : lib_(lib) {}
  const cutensor* lib_;
  std::vector<cutensor_api::tensor_descriptor> tensors_;
  cutensor_api::operation_descriptor op_ = nullptr;
  cutensor_api::plan_preference pref_ = nullptr;
  cutensor_api::plan plan_ = nullptr;
};

class cutensor {
 public:
  // `path`: a libcutensor.so.2 to open; empty: the environment's TENSOR4_CUTENSOR, else
  // libcutensor.so.2 on the loader's search path. Absent or unusable: available() is false and
  // why_absent() says what was tried (the bench prints it and skips the cuTENSOR rows).
  explicit cutensor(std::string path) {
    if (path.empty())
      if (const char* env = std::getenv("TENSOR4_CUTENSOR")) path = env;
    const std::string t = path.empty() ? "libcutensor.so.2" : path;
    lib_ = dlopen(t.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib_) {
      const char* e = dlerror();
      why_ = "cuTENSOR not loaded (" + t + ": " + (e ? e : "?") +
             "); pass --cutensor /path/to/libcutensor.so.2 or set TENSOR4_CUTENSOR (pip's "
             "cutensor-cu13 has it under "
             "cutensor/lib; it needs libcublasLt.so.13, from nvidia-cublas)";
      return;
    }
    path_ = t;
    try {
      load_symbols();
      check(create_(&handle_), "cutensorCreate");
    } catch (const std::exception& e) {
      why_ = e.what();
      handle_ = nullptr;
    }
  }
  cutensor(const cutensor&) = delete;
  cutensor& operator=(const cutensor&) = delete;
  ~cutensor() {
    if (handle_) destroy_(handle_);  // lib_ stays loaded, as cuBLAS does
  }

  bool available() const { return handle_ != nullptr; }
  const std::string& why_absent() const { return why_; }
  const std::string& path() const { return path_; }
  std::size_t version() const { return get_version_ ? get_version_() : 0; }

  // A plan for D = A . B of problem p in this precision, chosen as `tuning` says (incremental
  // autotuning: call this count + 1 times, running each plan once, and keep the last: see
  // cutensor_loader.hpp's header). Throws, naming the step, if cuTENSOR refuses.
  std::unique_ptr<cutensor_plan> plan(const mode_contraction& p, cutensor_precision precision,
                                      const cutensor_tuning& tuning) const {
    if (!available()) throw std::runtime_error("cuTENSOR: " + why_);
    using namespace cutensor_api;
    std::unique_ptr<cutensor_plan> pl(new cutensor_plan(this));
    pl->precision = precision;
    const int dtype = precision == cutensor_precision::fp64 ? cuda_r_64f : cuda_r_32f;
    const std::string what = p.name + " (" + name_of(precision) + ")";
    for (const mode_tensor* t : {&p.a, &p.b, &p.d}) {
      tensor_descriptor desc = nullptr;
      check(create_tensor_(handle_, &desc, static_cast<std::uint32_t>(t->modes.size()),
                           t->extents.data(), t->strides.data(), dtype, alignment),
            "cutensorCreateTensorDescriptor for " + what);
      pl->tensors_.push_back(desc);
    }
    const compute_descriptor compute = precision == cutensor_precision::fp32   ? *desc_32f_
                                       : precision == cutensor_precision::tf32 ? *desc_tf32_
                                                                               : *desc_64f_;
    check(create_contraction_(handle_, &pl->op_, pl->tensors_[0], p.a.modes.data(), op_identity,
                              pl->tensors_[1], p.b.modes.data(), op_identity, pl->tensors_[2],
                              p.d.modes.data(), op_identity, pl->tensors_[2], p.d.modes.data(),
                              compute),
          "cutensorCreateContraction for " + what);
    const int algo =
        tuning.how == cutensor_tuning::kind::patient ? algo_default_patient : algo_default;
    check(create_pref_(handle_, &pl->pref_, algo, tuning.jit ? jit_default : jit_none),
          "cutensorCreatePlanPreference for " + what);
    if (tuning.how == cutensor_tuning::kind::incremental) {
      const int mode = autotune_incremental, cache = cache_pedantic;
      const std::int32_t count = static_cast<std::int32_t>(tuning.incremental_count);
      check(pref_set_(handle_, pl->pref_, pref_autotune_mode, &mode, sizeof mode),
            "CUTENSOR_PLAN_PREFERENCE_AUTOTUNE_MODE");
      check(pref_set_(handle_, pl->pref_, pref_cache_mode, &cache, sizeof cache),
            "CUTENSOR_PLAN_PREFERENCE_CACHE_MODE");
      check(pref_set_(handle_, pl->pref_, pref_incremental_count, &count, sizeof count),
            "CUTENSOR_PLAN_PREFERENCE_INCREMENTAL_COUNT");
    } else {
      // No plan cache for the model's own choice: a cached autotuned plan of an identical problem
      // would otherwise answer for it, and the row would not be the heuristic's.
      const int cache = cache_none;
      check(pref_set_(handle_, pl->pref_, pref_cache_mode, &cache, sizeof cache),
            "CUTENSOR_PLAN_PREFERENCE_CACHE_MODE");
    }
    std::uint64_t estimate = 0;
    check(estimate_(handle_, pl->op_, pl->pref_, workspace_default, &estimate),
          "cutensorEstimateWorkspaceSize for " + what);
    check(create_plan_(handle_, &pl->plan_, pl->op_, pl->pref_, estimate),
          "cutensorCreatePlan for " + what);
    std::uint64_t required = 0;
    check(plan_attr_(handle_, pl->plan_, plan_required_workspace, &required, sizeof required),
          "CUTENSOR_PLAN_REQUIRED_WORKSPACE");
    pl->workspace_bytes = required;
    return pl;
  }

  // D = A . B (beta = 0) on `stream` (a cudaStream_t), with a device workspace of at least
  // plan.workspace_bytes.
  void contract(const cutensor_plan& pl, const void* a, const void* b, void* d, void* workspace,
                std::uint64_t workspace_bytes, void* stream) const {
    const float one_f = 1, zero_f = 0;
    const double one_d = 1, zero_d = 0;
    const bool f64 = pl.precision == cutensor_precision::fp64;
    check(contract_(handle_, pl.plan_, f64 ? static_cast<const void*>(&one_d) : &one_f, a, b,
                    f64 ? static_cast<const void*>(&zero_d) : &zero_f, d, d, workspace,
                    workspace_bytes, stream),
          "cutensorContract");
  }

 private:
  friend class cutensor_plan;
  template <class F>
  F sym(const char* name) {
    void* p = dlsym(lib_, name);
    if (!p)
      throw std::runtime_error(std::string("cuTENSOR at ") + path_ + " has no " + name +
                               " (not a cuTENSOR 2.x?)");
    return reinterpret_cast<F>(p);
  }
  void load_symbols() {
    create_ = sym<decltype(create_)>("cutensorCreate");
    destroy_ = sym<decltype(destroy_)>("cutensorDestroy");
    create_tensor_ = sym<decltype(create_tensor_)>("cutensorCreateTensorDescriptor");
    destroy_tensor_ = sym<decltype(destroy_tensor_)>("cutensorDestroyTensorDescriptor");
    create_contraction_ = sym<decltype(create_contraction_)>("cutensorCreateContraction");
    destroy_op_ = sym<decltype(destroy_op_)>("cutensorDestroyOperationDescriptor");
    create_pref_ = sym<decltype(create_pref_)>("cutensorCreatePlanPreference");
    destroy_pref_ = sym<decltype(destroy_pref_)>("cutensorDestroyPlanPreference");
    pref_set_ = sym<decltype(pref_set_)>("cutensorPlanPreferenceSetAttribute");
    estimate_ = sym<decltype(estimate_)>("cutensorEstimateWorkspaceSize");
    create_plan_ = sym<decltype(create_plan_)>("cutensorCreatePlan");
    destroy_plan_ = sym<decltype(destroy_plan_)>("cutensorDestroyPlan");
    plan_attr_ = sym<decltype(plan_attr_)>("cutensorPlanGetAttribute");
    contract_ = sym<decltype(contract_)>("cutensorContract");
    error_string_ = sym<decltype(error_string_)>("cutensorGetErrorString");
    get_version_ = sym<decltype(get_version_)>("cutensorGetVersion");
    desc_32f_ = sym<const cutensor_api::compute_descriptor*>("CUTENSOR_COMPUTE_DESC_32F");
    desc_tf32_ = sym<const cutensor_api::compute_descriptor*>("CUTENSOR_COMPUTE_DESC_TF32");
    desc_64f_ = sym<const cutensor_api::compute_descriptor*>("CUTENSOR_COMPUTE_DESC_64F");
  }
  void check(cutensor_api::status s, const std::string& what) const {
    if (s != 0)
      throw std::runtime_error(
          what + " failed: " + (error_string_ ? error_string_(s) : "cutensorStatus_t") + " (" +
          std::to_string(s) + ")");
  }

  void* lib_ = nullptr;
  std::string path_, why_;
  cutensor_api::handle handle_ = nullptr;
  cutensor_api::fn::create create_ = nullptr;
  cutensor_api::fn::destroy destroy_ = nullptr;
  cutensor_api::fn::create_tensor create_tensor_ = nullptr;
  cutensor_api::fn::destroy_tensor destroy_tensor_ = nullptr;
  cutensor_api::fn::create_contraction create_contraction_ = nullptr;
  cutensor_api::fn::destroy_op destroy_op_ = nullptr;
  cutensor_api::fn::create_pref create_pref_ = nullptr;
  cutensor_api::fn::destroy_pref destroy_pref_ = nullptr;
  cutensor_api::fn::pref_set pref_set_ = nullptr;
  cutensor_api::fn::estimate estimate_ = nullptr;
  cutensor_api::fn::create_plan create_plan_ = nullptr;
  cutensor_api::fn::destroy_plan destroy_plan_ = nullptr;
  cutensor_api::fn::plan_attr plan_attr_ = nullptr;
  cutensor_api::fn::contract contract_ = nullptr;
  cutensor_api::fn::error_string error_string_ = nullptr;
  cutensor_api::fn::get_version get_version_ = nullptr;
  const cutensor_api::compute_descriptor* desc_32f_ = nullptr;
  const cutensor_api::compute_descriptor* desc_tf32_ = nullptr;
  const cutensor_api::compute_descriptor* desc_64f_ = nullptr;
};

inline cutensor_plan::~cutensor_plan() {
  if (plan_) lib_->destroy_plan_(plan_);
  if (pref_) lib_->destroy_pref_(pref_);
  if (op_) lib_->destroy_op_(op_);
  for (auto t : tensors_) lib_->destroy_tensor_(t);
}

}  // namespace tensor4
