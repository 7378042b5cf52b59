// tritonpack/c/c_bridge.hpp — how C++ failures become C error codes (docs/c-fortran.md).
//
// Used by the memory API's C definitions (src/tritonpack_c_api.cpp) and by every generated
// NAME_c.cpp: each C entry point runs its C++ body through guard(), which returns
// TRITONPACK_SUCCESS or the error code of the exception and keeps its message in the calling
// thread's one last-error slot, thread_last_error(). No exception ever crosses into C (or Fortran).
#pragma once

#include <exception>
#include <new>
#include <string>

#include "tritonpack/c/tritonpack.h"
#include "tritonpack/core/error.hpp"
#include "tritonpack/core/error_codes.hpp"
#include "tritonpack/core/types.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace c_bridge {

// The C constants agree with the code table (core/error_codes.hpp): TRITONPACK_ERROR_NAME has the
// table's value, and INTERNAL follows the last code.
#define TRITONPACK_C_CODE_AGREES(name, NAME, value, description) \
  static_assert(TRITONPACK_ERROR_##NAME == (value),              \
                "tritonpack.h: TRITONPACK_ERROR_" #NAME " is not the value of errc::" #name);
TRITONPACK_ERROR_CODES(TRITONPACK_C_CODE_AGREES)
#undef TRITONPACK_C_CODE_AGREES
#define TRITONPACK_C_CODE_COUNT(name, NAME, value, description) +1
static_assert(
    TRITONPACK_ERROR_INTERNAL == 1 TRITONPACK_ERROR_CODES(TRITONPACK_C_CODE_COUNT),
    "tritonpack.h: TRITONPACK_ERROR_INTERNAL must follow the last code of core/error_codes.hpp");
#undef TRITONPACK_C_CODE_COUNT

// The stable C code of an errc (the values are the C API's contract: tritonpack.h).
inline int status_of(errc code) noexcept {
  switch (code) {
#define TRITONPACK_C_STATUS_OF(name, NAME, value, description) \
  case errc::name: return TRITONPACK_ERROR_##NAME;
    TRITONPACK_ERROR_CODES(TRITONPACK_C_STATUS_OF)
#undef TRITONPACK_C_STATUS_OF
  }
  return TRITONPACK_ERROR_INTERNAL;
}

// "TRITONPACK_ERROR_NO_DEVICE"; "TRITONPACK_ERROR_UNKNOWN" for a value no code has.
inline const char* status_name(int status) noexcept {
  switch (status) {
    case TRITONPACK_SUCCESS: return "TRITONPACK_SUCCESS";
#define TRITONPACK_C_STATUS_NAME(name, NAME, value, description) \
  case TRITONPACK_ERROR_##NAME: return "TRITONPACK_ERROR_" #NAME;
      TRITONPACK_ERROR_CODES(TRITONPACK_C_STATUS_NAME)
#undef TRITONPACK_C_STATUS_NAME
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

// The calling thread's last error message, one slot for the whole program: the memory API and every
// generated library record their failures here, so tritonpack_last_error() (and NAME_last_error(),
// which returns the same) is the last failure of the thread, whatever failed. Defined once, in
// libtritonpack_c_api (src/tritonpack_c_api.cpp), which every C or Fortran caller links.
std::string& thread_last_error() noexcept;

// Runs `body`; TRITONPACK_SUCCESS when it returns, else the code of what it threw, its message
// kept in `last_error`.
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
      return fail(last_error, TRITONPACK_ERROR_INTERNAL,
                  (std::string(error::prefix) + call + ": " + e.what()).c_str());
    } catch (...) {
      return fail(last_error, TRITONPACK_ERROR_INTERNAL, "tritonpack: unexpected failure");
    }
  } catch (...) {
    return fail(last_error, TRITONPACK_ERROR_INTERNAL,
                "tritonpack: unexpected failure (an exception of unknown type)");
  }
}

// guard() recording into the calling thread's one slot: what every C entry point uses.
template <class Body>
int guard(const char* call, Body&& body) noexcept {
  return guard(thread_last_error(), call, body);
}

// A grid a C caller passed to kernel `kernel`. C zero-fills what an initializer leaves out, so
// `tritonpack_grid3 g = {n};` has y = z = 0: a grid of no programs, which would return success
// and launch nothing. A grid with programs along x and none along y or z is refused naming the
// axis; a grid with x = 0 is empty on purpose and launches nothing, as in C++.
inline grid3 grid_from_c(const tritonpack_grid3& g, const char* kernel) {
  if (g.x != 0 && (g.y == 0 || g.z == 0)) {
    const char axis = g.y == 0 ? 'y' : 'z';
    throw error(errc::bad_argument,
                std::string("kernel ") + kernel + ": grid " + axis + " is 0 while x is " +
                    std::to_string(g.x) +
                    ": nothing would run. C sets the members an initializer "
                    "leaves out to 0; write {x, 1, 1} for a 1-D grid (tritonpack_grid3 g = {" +
                    std::to_string(g.x) + ", 1, 1};), or skip the call when there is no work");
  }
  return grid3{g.x, g.y, g.z};
}

}  // namespace c_bridge
TRITONPACK_END_NAMESPACE
