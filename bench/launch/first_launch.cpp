// First launch in a fresh process: the time from "nothing loaded" to the first vector_add having
// run (launch + stream synchronize), after the driver and the context exist (both paths pay those
// equally and they are not tritonpack's doing).
//   first_launch tritonpack   library construction (container validation) + selection +
//                             decompression + module load (or PTX JIT / JIT cache under
//                             TRITONPACK_FORCE_IR=1) + launch + sync
//   first_launch raw          cuModuleLoadData of the uncompressed cubin already in memory (as if
//                             embedded) + cuModuleGetFunction + cuLaunchKernel + sync
//   first_launch library-steps  the library's first launch cut into construction, context, load,
//                             launch and sync
//   first_launch steps        the run time's load sequence replayed call by call, each step timed
//   first_launch steps-warm-zstd  the same after an untimed decode of another image
//   first_launch cpu-steps    the run time's own CPU work on today's path, replayed with its own
//                             functions (parse, one kernel's model, selection + parameter plan,
//                             decode), each timed with the minor page faults it took; for the
//                             fake driver (TRITONPACK_CUDA_LIBRARY), where the driver costs ~nothing
//   first_launch second       a second kernel's first launch (softmax), after vector_add's
//   first_launch raw-second   the same with raw driver calls, after a raw load of vector_add
//   first_launch backend-start  the backend's start (driver, cuInit, context, decoder warm-up)
//   first_launch decoder-warm-up  codec::warm_up alone, first thing in a fresh process
//   first_launch export-images DIR  writes variant 0's CUDA images of vector_add and softmax, as
//                             this program's container holds them, into DIR (no GPU needed), with
//                             images.tsv naming each: what fatbin_compare.py bundles with fatbinary
//   first_launch fatbin FILE  NVIDIA's answer to the same problem: cuModuleLoadData of a fat binary
//                             of those images (read into memory untimed, as if embedded; the
//                             driver picks the image and decompresses it) + get, launch, sync
//   first_launch fatbin-second FILE_VA FILE_SOFTMAX  softmax's fat binary after vector_add's
// Prints one JSON object: {"mode": ..., "us": ...}.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <sys/resource.h>

#include "gpu_kernels.hpp"
#include "gpu_util.hpp"

namespace first_launch_bench {

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// The image tritonpack's own selection gives this device for variant 0 of kernel `k`, decoded
// (untimed by the callers), with its entry point and the dynamic shared memory its launch needs (a
// reduction across warps, as softmax's, reads it): raw modes load and launch the same cubin the
// library does, as it does.
struct raw_cubin {
  std::vector<std::uint8_t> bytes;
  std::string entry;
  unsigned shared = 0;
};
raw_cubin cubin_of(std::uint32_t k) {
  const auto c = tritonpack::container::parse(reinterpret_cast<const std::uint8_t*>(gpu_kernels::detail::container_data),
                                              gpu_kernels::detail::container_size);
  const auto& info = c.info();
  const auto& dev = gpu_kernels::library().current_device();
  tritonpack::device_target t;
  t.arch = dev.arch;
  t.driver_version = dev.driver_version;
  const auto choice = tritonpack::select_image(info, info.kernels[k].variants[0], t);
  if (!choice.image || choice.jit) throw std::runtime_error("no cubin for this device: " + choice.reason);
  const auto& launch = info.images[*choice.image].launch;
  return {c.decode_image(*choice.image), launch.entry, launch.shared};
}

// A file's bytes, 8-aligned as the driver wants an image (untimed by the callers).
std::vector<std::uint64_t> read_aligned(const char* path) {
  std::FILE* f = std::fopen(path, "rb");
  if (!f) throw std::runtime_error(std::string("cannot open ") + path);
  std::vector<std::uint8_t> bytes;
  std::uint8_t buf[65536];
  for (std::size_t got; (got = std::fread(buf, 1, sizeof buf, f)) > 0;) bytes.insert(bytes.end(), buf, buf + got);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed || bytes.empty()) throw std::runtime_error(std::string("cannot read ") + path);
  std::vector<std::uint64_t> out((bytes.size() + 7) / 8 + 1, 0);
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

// export-images: variant 0's CUDA images of kernels 0 (vector_add) and 1 (softmax), decoded from
// this program's own container, so that a fat binary holds exactly the bytes the library loads.
int export_images(const std::string& dir) {
  const auto c = tritonpack::container::parse(reinterpret_cast<const std::uint8_t*>(gpu_kernels::detail::container_data),
                                              gpu_kernels::detail::container_size);
  const auto& info = c.info();
  std::string table;
  for (std::uint32_t k = 0; k < 2; ++k) {
    for (const std::uint32_t i : info.kernels[k].variants[0].images) {
      const auto& im = info.images[i];
      if (im.backend != tritonpack::backend_kind::cuda) continue;
      const std::string name = info.kernels[k].name + "_" + im.arch + "." + tritonpack::image_kind_name(im.kind);
      const auto bytes = c.decode_image(i);
      std::FILE* f = std::fopen((dir + "/" + name).c_str(), "wb");
      if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() || std::fclose(f) != 0)
        throw std::runtime_error("cannot write " + dir + "/" + name);
      table += info.kernels[k].name + "\t" + im.arch + "\t" + tritonpack::image_kind_name(im.kind) + "\t" + name + "\n";
    }
  }
  std::FILE* f = std::fopen((dir + "/images.tsv").c_str(), "w");
  if (!f || std::fputs(table.c_str(), f) < 0 || std::fclose(f) != 0) throw std::runtime_error("cannot write images.tsv");
  std::printf("{\"mode\": \"export-images\", \"us\": 0}\n");
  return 0;
}

}  // namespace first_launch_bench

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "tritonpack";
  try {
    // What the backend's start costs (loading the driver, cuInit, the primary context, the
    // decoder's warm-up), and the decoder's warm-up alone in a cold process: the one-time costs a
    // first kernel no longer pays (container/codec.hpp warm_up).
    if (mode == "backend-start" || mode == "decoder-warm-up") {
      const auto t0 = std::chrono::steady_clock::now();
      if (mode == "backend-start")
        tritonpack::get_backend().current_context();
      else
        tritonpack::codec::warm_up();
      const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      std::printf("{\"mode\": \"%s\", \"us\": %.1f}\n", mode.c_str(), us);
      return 0;
    }
    if (mode == "export-images") {
      if (argc < 3) throw std::runtime_error("export-images needs a directory");
      return first_launch_bench::export_images(argv[2]);
    }
    // Untimed: driver, primary context, buffers.
    tritonpack::get_backend().current_context();
    const int n = 4096;
    tpgpu::buffer<float> x(n), y(n), out(n);
    const float* px = x.get();
    const float* py = y.get();
    float* po = out.get();
    const auto& fn = tpgpu::drv().fn;
    double us = 0;
    // The raw and fat binary rows: the driver loads `image` (a cubin, or a fat binary it picks the
    // image from) and launches vector_add, or softmax when `softmax`, with the entry and dynamic
    // shared memory of `meta`; µs from the load to the end of the synchronisation.
    auto timed_driver_load = [&](const void* image, const first_launch_bench::raw_cubin& meta, bool softmax) {
      const auto t0 = std::chrono::steady_clock::now();
      tritonpack::cuda::CUmodule m = nullptr;
      tritonpack::cuda::CUfunction f = nullptr;
      tpgpu::check(fn.cuModuleLoadData(&m, image), "cuModuleLoadData");
      tpgpu::check(fn.cuModuleGetFunction(&f, m, meta.entry.c_str()), "cuModuleGetFunction");
      std::int32_t nn = n, stride = 1024, cols = 1024;
      float alpha = 2.0f;
      void* scratch = nullptr;
      void* add_params[] = {&px, &py, &po, &nn, &alpha, &scratch, &scratch};
      void* softmax_params[] = {&po, &px, &stride, &stride, &cols, &scratch, &scratch};
      if (softmax)
        tpgpu::check(fn.cuLaunchKernel(f, 4, 1, 1, 128, 1, 1, meta.shared, nullptr, softmax_params, nullptr), "cuLaunchKernel");
      else
        tpgpu::check(fn.cuLaunchKernel(f, n / 1024, 1, 1, 128, 1, 1, meta.shared, nullptr, add_params, nullptr), "cuLaunchKernel");
      tpgpu::check(fn.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
      return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    };
    if (mode == "tritonpack") {
      const auto t0 = std::chrono::steady_clock::now();
      gpu_kernels::vector_add(px, py, po, n, 2.0f);
      tpgpu::check(fn.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
      us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    } else if (mode == "raw") {
      // The uncompressed cubin in memory, untimed: decoded with a separate container object so
      // the library under test is not touched.
      const auto cubin = first_launch_bench::cubin_of(0);
      us = timed_driver_load(cubin.bytes.data(), cubin, false);
    } else if (mode == "second") {
      // What each further kernel of a program pays: vector_add first (untimed), then softmax's
      // first launch (its own model, selection, decode, load).
      gpu_kernels::vector_add(px, py, po, n, 2.0f);
      tpgpu::check(fn.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
      const auto t0 = std::chrono::steady_clock::now();
      gpu_kernels::softmax({4, 1, 1}, po, px, 1024, 1024, 1024);
      tpgpu::check(fn.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
      us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    } else if (mode == "raw-second") {
      const auto first = first_launch_bench::cubin_of(0);
      const auto cubin = first_launch_bench::cubin_of(1);
      tritonpack::cuda::CUmodule m0 = nullptr;
      tpgpu::check(fn.cuModuleLoadData(&m0, first.bytes.data()), "cuModuleLoadData");
      us = timed_driver_load(cubin.bytes.data(), cubin, true);
    } else if (mode == "fatbin" || mode == "fatbin-second") {
      // The same launch as raw / raw-second, from a fat binary of variant 0's images: the driver
      // finds the image for this device in it and decompresses it if it was compressed.
      const bool second = mode == "fatbin-second";
      if (argc < (second ? 4 : 3)) throw std::runtime_error(mode + " needs " + (second ? "two fat binaries" : "a fat binary"));
      const auto image = first_launch_bench::read_aligned(argv[second ? 3 : 2]);
      const auto cubin = first_launch_bench::cubin_of(second ? 1 : 0);  // the entry and shared memory
      if (second) {
        const auto first = first_launch_bench::read_aligned(argv[2]);
        tritonpack::cuda::CUmodule m0 = nullptr;
        tpgpu::check(fn.cuModuleLoadData(&m0, first.data()), "cuModuleLoadData");
      }
      us = timed_driver_load(image.data(), cubin, second);
    } else if (mode == "cpu-steps") {
      // The run time's own first-load work (context::load's plan_load and load_function's
      // decode), replayed with the same functions and each step timed, with the minor page
      // faults it took: on the fake driver the driver costs next to nothing, so this is where
      // tritonpack's share of a first launch goes. The device's facts are read untimed.
      using clk = std::chrono::steady_clock;
      tritonpack::device_props props;
      {
        tritonpack::cuda::CUdevice dev = 0;
        tpgpu::check(fn.cuCtxGetDevice(&dev), "cuCtxGetDevice");
        props.ordinal = dev;
        props.arch = tpgpu::drv().arch(dev);
        props.driver_version = tpgpu::drv().version;
      }
      std::string out = "{\"mode\": \"cpu-steps\"";
      double total = 0;
      long faults = first_launch_bench::minor_faults(), total_faults = 0;
      auto t = clk::now();
      auto lap = [&](const char* name) {
        const double v = std::chrono::duration<double, std::micro>(clk::now() - t).count();
        const long f = first_launch_bench::minor_faults();
        char b[96];
        std::snprintf(b, sizeof b, ", \"%s\": %.1f, \"%s_faults\": %ld", name, v, name, f - faults);
        out += b;
        total += v;
        total_faults += f - faults;
        faults = first_launch_bench::minor_faults();
        t = clk::now();
      };
      const auto* data = reinterpret_cast<const std::uint8_t*>(gpu_kernels::detail::container_data);
      const auto c = tritonpack::container::parse(data, gpu_kernels::detail::container_size);
      lap("parse");
      // The typed function's identity check builds the kernel's model (library::at).
      if (tritonpack::kernel_signature(c.kernel(0)).empty()) return 1;
      lap("kernel");
      const tritonpack::load_plan plan = tritonpack::plan_load(c, 0, 0, props);
      lap("plan");
      std::string took;
      const auto bytes = plan.decode(took);
      lap("decode");
      tritonpack::cuda::CUmodule m = nullptr;
      tritonpack::cuda::CUfunction f = nullptr;
      tpgpu::check(fn.cuModuleLoadData(&m, bytes.data()), "cuModuleLoadData");
      tpgpu::check(fn.cuModuleGetFunction(&f, m, plan.launch().entry.c_str()), "cuModuleGetFunction");
      lap("module_load");
      std::printf("%s, \"us\": %.1f, \"faults\": %ld}\n", out.c_str(), total, total_faults);
      return 0;
    } else if (mode == "library-steps") {
      // The library's own first launch, cut where its public API allows: construction (parse),
      // the context state, loading the variant (select + decode + module load), launch, sync.
      using clk = std::chrono::steady_clock;
      auto t = clk::now();
      auto lap = [&t] {
        const double v = std::chrono::duration<double, std::micro>(clk::now() - t).count();
        t = clk::now();
        return v;
      };
      auto& lib = gpu_kernels::library();
      const double ctor = lap();
      lib.current_slot();
      const double ctx = lap();
      lib.at(0).loaded_image(0);
      const double load = lap();
      gpu_kernels::vector_add(px, py, po, n, 2.0f);
      const double launch = lap();
      tpgpu::check(fn.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
      const double sync = lap();
      std::printf("{\"mode\": \"library-steps\", \"library\": %.1f, \"context\": %.1f, \"load\": %.1f, "
                  "\"launch\": %.1f, \"sync\": %.1f, \"us\": %.1f}\n",
                  ctor, ctx, load, launch, sync, ctor + ctx + load + launch + sync);
      return 0;
    } else if (mode == "steps" || mode == "steps-warm-zstd") {
      // Where the first launch's time goes: the run time's load sequence replayed step by step
      // with the same functions and driver calls (runtime/load_plan.hpp plan_load, the plan's decode,
      // cuda/loading.hpp load_function's module load), each timed. Before session 14 this mode also
      // timed the device's name and limits, the whole model (info()) and two function queries the
      // run time no longer makes on a first load of a verified cubin.
      // steps-warm-zstd decodes another image first (untimed) to separate zstd's first-touch cost
      // from the decode itself.
      using clk = std::chrono::steady_clock;
      auto t = clk::now();
      std::string out = "{\"mode\": \"" + mode + "\"";
      double total = 0;
      auto lap = [&](const char* name) {
        const double v = std::chrono::duration<double, std::micro>(clk::now() - t).count();
        char b[64];
        std::snprintf(b, sizeof b, ", \"%s\": %.1f", name, v);
        out += b;
        total += v;
        t = clk::now();
      };
      const auto* data = reinterpret_cast<const std::uint8_t*>(gpu_kernels::detail::container_data);
      std::optional<tritonpack::container> warm;
      if (mode == "steps-warm-zstd") {
        warm.emplace(tritonpack::container::parse(data, gpu_kernels::detail::container_size));
        warm->decode_image(static_cast<std::uint32_t>(warm->info().images.size() - 1));
      }
      t = clk::now();
      const auto c = tritonpack::container::parse(data, gpu_kernels::detail::container_size);
      lap("parse");
      tritonpack::cuda::CUcontext ctx = nullptr;
      tpgpu::check(fn.cuCtxGetCurrent(&ctx), "cuCtxGetCurrent");
      tritonpack::cuda::CUdevice dev = 0;
      tpgpu::check(fn.cuCtxGetDevice(&dev), "cuCtxGetDevice");
      int major = 0, minor = 0;
      tpgpu::check(fn.cuDeviceGetAttribute(&major, tritonpack::cuda::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev), "attr");
      tpgpu::check(fn.cuDeviceGetAttribute(&minor, tritonpack::cuda::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev), "attr");
      lap("device_cc");
      // As the run time: the device's name and limits are not read on a first load, the kernel's
      // model is built for this kernel alone (container::kernel), selection and the parameter plan
      // are plan_load's, the decode is the plan's.
      tritonpack::device_props props;
      props.ordinal = dev;
      props.arch = "sm_" + std::to_string(major * 10 + minor);
      props.driver_version = tpgpu::drv().version;
      if (tritonpack::kernel_signature(c.kernel(0)).empty()) return 1;
      lap("kernel");
      const tritonpack::load_plan plan = tritonpack::plan_load(c, 0, 0, props);
      lap("select");
      std::string took;
      const auto bytes = plan.decode(took);
      lap("decode");
      tritonpack::cuda::CUmodule m = nullptr;
      tritonpack::cuda::CUfunction f = nullptr;
      tpgpu::check(fn.cuModuleLoadData(&m, bytes.data()), "cuModuleLoadData");
      lap("module_load");
      tpgpu::check(fn.cuModuleGetFunction(&f, m, plan.launch().entry.c_str()), "cuModuleGetFunction");
      lap("get_function");
      std::int32_t nn = n;
      float alpha = 2.0f;
      void* scratch = nullptr;
      void* params[] = {&px, &py, &po, &nn, &alpha, &scratch, &scratch};
      tpgpu::check(fn.cuLaunchKernel(f, n / 1024, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr), "cuLaunchKernel");
      lap("launch");
      tpgpu::check(fn.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
      lap("sync");
      std::printf("%s, \"us\": %.1f}\n", out.c_str(), total);
      return 0;
    } else {
      std::fprintf(stderr,
                   "usage: first_launch tritonpack|raw|library-steps|steps|steps-warm-zstd|cpu-steps|second|raw-second|backend-start|decoder-warm-up|\n"
                   "       export-images DIR|fatbin FILE|fatbin-second FILE FILE\n");
      return 2;
    }
    std::printf("{\"mode\": \"%s\", \"us\": %.1f}\n", mode.c_str(), us);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "first_launch: %s\n", e.what());
    return 1;
  }
}
