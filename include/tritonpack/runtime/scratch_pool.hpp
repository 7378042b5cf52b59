// tritonpack/runtime/scratch_pool.hpp — the global scratch memory Triton kernels ask for, kept
// per (context, stream) for both backends (docs/triton-abi.md §1 for CUDA, docs/hip-abi.md §1.2
// for AMD from Triton 3.8). How much a launch needs is launch/params.hpp's compute_scratch; where
// it lives is decided here; the driver calls are the backend's (scratch_device).
//
// Each launch in flight needs its own region; the choice here:
//  * Not capturing: one buffer per stream, grown geometrically and reused. Launches on one stream
//    run in order, so consecutive launches may share it. An outgrown buffer may still be read by
//    launches in flight, so it is retired with an event recorded on its stream and freed only
//    once that event has completed. Streams are told apart by the driver's stream id where it has
//    one, so a destroyed stream's handle reused by a new stream does not share a buffer with work
//    still draining on the old one (that old buffer is retired without an event and freed at
//    release(), after a device synchronize).
//  * Capturing into a graph: no synchronisation is allowed and the address is baked into the
//    graph, so a dedicated buffer is allocated (the backend switches the thread to relaxed capture
//    mode for it, as PyTorch does) and kept until release(). Replays of one graph are serialised
//    by the driver, so they may share it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "tritonpack/launch/params.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

// The driver calls the pool makes, given by a backend for one launch (or for release()). The
// throwing ones throw a tritonpack::error naming the kernel and the call. Device addresses are
// integers (CUdeviceptr, HIP's void*).
class scratch_device {
 public:
  virtual bool capturing(void* stream) = 0;                // the stream is capturing a graph
  virtual unsigned long long stream_id(void* stream) = 0;  // unique per stream; 0: no such query
  virtual std::uintptr_t allocate(std::size_t bytes, bool capturing) = 0;
  virtual void* record_event(void* stream) = 0;  // completes once the stream's queued work has
  virtual bool event_complete(void* event) noexcept = 0;
  virtual void wait_and_destroy_event(void* event) noexcept = 0;
  virtual void destroy_event(void* event) noexcept = 0;
  virtual void free(std::uintptr_t p) noexcept = 0;
  virtual void synchronize() noexcept = 0;  // the whole context (device)

 protected:
  ~scratch_device() = default;
};

class scratch_pool {
 public:
  // cuMemAlloc and hipMalloc both return 256-byte aligned memory; a larger alignment is made by
  // allocating that much more and rounding the address up.
  static constexpr std::size_t driver_alignment = 256;

  // Fills scratch[0] (global) and scratch[1] (profile) with the regions `need` asks for, null
  // where it asks for none, in a buffer for `stream`.
  void acquire(scratch_device& dev, const scratch_need& need, void* stream, void** scratch) {
    if (need.total == 0) return;
    const std::size_t align = need.align > driver_alignment ? need.align : driver_alignment;
    const std::size_t bytes =
        static_cast<std::size_t>(need.total) + (align > driver_alignment ? align : 0);
    auto place = [&](std::uintptr_t base) {
      const std::uintptr_t p = (base + align - 1) / align * align;
      scratch[0] = need.global_bytes ? reinterpret_cast<void*>(p) : nullptr;
      scratch[1] =
          need.profile_bytes
              ? reinterpret_cast<void*>(p + static_cast<std::uintptr_t>(need.profile_offset))
              : nullptr;
    };
    if (dev.capturing(stream)) {
      const std::uintptr_t p = dev.allocate(bytes, true);
      std::lock_guard<std::mutex> lock(mutex_);
      captured_.push_back(p);
      place(p);
      return;
    }
    const unsigned long long id = dev.stream_id(stream);
    std::lock_guard<std::mutex> lock(mutex_);
    buffer* slot = nullptr;
    for (auto& b : buffers_)
      if (b.stream == stream) slot = &b;
    if (slot && slot->stream_id != id) {  // the handle now names another stream
      retired_.push_back({slot->ptr, nullptr});
      *slot = buffer{stream, id, 0, 0};
    }
    if (slot && slot->size >= bytes) {
      place(slot->ptr);
      return;
    }
    // Free retired buffers whose last users have finished.
    for (auto it = retired_.begin(); it != retired_.end();) {
      if (it->event && dev.event_complete(it->event)) {
        dev.destroy_event(it->event);
        dev.free(it->ptr);
        it = retired_.erase(it);
      } else {
        ++it;
      }
    }
    const std::size_t grow = slot ? std::max(bytes, slot->size * 2) : bytes;
    const std::uintptr_t p = dev.allocate(grow, false);
    if (slot) {
      if (slot->ptr) {
        void* ev = nullptr;
        try {
          ev = dev.record_event(stream);
        } catch (...) {
          dev.free(p);
          throw;
        }
        retired_.push_back({slot->ptr, ev});
      }
      slot->ptr = p;
      slot->size = grow;
    } else {
      buffers_.push_back({stream, id, p, grow});
    }
    place(p);
  }

  // Frees every buffer, after the work that may still use it (library teardown).
  void release(scratch_device& dev) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    bool need_sync = false;
    for (auto& r : retired_) {
      if (r.event) dev.wait_and_destroy_event(r.event);
      else need_sync = true;
    }
    // Buffers of live streams and of captured graphs may still be in use by queued work: wait for
    // the device before freeing them.
    if (need_sync || !buffers_.empty() || !captured_.empty()) dev.synchronize();
    for (auto& r : retired_) dev.free(r.ptr);
    for (auto& b : buffers_) dev.free(b.ptr);
    for (auto p : captured_) dev.free(p);
    retired_.clear();
    buffers_.clear();
    captured_.clear();
  }

 private:
  struct buffer {
    void* stream = nullptr;
    unsigned long long stream_id = 0;
    std::uintptr_t ptr = 0;
    std::size_t size = 0;
  };
  struct retired_buffer {
    std::uintptr_t ptr = 0;
    void* event = nullptr;  // null: free at release() after a synchronize
  };

  std::mutex mutex_;
  std::vector<buffer> buffers_;           // one per stream in use
  std::vector<retired_buffer> retired_;   // outgrown buffers, freed once their event completes
  std::vector<std::uintptr_t> captured_;  // buffers baked into captured graphs: kept to release()
};

TRITONPACK_END_NAMESPACE
