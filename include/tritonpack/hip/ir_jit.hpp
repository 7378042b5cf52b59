// tritonpack/hip/ir_jit.hpp — the AMD IR path: when no code object of a variant runs on the device
// (or TRITONPACK_FORCE_IR / TRITONPACK_FORCE_IMAGE=llir:... asks for the IR), selection chooses the
// LLVM IR image built for the device's exact gfx processor, which is compiled here through comgr
// (hip/comgr.hpp) and cached on disk like the PTX JIT (runtime/jit_cache.hpp's get_or_compile).
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

#include "tritonpack/container/reader.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/core/identify.hpp"
#include "tritonpack/core/log.hpp"
#include "tritonpack/core/model.hpp"
#include "tritonpack/hip/comgr.hpp"
#include "tritonpack/runtime/backend.hpp"
#include "tritonpack/runtime/jit_cache.hpp"
#include "tritonpack/runtime/load_plan.hpp"
#include "tritonpack/select/arch.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
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

// Why comgr cannot compile for `device_arch` before trying (no library, processor unknown), or "".
inline std::string comgr_cannot_target(const comgr_loaded& cg, const std::string& device_arch) {
  if (!cg.lib) return cg.why;
  const auto dev = parse_amd_arch(device_arch);
  const std::string processor = dev ? dev->processor : device_arch;
  if (!cg.lib->knows_processor(processor))
    return cg.lib->describe() + " does not know " + processor + " (its newest ISA is " +
           cg.lib->newest_isa() + "): it is older than this GPU";
  return "";
}

// The code object compiled from the plan's image (LLVM IR, which selection chose because no code
// object runs) for the device of `props`, from the cache or through comgr; `how` says which (for
// the log). `hip_version` keys the cache: comgr ships with ROCm, so a ROCm upgrade recompiles.
// Throws error(no_image) with the selection report (every code object and why it does not run) and
// one line saying why the IR could not be compiled.
inline std::vector<std::uint8_t> compile_llir(const load_plan& p, const device_props& props,
                                              std::uint32_t hip_version, std::string& how) {
  const image_info& im = *p.image;
  const comgr_loaded& cg = comgr_once();
  auto cannot = [&](const std::string& why) {
    const std::string msg = identify(*p.kernel) + " (variant " + std::to_string(p.variant_index) +
                            ") has no image for " + props.describe() +
                            " that can run: " + p.selection_report() + "  llir " + im.arch +
                            " cannot be JIT-compiled here: " + why;
    log::line(msg);
    return error(errc::no_image, msg);
  };
  std::string why = comgr_cannot_target(cg, props.arch);
  if (!why.empty()) throw cannot(why);
  // Decoded before the cache is asked: an entry is used only when compiled from exactly these
  // bytes.
  const std::vector<std::uint8_t> ir = p.source->decode_image(p.image_index());
  auto compile = [&] {
    std::vector<std::uint8_t> code = cg.lib->compile(ir, props.arch, why);
    if (code.empty())
      throw cannot(why + (why.find("LLVM IR") != std::string::npos
                              ? " (this comgr's LLVM is older than the LLVM 22 Triton 3.6 wrote "
                                "the IR with; use the code objects)"
                              : ""));
    return code;
  };
  auto any_entry = [](const std::vector<std::uint8_t>&) {
    return std::string();
  };  // hipModuleLoadData checks it
  // The key's arch part: the device's whole target, features included (a code object compiled for
  // xnack- must never be handed to an xnack+ GPU of the same gfx), with each feature's sign spelled
  // out, as jit_cache::file_name makes '+' and '-' alike into '_'; then the comgr version (two
  // comgrs on one ROCm do not share entries).
  std::string target;
  for (char c : props.arch) target += c == '+' ? "on" : c == '-' ? "off" : std::string(1, c);
  const std::string key_arch =
      target + "-comgr" + std::to_string(cg.lib->major) + "." + std::to_string(cg.lib->minor);
  return jit_cache::get_or_compile(jit_cache::file_name(im.checksum, key_arch, hip_version), ir,
                                   cg.lib->describe(), compile, any_entry, how);
}

}  // namespace hip
TRITONPACK_END_NAMESPACE
