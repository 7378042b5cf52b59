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

// ---------------------------------------------------------------------------------------------
// Loading (cuda/loading.hpp does the work) and launching.

inline std::unique_ptr<loaded_function> context::load(const container& c,
                                                      std::uint32_t kernel_index,
                                                      std::uint32_t variant) {
  return load_function(d_, props(), ctx_, plan_load(c, kernel_index, variant, props()));
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

// Global scratch (docs/triton-abi.md §1). Each launch in flight needs its own region; the
// choice here:
//  * Not capturing: one buffer per (context, stream), grown geometrically and reused. Launches on
//    one stream run in order, so consecutive launches may share it. An outgrown buffer may still
//    be read by launches in flight, so it is retired with an event recorded on its stream and
//    freed only once that event has completed. Streams are told apart by cuStreamGetId where
//    available, so a destroyed stream's handle reused by a new stream does not share a buffer
//    with work still draining on the old one (that old buffer is retired without an event and
//    freed at release()).
//  * Capturing into a graph: no synchronisation is allowed and the address is baked into the
//    graph, so a dedicated buffer is allocated (the thread is switched to relaxed capture mode for
//    the cuMemAlloc, as PyTorch does) and kept until the library is unloaded. Replays of one
//    graph are serialised by CUDA, so they may share it.
inline void context::acquire_scratch(const function& f, grid3 g, CUstream stream, void** scratch) {
  const scratch_need need = compute_scratch(f.image->launch, g);
  if (need.total == 0) return;
  const std::size_t align =
      need.align > 256 ? need.align : 256;  // cuMemAlloc gives 256-byte alignment
  const std::size_t bytes = static_cast<std::size_t>(need.total) + (align > 256 ? align : 0);
  auto place = [&](CUdeviceptr base) {
    const CUdeviceptr p = (base + align - 1) / align * align;
    scratch[0] =
        need.global_bytes ? reinterpret_cast<void*>(static_cast<std::uintptr_t>(p)) : nullptr;
    scratch[1] = need.profile_bytes
                     ? reinterpret_cast<void*>(static_cast<std::uintptr_t>(p + need.profile_offset))
                     : nullptr;
  };
  auto who = [&f] { return f.kernel ? identify(*f.kernel) : std::string("kernel ?"); };
  int status = 0;
  d_.check_lazy(d_.fn.cuStreamIsCapturing(stream, &status),
                [&] { return who() + ": cuStreamIsCapturing"; });
  if (status != CU_STREAM_CAPTURE_STATUS_NONE) {
    int mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    d_.check_lazy(d_.fn.cuThreadExchangeStreamCaptureMode(&mode),
                  [&] { return who() + ": cuThreadExchangeStreamCaptureMode"; });
    CUdeviceptr p = 0;
    const CUresult r = d_.fn.cuMemAlloc(&p, bytes);
    int restore = mode;
    d_.fn.cuThreadExchangeStreamCaptureMode(&restore);
    d_.check_lazy(r, [&] {
      return who() + ": cuMemAlloc of " + std::to_string(bytes) +
             " bytes of global scratch during graph capture";
    });
    std::lock_guard<std::mutex> lock(scratch_mutex_);
    captured_.push_back(p);
    place(p);
    return;
  }
  unsigned long long id = 0;
  if (d_.fn.cuStreamGetId)
    d_.check_lazy(d_.fn.cuStreamGetId(stream, &id), [&] { return who() + ": cuStreamGetId"; });
  std::lock_guard<std::mutex> lock(scratch_mutex_);
  scratch_buffer* slot = nullptr;
  for (auto& b : scratch_)
    if (b.stream == stream) slot = &b;
  if (slot && slot->stream_id != id) {  // the handle now names another stream
    retired_.push_back({slot->ptr, nullptr});
    *slot = scratch_buffer{stream, id, 0, 0};
  }
  if (slot && slot->size >= bytes) {
    place(slot->ptr);
    return;
  }
  // Free retired buffers whose last users have finished.
  for (auto it = retired_.begin(); it != retired_.end();) {
    if (it->event && d_.fn.cuEventQuery(it->event) == CUDA_SUCCESS) {
      d_.fn.cuEventDestroy(it->event);
      d_.fn.cuMemFree(it->ptr);
      it = retired_.erase(it);
    } else {
      ++it;
    }
  }
  const std::size_t grow = slot ? std::max(bytes, slot->size * 2) : bytes;
  CUdeviceptr p = 0;
  d_.check(d_.fn.cuMemAlloc(&p, grow),
           who() + ": cuMemAlloc of " + std::to_string(grow) + " bytes of global scratch");
  if (slot) {
    if (slot->ptr) {
      CUevent ev = nullptr;
      CUresult r = d_.fn.cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING);
      if (r == CUDA_SUCCESS) r = d_.fn.cuEventRecord(ev, stream);
      if (r != CUDA_SUCCESS) {
        if (ev) d_.fn.cuEventDestroy(ev);
        d_.fn.cuMemFree(p);
        d_.check(r, who() + ": recording an event to retire the outgrown scratch buffer");
      }
      retired_.push_back({slot->ptr, ev});
    }
    slot->ptr = p;
    slot->size = grow;
  } else {
    scratch_.push_back({stream, id, p, grow});
  }
  place(p);
}

inline void context::launch(loaded_function& lf, grid3 g, stream_t stream_,
                            const void* const* args) {
  function& f = static_cast<function&>(lf);
  check_grid_limits(launch_grid_limits, *f.kernel, g, f.num_ctas,
                    f.block);  // before scratch is sized for it
  CUstream stream = static_cast<CUstream>(stream_);
  void* scratch[2] = {nullptr, nullptr};
  if (f.needs_scratch) acquire_scratch(f, g, stream, scratch);

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
  std::lock_guard<std::mutex> lock(scratch_mutex_);
  bool need_sync = false;
  for (auto& r : retired_) {
    if (r.event) {
      d_.fn.cuEventSynchronize(r.event);
      d_.fn.cuEventDestroy(r.event);
    } else {
      need_sync = true;
    }
  }
  // Buffers of live streams and of captured graphs may still be in use by queued work: wait for
  // the context before freeing them.
  if (need_sync || !scratch_.empty() || !captured_.empty()) {
    if (d_.fn.cuCtxSynchronize) d_.fn.cuCtxSynchronize();
  }
  for (auto& r : retired_) d_.fn.cuMemFree(r.ptr);
  for (auto& b : scratch_) d_.fn.cuMemFree(b.ptr);
  for (auto p : captured_) d_.fn.cuMemFree(p);
  retired_.clear();
  scratch_.clear();
  captured_.clear();
}

}  // namespace cuda
TRITONPACK_END_NAMESPACE
