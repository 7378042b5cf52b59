// tritonpack/runtime/kernel.hpp — one kernel of a library: lazy per-context loading and the two ways in
// (docs/runtime-api.md): launch_variant (generated typed functions) and launch (dynamic, checked).
//
// Hot path after the first launch on a context: one driver call to read the current context, a
// compare against a thread-local cache, one acquire load of the loaded function, the parameter
// array on the stack, the launch. No allocation, no lock, no string work.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "tritonpack/runtime/backend.hpp"
#include "tritonpack/select/variant.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/launch/grid.hpp"
#include "tritonpack/launch/params.hpp"
#include "tritonpack/core/model.hpp"
#include "tritonpack/core/types.hpp"

namespace tritonpack {

class library;

// Contexts one library can serve at once (devices × contexts per device). Generous: a node has at
// most 16 GPUs, and applications rarely create extra contexts.
constexpr std::size_t max_contexts = 64;

struct context_slot {
  void* ctx = nullptr;
  std::uint32_t index = 0;
  std::unique_ptr<context_state> state;
};

class kernel {
 public:
  kernel(library& lib, std::uint32_t index, const kernel_info& info);
  kernel(const kernel&) = delete;
  kernel& operator=(const kernel&) = delete;
  ~kernel();

  const kernel_info& info() const noexcept { return *info_; }
  std::uint32_t index() const noexcept { return index_; }
  // The library this kernel belongs to (tune/autotune.hpp reads its container and current context).
  library& owner() const noexcept { return *lib_; }

  // Selects and loads every variant on the calling thread's device now (moves the first-launch
  // cost out of timed regions). Throws what a first launch would throw.
  void preload();

  // Generated code: one pointer per kernel_info::args entry, variant chosen by the caller.
  void launch_variant(std::size_t variant, grid3 grid, stream_t stream, const void* const* args);

  // Generated code: the grid from the values of its three expressions (launch/grid.hpp). A failed
  // value (a zero divisor, an overflow), a negative one or one beyond 32 bits throws
  // error(bad_argument) naming this kernel, the axis and its expression.
  grid3 grid(grid_int x, grid_int y, grid_int z) const { return {grid_axis(0, x), grid_axis(1, y), grid_axis(2, z)}; }

  // Generated code, when no variant's predicates hold for `args` (one pointer per argument):
  // the error names, per variant, each failed predicate with the argument and its value.
  error no_variant_error(const void* const* args) const;

  // Dynamic API: checks the count and types/sizes of `args` against the kernel's arguments (the
  // error names the first mismatch), picks the first variant whose specialisations the values
  // satisfy (Triton's predicates, most specialised first), launches `grid` programs.
  template <class... Args>
  void launch(stream_t stream, grid3 grid, const Args&... args) {
    constexpr std::size_t n = sizeof...(Args);
    const void* ptrs[n + 1] = {static_cast<const void*>(&args)..., nullptr};
    const host_arg descs[n + 1] = {describe_host_arg(args)..., host_arg{}};
    launch_checked(stream, grid, ptrs, descs, n);
  }

  // The variant launch() would pick for these host values (exposed for tests and tools).
  std::size_t pick_variant(const host_arg* descs, std::size_t n) const;
  void launch_checked(stream_t stream, grid3 grid, const void* const* args, const host_arg* descs, std::size_t n);

  // The image a variant runs on the current device, loading it if needed (tools, logs, tests).
  const image_info& loaded_image(std::size_t variant);

  // Unloads every loaded variant (library teardown).
  void unload_all(bool call_driver) noexcept;

 private:
  loaded_function* get_loaded(std::size_t variant, const context_slot& slot) {
    loaded_function* f = loaded_[variant * max_contexts + slot.index].load(std::memory_order_acquire);
    return f ? f : load_slow(variant, slot);
  }
  loaded_function* load_slow(std::size_t variant, const context_slot& slot);
  void check_types() const;
  // One axis of grid(): a compare on success; the failure path (axis and value only, so that
  // nothing is prepared for it on success) builds the message out of line.
  std::uint32_t grid_axis(std::size_t axis, grid_int v) const {
    if (!is_grid_dim(v)) grid_failure(axis, v);
    return static_cast<std::uint32_t>(v.value());
  }
  [[noreturn]] void grid_failure(std::size_t axis, grid_int v) const;

  library* lib_;
  std::uint32_t index_;
  const kernel_info* info_;
  std::vector<arg_type> types_;
  std::string type_error_;  // non-empty when an argument type cannot be passed
  std::unique_ptr<std::atomic<loaded_function*>[]> loaded_;  // [variant][context slot]
  std::mutex load_mutex_;
  struct owned {
    std::uint32_t slot;
    std::unique_ptr<loaded_function> fn;
  };
  std::vector<owned> owned_;
};

}  // namespace tritonpack

#include "tritonpack/runtime/library.hpp"
