// tritonpack/typed_api_impl.hpp — the definitions of typed_api.hpp's calls: inline in header-only
// mode (typed_api.hpp includes this file), compiled once into tritonpack::runtime in separate mode
// (src/runtime.cpp includes it). Not for applications to include.
//
// Each call forwards to the member of the full run time that header-only generated code used to
// call directly, so both modes run the same code on the same objects.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "tritonpack/tritonpack.hpp"
#include "tritonpack/tune/autotune.hpp"
#include "tritonpack/typed_api.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace typed {
inline namespace TRITONPACK_TYPED_MODE {

TRITONPACK_TYPED_API library& open_library(const std::uint8_t* data, std::size_t size,
                                           std::uint64_t container_checksum) {
  // Owned here, not by the generated library()'s static, so that a translation unit that sees only
  // declarations can hold it: destroyed at static destruction, as that static was.
  static std::mutex mutex;
  static std::vector<std::unique_ptr<library>> libraries;
  auto lib = std::make_unique<library>(data, size, container_checksum);
  std::lock_guard<std::mutex> lock(mutex);
  libraries.push_back(std::move(lib));
  return *libraries.back();
}

TRITONPACK_TYPED_API kernel& kernel_at(library& lib, std::size_t index, const char* signature,
                                       std::uint64_t container_checksum) {
  return lib.at(index, signature, container_checksum);
}

TRITONPACK_TYPED_API grid3 grid(const kernel& k, grid_int x, grid_int y, grid_int z) {
  return k.grid(x, y, z);
}

TRITONPACK_TYPED_API void launch(kernel& k, std::size_t variant, grid3 grid, stream_t stream,
                                 const void* const* args) {
  k.launch_variant(variant, grid, stream, args);
}

TRITONPACK_TYPED_API void launch_tuned(kernel& k, std::size_t group_first, const std::int64_t* key,
                                       std::size_t key_count, void* const* buffers,
                                       const grid_int* buffer_bytes, std::size_t buffer_count,
                                       stream_t stream, const config_launcher& run) {
  autotune::launch_tuned(k, group_first, key, key_count, buffers, buffer_bytes, buffer_count,
                         stream, run);
}

[[noreturn]] TRITONPACK_TYPED_API void no_variant(const kernel& k, const void* const* args) {
  throw k.no_variant_error(args);
}

[[noreturn]] TRITONPACK_TYPED_API void integer_out_of_range(const kernel& k, const char* argument,
                                                            const std::string& why) {
  throw error(errc::bad_argument, identify(k.info()) + ": argument " + argument + " " + why +
                                      "; pass a value in range (a kernel that takes larger values "
                                      "needs a wider integer type in its signature)");
}

// One mode per program, checked by the linker where it can be (ELF, GCC or Clang), as the
// one-library-per-name check is (docs/spec.md): each mode defines the symbol below in its own
// COMDAT group, so the header-only copies fold into one and a program whose translation units
// include generated headers in both modes holds two definitions: the link fails with "multiple
// definition of tritonpack_header_only_and_separate_TUs_mixed__...". (Mixed, the generated inline
// functions would have two different definitions, which C++ forbids.)
#if defined(__ELF__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDA_ARCH__) && \
    !defined(__HIP_DEVICE_COMPILE__) && !defined(TRITONPACK_NO_LINK_CHECK)
#define TRITONPACK_MODE_STRING_(x) #x
#define TRITONPACK_MODE_STRING(x) TRITONPACK_MODE_STRING_(x)
[[gnu::used]] TRITONPACK_TYPED_API void mode_check() {
  __asm__(".pushsection .rodata.tritonpack_mode,\"aG\",%progbits,tritonpack_mode_" TRITONPACK_MODE_STRING(
      TRITONPACK_TYPED_MODE) ",comdat\n"
      ".globl tritonpack_header_only_and_separate_TUs_mixed__define_TRITONPACK_SEPARATE_in_all_or_none\n"
      ".hidden tritonpack_header_only_and_separate_TUs_mixed__define_TRITONPACK_SEPARATE_in_all_or_none\n"
      "tritonpack_header_only_and_separate_TUs_mixed__define_TRITONPACK_SEPARATE_in_all_or_none:\n"
      ".byte 0\n"
      ".popsection");
}
#undef TRITONPACK_MODE_STRING
#undef TRITONPACK_MODE_STRING_
#endif

}  // namespace TRITONPACK_TYPED_MODE
}  // namespace typed
TRITONPACK_END_NAMESPACE
