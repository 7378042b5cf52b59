// event_timer.hpp — lagrange_step's Timer for the benchmark: CUDA events recorded on the step's
// stream around each timed launch (or group of launches: the three acceleration_bc planes), read
// back after the run. Device time, no synchronisation between launches; disabled, it only
// launches (for the whole-step and graph timings).
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace lulesh_bench {

inline void cuda_check(cudaError_t r, const std::string& what) {
  if (r != cudaSuccess) throw std::runtime_error(what + ": " + cudaGetErrorString(r));
}

// Median and the 10th / 90th percentiles of a sample (microseconds).
struct spread {
  double median = 0, p10 = 0, p90 = 0;
  std::size_t n = 0;
};

inline spread summarize(std::vector<double> v) {
  spread s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto at = [&](double q) { return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5)]; };
  s.median = at(0.5);
  s.p10 = at(0.1);
  s.p90 = at(0.9);
  return s;
}

class event_timer {
 public:
  explicit event_timer(cudaStream_t stream) : stream_(stream) {}
  event_timer(event_timer&&) = default;
  event_timer& operator=(event_timer&&) = default;
  ~event_timer() {
    for (auto e : pool_) cudaEventDestroy(e);
  }

  void enable(bool on) { enabled_ = on; }
  // A new step: the following launches' times are added up per name for this step.
  void next_step() { ++step_; }

  template <class Launch>
  void run(const char* name, Launch&& launch) {
    if (!enabled_) {
      launch();
      return;
    }
    cudaEvent_t a = event(), b = event();
    cuda_check(cudaEventRecord(a, stream_), "cudaEventRecord");
    launch();
    cuda_check(cudaEventRecord(b, stream_), "cudaEventRecord");
    marks_.push_back({name, step_, a, b});
  }

  // Per name, the per-step device time (us) of every step recorded since the last reset; steps
  // ordered. Waits for the last event.
  std::map<std::string, std::vector<double>> collect() {
    std::map<std::string, std::map<long, double>> per_step;
    if (!marks_.empty()) cuda_check(cudaEventSynchronize(marks_.back().stop), "cudaEventSynchronize");
    for (const auto& m : marks_) {
      float ms = 0;
      cuda_check(cudaEventElapsedTime(&ms, m.start, m.stop), "cudaEventElapsedTime");
      per_step[m.name][m.step] += 1000.0 * ms;
    }
    std::map<std::string, std::vector<double>> out;
    for (const auto& [name, steps] : per_step)
      for (const auto& [step, us] : steps) out[name].push_back(us);
    reset();
    return out;
  }

  void reset() {
    used_ = 0;
    marks_.clear();
  }

 private:
  struct mark {
    std::string name;
    long step;
    cudaEvent_t start, stop;
  };

  cudaEvent_t event() {
    if (used_ == pool_.size()) {
      cudaEvent_t e = nullptr;
      cuda_check(cudaEventCreate(&e), "cudaEventCreate");
      pool_.push_back(e);
    }
    return pool_[used_++];
  }

  cudaStream_t stream_;
  bool enabled_ = false;
  long step_ = 0;
  std::vector<cudaEvent_t> pool_;
  std::size_t used_ = 0;
  std::vector<mark> marks_;
};

}  // namespace lulesh_bench
