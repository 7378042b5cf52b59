// tritonpack/core/load_stats.hpp — how this process got its kernels' images: counters of modules
// loaded from packed binaries (cubins, AMD code objects), compiled from IR (PTX JIT, AMD LLVM IR
// through comgr) and read from the JIT disk cache. For programs that report their start-up
// (examples/mpi prints them per rank: which rank compiled, which was served by the cache) and for
// tests; TRITONPACK_LOG=1 says the same per kernel in words.
//
// Process-wide and monotonic: every module a context loads (one per kernel, variant and device;
// again after library::unload()) increments exactly one counter. Relaxed atomics: loading is a
// cold path, and a reader wants totals, not an order between them.
#pragma once

#include <atomic>
#include <cstdint>

#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

// A snapshot of image_loads(); subtract two snapshots to count the loads of a region.
struct image_load_counts {
  std::uint64_t binaries = 0;  // cubins and AMD code objects (hsaco) loaded as packed
  std::uint64_t jit_compiled =
      0;  // IR images this process compiled (PTX JIT, AMD IR via comgr), cached or not
  std::uint64_t jit_cache_hits = 0;  // JIT results read from the disk cache instead of compiling
  // Images decoded from a container one by one (container::decode_view, decode_image: a load,
  // `extract`; not `inspect`'s whole-frame check): not a load, so not in total(). A load from the
  // JIT cache decodes none (cuda/loading.hpp).
  std::uint64_t decoded = 0;

  std::uint64_t total() const { return binaries + jit_compiled + jit_cache_hits; }
};

namespace detail {
struct image_load_counters {
  std::atomic<std::uint64_t> binaries{0}, jit_compiled{0}, jit_cache_hits{0}, decoded{0};
};

inline image_load_counters& load_counters() {
  static image_load_counters c;
  return c;
}

inline void count_load(std::atomic<std::uint64_t> image_load_counters::*which) {
  (load_counters().*which).fetch_add(1, std::memory_order_relaxed);
}
}  // namespace detail

// The counts since the process started.
inline image_load_counts image_loads() {
  const auto& c = detail::load_counters();
  image_load_counts r;
  r.binaries = c.binaries.load(std::memory_order_relaxed);
  r.jit_compiled = c.jit_compiled.load(std::memory_order_relaxed);
  r.jit_cache_hits = c.jit_cache_hits.load(std::memory_order_relaxed);
  r.decoded = c.decoded.load(std::memory_order_relaxed);
  return r;
}

TRITONPACK_END_NAMESPACE
