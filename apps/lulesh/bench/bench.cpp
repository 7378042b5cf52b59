// lulesh_bench — apps/lulesh's time step with two launch layers side by side on one GPU: the
// Triton kernels through tritonpack (triton_kernels.hpp) and the CUDA C++ twin (cuda_kernels.cu),
// driven by the same host code (lagrange_step, advance_cycle, time_increment).
//
//   lulesh_bench [--sizes 16,30,...] [--verify 5,10,30,45] [--warmup N] [--steps N] [--kernel-steps N]
//                [--graph-steps N] [--backends triton,triton_fma,cuda_tree,cuda_cub,cuda_fma]
//                [--sweep-reps N] [--csv FILE]
//   lulesh_bench --cold-capture S [--backends ...]   capture the very first step of a fresh process
//                                                   (every kernel's first launch) into a CUDA graph
//
// Per size and back end (each from the initial state): `warmup` cycles of the real time loop, then
//   step    `steps` cycles of the real loop (dt control: one status read-back per cycle), wall
//           clock -> whole-step time and FOM (zones/s, LULESH's definition);
//   kernel  `kernel-steps` cycles with CUDA events around every launch (device time per kernel
//           per step: median, p10, p90);
//   stream  `graph-steps` steps launched back to back with the last cycle's dt, no read-back
//           (device time per step from two events);
//   graph   the same step captured once into a CUDA graph and replayed `graph-steps` times.
// Then (--sweep-reps N > 0) every configuration of the tuning library (tuning.toml) and the
// library's own, each kernel timed N times on one state after the warm-up (sweep rows), and the
// step again with the fastest configuration of each kernel at that size (back end triton_tuned).
// The graph holds the step's launches only: TimeIncrement (dt control) needs the step's status
// on the host, so the graph and "stream" rows replay a fixed dt and measure launch cost, not physics.
// --verify runs each back end to completion at the sizes given and checks LULESH's published
// result (iteration count, origin energy, symmetry); exit status 1 if any fails.
#include <cuda_runtime_api.h>

#include <tritonpack/tritonpack.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_kernels.hpp"
#include "device_state.hpp"
#include "event_timer.hpp"
#include "mesh.hpp"
#include "options.hpp"
#include "problem.hpp"
#include "regions.hpp"
#include "report.hpp"
#include "time_control.hpp"
#include "time_step.hpp"
#include "triton_kernels.hpp"
#include "tuning_variants.hpp"

using namespace lulesh;
using lulesh_bench::cuda_check;
using lulesh_bench::event_timer;
using lulesh_bench::summarize;

namespace {

struct bench_options {
  std::vector<int> sizes{16, 30, 45, 60, 90, 128, 150};
  std::vector<int> verify{5, 10, 30, 45};
  std::vector<std::string> backends{"triton", "cuda_tree", "cuda_cub", "triton_fma", "cuda_fma"};
  int warmup = 20, steps = 100, kernel_steps = 50, graph_steps = 100, sweep_reps = 20;
  std::string csv = "lulesh_bench.csv";
  int cold_capture = 0;  // > 0: only capture the first step at this size, before any launch
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

std::vector<int> split_ints(const std::string& s) {
  std::vector<int> out;
  for (const auto& item : split(s)) out.push_back(std::stoi(item));
  return out;
}

bench_options parse(int argc, char** argv) {
  bench_options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    if (a == "--sizes") o.sizes = split_ints(value());
    else if (a == "--verify") o.verify = split_ints(value());
    else if (a == "--backends") o.backends = split(value());
    else if (a == "--warmup") o.warmup = std::stoi(value());
    else if (a == "--steps") o.steps = std::stoi(value());
    else if (a == "--kernel-steps") o.kernel_steps = std::stoi(value());
    else if (a == "--graph-steps") o.graph_steps = std::stoi(value());
    else if (a == "--sweep-reps") o.sweep_reps = std::stoi(value());
    else if (a == "--csv") o.csv = value();
    else if (a == "--cold-capture") o.cold_capture = std::stoi(value());
    else throw std::invalid_argument("unknown option " + a + " (see the comment at the top of apps/lulesh/bench/bench.cpp)");
  }
  for (const auto& b : o.backends)
    if (b == "triton_tuned")
      throw std::invalid_argument("triton_tuned is not named in --backends: it runs after each size's sweep (--sweep-reps > 0)");
    else if (b != "triton" && b != "triton_fma" && b != "cuda_tree" && b != "cuda_cub" && b != "cuda_fma")
      throw std::invalid_argument("unknown back end `" + b + "`: triton, triton_fma, cuda_tree, cuda_cub, cuda_fma");
  return o;
}

struct problem {
  int nx;
  mesh m;
  region_sets regions;
  initial_state init;
  constants c;
  // The reference's default regions (-r 11 -b 1 -c 1).
  explicit problem(int s, const options& defaults = {})
      : nx(s), m(make_mesh(s)), regions(make_regions(m.num_elem, defaults.num_reg, defaults.balance, defaults.cost)),
        init(make_initial_state(m)) {}
};

// The fastest configuration of each Triton kernel at a size (the sweep's result).
struct tuned_set {
  triton_functions fn;
  std::int64_t time_constraints_tile = 0;  // 0: the library's
};
std::map<int, tuned_set> tuned_by_size;

std::size_t partials_for(const std::string& backend, std::int32_t num_elem, int nx) {
  if (backend == "triton_tuned") return triton_kernels::partials_for(num_elem, tuned_by_size.at(nx).time_constraints_tile);
  return static_cast<std::size_t>(backend.rfind("triton", 0) == 0 ? triton_kernels::partials_for(num_elem)
                                                                  : lulesh_cuda::cuda_kernels::partials_for(num_elem));
}

// device_state's uploads and memsets are ordered on the legacy default stream, which a
// non-blocking stream does not wait for: finish them before the step's first launch.
void settle(const device_state&) { cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }

// Calls f(step) with a lagrange_step of the named back end on `stream` over `d`.
template <class F>
void with_step(const std::string& backend, problem& pb, device_state& d, cudaStream_t stream, F&& f) {
  auto st = static_cast<tritonpack::stream_t>(stream);
  if (backend == "triton" || backend == "triton_fma" || backend == "triton_tuned") {
    triton_kernels k = triton_kernels::make(d.num_elem, backend == "triton_fma", st);
    if (backend == "triton_tuned") {
      const tuned_set& t = tuned_by_size.at(pb.nx);
      k.fn = t.fn;
      k.num_partials = static_cast<std::int32_t>(triton_kernels::partials_for(d.num_elem, t.time_constraints_tile));
    }
    lagrange_step<triton_kernels, event_timer> step(d, pb.c, k, event_timer(stream));
    f(step);
  } else {
    const auto red = backend == "cuda_cub" ? lulesh_cuda::reduction::cub : lulesh_cuda::reduction::legacy_tree;
    lagrange_step<lulesh_cuda::cuda_kernels, event_timer> step(
        d, pb.c, lulesh_cuda::cuda_kernels(d, pb.c, red, backend == "cuda_fma", st), event_timer(stream));
    f(step);
  }
}

// The reference's time loop for at most `cycles` cycles (or to completion); throws on a fatal
// condition, as the reference exits.
template <class Step>
void run_cycles(Step& step, time_control& t, const constants& c, int cycles) {
  for (int i = 0; i < cycles && !t.done(1 << 30); ++i) {
    time_increment(t);
    if (const int fatal = advance_cycle(step, t, c))
      throw std::runtime_error("the run stopped with the reference's fatal condition " + std::to_string(fatal));
  }
}

struct csv_writer {
  std::ofstream out;
  explicit csv_writer(const std::string& path) : out(path) {
    if (!out) throw std::runtime_error("cannot write " + path);
    out << "s,backend,kind,name,median_us,p10_us,p90_us,samples,value\n";
  }
  void row(int s, const std::string& backend, const std::string& kind, const std::string& name,
           const lulesh_bench::spread& t, double value = 0) {
    char line[512];
    // value with 17 digits: origin energies that print alike are the same double (bit-identical runs).
    std::snprintf(line, sizeof line, "%d,%s,%s,%s,%.3f,%.3f,%.3f,%zu,%.17g\n", s, backend.c_str(), kind.c_str(),
                  name.c_str(), t.median, t.p10, t.p90, t.n, value);
    out << line;
    out.flush();
  }
};

int verify_backend(const std::string& backend, int s, cudaStream_t stream, csv_writer& csv) {
  problem pb(s);
  device_state d(pb.m, pb.init, pb.regions, partials_for(backend, pb.m.num_elem, pb.nx));
  settle(d);
  run_result r;
  time_control t;
  t.deltatime = pb.init.deltatime;
  const auto t0 = std::chrono::steady_clock::now();
  with_step(backend, pb, d, stream, [&](auto& step) { run_cycles(step, t, pb.c, 1 << 30); });
  r.elapsed_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.nx = s;
  r.cycles = t.cycle;
  const std::vector<double> e = d.e.to_host();
  r.origin_energy = e[0];
  r.sym = measure_symmetry(e, s);
  std::printf("verify %-10s s=%-3d cycles %5d  origin energy %12.6e  sym %.1e %.1e %.1e  (%.2f s)\n", backend.c_str(), s,
              r.cycles, r.origin_energy, r.sym.max_abs_diff, r.sym.total_abs_diff, r.sym.max_rel_diff, r.elapsed_seconds);
  const bool ok = verify(r, !(t.time < t.stoptime), true);
  const bool published = published_for(s).has_value();
  std::printf("verify %-10s s=%-3d %s\n", backend.c_str(), s, !published ? "no published result" : ok ? "PASS" : "FAIL");
  csv.row(s, backend, "verify", ok ? "pass" : "fail", {}, r.origin_energy);
  csv.row(s, backend, "verify_cycles", ok ? "pass" : "fail", {}, r.cycles);
  return ok ? 0 : 1;
}

void bench_backend(const std::string& backend, problem& pb, cudaStream_t stream, const bench_options& o,
                   csv_writer& csv) {
  device_state d(pb.m, pb.init, pb.regions, partials_for(backend, pb.m.num_elem, pb.nx));
  settle(d);
  time_control t;
  t.deltatime = pb.init.deltatime;
  const double zones = static_cast<double>(pb.m.num_elem);
  with_step(backend, pb, d, stream, [&](auto& step) {
    auto& timer = step.timer();
    timer.enable(false);
    run_cycles(step, t, pb.c, o.warmup);

    // Whole step in the real loop (with the per-cycle status read-back and dt control).
    const int cycle0 = t.cycle;
    const auto t0 = std::chrono::steady_clock::now();
    run_cycles(step, t, pb.c, o.steps);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const int ran = t.cycle - cycle0;
    const double step_us = 1e6 * wall / ran;
    const double fom = zones * ran / wall;
    csv.row(pb.nx, backend, "step", "whole step (loop; wall)", {step_us, step_us, step_us, std::size_t(ran)}, fom);
    const double origin = d.e.to_host()[0];
    csv.row(pb.nx, backend, "state", "origin energy after warmup+steps", {}, origin);

    // Per kernel, device time from events.
    timer.reset();
    timer.enable(true);
    for (int i = 0; i < o.kernel_steps && !t.done(1 << 30); ++i) {
      timer.next_step();
      time_increment(t);
      if (advance_cycle(step, t, pb.c)) throw std::runtime_error("fatal condition while timing kernels");
    }
    auto per_kernel = timer.collect();
    timer.enable(false);
    std::vector<double> reductions, all;
    for (auto& [name, v] : per_kernel) {
      csv.row(pb.nx, backend, "kernel", name, summarize(v));
      if (name == "time_constraints" || name == "reduce_time_constraints") {
        if (reductions.empty()) reductions.assign(v.size(), 0.0);
        for (std::size_t i = 0; i < v.size() && i < reductions.size(); ++i) reductions[i] += v[i];
      }
      if (name != "status copy") {
        if (all.empty()) all.assign(v.size(), 0.0);
        for (std::size_t i = 0; i < v.size() && i < all.size(); ++i) all[i] += v[i];
      }
    }
    csv.row(pb.nx, backend, "kernel", "time constraints (both)", summarize(reductions));
    csv.row(pb.nx, backend, "kernel", "sum of kernels", summarize(all));

    // The step's launches back to back with one dt, then the same as a CUDA graph.
    const double dt = t.deltatime;
    cudaEvent_t a, b;
    cuda_check(cudaEventCreate(&a), "cudaEventCreate");
    cuda_check(cudaEventCreate(&b), "cudaEventCreate");
    cuda_check(cudaEventRecord(a, stream), "cudaEventRecord");
    const auto h0 = std::chrono::steady_clock::now();
    for (int i = 0; i < o.graph_steps; ++i) step.advance(dt);
    const double host_us = 1e6 * std::chrono::duration<double>(std::chrono::steady_clock::now() - h0).count() / o.graph_steps;
    cuda_check(cudaEventRecord(b, stream), "cudaEventRecord");
    cuda_check(cudaEventSynchronize(b), "cudaEventSynchronize");
    float ms = 0;
    cuda_check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    const double stream_us = 1000.0 * ms / o.graph_steps;
    csv.row(pb.nx, backend, "stream", "step launches back to back (fixed dt)", {stream_us, stream_us, stream_us, std::size_t(o.graph_steps)}, host_us);

    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    std::string graph_error;
    cudaError_t r = cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
    if (r == cudaSuccess) {
      try {
        step.advance(dt);
      } catch (const std::exception& e) {
        graph_error = e.what();
      }
      r = cudaStreamEndCapture(stream, &graph);
    }
    if (r == cudaSuccess && graph_error.empty()) r = cudaGraphInstantiate(&exec, graph, 0);
    if (r != cudaSuccess || !graph_error.empty()) {
      if (graph_error.empty()) graph_error = cudaGetErrorString(r);
      std::printf("  %s s=%d: graph capture failed: %s\n", backend.c_str(), pb.nx, graph_error.c_str());
      cudaGetLastError();
      csv.row(pb.nx, backend, "graph", "capture failed", {});
    } else {
      std::size_t nodes = 0;
      cudaGraphGetNodes(graph, nullptr, &nodes);
      cuda_check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");  // upload
      cuda_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      cuda_check(cudaEventRecord(a, stream), "cudaEventRecord");
      for (int i = 0; i < o.graph_steps; ++i) cuda_check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
      cuda_check(cudaEventRecord(b, stream), "cudaEventRecord");
      cuda_check(cudaEventSynchronize(b), "cudaEventSynchronize");
      cuda_check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
      const double graph_us = 1000.0 * ms / o.graph_steps;
      csv.row(pb.nx, backend, "graph", "step as a CUDA graph (fixed dt)", {graph_us, graph_us, graph_us, std::size_t(o.graph_steps)},
              static_cast<double>(nodes));
      cudaGraphExecDestroy(exec);
      cudaGraphDestroy(graph);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::printf("  %-10s s=%-3d step %8.1f us  FOM %.3e z/s  stream %8.1f us  graph %s  kernels %8.1f us  origin e %.6e\n",
                backend.c_str(), pb.nx, step_us, fom, stream_us, graph_error.empty() ? "ok" : "FAILED",
                summarize(all).median, origin);
    std::fflush(stdout);
  });
}


// Device time of `launch` (median, p10, p90 of `reps` launches, each between two events).
template <class Launch>
lulesh_bench::spread time_launches(cudaStream_t stream, int reps, Launch&& launch) {
  std::vector<cudaEvent_t> ev(2 * static_cast<std::size_t>(reps));
  for (auto& e : ev) cuda_check(cudaEventCreate(&e), "cudaEventCreate");
  for (int r = 0; r < reps; ++r) {
    cuda_check(cudaEventRecord(ev[2 * r], stream), "cudaEventRecord");
    launch();
    cuda_check(cudaEventRecord(ev[2 * r + 1], stream), "cudaEventRecord");
  }
  cuda_check(cudaEventSynchronize(ev.back()), "cudaEventSynchronize");
  std::vector<double> us;
  for (int r = 0; r < reps; ++r) {
    float ms = 0;
    cuda_check(cudaEventElapsedTime(&ms, ev[2 * r], ev[2 * r + 1]), "cudaEventElapsedTime");
    us.push_back(1000.0 * ms);
  }
  for (auto e : ev) cudaEventDestroy(e);
  return summarize(us);
}

// Times the library's configuration and every tuning configuration of each Triton kernel on one
// state (after the warm-up) and keeps the fastest of each for triton_tuned. position_velocity
// and material_eos change the state they read, so they come last; the state is not used after.
void sweep(problem& pb, cudaStream_t stream, const bench_options& o, csv_writer& csv) {
  const std::int32_t n = pb.m.num_elem;
  device_state d(pb.m, pb.init, pb.regions,
                 static_cast<std::size_t>(triton_kernels::partials_for(n, lulesh_bench::smallest_time_constraints_tile)));
  settle(d);
  const triton_kernels library = triton_kernels::make(n, false, static_cast<tritonpack::stream_t>(stream));
  lagrange_step<triton_kernels, event_timer> step(d, pb.c, library, event_timer(stream));
  time_control t;
  t.deltatime = pb.init.deltatime;
  run_cycles(step, t, pb.c, o.warmup);
  const double dt = t.deltatime;
  auto launch = [&](const std::string& kernel, const triton_kernels& k) {
    if (kernel == "volume_force") k.volume_force(d, pb.c);
    else if (kernel == "gather_node_forces") k.gather_node_forces(d);
    else if (kernel == "acceleration") k.acceleration(d);
    else if (kernel == "position_velocity") k.position_velocity(d, pb.c, dt);
    else if (kernel == "kinematics_q_gradient") k.kinematics_q_gradient(d, dt);
    else if (kernel == "monotonic_q") k.monotonic_q(d, pb.c);
    else if (kernel == "material_eos") k.material_eos(d, pb.c);
    else if (kernel == "update_volume") k.update_volume(d, pb.c);
    else if (kernel == "time_constraints") k.time_constraints(d, pb.c);
    else if (kernel == "reduce_time_constraints") k.reduce_time_constraints(d);
    else throw std::logic_error("sweep: no launch for " + kernel);
  };
  tuned_set best;
  const char* order[] = {"volume_force", "gather_node_forces", "acceleration", "kinematics_q_gradient", "monotonic_q",
                         "update_volume", "time_constraints", "reduce_time_constraints", "material_eos",
                         "position_velocity"};
  for (const std::string kernel : order) {
    const std::int64_t library_block = compiled_constexpr(kernel, "BLOCK");
    const lulesh_bench::spread own = time_launches(stream, o.sweep_reps, [&] { launch(kernel, library); });
    csv.row(pb.nx, "triton", "sweep", kernel + " library b" + std::to_string(library_block), own, 1);
    double fastest = own.median;
    std::string fastest_name = "library";
    for (const auto& v : lulesh_bench::tuning_variants) {
      if (kernel != v.kernel) continue;
      triton_kernels k = library;
      v.use(k.fn);
      if (kernel == "time_constraints") k.num_partials = static_cast<std::int32_t>(triton_kernels::partials_for(n, v.block));
      const lulesh_bench::spread m = time_launches(stream, o.sweep_reps, [&] { launch(kernel, k); });
      const std::string name = "b" + std::to_string(v.block) + "w" + std::to_string(v.warps);
      csv.row(pb.nx, "triton", "sweep", kernel + " " + name, m, 0);
      if (m.median < fastest) {
        fastest = m.median;
        fastest_name = name;
        v.use(best.fn);
        if (kernel == "time_constraints") best.time_constraints_tile = v.block;
      }
    }
    std::printf("  sweep s=%-3d %-24s library %8.1f us  fastest %-9s %8.1f us (%.2fx)\n", pb.nx, kernel.c_str(), own.median,
                fastest_name.c_str(), fastest, own.median / fastest);
  }
  // A time_constraints tile other than the library's needs no other reduce: it reads num_partials.
  tuned_by_size[pb.nx] = best;
}

// Captures each back end's first step of the process (first launches: image selection, module
// loading inside the capture) into a CUDA graph in global capture mode, replays it once and says
// whether that worked. Returns the number of failures.
int cold_capture(const bench_options& o, cudaStream_t stream) {
  int failures = 0;
  problem pb(o.cold_capture);
  for (const auto& backend : o.backends) {
    device_state d(pb.m, pb.init, pb.regions, partials_for(backend, pb.m.num_elem, pb.nx));
    settle(d);
    std::string why;
    with_step(backend, pb, d, stream, [&](auto& step) {
      cudaGraph_t graph = nullptr;
      cudaGraphExec_t exec = nullptr;
      cudaError_t r = cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
      if (r == cudaSuccess) {
        try {
          step.advance(pb.init.deltatime);
        } catch (const std::exception& e) {
          why = e.what();
        }
        r = cudaStreamEndCapture(stream, &graph);
      }
      if (r == cudaSuccess && why.empty()) r = cudaGraphInstantiate(&exec, graph, 0);
      if (r == cudaSuccess && why.empty()) r = cudaGraphLaunch(exec, stream);
      if (r == cudaSuccess && why.empty()) r = cudaStreamSynchronize(stream);
      if (why.empty() && r != cudaSuccess) why = cudaGetErrorString(r);
      if (exec) cudaGraphExecDestroy(exec);
      if (graph) cudaGraphDestroy(graph);
      cudaGetLastError();
    });
    std::printf("cold capture %-10s s=%d: %s\n", backend.c_str(), pb.nx, why.empty() ? "ok (captured, instantiated, replayed)" : ("FAILED: " + why).c_str());
    failures += !why.empty();
  }
  return failures;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const bench_options o = parse(argc, argv);
    if (tritonpack::device_count() < 1) {
      std::fprintf(stderr, "lulesh_bench: no GPU here\n");
      return 1;
    }
    cudaStream_t stream = nullptr;
    cuda_check(cudaSetDevice(0), "cudaSetDevice");
    cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    std::printf("GPU: %s; Triton image: %s\n", tritonpack::device_name().c_str(), tritonpack::device_arch().c_str());
    if (o.cold_capture > 0) {
      const int failed = cold_capture(o, stream);
      cudaStreamDestroy(stream);
      return failed ? 1 : 0;
    }
    csv_writer csv(o.csv);
    int failures = 0;
    for (int s : o.verify)
      for (const auto& b : o.backends) failures += verify_backend(b, s, stream, csv);
    for (int s : o.sizes) {
      problem pb(s);
      for (const auto& b : o.backends) bench_backend(b, pb, stream, o, csv);
      if (o.sweep_reps > 0) {
        sweep(pb, stream, o, csv);
        bench_backend("triton_tuned", pb, stream, o, csv);
      }
    }
    cudaStreamDestroy(stream);
    std::printf("%s\n", failures ? "VERIFICATION FAILED" : "all verifications passed");
    return failures ? 1 : 0;
  } catch (const tritonpack::error& e) {
    std::fprintf(stderr, "lulesh_bench: %s [tritonpack::errc::%s]\n", e.what(), tritonpack::errc_name(e.code()));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lulesh_bench: %s\n", e.what());
  }
  return 1;
}
