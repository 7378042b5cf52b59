// LULESH 2.0 (LLNL's Lagrangian shock hydrodynamics proxy application), Sedov blast problem on one
// domain, with every loop of the time step a Triton kernel (kernels.py) packed by tritonpack.
//
//   lulesh [-s size] [-i iterations] [-r regions] [-b balance] [-c cost] [-p] [-q]
//          [--timing] [--no-fp-fusion] [--require-gpu] [--reference-progress FILE]
//          [--host-step] [--status-every K] [--no-graph] [--no-fused-nodes] [--no-fused-q-eos]
//          [--dump-cycle K [--dump-dir DIR]]
//
// The host (this file and the headers beside it) builds the mesh, regions and initial state as
// the reference does, then runs the reference's time loop on the GPU (resident_step.hpp): each
// cycle TimeIncrement (a kernel) and the step's kernels (time_step.hpp), one cycle replayed as a
// CUDA graph where the driver allows it, the host reading the status every K cycles. With
// --host-step (and --dump-cycle) TimeIncrement runs on the host and the next dt's constraints are
// read back each cycle instead. Both print the same lines and results. It prints
// the reference's "Run completed" block and checks it against the published results for
// s = 5, 10, 30 and 45 (exit status 1 on a mismatch). Without a GPU it says why and exits 0
// (1 with --require-gpu).
#include <tritonpack/select/image.hpp>
#include <tritonpack/tritonpack.hpp>

#include <chrono>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "device_state.hpp"
#include "mesh.hpp"
#include "options.hpp"
#include "problem.hpp"
#include "progress_check.hpp"
#include "regions.hpp"
#include "report.hpp"
#include "resident_step.hpp"
#include "state_dump.hpp"
#include "time_control.hpp"
#include "time_step.hpp"
#include "triton_kernels.hpp"

namespace tp = tritonpack;
using namespace lulesh;

namespace {

void print_banner(const options& o) {
  std::cout << "Running problem size " << o.nx << "^3 per domain until completion\n";
  std::cout << "Num processors: 1\n";
  std::cout << "Total number of elements: " << static_cast<long long>(o.nx) * o.nx * o.nx << " \n\n";
  std::cout << "To run other sizes, use -s <integer>.\n";
  std::cout << "To run a fixed number of iterations, use -i <integer>.\n";
  std::cout << "To run a more or less balanced region set, use -b <integer>.\n";
  std::cout << "To change the relative costs of regions, use -c <integer>.\n";
  std::cout << "To print out progress, use -p\n";
  std::cout << "See help (-h) for more options\n\n";
}

// Which image of each kernel this GPU runs (the run time's own selection).
void print_gpu(const options& o, const device_state& d) {
  const tp::device_props& props = lulesh_kernels::library().current_device();
  std::printf("GPU: %s\n", props.describe().c_str());
  std::printf("Device memory for the problem: %.1f MiB; kernels: %s%s%s\n", double(d.bytes()) / 1048576.0,
              o.fp_fusion ? "FP contraction on in volume_force, kinematics_q_gradient, material_eos (--no-fp-fusion: off)"
                          : "no FP contraction, as the reference's x86 build (--no-fp-fusion)",
              o.fused_nodes ? "; the node loops in one kernel, advance_nodes (--no-fused-nodes: four)"
                            : "; the node loops as four kernels (--no-fused-nodes)",
              o.fused_q_eos ? "; monotonic Q and EOS in one kernel, monotonic_q_material_eos (--no-fused-q-eos: two)"
                            : "; monotonic Q and EOS as two kernels (--no-fused-q-eos)");
  const tp::device_target dev = tp::load_target(props);  // the device as a launch selects for it
  const tp::container_info& c = lulesh_kernels::library().info();
  const tp::kernel_info& k = c.kernels.front();
  const tp::image_choice ch = tp::select_image(c, k.variants.front(), dev);
  std::printf("Image (all kernels alike): %s\n\n",
              ch.image ? (std::string(tp::image_kind_name(c.images[*ch.image].kind)) + " " + c.images[*ch.image].arch +
                          (ch.jit ? ", JIT-compiled" : "") + " — " + ch.reason)
                             .c_str()
                       : ("none: " + ch.reason).c_str());
}

// How the time loop runs (resident: the device-resident loop's mode; nullptr: --host-step).
void print_time_step(const options& o, const resident_mode* resident) {
  if (!resident)
    std::printf("Time step: host-stepped (TimeIncrement on the host, the status read after every cycle)\n\n");
  else if (resident->graph)
    std::printf("Time step: on the GPU, status read every %d cycles, replayed as CUDA graphs of %d cycle%s\n\n",
                o.status_every, resident->cycles_per_graph, resident->cycles_per_graph == 1 ? "" : "s");
  else
    std::printf("Time step: on the GPU, status read every %d cycles, kernels launched one by one (no graph: %s)\n\n",
                o.status_every, resident->why_no_graph.c_str());
}

// Why nothing can run here, as any kernel launch would say it; exit status per --require-gpu.
int explain_no_gpu(const tp::error& e, const options& o) {
  const std::string why = why_no_gpu(e.what());
  std::printf("Cannot run on a GPU here: %s\n[tritonpack::errc::%s]\n", why.c_str(), tp::errc_name(e.code()));
  std::printf("The program carries its kernels for sm_80, sm_90, sm_100 (cubins and PTX) and gfx90a, gfx942;\n"
              "run it on a node with one of those GPUs (it needs only the GPU driver).\n");
  return o.require_gpu ? 1 : 0;
}

// The reference trajectory to compare with: the one named on the command line, else the copy of
// lulesh2.0's -p output for this size in the source tree (LULESH_REFERENCE_DIR), if it is there.
std::optional<progress_check> reference_trajectory(const options& o) {
  if (!o.reference_progress.empty()) return progress_check(o.reference_progress);
#ifdef LULESH_REFERENCE_DIR
  const std::string path = std::string(LULESH_REFERENCE_DIR) + "/progress_s" + std::to_string(o.nx) + ".txt";
  if (published_for(o.nx) && std::ifstream(path)) return progress_check(path);
  if (published_for(o.nx) && !o.quiet)
    std::printf("(No reference trajectory at %s: the run is checked at its end only.)\n", path.c_str());
#endif
  return std::nullopt;
}

int run(const options& o) {
  if (!o.quiet) print_banner(o);
  // The host set-up first: it needs no GPU, and its errors are the user's to fix.
  const mesh m = make_mesh(o.nx);
  const region_sets regions = make_regions(m.num_elem, o.num_reg, o.balance, o.cost);
  const initial_state init = make_initial_state(m);
  const constants c;
  std::optional<progress_check> trajectory = reference_trajectory(o);

  try {
    if (tp::device_count() < 1) throw tp::error(tp::errc::no_device, "the GPU driver reports no device");
  } catch (const tp::error& e) {
    if (e.code() != tp::errc::no_driver && e.code() != tp::errc::no_device) throw;
    return explain_no_gpu(e, o);
  }

  const bool host_step = o.host_step || o.dump_cycle > 0;
  const std::size_t history = host_step ? 0 : static_cast<std::size_t>(o.status_every);
  device_state d(m, init, regions, static_cast<std::size_t>(triton_kernels::partials_for(m.num_elem)), history);
  if (o.fused_nodes) d.use_fused_nodes(m);
  if (!o.quiet) print_gpu(o, d);
  // The device-resident loop queues its work on a stream of its own (the legacy default stream
  // cannot be captured into a graph).
  const auto destroy = [](void* s) { tp::destroy_stream(static_cast<tp::stream_t>(s)); };
  const std::unique_ptr<void, void (*)(void*)> stream(host_step ? nullptr : tp::create_stream(true), destroy);
  triton_kernels kernels = triton_kernels::make(m.num_elem, o.fp_fusion, static_cast<tp::stream_t>(stream.get()));
  kernels.fused_nodes = o.fused_nodes;
  kernels.fused_q_eos = o.fused_q_eos;
  gpu_step step(d, c, kernels, kernel_timer(o.timing));

  time_control t;
  t.deltatime = init.deltatime;
  std::int32_t status_reads = 0;
  std::optional<resident_device<gpu_step>> resident;
  if (!host_step) {
    lulesh_kernels::library().preload();  // no module loads while the cycle is captured
    const char* why_not = !o.graph ? "--no-graph" : o.timing ? "--timing synchronises after every launch" : "";
    resident.emplace(step, d, t, o.its, history, o.graph && !o.timing, why_not);
  }
  if (!o.quiet) print_time_step(o, resident ? &resident->mode() : nullptr);
  tp::synchronize();
  const auto start = std::chrono::steady_clock::now();
  if (resident) {
    const auto on_cycle = [&](std::int32_t cycle, double time, double dt) {
      if (o.show_progress && !o.quiet) std::printf("%s\n", progress_line(cycle, time, dt).c_str());
      if (trajectory) trajectory->observe(cycle, time, dt);
    };
    const resident_result rr = run_resident(*resident, t, o.its, o.status_every, c, on_cycle);
    if (rr.exit_status) return rr.exit_status;
    t = rr.t;
    status_reads = rr.status_reads;
  }
  while (!resident && !t.done(o.its)) {
    time_increment(t);
    const bool dump = t.cycle == o.dump_cycle;
    if (dump) {
      write_dump_meta(o.dump_dir, o.nx, t.cycle, t.deltatime);
      write_fields(d, std::filesystem::path(o.dump_dir) / "before");
    }
    const int fatal = advance_cycle(step, t, c);
    if (dump) {
      write_fields(d, std::filesystem::path(o.dump_dir) / "after");
      if (!o.quiet)
        std::printf("State before and after cycle %d written to %s (compare with the CPU: python "
                    "apps/lulesh/interpret_check.py --replay %s)\n", t.cycle, o.dump_dir.c_str(), o.dump_dir.c_str());
    }
    if (fatal) return fatal;
    if (o.show_progress && !o.quiet) std::printf("%s\n", progress_line(t.cycle, t.time, t.deltatime).c_str());
    if (trajectory) trajectory->observe(t.cycle, t.time, t.deltatime);
    ++status_reads;
  }
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  run_result r;
  r.nx = o.nx;
  r.cycles = t.cycle;
  const std::vector<double> e = d.e.to_host();
  r.origin_energy = e[0];
  r.sym = measure_symmetry(e, o.nx);
  r.elapsed_seconds = elapsed;
  if (!o.quiet) {
    std::cout.flush();
    print_run_completed(r);
    std::cout.flush();
  }
  const bool completed = !(t.time < t.stoptime);  // ended by time, not by -i
  // The exit status is the reference's own verification (iteration count, origin energy, symmetry).
  // The cycle-by-cycle trajectory is printed with 7 digits by the reference, so a last-digit
  // difference (cbrt from libdevice instead of glibc, say) shows there long before it could move
  // the verified result: it is reported to help find where a run departs, and does not fail it.
  const bool ok = verify(r, completed, o.quiet);
  if (trajectory) trajectory->report(completed, o.quiet);
  if (o.timing && !o.quiet) print_timing(step.timer(), r.cycles);
  if (!o.quiet) std::printf("Status reads: %d for %d cycles\n", status_reads, r.cycles);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  try {
    o = parse_options(argc, argv);
  } catch (const usage_error& e) {
    std::fprintf(stderr, "lulesh: %s\n\n%s", e.what(), usage_text());
    return 2;
  }
  if (o.help) {
    std::printf("%s", usage_text());
    return 0;
  }
  try {
    return run(o);
  } catch (const tp::error& e) {
    std::fprintf(stderr, "lulesh: %s [tritonpack::errc::%s]\n", e.what(), tp::errc_name(e.code()));
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lulesh: %s\n", e.what());
    return 1;
  }
}
