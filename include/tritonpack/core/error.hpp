// tritonpack/core/error.hpp — the one exception type every tritonpack failure is reported with.
//
// Why one type: applications catch `tritonpack::error` once and get a code to branch on, the
// driver's own status where a driver call failed, and a message that says what was attempted,
// what was found and what to do. The library never calls exit() or abort().
#pragma once

#include <stdexcept>
#include <string>

// Failure paths: kept out of line and out of the hot code's way; messages built only there.
#if defined(__GNUC__) || defined(__clang__)
#define TRITONPACK_COLD __attribute__((cold, noinline))
#define TRITONPACK_NOINLINE __attribute__((noinline))
#define TRITONPACK_PRINTF(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#else
#define TRITONPACK_COLD
#define TRITONPACK_NOINLINE
#define TRITONPACK_PRINTF(fmt_index, first_arg)
#endif

namespace tritonpack {

enum class errc {
  bad_container,     // container bytes malformed, truncated, or of an unknown format version
  bad_argument,      // wrong argument count/size/type at a launch, or a bad value passed by the user
  not_found,         // no kernel (or variant) of that name in the container
  no_driver,         // neither libcuda nor libamdhip64 could be loaded (or a forced one is missing)
  no_device,         // a driver is present but reports no GPU (or the ordinal is out of range)
  no_image,          // the container holds no image this GPU can run
  ptx_too_new,       // every PTX needs a newer ISA than the installed driver accepts
  jit_failed,        // the driver refused to JIT-compile an IR image
  out_of_memory,     // a device allocation failed
  launch_failed,     // the launch call (or the kernel) failed
  driver_error,      // any other driver call failed
  io_error,          // reading or writing a file (JIT cache, CLI) failed
  unsupported,       // the request is valid but not supported on this backend/device
};

inline const char* errc_name(errc code) noexcept {
  switch (code) {
    case errc::bad_container: return "bad_container";
    case errc::bad_argument: return "bad_argument";
    case errc::not_found: return "not_found";
    case errc::no_driver: return "no_driver";
    case errc::no_device: return "no_device";
    case errc::no_image: return "no_image";
    case errc::ptx_too_new: return "ptx_too_new";
    case errc::jit_failed: return "jit_failed";
    case errc::out_of_memory: return "out_of_memory";
    case errc::launch_failed: return "launch_failed";
    case errc::driver_error: return "driver_error";
    case errc::io_error: return "io_error";
    case errc::unsupported: return "unsupported";
  }
  return "unknown";
}

class error : public std::runtime_error {
 public:
  // `driver_status` is the raw CUresult / hipError_t of the failing call, 0 when no driver call
  // was involved.
  error(errc code, const std::string& message, int driver_status = 0)
      : std::runtime_error("tritonpack: " + message), code_(code), driver_status_(driver_status) {}

  errc code() const noexcept { return code_; }
  int driver_status() const noexcept { return driver_status_; }

 private:
  errc code_;
  int driver_status_;
};

}  // namespace tritonpack
