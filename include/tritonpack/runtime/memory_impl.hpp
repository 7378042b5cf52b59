// tritonpack/runtime/memory_impl.hpp — the definitions of runtime/memory.hpp's functions: inline in
// header-only mode (memory.hpp includes this file), compiled once into tritonpack::runtime in
// separate mode (src/runtime.cpp includes it). Not for applications to include.
#pragma once

#include <exception>
#include <string>

#include "tritonpack/core/error.hpp"
#include "tritonpack/core/types.hpp"
#include "tritonpack/runtime/backend.hpp"
#include "tritonpack/runtime/device_ops.hpp"
#include "tritonpack/runtime/memory.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace detail {

// The backend's operations; throws the run time's no_driver / no_device diagnosis (the same as a
// launch gives) when there is none. Defined by the composition root (the top-level backends
// header), which knows each backend's implementation of device_ops.
inline device_ops& device_api();

// `ordinal` when it names a device, else error(no_device) naming it and what exists.
inline int checked_ordinal(device_ops& ops, int ordinal, const char* call) {
  const int n = ops.count();
  if (ordinal >= 0 && ordinal < n) return ordinal;
  throw error(
      errc::no_device,
      std::string(call) + "(" + std::to_string(ordinal) + "): no such device; the " +
          get_backend().describe() + " sees " + std::to_string(n) +
          (n == 1 ? " GPU (ordinal 0)" : " GPUs (ordinals 0 to " + std::to_string(n - 1) + ")") +
          ops.visibility_note());
}

inline void check_pointer(const void* p, const char* role, const char* call, std::size_t bytes) {
  if (!p)
    throw error(errc::bad_argument, std::string(call) + " of " + bytes_text(bytes) + ": the " +
                                        role + " pointer is null");
}

}  // namespace detail

TRITONPACK_MEMORY_API int device_count() {
  try {
    return detail::device_api().count();
  } catch (const error& e) {
    if (e.code() == errc::no_driver || e.code() == errc::no_device) return 0;
    throw;
  }
}

TRITONPACK_MEMORY_API void set_device(int ordinal) {
  device_ops& ops = detail::device_api();
  ops.set_current(detail::checked_ordinal(ops, ordinal, "set_device"));
}

TRITONPACK_MEMORY_API int set_device_for_local_rank(int local_rank) {
  if (local_rank < 0)
    throw error(errc::bad_argument, "set_device_for_local_rank(" + std::to_string(local_rank) +
                                        "): a local rank is 0 or more");
  device_ops& ops = detail::device_api();  // no driver, no GPU: the diagnosis
  const int n = ops.count();
  if (n <= 0)  // a backend that loaded without a device
    throw error(errc::no_device, "set_device_for_local_rank(" + std::to_string(local_rank) +
                                     "): the " + get_backend().describe() + " sees no GPU" +
                                     ops.visibility_note());
  const int ordinal = local_rank % n;
  ops.set_current(ordinal);
  return ordinal;
}

TRITONPACK_MEMORY_API int get_device() { return detail::device_api().current(); }

TRITONPACK_MEMORY_API std::string device_name(int ordinal) {
  device_ops& ops = detail::device_api();
  return ops.name(ordinal == -1 ? ops.current()
                                : detail::checked_ordinal(ops, ordinal, "device_name"));
}

TRITONPACK_MEMORY_API std::string device_arch(int ordinal) {
  device_ops& ops = detail::device_api();
  return ops.arch(ordinal == -1 ? ops.current()
                                : detail::checked_ordinal(ops, ordinal, "device_arch"));
}

TRITONPACK_MEMORY_API memory_info device_memory_info() { return detail::device_api().memory(); }

TRITONPACK_MEMORY_API void* device_malloc(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  return detail::device_api().allocate(bytes);
}

TRITONPACK_MEMORY_API void device_free(void* ptr) noexcept {
  if (!ptr || process_exiting()) return;
  try {
    detail::device_api().free(ptr);
  } catch (const std::exception& e) {
    detail::report_unthrown("device_free", e);
  } catch (...) {
    detail::report_unthrown("device_free", "device_free failed with an unknown exception");
  }
}

TRITONPACK_MEMORY_API void copy(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  detail::check_pointer(dst, "destination", "copy", bytes);
  detail::check_pointer(src, "source", "copy", bytes);
  detail::device_api().copy(dst, src, bytes);
}

TRITONPACK_MEMORY_API void copy_async(void* dst, const void* src, std::size_t bytes,
                                      stream_t stream) {
  if (bytes == 0) return;
  detail::check_pointer(dst, "destination", "copy_async", bytes);
  detail::check_pointer(src, "source", "copy_async", bytes);
  detail::device_api().copy_async(dst, src, bytes, stream);
}

TRITONPACK_MEMORY_API void memset_device(void* dst, unsigned char value, std::size_t bytes) {
  if (bytes == 0) return;
  detail::check_pointer(dst, "destination", "memset_device", bytes);
  detail::device_api().fill(dst, value, bytes);
}

TRITONPACK_MEMORY_API void memset_device_async(void* dst, unsigned char value, std::size_t bytes,
                                               stream_t stream) {
  if (bytes == 0) return;
  detail::check_pointer(dst, "destination", "memset_device_async", bytes);
  detail::device_api().fill_async(dst, value, bytes, stream);
}

TRITONPACK_MEMORY_API void synchronize() { detail::device_api().synchronize(); }

TRITONPACK_MEMORY_API void synchronize(stream_t stream) {
  detail::device_api().synchronize(stream);
}

TRITONPACK_MEMORY_API stream_t create_stream(bool non_blocking) {
  return detail::device_api().create_stream(non_blocking);
}

TRITONPACK_MEMORY_API void destroy_stream(stream_t stream) noexcept {
  if (!stream || process_exiting()) return;
  try {
    detail::device_api().destroy_stream(stream);
  } catch (const std::exception& e) {
    detail::report_unthrown("destroy_stream", e);
  } catch (...) {
    detail::report_unthrown("destroy_stream", "destroy_stream failed with an unknown exception");
  }
}

TRITONPACK_END_NAMESPACE
