// tritonpack/cuda/context.hpp — the NVIDIA backend's per-context state: one loaded variant
// (`function`) and the context that loads and launches them. The definitions live by concern in
// cuda/loading.hpp (cubin, or PTX through the JIT and its disk cache; the ABI check) and
// cuda/launching.hpp (Triton's launch, docs/triton-abi.md §2, its scratch and its errors).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tritonpack/core/env.hpp"
#include "tritonpack/core/load_stats.hpp"
#include "tritonpack/core/log.hpp"
#include "tritonpack/cuda/api.hpp"
#include "tritonpack/cuda/driver.hpp"
#include "tritonpack/runtime/backend.hpp"
#include "tritonpack/runtime/jit_cache.hpp"
#include "tritonpack/runtime/load_plan.hpp"
#include "tritonpack/select/arch.hpp"
#include "tritonpack/select/image.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace cuda {

// ---------------------------------------------------------------------------------------------
// One loaded variant.

class function final : public loaded_function {
 public:
  CUmodule module = nullptr;
  CUfunction fn = nullptr;
  CUcontext ctx = nullptr;
  unsigned block = 0;
  unsigned shared = 0;
  unsigned num_ctas = 1;
  unsigned attr_count = 0;
  CUlaunchAttribute attrs[4] = {};
};

// cuLaunchKernel's documented grid limits, in blocks (programs x num_ctas in x).
inline constexpr grid_limits launch_grid_limits{"CUDA", 0x7fffffffu, 65535, 65535, 0};

// ---------------------------------------------------------------------------------------------
// Per (library, context) state.

class context final : public context_state {
 public:
  context(const driver& d, CUcontext ctx) : d_(d), ctx_(ctx) {
    d.check(d.fn.cuCtxGetDevice(&dev_), "cuCtxGetDevice");
    props_.backend = backend_kind::cuda;
    props_.ordinal = dev_;
    props_.arch = d.arch(dev_);
    props_.driver_version = d.version;
    if (log::enabled())
      log::line("context " + detail::address_text(ctx) + " on " + props().describe());
  }

  // Declared `inline` here, not only at the out-of-class definitions: otherwise load() would be
  // this class's key function (Itanium C++ ABI) and every translation unit including this header
  // would emit the vtable and, through it, the whole CUDA back end (≈ 6 s of g++ -O2 per TU).
  inline std::unique_ptr<loaded_function> load(const container& c, std::uint32_t kernel_index,
                                               std::uint32_t variant) override;
  inline void launch(loaded_function& f, grid3 grid, stream_t stream,
                     const void* const* args) override;
  inline void unload(loaded_function& f) noexcept override;
  inline void release() noexcept override;

  // Every NVIDIA GPU since Fermi gives a block 48 KB of shared memory without the opt-in
  // attribute, and every one allows at least that with it: only kernels above it need the
  // device's limits (props()).
  static constexpr std::uint32_t default_shared_bytes = 48 * 1024;

 private:
  int attribute(int a, const char* what) const { return d_.attribute(dev_, a, what); }
  void fill_props(device_props& p) const override {
    p.max_shared_default = static_cast<std::uint32_t>(
        attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, "MAX_SHARED_MEMORY_PER_BLOCK"));
    p.max_shared_optin =
        static_cast<std::uint32_t>(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                             "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"));
    p.cluster_launch = attribute(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, "CLUSTER_LAUNCH") != 0;
    p.cooperative_launch =
        attribute(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, "COOPERATIVE_LAUNCH") != 0;
    p.name = d_.device_name(dev_);
  }

  struct scratch_buffer {
    CUstream stream = nullptr;
    unsigned long long stream_id = 0;
    CUdeviceptr ptr = 0;
    std::size_t size = 0;
  };
  struct retired_buffer {
    CUdeviceptr ptr = 0;
    CUevent event = nullptr;  // null: free at release() after a context synchronize
  };

  // Makes this state's context current for the scope (the caller may be on another context).
  class scoped_context {
   public:
    scoped_context(const driver& d, CUcontext c) : d_(d) {
      CUcontext cur = nullptr;
      if (d.fn.cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur != c &&
          d.fn.cuCtxPushCurrent(c) == CUDA_SUCCESS)
        pushed_ = true;
    }
    ~scoped_context() {
      if (pushed_) {
        CUcontext popped = nullptr;
        d_.fn.cuCtxPopCurrent(&popped);
      }
    }

   private:
    const driver& d_;
    bool pushed_ = false;
  };

  CUmodule load_module(const std::vector<std::uint8_t>& bytes, const image_info& im,
                       const kernel_info& k, bool jit, std::string& how);
  CUmodule jit_ptx(std::vector<std::uint8_t> ptx, const image_info& im, const kernel_info& k,
                   std::string& how);
  void check_abi(const function& f, const kernel_info& k) const;
  error launch_error(const function& f, grid3 g, CUresult r) const;  // the launch-failure path
  void acquire_scratch(const function& f, grid3 g, CUstream stream, void** scratch);
  static void encode_tma(void* self, const tma_encode_args& a, void* map128,
                         const std::string& arg_name);

  const driver& d_;
  CUcontext ctx_;
  CUdevice dev_ = 0;
  std::mutex scratch_mutex_;
  std::vector<scratch_buffer> scratch_;  // one per stream in use
  std::vector<retired_buffer> retired_;  // outgrown buffers, freed once their event completes
  std::vector<CUdeviceptr> captured_;    // buffers baked into captured graphs: kept to release()
};

}  // namespace cuda
TRITONPACK_END_NAMESPACE
