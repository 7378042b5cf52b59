// tritonpack/launch/config_launcher.hpp — how a generated function lets the run time launch config
// c of a tuned kernel with that config's grid (tune/autotune.hpp, typed_api.hpp): a callback,
// type-erased so the same call works in header-only and separate mode.
#pragma once

#include <cstddef>

#include "tritonpack/core/types.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

struct config_launcher {
  void* self = nullptr;
  void (*call)(void* self, std::size_t config, stream_t stream) = nullptr;
  void operator()(std::size_t config, stream_t stream) const { call(self, config, stream); }
  // Over a generated lambda `[&](std::size_t config, stream_t stream) {...}`, which must outlive
  // the launcher (it does: both live in the generated function's frame).
  template <class F>
  static config_launcher of(F& f) {
    return {&f, [](void* p, std::size_t c, stream_t s) { (*static_cast<F*>(p))(c, s); }};
  }
};

TRITONPACK_END_NAMESPACE
