// step_graph.hpp — cycles of the device-resident step captured into a CUDA graph and replayed
// (cuStreamBeginCapture ... cuGraphLaunch through the run time's own driver table: no CUDA
// toolkit). Where a graph cannot be had (another backend, a driver without the entry points, a
// capture the driver refuses), capture() says why and the caller launches the kernels one by one.
#pragma once

#include <tritonpack/tritonpack.hpp>

#include <exception>
#include <memory>
#include <string>
#include <utility>

namespace lulesh {

class step_graph {
 public:
  // Records what `launches` queues on `stream` (a created stream: the legacy default stream cannot
  // be captured) into a graph, without running it. Returns nullptr and sets why_not where no graph
  // could be made; the stream is then as before (any capture begun is ended and thrown away).
  template <class Launches>
  static std::unique_ptr<step_graph> capture(tritonpack::stream_t stream, Launches&& launches,
                                             std::string& why_not) {
    namespace cu = tritonpack::cuda;
    auto* backend = dynamic_cast<cu::cuda_backend*>(&tritonpack::get_backend());
    if (backend == nullptr) {
      why_not = "not the CUDA backend (" + tritonpack::get_backend().describe() + ")";
      return nullptr;
    }
    const cu::driver& d = backend->drv();
    if (!d.fn.cuStreamBeginCapture || !d.fn.cuStreamEndCapture ||
        !d.fn.cuGraphInstantiateWithFlags || !d.fn.cuGraphLaunch || !d.fn.cuGraphExecDestroy ||
        !d.fn.cuGraphDestroy) {
      why_not = "the CUDA driver lacks the graph entry points";
      return nullptr;
    }
    const auto s = static_cast<cu::CUstream>(stream);
    if (stream == nullptr) {
      why_not = "the legacy default stream cannot be captured";
      return nullptr;
    }
    if (const auto r = d.fn.cuStreamBeginCapture(s, cu::CU_STREAM_CAPTURE_MODE_GLOBAL);
        r != cu::CUDA_SUCCESS) {
      why_not = "cuStreamBeginCapture failed: " + d.status(r);
      return nullptr;
    }
    std::string launch_error;
    try {
      launches();
    } catch (const std::exception& e) {
      launch_error = e.what();
    }
    cu::CUgraph graph = nullptr;
    const auto ended = d.fn.cuStreamEndCapture(s, &graph);
    if (!launch_error.empty() || ended != cu::CUDA_SUCCESS) {
      if (graph) d.fn.cuGraphDestroy(graph);
      why_not = !launch_error.empty() ? "a launch failed during capture: " + launch_error
                                      : "cuStreamEndCapture failed: " + d.status(ended);
      return nullptr;
    }
    cu::CUgraphExec exec = nullptr;
    if (const auto r = d.fn.cuGraphInstantiateWithFlags(&exec, graph, 0); r != cu::CUDA_SUCCESS) {
      d.fn.cuGraphDestroy(graph);
      why_not = "cuGraphInstantiateWithFlags failed: " + d.status(r);
      return nullptr;
    }
    return std::unique_ptr<step_graph>(new step_graph(d, stream, graph, exec));
  }

  // Queues one replay on the stream it was captured from.
  void launch() {
    namespace cu = tritonpack::cuda;
    d_.check(d_.fn.cuGraphLaunch(exec_, static_cast<cu::CUstream>(stream_)),
             "cuGraphLaunch (the captured LULESH cycle)");
  }

  ~step_graph() {
    d_.fn.cuGraphExecDestroy(exec_);
    d_.fn.cuGraphDestroy(graph_);
  }
  step_graph(const step_graph&) = delete;
  step_graph& operator=(const step_graph&) = delete;

 private:
  step_graph(const tritonpack::cuda::driver& d, tritonpack::stream_t stream,
             tritonpack::cuda::CUgraph graph, tritonpack::cuda::CUgraphExec exec)
      : d_(d), stream_(stream), graph_(graph), exec_(exec) {}

  const tritonpack::cuda::driver& d_;
  tritonpack::stream_t stream_;
  tritonpack::cuda::CUgraph graph_;
  tritonpack::cuda::CUgraphExec exec_;
};

}  // namespace lulesh
