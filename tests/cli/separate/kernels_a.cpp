// Separate mode (TRITONPACK_SEPARATE, tritonpack::runtime linked): the first of two translation
// units that call the generated fixtures.hpp's kernels. It sees only the run time's declarations
// (tritonpack/typed_api.hpp): tritonpack::library is an incomplete type here, so this file could
// not call library().info() without including <tritonpack/tritonpack.hpp>. That is the point.
#include <vector>

#include "fixtures.hpp"

#if !defined(TRITONPACK_SEPARATE)
#error "built in separate mode: the target links tritonpack::runtime"
#endif

const void* a_library() { return &fixtures::library(); }

// README's memory snippet, which sees only declarations here (runtime/memory.hpp through the
// generated header): set_device, device_count, device_array and its copies, from tritonpack::runtime.
std::vector<float> a_round_trip(const std::vector<float>& host, int local_rank) {
  tritonpack::set_device(local_rank % tritonpack::device_count());
  tritonpack::device_array<float> x(host), out(host.size());
  fixtures::vector_add(x.data(), x.data(), out.data(), static_cast<std::int32_t>(host.size()), 2.0f);
  return x.to_host();
}

std::string a_device_arch() { return tritonpack::device_arch(); }  // -1: this thread's device

void a_vector_add(const float* x, const float* y, float* out, std::int32_t n, float alpha) {
  fixtures::vector_add(x, y, out, n, alpha);
}
