// tritonpack/backends.hpp — which backend this process uses, decided once.
//
// TRITONPACK_BACKEND=cuda|hip forces one. Unset, the vendor whose driver is present with a device
// that some image of the open libraries fits, NVIDIA first (backend_choice.hpp); when neither has
// a GPU, the error says why neither can run (the NVIDIA diagnosis first, with its code, then the
// AMD one). TRITONPACK_LOG=1 logs each attempt and the decision. The outcome — a backend, or the error
// explaining why there is none — is kept for the life of the process: every launch on a GPU-less
// node reports the same diagnosis without retrying dlopen. The backend object is intentionally
// never destroyed (see runtime/backend.hpp).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tritonpack/runtime/backend.hpp"
#include "tritonpack/backend_choice.hpp"
#include "tritonpack/cuda/backend.hpp"
#include "tritonpack/core/env.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/hip/backend.hpp"
#include "tritonpack/core/log.hpp"

namespace tritonpack {
namespace detail {

struct backend_state {
  std::mutex mutex;
  backend* instance = nullptr;  // leaked on purpose
  std::vector<backend*> retired;  // testing::reset_backend(): still reachable (libraries may use them)
  bool failed = false;
  errc code = errc::no_driver;
  std::string message;
  int status = 0;
};

inline backend_state& backend_registry() {
  static backend_state* s = new backend_state();  // leaked: usable from static destructors
  return *s;
}

inline backend* create_backend() {
  const std::string forced = env::lower(env::get(env::backend));
  if (!forced.empty() && forced != "cuda" && forced != "hip")
    throw error(errc::bad_argument, "TRITONPACK_BACKEND=\"" + env::get(env::backend) +
                                        "\" is not a backend (accepted: cuda or hip, in any case; leave it unset to choose automatically)");
  if (forced == "cuda") return new cuda::cuda_backend(cuda::driver::load());
  if (forced == "hip") return new hip::hip_backend(hip::driver::load());
  return choose_backend_automatically();
}

}  // namespace detail

// The process's backend; throws the (cached) no_driver / no_device / ... error when there is none.
inline backend& get_backend() {
  auto& s = detail::backend_registry();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.instance) return *s.instance;
  if (s.failed) throw error(s.code, s.message, s.status);
  try {
    s.instance = detail::create_backend();
  } catch (const error& e) {
    s.failed = true;
    s.code = e.code();
    s.message = std::string(e.what()).substr(std::string("tritonpack: ").size());
    s.status = e.driver_status();
    throw;
  }
  return *s.instance;
}

namespace testing {
// Forgets the process's backend so the next get_backend() reads the environment again. For tests
// that switch test-double configurations in one process; the old backend is leaked (libraries
// still holding it keep working against it). Never needed by applications.
inline void reset_backend() {
  auto& s = detail::backend_registry();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.instance) s.retired.push_back(s.instance);
  s.instance = nullptr;
  s.failed = false;
  s.message.clear();
  s.status = 0;
}
}  // namespace testing

}  // namespace tritonpack
