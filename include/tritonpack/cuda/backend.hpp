// tritonpack/cuda/backend.hpp — the NVIDIA backend: the driver (cuda/driver.hpp, with the devices'
// primary contexts) and a context per (library, CUDA context) (cuda/context.hpp: loading through
// cuda/loading.hpp, Triton's launch). The memory and device API is cuda/memory.hpp.
#pragma once

#include <memory>
#include <string>

#include "tritonpack/cuda/context.hpp"
#include "tritonpack/cuda/driver.hpp"
#include "tritonpack/runtime/backend.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace cuda {

// ---------------------------------------------------------------------------------------------
// The backend.

class cuda_backend final : public backend {
 public:
  explicit cuda_backend(std::unique_ptr<driver> d) : d_(std::move(d)), contexts_(*d_) {}
  backend_kind kind() const noexcept override { return backend_kind::cuda; }
  std::string describe() const override {
    return "CUDA driver " + d_->library + " (" + d_->version_string() + ")";
  }
  const driver& drv() const noexcept { return *d_; }

  void* current_context() override { return contexts_.current(); }

  std::unique_ptr<context_state> open_context(void* ctx) override {
    return std::make_unique<context>(*d_, static_cast<CUcontext>(ctx));
  }
  const grid_limits& max_grid() const noexcept override { return launch_grid_limits; }

  // The devices' primary contexts (cuda/memory.hpp's set_device uses them too).
  primary_contexts& contexts() noexcept { return contexts_; }

 private:
  std::unique_ptr<driver> d_;
  primary_contexts contexts_;  // device 0's is what a thread without a current context gets
};

}  // namespace cuda
TRITONPACK_END_NAMESPACE
