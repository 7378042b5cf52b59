// tritonpack/core/dynlib.hpp — dlopen/dlsym, with the reason of every failure kept for the error
// message.
//
// Driver libraries are opened once per process and never closed: libcuda keeps threads and atexit
// handlers of its own, and unmapping it while any of them (or a static destructor of the
// application) can still call into it would crash at exit. The handle is simply leaked.
#pragma once

#include <dlfcn.h>

#include <string>
#include <vector>

#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

class dynlib {
 public:
  dynlib() = default;

  // Tries each name in order (names without a slash go through the normal library search);
  // returns the first that opens. On failure `tried` holds "name: dlerror()" for every attempt.
  static dynlib open_first(const std::vector<std::string>& names, std::string& tried) {
    dynlib lib;
    tried.clear();
    for (const auto& n : names) {
      // RTLD_LOCAL: the driver's symbols must not satisfy other libraries' undefined references.
      void* h = ::dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (h) {
        lib.handle_ = h;
        lib.name_ = n;
        return lib;
      }
      const char* e = ::dlerror();
      if (!tried.empty()) tried += "; ";
      tried += n + ": " + (e ? e : "cannot be opened");
    }
    return lib;
  }

  explicit operator bool() const noexcept { return handle_ != nullptr; }
  const std::string& name() const noexcept { return name_; }

  void* symbol(const char* sym) const noexcept { return handle_ ? ::dlsym(handle_, sym) : nullptr; }

 private:
  void* handle_ = nullptr;
  std::string name_;
};

TRITONPACK_END_NAMESPACE
