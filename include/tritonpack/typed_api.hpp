// tritonpack/typed_api.hpp — what a generated header includes: the calls its typed functions
// make (docs/runtime-api.md, "Separate compilation").
//
// Two modes, chosen by the macro TRITONPACK_SEPARATE (fmt's header-only vs compiled modes):
//   - header-only (no macro: Meson's dependency('tritonpack'), no build system, or
//     tritonpack_add_kernels(... HEADER_ONLY)): this header brings the whole run time
//     (tritonpack.hpp) and defines the calls inline, so a program needs no library of ours;
//   - separate (TRITONPACK_SEPARATE defined, as linking the CMake target tritonpack::runtime —
//     tritonpack_add_kernels' default — or the Meson dependency tritonpack-runtime does): this
//     header is all a translation unit sees, a few declarations over core/types.hpp,
//     launch/grid.hpp and launch/tensor_descriptor.hpp; the run time is compiled once, into
//     tritonpack::runtime (src/runtime.cpp). The memory and device API
//     (runtime/memory.hpp: set_device, device_array, copy, ...) is declared here too, its
//     definitions compiled into the library as well. tritonpack::library and tritonpack::kernel
//     are incomplete types here: include <tritonpack/tritonpack.hpp> where a translation unit
//     uses them (library().info(), preload()).
// The calls sit in an inline namespace named after the mode, so the two modes' symbols differ: a
// separate-mode object always pulls the compiled run time in, and a program that mixes the modes
// fails to link naming the mix (typed_api_impl.hpp). The typed functions themselves stay inline in
// both modes: a launch costs the same call to the run time's launch path either way.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tritonpack/core/types.hpp"
#include "tritonpack/launch/config_launcher.hpp"
#include "tritonpack/launch/grid.hpp"
#include "tritonpack/launch/int_arg.hpp"
#include "tritonpack/launch/tensor_descriptor.hpp"
#include "tritonpack/runtime/memory.hpp"
#include "tritonpack/version.hpp"

#if defined(TRITONPACK_SEPARATE)
#define TRITONPACK_TYPED_MODE separate
#define TRITONPACK_TYPED_API  // defined once, in tritonpack::runtime
#else
#define TRITONPACK_TYPED_MODE header_only
#define TRITONPACK_TYPED_API inline
#endif

TRITONPACK_BEGIN_NAMESPACE

// Complete in header-only mode; in separate mode, where the compiler calls them incomplete:
class library;  // to use library()'s members, #include <tritonpack/tritonpack.hpp>
                // (docs/runtime-api.md)
class kernel;   // to use a kernel's members, #include <tritonpack/tritonpack.hpp>
                // (docs/runtime-api.md)

namespace typed {
inline namespace TRITONPACK_TYPED_MODE {

// A generated header's library(): the library over its container, which lives until static
// destruction. Throws what tritonpack::library's checking constructor throws (another library of
// the same name linked in: docs/spec.md, "One library per name in a program").
TRITONPACK_TYPED_API library& open_library(const std::uint8_t* data, std::size_t size,
                                           std::uint64_t container_checksum);

// library::at(index, signature, container_checksum): the kernel a typed function was written for.
TRITONPACK_TYPED_API kernel& kernel_at(library& lib, std::size_t index, const char* signature,
                                       std::uint64_t container_checksum);

// kernel::grid(x, y, z): the grid of a spec's grid expressions, checked.
TRITONPACK_TYPED_API grid3 grid(const kernel& k, grid_int x, grid_int y, grid_int z);

// kernel::launch_variant(variant, grid, stream, args).
TRITONPACK_TYPED_API void launch(kernel& k, std::size_t variant, grid3 grid, stream_t stream,
                                 const void* const* args);

// autotune::launch_tuned: a kernel with several configs per specialisation chooses config c of
// the group starting at `group_first` for these key values (docs/runtime.md "Choosing a config")
// and launches it through `run`.
TRITONPACK_TYPED_API void launch_tuned(kernel& k, std::size_t group_first, const std::int64_t* key,
                                       std::size_t key_count, void* const* buffers,
                                       const grid_int* buffer_bytes, std::size_t buffer_count,
                                       stream_t stream, const config_launcher& run);

// Throws kernel::no_variant_error(args): no variant's predicates hold for these arguments.
[[noreturn]] TRITONPACK_TYPED_API void no_variant(const kernel& k, const void* const* args);

// Throws error(bad_argument): integer argument `argument` of k was given a value its type cannot
// hold (`why` is int_arg::refusal()).
[[noreturn]] TRITONPACK_TYPED_API void integer_out_of_range(const kernel& k, const char* argument,
                                                            const std::string& why);

// A generated function's first statements: each integer argument holds the value it was given.
// One compare when it does; nothing is launched when it does not.
template <class T>
inline void check_range(const kernel& k, const char* argument, const int_arg<T>& value) {
  if (!value.fits()) integer_out_of_range(k, argument, value.refusal());
}

}  // namespace TRITONPACK_TYPED_MODE
}  // namespace typed
TRITONPACK_END_NAMESPACE

#if !defined(TRITONPACK_SEPARATE)
#include "tritonpack/typed_api_impl.hpp"
#endif
