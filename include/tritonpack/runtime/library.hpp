// tritonpack/runtime/library.hpp — a container's kernels, with per-context state (docs/runtime-api.md).
//
// Construction parses and validates the container and touches no driver, so a program can
// describe what it carries on a machine without a GPU. The driver is loaded on the first launch or
// preload. Per context (device, in practice: the primary context of each GPU) the library keeps a
// context_state; contexts are found by a lock-free scan of an append-only table, fronted by a
// thread-local cache of the last (library, context) pair.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "tritonpack/runtime/backend.hpp"
#include "tritonpack/container/reader.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/runtime/kernel.hpp"
#include "tritonpack/core/model.hpp"
#include "tritonpack/backends.hpp"
#include "tritonpack/select/image.hpp"
#include "tritonpack/core/types.hpp"

namespace tritonpack {

class library {
 public:
  // Parses and validates `size` bytes at `data` (kept by reference: they must outlive the
  // library, as a generated header's static array does).
  library(const std::uint8_t* data, std::size_t size)
      : container_(container::parse(data, size)),
        serial_(next_serial()),
        kernel_count_(container_.kernel_count()),
        kernels_(new std::atomic<tritonpack::kernel*>[kernel_count_ ? kernel_count_ : 1]),
        owned_kernels_(new std::unique_ptr<tritonpack::kernel>[kernel_count_ ? kernel_count_ : 1]) {
    for (std::size_t i = 0; i < kernel_count_; ++i) kernels_[i].store(nullptr, std::memory_order_relaxed);
    detail::register_open_container(&container_);  // its images count when the backend is chosen
  }
  // What a generated header's library() does: `data` must be the container with tables checksum
  // `container_checksum`, the one the header was packed with. If it is not, two different
  // libraries with one name are linked into the program and the linker kept the other one's data
  // (docs/spec.md, "One library per name in a program"): error(bad_container) saying so.
  library(const std::uint8_t* data, std::size_t size, std::uint64_t container_checksum)
      : library(expect_container(data, size, container_checksum), size) {}
  library(const library&) = delete;
  library& operator=(const library&) = delete;
  ~library() {
    detail::unregister_open_container(&container_);
    unload();
  }

  // The whole model (built on first call; the launch path never needs it).
  const container_info& info() const { return container_.info(); }
  const tritonpack::container& container() const noexcept { return container_; }

  // The kernel called `name`; error(not_found) lists the kernels present.
  tritonpack::kernel& get(std::string_view name) {
    const long i = container_.find_kernel(name);
    if (i < 0) {
      std::string names;
      for (const auto& k : info().kernels) names += (names.empty() ? "" : ", ") + k.name;
      throw error(errc::not_found, "library " + info().name + " has no kernel '" + std::string(name) + "'; it has: " +
                                       (names.empty() ? std::string("(none)") : names));
    }
    return kernel_at(static_cast<std::size_t>(i));
  }
  tritonpack::kernel& kernel(std::string_view name) { return get(name); }  // issue 4's spelling

  tritonpack::kernel& at(std::size_t index) {
    if (index >= kernel_count_)
      throw error(errc::not_found, "library " + info().name + ": kernel index " + std::to_string(index) + " out of range (" +
                                       std::to_string(kernel_count_) + " kernels)");
    return kernel_at(index);
  }
  // What a generated typed function does, once (it keeps the result in a function-local static):
  // the kernel at `index`, checked to be the one the function was written for: `signature` is its
  // kernel_signature() and `container_checksum` the container it was packed into. A mismatch means
  // the function and this library come from two different libraries with one name (docs/spec.md,
  // "One library per name in a program"): error(bad_container) saying so, never a launch.
  tritonpack::kernel& at(std::size_t index, std::string_view signature, std::uint64_t container_checksum) {
    const std::uint64_t held = container_.tables_checksum();
    const std::string here = index < kernel_count_ ? kernel_signature(container_.kernel(index)) : std::string();
    if (held == container_checksum && here == signature) return kernel_at(index);
    const std::string& name = container_.partial_info().name;
    const std::string function = name + "::" + std::string(signature.substr(0, signature.find('(')));
    const std::string found = here.empty()        ? "which has only " + std::to_string(kernel_count_) + " kernels"
                              : here == signature ? "whose kernel " + std::to_string(index) + " is " + here + " too, but built differently"
                                                  : "whose kernel " + std::to_string(index) + " is " + here;
    throw error(errc::bad_container,
                two_libraries_message(name, function + " was generated for kernel " + std::to_string(index) + ", " +
                                                std::string(signature) + ", of container " + container::hex(container_checksum) +
                                                ", but " + name + "::library() holds container " + container::hex(held) + ", " +
                                                found));
  }
  std::size_t size() const noexcept { return kernel_count_; }

  // Loads every kernel on the calling thread's device.
  void preload() {
    for (std::size_t i = 0; i < kernel_count_; ++i) kernel_at(i).preload();
  }

  // Unloads every module and frees scratch memory in every context. The library may be used
  // again afterwards (kernels load again on their next launch). Not safe concurrently with
  // launches of this library. At process exit (static destruction) the driver is not called.
  void unload() noexcept {
    std::lock_guard<std::mutex> lock(slot_mutex_);
    const bool call_driver = !process_exiting();
    for (std::size_t i = 0; i < kernel_count_; ++i)
      if (tritonpack::kernel* k = kernels_[i].load(std::memory_order_acquire)) k->unload_all(call_driver);
    const std::uint32_t n = slot_count_.load(std::memory_order_acquire);
    for (std::uint32_t i = 0; i < n; ++i) {
      if (slots_[i].state && call_driver) slots_[i].state->release();
      // The state object itself stays (launch paths may hold the slot pointer); release() left it
      // empty and usable.
    }
  }

  // Facts about the calling thread's device (loads the driver; makes a context current if none).
  const device_props& current_device() { return current_slot().state->props(); }

  // The backend, loaded on first use. Errors (no driver, no GPU) name what this program carries.
  backend& get_backend_for_launch() {
    backend* b = backend_.load(std::memory_order_acquire);
    if (b) return *b;
    try {
      b = &get_backend();
    } catch (const error& e) {
      throw error(e.code(), std::string(e.what()).substr(12) + "\n  this program carries " + carried_images(), e.driver_status());
    }
    backend_.store(b, std::memory_order_release);
    return *b;
  }

  // "images for cuda sm_80 (cubin, ptx), sm_90a (cubin, ptx); hip gfx942 (hsaco)"
  std::string carried_images() const {
    std::vector<std::string> order;
    std::vector<std::set<std::string>> kinds;
    for (const auto& im : info().images) {
      const std::string key = std::string(backend_name(im.backend)) + " " + im.arch;
      std::size_t i = 0;
      while (i < order.size() && order[i] != key) ++i;
      if (i == order.size()) {
        order.push_back(key);
        kinds.emplace_back();
      }
      kinds[i].insert(image_kind_name(im.kind));
    }
    std::string s = "images for";
    for (std::size_t i = 0; i < order.size(); ++i) {
      s += (i ? ", " : " ") + order[i] + " (";
      bool first = true;
      for (const auto& k : kinds[i]) {
        s += (first ? "" : ", ") + k;
        first = false;
      }
      s += ")";
    }
    return order.empty() ? "no images" : s;
  }

  // The slot of the calling thread's current context (created on first use).
  const context_slot& current_slot() {
    backend& be = get_backend_for_launch();
    void* ctx = be.current_context();
    struct tls_cache {
      std::uint64_t serial;
      void* ctx;
      const context_slot* slot;
    };
    static thread_local tls_cache cache{0, nullptr, nullptr};
    if (cache.serial == serial_ && cache.ctx == ctx) return *cache.slot;
    const context_slot* s = find_or_add_slot(be, ctx);
    cache = {serial_, ctx, s};
    return *s;
  }

 private:
  friend class tritonpack::kernel;

  static std::string two_libraries_message(const std::string& name, const std::string& what) {
    return "two different libraries named \"" + name + "\" are linked into this program: " + what +
           ". Each library in a program needs its own name: give each tritonpack_add_kernels() its own NAME, or set "
           "`name = \"...\"` in each spec, or pack with --name (docs/spec.md, \"Names\")";
  }

  // `data`, once its header's tables checksum is found to be `expected` (see the constructor).
  static const std::uint8_t* expect_container(const std::uint8_t* data, std::size_t size, std::uint64_t expected) {
    // Read the bytes that are there, not the ones the compiler saw: `data` is a header's constexpr
    // array, whose contents an optimiser may fold in from this translation unit's copy of the
    // header, which is exactly what may differ from the copy the linker kept.
    const std::uint8_t* volatile opaque = data;
    data = opaque;
    std::uint64_t total = 0;
    if (!container::probe(data, size, total)) return data;  // not a container at all: parse() says what is wrong
    const std::uint64_t found = byte_io::load_u64(data + format::header::tables_checksum);
    if (found == expected) return data;
    // The data is another generated header's container, `total` bytes long by its own header.
    std::string name = "?";
    try {
      name = container::parse(data, static_cast<std::size_t>(total)).partial_info().name;
    } catch (const error&) {
    }
    throw error(errc::bad_container,
                two_libraries_message(name, name + "::library() was generated for container " + container::hex(expected) +
                                                ", but the container data the linker kept under that name is " +
                                                container::hex(found)));
  }

  static std::uint64_t next_serial() {
    static std::atomic<std::uint64_t> counter{0};
    return ++counter;  // never 0: 0 marks an empty thread-local cache
  }

  tritonpack::kernel& kernel_at(std::size_t i) {
    if (tritonpack::kernel* k = kernels_[i].load(std::memory_order_acquire)) return *k;
    std::lock_guard<std::mutex> lock(kernels_mutex_);
    if (tritonpack::kernel* k = kernels_[i].load(std::memory_order_relaxed)) return *k;  // another thread made it
    owned_kernels_[i] = std::make_unique<tritonpack::kernel>(*this, static_cast<std::uint32_t>(i), container_.kernel(i));
    kernels_[i].store(owned_kernels_[i].get(), std::memory_order_release);
    return *owned_kernels_[i];
  }

  const context_slot* find_or_add_slot(backend& be, void* ctx) {
    std::uint32_t n = slot_count_.load(std::memory_order_acquire);
    for (std::uint32_t i = 0; i < n; ++i)
      if (slots_[i].ctx == ctx) return &slots_[i];
    std::lock_guard<std::mutex> lock(slot_mutex_);
    n = slot_count_.load(std::memory_order_relaxed);
    for (std::uint32_t i = 0; i < n; ++i)
      if (slots_[i].ctx == ctx) return &slots_[i];
    if (n == max_contexts)
      throw error(errc::unsupported, "library " + info().name + ": more than " + std::to_string(max_contexts) +
                                         " CUDA contexts used with one library");
    context_slot& s = slots_[n];
    s.state = be.open_context(ctx);
    s.ctx = ctx;
    s.index = n;
    slot_count_.store(n + 1, std::memory_order_release);
    return &s;
  }

  tritonpack::container container_;
  std::uint64_t serial_;
  // Kernel objects are made on first use (at(), get()): a first launch pays for its own kernel
  // only, not for every kernel of a large library.
  std::size_t kernel_count_;
  std::unique_ptr<std::atomic<tritonpack::kernel*>[]> kernels_;
  std::unique_ptr<std::unique_ptr<tritonpack::kernel>[]> owned_kernels_;
  std::mutex kernels_mutex_;
  std::atomic<backend*> backend_{nullptr};
  std::array<context_slot, max_contexts> slots_;
  std::atomic<std::uint32_t> slot_count_{0};
  std::mutex slot_mutex_;
};

// ---------------------------------------------------------------------------------------------
// kernel's members (here because they need library)

inline kernel::kernel(library& lib, std::uint32_t index, const kernel_info& info)
    : lib_(&lib), index_(index), info_(&info) {
  const std::size_t n = info.variants.size() * max_contexts;
  loaded_.reset(new std::atomic<loaded_function*>[n ? n : 1]);
  for (std::size_t i = 0; i < n; ++i) loaded_[i].store(nullptr, std::memory_order_relaxed);
  for (const auto& a : info.args) {
    try {
      types_.push_back(parse_arg_type(a.type));
    } catch (const error& e) {
      types_.push_back(arg_type{});
      if (type_error_.empty()) type_error_ = "kernel " + info.name + ", argument '" + a.name + "': " + (e.what() + 12);
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
      slot.state->load(lib_->container(), index_, static_cast<std::uint32_t>(variant));
  loaded_function* raw = f.get();
  owned_.push_back({slot.index, std::move(f)});
  cell.store(raw, std::memory_order_release);
  return raw;
}

inline void kernel::preload() {
  const context_slot& slot = lib_->current_slot();
  for (std::size_t v = 0; v < info_->variants.size(); ++v) get_loaded(v, slot);
}

inline const image_info& kernel::loaded_image(std::size_t variant) {
  if (variant >= info_->variants.size())
    throw error(errc::bad_argument, "kernel " + info_->name + ": variant " + std::to_string(variant) + " out of range");
  return *get_loaded(variant, lib_->current_slot())->image;
}

inline void kernel::launch_variant(std::size_t variant, grid3 grid, stream_t stream, const void* const* args) {
  if (variant >= info_->variants.size())
    throw error(errc::bad_argument, "kernel " + info_->name + ": variant " + std::to_string(variant) + " out of range (" +
                                        std::to_string(info_->variants.size()) + " variants)");
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) return;  // Triton skips empty grids too
  const context_slot& slot = lib_->current_slot();
  loaded_function* f = get_loaded(variant, slot);
  slot.state->launch(*f, grid, stream, args);
}

inline std::size_t kernel::pick_variant(const host_arg* descs, std::size_t n) const {
  const auto& vs = info_->variants;
  // No strings unless every variant fails: this runs on every dynamic launch.
  for (std::size_t v = 0; v < vs.size(); ++v) {
    bool ok = true;
    for (std::size_t i = 0; i < n && ok; ++i) ok = spec_matches(vs[v].specs[i], types_[i], descs[i]);
    if (ok) return v;
  }
  throw error(errc::bad_argument, no_variant_message(*info_, types_, descs));
}

TRITONPACK_COLD inline error kernel::no_variant_error(const void* const* args) const {
  std::vector<host_arg> values;
  for (std::size_t i = 0; i < types_.size(); ++i) values.push_back(read_host_arg(types_[i], args[i]));
  return error(errc::bad_argument, no_variant_message(*info_, types_, values.data()));
}

[[noreturn]] TRITONPACK_COLD inline void kernel::grid_failure(std::size_t d, grid_int v) const {
  const std::string& expr = info_->grid[d];
  std::string msg = "kernel " + info_->name + ": grid " + "xyz"[d] + " = " + expr;
  if (v.failed()) throw error(errc::bad_argument, msg + (expr.empty() ? "" : ": ") + v.failure_text());
  msg += (expr.empty() ? "" : " = ") + std::to_string(v.value());
  if (v.value() < 0) throw error(errc::bad_argument, msg + " is negative");
  // Beyond what a grid3 holds: said against the driver's own limit when there is a driver.
  try {
    const grid_limits& lim = lib_->get_backend_for_launch().max_grid();
    msg += " is above the " + std::string(lim.driver) + " limit of " + std::to_string(d == 0 ? lim.x : d == 1 ? lim.y : lim.z);
  } catch (const error&) {
    msg += " does not fit a 32-bit grid dimension";
  }
  throw error(errc::bad_argument, msg);
}

inline void kernel::launch_checked(stream_t stream, grid3 grid, const void* const* args, const host_arg* descs, std::size_t n) {
  check_types();
  const auto& a = info_->args;
  if (n != a.size()) {
    std::string sig;
    for (const auto& x : a) sig += (sig.empty() ? "" : ", ") + x.name + ": " + x.type;
    throw error(errc::bad_argument, "kernel " + info_->name + " takes " + std::to_string(a.size()) + " arguments (" + sig +
                                        ") but " + std::to_string(n) + " were passed");
  }
  for (std::size_t i = 0; i < n; ++i) {
    const std::string why = check_host_arg(types_[i], descs[i]);
    if (!why.empty())
      throw error(errc::bad_argument, "kernel " + info_->name + ": argument " + std::to_string(i) + " '" + a[i].name + "' (" +
                                          a[i].type + ") " + why);
  }
  launch_variant(pick_variant(descs, n), grid, stream, args);
}

inline void kernel::unload_all(bool call_driver) noexcept {
  std::lock_guard<std::mutex> lock(load_mutex_);
  const std::size_t n = info_->variants.size() * max_contexts;
  for (std::size_t i = 0; i < n; ++i) loaded_[i].store(nullptr, std::memory_order_release);
  if (call_driver)
    for (auto& o : owned_) lib_->slots_[o.slot].state->unload(*o.fn);
  owned_.clear();
}

}  // namespace tritonpack
