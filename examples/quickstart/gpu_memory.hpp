// gpu_memory.hpp — the device memory the quickstart needs, without the CUDA toolkit.
//
// A real application allocates with what it already uses (cudaMalloc, a framework's allocator,
// hipMalloc) and passes the pointers to the generated functions. The quickstart must build on a
// machine with no GPU software at all, so it borrows the driver the run time has already loaded
// (the same dlopen'd libcuda, through tritonpack's entry-point table) for the few calls it needs.
#pragma once

#include <tritonpack/tritonpack.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

class device_buffer {
 public:
  device_buffer() = default;
  device_buffer(const tritonpack::cuda::driver* d, tritonpack::cuda::CUdeviceptr p, std::size_t bytes)
      : d_(d), ptr_(p), bytes_(bytes) {}
  device_buffer(device_buffer&& o) noexcept { *this = std::move(o); }
  device_buffer& operator=(device_buffer&& o) noexcept {
    std::swap(d_, o.d_);
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  ~device_buffer() {
    if (ptr_) d_->fn.cuMemFree(ptr_);
  }
  template <class T>
  T* as() const noexcept { return reinterpret_cast<T*>(static_cast<std::uintptr_t>(ptr_)); }
  tritonpack::cuda::CUdeviceptr ptr() const noexcept { return ptr_; }
  std::size_t bytes() const noexcept { return bytes_; }

 private:
  const tritonpack::cuda::driver* d_ = nullptr;
  tritonpack::cuda::CUdeviceptr ptr_ = 0;
  std::size_t bytes_ = 0;
};

class gpu_memory {
 public:
  // Loads the driver and makes device 0's primary context current, as the first launch would.
  // Throws tritonpack::error: no_driver, no_device (what the quickstart explains and exits 0 on).
  gpu_memory() {
    tritonpack::backend& be = tritonpack::get_backend();
    if (be.kind() != tritonpack::backend_kind::cuda)
      throw tritonpack::error(tritonpack::errc::unsupported, "the quickstart allocates memory through the CUDA driver");
    d_ = &static_cast<tritonpack::cuda::cuda_backend&>(be).drv();
    be.current_context();
    // Optional entries of the run time's table (it does not need them itself).
    if (!d_->fn.cuMemcpyHtoD || !d_->fn.cuMemcpyDtoH || !d_->fn.cuMemsetD8 || !d_->fn.cuCtxSynchronize)
      throw tritonpack::error(tritonpack::errc::unsupported,
                              "the driver lacks cuMemcpyHtoD, cuMemcpyDtoH, cuMemsetD8 or cuCtxSynchronize");
  }

  // The device the kernels will run on, as the run time sees it.
  const tritonpack::device_props& props(tritonpack::library& lib) const { return lib.current_device(); }

  device_buffer alloc(std::size_t bytes) const {
    tritonpack::cuda::CUdeviceptr p = 0;
    d_->check(d_->fn.cuMemAlloc(&p, bytes), "cuMemAlloc(" + std::to_string(bytes) + " bytes)");
    return device_buffer(d_, p, bytes);
  }
  template <class T>
  device_buffer upload(const std::vector<T>& host) const {
    device_buffer b = alloc(host.size() * sizeof(T));
    d_->check(d_->fn.cuMemcpyHtoD(b.ptr(), host.data(), b.bytes()), "cuMemcpyHtoD");
    return b;
  }
  template <class T>
  void download(const device_buffer& b, std::vector<T>& host) const {
    d_->check(d_->fn.cuMemcpyDtoH(host.data(), b.ptr(), host.size() * sizeof(T)), "cuMemcpyDtoH");
  }
  // Every byte 0xFF: as float, a NaN. An element a kernel fails to write stays NaN.
  void poison(const device_buffer& b) const { d_->check(d_->fn.cuMemsetD8(b.ptr(), 0xFF, b.bytes()), "cuMemsetD8"); }
  void synchronize() const { d_->check(d_->fn.cuCtxSynchronize(), "cuCtxSynchronize", tritonpack::errc::launch_failed); }

 private:
  const tritonpack::cuda::driver* d_ = nullptr;
};
