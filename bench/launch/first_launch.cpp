// First launch in a fresh process: the time from "nothing loaded" to the first vector_add having
// run (launch + stream synchronize), after the driver and the context exist (both paths pay those
// equally and they are not tritonpack's doing).
//   first_launch tritonpack   library construction (container validation) + selection +
//                             decompression + module load (or PTX JIT / JIT cache under
//                             TRITONPACK_FORCE_IR=1) + launch + sync
//   first_launch raw          cuModuleLoadData of the uncompressed cubin already in memory (as if
//                             embedded) + cuModuleGetFunction + cuLaunchKernel + sync
// Prints one JSON object: {"mode": ..., "us": ...}.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "gpu_kernels.hpp"
#include "gpu_util.hpp"

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "tritonpack";
  try {
    // Untimed: driver, primary context, buffers.
    tritonpack::get_backend().current_context();
    const int n = 4096;
    tpgpu::buffer<float> x(n), y(n), out(n);
    const float* px = x.get();
    const float* py = y.get();
    float* po = out.get();
    const auto& fn = tpgpu::drv().fn;
    double us = 0;
    if (mode == "tritonpack") {
      const auto t0 = std::chrono::steady_clock::now();
      gpu_kernels::vector_add(px, py, po, n, 2.0f);
      tpgpu::check(fn.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
      us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    } else if (mode == "raw") {
      // The uncompressed cubin in memory, untimed: decoded with a separate container object so
      // the library under test is not touched.
      const auto c = tritonpack::container::parse(reinterpret_cast<const std::uint8_t*>(gpu_kernels::detail::container_data),
                                                  gpu_kernels::detail::container_size);
      const auto& info = c.info();
      // The image tritonpack's own selection gives this device, so both paths load the same cubin.
      const auto& dev = gpu_kernels::library().current_device();
      tritonpack::device_target t;
      t.arch = dev.arch;
      t.driver_version = dev.driver_version;
      const auto choice = tritonpack::select_image(info, info.kernels[0].variants[0], t);
      if (!choice.image || choice.jit) throw std::runtime_error("no cubin for this device: " + choice.reason);
      const std::uint32_t index = *choice.image;
      const auto bytes = c.decode_image(index);
      const auto t0 = std::chrono::steady_clock::now();
      tritonpack::cuda::CUmodule m = nullptr;
      tritonpack::cuda::CUfunction f = nullptr;
      tpgpu::check(fn.cuModuleLoadData(&m, bytes.data()), "cuModuleLoadData");
      tpgpu::check(fn.cuModuleGetFunction(&f, m, info.images[index].launch.entry.c_str()), "cuModuleGetFunction");
      std::int32_t nn = n;
      float alpha = 2.0f;
      void* scratch = nullptr;
      void* params[] = {&px, &py, &po, &nn, &alpha, &scratch, &scratch};
      tpgpu::check(fn.cuLaunchKernel(f, n / 1024, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr), "cuLaunchKernel");
      tpgpu::check(fn.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
      us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    } else if (mode == "breakdown") {
      // Where the first launch's time goes (run with TRITONPACK_LOG=1 for decode / load times).
      using clk = std::chrono::steady_clock;
      auto t = clk::now();
      auto lap = [&t] {
        const double v = std::chrono::duration<double, std::micro>(clk::now() - t).count();
        t = clk::now();
        return v;
      };
      auto& lib = gpu_kernels::library();
      const double ctor = lap();
      lib.current_device();
      const double ctx = lap();
      lib.get("vector_add").loaded_image(0);
      const double load = lap();
      gpu_kernels::vector_add(px, py, po, n, 2.0f);
      tpgpu::check(fn.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
      const double run = lap();
      std::printf("{\"mode\": \"breakdown\", \"library\": %.1f, \"context\": %.1f, \"select_decode_load\": %.1f, "
                  "\"launch_sync\": %.1f, \"us\": %.1f}\n",
                  ctor, ctx, load, run, ctor + ctx + load + run);
      return 0;
    } else {
      std::fprintf(stderr, "usage: first_launch tritonpack|raw|breakdown\n");
      return 2;
    }
    std::printf("{\"mode\": \"%s\", \"us\": %.1f}\n", mode.c_str(), us);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "first_launch: %s\n", e.what());
    return 1;
  }
}
