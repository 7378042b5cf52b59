// resident_step.hpp — the device-resident time loop (main.cpp's default; --host-step runs the
// host-stepped one of time_step.hpp): TimeIncrement runs on the GPU (kernels.py's advance_time)
// at the start of every cycle, so cycles are queued without waiting for the host; the host reads
// status[] only every `status_every` cycles. A cycle queued after the run ended does nothing (the
// kernels check status[STATUS_STOPPED]), so the results, the cycle count and every printed line
// are the host-stepped loop's.
//
// run_resident() (resident_loop.hpp) is the host's side; resident_device here the GPU's:
// lagrange_step's launches, captured into CUDA graphs (one cycle, a batch of cycles) and replayed
// where the driver allows it (step_graph.hpp), else launched kernel by kernel.
#pragma once

#include <tritonpack/tritonpack.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "device_state.hpp"
#include "problem.hpp"
#include "resident_loop.hpp"
#include "step_graph.hpp"
#include "time_control.hpp"
#include "time_step.hpp"

namespace lulesh {

// How the GPU runs the device-resident cycles (printed by main.cpp).
struct resident_mode {
  bool graph = false;
  std::int32_t cycles_per_graph = 0;  // of the batch graph (1: only the one-cycle graph)
  std::string why_no_graph;           // when !graph
};

// The most cycles one graph holds: a batch of status_every cycles is one graph launch up to this
// (14 nodes a cycle; a bigger graph costs instantiation time and memory for little more).
constexpr std::int32_t max_cycles_per_graph = 32;

// The GPU side of run_resident: lagrange_step's kernels and advance_time on the step's stream
// (a created stream, so that it can be captured). Where the driver allows it, one cycle and a
// batch of min(status_every, max_cycles_per_graph) cycles are captured as CUDA graphs: a batch of
// status_every cycles is then a few graph launches (the one-cycle graph for what -i leaves over).
template <class Step>
class resident_device {
 public:
  // Uploads status[] for `start` (the initial time and dt), then captures the graphs unless
  // use_graph is false (why: the reason printed).
  resident_device(Step& step, device_state& d, const time_control& start, std::int32_t max_cycles,
                  std::size_t history_length, bool use_graph, const std::string& why_not_graph)
      : step_(step), d_(d), t_(start), max_cycles_(max_cycles), history_length_(history_length) {
    if (d.status.size() < status_history + 2 * history_length)
      throw std::logic_error(
          "resident_device: device_state was made without room for the status history");
    d.status.upload(initial_status(start, history_length));
    if (!use_graph) {
      mode_.why_no_graph = why_not_graph;
      return;
    }
    graph_ = step_graph::capture(
        step.kernels().stream, [&] { queue_one(); }, mode_.why_no_graph);
    mode_.graph = graph_ != nullptr;
    if (!graph_) return;
    mode_.cycles_per_graph = 1;
    const auto batch = static_cast<std::int32_t>(
        std::min<std::size_t>(history_length, static_cast<std::size_t>(max_cycles_per_graph)));
    std::string why_not_batch;  // the one-cycle graph serves where the batch cannot be captured
    if (batch > 1)
      batch_graph_ = step_graph::capture(
          step.kernels().stream,
          [&] {
            for (std::int32_t i = 0; i < batch; ++i) queue_one();
          },
          why_not_batch);
    if (batch_graph_) mode_.cycles_per_graph = batch;
  }

  const resident_mode& mode() const { return mode_; }

  void queue_cycles(std::int32_t n) {
    for (; batch_graph_ && n >= mode_.cycles_per_graph; n -= mode_.cycles_per_graph)
      batch_graph_->launch();
    for (std::int32_t i = 0; i < n; ++i) {
      if (graph_) graph_->launch();
      else queue_one();
    }
  }

  device_clock read_clock() {
    std::vector<double> s(status_history + 2 * history_length_);
    step_.timer().run("status copy", [&] {
      d_.status.download_async(s.data(), s.size(), step_.kernels().stream);
      tritonpack::synchronize(step_.kernels().stream);
    });
    return device_clock::from_status(s);
  }

 private:
  void queue_one() {
    step_.timer().run("advance_time", [&] {
      step_.kernels().advance_time(d_, t_, max_cycles_, static_cast<std::int32_t>(history_length_));
    });
    step_.advance(dt_from_status);
  }

  Step& step_;
  device_state& d_;
  time_control t_;  // the loop's constants (stop time, dt limits)
  std::int32_t max_cycles_;
  std::size_t history_length_;
  resident_mode mode_;
  std::unique_ptr<step_graph> graph_;        // one cycle
  std::unique_ptr<step_graph> batch_graph_;  // mode_.cycles_per_graph cycles
};

}  // namespace lulesh
