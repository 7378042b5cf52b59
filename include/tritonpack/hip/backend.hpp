// tritonpack/hip/backend.hpp — the AMD backend: per-device state, code-object loading and
// Triton's AMD launch (docs/hip-abi.md §1; per release: launch/triton_abi.hpp). The runtime and its
// devices are in hip/driver.hpp, the ABI arithmetic in hip/launch_abi.hpp, the memory and device
// API in hip/memory.hpp.
//
// What runs on AMD is the code object (hsaco): selection picks the one built for the device's
// exact gfx processor whose pinned features (xnack, sramecc) match. When none runs, the LLVM IR
// of that processor is compiled through comgr where comgr can (hip/ir_jit.hpp; Triton 3.6 emits
// LLVM 22 IR, newer than any released comgr we know of).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "tritonpack/core/identify.hpp"
#include "tritonpack/core/load_stats.hpp"
#include "tritonpack/core/log.hpp"
#include "tritonpack/hip/api.hpp"
#include "tritonpack/hip/driver.hpp"
#include "tritonpack/hip/ir_jit.hpp"
#include "tritonpack/hip/launch_abi.hpp"
#include "tritonpack/hip/scratch.hpp"
#include "tritonpack/runtime/backend.hpp"
#include "tritonpack/runtime/load_plan.hpp"
#include "tritonpack/select/arch.hpp"
#include "tritonpack/select/image.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace hip {

class function final : public loaded_function {
 public:
  hipModule_t module = nullptr;
  hipFunction_t fn = nullptr;
  unsigned block = 0;
  unsigned shared = 0;
  bool cooperative = false;
};

// hipModuleLaunchKernel's grid checks (hip-abi.md §2.5, clr hip_module.cpp): x <= INT32_MAX,
// y, z <= 65536, and blocks x threads in x <= UINT32_MAX; beyond them hipErrorInvalidConfiguration.
inline constexpr grid_limits launch_grid_limits{"HIP", 0x7fffffffu, 65536, 65536, 0xffffffffu};

class context final : public context_state {
 public:
  context(const driver& d, int dev) : d_(d), dev_(dev) {
    props_.backend = backend_kind::hip;
    props_.ordinal = dev;
    props_.arch = d.arch(dev);
    props_.driver_version = d.version;
    if (log::enabled()) log::line("HIP device " + std::to_string(dev) + ": " + props().describe());
  }

  // `inline` on the declarations: see cuda/context.hpp (keeps the vtable out of every TU).
  inline std::unique_ptr<loaded_function> load(const container& c, std::uint32_t kernel_index,
                                               std::uint32_t variant) override;
  inline void launch(loaded_function& f, grid3 grid, stream_t stream,
                     const void* const* args) override;
  inline void unload(loaded_function& f) noexcept override;
  void release() noexcept override {  // global scratch buffers (hip/scratch.hpp)
    try {
      scoped_device on_device(d_, dev_);
      scratch_calls calls(d_, nullptr);
      scratch_pool_.release(calls);
    } catch (...) {
      // The device cannot be made current (runtime torn down): nothing left to free.
    }
  }

  // What hipPointerGetAttribute says of `p`, when a kernel on this device cannot read it. HIP 6's
  // hipMemoryType: 0 unregistered, 1 host (page-locked), 2 device, 3 managed.
  std::string pointer_refusal(const void* p) const override {
    if (!d_.fn.hipPointerGetAttribute) return "";  // no query: nothing to check against
    void* a = const_cast<void*>(p);
    unsigned type = 0;
    if (d_.fn.hipPointerGetAttribute(&type, 2 /* MEMORY_TYPE */, a) != hipSuccess || type == 0)
      return "host memory unknown to HIP (pageable, or not allocated at all)";
    if (type != 2) return "";
    int ordinal = -1;
    if (d_.fn.hipPointerGetAttribute(&ordinal, 9 /* DEVICE_ORDINAL */, a) != hipSuccess) return "";
    return ordinal == dev_ ? "" : "device " + std::to_string(ordinal) + " memory";
  }

 private:
  void fill_props(device_props& p) const override {
    p.max_shared_default = static_cast<std::uint32_t>(
        d_.attribute(dev_, hipDeviceAttributeMaxSharedMemoryPerBlock, "MaxSharedMemoryPerBlock"));
    p.max_shared_optin = p.max_shared_default;  // LDS needs no opt-in (hip-abi.md §1.4)
    p.cooperative_launch =
        d_.attribute(dev_, hipDeviceAttributeCooperativeLaunch, "CooperativeLaunch") != 0;
    p.name = d_.device_name(dev_);
  }
  error launch_error(const function& f, grid3 g, hipError_t r) const;

  const driver& d_;
  int dev_;
  scratch_pool scratch_pool_;  // global scratch of Triton >= 3.8 kernels
};

inline std::unique_ptr<loaded_function> context::load(const container& c,
                                                      std::uint32_t kernel_index,
                                                      std::uint32_t variant) {
  // A code object when one runs; else selection chose the IR for this processor, compiled through
  // comgr below.
  const load_plan p = plan_load(c, kernel_index, variant, props());
  auto f = std::make_unique<function>();
  p.fill(*f);
  const launch_info& li = p.launch();

  // Static checks before touching the runtime, each naming the kernel and what to do.
  const std::string& who = p.who;
  const auto image_arch = parse_amd_arch(f->image->arch);
  std::string why;
  const std::uint32_t block = image_arch ? block_size(li, *image_arch, why) : 0;
  if (block == 0)
    throw error(errc::bad_container,
                who + ": cannot size its blocks: " + (image_arch ? why : "unparsable arch"));
  if ((li.num_ctas ? li.num_ctas : 1) > 1)
    throw error(errc::unsupported,
                who + " uses num_ctas " + std::to_string(li.num_ctas) +
                    " (multi-CTA launch, gfx1250 only); the HIP backend launches num_ctas 1 only");
  // Global scratch: from Triton 3.8 its AMD launcher passes a buffer of gridX * gridY * gridZ *
  // global_scratch_size bytes when the metadata asks for one (triton_abi::hip_global_scratch,
  // hip-abi.md §1.2); launch() allocates it. Before 3.8 it passed null whatever the metadata said,
  // so an older image asking for some would read through null: refused. Profile scratch (proton
  // instrumentation) is passed as null, so an image asking for it is refused too.
  if (li.global_scratch_size > 0 && !f->plan.abi.hip_global_scratch)
    throw error(errc::bad_container,
                who + " asks for " + std::to_string(li.global_scratch_size) +
                    " bytes of global scratch per program, but it was built by Triton " +
                    (li.triton_version.empty() ? std::string("3.6") : li.triton_version) +
                    ", whose AMD launcher passes no global scratch (only 3.8 and later do): the "
                    "image's metadata is wrong; rebuild it");
  if (li.profile_scratch_size > 0)
    throw error(errc::unsupported,
                who + " asks for " + std::to_string(li.profile_scratch_size) +
                    " bytes of profile scratch per program (proton instrumentation); the HIP "
                    "backend passes the profile scratch pointer as null: compile without "
                    "instrumentation");
  f->needs_scratch = li.global_scratch_size > 0;
  if (f->plan.uses_tma || !f->plan.simple)
    throw error(errc::unsupported,
                who + " takes tensor descriptors, which the HIP backend does not pass yet");
  if (li.shared > props().max_shared_default)
    throw error(errc::unsupported, who + " needs " + std::to_string(li.shared) +
                                       " bytes of LDS per block but " + props().describe() +
                                       " allows at most " +
                                       std::to_string(props().max_shared_default) +
                                       "; choose a config with fewer stages or smaller blocks");
  if (li.launch_cooperative_grid && !d_.fn.hipModuleLaunchCooperativeKernel)
    throw error(errc::unsupported, who + " needs a cooperative launch; " + d_.library + " (" +
                                       d_.version_string() +
                                       ") lacks hipModuleLaunchCooperativeKernel");
  if (li.launch_cooperative_grid && !props().cooperative_launch)
    throw error(errc::unsupported, who + " needs a cooperative launch, which " +
                                       props().describe() + " does not support");

  std::string decode_time, jit_how;
  const auto t1 = std::chrono::steady_clock::now();
  std::vector<std::uint8_t> compiled;  // the JIT's code object
  image_view decoded;                   // or the container's, as it lies
  if (f->jit) {
    compiled = compile_llir(p, props(), d_.version, jit_how);
    decode_time = log::enabled() ? log::ms_since(t1) : std::string();
  } else {
    decoded = p.decode(decode_time);
  }
  const std::uint8_t* const module_bytes = f->jit ? compiled.data() : decoded.data();
  // Modules bind to the thread's current device at load (hip-abi.md §2.5).
  scoped_device on_device(d_, dev_);
  const auto t2 = std::chrono::steady_clock::now();
  hipError_t r = d_.fn.hipModuleLoadData(&f->module, module_bytes);
  if (r != hipSuccess) {
    errc code = r == hipErrorOutOfMemory ? errc::out_of_memory : errc::driver_error;
    if (r == hipErrorNoBinaryForGpu || r == hipErrorInvalidImage || r == hipErrorInvalidKernelFile)
      code = errc::no_image;
    throw error(
        code,
        who + ": hipModuleLoadData of the " + (f->jit ? "JIT-compiled " : "") + "code object on " +
            props().describe() + " failed: " + d_.status(r) +
            (code == errc::no_image
                 ? ". The code object is damaged or not for this GPU; repack it for " + props_.arch
                 : std::string()),
        r);
  }
  struct module_guard {  // unload on any failure below
    const driver& d;
    function* f;
    ~module_guard() {
      if (f) d.fn.hipModuleUnload(f->module);
    }
  } guard{d_, f.get()};
  const std::string load_time = log::enabled() ? log::ms_since(t2) : std::string();
  r = d_.fn.hipModuleGetFunction(&f->fn, f->module, li.entry.c_str());
  if (r != hipSuccess)
    throw error(r == hipErrorNotFound ? errc::bad_container : errc::driver_error,
                who + ": the code object has no kernel \"" + li.entry +
                    "\" (hipModuleGetFunction: " + d_.status(r) +
                    "); the container's metadata and its code object disagree",
                r);
  // Triton checks the block against the compiled kernel's limit (.max_flat_workgroup_size) after
  // loading; beyond it the launch would fail with hipErrorLaunchFailure, which says less.
  int max_threads = 0;
  d_.check(d_.fn.hipFuncGetAttribute(&max_threads, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f->fn),
           who + ": hipFuncGetAttribute(MAX_THREADS_PER_BLOCK)");
  if (max_threads > 0 && block > static_cast<std::uint32_t>(max_threads))
    throw error(errc::bad_container,
                who + " is launched with " + std::to_string(block) +
                    " threads per block (num_warps " + std::to_string(li.num_warps) +
                    " x wavefront " + std::to_string(li.warp_size) +
                    ") but the compiled kernel allows " + std::to_string(max_threads) +
                    ": the container's metadata and its code object disagree");
  f->block = block;
  f->shared = li.shared;
  f->cooperative = li.launch_cooperative_grid;
  guard.f = nullptr;
  if (!f->jit)
    detail::count_load(&detail::image_load_counters::binaries);  // compile_llir counted the JIT
  if (log::enabled())
    log::line(p.log_prefix(props()) + (f->jit ? ", " + jit_how : std::string()) + "; block " +
              std::to_string(block) + ", LDS " + std::to_string(li.shared) + ", kernargs " +
              std::to_string(layout_kernargs(f->plan.param_sizes).size) + " bytes; " +
              (f->jit ? "compile " : "decode ") + decode_time + ", load " + load_time + ", total " +
              log::ms_since(p.started));
  return f;
}

inline void context::launch(loaded_function& lf, grid3 g, stream_t stream_,
                            const void* const* args) {
  function& f = static_cast<function&>(lf);
  check_grid_limits(launch_grid_limits, *f.kernel, g, 1, f.block);
  // The calling thread's device is this state's (the library looked the state up by it), so the
  // stream and the module are on the current device, as ROCm 7 requires.
  void* params_local[64];
  std::vector<void*> params_heap;
  void** params = params_local;
  if (f.plan.param_count > 64) {
    params_heap.resize(f.plan.param_count);
    params = params_heap.data();
  }
  // Null global and profile scratch unless the kernel needs global scratch (Triton 3.8 and later;
  // load() refused the rest): one region per program, no num_ctas factor (hip-abi.md §1.2).
  void* scratch[2] = {nullptr, nullptr};
  if (f.needs_scratch) {
    scratch_need need;
    try {
      need = compute_scratch(f.image->launch, g, scratch_per::program);
    } catch (const error& e) {
      throw e.with_context(identify(*f.kernel));
    }
    scratch_calls calls(d_, &f);
    scratch_pool_.acquire(calls, need, stream_, scratch);
  }
  assemble_params(f.plan, *f.kernel, f.image->launch, args, params, nullptr, scratch, nullptr,
                  nullptr);
  hipStream_t stream = static_cast<hipStream_t>(stream_);
  const hipError_t r = f.cooperative
                           ? d_.fn.hipModuleLaunchCooperativeKernel(f.fn, g.x, g.y, g.z, f.block, 1,
                                                                    1, f.shared, stream, params)
                           : d_.fn.hipModuleLaunchKernel(f.fn, g.x, g.y, g.z, f.block, 1, 1,
                                                         f.shared, stream, params, nullptr);
  if (r != hipSuccess) throw launch_error(f, g, r);
}

inline error context::launch_error(const function& f, grid3 g, hipError_t r) const {
  const errc code = r == hipErrorOutOfMemory ? errc::out_of_memory : errc::launch_failed;
  return error(code,
               "launch of " + identify(*f.kernel, *f.image) + " with grid " + std::to_string(g.x) +
                   "x" + std::to_string(g.y) + "x" + std::to_string(g.z) + " programs, block " +
                   std::to_string(f.block) + ", " + std::to_string(f.shared) + " bytes LDS" +
                   (f.cooperative ? ", cooperative" : "") + ", on " + props().describe() +
                   " failed: " + d_.status(r),
               r);
}

inline void context::unload(loaded_function& lf) noexcept {
  function& f = static_cast<function&>(lf);
  if (!f.module) return;
  try {
    scoped_device on_device(d_, dev_);
    d_.fn.hipModuleUnload(f.module);
  } catch (...) {
    // The device cannot be made current (runtime torn down): nothing left to unload.
  }
  f.module = nullptr;
}

class hip_backend final : public backend {
 public:
  explicit hip_backend(std::unique_ptr<driver> d) : d_(std::move(d)) {}
  backend_kind kind() const noexcept override { return backend_kind::hip; }
  std::string describe() const override {
    return "HIP runtime " + d_->library + " (" + d_->version_string() + ")";
  }
  const driver& drv() const noexcept { return *d_; }

  // The thread's current device (0 until hipSetDevice), as a handle. Hot: one runtime call.
  void* current_context() override {
    int dev = 0;
    const hipError_t r = d_->fn.hipGetDevice(&dev);
    if (r != hipSuccess) d_->check(r, "hipGetDevice");
    return device_handle(dev);
  }
  std::unique_ptr<context_state> open_context(void* ctx) override {
    return std::make_unique<context>(*d_, handle_device(ctx));
  }
  const grid_limits& max_grid() const noexcept override { return launch_grid_limits; }

 private:
  std::unique_ptr<driver> d_;
};

}  // namespace hip
TRITONPACK_END_NAMESPACE
