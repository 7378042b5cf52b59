// tritonpack/cuda_backend.hpp — the NVIDIA backend: per-context state, image loading (cubin, or PTX
// through the JIT and its disk cache), and Triton's launch (shared/triton-abi.md §2). The driver and
// its primary contexts are in cuda_driver.hpp, the memory and device API in cuda_memory.hpp.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tritonpack/arch.hpp"
#include "tritonpack/backend.hpp"
#include "tritonpack/cuda_api.hpp"
#include "tritonpack/cuda_driver.hpp"
#include "tritonpack/env.hpp"
#include "tritonpack/jit_cache.hpp"
#include "tritonpack/log.hpp"
#include "tritonpack/selection.hpp"

namespace tritonpack {
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
    if (log::enabled()) log::line("context " + detail::address_text(ctx) + " on " + props().describe());
  }

  // Declared `inline` here, not only at the out-of-class definitions: otherwise load() would be
  // this class's key function (Itanium C++ ABI) and every translation unit including this header
  // would emit the vtable and, through it, the whole CUDA back end (≈ 6 s of g++ -O2 per TU).
  inline std::unique_ptr<loaded_function> load(const container& c, std::uint32_t kernel_index,
                                               std::uint32_t variant) override;
  inline void launch(loaded_function& f, grid3 grid, stream_t stream, const void* const* args) override;
  inline void unload(loaded_function& f) noexcept override;
  inline void release() noexcept override;

  // Every NVIDIA GPU since Fermi gives a block 48 KB of shared memory without the opt-in
  // attribute, and every one allows at least that with it: only kernels above it need the
  // device's limits (props()).
  static constexpr std::uint32_t default_shared_bytes = 48 * 1024;

 private:
  int attribute(int a, const char* what) const { return d_.attribute(dev_, a, what); }
  void fill_props(device_props& p) const override {
    p.max_shared_default = static_cast<std::uint32_t>(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, "MAX_SHARED_MEMORY_PER_BLOCK"));
    p.max_shared_optin = static_cast<std::uint32_t>(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"));
    p.cluster_launch = attribute(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, "CLUSTER_LAUNCH") != 0;
    p.cooperative_launch = attribute(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, "COOPERATIVE_LAUNCH") != 0;
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
      if (d.fn.cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur != c && d.fn.cuCtxPushCurrent(c) == CUDA_SUCCESS) pushed_ = true;
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

  CUmodule load_module(const std::vector<std::uint8_t>& bytes, const image_info& im, const kernel_info& k, bool jit,
                       std::string& how);
  CUmodule jit_ptx(std::vector<std::uint8_t> ptx, const image_info& im, const kernel_info& k, std::string& how);
  void check_abi(const function& f, const kernel_info& k) const;
  error launch_error(const function& f, grid3 g, CUresult r) const;  // the launch-failure path
  void acquire_scratch(const function& f, grid3 g, CUstream stream, void** scratch);
  static void encode_tma(void* self, const tma_encode_args& a, void* map128, const std::string& arg_name);

  const driver& d_;
  CUcontext ctx_;
  CUdevice dev_ = 0;
  std::mutex scratch_mutex_;
  std::vector<scratch_buffer> scratch_;      // one per stream in use
  std::vector<retired_buffer> retired_;      // outgrown buffers, freed once their event completes
  std::vector<CUdeviceptr> captured_;        // buffers baked into captured graphs: kept to release()
};

inline CUmodule context::jit_ptx(std::vector<std::uint8_t> ptx, const image_info& im, const kernel_info& k,
                                 std::string& how) {
  // The driver reads PTX as a NUL-terminated string.
  if (ptx.empty() || ptx.back() != 0) ptx.push_back(0);
  char info_log[8192] = {}, error_log[8192] = {};
  auto too_new = [&](CUresult r) {
    return error(errc::ptx_too_new,
                 "kernel " + k.name + ": the driver (" + d_.version_string() + ") refused the PTX for " + im.arch +
                     " because it needs PTX ISA " + ptx_isa_string(im.ptx_version) + " (" + d_.status(r) + "). Install " +
                     driver_needed_for_ptx_isa(im.ptx_version) + ", or repack with cubins for " + props_.arch,
                 r);
  };
  auto failed = [&](CUresult r, const char* call) {
    if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION) return too_new(r);
    std::string log_text = error_log;
    if (log_text.empty()) log_text = info_log;
    return error(errc::jit_failed,
                 "kernel " + k.name + ": JIT compilation of the PTX for " + im.arch + " (ISA " + ptx_isa_string(im.ptx_version) +
                     ") on " + props().describe() + " failed in " + call + ": " + d_.status(r) +
                     (log_text.empty() ? std::string() : "\nJIT log:\n" + log_text),
                 r);
  };
  int opts[5] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                 CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_LOG_VERBOSE};
  void* vals[5] = {info_log, reinterpret_cast<void*>(static_cast<std::uintptr_t>(sizeof info_log - 1)), error_log,
                   reinterpret_cast<void*>(static_cast<std::uintptr_t>(sizeof error_log - 1)),
                   reinterpret_cast<void*>(static_cast<std::uintptr_t>(0))};

  const auto dir = jit_cache::directory();
  const bool can_link = d_.fn.cuLinkCreate && d_.fn.cuLinkAddData && d_.fn.cuLinkComplete && d_.fn.cuLinkDestroy;
  std::string path;
  if (dir && can_link) {
    path = *dir + "/" + jit_cache::file_name(im.checksum, props_.arch, d_.version);
    if (auto hit = jit_cache::read(path)) {
      CUmodule m = nullptr;
      const CUresult r = d_.fn.cuModuleLoadData(&m, hit->data());
      if (r == CUDA_SUCCESS) {
        how = "JIT cache hit " + path;
        return m;
      }
      log::line("JIT cache entry " + path + " did not load (" + d_.status(r) + "); compiling again");
    }
    // Compile through the linker: unlike cuModuleLoadDataEx it hands back the cubin to cache.
    CUlinkState link = nullptr;
    CUresult r = d_.fn.cuLinkCreate(5, opts, vals, &link);
    if (r != CUDA_SUCCESS) throw failed(r, "cuLinkCreate");
    struct link_guard {
      const driver& d;
      CUlinkState s;
      ~link_guard() { d.fn.cuLinkDestroy(s); }
    } guard{d_, link};
    r = d_.fn.cuLinkAddData(link, CU_JIT_INPUT_PTX, ptx.data(), ptx.size(), k.name.c_str(), 0, nullptr, nullptr);
    if (r != CUDA_SUCCESS) throw failed(r, "cuLinkAddData");
    void* cubin = nullptr;
    std::size_t cubin_size = 0;
    r = d_.fn.cuLinkComplete(link, &cubin, &cubin_size);
    if (r != CUDA_SUCCESS) throw failed(r, "cuLinkComplete");
    std::vector<std::uint8_t> bin(static_cast<std::uint8_t*>(cubin), static_cast<std::uint8_t*>(cubin) + cubin_size);
    const std::string why = jit_cache::write(*dir, path, bin);
    if (!why.empty()) log::line("JIT cache not written: " + why);
    CUmodule m = nullptr;
    d_.check(d_.fn.cuModuleLoadData(&m, bin.data()), "kernel " + k.name + ": cuModuleLoadData of the JIT-compiled cubin");
    how = "JIT-compiled (linker), " + (why.empty() ? "cached as " + path : "not cached");
    return m;
  }
  CUmodule m = nullptr;
  const CUresult r = d_.fn.cuModuleLoadDataEx(&m, ptx.data(), 5, opts, vals);
  if (r != CUDA_SUCCESS) throw failed(r, "cuModuleLoadDataEx");
  how = dir ? "JIT-compiled (cuModuleLoadDataEx; the driver lacks the linker API, not cached)"
            : "JIT-compiled (cuModuleLoadDataEx; TRITONPACK_CACHE=0 or no cache directory)";
  return m;
}

inline CUmodule context::load_module(const std::vector<std::uint8_t>& bytes, const image_info& im, const kernel_info& k,
                                     bool jit, std::string& how) {
  if (jit) return jit_ptx(bytes, im, k, how);
  CUmodule m = nullptr;
  const CUresult r = d_.fn.cuModuleLoadData(&m, bytes.data());
  if (r != CUDA_SUCCESS) {
    errc code = r == CUDA_ERROR_OUT_OF_MEMORY ? errc::out_of_memory : errc::driver_error;
    if (r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_INVALID_IMAGE) code = errc::no_image;
    throw error(code,
                "kernel " + k.name + ": cuModuleLoadData of the cubin for " + im.arch + " on " + props().describe() +
                    " failed: " + d_.status(r),
                r);
  }
  how = "cubin loaded";
  return m;
}

// True for the Triton versions whose launch ABI this run time was verified against on a GPU
// (shared/triton-abi.md: Triton 3.6, checked by cuFuncGetParamInfo for every kernel of the GPU
// tests, which run with TRITONPACK_VERIFY_ABI=1). Their cubins skip the check below: it costs
// about 30 us of driver calls in a fresh process, a tenth of a first launch.
inline bool abi_verified(const std::string& triton_version) {
  return triton_version.compare(0, 4, "3.6.") == 0 || triton_version == "3.6";
}

// Compares the compiled kernel's parameter list with what the plan passes (cuFuncGetParamInfo,
// CUDA 12.4+): catches a Triton ABI change before it corrupts a launch. Run for JIT-compiled PTX,
// for cubins of a Triton version not verified above, and always under TRITONPACK_VERIFY_ABI=1.
inline void context::check_abi(const function& f, const kernel_info& k) const {
  if (!d_.fn.cuFuncGetParamInfo) return;
  std::vector<std::size_t> sizes;
  for (std::size_t i = 0; i < 4096; ++i) {
    std::size_t off = 0, size = 0;
    const CUresult r = d_.fn.cuFuncGetParamInfo(f.fn, i, &off, &size);
    if (r == CUDA_ERROR_INVALID_VALUE) break;  // past the last parameter
    if (r != CUDA_SUCCESS) return;             // not supported for this function: skip the check
    sizes.push_back(size);
  }
  bool same = sizes.size() == f.plan.param_sizes.size();
  for (std::size_t i = 0; same && i < sizes.size(); ++i) same = sizes[i] == f.plan.param_sizes[i];
  if (!same) {
    auto list = [](auto const& v) {
      std::string s;
      for (auto x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
      return s;
    };
    throw error(errc::bad_container, "kernel " + k.name + ": the compiled kernel (" + f.image->arch + " " +
                                         image_kind_name(f.image->kind) + ", Triton " + f.image->launch.triton_version +
                                         ") takes parameters of sizes [" + list(sizes) + "] but the run time would pass [" +
                                         list(f.plan.param_sizes) +
                                         "]: the container and the run time disagree on Triton's launch ABI");
  }
}

inline std::unique_ptr<loaded_function> context::load(const container& c, std::uint32_t kernel_index,
                                                      std::uint32_t variant) {
  const auto t0 = std::chrono::steady_clock::now();
  const kernel_info& k = c.kernel(kernel_index);   // builds the kernel's model and its images
  const container_info& info = c.partial_info();  // ... which is all selection reads
  const variant_info& v = k.variants.at(variant);
  device_target target;
  target.backend = backend_kind::cuda;
  target.arch = props_.arch;
  target.driver_version = props_.driver_version;
  target.force_ir = env::flag(env::force_ir);
  image_choice choice = select_image(info, v, target, /*explain=*/log::enabled());
  if (!choice.image) {
    choice = select_image(info, v, target, /*explain=*/true);
    const errc code = choice.failure == selection_failure::ptx_too_new      ? errc::ptx_too_new
                      : choice.failure == selection_failure::exceeds_limits ? errc::unsupported
                                                                            : errc::no_image;
    std::string msg = "kernel " + k.name + " (variant " + std::to_string(variant) + ") has no image for " +
                      props().describe() + ": " + choice.reason + "\n" + describe_choice(info, choice, target);
    if (!msg.empty() && msg.back() == '\n') msg.pop_back();
    log::line(msg);
    throw error(code, msg);
  }
  auto f = std::make_unique<function>();
  f->kernel = &k;
  f->variant = &v;
  f->image_index = *choice.image;
  f->image = &info.images[*choice.image];
  f->jit = choice.jit;
  const launch_info& li = f->image->launch;
  f->plan = build_param_plan(k, v, li);
  f->needs_scratch = li.global_scratch_size > 0 || li.profile_scratch_size > 0;
  f->ctx = ctx_;

  // Static checks before touching the driver, so their messages are not masked by load errors.
  // Selection has already refused images beyond the shared memory and block size of the archs
  // arch_limits.hpp knows; these compare the driver's own numbers, for a GPU the tables do not.
  const std::string who = "kernel " + k.name + " (" + f->image->arch + " " + image_kind_name(f->image->kind) + ")";
  if (li.shared > default_shared_bytes && li.shared > props().max_shared_optin)
    throw error(errc::unsupported, who + " needs " + std::to_string(li.shared) + " bytes of shared memory per block but " +
                                       props().describe() + " allows at most " + std::to_string(props().max_shared_optin) +
                                       " (with opt-in); choose a config with fewer stages or smaller blocks");
  if (li.tmem_size > 512)
    throw error(errc::unsupported, who + " needs " + std::to_string(li.tmem_size) + " tensor-memory columns (at most 512)");
  const unsigned num_ctas = li.num_ctas ? li.num_ctas : 1;
  const bool need_ex = num_ctas > 1 || li.launch_cooperative_grid || li.launch_pdl;
  if (need_ex && !d_.fn.cuLaunchKernelEx)
    throw error(errc::unsupported, who + " needs cuLaunchKernelEx (clusters, cooperative or PDL launch), which the driver lacks");
  if (num_ctas > 1 && !props().cluster_launch)
    throw error(errc::unsupported, who + " uses clusters of " + std::to_string(num_ctas) + " CTAs; " + props().describe() +
                                       " does not support cluster launch");
  if (li.launch_cooperative_grid && !props().cooperative_launch)
    throw error(errc::unsupported, who + " needs a cooperative launch, which " + props().describe() + " does not support");
  if (f->plan.uses_tma && !d_.fn.cuTensorMapEncodeTiled)
    throw error(errc::unsupported, who + " takes TMA tensor descriptors; the driver lacks cuTensorMapEncodeTiled");
  const std::uint64_t block = std::uint64_t{li.warp_size ? li.warp_size : 32} * (li.num_warps ? li.num_warps : 1);
  if (block > 1024)
    throw error(errc::unsupported, who + " needs " + std::to_string(block) + " threads per block; CUDA allows at most 1024");

  const auto t1 = std::chrono::steady_clock::now();
  const std::vector<std::uint8_t> bytes = c.decode_image(*choice.image);  // decodes only up to the image
  const std::string decode_time = log::enabled() ? log::ms_since(t1) : std::string();
  std::string how;
  const auto t2 = std::chrono::steady_clock::now();
  f->module = load_module(bytes, *f->image, k, choice.jit, how);
  struct module_guard {  // unload on any failure below
    const driver& d;
    function* f;
    ~module_guard() {
      if (f) d.fn.cuModuleUnload(f->module);
    }
  } guard{d_, f.get()};
  const std::string load_time = log::enabled() ? log::ms_since(t2) : std::string();

  d_.check(d_.fn.cuModuleGetFunction(&f->fn, f->module, li.entry.c_str()),
           who + ": cuModuleGetFunction(\"" + li.entry + "\")");
  // The compiled function's own thread limit (.maxntid) is not queried here: a block above it
  // fails the launch, and launch() then asks the driver why (launch_error).
  f->block = static_cast<unsigned>(block);
  f->shared = li.shared;
  f->num_ctas = num_ctas;
  // Shared memory above the default 48 KB needs the opt-in attribute, sized as Triton does:
  // the device's opt-in limit minus the function's static shared memory.
  if (li.shared > default_shared_bytes && li.shared > props().max_shared_default) {
    int static_shared = 0;
    d_.check(d_.fn.cuFuncGetAttribute(&static_shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f->fn),
             who + ": cuFuncGetAttribute(SHARED_SIZE_BYTES)");
    d_.check(d_.fn.cuFuncSetCacheConfig(f->fn, CU_FUNC_CACHE_PREFER_SHARED), who + ": cuFuncSetCacheConfig(PREFER_SHARED)");
    d_.check(d_.fn.cuFuncSetAttribute(f->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                      static_cast<int>(props().max_shared_optin) - static_shared),
             who + ": cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
  }
  if (num_ctas == 16)
    d_.check(d_.fn.cuFuncSetAttribute(f->fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
             who + ": cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)");
  if (li.launch_pdl) {
    f->attrs[f->attr_count].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    f->attrs[f->attr_count++].value.programmaticStreamSerializationAllowed = 1;
  }
  if (li.launch_cooperative_grid) {
    f->attrs[f->attr_count].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    f->attrs[f->attr_count++].value.cooperative = 1;
  }
  if (num_ctas > 1) {
    f->attrs[f->attr_count].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    f->attrs[f->attr_count].value.clusterDim.x = num_ctas;
    f->attrs[f->attr_count].value.clusterDim.y = 1;
    f->attrs[f->attr_count++].value.clusterDim.z = 1;
    f->attrs[f->attr_count].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
    f->attrs[f->attr_count++].value.clusterSchedulingPolicyPreference = CU_CLUSTER_SCHEDULING_POLICY_SPREAD;
  }
  if (f->jit || !abi_verified(li.triton_version) || env::flag(env::verify_abi)) check_abi(*f, k);
  guard.f = nullptr;
  if (log::enabled()) log::line("kernel " + k.name + " variant " + std::to_string(variant) + " on " + props().describe() + ": image [" +
            std::to_string(*choice.image) + "] " + image_kind_name(f->image->kind) + " " + f->image->arch + " — " +
            choice.reason + "; " + how + "; decode " + decode_time + ", load " + load_time + ", total " + log::ms_since(t0));
  return f;
}

inline void context::encode_tma(void* self, const tma_encode_args& a, void* map128, const std::string& arg_name) {
  const driver& d = static_cast<context*>(self)->d_;
  const CUresult r = d.fn.cuTensorMapEncodeTiled(static_cast<CUtensorMap*>(map128), a.data_type, a.rank,
                                                 reinterpret_cast<void*>(static_cast<std::uintptr_t>(a.global_address)),
                                                 a.global_dim, a.global_strides, a.box_dim, a.element_strides, a.interleave,
                                                 a.swizzle, a.l2_promotion, a.oob_fill);
  if (r != CUDA_SUCCESS)
    throw error(errc::bad_argument, "tensor descriptor argument '" + arg_name + "': cuTensorMapEncodeTiled failed: " + d.status(r), r);
}

// Global scratch (shared/triton-abi.md §1). Each launch in flight needs its own region; the
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
  const std::size_t align = need.align > 256 ? need.align : 256;  // cuMemAlloc gives 256-byte alignment
  const std::size_t bytes = static_cast<std::size_t>(need.total) + (align > 256 ? align : 0);
  auto place = [&](CUdeviceptr base) {
    const CUdeviceptr p = (base + align - 1) / align * align;
    scratch[0] = need.global_bytes ? reinterpret_cast<void*>(static_cast<std::uintptr_t>(p)) : nullptr;
    scratch[1] = need.profile_bytes ? reinterpret_cast<void*>(static_cast<std::uintptr_t>(p + need.profile_offset)) : nullptr;
  };
  auto who = [&f] { return "kernel " + std::string(f.kernel ? f.kernel->name : "?"); };
  int status = 0;
  d_.check_lazy(d_.fn.cuStreamIsCapturing(stream, &status), [&] { return who() + ": cuStreamIsCapturing"; });
  if (status != CU_STREAM_CAPTURE_STATUS_NONE) {
    int mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    d_.check_lazy(d_.fn.cuThreadExchangeStreamCaptureMode(&mode), [&] { return who() + ": cuThreadExchangeStreamCaptureMode"; });
    CUdeviceptr p = 0;
    const CUresult r = d_.fn.cuMemAlloc(&p, bytes);
    int restore = mode;
    d_.fn.cuThreadExchangeStreamCaptureMode(&restore);
    d_.check_lazy(r, [&] {
      return who() + ": cuMemAlloc of " + std::to_string(bytes) + " bytes of global scratch during graph capture";
    });
    std::lock_guard<std::mutex> lock(scratch_mutex_);
    captured_.push_back(p);
    place(p);
    return;
  }
  unsigned long long id = 0;
  if (d_.fn.cuStreamGetId) d_.check_lazy(d_.fn.cuStreamGetId(stream, &id), [&] { return who() + ": cuStreamGetId"; });
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
  d_.check(d_.fn.cuMemAlloc(&p, grow), who() + ": cuMemAlloc of " + std::to_string(grow) + " bytes of global scratch");
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

inline void context::launch(loaded_function& lf, grid3 g, stream_t stream_, const void* const* args) {
  function& f = static_cast<function&>(lf);
  check_grid_limits(launch_grid_limits, *f.kernel, g, f.num_ctas, f.block);  // before scratch is sized for it
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
    storage = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(storage_heap.get()) + 127) & ~std::uintptr_t{127});
  }
  assemble_params(f.plan, *f.kernel, f.image->launch, args, params, storage, scratch, &context::encode_tma, this);

  const std::uint64_t gx = std::uint64_t{g.x} * f.num_ctas;
  CUresult r;
  if (f.attr_count == 0) {
    r = d_.fn.cuLaunchKernel(f.fn, static_cast<unsigned>(gx), g.y, g.z, f.block, 1, 1, f.shared, stream, params, nullptr);
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
      d_.fn.cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f.fn) == CUDA_SUCCESS &&
      f.block > static_cast<unsigned>(max_threads))
    return error(errc::unsupported,
                 "kernel " + f.kernel->name + " (" + f.image->arch + " " + image_kind_name(f.image->kind) + ") needs " +
                     std::to_string(f.block) + " threads per block (num_warps x warp size); the compiled function allows " +
                     std::to_string(max_threads) + ": the container's metadata and its image disagree (launch: " +
                     d_.status(r) + ")",
                 r);
  const errc code = r == CUDA_ERROR_OUT_OF_MEMORY ? errc::out_of_memory : errc::launch_failed;
  return error(code,
               "launch of kernel " + f.kernel->name + " (" + f.image->arch + " " + image_kind_name(f.image->kind) +
                   ") with grid " + std::to_string(g.x) + "x" + std::to_string(g.y) + "x" + std::to_string(g.z) +
                   " programs, block " + std::to_string(f.block) + ", " + std::to_string(f.shared) + " bytes shared, on " +
                   props().describe() + " failed: " + d_.status(r),
               r);
}

inline void context::unload(loaded_function& lf) noexcept {
  function& f = static_cast<function&>(lf);
  if (!f.module) return;
  scoped_context scope(d_, ctx_);
  d_.fn.cuModuleUnload(f.module);  // failure (e.g. a context already destroyed) leaves nothing to do
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

// ---------------------------------------------------------------------------------------------
// The backend.

class cuda_backend final : public backend {
 public:
  explicit cuda_backend(std::unique_ptr<driver> d) : d_(std::move(d)), contexts_(*d_) {}
  backend_kind kind() const noexcept override { return backend_kind::cuda; }
  std::string describe() const override { return "CUDA driver " + d_->library + " (" + d_->version_string() + ")"; }
  const driver& drv() const noexcept { return *d_; }

  void* current_context() override { return contexts_.current(); }

  std::unique_ptr<context_state> open_context(void* ctx) override {
    return std::make_unique<context>(*d_, static_cast<CUcontext>(ctx));
  }
  const grid_limits& max_grid() const noexcept override { return launch_grid_limits; }

  // The devices' primary contexts (cuda_memory.hpp's set_device uses them too).
  primary_contexts& contexts() noexcept { return contexts_; }

 private:
  std::unique_ptr<driver> d_;
  primary_contexts contexts_;  // device 0's is what a thread without a current context gets
};

}  // namespace cuda
}  // namespace tritonpack
