// Steady-state launch cost (Google Benchmark), same kernel (vector_add of tests/gpu/kernels.py,
// 4 programs), same grid, same stream (the legacy default stream, as Triton's Python launcher
// uses through PyTorch), same cubin:
//   typed    the generated typed function gpu_kernels::vector_add(...); built twice, header-only
//            (tritonpack_bench_launch) and in separate mode (tritonpack_bench_launch_separate, the
//            typed function calling into tritonpack::runtime), where the row is typed_separate
//   dynamic  library().get("vector_add").launch(stream, grid, args...)
//   raw      cuLaunchKernel on a function from cuModuleLoadData of the very cubin tritonpack
//            selected (decoded from the container), with the parameter array built per call as a
//            hand-written caller would
// Every benchmark synchronises the stream every kSyncEvery launches (inside the timed region, the
// same for all), so the launch queue never fills and host-side cost is what is measured.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "gpu_kernels.hpp"
#include "gpu_util.hpp"

namespace {

constexpr int kSyncEvery = 100;
constexpr int kN = 4096;

struct fixture {
  // The context first (device 0's primary context when none is current): buffers need it.
  void* ctx = tritonpack::get_backend().current_context();
  tpgpu::buffer<float> x{kN}, y{kN}, out{kN};
  tritonpack::cuda::CUfunction raw_fn = nullptr;
  fixture() {
    gpu_kernels::library().preload();
    // The cubin tritonpack chose for variant 0, loaded again as a separate module for the raw path.
    auto& k = gpu_kernels::library().get("vector_add");
    const auto& im = k.loaded_image(0);
    const auto& info = gpu_kernels::library().info();
    const auto index = static_cast<std::uint32_t>(&im - info.images.data());
    const auto bytes = gpu_kernels::library().container().decode_image(index);
    tritonpack::cuda::CUmodule m = nullptr;
    tpgpu::check(tpgpu::drv().fn.cuModuleLoadData(&m, bytes.data()), "cuModuleLoadData");
    tpgpu::check(tpgpu::drv().fn.cuModuleGetFunction(&raw_fn, m, im.launch.entry.c_str()), "cuModuleGetFunction");
  }
};

fixture& F() {
  static fixture* f = new fixture();  // leaked: no driver calls during static destruction
  return *f;
}

void sync_default() { tpgpu::check(tpgpu::drv().fn.cuStreamSynchronize(nullptr), "cuStreamSynchronize"); }

void BM_typed(benchmark::State& st) {
  auto& f = F();
  const float* x = f.x.get();
  const float* y = f.y.get();
  float* out = f.out.get();
  int i = 0;
  for (auto _ : st) {
    gpu_kernels::vector_add(x, y, out, kN, 2.0f);
    if (++i % kSyncEvery == 0) sync_default();
  }
  sync_default();
}

void BM_dynamic(benchmark::State& st) {
  auto& f = F();
  auto& k = gpu_kernels::library().get("vector_add");
  const float* x = f.x.get();
  const float* y = f.y.get();
  float* out = f.out.get();
  int i = 0;
  for (auto _ : st) {
    k.launch(nullptr, {kN / 1024, 1, 1}, x, y, out, std::int32_t{kN}, 2.0f);
    if (++i % kSyncEvery == 0) sync_default();
  }
  sync_default();
}

void BM_raw(benchmark::State& st) {
  auto& f = F();
  const auto& fn = tpgpu::drv().fn;
  const float* x = f.x.get();
  const float* y = f.y.get();
  float* out = f.out.get();
  int i = 0;
  for (auto _ : st) {
    std::int32_t n = kN;
    float alpha = 2.0f;
    void* scratch = nullptr;
    void* params[] = {&x, &y, &out, &n, &alpha, &scratch, &scratch};
    const auto r = fn.cuLaunchKernel(f.raw_fn, kN / 1024, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr);
    if (r != 0) st.SkipWithError("cuLaunchKernel failed");
    if (++i % kSyncEvery == 0) sync_default();
  }
  sync_default();
}

}  // namespace

// Ten repetitions each; run.py passes --benchmark_enable_random_interleaving so repetitions of the
// three are interleaved and drift (clocks, other tenants) does not favour whichever runs first.
BENCHMARK(BM_raw)->UseRealTime()->MinTime(0.5)->Repetitions(10)->ReportAggregatesOnly(true);
#if defined(TRITONPACK_SEPARATE)
BENCHMARK(BM_typed)->Name("BM_typed_separate")->UseRealTime()->MinTime(0.5)->Repetitions(10)->ReportAggregatesOnly(true);
#else
BENCHMARK(BM_typed)->UseRealTime()->MinTime(0.5)->Repetitions(10)->ReportAggregatesOnly(true);
#endif
BENCHMARK(BM_dynamic)->UseRealTime()->MinTime(0.5)->Repetitions(10)->ReportAggregatesOnly(true);

BENCHMARK_MAIN();
