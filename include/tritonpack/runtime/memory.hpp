// tritonpack/runtime/memory.hpp — the memory and device API (docs/runtime-api.md "Memory and
// devices"): devices, the calling thread's device, allocation, copies, memset, synchronisation,
// streams and the RAII `device_array<T>`, all through the driver the run time loads with dlopen. A
// program moves its data without the CUDA or ROCm toolkit, and the same calls serve either vendor
// (the backend implements runtime/device_ops.hpp).
//
// The calling thread's device is the one its kernel launches use: set_device(i) makes device i's
// primary context current (as cudaSetDevice does), and allocations, copies, streams and launches
// on this thread then go to device i. An application that also uses the CUDA runtime can mix
// cudaSetDevice/cudaMalloc with these calls: both use the primary contexts.
//
// Every failure is a tritonpack::error saying what was attempted and the driver's status, except in
// device_free() and destroy_stream(), which run in destructors: they print the error on stderr.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tritonpack/core/error.hpp"
#include "tritonpack/core/types.hpp"
#include "tritonpack/runtime/device_ops.hpp"
#include "tritonpack/version.hpp"

// Header-only mode: the functions below are inline, defined by runtime/memory_impl.hpp (included at
// the end). Separate mode (TRITONPACK_SEPARATE, docs/runtime-api.md "Separate compilation"): this
// header is declarations and device_array only, the definitions are compiled once into
// tritonpack::runtime (src/runtime.cpp), so a translation unit that moves data pays for this
// header, not for the run time.
#if defined(TRITONPACK_SEPARATE)
#define TRITONPACK_MEMORY_API
#else
#define TRITONPACK_MEMORY_API inline
#endif

TRITONPACK_BEGIN_NAMESPACE

// GPUs the backend sees; 0 when there is no driver or no GPU (the only call here that does not
// report that as an error). Other failures (a broken driver) still throw.
TRITONPACK_MEMORY_API int device_count();

// Makes `ordinal` this thread's device: for the calls below and for kernel launches.
TRITONPACK_MEMORY_API void set_device(int ordinal);

// One process per GPU on a node (MPI ranks, jobs of a launcher): makes device
// `local_rank % device_count()` this thread's device and returns it. `local_rank` is the process's
// rank among those of its node (MPI_Comm_split_type(..., MPI_COMM_TYPE_SHARED, ...), or
// $OMPI_COMM_WORLD_LOCAL_RANK, $SLURM_LOCALID). On a node with no driver or no GPU this throws the
// run time's diagnosis, as any other call here does, where `set_device(local_rank %
// device_count())` would divide by zero.
TRITONPACK_MEMORY_API int set_device_for_local_rank(int local_rank);

// This thread's device: the last set_device() (or the application's cudaSetDevice), 0 if none.
TRITONPACK_MEMORY_API int get_device();

// "NVIDIA H200" of device `ordinal`; -1: this thread's device.
TRITONPACK_MEMORY_API std::string device_name(int ordinal = -1);

// "sm_90", "gfx942:sramecc+:xnack-": the architecture as image selection sees it; -1: this thread's
// device.
TRITONPACK_MEMORY_API std::string device_arch(int ordinal = -1);

// Free and total memory of this thread's device.
TRITONPACK_MEMORY_API memory_info device_memory_info();

// `bytes` of device memory on this thread's device (256-byte aligned); nullptr for 0 bytes.
// Out of memory: errc::out_of_memory naming the size and the device's free memory.
TRITONPACK_MEMORY_API void* device_malloc(std::size_t bytes);

// Frees what device_malloc returned; nullptr is fine. Never throws (destructors call it): a
// failure is printed on stderr. During process exit it does nothing, since the driver may already
// be torn down and exit reclaims the memory (runtime/backend.hpp, "Exit").
TRITONPACK_MEMORY_API void device_free(void* ptr) noexcept;

// Copies `bytes` between any two of host and device memory (unified addressing), ordered on the
// legacy default stream; returns as cudaMemcpy does (the host buffer may be reused; a result in
// host memory is there).
TRITONPACK_MEMORY_API void copy(void* dst, const void* src, std::size_t bytes);

// Queues the copy on `stream` (a stream_t as the generated functions take; nullptr is the legacy
// default stream). Overlaps with the host only for page-locked host memory, as in CUDA.
TRITONPACK_MEMORY_API void copy_async(void* dst, const void* src, std::size_t bytes,
                                      stream_t stream);

// Sets `bytes` of device memory to `value` (cudaMemset).
TRITONPACK_MEMORY_API void memset_device(void* dst, unsigned char value, std::size_t bytes);

TRITONPACK_MEMORY_API void memset_device_async(void* dst, unsigned char value, std::size_t bytes,
                                               stream_t stream);

// Waits for everything queued on this thread's device. A kernel that failed (an illegal address)
// is reported here: errc::launch_failed with the driver's status.
TRITONPACK_MEMORY_API void synchronize();

// Waits for `stream` (nullptr: the legacy default stream).
TRITONPACK_MEMORY_API void synchronize(stream_t stream);

// A new stream on this thread's device. Blocking (the default) synchronises with the legacy
// default stream, as cudaStreamCreate; `non_blocking` as cudaStreamNonBlocking.
TRITONPACK_MEMORY_API stream_t create_stream(bool non_blocking = false);

// Destroys a stream from create_stream() once its queued work is done; nullptr is fine. Never
// throws (destructors call it): a failure is printed on stderr.
TRITONPACK_MEMORY_API void destroy_stream(stream_t stream) noexcept;

// `count` elements of T in device memory on the device current at construction; freed by the
// destructor. Move-only. T must be trivially copyable (its bytes are copied to and from the GPU).
template <class T>
class device_array {
  static_assert(std::is_trivially_copyable<T>::value,
                "device_array<T>: T must be trivially copyable (its bytes are copied)");

 public:
  device_array() = default;
  // Uninitialised.
  explicit device_array(std::size_t count)
      : data_(static_cast<T*>(device_malloc(bytes_for(count)))), size_(count) {}
  // Allocated and uploaded.
  explicit device_array(const std::vector<T>& host) : device_array(host.size()) { upload(host); }

  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
  device_array(device_array&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  device_array& operator=(device_array&& other) noexcept {
    if (this != &other) {
      reset();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  ~device_array() { device_free(data_); }

  T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }
  bool empty() const noexcept { return size_ == 0; }

  // Frees the memory now; the array is then empty.
  void reset() noexcept {
    device_free(data_);
    data_ = nullptr;
    size_ = 0;
  }

  // Copies `count` <= size() elements from the host into the first `count` elements.
  void upload(const T* host, std::size_t count) {
    check_count(count, "upload");
    tritonpack::copy(data_, host, count * sizeof(T));
  }
  void upload(const std::vector<T>& host) { upload(host.data(), host.size()); }
  void upload_async(const T* host, std::size_t count, stream_t stream) {
    check_count(count, "upload_async");
    tritonpack::copy_async(data_, host, count * sizeof(T), stream);
  }

  // Copies the first `count` <= size() elements to the host.
  void download(T* host, std::size_t count) const {
    check_count(count, "download");
    tritonpack::copy(host, data_, count * sizeof(T));
  }
  void download_async(T* host, std::size_t count, stream_t stream) const {
    check_count(count, "download_async");
    tritonpack::copy_async(host, data_, count * sizeof(T), stream);
  }
  std::vector<T> to_host() const {
    std::vector<T> host(size_);
    download(host.data(), size_);
    return host;
  }

  // Every byte of the array set to `value` (0: zeros; 0xFF: NaN for floats, -1 for integers).
  void fill_bytes(unsigned char value) { tritonpack::memset_device(data_, value, bytes()); }

 private:
  static std::size_t bytes_for(std::size_t count) {
    if (count > std::numeric_limits<std::size_t>::max() / sizeof(T))
      throw error(errc::bad_argument, "device_array of " + std::to_string(count) + " elements of " +
                                          std::to_string(sizeof(T)) + " bytes: the size overflows");
    return count * sizeof(T);
  }
  void check_count(std::size_t count, const char* call) const {
    if (count > size_)
      throw error(errc::bad_argument,
                  std::string("device_array::") + call + " of " + std::to_string(count) +
                      " elements (" + std::to_string(sizeof(T)) +
                      " bytes each) but the array holds " + std::to_string(size_));
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
};

TRITONPACK_END_NAMESPACE
#if !defined(TRITONPACK_SEPARATE)
#include "tritonpack/runtime/memory_impl.hpp"
#endif
