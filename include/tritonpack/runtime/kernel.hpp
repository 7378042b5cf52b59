// tritonpack/runtime/kernel.hpp — one kernel of a library: lazy per-context loading and the two
// ways in (docs/runtime-api.md): launch_variant (generated typed functions) and launch (dynamic,
// checked). The library (runtime/library.hpp) owns its kernels; a kernel reads the library's
// container and per-context table (runtime/contexts.hpp), never the library itself.
//
// Hot path after the first launch on a context: one driver call to read the current context, a
// compare against a thread-local cache, one acquire load of the loaded function, the parameter
// array on the stack, the launch. No allocation, no lock, no string work.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "tritonpack/container/reader.hpp"
#include "tritonpack/core/env.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/core/identify.hpp"
#include "tritonpack/core/model.hpp"
#include "tritonpack/core/types.hpp"
#include "tritonpack/launch/grid.hpp"
#include "tritonpack/launch/params.hpp"
#include "tritonpack/runtime/backend.hpp"
#include "tritonpack/runtime/contexts.hpp"
#include "tritonpack/runtime/device_ops.hpp"
#include "tritonpack/select/variant.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

namespace detail {
// The address a pointer argument holds: its entry of a launch's argument array points at a T* (or
// a CUdeviceptr, in the dynamic API), 8 bytes either way.
inline std::uint64_t pointer_value(const void* arg) noexcept {
  std::uint64_t v = 0;
  std::memcpy(&v, arg, sizeof v);
  return v;
}
}  // namespace detail

class kernel {
 public:
  // Kernel `index` of `c`, whose contexts `contexts` holds; both outlive the kernel.
  kernel(const tritonpack::container& c, context_table& contexts, std::uint32_t index);
  kernel(const kernel&) = delete;
  kernel& operator=(const kernel&) = delete;
  ~kernel();

  const kernel_info& info() const noexcept { return *info_; }
  std::uint32_t index() const noexcept { return index_; }
  // The container this kernel comes from, and the calling thread's context slot (tune/autotune.hpp
  // keys its tuning cache on the container and times launches in the slot's context).
  const tritonpack::container& container() const noexcept { return *container_; }
  const context_slot& current_slot() { return contexts_->current_slot(); }

  // Selects and loads every variant on the calling thread's device now (moves the first-launch
  // cost out of timed regions). Throws what a first launch would throw.
  void preload();

  // Generated code: one pointer per kernel_info::args entry, variant chosen by the caller.
  void launch_variant(std::size_t variant, grid3 grid, stream_t stream, const void* const* args);

  // Generated code: the grid from the values of its three expressions (launch/grid.hpp). A failed
  // value (a zero divisor, an overflow), a negative one or one beyond 32 bits throws
  // error(bad_argument) naming this kernel, the axis and its expression.
  grid3 grid(grid_int x, grid_int y, grid_int z) const {
    return {grid_axis(0, x), grid_axis(1, y), grid_axis(2, z)};
  }

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
  void launch_checked(stream_t stream, grid3 grid, const void* const* args, const host_arg* descs,
                      std::size_t n);

  // The image a variant runs on the current device, loading it if needed (tools, logs, tests).
  const image_info& loaded_image(std::size_t variant);

  // Unloads every loaded variant (library teardown).
  void unload_all(bool call_driver) noexcept;

 private:
  loaded_function* get_loaded(std::size_t variant, const context_slot& slot) {
    loaded_function* f =
        loaded_[variant * max_contexts + slot.index].load(std::memory_order_acquire);
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
  // Pointer arguments (docs/runtime.md, "Arguments"): null where the variant reads through the
  // pointer (specialised :16) is refused on every launch; TRITONPACK_CHECK_POINTERS asks the driver
  // about every pointer the variant is passed.
  void check_null(std::size_t variant, const void* const* args) const {
    for (std::uint32_t a : null_refused_[variant])
      if (!detail::pointer_value(args[a])) null_pointer(variant, a);
  }
  [[noreturn]] void null_pointer(std::size_t variant, std::uint32_t arg) const;
  void check_pointers(const context_state& state, std::size_t variant,
                      const void* const* args) const;

  const tritonpack::container* container_;
  context_table* contexts_;
  std::uint32_t index_;
  const kernel_info* info_;
  std::vector<arg_type> types_;
  std::string type_error_;  // non-empty when an argument type cannot be passed
  // Per variant, the pointer arguments null is refused for, and those the kernel is passed.
  std::vector<std::vector<std::uint32_t>> null_refused_, passed_pointers_;
  std::unique_ptr<std::atomic<loaded_function*>[]> loaded_;  // [variant][context slot]
  std::mutex load_mutex_;
  struct owned {
    std::uint32_t slot;
    std::unique_ptr<loaded_function> fn;
  };
  std::vector<owned> owned_;
};

// ---------------------------------------------------------------------------------------------
// kernel's members

inline kernel::kernel(const tritonpack::container& c, context_table& contexts, std::uint32_t index)
    : container_(&c), contexts_(&contexts), index_(index), info_(&c.kernel(index)) {
  const kernel_info& info = *info_;
  const std::size_t n = info.variants.size() * max_contexts;
  loaded_.reset(new std::atomic<loaded_function*>[n ? n : 1]);
  for (std::size_t i = 0; i < n; ++i) loaded_[i].store(nullptr, std::memory_order_relaxed);
  for (const auto& a : info.args) {
    try {
      types_.push_back(parse_arg_type(a.type));
    } catch (const error& e) {
      types_.push_back(arg_type{});
      if (type_error_.empty())
        type_error_ = identify(info) + ", argument '" + a.name + "': " + e.message();
    }
  }
  for (const variant_info& v : info.variants) {
    null_refused_.emplace_back();
    passed_pointers_.emplace_back();
    for (std::uint32_t a = 0; a < types_.size() && a < v.specs.size(); ++a) {
      if (types_[a].cls != arg_class::pointer || v.specs[a].kind == spec_kind::constexpr_value)
        continue;
      passed_pointers_.back().push_back(a);
      if (v.specs[a].kind == spec_kind::divisible_16) null_refused_.back().push_back(a);
    }
  }
}

inline kernel::~kernel() = default;

inline void kernel::check_types() const {
  if (!type_error_.empty()) throw error(errc::bad_container, type_error_);
}

inline loaded_function* kernel::load_slow(std::size_t variant, const context_slot& slot) {
  check_types();
  std::lock_guard<std::mutex> lock(load_mutex_);
  auto& cell = loaded_[variant * max_contexts + slot.index];
  if (loaded_function* f = cell.load(std::memory_order_acquire)) return f;  // another thread won
  std::unique_ptr<loaded_function> f =
      slot.state->load(*container_, index_, static_cast<std::uint32_t>(variant));
  loaded_function* raw = f.get();
  raw->check_pointers = env::flag(env::check_pointers);
  owned_.push_back({slot.index, std::move(f)});
  cell.store(raw, std::memory_order_release);
  return raw;
}

inline void kernel::preload() {
  const context_slot& slot = contexts_->current_slot();
  for (std::size_t v = 0; v < info_->variants.size(); ++v) get_loaded(v, slot);
}

inline const image_info& kernel::loaded_image(std::size_t variant) {
  if (variant >= info_->variants.size())
    throw error(errc::bad_argument,
                identify(*info_) + ": variant " + std::to_string(variant) + " out of range");
  return *get_loaded(variant, contexts_->current_slot())->image;
}

inline void kernel::launch_variant(std::size_t variant, grid3 grid, stream_t stream,
                                   const void* const* args) {
  if (variant >= info_->variants.size())
    throw error(errc::bad_argument, identify(*info_) + ": variant " + std::to_string(variant) +
                                        " out of range (" + std::to_string(info_->variants.size()) +
                                        " variants)");
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) return;  // Triton skips empty grids too
  const context_slot& slot = contexts_->current_slot();   // no driver, no GPU: that diagnosis first
  check_null(variant, args);                              // before anything is loaded
  loaded_function* f = get_loaded(variant, slot);
  if (f->check_pointers) check_pointers(*slot.state, variant, args);
  slot.state->launch(*f, grid, stream, args);
}

[[noreturn]] TRITONPACK_COLD inline void kernel::null_pointer(std::size_t variant,
                                                              std::uint32_t a) const {
  const kernel_arg& arg = info_->args[a];
  throw error(errc::bad_argument,
              identify(*info_) + ": argument " + arg.name + " (" + arg.type +
                  ") is a null pointer, and variant " + std::to_string(variant) +
                  " reads through it (its signature says " + arg.type +
                  ":16). Pass device memory; a kernel that may be passed null declares that "
                  "argument without :16 in every signature of its spec");
}

TRITONPACK_COLD inline void kernel::check_pointers(const context_state& state, std::size_t variant,
                                                   const void* const* args) const {
  for (std::uint32_t a : passed_pointers_[variant]) {
    const std::uint64_t p = detail::pointer_value(args[a]);
    if (!p) continue;  // null: refused above where the variant reads through it
    const std::string why = state.pointer_refusal(reinterpret_cast<const void*>(p));
    if (why.empty()) continue;
    const kernel_arg& arg = info_->args[a];
    throw error(errc::bad_argument,
                identify(*info_) + ": argument " + arg.name + " (" + arg.type +
                    ") = " + detail::address_text(reinterpret_cast<const void*>(p)) + " is " + why +
                    ", which kernels on " + state.props().describe() +
                    " cannot read: the kernel would fault (checked because "
                    "TRITONPACK_CHECK_POINTERS is set)");
  }
}

inline std::size_t kernel::pick_variant(const host_arg* descs, std::size_t n) const {
  const auto& vs = info_->variants;
  // No strings unless every variant fails: this runs on every dynamic launch.
  for (std::size_t v = 0; v < vs.size(); ++v) {
    bool ok = true;
    for (std::size_t i = 0; i < n && ok; ++i)
      ok = spec_matches(vs[v].specs[i], types_[i], descs[i]);
    if (ok) return v;
  }
  throw error(errc::bad_argument, no_variant_message(*info_, types_, descs));
}

TRITONPACK_COLD inline error kernel::no_variant_error(const void* const* args) const {
  std::vector<host_arg> values;
  for (std::size_t i = 0; i < types_.size(); ++i)
    values.push_back(read_host_arg(types_[i], args[i]));
  return error(errc::bad_argument, no_variant_message(*info_, types_, values.data()));
}

[[noreturn]] TRITONPACK_COLD inline void kernel::grid_failure(std::size_t d, grid_int v) const {
  const std::string& expr = info_->grid[d];
  std::string msg = identify(*info_) + ": grid " + "xyz"[d] + " = " + expr;
  if (v.failed())
    throw error(errc::bad_argument, msg + (expr.empty() ? "" : ": ") + v.failure_text());
  msg += (expr.empty() ? "" : " = ") + std::to_string(v.value());
  if (v.value() < 0) throw error(errc::bad_argument, msg + " is negative");
  // Beyond what a grid3 holds: said against the driver's own limit when there is a driver.
  try {
    const grid_limits& lim = contexts_->get_backend_for_launch().max_grid();
    msg += " is above the " + std::string(lim.driver) + " limit of " +
           std::to_string(d == 0   ? lim.x
                          : d == 1 ? lim.y
                                   : lim.z);
  } catch (const error&) {
    msg += " does not fit a 32-bit grid dimension";
  }
  throw error(errc::bad_argument, msg);
}

inline void kernel::launch_checked(stream_t stream, grid3 grid, const void* const* args,
                                   const host_arg* descs, std::size_t n) {
  check_types();
  const auto& a = info_->args;
  if (n != a.size()) {
    std::string sig;
    for (const auto& x : a) sig += (sig.empty() ? "" : ", ") + x.name + ": " + x.type;
    throw error(errc::bad_argument, identify(*info_) + " takes " + std::to_string(a.size()) +
                                        " arguments (" + sig + ") but " + std::to_string(n) +
                                        " were passed");
  }
  for (std::size_t i = 0; i < n; ++i) {
    const std::string why = check_host_arg(types_[i], descs[i]);
    if (!why.empty())
      throw error(errc::bad_argument, identify(*info_) + ": argument " + std::to_string(i) + " '" +
                                          a[i].name + "' (" + a[i].type + ") " + why);
  }
  launch_variant(pick_variant(descs, n), grid, stream, args);
}

inline void kernel::unload_all(bool call_driver) noexcept {
  std::lock_guard<std::mutex> lock(load_mutex_);
  const std::size_t n = info_->variants.size() * max_contexts;
  for (std::size_t i = 0; i < n; ++i) loaded_[i].store(nullptr, std::memory_order_release);
  if (call_driver)
    for (auto& o : owned_) contexts_->state(o.slot).unload(*o.fn);
  owned_.clear();
}

TRITONPACK_END_NAMESPACE
