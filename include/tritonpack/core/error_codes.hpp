// tritonpack/core/error_codes.hpp — the one list of error codes, as an X-macro.
//
// TRITONPACK_ERROR_CODES(X) calls X(name, NAME, value, description) once per code, in value order:
//   name         the tritonpack::errc enumerator (and errc_name's text)
//   NAME         the C and Fortran constant's suffix: TRITONPACK_ERROR_NAME
//   value        the stable C and Fortran value (new codes are only ever added at the end)
//   description  what the code means
// core/error.hpp generates errc and errc_name from it, c/c_bridge.hpp the C mapping. The C enum
// (c/tritonpack.h) and the Fortran parameters (fortran/tritonpack.f90) are written out for their
// readers; tests/capi/test_error_codes.cpp checks both against this list. TRITONPACK_ERROR_INTERNAL
// (value = number of codes + 1) is the C API's own code for failures that are no errc.
#pragma once

#define TRITONPACK_ERROR_CODES(X)                                                                 \
  X(bad_container, BAD_CONTAINER, 1,                                                              \
    "container bytes malformed, truncated, or of an unknown format version")                      \
  X(bad_argument, BAD_ARGUMENT, 2,                                                                \
    "wrong argument count/size/type at a launch, or a bad value passed by the user")              \
  X(not_found, NOT_FOUND, 3, "no kernel (or variant) of that name in the container")              \
  X(no_driver, NO_DRIVER, 4,                                                                      \
    "neither libcuda nor libamdhip64 could be loaded (or a forced one is missing)")               \
  X(no_device, NO_DEVICE, 5,                                                                      \
    "a driver is present but reports no GPU (or the ordinal is out of range)")                    \
  X(no_image, NO_IMAGE, 6, "the container holds no image this GPU can run")                       \
  X(ptx_too_new, PTX_TOO_NEW, 7, "every PTX needs a newer ISA than the installed driver accepts") \
  X(jit_failed, JIT_FAILED, 8, "the driver refused to JIT-compile an IR image")                   \
  X(out_of_memory, OUT_OF_MEMORY, 9, "a device allocation failed")                                \
  X(launch_failed, LAUNCH_FAILED, 10, "the launch call (or the kernel) failed")                   \
  X(driver_error, DRIVER_ERROR, 11, "any other driver call failed")                               \
  X(io_error, IO_ERROR, 12, "reading or writing a file (JIT cache, CLI) failed")                  \
  X(unsupported, UNSUPPORTED, 13, "the request is valid but not supported on this backend/device")
