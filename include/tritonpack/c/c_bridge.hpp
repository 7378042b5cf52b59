// tritonpack/c/c_bridge.hpp — how C++ failures become C error codes (docs/c-fortran.md).
//
// Used by the memory API's C definitions (src/tritonpack_c_api.cpp) and by every generated
// NAME_c.cpp: each C entry point runs its C++ body through guard(), which returns
// TRITONPACK_SUCCESS or the error code of the exception and keeps its message in the caller's
// thread-local string. No exception ever crosses into C (or Fortran).
#pragma once

#include <exception>
#include <new>
#include <string>

#include "tritonpack/c/tritonpack.h"
#include "tritonpack/core/error.hpp"

namespace tritonpack::c_bridge {

// The stable C code of an errc (the values are the C API's contract: tritonpack.h).
inline int status_of(errc code) noexcept {
  switch (code) {
    case errc::bad_container: return TRITONPACK_ERROR_BAD_CONTAINER;
    case errc::bad_argument: return TRITONPACK_ERROR_BAD_ARGUMENT;
    case errc::not_found: return TRITONPACK_ERROR_NOT_FOUND;
    case errc::no_driver: return TRITONPACK_ERROR_NO_DRIVER;
    case errc::no_device: return TRITONPACK_ERROR_NO_DEVICE;
    case errc::no_image: return TRITONPACK_ERROR_NO_IMAGE;
    case errc::ptx_too_new: return TRITONPACK_ERROR_PTX_TOO_NEW;
    case errc::jit_failed: return TRITONPACK_ERROR_JIT_FAILED;
    case errc::out_of_memory: return TRITONPACK_ERROR_OUT_OF_MEMORY;
    case errc::launch_failed: return TRITONPACK_ERROR_LAUNCH_FAILED;
    case errc::driver_error: return TRITONPACK_ERROR_DRIVER_ERROR;
    case errc::io_error: return TRITONPACK_ERROR_IO_ERROR;
    case errc::unsupported: return TRITONPACK_ERROR_UNSUPPORTED;
  }
  return TRITONPACK_ERROR_INTERNAL;
}

// "TRITONPACK_ERROR_NO_DEVICE"; "TRITONPACK_ERROR_UNKNOWN" for a value no code has.
inline const char* status_name(int status) noexcept {
  switch (status) {
    case TRITONPACK_SUCCESS: return "TRITONPACK_SUCCESS";
    case TRITONPACK_ERROR_BAD_CONTAINER: return "TRITONPACK_ERROR_BAD_CONTAINER";
    case TRITONPACK_ERROR_BAD_ARGUMENT: return "TRITONPACK_ERROR_BAD_ARGUMENT";
    case TRITONPACK_ERROR_NOT_FOUND: return "TRITONPACK_ERROR_NOT_FOUND";
    case TRITONPACK_ERROR_NO_DRIVER: return "TRITONPACK_ERROR_NO_DRIVER";
    case TRITONPACK_ERROR_NO_DEVICE: return "TRITONPACK_ERROR_NO_DEVICE";
    case TRITONPACK_ERROR_NO_IMAGE: return "TRITONPACK_ERROR_NO_IMAGE";
    case TRITONPACK_ERROR_PTX_TOO_NEW: return "TRITONPACK_ERROR_PTX_TOO_NEW";
    case TRITONPACK_ERROR_JIT_FAILED: return "TRITONPACK_ERROR_JIT_FAILED";
    case TRITONPACK_ERROR_OUT_OF_MEMORY: return "TRITONPACK_ERROR_OUT_OF_MEMORY";
    case TRITONPACK_ERROR_LAUNCH_FAILED: return "TRITONPACK_ERROR_LAUNCH_FAILED";
    case TRITONPACK_ERROR_DRIVER_ERROR: return "TRITONPACK_ERROR_DRIVER_ERROR";
    case TRITONPACK_ERROR_IO_ERROR: return "TRITONPACK_ERROR_IO_ERROR";
    case TRITONPACK_ERROR_UNSUPPORTED: return "TRITONPACK_ERROR_UNSUPPORTED";
    case TRITONPACK_ERROR_INTERNAL: return "TRITONPACK_ERROR_INTERNAL";
    default: return "TRITONPACK_ERROR_UNKNOWN";
  }
}

// Keeps `message` as the thread's last error and returns `status`. Copying the message may itself
// run out of memory: the message is then empty rather than an exception thrown into C.
inline int fail(std::string& last_error, int status, const char* message) noexcept {
  try {
    last_error = message;
  } catch (...) {
    last_error.clear();
  }
  return status;
}

// Runs `body`; TRITONPACK_SUCCESS when it returns, else the code of what it threw, its message
// kept in `last_error` (the calling thread's, a thread_local of the caller).
template <class Body>
int guard(std::string& last_error, const char* call, Body&& body) noexcept {
  try {
    body();
    return TRITONPACK_SUCCESS;
  } catch (const error& e) {
    return fail(last_error, status_of(e.code()), e.what());
  } catch (const std::bad_alloc&) {
    return fail(last_error, TRITONPACK_ERROR_OUT_OF_MEMORY, "tritonpack: host memory exhausted");
  } catch (const std::exception& e) {
    try {
      return fail(last_error, TRITONPACK_ERROR_INTERNAL, (std::string("tritonpack: ") + call + ": " + e.what()).c_str());
    } catch (...) {
      return fail(last_error, TRITONPACK_ERROR_INTERNAL, "tritonpack: unexpected failure");
    }
  } catch (...) {
    return fail(last_error, TRITONPACK_ERROR_INTERNAL, "tritonpack: unexpected failure (an exception of unknown type)");
  }
}

}  // namespace tritonpack::c_bridge
