// tritonpack/cuda/context.hpp — the NVIDIA backend's per-context state: the context that loads
// functions (cuda/loading.hpp does the work) and launches them with Triton's ABI
// (docs/triton-abi.md §2): TMA descriptors, global scratch per stream (kept safe during graph
// capture), the launch itself and its errors, and the context's teardown.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tritonpack/core/env.hpp"
#include "tritonpack/core/identify.hpp"
#include "tritonpack/core/load_stats.hpp"
#include "tritonpack/core/log.hpp"
#include "tritonpack/cuda/api.hpp"
#include "tritonpack/cuda/driver.hpp"
#include "tritonpack/cuda/loading.hpp"
#include "tritonpack/runtime/backend.hpp"
#include "tritonpack/runtime/jit_cache.hpp"
#include "tritonpack/runtime/load_plan.hpp"
#include "tritonpack/runtime/scratch_pool.hpp"
#include "tritonpack/select/arch.hpp"
#include "tritonpack/select/image.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace cuda {

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

  // What cuPointerGetAttribute says of `p`, when a kernel on this device cannot read it.
  std::string pointer_refusal(const void* p) const override {
    if (!d_.fn.cuPointerGetAttribute)
      return "";  // a driver without the query: nothing to check against
    const CUdeviceptr a = static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(p));
    unsigned type = 0;
    if (d_.fn.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, a) != CUDA_SUCCESS)
      return "host memory unknown to CUDA (pageable, or not allocated at all)";
    if (type == CU_MEMORYTYPE_HOST || type == CU_MEMORYTYPE_UNIFIED) return "";
    int ordinal = -1;
    if (d_.fn.cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, a) !=
        CUDA_SUCCESS)
      return "";
    return ordinal == dev_ ? "" : "device " + std::to_string(ordinal) + " memory";
  }

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

  error launch_error(const function& f, grid3 g, CUresult r) const;  // the launch-failure path
  class scratch_calls;  // the driver calls of scratch_pool_, for function `f` (or none)
  static void encode_tma(void* self, const tma_encode_args& a, void* map128,
                         const std::string& arg_name);

  const driver& d_;
  CUcontext ctx_;
  CUdevice dev_ = 0;
  scratch_pool scratch_pool_;  // global scratch (runtime/scratch_pool.hpp)
};

// ---------------------------------------------------------------------------------------------
// Loading (cuda/loading.hpp does the work) and launching.

inline std::unique_ptr<loaded_function> context::load(const container& c,
                                                      std::uint32_t kernel_index,
                                                      std::uint32_t variant) {
  return load_function(d_, *this, ctx_, plan_load(c, kernel_index, variant, *this));
}

inline void context::encode_tma(void* self, const tma_encode_args& a, void* map128,
                                const std::string& arg_name) {
  const driver& d = static_cast<context*>(self)->d_;
  const CUresult r = d.fn.cuTensorMapEncodeTiled(
      static_cast<CUtensorMap*>(map128), a.data_type, a.rank,
      reinterpret_cast<void*>(static_cast<std::uintptr_t>(a.global_address)), a.global_dim,
      a.global_strides, a.box_dim, a.element_strides, a.interleave, a.swizzle, a.l2_promotion,
      a.oob_fill);
  if (r != CUDA_SUCCESS)
    throw error(errc::bad_argument,
                "tensor descriptor argument '" + arg_name +
                    "': cuTensorMapEncodeTiled failed: " + d.status(r),
                r);
}

// Global scratch (docs/triton-abi.md §1): runtime/scratch_pool.hpp keeps it; these are its driver
// calls. Capturing: the cuMemAlloc runs in relaxed capture mode, as PyTorch does.
class context::scratch_calls final : public scratch_device {
 public:
  scratch_calls(const driver& d, const function* f) : d_(d), f_(f) {}
  bool capturing(void* stream) override {
    int status = 0;
    d_.check_lazy(d_.fn.cuStreamIsCapturing(static_cast<CUstream>(stream), &status),
                  [&] { return who() + ": cuStreamIsCapturing"; });
    return status != CU_STREAM_CAPTURE_STATUS_NONE;
  }
  unsigned long long stream_id(void* stream) override {
    unsigned long long id = 0;
    if (d_.fn.cuStreamGetId)
      d_.check_lazy(d_.fn.cuStreamGetId(static_cast<CUstream>(stream), &id),
                    [&] { return who() + ": cuStreamGetId"; });
    return id;
  }
  std::uintptr_t allocate(std::size_t bytes, bool capturing) override {
    CUdeviceptr p = 0;
    if (!capturing) {
      d_.check(d_.fn.cuMemAlloc(&p, bytes),
               who() + ": cuMemAlloc of " + std::to_string(bytes) + " bytes of global scratch");
      return static_cast<std::uintptr_t>(p);
    }
    int mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    d_.check_lazy(d_.fn.cuThreadExchangeStreamCaptureMode(&mode),
                  [&] { return who() + ": cuThreadExchangeStreamCaptureMode"; });
    const CUresult r = d_.fn.cuMemAlloc(&p, bytes);
    int restore = mode;
    d_.fn.cuThreadExchangeStreamCaptureMode(&restore);
    d_.check_lazy(r, [&] {
      return who() + ": cuMemAlloc of " + std::to_string(bytes) +
             " bytes of global scratch during graph capture";
    });
    return static_cast<std::uintptr_t>(p);
  }
  void* record_event(void* stream) override {
    CUevent ev = nullptr;
    CUresult r = d_.fn.cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING);
    if (r == CUDA_SUCCESS) r = d_.fn.cuEventRecord(ev, static_cast<CUstream>(stream));
    if (r != CUDA_SUCCESS) {
      if (ev) d_.fn.cuEventDestroy(ev);
      d_.check(r, who() + ": recording an event to retire the outgrown scratch buffer");
    }
    return ev;
  }
  bool event_complete(void* ev) noexcept override {
    return d_.fn.cuEventQuery(static_cast<CUevent>(ev)) == CUDA_SUCCESS;
  }
  void wait_and_destroy_event(void* ev) noexcept override {
    d_.fn.cuEventSynchronize(static_cast<CUevent>(ev));
    d_.fn.cuEventDestroy(static_cast<CUevent>(ev));
  }
  void destroy_event(void* ev) noexcept override { d_.fn.cuEventDestroy(static_cast<CUevent>(ev)); }
  void free(std::uintptr_t p) noexcept override { d_.fn.cuMemFree(static_cast<CUdeviceptr>(p)); }
  void synchronize() noexcept override {
    if (d_.fn.cuCtxSynchronize) d_.fn.cuCtxSynchronize();
  }

 private:
  std::string who() const {
    return f_ && f_->kernel ? identify(*f_->kernel) : std::string("kernel ?");
  }
  const driver& d_;
  const function* f_;
};

inline void context::launch(loaded_function& lf, grid3 g, stream_t stream_,
                            const void* const* args) {
  function& f = static_cast<function&>(lf);
  check_grid_limits(launch_grid_limits, *f.kernel, g, f.num_ctas,
                    f.block);  // before scratch is sized for it
  CUstream stream = static_cast<CUstream>(stream_);
  void* scratch[2] = {nullptr, nullptr};
  if (f.needs_scratch) {
    scratch_calls calls(d_, &f);
    scratch_pool_.acquire(calls, compute_scratch(f.image->launch, g, scratch_per::cta), stream,
                          scratch);
  }

  // Parameter storage on the stack for every realistic kernel; the heap only past 64 parameters
  // or 2 KB of descriptor expansion.
  void* params_local[64];
  alignas(128) unsigned char storage_local[2048];
  std::vector<void*> params_heap;
  std::unique_ptr<unsigned char[]> storage_heap;
  void** params = params_local;
  unsigned char* storage = storage_local;
  if (f.plan.param_count > 64) {
    params_heap.resize(f.plan.param_count);
    params = params_heap.data();
  }
  if (f.plan.storage_bytes > sizeof storage_local) {
    storage_heap.reset(new unsigned char[f.plan.storage_bytes + 128]);
    storage = reinterpret_cast<unsigned char*>(
        (reinterpret_cast<std::uintptr_t>(storage_heap.get()) + 127) & ~std::uintptr_t{127});
  }
#ifdef TRITONPACK_TESTING_POISON_PARAMS
  // Test builds only: every slot starts as a value the test-double driver refuses, so a parameter
  // the assembly forgot is a deterministic launch error rather than a read of stale stack memory.
  std::fill(params, params + (f.plan.param_count > 64 ? f.plan.param_count : 64),
            reinterpret_cast<void*>(std::uintptr_t{TRITONPACK_TESTING_POISON_PARAMS}));
#endif
  assemble_params(f.plan, *f.kernel, f.image->launch, args, params, storage, scratch,
                  &context::encode_tma, this);

  const std::uint64_t gx = std::uint64_t{g.x} * f.num_ctas;
  CUresult r;
  if (f.attr_count == 0) {
    r = d_.fn.cuLaunchKernel(f.fn, static_cast<unsigned>(gx), g.y, g.z, f.block, 1, 1, f.shared,
                             stream, params, nullptr);
  } else {
    CUlaunchConfig cfg;
    cfg.gridDimX = static_cast<unsigned>(gx);
    cfg.gridDimY = g.y;
    cfg.gridDimZ = g.z;
    cfg.blockDimX = f.block;
    cfg.blockDimY = 1;
    cfg.blockDimZ = 1;
    cfg.sharedMemBytes = f.shared;
    cfg.hStream = stream;
    cfg.attrs = f.attrs;
    cfg.numAttrs = f.attr_count;
    r = d_.fn.cuLaunchKernelEx(&cfg, f.fn, params, nullptr);
  }
  if (r != CUDA_SUCCESS) throw launch_error(f, g, r);
}

inline error context::launch_error(const function& f, grid3 g, CUresult r) const {
  // A block larger than the compiled function allows (its .maxntid) is the one launch failure
  // the load does not rule out up front (asking costs a driver call on every first launch):
  // explain it here.
  int max_threads = 0;
  if (r == CUDA_ERROR_INVALID_VALUE &&
      d_.fn.cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f.fn) ==
          CUDA_SUCCESS &&
      f.block > static_cast<unsigned>(max_threads))
    return error(errc::unsupported,
                 identify(*f.kernel, *f.image) + " needs " + std::to_string(f.block) +
                     " threads per block (num_warps x warp size); the compiled function allows " +
                     std::to_string(max_threads) +
                     ": the container's metadata and its image disagree (launch: " + d_.status(r) +
                     ")",
                 r);
  const errc code = r == CUDA_ERROR_OUT_OF_MEMORY ? errc::out_of_memory : errc::launch_failed;
  return error(code,
               "launch of " + identify(*f.kernel, *f.image) + " with grid " + std::to_string(g.x) +
                   "x" + std::to_string(g.y) + "x" + std::to_string(g.z) + " programs, block " +
                   std::to_string(f.block) + ", " + std::to_string(f.shared) +
                   " bytes shared, on " + props().describe() + " failed: " + d_.status(r),
               r);
}

inline void context::unload(loaded_function& lf) noexcept {
  function& f = static_cast<function&>(lf);
  if (!f.module) return;
  scoped_context scope(d_, ctx_);
  d_.fn.cuModuleUnload(
      f.module);  // failure (e.g. a context already destroyed) leaves nothing to do
  f.module = nullptr;
}

inline void context::release() noexcept {
  scoped_context scope(d_, ctx_);
  scratch_calls calls(d_, nullptr);
  scratch_pool_.release(calls);
}

}  // namespace cuda
TRITONPACK_END_NAMESPACE
