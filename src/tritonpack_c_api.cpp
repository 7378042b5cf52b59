// The C API's memory and device functions (include/tritonpack/c/tritonpack.h): the one translation
// unit of the static library tritonpack::c_api. Each function is the C++ call of runtime/memory.hpp
// run through c_bridge::guard, so a failure is an error code plus this thread's message.
#include "tritonpack/c/tritonpack.h"

#include <cstring>
#include <string>

#include "tritonpack/c/c_bridge.hpp"
#include "tritonpack/core/types.hpp"
#include "tritonpack/tritonpack.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace c_bridge {

std::string& thread_last_error() noexcept {
  thread_local std::string slot;
  return slot;
}

}  // namespace c_bridge
TRITONPACK_END_NAMESPACE

namespace {

template <class Body>
int guarded(const char* call, Body&& body) noexcept {
  return tritonpack::c_bridge::guard(call, body);
}

void require(const void* p, const char* call, const char* parameter) {
  if (!p)
    throw tritonpack::error(tritonpack::errc::bad_argument,
                            std::string(call) + ": `" + parameter +
                                "` is NULL; pass the address of a variable to receive the result");
}

unsigned char byte_value(int value, const char* call) {
  if (value < 0 || value > 255)
    throw tritonpack::error(
        tritonpack::errc::bad_argument,
        std::string(call) + ": the value " + std::to_string(value) + " is not a byte (0..255)");
  return static_cast<unsigned char>(value);
}

// `text` NUL-terminated into buffer[size], or bad_argument naming the size it needs.
void copy_out(const std::string& text, char* buffer, std::size_t size, const char* call) {
  require(buffer, call, "buffer");
  if (text.size() >= size)
    throw tritonpack::error(tritonpack::errc::bad_argument,
                            std::string(call) + ": \"" + text + "\" needs a buffer of " +
                                std::to_string(text.size() + 1) + " bytes, got " +
                                std::to_string(size));
  std::memcpy(buffer, text.c_str(), text.size() + 1);
}

}  // namespace

extern "C" {

const char* tritonpack_last_error(void) {
  return tritonpack::c_bridge::thread_last_error().c_str();
}

const char* tritonpack_status_name(int status) { return tritonpack::c_bridge::status_name(status); }

tritonpack_half tritonpack_half_from_float(float value) { return tritonpack::half(value).bits; }
float tritonpack_half_to_float(tritonpack_half value) {
  return static_cast<float>(tritonpack::half::from_bits(value));
}
tritonpack_bfloat16 tritonpack_bfloat16_from_float(float value) {
  return tritonpack::bfloat16(value).bits;
}
float tritonpack_bfloat16_to_float(tritonpack_bfloat16 value) {
  return static_cast<float>(tritonpack::bfloat16::from_bits(value));
}

int tritonpack_device_count(int* count) {
  return guarded("tritonpack_device_count", [&] {
    require(count, "tritonpack_device_count", "count");
    *count = tritonpack::device_count();
  });
}

int tritonpack_set_device(int ordinal) {
  return guarded("tritonpack_set_device", [&] { tritonpack::set_device(ordinal); });
}

int tritonpack_set_device_for_local_rank(int local_rank, int* ordinal) {
  return guarded("tritonpack_set_device_for_local_rank", [&] {
    const int chosen = tritonpack::set_device_for_local_rank(local_rank);
    if (ordinal) *ordinal = chosen;
  });
}

int tritonpack_get_device(int* ordinal) {
  return guarded("tritonpack_get_device", [&] {
    require(ordinal, "tritonpack_get_device", "ordinal");
    *ordinal = tritonpack::get_device();
  });
}

int tritonpack_device_name(int ordinal, char* buffer, size_t size) {
  return guarded("tritonpack_device_name", [&] {
    copy_out(tritonpack::device_name(ordinal), buffer, size, "tritonpack_device_name");
  });
}

int tritonpack_device_arch(int ordinal, char* buffer, size_t size) {
  return guarded("tritonpack_device_arch", [&] {
    copy_out(tritonpack::device_arch(ordinal), buffer, size, "tritonpack_device_arch");
  });
}

int tritonpack_memory_info(size_t* free_bytes, size_t* total_bytes) {
  return guarded("tritonpack_memory_info", [&] {
    require(free_bytes, "tritonpack_memory_info", "free_bytes");
    require(total_bytes, "tritonpack_memory_info", "total_bytes");
    const tritonpack::memory_info m = tritonpack::device_memory_info();
    *free_bytes = m.free;
    *total_bytes = m.total;
  });
}

int tritonpack_malloc(void** ptr, size_t bytes) {
  return guarded("tritonpack_malloc", [&] {
    require(ptr, "tritonpack_malloc", "ptr");
    *ptr = nullptr;
    *ptr = tritonpack::device_malloc(bytes);
  });
}

// Not tritonpack::device_free, which prints a failure instead of reporting it: C gets the code.
int tritonpack_free(void* ptr) {
  return guarded("tritonpack_free", [&] {
    if (ptr && !tritonpack::process_exiting()) tritonpack::detail::device_api().free(ptr);
  });
}

int tritonpack_copy(void* dst, const void* src, size_t bytes) {
  return guarded("tritonpack_copy", [&] { tritonpack::copy(dst, src, bytes); });
}

int tritonpack_copy_async(void* dst, const void* src, size_t bytes, tritonpack_stream_t stream) {
  return guarded("tritonpack_copy_async", [&] { tritonpack::copy_async(dst, src, bytes, stream); });
}

int tritonpack_memset(void* dst, int value, size_t bytes) {
  return guarded("tritonpack_memset", [&] {
    tritonpack::memset_device(dst, byte_value(value, "tritonpack_memset"), bytes);
  });
}

int tritonpack_memset_async(void* dst, int value, size_t bytes, tritonpack_stream_t stream) {
  return guarded("tritonpack_memset_async", [&] {
    tritonpack::memset_device_async(dst, byte_value(value, "tritonpack_memset_async"), bytes,
                                    stream);
  });
}

int tritonpack_synchronize(void) {
  return guarded("tritonpack_synchronize", [] { tritonpack::synchronize(); });
}

int tritonpack_stream_synchronize(tritonpack_stream_t stream) {
  return guarded("tritonpack_stream_synchronize", [&] { tritonpack::synchronize(stream); });
}

int tritonpack_stream_create(tritonpack_stream_t* stream, int non_blocking) {
  return guarded("tritonpack_stream_create", [&] {
    require(stream, "tritonpack_stream_create", "stream");
    *stream = nullptr;
    *stream = tritonpack::create_stream(non_blocking != 0);
  });
}

// Not tritonpack::destroy_stream, which prints a failure instead of reporting it.
int tritonpack_stream_destroy(tritonpack_stream_t stream) {
  return guarded("tritonpack_stream_destroy", [&] {
    if (stream && !tritonpack::process_exiting())
      tritonpack::detail::device_api().destroy_stream(stream);
  });
}

}  // extern "C"
