// tritonpack/runtime/load_plan.hpp — what loading a variant is before a driver is touched, the same
// for every backend: the device target (the device's facts and the environment's overrides), the
// selection of one image (select/image.hpp: a binary that runs, or an IR to JIT-compile — NVIDIA's
// PTX, AMD's LLVM IR — reported the same way), the parameter plan (launch/params.hpp), and the
// image's decode. A backend then checks the plan against its device, loads the bytes, and fills in
// what its launches need.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tritonpack/container/reader.hpp"
#include "tritonpack/core/env.hpp"
#include "tritonpack/core/identify.hpp"
#include "tritonpack/core/log.hpp"
#include "tritonpack/core/model.hpp"
#include "tritonpack/launch/params.hpp"
#include "tritonpack/runtime/backend.hpp"
#include "tritonpack/select/image.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

// The device a selection is made for: `backend`, `arch` and the driver's version with
// TRITONPACK_FORCE_IR and TRITONPACK_FORCE_IMAGE applied. Every selection that stands for a launch
// (a load, the backend choice's image fit) takes its target from here, so all read the environment
// alike.
inline device_target load_target(backend_kind backend, std::string arch,
                                 std::uint32_t driver_version) {
  device_target t;
  t.backend = backend;
  t.arch = std::move(arch);
  t.driver_version = driver_version;
  t.force_ir = env::flag(env::force_ir);
  t.force_image = parse_forced_image(env::get(env::force_image));
  return t;
}

// The same for the device of `props` (whose constructor-set fields suffice: backend, arch, driver
// version).
inline device_target load_target(const device_props& props) {
  return load_target(props.backend, props.arch, props.driver_version);
}

struct load_plan {
  const container* source = nullptr;
  const kernel_info* kernel = nullptr;
  const variant_info* variant = nullptr;
  std::uint32_t variant_index = 0;
  device_target target;
  image_choice choice;                // the image, whether it is JIT-compiled, and why
  const image_info* image = nullptr;  // = &info.images[*choice.image]
  param_plan params;
  std::string who;  // "kernel NAME (sm_90a cubin)", for messages
  std::chrono::steady_clock::time_point started;

  std::uint32_t image_index() const noexcept { return *choice.image; }
  const launch_info& launch() const noexcept { return image->launch; }

  // The chosen image's bytes (decodes only up to it; a view, not a copy: image_view). `took` is
  // the time it took, for the log.
  image_view decode(std::string& took) const {
    const auto t = std::chrono::steady_clock::now();
    image_view bytes = source->decode_view(image_index());
    took = log::enabled() ? log::ms_since(t) : std::string();
    return bytes;
  }

  // Why this image: the selection's reason, then every image of the variant with its verdict
  // (describe_choice's lines), for an error about the chosen image, e.g. an IR that cannot be
  // compiled here. Selects again, explaining: only failure paths call this.
  std::string selection_report() const {
    const container_info& info = source->partial_info();
    const image_choice full = select_image(info, *variant, target, /*explain=*/true);
    return full.reason + "\n" + describe_choice(info, full, target);
  }

  // Copies the plan into the backend's loaded function.
  void fill(loaded_function& f) const {
    f.kernel = kernel;
    f.variant = variant;
    f.image_index = image_index();
    f.image = image;
    f.jit = choice.jit;
    f.plan = params;
  }

  // "kernel NAME variant V on DEVICE: image [I] cubin sm_90a (Triton 3.6.0, ptxas 12.8.93) —
  // REASON", the start of a load's log line.
  std::string log_prefix(const device_props& props) const {
    return identify(*kernel) + " variant " + std::to_string(variant_index) + " on " +
           props.describe() + ": image [" + std::to_string(image_index()) + "] " +
           identify(*image) + " (" + built_by() + ") — " + choice.reason;
  }

  // What produced the image, as far as its container records it (docs/runtime.md, TRITONPACK_LOG):
  // "Triton 3.6.0 commit 0123abcd, ptxas 12.8.93"; "not recorded" where it does not say.
  std::string built_by() const {
    const std::string& triton = image->launch.triton_version;
    const std::string& commit = source->partial_info().triton_commit;
    std::string s = "Triton " + (triton.empty() ? std::string("not recorded") : triton);
    if (!commit.empty()) s += " commit " + commit;
    if (is_binary(image->kind))
      s += std::string(image->kind == image_kind::cubin ? ", ptxas " : ", LLVM ") +
           (image->tool_version.empty() ? "not recorded" : image->tool_version);
    return s;
  }
};

namespace detail {
// plan_load's work for the device whose selection facts are `basic` (backend, arch, driver
// version); `device_text()` words the device for the error when no image runs.
template <class DeviceText>
load_plan plan_load_for(const container& c, std::uint32_t kernel_index, std::uint32_t variant,
                        const device_props& basic, DeviceText&& device_text) {
  load_plan p;
  p.started = std::chrono::steady_clock::now();
  p.source = &c;
  p.kernel = &c.kernel(kernel_index);             // builds the kernel's model and its images
  const container_info& info = c.partial_info();  // ... which is all selection reads
  p.variant = &p.kernel->variants.at(variant);
  p.variant_index = variant;
  p.target = load_target(basic);
  p.choice = select_image(info, *p.variant, p.target, /*explain=*/log::enabled());
  if (!p.choice.image)  // selects again, explaining, and throws
    p.choice = select_image_or_throw(info, *p.kernel, variant, p.target, device_text());
  p.image = &info.images[p.image_index()];
  p.params = build_param_plan(*p.kernel, *p.variant, p.image->launch);
  p.who = identify(*p.kernel, *p.image);
  return p;
}
}  // namespace detail

// Selects the image variant `variant` of kernel `kernel_index` runs on the device of `props`, and
// plans its parameters. Throws what selection reports when no image runs (select_image_or_throw).
inline load_plan plan_load(const container& c, std::uint32_t kernel_index, std::uint32_t variant,
                           const device_props& props) {
  return detail::plan_load_for(c, kernel_index, variant, props, [&] { return props.describe(); });
}

// The same for the device of context `state`, from the facts its constructor read
// (context_state::basic_props): the device's name and limits are read (props()) only to say why
// no image runs.
inline load_plan plan_load(const container& c, std::uint32_t kernel_index, std::uint32_t variant,
                           const context_state& state) {
  return detail::plan_load_for(c, kernel_index, variant, state.basic_props(),
                               [&] { return state.props().describe(); });
}

TRITONPACK_END_NAMESPACE
