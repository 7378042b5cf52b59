// tritonpack/hip/ir_jit.hpp — the AMD IR path: when no code object of a variant runs on the device
// (or TRITONPACK_FORCE_IR / TRITONPACK_FORCE_IMAGE=llir:... asks for the IR), the LLVM IR image
// built for the device's exact gfx processor is compiled through comgr (hip/comgr.hpp) and cached on
// disk like the PTX JIT (runtime/jit_cache.hpp).
//
// Where it cannot succeed — no comgr, a comgr that does not know the processor, a comgr whose LLVM
// cannot read Triton 3.6's LLVM 22 IR (every released one we know of) — the launch fails with the
// selection report plus one line saying which. Only IR for the device's exact processor is
// compiled: Triton's IR names its target CPU and features, and is not portable across gfx.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tritonpack/select/arch.hpp"
#include "tritonpack/hip/comgr.hpp"
#include "tritonpack/container/reader.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/runtime/jit_cache.hpp"
#include "tritonpack/core/load_stats.hpp"
#include "tritonpack/core/log.hpp"
#include "tritonpack/core/model.hpp"

namespace tritonpack {
namespace hip {

// comgr, loaded once per process, or why it is not there.
struct comgr_loaded {
  std::unique_ptr<comgr::library> lib;
  std::string why;
};
inline const comgr_loaded& comgr_once() {
  static const comgr_loaded* s = [] {  // leaked, as the driver is (core/dynlib.hpp)
    auto* c = new comgr_loaded();
    c->lib = comgr::library::load(c->why);
    return c;
  }();
  return *s;
}

// The LLVM IR image of `v` for processor `device_arch` ("gfx942:sramecc+:xnack-" -> gfx942), if
// any and if TRITONPACK_FORCE_IMAGE (`forced`, already checked) does not name another image.
inline std::optional<std::uint32_t> llir_image_for(const container_info& c, const variant_info& v, const std::string& device_arch,
                                                  const std::string& forced) {
  const auto dev = parse_amd_arch(device_arch);
  if (!dev) return std::nullopt;
  for (std::uint32_t idx : v.images) {
    if (idx >= c.images.size()) continue;
    const image_info& im = c.images[idx];
    if (im.backend != backend_kind::hip || im.kind != image_kind::llir) continue;
    const auto a = parse_amd_arch(im.arch);
    if (!a || a->processor != dev->processor) continue;
    if (!forced.empty() && forced != "llir:" + im.arch) continue;
    return idx;
  }
  return std::nullopt;
}

// Why comgr cannot compile for `device_arch` before trying (no library, processor unknown), or "".
inline std::string comgr_cannot_target(const comgr_loaded& cg, const std::string& device_arch) {
  if (!cg.lib) return cg.why;
  const auto dev = parse_amd_arch(device_arch);
  const std::string processor = dev ? dev->processor : device_arch;
  if (!cg.lib->knows_processor(processor))
    return cg.lib->describe() + " does not know " + processor + " (its newest ISA is " + cg.lib->newest_isa() +
           "): it is older than this GPU";
  return "";
}

// The code object compiled from image `index` (LLVM IR) for `device_arch`, from the cache or
// through comgr; `how` says which (for the log). `hip_version` keys the cache: comgr ships with
// ROCm, so a ROCm upgrade recompiles. Throws error(no_image) with `selection_report` (the failed
// selection's message) and one line saying why the IR could not be compiled.
inline std::vector<std::uint8_t> compile_llir(const container& c, std::uint32_t index, const std::string& device_arch,
                                              std::uint32_t hip_version, const std::string& selection_report, std::string& how) {
  const image_info& im = c.partial_info().images[index];
  const comgr_loaded& cg = comgr_once();
  auto cannot = [&](const std::string& why) {
    const std::string msg = selection_report + "\n  llir " + im.arch + " cannot be JIT-compiled here: " + why;
    log::line(msg);
    return error(errc::no_image, msg);
  };
  std::string why = comgr_cannot_target(cg, device_arch);
  if (!why.empty()) throw cannot(why);
  const auto dir = jit_cache::directory();
  std::string path;
  if (dir) {
    // The comgr version in the arch part of the key: two comgrs on one ROCm do not share entries.
    path = *dir + "/" +
           jit_cache::file_name(im.checksum, device_arch + "-comgr" + std::to_string(cg.lib->major) + "." + std::to_string(cg.lib->minor),
                                hip_version);
    if (auto hit = jit_cache::read(path)) {
      detail::count_load(&detail::image_load_counters::jit_cache_hits);
      how = "JIT cache hit " + path;
      return *hit;
    }
  }
  const std::vector<std::uint8_t> ir = c.decode_image(index);
  std::vector<std::uint8_t> code = cg.lib->compile(ir, device_arch, why);
  if (code.empty())
    throw cannot(why + (why.find("LLVM IR") != std::string::npos
                            ? " (this comgr's LLVM is older than the LLVM 22 Triton 3.6 wrote the IR with; use the code objects)"
                            : ""));
  detail::count_load(&detail::image_load_counters::jit_compiled);
  if (dir) {
    const std::string w = jit_cache::write(*dir, path, code);
    if (!w.empty()) log::line("JIT cache not written: " + w);
    how = "JIT-compiled by " + cg.lib->describe() + ", " + (w.empty() ? "cached as " + path : "not cached");
  } else {
    how = "JIT-compiled by " + cg.lib->describe() + " (TRITONPACK_CACHE=0 or no cache directory: not cached)";
  }
  return code;
}

}  // namespace hip
}  // namespace tritonpack
