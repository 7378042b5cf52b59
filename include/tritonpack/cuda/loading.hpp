// tritonpack/cuda/loading.hpp — how the NVIDIA backend turns a load plan into a function it can
// launch: the plan checked against the device, the cubin loaded or the PTX JIT-compiled (through
// the disk cache, runtime/jit_cache.hpp), the launch attributes, and the ABI check.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tritonpack/core/env.hpp"
#include "tritonpack/core/identify.hpp"
#include "tritonpack/core/load_stats.hpp"
#include "tritonpack/core/log.hpp"
#include "tritonpack/cuda/api.hpp"
#include "tritonpack/cuda/driver.hpp"
#include "tritonpack/runtime/backend.hpp"
#include "tritonpack/runtime/jit_cache.hpp"
#include "tritonpack/runtime/load_plan.hpp"
#include "tritonpack/select/arch.hpp"
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

// A frame of at most this many stored bytes identifies a cached JIT's PTX by its bytes
// (container::decode_identity): the entry then holds them, and a warm load compares them instead
// of decoding the PTX. Above it (a kernel with very many variants in one frame) the entry holds the
// PTX, as before.
inline constexpr std::uint64_t jit_identity_max_frame = std::uint64_t{1} << 20;

// The PTX image of plan `p` JIT-compiled for the device of `props` (its arch keys the cache),
// through the cache when the driver has the linker API and a cache directory is set. The PTX is
// decoded (`decode_time`) only to be compiled: a cache entry is matched to it by what its decode is
// a function of (container::decode_identity: the frame's stored bytes and the image's place in it),
// compared byte for byte, so a warm load decodes nothing.
inline CUmodule jit_ptx(const driver& d, const device_props& props, const load_plan& p,
                        std::string& decode_time, const image_info& im, const kernel_info& k,
                        std::string& how) {
  std::vector<std::uint8_t> ptx;
  auto decode_ptx = [&] {
    if (!ptx.empty()) return;
    ptx = p.decode(decode_time).take();
    // The driver reads PTX as a NUL-terminated string.
    if (ptx.empty() || ptx.back() != 0) ptx.push_back(0);
  };
  char info_log[8192] = {}, error_log[8192] = {};
  auto too_new = [&](CUresult r) {
    return error(errc::ptx_too_new,
                 identify(k) + ": the driver (" + d.version_string() + ") refused the PTX for " +
                     im.arch + " because it needs PTX ISA " + ptx_isa_string(im.ptx_version) +
                     " (" + d.status(r) + "). Install " +
                     driver_needed_for_ptx_isa(im.ptx_version) + ", or repack with cubins for " +
                     props.arch,
                 r);
  };
  auto failed = [&](CUresult r, const char* call) {
    if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION) return too_new(r);
    std::string log_text = error_log;
    if (log_text.empty()) log_text = info_log;
    return error(errc::jit_failed,
                 identify(k) + ": JIT compilation of the PTX for " + im.arch + " (ISA " +
                     ptx_isa_string(im.ptx_version) + ") on " + props.describe() + " failed in " +
                     call + ": " + d.status(r) +
                     (log_text.empty() ? std::string() : "\nJIT log:\n" + log_text),
                 r);
  };
  int opts[5] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                 CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_LOG_VERBOSE};
  void* vals[5] = {
      info_log, reinterpret_cast<void*>(static_cast<std::uintptr_t>(sizeof info_log - 1)),
      error_log, reinterpret_cast<void*>(static_cast<std::uintptr_t>(sizeof error_log - 1)),
      reinterpret_cast<void*>(static_cast<std::uintptr_t>(0))};

  const bool can_link =
      d.fn.cuLinkCreate && d.fn.cuLinkAddData && d.fn.cuLinkComplete && d.fn.cuLinkDestroy;
  if (can_link && jit_cache::directory()) {
    CUmodule m = nullptr;
    // A cached cubin is used when the driver loads it.
    auto loads = [&](const std::vector<std::uint8_t>& cubin) {
      const CUresult r = d.fn.cuModuleLoadData(&m, cubin.data());
      if (r == CUDA_SUCCESS) return std::string();
      m = nullptr;
      return d.status(r);
    };
    // Compiled through the linker: unlike cuModuleLoadDataEx it hands back the cubin to cache.
    auto link_ptx = [&] {
      decode_ptx();
      CUlinkState link = nullptr;
      CUresult r = d.fn.cuLinkCreate(5, opts, vals, &link);
      if (r != CUDA_SUCCESS) throw failed(r, "cuLinkCreate");
      struct link_guard {
        const driver& d;
        CUlinkState s;
        ~link_guard() { d.fn.cuLinkDestroy(s); }
      } guard{d, link};
      r = d.fn.cuLinkAddData(link, CU_JIT_INPUT_PTX, ptx.data(), ptx.size(), k.name.c_str(), 0,
                             nullptr, nullptr);
      if (r != CUDA_SUCCESS) throw failed(r, "cuLinkAddData");
      void* cubin = nullptr;
      std::size_t cubin_size = 0;
      r = d.fn.cuLinkComplete(link, &cubin, &cubin_size);
      if (r != CUDA_SUCCESS) throw failed(r, "cuLinkComplete");
      return std::vector<std::uint8_t>(static_cast<std::uint8_t*>(cubin),
                                       static_cast<std::uint8_t*>(cubin) + cubin_size);
    };
    // What the entry is matched by: the PTX's decode identity, or the PTX itself where it has none.
    const std::vector<std::uint8_t> identity =
        p.source->decode_identity(p.image_index(), jit_identity_max_frame);
    if (identity.empty()) decode_ptx();
    const std::vector<std::uint8_t> cubin = jit_cache::get_or_compile(
        jit_cache::file_name(im.checksum, props.arch, d.version), identity.empty() ? ptx : identity,
        "the CUDA driver's linker", link_ptx, loads, how);
    if (!m)
      d.check(d.fn.cuModuleLoadData(&m, cubin.data()),
              identify(k) + ": cuModuleLoadData of the JIT-compiled cubin");
    return m;
  }
  decode_ptx();
  CUmodule m = nullptr;
  const CUresult r = d.fn.cuModuleLoadDataEx(&m, ptx.data(), 5, opts, vals);
  if (r != CUDA_SUCCESS) throw failed(r, "cuModuleLoadDataEx");
  detail::count_load(&detail::image_load_counters::jit_compiled);
  how = can_link ? "JIT-compiled (cuModuleLoadDataEx; TRITONPACK_CACHE=0 or no cache directory)"
                 : "JIT-compiled (cuModuleLoadDataEx; the driver lacks the linker API, not cached)";
  return m;
}

// The module of plan `p`'s image `im`: a cubin decoded and loaded where it lies, or PTX
// JIT-compiled (`jit`). The device of `state` is described (its name read) only for the JIT or an
// error. `loading` is when the load began, after the cubin's decode (for the log).
inline CUmodule load_module(const driver& d, const context_state& state, const load_plan& p,
                            std::string& decode_time, const image_info& im, const kernel_info& k,
                            bool jit, std::string& how,
                            std::chrono::steady_clock::time_point& loading) {
  loading = std::chrono::steady_clock::now();
  if (jit) return jit_ptx(d, state.props(), p, decode_time, im, k, how);
  const image_view bytes = p.decode(decode_time);
  loading = std::chrono::steady_clock::now();
  CUmodule m = nullptr;
  const CUresult r = d.fn.cuModuleLoadData(&m, bytes.data());
  if (r != CUDA_SUCCESS) {
    const device_props& props = state.props();
    errc code = r == CUDA_ERROR_OUT_OF_MEMORY ? errc::out_of_memory : errc::driver_error;
    if (r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_INVALID_IMAGE) code = errc::no_image;
    throw error(code,
                identify(k) + ": cuModuleLoadData of the cubin for " + im.arch + " on " +
                    props.describe() + " failed: " + d.status(r),
                r);
  }
  detail::count_load(&detail::image_load_counters::binaries);
  how = "cubin loaded";
  return m;
}

// Compares the compiled kernel's parameter list with what the plan passes (cuFuncGetParamInfo,
// CUDA 12.4+): catches a Triton ABI change before it corrupts a launch. Run for JIT-compiled PTX,
// for cubins of a Triton release whose ABI was not verified on a GPU (triton_abi::gpu_verified,
// launch/triton_abi.hpp: the check costs about 30 us of driver calls in a fresh process, a tenth
// of a first launch, so verified releases skip it), and always under TRITONPACK_VERIFY_ABI=1 (the
// GPU tests run with it).
inline void check_abi(const driver& d, const function& f, const kernel_info& k) {
  if (!d.fn.cuFuncGetParamInfo) return;
  std::vector<std::size_t> sizes;
  for (std::size_t i = 0; i < 4096; ++i) {
    std::size_t off = 0, size = 0;
    const CUresult r = d.fn.cuFuncGetParamInfo(f.fn, i, &off, &size);
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
    throw error(errc::bad_container,
                identify(k) + ": the compiled kernel (" + f.image->arch + " " +
                    image_kind_name(f.image->kind) + ", Triton " + f.image->launch.triton_version +
                    ") takes parameters of sizes [" + list(sizes) +
                    "] but the run time would pass [" + list(f.plan.param_sizes) +
                    "]: the container and the run time disagree on Triton's launch ABI");
  }
}

// Every NVIDIA GPU since Fermi gives a block 48 KB of shared memory without the opt-in
// attribute, and every one allows at least that with it: only kernels above it need the
// device's limits.
inline constexpr std::uint32_t default_shared_bytes = 48 * 1024;

// The function `p` plans, loaded in context `ctx` (which is current) of the device of `state`: the
// plan checked against the device, the module loaded (cubin) or JIT-compiled (PTX), the
// function's launch attributes set, its parameters checked against the plan where needed. The
// device's name and limits (state.props()) are read only where the image needs them or an error
// names the device.
inline std::unique_ptr<function> load_function(const driver& d, const context_state& state,
                                               CUcontext ctx, const load_plan& p) {
  const kernel_info& k = *p.kernel;
  auto f = std::make_unique<function>();
  p.fill(*f);
  const launch_info& li = p.launch();
  f->needs_scratch = li.global_scratch_size > 0 || li.profile_scratch_size > 0;
  f->ctx = ctx;

  // Static checks before touching the driver, so their messages are not masked by load errors.
  // Selection has already refused images beyond the shared memory and block size of the archs
  // select/arch_limits.hpp knows; these compare the driver's own numbers, for a GPU the tables do
  // not.
  const std::string& who = p.who;
  if (li.shared > default_shared_bytes && li.shared > state.props().max_shared_optin)
    throw error(errc::unsupported,
                who + " needs " + std::to_string(li.shared) +
                    " bytes of shared memory per block but " + state.props().describe() +
                    " allows at most " + std::to_string(state.props().max_shared_optin) +
                    " (with opt-in); choose a config with fewer stages or smaller blocks");
  if (li.tmem_size > 512)
    throw error(errc::unsupported, who + " needs " + std::to_string(li.tmem_size) +
                                       " tensor-memory columns (at most 512)");
  const unsigned num_ctas = li.num_ctas ? li.num_ctas : 1;
  const bool need_ex = num_ctas > 1 || li.launch_cooperative_grid || li.launch_pdl;
  if (need_ex && !d.fn.cuLaunchKernelEx)
    throw error(errc::unsupported, who +
                                       " needs cuLaunchKernelEx (clusters, cooperative or PDL "
                                       "launch), which the driver lacks");
  if (num_ctas > 1 && !state.props().cluster_launch)
    throw error(errc::unsupported, who + " uses clusters of " + std::to_string(num_ctas) +
                                       " CTAs; " + state.props().describe() +
                                       " does not support cluster launch");
  if (li.launch_cooperative_grid && !state.props().cooperative_launch)
    throw error(errc::unsupported, who + " needs a cooperative launch, which " +
                                       state.props().describe() + " does not support");
  if (f->plan.uses_tma && !d.fn.cuTensorMapEncodeTiled)
    throw error(errc::unsupported,
                who + " takes TMA tensor descriptors; the driver lacks cuTensorMapEncodeTiled");
  const std::uint64_t block =
      std::uint64_t{li.warp_size ? li.warp_size : 32} * (li.num_warps ? li.num_warps : 1);
  if (block > 1024)
    throw error(errc::unsupported, who + " needs " + std::to_string(block) +
                                       " threads per block; CUDA allows at most 1024");

  std::string decode_time, how;
  std::chrono::steady_clock::time_point t2;
  f->module = load_module(d, state, p, decode_time, *f->image, k, f->jit, how, t2);
  struct module_guard {  // unload on any failure below
    const driver& d;
    function* f;
    ~module_guard() {
      if (f) d.fn.cuModuleUnload(f->module);
    }
  } guard{d, f.get()};
  const std::string load_time = log::enabled() ? log::ms_since(t2) : std::string();

  d.check(d.fn.cuModuleGetFunction(&f->fn, f->module, li.entry.c_str()),
          who + ": cuModuleGetFunction(\"" + li.entry + "\")");
  // The compiled function's own thread limit (.maxntid) is not queried here: a block above it
  // fails the launch, and launch() then asks the driver why (launch_error).
  f->block = static_cast<unsigned>(block);
  f->shared = li.shared;
  f->num_ctas = num_ctas;
  // Shared memory above the default 48 KB needs the opt-in attribute, sized as Triton does:
  // the device's opt-in limit minus the function's static shared memory.
  if (li.shared > default_shared_bytes && li.shared > state.props().max_shared_default) {
    int static_shared = 0;
    d.check(d.fn.cuFuncGetAttribute(&static_shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f->fn),
            who + ": cuFuncGetAttribute(SHARED_SIZE_BYTES)");
    d.check(d.fn.cuFuncSetCacheConfig(f->fn, CU_FUNC_CACHE_PREFER_SHARED),
            who + ": cuFuncSetCacheConfig(PREFER_SHARED)");
    d.check(
        d.fn.cuFuncSetAttribute(f->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                static_cast<int>(state.props().max_shared_optin) - static_shared),
        who + ": cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
  }
  if (num_ctas == 16)
    d.check(d.fn.cuFuncSetAttribute(f->fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
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
    f->attrs[f->attr_count++].value.clusterSchedulingPolicyPreference =
        CU_CLUSTER_SCHEDULING_POLICY_SPREAD;
  }
  if (f->jit || !f->plan.abi.gpu_verified || env::flag(env::verify_abi)) check_abi(d, *f, k);
  guard.f = nullptr;
  if (log::enabled())
    log::line(p.log_prefix(state.props()) + "; " + how + "; " +
              (decode_time.empty() ? std::string("nothing decoded") : "decode " + decode_time) +
              ", load " + load_time + ", total " + log::ms_since(p.started));
  return f;
}

}  // namespace cuda
TRITONPACK_END_NAMESPACE
