// tritonpack/core/os_error.hpp — why a file operation failed, in words a user can act on.
//
// Every failed create, write or rename says why (errno) and what to do. Shared by the JIT cache
// (run time) and the packer's file I/O (generator), so both explain a failure the same way.
#pragma once

#include <cerrno>
#include <cstring>
#include <string>

#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace os_error {

// strerror(err), and for the errors whose text misleads, what it means: "Not a directory"
// becomes "Not a directory (a part of the path is a file, not a directory)". The caller adds what
// to do, which depends on where the path came from (an option, an environment variable).
inline std::string reason(int err) {
  std::string text = std::strerror(err);
  if (err == ENOTDIR) text += " (a part of the path is a file, not a directory)";
  if (err == ENAMETOOLONG) text += " (choose a shorter path)";
  return text;
}

}  // namespace os_error
TRITONPACK_END_NAMESPACE
