// tritonpack/runtime/library.hpp — a container's kernels, with per-context state
// (docs/runtime-api.md).
//
// Construction parses and validates the container and touches no driver, so a program can
// describe what it carries on a machine without a GPU. The driver is loaded on the first launch or
// preload. Per context (device, in practice: the primary context of each GPU) the library keeps a
// context_state, in its context_table (runtime/contexts.hpp).
//
// Every live library is listed in open_containers(): the composition root (the top-level backends
// header) reads that list when it chooses a vendor, so that the choice agrees with what launches
// will do.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "tritonpack/container/reader.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/core/model.hpp"
#include "tritonpack/runtime/backend.hpp"
#include "tritonpack/runtime/contexts.hpp"
#include "tritonpack/runtime/kernel.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace detail {

// The containers of the libraries alive in this process (each library registers its own).
struct open_container_list {
  std::mutex mutex;
  std::vector<const container*> items;
};
inline open_container_list& open_containers() {
  static open_container_list* l =
      new open_container_list();  // leaked: libraries die in static destruction
  return *l;
}
inline void register_open_container(const container* c) {
  auto& l = open_containers();
  std::lock_guard<std::mutex> lock(l.mutex);
  l.items.push_back(c);
}
inline void unregister_open_container(const container* c) noexcept {
  auto& l = open_containers();
  std::lock_guard<std::mutex> lock(l.mutex);
  l.items.erase(std::remove(l.items.begin(), l.items.end(), c), l.items.end());
}

}  // namespace detail

class library {
 public:
  // Parses and validates `size` bytes at `data` (kept by reference: they must outlive the
  // library, as a generated header's static array does).
  library(const std::uint8_t* data, std::size_t size)
      : container_(container::parse(data, size)),
        contexts_(container_),
        kernel_count_(container_.kernel_count()),
        kernels_(new std::atomic<tritonpack::kernel*>[kernel_count_ ? kernel_count_ : 1]),
        owned_kernels_(new std::unique_ptr<tritonpack::kernel>[kernel_count_ ? kernel_count_ : 1]) {
    for (std::size_t i = 0; i < kernel_count_; ++i)
      kernels_[i].store(nullptr, std::memory_order_relaxed);
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
      throw error(errc::not_found,
                  "library " + info().name + " has no kernel '" + std::string(name) +
                      "'; it has: " + (names.empty() ? std::string("(none)") : names));
    }
    return kernel_at(static_cast<std::size_t>(i));
  }
  tritonpack::kernel& kernel(std::string_view name) { return get(name); }  // the same as get()

  tritonpack::kernel& at(std::size_t index) {
    if (index >= kernel_count_)
      throw error(errc::not_found, "library " + info().name + ": kernel index " +
                                       std::to_string(index) + " out of range (" +
                                       std::to_string(kernel_count_) + " kernels)");
    return kernel_at(index);
  }
  // What a generated typed function does, once (it keeps the result in a function-local static):
  // the kernel at `index`, checked to be the one the function was written for: `signature` is its
  // kernel_signature() and `container_checksum` the container it was packed into. A mismatch means
  // the function and this library come from two different libraries with one name (docs/spec.md,
  // "One library per name in a program"): error(bad_container) saying so, never a launch.
  tritonpack::kernel& at(std::size_t index, std::string_view signature,
                         std::uint64_t container_checksum) {
    const std::uint64_t held = container_.tables_checksum();
    const std::string here =
        index < kernel_count_ ? kernel_signature(container_.kernel(index)) : std::string();
    if (held == container_checksum && here == signature) return kernel_at(index);
    const std::string& name = container_.partial_info().name;
    const std::string function =
        name + "::" + std::string(signature.substr(0, signature.find('(')));
    const std::string found =
        here.empty()        ? "which has only " + std::to_string(kernel_count_) + " kernels"
        : here == signature ? "whose kernel " + std::to_string(index) + " is " + here +
                                  " too, but built differently"
                            : "whose kernel " + std::to_string(index) + " is " + here;
    throw error(
        errc::bad_container,
        two_libraries_message(name, function + " was generated for kernel " +
                                        std::to_string(index) + ", " + std::string(signature) +
                                        ", of container " + container::hex(container_checksum) +
                                        ", but " + name + "::library() holds container " +
                                        container::hex(held) + ", " + found));
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
    std::lock_guard<std::mutex> lock(kernels_mutex_);
    const bool call_driver = !process_exiting();
    for (std::size_t i = 0; i < kernel_count_; ++i)
      if (tritonpack::kernel* k = kernels_[i].load(std::memory_order_acquire))
        k->unload_all(call_driver);
    if (call_driver) contexts_.release_all();
  }

  // Facts about the calling thread's device (loads the driver; makes a context current if none).
  const device_props& current_device() { return current_slot().state->props(); }

  // The backend, loaded on first use. Errors (no driver, no GPU) name what this program carries.
  backend& get_backend_for_launch() { return contexts_.get_backend_for_launch(); }

  // "images for cuda sm_80 (cubin, ptx), sm_90a (cubin, ptx); hip gfx942 (hsaco)"
  std::string carried_images() const { return contexts_.carried_images(); }

  // The slot of the calling thread's current context (created on first use).
  const context_slot& current_slot() { return contexts_.current_slot(); }

 private:
  static std::string two_libraries_message(const std::string& name, const std::string& what) {
    return "two different libraries named \"" + name + "\" are linked into this program: " + what +
           ". Each library in a program needs its own name: give each tritonpack_add_kernels() its "
           "own NAME, or set "
           "`name = \"...\"` in each spec, or pack with --name (docs/spec.md, \"Names\")";
  }

  // `data`, once its header's tables checksum is found to be `expected` (see the constructor).
  static const std::uint8_t* expect_container(const std::uint8_t* data, std::size_t size,
                                              std::uint64_t expected) {
    // Read the bytes that are there, not the ones the compiler saw: `data` is a header's constexpr
    // array, whose contents an optimiser may fold in from this translation unit's copy of the
    // header, which is exactly what may differ from the copy the linker kept.
    const std::uint8_t* volatile opaque = data;
    data = opaque;
    std::uint64_t total = 0;
    if (!container::probe(data, size, total))
      return data;  // not a container at all: parse() says what is wrong
    const std::uint64_t found = byte_io::load_u64(data + format::header::tables_checksum);
    if (found == expected) return data;
    // The data is another generated header's container, `total` bytes long by its own header.
    std::string name = "?";
    try {
      name = container::parse(data, static_cast<std::size_t>(total)).partial_info().name;
    } catch (const error&) {
    }
    throw error(
        errc::bad_container,
        two_libraries_message(
            name, name + "::library() was generated for container " + container::hex(expected) +
                      ", but the container data the linker kept under that name is " +
                      container::hex(found)));
  }

  tritonpack::kernel& kernel_at(std::size_t i) {
    if (tritonpack::kernel* k = kernels_[i].load(std::memory_order_acquire)) return *k;
    std::lock_guard<std::mutex> lock(kernels_mutex_);
    if (tritonpack::kernel* k = kernels_[i].load(std::memory_order_relaxed))
      return *k;  // another thread made it
    owned_kernels_[i] =
        std::make_unique<tritonpack::kernel>(container_, contexts_, static_cast<std::uint32_t>(i));
    kernels_[i].store(owned_kernels_[i].get(), std::memory_order_release);
    return *owned_kernels_[i];
  }

  tritonpack::container container_;
  context_table contexts_;
  // Kernel objects are made on first use (at(), get()): a first launch pays for its own kernel
  // only, not for every kernel of a large library.
  std::size_t kernel_count_;
  std::unique_ptr<std::atomic<tritonpack::kernel*>[]> kernels_;
  std::unique_ptr<std::unique_ptr<tritonpack::kernel>[]> owned_kernels_;
  std::mutex kernels_mutex_;
};

TRITONPACK_END_NAMESPACE
