// tritonpack/runtime/device_ops.hpp — what the memory and device API (runtime/memory.hpp) needs
// from a backend: devices, the calling thread's device, memory, copies, streams. The CUDA backend
// implements it in cuda/memory.hpp; a HIP backend implements the same operations (and adds its case
// to runtime/memory.hpp's detail::make_device_ops), so runtime/memory.hpp and the programs using it
// are identical on both vendors.
//
// Contract for implementations (runtime/memory.hpp checks the rest before calling):
//   * "the calling thread's device" is the one kernel launches on this thread use;
//   * ordinals passed in are already checked against count(); byte counts are > 0 and pointers
//     non-null where runtime/memory.hpp says so;
//   * every driver call is checked; a failure throws tritonpack::error with the driver's status
//     and a message that says what was attempted (sizes, addresses, device).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "tritonpack/core/error.hpp"
#include "tritonpack/core/types.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

// Free and total memory of a device, in bytes (cuMemGetInfo / hipMemGetInfo).
struct memory_info {
  std::size_t free = 0;
  std::size_t total = 0;
};

class device_ops {
 public:
  virtual ~device_ops() = default;

  virtual int count() const noexcept = 0;
  // "; CUDA_VISIBLE_DEVICES is \"0,1\"" when the backend's visibility variable is set, else "":
  // appended to the error for an ordinal out of range.
  virtual std::string visibility_note() const = 0;

  // The calling thread's device: set_current() makes `ordinal` the device of this thread's
  // launches and of the calls below; current() is 0 while nothing has been chosen.
  virtual void set_current(int ordinal) = 0;
  virtual int current() = 0;

  virtual std::string name(int ordinal) = 0;  // "NVIDIA H200"
  virtual std::string arch(
      int ordinal) = 0;              // "sm_90", "gfx942:sramecc+:xnack-": as selection sees it
  virtual memory_info memory() = 0;  // of the calling thread's device

  // On the calling thread's device. Out of memory is errc::out_of_memory naming the size and the
  // device's free memory.
  virtual void* allocate(std::size_t bytes) = 0;
  virtual void free(void* ptr) = 0;  // throws; runtime/memory.hpp's device_free() reports instead

  // Any direction (unified addressing). Without a stream: ordered on the default stream and
  // returning when the host side of the copy is done, as cudaMemcpy / cudaMemset.
  virtual void copy(void* dst, const void* src, std::size_t bytes) = 0;
  virtual void copy_async(void* dst, const void* src, std::size_t bytes, stream_t stream) = 0;
  virtual void fill(void* dst, unsigned char value, std::size_t bytes) = 0;
  virtual void fill_async(void* dst, unsigned char value, std::size_t bytes, stream_t stream) = 0;

  virtual void synchronize() = 0;  // the calling thread's device
  virtual void synchronize(stream_t stream) = 0;

  // On the calling thread's device. Blocking streams synchronise with the legacy default stream
  // (cudaStreamCreate); non-blocking ones do not (cudaStreamNonBlocking).
  virtual stream_t create_stream(bool non_blocking) = 0;
  virtual void destroy_stream(stream_t stream) = 0;  // throws; runtime/memory.hpp reports instead

  // For on-device tuning (tune/autotune.hpp): GPU timing with events, and whether a stream is being
  // captured into a graph (then nothing may be timed or synchronised on it). A backend without
  // them says so; tuning then falls back to the packed table or the first config.
  virtual void* create_event() {
    throw error(errc::unsupported, "timing with events is not implemented for this backend");
  }
  virtual void record_event(void* /*event*/, stream_t /*stream*/) {
    throw error(errc::unsupported, "record_event");
  }
  // Milliseconds between two recorded events; waits for `end` to complete.
  virtual float elapsed_ms(void* /*start*/, void* /*end*/) {
    throw error(errc::unsupported, "elapsed_ms");
  }
  virtual void destroy_event(void* /*event*/) noexcept {}
  virtual bool capturing(stream_t /*stream*/) { return false; }
};

namespace detail {

// "0x7f12a4000000"
inline std::string address_text(const void* p) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx",
                static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(p)));
  return b;
}

// "512 B", "4.0 KiB", "1.5 GiB": a size rounded for the order of magnitude.
inline std::string size_text(std::size_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024.0 && u < 4) v /= 1024.0, ++u;
  char b[32];
  if (u == 0) std::snprintf(b, sizeof b, "%zu B", n);
  else std::snprintf(b, sizeof b, "%.1f %s", v, units[u]);
  return b;
}

// "100 bytes", "1073741824 bytes (1.0 GiB)": exact for the reader who compares with a size they
// computed, rounded for the one who wants the order of magnitude.
inline std::string bytes_text(std::size_t n) {
  std::string s = std::to_string(n) + (n == 1 ? " byte" : " bytes");
  return n < 1024 ? s : s + " (" + size_text(n) + ")";
}

// For failures that cannot be thrown (device_free and destroy_stream run in destructors): the
// error goes to stderr whatever TRITONPACK_LOG says, since it reports a bug in the program.
// `what` is printed after the prefix.
inline void report_unthrown(const char* call, const char* what) noexcept {
  std::fprintf(stderr, "%s%s [not thrown: %s runs in destructors]\n", error::prefix, what, call);
}

// The same for a caught exception: a tritonpack::error by its message().
inline void report_unthrown(const char* call, const std::exception& e) noexcept {
  const auto* own = dynamic_cast<const error*>(&e);
  report_unthrown(call, own ? own->message() : e.what());
}

}  // namespace detail
TRITONPACK_END_NAMESPACE
