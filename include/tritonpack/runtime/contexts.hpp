// tritonpack/runtime/contexts.hpp — one library's per-context state: which contexts it has served,
// each one's context_state (device facts, loaded modules, scratch), and the backend it reached.
//
// Contexts (devices, in practice: the primary context of each GPU) are found by a lock-free scan
// of an append-only table, fronted by a thread-local cache of the last (table, context) pair, so a
// launch after the first costs one driver call to read the current context and a compare.
//
// The backend comes from get_backend(), which the composition root (the top-level backends header)
// defines; this layer only knows the neutral interface of runtime/backend.hpp.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "tritonpack/container/reader.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/runtime/backend.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

// Contexts one library can serve at once (devices × contexts per device). Generous: a node has at
// most 16 GPUs, and applications rarely create extra contexts.
constexpr std::size_t max_contexts = 64;

struct context_slot {
  void* ctx = nullptr;
  std::uint32_t index = 0;
  std::unique_ptr<context_state> state;
};

class context_table {
 public:
  explicit context_table(const container& c) : container_(&c), serial_(next_serial()) {}
  context_table(const context_table&) = delete;
  context_table& operator=(const context_table&) = delete;

  // The backend, reached on first use. Errors (no driver, no GPU) name what this program carries.
  backend& get_backend_for_launch() {
    backend* b = backend_.load(std::memory_order_acquire);
    if (b) return *b;
    try {
      b = &get_backend();
    } catch (const error& e) {
      throw e.with_note("\n  this program carries " + carried_images());
    }
    backend_.store(b, std::memory_order_release);
    return *b;
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

  // The state of slot `index`, which a current_slot() call has created.
  context_state& state(std::uint32_t index) const noexcept { return *slots_[index].state; }

  // Frees every context's scratch memory and events (library teardown; see library::unload()).
  // The state objects stay: launch paths may hold a slot pointer, and release() leaves a state
  // empty and usable.
  void release_all() noexcept {
    std::lock_guard<std::mutex> lock(slot_mutex_);
    const std::uint32_t n = slot_count_.load(std::memory_order_acquire);
    for (std::uint32_t i = 0; i < n; ++i)
      if (slots_[i].state) slots_[i].state->release();
  }

  // "images for cuda sm_80 (cubin, ptx), sm_90a (cubin, ptx); hip gfx942 (hsaco)"
  std::string carried_images() const {
    std::vector<std::string> order;
    std::vector<std::set<std::string>> kinds;
    for (const auto& im : container_->info().images) {
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

 private:
  static std::uint64_t next_serial() {
    static std::atomic<std::uint64_t> counter{0};
    return ++counter;  // never 0: 0 marks an empty thread-local cache
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
      throw error(errc::unsupported, "library " + container_->partial_info().name + ": more than " +
                                         std::to_string(max_contexts) +
                                         " CUDA contexts used with one library");
    context_slot& s = slots_[n];
    s.state = be.open_context(ctx);
    s.ctx = ctx;
    s.index = n;
    slot_count_.store(n + 1, std::memory_order_release);
    return &s;
  }

  const container* container_;
  std::uint64_t serial_;
  std::atomic<backend*> backend_{nullptr};
  std::array<context_slot, max_contexts> slots_;
  std::atomic<std::uint32_t> slot_count_{0};
  std::mutex slot_mutex_;
};

TRITONPACK_END_NAMESPACE
