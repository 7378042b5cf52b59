// cublas_loader.hpp — the few cuBLAS entry points the vendor path needs, loaded at run time with
// dlopen (as the run time loads the driver): no link-time dependency on the CUDA toolkit's
// cuBLAS. The prototypes and constants are declared here from cuBLAS's public API (cublas_api.h,
// library_types.h); they have been stable since CUDA 11.
#pragma once

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace tensor4 {

using cublas_handle = void*;
using cublas_status = int;
constexpr int cublas_op_n = 0, cublas_op_t = 1;                          // cublasOperation_t
constexpr int cuda_r_32f = 0, cuda_r_64f = 1;                           // cudaDataType
constexpr int cublas_compute_32f = 68, cublas_compute_32f_fast_tf32 = 77;  // cublasComputeType_t
constexpr int cublas_gemm_default = -1;                                  // cublasGemmAlgo_t

class cublas {
 public:
  // `path`: a libcublas.so to open (e.g. from the nvidia-cublas pip package); empty: the
  // environment's TENSOR4_CUBLAS, else libcublas.so.13 / .12 / .so on the loader's search path.
  explicit cublas(std::string path) {
    std::vector<std::string> tries;
    if (path.empty())
      if (const char* env = std::getenv("TENSOR4_CUBLAS")) path = env;
    if (!path.empty())
      tries = {path};
    else
      tries = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
    std::string why;
    for (const auto& t : tries) {
      lib_ = dlopen(t.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (lib_) {
        path_ = t;
        break;
      }
      why += "\n  " + t + ": " + dlerror();
    }
    if (!lib_)
      throw std::runtime_error("cuBLAS not found (pass --cublas /path/to/libcublas.so.N or set TENSOR4_CUBLAS; pip's "
                               "nvidia-cublas has it under nvidia/cu13/lib or nvidia/cublas/lib):" + why);
    create_ = sym<decltype(create_)>("cublasCreate_v2");
    destroy_ = sym<decltype(destroy_)>("cublasDestroy_v2");
    set_stream_ = sym<decltype(set_stream_)>("cublasSetStream_v2");
    gemm_ = sym<decltype(gemm_)>("cublasGemmStridedBatchedEx");
    check(create_(&handle_), "cublasCreate");
  }
  cublas(const cublas&) = delete;
  cublas& operator=(const cublas&) = delete;
  ~cublas() {
    if (handle_) destroy_(handle_);
    // lib_ stays loaded: cuBLAS registers exit handlers.
  }

  const std::string& path() const { return path_; }
  void set_stream(void* stream) { check(set_stream_(handle_, stream), "cublasSetStream"); }

  // Row-major C[b] = op(A[b]) . op(B[b]) (M x N, K summed) for `batch` matrices at the given
  // element strides: cuBLAS is column-major, so this computes C^T = B^T A^T. trans_a: A is stored
  // K x M (row-major); trans_b: B is stored N x K. tf32: FP32 data with TF32 tensor-core products.
  void gemm_row_major(bool trans_a, bool trans_b, int m, int n, int k, const float* a, int lda, long long stride_a,
                      const float* b, int ldb, long long stride_b, float* c, int ldc, long long stride_c, int batch,
                      bool tf32) {
    const float one = 1.0f, zero = 0.0f;
    check(gemm_(handle_, trans_b ? cublas_op_t : cublas_op_n, trans_a ? cublas_op_t : cublas_op_n, n, m, k, &one, b,
                cuda_r_32f, ldb, stride_b, a, cuda_r_32f, lda, stride_a, &zero, c, cuda_r_32f, ldc, stride_c, batch,
                tf32 ? cublas_compute_32f_fast_tf32 : cublas_compute_32f, cublas_gemm_default),
          "cublasGemmStridedBatchedEx");
  }

 private:
  template <class F>
  F sym(const char* name) {
    void* p = dlsym(lib_, name);
    if (!p) throw std::runtime_error(std::string("cuBLAS at ") + path_ + " has no " + name + " (too old a cuBLAS?)");
    return reinterpret_cast<F>(p);
  }
  static void check(cublas_status s, const char* what) {
    if (s != 0) throw std::runtime_error(std::string(what) + " failed: cublasStatus_t " + std::to_string(s));
  }

  void* lib_ = nullptr;
  std::string path_;
  cublas_handle handle_ = nullptr;
  cublas_status (*create_)(cublas_handle*) = nullptr;
  cublas_status (*destroy_)(cublas_handle) = nullptr;
  cublas_status (*set_stream_)(cublas_handle, void*) = nullptr;
  cublas_status (*gemm_)(cublas_handle, int, int, int, int, int, const void*, const void*, int, int, long long,
                         const void*, int, int, long long, const void*, void*, int, int, long long, int, int, int) = nullptr;
};

}  // namespace tensor4
