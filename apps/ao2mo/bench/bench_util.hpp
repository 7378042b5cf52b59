// bench_util.hpp — what apps/ao2mo/bench's sections share (bench.cpp, bench_cutensor.hpp,
// bench_fusion.hpp): CUDA runtime checks, device timing with CUDA events (one path, or several
// interleaved), the report line and its CSV row.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <tritonpack/tritonpack.hpp>
#include <vector>

#include "cutensor_loader.hpp"

namespace tensor4::bench_util {

inline void cuda_check(cudaError_t r, const char* what) {
  if (r != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(r));
}

struct timing {
  double median = 0, p10 = 0, p90 = 0;
};

struct bench_env {
  cudaStream_t stream = nullptr;
  int reps = 20, warmup = 3;
  FILE* csv = nullptr;
  const cutensor* ct = nullptr;          // the vendor tensor library's rows, where it loaded
  std::vector<cutensor_tuning> tunings;  // cuTENSOR's plans: one row each
};

// Device time (ms) of `work` queued on env.stream: median and 10th/90th percentiles.
inline timing time_it(const bench_env& env, const std::function<void()>& work) {
  for (int i = 0; i < env.warmup; ++i) work();
  cuda_check(cudaGetLastError(), "launch");
  std::vector<cudaEvent_t> ev(2 * static_cast<std::size_t>(env.reps));
  for (auto& e : ev) cuda_check(cudaEventCreate(&e), "cudaEventCreate");
  for (int i = 0; i < env.reps; ++i) {
    cuda_check(cudaEventRecord(ev[2 * i], env.stream), "cudaEventRecord");
    work();
    cuda_check(cudaEventRecord(ev[2 * i + 1], env.stream), "cudaEventRecord");
  }
  cuda_check(cudaEventSynchronize(ev.back()), "cudaEventSynchronize");
  cuda_check(cudaGetLastError(), "launch");
  std::vector<double> ms;
  for (int i = 0; i < env.reps; ++i) {
    float t = 0;
    cuda_check(cudaEventElapsedTime(&t, ev[2 * i], ev[2 * i + 1]), "cudaEventElapsedTime");
    ms.push_back(t);
  }
  for (auto e : ev) cudaEventDestroy(e);
  std::sort(ms.begin(), ms.end());
  auto at = [&](double q) {
    return ms[static_cast<std::size_t>(q * static_cast<double>(ms.size() - 1) + 0.5)];
  };
  return {at(0.5), at(0.1), at(0.9)};
}

inline void report(const bench_env& env, const std::string& kase, const std::string& impl,
                   const std::string& prec, const std::string& config, double flops, double bytes,
                   const timing& t, double err, const std::string& ref) {
  const double gflops = flops / (t.median * 1e-3) * 1e-9, gbs = bytes / (t.median * 1e-3) * 1e-9;
  std::printf("%-22s %-15s %-4s %-22s %9.3f ms %9.1f GFLOP/s %8.1f GB/s  err %.1e (%s)\n",
              kase.c_str(), impl.c_str(), prec.c_str(), config.c_str(), t.median, gflops, gbs, err,
              ref.c_str());
  if (env.csv)
    std::fprintf(env.csv, "%s,%s,%s,%s,%.6f,%.6f,%.6f,%.6e,%.6e,%.3f,%.3f,%.3e,%s\n", kase.c_str(),
                 impl.c_str(), prec.c_str(), config.c_str(), t.median, t.p10, t.p90, flops, bytes,
                 gflops, gbs, err, ref.c_str());
  if (env.csv) std::fflush(env.csv);  // every row kept when a time limit cuts the run
  std::fflush(stdout);
}

template <class T>
std::vector<T> download(const tritonpack::device_array<T>& a) {
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  return a.to_host();
}

// Several paths timed in turns: after `warmup` runs of each, every repetition runs each path once
// (the order rotated per repetition), so a clock or thermal drift reaches all of them alike.
// Returns each path's median and 10th/90th percentiles, in the order given.
inline std::vector<timing> time_interleaved(const bench_env& env,
                                            const std::vector<std::function<void()>>& paths) {
  for (const auto& p : paths)
    for (int i = 0; i < env.warmup; ++i) p();
  cuda_check(cudaGetLastError(), "launch");
  const std::size_t k = paths.size();
  std::vector<cudaEvent_t> ev(2 * k * static_cast<std::size_t>(env.reps));
  for (auto& e : ev) cuda_check(cudaEventCreate(&e), "cudaEventCreate");
  for (int r = 0; r < env.reps; ++r)
    for (std::size_t j = 0; j < k; ++j) {
      const std::size_t p = (j + static_cast<std::size_t>(r)) % k,
                        at = 2 * (static_cast<std::size_t>(r) * k + p);
      cuda_check(cudaEventRecord(ev[at], env.stream), "cudaEventRecord");
      paths[p]();
      cuda_check(cudaEventRecord(ev[at + 1], env.stream), "cudaEventRecord");
    }
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  cuda_check(cudaGetLastError(), "launch");
  std::vector<timing> out;
  for (std::size_t p = 0; p < k; ++p) {
    std::vector<double> ms;
    for (int r = 0; r < env.reps; ++r) {
      float t = 0;
      const std::size_t at = 2 * (static_cast<std::size_t>(r) * k + p);
      cuda_check(cudaEventElapsedTime(&t, ev[at], ev[at + 1]), "cudaEventElapsedTime");
      ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    auto q = [&](double x) {
      return ms[static_cast<std::size_t>(x * static_cast<double>(ms.size() - 1) + 0.5)];
    };
    out.push_back({q(0.5), q(0.1), q(0.9)});
  }
  for (auto e : ev) cudaEventDestroy(e);
  return out;
}

}  // namespace tensor4::bench_util
