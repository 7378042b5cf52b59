// tritonpack/hip/scratch.hpp — the HIP runtime calls of the global scratch pool
// (runtime/scratch_pool.hpp) that kernels built by Triton 3.8 and later need on AMD
// (docs/hip-abi.md §1.2, launch/triton_abi.hpp hip_global_scratch).
//
// Every call runs on the calling thread's current device, which is the launching state's (the
// library looked the state up by it; release() makes it current itself). The entry points are
// optional (hip/api.hpp): without the event calls an outgrown buffer is kept until release();
// without hipStreamIsCapturing a stream counts as not capturing, without hipStreamGetId streams
// are told apart by handle only.
#pragma once

#include <cstdint>
#include <string>

#include "tritonpack/core/identify.hpp"
#include "tritonpack/hip/api.hpp"
#include "tritonpack/hip/driver.hpp"
#include "tritonpack/runtime/backend.hpp"
#include "tritonpack/runtime/scratch_pool.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace hip {

class scratch_calls final : public scratch_device {
 public:
  // `f`: the kernel being launched, named in errors (null at release()).
  scratch_calls(const driver& d, const loaded_function* f) : d_(d), f_(f) {}

  bool capturing(void* stream) override {
    if (!d_.fn.hipStreamIsCapturing) return false;
    int status = hipStreamCaptureStatusNone;
    const hipError_t r = d_.fn.hipStreamIsCapturing(static_cast<hipStream_t>(stream), &status);
    if (r != hipSuccess) d_.check(r, who() + ": hipStreamIsCapturing");
    return status != hipStreamCaptureStatusNone;
  }
  unsigned long long stream_id(void* stream) override {
    unsigned long long id = 0;
    if (!d_.fn.hipStreamGetId) return 0;
    const hipError_t r = d_.fn.hipStreamGetId(static_cast<hipStream_t>(stream), &id);
    if (r != hipSuccess) d_.check(r, who() + ": hipStreamGetId");
    return id;
  }
  std::uintptr_t allocate(std::size_t bytes, bool capturing) override {
    const std::string what = who() + ": hipMalloc of " + std::to_string(bytes) +
                             " bytes of global scratch" +
                             (capturing ? " during graph capture" : "");
    if (!d_.fn.hipMalloc)
      throw error(errc::no_driver, what + ": " + d_.library + " lacks hipMalloc");
    void* p = nullptr;
    int mode = hipStreamCaptureModeRelaxed;
    const bool relax = capturing && d_.fn.hipThreadExchangeStreamCaptureMode &&
                       d_.fn.hipThreadExchangeStreamCaptureMode(&mode) == hipSuccess;
    const hipError_t r = d_.fn.hipMalloc(&p, bytes);
    if (relax) d_.fn.hipThreadExchangeStreamCaptureMode(&mode);
    d_.check(r, what);
    return reinterpret_cast<std::uintptr_t>(p);
  }
  void* record_event(void* stream) override {
    if (!d_.fn.hipEventCreateWithFlags || !d_.fn.hipEventRecord)
      return nullptr;  // kept to release()
    hipEvent_t ev = nullptr;
    hipError_t r = d_.fn.hipEventCreateWithFlags(&ev, hipEventDisableTiming);
    if (r == hipSuccess) r = d_.fn.hipEventRecord(ev, static_cast<hipStream_t>(stream));
    if (r != hipSuccess) {
      if (ev && d_.fn.hipEventDestroy) d_.fn.hipEventDestroy(ev);
      d_.check(r, who() + ": recording an event to retire the outgrown scratch buffer");
    }
    return ev;
  }
  bool event_complete(void* ev) noexcept override {
    return d_.fn.hipEventQuery && d_.fn.hipEventQuery(static_cast<hipEvent_t>(ev)) == hipSuccess;
  }
  void wait_and_destroy_event(void* ev) noexcept override {
    if (d_.fn.hipEventSynchronize) d_.fn.hipEventSynchronize(static_cast<hipEvent_t>(ev));
    destroy_event(ev);
  }
  void destroy_event(void* ev) noexcept override {
    if (d_.fn.hipEventDestroy) d_.fn.hipEventDestroy(static_cast<hipEvent_t>(ev));
  }
  void free(std::uintptr_t p) noexcept override {
    if (d_.fn.hipFree) d_.fn.hipFree(reinterpret_cast<void*>(p));
  }
  void synchronize() noexcept override {
    if (d_.fn.hipDeviceSynchronize) d_.fn.hipDeviceSynchronize();
  }

 private:
  std::string who() const {
    return f_ && f_->kernel ? identify(*f_->kernel) : std::string("kernel ?");
  }
  const driver& d_;
  const loaded_function* f_;
};

}  // namespace hip
TRITONPACK_END_NAMESPACE
