// Device memory and streams for the GPU tests and benchmarks, through the run time's own CUDA
// driver table (no CUDA headers, no libcudart): every call is checked and throws on failure.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <tritonpack/tritonpack.hpp>

namespace tpgpu {

using namespace tritonpack::cuda;

inline const driver& drv() {
  auto* b = dynamic_cast<cuda_backend*>(&tritonpack::get_backend());
  if (!b) throw std::runtime_error("not the CUDA backend");
  return b->drv();
}

// Throws with the driver's status text.
inline void check(CUresult r, const char* what) { drv().check(r, what); }

template <class F>
F need(F f, const char* name) {
  if (!f) throw std::runtime_error(std::string("the driver lacks ") + name);
  return f;
}

template <class T>
class buffer {
 public:
  explicit buffer(std::size_t n) : n_(n) {
    check(need(drv().fn.cuMemAlloc, "cuMemAlloc")(&p_, bytes() ? bytes() : 1), "cuMemAlloc");
  }
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;
  ~buffer() {
    if (p_) drv().fn.cuMemFree(p_);
  }
  T* get() const { return reinterpret_cast<T*>(static_cast<std::uintptr_t>(p_)); }
  CUdeviceptr ptr() const { return p_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(T); }
  void upload(const std::vector<T>& v) {
    if (v.size() != n_) throw std::runtime_error("upload: size mismatch");
    check(need(drv().fn.cuMemcpyHtoD, "cuMemcpyHtoD")(p_, v.data(), bytes()), "cuMemcpyHtoD");
  }
  std::vector<T> download() const {
    std::vector<T> v(n_);
    check(need(drv().fn.cuMemcpyDtoH, "cuMemcpyDtoH")(v.data(), p_, bytes()), "cuMemcpyDtoH");
    return v;
  }
  // 0xFF bytes: NaN for floats, -1 for integers — a kernel that skips an element is caught.
  void poison() { check(need(drv().fn.cuMemsetD8, "cuMemsetD8")(p_, 0xFF, bytes()), "cuMemsetD8"); }

 private:
  CUdeviceptr p_ = 0;
  std::size_t n_;
};

inline void sync() { check(need(drv().fn.cuCtxSynchronize, "cuCtxSynchronize")(), "cuCtxSynchronize"); }

class stream {
 public:
  stream() { check(need(drv().fn.cuStreamCreate, "cuStreamCreate")(&s_, CU_STREAM_NON_BLOCKING), "cuStreamCreate"); }
  ~stream() {
    if (s_) drv().fn.cuStreamDestroy(s_);
  }
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;
  CUstream get() const { return s_; }
  void sync() const { check(need(drv().fn.cuStreamSynchronize, "cuStreamSynchronize")(s_), "cuStreamSynchronize"); }

 private:
  CUstream s_ = nullptr;
};

// A CUDA graph captured from a stream.
class graph {
 public:
  explicit graph(CUstream s) : s_(s) {
    check(need(drv().fn.cuStreamBeginCapture, "cuStreamBeginCapture")(s, CU_STREAM_CAPTURE_MODE_GLOBAL), "cuStreamBeginCapture");
  }
  void end() {
    check(need(drv().fn.cuStreamEndCapture, "cuStreamEndCapture")(s_, &g_), "cuStreamEndCapture");
    check(need(drv().fn.cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags")(&e_, g_, 0), "cuGraphInstantiateWithFlags");
  }
  void launch() { check(need(drv().fn.cuGraphLaunch, "cuGraphLaunch")(e_, s_), "cuGraphLaunch"); }
  ~graph() {
    if (e_) drv().fn.cuGraphExecDestroy(e_);
    if (g_) drv().fn.cuGraphDestroy(g_);
  }

 private:
  CUstream s_;
  CUgraph g_ = nullptr;
  CUgraphExec e_ = nullptr;
};

// Deterministic uniform values in [lo, hi).
class rng {
 public:
  explicit rng(std::uint64_t seed) : s_(seed * 6364136223846793005ull + 1442695040888963407ull) {}
  float uniform(float lo, float hi) {
    s_ = s_ * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * static_cast<float>((s_ >> 40) & 0xffffff) / 16777216.0f;
  }
  std::vector<float> vec(std::size_t n, float lo = -1, float hi = 1) {
    std::vector<float> v(n);
    for (auto& x : v) x = uniform(lo, hi);
    return v;
  }

 private:
  std::uint64_t s_;
};

}  // namespace tpgpu
